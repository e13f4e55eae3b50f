"""Issue 7's random-number rows: randn / rand into 1 GiB of float32 on the GPU (write
bandwidth, device events), and the per-call cost of a small draw, side by side with
torch. ember's values are the same on the CPU and the GPU (see
docs/design/ops_linalg_random.md); torch's are not comparable bit for bit, only in speed."""

from harness import gpu_pair, gpu_seconds, per_call

GiB = 1 << 30


def _gpu_seconds(fn, event_cls, sync):
    return gpu_seconds(fn, event_cls, sync, iters=5, repeat=7, warmup=2)


def run(table):
    pair = gpu_pair("the random rows")
    if pair is None:
        return
    ember, torch, e_sync, t_sync = pair.ember, pair.torch, pair.e_sync, pair.t_sync
    n = GiB // 4
    gbs = lambda s: GiB / s / 1e9  # noqa: E731

    for name, e_fill, t_fill in (("randn into 1 GiB float32", "normal_", "normal_"),
                                 ("rand into 1 GiB float32", "uniform_", "uniform_")):
        buf = ember.empty(n, device="cuda")
        e = gbs(_gpu_seconds(getattr(buf, e_fill), pair.E, e_sync))
        del buf
        t = None
        if torch:
            tbuf = torch.empty(n, device="cuda")
            t = gbs(_gpu_seconds(getattr(tbuf, t_fill), pair.T, t_sync))
            del tbuf
        met = None if t is None else e >= 0.97 * t
        table.add(name, e, t, "GB/s", higher_is_better=True, target=">= 0.97x torch", met=met)

    e = per_call(lambda: ember.randn(1024, device="cuda"), sync=e_sync) * 1e6
    t = per_call(lambda: torch.randn(1024, device="cuda"), sync=t_sync) * 1e6 if torch else None
    table.add("randn(1024, cuda) per call", e, t, "us")
