import pytest

import ember

# Fixtures shared by the files of one family, requested by name (pytestmark = usefixtures).
pytest_plugins = ["amp_util", "cuda_util", "data_util"]

HAS_GPU = ember.cuda.is_available()
NO_GPU_REASON = (
    "needs an NVIDIA GPU: ember.cuda.is_available() is False here "
    + ("(CPU-only build)" if not ember._C._compiled_with_cuda else "(no GPU or driver)")
)
NO_TORCH_REASON = "needs torch, the oracle: it is not installed here"
NO_TORCH_CUDA_REASON = "needs torch with CUDA, the oracle on the GPU: torch has no CUDA here"


def pytest_collection_modifyitems(config, items):
    if HAS_GPU:
        return
    skip = pytest.mark.skip(reason=NO_GPU_REASON)
    for item in items:
        if item.get_closest_marker("gpu") is not None:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _restore_current_device():
    """Leave the current device as the test found it."""
    if not HAS_GPU:
        yield
        return
    before = ember.cuda.current_device()
    yield
    ember.cuda.set_device(before)


def _reset_allocator():
    ember.cuda.synchronize()
    ember.cuda.empty_cache()               # every device's unused blocks, pinned and staging too
    ember.cuda.reset_peak_memory_stats()   # the current device's peaks


@pytest.fixture(autouse=True)
def _fresh_allocator():
    """RMM's habit: a test that uses the GPU starts and ends with the caching allocators'
    caches emptied and the current device's peak statistics reset, so that no test's figures
    or reuse pattern depend on the tests before it. Only where CUDA is already initialised
    (the fixture never initialises it: tests of lazy initialisation stay meaningful); on a
    machine without a GPU it costs one boolean test. Accumulated statistics (num_* counters,
    .allocated/.freed totals) are left alone: tests read them as differences."""
    if not HAS_GPU:
        yield
        return
    if ember.cuda.is_initialized():
        _reset_allocator()
    yield
    if ember.cuda.is_initialized():
        _reset_allocator()


def import_torch(cuda=False):
    """torch, the oracle; skips the calling test with a reason where it is not installed
    (or, with cuda=True, where torch has no CUDA)."""
    torch = pytest.importorskip("torch", reason=NO_TORCH_REASON)
    if cuda and not torch.cuda.is_available():
        pytest.skip(NO_TORCH_CUDA_REASON)
    return torch


def _oracle(request):
    return import_torch(cuda=request.node.get_closest_marker("gpu") is not None)


@pytest.fixture
def torch(request):
    """torch, the oracle (skipped with a reason where it is missing). A test marked gpu
    compares on the GPU, so there torch must have CUDA too. Helpers for ember/torch pairs
    are in torch_util.py."""
    return _oracle(request)


@pytest.fixture
def torch_fp32(request):
    """The same torch with TF32 off in cuBLAS and cuDNN for the test (restored after): the
    oracle computes in full float32. A file can make it its `torch` by overriding that
    fixture with one returning torch_fp32."""
    torch = _oracle(request)
    old = (torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32)
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    yield torch
    torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = old
