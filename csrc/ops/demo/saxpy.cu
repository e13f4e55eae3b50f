#include "ops/demo/saxpy.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

namespace {

__global__ void saxpy_kernel(Saxpy f, const float* __restrict__ x, float* __restrict__ y,
                             int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    y[i] = f(x[i], y[i]);
  }
}

// Owns a device buffer for the demo's lifetime (the caching allocator is not
// needed for one allocation).
struct DeviceBuffer {
  float* p = nullptr;
  explicit DeviceBuffer(int64_t n) { EMBER_CUDA_CHECK(cudaMalloc(&p, n * sizeof(float))); }
  ~DeviceBuffer() { EMBER_CUDA_WARN(cudaFree(p)); }
};

struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair() {
    EMBER_CUDA_CHECK(cudaEventCreate(&start));
    EMBER_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~EventPair() {
    EMBER_CUDA_WARN(cudaEventDestroy(start));
    EMBER_CUDA_WARN(cudaEventDestroy(stop));
  }
};

}  // namespace

double saxpy_cuda(int device, const float* x_host, float* y_host, float a, int64_t n) {
  cuda::DeviceGuard guard(device);
  DeviceBuffer x(n), y(n);
  EventPair ev;
  EMBER_CUDA_CHECK(cudaMemcpy(x.p, x_host, n * sizeof(float), cudaMemcpyHostToDevice));
  EMBER_CUDA_CHECK(cudaMemcpy(y.p, y_host, n * sizeof(float), cudaMemcpyHostToDevice));
  const int threads = 256;
  const int blocks = static_cast<int>(std::min<int64_t>((n + threads - 1) / threads, 65535));
  saxpy_kernel<<<blocks, threads>>>(Saxpy{a}, x.p, y.p, n);  // warm-up: loads the module
  EMBER_KERNEL_LAUNCH_CHECK();
  EMBER_CUDA_CHECK(cudaMemcpy(y.p, y_host, n * sizeof(float), cudaMemcpyHostToDevice));
  EMBER_CUDA_CHECK(cudaEventRecord(ev.start));
  saxpy_kernel<<<blocks, threads>>>(Saxpy{a}, x.p, y.p, n);
  EMBER_KERNEL_LAUNCH_CHECK();
  EMBER_CUDA_CHECK(cudaEventRecord(ev.stop));
  EMBER_CUDA_CHECK(cudaMemcpy(y_host, y.p, n * sizeof(float), cudaMemcpyDeviceToHost));
  float ms = 0;
  EMBER_CUDA_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
  return ms;
}

}  // namespace ember::ops
