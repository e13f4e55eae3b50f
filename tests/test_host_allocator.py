"""The pinned host allocator's bookkeeping over a malloc backing (no GPU):
rounding without powers of two, reuse, reuse gated on events (polled, never
waited for), release, statistics."""
import pytest

import ember

M = ember._C._memory
KiB = 1024
MiB = 1024 * KiB


@pytest.fixture
def h():
    return M._SimHostAllocator()


def stats(h):
    return h.stats()


@pytest.mark.parametrize("n, rounded", [(1, 4096), (4096, 4096), (4097, 8192),
                                        (600 * MiB + 1, 600 * MiB + 4096),
                                        (513 * MiB, 513 * MiB)])
def test_round_size_is_pages_not_powers_of_two(n, rounded):
    assert M._SimHostAllocator.round_size(n) == rounded


def test_large_block_costs_its_size_not_the_next_power_of_two(h):
    h.alloc(600 * MiB + 1)
    assert h.used() == 600 * MiB + 4096
    assert stats(h)["allocated_bytes.current"] == 600 * MiB + 4096


def test_zero_bytes(h):
    assert h.alloc(0) == 0
    h.free(0)
    assert h.used() == 0


def test_freed_block_is_reused(h):
    p = h.alloc(10000)
    h.free(p)
    assert h.alloc(10000) == p
    assert h.alloc(10000) != p
    s = stats(h)
    assert s["allocations.current"] == 2 and s["num_host_alloc"] == 2
    assert s["active_requests.current"] == 2 and s["active_bytes.current"] == 2 * 12288


def test_reuse_only_when_at_most_a_quarter_is_wasted(h):
    p = h.alloc(100 * MiB)
    h.free(p)
    q = h.alloc(60 * MiB)  # 100 MiB would waste 40 %: a new block
    assert q != p
    r = h.alloc(90 * MiB)  # 100 MiB wastes 10 %: reused
    assert r == p
    assert h.counts() == (2, 0, 0)


def test_reuse_waits_for_recorded_streams_without_blocking(h):
    p = h.alloc(MiB)
    h.record_stream(p, 7)
    h.log()
    h.free(p)
    assert [(c[0], c[2]) for c in h.log()] == [("record", 7)]
    assert h.counts() == (1, 0, 1)  # held, not reusable: the copy on stream 7 may run
    assert stats(h)["active_requests.current"] == 1
    q = h.alloc(MiB)
    assert q != p  # a new block rather than a wait
    h.complete(7)
    r = h.alloc(MiB)  # the event is polled: p is reusable now
    assert r == p
    assert all(c[0] != "sync" for c in h.log())  # the host never waited
    for x in (q, r):
        h.free(x)
    assert stats(h)["active_requests.current"] == 0


def test_several_streams_all_must_complete(h):
    p = h.alloc(4096)
    h.record_stream(p, 1)
    h.record_stream(p, 2)
    h.record_stream(p, 1)
    h.free(p)
    h.complete(1)
    assert h.alloc(4096) != p
    h.complete(2)
    assert h.alloc(4096) == p


def test_empty_cache_releases_only_reusable_blocks(h):
    p = h.alloc(MiB)
    q = h.alloc(2 * MiB)
    h.record_stream(q, 3)
    h.free(p)
    h.free(q)
    h.empty_cache()
    assert h.counts() == (1, 0, 1) and h.used() == 2 * MiB
    s = stats(h)
    assert s["num_host_free"] == 1 and s["allocations.current"] == 1
    h.complete(3)
    h.empty_cache()
    assert h.counts() == (0, 0, 0) and h.used() == 0


def test_failed_allocation_releases_the_cache_and_retries():
    h = M._SimHostAllocator(capacity=MiB)
    p = h.alloc(800 * KiB)
    h.free(p)
    h.log()
    q = h.alloc(900 * KiB)  # 800 KiB cached + 900 KiB > 1 MiB: release, retry
    assert [c[0] for c in h.log()] == ["malloc_failed", "free", "malloc"]
    with pytest.raises(RuntimeError, match="pinned"):
        h.alloc(600 * KiB)
    h.free(q)
    assert h.alloc(600 * KiB) > 0  # still working


def test_is_pinned_for_interior_pointers(h):
    p = h.alloc(10000)
    assert h.is_pinned(p) and h.is_pinned(p + 12287)
    assert not h.is_pinned(p + 12288) and not h.is_pinned(p - 1)
    h.free(p)
    assert h.is_pinned(p)  # cached blocks stay pinned
    h.empty_cache()
    assert not h.is_pinned(p)


def test_bad_pointers(h):
    p = h.alloc(100)
    with pytest.raises(ValueError):
        h.free(p + 8)
    h.free(p)
    with pytest.raises(ValueError):
        h.free(p)
    with pytest.raises(ValueError):
        h.record_stream(p, 1)


def test_statistics_keys_and_resets(h):
    p = h.alloc(MiB)
    h.free(p)
    s = stats(h)
    for name in ("allocations", "allocated_bytes", "active_requests", "active_bytes"):
        for m in ("current", "peak", "allocated", "freed"):
            assert f"{name}.{m}" in s
    for name in ("host_alloc_time", "host_free_time"):
        for m in ("total", "max", "min", "count", "avg"):
            assert f"{name}.{m}" in s
    assert s["num_host_alloc"] == 1 and s["host_alloc_time.count"] == 1
    assert s["active_requests.peak"] == 1 and s["active_requests.current"] == 0
    h.reset_peak_stats()
    assert stats(h)["active_requests.peak"] == 0
    h.reset_accumulated_stats()
    s = stats(h)
    assert s["num_host_alloc"] == 0 and s["allocated_bytes.allocated"] == 0
    assert s["allocated_bytes.current"] == MiB
