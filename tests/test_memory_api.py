"""ember.cuda's memory API: names, argument handling and errors. Runs
everywhere; without a GPU nothing is allocated and every figure is 0."""
import pytest

import ember
from conftest import HAS_GPU

cuda = ember.cuda

FIGURES = ["memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved"]
TORCH_NAMES = FIGURES + [
    "memory_stats", "memory_stats_as_nested_dict", "memory_summary", "reset_peak_memory_stats",
    "reset_accumulated_memory_stats", "empty_cache", "caching_allocator_alloc",
    "caching_allocator_delete", "set_per_process_memory_fraction",
    "get_per_process_memory_fraction", "mem_get_info", "memory_snapshot", "host_memory_stats",
    "host_memory_stats_as_nested_dict", "reset_peak_host_memory_stats",
    "reset_accumulated_host_memory_stats", "OutOfMemoryError",
]


@pytest.mark.parametrize("name", TORCH_NAMES)
def test_torch_names_exist(name):
    assert callable(getattr(cuda, name))
    if name != "OutOfMemoryError":
        assert getattr(cuda.memory, name, None) is not None or name == "OutOfMemoryError"


def test_out_of_memory_error_is_a_runtime_error():
    assert issubclass(cuda.OutOfMemoryError, RuntimeError)


@pytest.mark.parametrize("name", FIGURES)
def test_figures_accept_every_device_form(name):
    f = getattr(cuda, name)
    values = {f(), f(None), f(0), f(-1), f("cuda"), f("cuda:0"), f(ember.device("cuda:0")),
              f(device=0), f(device=None)}
    assert len(values) == 1 and isinstance(values.pop(), int)


@pytest.mark.parametrize("name", FIGURES)
def test_figures_reject_bad_devices(name):
    f = getattr(cuda, name)
    with pytest.raises(ValueError, match="Expected a cuda device"):
        f("cpu")
    with pytest.raises(TypeError):
        f(1.5)
    with pytest.raises(TypeError, match="at most 1 positional argument"):
        f(0, 1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'dev'"):
        f(dev=0)
    assert f() >= 0  # still usable


def test_caching_allocator_alloc_argument_errors():
    with pytest.raises(ValueError, match="must not be negative"):
        cuda.caching_allocator_alloc(-1)
    with pytest.raises(TypeError, match="int number of bytes"):
        cuda.caching_allocator_alloc("10")
    with pytest.raises(TypeError, match="int number of bytes"):
        cuda.caching_allocator_alloc(True)
    with pytest.raises(TypeError, match="missing required argument 'size'"):
        cuda.caching_allocator_alloc()
    with pytest.raises(TypeError, match="multiple values"):
        cuda.caching_allocator_alloc(10, size=10)
    with pytest.raises(ValueError, match="Expected a cuda device"):
        cuda.caching_allocator_alloc(10, "cpu")


def test_caching_allocator_delete_argument_errors():
    cuda.caching_allocator_delete(0)  # like free(NULL)
    with pytest.raises(TypeError, match="int address"):
        cuda.caching_allocator_delete("0x10")
    with pytest.raises(ValueError, match="was not allocated by ember's caching allocator"):
        cuda.caching_allocator_delete(0x12345600)
    with pytest.raises(ValueError, match="not allocated by ember"):
        cuda.caching_allocator_record_stream(0x12345600, 0)


def test_memory_stats_before_any_allocation():
    s = cuda.memory_stats()
    if not HAS_GPU:
        assert all(v == 0 for k, v in s.items() if k != "max_split_size")
    assert "allocated_bytes.all.current" in s and "num_ooms" in s
    nested = cuda.memory_stats_as_nested_dict()
    assert nested["allocated_bytes"]["all"]["current"] == s["allocated_bytes.all.current"]
    host = cuda.host_memory_stats()
    assert "allocated_bytes.current" in host and "num_host_alloc" in host


def test_memory_summary_layout():
    text = cuda.memory_summary()
    lines = text.splitlines()
    assert "ember CUDA memory summary, device ID" in lines[1]
    assert all(len(line) == 77 for line in lines), {len(line) for line in lines}
    for label in ("Allocated memory", "GPU reserved memory", "Non-releasable memory",
                  "from large pool", "Oversize GPU segments", "Cross-stream reuses"):
        assert label in text
    short = cuda.memory_summary(abbreviated=True)
    assert "from large pool" not in short and len(short) < len(text)


def test_fraction_argument_type():
    with pytest.raises(TypeError, match="must be `float`"):
        cuda.set_per_process_memory_fraction(1)


@pytest.mark.skipif(HAS_GPU, reason="checks the behaviour without a GPU")
def test_without_a_gpu_allocation_raises_a_clear_error_and_nothing_breaks():
    with pytest.raises(RuntimeError):
        cuda.caching_allocator_alloc(10)
    with pytest.raises(RuntimeError):
        cuda._host_alloc(10)
    cuda.empty_cache()
    assert cuda.memory_allocated() == 0 and cuda.memory_snapshot() == []
    assert cuda.get_per_process_memory_fraction is not None
