#include "ops/nn/embedding_bag.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "ops/copy/copy.hpp"
#include "ops/cpu_parallel.hpp"
#include "ops/elementwise.hpp"
#include "ops/fill/fill.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

template <typename T>
inline T from_double(double v) {
  if constexpr (std::is_same_v<T, double>) {
    return v;
  } else {
    return T(static_cast<float>(v));
  }
}

Tensor int64_of(const Tensor& t, const Tensor& weight, const char* what) {
  const ScalarType s = t.dtype();
  EMBER_CHECK_TYPE(s == ScalarType::Int64 || s == ScalarType::Int32,
                   "embedding_bag: expected ", what, " of dtype int64 or int32, got ",
                   dtype_name(s));
  check_same_device(weight, t);
  return contiguous(to(t, weight.device(), ScalarType::Int64));
}

internal::EbArgs base_args(const Tensor& weight, const EmbeddingBagForward& f,
                           bool include_last_offset, int64_t padding_idx) {
  internal::EbArgs a;
  a.idx = f.indices;
  a.off = f.offsets;
  a.bag_size = f.bag_size;
  a.max_idx = f.max_indices;
  a.V = weight.defined() ? weight.size(0) : 0;
  a.D = f.out.size(1);
  a.n = f.indices.numel();
  a.off_len = f.offsets.numel();
  a.B = include_last_offset ? std::max<int64_t>(a.off_len - 1, 0) : a.off_len;
  a.padding_idx = padding_idx;
  return a;
}

}  // namespace

EmbeddingBagForward embedding_bag_forward(const Tensor& weight, const Tensor& indices,
                                          const Tensor& offsets, EmbeddingBagMode mode,
                                          const Tensor& psw, bool include_last_offset,
                                          int64_t padding_idx) {
  EMBER_CHECK(weight.dim() == 2, "embedding_bag: 'weight' must be 2-D, got ", weight.dim(),
              "-D");
  if (!is_floating(weight.dtype())) {
    not_implemented("embedding_bag", weight.dtype(), weight.is_cuda());
  }
  EMBER_CHECK(indices.dim() == 1, "input has to be 1D or 2D Tensor, but got Tensor of dimension ",
              indices.dim());
  EMBER_CHECK(offsets.dim() == 1, "offsets has to be a 1D Tensor, but got Tensor of dimension ",
              offsets.dim());
  EmbeddingBagForward f;
  f.indices = int64_of(indices, weight, "indices");
  f.offsets = int64_of(offsets, weight, "offsets");
  const int64_t n = f.indices.numel();
  if (psw.defined()) {
    EMBER_CHECK(mode == EmbeddingBagMode::Sum,
                "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                "supported for mode='sum'");
    EMBER_CHECK(psw.dim() == 1 && psw.numel() == n,
                "embedding_bag: expected per_sample_weights to be 1D with the same number of "
                "elements as input, got shape ", shape_str(psw.sizes()), " for ", n, " indices");
    EMBER_CHECK(psw.dtype() == weight.dtype(), "embedding_bag: expected per_sample_weights of ",
                dtype_name(weight.dtype()), " (the weight's dtype), got ", dtype_name(psw.dtype()));
    check_same_device(weight, psw);
  }
  if (include_last_offset) {
    EMBER_CHECK(f.offsets.numel() >= 1,
                "include_last_offset: number of offset should be at least 1");
  }
  const int64_t off_len = f.offsets.numel();
  const int64_t B = include_last_offset ? off_len - 1 : off_len;
  const int64_t D = weight.size(1), V = weight.size(0);
  const Device dev = weight.device();
  f.out = Tensor::empty({B, D}, weight.dtype(), dev);
  f.bag_size = Tensor::empty({B}, ScalarType::Int64, dev);
  if (mode == EmbeddingBagMode::Max) f.max_indices = Tensor::empty({B, D}, ScalarType::Int64, dev);
  if (!dev.is_cuda()) {
    const int64_t* o = static_cast<const int64_t*>(f.offsets.data_ptr());
    if (off_len > 0) {
      EMBER_CHECK(o[0] == 0,
                  "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to "
                  "start from position 0. However, got ", o[0]);
    }
    for (int64_t b = 0; b + 1 < off_len; ++b) {
      EMBER_CHECK(o[b] <= o[b + 1] && o[b + 1] <= n,
                  "embedding_bag: offsets must be non-decreasing and at most the number of "
                  "indices (", n, "), got offsets[", b, "] = ", o[b], " and offsets[", b + 1,
                  "] = ", o[b + 1]);
    }
    const int64_t* p = static_cast<const int64_t*>(f.indices.data_ptr());
    for (int64_t i = 0; i < n; ++i) {
      if (p[i] < 0 || p[i] >= V) {
        throw IndexError(detail::str("index out of range in self: index ", p[i],
                                     " is not in [0, ", V, ") (the embedding has ", V, " rows)"));
      }
    }
  }
  if (B == 0) return f;
  internal::EbArgs a = base_args(weight, f, include_last_offset, padding_idx);
  a.w = contiguous(weight);
  a.psw = psw.defined() ? contiguous(psw) : Tensor();
  a.out = f.out;
  a.mode = static_cast<int>(mode);
  if (dev.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::embedding_bag_fwd_cuda(a);
#endif
  } else {
    internal::embedding_bag_fwd_cpu(a);
  }
  return f;
}

Tensor embedding_bag_backward(const Tensor& grad_out, const EmbeddingBagForward& f,
                              const Tensor& psw, int64_t V, EmbeddingBagMode mode,
                              bool include_last_offset, int64_t padding_idx, ScalarType dtype) {
  const Device dev = f.out.device();
  const ScalarType acc = dtype == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  internal::EbArgs a = base_args(Tensor(), f, include_last_offset, padding_idx);
  a.V = V;
  a.grad_out = contiguous(to(grad_out, dev, f.out.dtype()));
  a.psw = psw.defined() ? contiguous(psw) : Tensor();
  a.mode = static_cast<int>(mode);
  a.grad_w = Tensor::empty({V, a.D}, acc, dev);
  zero_(a.grad_w);
  if (a.B > 0 && a.D > 0) {
    if (dev.is_cuda()) {
#if EMBER_WITH_CUDA
      internal::embedding_bag_bwd_cuda(a);
#endif
    } else {
      internal::embedding_bag_bwd_cpu(a);
    }
  }
  return acc == dtype ? a.grad_w : to(a.grad_w, dev, dtype);
}

Tensor embedding_bag_psw_backward(const Tensor& grad_out, const Tensor& weight,
                                  const EmbeddingBagForward& f, bool include_last_offset,
                                  int64_t padding_idx, ScalarType dtype) {
  const Device dev = weight.device();
  internal::EbArgs a = base_args(weight, f, include_last_offset, padding_idx);
  a.w = contiguous(weight);
  a.grad_out = contiguous(to(grad_out, dev, weight.dtype()));
  a.grad_psw = Tensor::empty({a.n}, weight.dtype(), dev);
  zero_(a.grad_psw);
  if (a.B > 0 && a.n > 0) {
    if (dev.is_cuda()) {
#if EMBER_WITH_CUDA
      internal::embedding_bag_psw_bwd_cuda(a);
#endif
    } else {
      internal::embedding_bag_psw_bwd_cpu(a);
    }
  }
  return a.grad_psw.dtype() == dtype ? a.grad_psw : to(a.grad_psw, dev, dtype);
}

namespace internal {

namespace {

template <typename F>
void dispatch_floating(ScalarType t, const char* op, F&& f) {
  ember::dispatch_floating(t, f, [&] { not_implemented(op, t, false); });
}

template <typename T>
void eb_fwd(const EbArgs& a) {
  const T* w = static_cast<const T*>(a.w.data_ptr());
  const int64_t* idx = static_cast<const int64_t*>(a.idx.data_ptr());
  const int64_t* off = static_cast<const int64_t*>(a.off.data_ptr());
  const T* psw = a.psw.defined() ? static_cast<const T*>(a.psw.data_ptr()) : nullptr;
  T* out = static_cast<T*>(a.out.data_ptr());
  int64_t* bs = static_cast<int64_t*>(a.bag_size.data_ptr());
  int64_t* mi = a.max_idx.defined() ? static_cast<int64_t*>(a.max_idx.data_ptr()) : nullptr;
  const int64_t D = a.D;
  parallel_for(a.B, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(D * 4, 1)),
               [&](int64_t b0, int64_t b1) {
    std::vector<double> acc(static_cast<size_t>(D));
    std::vector<int64_t> arg(static_cast<size_t>(D));
    for (int64_t b = b0; b < b1; ++b) {
      int64_t s, e;
      eb_bag_range(off, a.off_len, a.n, b, &s, &e);
      const bool is_max = a.mode == 2;
      std::fill(acc.begin(), acc.end(), is_max ? -std::numeric_limits<double>::infinity() : 0.0);
      std::fill(arg.begin(), arg.end(), int64_t(-1));
      int64_t count = 0;
      for (int64_t i = s; i < e; ++i) {
        const int64_t v = idx[i];
        if (v == a.padding_idx) continue;
        ++count;
        const T* row = w + v * D;
        if (is_max) {
          for (int64_t d = 0; d < D; ++d) {
            const double x = static_cast<double>(row[d]);
            if (arg[d] < 0 || (!std::isnan(acc[d]) && (std::isnan(x) || x > acc[d]))) {
              acc[d] = x;
              arg[d] = v;
            }
          }
        } else {
          const double sc = psw ? static_cast<double>(psw[i]) : 1.0;
          for (int64_t d = 0; d < D; ++d) acc[d] += static_cast<double>(row[d]) * sc;
        }
      }
      bs[b] = count;
      const double div = (a.mode == 1 && count > 0) ? static_cast<double>(count) : 1.0;
      for (int64_t d = 0; d < D; ++d) {
        out[b * D + d] = from_double<T>(is_max ? (arg[d] < 0 ? 0.0 : acc[d]) : acc[d] / div);
        if (mi) mi[b * D + d] = arg[d];
      }
    }
  });
}

template <typename T>
void eb_bwd(const EbArgs& a) {
  using G = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const T* g = static_cast<const T*>(a.grad_out.data_ptr());
  const int64_t* idx = static_cast<const int64_t*>(a.idx.data_ptr());
  const int64_t* off = static_cast<const int64_t*>(a.off.data_ptr());
  const T* psw = a.psw.defined() ? static_cast<const T*>(a.psw.data_ptr()) : nullptr;
  const int64_t* bs = static_cast<const int64_t*>(a.bag_size.data_ptr());
  const int64_t* mi = a.max_idx.defined() ? static_cast<const int64_t*>(a.max_idx.data_ptr())
                                          : nullptr;
  G* gw = static_cast<G*>(a.grad_w.data_ptr());
  const int64_t D = a.D;
  // features split between the tasks: every task walks all bags, no two write one element
  parallel_for(D, std::max<int64_t>(16, kElementwiseGrain / std::max<int64_t>(a.n + a.B, 1)),
               [&](int64_t d0, int64_t d1) {
    for (int64_t b = 0; b < a.B; ++b) {
      const T* gb = g + b * D;
      if (a.mode == 2) {
        for (int64_t d = d0; d < d1; ++d) {
          const int64_t v = mi[b * D + d];
          if (v >= 0) gw[v * D + d] += static_cast<G>(gb[d]);
        }
        continue;
      }
      int64_t s, e;
      eb_bag_range(off, a.off_len, a.n, b, &s, &e);
      const double div = (a.mode == 1 && bs[b] > 0) ? static_cast<double>(bs[b]) : 1.0;
      for (int64_t i = s; i < e; ++i) {
        const int64_t v = idx[i];
        if (v == a.padding_idx) continue;
        const double sc = (psw ? static_cast<double>(psw[i]) : 1.0) / div;
        for (int64_t d = d0; d < d1; ++d) {
          gw[v * D + d] += static_cast<G>(static_cast<double>(gb[d]) * sc);
        }
      }
    }
  });
}

template <typename T>
void eb_psw_bwd(const EbArgs& a) {
  const T* g = static_cast<const T*>(a.grad_out.data_ptr());
  const T* w = static_cast<const T*>(a.w.data_ptr());
  const int64_t* idx = static_cast<const int64_t*>(a.idx.data_ptr());
  const int64_t* off = static_cast<const int64_t*>(a.off.data_ptr());
  T* gp = static_cast<T*>(a.grad_psw.data_ptr());
  const int64_t D = a.D;
  parallel_for(a.B, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      int64_t s, e;
      eb_bag_range(off, a.off_len, a.n, b, &s, &e);
      for (int64_t i = s; i < e; ++i) {
        const int64_t v = idx[i];
        if (v == a.padding_idx) continue;
        double dot = 0.0;
        for (int64_t d = 0; d < D; ++d) {
          dot += static_cast<double>(g[b * D + d]) * static_cast<double>(w[v * D + d]);
        }
        gp[i] = from_double<T>(dot);
      }
    }
  });
}

}  // namespace

void embedding_bag_fwd_cpu(const EbArgs& a) {
  dispatch_floating(a.w.dtype(), "embedding_bag",
                    [&](auto tag) { eb_fwd<typename decltype(tag)::type>(a); });
}

void embedding_bag_bwd_cpu(const EbArgs& a) {
  dispatch_floating(a.grad_out.dtype(), "embedding_bag_backward",
                    [&](auto tag) { eb_bwd<typename decltype(tag)::type>(a); });
}

void embedding_bag_psw_bwd_cpu(const EbArgs& a) {
  dispatch_floating(a.w.dtype(), "embedding_bag_backward",
                    [&](auto tag) { eb_psw_bwd<typename decltype(tag)::type>(a); });
}

}  // namespace internal

}  // namespace ember::ops
