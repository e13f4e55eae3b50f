"""Ordering and concurrency made visible with _sleep: wait_stream orders, streams
without waits overlap, protocol objects and self in wait_stream; synchronize releases
the GIL."""
import threading
import time

import pytest

from cuda_util import ProtocolStream, cuda, gpu, sleep_ms

pytestmark = pytest.mark.usefixtures("restore_current_streams")


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
