"""Helpers shared by the CUDA stream and event tests (tests/test_stream_*.py,
tests/test_event.py): markers, a foreign stream speaking the CUDA stream protocol, and
two fixtures (conftest.py registers this module as a plugin): cycles_per_ms, _sleep's
rate on this GPU, and restore_current_streams, which leaves every device's current
stream as the default one."""
import pytest

import ember


cuda = ember.cuda
HAS_GPU = cuda.is_available()
gpu = pytest.mark.gpu
two_gpus = pytest.mark.skipif(not HAS_GPU or cuda.device_count() < 2, reason="needs 2 GPUs")
cpu_only = pytest.mark.skipif(HAS_GPU, reason="checks the errors raised where no GPU is usable")


class ProtocolStream:
    """A foreign stream speaking the CUDA stream protocol (like cuda.core's)."""

    def __init__(self, handle, version=0):
        self.handle, self.version = handle, version

    def __cuda_stream__(self):
        return (self.version, self.handle)


@pytest.fixture
def restore_current_streams():
    """Leave every device's current stream as the default one (the stream files use it
    for every test: pytestmark)."""
    yield
    if HAS_GPU:
        cur = cuda.current_device()
        for d in range(cuda.device_count()):
            cuda.set_stream(cuda.default_stream(d))  # also makes d current
        cuda.set_device(cur)


@pytest.fixture(scope="module")
def cycles_per_ms():
    """_sleep's rate on this GPU, measured with timed events. The first launch also
    loads the kernel (lazy loading synchronises the context once)."""
    if not HAS_GPU:
        pytest.skip("needs a GPU")
    cuda._sleep(1000)
    cuda.synchronize()
    cuda._sleep(20_000_000)  # let the clocks ramp up before measuring
    s = cuda.Stream()
    start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    n = 100_000_000
    start.record(s)
    with cuda.stream(s):
        cuda._sleep(n)
    end.record(s)
    end.synchronize()
    rate = n / start.elapsed_time(end)
    assert 0.3e6 < rate < 5e6, f"implausible SM clock: {rate / 1e6:.2f} GHz"
    return rate


def sleep_ms(rate, ms):
    cuda._sleep(int(rate * ms))

