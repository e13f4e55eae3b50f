"""Issue 4's rows: the caching allocator against torch's, side by side.

- caching_allocator_alloc + delete of a cached 1 MiB block from Python
  (vs torch.cuda.caching_allocator_alloc/delete, and vs torch.empty + free)
- memory_allocated()
- the C++ allocate+free pair of a cached block (ember only: torch has no
  comparable entry point)
- a fragmentation trace: mixed sizes from 512 B to 256 MiB, interleaved frees,
  two streams handing memory back and forth; peak memory_reserved() and OOMs
"""
import math
import random

from harness import gpu_pair, per_call

MiB = 1 << 20
GiB = 1 << 30


def run(table):
    pair = gpu_pair("the memory rows")
    if pair is None:
        return
    ember, torch = pair.ember, pair.torch
    us = 1e6
    cuda = ember.cuda

    def ember_pair():
        cuda.caching_allocator_delete(cuda.caching_allocator_alloc(MiB))

    ember_pair()
    e = per_call(ember_pair, calls=5000) * us
    t = t_empty = None
    if torch is not None:
        torch.cuda.init()

        def torch_pair():
            torch.cuda.caching_allocator_delete(torch.cuda.caching_allocator_alloc(MiB))

        def torch_empty():
            torch.empty(MiB, dtype=torch.uint8, device="cuda")

        torch_pair()
        torch_empty()
        t = per_call(torch_pair, calls=5000) * us
        t_empty = per_call(torch_empty, calls=5000) * us
    table.add("caching_allocator_alloc+delete 1 MiB", e, t, "us", target="<= 1.5 us",
              met=e <= 1.5)
    table.add("alloc+free 1 MiB vs torch.empty+free", e, t_empty, "us", target="<= 1.5 us",
              met=e <= 1.5)

    p = cuda.caching_allocator_alloc(1000)
    e = per_call(cuda.memory_allocated, calls=20000) * us
    t = None
    if torch is not None:
        q = torch.cuda.caching_allocator_alloc(1000)
        t = per_call(torch.cuda.memory_allocated, calls=2000, repeat=5) * us
        torch.cuda.caching_allocator_delete(q)
    cuda.caching_allocator_delete(p)
    table.add("memory_allocated()", e, t, "us", target="<= 0.3 us", met=e <= 0.3)

    ns = min(ember._C._memory._device_alloc_free_ns(cuda.current_device(), MiB, 200_000)
             for _ in range(5))
    table.add("C++ allocate+free, cached block", ns, None, "ns", target="<= 150 ns",
              met=ns <= 150)

    if torch is not None:
        fragmentation_rows(table, ember, torch)


def trace(seed=2024, phases=40, ops_per_phase=150, live_budget=24 * GiB):
    """[(op, arg, stream_index)]: allocations of log-uniform sizes from 512 B to
    256 MiB, frees of random live blocks; each phase allocates on one of two
    streams in turn, so memory freed by one stream is wanted by the other."""
    rng = random.Random(seed)
    ops, live, live_bytes, next_id = [], {}, 0, 0
    for phase in range(phases):
        stream = phase % 2
        for _ in range(ops_per_phase):
            if live and (rng.random() < 0.45 or live_bytes > live_budget):
                victim = rng.choice(sorted(live))
                live_bytes -= live.pop(victim)
                ops.append(("free", victim, None))
            else:
                n = int(math.exp(rng.uniform(math.log(512), math.log(256 * MiB))))
                live[next_id] = n
                live_bytes += n
                ops.append(("alloc", n, stream, next_id))
                next_id += 1
        # The end of a phase frees most of what it allocated.
        for victim in sorted(live):
            if rng.random() < 0.7:
                live_bytes -= live.pop(victim)
                ops.append(("free", victim, None))
    ops += [("free", v, None) for v in sorted(live)]
    return ops


def replay(ops, alloc, free, streams, oom_type):
    ptrs, ooms = {}, 0
    for op in ops:
        if op[0] == "alloc":
            _, n, s, ident = op
            try:
                ptrs[ident] = alloc(n, streams[s])
            except oom_type:
                ooms += 1
        elif op[1] in ptrs:
            free(ptrs.pop(op[1]))
    return ooms


def fragmentation_rows(table, ember, torch):
    cuda = ember.cuda
    ops = trace()
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    torch.cuda.synchronize()

    cuda.empty_cache()
    cuda.reset_peak_memory_stats()
    base = cuda.memory_reserved()
    e_ooms = replay(ops, lambda n, s: cuda.caching_allocator_alloc(n, stream=s),
                    cuda.caching_allocator_delete, streams, cuda.OutOfMemoryError)
    e_peak = (cuda.max_memory_reserved() - base) / GiB
    cuda.empty_cache()

    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_reserved()
    t_ooms = replay(ops, lambda n, s: torch.cuda.caching_allocator_alloc(n, stream=s),
                    torch.cuda.caching_allocator_delete, streams, torch.cuda.OutOfMemoryError)
    t_peak = (torch.cuda.max_memory_reserved() - base) / GiB
    torch.cuda.empty_cache()

    table.add("fragmentation trace: peak reserved", e_peak, t_peak, "GiB",
              target="<= torch", met=e_peak <= t_peak)
    table.add("fragmentation trace: OOMs", e_ooms, t_ooms, "",
              target="none where torch has none", met=e_ooms <= t_ooms)
    print(f"  fragmentation trace: {sum(o[0] == 'alloc' for o in ops)} allocations, "
          f"ember cross-stream reuses {cuda.memory_stats()['num_cross_stream_reuses']}")
