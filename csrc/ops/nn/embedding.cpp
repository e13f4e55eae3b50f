#include "ops/nn/embedding.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
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

void check_weight(const Tensor& weight, const char* fn) {
  EMBER_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  if (!is_floating(weight.dtype())) not_implemented(fn, weight.dtype(), weight.is_cuda());
}

Tensor int64_indices(const Tensor& indices, const Tensor& weight, const char* fn) {
  const ScalarType t = indices.dtype();
  EMBER_CHECK_TYPE(t == ScalarType::Int64 || t == ScalarType::Int32,
                   "Expected tensor for argument #1 'indices' to have one of the following "
                   "scalar types: Long, Int; but got ",
                   indices.is_cuda() ? "torch.cuda." : "torch.", torch_scalar_name(t),
                   "Tensor instead (while checking arguments for ", fn, ")");
  check_same_device(weight, indices);
  return contiguous(to(indices, weight.device(), ScalarType::Int64));
}

// IndexError for the first index outside [0, V) (CPU).
void check_range_cpu(const Tensor& idx, int64_t V) {
  const int64_t* p = static_cast<const int64_t*>(idx.data_ptr());
  for (int64_t i = 0; i < idx.numel(); ++i) {
    if (p[i] < 0 || p[i] >= V) {
      throw IndexError(detail::str("index out of range in self: index ", p[i],
                                   " is not in [0, ", V, ") (the embedding has ", V, " rows)"));
    }
  }
}

template <typename F>
void dispatch_floating(ScalarType t, const char* op, F&& f) {
  ember::dispatch_floating(t, f, [&] { not_implemented(op, t, false); });
}

}  // namespace

void check_embedding_errors(const Device& device) {
#if EMBER_WITH_CUDA
  if (device.is_cuda()) internal::embedding_check_errors_cuda(device.index);
#endif
}

Tensor embedding_forward(const Tensor& weight, const Tensor& indices, Tensor* indices_out) {
  check_weight(weight, "embedding");
  const Tensor idx = int64_indices(indices, weight, "embedding");
  Shape shape = idx.sizes();
  shape.push_back(weight.size(1));
  const Tensor out = Tensor::empty(shape, weight.dtype(), weight.device());
  if (weight.is_cuda()) {
#if EMBER_WITH_CUDA
    if (out.numel() > 0) internal::embedding_fwd_cuda(weight, idx, out);
#endif
  } else {
    check_range_cpu(idx, weight.size(0));
    if (out.numel() > 0) internal::embedding_fwd_cpu(weight, idx, out);
  }
  if (indices_out != nullptr) *indices_out = idx;
  return out;
}

Tensor embedding_backward(const Tensor& grad_out, const Tensor& idx, int64_t V,
                          int64_t padding_idx, bool scale_grad_by_freq, ScalarType dtype) {
  const int64_t D = grad_out.dim() > 0 ? grad_out.size(-1) : 0;
  const Device dev = idx.device();
  const ScalarType acc = dtype == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32;
  const Tensor g = contiguous(to(grad_out, dev, grad_out.dtype()));
  Tensor gw = Tensor::empty({V, D}, acc, dev);
  zero_(gw);
  if (g.numel() > 0) {
    if (dev.is_cuda()) {
#if EMBER_WITH_CUDA
      internal::embedding_bwd_cuda(g, idx, gw, scale_grad_by_freq, padding_idx);
#endif
    } else {
      Tensor counts;
      if (scale_grad_by_freq) {
        counts = Tensor::empty({V}, ScalarType::Int64, dev);
        zero_(counts);
        int64_t* c = static_cast<int64_t*>(counts.data_ptr());
        const int64_t* p = static_cast<const int64_t*>(idx.data_ptr());
        for (int64_t i = 0; i < idx.numel(); ++i) ++c[p[i]];
      }
      internal::embedding_bwd_cpu(g, idx, gw, counts, padding_idx);
    }
  }
  return gw.dtype() == dtype ? gw : to(gw, dev, dtype);
}

void embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm,
                       double norm_type) {
  check_weight(weight, "embedding_renorm_");
  const Tensor idx = int64_indices(indices, weight, "embedding_renorm_");
  if (idx.numel() == 0 || weight.numel() == 0) return;
  if (weight.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::embedding_renorm_cuda(weight, idx, max_norm, norm_type);
#endif
  } else {
    check_range_cpu(idx, weight.size(0));
    internal::embedding_renorm_cpu(weight, idx, max_norm, norm_type);
  }
}

namespace internal {

void embedding_fwd_cpu(const Tensor& w, const Tensor& idx, const Tensor& out) {
  const int64_t n = idx.numel(), D = w.size(1);
  const int64_t rs = w.stride(0), cs = w.stride(1);
  const int64_t* p = static_cast<const int64_t*>(idx.data_ptr());
  const size_t item = w.itemsize();
  const char* src = static_cast<const char*>(w.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  parallel_for(n, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(D, 1)),
               [&](int64_t r0, int64_t r1) {
                 for (int64_t r = r0; r < r1; ++r) {
                   const char* row = src + p[r] * rs * int64_t(item);
                   char* o = dst + r * D * int64_t(item);
                   if (cs == 1) {
                     std::memcpy(o, row, static_cast<size_t>(D) * item);
                   } else {
                     for (int64_t j = 0; j < D; ++j) {
                       std::memcpy(o + j * int64_t(item), row + j * cs * int64_t(item), item);
                     }
                   }
                 }
               });
}

void embedding_bwd_cpu(const Tensor& g, const Tensor& idx, const Tensor& gw, const Tensor& counts,
                       int64_t padding_idx) {
  const int64_t n = idx.numel(), D = gw.size(1);
  const int64_t* p = static_cast<const int64_t*>(idx.data_ptr());
  const int64_t* cnt = counts.defined() ? static_cast<const int64_t*>(counts.data_ptr()) : nullptr;
  dispatch_floating(g.dtype(), "embedding_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* gp = static_cast<const T*>(g.data_ptr());
    auto run = [&](auto* out) {
      using G = std::remove_pointer_t<decltype(out)>;
      for (int64_t r = 0; r < n; ++r) {
        const int64_t v = p[r];
        if (v == padding_idx) continue;
        const G scale = cnt ? G(1) / static_cast<G>(cnt[v]) : G(1);
        for (int64_t j = 0; j < D; ++j) out[v * D + j] += static_cast<G>(gp[r * D + j]) * scale;
      }
    };
    if (gw.dtype() == ScalarType::Float64) {
      run(static_cast<double*>(gw.data_ptr()));
    } else {
      run(static_cast<float*>(gw.data_ptr()));
    }
  });
}

void embedding_renorm_cpu(const Tensor& w, const Tensor& idx, double max_norm, double p) {
  const int64_t* ip = static_cast<const int64_t*>(idx.data_ptr());
  std::vector<int64_t> rows(ip, ip + idx.numel());
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  const int64_t D = w.size(1), rs = w.stride(0), cs = w.stride(1);
  dispatch_floating(w.dtype(), "embedding_renorm_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* base = static_cast<T*>(w.data_ptr());
    for (int64_t v : rows) {
      T* row = base + v * rs;
      double acc = 0.0;
      for (int64_t j = 0; j < D; ++j) {
        const double a = std::fabs(static_cast<double>(row[j * cs]));
        if (std::isinf(p)) {
          acc = std::max(acc, a);
        } else if (p == 1.0) {
          acc += a;
        } else if (p == 2.0) {
          acc += a * a;
        } else {
          acc += std::pow(a, p);
        }
      }
      const double norm = std::isinf(p) || p == 1.0 ? acc : p == 2.0 ? std::sqrt(acc)
                                                                     : std::pow(acc, 1.0 / p);
      if (norm > max_norm) {
        const double scale = max_norm / (norm + 1e-7);
        for (int64_t j = 0; j < D; ++j) {
          const double v2 = static_cast<double>(row[j * cs]) * scale;
          if constexpr (std::is_same_v<T, double>) {
            row[j * cs] = v2;
          } else {
            row[j * cs] = T(static_cast<float>(v2));
          }
        }
      }
    }
  });
}

}  // namespace internal

}  // namespace ember::ops
