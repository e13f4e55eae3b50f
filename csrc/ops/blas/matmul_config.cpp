#include "ops/blas/matmul_config.hpp"

#include <atomic>

#include "runtime/errors.hpp"

namespace ember::ops {

namespace {
std::atomic<int> g_precision{static_cast<int>(MatmulPrecision::Highest)};
std::atomic<bool> g_fp16_reduced{true};
std::atomic<bool> g_bf16_reduced{true};
}  // namespace

MatmulPrecision float32_matmul_precision() noexcept {
  return static_cast<MatmulPrecision>(g_precision.load(std::memory_order_relaxed));
}

void set_float32_matmul_precision(MatmulPrecision p) noexcept {
  g_precision.store(static_cast<int>(p), std::memory_order_relaxed);
}

MatmulPrecision matmul_precision_from_name(const std::string& name) {
  if (name == "highest") return MatmulPrecision::Highest;
  if (name == "high") return MatmulPrecision::High;
  if (name == "medium") return MatmulPrecision::Medium;
  throw ValueError(detail::str("Invalid precision '", name,
                               "': set_float32_matmul_precision expects 'highest', 'high' or "
                               "'medium'"));
}

const char* matmul_precision_name(MatmulPrecision p) noexcept {
  switch (p) {
    case MatmulPrecision::High: return "high";
    case MatmulPrecision::Medium: return "medium";
    default: return "highest";
  }
}

void set_allow_tf32(bool allow) noexcept {
  set_float32_matmul_precision(allow ? MatmulPrecision::High : MatmulPrecision::Highest);
}

bool allow_fp16_reduced_precision_reduction() noexcept {
  return g_fp16_reduced.load(std::memory_order_relaxed);
}
void set_allow_fp16_reduced_precision_reduction(bool allow) noexcept {
  g_fp16_reduced.store(allow, std::memory_order_relaxed);
}
bool allow_bf16_reduced_precision_reduction() noexcept {
  return g_bf16_reduced.load(std::memory_order_relaxed);
}
void set_allow_bf16_reduced_precision_reduction(bool allow) noexcept {
  g_bf16_reduced.store(allow, std::memory_order_relaxed);
}

}  // namespace ember::ops
