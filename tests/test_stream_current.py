"""The current stream: defaults and caching, set_stream and the stream() context,
nesting and exceptions, its owner kept alive, per thread, one stream entered in two
threads, _sleep on the current stream."""
import gc
import threading

import pytest

import ember
from cuda_util import cuda, gpu, sleep_ms

pytestmark = pytest.mark.usefixtures("restore_current_streams")


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
