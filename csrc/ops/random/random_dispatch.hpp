// Which sampler and map each distribution uses for each dtype, written once
// for the CPU loop (random.cpp) and the CUDA kernel (random.cu): both call
// these with their own runner, `run(TypeTag<T>, sampler, map)`, so the two
// backends cannot disagree on the stream layout.
#pragma once

#include <cstdint>

#include "ops/random/random_math.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/tensor.hpp"

namespace ember::rnd {

// `t` (already broadcast to `shape` by expand) as a Logical walk.
inline Logical make_logical(const Tensor& t) {
  Logical l;
  l.data = static_cast<char*>(t.data_ptr());
  l.item = static_cast<int64_t>(t.itemsize());
  if (t.is_contiguous()) return l;
  int n = 0;
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t size = t.sizes()[d];
    if (size == 1) continue;
    const int64_t stride = t.strides()[d] * l.item;
    if (n > 0 && l.stride[n - 1] == stride * size) {  // outer dim continues into this one
      l.size[n - 1] *= size;
      l.stride[n - 1] = stride;
      continue;
    }
    EMBER_CHECK(n < kMaxLogicalDims, "random draws support at most ", kMaxLogicalDims,
                " non-mergeable dimensions; draw into a contiguous tensor and copy");
    l.size[n] = size;
    l.stride[n] = stride;
    ++n;
  }
  l.ndim = n;
  if (n == 0) {  // all dims of extent 1: one element
    l.ndim = 1;
    l.size[0] = 1;
    l.stride[0] = 0;
  }
  return l;
}

// Half of the dtype's epsilon (torch's exponential guard).
inline double half_eps(ScalarType t) {
  switch (t) {
    case ScalarType::Float16: return 0.0009765625 / 2;   // 2^-10
    case ScalarType::BFloat16: return 0.0078125 / 2;     // 2^-7
    case ScalarType::Float64: return 2.220446049250313e-16 / 2;
    default: return 1.1920928955078125e-07 / 2;          // 2^-23
  }
}

template <typename Run>
void plan_uniform(ScalarType t, double from, double to, Run&& run) {
  const double range = to - from;
  switch (t) {
    case ScalarType::Float32:
      return run(TypeTag<float>{}, Uniform<24>{},
                 UniformMap<float, float>{static_cast<float>(from), static_cast<float>(range)});
    case ScalarType::Float64:
      return run(TypeTag<double>{}, Uniform<53>{}, UniformMap<double, double>{from, range});
    case ScalarType::Float16:
      return run(TypeTag<Half>{}, Uniform<11>{},
                 UniformMap<Half, float>{static_cast<float>(from), static_cast<float>(range)});
    case ScalarType::BFloat16:
      return run(TypeTag<BFloat16>{}, Uniform<8>{},
                 UniformMap<BFloat16, float>{static_cast<float>(from), static_cast<float>(range)});
    default:
      throw Error("uniform_: floating dtypes only");
  }
}

template <typename Run>
void plan_normal(ScalarType t, double mean, double std, Run&& run) {
  const float m = static_cast<float>(mean), s = static_cast<float>(std);
  switch (t) {
    case ScalarType::Float32:
      return run(TypeTag<float>{}, Normal<float>{}, NormalMap<float, float>{m, s});
    case ScalarType::Float64:
      return run(TypeTag<double>{}, Normal<double>{}, NormalMap<double, double>{mean, std});
    case ScalarType::Float16:
      return run(TypeTag<Half>{}, Normal<float>{}, NormalMap<Half, float>{m, s});
    case ScalarType::BFloat16:
      return run(TypeTag<BFloat16>{}, Normal<float>{}, NormalMap<BFloat16, float>{m, s});
    default:
      throw Error("normal_: floating dtypes only");
  }
}

// 32 random bits per element when the range fits, 64 otherwise (only int64
// and float64 can hold such ranges; the front checks the bounds).
inline bool wide_range(uint64_t range) { return range > (uint64_t(1) << 32); }

template <typename Run>
void plan_random(ScalarType t, int64_t low, uint64_t range, Run&& run) {
  if (wide_range(range)) {
    if (t == ScalarType::Int64) {
      return run(TypeTag<int64_t>{}, Bits64{}, RandintMap<int64_t, uint64_t>{low, range});
    }
    EMBER_CHECK(t == ScalarType::Float64, "random_: a range wider than 2^32 needs int64 or "
                "float64, got ", dtype_name(t));
    return run(TypeTag<double>{}, Bits64{}, RandintMap<double, uint64_t>{low, range});
  }
  dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    run(tag, Bits32{}, RandintMap<T, uint32_t>{low, range});
  });
}

template <typename Run>
void plan_exponential(ScalarType t, double lambd, Run&& run) {
  const float l = static_cast<float>(lambd), h = static_cast<float>(half_eps(t));
  switch (t) {
    case ScalarType::Float32:
      return run(TypeTag<float>{}, Uniform<24>{}, ExponentialMap<float, float>{l, h});
    case ScalarType::Float64:
      return run(TypeTag<double>{}, Uniform<53>{},
                 ExponentialMap<double, double>{lambd, half_eps(t)});
    case ScalarType::Float16:
      return run(TypeTag<Half>{}, Uniform<24>{}, ExponentialMap<Half, float>{l, h});
    case ScalarType::BFloat16:
      return run(TypeTag<BFloat16>{}, Uniform<24>{}, ExponentialMap<BFloat16, float>{l, h});
    default:
      throw Error("exponential_: floating dtypes only");
  }
}

template <typename Run>
void plan_bernoulli_scalar(ScalarType t, double p, Run&& run) {
  dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    run(tag, Uniform<24>{}, BernoulliMap<T, float>{static_cast<float>(p)});
  });
}

// p: float32 or float64 (the front converts other dtypes to float32).
template <typename Run>
void plan_bernoulli_tensor(ScalarType t, const Tensor& p, Run&& run) {
  const Logical lp = make_logical(p);
  dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (p.dtype() == ScalarType::Float64) {
      run(tag, Uniform<53>{}, BernoulliTensorMap<T, double, double>{lp});
    } else {
      run(tag, Uniform<24>{}, BernoulliTensorMap<T, float, float>{lp});
    }
  });
}

// mean and std: out's dtype, broadcast to out.
template <typename Run>
void plan_normal_tensor(ScalarType t, const Tensor& mean, const Tensor& std, Run&& run) {
  const Logical lm = make_logical(mean), ls = make_logical(std);
  switch (t) {
    case ScalarType::Float32:
      return run(TypeTag<float>{}, Normal<float>{}, NormalTensorMap<float, float>{lm, ls});
    case ScalarType::Float64:
      return run(TypeTag<double>{}, Normal<double>{}, NormalTensorMap<double, double>{lm, ls});
    case ScalarType::Float16:
      return run(TypeTag<Half>{}, Normal<float>{}, NormalTensorMap<Half, float>{lm, ls});
    case ScalarType::BFloat16:
      return run(TypeTag<BFloat16>{}, Normal<float>{}, NormalTensorMap<BFloat16, float>{lm, ls});
    default:
      throw Error("normal: floating dtypes only");
  }
}

}  // namespace ember::rnd
