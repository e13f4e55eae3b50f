// The optimisers' multi-tensor kernels (optim_multi_tensor.cuh): each block
// updates one chunk of one tensor, each thread kIlp elements at a time,
// computing in float for float32/float16/bfloat16 and in double for float64.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "ops/optim/optim_multi_tensor.cuh"
#include "ops/optim/optim_step.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

using internal::AdamScalars;
using internal::kChunkSize;
using mta::kBlockThreads;
using mta::kIlp;
using mta::NoScalars;
using mta::TensorListMeta;

template <typename T>
using Acc = std::conditional_t<std::is_same<T, double>::value, double, float>;

template <typename T>
__device__ __forceinline__ Acc<T> ld(const T* p) { return static_cast<Acc<T>>(*p); }

// The element range of this block: [begin, end) of tensor `t`.
template <int DEPTH, typename S>
__device__ __forceinline__ void block_range(const TensorListMeta<DEPTH, S>& m, int& t,
                                            int64_t& begin, int64_t& end) {
  t = m.block_to_tensor[blockIdx.x];
  begin = static_cast<int64_t>(m.block_to_chunk[blockIdx.x]) * kChunkSize;
  end = begin + kChunkSize;
  if (end > m.sizes[t]) end = m.sizes[t];
}

struct SgdArgs {
  double lr, momentum, dampening, weight_decay;
  bool nesterov, maximize;
};

struct SgdScalars {
  int first;  // the momentum buffer is written for the first time
};

template <typename T, int DEPTH>
__global__ void __launch_bounds__(kBlockThreads)
    sgd_kernel(TensorListMeta<DEPTH, SgdScalars> m, SgdArgs a) {
  using A = Acc<T>;
  int t;
  int64_t begin, end;
  block_range(m, t, begin, end);
  T* p = static_cast<T*>(m.addresses[0][t]);
  const T* g = static_cast<const T*>(m.addresses[1][t]);
  T* buf = DEPTH > 2 ? static_cast<T*>(m.addresses[DEPTH > 2 ? 2 : 0][t]) : nullptr;
  const bool first = m.scalars[t].first != 0;
  const A lr = static_cast<A>(a.lr), mom = static_cast<A>(a.momentum);
  const A damp = static_cast<A>(1.0 - a.dampening), wd = static_cast<A>(a.weight_decay);
  for (int64_t base = begin + threadIdx.x; base < end; base += kBlockThreads * kIlp) {
#pragma unroll
    for (int u = 0; u < kIlp; ++u) {
      const int64_t j = base + static_cast<int64_t>(u) * kBlockThreads;
      if (j >= end) break;
      A d = ld(g + j);
      if (a.maximize) d = -d;
      const A pj = ld(p + j);
      if (wd != A(0)) d += wd * pj;
      if (DEPTH > 2) {
        const A b = first ? d : mom * ld(buf + j) + damp * d;
        buf[j] = static_cast<T>(b);
        d = a.nesterov ? d + mom * b : b;
      }
      p[j] = static_cast<T>(pj - lr * d);
    }
  }
}

struct AdamArgs {
  double lr, beta1, beta2, eps, weight_decay;
  bool maximize, decoupled;
};

template <typename T, int DEPTH>
__global__ void __launch_bounds__(kBlockThreads)
    adam_kernel(TensorListMeta<DEPTH, AdamScalars> m, AdamArgs a) {
  using A = Acc<T>;
  int t;
  int64_t begin, end;
  block_range(m, t, begin, end);
  T* p = static_cast<T*>(m.addresses[0][t]);
  const T* g = static_cast<const T*>(m.addresses[1][t]);
  T* ea = static_cast<T*>(m.addresses[2][t]);
  T* es = static_cast<T*>(m.addresses[3][t]);
  T* mx = DEPTH > 4 ? static_cast<T*>(m.addresses[DEPTH > 4 ? 4 : 0][t]) : nullptr;
  const A step_size = static_cast<A>(m.scalars[t].step_size);
  const A bc2 = static_cast<A>(m.scalars[t].bc2_sqrt);
  const A b1 = static_cast<A>(a.beta1), b2 = static_cast<A>(a.beta2);
  const A wd = static_cast<A>(a.weight_decay), lr = static_cast<A>(a.lr);
  const A eps = static_cast<A>(a.eps);
  for (int64_t base = begin + threadIdx.x; base < end; base += kBlockThreads * kIlp) {
#pragma unroll
    for (int u = 0; u < kIlp; ++u) {
      const int64_t j = base + static_cast<int64_t>(u) * kBlockThreads;
      if (j >= end) break;
      A grad = ld(g + j);
      if (a.maximize) grad = -grad;
      A param = ld(p + j);
      if (wd != A(0)) {
        if (a.decoupled) {
          param *= A(1) - lr * wd;
        } else {
          grad += wd * param;
        }
      }
      const A m0 = ld(ea + j);
      const A mj = m0 + (A(1) - b1) * (grad - m0);
      const A vj = b2 * ld(es + j) + (A(1) - b2) * grad * grad;
      ea[j] = static_cast<T>(mj);
      es[j] = static_cast<T>(vj);
      A vhat = vj;
      if (DEPTH > 4) {
        const A old = ld(mx + j);
        vhat = old > vj ? old : vj;
        mx[j] = static_cast<T>(vhat);
      }
      const A denom = sqrt(vhat) / bc2 + eps;
      p[j] = static_cast<T>(param - step_size * (mj / denom));
    }
  }
}

}  // namespace

namespace internal {

void sgd_cuda(const std::vector<std::vector<Tensor>>& lists, const std::vector<bool>& first,
              const SgdOptions& o) {
  const SgdArgs args{o.lr, o.momentum, o.dampening, o.weight_decay, o.nesterov, o.maximize};
  std::vector<SgdScalars> scalars(lists[0].size());
  for (size_t i = 0; i < scalars.size(); ++i) scalars[i].first = i < first.size() && first[i];
  internal::for_float_types(lists[0][0].dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (lists.size() == 3) {
      mta::apply<3>(lists, scalars, args, sgd_kernel<T, 3>);
    } else {
      mta::apply<2>(lists, scalars, args, sgd_kernel<T, 2>);
    }
  });
}

void adam_cuda(const std::vector<std::vector<Tensor>>& lists,
               const std::vector<AdamScalars>& scalars, const AdamOptions& o) {
  const AdamArgs args{o.lr, o.beta1, o.beta2, o.eps, o.weight_decay, o.maximize, o.decoupled};
  internal::for_float_types(lists[0][0].dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (lists.size() == 5) {
      mta::apply<5>(lists, scalars, args, adam_kernel<T, 5>);
    } else {
      mta::apply<4>(lists, scalars, args, adam_kernel<T, 4>);
    }
  });
}

}  // namespace internal

}  // namespace ember::ops
