// y = a*x + y, the demo that `python -m ember` runs end to end (host data ->
// device -> kernel -> host, checked against the CPU). The functor is shared by
// the CPU loop and the CUDA kernel.
#pragma once

#include <cstdint>
#include <string>

#if defined(__CUDACC__)
#define EMBER_HD __host__ __device__
#else
#define EMBER_HD
#endif

namespace ember::ops {

struct Saxpy {
  float a;
  EMBER_HD float operator()(float x, float y) const { return a * x + y; }
};

struct SaxpyReport {
  std::string device;       // "cpu" or "cuda:N"
  int64_t n = 0;
  double max_abs_error = 0;  // against a float64 CPU reference
  double kernel_ms = 0;      // the compute step alone
  double gbps = 0;           // 12 bytes per element (2 reads + 1 write)
};

// device < 0: on the CPU; otherwise on that GPU.
SaxpyReport saxpy_demo(int device, int64_t n);

#if EMBER_WITH_CUDA
// Fills y = a*x + y on the GPU; returns the kernel's time in ms (CUDA events).
double saxpy_cuda(int device, const float* x_host, float* y_host, float a, int64_t n);
#endif

}  // namespace ember::ops
