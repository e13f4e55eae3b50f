"""Issue 16's sorting rows: sort, topk and unique of 2^26 elements on the GPU against
torch (device events; target >= 0.9x torch's speed), plus sort of many short rows (the
segmented case: 2^16 rows of 1024). ember sorts one long row through CUB's radix sort
(csrc/ops/sort/sort.cu), rows of up to 4096 one block per row (sort_block.cu); topk of one
long row is a radix select and a sort of the k candidates (topk.cu); unique of integers
reads their range (one host sync), radix-sorts only the bits it spans, and reads the count
(a second sync)."""

from harness import gpu_pair, gpu_seconds

N = 1 << 26


def _gpu_seconds(fn, event_cls, sync):
    return gpu_seconds(fn, event_cls, sync, iters=3, repeat=5, warmup=1)


def run(table):
    pair = gpu_pair("the sorting rows")
    if pair is None:
        return
    ember, torch, e_sync, t_sync = pair.ember, pair.torch, pair.e_sync, pair.t_sync
    melems = lambda s: N / s / 1e6  # noqa: E731
    ex = ember.randn(N, device="cuda")
    ei = ember.randint(0, 1 << 20, (N,), device="cuda")
    es = ember.randn(1 << 16, 1024, device="cuda")
    tx = ti = ts = None
    if torch:
        tx = torch.randn(N, device="cuda")
        ti = torch.randint(0, 1 << 20, (N,), device="cuda")
        ts = torch.randn(1 << 16, 1024, device="cuda")
    rows = (
        ("sort 2^26 float32", lambda: ex.sort(), lambda: tx.sort()),
        ("sort 2^16 x 1024 float32 (rows)", lambda: es.sort(1), lambda: ts.sort(1)),
        ("topk(1000) of 2^26 float32", lambda: ex.topk(1000), lambda: tx.topk(1000)),
        ("unique 2^26 int64 (2^20 values)", lambda: ei.unique(), lambda: ti.unique()),
    )
    for name, e_fn, t_fn in rows:
        e = melems(_gpu_seconds(e_fn, pair.E, e_sync))
        t = melems(_gpu_seconds(t_fn, pair.T, t_sync)) if torch else None
        met = None if t is None else e >= 0.9 * t
        table.add(name, e, t, "Melem/s", higher_is_better=True, target=">= 0.9x torch", met=met)
