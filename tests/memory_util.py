"""Helpers shared by the tests of the device caching allocator on a simulated device
(tests/test_memory_allocator_*.py, tests/test_memory_stream_order.py).

ember._C._memory._SimAllocator is the real allocator over a fake device:
addresses are fake, streams are ints, events complete when the test says so,
and every backing call that matters (cudaMalloc, cudaFree, event record, stream
wait, host sync) is logged.
"""
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

