"""Issue 6's rows: elementwise ops and reductions on the GPU side by side with
torch (bandwidth of 1 GiB float32/float16/bfloat16 tensors with device events,
a transposed operand, per-call cost of `a + b` and `a.add_(b)` on 1024 floats,
the guide's expression on 128M floats), and on the CPU against NumPy (these
rows need no GPU: run `python bench/run.py math` anywhere)."""
import statistics
import time

import numpy as np

from harness import gpu_pair, gpu_seconds, per_call

GiB = 1 << 30


def _cpu_time(fn, repeat=9, warmup=2):
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def _gpu_ms(fn, event_cls, sync, repeat=15, warmup=3):
    """Median device milliseconds of fn(), from events recorded on the current stream."""
    return gpu_seconds(fn, event_cls, sync, repeat=repeat, warmup=warmup) * 1e3


def cpu_rows(table):
    import ember
    n = 1 << 24  # 64 MiB per float32 array
    rng = np.random.default_rng(0)
    a = rng.uniform(0.5, 2, n).astype(np.float32)
    b = rng.uniform(0.5, 2, n).astype(np.float32)
    ea, eb = ember.from_numpy(a), ember.from_numpy(b)
    out_e, out_n = ember.empty(n), np.empty(n, np.float32)
    m = a.reshape(4096, 4096)
    em = ember.from_numpy(m)
    rows = [
        ("cpu add 16M f32 (out=)", lambda: ember.add(ea, eb, out=out_e),
         lambda: np.add(a, b, out=out_n)),
        ("cpu a * 2.5 16M f32", lambda: ea * 2.5, lambda: a * np.float32(2.5)),
        ("cpu sin 16M f32", lambda: ember.sin(ea, out=out_e), lambda: np.sin(a, out=out_n)),
        ("cpu exp 16M f32", lambda: ember.exp(ea, out=out_e), lambda: np.exp(a, out=out_n)),
        ("cpu a < b 16M f32", lambda: ea < eb, lambda: a < b),
        ("cpu sum 16M f32", lambda: ea.sum(), lambda: a.sum()),
        ("cpu sum(dim=0) 4096x4096 f32", lambda: em.sum(0), lambda: m.sum(0)),
        ("cpu sum(dim=1) 4096x4096 f32", lambda: em.sum(1), lambda: m.sum(1)),
        ("cpu amax 16M f32", lambda: ea.amax(), lambda: a.max()),
        ("cpu mean 16M f32", lambda: ea.mean(), lambda: a.mean()),
        ("cpu var 16M f32", lambda: ea.var(), lambda: a.var(ddof=1)),
        ("cpu cumsum 16M f32", lambda: ea.cumsum(0), lambda: np.cumsum(a)),
    ]
    old = table.ref_name
    for name, fe, fn in rows:
        te, tn = _cpu_time(fe) * 1e3, _cpu_time(fn) * 1e3
        ratio = tn / te
        table.ref_name = "numpy"
        table.add(name + " [ref numpy]", te, tn, "ms", target=">= 0.8x numpy speed",
                  met=ratio >= 0.8)
    table.ref_name = old


def _interleaved_ms(fe, ft, e_ev, t_ev, e_sync, t_sync, rounds=5, repeat=5):
    """Median device ms of ember's fe and torch's ft, their samples alternating (clocks and
    power drift during a run: neither library should get only the cool or the hot stretch)."""
    es, ts = [], []
    for _ in range(rounds):
        es.append(_gpu_ms(fe, e_ev, e_sync, repeat=repeat, warmup=1))
        ts.append(_gpu_ms(ft, t_ev, t_sync, repeat=repeat, warmup=1))
    return statistics.median(es), statistics.median(ts)


def gpu_rows(table, pair):
    ember, torch = pair.ember, pair.torch
    e_sync, t_sync, E, T = pair.e_sync, pair.t_sync, pair.E, pair.T
    n = GiB // 4

    def bandwidth_row(name, fe, ft, nbytes, target=0.97):
        e_ms, t_ms = _interleaved_ms(fe, ft, E, T, e_sync, t_sync)
        e_gbs = nbytes / (e_ms * 1e-3) / 1e9
        t_gbs = nbytes / (t_ms * 1e-3) / 1e9
        table.add(name, e_gbs, t_gbs, "GB/s", higher_is_better=True,
                  target=f">= {target}x torch", met=e_gbs >= target * t_gbs)

    a = ember.ones(n, device="cuda")
    b = ember.ones(n, device="cuda")
    c = ember.empty(n, device="cuda")
    ta, tb, tc = (torch.ones(n, device="cuda") for _ in range(3))
    bandwidth_row("copy 1 GiB f32", lambda: c.copy_(a), lambda: tc.copy_(ta), 2 * GiB)
    bandwidth_row("add 1 GiB f32", lambda: a + b, lambda: ta + tb, 3 * GiB)
    bandwidth_row("add out= 1 GiB f32", lambda: ember.add(a, b, out=c),
                  lambda: torch.add(ta, tb, out=tc), 3 * GiB)
    bandwidth_row("sin 1 GiB f32", lambda: a.sin(), lambda: ta.sin(), 2 * GiB)
    bandwidth_row("sum 1 GiB f32", lambda: a.sum(), lambda: ta.sum(), GiB)
    bandwidth_row("sum(dim=1) 16384x16384 f32", lambda: a.view(16384, 16384).sum(1),
                  lambda: ta.view(16384, 16384).sum(1), GiB)
    bandwidth_row("sum(dim=0) 16384x16384 f32", lambda: a.view(16384, 16384).sum(0),
                  lambda: ta.view(16384, 16384).sum(0), GiB)
    bandwidth_row("a.t() + b 16384^2 f32 (transposed)", lambda: a.view(16384, 16384).t() + b.view(
        16384, 16384), lambda: ta.view(16384, 16384).t() + tb.view(16384, 16384), 3 * GiB,
        target=0.8)
    del c, tc
    for dt in ("float16", "bfloat16"):
        h, h2 = ember.ones(2 * n, dtype=getattr(ember, dt), device="cuda"), \
            ember.ones(2 * n, dtype=getattr(ember, dt), device="cuda")
        th, th2 = torch.ones(2 * n, dtype=getattr(torch, dt), device="cuda"), \
            torch.ones(2 * n, dtype=getattr(torch, dt), device="cuda")
        bandwidth_row(f"add 1 GiB {dt}", lambda: h + h2, lambda: th + th2, 3 * GiB)
        bandwidth_row(f"sum 1 GiB {dt}", lambda: h.sum(), lambda: th.sum(), GiB)
        del h, h2, th, th2
    del a, b, ta, tb
    # Complex: 1 GiB of complex64 (float2 pairs) and complex128 (double2).
    for dt, size in (("complex64", 8), ("complex128", 16)):
        m = GiB // size
        z = ember.ones(m, dtype=getattr(ember, dt), device="cuda")
        z2 = ember.ones(m, dtype=getattr(ember, dt), device="cuda")
        tz = torch.ones(m, dtype=getattr(torch, dt), device="cuda")
        tz2 = torch.ones(m, dtype=getattr(torch, dt), device="cuda")
        bandwidth_row(f"add 1 GiB {dt}", lambda: z + z2, lambda: tz + tz2, 3 * GiB)
        bandwidth_row(f"mul 1 GiB {dt}", lambda: z * z2, lambda: tz * tz2, 3 * GiB)
        del z, z2, tz, tz2

    # Per-call cost from Python, 1024 float32.
    x, y = ember.ones(1024, device="cuda"), ember.ones(1024, device="cuda")
    tx, ty = torch.ones(1024, device="cuda"), torch.ones(1024, device="cuda")
    us = 1e6
    e = per_call(lambda: x + y, sync=e_sync) * us
    t = per_call(lambda: tx + ty, sync=t_sync) * us
    table.add("a + b, 1024 f32, per call", e, t, "us", target="<= 6 us", met=e <= 6)
    e = per_call(lambda: x.add_(y), sync=e_sync) * us
    t = per_call(lambda: tx.add_(ty), sync=t_sync) * us
    table.add("a.add_(b), 1024 f32, per call", e, t, "us", target="<= 5.5 us", met=e <= 5.5)
    e = per_call(lambda: x.sum(), sync=e_sync) * us
    t = per_call(lambda: tx.sum(), sync=t_sync) * us
    table.add("a.sum(), 1024 f32, per call", e, t, "us")

    # The guide's expression, eager, 128M float32.
    m = 128 << 20
    x = ember.rand(m, device="cuda") if hasattr(ember, "rand") else ember.full((m,), 0.7, device="cuda")
    tx = torch.from_dlpack(x).clone()
    fe = lambda: x**2 + x**3**x.sin()**x.cos() + x.tan()  # noqa: E731
    ft = lambda: tx**2 + tx**3**tx.sin()**tx.cos() + tx.tan()  # noqa: E731
    e, t = _interleaved_ms(fe, ft, E, T, e_sync, t_sync, repeat=3)
    table.add("x**2 + x**3**x.sin()**x.cos() + x.tan(), 128M f32", e, t, "ms",
              target="<= torch eager", met=e <= t)


def run(table):
    cpu_rows(table)
    pair = gpu_pair("the GPU rows", need_torch=True)
    if pair is not None:
        gpu_rows(table, pair)
