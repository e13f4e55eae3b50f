"""Stream ordering of the device caching allocator, on a simulated device.

What is checked is the allocator's decisions: which events it records on which
stream and which stream it makes wait for them -- and that the host never
waits ("sync") outside empty_cache.
"""
import pytest

from memory_util import GiB, M, MiB


@pytest.fixture
def a():
    return M._SimAllocator(8 * GiB)


def seg_blocks(a):
    return [(b["size"], b["allocated"], b["stream"], b["foreign"], b["events"])
            for s in a.snapshot() for b in s["blocks"]]


def test_reuse_on_the_same_stream_makes_no_cuda_calls(a):
    p = a.alloc(1000, stream=1)
    a.free(p)
    a.log()
    for _ in range(3):
        assert a.alloc(1000, stream=1) == p
        a.free(p)
    assert a.log() == []
    assert a.memory_stats()["num_cross_stream_reuses"] == 0


def test_other_stream_takes_freed_block_after_waiting_on_the_gpu(a):
    p = a.alloc(1000, stream=1)
    a.free(p)
    a.log()
    q = a.alloc(1000, stream=2)
    assert q == p  # no new segment: torch would cudaMalloc another 2 MiB here
    log = a.log()
    assert [c[0] for c in log] == ["record", "wait"]
    (_, event, on), (_, waiter, waited) = log
    assert on == 1 and waiter == 2 and waited == event
    assert a.memory_reserved() == 2 * MiB
    assert a.memory_stats()["num_cross_stream_reuses"] == 1
    # The rest of the segment moved to stream 2 with nothing left to wait for.
    assert seg_blocks(a) == [(1024, True, 2, 0, 0), (2 * MiB - 1024, False, 2, 0, 0)]
    a.free(q)
    assert a.alloc(1000, stream=2) == p
    assert a.log() == []  # stream 2 now owns it: no further events


def test_own_stream_is_preferred_over_a_better_fit_elsewhere(a):
    x = a.alloc(30 * MiB, stream=1)
    y = a.alloc(40 * MiB, stream=2)
    a.free(x)
    a.free(y)
    a.log()
    assert a.alloc(25 * MiB, stream=2) == y
    assert a.log() == []


def test_best_fit_across_other_streams(a):
    x = a.alloc(30 * MiB, stream=1)
    y = a.alloc(40 * MiB, stream=2)
    a.free(y)
    a.free(x)
    a.log()
    assert a.alloc(25 * MiB, stream=3) == x
    assert [(c[0], c[2] if c[0] == "record" else c[1]) for c in a.log()] == [("record", 1),
                                                                            ("wait", 3)]


def test_memory_moves_between_streams_instead_of_growing(a):
    for i in range(10):
        p = a.alloc(50 * MiB, stream=1 + i % 2)
        a.free(p)
    assert a.memory_reserved() == 50 * MiB
    assert a.memory_stats()["num_cross_stream_reuses"] == 9


def test_merged_neighbours_of_different_streams_carry_the_dependency(a):
    p = a.alloc(1000, stream=1)
    q = a.alloc(1000, stream=2)  # stream 1's tail is taken by stream 2 (cross-stream)
    assert q == p + 1024
    a.log()
    a.free(p)  # stream 1's block next to stream 2's allocation: not mergeable yet
    a.free(q)  # merges with p (stream 1) and the tail (stream 2)
    assert seg_blocks(a) == [(2 * MiB, False, 2, 1, 0)]
    assert a.log() == []
    r = a.alloc(4096, stream=2)
    log = a.log()
    assert [(c[0]) for c in log] == ["record", "wait"]
    assert log[0][2] == 1 and log[1][1] == 2  # stream 2 waits for stream 1's work
    assert r == p
    assert seg_blocks(a) == [(4096, True, 2, 0, 0), (2 * MiB - 4096, False, 2, 0, 0)]


def test_record_stream_event_is_waited_for_on_the_gpu(a):
    p = a.alloc(1000, stream=1)
    a.record_stream(p, 2)
    a.log()
    a.free(p)
    log = a.log()
    assert [(c[0], c[2]) for c in log] == [("record", 2)]
    event = log[0][1]
    # The block is back in stream 1's free list at once, with the event attached.
    assert seg_blocks(a) == [(2 * MiB, False, 1, 0, 1)]
    assert a.memory_stats()["active.all.current"] == 0
    assert a.alloc(1000, stream=1) == p  # reused at once: no new segment
    assert a.log() == [("wait", 1, event)]
    assert a.memory_reserved() == 2 * MiB
    a.free(p)
    assert a.alloc(1000, stream=1) == p
    assert a.log() == []  # the dependency was satisfied once


def test_record_stream_event_that_completed_is_dropped_without_a_wait(a):
    p = a.alloc(1000, stream=1)
    a.record_stream(p, 2)
    a.free(p)
    a.log()
    a.complete(2)
    assert a.alloc(1000, stream=1) == p
    assert a.log() == []


def test_record_stream_on_several_streams_and_on_its_own(a):
    p = a.alloc(1000, stream=1)
    for s in (1, 2, 3, 2):  # its own stream and duplicates add nothing
        a.record_stream(p, s)
    a.log()
    a.free(p)
    assert sorted(c[2] for c in a.log()) == [2, 3]
    a.complete(3)
    q = a.alloc(1000, stream=4)
    log = a.log()
    # stream 4 orders itself after stream 1 (owner) and the pending event of 2.
    assert [c[0] for c in log] == ["record", "wait", "wait"]
    assert log[0][2] == 1
    assert q == p


def test_host_never_waits_except_to_release(a):
    p = a.alloc(1000, stream=1)
    a.record_stream(p, 2)
    a.free(p)
    a.log()
    a.empty_cache()  # the memory goes back to the driver: the event must complete first
    log = a.log()
    assert [c[0] for c in log] == ["sync", "free"]
    assert a.memory_reserved() == 0
    assert a.memory_stats()["num_sync_all_streams"] == 1


def test_events_are_recycled(a):
    for _ in range(20):
        p = a.alloc(1000, stream=1)
        a.record_stream(p, 2)
        a.free(p)
        a.complete_all()
        q = a.alloc(1000, stream=3)
        a.free(q)
        a.complete_all()
        a.free(a.alloc(1000, stream=1))
    assert a.live_events() <= 3


def test_oom_retry_releases_blocks_of_every_stream(a):
    b = M._SimAllocator(100 * MiB)
    x = b.alloc(60 * MiB, stream=1)
    b.free(x)
    y = b.alloc(70 * MiB, stream=2)  # the 60 MiB block does not fit: released, retried
    assert b.memory_reserved() == 70 * MiB
    b.free(y)
