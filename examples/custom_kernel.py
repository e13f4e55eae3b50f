"""A custom CUDA kernel inside a model's forward, with its own backward kernel.

    python examples/custom_kernel.py [--samples 2048] [--epochs 20] [--hidden 64]

The guides' pattern: `x = my_kernel(x)` between ordinary layers. The kernel is CUDA
C++ compiled at run time (ember.cuda.RawModule, CuPy's API); an
ember.autograd.Function pairs its forward kernel with a backward kernel, so the
model trains like any other. The activation is a fused swish with a learnable-free
slope, y = x * sigmoid(beta * x), and its derivative
dy/dx = s + beta * x * s * (1 - s) with s = sigmoid(beta * x).

The first run compiles the two kernels (NVRTC, a fraction of a second); later runs,
in this process or a new one, load them from ember's kernel cache
(~/.cache/ember/kernels, EMBER_CACHE_DIR). Without a GPU the same Function runs the
same formulas with ember's tensor operations, so the script runs everywhere.
"""
import argparse
import math

import ember
import ember.nn as nn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--samples", type=int, default=2048)
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--hidden", type=int, default=64)
parser.add_argument("--beta", type=float, default=1.5)
args = parser.parse_args()

device = "cuda" if ember.cuda.is_available() else "cpu"
print(f"using {device}")

SOURCE = (r'''
extern "C" __global__ void swish_forward(const float* x, float* y, float beta, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 1.0f / (1.0f + __expf(-beta * x[i]));
    y[i] = x[i] * s;
  }
}
extern "C" __global__ void swish_backward(const float* x, const float* dy, float* dx,
                                          float beta, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 1.0f / (1.0f + __expf(-beta * x[i]));
    dx[i] = dy[i] * (s + beta * x[i] * s * (1.0f - s));
  }
}
''')
# Compiled at the first launch (then cached on disk); made only where a GPU can run it.
SWISH = ember.cuda.RawModule(code=SOURCE) if device == "cuda" else None
THREADS = 256


class Swish(ember.autograd.Function):
    """y = x * sigmoid(beta * x) by the CUDA kernels above (ember ops on the CPU)."""

    @staticmethod
    def forward(ctx, x, beta):
        ctx.save_for_backward(x)
        ctx.beta = beta
        if not x.is_cuda:
            return x * ember.sigmoid(beta * x)
        x = x.contiguous()
        y = ember.empty_like(x)
        n = x.numel()
        SWISH.get_function("swish_forward")(((n + THREADS - 1) // THREADS,), (THREADS,),
                                            (x, y, beta, n))
        return y

    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensors
        beta = ctx.beta
        if not x.is_cuda:
            s = ember.sigmoid(beta * x)
            return dy * (s + beta * x * s * (1 - s)), None
        x, dy = x.contiguous(), dy.contiguous()
        dx = ember.empty_like(x)
        n = x.numel()
        SWISH.get_function("swish_backward")(((n + THREADS - 1) // THREADS,), (THREADS,),
                                             (x, dy, dx, beta, n))
        return dx, None


def my_kernel(x, beta=args.beta):
    return Swish.apply(x, beta)


class Model(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.fc1 = nn.Linear(1, hidden)
        self.fc2 = nn.Linear(hidden, 1)

    def forward(self, x):
        x = self.fc1(x)
        x = my_kernel(x)          # the custom CUDA kernel, between ember ops
        return self.fc2(x)


ember.manual_seed(0)
# 1. The kernel against the same formula written with ember ops (values and gradients).
x = ember.randn(1000, device=device, requires_grad=True)
y = my_kernel(x)
y.sum().backward()
ref_x = x.detach().clone().requires_grad_(True)
ref = ref_x * ember.sigmoid(args.beta * ref_x)
ref.sum().backward()
err_y = (y - ref).abs().max().item()
err_g = (x.grad - ref_x.grad).abs().max().item()
print(f"kernel vs ember ops: max |dy| {err_y:.2e}, max |dgrad| {err_g:.2e}, "
      f"match: {err_y < 1e-5 and err_g < 1e-5}")

# 2. Train a model that calls it: fit sin(3x) on [-1, 1].
xs = ember.rand(args.samples, 1, device=device) * 2 - 1
ys = ember.sin(3 * xs)
model = Model(args.hidden).to(device)
opt = ember.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.MSELoss()
first = last = math.nan
for epoch in range(args.epochs):
    opt.zero_grad()
    loss = loss_fn(model(xs), ys)
    loss.backward()
    opt.step()
    last = loss.item()
    if epoch == 0:
        first = last
print(f"loss: first {first:.4f}, last {last:.4f}, falling: {last < first}")
