#include "ops/nn/norm.hpp"

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

template <typename F>
void dispatch_floating(ScalarType t, const char* op, bool cuda, F&& f) {
  ember::dispatch_floating(t, f, [&] { not_implemented(op, t, cuda); });
}

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

// A contiguous copy of a parameter in the accumulation dtype (itself when it is one).
Tensor acc_param(const Tensor& p, ScalarType acc) {
  if (!p.defined()) return p;
  return contiguous(to(p, p.device(), acc));
}

void check_param_device(const Tensor& input, const Tensor& p) {
  if (p.defined()) check_same_device(input, p);
}

Tensor acc_empty(int64_t n, ScalarType acc, const Device& d) {
  return Tensor::empty({n}, acc, d);
}

}  // namespace

ScalarType norm_acc_dtype(ScalarType t) {
  return t == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
}

// ---- layer_norm ------------------------------------------------------------------

LayerNormForward layer_norm_forward(const Tensor& input, const Shape& ns, const Tensor& weight,
                                    const Tensor& bias, double eps) {
  EMBER_CHECK(!ns.empty(),
              "Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
              "least one element, but got normalized_shape = ",
              shape_str(ns));
  const int64_t k = static_cast<int64_t>(ns.size());
  const Shape& in = input.sizes();
  bool match = input.dim() >= k;
  for (int64_t i = 0; match && i < k; ++i) match = in[input.dim() - k + i] == ns[i];
  if (!match) {
    std::string star = "[*";
    for (int64_t s : ns) star += ", " + std::to_string(s);
    throw Error(detail::str("Given normalized_shape=", shape_str(ns), ", expected input with shape ",
                            star, "], but got input of size", shape_str(in)));
  }
  EMBER_CHECK(!weight.defined() || weight.sizes() == ns,
              "Expected weight to be of same shape as normalized_shape, but got weight of shape ",
              shape_str(weight.defined() ? weight.sizes() : Shape{}),
              " and normalized_shape = ", shape_str(ns));
  EMBER_CHECK(!bias.defined() || bias.sizes() == ns,
              "Expected bias to be of same shape as normalized_shape, but got bias of shape ",
              shape_str(bias.defined() ? bias.sizes() : Shape{}),
              " and normalized_shape = ", shape_str(ns));
  check_param_device(input, weight);
  check_param_device(input, bias);
  if (!is_floating(input.dtype())) not_implemented("layer_norm", input.dtype(), input.is_cuda());
  const int64_t N = numel_of(ns);
  const int64_t M = N == 0 ? 0 : input.numel() / N;
  const ScalarType acc = norm_acc_dtype(input.dtype());
  LayerNormForward r;
  r.x = contiguous(input);
  r.out = Tensor::empty(in, input.dtype(), input.device());
  r.mean = acc_empty(M, acc, input.device());
  r.rstd = acc_empty(M, acc, input.device());
  if (input.numel() == 0) return r;
  const Tensor w = acc_param(weight, acc), b = acc_param(bias, acc);
  if (input.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::layer_norm_fwd_cuda(r.x, w, b, r.out, r.mean, r.rstd, N, eps);
#endif
  } else {
    internal::layer_norm_fwd_cpu(r.x, w, b, r.out, r.mean, r.rstd, N, eps);
  }
  return r;
}

NormGrads layer_norm_backward(const Tensor& grad_out, const Tensor& x, const Tensor& mean,
                              const Tensor& rstd, const Tensor& weight, int64_t N,
                              bool need_input, bool need_weight, bool need_bias) {
  const ScalarType acc = norm_acc_dtype(x.dtype());
  const Tensor dy = contiguous(to(grad_out, x.device(), x.dtype()));
  const Tensor w = acc_param(weight, acc);
  NormGrads g;
  if (need_input) g.input = Tensor::empty(x.sizes(), x.dtype(), x.device());
  if (need_weight) g.weight = acc_empty(N, acc, x.device());
  if (need_bias) g.bias = acc_empty(N, acc, x.device());
  const Tensor& dw = g.weight;
  const Tensor& db = g.bias;
  if (x.numel() == 0) {
    if (dw.defined()) zero_(dw);
    if (db.defined()) zero_(db);
  } else if (x.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::layer_norm_bwd_cuda(dy, x, mean, rstd, w, g.input, dw, db, N);
#endif
  } else {
    internal::layer_norm_bwd_cpu(dy, x, mean, rstd, w, g.input, dw, db, N);
  }
  return g;
}

// ---- batch_norm ------------------------------------------------------------------

namespace {

void check_channels(const char* what, const Tensor& t, int64_t C) {
  EMBER_CHECK(!t.defined() || t.numel() == C, what, " should contain ", C, " elements not ",
              t.defined() ? t.numel() : 0);
}

// A running statistic the kernels may update in place: the tensor itself when
// it is a contiguous tensor of the accumulation dtype, else a converted copy
// (written back after the kernels).
Tensor running_work(const Tensor& r, ScalarType acc) {
  if (!r.defined() || (r.dtype() == acc && r.is_contiguous())) return r;
  return contiguous(to(r, r.device(), acc, false, true));
}

}  // namespace

BatchNormForward batch_norm_forward(const Tensor& input, const Tensor& running_mean,
                                    const Tensor& running_var, const Tensor& weight,
                                    const Tensor& bias, bool training, double momentum,
                                    double eps) {
  EMBER_CHECK(input.dim() >= 2, "batch_norm: expected an input of at least 2 dims (N, C, *), got ",
              input.dim(), "D input of size ", shape_str(input.sizes()));
  if (!is_floating(input.dtype())) not_implemented("batch_norm", input.dtype(), input.is_cuda());
  const int64_t C = input.size(1);
  check_channels("running_mean", running_mean, C);
  check_channels("running_var", running_var, C);
  check_channels("weight", weight, C);
  check_channels("bias", bias, C);
  if (!training) {
    EMBER_CHECK(running_mean.defined(), "running_mean must be defined in evaluation mode");
    EMBER_CHECK(running_var.defined(), "running_var must be defined in evaluation mode");
  }
  for (const Tensor* t : {&running_mean, &running_var, &weight, &bias}) check_param_device(input, *t);
  const ScalarType acc = norm_acc_dtype(input.dtype());
  BatchNormForward r;
  internal::BnFwdArgs a;
  a.N = input.size(0);
  a.C = C;
  a.S = a.N * C == 0 ? 0 : input.numel() / (a.N * C);
  a.training = training;
  a.momentum = momentum;
  a.eps = eps;
  r.x = a.x = contiguous(input);
  r.out = a.y = Tensor::empty(input.sizes(), input.dtype(), input.device());
  r.mean = a.mean = acc_empty(C, acc, input.device());
  r.invstd = a.invstd = acc_empty(C, acc, input.device());
  if (input.numel() == 0) {  // torch: empty output, running statistics unchanged
    zero_(r.mean);
    zero_(r.invstd);
    return r;
  }
  a.w = acc_param(weight, acc);
  a.b = acc_param(bias, acc);
  a.rm = running_work(running_mean, acc);
  a.rv = running_work(running_var, acc);
  if (input.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::batch_norm_fwd_cuda(a);
#endif
  } else {
    internal::batch_norm_fwd_cpu(a);
  }
  if (training) {
    if (a.rm.defined() && !a.rm.is_same(running_mean)) copy_(running_mean, a.rm);
    if (a.rv.defined() && !a.rv.is_same(running_var)) copy_(running_var, a.rv);
  }
  return r;
}

NormGrads batch_norm_backward(const Tensor& grad_out, const Tensor& x, const Tensor& mean,
                              const Tensor& invstd, const Tensor& weight, bool training,
                              bool need_input, bool need_weight, bool need_bias) {
  const ScalarType acc = norm_acc_dtype(x.dtype());
  internal::BnBwdArgs a;
  a.N = x.size(0);
  a.C = x.size(1);
  a.S = a.N * a.C == 0 ? 0 : x.numel() / (a.N * a.C);
  a.training = training;
  a.dy = contiguous(to(grad_out, x.device(), x.dtype()));
  a.x = x;
  a.mean = mean;
  a.invstd = invstd;
  a.w = acc_param(weight, acc);
  if (need_input) a.dx = Tensor::empty(x.sizes(), x.dtype(), x.device());
  if (need_weight) a.dw = acc_empty(a.C, acc, x.device());
  if (need_bias) a.db = acc_empty(a.C, acc, x.device());
  if (x.numel() == 0) {
    if (a.dw.defined()) zero_(a.dw);
    if (a.db.defined()) zero_(a.db);
  } else if (x.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::batch_norm_bwd_cuda(a);
#endif
  } else {
    internal::batch_norm_bwd_cpu(a);
  }
  NormGrads g;
  g.input = a.dx;
  g.weight = a.dw;
  g.bias = a.db;
  return g;
}

// ---- CPU loops -------------------------------------------------------------------

namespace internal {

namespace {

int64_t rows_grain(int64_t row_len) {
  return std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(row_len, 1));
}

template <typename T>
void ln_fwd_rows(const Tensor& xt, const Tensor& wt, const Tensor& bt, const Tensor& yt,
                 const Tensor& mt, const Tensor& rt, int64_t N, double eps) {
  using A = typename Acc<T>::type;
  const T* x = ptr<T>(xt);
  const A* w = ptr<A>(wt);
  const A* b = ptr<A>(bt);
  T* y = mut<T>(yt);
  A* mean = mut<A>(mt);
  A* rstd = mut<A>(rt);
  const int64_t M = xt.numel() / N;
  parallel_for(M, rows_grain(N), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* xr = x + r * N;
      double s = 0.0;
      for (int64_t j = 0; j < N; ++j) s += static_cast<double>(xr[j]);
      const double mu = s / static_cast<double>(N);
      double q = 0.0;
      for (int64_t j = 0; j < N; ++j) {
        const double d = static_cast<double>(xr[j]) - mu;
        q += d * d;
      }
      const double rs = 1.0 / std::sqrt(q / static_cast<double>(N) + eps);
      mean[r] = static_cast<A>(mu);
      rstd[r] = static_cast<A>(rs);
      T* yr = y + r * N;
      for (int64_t j = 0; j < N; ++j) {
        double v = (static_cast<double>(xr[j]) - mu) * rs;
        if (w) v *= static_cast<double>(w[j]);
        if (b) v += static_cast<double>(b[j]);
        yr[j] = from_double<T>(v);
      }
    }
  });
}

template <typename T>
void ln_bwd_rows(const Tensor& dyt, const Tensor& xt, const Tensor& mt, const Tensor& rt,
                 const Tensor& wt, const Tensor& dxt, const Tensor& dwt, const Tensor& dbt,
                 int64_t N) {
  using A = typename Acc<T>::type;
  const T* dy = ptr<T>(dyt);
  const T* x = ptr<T>(xt);
  const A* mean = ptr<A>(mt);
  const A* rstd = ptr<A>(rt);
  const A* w = ptr<A>(wt);
  const int64_t M = xt.numel() / N;
  const double inv_n = 1.0 / static_cast<double>(N);
  if (dxt.defined()) {
    T* dx = mut<T>(dxt);
    parallel_for(M, rows_grain(N), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* xr = x + r * N;
        const T* gr = dy + r * N;
        const double mu = mean[r], rs = rstd[r];
        double sg = 0.0, sgx = 0.0;
        for (int64_t j = 0; j < N; ++j) {
          const double g = static_cast<double>(gr[j]) * (w ? static_cast<double>(w[j]) : 1.0);
          sg += g;
          sgx += g * (static_cast<double>(xr[j]) - mu) * rs;
        }
        const double c1 = sg * inv_n, c2 = sgx * inv_n;
        for (int64_t j = 0; j < N; ++j) {
          const double g = static_cast<double>(gr[j]) * (w ? static_cast<double>(w[j]) : 1.0);
          const double xh = (static_cast<double>(xr[j]) - mu) * rs;
          dx[r * N + j] = from_double<T>(rs * (g - c1 - xh * c2));
        }
      }
    });
  }
  if (!dwt.defined() && !dbt.defined()) return;
  A* dw = mut<A>(dwt);
  A* db = mut<A>(dbt);
  parallel_for(N, std::max<int64_t>(64, kElementwiseGrain / std::max<int64_t>(M, 1)),
               [&](int64_t c0, int64_t c1) {
                 std::vector<double> sw(c1 - c0, 0.0), sb(c1 - c0, 0.0);
                 for (int64_t r = 0; r < M; ++r) {
                   const double mu = mean[r], rs = rstd[r];
                   for (int64_t j = c0; j < c1; ++j) {
                     const double g = static_cast<double>(dy[r * N + j]);
                     sw[j - c0] += g * (static_cast<double>(x[r * N + j]) - mu) * rs;
                     sb[j - c0] += g;
                   }
                 }
                 for (int64_t j = c0; j < c1; ++j) {
                   if (dw) dw[j] = static_cast<A>(sw[j - c0]);
                   if (db) db[j] = static_cast<A>(sb[j - c0]);
                 }
               });
}

// Calls f(n, base) for every (N, C, S) plane of channel c: base = (n*C + c)*S.
template <typename F>
inline void for_channel_planes(const BnFwdArgs& a, int64_t c, F&& f) {
  for (int64_t n = 0; n < a.N; ++n) f((n * a.C + c) * a.S);
}

template <typename T>
void bn_fwd(const BnFwdArgs& a) {
  using A = typename Acc<T>::type;
  const T* x = ptr<T>(a.x);
  T* y = mut<T>(a.y);
  const A* w = ptr<A>(a.w);
  const A* b = ptr<A>(a.b);
  A* rm = mut<A>(a.rm);
  A* rv = mut<A>(a.rv);
  A* mean = mut<A>(a.mean);
  A* invstd = mut<A>(a.invstd);
  const int64_t S = a.S;
  parallel_for(a.C, rows_grain(a.N * a.S), [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      norm_math::ChannelAffine<A> ch;
      if (a.training) {
        const double pivot = static_cast<double>(x[c * S]);
        double s1 = 0.0, s2 = 0.0;
        for_channel_planes(a, c, [&](int64_t base) {
          for (int64_t s = 0; s < S; ++s) {
            const double d = static_cast<double>(x[base + s]) - pivot;
            s1 += d;
            s2 += d * d;
          }
        });
        ch = norm_math::bn_train_channel<A>(s1, s2, pivot, a.N * S, w ? w + c : nullptr,
                                            b ? b + c : nullptr, rm ? rm + c : nullptr,
                                            rv ? rv + c : nullptr, a.momentum, a.eps);
      } else {
        ch = norm_math::bn_eval_channel<A>(rm[c], rv[c], w ? w + c : nullptr,
                                           b ? b + c : nullptr, a.eps);
      }
      mean[c] = ch.mean;
      invstd[c] = ch.invstd;
      const double m = ch.mean, sc = ch.scale, sh = ch.shift;
      for_channel_planes(a, c, [&](int64_t base) {
        for (int64_t s = 0; s < S; ++s) {
          y[base + s] = from_double<T>((static_cast<double>(x[base + s]) - m) * sc + sh);
        }
      });
    }
  });
}

template <typename T>
void bn_bwd(const BnBwdArgs& a) {
  using A = typename Acc<T>::type;
  const T* dy = ptr<T>(a.dy);
  const T* x = ptr<T>(a.x);
  const A* mean = ptr<A>(a.mean);
  const A* invstd = ptr<A>(a.invstd);
  const A* w = ptr<A>(a.w);
  T* dx = mut<T>(a.dx);
  A* dw = mut<A>(a.dw);
  A* db = mut<A>(a.db);
  const int64_t S = a.S, C = a.C;
  parallel_for(C, rows_grain(a.N * S), [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const double m = mean[c];
      double sdy = 0.0, sdyx = 0.0;
      for (int64_t n = 0; n < a.N; ++n) {
        const int64_t base = (n * C + c) * S;
        for (int64_t s = 0; s < S; ++s) {
          const double g = static_cast<double>(dy[base + s]);
          sdy += g;
          sdyx += g * (static_cast<double>(x[base + s]) - m);
        }
      }
      const auto k = norm_math::bn_backward_channel<A>(sdy, sdyx, mean[c], invstd[c],
                                                      w ? w + c : nullptr, a.N * S, a.training);
      if (dw) dw[c] = k.dw;
      if (db) db[c] = k.db;
      if (!dx) continue;
      const double k1 = k.k1, k2 = k.k2, k3 = k.k3;
      for (int64_t n = 0; n < a.N; ++n) {
        const int64_t base = (n * C + c) * S;
        for (int64_t s = 0; s < S; ++s) {
          const double v = static_cast<double>(dy[base + s]) * k1 +
                           (static_cast<double>(x[base + s]) - m) * k2 + k3;
          dx[base + s] = from_double<T>(v);
        }
      }
    }
  });
}

}  // namespace

void layer_norm_fwd_cpu(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& y,
                        const Tensor& mean, const Tensor& rstd, int64_t N, double eps) {
  dispatch_floating(x.dtype(), "layer_norm", false, [&](auto tag) {
    ln_fwd_rows<typename decltype(tag)::type>(x, w, b, y, mean, rstd, N, eps);
  });
}

void layer_norm_bwd_cpu(const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                        const Tensor& w, const Tensor& dx, const Tensor& dw, const Tensor& db,
                        int64_t N) {
  dispatch_floating(x.dtype(), "layer_norm_backward", false, [&](auto tag) {
    ln_bwd_rows<typename decltype(tag)::type>(dy, x, mean, rstd, w, dx, dw, db, N);
  });
}

void batch_norm_fwd_cpu(const BnFwdArgs& a) {
  dispatch_floating(a.x.dtype(), "batch_norm", false,
                    [&](auto tag) { bn_fwd<typename decltype(tag)::type>(a); });
}

void batch_norm_bwd_cpu(const BnBwdArgs& a) {
  dispatch_floating(a.x.dtype(), "batch_norm_backward", false,
                    [&](auto tag) { bn_bwd<typename decltype(tag)::type>(a); });
}

}  // namespace internal

}  // namespace ember::ops
