// CPU loops: selects on float comparisons vectorise only when comparisons
// may not raise floating-point exceptions (ember never reads those flags).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif

#include "ops/reduce/softmax.hpp"

#include "ops/pointwise/binary.hpp"
#include "ops/copy/copy.hpp"
#include "ops/elementwise_cpu.hpp"
#include "ops/reduce/reduce.hpp"
#include "ops/reduce/softmax_functors.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

namespace {

struct Prepared {
  Tensor x, max, logsum;  // per row: the max (x's dtype), log(sum(exp(x - max))) in float64
};

Prepared prepare(const Tensor& x_in, int64_t dim, std::optional<ScalarType> dtype,
                 const char* name) {
  Prepared p;
  wrap_dim(dim, x_in.dim());  // IndexError for a bad dim, before the dtype's error (as torch)
  p.x = dtype && *dtype != x_in.dtype() ? to(x_in, x_in.device(), *dtype) : x_in;
  if (p.x.numel() == 0) return p;  // nothing to reduce (torch returns the empty tensor for any dtype)
  if (!is_floating(p.x.dtype())) not_implemented(name, p.x.dtype(), p.x.is_cuda());
  ReduceArgs args;
  args.result_dtype = ScalarType::Float64;
  args.lse_relative = true;
  const std::vector<int64_t> dims{dim};
  p.max = reduce(ReduceOp::Amax, p.x, dims, true);
  p.logsum = reduce(ReduceOp::LogSumExp, p.x, dims, true, std::nullopt, args);
  return p;
}

Tensor softmax_like(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype, bool log) {
  const Prepared p = prepare(x, dim, dtype, log ? "log_softmax" : "softmax");
  if (p.x.numel() == 0) return Tensor::empty(p.x.sizes(), p.x.dtype(), p.x.device());
  const Operand a(p.x), b(p.max), c(p.logsum);
  // (x - max) - log(sum) as torch, in double, rounded once into x's dtype.
  const ElementwiseSpec spec{log ? "log_softmax" : "softmax", ScalarType::Float64, p.x.dtype(),
                             ScalarType::Float64, false};
  const Tensor out = Tensor::empty_strided(p.x.sizes(), dense_strides_like(p.x.sizes(), p.x.strides()),
                                           p.x.dtype(), p.x.device());
  const ElementwiseIter it = make_elementwise(spec, out, false, {&a, &b, &c});
  if (it.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::exp_diff_cuda(it, log);
#endif
  } else {
    internal::exp_diff_cpu(it, log);
  }
  return it.out;
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_like(x, dim, dtype, false);
}

Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_like(x, dim, dtype, true);
}

namespace internal {

void exp_diff_cpu(const ElementwiseIter& it, bool log) {
  CpuRunner r{it, kElementwiseGrain / 16};
  dispatch_exp_diff(it, log, r);
}

}  // namespace internal

}  // namespace ember::ops
