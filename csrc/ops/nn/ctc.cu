// ctc_loss on the GPU (see ctc.hpp for the plan): alpha and beta recursions
// with one block per sample (threads over the extended states, a barrier per
// time step), then one thread per (t, n, c) for the gradient. float32 and
// float64, computed in the data's dtype as torch's kernels.
#include <algorithm>
#include <cstdint>

#include "ops/cuda_loops.cuh"
#include "ops/elementwise.hpp"
#include "ops/nn/ctc.hpp"
#include "ops/nn/ctc_math.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

namespace {

using ctc_math::ext_label;
using ctc_math::log_add;
using ctc_math::log_sum3;
using ctc_math::neg_inf;

// A label outside [0, C) reads nothing: the state gets probability 0.
template <typename A>
__device__ __forceinline__ A lp_at(const A* lpt, int64_t c, int64_t C) {
  return (c >= 0 && c < C) ? lpt[c] : neg_inf<A>();
}

template <typename A>
__global__ void ctc_alpha_kernel(const A* __restrict__ lp, const int64_t* __restrict__ tg,
                                 const int64_t* __restrict__ m, A* __restrict__ alpha,
                                 A* __restrict__ nll, A* __restrict__ loss, bool zero_infinity,
                                 int64_t T, int64_t N, int64_t C, int64_t S,
                                 int64_t blank) {
  const int64_t b = blockIdx.x;
  const int64_t Tb = m[b], L = m[N + b], off = m[2 * N + b], st = m[3 * N + b];
  const int64_t Sb = 2 * L + 1;
  A* al = alpha + b * T * S;
  for (int64_t i = threadIdx.x; i < T * S; i += blockDim.x) {
    const int64_t t = i / S, s = i - t * S;
    A v = neg_inf<A>();
    if (t == 0 && Tb > 0) {
      if (s == 0) v = lp_at(lp + b * C, blank, C);
      if (s == 1 && L > 0) v = lp_at(lp + b * C, ext_label(tg, off, st, 1, blank), C);
    }
    al[i] = v;
  }
  __syncthreads();
  for (int64_t t = 1; t < Tb; ++t) {
    const A* prev = al + (t - 1) * S;
    A* cur = al + t * S;
    const A* lpt = lp + (t * N + b) * C;
    for (int64_t s = threadIdx.x; s < Sb; s += blockDim.x) {
      const int64_t c = ext_label(tg, off, st, s, blank);
      const A x0 = prev[s];
      const A x1 = s > 0 ? prev[s - 1] : neg_inf<A>();
      const A x2 = (s > 1 && c != ext_label(tg, off, st, s - 2, blank)) ? prev[s - 2]
                                                                        : neg_inf<A>();
      cur[s] = log_sum3<A>(x0, x1, x2) + lp_at(lpt, c, C);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    A v;
    if (Tb == 0) {
      v = L == 0 ? A(0) : -neg_inf<A>();
    } else {
      const A* last = al + (Tb - 1) * S;
      v = -(L > 0 ? log_add<A>(last[Sb - 1], last[Sb - 2]) : last[0]);
    }
    nll[b] = v;
    loss[b] = zero_infinity && isinf(v) ? A(0) : v;
  }
}

template <typename A>
__global__ void ctc_beta_kernel(const A* __restrict__ lp, const int64_t* __restrict__ tg,
                                const int64_t* __restrict__ m, A* __restrict__ beta, int64_t T,
                                int64_t N, int64_t C, int64_t S, int64_t blank) {
  const int64_t b = blockIdx.x;
  const int64_t Tb = m[b], L = m[N + b], off = m[2 * N + b], st = m[3 * N + b];
  const int64_t Sb = 2 * L + 1;
  A* be = beta + b * T * S;
  if (Tb == 0) return;
  const A* lpl = lp + ((Tb - 1) * N + b) * C;
  for (int64_t s = threadIdx.x; s < S; s += blockDim.x) {
    A v = neg_inf<A>();
    if (s == Sb - 1) v = lp_at(lpl, blank, C);
    if (L > 0 && s == Sb - 2) v = lp_at(lpl, ext_label(tg, off, st, Sb - 2, blank), C);
    be[(Tb - 1) * S + s] = v;
  }
  __syncthreads();
  for (int64_t t = Tb - 2; t >= 0; --t) {
    const A* next = be + (t + 1) * S;
    A* cur = be + t * S;
    const A* lpt = lp + (t * N + b) * C;
    for (int64_t s = threadIdx.x; s < S; s += blockDim.x) {
      if (s >= Sb) {
        cur[s] = neg_inf<A>();
        continue;
      }
      const int64_t c = ext_label(tg, off, st, s, blank);
      const A x0 = next[s];
      const A x1 = s + 1 < Sb ? next[s + 1] : neg_inf<A>();
      const A x2 = (s + 2 < Sb && c != ext_label(tg, off, st, s + 2, blank)) ? next[s + 2]
                                                                             : neg_inf<A>();
      cur[s] = log_sum3<A>(x0, x1, x2) + lp_at(lpt, c, C);
    }
    __syncthreads();
  }
}

// One thread per (t, b, c) of the gradient (the output's layout): log of the
// sum over the states of class c of alpha * beta, then torch's formula.
template <typename A>
__global__ void ctc_grad_kernel(const A* __restrict__ lp, const int64_t* __restrict__ tg,
                                const int64_t* __restrict__ m, const A* __restrict__ alpha,
                                const A* __restrict__ beta, const A* __restrict__ nll,
                                const A* __restrict__ gout, A* __restrict__ grad, int64_t T,
                                int64_t N, int64_t C, int64_t S, int64_t blank,
                                bool zero_infinity) {
  const int64_t total = T * N * C;
  for (int64_t i = cuda_loops::global_id(); i < total; i += cuda_loops::grid_size()) {
    const int64_t c = i % C;
    const int64_t b = (i / C) % N;
    const int64_t t = i / (C * N);
    const int64_t Tb = m[b], L = m[N + b], off = m[2 * N + b], st = m[3 * N + b];
    const A nl = nll[b];
    if (t >= Tb || (zero_infinity && isinf(nl))) {
      grad[i] = A(0);
      continue;
    }
    const A* al = alpha + (b * T + t) * S;
    const A* be = beta + (b * T + t) * S;
    A lcab = neg_inf<A>();
    if (c == blank) {
      for (int64_t s = 0; s <= 2 * L; s += 2) lcab = log_add<A>(lcab, al[s] + be[s]);
    }
    for (int64_t k = 0; k < L; ++k) {
      if (tg[off + k * st] == c) lcab = log_add<A>(lcab, al[2 * k + 1] + be[2 * k + 1]);
    }
    const A l = lp[i];
    grad[i] = (exp(l) - exp(lcab + nl - l)) * gout[b];
  }
}

int ctc_threads(int64_t S) {
  int t = 32;
  while (t < S && t < 1024) t *= 2;
  return t;
}

template <typename F>
void dispatch_ctc(ScalarType t, F&& f) {
  if (t == ScalarType::Float32) {
    f(float{});
  } else if (t == ScalarType::Float64) {
    f(double{});
  } else {
    not_implemented("ctc_loss", t, true);
  }
}

}  // namespace

namespace internal {

void ctc_fwd_cuda(const CtcArgs& a) {
  const int dev = a.lp.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  EMBER_CHECK(a.N <= 0x7FFFFFFF, "ctc_loss: batch too large (", a.N, ")");
  // a label outside [0, C) gives its states probability 0 (lp_at): nothing is read
  dispatch_ctc(a.lp.dtype(), [&](auto v) {
    using A = decltype(v);
    ctc_alpha_kernel<A><<<static_cast<unsigned>(a.N), ctc_threads(a.S), 0, st>>>(
        static_cast<const A*>(a.lp.data_ptr()), static_cast<const int64_t*>(a.targets.data_ptr()),
        static_cast<const int64_t*>(a.meta.data_ptr()), static_cast<A*>(a.log_alpha.data_ptr()),
        static_cast<A*>(a.nll.data_ptr()), static_cast<A*>(a.loss.data_ptr()), a.zero_infinity,
        a.T, a.N, a.C, a.S, a.blank);
    EMBER_KERNEL_LAUNCH_CHECK();
  });
}

void ctc_bwd_cuda(const CtcArgs& a) {
  const int dev = a.lp.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  dispatch_ctc(a.lp.dtype(), [&](auto v) {
    using A = decltype(v);
    const int64_t* tg = static_cast<const int64_t*>(a.targets.data_ptr());
    const int64_t* m = static_cast<const int64_t*>(a.meta.data_ptr());
    const A* lp = static_cast<const A*>(a.lp.data_ptr());
    ctc_beta_kernel<A><<<static_cast<unsigned>(a.N), ctc_threads(a.S), 0, st>>>(
        lp, tg, m, static_cast<A*>(a.log_beta.data_ptr()), a.T, a.N, a.C, a.S, a.blank);
    EMBER_KERNEL_LAUNCH_CHECK();
    const int64_t total = a.T * a.N * a.C;
    ctc_grad_kernel<A><<<cuda_loops::blocks_for(total), cuda_loops::kThreads, 0, st>>>(
        lp, tg, m, static_cast<const A*>(a.log_alpha.data_ptr()),
        static_cast<const A*>(a.log_beta.data_ptr()), static_cast<const A*>(a.nll.data_ptr()),
        static_cast<const A*>(a.grad_out.data_ptr()), static_cast<A*>(a.grad.data_ptr()), a.T,
        a.N, a.C, a.S, a.blank, a.zero_infinity);
    EMBER_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace internal

}  // namespace ember::ops
