// The jitted torch.special functions: dtype rules, the CPU loops over
// ops/special_math.hpp, and the GPU through the jiterator (the kernels'
// source is special_math.hpp's text, embedded by the build).
#include "ops/pointwise/special_jit.hpp"

#include "ops/elementwise_cpu.hpp"
#include "ops/promotion.hpp"
#include "ops/special_math.hpp"
#include "runtime/errors.hpp"

#if EMBER_WITH_CUDA
#include "ops/jit/jitted_op.hpp"
#include <ember_generated/special_math_source.inc>  // kSpecialMathSource (CMake)
#endif

namespace ember::ops {

namespace {

namespace sm = ember::special_math;

// What op computes, on the host: the function name in special_math.hpp.
struct OpInfo {
  const char* name;  // torch's
  const char* fn;    // special_math's
};
constexpr OpInfo kOps[kNumJitSpecialOps] = {
    {"airy_ai", "airy_ai"},
    {"bessel_y0", "bessel_y0"},
    {"bessel_y1", "bessel_y1"},
    {"modified_bessel_i0", "modified_bessel_i0"},
    {"modified_bessel_i1", "modified_bessel_i1"},
    {"modified_bessel_k0", "modified_bessel_k0"},
    {"modified_bessel_k1", "modified_bessel_k1"},
    {"scaled_modified_bessel_k0", "scaled_modified_bessel_k0"},
    {"scaled_modified_bessel_k1", "scaled_modified_bessel_k1"},
    {"spherical_bessel_j0", "spherical_bessel_j0"},
    {"chebyshev_polynomial_t", "chebyshev_t"},
    {"chebyshev_polynomial_u", "chebyshev_u"},
    {"chebyshev_polynomial_v", "chebyshev_v"},
    {"chebyshev_polynomial_w", "chebyshev_w"},
    {"shifted_chebyshev_polynomial_t", "shifted_chebyshev_t"},
    {"shifted_chebyshev_polynomial_u", "shifted_chebyshev_u"},
    {"shifted_chebyshev_polynomial_v", "shifted_chebyshev_v"},
    {"shifted_chebyshev_polynomial_w", "shifted_chebyshev_w"},
    {"hermite_polynomial_h", "hermite_h"},
    {"hermite_polynomial_he", "hermite_he"},
    {"laguerre_polynomial_l", "laguerre_l"},
    {"legendre_polynomial_p", "legendre_p"},
};

bool on_cuda(const Operand& a, const Operand* b, const Tensor& out) {
  return (!a.is_scalar() && a.tensor.is_cuda()) || (b && !b->is_scalar() && b->tensor.is_cuda()) ||
         (out.defined() && out.is_cuda());
}

// The common dtype: the floating dtype of the inputs', float32 or float64 only.
ScalarType common_dtype(JitSpecialOp op, ScalarType found, bool cuda) {
  const ScalarType common = to_floating(found);
  if (common != ScalarType::Float32 && common != ScalarType::Float64) {
    not_implemented(jit_special_name(op), common, cuda);
  }
  return common;
}

void run(JitSpecialOp op, const ElementwiseIter& it) {
  if (it.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::jit_special_cuda(op, it);
#endif
  } else {
    internal::jit_special_cpu(op, it);
  }
}

template <typename C>
struct Unary {
  C (*f)(C);
  C operator()(C x) const { return f(x); }
};
template <typename C>
struct Polynomial {
  C (*f)(C, long long);
  bool hermite_h;  // an infinite or NaN order is -1 (torch's hermite_polynomial_h)
  C operator()(C x, C n) const {
    return f(x, hermite_h ? sm::hermite_h_order(n) : sm::order_of(n));
  }
};

template <typename C>
C (*unary_fn(JitSpecialOp op))(C) {
  switch (op) {
    case JitSpecialOp::AiryAi: return &sm::airy_ai<C>;
    case JitSpecialOp::BesselY0: return &sm::bessel_y0<C>;
    case JitSpecialOp::BesselY1: return &sm::bessel_y1<C>;
    case JitSpecialOp::ModifiedBesselI0: return &sm::modified_bessel_i0<C>;
    case JitSpecialOp::ModifiedBesselI1: return &sm::modified_bessel_i1<C>;
    case JitSpecialOp::ModifiedBesselK0: return &sm::modified_bessel_k0<C>;
    case JitSpecialOp::ModifiedBesselK1: return &sm::modified_bessel_k1<C>;
    case JitSpecialOp::ScaledModifiedBesselK0: return &sm::scaled_modified_bessel_k0<C>;
    case JitSpecialOp::ScaledModifiedBesselK1: return &sm::scaled_modified_bessel_k1<C>;
    case JitSpecialOp::SphericalBesselJ0: return &sm::spherical_bessel_j0<C>;
    default: break;
  }
  throw Error("internal error: not a one-operand special function");
}

template <typename C>
C (*polynomial_fn(JitSpecialOp op))(C, long long) {
  switch (op) {
    case JitSpecialOp::ChebyshevT: return &sm::chebyshev_t<C>;
    case JitSpecialOp::ChebyshevU: return &sm::chebyshev_u<C>;
    case JitSpecialOp::ChebyshevV: return &sm::chebyshev_v<C>;
    case JitSpecialOp::ChebyshevW: return &sm::chebyshev_w<C>;
    case JitSpecialOp::ShiftedChebyshevT: return &sm::shifted_chebyshev_t<C>;
    case JitSpecialOp::ShiftedChebyshevU: return &sm::shifted_chebyshev_u<C>;
    case JitSpecialOp::ShiftedChebyshevV: return &sm::shifted_chebyshev_v<C>;
    case JitSpecialOp::ShiftedChebyshevW: return &sm::shifted_chebyshev_w<C>;
    case JitSpecialOp::HermiteH: return &sm::hermite_h<C>;
    case JitSpecialOp::HermiteHe: return &sm::hermite_he<C>;
    case JitSpecialOp::LaguerreL: return &sm::laguerre_l<C>;
    case JitSpecialOp::LegendreP: return &sm::legendre_p<C>;
    default: break;
  }
  throw Error("internal error: not a special polynomial");
}

template <typename C>
void run_cpu(JitSpecialOp op, const ElementwiseIter& it) {
  CpuRunner r{it, kElementwiseGrain / 16};  // series and recurrences: worth threads sooner
  if (is_polynomial(op)) {
    r.template run<C, 2>(Polynomial<C>{polynomial_fn<C>(op), op == JitSpecialOp::HermiteH});
  } else {
    r.template run<C, 1>(Unary<C>{unary_fn<C>(op)});
  }
}

}  // namespace

const char* jit_special_name(JitSpecialOp op) { return kOps[static_cast<int>(op)].name; }

Tensor jit_special_unary(JitSpecialOp op, const Tensor& x, const Tensor& out) {
  EMBER_CHECK(!is_polynomial(op), "internal error: jit_special_unary of a polynomial");
  const Operand in(x);
  const ScalarType common = common_dtype(op, x.dtype(), on_cuda(in, nullptr, out));
  const ElementwiseSpec spec{jit_special_name(op), common, common, common, true};
  const ElementwiseIter it = make_elementwise(spec, out, false, {&in});
  run(op, it);
  return it.out;
}

Tensor jit_special_polynomial(JitSpecialOp op, const Operand& x, const Operand& n,
                              const Tensor& out) {
  EMBER_CHECK(is_polynomial(op), "internal error: jit_special_polynomial of a unary function");
  EMBER_CHECK(!(x.is_scalar() && n.is_scalar()),
              "internal error: jit_special_polynomial of two numbers");
  const ScalarType common = common_dtype(op, result_type({&x, &n}), on_cuda(x, &n, out));
  // Numbers are taken in the common dtype (torch's wrapped scalars).
  const ElementwiseSpec spec{jit_special_name(op), common, common, common, true, true};
  const ElementwiseIter it = make_elementwise(spec, out, false, {&x, &n});
  run(op, it);
  return it.out;
}

namespace internal {

void jit_special_cpu(JitSpecialOp op, const ElementwiseIter& it) {
  if (compute_dtype(it.common) == ScalarType::Float64) return run_cpu<double>(op, it);
  run_cpu<float>(op, it);
}

#if EMBER_WITH_CUDA

std::string jit_special_code(JitSpecialOp op) {
  const OpInfo& info = kOps[static_cast<int>(op)];
  std::string s(kSpecialMathSource);
  s += detail::str("\ntemplate <typename T> T ember_", info.name, "(T x");
  if (!is_polynomial(op)) {
    s += detail::str(") { return ember::special_math::", info.fn, "(x); }\n");
  } else {
    s += detail::str(", T n) { return ember::special_math::", info.fn, "(x, ember::special_math::",
                     op == JitSpecialOp::HermiteH ? "hermite_h_order" : "order_of", "(n)); }\n");
  }
  return s;
}

void jit_special_cuda(JitSpecialOp op, const ElementwiseIter& it) {
  jit::run_jitted(jit_special_name(op), [op] { return jit_special_code(op); }, it);
}

#endif  // EMBER_WITH_CUDA

}  // namespace internal

}  // namespace ember::ops
