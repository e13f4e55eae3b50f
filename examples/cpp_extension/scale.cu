// The CUDA half of ember_ops_aot: a kernel launched on ember's current stream.
#include <ember/cuda.h>
#include <ember/tensor.h>

__global__ void scale_kernel(float* x, float a, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

void scale_cuda(const ember::Tensor& x, float a) {
  const long long n = x.numel();
  if (n == 0) return;
  ember::cuda::DeviceGuard guard(x.device().index);
  const int threads = 256;
  const long long blocks = (n + threads - 1) / threads;
  scale_kernel<<<static_cast<unsigned>(blocks), threads, 0, ember::cuda::current_stream()>>>(
      x.data_ptr<float>(), a, n);
  EMBER_CUDA_CHECK(cudaGetLastError());
}
