#include "ops/demo/saxpy.hpp"

#include <chrono>
#include <cmath>
#include <random>
#include <vector>

#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

SaxpyReport saxpy_demo(int device, int64_t n) {
  EMBER_CHECK_VALUE(n > 0 && n <= (int64_t(1) << 31), "n must be in [1, 2**31], got ", n);
  std::mt19937 gen(std::random_device{}());
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(n), y(n), out(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = dist(gen);
    y[i] = dist(gen);
  }
  const float a = 2.5f;
  out = y;
  SaxpyReport r;
  r.n = n;
  if (device < 0) {
    r.device = "cpu";
    const Saxpy f{a};
    const auto t0 = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < n; ++i) out[i] = f(x[i], out[i]);
    r.kernel_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                      .count();
  } else {
#if EMBER_WITH_CUDA
    r.device = "cuda:" + std::to_string(device);
    r.kernel_ms = saxpy_cuda(device, x.data(), out.data(), a, n);
#else
    cuda::check_device_index(device);
#endif
  }
  for (int64_t i = 0; i < n; ++i) {
    const double ref = static_cast<double>(a) * x[i] + y[i];
    r.max_abs_error = std::max(r.max_abs_error, std::abs(ref - out[i]));
  }
  r.gbps = r.kernel_ms > 0 ? 12.0 * n / (r.kernel_ms * 1e6) : 0.0;
  return r;
}

}  // namespace ember::ops
