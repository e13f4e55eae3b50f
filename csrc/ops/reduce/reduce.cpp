// CPU loops: selects on float comparisons vectorise only when comparisons
// may not raise floating-point exceptions (ember never reads those flags).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif

#include "ops/reduce/reduce.hpp"

#include "ops/pointwise/binary.hpp"
#include "ops/pointwise/compare.hpp"
#include "ops/pointwise/unary.hpp"
#include "ops/copy/copy.hpp"
#include "ops/elementwise.hpp"
#include "ops/fill/fill.hpp"
#include "ops/promotion.hpp"
#include "ops/reduce/reduce_cpu.hpp"
#include "ops/reduce/reduce_dispatch.hpp"
#include "ops/reduce/reduce_plan.hpp"
#include "runtime/errors.hpp"
#include "tensor/complex_views.hpp"
#include "tensor/views.hpp"

namespace ember::ops {

namespace internal {
#if EMBER_WITH_CUDA
void reduce_arith_cuda(const ReducePlan& plan, const ReduceParams& p, const ReduceOutputs& o);
void reduce_minmax_cuda(const ReducePlan& plan, const ReduceParams& p, const ReduceOutputs& o);
#endif
}  // namespace internal

namespace {

const Device kCpu(DeviceType::CPU);

bool is_arg(ReduceOp op) { return op == ReduceOp::ArgMax || op == ReduceOp::ArgMin; }

// The dtype of the result, with torch's errors for unsupported inputs.
ScalarType result_dtype(ReduceOp op, ScalarType in, bool cuda) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Prod:
      return is_integral(in, true) ? ScalarType::Int64 : in;
    case ReduceOp::Mean:
      if (!is_floating(in)) {
        throw Error(detail::str("mean(): could not infer output dtype. Input dtype must be either "
                                "a floating point or complex dtype. Got: ", torch_scalar_name(in)));
      }
      return in;
    case ReduceOp::Var:
    case ReduceOp::Std:
      EMBER_CHECK(is_floating(in), "std and var only support floating point and complex dtypes");
      return in;
    case ReduceOp::Norm:
      EMBER_CHECK(is_floating(in), "linalg.vector_norm: Expected a floating point or complex "
                                   "tensor as input. Got ", torch_scalar_name(in));
      return in;
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      if (in == ScalarType::Bool) not_implemented(reduce_name(op), in, cuda);
      return ScalarType::Int64;
    case ReduceOp::All:
    case ReduceOp::Any:
      return in == ScalarType::UInt8 ? ScalarType::UInt8 : ScalarType::Bool;
    case ReduceOp::LogSumExp:
      return to_floating(in);
    default:
      return in;
  }
}

// The storage the kernels read: int8/int16 widen to int32 (exact), bool is
// read as its bytes, all/any read `x != 0` for other dtypes, logsumexp of
// integers computes in the default float dtype.
Tensor kernel_input(ReduceOp op, const Tensor& x) {
  const ScalarType t = x.dtype();
  if (op == ReduceOp::All || op == ReduceOp::Any) {
    if (t == ScalarType::Bool || t == ScalarType::UInt8) return x;
    return compare(CompareOp::Ne, x, 0);
  }
  if (op == ReduceOp::LogSumExp && !is_floating(t)) return to(x, x.device(), to_floating(t));
  if (t == ScalarType::Int8 || t == ScalarType::Int16) return to(x, x.device(), ScalarType::Int32);
  return x;
}

void check_nonempty(ReduceOp op, const Tensor& x, const Dims& dims,
                    const std::vector<bool>& red) {
  if (!is_minmax(op)) return;
  const char* name = reduce_name(op);
  if (!dims || dims->empty()) {
    if (x.numel() == 0) {
      throw Error(detail::str(name, "(): Expected reduction dim to be specified for "
                                         "input.numel() == 0. Specify the reduction dim with the "
                                         "'dim' argument."));
    }
    return;
  }
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (red[d] && x.sizes()[d] == 0) {
      throw IndexError(detail::str(name, "(): Expected reduction dim ", d,
                                   " to have non-zero size."));
    }
  }
}

void run(const ReducePlan& plan, const ReduceParams& params, const ReduceOutputs& outs) {
  if (plan.outputs == 0) return;
  if (plan.input.is_cuda()) {
#if EMBER_WITH_CUDA
    is_minmax(params.op) ? internal::reduce_minmax_cuda(plan, params, outs)
                         : internal::reduce_arith_cuda(plan, params, outs);
#endif
    return;
  }
  ReduceCpuRunner r{plan, outs};
  is_minmax(params.op) ? dispatch_reduce_minmax(params, r) : dispatch_reduce_arith(params, r);
}

// out= receives the result (shape and castability checked, empty resized).
Tensor deliver(const Tensor& result, const Tensor& out, const char* name) {
  if (!out.defined()) return result;
  check_same_device(out, result);
  check_can_cast(result.dtype(), out.dtype());
  if (out.sizes() != result.sizes()) {
    EMBER_CHECK(out.numel() == 0, name, "(): out= has shape ", shape_str(out.sizes()),
                " but the result has shape ", shape_str(result.sizes()));
    Tensor fresh = Tensor::empty(result.sizes(), out.dtype(), out.device());
    TensorImpl* impl = out.impl();
    impl->storage = fresh.storage();
    impl->sizes = fresh.sizes();
    impl->strides = fresh.strides();
    impl->offset = 0;
    impl->refresh();
  }
  copy_(out, result);
  return out;
}

// ---- complex inputs ----------------------------------------------------------
// Sums, means and variances of complex values are those of both parts, so
// they reduce the real view (its last dim holds the parts) with the real
// kernels; the norm is the norm of abs(x); prod multiplies halves pairwise
// with the complex mul kernel; all/any take the usual path (x != 0).

// The dims of x's real view that `dims` names (all of x's for none).
std::vector<int64_t> real_view_dims(const Tensor& x, const Dims& dims) {
  std::vector<int64_t> out;
  if (!dims || dims->empty()) {
    for (int64_t d = 0; d < x.dim(); ++d) out.push_back(d);
  } else {
    for (int64_t d : *dims) out.push_back(wrap_dim(d, x.dim()));
  }
  return out;
}

// prod over the reduced dims: pairwise products of halves (log2 n passes).
Tensor complex_prod(const Tensor& x, const std::vector<bool>& red, bool keepdim) {
  std::vector<int64_t> perm;
  Shape kept;
  int64_t n = 1;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (!red[d]) {
      perm.push_back(d);
      kept.push_back(x.sizes()[d]);
    }
  }
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (red[d]) {
      perm.push_back(d);
      n *= x.sizes()[d];
    }
  }
  int64_t outer = 1;
  for (int64_t k : kept) outer *= k;
  Tensor y = reshape(permute(x, perm), {outer, n});
  if (n == 0) {
    y = Tensor::empty({outer, 1}, x.dtype(), x.device());
    fill_(y, Scalar::from_int(1));
  }
  while (y.sizes()[1] > 1) {
    const int64_t m = y.sizes()[1], h = m / 2;
    const Tensor t = mul(slice(y, 1, 0, h, 1), slice(y, 1, h, 2 * h, 1));
    if (m % 2) mul_(slice(t, 1, 0, 1, 1), slice(y, 1, m - 1, m, 1));  // the odd one out
    y = t;
  }
  Tensor r = reshape(y, kept);
  return keepdim ? view(contiguous(r), reduced_shape(x.sizes(), red, true)) : r;
}

Tensor reduce_complex(ReduceOp op, const Tensor& x, const Dims& dims, bool keepdim,
                      const ReduceArgs& args) {
  const ScalarType t = x.dtype();
  const bool cuda = x.is_cuda();
  if (t == ScalarType::ComplexHalf) not_implemented(reduce_name(op), t, cuda);
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean: {
      if (x.dim() == 0) return clone(x);
      const Tensor r = reduce(op, view_as_real(x), real_view_dims(x, dims), keepdim);
      return view_as_complex(r);
    }
    case ReduceOp::Var:
    case ReduceOp::Std: {
      // var(z) = var(re) + var(im), with the same correction.
      Tensor v = x.dim() == 0
                     ? reduce(ReduceOp::Var, view_as_real(unsqueeze(x, 0)), std::vector<int64_t>{0},
                              keepdim, std::nullopt, args)
                     : reduce(ReduceOp::Var, view_as_real(x), real_view_dims(x, dims), keepdim,
                              std::nullopt, args);
      if (x.dim() == 0 && keepdim) v = squeeze(v, {0});
      v = reduce(ReduceOp::Sum, v, std::vector<int64_t>{-1}, false);
      return op == ReduceOp::Std ? unary(UnaryOp::Sqrt, v) : v;
    }
    case ReduceOp::Norm:
      return reduce(op, unary(UnaryOp::Abs, x), dims, keepdim, std::nullopt, args);
    case ReduceOp::Prod: {
      const std::vector<bool> red = reduced_dims(dims, x.dim());
      return complex_prod(x, red, keepdim);
    }
    case ReduceOp::Amax: not_implemented("max_values", t, cuda);
    case ReduceOp::Amin: not_implemented("min_values", t, cuda);
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      throw Error(detail::str(reduce_name(op), "(): does not support complex input"));
    default:
      not_implemented(reduce_name(op), t, cuda);
  }
}

}  // namespace

const char* reduce_name(ReduceOp op) {
  static const char* const names[] = {"sum", "prod", "mean", "amax", "amin", "argmax", "argmin",
                                      "var", "std", "norm", "all", "any", "logsumexp"};
  return names[static_cast<int>(op)];
}

Tensor reduce(ReduceOp op, const Tensor& x_in, const Dims& dims, bool keepdim,
              std::optional<ScalarType> dtype, const ReduceArgs& args, const Tensor& out) {
  Tensor x = x_in;
  if (dtype && *dtype != x.dtype()) x = to(x, x.device(), *dtype);
  if (is_complex(x.dtype()) && op != ReduceOp::All && op != ReduceOp::Any) {
    return deliver(reduce_complex(op, x, dims, keepdim, args), out, reduce_name(op));
  }
  const ScalarType rdt = args.result_dtype ? *args.result_dtype
                                           : result_dtype(op, x.dtype(), x.is_cuda());
  const std::vector<bool> red = reduced_dims(dims, x.dim());
  check_nonempty(op, x, dims, red);
  // argmax over everything indexes the flattened (row-major) tensor.
  if (is_arg(op) && (!dims || dims->empty()) && !x.is_contiguous()) x = contiguous(x);
  const Tensor kx = kernel_input(op, x);
  const ReducePlan plan = make_reduce_plan(kx, red);
  const Tensor result = Tensor::empty(plan.out_shape, rdt, x.device());
  ReduceParams params{op, kx.dtype(), plan.reduced, args};
  ReduceOutputs outs;
  if (is_arg(op)) {
    outs.indices = static_cast<int64_t*>(result.data_ptr());
  } else {
    outs.values = static_cast<char*>(result.data_ptr());
    outs.values_dtype = rdt;
  }
  run(plan, params, outs);
  Tensor shaped = result;
  if (keepdim) shaped = view(result, reduced_shape(x.sizes(), red, true));
  return deliver(shaped, out, reduce_name(op));
}

std::pair<Tensor, Tensor> max_min_dim(bool is_max, const Tensor& x, int64_t dim, bool keepdim) {
  if (is_complex(x.dtype())) not_implemented(is_max ? "max" : "min", x.dtype(), x.is_cuda());
  const ReduceOp op = is_max ? ReduceOp::ArgMax : ReduceOp::ArgMin;
  const std::vector<bool> red = reduced_dims(std::vector<int64_t>{dim}, x.dim());
  if (x.dim() > 0 && x.sizes()[wrap_dim(dim, x.dim())] == 0) {
    throw IndexError(detail::str(is_max ? "max" : "min", "(): Expected reduction dim ",
                                 wrap_dim(dim, x.dim()), " to have non-zero size."));
  }
  if (x.dtype() == ScalarType::Bool) {
    // torch's max(dim) takes bool: compare as bytes, give bool values.
    auto r = max_min_dim(is_max, view_dtype(x, ScalarType::UInt8), dim, keepdim);
    return {view_dtype(r.first, ScalarType::Bool), r.second};
  }
  const Tensor kx = kernel_input(op, x);
  const ReducePlan plan = make_reduce_plan(kx, red);
  Tensor values = Tensor::empty(plan.out_shape, x.dtype(), x.device());
  Tensor indices = Tensor::empty(plan.out_shape, ScalarType::Int64, x.device());
  ReduceOutputs outs{static_cast<char*>(values.data_ptr()), x.dtype(),
                     static_cast<int64_t*>(indices.data_ptr())};
  run(plan, ReduceParams{op, kx.dtype(), plan.reduced, {}}, outs);
  if (keepdim) {
    const Shape s = reduced_shape(x.sizes(), red, true);
    values = view(values, s);
    indices = view(indices, s);
  }
  return {values, indices};
}

Tensor count_nonzero(const Tensor& x, const Dims& dims) {
  return reduce(ReduceOp::Sum, compare(CompareOp::Ne, x, 0), dims, false);
}

}  // namespace ember::ops
