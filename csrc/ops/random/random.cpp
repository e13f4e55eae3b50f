// The random draws' checks (torch's messages), the CPU loop, and randperm.
// The CPU loop runs the same samplers and maps as the CUDA kernel
// (ops/random/random_dispatch.hpp), one Philox block at a time; large draws are
// split over threads by block ranges, which changes nothing in the values.
#include "ops/random/random.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "ops/copy/copy.hpp"
#include "ops/fill/fill.hpp"
#include "ops/overlap.hpp"
#include "ops/random/random_dispatch.hpp"
#include "runtime/errors.hpp"
#include "tensor/complex_views.hpp"
#include "tensor/views.hpp"

namespace ember::ops {

namespace {

// Runs work(b0, b1) over [0, blocks) on up to hardware_concurrency threads.
template <typename Work>
void parallel_blocks(int64_t blocks, Work&& work) {
  constexpr int64_t kGrain = 1 << 15;
  const int64_t hw = std::max<int64_t>(1, std::thread::hardware_concurrency());
  const int64_t nthreads = std::min<int64_t>(hw, blocks / kGrain);
  if (nthreads <= 1) {
    work(int64_t(0), blocks);
    return;
  }
  std::vector<std::thread> threads;
  const int64_t per = (blocks + nthreads - 1) / nthreads;
  for (int64_t t = 1; t < nthreads; ++t) {
    const int64_t b0 = t * per, b1 = std::min(blocks, b0 + per);
    if (b0 < b1) threads.emplace_back([&work, b0, b1] { work(b0, b1); });
  }
  work(int64_t(0), std::min(blocks, per));
  for (std::thread& th : threads) th.join();
}

// The CPU runner of the plans in random_dispatch.hpp.
struct CpuRunner {
  const Tensor& out;
  GeneratorImpl& gen;

  template <typename Tag, typename S, typename M>
  void operator()(Tag, S sampler, M map) const {
    using T = typename Tag::type;
    using Acc = typename S::Acc;
    constexpr int E = S::E;
    const int64_t n = out.numel();
    const int64_t blocks = static_cast<int64_t>(internal::blocks_for_draw(n, E));
    const PhiloxState st = gen.reserve(static_cast<uint64_t>(blocks));
    const rnd::Logical l = rnd::make_logical(out);
    parallel_blocks(blocks, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const philox::Words w = philox::block(st.seed, st.offset + static_cast<uint64_t>(b));
        Acc v[E];
        sampler(w, v);
        for (int e = 0; e < E; ++e) {
          const int64_t i = b * E + e;
          if (i >= n) break;
          *reinterpret_cast<T*>(l.at(i)) = map(v[e], i);
        }
      }
    });
  }
};

void check_floating(const Tensor& t, const char* fn) {
  EMBER_CHECK(is_floating(t.dtype()), fn, " expects a floating point tensor, but got ",
              dtype_name(t.dtype()), " (\"", fn, "\" is not implemented for integer dtypes)");
}

// Drawing into out: its elements must not share memory.
void check_out(const Tensor& out) { check_no_internal_overlap(out); }

// torch's bounds for random_(from, to) in `t`: integers within the dtype,
// floating values within +-2^digits (every integer there is representable).
void check_random_bounds(ScalarType t, int64_t low, int64_t high) {
  EMBER_CHECK(!is_complex(t),
              "check_random_bounds handles only integral, floating-point and boolean types");
  EMBER_CHECK(low < high, "random_ expects 'from' to be less than 'to', but got from=", low,
              " >= to=", high);
  int64_t lo = 0, hi = 0;
  if (t == ScalarType::Bool) {
    lo = 0;
    hi = 2;
  } else if (is_integral(t, false)) {
    const IInfo info = iinfo(t);
    lo = info.min;
    hi = info.max == std::numeric_limits<int64_t>::max() ? info.max : info.max + 1;
  } else {
    const int digits = t == ScalarType::Float16 ? 11 : t == ScalarType::BFloat16 ? 8
                     : t == ScalarType::Float32 ? 24 : 53;
    lo = -(int64_t(1) << digits);
    hi = (int64_t(1) << digits) + 1;
  }
  EMBER_CHECK(low >= lo, "random_ expects 'from' to be within the range of ", dtype_name(t),
              " ([", lo, ", ", hi, "]), but got from=", low);
  EMBER_CHECK(high <= hi, "random_ expects 'to' to be within the range of ", dtype_name(t),
              " ([", lo, ", ", hi, "]), but got to=", high);
}

// The values of a (small or large) CPU tensor as doubles, for checks.
template <typename F>
void for_each_value(const Tensor& t, F&& f) {
  const Tensor d = ops::to(t, Device(DeviceType::CPU), ScalarType::Float64);
  const Tensor c = contiguous(d);
  const double* p = static_cast<const double*>(c.data_ptr());
  for (int64_t i = 0; i < c.numel(); ++i) f(p[i]);
}

}  // namespace

Generator generator_for(const Generator& gen, const Device& device, const char* fn) {
  if (!gen) return default_generator(device);
  EMBER_CHECK(gen->device().type == device.type, fn, "(): expected a '", device.type_name(),
              "' device type for generator but found '", gen->device().type_name(),
              "'. Create it with ember.Generator(device='", device.type_name(), "').");
  return gen;
}

void uniform_(const Tensor& out, double from, double to, const Generator& gen) {
  // Complex: both parts uniform (torch draws into the real view).
  if (is_complex(out.dtype())) return uniform_(view_as_real(out), from, to, gen);
  check_floating(out, "uniform_");
  EMBER_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from,
              " > to=", to);
  EMBER_CHECK(std::isfinite(to - from), "uniform_ expects to-from to be finite, but found from=",
              from, " and to=", to);
  check_out(out);
  const Generator g = generator_for(gen, out.device(), "uniform_");
  if (out.numel() == 0) return;
#if EMBER_WITH_CUDA
  if (out.is_cuda()) return internal::uniform_cuda(out, from, to, *g);
#endif
  rnd::plan_uniform(out.dtype(), from, to, CpuRunner{out, *g});
}

void normal_(const Tensor& out, double mean, double std, const Generator& gen) {
  // Complex: both parts N(mean, std^2 / 2), so |z - mean|^2 has mean std^2
  // (torch draws into the real view with std / sqrt(2)).
  if (is_complex(out.dtype())) {
    return normal_(view_as_real(out), mean, std / std::sqrt(2.0), gen);
  }
  check_floating(out, "normal_");
  EMBER_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  check_out(out);
  const Generator g = generator_for(gen, out.device(), "normal_");
  if (out.numel() == 0) return;
#if EMBER_WITH_CUDA
  if (out.is_cuda()) return internal::normal_cuda(out, mean, std, *g);
#endif
  rnd::plan_normal(out.dtype(), mean, std, CpuRunner{out, *g});
}

void random_(const Tensor& out, int64_t low, int64_t high, const Generator& gen) {
  check_random_bounds(out.dtype(), low, high);
  check_out(out);
  const Generator g = generator_for(gen, out.device(), "random_");
  if (out.numel() == 0) return;
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
#if EMBER_WITH_CUDA
  if (out.is_cuda()) return internal::random_cuda(out, low, range, *g);
#endif
  rnd::plan_random(out.dtype(), low, range, CpuRunner{out, *g});
}

void exponential_(const Tensor& out, double lambd, const Generator& gen) {
  check_floating(out, "exponential_");
  EMBER_CHECK(lambd > 0.0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  check_out(out);
  const Generator g = generator_for(gen, out.device(), "exponential_");
  if (out.numel() == 0) return;
#if EMBER_WITH_CUDA
  if (out.is_cuda()) return internal::exponential_cuda(out, lambd, *g);
#endif
  rnd::plan_exponential(out.dtype(), lambd, CpuRunner{out, *g});
}

void bernoulli_(const Tensor& out, double p, const Generator& gen) {
  EMBER_CHECK(p >= 0.0 && p <= 1.0, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  check_out(out);
  const Generator g = generator_for(gen, out.device(), "bernoulli_");
  if (out.numel() == 0) return;
#if EMBER_WITH_CUDA
  if (out.is_cuda()) return internal::bernoulli_scalar_cuda(out, p, *g);
#endif
  rnd::plan_bernoulli_scalar(out.dtype(), p, CpuRunner{out, *g});
}

void bernoulli_(const Tensor& out, const Tensor& p_in, const Generator& gen) {
  check_same_device(out, p_in);
  EMBER_CHECK(is_floating(p_in.dtype()), "bernoulli: the probabilities must be a floating point "
              "tensor, but got ", dtype_name(p_in.dtype()));
  check_out(out);
  const Generator g = generator_for(gen, out.device(), "bernoulli_");
  const ScalarType pt =
      p_in.dtype() == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  const Tensor p = expand(to(p_in, p_in.device(), pt), out.sizes());
  if (out.numel() == 0) return;
#if EMBER_WITH_CUDA
  if (out.is_cuda()) return internal::bernoulli_tensor_cuda(out, p, *g);
#endif
  for_each_value(p_in, [](double v) {
    EMBER_CHECK(v >= 0.0 && v <= 1.0, "bernoulli expects all probabilities to be in [0, 1], "
                "but found ", v);
  });
  rnd::plan_bernoulli_tensor(out.dtype(), p, CpuRunner{out, *g});
}

void normal_tensor_(const Tensor& out, const Tensor& mean_in, const Tensor& std_in,
                    const Generator& gen) {
  check_floating(out, "normal");
  check_same_device(out, mean_in);
  check_same_device(out, std_in);
  check_out(out);
  const Generator g = generator_for(gen, out.device(), "normal");
  const Tensor mean = expand(to(mean_in, out.device(), out.dtype()), out.sizes());
  const Tensor std = expand(to(std_in, out.device(), out.dtype()), out.sizes());
  if (out.numel() == 0) return;
#if EMBER_WITH_CUDA
  if (out.is_cuda()) return internal::normal_tensor_cuda(out, mean, std, *g);
#endif
  for_each_value(std_in, [](double v) {
    EMBER_CHECK(v >= 0.0, "normal expects all elements of std >= 0.0, but found ", v);
  });
  rnd::plan_normal_tensor(out.dtype(), mean, std, CpuRunner{out, *g});
}

Tensor randperm(int64_t n, ScalarType dtype, const Device& device, const Generator& gen) {
  EMBER_CHECK(n >= 0, "randperm: n must be non-negative, got ", n);
  if (is_integral(dtype, false)) {
    EMBER_CHECK(n == 0 || n - 1 <= iinfo(dtype).max, "randperm: n=", n,
                " is too large for the result's dtype ", dtype_name(dtype));
  } else {
    EMBER_CHECK(is_floating(dtype), "randperm: dtype must be an integer or floating type, got ",
                dtype_name(dtype));
    const int digits = dtype == ScalarType::Float16 ? 11 : dtype == ScalarType::BFloat16 ? 8
                     : dtype == ScalarType::Float32 ? 24 : 53;
    EMBER_CHECK(digits >= 62 || n <= (int64_t(1) << digits) + 1, "randperm: n=", n,
                " is too large for the result's dtype ", dtype_name(dtype),
                " (its integers are exact up to 2^", digits, ")");
  }
  const Generator g = generator_for(gen, device, "randperm");
  const Device cpu(DeviceType::CPU);
  Tensor perm = Tensor::empty({n}, ScalarType::Int64, cpu);
  int64_t* p = static_cast<int64_t*>(perm.data_ptr());
  for (int64_t i = 0; i < n; ++i) p[i] = i;
  if (n > 1) {
    // Fisher-Yates: step k (k = 0 .. n-2) swaps element i = n-1-k with a
    // uniform j in [0, i], from 64-bit word k of the draw.
    const PhiloxState st = g->reserve(internal::blocks_for_draw(n, 2));
    for (int64_t k = 0; k + 1 < n; ++k) {
      const philox::Words w = philox::block(st.seed, st.offset + static_cast<uint64_t>(k / 2));
      const int lane = static_cast<int>(k % 2) * 2;
      const uint64_t bits = (static_cast<uint64_t>(w.w[lane]) << 32) | w.w[lane + 1];
      const int64_t i = n - 1 - k;
      const int64_t j = static_cast<int64_t>(bits % static_cast<uint64_t>(i + 1));
      std::swap(p[i], p[j]);
    }
  } else if (n == 1) {
    (void)g->reserve(1);
  }
  return to(perm, device, dtype);
}

}  // namespace ember::ops
