// torch.bincount on the CPU (bincount.hpp).
#include "ops/sort/bincount.hpp"

#include "ops/fill/fill.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

namespace {

template <typename W>
void count_cpu(const int64_t* ix, const W* w, int64_t n, W* out, int64_t nbins) {
  for (int64_t k = 0; k < n; ++k) {
    const int64_t b = ix[k];
    if (b >= 0 && b < nbins) out[b] += w ? w[k] : W(1);
  }
}

}  // namespace

Tensor bincount(const Tensor& idx, const Tensor& weights, int64_t nbins) {
  EMBER_CHECK(idx.dtype() == ScalarType::Int64 && idx.is_contiguous(),
              "bincount: expected contiguous int64 indices");
  EMBER_CHECK(nbins >= 0, "bincount: nbins must be non-negative, got ", nbins);
  ScalarType dt = ScalarType::Int64;
  if (weights.defined()) {
    dt = weights.dtype();
    EMBER_CHECK((dt == ScalarType::Float32 || dt == ScalarType::Float64) &&
                    weights.is_contiguous() && weights.numel() == idx.numel() &&
                    weights.device() == idx.device(),
                "bincount: expected contiguous float32/float64 weights of the input's size");
  }
  Tensor out = Tensor::empty({nbins}, dt, idx.device());
  zero_(out);
  if (idx.numel() == 0 || nbins == 0) return out;
#if EMBER_WITH_CUDA
  if (idx.is_cuda()) {
    internal::bincount_cuda(idx, weights, out);
    return out;
  }
#endif
  const int64_t* ix = static_cast<const int64_t*>(idx.data_ptr());
  if (dt == ScalarType::Float32) {
    count_cpu<float>(ix, static_cast<const float*>(weights.data_ptr()), idx.numel(),
                     static_cast<float*>(out.data_ptr()), nbins);
  } else if (dt == ScalarType::Float64) {
    count_cpu<double>(ix, static_cast<const double*>(weights.data_ptr()), idx.numel(),
                      static_cast<double*>(out.data_ptr()), nbins);
  } else {
    count_cpu<int64_t>(ix, nullptr, idx.numel(), static_cast<int64_t*>(out.data_ptr()), nbins);
  }
  return out;
}

}  // namespace ember::ops
