// The scan operators and the storage types a scan runs on (shared by the CPU
// loop and the CUDA kernels): input stored as uint8 (bool too), int32, int64
// or a floating type; computed in compute_t; written as int64 for integers,
// as the input's type for floats.
#pragma once

#include "ops/element_access.hpp"
#include "ops/math_functions.hpp"
#include "ops/reduce/scan.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

template <typename C, bool PROD>
struct ScanF {
  EMBER_HD_INLINE C identity() const { return PROD ? C(1) : C(0); }
  EMBER_HD_INLINE C operator()(C a, C b) const { return PROD ? m::mul(a, b) : m::add(a, b); }
};

template <typename In>
using scan_out_t = std::conditional_t<std::is_floating_point<compute_t<In>>::value, In, int64_t>;

// runner.run<In>(ScanF<C, PROD>{}) for the storage type of `in`.
template <typename Runner>
void dispatch_scan(ScanOp op, ScalarType in, Runner& r) {
  auto go = [&](auto tag) {
    using In = typename decltype(tag)::type;
    using C = compute_t<In>;
    if (op == ScanOp::Prod) return r.template run<In>(ScanF<C, true>{});
    return r.template run<In>(ScanF<C, false>{});
  };
  switch (in) {
    case ScalarType::Bool:
    case ScalarType::UInt8: return go(TypeTag<uint8_t>{});
    case ScalarType::Int32: return go(TypeTag<int32_t>{});
    case ScalarType::Int64: return go(TypeTag<int64_t>{});
    case ScalarType::Float16: return go(TypeTag<Half>{});
    case ScalarType::BFloat16: return go(TypeTag<BFloat16>{});
    case ScalarType::Float32: return go(TypeTag<float>{});
    case ScalarType::Float64: return go(TypeTag<double>{});
    default: break;
  }
  throw Error("internal error: scans take uint8, int32, int64 and floating storage");
}

}  // namespace ember::ops
