#include "ops/blas/blas_cpu.hpp"

#include <atomic>

#include "ops/copy/copy.hpp"
#include "runtime/errors.hpp"

namespace ember::ops::cpu_blas {

namespace {
std::atomic<MatmulBridge> g_bridge{nullptr};
}  // namespace

void set_matmul_bridge(MatmulBridge bridge) noexcept { g_bridge.store(bridge); }

void gemm(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha,
          const Scalar& beta) {
  MatmulBridge bridge = g_bridge.load();
  EMBER_CHECK(bridge != nullptr,
              "CPU matrix products need ember's NumPy bridge, which was not registered; "
              "import ember before calling them from C++");
  const ScalarType t = out.dtype();
  if (t != ScalarType::Float16 && t != ScalarType::BFloat16) {
    bridge(out, a, b, alpha, beta);
    return;
  }
  // float16/bfloat16: float32 BLAS, one rounding at the end (torch also
  // accumulates these in float32 on the CPU).
  const Device cpu(DeviceType::CPU);
  const Tensor a32 = ops::to(a, cpu, ScalarType::Float32);
  const Tensor b32 = ops::to(b, cpu, ScalarType::Float32);
  Tensor out32 = Tensor::empty(out.sizes(), ScalarType::Float32, cpu);
  const bool reads_out = !(beta.to_double() == 0.0);
  if (reads_out) ops::copy_(out32, out);
  bridge(out32, a32, b32, alpha, reads_out ? beta : Scalar::from_int(0));
  ops::copy_(out, out32);
}

}  // namespace ember::ops::cpu_blas
