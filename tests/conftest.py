import pytest

import ember

HAS_GPU = ember.cuda.is_available()
NO_GPU_REASON = (
    "needs an NVIDIA GPU: ember.cuda.is_available() is False here "
    + ("(CPU-only build)" if not ember._C._compiled_with_cuda else "(no GPU or driver)")
)


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
