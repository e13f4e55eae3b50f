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
  Tensor x, lse;
  ScalarType common;  // the compute dtype: float32 or float64
};

Prepared prepare(const Tensor& x_in, int64_t dim, std::optional<ScalarType> dtype,
                 const char* name) {
  Prepared p;
  p.x = dtype && *dtype != x_in.dtype() ? to(x_in, x_in.device(), *dtype) : x_in;
  if (!is_floating(p.x.dtype())) not_implemented(name, p.x.dtype(), p.x.is_cuda());
  p.common = p.x.dtype() == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  wrap_dim(dim, p.x.dim());  // IndexError for a bad dim
  ReduceArgs args;
  args.result_dtype = p.common;
  p.lse = reduce(ReduceOp::LogSumExp, p.x, std::vector<int64_t>{dim}, true, std::nullopt, args);
  return p;
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  const Prepared p = prepare(x, dim, dtype, "softmax");
  const Operand a(p.x), b(p.lse);
  const ElementwiseSpec spec{"softmax", p.common, p.x.dtype(), p.common, false};
  const Tensor out = Tensor::empty_strided(p.x.sizes(), dense_strides_like(p.x.sizes(), p.x.strides()),
                                           p.x.dtype(), p.x.device());
  const ElementwiseIter it = make_elementwise(spec, out, false, {&a, &b});
  if (it.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::exp_diff_cuda(it);
#endif
  } else {
    internal::exp_diff_cpu(it);
  }
  return it.out;
}

Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  const Prepared p = prepare(x, dim, dtype, "log_softmax");
  // x - lse computed in the float32/float64 common dtype, rounded once into x's dtype.
  const Tensor out = Tensor::empty_strided(p.x.sizes(), dense_strides_like(p.x.sizes(), p.x.strides()),
                                           p.x.dtype(), p.x.device());
  return binary(BinaryOp::Sub, p.x, p.lse, {}, out);
}

namespace internal {

void exp_diff_cpu(const ElementwiseIter& it) {
  CpuRunner r{it, kElementwiseGrain / 16};
  dispatch_exp_diff(it, r);
}

}  // namespace internal

}  // namespace ember::ops
