"""A heavy elementwise computation, on one stream and then split over two streams.

    python examples/heavy_compute_streams.py [--n N] [--repeat 5]

The guides' benchmark: y = x**2 + x**3**x.sin()**x.cos() + x.tan() (a chain
of elementwise kernels). Two halves of x are computed one after the other on
the current stream, then each half on its own stream, joined with
wait_stream; both times are printed (CUDA events, best of --repeat). The two
halves' kernels may overlap on the GPU when one kernel does not fill it.
Without a GPU the same work runs on the CPU, timed with perf_counter, and the
"two streams" run is the same serial loop (there are no CPU streams).
"""
import argparse
import contextlib
import time

import ember

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--n", type=int, default=None,
                    help="elements of x (float32); default 10^8 on the GPU, 4 * 10^6 on the CPU")
parser.add_argument("--repeat", type=int, default=5, help="timed runs; the best is printed")
args = parser.parse_args()

device = "cuda" if ember.cuda.is_available() else "cpu"
print(f"using {device}")
if args.n is None:
    args.n = 100_000_000 if device == "cuda" else 4_000_000


def heavy(x):
    # ** is right-associative: x ** (3 ** (x.sin() ** x.cos()))
    return x**2 + x**3**x.sin()**x.cos() + x.tan()


# x in [0, 1): sin(x) >= 0, so every power is defined.
x = ember.rand(args.n, device=device)
half = args.n // 2
parts = [x[:half], x[half:]]
out = [None, None]


def one_stream():
    for i, p in enumerate(parts):
        out[i] = heavy(p)


if device == "cuda":
    streams = [ember.cuda.Stream(), ember.cuda.Stream()]
    stream = ember.cuda.stream
else:
    streams = [None, None]
    stream = lambda s: contextlib.nullcontext()  # noqa: E731 (no streams on the CPU)


def two_streams():
    main = ember.cuda.current_stream() if device == "cuda" else None
    for i, (p, s) in enumerate(zip(parts, streams)):
        if s is not None:
            s.wait_stream(main)         # x is ready (it was made on the main stream)
        with stream(s):
            out[i] = heavy(p)
    for i, s in enumerate(streams):
        if s is not None:
            main.wait_stream(s)         # the main stream waits for both halves...
            out[i].record_stream(main)  # ...and the results are used there


def best_ms(fn):
    times = []
    for _ in range(args.repeat):
        if device == "cuda":
            start, end = ember.cuda.Event(enable_timing=True), ember.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        else:
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
    return min(times)


one_stream(), two_streams()  # warm-up: kernels loaded, memory cached
if device == "cuda":
    ember.cuda.synchronize()
t1 = best_ms(one_stream)
ref = [o.clone() for o in out]
t2 = best_ms(two_streams)
same = all((a == b).all().item() for a, b in zip(ref, out))  # bit for bit
print(f"n = {args.n}: one stream {t1:.3f} ms, two streams {t2:.3f} ms "
      f"({t1 / t2:.2f}x); same results: {same}")
checksum = sum(float(o.double().sum()) for o in out)
print(f"checksum = {checksum:.6e}")
