#include "ops/nn/group_norm.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "ops/copy/copy.hpp"
#include "ops/cpu_parallel.hpp"
#include "ops/elementwise.hpp"
#include "ops/fill/fill.hpp"
#include "ops/nn/norm_math.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

using norm_math::Acc;

template <typename T>
inline T from_double(double v) {
  if constexpr (std::is_same_v<T, double>) {
    return v;
  } else {
    return T(static_cast<float>(v));
  }
}

template <typename T>
inline const T* ptr(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.data_ptr()) : nullptr;
}
template <typename T>
inline T* mut(const Tensor& t) {
  return t.defined() ? static_cast<T*>(t.data_ptr()) : nullptr;
}

Tensor acc_param(const Tensor& p, ScalarType acc) {
  if (!p.defined()) return p;
  return contiguous(to(p, p.device(), acc));
}

internal::GnArgs shape_args(const Tensor& x, int64_t G) {
  internal::GnArgs a;
  a.N = x.size(0);
  a.G = G;
  a.D = x.size(1) / G;
  a.S = a.N * x.size(1) == 0 ? 0 : x.numel() / (a.N * x.size(1));
  return a;
}

}  // namespace

GroupNormForward group_norm_forward(const Tensor& input, int64_t groups, const Tensor& weight,
                                    const Tensor& bias, double eps) {
  EMBER_CHECK(input.dim() >= 2, "Expected at least 2 dimensions for input tensor but received ",
              input.dim());
  const int64_t C = input.size(1);
  EMBER_CHECK(groups > 0 && C % groups == 0,
              "Expected number of channels in input to be divisible by num_groups, but got input "
              "of shape ",
              shape_str(input.sizes()), " and num_groups=", groups);
  const Tensor* params[2] = {&weight, &bias};
  const char* names[2] = {"weight", "bias"};
  for (int i = 0; i < 2; ++i) {
    const Tensor& p = *params[i];
    EMBER_CHECK(!p.defined() || (p.dim() == 1 && p.numel() == C), "Expected ", names[i],
                " to be a vector of size equal to the number of channels in input, but got ",
                names[i], " of shape ", shape_str(p.defined() ? p.sizes() : Shape{}),
                " and input of shape ", shape_str(input.sizes()));
    if (p.defined()) check_same_device(input, p);
  }
  if (!is_floating(input.dtype())) not_implemented("group_norm", input.dtype(), input.is_cuda());
  const ScalarType acc = norm_acc_dtype(input.dtype());
  internal::GnArgs a = shape_args(input, groups);
  a.eps = eps;
  GroupNormForward r;
  r.x = a.x = contiguous(input);
  r.out = a.y = Tensor::empty(input.sizes(), input.dtype(), input.device());
  r.mean = a.mean = Tensor::empty({a.N, groups}, acc, input.device());
  r.rstd = a.rstd = Tensor::empty({a.N, groups}, acc, input.device());
  if (input.numel() == 0) {
    // torch: an empty row has mean 0 and rstd 1/sqrt(eps)... rows of an empty batch do not exist
    if (r.mean.numel() > 0) {
      fill_(r.mean, Scalar::from_double(std::nan("")));
      fill_(r.rstd, Scalar::from_double(std::nan("")));
    }
    return r;
  }
  a.w = acc_param(weight, acc);
  a.b = acc_param(bias, acc);
  if (input.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::group_norm_fwd_cuda(a);
#endif
  } else {
    internal::group_norm_fwd_cpu(a);
  }
  return r;
}

NormGrads group_norm_backward(const Tensor& grad_out, const Tensor& x, const Tensor& mean,
                              const Tensor& rstd, const Tensor& weight, int64_t groups,
                              bool need_input, bool need_weight, bool need_bias) {
  const ScalarType acc = norm_acc_dtype(x.dtype());
  internal::GnArgs a = shape_args(x, groups);
  const int64_t C = x.size(1);
  a.x = x;
  a.dy = contiguous(to(grad_out, x.device(), x.dtype()));
  a.mean = mean;
  a.rstd = rstd;
  a.w = acc_param(weight, acc);
  if (need_input) a.dx = Tensor::empty(x.sizes(), x.dtype(), x.device());
  if (need_weight) a.dw = Tensor::empty({C}, acc, x.device());
  if (need_bias) a.db = Tensor::empty({C}, acc, x.device());
  if (x.numel() == 0) {
    if (a.dw.defined()) zero_(a.dw);
    if (a.db.defined()) zero_(a.db);
  } else if (x.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::group_norm_bwd_cuda(a);
#endif
  } else {
    internal::group_norm_bwd_cpu(a);
  }
  NormGrads g;
  g.input = a.dx;
  g.weight = a.dw;
  g.bias = a.db;
  return g;
}

namespace internal {

namespace {

int64_t rows_grain(int64_t row_len) {
  return std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(row_len, 1));
}

template <typename T>
void gn_fwd(const GnArgs& a) {
  using A = typename Acc<T>::type;
  const T* x = ptr<T>(a.x);
  T* y = mut<T>(a.y);
  const A* w = ptr<A>(a.w);
  const A* b = ptr<A>(a.b);
  A* mean = mut<A>(a.mean);
  A* rstd = mut<A>(a.rstd);
  const int64_t L = a.D * a.S, S = a.S, D = a.D, G = a.G;
  parallel_for(a.N * G, rows_grain(L), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* xr = x + r * L;
      double s = 0.0;
      for (int64_t j = 0; j < L; ++j) s += static_cast<double>(xr[j]);
      const double mu = s / static_cast<double>(L);
      double q = 0.0;
      for (int64_t j = 0; j < L; ++j) {
        const double d = static_cast<double>(xr[j]) - mu;
        q += d * d;
      }
      const double rs = 1.0 / std::sqrt(q / static_cast<double>(L) + a.eps);
      mean[r] = static_cast<A>(mu);
      rstd[r] = static_cast<A>(rs);
      const int64_t g = r % G;
      T* yr = y + r * L;
      for (int64_t d = 0; d < D; ++d) {
        const int64_t c = g * D + d;
        const double sc = rs * (w ? static_cast<double>(w[c]) : 1.0);
        const double sh = b ? static_cast<double>(b[c]) : 0.0;
        for (int64_t s2 = 0; s2 < S; ++s2) {
          const int64_t j = d * S + s2;
          yr[j] = from_double<T>((static_cast<double>(xr[j]) - mu) * sc + sh);
        }
      }
    }
  });
}

template <typename T>
void gn_bwd(const GnArgs& a) {
  using A = typename Acc<T>::type;
  const T* x = ptr<T>(a.x);
  const T* dy = ptr<T>(a.dy);
  const A* w = ptr<A>(a.w);
  const A* mean = ptr<A>(a.mean);
  const A* rstd = ptr<A>(a.rstd);
  T* dx = mut<T>(a.dx);
  const int64_t L = a.D * a.S, S = a.S, D = a.D, G = a.G, C = G * D;
  // per (n, c): sum(dy) and sum(dy * xhat)
  std::vector<double> sdy(static_cast<size_t>(a.N * C)), sdyxh(static_cast<size_t>(a.N * C));
  parallel_for(a.N * G, rows_grain(L), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / G, g = r % G;
      const T* xr = x + r * L;
      const T* gr = dy + r * L;
      const double mu = mean[r], rs = rstd[r];
      double sg = 0.0, sgx = 0.0;  // sums of dy * w and dy * w * xhat over the row
      for (int64_t d = 0; d < D; ++d) {
        const int64_t c = g * D + d;
        double s1 = 0.0, s2 = 0.0;
        for (int64_t s = 0; s < S; ++s) {
          const int64_t j = d * S + s;
          const double gv = static_cast<double>(gr[j]);
          s1 += gv;
          s2 += gv * (static_cast<double>(xr[j]) - mu) * rs;
        }
        sdy[n * C + c] = s1;
        sdyxh[n * C + c] = s2;
        const double wv = w ? static_cast<double>(w[c]) : 1.0;
        sg += s1 * wv;
        sgx += s2 * wv;
      }
      if (!dx) continue;
      const double c1 = sg / static_cast<double>(L), c2 = sgx / static_cast<double>(L);
      T* dr = dx + r * L;
      for (int64_t d = 0; d < D; ++d) {
        const int64_t c = g * D + d;
        const double wv = w ? static_cast<double>(w[c]) : 1.0;
        for (int64_t s = 0; s < S; ++s) {
          const int64_t j = d * S + s;
          const double xh = (static_cast<double>(xr[j]) - mu) * rs;
          dr[j] = from_double<T>(rs * (static_cast<double>(gr[j]) * wv - c1 - xh * c2));
        }
      }
    }
  });
  A* dw = mut<A>(a.dw);
  A* db = mut<A>(a.db);
  for (int64_t c = 0; c < C && (dw || db); ++c) {
    double s1 = 0.0, s2 = 0.0;
    for (int64_t n = 0; n < a.N; ++n) {
      s1 += sdy[n * C + c];
      s2 += sdyxh[n * C + c];
    }
    if (dw) dw[c] = static_cast<A>(s2);
    if (db) db[c] = static_cast<A>(s1);
  }
}

template <typename F>
void dispatch_floating(ScalarType t, const char* op, F&& f) {
  ember::dispatch_floating(t, f, [&] { not_implemented(op, t, false); });
}

}  // namespace

void group_norm_fwd_cpu(const GnArgs& a) {
  dispatch_floating(a.x.dtype(), "group_norm",
                    [&](auto tag) { gn_fwd<typename decltype(tag)::type>(a); });
}

void group_norm_bwd_cpu(const GnArgs& a) {
  dispatch_floating(a.x.dtype(), "group_norm_backward",
                    [&](auto tag) { gn_bwd<typename decltype(tag)::type>(a); });
}

}  // namespace internal

}  // namespace ember::ops
