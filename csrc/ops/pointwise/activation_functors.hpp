// The activations' per-element bodies over a compute type C (float or
// double), shared by the CPU loops and the CUDA kernels, and the switch that
// picks one. Forward functors take x; backward functors take (grad, x) and
// give grad * d f / dx. Formulas and NaN behaviour are torch's kernels'
// (aten/src/ATen/native/cpu/Activation.cpp): softshrink keeps NaN, hardtanh
// is a clamp (NaN passes), threshold keeps NaN (x <= threshold is false).
#pragma once

#include "ops/element_access.hpp"
#include "ops/elementwise.hpp"
#include "ops/math_functions.hpp"
#include "ops/pointwise/activation.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

// ---- forward ---------------------------------------------------------------------------------

template <typename C>
struct HardswishF {
  EMBER_HD_INLINE C operator()(C x) const {
    C t = x + C(3);
    t = t < C(0) ? C(0) : t;  // (NaN stays NaN)
    t = t > C(6) ? C(6) : t;
#if defined(__CUDA_ARCH__)
    return x * t * C(1.0f / 6.0f);  // torch's CUDA kernel: times float's 1/6
#else
    return x * t / C(6);
#endif
  }
};
template <typename C>
struct HardsigmoidF {
  EMBER_HD_INLINE C operator()(C x) const {
    C t = x + C(3);
    t = t < C(0) ? C(0) : t;
    t = t > C(6) ? C(6) : t;
#if defined(__CUDA_ARCH__)
    return t * C(1.0f / 6.0f);  // torch's CUDA kernel: times float's 1/6
#else
    return t / C(6);
#endif
  }
};
template <typename C>
struct EluF {  // negcoef = alpha * scale, poscoef = scale, negiptcoef = input_scale
  C negcoef, poscoef, negiptcoef;
  EMBER_HD_INLINE C operator()(C x) const {
    return x <= C(0) ? m::expm1(x * negiptcoef) * negcoef : x * poscoef;
  }
};
template <typename C>
struct SoftplusF {
  C beta, threshold;
  EMBER_HD_INLINE C operator()(C x) const {
    const C bx = x * beta;
    return bx > threshold ? x : m::log1p(m::exp(bx)) / beta;
  }
};
template <typename C>
struct MishF {
  EMBER_HD_INLINE C operator()(C x) const { return x * m::tanh(m::log1p(m::exp(x))); }
};
template <typename C>
struct LeakyReluF {
  C slope;
  EMBER_HD_INLINE C operator()(C x) const { return x > C(0) ? x : x * slope; }
};
template <typename C>
struct HardtanhF {
  C lo, hi;
  EMBER_HD_INLINE C operator()(C x) const { return x < lo ? lo : (x > hi ? hi : x); }
};
template <typename C>
struct SoftshrinkF {
  C lambd;
  EMBER_HD_INLINE C operator()(C x) const {
    if (m::is_nan(x)) return x;
    return x > lambd ? x - lambd : (x < -lambd ? x + lambd : x * C(0));  // -0 as torch
  }
};
template <typename C>
struct HardshrinkF {
  C lambd;
  EMBER_HD_INLINE C operator()(C x) const { return (x >= -lambd && x <= lambd) ? C(0) : x; }
};
template <typename C>
struct LogSigmoidF {  // min(x, 0) - log1p(exp(-|x|)): no overflow either side
  EMBER_HD_INLINE C operator()(C x) const {
    const C mn = x < C(0) ? x : C(0);
    return mn - m::log1p(m::exp(-m::fabs(x)));
  }
};
template <typename C>
struct ThresholdF {
  C threshold, value;
  EMBER_HD_INLINE C operator()(C x) const { return x <= threshold ? value : x; }
};

// ---- backward: (grad, x) -> grad * f'(x) -------------------------------------------------------

template <typename C>
struct HardswishBackwardF {
  EMBER_HD_INLINE C operator()(C g, C x) const {
    return x <= C(-3) ? C(0) : (x < C(3) ? g * (x / C(3) + C(0.5)) : g);
  }
};
template <typename C>
struct HardsigmoidBackwardF {
  EMBER_HD_INLINE C operator()(C g, C x) const {
    // torch's constant is the float 1/6 in every dtype (float64 too): the same here
    return (x > C(-3) && x < C(3)) ? g * C(1.0f / 6.0f) : C(0);
  }
};
template <typename C>
struct EluBackwardF {  // from the input
  C negcoef, poscoef, negiptcoef;
  EMBER_HD_INLINE C operator()(C g, C x) const {
    return x <= C(0) ? g * negiptcoef * negcoef * m::exp(x * negiptcoef) : g * poscoef;
  }
};
template <typename C>
struct EluBackwardFromOutputF {  // from the output y (in-place forms)
  C negcoef, poscoef, negiptcoef;
  EMBER_HD_INLINE C operator()(C g, C y) const {
    return y <= C(0) ? g * negiptcoef * (y + negcoef) : g * poscoef;
  }
};
template <typename C>
struct SoftplusBackwardF {
  C beta, threshold;
  EMBER_HD_INLINE C operator()(C g, C x) const {
    const C bx = x * beta;
    if (bx > threshold) return g;
    const C z = m::exp(bx);
    return g * z / (z + C(1));
  }
};
template <typename C>
struct MishBackwardF {
  EMBER_HD_INLINE C operator()(C g, C x) const {
    const C s = C(1) / (C(1) + m::exp(-x));
    const C t = m::tanh(m::log1p(m::exp(x)));
    return g * (t + x * s * (C(1) - t * t));
  }
};
template <typename C>
struct LeakyReluBackwardF {
  C slope;
  EMBER_HD_INLINE C operator()(C g, C x) const { return x > C(0) ? g : g * slope; }
};
template <typename C>
struct HardtanhBackwardF {
  C lo, hi;
  EMBER_HD_INLINE C operator()(C g, C x) const { return (x <= lo || x >= hi) ? C(0) : g; }
};
template <typename C>
struct ShrinkBackwardF {  // softshrink and hardshrink
  C lambd;
  EMBER_HD_INLINE C operator()(C g, C x) const {
    return (x >= -lambd && x <= lambd) ? C(0) : g;
  }
};
template <typename C>
struct LogSigmoidBackwardF {
  EMBER_HD_INLINE C operator()(C g, C x) const {
    const bool neg = x < C(0);
    const C z = m::exp(-m::fabs(x));
    return g * ((neg ? C(1) : C(0)) - (neg ? C(1) : C(-1)) * (z / (C(1) + z)));
  }
};
template <typename C>
struct ThresholdBackwardValueF {
  C threshold;
  EMBER_HD_INLINE C operator()(C g, C x) const { return x <= threshold ? C(0) : g; }
};

// ---- the switch ---------------------------------------------------------------------------------

template <typename C, typename Runner>
void dispatch_activation_c(ActivationOp op, const ActivationArgs& p, bool backward,
                           bool from_output, Runner& r) {
  const C a = C(p.a), b = C(p.b), c = C(p.c);
  if (!backward) {
    switch (op) {
      case ActivationOp::Hardswish: return r.template run<C, 1>(HardswishF<C>{});
      case ActivationOp::Hardsigmoid: return r.template run<C, 1>(HardsigmoidF<C>{});
      case ActivationOp::Elu: return r.template run<C, 1>(EluF<C>{a * b, b, c});
      case ActivationOp::Softplus: return r.template run<C, 1>(SoftplusF<C>{a, b});
      case ActivationOp::Mish: return r.template run<C, 1>(MishF<C>{});
      case ActivationOp::LeakyRelu: return r.template run<C, 1>(LeakyReluF<C>{a});
      case ActivationOp::Hardtanh: return r.template run<C, 1>(HardtanhF<C>{a, b});
      case ActivationOp::Softshrink: return r.template run<C, 1>(SoftshrinkF<C>{a});
      case ActivationOp::Hardshrink: return r.template run<C, 1>(HardshrinkF<C>{a});
      case ActivationOp::LogSigmoid: return r.template run<C, 1>(LogSigmoidF<C>{});
      case ActivationOp::Threshold: return r.template run<C, 1>(ThresholdF<C>{a, b});
    }
  } else {
    switch (op) {
      case ActivationOp::Hardswish: return r.template run<C, 2>(HardswishBackwardF<C>{});
      case ActivationOp::Hardsigmoid: return r.template run<C, 2>(HardsigmoidBackwardF<C>{});
      case ActivationOp::Elu:
        if (from_output) return r.template run<C, 2>(EluBackwardFromOutputF<C>{a * b, b, c});
        return r.template run<C, 2>(EluBackwardF<C>{a * b, b, c});
      case ActivationOp::Softplus: return r.template run<C, 2>(SoftplusBackwardF<C>{a, b});
      case ActivationOp::Mish: return r.template run<C, 2>(MishBackwardF<C>{});
      case ActivationOp::LeakyRelu: return r.template run<C, 2>(LeakyReluBackwardF<C>{a});
      case ActivationOp::Hardtanh: return r.template run<C, 2>(HardtanhBackwardF<C>{a, b});
      case ActivationOp::Softshrink:
      case ActivationOp::Hardshrink: return r.template run<C, 2>(ShrinkBackwardF<C>{a});
      case ActivationOp::LogSigmoid: return r.template run<C, 2>(LogSigmoidBackwardF<C>{});
      case ActivationOp::Threshold: return r.template run<C, 2>(ThresholdBackwardValueF<C>{a});
    }
  }
  throw Error("internal error: unknown activation op");
}

template <typename Runner>
void dispatch_activation(ActivationOp op, const ElementwiseIter& it, const ActivationArgs& p,
                         bool backward, bool from_output, Runner& r) {
  if (compute_dtype(it.common) == ScalarType::Float64) {
    return dispatch_activation_c<double>(op, p, backward, from_output, r);
  }
  return dispatch_activation_c<float>(op, p, backward, from_output, r);
}

}  // namespace ember::ops
