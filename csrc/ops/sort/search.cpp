// torch.searchsorted on the CPU, and the checks both devices share (search.hpp).
#include "ops/sort/search.hpp"

#include "ops/copy/copy.hpp"
#include "ops/cpu_parallel.hpp"
#include "ops/sort/sort.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

Tensor searchsorted(const Tensor& seq_in, const Tensor& values_in, bool right, bool out_int32) {
  check_orderable(seq_in, "searchsorted_out");
  EMBER_CHECK(seq_in.dtype() == values_in.dtype(), "searchsorted: sorted_sequence and values "
              "must have one dtype here (the Python layer promotes them)");
  EMBER_CHECK(seq_in.device() == values_in.device(), "searchsorted: sorted_sequence and values "
              "must be on one device");
  EMBER_CHECK(seq_in.dim() >= 1, "searchsorted: sorted_sequence must have at least one dim");
  if (seq_in.dim() > 1) {
    EMBER_CHECK(values_in.dim() == seq_in.dim(), "searchsorted: values must have the dims of "
                "sorted_sequence");
    for (int64_t k = 0; k + 1 < seq_in.dim(); ++k) {
      EMBER_CHECK(seq_in.sizes()[k] == values_in.sizes()[k], "searchsorted: the leading dims "
                  "of sorted_sequence and values must match");
    }
  }
  const Tensor seq = contiguous(seq_in);
  const Tensor values = contiguous(values_in);
  Tensor out = Tensor::empty(values.sizes(), out_int32 ? ScalarType::Int32 : ScalarType::Int64,
                             values.device());
  if (values.numel() == 0) return out;
#if EMBER_WITH_CUDA
  if (values.is_cuda()) {
    internal::searchsorted_cuda(seq, values, right, out);
    return out;
  }
#endif
  const int64_t len = seq.sizes().back();
  const int64_t m = seq.dim() > 1 ? values.sizes().back() : values.numel();
  const int64_t total = values.numel();
  dispatch(seq.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* s = static_cast<const T*>(seq.data_ptr());
    const T* v = static_cast<const T*>(values.data_ptr());
    parallel_for(total, 1 << 14, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        const int64_t r = k / m;
        const int64_t pos = sorted_bound<T>(s + r * len, len, v[k], right);
        if (out_int32) {
          static_cast<int32_t*>(out.data_ptr())[k] = static_cast<int32_t>(pos);
        } else {
          static_cast<int64_t*>(out.data_ptr())[k] = pos;
        }
      }
    });
  });
  return out;
}

}  // namespace ember::ops
