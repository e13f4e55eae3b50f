"""The device caching allocator's blocks, on a simulated device (memory_util.sim):
rounding and pool choice, statistics after every step, splitting, best fit and merging,
max_split_size's oversize blocks, and caching disabled."""
import pytest

from memory_util import KiB, M, MiB, blocks, ops, sim, stat


# ---- rounding and pool choice --------------------------------------------

@pytest.mark.parametrize("n, rounded", [(1, 512), (511, 512), (512, 512), (513, 1024),
                                        (1000, 1024), (MiB, MiB), (MiB + 1, MiB + 512)])
def test_round_size(n, rounded):
    assert sim().round_size(n) == rounded


@pytest.mark.parametrize("n, segment", [(512, 2 * MiB), (MiB, 2 * MiB), (MiB + 512, 20 * MiB),
                                        (10 * MiB - 512, 20 * MiB), (10 * MiB, 10 * MiB),
                                        (10 * MiB + 512, 12 * MiB), (25 * MiB, 26 * MiB)])
def test_allocation_size(n, segment):
    assert M._SimAllocator.allocation_size(n) == segment


def test_zero_bytes_allocates_nothing():
    a = sim()
    assert a.alloc(0) == 0
    a.free(0)
    assert a.memory_reserved() == 0 and ops(a) == []


@pytest.mark.parametrize("n, pool, segment", [(1, "small", 2 * MiB), (MiB, "small", 2 * MiB),
                                              (MiB + 1, "large", 20 * MiB),
                                              (12 * MiB, "large", 12 * MiB),
                                              (25 * MiB + 1, "large", 26 * MiB)])
def test_pool_choice(n, pool, segment):
    a = sim()
    a.alloc(n)
    [(p, _)] = blocks(a)
    assert p == pool and a.memory_reserved() == segment
    other = "large" if pool == "small" else "small"
    assert stat(a, f"segment.{pool}_pool.current") == 1
    assert stat(a, f"segment.{other}_pool.current") == 0


def test_roundup_power2_divisions():
    a = sim(conf="roundup_power2_divisions:4")
    a.alloc(1_200_000)  # between 1 MiB and 2 MiB: steps of 256 KiB
    assert a.memory_allocated() == 1_310_720
    b = sim(conf="roundup_power2_divisions:4")
    b.alloc(1000)  # not above 512 * 4: plain 512-byte rounding
    assert b.memory_allocated() == 1024


# ---- statistics after every step -----------------------------------------

def test_small_allocation_statistics_step_by_step():
    a = sim()
    p = a.alloc(1000)
    s = a.memory_stats()
    assert s["allocated_bytes.all.current"] == 1024
    assert s["allocated_bytes.small_pool.current"] == 1024
    assert s["allocated_bytes.large_pool.current"] == 0
    assert s["requested_bytes.all.current"] == 1000
    assert s["reserved_bytes.all.current"] == 2 * MiB
    assert s["segment.all.current"] == 1
    assert s["allocation.all.current"] == 1 and s["active.all.current"] == 1
    assert s["active_bytes.all.current"] == 1024
    assert s["inactive_split.all.current"] == 1
    assert s["inactive_split_bytes.all.current"] == 2 * MiB - 1024
    assert s["num_device_alloc"] == 1
    a.free(p)
    s = a.memory_stats()
    assert s["allocated_bytes.all.current"] == 0 and s["allocated_bytes.all.peak"] == 1024
    assert s["allocated_bytes.all.allocated"] == 1024 and s["allocated_bytes.all.freed"] == 1024
    assert s["requested_bytes.all.current"] == 0
    assert s["reserved_bytes.all.current"] == 2 * MiB
    assert s["active.all.current"] == 0 and s["allocation.all.freed"] == 1
    assert s["inactive_split.all.current"] == 0 and s["inactive_split_bytes.all.current"] == 0
    assert blocks(a) == [("small", [(2 * MiB, False)])]


def test_single_figures_match_memory_stats():
    a = sim()
    ptrs = [a.alloc(n) for n in (100, 3 * MiB, 50 * MiB)]
    a.free(ptrs[1])
    s = a.memory_stats()
    assert a.memory_allocated() == s["allocated_bytes.all.current"]
    assert a.max_memory_allocated() == s["allocated_bytes.all.peak"]
    assert a.memory_reserved() == s["reserved_bytes.all.current"]
    assert a.max_memory_reserved() == s["reserved_bytes.all.peak"]
    for key in ("allocated_bytes", "reserved_bytes", "active_bytes", "allocation", "segment"):
        for m in ("current", "peak", "allocated", "freed"):
            if m == "peak":
                continue  # peaks of the pools need not add up
            assert s[f"{key}.all.{m}"] == s[f"{key}.small_pool.{m}"] + s[f"{key}.large_pool.{m}"]


def test_memory_stats_has_torch_keys():
    s = sim().memory_stats()
    expected = {"num_alloc_retries", "num_ooms", "num_sync_all_streams", "num_device_alloc",
                "num_device_free", "max_split_size"}
    for name in ("allocation", "segment", "active", "inactive_split", "allocated_bytes",
                 "reserved_bytes", "active_bytes", "inactive_split_bytes", "requested_bytes"):
        for pool in ("all", "small_pool", "large_pool"):
            for m in ("current", "peak", "allocated", "freed"):
                expected.add(f"{name}.{pool}.{m}")
    for name in ("oversize_allocations", "oversize_segments"):
        for m in ("current", "peak", "allocated", "freed"):
            expected.add(f"{name}.{m}")
    assert expected <= set(s)
    assert list(s) == sorted(s)
    assert s["max_split_size"] == -1
    assert all(isinstance(v, int) for v in s.values())


def test_peaks_and_reset():
    a = sim()
    p = a.alloc(30 * MiB)
    q = a.alloc(5 * MiB)
    a.free(p)
    assert a.max_memory_allocated() == 35 * MiB and a.memory_allocated() == 5 * MiB
    assert a.max_memory_reserved() == 50 * MiB
    a.reset_peak_memory_stats()
    assert a.max_memory_allocated() == 5 * MiB and a.max_memory_reserved() == 50 * MiB
    a.empty_cache()
    assert a.memory_reserved() == 20 * MiB and a.max_memory_reserved() == 50 * MiB
    a.reset_peak_memory_stats()
    assert a.max_memory_reserved() == 20 * MiB
    s = a.memory_stats()
    assert s["allocated_bytes.all.allocated"] == 35 * MiB and s["num_sync_all_streams"] == 1
    a.reset_accumulated_memory_stats()
    s = a.memory_stats()
    assert s["allocated_bytes.all.allocated"] == 0 and s["allocated_bytes.all.freed"] == 0
    assert s["num_sync_all_streams"] == 0 and s["num_device_alloc"] == 0
    assert s["allocated_bytes.all.current"] == 5 * MiB  # current figures are untouched
    a.free(q)
    assert a.memory_allocated() == 0


# ---- splitting, best fit, merging ----------------------------------------

def test_split_is_contiguous_and_best_fit_reuses_the_smallest_hole():
    a = sim()
    x, y, z = (a.alloc(100 * KiB) for _ in range(3))
    assert y == x + 100 * KiB and z == y + 100 * KiB
    a.free(y)  # a 100 KiB hole between x and z, and the 1.7 MiB tail
    w = a.alloc(50 * KiB)
    assert w == y
    [(_, segs)] = blocks(a)
    assert segs == [(100 * KiB, True), (50 * KiB, True), (50 * KiB, False), (100 * KiB, True),
                    (2 * MiB - 300 * KiB, False)]
    assert stat(a, "inactive_split.all.current") == 2
    assert stat(a, "inactive_split_bytes.all.current") == 50 * KiB + 2 * MiB - 300 * KiB


def test_free_merges_with_both_neighbours():
    a = sim()
    x, y, z = (a.alloc(100 * KiB) for _ in range(3))
    a.free(x)
    a.free(z)  # merges with the tail
    assert [b for _, b in blocks(a)] == [[(100 * KiB, False), (100 * KiB, True),
                                         (2 * MiB - 200 * KiB, False)]]
    a.free(y)  # merges with both
    assert blocks(a) == [("small", [(2 * MiB, False)])]
    assert stat(a, "inactive_split.all.current") == 0
    a.empty_cache()
    assert a.memory_reserved() == 0 and a.used() == 0


def test_small_pool_splits_down_to_512_bytes():
    a = sim()
    a.alloc(MiB)
    a.alloc(MiB - 512)  # leaves exactly 512 bytes of the 2 MiB segment: split
    assert blocks(a) == [("small", [(MiB, True), (MiB - 512, True), (512, False)])]
    a.alloc(512)
    assert blocks(a) == [("small", [(MiB, True), (MiB - 512, True), (512, True)])]
    assert a.memory_reserved() == 2 * MiB


def test_large_pool_keeps_remainders_of_one_mib_or_less():
    a = sim()
    p = a.alloc(19 * MiB + 512)
    a.free(p)
    q = a.alloc(19 * MiB + 512)  # reuses the cached 20 MiB segment
    assert q == p
    a.free(q)
    r = a.alloc(19 * MiB)  # 1 MiB would remain: not > 1 MiB, so not split
    assert a.memory_allocated() == 20 * MiB and blocks(a) == [("large", [(20 * MiB, True)])]
    a.free(r)
    a.alloc(2 * MiB)  # 18 MiB remain: split
    assert blocks(a) == [("large", [(2 * MiB, True), (18 * MiB, False)])]


def test_one_to_ten_mib_requests_share_a_20_mib_segment():
    a = sim()
    ptrs = [a.alloc(3 * MiB) for _ in range(6)]
    assert a.memory_reserved() == 20 * MiB  # six 3 MiB blocks fit in one segment
    a.alloc(3 * MiB)
    assert a.memory_reserved() == 40 * MiB
    assert ptrs[1] - ptrs[0] == 3 * MiB


def test_best_fit_prefers_smaller_cached_block():
    a = sim()
    big = a.alloc(40 * MiB)
    small = a.alloc(30 * MiB)
    a.free(big)
    a.free(small)
    assert a.alloc(25 * MiB) == small  # the 30 MiB segment fits best
    assert a.memory_reserved() == 70 * MiB


# ---- max_split_size ------------------------------------------------------

def test_max_split_size_oversize_blocks():
    a = sim(conf="max_split_size_mb:64")
    assert stat(a, "max_split_size") == 64 * MiB
    p = a.alloc(100 * MiB)
    assert stat(a, "oversize_allocations.current") == 1
    assert stat(a, "oversize_segments.current") == 1
    a.free(p)
    assert stat(a, "oversize_allocations.current") == 0
    q = a.alloc(50 * MiB)  # never carved from the oversize block
    assert q != p and a.memory_reserved() == 150 * MiB
    a.free(q)
    r = a.alloc(70 * MiB)  # 100 >= 70 + 20 MiB: too wasteful, a new segment
    assert r != p and a.memory_reserved() == 220 * MiB
    s = a.alloc(90 * MiB)  # within 20 MiB: takes the oversize block whole, unsplit
    assert s == p and a.memory_allocated() == 170 * MiB
    assert blocks(a)[0] == ("large", [(100 * MiB, True)])


def test_max_split_size_oom_frees_the_smallest_sufficient_oversize_block():
    a = sim(total=400 * MiB, conf="max_split_size_mb:64")
    p = a.alloc(100 * MiB)
    q = a.alloc(200 * MiB)
    keep = a.alloc(5 * MiB)  # a 20 MiB segment
    a.free(p)
    a.free(q)
    a.log()
    a.alloc(150 * MiB)  # neither cached block may serve it; 320 + 150 > 400
    assert a.log() == [("malloc_failed", 150 * MiB, 0), ("free", q, 0), ("malloc", 150 * MiB, a.snapshot()[-1]["ptr"])]
    assert a.memory_stats()["num_alloc_retries"] == 0  # no full release was needed
    assert a.memory_reserved() == 270 * MiB
    a.free(keep)


def test_max_split_size_oom_frees_largest_oversize_blocks_until_enough():
    a = sim(total=300 * MiB, conf="max_split_size_mb:64")
    p = a.alloc(100 * MiB)
    q = a.alloc(120 * MiB)
    a.alloc(5 * MiB)
    a.free(p)
    a.free(q)
    a.log()
    a.alloc(150 * MiB)  # 240 + 150 > 300: free 120, then 100 MiB, then retry
    assert ops(a) == ["malloc_failed", "free", "free", "malloc"]
    assert a.memory_reserved() == 170 * MiB


# ---- caching disabled ----------------------------------------------------

def test_caching_disabled_is_one_malloc_per_allocation():
    a = sim(conf="caching:False")
    p = a.alloc(1000)
    assert a.log() == [("malloc", 1000, p)]
    assert a.memory_allocated() == 1000 and a.memory_reserved() == 1000
    q = a.alloc(1000)
    assert q != p
    a.free(p)
    assert a.log()[-1] == ("free", p, 0)
    assert a.memory_reserved() == 1000
    a.record_stream(q, 5)  # accepted; cudaFree waits for the device anyway
    a.free(q)
    assert a.memory_reserved() == 0 and a.used() == 0
    s = a.memory_stats()
    assert s["num_device_alloc"] == 2 and s["num_device_free"] == 2
