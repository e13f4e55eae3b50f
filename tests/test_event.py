"""ember.cuda.Event: lazy creation, record/wait/query/synchronize, timing, its error
messages, interprocess events between two processes, and GIL release."""
import multiprocessing as mp
import re
import threading
import time

import pytest

import ember
from cuda_util import cpu_only, cuda, gpu, sleep_ms, two_gpus


# ---- without a GPU / before CUDA ----

def test_interprocess_events_cannot_be_timed():
    with pytest.raises(ValueError, match="both interprocess and timed.*enable_timing"):
        cuda.Event(enable_timing=True, interprocess=True)


@pytest.mark.parametrize("handle", [b"", b"x" * 63, b"x" * 65])
def test_from_ipc_handle_checks_the_size(handle):
    with pytest.raises(ValueError, match=f"64 bytes .*got {len(handle)} bytes"):
        cuda.Event.from_ipc_handle(0, handle)


@cpu_only
def test_without_gpu_clear_runtime_error():
    for call in (lambda: cuda.Event(), lambda: cuda.Event(enable_timing=True),
                 lambda: cuda.Event.from_ipc_handle(0, bytes(64))):
        with pytest.raises(RuntimeError, match="CUDA|GPU|driver"):
            call()
    assert cuda.is_available() is False


# ---- basics ----

@gpu
def test_lazy_creation_and_repr():
    e = cuda.Event()
    assert e.cuda_event == 0 and e.device is None
    assert repr(e) == "<ember.cuda.Event uninitialized>"
    assert e.query() is True  # nothing recorded: nothing to wait for
    e.synchronize()
    e.wait()  # a no-op before the first record, as in torch
    e.record()
    assert e.cuda_event != 0
    assert e.device == ember.device("cuda", cuda.current_device())
    assert re.fullmatch(r"<ember.cuda.Event 0x[0-9a-f]+>", repr(e))
    e.synchronize()
    assert e.query() is True
    assert (e.enable_timing, e.blocking, e.interprocess) == (False, False, False)


@gpu
def test_query_while_work_runs(cycles_per_ms):
    s = cuda.Stream()
    e = cuda.Event(blocking=True)
    with cuda.stream(s):
        sleep_ms(cycles_per_ms, 50)
        e.record()  # the current stream: s
    assert e.query() is False
    e.synchronize()
    assert e.query() is True and s.query() is True


@gpu
def test_record_event_and_wait_event(cycles_per_ms):
    s1, s2 = cuda.Stream(), cuda.Stream()
    with cuda.stream(s1):
        sleep_ms(cycles_per_ms, 50)
    given = cuda.Event()
    assert s1.record_event(given) is given
    s2.wait_event(given)
    after = s2.record_event()
    assert not after.query()
    after.synchronize()
    assert s1.query()
    e = cuda.Event()
    e.record(s1)
    e.wait(s2)  # Event.wait(stream) is Stream.wait_event(event)


@gpu
def test_elapsed_time_matches_the_host_clock(cycles_per_ms):
    s = cuda.Stream()
    start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    start.record(s)
    with cuda.stream(s):
        sleep_ms(cycles_per_ms, 100)
    end.record(s)
    t0 = time.perf_counter()
    end.synchronize()
    host_ms = (time.perf_counter() - t0) * 1e3
    gpu_ms = start.elapsed_time(end)
    assert gpu_ms == pytest.approx(100, rel=0.25)
    assert abs(host_ms - gpu_ms) < 0.1 * gpu_ms + 3, (host_ms, gpu_ms)
    # Twice the cycles, twice the time.
    start.record(s)
    with cuda.stream(s):
        sleep_ms(cycles_per_ms, 200)
    end.record(s)
    end.synchronize()
    assert start.elapsed_time(end) == pytest.approx(2 * gpu_ms, rel=0.1)


# ---- errors ----

@gpu
def test_elapsed_time_errors(cycles_per_ms):
    plain = cuda.Event()
    plain.record()
    timed = cuda.Event(enable_timing=True)
    timed.record()
    cuda.synchronize()
    with pytest.raises(RuntimeError, match="start event was created without it.*enable_timing=True"):
        plain.elapsed_time(timed)
    with pytest.raises(RuntimeError, match="end event was created without it"):
        timed.elapsed_time(plain)
    never = cuda.Event(enable_timing=True)
    with pytest.raises(RuntimeError, match="record both events first.*end event was never recorded"):
        timed.elapsed_time(never)
    with pytest.raises(RuntimeError, match="record both events first.*start event was never"):
        never.elapsed_time(timed)
    start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    s = cuda.Stream()
    start.record(s)
    with cuda.stream(s):
        sleep_ms(cycles_per_ms, 100)
    end.record(s)
    with pytest.raises(RuntimeError, match="not completed yet.*synchronize"):
        start.elapsed_time(end)
    end.synchronize()
    assert start.elapsed_time(end) > 50  # the process is fine
    with pytest.raises(TypeError, match="needs an ember.cuda.Event"):
        start.elapsed_time(3)


@gpu
def test_argument_type_errors():
    s = cuda.Stream()
    with pytest.raises(TypeError, match="Expected an ember.cuda.Event"):
        s.wait_event("event")
    with pytest.raises(TypeError, match="Expected an ember.cuda.Event"):
        s.record_event(1)
    with pytest.raises(TypeError, match="Expected a CUDA stream"):
        cuda.Event().record(42)
    with pytest.raises(TypeError, match="Expected a CUDA stream"):
        cuda.Event().wait("s")


@gpu
def test_ipc_handle_needs_interprocess():
    with pytest.raises(RuntimeError, match="interprocess=True"):
        cuda.Event().ipc_handle()
    e = cuda.Event(interprocess=True)
    h = e.ipc_handle()  # created on the current device when not yet recorded
    assert isinstance(h, bytes) and len(h) == 64
    assert e.device == ember.device("cuda", cuda.current_device())
    assert e.interprocess


@two_gpus
def test_record_on_another_device_is_an_error():
    e = cuda.Event()
    e.record(cuda.Stream(device=0))
    with pytest.raises(RuntimeError, match="Event device cuda:0 does not match.*cuda:1.*another Event"):
        e.record(cuda.Stream(device=1))
    e.wait(cuda.Stream(device=1))  # waiting from another device is fine
    e.record(cuda.Stream(device=0))
    e.synchronize()


# ---- GIL ----

@gpu
def test_synchronize_releases_the_gil(cycles_per_ms):
    stamps, stop = [], threading.Event()

    def spin():
        n = 0
        while not stop.is_set():
            n += 1
            if n % 200 == 0:
                stamps.append(time.perf_counter())

    s = cuda.Stream()
    e = cuda.Event()
    with cuda.stream(s):
        sleep_ms(cycles_per_ms, 200)
        e.record()
    t = threading.Thread(target=spin)
    t.start()
    time.sleep(0.02)
    t0 = time.perf_counter()
    e.synchronize()
    t1 = time.perf_counter()
    stop.set()
    t.join()
    assert t1 - t0 > 0.1
    mid = [x for x in stamps if t0 + 0.3 * (t1 - t0) < x < t0 + 0.7 * (t1 - t0)]
    assert len(mid) > 10, "no other thread ran while Event.synchronize() waited"


# ---- interprocess ----

def _ipc_child(handle, to_parent, to_child, cycles):
    """Runs in a spawned process: opens the parent's event, records it after a sleep,
    then waits on the parent's record of it."""
    try:
        import ember
        c = ember.cuda
        e = c.Event.from_ipc_handle(0, handle)
        c._sleep(1000)  # load the kernel before anything must stay asynchronous
        c.synchronize()
        s = c.Stream()
        with c.stream(s):
            c._sleep(cycles)
        e.record(s)
        to_parent.put(("recorded",))
        s.synchronize()
        assert to_child.get(timeout=60) == "parent recorded"
        pending = not e.query()
        e.wait(s)
        mark = c.Event()
        mark.record(s)
        mark.synchronize()
        to_parent.put(("waited", pending, e.query()))
    except BaseException as exc:  # report, never hang the parent
        to_parent.put(("error", repr(exc)))


@gpu
def test_interprocess_event(cycles_per_ms):
    e = cuda.Event(interprocess=True)
    handle = e.ipc_handle()
    ctx = mp.get_context("spawn")
    to_parent, to_child = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_ipc_child,
                    args=(handle, to_parent, to_child, int(cycles_per_ms * 300)))
    p.start()
    try:
        msg = to_parent.get(timeout=120)
        assert msg == ("recorded",), msg
        assert e.query() is False  # the child's sleep is still running
        e.synchronize()
        assert e.query() is True
        s = cuda.Stream()
        with cuda.stream(s):
            sleep_ms(cycles_per_ms, 300)
        e.record(s)
        to_child.put("parent recorded")
        msg = to_parent.get(timeout=120)
        assert msg == ("waited", True, True), msg
        p.join(timeout=60)
        assert p.exitcode == 0
    finally:
        if p.is_alive():
            p.kill()
        cuda.synchronize()
