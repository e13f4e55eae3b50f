// CPU loops: selects on float comparisons vectorise only when comparisons
// may not raise floating-point exceptions (ember never reads those flags).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif

#include "ops/reduce/reduce.hpp"

#include <cmath>
#include <string>

#include "ops/pointwise/binary.hpp"
#include "ops/pointwise/compare.hpp"
#include "ops/pointwise/ternary.hpp"
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
      if (is_arg(op)) {  // torch's argmax/argmin say it as an IndexError, shorter
        throw IndexError(detail::str(name, "(): Expected reduction dim to be specified for "
                                           "input.numel() == 0."));
      }
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

// torch's checks of an out= dtype, made before anything else.
void check_out_dtype(ReduceOp op, const Tensor& x, std::optional<ScalarType> dtype,
                     const Tensor& out) {
  const char* name = reduce_name(op);
  const ScalarType o = out.dtype();
  switch (op) {
    case ReduceOp::All:
    case ReduceOp::Any:
      if (o != ScalarType::Bool && o != ScalarType::UInt8) {
        throw Error(detail::str(name, " only supports bool tensor for result, got: ",
                                torch_scalar_name(o)));
      }
      return;
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      if (o != ScalarType::Int64) {
        throw Error(detail::str("Expected out tensor to have dtype long int, but got ",
                                torch_cpp_type_name(o), " instead"));
      }
      return;
    case ReduceOp::Amax:
    case ReduceOp::Amin:
      if (o != x.dtype()) {
        throw Error(detail::str("Expected the dtype for input and out to match, but got ",
                                torch_scalar_name(x.dtype()), " for input's dtype and ",
                                torch_scalar_name(o), " for out's dtype."));
      }
      return;
    case ReduceOp::Norm: {
      const ScalarType r = dtype ? *dtype : x.dtype();
      if (o != r) {
        throw Error(detail::str("Expected out tensor to have dtype ", torch_cpp_type_name(r),
                                ", but got ", torch_cpp_type_name(o), " instead"));
      }
      return;
    }
    case ReduceOp::LogSumExp:
      if (!is_floating(o) && !is_complex(o)) {
        throw Error(detail::str("logsumexp(): Expected floating point type for result tensor, "
                                "but got: ", torch_scalar_name(o)));
      }
      return;
    case ReduceOp::Sum:
    case ReduceOp::Prod:
    case ReduceOp::Mean:
      if (dtype && o != *dtype) {
        throw Error(detail::str("Expected out tensor to have dtype ", torch_cpp_type_name(*dtype),
                                ", but got ", torch_cpp_type_name(o), " instead"));
      }
      return;
    default:
      return;
  }
}

// torch's vector_norm has no identity for p = +-inf: an empty reduction raises.
void check_norm_identity(ReduceOp op, const ReduceArgs& args, const Tensor& x, const Dims& dims,
                         const std::vector<bool>& red) {
  // max-like norms (inf) and the negative ones (min-like) have no identity
  if (op != ReduceOp::Norm || !(std::isinf(args.p) || args.p < 0)) return;
  const std::string which = std::isinf(args.p) ? (args.p > 0 ? "inf" : "-inf")
                            : args.p == std::floor(args.p)
                                ? std::to_string(static_cast<int64_t>(args.p))
                                : detail::str(args.p);
  if (!dims || dims->empty()) {
    if (x.numel() == 0) {
      throw Error(detail::str("linalg.vector_norm cannot compute the ", which,
                              " norm on an empty tensor because the operation does not have an "
                              "identity"));
    }
    return;
  }
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (red[d] && x.sizes()[d] == 0) {
      throw Error(detail::str("linalg.vector_norm cannot compute the ", which,
                              " norm on the dimension ", d,
                              "because this dimension is empty and the operation does not have "
                              "an identity"));
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

// The dims marked in `red`, as a dims list.
Dims dims_of(const std::vector<bool>& red) {
  std::vector<int64_t> d;
  for (size_t i = 0; i < red.size(); ++i) {
    if (red[i]) d.push_back(static_cast<int64_t>(i));
  }
  return d;
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
    case ReduceOp::LogSumExp: {
      // torch's: the max of the real parts (0 where infinite) shifts the sum
      const std::vector<bool> red = reduced_dims(dims, x.dim());
      const Dims rd = dims_of(red);
      if (x.numel() == 0) return log(reduce(ReduceOp::Sum, exp(x), rd, keepdim));
      Tensor mx = reduce(ReduceOp::Amax, real_part(x), rd, true);
      mx = where(unary(UnaryOp::IsInf, mx), Operand(0.0), mx);
      const Tensor s = log(reduce(ReduceOp::Sum, exp(sub(x, mx)), rd, keepdim));
      return add(s, keepdim ? mx : view(mx, reduced_shape(x.sizes(), red, false)));
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

// torch's logsumexp step by step (ReduceOps.cpp's logsumexp_out_impl), each
// step rounded to its dtype: maxes = amax(x) (0 where infinite),
// sum(exp(x - maxes)) into the result's dtype, log, + maxes. The one-pass
// kernel (a running max and a rescaled sum in float32/float64, rounded once)
// is within an ulp of it in float32/float64; float16/bfloat16, and a result
// of another dtype than x's, round where torch does.

Tensor logsumexp_steps(const Tensor& x, const std::vector<bool>& red, bool keepdim,
                       ScalarType rdt) {
  const Dims dims = dims_of(red);
  if (x.numel() == 0) return log(reduce(ReduceOp::Sum, exp(x), dims, keepdim, rdt));
  Tensor mx = reduce(ReduceOp::Amax, x, dims, true);
  mx = where(unary(UnaryOp::IsInf, mx), Operand(0.0), mx);
  const Tensor s = log(reduce(ReduceOp::Sum, exp(sub(x, mx)), dims, keepdim, rdt));
  const Tensor r = add(s, keepdim ? mx : view(mx, reduced_shape(x.sizes(), red, false)));
  return r.dtype() == rdt ? r : to(r, r.device(), rdt);
}

}  // namespace

const char* reduce_name(ReduceOp op) {
  static const char* const names[] = {"sum", "prod", "mean", "amax", "amin", "argmax", "argmin",
                                      "var", "std", "norm", "all", "any", "logsumexp"};
  return names[static_cast<int>(op)];
}

Tensor reduce(ReduceOp op, const Tensor& x_in, const Dims& dims, bool keepdim,
              std::optional<ScalarType> dtype, const ReduceArgs& args, const Tensor& out) {
  // amax/amin/all/any/norm check out's dtype first; argmax/argmin and
  // sum/prod/mean after the dims (as torch's meta functions order them)
  const bool late_out_check = is_arg(op) || op == ReduceOp::Sum || op == ReduceOp::Prod ||
                              op == ReduceOp::Mean;
  if (out.defined() && !late_out_check) check_out_dtype(op, x_in, dtype, out);
  // The dtype the reduction accumulates in and gives: dtype=, else for sum and
  // prod an out='s dtype (torch's get_dtype_from_result: the input is
  // converted first, so sum(x, out=uint8) adds uint8 values).
  std::optional<ScalarType> as = dtype;
  if (!as && out.defined() && (op == ReduceOp::Sum || op == ReduceOp::Prod)) as = out.dtype();
  // mean(x, out=o) is sum(x, dtype=o.dtype) / n in torch, and var/std with a
  // floating out= compute in out's dtype too
  if (!as && out.defined() &&
      (op == ReduceOp::Mean || op == ReduceOp::Var || op == ReduceOp::Std) &&
      is_floating(out.dtype()) && is_floating(x_in.dtype())) {
    as = out.dtype();
  }
  Tensor x = x_in;
  if (as && *as != x.dtype()) x = to(x, x.device(), *as);
  if (is_complex(x.dtype()) && op != ReduceOp::All && op != ReduceOp::Any) {
    Tensor r = reduce_complex(op, x, dims, keepdim, args);
    // torch's logsumexp copies into a real out= (the imaginary part dropped, warned)
    if (op == ReduceOp::LogSumExp && out.defined() && !is_complex(out.dtype())) {
      r = to(r, r.device(), out.dtype());
    }
    return deliver(r, out, reduce_name(op));
  }
  const ScalarType rdt = args.result_dtype                                   ? *args.result_dtype
                         : as && (op == ReduceOp::Sum || op == ReduceOp::Prod) ? *as
                                                                           : result_dtype(op, x.dtype(), x.is_cuda());
  std::vector<bool> red;
  if (dims && dims->empty() && (op == ReduceOp::All || op == ReduceOp::Any)) {
    red.assign(static_cast<size_t>(x.dim()), false);  // torch: all/any over no dims reduce nothing
  } else {
    if (dims && dims->empty() && op == ReduceOp::LogSumExp && x.dim() > 0 && !keepdim &&
        x.numel() > 0) {
      // torch's logsumexp(dim=()) fails this way (its result keeps no dims)
      throw Error(detail::str("output with shape [] doesn't match the broadcast shape ",
                              shape_str(Shape(static_cast<size_t>(x.dim()), 1))));
    }
    red = reduced_dims(dims, x.dim());
  }
  check_norm_identity(op, args, x, dims, red);
  check_nonempty(op, x, dims, red);
  // argmax/argmin check out's dtype after the dims (their structured meta
  // functions); the others before
  if (out.defined() && late_out_check) check_out_dtype(op, x_in, dtype, out);
  // argmax over everything indexes the flattened (row-major) tensor.
  if (is_arg(op) && (!dims || dims->empty()) && !x.is_contiguous()) x = contiguous(x);
  if (op == ReduceOp::Mean && !x_in.is_cuda() && x_in.dtype() != rdt &&
      (rdt == ScalarType::Float16 || rdt == ScalarType::BFloat16)) {
    // torch's CPU mean into float16/bfloat16 (dtype= or out=) sums the input
    // converted to float32, not to the dtype, divides, and rounds once (its
    // CUDA mean converts the input to the dtype first, as below)
    const Tensor x32 = x_in.dtype() == ScalarType::Float32
                           ? x_in
                           : to(x_in, x_in.device(), ScalarType::Float32);
    const Tensor m = reduce(ReduceOp::Mean, x32, dims_of(red), keepdim);
    return deliver(to(m, m.device(), rdt), out, reduce_name(op));
  }
  if (op == ReduceOp::Norm) {
    // torch's linalg.vector_norm over dims of size 1 only is |x| (x != 0 for
    // p = 0), computed elementwise: norm(1e-39, p=3) is 1e-39, not 0.
    // (A 0-d input with a dim given reads a size it does not have in torch, and
    // takes the reduction: norm(bfloat16 3e-38, dim=0) underflows to 0 there.)
    bool ones = x.dim() > 0 || !dims || dims->empty();
    for (int64_t d = 0; d < x.dim(); ++d) ones = ones && (!red[d] || x.sizes()[d] == 1);
    if (ones) {
      const Tensor v = args.p == 0.0 ? to(compare(CompareOp::Ne, x, 0), x.device(), rdt)
                                     : (x.dtype() == rdt ? abs(x) : to(abs(x), x.device(), rdt));
      return deliver(reshape(v, reduced_shape(x.sizes(), red, keepdim)), out, reduce_name(op));
    }
  }
  const Tensor kx = kernel_input(op, x);
  if (op == ReduceOp::LogSumExp && !args.result_dtype && !args.lse_relative &&
      (kx.dtype() == ScalarType::Float16 || kx.dtype() == ScalarType::BFloat16 ||
       (out.defined() && out.dtype() != rdt))) {
    return deliver(logsumexp_steps(kx, red, keepdim, out.defined() ? out.dtype() : rdt), out,
                   reduce_name(op));
  }
  // all/any write bool or uint8 into out= whatever the input (torch's kernels)
  const ScalarType odt =
      (op == ReduceOp::All || op == ReduceOp::Any) && out.defined() ? out.dtype() : rdt;
  const ReducePlan plan = make_reduce_plan(kx, red);
  const Tensor result = Tensor::empty(plan.out_shape, odt, x.device());
  ReduceParams params{op, kx.dtype(), plan.reduced, args};
  ReduceOutputs outs;
  if (is_arg(op)) {
    outs.indices = static_cast<int64_t*>(result.data_ptr());
  } else {
    outs.values = static_cast<char*>(result.data_ptr());
    outs.values_dtype = odt;
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
