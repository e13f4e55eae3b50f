"""Matrix multiplication on the GPU, and the result back on the CPU.

    python examples/matmul.py [--n N]

The guides' first GPU program: make two matrices on the device, multiply them
there (cuBLAS), bring the product back to the host as a NumPy array, and check
it against NumPy. Without a GPU it all runs on the CPU.
"""
import argparse
import time

import numpy as np

import ember

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--n", type=int, default=None,
                    help="the matrices are n x n float32; default 4096 on the GPU, 1024 on the CPU")
args = parser.parse_args()

device = "cuda" if ember.cuda.is_available() else "cpu"
print(f"using {device}")
if args.n is None:
    args.n = 4096 if device == "cuda" else 1024

rng = np.random.default_rng(0)
a_np = rng.standard_normal((args.n, args.n), dtype=np.float32)
b_np = rng.standard_normal((args.n, args.n), dtype=np.float32)

# Host -> device: from_numpy shares the NumPy memory, .to() copies it to the GPU.
a = ember.from_numpy(a_np).to(device)
b = ember.from_numpy(b_np).to(device)

c = a @ b                    # queued on the current stream: returns at once on the GPU
if device == "cuda":
    ember.cuda.synchronize()  # (only to time it)
t0 = time.perf_counter()
c = ember.matmul(a, b)
if device == "cuda":
    ember.cuda.synchronize()
ms = (time.perf_counter() - t0) * 1e3
print(f"{args.n}x{args.n} @ {args.n}x{args.n} on {c.device}: {ms:.2f} ms "
      f"({2 * args.n**3 / ms / 1e6:.1f} GFLOP/s)")

# Device -> host: .cpu() waits for the product and copies it; .numpy() shares it.
c_np = c.cpu().numpy()
ref = a_np.astype(np.float64) @ b_np.astype(np.float64)
err = np.abs(c_np - ref).max() / np.abs(ref).max()
print(f"back on the CPU: {type(c_np).__name__} {c_np.shape} {c_np.dtype}, "
      f"max relative error vs float64 NumPy: {err:.1e}")
assert err < 1e-2, "the product is wrong"   # TF32 may be on: allow its rounding
