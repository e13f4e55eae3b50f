"""The device caching allocator against a model of torch's caching policy, on a simulated
device (memory_util.sim): random sequences of allocations and frees, with and without
max_split_size, give the model's statistics after every step."""
import random

import pytest

from memory_util import MiB, sim


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
