"""ember.cuda's stream API with torch.cuda's semantics: the names, stream(None), the CUDA
stream protocol's checks, the errors before CUDA and without a GPU; Stream objects:
properties, errors, subclasses, equality and hashing, the pool, priorities."""
import gc
import re

import pytest

import ember
from conftest import import_torch
from cuda_util import HAS_GPU, ProtocolStream, cpu_only, cuda, gpu, sleep_ms

pytestmark = pytest.mark.usefixtures("restore_current_streams")


# ---- the API surface and what works without a GPU ----

def test_names_match_torch():
    for name in ["Stream", "ExternalStream", "Event", "StreamContext", "stream", "current_stream",
                 "default_stream", "set_stream", "_sleep"]:
        assert hasattr(cuda, name), name
    assert cuda.streams.Stream is cuda.Stream
    assert issubclass(cuda.ExternalStream, cuda.Stream)
    assert repr(cuda.Stream) == "<class 'ember.cuda.Stream'>"
    assert cuda.Stream.__hash__ is not None  # hashable although it defines __eq__


def test_stream_none_is_a_noop():
    ctx = cuda.stream(None)
    assert isinstance(ctx, cuda.StreamContext)
    assert ctx.stream is None
    before = cuda.current_stream() if HAS_GPU else None
    with ctx as entered:
        assert entered is None
        if HAS_GPU:
            assert cuda.current_stream() == before
    cuda.set_stream(None)  # also a no-op
    if HAS_GPU:
        assert cuda.current_stream() == before


def test_exception_inside_stream_none_propagates():
    with pytest.raises(KeyError):
        with cuda.stream(None):
            raise KeyError("x")


@pytest.mark.parametrize("bad", [42, "cuda:0", object(), 1.5])
def test_not_a_stream_is_a_type_error(bad):
    with pytest.raises(TypeError, match="Expected a CUDA stream.*__cuda_stream__"):
        cuda.set_stream(bad)
    with pytest.raises(TypeError, match="Expected a CUDA stream"):
        with cuda.stream(bad):
            pass
    cuda.set_stream(None)  # still usable


def test_protocol_version_and_shape_are_checked():
    with pytest.raises(ValueError, match="protocol version 1.*version 0"):
        cuda.set_stream(ProtocolStream(0, version=1))

    class Bad:
        def __cuda_stream__(self):
            return 7

    with pytest.raises(TypeError, match=r"must return a tuple \(version, handle\)"):
        cuda.set_stream(Bad())
    with pytest.raises(ValueError, match="non-negative"):
        cuda.set_stream(ProtocolStream(-1))
    with pytest.raises(TypeError, match="handle must be an int"):
        cuda.set_stream(ProtocolStream("0x10"))


def test_argument_errors_before_cuda():
    with pytest.raises(TypeError, match="priority must be an int"):
        cuda.Stream(priority="high")
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        cuda.Stream(device="cpu")
    with pytest.raises(TypeError, match="stream_ptr must be an int"):
        cuda.ExternalStream("0x10")
    with pytest.raises(ValueError, match="non-negative"):
        cuda.ExternalStream(-5)
    with pytest.raises(ValueError, match="cycles >= 0"):
        cuda._sleep(-1)


def test_exit_without_enter_is_an_error():
    ctx = cuda.StreamContext(ProtocolStream(0))
    with pytest.raises(RuntimeError, match="without a matching __enter__"):
        ctx.__exit__(None, None, None)


def test_uninitialised_stream_object_is_a_type_error():
    raw = cuda.Stream.__new__(cuda.Stream)  # __init__ never ran
    with pytest.raises(TypeError, match="never initialised.*super\\(\\).__init__"):
        cuda.set_stream(raw)
    with pytest.raises(TypeError, match="never initialised"):
        with cuda.stream(raw):
            pass


@cpu_only
@pytest.mark.parametrize("call", [
    lambda: cuda.Stream(),
    lambda: cuda.Stream(priority=-1),
    lambda: cuda.ExternalStream(0),
    lambda: cuda.current_stream(),
    lambda: cuda.default_stream(),
    lambda: cuda.Stream.priority_range(),
    lambda: cuda._sleep(1000),
    lambda: cuda.set_stream(ProtocolStream(0)),
], ids=["Stream", "Stream(priority)", "ExternalStream", "current_stream", "default_stream",
        "priority_range", "_sleep", "set_stream(protocol)"])
def test_without_gpu_clear_runtime_error(call):
    with pytest.raises(RuntimeError, match="CUDA|GPU|driver"):
        call()
    with pytest.raises(RuntimeError, match="CUDA|GPU|driver"):  # the same again: no crash
        call()
    assert cuda.is_available() is False


@cpu_only
def test_without_gpu_stream_context_raises_on_enter():
    with pytest.raises(RuntimeError, match="CUDA|GPU|driver"):
        with cuda.stream(ProtocolStream(0)):
            pass


# ---- Stream objects ----

@gpu
def test_stream_properties():
    s = cuda.Stream()
    d = cuda.current_device()
    assert s.device == ember.device("cuda", d)
    assert s.device_index == d
    assert isinstance(s.cuda_stream, int) and s.cuda_stream != 0
    assert s.priority == 0
    assert s.__cuda_stream__() == (0, s.cuda_stream)
    assert re.fullmatch(rf"<ember.cuda.Stream device=cuda:{d} cuda_stream=0x[0-9a-f]+>", repr(s))
    assert s.query() is True
    s.synchronize()


@gpu
def test_stream_errors_leave_the_process_usable():
    n = cuda.device_count()
    with pytest.raises(cuda.CudaError, match=f"Invalid device ordinal {n}"):
        cuda.Stream(device=n)
    with pytest.raises(cuda.CudaError, match="Invalid device ordinal"):
        cuda.current_stream(n)
    with pytest.raises(cuda.CudaError, match="Invalid device ordinal"):
        cuda.ExternalStream(0, device=n)
    s = cuda.Stream()
    with pytest.raises(RuntimeError, match="without a matching __enter__"):
        s.__exit__(None, None, None)
    with s:
        assert cuda.current_stream() == s
    assert cuda.current_stream().cuda_stream == 0


@gpu
def test_python_subclass():
    class MyStream(cuda.Stream):
        def tag(self):
            return "mine"

    s = MyStream(priority=-1)
    assert s.tag() == "mine" and isinstance(s, cuda.Stream)
    with cuda.stream(s):
        assert cuda.current_stream() is s
    assert s == cuda.ExternalStream(s.cuda_stream)
    assert repr(s).startswith(f"<{MyStream.__module__}.{MyStream.__qualname__} device=cuda:")


@gpu
def test_equality_and_hash():
    a, b = cuda.Stream(), cuda.Stream()
    assert a == a and a != b
    ext = cuda.ExternalStream(a.cuda_stream)
    assert ext == a and hash(ext) == hash(a)
    assert len({a, b, ext}) == 2
    assert a != object() and (a == a.cuda_stream) is False
    assert cuda.default_stream() == cuda.ExternalStream(0)
    assert repr(cuda.default_stream()) == f"<ember.cuda.Stream device=cuda:{a.device_index} cuda_stream=0x0>"


@gpu
def test_live_streams_never_alias():
    streams = [cuda.Stream() for _ in range(100)]
    assert len({s.cuda_stream for s in streams}) == 100
    created, free = cuda._c._stream_pool_stats()
    assert created >= 100


@gpu
def test_pool_grows_and_recycles():
    gc.collect()
    batch = [cuda.Stream() for _ in range(8)]
    handles = {s.cuda_stream for s in batch}
    created, _ = cuda._c._stream_pool_stats()
    del batch
    gc.collect()
    again = [cuda.Stream() for _ in range(8)]
    assert {s.cuda_stream for s in again} == handles  # recycled, not recreated
    assert cuda._c._stream_pool_stats()[0] == created
    more = cuda.Stream()  # a ninth live stream: the pool grows instead of aliasing
    assert more.cuda_stream not in handles


@gpu
def test_priority_range_and_clamping():
    least, greatest = cuda.Stream.priority_range()
    assert least >= greatest
    if "H100" in cuda.get_device_name():
        assert (least, greatest) == (0, -5)
    assert cuda.Stream(priority=-100).priority == greatest
    assert cuda.Stream(priority=100).priority == least
    assert cuda.Stream(priority=-10**30).priority == greatest
    assert cuda.Stream(priority=10**30).priority == least
    for p in range(greatest, least + 1):
        s = cuda.Stream(priority=p)
        assert s.priority == p
        assert cuda.ExternalStream(s.cuda_stream).priority == p  # what CUDA reports
    assert cuda.default_stream().priority == 0


@gpu
def test_priority_range_matches_the_driver():
    # torch caps its range at its own pool count ((0, -3) on Hopper); the
    # driver's range, which ember reports, is what CuPy reads.
    runtime = pytest.importorskip("cuda.bindings.runtime")
    err, least, greatest = runtime.cudaDeviceGetStreamPriorityRange()
    assert err == runtime.cudaError_t.cudaSuccess
    assert cuda.Stream.priority_range() == (least, greatest)
    s = cuda.Stream(priority=-3)
    torch = import_torch(cuda=True)  # mid-test: what comes before runs without torch
    assert torch.cuda.ExternalStream(s.cuda_stream).priority == max(-3, greatest)


@gpu
def test_streams_are_non_blocking(cycles_per_ms):
    """Work on the legacy default stream does not hold back an ember stream (torch's
    streams are non-blocking too)."""
    s = cuda.Stream()
    sleep_ms(cycles_per_ms, 100)  # on the current (legacy default) stream
    e = cuda.Event()
    e.record(s)
    e.synchronize()
    assert not cuda.default_stream().query()
    cuda.synchronize()
    assert cuda.default_stream().query()
