"""Issue 17's FFT rows: ember.fft (cuFFT through ember's plan cache, workspace from the
caching allocator) against torch.fft (cuFFT through torch's) on the GPU: a 2^24-point
complex64 transform, rfft2 of a 4096^2 float32 image, a batch of 4096 1-D transforms of
4096 points, and the host cost per call of a small transform whose plan is cached (the
plan-cache hit: argument handling, one hash lookup, one cufftXtExec). Device-event medians
(per-call: perf_counter around batches), random data, ember and torch alternating."""
import statistics

from harness import gpu_pair, gpu_seconds, per_call


def run(table):
    pair = gpu_pair("the fft rows")
    if pair is None:
        return
    ember, torch = pair.ember, pair.torch

    def rows(name, make, op, gbytes):
        """GB/s of op(x) (gbytes read + written per call), ember and torch alternating."""
        ex = make(ember)
        tx = make(torch) if torch else None
        e_s, t_s = [], []
        for _ in range(3):
            e_s.append(gpu_seconds(lambda: op(ember, ex), pair.E, pair.e_sync, iters=5,
                                   repeat=5, warmup=3))
            if torch:
                t_s.append(gpu_seconds(lambda: op(torch, tx), pair.T, pair.t_sync, iters=5,
                                       repeat=5, warmup=3))
        e = gbytes / statistics.median(e_s)
        t = gbytes / statistics.median(t_s) if torch else None
        table.add(name, e, t, "GB/s", higher_is_better=True, target=">= 0.95x torch",
                  met=None if t is None else e >= 0.95 * t)
        del ex, tx

    n = 1 << 24
    rows("fft c2c 2^24 complex64",
         lambda L: L.randn(n, device="cuda", dtype=L.complex64),
         lambda L, x: L.fft.fft(x), 2 * n * 8 / 1e9)
    rows("rfft2 4096^2 float32",
         lambda L: L.randn(4096, 4096, device="cuda"),
         lambda L, x: L.fft.rfft2(x), (4096 * 4096 * 4 + 4096 * 2049 * 8) / 1e9)
    rows("fft batched 4096 x 4096 complex64",
         lambda L: L.randn(4096, 4096, device="cuda", dtype=L.complex64),
         lambda L, x: L.fft.fft(x, dim=-1), 2 * 4096 * 4096 * 8 / 1e9)

    # Host cost per call of a small transform with a cached plan.
    x = ember.randn(8, 64, device="cuda", dtype=ember.complex64)
    e = per_call(lambda: ember.fft.fft(x), sync=pair.e_sync) * 1e6
    t = None
    if torch:
        tx = torch.randn(8, 64, device="cuda", dtype=torch.complex64)
        t = per_call(lambda: torch.fft.fft(tx), sync=pair.t_sync) * 1e6
    table.add("fft 8 x 64 complex64 per call (plan cached)", e, t, "us",
              target=">= 0.95x torch", met=None if t is None else e <= t / 0.95)
    y = ember.randn(8, 64, device="cuda")
    e = per_call(lambda: ember.fft.rfft(y), sync=pair.e_sync) * 1e6
    t = None
    if torch:
        ty = torch.randn(8, 64, device="cuda")
        t = per_call(lambda: torch.fft.rfft(ty), sync=pair.t_sync) * 1e6
    table.add("rfft 8 x 64 float32 per call (plan cached)", e, t, "us",
              target=">= 0.95x torch", met=None if t is None else e <= t / 0.95)
