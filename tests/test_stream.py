"""ember.cuda.Stream, ExternalStream, the current stream and stream(): torch.cuda's
semantics, the CUDA stream protocol, and ordering/concurrency made visible with _sleep."""
import gc
import re
import threading
import time

import pytest

import ember
from conftest import import_torch

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


@pytest.fixture(autouse=True)
def _restore_current_streams():
    """Leave every device's current stream as the default one."""
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


# ---- the current stream ----

@gpu
def test_current_stream_defaults_and_is_cached():
    cur = cuda.current_stream()
    assert cur == cuda.default_stream() and cur.cuda_stream == 0
    assert cuda.current_stream() is cur  # no new object while it does not change
    assert cuda.current_stream(cuda.current_device()) is cur
    assert cuda.current_stream(ember.device("cuda", cuda.current_device())) is cur


@gpu
def test_set_stream_and_context():
    s = cuda.Stream()
    cuda.set_stream(s)
    assert cuda.current_stream() is s
    cuda.set_stream(cuda.default_stream())
    assert cuda.current_stream().cuda_stream == 0
    with cuda.stream(s):
        assert cuda.current_stream() is s
    assert cuda.current_stream().cuda_stream == 0


@gpu
def test_nesting_and_exceptions_restore():
    a, b = cuda.Stream(), cuda.Stream()
    default = cuda.current_stream()
    with cuda.stream(a):
        with cuda.stream(b):
            assert cuda.current_stream() == b
            with cuda.stream(None):
                assert cuda.current_stream() == b
        assert cuda.current_stream() == a
        with pytest.raises(ZeroDivisionError):
            with cuda.stream(b):
                1 / 0
        assert cuda.current_stream() == a
        with b:  # a Stream is its own context manager
            assert cuda.current_stream() == b
            with b:
                assert cuda.current_stream() == b
            assert cuda.current_stream() == b
        assert cuda.current_stream() == a
    assert cuda.current_stream() == default
    ctx = cuda.stream(a)  # one context object entered twice, nested
    with ctx:
        with cuda.stream(b):
            with ctx:
                assert cuda.current_stream() == a
            assert cuda.current_stream() == b
        assert cuda.current_stream() == a
    assert cuda.current_stream() == default


@gpu
def test_current_stream_keeps_its_owner_alive():
    cuda.set_stream(cuda.Stream())  # the only reference is "current"
    gc.collect()
    h = cuda.current_stream().cuda_stream
    assert h != 0
    other = cuda.Stream()
    assert other.cuda_stream != h  # not handed out again while current
    cuda.set_stream(cuda.default_stream())
    gc.collect()
    assert cuda.current_stream().cuda_stream == 0


@gpu
def test_current_stream_is_per_thread():
    s = cuda.Stream()
    seen = {}

    def worker():
        seen["before"] = cuda.current_stream().cuda_stream
        mine = cuda.Stream()
        cuda.set_stream(mine)
        seen["mine"] = cuda.current_stream() == mine

    with cuda.stream(s):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert cuda.current_stream() == s  # the thread's set_stream did not leak here
    assert seen == {"before": 0, "mine": True}


@gpu
def test_one_stream_entered_in_two_threads():
    """`with s:` on one Stream object from two threads at once: each thread leaves
    with its own previous stream."""
    s = cuda.Stream()
    barrier = threading.Barrier(2, timeout=10)
    seen = {}

    def worker(name):
        mine = cuda.Stream()
        cuda.set_stream(mine)
        barrier.wait()
        with s:
            barrier.wait()  # both inside
            if name == "second":
                barrier.wait()  # the first thread has left
                seen["second still inside"] = cuda.current_stream() == s
        if name == "first":
            barrier.wait()
        seen[name] = cuda.current_stream() == mine

    threads = [threading.Thread(target=worker, args=(n,)) for n in ("first", "second")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {"first": True, "second": True, "second still inside": True}


@gpu
def test_sleep_runs_on_the_current_stream(cycles_per_ms):
    s = cuda.Stream()
    with cuda.stream(s):
        sleep_ms(cycles_per_ms, 50)
    assert not s.query()
    assert cuda.default_stream().query()
    s.synchronize()
    assert s.query()


# ---- ordering and concurrency ----

@gpu
def test_wait_stream_orders(cycles_per_ms):
    s1, s2 = cuda.Stream(), cuda.Stream()
    with cuda.stream(s1):
        sleep_ms(cycles_per_ms, 100)
    s2.wait_stream(s1)
    e = cuda.Event()
    e.record(s2)
    assert not e.query() and not s2.query()
    e.synchronize()
    assert s1.query()  # s1's sleep finished before the event on s2


@gpu
def test_without_wait_streams_do_not_wait(cycles_per_ms):
    s1, s2 = cuda.Stream(), cuda.Stream()
    with cuda.stream(s1):
        sleep_ms(cycles_per_ms, 100)
    e = cuda.Event()
    e.record(s2)
    e.synchronize()
    assert not s1.query()
    s1.synchronize()


def _sleeps_ms(rate, ms, streams, serial):
    """GPU milliseconds for one sleep of `ms` on each of `streams`, run serially or not."""
    s1 = streams[0]
    start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    start.record(s1)
    for s in streams[1:]:
        s.wait_event(start)
    prev = None
    for s in streams:
        if serial and prev is not None:
            s.wait_stream(prev)
        with cuda.stream(s):
            sleep_ms(rate, ms)
        prev = s
    for s in streams[1:]:
        s1.wait_stream(s)
    end.record(s1)
    end.synchronize()
    return start.elapsed_time(end)


@gpu
def test_two_streams_overlap(cycles_per_ms):
    s1, s2 = cuda.Stream(), cuda.Stream()
    one = _sleeps_ms(cycles_per_ms, 40, [s1], serial=False)
    parallel = _sleeps_ms(cycles_per_ms, 40, [s1, s2], serial=False)
    serial = _sleeps_ms(cycles_per_ms, 40, [s1, s2], serial=True)
    assert parallel < 1.3 * one, (one, parallel)  # total time ~ one sleep
    assert serial > 1.8 * one, (one, serial)


@gpu
def test_wait_stream_accepts_protocol_objects_and_self(cycles_per_ms):
    s1, s2 = cuda.Stream(), cuda.Stream()
    with cuda.stream(s1):
        sleep_ms(cycles_per_ms, 50)
    s2.wait_stream(ProtocolStream(s1.cuda_stream))
    s2.wait_stream(s2)  # a no-op
    e = s2.record_event()
    assert isinstance(e, cuda.Event)
    assert not e.query()
    e.synchronize()
    assert s1.query()


# ---- GIL ----

def _progress_during(wait):
    """Timestamps at which another Python thread ran while `wait()` blocked."""
    stamps, stop = [], threading.Event()

    def spin():
        n = 0
        while not stop.is_set():
            n += 1
            if n % 200 == 0:
                stamps.append(time.perf_counter())

    t = threading.Thread(target=spin)
    t.start()
    time.sleep(0.02)
    t0 = time.perf_counter()
    wait()
    t1 = time.perf_counter()
    stop.set()
    t.join()
    return [x for x in stamps if t0 + 0.3 * (t1 - t0) < x < t0 + 0.7 * (t1 - t0)], t1 - t0


@gpu
@pytest.mark.parametrize("how", ["stream", "device"])
def test_synchronize_releases_the_gil(cycles_per_ms, how):
    s = cuda.Stream()
    with cuda.stream(s):
        sleep_ms(cycles_per_ms, 200)
    mid, waited = _progress_during(s.synchronize if how == "stream" else cuda.synchronize)
    assert waited > 0.1
    assert len(mid) > 10, "no other thread ran while synchronize() waited"


# ---- foreign streams ----

@gpu
def test_external_stream_never_destroys():
    s = cuda.Stream()
    ext = cuda.ExternalStream(s.cuda_stream)
    assert isinstance(ext, cuda.ExternalStream) and ext == s
    assert ext.device == s.device
    assert repr(ext).startswith("<ember.cuda.ExternalStream device=cuda:")
    assert cuda.ExternalStream(handle=s.cuda_stream) == s
    assert cuda.ExternalStream(ProtocolStream(s.cuda_stream)) == s
    del ext
    gc.collect()
    s.synchronize()  # still a valid stream
    assert cuda.ExternalStream(0).cuda_stream == 0


@gpu
def test_protocol_objects_everywhere(cycles_per_ms):
    s = cuda.Stream()
    foreign = ProtocolStream(s.cuda_stream)
    with cuda.stream(foreign):
        cur = cuda.current_stream()
        assert cur == s and cur.device == s.device
        sleep_ms(cycles_per_ms, 50)
    assert cuda.current_stream().cuda_stream == 0
    e = cuda.Event()
    e.record(foreign)
    assert not e.query()
    e.wait(ProtocolStream(0))
    cuda.set_stream(foreign)
    assert cuda.current_stream() == s
    cuda.set_stream(cuda.default_stream())
    e.synchronize()


@gpu
def test_torch_streams(torch, cycles_per_ms):
    torch.cuda._sleep(1000)  # load torch's kernel before timing anything
    torch.cuda.synchronize()
    ts = torch.cuda.Stream()
    # ExternalStream of a torch stream orders after torch's work on it.
    with torch.cuda.stream(ts):
        torch.cuda._sleep(int(cycles_per_ms * 100))
    e = cuda.Event()
    e.record(cuda.ExternalStream(ts.cuda_stream))
    assert not e.query()
    e.synchronize()
    assert ts.query()
    # torch runs on an ember stream.
    s = cuda.Stream()
    with torch.cuda.stream(torch.cuda.ExternalStream(s.cuda_stream)):
        torch.cuda._sleep(int(cycles_per_ms * 50))
    assert not s.query()
    s.synchronize()
    if not hasattr(ts, "__cuda_stream__"):
        pytest.skip(f"torch {torch.__version__} streams lack __cuda_stream__ (added in 2.10)")
    with cuda.stream(ts):
        assert cuda.current_stream().cuda_stream == ts.cuda_stream
        sleep_ms(cycles_per_ms, 50)
    assert not ts.query()
    ts.synchronize()
    s.wait_stream(ts)
    cuda.Event().record(ts)


@gpu
def test_cupy_streams(cycles_per_ms):
    cp = pytest.importorskip("cupy")
    cs = cp.cuda.Stream(non_blocking=True)
    ext = cuda.ExternalStream(cs.ptr)
    assert ext.cuda_stream == cs.ptr
    with cuda.stream(ext):
        sleep_ms(cycles_per_ms, 50)
    assert not cs.done
    cs.synchronize()
    assert cs.done
    if not hasattr(cs, "__cuda_stream__"):
        pytest.skip(f"CuPy {cp.__version__} streams lack __cuda_stream__")
    with cuda.stream(cs):
        assert cuda.current_stream().cuda_stream == cs.ptr
        sleep_ms(cycles_per_ms, 50)
    assert not cs.done
    e = cuda.Event()
    e.record(cs)
    e.synchronize()
    assert cs.done


# ---- several devices ----

@two_gpus
def test_stream_of_another_device_switches_device():
    cuda.set_device(0)
    s0, s1 = cuda.Stream(device=0), cuda.Stream(device=1)
    assert s1.device == ember.device("cuda:1")
    cuda.set_stream(s0)
    prev1 = cuda.current_stream(1)
    with cuda.stream(s1):
        assert cuda.current_device() == 1
        assert cuda.current_stream() == s1
        assert cuda.current_stream(0) == s0
    assert cuda.current_device() == 0
    assert cuda.current_stream(0) == s0
    assert cuda.current_stream(1) == prev1
    with pytest.raises(RuntimeError):
        with cuda.stream(s1):
            raise RuntimeError("boom")
    assert cuda.current_device() == 0 and cuda.current_stream(1) == prev1


@two_gpus
def test_external_stream_wrong_device():
    s1 = cuda.Stream(device=1)
    assert cuda.ExternalStream(s1.cuda_stream).device_index == 1
    with pytest.raises(ValueError, match="belongs to cuda:1, not cuda:0"):
        cuda.ExternalStream(s1.cuda_stream, device=0)
