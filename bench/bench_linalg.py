"""Issue 7's product rows: matmul at 4096^3 and 8192^3 in float32, TF32, bfloat16 and
float16, a batch of 64 products of 512^2, a transposed operand, and the per-call cost
of a 64x64 product from Python, side by side with torch (device events, medians,
random non-zero data). Issue 17's factorization rows: solve, batched inv, cholesky, svd,
eigh and batched qr on the GPU against torch (cuSOLVER both), and the CPU's matmul and
solve against NumPy (the same OpenBLAS, called from C++ by ember)."""
import statistics
import time

from harness import Row, gpu_pair, gpu_seconds, per_call


def _gpu_seconds(fn, event_cls, sync, repeat=7):
    """Median seconds per call of fn() measured with device events."""
    return gpu_seconds(fn, event_cls, sync, iters=10, repeat=repeat, warmup=3)


def _pair(lib, shape_a, shape_b, dtype_name, transpose_a=False):
    dtype = getattr(lib, dtype_name)
    if transpose_a:  # a is the transpose of a contiguous tensor: cuBLAS reads it via its flag
        a = lib.randn(*reversed(shape_a), device="cuda").to(dtype).t()
    else:
        a = lib.randn(*shape_a, device="cuda").to(dtype)
    b = lib.randn(*shape_b, device="cuda").to(dtype)
    return a, b


def _cpu_rows(table):
    """CPU rows against NumPy (wall-clock medians)."""
    import numpy as np
    import ember

    def wall(fn, repeat=9):
        fn()
        ts = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
        return statistics.median(ts)

    def add(name, e, n, target, ratio):
        met = e <= n / ratio
        table.rows.append(Row(name, e * 1e3, n * 1e3, "ms", False, target, met, "numpy"))
        print(f"  {name}: ember {e * 1e3:.4g} ms, numpy {n * 1e3:.4g} ms", flush=True)

    rng = np.random.default_rng(0)
    a = rng.standard_normal((1024, 1024)).astype(np.float32)
    b = rng.standard_normal((1024, 1024)).astype(np.float32)
    ea, eb = ember.tensor(a), ember.tensor(b)
    add("CPU matmul 1024^2 fp32", wall(lambda: ea @ eb), wall(lambda: a @ b),
        ">= 0.9x numpy", 0.9)
    w = a + 64 * np.eye(1024, dtype=np.float32)
    ew = ember.tensor(w)
    add("CPU solve 1024^2 fp32", wall(lambda: ember.linalg.solve(ew, eb)),
        wall(lambda: np.linalg.solve(w, b)), ">= 0.8x numpy", 0.8)
    wd, bd = w.astype(np.float64), b.astype(np.float64)
    ewd, ebd = ember.tensor(wd), ember.tensor(bd)
    add("CPU solve 1024^2 fp64", wall(lambda: ember.linalg.solve(ewd, ebd)),
        wall(lambda: np.linalg.solve(wd, bd)), ">= 0.8x numpy", 0.8)


def _decomposition_rows(table, pair):
    """GPU factorizations against torch's (both cuSOLVER): seconds per call, medians of
    device-event timings on random well-posed operands."""
    ember, torch = pair.ember, pair.torch

    def operands(lib, kind, shape):
        a = lib.randn(*shape, device="cuda")
        n = shape[-1]
        if kind == "spd":
            return a @ a.mT + n * lib.eye(n, device="cuda")
        if kind == "well":
            return a + 2 * n ** 0.5 * lib.eye(n, device="cuda")
        if kind == "sym":
            return a + a.mT
        return a

    cases = [
        ("solve 4096^2 fp32", "well", (4096, 4096), lambda L, A, B: L.linalg.solve(A, B), 1),
        ("inv 1024 x 64^2 fp32", "well", (1024, 64, 64), lambda L, A, B: L.linalg.inv(A), 1),
        ("cholesky 8192^2 fp32", "spd", (8192, 8192), lambda L, A, B: L.linalg.cholesky(A), 1),
        ("svd 2048^2 fp32", "rand", (2048, 2048), lambda L, A, B: L.linalg.svd(A), 1),
        ("eigh 4096^2 fp32", "sym", (4096, 4096), lambda L, A, B: L.linalg.eigh(A), 1),
        ("qr 256 x 256^2 fp32", "rand", (256, 256, 256), lambda L, A, B: L.linalg.qr(A), 1),
    ]
    for name, kind, shape, op, _ in cases:
        ea = operands(ember, kind, shape)
        eb = ember.randn(shape[-1], 16, device="cuda")
        e = gpu_seconds(lambda: op(ember, ea, eb), pair.E, pair.e_sync, iters=1, repeat=5,
                        warmup=2)
        t = None
        if torch:
            ta = operands(torch, kind, shape)
            tb = torch.randn(shape[-1], 16, device="cuda")
            t = gpu_seconds(lambda: op(torch, ta, tb), pair.T, pair.t_sync, iters=1, repeat=5,
                            warmup=2)
            del ta, tb
        del ea, eb
        met = None if t is None else e <= t / 0.9
        table.add(name, e * 1e3, None if t is None else t * 1e3, "ms", target=">= 0.9x torch",
                  met=met)


def run(table):
    _cpu_rows(table)
    pair = gpu_pair("the linalg rows")
    if pair is None:
        return
    ember, torch, e_sync, t_sync = pair.ember, pair.torch, pair.e_sync, pair.t_sync
    tflops = lambda flops, s: flops / s / 1e12  # noqa: E731

    def compare(name, shape_a, shape_b, dtype_name, tf32=False, transpose_a=False, bmm=False):
        # ember and torch samples alternate (power and clocks drift over a run: a
        # library measured right after a hot stretch would be penalised)
        m, k = shape_a[-2], shape_a[-1]
        n = shape_b[-1]
        batch = shape_a[0] if bmm else 1
        flops = 2.0 * batch * m * n * k
        ea, eb = _pair(ember, shape_a, shape_b, dtype_name, transpose_a)
        op_e = (lambda: ember.bmm(ea, eb)) if bmm else (lambda: ea @ eb)
        e_samples, t_samples = [], []
        if torch:
            ta, tb = _pair(torch, shape_a, shape_b, dtype_name, transpose_a)
            op_t = (lambda: torch.bmm(ta, tb)) if bmm else (lambda: ta @ tb)
        for _ in range(5):
            ember.backends.cuda.matmul.allow_tf32 = tf32
            e_samples.append(_gpu_seconds(op_e, pair.E, e_sync, repeat=3))
            ember.backends.cuda.matmul.allow_tf32 = False
            if torch:
                torch.backends.cuda.matmul.allow_tf32 = tf32
                t_samples.append(_gpu_seconds(op_t, pair.T, t_sync, repeat=3))
                torch.backends.cuda.matmul.allow_tf32 = False
        del ea, eb
        if torch:
            del ta, tb
        e = tflops(flops, statistics.median(e_samples))
        t = tflops(flops, statistics.median(t_samples)) if torch else None
        met = None if t is None else e >= 0.97 * t
        table.add(name, e, t, "TFLOP/s", higher_is_better=True, target=">= 0.97x torch", met=met)

    for n in (4096, 8192):
        for label, dtype_name, tf32 in (("fp32", "float32", False), ("tf32", "float32", True),
                                        ("bf16", "bfloat16", False), ("fp16", "float16", False)):
            compare(f"matmul {n}^3 {label}", (n, n), (n, n), dtype_name, tf32=tf32)
    compare("bmm 64 x 512^3 bf16", (64, 512, 512), (64, 512, 512), "bfloat16", bmm=True)
    compare("bmm 64 x 512^3 fp32", (64, 512, 512), (64, 512, 512), "float32", bmm=True)
    compare("matmul 8192^3 bf16, A transposed", (8192, 8192), (8192, 8192), "bfloat16",
            transpose_a=True)
    compare("matmul 4096^3 tf32, A transposed", (4096, 4096), (4096, 4096), "float32", tf32=True,
            transpose_a=True)

    # Host cost per call of a small product (queue-bound: synchronise per batch).
    x, y = ember.randn(64, 64, device="cuda"), ember.randn(64, 64, device="cuda")
    e = per_call(lambda: x @ y, sync=e_sync) * 1e6
    t = None
    if torch:
        tx, ty = torch.randn(64, 64, device="cuda"), torch.randn(64, 64, device="cuda")
        t = per_call(lambda: tx @ ty, sync=t_sync) * 1e6
    table.add("64x64 fp32 matmul per call", e, t, "us", target="<= 10 us", met=e <= 10)
    e = per_call(lambda: ember.nn.functional.linear(x, y, x[0]), sync=e_sync) * 1e6
    t = None
    if torch:
        t = per_call(lambda: torch.nn.functional.linear(tx, ty, tx[0]), sync=t_sync) * 1e6
    table.add("linear 64x64 + bias per call", e, t, "us")
    _decomposition_rows(table, pair)
