// Reductions (ops/reduce/reduce.hpp), scans (ops/reduce/scan.hpp) and softmax
// (ops/reduce/softmax.hpp) with autograd, and sum_to, the reverse of broadcasting
// that every broadcasting op's gradient goes through (engine.cpp).
//
// The gradient of a reduction is the output gradient broadcast back over the
// reduced dims (reshaped first when keepdim was false), times the op's local
// derivative. Selecting reductions (amax, max(dim)) give it to the selected
// elements (amax splits it between ties, as torch).
#include <cmath>
#include <numeric>

#include "autograd/autocast.hpp"
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "ops/pointwise/compare.hpp"
#include "ops/copy/copy.hpp"
#include "ops/fill/fill.hpp"
#include "ops/reduce/reduce.hpp"
#include "ops/reduce/scan.hpp"
#include "ops/reduce/softmax.hpp"
#include "runtime/errors.hpp"
#include "tensor/views.hpp"

namespace ember::autograd {

namespace {

using ops::Operand;
using ops::ReduceOp;

// Which dims of an input of `ndim` dims the reduction covered.
std::vector<bool> reduced_dims(const ops::Dims& dims, int64_t ndim) {
  std::vector<bool> r(static_cast<size_t>(ndim), !dims.has_value() || dims->empty());
  if (dims) {
    for (int64_t d : *dims) r[static_cast<size_t>(wrap_dim(d, std::max<int64_t>(ndim, 1)))] = ndim > 0;
  }
  return r;
}

// g (the gradient of a reduction over `which`) with the reduced dims back as
// size 1, ready to broadcast against the input.
Tensor keep_dims(const Tensor& g, const std::vector<bool>& which, bool keepdim) {
  if (keepdim || g.dim() == static_cast<int64_t>(which.size())) return g;
  Tensor r = g;
  for (size_t d = 0; d < which.size(); ++d) {
    if (which[d]) r = autograd::unsqueeze(r, static_cast<int64_t>(d));
  }
  return r;
}

int64_t reduced_count(const Shape& sizes, const std::vector<bool>& which) {
  int64_t n = 1;
  for (size_t d = 0; d < which.size(); ++d) {
    if (which[d]) n *= sizes[d];
  }
  return n;
}

const char* backward_name(ReduceOp op, bool all) {
  switch (op) {
    case ReduceOp::Sum: return all ? "SumBackward0" : "SumBackward1";
    case ReduceOp::Prod: return all ? "ProdBackward0" : "ProdBackward1";
    case ReduceOp::Mean: return all ? "MeanBackward0" : "MeanBackward1";
    case ReduceOp::Amax: return "AmaxBackward0";
    case ReduceOp::Amin: return "AminBackward0";
    case ReduceOp::Var: return "VarBackward0";
    case ReduceOp::Std: return "StdBackward0";
    case ReduceOp::Norm: return "NormBackward1";
    case ReduceOp::LogSumExp: return "LogsumexpBackward0";
    default: return "ReduceBackward0";
  }
}

bool differentiable(ReduceOp op) {
  return op != ReduceOp::ArgMax && op != ReduceOp::ArgMin && op != ReduceOp::All &&
         op != ReduceOp::Any;
}

Tensor weight_of(const Tensor& mask, const Tensor& like) {
  return ops::to(mask, like.device(), like.dtype());
}

// prod of every element of x but the one at each position, along `dim` (or
// over all elements for dim < 0), without dividing (zeros are fine).
Tensor prod_of_others(const Tensor& x, int64_t dim) {
  Tensor v = dim < 0 ? autograd::reshape(x, {-1}) : x;
  const int64_t d = dim < 0 ? 0 : dim;
  const int64_t n = v.sizes()[d];
  Tensor ones = Tensor::empty({}, v.dtype(), v.device());
  ops::fill_(ones, Scalar::from_int(1));
  Shape one_shape = v.sizes();
  one_shape[d] = 1;
  const Tensor one = autograd::expand(ones, one_shape);
  // left[i] = prod(v[:i]); right[i] = prod(v[i+1:]) = reversed exclusive cumprod.
  const Tensor left = autograd::cat({one, autograd::narrow(autograd::scan(ops::ScanOp::Prod, v, d),
                                                           d, 0, n - 1)}, d);
  std::vector<int64_t> rev(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) rev[i] = n - 1 - i;
  Tensor idx = Tensor::empty({n}, ScalarType::Int64, Device(DeviceType::CPU));
  std::copy(rev.begin(), rev.end(), static_cast<int64_t*>(idx.data_ptr()));
  std::vector<Tensor> sel(static_cast<size_t>(d));
  sel.push_back(ops::to(idx, v.device(), ScalarType::Int64));
  const Tensor vr = autograd::index(v, sel);
  const Tensor rr = autograd::cat({one, autograd::narrow(autograd::scan(ops::ScanOp::Prod, vr, d),
                                                         d, 0, n - 1)}, d);
  const Tensor right = autograd::index(rr, sel);
  Tensor r = autograd::mul(left, right);
  return dim < 0 ? autograd::reshape(r, x.sizes()) : r;
}

Tensor reduce_grad(ReduceOp op, const Tensor& g_in, const Tensor& x, const Tensor& out,
                   const Shape& xs, const std::vector<bool>& which, bool keepdim,
                   const ops::ReduceArgs& args) {
  const Tensor g = keep_dims(g_in, which, keepdim);
  const Tensor y = out.defined() ? keep_dims(out, which, keepdim) : Tensor();
  switch (op) {
    case ReduceOp::Sum:
      return autograd::expand(g, xs);
    case ReduceOp::Mean:
      return autograd::expand(
          autograd::div(g, Operand(static_cast<double>(std::max<int64_t>(reduced_count(xs, which), 1)))),
          xs);
    case ReduceOp::LogSumExp:
      return autograd::mul(g, conj(autograd::unary(ops::UnaryOp::Exp, autograd::sub(x, y))));
    case ReduceOp::Amax:
    case ReduceOp::Amin: {
      const Tensor mask = weight_of(ops::eq(x, y), x);
      std::vector<int64_t> dims;
      for (size_t d = 0; d < which.size(); ++d) {
        if (which[d]) dims.push_back(static_cast<int64_t>(d));
      }
      const Tensor count = ops::sum(mask, dims.empty() ? ops::Dims() : ops::Dims(dims), true);
      return autograd::mul(autograd::div(g, count), mask);
    }
    case ReduceOp::Var:
    case ReduceOp::Std: {
      std::vector<int64_t> dims;
      for (size_t d = 0; d < which.size(); ++d) {
        if (which[d]) dims.push_back(static_cast<int64_t>(d));
      }
      const Tensor mean = autograd::reduce(ReduceOp::Mean, x,
                                           dims.empty() ? ops::Dims() : ops::Dims(dims), true);
      const double n = static_cast<double>(reduced_count(xs, which)) - args.correction;
      Tensor d = autograd::mul(autograd::sub(x, mean), Operand(1.0 / n));
      if (op == ReduceOp::Var) return autograd::mul(autograd::mul(g, d), Operand(2.0));
      return autograd::div(autograd::mul(g, d), y);
    }
    case ReduceOp::Norm: {
      const double p = args.p;
      if (p == 0.0) return zeros_like(x);
      if (p == 1.0) return autograd::mul(g, autograd::sgn(x));
      if (std::isinf(p)) {
        const Tensor ax = autograd::unary(ops::UnaryOp::Abs, x);
        const Tensor mask = weight_of(ops::eq(ax, y), x);
        std::vector<int64_t> dims;
        for (size_t d = 0; d < which.size(); ++d) {
          if (which[d]) dims.push_back(static_cast<int64_t>(d));
        }
        const Tensor count = ops::sum(mask, dims.empty() ? ops::Dims() : ops::Dims(dims), true);
        return autograd::mul(autograd::mul(autograd::div(g, count), mask), autograd::sgn(x));
      }
      // g * x * |x|^(p-2) / norm^(p-1), 0 where the norm is 0
      Tensor scale = p == 2.0 ? autograd::div(g, y)
                              : autograd::div(g, autograd::pow(y, Operand(p - 1.0)));
      scale = autograd::where(ops::eq(y, Operand(0.0)), Operand(0.0), scale);
      Tensor dx = x;
      if (p != 2.0) {
        dx = autograd::mul(x, autograd::pow(autograd::unary(ops::UnaryOp::Abs, x),
                                            Operand(p - 2.0)));
      }
      return autograd::mul(dx, scale);
    }
    case ReduceOp::Prod: {
      int64_t dim = -1;
      int64_t count = 0;
      for (size_t d = 0; d < which.size(); ++d) {
        if (which[d]) {
          dim = static_cast<int64_t>(d);
          ++count;
        }
      }
      if (x.dim() == 0) return g;
      if (count == static_cast<int64_t>(which.size()) && count > 1) dim = -1;
      return autograd::mul(g, prod_of_others(x, dim));
    }
    default:
      break;
  }
  throw Error(detail::str("internal error: no gradient for ", ops::reduce_name(op)));
}

}  // namespace

Tensor reduce(ReduceOp op, const Tensor& x, const ops::Dims& dims, bool keepdim,
              std::optional<ScalarType> dtype, const ops::ReduceArgs& args, const Tensor& out) {
  if (out.defined()) {
    check_out_no_grad(ops::reduce_name(op), {&x});
    Tensor r = ops::reduce(op, x, dims, keepdim, dtype, args, out);
    mark_dirty(out);
    return r;
  }
  if (autocast::any_enabled()) {
    // torch's autocast: sum, prod (cpu too) and norm get dtype=float32 when
    // none is given; logsumexp casts its input to float32.
    if (op == ReduceOp::Sum || op == ReduceOp::Norm || op == ReduceOp::Prod) {
      const uint8_t lists = op == ReduceOp::Prod ? autocast::kBothLists : autocast::kCudaList;
      const auto d = autocast::opt_dtype(x, dtype, lists);
      if (d != dtype) return autograd::reduce(op, x, dims, keepdim, d, args);
    } else if (op == ReduceOp::LogSumExp) {
      if (auto ac = autocast::enter(x, autocast::kCudaList, autocast::Policy::Float32)) {
        return autograd::reduce(op, ac.cast(x), dims, keepdim, dtype, args);
      }
    }
  }
  Tensor r = ops::reduce(op, x, dims, keepdim, dtype, args);
  if (!differentiable(op) || !needs_grad(x) || !is_floating_or_complex(r.dtype())) return r;
  EMBER_CHECK(!(op == ReduceOp::Prod && is_complex(x.dtype())),
              "prod: ember computes no gradient of prod for complex inputs");
  if (op == ReduceOp::Prod) {
    EMBER_CHECK(!dims || dims->size() <= 1 || static_cast<int64_t>(dims->size()) == x.dim(),
                "prod: ember computes gradients of prod over one dim or over all elements");
  }
  const std::vector<bool> which = reduced_dims(dims, x.dim());
  const bool all = !dims || dims->empty();
  const Shape xs = x.sizes();
  auto node = record(backward_name(op, all), {&x}, {&r},
                     [op, xs, which, keepdim, args](FormulaNode& n, TensorList& g) -> TensorList {
                       return {reduce_grad(op, g[0], n.saved(0), n.saved(1), xs, which, keepdim,
                                           args)};
                     });
  const bool light = op == ReduceOp::Sum || op == ReduceOp::Mean;
  node->save(light ? Tensor() : x);
  node->save(light ? Tensor() : r, /*is_output=*/true);
  return r;
}

std::pair<Tensor, Tensor> max_min_dim(bool is_max, const Tensor& x, int64_t dim, bool keepdim) {
  auto r = ops::max_min_dim(is_max, x, dim, keepdim);
  if (!needs_grad(x) || !is_floating(r.first.dtype())) return r;
  const Shape xs = x.sizes();
  const int64_t d = x.dim() == 0 ? 0 : wrap_dim(dim, x.dim());
  const ScalarType dt = x.dtype();
  const Device dev = x.device();
  auto node = record(is_max ? "MaxBackward0" : "MinBackward0", {&x}, {&r.first},
                     [xs, d, keepdim, dt, dev](FormulaNode& n, TensorList& g) -> TensorList {
    Tensor z = zeros(xs, dt, dev);
    if (xs.empty()) return {g[0]};
    Tensor idx = n.saved(0);
    Tensor gk = g[0];
    if (!keepdim) {
      idx = ember::unsqueeze(idx, d);
      gk = autograd::unsqueeze(gk, d);
    }
    // z[i0, ..., idx, ..., ik] = g: coordinate grids for the other dims.
    std::vector<Tensor> coords;
    for (int64_t k = 0; k < static_cast<int64_t>(xs.size()); ++k) {
      if (k == d) {
        coords.push_back(idx);
        continue;
      }
      Tensor ar = Tensor::empty({xs[k]}, ScalarType::Int64, dev);
      ops::arange_fill(ar, Scalar::from_int(0), Scalar::from_int(1));
      Shape s(xs.size(), 1);
      s[k] = xs[k];
      coords.push_back(ember::view(ar, s));
    }
    autograd::index_put_(z, coords, gk, /*accumulate=*/false);
    return {z};
  });
  node->save(r.second);
  return r;
}

Tensor scan(ops::ScanOp op, const Tensor& x, int64_t dim, std::optional<ScalarType> dtype,
            const Tensor& out) {
  if (out.defined()) {
    check_out_no_grad(op == ops::ScanOp::Sum ? "cumsum" : "cumprod", {&x});
    Tensor r = ops::scan(op, x, dim, dtype, out);
    mark_dirty(out);
    return r;
  }
  if (autocast::any_enabled()) {  // torch's autocast: cumsum/cumprod in float32
    const auto d = autocast::opt_dtype(x, dtype, autocast::kCudaList);
    if (d != dtype) return autograd::scan(op, x, dim, d);
  }
  Tensor r = ops::scan(op, x, dim, dtype);
  if (!needs_grad(x) || !is_floating_or_complex(r.dtype())) return r;
  const int64_t d = x.dim() == 0 ? 0 : wrap_dim(dim, x.dim());
  // reverse_cumsum(v) = sum(v) - cumsum(v) + v along d
  auto reverse_cumsum = [d](const Tensor& v) {
    if (v.dim() == 0) return v;
    const Tensor total = autograd::reduce(ReduceOp::Sum, v, std::vector<int64_t>{d}, true);
    return autograd::add(autograd::sub(total, autograd::scan(ops::ScanOp::Sum, v, d)), v);
  };
  if (op == ops::ScanOp::Sum) {
    record("CumsumBackward0", {&x}, {&r}, [reverse_cumsum](FormulaNode&, TensorList& g) -> TensorList {
      return {reverse_cumsum(g[0])};
    });
    return r;
  }
  auto node = record("CumprodBackward0", {&x}, {&r},
                     [reverse_cumsum](FormulaNode& n, TensorList& g) -> TensorList {
    // nonzero inputs: reverse_cumsum(g * conj(out)) / conj(x)
    return {autograd::div(reverse_cumsum(autograd::mul(g[0], conj(n.saved(1)))),
                          conj(n.saved(0)))};
  });
  node->save(x);
  node->save(r, /*is_output=*/true);
  return r;
}

Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  if (autocast::any_enabled()) {  // torch's autocast: float32 unless a dtype is given
    const auto d = autocast::opt_dtype(x, dtype, autocast::kCudaList);
    if (d != dtype) return autograd::softmax(x, dim, d);
  }
  Tensor y = ops::softmax(x, dim, dtype);
  if (!needs_grad(x)) return y;
  const int64_t d = x.dim() == 0 ? 0 : wrap_dim(dim, x.dim());
  auto node = record("SoftmaxBackward0", {&x}, {&y}, [d](FormulaNode& n, TensorList& g) -> TensorList {
    // y * (g - sum(g * y, d))
    const Tensor yv = n.saved(0);
    const Tensor gy = autograd::mul(g[0], yv);
    if (yv.dim() == 0) return {autograd::sub(gy, autograd::mul(gy, yv))};
    const Tensor s = autograd::reduce(ReduceOp::Sum, gy, std::vector<int64_t>{d}, true);
    return {autograd::sub(gy, autograd::mul(yv, s))};
  });
  node->save(y, /*is_output=*/true);
  return y;
}

Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  if (autocast::any_enabled()) {  // torch's autocast: float32 unless a dtype is given
    const auto d = autocast::opt_dtype(x, dtype, autocast::kCudaList);
    if (d != dtype) return autograd::log_softmax(x, dim, d);
  }
  Tensor y = ops::log_softmax(x, dim, dtype);
  if (!needs_grad(x)) return y;
  const int64_t d = x.dim() == 0 ? 0 : wrap_dim(dim, x.dim());
  auto node = record("LogSoftmaxBackward0", {&x}, {&y}, [d](FormulaNode& n, TensorList& g) -> TensorList {
    // g - exp(y) * sum(g, d)
    const Tensor e = autograd::unary(ops::UnaryOp::Exp, n.saved(0));
    if (g[0].dim() == 0) return {autograd::sub(g[0], autograd::mul(e, g[0]))};
    const Tensor s = autograd::reduce(ReduceOp::Sum, g[0], std::vector<int64_t>{d}, true);
    return {autograd::sub(g[0], autograd::mul(e, s))};
  });
  node->save(y, /*is_output=*/true);
  return y;
}

Tensor sum_to(const Tensor& grad, const Shape& shape) {
  if (grad.sizes() == shape) return grad;
  EMBER_CHECK(is_expandable_to(shape, grad.sizes()), "sum_to: ", shape_str(grad.sizes()),
              " cannot be summed to ", shape_str(shape));
  const int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < grad.dim(); ++d) {
    if (d < lead || (shape[d - lead] == 1 && grad.sizes()[d] != 1)) dims.push_back(d);
  }
  Tensor r = dims.empty() ? grad : autograd::reduce(ReduceOp::Sum, grad, dims, true);
  return r.sizes() == shape ? r : autograd::reshape(r, shape);
}

}  // namespace ember::autograd
