"""The device caching allocator under pressure, on a simulated device (memory_util.sim):
the out-of-memory path and its recovery, the per-process memory fraction, garbage
collection past the threshold, bad pointers, and threads."""
import pytest

import ember
from memory_util import GiB, MiB, ops, sim


# ---- the out-of-memory path ----------------------------------------------

def test_oom_retry_frees_cache_then_succeeds():
    a = sim(total=64 * MiB)
    p = a.alloc(40 * MiB)
    a.free(p)
    a.log()
    q = a.alloc(50 * MiB)
    assert ops(a) == ["malloc_failed", "free", "malloc"]
    s = a.memory_stats()
    assert s["num_alloc_retries"] == 1 and s["num_sync_all_streams"] == 1 and s["num_ooms"] == 0
    assert a.memory_reserved() == 50 * MiB and a.memory_allocated() == 50 * MiB
    a.free(q)


def test_oom_error_figures_and_recovery():
    a = sim(total=64 * MiB)
    keep = a.alloc(50 * MiB)
    small = a.alloc(1000)  # a 2 MiB small segment, mostly unallocated
    with pytest.raises(ember.cuda.OutOfMemoryError) as info:
        a.alloc(30 * MiB)
    e = info.value
    assert isinstance(e, RuntimeError)
    assert e.requested == 30 * MiB and e.gpu_total == 64 * MiB
    assert e.gpu_free == 64 * MiB - 52 * MiB
    assert e.allocated == 50 * MiB + 1024
    assert e.reserved_unused == 2 * MiB - 1024
    assert e.largest_free_block == 2 * MiB - 1024
    assert e.limit == 0 and e.device == 0
    msg = str(e)
    assert msg.startswith("CUDA out of memory. Tried to allocate 30.00 MiB. GPU 0 has a total "
                          "capacity of 64.00 MiB of which 12.00 MiB is free.")
    assert "50.00 MiB is allocated by ember" in msg
    assert "empty_cache()" in msg and "max_split_size_mb" in msg
    s = a.memory_stats()
    assert s["num_ooms"] == 1 and s["num_alloc_retries"] == 1
    # Nothing leaked, and the allocator keeps working.
    assert a.memory_allocated() == 50 * MiB + 1024 and a.live_allocations() == 2
    a.free(keep)
    p = a.alloc(30 * MiB)
    assert a.memory_allocated() == 30 * MiB + 1024
    a.free(p)
    a.free(small)


def test_simulated_malloc_failure_then_recovery():
    a = sim()
    a.alloc(1000)
    before = a.memory_allocated()
    a.fail_next_mallocs(2)  # the first try and the retry both fail
    with pytest.raises(ember.cuda.OutOfMemoryError):
        a.alloc(5 * MiB)
    assert a.memory_allocated() == before
    p = a.alloc(5 * MiB)  # the device "recovered"
    assert a.memory_allocated() == before + 5 * MiB
    a.free(p)
    a.fail_next_mallocs(1)  # only the first try fails: the retry succeeds
    a.alloc(300 * MiB)
    assert a.memory_stats()["num_alloc_retries"] == 2


def test_allocate_until_oom_loop_recovers_each_time():
    a = sim(total=1 * GiB)
    for round_ in range(5):
        live = []
        with pytest.raises(ember.cuda.OutOfMemoryError):
            while True:
                live.append(a.alloc(37 * MiB + round_ * 1000))
        assert a.memory_stats()["num_ooms"] == round_ + 1
        for p in live:
            a.free(p)
        assert a.memory_allocated() == 0 and a.live_allocations() == 0
    a.empty_cache()
    assert a.memory_reserved() == 0 and a.used() == 0


def test_huge_request_is_an_oom_not_an_overflow():
    a = sim()
    with pytest.raises(ember.cuda.OutOfMemoryError):
        a.alloc(2**63)
    with pytest.raises(ember.cuda.OutOfMemoryError):
        a.alloc(2**64 - 1)
    assert a.memory_reserved() == 0


# ---- the per-process memory fraction -------------------------------------

def test_fraction_cap_refuses_without_calling_malloc():
    a = sim(total=1 * GiB)
    a.set_memory_fraction(0.25)
    assert a.get_memory_fraction() == 0.25
    p = a.alloc(200 * MiB)
    a.log()
    with pytest.raises(ember.cuda.OutOfMemoryError) as info:
        a.alloc(100 * MiB)
    assert not any(op.startswith("malloc") for op in ops(a))
    assert info.value.limit == 256 * MiB
    assert "256.00 MiB allowed" in str(info.value)
    s = a.memory_stats()
    assert s["num_ooms"] == 1 and s["num_oom_rejections"] == 1
    a.free(p)
    q = a.alloc(100 * MiB)  # carved from the cached 200 MiB block
    assert q == p and a.memory_reserved() == 200 * MiB
    a.free(q)


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan")])
def test_fraction_out_of_range(bad):
    a = sim()
    with pytest.raises(ValueError, match="fraction"):
        a.set_memory_fraction(bad)
    assert a.get_memory_fraction() == 1.0


# ---- garbage collection --------------------------------------------------

def test_garbage_collection_frees_old_blocks_past_the_threshold():
    a = sim(total=1 * GiB, conf="garbage_collection_threshold:0.5")
    for n in (100, 110, 120, 130, 140):
        a.free(a.alloc(n * MiB))
    assert a.memory_reserved() == 600 * MiB
    a.log()
    a.alloc(200 * MiB)
    # Over 512 MiB: the blocks older than average (100, 110, 120 MiB) go first.
    assert a.memory_reserved() == 600 * MiB - 330 * MiB + 200 * MiB
    assert [c[0] for c in a.log()] == ["free", "free", "free", "malloc"]


def test_no_garbage_collection_under_the_threshold():
    a = sim(total=1 * GiB, conf="garbage_collection_threshold:0.9")
    for n in (100, 110, 120):
        a.free(a.alloc(n * MiB))
    a.alloc(200 * MiB)
    assert a.memory_reserved() == 530 * MiB


# ---- errors from bad pointers --------------------------------------------

def test_unknown_and_double_free_raise_and_leave_the_allocator_working():
    a = sim()
    p = a.alloc(1000)
    with pytest.raises(ValueError, match="not a live allocation"):
        a.free(p + 512)
    a.free(p)
    with pytest.raises(ValueError, match="not a live allocation"):
        a.free(p)
    with pytest.raises(ValueError):
        a.record_stream(p, 1)
    assert a.alloc(1000) == p


# ---- threads -------------------------------------------------------------

def test_multithreaded_stress_keeps_statistics_consistent():
    a = sim(total=16 * GiB)
    a.set_logging(False)
    allocations, overlaps, ooms = a.stress([0, 1, 2, 3], threads=4, iterations=20000,
                                           max_size=64 * MiB, seed=7)
    assert allocations > 30000 and overlaps == 0 and ooms == 0
    s = a.memory_stats()
    assert a.live_allocations() == 0
    for key in ("allocated_bytes", "active_bytes", "requested_bytes", "allocation", "active"):
        assert s[f"{key}.all.current"] == 0, key
    assert s["allocation.all.allocated"] == s["allocation.all.freed"] == allocations
    assert s["reserved_bytes.all.current"] == a.used()
    a.complete_all()
    a.empty_cache()
    assert a.memory_reserved() == 0 and a.used() == 0 and a.segments() == 0


def test_stress_under_memory_pressure_recovers():
    a = sim(total=256 * MiB)
    a.set_logging(False)
    allocations, overlaps, ooms = a.stress([0, 1], threads=3, iterations=5000,
                                           max_size=96 * MiB, seed=3)
    assert overlaps == 0 and ooms > 0 and allocations > 0
    assert a.memory_allocated() == 0 and a.memory_stats()["num_ooms"] == ooms
    a.complete_all()
    a.empty_cache()
    assert a.used() == 0
