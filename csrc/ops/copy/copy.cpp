#include "ops/copy/copy.hpp"

#include <cstring>

#include "ops/copy/transfer.hpp"
#include "ops/fill/fill.hpp"
#include "ops/pointwise/compare.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/stream.hpp"
#include "tensor/convert.hpp"
#include "ops/overlap.hpp"
#include "tensor/complex_views.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/iter.hpp"
#include "tensor/views.hpp"

namespace ember::ops {

namespace {

// src broadcast to `shape` (leading size-1 dims of src beyond shape dropped).
Tensor expand_to(const Tensor& src, const Shape& shape) {
  const Shape b = broadcast_shapes(shape, src.sizes());
  if (b != shape) {
    throw Error(detail::str("output with shape ", shape_str(shape),
                            " doesn't match the broadcast shape ", shape_str(b)));
  }
  if (src.sizes() == shape) return src;
  Tensor s = src;
  while (s.dim() > static_cast<int64_t>(shape.size())) s = squeeze(s, {0});
  return expand(s, shape);
}

template <typename D, typename S>
void convert_row(char* const* p, const int64_t* s, int64_t n) {
  char* d = p[0];
  const char* x = p[1];
  if (s[0] == int64_t(sizeof(D)) && s[1] == int64_t(sizeof(S))) {
    D* dd = reinterpret_cast<D*>(d);
    const S* xx = reinterpret_cast<const S*>(x);
    for (int64_t i = 0; i < n; ++i) dd[i] = convert<D, S>(xx[i]);
  } else if (s[1] == 0) {
    const D v = convert<D, S>(*reinterpret_cast<const S*>(x));
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<D*>(d + i * s[0]) = v;
  } else {
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<D*>(d + i * s[0]) = convert<D, S>(*reinterpret_cast<const S*>(x + i * s[1]));
    }
  }
}

#if EMBER_WITH_CUDA
void copy_h2d_tensor(const Tensor& dst, const Tensor& src, bool non_blocking) {
  if (internal::same_dense_layout(dst, src)) {  // e.g. a transposed tensor's .cuda()
    const int dev = dst.device().index;
    cuda::DeviceGuard guard(dev);
    const cuda::StreamView stream = cuda::current_stream(dev);
    copy_h2d(dst.data_ptr(), src.data_ptr(), dst.nbytes(), src.is_pinned(), non_blocking, stream);
    if (src.is_pinned() && non_blocking) src.storage()->record_stream(stream);
    return;
  }
  const Tensor hs = src.is_contiguous() ? src : contiguous(src);
  const int dev = dst.device().index;
  cuda::DeviceGuard guard(dev);
  const cuda::StreamView stream = cuda::current_stream(dev);
  const bool direct = dst.is_contiguous() && dst.dtype() == hs.dtype();
  const Tensor target = direct ? dst : Tensor::empty(dst.sizes(), hs.dtype(), dst.device());
  copy_h2d(target.data_ptr(), hs.data_ptr(), hs.nbytes(), hs.is_pinned(), non_blocking, stream);
  // The pinned host allocator must not hand this memory out again before the
  // copy has read it (a no-op until the caching allocators are plugged in).
  if (hs.is_pinned() && non_blocking) hs.storage()->record_stream(stream);
  if (!direct) internal::copy_cuda_same_device(dst, target);
}

void copy_d2h_tensor(const Tensor& dst, const Tensor& src, bool non_blocking) {
  const int dev = src.device().index;
  cuda::DeviceGuard guard(dev);
  const cuda::StreamView stream = cuda::current_stream(dev);
  if (internal::same_dense_layout(dst, src)) {
    copy_d2h(dst.data_ptr(), src.data_ptr(), dst.nbytes(), dst.is_pinned(), non_blocking, stream);
    if (dst.is_pinned() && non_blocking) dst.storage()->record_stream(stream);
    return;
  }
  const Tensor ds = src.is_contiguous() ? src : contiguous(src);
  if (dst.is_contiguous() && dst.dtype() == ds.dtype()) {
    copy_d2h(dst.data_ptr(), ds.data_ptr(), ds.nbytes(), dst.is_pinned(), non_blocking, stream);
    if (dst.is_pinned() && non_blocking) dst.storage()->record_stream(stream);
    return;
  }
  const Tensor tmp = Tensor::empty(dst.sizes(), ds.dtype(), Device(DeviceType::CPU));
  copy_d2h(tmp.data_ptr(), ds.data_ptr(), ds.nbytes(), false, false, stream);
  internal::copy_cpu(dst, tmp);
}

// An event recorded on `s` (which must belong to the current device); the
// returned handle is destroyed by the caller.
cudaEvent_t record_on(cuda::StreamView s) {
  cudaEvent_t e = nullptr;
  EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  const cudaError_t err = cudaEventRecord(e, s.handle());
  if (err != cudaSuccess) {
    EMBER_CUDA_WARN(cudaEventDestroy(e));
    EMBER_CUDA_CHECK(err);
  }
  return e;
}

// GPU a -> GPU b: ordered after the current streams of both devices, and both
// streams continue only after the copy (so neither side's memory is reused
// too early). Never waits on the host.
void copy_peer(const Tensor& dst, const Tensor& src) {
  const int a = src.device().index, b = dst.device().index;
  Tensor ss;
  cuda::StreamView sa;
  cudaEvent_t src_ready = nullptr;
  {
    cuda::DeviceGuard guard(a);
    ss = src.is_contiguous() ? src : contiguous(src);
    sa = cuda::current_stream(a);
    src_ready = record_on(sa);
  }
  cuda::DeviceGuard guard(b);
  const cuda::StreamView sb = cuda::current_stream(b);
  const bool direct = dst.is_contiguous() && dst.dtype() == ss.dtype();
  Tensor target;
  cudaEvent_t done = nullptr;
  try {
    target = direct ? dst : Tensor::empty(dst.sizes(), ss.dtype(), dst.device());
    EMBER_CUDA_CHECK(cudaStreamWaitEvent(sb.handle(), src_ready, 0));
    EMBER_CUDA_CHECK(cudaMemcpyPeerAsync(target.data_ptr(), b, ss.data_ptr(), a, ss.nbytes(),
                                         sb.handle()));
    done = record_on(sb);
    EMBER_CUDA_CHECK(cudaStreamWaitEvent(sa.handle(), done, 0));
  } catch (...) {
    EMBER_CUDA_WARN(cudaEventDestroy(src_ready));
    if (done) EMBER_CUDA_WARN(cudaEventDestroy(done));
    throw;
  }
  EMBER_CUDA_WARN(cudaEventDestroy(src_ready));
  EMBER_CUDA_WARN(cudaEventDestroy(done));
  if (!direct) internal::copy_cuda_same_device(dst, target);
}
#endif

}  // namespace

namespace internal {

bool same_dense_layout(const Tensor& dst, const Tensor& src) {
  if (dst.dtype() != src.dtype()) return false;
  if (dst.is_contiguous() && src.is_contiguous()) return true;
  return dst.strides() == src.strides() && dst.is_non_overlapping_and_dense();
}

void copy_cpu(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  if (same_dense_layout(dst, src)) {
    parallel_memcpy(dst.data_ptr(), src.data_ptr(), dst.nbytes());
    return;
  }
  const IterLayout<2> it = make_iter<2>(dst.sizes(), {&dst, &src});
  if (dst.dtype() == src.dtype()) {
    dispatch_bits(dst.itemsize(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      for_each_cpu(it, convert_row<T, T>);
    });
    return;
  }
  dispatch(dst.dtype(), [&](auto dtag) {
    using D = typename decltype(dtag)::type;
    dispatch(src.dtype(), [&](auto stag) {
      using S = typename decltype(stag)::type;
      for_each_cpu(it, convert_row<D, S>);
    });
  });
}

}  // namespace internal

namespace {

// Conversions to or from a complex dtype, as copies between real views (no
// kernels of their own, on every device pair): complex <-> complex part by
// part, real -> complex into the real parts (imaginary parts 0), complex ->
// real from the real parts, complex -> bool (re != 0) | (im != 0).
void copy_complex_convert(const Tensor& dst, const Tensor& src, bool non_blocking) {
  const bool dc = is_complex(dst.dtype()), sc = is_complex(src.dtype());
  if (dc && sc) {
    copy_(view_as_real(dst), view_as_real(src), non_blocking);
  } else if (dc) {
    copy_(real_part(dst), src, non_blocking);
    fill_(imag_part(dst), Scalar::from_int(0));
  } else if (dst.dtype() != ScalarType::Bool) {
    copy_(dst, real_part(src), non_blocking);
  } else {
    const Tensor s = to(src, dst.device(), src.dtype());
    compare(CompareOp::LogicalOr, compare(CompareOp::Ne, real_part(s), 0),
            compare(CompareOp::Ne, imag_part(s), 0), dst);
  }
}

}  // namespace

void copy_(const Tensor& dst, const Tensor& src, bool non_blocking) {
  if (dst.is_same(src)) return;
  check_no_internal_overlap(dst);
  Tensor s = expand_to(src, dst.sizes());
  if (dst.numel() == 0) return;
  if (may_overlap(dst, s)) {
    if (dst.dtype() == s.dtype() && dst.storage_offset() == s.storage_offset() &&
        dst.strides() == s.strides()) {
      return;  // the same elements
    }
    s = clone(s);  // read everything before anything is written
  }
  if (dst.dtype() != s.dtype() && (is_complex(dst.dtype()) || is_complex(s.dtype()))) {
    copy_complex_convert(dst, s, non_blocking);
    return;
  }
  if (dst.dtype() == ScalarType::ComplexDouble) {
    // complex128 moves as its float64 parts (no 16-byte copy kernels).
    copy_(view_as_real(dst), view_as_real(s), non_blocking);
    return;
  }
  const Device& dd = dst.device();
  const Device& sd = s.device();
  if (dd.is_cpu() && sd.is_cpu()) {
    internal::copy_cpu(dst, s);
    return;
  }
#if EMBER_WITH_CUDA
  if (dd.is_cuda() && sd.is_cuda()) {
    if (dd.index == sd.index) {
      internal::copy_cuda_same_device(dst, s);
    } else {
      copy_peer(dst, s);
    }
  } else if (dd.is_cuda()) {
    copy_h2d_tensor(dst, s, non_blocking);
  } else {
    copy_d2h_tensor(dst, s, non_blocking);
  }
#else
  throw Error("ember was built without CUDA support: CUDA tensors cannot exist here");
#endif
}

Tensor to(const Tensor& t, const Device& device, ScalarType dtype, bool non_blocking, bool copy,
          bool pin_memory) {
  const Device dev = resolve_device(device);
  if (!copy && dev == t.device() && dtype == t.dtype() && (!pin_memory || t.is_pinned())) {
    return t;
  }
  // As torch: a non_blocking copy from a GPU to the CPU lands in pinned
  // memory, so that it can stay asynchronous.
  const bool pin = dev.is_cpu() && (pin_memory || (non_blocking && t.is_cuda()));
  Tensor out = Tensor::empty_strided(t.sizes(), dense_strides_like(t.sizes(), t.strides()), dtype,
                                     dev, pin);
  copy_(out, t, non_blocking);
  return out;
}

Tensor contiguous(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor out = Tensor::empty(t.sizes(), t.dtype(), t.device());
  copy_(out, t);
  return out;
}

Tensor clone(const Tensor& t) {
  Tensor out = Tensor::empty_strided(t.sizes(), dense_strides_like(t.sizes(), t.strides()),
                                     t.dtype(), t.device());
  copy_(out, t);
  return out;
}

Tensor reshape(const Tensor& t, const Shape& shape) {
  Tensor v = try_view(t, shape);
  if (v.defined()) return v;
  return view(contiguous(t), shape);
}

Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim) {
  // The dims are checked first: a 0-d tensor takes 0 and -1 only.
  const int64_t s = wrap_dim(start_dim, t.dim()), e = wrap_dim(end_dim, t.dim());
  if (t.dim() == 0) return reshape(t, {1});
  EMBER_CHECK(s <= e, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (s == e) return t;
  Shape shape(t.sizes().begin(), t.sizes().begin() + s);
  int64_t n = 1;
  for (int64_t d = s; d <= e; ++d) n *= t.sizes()[d];
  shape.push_back(n);
  shape.insert(shape.end(), t.sizes().begin() + e + 1, t.sizes().end());
  return reshape(t, shape);
}

}  // namespace ember::ops
