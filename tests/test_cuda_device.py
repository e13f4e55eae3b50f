"""ember.cuda's device functions against torch.cuda and nvidia-smi."""
import shutil
import subprocess
import threading

import pytest

import ember
from conftest import import_torch

gpu = pytest.mark.gpu


def test_is_available_matches_device_count():
    assert ember.cuda.is_available() == (ember.cuda.device_count() > 0)
    assert isinstance(ember.cuda.device_count(), int)


def test_device_context_with_none_is_a_noop():
    with ember.cuda.device(None):
        pass
    with ember.cuda.device(-1):
        pass


def test_cpu_device_is_rejected_by_cuda_functions():
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        ember.cuda.device("cpu")
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        ember.cuda.get_device_properties("cpu")


def test_version_module():
    assert ember.version.__version__ == ember.__version__
    if ember._C._compiled_with_cuda:
        major, minor = ember.version.cuda.split(".")
        assert int(major) >= 12 and int(minor) >= 0
    else:
        assert ember.version.cuda is None


@gpu
def test_current_and_set_device():
    n = ember.cuda.device_count()
    assert 0 <= ember.cuda.current_device() < n
    for spec in (0, "cuda:0", ember.device("cuda", 0)):
        ember.cuda.set_device(spec)
        assert ember.cuda.current_device() == 0
    ember.cuda.set_device(-1)  # negative: a no-op, as in torch
    assert ember.cuda.current_device() == 0


@gpu
def test_invalid_ordinals_say_how_many_devices():
    n = ember.cuda.device_count()
    for call in (lambda: ember.cuda.set_device(99), lambda: ember.cuda.get_device_properties(99),
                 lambda: ember.cuda.mem_get_info("cuda:99"), lambda: ember.cuda.synchronize(99),
                 lambda: ember.cuda.device("cuda:99").__enter__()):
        with pytest.raises(ember.cuda.CudaError, match=f"Invalid device ordinal 99: ember sees {n}"):
            call()
    assert issubclass(ember.cuda.CudaError, RuntimeError)
    ember.cuda.synchronize()  # still usable
    assert ember.cuda.current_device() == 0


@gpu
def test_device_context_restores_also_on_exception():
    ember.cuda.set_device(0)
    last = ember.cuda.device_count() - 1
    with ember.cuda.device(last):
        assert ember.cuda.current_device() == last
        with ember.cuda.device("cuda:0"):
            assert ember.cuda.current_device() == 0
        assert ember.cuda.current_device() == last
    assert ember.cuda.current_device() == 0
    with pytest.raises(KeyError):
        with ember.cuda.device(ember.device("cuda", last)):
            raise KeyError("boom")
    assert ember.cuda.current_device() == 0


@gpu
def test_current_device_is_per_thread():
    seen = []

    def worker():
        seen.append(ember.cuda.current_device())

    ember.cuda.set_device(0)
    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen == [0]


@gpu
def test_properties_match_torch(torch):
    for i in range(ember.cuda.device_count()):
        e, t = ember.cuda.get_device_properties(i), torch.cuda.get_device_properties(i)
        assert e.name == t.name
        assert (e.major, e.minor) == (t.major, t.minor)
        assert e.total_memory == t.total_memory
        assert e.multi_processor_count == t.multi_processor_count
        assert e.L2_cache_size == t.L2_cache_size
        assert e.warp_size == t.warp_size
        assert e.uuid == str(t.uuid)
        assert ember.cuda.get_device_name(i) == torch.cuda.get_device_name(i)
        assert ember.cuda.get_device_capability(i) == torch.cuda.get_device_capability(i)
        r = repr(e)
        assert r.startswith("_CudaDeviceProperties(name='") and f"{e.multi_processor_count}" in r
    assert ember.cuda.get_device_name() == ember.cuda.get_device_name(ember.device("cuda"))


@gpu
def test_properties_match_nvidia_smi():
    if shutil.which("nvidia-smi") is None:
        pytest.skip("nvidia-smi is not installed")
    out = subprocess.run(["nvidia-smi", "--query-gpu=name,uuid,memory.total",
                          "--format=csv,noheader,nounits"], capture_output=True, text=True,
                         check=True).stdout.strip().splitlines()
    name, uuid, mib = [x.strip() for x in out[0].split(",")]
    p = ember.cuda.get_device_properties(0)
    assert p.name == name
    assert "GPU-" + p.uuid == uuid
    assert abs(p.total_memory / 2**20 - int(mib)) < 1024


@gpu
def test_mem_get_info_and_synchronize():
    free, total = ember.cuda.mem_get_info()
    assert 0 < free <= total == ember.cuda.get_device_properties(0).total_memory
    for spec in (None, 0, "cuda:0", ember.device("cuda:0")):
        ember.cuda.synchronize(spec)
        assert ember.cuda.mem_get_info(spec)[1] == total
    torch = import_torch(cuda=True)  # mid-test: what comes before runs without torch
    assert ember.cuda.mem_get_info()[1] == torch.cuda.mem_get_info()[1]


@gpu
def test_init_is_idempotent():
    ember.cuda.init()
    ember.cuda.init()
    assert ember.cuda.is_initialized()


@gpu
def test_device_of_without_tensor_is_noop():
    with ember.cuda.device_of(object()):
        assert ember.cuda.current_device() == 0
