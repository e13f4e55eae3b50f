#include "ops/nn/ctc.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "ops/copy/copy.hpp"
#include "ops/elementwise.hpp"
#include "ops/cpu_parallel.hpp"
#include "ops/fill/fill.hpp"
#include "ops/nn/ctc_math.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

using ctc_math::ext_label;
using ctc_math::log_add;
using ctc_math::log_sum3;
using ctc_math::neg_inf;

template <typename F>
void dispatch_ctc(ScalarType t, bool cuda, F&& f) {
  if (t == ScalarType::Float32) {
    f(float{});
  } else if (t == ScalarType::Float64) {
    f(double{});
  } else {
    not_implemented("ctc_loss", t, cuda);
  }
}

}  // namespace

CtcForward ctc_loss_forward(const Tensor& log_probs, const Tensor& targets,
                            const std::vector<int64_t>& il, const std::vector<int64_t>& tl,
                            int64_t blank, bool zero_infinity) {
  EMBER_CHECK(log_probs.dim() == 3, "ctc_loss: expected log_probs of 3 dims (T, N, C), got ",
              log_probs.dim(), "D input of size ", shape_str(log_probs.sizes()));
  const int64_t T = log_probs.size(0), N = log_probs.size(1), C = log_probs.size(2);
  EMBER_CHECK(blank >= 0 && blank < C, "blank must be in label range");
  EMBER_CHECK(static_cast<int64_t>(il.size()) == N, "input_lengths must be of size batch_size");
  EMBER_CHECK(static_cast<int64_t>(tl.size()) == N, "target_lengths must be of size batch_size");
  EMBER_CHECK(targets.dtype() == ScalarType::Int64 || targets.dtype() == ScalarType::Int32,
              "ctc_loss: expected targets of an integer dtype (int64 or int32), got ",
              dtype_name(targets.dtype()));
  const char* where = log_probs.is_cuda() ? "ctc_loss_gpu" : "ctc_loss_cpu";
  int64_t max_tl = 0, total_tl = 0;
  for (int64_t b = 0; b < N; ++b) {
    EMBER_CHECK(il[b] >= 0 && il[b] <= T, "Expected input_lengths to have value at most ", T,
                ", but got value ", il[b], " (while checking arguments for ", where, ")");
    EMBER_CHECK(tl[b] >= 0, "Expected target_lengths to be non-negative, but got value ", tl[b],
                " (while checking arguments for ", where, ")");
    max_tl = std::max(max_tl, tl[b]);
    total_tl += tl[b];
  }
  const Device cpu(DeviceType::CPU);
  Tensor meta = Tensor::empty({4, N}, ScalarType::Int64, cpu);
  int64_t* m = static_cast<int64_t*>(meta.data_ptr());
  if (targets.dim() == 2) {
    EMBER_CHECK(targets.size(0) == N, "ctc_loss: targets of shape ", shape_str(targets.sizes()),
                " for a batch of ", N);
    EMBER_CHECK(targets.size(1) >= max_tl, "Expected tensor to have size at least ", max_tl,
                " at dimension 1, but got size ", targets.size(1),
                " for argument #2 'targets' (while checking arguments for ", where, ")");
    for (int64_t b = 0; b < N; ++b) {
      m[2 * N + b] = b * targets.size(1);
      m[3 * N + b] = 1;
    }
  } else {
    EMBER_CHECK(targets.dim() == 1, "ctc_loss: expected targets of 1 or 2 dims, got ",
                targets.dim());
    EMBER_CHECK(targets.size(0) >= total_tl, "Expected tensor to have size at least ", total_tl,
                " at dimension 0, but got size ", targets.size(0),
                " for argument #2 'targets' (while checking arguments for ", where, ")");
    int64_t off = 0;
    for (int64_t b = 0; b < N; ++b) {
      m[2 * N + b] = off;
      m[3 * N + b] = 1;
      off += tl[b];
    }
  }
  for (int64_t b = 0; b < N; ++b) {
    m[b] = il[b];
    m[N + b] = tl[b];
  }
  CtcForward f;
  const Device dev = log_probs.device();
  f.targets = contiguous(to(targets, dev, ScalarType::Int64));
  f.meta = dev.is_cuda() ? to(meta, dev, ScalarType::Int64) : meta;
  const int64_t S = 2 * max_tl + 1;
  f.nll = Tensor::empty({N}, log_probs.dtype(), dev);
  f.loss = Tensor::empty({N}, log_probs.dtype(), dev);
  f.log_alpha = Tensor::empty({N, T, S}, log_probs.dtype(), dev);
  if (N == 0) return f;
  if (!dev.is_cuda()) {
    // labels are read while computing: a class out of range raises here
    const int64_t* tg = static_cast<const int64_t*>(f.targets.data_ptr());
    for (int64_t b = 0; b < N; ++b) {
      for (int64_t i = 0; i < tl[b]; ++i) {
        const int64_t c = tg[m[2 * N + b] + i * m[3 * N + b]];
        if (c < 0 || c >= C) {
          throw IndexError(detail::str("ctc_loss: target ", c, " is out of bounds for ", C,
                                       " classes"));
        }
      }
    }
  }
  internal::CtcArgs a;
  a.lp = contiguous(log_probs);
  a.targets = f.targets;
  a.meta = f.meta;
  a.nll = f.nll;
  a.loss = f.loss;
  a.log_alpha = f.log_alpha;
  a.T = T;
  a.N = N;
  a.C = C;
  a.S = S;
  a.blank = blank;
  a.zero_infinity = zero_infinity;
  if (dev.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::ctc_fwd_cuda(a);
#endif
  } else {
    internal::ctc_fwd_cpu(a);
  }
  return f;
}

Tensor ctc_loss_backward(const Tensor& grad_out, const Tensor& log_probs, const CtcForward& f,
                         int64_t blank, bool zero_infinity) {
  internal::CtcArgs a;
  a.lp = contiguous(log_probs);
  a.targets = f.targets;
  a.meta = f.meta;
  a.nll = f.nll;
  a.log_alpha = f.log_alpha;
  a.T = log_probs.size(0);
  a.N = log_probs.size(1);
  a.C = log_probs.size(2);
  a.S = f.log_alpha.size(2);
  a.blank = blank;
  a.zero_infinity = zero_infinity;
  a.grad_out = contiguous(to(grad_out, log_probs.device(), log_probs.dtype()));
  a.grad = Tensor::empty(log_probs.sizes(), log_probs.dtype(), log_probs.device());
  if (log_probs.numel() == 0) return a.grad;
  a.log_beta = Tensor::empty({a.N, a.T, a.S}, log_probs.dtype(), log_probs.device());
  if (log_probs.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::ctc_bwd_cuda(a);
#endif
  } else {
    internal::ctc_bwd_cpu(a);
  }
  return a.grad;
}

namespace internal {

namespace {

// The alpha recursion of sample b (its nll).
template <typename A>
void ctc_alpha_row(const A* lp, const int64_t* tg, const int64_t* m, A* alpha,
                   A* nll, int64_t b, int64_t N, int64_t C, int64_t S, int64_t T,
                   int64_t blank) {
  {
      const int64_t Tb = m[b], L = m[N + b], off = m[2 * N + b], st = m[3 * N + b];
      const int64_t Sb = 2 * L + 1;
      A* al = alpha + b * T * S;
      std::fill(al, al + T * S, neg_inf<A>());
      if (Tb == 0) {
        nll[b] = L == 0 ? A(0) : std::numeric_limits<A>::infinity();
        return;
      }
      // lp[t, b, c] = lp[(t * N + b) * C + c]
      al[0] = lp[b * C + blank];
      if (L > 0) al[1] = lp[b * C + ext_label(tg, off, st, 1, blank)];
      for (int64_t t = 1; t < Tb; ++t) {
        const A* prev = al + (t - 1) * S;
        A* cur = al + t * S;
        const A* lpt = lp + (t * N + b) * C;
        for (int64_t s = 0; s < Sb; ++s) {
          const int64_t c = ext_label(tg, off, st, s, blank);
          const A x0 = prev[s];
          const A x1 = s > 0 ? prev[s - 1] : neg_inf<A>();
          const A x2 = (s > 1 && c != ext_label(tg, off, st, s - 2, blank)) ? prev[s - 2]
                                                                            : neg_inf<A>();
          cur[s] = log_sum3<A>(x0, x1, x2) + lpt[c];
        }
      }
      const A* last = al + (Tb - 1) * S;
      const A ll = L > 0 ? log_add<A>(last[Sb - 1], last[Sb - 2]) : last[0];
      nll[b] = -ll;
  }
}

template <typename A>
void ctc_fwd(const CtcArgs& a) {
  const A* lp = static_cast<const A*>(a.lp.data_ptr());
  const int64_t* tg = static_cast<const int64_t*>(a.targets.data_ptr());
  const int64_t* m = static_cast<const int64_t*>(a.meta.data_ptr());
  A* alpha = static_cast<A*>(a.log_alpha.data_ptr());
  A* nll = static_cast<A*>(a.nll.data_ptr());
  A* loss = static_cast<A*>(a.loss.data_ptr());
  const int64_t N = a.N, C = a.C, S = a.S, T = a.T, blank = a.blank;
  parallel_for(N, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      ctc_alpha_row(lp, tg, m, alpha, nll, b, N, C, S, T, blank);
      loss[b] = a.zero_infinity && std::isinf(static_cast<double>(nll[b])) ? A(0) : nll[b];
    }
  });
}

template <typename A>
void ctc_bwd(const CtcArgs& a) {
  const A* lp = static_cast<const A*>(a.lp.data_ptr());
  const int64_t* tg = static_cast<const int64_t*>(a.targets.data_ptr());
  const int64_t* m = static_cast<const int64_t*>(a.meta.data_ptr());
  const A* alpha = static_cast<const A*>(a.log_alpha.data_ptr());
  A* beta = static_cast<A*>(a.log_beta.data_ptr());
  const A* nll = static_cast<const A*>(a.nll.data_ptr());
  const A* gout = static_cast<const A*>(a.grad_out.data_ptr());
  A* grad = static_cast<A*>(a.grad.data_ptr());
  const int64_t N = a.N, C = a.C, S = a.S, T = a.T, blank = a.blank;
  parallel_for(N, 1, [&](int64_t b0, int64_t b1) {
    std::vector<A> lcab(static_cast<size_t>(C));
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t Tb = m[b], L = m[N + b], off = m[2 * N + b], st = m[3 * N + b];
      const int64_t Sb = 2 * L + 1;
      const A nl = nll[b];
      const bool zero = a.zero_infinity && std::isinf(static_cast<double>(nl));
      for (int64_t t = 0; t < T; ++t) {
        A* gt = grad + (t * N + b) * C;
        if (t >= Tb || zero) std::fill(gt, gt + C, A(0));
      }
      if (Tb == 0 || zero) continue;
      A* be = beta + b * T * S;
      std::fill(be, be + T * S, neg_inf<A>());
      const A* lpl = lp + ((Tb - 1) * N + b) * C;
      be[(Tb - 1) * S + Sb - 1] = lpl[blank];
      if (L > 0) be[(Tb - 1) * S + Sb - 2] = lpl[ext_label(tg, off, st, Sb - 2, blank)];
      for (int64_t t = Tb - 2; t >= 0; --t) {
        const A* next = be + (t + 1) * S;
        A* cur = be + t * S;
        const A* lpt = lp + (t * N + b) * C;
        for (int64_t s = 0; s < Sb; ++s) {
          const int64_t c = ext_label(tg, off, st, s, blank);
          const A x0 = next[s];
          const A x1 = s + 1 < Sb ? next[s + 1] : neg_inf<A>();
          const A x2 = (s + 2 < Sb && c != ext_label(tg, off, st, s + 2, blank)) ? next[s + 2]
                                                                                 : neg_inf<A>();
          cur[s] = log_sum3<A>(x0, x1, x2) + lpt[c];
        }
      }
      const A g = gout[b];
      for (int64_t t = 0; t < Tb; ++t) {
        std::fill(lcab.begin(), lcab.end(), neg_inf<A>());
        const A* al = alpha + (b * T + t) * S;
        const A* bt = be + t * S;
        for (int64_t s = 0; s < Sb; ++s) {
          const int64_t c = ext_label(tg, off, st, s, blank);
          lcab[c] = log_add<A>(lcab[c], al[s] + bt[s]);
        }
        const A* lpt = lp + (t * N + b) * C;
        A* gt = grad + (t * N + b) * C;
        for (int64_t c = 0; c < C; ++c) {
          gt[c] = (std::exp(lpt[c]) - std::exp(lcab[c] + nl - lpt[c])) * g;
        }
      }
    }
  });
}

}  // namespace

void ctc_fwd_cpu(const CtcArgs& a) {
  dispatch_ctc(a.lp.dtype(), false, [&](auto v) { ctc_fwd<decltype(v)>(a); });
}

void ctc_bwd_cpu(const CtcArgs& a) {
  dispatch_ctc(a.lp.dtype(), false, [&](auto v) { ctc_bwd<decltype(v)>(a); });
}

}  // namespace internal

}  // namespace ember::ops
