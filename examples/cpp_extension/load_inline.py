"""C++ and CUDA functions on ember tensors, compiled from strings at run time.

    python examples/cpp_extension/load_inline.py [--n 1000000]

ember.utils.cpp_extension.load_inline (torch's API) compiles the sources with the
host compiler and nvcc against ember's public headers (<ember/extension.h>), binds
the listed functions with pybind11 and imports the module. The build is cached by
content (~/.cache/ember/extensions, EMBER_CACHE_DIR): the second run imports it in a
blink. Without a GPU only the C++ function is built and run.
"""
import argparse
import time

import numpy as np

import ember
from ember.utils.cpp_extension import load_inline

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--n", type=int, default=1_000_000)
args = parser.parse_args()

device = "cuda" if ember.cuda.is_available() else "cpu"
print(f"using {device}")

CPP = r'''
// y = a * x + y for contiguous float32 CPU tensors (y in place).
void axpy_cpu(double a, ember::Tensor x, ember::Tensor y) {
  EMBER_CHECK_TYPE(x.dtype() == ember::kFloat32 && y.dtype() == ember::kFloat32,
                   "axpy takes float32 tensors");
  EMBER_CHECK_VALUE(x.numel() == y.numel() && x.is_contiguous() && y.is_contiguous(),
                    "axpy takes contiguous tensors of one size");
  const float* px = x.data_ptr<float>();
  float* py = y.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i) py[i] += static_cast<float>(a) * px[i];
  y.bump_version();
}
'''

CUDA_DECL = "ember::Tensor axpy_cuda(double a, ember::Tensor x, ember::Tensor y);\n"
CUDA = r'''
__global__ void axpy_kernel(float a, const float* x, const float* y, float* out, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}

// A new tensor a * x + y, computed on ember's current stream.
ember::Tensor axpy_cuda(double a, ember::Tensor x, ember::Tensor y) {
  EMBER_CHECK_VALUE(x.is_cuda() && y.is_cuda() && x.device() == y.device(),
                    "axpy_cuda takes two tensors on one GPU");
  EMBER_CHECK_VALUE(x.numel() == y.numel() && x.is_contiguous() && y.is_contiguous(),
                    "axpy_cuda takes contiguous tensors of one size");
  ember::cuda::DeviceGuard guard(x.device().index);
  ember::Tensor out = ember::empty_like(x);
  const long long n = x.numel();
  if (n > 0) {
    const int threads = 256;
    axpy_kernel<<<(unsigned)((n + threads - 1) / threads), threads, 0,
                  ember::cuda::current_stream()>>>(
        static_cast<float>(a), x.data_ptr<float>(), y.data_ptr<float>(),
        out.data_ptr<float>(), n);
    EMBER_CUDA_CHECK(cudaGetLastError());
  }
  return out;
}
'''

start = time.perf_counter()
if device == "cuda":
    ext = load_inline("ember_example_axpy", CPP + CUDA_DECL, cuda_sources=CUDA,
                      functions=["axpy_cpu", "axpy_cuda"])
else:
    print("no GPU: building only the C++ function (the CUDA one needs a GPU to run)")
    ext = load_inline("ember_example_axpy_cpu", CPP, functions=["axpy_cpu"])
print(f"load_inline: {time.perf_counter() - start:.2f} s (compiled, or loaded from the cache)")

x = ember.rand(args.n)
y = ember.rand(args.n)
expected = 2.0 * x.numpy() + y.numpy()
ext.axpy_cpu(2.0, x, y)
print(f"axpy_cpu matches NumPy: {np.allclose(y.numpy(), expected)}")

if device == "cuda":
    xg, yg = x.to("cuda"), ember.rand(args.n, device="cuda")
    out = ext.axpy_cuda(3.0, xg, yg)
    ok = np.allclose(out.cpu().numpy(), 3.0 * xg.cpu().numpy() + yg.cpu().numpy(), atol=1e-6)
    print(f"axpy_cuda matches NumPy: {ok}")
