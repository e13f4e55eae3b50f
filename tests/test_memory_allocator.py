"""The device caching allocator's bookkeeping, on a simulated device (no GPU).

ember._C._memory._SimAllocator is the real allocator over a fake device:
addresses are fake, streams are ints, events complete when the test says so,
and every backing call that matters (cudaMalloc, cudaFree, event record, stream
wait, host sync) is logged.
"""
import random

import pytest

import ember

M = ember._C._memory
KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB


def sim(total=8 * GiB, conf=""):
    return M._SimAllocator(total, conf)


def stat(a, key):
    return a.memory_stats()[key]


def blocks(a):
    """[(pool, [(size, allocated), ...]) per segment]"""
    return [(s["pool"], [(b["size"], b["allocated"]) for b in s["blocks"]]) for s in a.snapshot()]


def ops(a):
    return [c[0] for c in a.log()]


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


# ---- against a model of torch's policy -----------------------------------

class TorchPolicy:
    """A direct model of torch's CUDACachingAllocator for one stream; statistics
    are recomputed from the model's blocks, independently of the allocator's
    incremental accounting."""

    class Block:
        def __init__(self, ptr, size, small):
            self.ptr, self.size, self.small = ptr, size, small
            self.allocated, self.prev, self.next = False, None, None

    def __init__(self, max_split=None):
        self.max_split = max_split or 2**64
        self.free = []
        self.live = {}
        self.next_addr = 1 << 40
        self.segments = []

    @staticmethod
    def round(n):
        return max(512, (n + 511) // 512 * 512)

    @staticmethod
    def alloc_size(n):
        if n <= MiB:
            return 2 * MiB
        if n < 10 * MiB:
            return 20 * MiB
        return (n + 2 * MiB - 1) // (2 * MiB) * (2 * MiB)

    def alloc(self, n):
        size = self.round(n)
        small = size <= MiB
        fits = [b for b in self.free if b.small == small and b.size >= size]
        b = min(fits, key=lambda b: (b.size, b.ptr)) if fits else None
        if b is not None and ((size < self.max_split <= b.size)
                              or (size >= self.max_split and b.size >= size + 20 * MiB)):
            b = None
        if b is None:
            b = self.Block(self.next_addr, self.alloc_size(size), small)
            self.next_addr += b.size + 512
            self.segments.append(b)
        else:
            self.free.remove(b)
        rem = b.size - size
        split = rem >= 512 if small else (size < self.max_split and rem > MiB)
        if split:
            r = self.Block(b.ptr + size, rem, small)
            r.prev, r.next = b, b.next
            if b.next:
                b.next.prev = r
            b.next, b.size = r, size
            self.free.append(r)
        b.allocated = True
        self.live[b.ptr] = b
        return b.ptr

    def release(self, ptr):
        b = self.live.pop(ptr)
        b.allocated = False
        for n in (b.prev, b.next):
            if n is not None and not n.allocated:
                self.free.remove(n)
                if n is b.prev:
                    b.ptr, b.prev = n.ptr, n.prev
                    if b.prev:
                        b.prev.next = b
                    self.segments = [b if s is n else s for s in self.segments]
                else:
                    b.next = n.next
                    if b.next:
                        b.next.prev = b
                b.size += n.size
        self.free.append(b)

    def figures(self):
        out = {}
        for pool, small in (("small_pool", True), ("large_pool", False)):
            allb = []
            for s in self.segments:
                if s.small != small:
                    continue
                x = s
                while x is not None:
                    allb.append(x)
                    x = x.next
            out[f"allocated_bytes.{pool}.current"] = sum(b.size for b in allb if b.allocated)
            out[f"active.{pool}.current"] = sum(1 for b in allb if b.allocated)
            out[f"segment.{pool}.current"] = sum(1 for s in self.segments if s.small == small)
            inactive = [b for b in allb if not b.allocated and (b.prev or b.next)]
            out[f"inactive_split.{pool}.current"] = len(inactive)
            out[f"inactive_split_bytes.{pool}.current"] = sum(b.size for b in inactive)
            out[f"reserved_bytes.{pool}.current"] = sum(b.size for b in allb)
        return out


@pytest.mark.parametrize("seed, conf, max_split", [(1, "", None), (2, "", None),
                                                   (3, "max_split_size_mb:48", 48 * MiB)])
def test_matches_torch_policy_on_random_sequences(seed, conf, max_split):
    rng = random.Random(seed)
    a = sim(total=1 << 50, conf=conf)
    model = TorchPolicy(max_split)
    live = []
    for step in range(1500):
        if live and rng.random() < 0.45:
            i = rng.randrange(len(live))
            ptr, mptr = live.pop(i)
            a.free(ptr)
            model.release(mptr)
        else:
            n = int(2 ** rng.uniform(0, 27))  # 1 byte .. 128 MiB
            ptr = a.alloc(n)
            live.append((ptr, model.alloc(n)))
        s = a.memory_stats()
        for key, value in model.figures().items():
            assert s[key] == value, (step, key)
    for ptr, mptr in live:
        a.free(ptr)
    assert a.memory_allocated() == 0


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
