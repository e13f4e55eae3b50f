"""The CUDA-backed caching allocators on a GPU, with torch as the oracle.

Concurrency comes from torch streams and torch.cuda._sleep (about 0.5 ms per
million cycles on an H100); ember's stream-ordered memset/memcpy test helpers
(ember._C._memory) write and read the memory, so races are observable
without tensors.
"""
import os
import random
import shutil
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import ember

pytestmark = pytest.mark.gpu

M = ember._C._memory
cuda = ember.cuda
KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB
SLEEP = 50_000_000  # cycles: ~25 ms on an H100


@pytest.fixture(autouse=True)
def _empty_cache():
    cuda.empty_cache()
    yield
    cuda.empty_cache()


def warm_up(torch, *streams):
    """Loads the kernels and creates the events the tests use, so that the
    timed parts do not hit CUDA's lazy loading (which synchronises)."""
    for s in streams:
        with torch.cuda.stream(s):
            torch.cuda._sleep(1000)
    p = cuda.caching_allocator_alloc(4096, stream=streams[0])
    M._memset_async(p, 0, 4096, streams[0])
    cuda.caching_allocator_delete(p)
    q = cuda.caching_allocator_alloc(4096, stream=streams[-1])  # a cross-stream take
    cuda.caching_allocator_delete(q)
    torch.cuda.synchronize()


def read_back(host, ptr, n, stream):
    M._memcpy_async(host.ptr, ptr, n, stream)
    M._stream_synchronize(stream)
    return host.read(0, n)


# ---- parity with torch ---------------------------------------------------

def parity_ops(seed, count):
    rng = random.Random(seed)
    fixed = [1, 511, 512, 513, MiB, MiB + 1, 5 * MiB, 10 * MiB - 1, 10 * MiB, 10 * MiB + 1,
             25 * MiB, 100 * MiB + 3]
    ops = [("alloc", n) for n in fixed] + [("free", 2), ("free", 6), ("alloc", 3 * MiB),
                                            ("alloc", 700), ("free", 0)]
    live = len(fixed) + 2 - 3
    for _ in range(count):
        if live and rng.random() < 0.45:
            ops.append(("free", rng.randrange(live)))
            live -= 1
        else:
            ops.append(("alloc", int(2 ** rng.uniform(0, 28))))  # up to 256 MiB
            live += 1
    return ops


PARITY_KEYS = ["allocated_bytes.all.current", "reserved_bytes.all.current",
               "requested_bytes.all.current", "allocation.all.current", "segment.all.current",
               "active_bytes.all.current", "inactive_split.all.current",
               "inactive_split_bytes.all.current", "segment.large_pool.current",
               "reserved_bytes.small_pool.current"]


def test_same_sequence_same_figures_as_torch(torch):
    # In a fresh process, so that neither allocator starts with blocks cached
    # by earlier tests (which would change where later requests land).
    here = os.path.dirname(os.path.abspath(__file__))
    code = (f"import sys; sys.path.insert(0, {here!r}); import torch, test_memory_cuda as t; "
            "t.run_parity_sequence(torch); print('parity ok')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().endswith("parity ok")


def run_parity_sequence(torch):
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    assert torch.cuda.memory_reserved() == 0 and cuda.memory_reserved() == 0
    e0 = {k: cuda.memory_stats()[k] for k in PARITY_KEYS}
    t0 = {k: torch.cuda.memory_stats().get(k, 0) for k in PARITY_KEYS}
    e_live, t_live = [], []
    for step, (op, arg) in enumerate(parity_ops(seed=4, count=150)):
        if op == "alloc":
            e_live.append(cuda.caching_allocator_alloc(arg))
            t_live.append(torch.cuda.caching_allocator_alloc(arg))
        else:
            cuda.caching_allocator_delete(e_live.pop(arg))
            torch.cuda.caching_allocator_delete(t_live.pop(arg))
        assert (cuda.memory_allocated() - e0["allocated_bytes.all.current"]
                == torch.cuda.memory_allocated() - t0["allocated_bytes.all.current"]), step
        assert (cuda.memory_reserved() - e0["reserved_bytes.all.current"]
                == torch.cuda.memory_reserved() - t0["reserved_bytes.all.current"]), step
        if step % 10 == 0:
            es, ts = cuda.memory_stats(), torch.cuda.memory_stats()
            for k in PARITY_KEYS:
                assert es[k] - e0[k] == ts[k] - t0[k], (step, k)
    for p in e_live:
        cuda.caching_allocator_delete(p)
    for p in t_live:
        torch.cuda.caching_allocator_delete(p)
    torch.cuda.empty_cache()


def test_memory_stats_has_every_torch_key(torch):
    p = cuda.caching_allocator_alloc(1000)
    q = torch.cuda.caching_allocator_alloc(1000)
    try:
        ours = set(cuda.memory_stats())
        theirs = {k for k in torch.cuda.memory_stats()
                  if not k.startswith("reserved_bytes_by_private_pools")}
        assert theirs - ours == set()
    finally:
        cuda.caching_allocator_delete(p)
        torch.cuda.caching_allocator_delete(q)


@pytest.mark.slow
def test_max_split_size_parity_with_torch(torch):
    code = textwrap.dedent("""
        import random, torch, ember
        MiB = 1 << 20
        rng = random.Random(11)
        e, t = [], []
        for step in range(300):
            if e and rng.random() < 0.45:
                i = rng.randrange(len(e))
                ember.cuda.caching_allocator_delete(e.pop(i))
                torch.cuda.caching_allocator_delete(t.pop(i))
            else:
                n = int(2 ** rng.uniform(10, 28))
                e.append(ember.cuda.caching_allocator_alloc(n))
                t.append(torch.cuda.caching_allocator_alloc(n))
            assert ember.cuda.memory_allocated() == torch.cuda.memory_allocated(), step
            assert ember.cuda.memory_reserved() == torch.cuda.memory_reserved(), step
        es, ts = ember.cuda.memory_stats(), torch.cuda.memory_stats()
        for k in ("oversize_allocations.current", "oversize_segments.current", "max_split_size"):
            assert es[k] == ts[k], k
        print("ok")
    """)
    env = dict(os.environ, EMBER_CUDA_ALLOC_CONF="max_split_size_mb:64",
               PYTORCH_CUDA_ALLOC_CONF="max_split_size_mb:64",
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


# ---- stream ordering -----------------------------------------------------

def test_block_freed_on_one_stream_is_reused_on_another_without_corruption(torch):
    a, b = torch.cuda.Stream(), torch.cuda.Stream()
    warm_up(torch, a, b)
    n = MiB
    host = cuda._host_alloc(n)
    p = cuda.caching_allocator_alloc(n, stream=a)
    M._memset_async(p, 0, n, a)
    torch.cuda.synchronize()
    reserved = cuda.memory_reserved()
    reuses = cuda.memory_stats()["num_cross_stream_reuses"]
    # Stream a: a long sleep, then writes 1s; the block is freed while that is queued.
    with torch.cuda.stream(a):
        torch.cuda._sleep(SLEEP)
    M._memset_async(p, 1, n, a)
    t0 = time.perf_counter()
    cuda.caching_allocator_delete(p)
    q = cuda.caching_allocator_alloc(n, stream=b)  # stream b takes the same memory
    host_seconds = time.perf_counter() - t0
    assert q == p and cuda.memory_reserved() == reserved
    assert not a.query(), "the host waited for stream a"
    assert host_seconds < 0.005
    assert cuda.memory_stats()["num_cross_stream_reuses"] == reuses + 1
    # Stream b writes 2s and reads them back after a sleep twice as long: had b
    # not been ordered after a, a's 1s would land in between.
    M._memset_async(q, 2, n, b)
    with torch.cuda.stream(b):
        torch.cuda._sleep(2 * SLEEP)
    assert read_back(host, q, n, b) == b"\x02" * n
    cuda.caching_allocator_delete(q)
    host.free()


def test_record_stream_keeps_reuse_behind_the_other_streams_work(torch):
    a, b = torch.cuda.Stream(), torch.cuda.Stream()
    warm_up(torch, a, b)
    n = MiB
    host = cuda._host_alloc(n)

    def scenario(record):
        p = cuda.caching_allocator_alloc(n, stream=a)
        M._memset_async(p, 0, n, a)
        torch.cuda.synchronize()
        with torch.cuda.stream(b):  # stream b uses the block late
            torch.cuda._sleep(SLEEP)
        M._memset_async(p, 1, n, b)
        if record:
            cuda.caching_allocator_record_stream(p, b)
        cuda.caching_allocator_delete(p)
        q = cuda.caching_allocator_alloc(n, stream=a)  # reused at once on stream a
        assert q == p
        assert not b.query(), "the host waited for stream b"
        M._memset_async(q, 2, n, a)
        with torch.cuda.stream(a):
            torch.cuda._sleep(2 * SLEEP)
        data = read_back(host, q, n, a)
        torch.cuda.synchronize()
        cuda.caching_allocator_delete(q)
        return data

    # Without record_stream the race is real (this is what the test can see)...
    assert scenario(record=False) == b"\x01" * n
    # ...and record_stream orders the reuse after stream b's work.
    assert scenario(record=True) == b"\x02" * n
    host.free()


def test_streams_passed_as_int_handles_and_objects(torch):
    s = torch.cuda.Stream()
    for stream in (s, s.cuda_stream, None, 0):
        p = cuda.caching_allocator_alloc(1000, stream=stream)
        cuda.caching_allocator_delete(p)
    with pytest.raises(TypeError, match="stream"):
        cuda.caching_allocator_alloc(1000, stream="s")


# ---- out of memory -------------------------------------------------------

def test_allocate_until_oom_recovers_each_time():
    free, total = cuda.mem_get_info()
    base_allocated = cuda.memory_allocated()
    chunk = GiB
    for round_ in range(3):
        live = []
        try:
            with pytest.raises(cuda.OutOfMemoryError) as info:
                while True:
                    live.append(cuda.caching_allocator_alloc(chunk))
            e = info.value
            assert isinstance(e, RuntimeError) and len(live) > 0
            assert e.requested == chunk and e.gpu_total == total and e.device == 0
            assert e.allocated == base_allocated + len(live) * chunk
            # torch's format: exactly 1 GiB is "1024.00 MiB".
            assert str(e).startswith("CUDA out of memory. Tried to allocate 1024.00 MiB. GPU 0 "
                                     "has a total capacity of ")
            assert "is allocated by ember" in str(e)
        finally:
            for p in live:
                cuda.caching_allocator_delete(p)
        assert cuda.memory_allocated() == base_allocated
    assert cuda.memory_stats()["num_ooms"] >= 3
    p = cuda.caching_allocator_alloc(MiB)  # the process keeps working
    cuda.caching_allocator_delete(p)


def test_fraction_cap_refuses_past_the_cap():
    _, total = cuda.mem_get_info()
    cap = int(0.05 * total)
    before = cuda.memory_stats()
    cuda.set_per_process_memory_fraction(0.05)
    try:
        assert cuda.get_per_process_memory_fraction() == 0.05
        p = cuda.caching_allocator_alloc(cap // 2)
        with pytest.raises(cuda.OutOfMemoryError) as info:
            cuda.caching_allocator_alloc(cap // 2 + 64 * MiB)
        assert info.value.limit == cap
        assert "allowed by set_per_process_memory_fraction" in str(info.value)
        after = cuda.memory_stats()
        assert after["num_oom_rejections"] == before["num_oom_rejections"] + 1
        cuda.caching_allocator_delete(p)
    finally:
        cuda.set_per_process_memory_fraction(1.0)
    with pytest.raises(ValueError, match="Allowed range"):
        cuda.set_per_process_memory_fraction(1.5)


# ---- threads -------------------------------------------------------------

def test_multithreaded_stress_in_cpp(torch):
    streams = [0] + [torch.cuda.Stream().cuda_stream for _ in range(3)]
    before = cuda.memory_stats()
    allocations, overlaps, ooms = M._device_stress(0, streams, threads=4, iterations=5000,
                                                   max_size=8 * MiB, seed=1)
    torch.cuda.synchronize()
    after = cuda.memory_stats()
    assert overlaps == 0 and ooms == 0 and allocations > 5000
    for key in ("allocated_bytes.all.current", "active.all.current", "allocation.all.current",
                "requested_bytes.all.current"):
        assert after[key] == before[key], key
    assert (after["allocation.all.allocated"] - before["allocation.all.allocated"]
            == allocations)


def test_python_threads_on_several_streams(torch):
    streams = [torch.cuda.Stream() for _ in range(4)]
    before = cuda.memory_allocated()
    errors = []

    def work(seed):
        rng = random.Random(seed)
        live = []
        try:
            for _ in range(2000):
                if live and rng.random() < 0.5:
                    cuda.caching_allocator_delete(live.pop(rng.randrange(len(live))))
                else:
                    live.append(cuda.caching_allocator_alloc(rng.randrange(1, 4 * MiB),
                                                             stream=rng.choice(streams)))
            for p in live:
                cuda.caching_allocator_delete(p)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert cuda.memory_allocated() == before


# ---- configuration in a fresh process ------------------------------------

def test_caching_disabled_allocates_exactly():
    code = ("import ember\n"
            "p = ember.cuda.caching_allocator_alloc(1000)\n"
            "print(ember.cuda.memory_allocated(), ember.cuda.memory_reserved())\n"
            "ember.cuda.caching_allocator_delete(p)\n"
            "print(ember.cuda.memory_reserved(), ember.cuda.memory_stats()['num_device_free'])\n")
    env = dict(os.environ, EMBER_CUDA_ALLOC_CONF="caching:False",
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1000", "1000", "0", "1"]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("compute-sanitizer") is None, reason="needs compute-sanitizer")
@pytest.mark.parametrize("conf", ["", "caching:False"])
def test_compute_sanitizer_memcheck_is_clean(conf):
    code = textwrap.dedent("""
        import ember
        M = ember._C._memory
        host = ember.cuda._host_alloc(1 << 20)
        live = []
        for i in range(200):
            n = 512 * (1 + (i * 37) % 4096)
            p = ember.cuda.caching_allocator_alloc(n)
            M._memset_async(p, i % 256, n, 0)
            M._memcpy_async(host.ptr, p, min(n, 1 << 20), 0)
            live.append(p)
            if i % 3 == 0:
                ember.cuda.caching_allocator_delete(live.pop(0))
        for p in live:
            ember.cuda.caching_allocator_delete(p)
        M._stream_synchronize(0)
        host.free()
        ember.cuda.empty_cache()
    """)
    env = dict(os.environ, EMBER_CUDA_ALLOC_CONF=conf,
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run(["compute-sanitizer", "--tool", "memcheck", "--leak-check", "full",
                          sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert "ERROR SUMMARY: 0 errors" in out.stdout, out.stdout[-4000:] + out.stderr[-2000:]


# ---- pinned host memory --------------------------------------------------

def test_pinned_buffers_round_trip_and_are_reused(torch):
    n = 3 * MiB + 5
    stats0 = cuda.host_memory_stats()
    buf = cuda._host_alloc(n)
    assert buf.nbytes == n and buf.ptr != 0 and ember._C.cuda._is_pinned(buf.ptr)
    stats1 = cuda.host_memory_stats()
    assert stats1["allocated_bytes.current"] - stats0["allocated_bytes.current"] in (0, 3 * MiB + 4096)
    data = bytes(range(256)) * (n // 256) + bytes(n % 256)
    buf.write(data)
    dev = cuda.caching_allocator_alloc(n)
    s = torch.cuda.current_stream()
    M._memcpy_async(dev, buf.ptr, n, s)
    back = cuda._host_alloc(n)
    M._memcpy_async(back.ptr, dev, n, s)
    M._stream_synchronize(s)
    assert back.read() == data
    cuda.caching_allocator_delete(dev)
    ptr = buf.ptr
    buf.free()
    buf.free()  # idempotent
    again = cuda._host_alloc(n)
    assert again.ptr == ptr  # the cached block
    again.free()
    back.free()
    with pytest.raises(RuntimeError, match="already freed"):
        buf.read()


def test_pinned_reuse_waits_for_recorded_copies_without_blocking(torch):
    s = torch.cuda.Stream()
    warm_up(torch, s)
    n = MiB
    dev = cuda.caching_allocator_alloc(n, stream=s)
    buf = cuda._host_alloc(n)
    spare = cuda._host_alloc(n)  # cached now, so that no cudaHostAlloc runs below
    spare_ptr = spare.ptr
    spare.free()
    ptr = buf.ptr
    with torch.cuda.stream(s):
        torch.cuda._sleep(SLEEP)
    M._memcpy_async(dev, buf.ptr, n, s)  # a copy that reads the pinned buffer late
    buf.record_stream(s)
    t0 = time.perf_counter()
    buf.free()
    other = cuda._host_alloc(n)
    assert time.perf_counter() - t0 < 0.01 and not s.query()
    assert other.ptr == spare_ptr  # not buf: the copy may still read it
    s.synchronize()
    reused = cuda._host_alloc(n)
    assert reused.ptr == ptr
    for b in (other, reused):
        b.free()
    cuda.caching_allocator_delete(dev)


def test_pinned_blocks_are_not_rounded_to_powers_of_two():
    before = cuda.host_memory_stats()["allocated_bytes.current"]
    buf = cuda._host_alloc(100 * MiB + 1)
    grown = cuda.host_memory_stats()["allocated_bytes.current"] - before
    assert grown == 100 * MiB + 4096  # torch: 128 MiB
    buf.free()
    cuda.empty_cache()
    after = cuda.host_memory_stats()
    assert after["allocated_bytes.current"] <= before
    assert after["num_host_free"] >= 1


def test_memory_summary_and_snapshot_show_allocations():
    p = cuda.caching_allocator_alloc(5 * MiB)
    try:
        assert "ember CUDA memory summary, device ID 0" in cuda.memory_summary()
        segs = cuda.memory_snapshot()
        mine = [b for s in segs for b in s["blocks"] if b["address"] == p]
        assert mine and mine[0]["state"] == "active_allocated" and mine[0]["size"] == 5 * MiB
        assert cuda.memory_allocated("cuda:0") == cuda.memory_allocated(ember.device("cuda", 0))
        with pytest.raises(ember.cuda.CudaError, match="Invalid device ordinal"):
            cuda.memory_allocated(cuda.device_count())
    finally:
        cuda.caching_allocator_delete(p)
