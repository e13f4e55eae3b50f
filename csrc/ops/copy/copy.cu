// GPU copies with dtype conversion: one kernel template over (dst, src) C++
// types. Contiguous operands take a vectorised grid-stride loop (4 elements
// per load/store); anything else computes offsets from the merged layout.
// Same-dtype copies move raw bits (4 instantiations by element size), so the
// file instantiates 94 type pairs x 2 kernels. Same-dtype copies whose rows are
// contiguous in dst and contiguous or reversed in src (flip, roll, narrow) copy
// rows in 16-byte units (copy_rows).
#include "ops/copy/copy.hpp"
#include "ops/cuda_loops.cuh"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "tensor/convert.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

using namespace cuda_loops;

constexpr int kVec = 4;

template <typename D, typename S>
__global__ void convert_contiguous_kernel(D* __restrict__ dst, const S* __restrict__ src,
                                          int64_t n, bool aligned) {
  const int64_t start = global_id(), step = grid_size();
  int64_t tail = 0;
  if (aligned) {
    const int64_t nv = n / kVec;
    auto* dv = reinterpret_cast<Vec<D, kVec>*>(dst);
    const auto* sv = reinterpret_cast<const Vec<S, kVec>*>(src);
    for (int64_t j = start; j < nv; j += step) {
      const Vec<S, kVec> in = sv[j];
      Vec<D, kVec> out;
#pragma unroll
      for (int k = 0; k < kVec; ++k) out.v[k] = convert<D, S>(in.v[k]);
      dv[j] = out;
    }
    tail = nv * kVec;
  }
  for (int64_t j = tail + start; j < n; j += step) dst[j] = convert<D, S>(src[j]);
}

// Offsets from 32-bit fast divisions where the layout has fewer than 2^31
// elements (OffsetCalc), 64-bit divisions otherwise.
template <typename D, typename S>
__global__ void convert_strided_kernel(OffsetCalc<2> calc, char* dst, const char* src,
                                       int64_t n) {
  for (int64_t i = global_id(); i < n; i += grid_size()) {
    int64_t off[2];
    calc.get(i, off);
    *reinterpret_cast<D*>(dst + off[0]) = convert<D, S>(*reinterpret_cast<const S*>(src + off[1]));
  }
}

// ---- same-dtype copies of rows: dst's innermost dim contiguous, src's contiguous
// or reversed (flip of the innermost dim) ---------------------------------------------
//
// A flip or roll (a copy from a negative-stride or narrowed view) would otherwise
// take the strided kernel: 64-bit divisions per element for every dim. Here the
// offsets are computed once per unit of V elements (16 bytes where every row
// start is 16-byte aligned), with 32-bit divisions where the index fits.

struct RowCopyArgs {
  OffsetCalc<2> outer;  // row starts (bytes) over the dims outside the row
  char* dst;
  const char* src;      // REV: the row's lowest address (its last element)
  int64_t rows, units;  // units of V elements a row
  FastDivmod units_div;
  bool index32;
};

template <typename E, int V, bool REV>
__global__ void copy_rows_kernel(RowCopyArgs a) {
  using U = Vec<E, V>;
  const int64_t total = a.rows * a.units;
  for (int64_t i = global_id(); i < total; i += grid_size()) {
    int64_t row, j;
    if (a.index32) {
      const uint32_t q = a.units_div.div(static_cast<uint32_t>(i));
      row = q;
      j = int64_t(static_cast<uint32_t>(i) - q * a.units_div.divisor);
    } else {
      row = i / a.units;
      j = i - row * a.units;
    }
    int64_t off[2] = {0, 0};
    if (a.outer.ndim > 0) a.outer.get(row, off);
    U* d = reinterpret_cast<U*>(a.dst + off[0]) + j;
    const U* s = reinterpret_cast<const U*>(a.src + off[1]) + (REV ? a.units - 1 - j : j);
    if constexpr (REV) {
      const U in = *s;
      U out;
#pragma unroll
      for (int k = 0; k < V; ++k) out.v[k] = in.v[V - 1 - k];
      *d = out;
    } else {
      *d = *s;
    }
  }
}

// The row path for a same-dtype copy of layout `it` (dims innermost first), if it
// applies: dst's innermost stride is the element size, src's +/- the element size.
bool copy_rows(const IterLayout<2>& it, int64_t esize, cudaStream_t stream) {
  if (it.ndim < 1 || it.numel == 0) return false;
  if (esize != 1 && esize != 2 && esize != 4 && esize != 8) return false;
  if (it.strides[0][0] != esize) return false;
  const bool rev = it.strides[1][0] == -esize;
  if (!rev && it.strides[1][0] != esize) return false;
  const int64_t len = it.shape[0];
  RowCopyArgs a;
  a.rows = it.numel / len;
  a.dst = it.data[0];
  a.src = it.data[1] - (rev ? (len - 1) * esize : 0);
  IterLayout<2> outer;
  outer.ndim = it.ndim - 1;
  outer.numel = a.rows;
  uintptr_t bits = reinterpret_cast<uintptr_t>(a.dst) | reinterpret_cast<uintptr_t>(a.src) |
                   static_cast<uintptr_t>(len * esize);
  for (int d = 1; d < it.ndim; ++d) {
    outer.shape[d - 1] = it.shape[d];
    for (int k = 0; k < 2; ++k) {
      outer.strides[k][d - 1] = it.strides[k][d];
      bits |= static_cast<uintptr_t>(it.strides[k][d]);  // two's complement: alignment kept
    }
  }
  a.outer = OffsetCalc<2>(outer);
  const bool vec = (bits & 15) == 0;
  const int64_t v = vec ? 16 / esize : 1;
  a.units = len / v;
  const int64_t total = a.rows * a.units;
  a.index32 = total < (int64_t(1) << 31);
  if (a.index32) a.units_div = FastDivmod(static_cast<uint32_t>(a.units));
  const unsigned blocks = blocks_for(total, 2);
  auto go = [&](auto tag) {
    using E = typename decltype(tag)::type;
    constexpr int VV = 16 / int(sizeof(E));
    if (vec) {
      if (rev) copy_rows_kernel<E, VV, true><<<blocks, kThreads, 0, stream>>>(a);
      else copy_rows_kernel<E, VV, false><<<blocks, kThreads, 0, stream>>>(a);
    } else {
      if (rev) copy_rows_kernel<E, 1, true><<<blocks, kThreads, 0, stream>>>(a);
      else copy_rows_kernel<E, 1, false><<<blocks, kThreads, 0, stream>>>(a);
    }
  };
  dispatch_bits(size_t(esize), go);
  EMBER_KERNEL_LAUNCH_CHECK();
  return true;
}

template <typename D, typename S>
void launch(const IterLayout<2>& it, cudaStream_t stream) {
  if (it.is_contiguous({int64_t(sizeof(D)), int64_t(sizeof(S))})) {
    auto* d = reinterpret_cast<D*>(it.data[0]);
    const auto* s = reinterpret_cast<const S*>(it.data[1]);
    const bool aligned = reinterpret_cast<uintptr_t>(d) % sizeof(Vec<D, kVec>) == 0 &&
                         reinterpret_cast<uintptr_t>(s) % sizeof(Vec<S, kVec>) == 0;
    convert_contiguous_kernel<D, S>
        <<<blocks_for(it.numel, kVec), kThreads, 0, stream>>>(d, s, it.numel, aligned);
  } else {
    convert_strided_kernel<D, S><<<blocks_for(it.numel, 4), kThreads, 0, stream>>>(
        OffsetCalc<2>(it), it.data[0], it.data[1], it.numel);
  }
  EMBER_KERNEL_LAUNCH_CHECK();
}

}  // namespace

namespace internal {

void copy_cuda_same_device(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  const int dev = dst.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev).handle();
  if (same_dense_layout(dst, src)) {
    EMBER_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), dst.nbytes(),
                                     cudaMemcpyDeviceToDevice, stream));
    return;
  }
  const IterLayout<2> it = make_iter<2>(dst.sizes(), {&dst, &src});
  if (dst.dtype() == src.dtype()) {
    if (!it.is_contiguous({int64_t(dst.itemsize()), int64_t(src.itemsize())}) &&
        copy_rows(it, int64_t(dst.itemsize()), stream)) {
      return;
    }
    dispatch_bits(dst.itemsize(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      launch<T, T>(it, stream);
    });
    return;
  }
  dispatch(dst.dtype(), [&](auto dtag) {
    using D = typename decltype(dtag)::type;
    dispatch(src.dtype(), [&](auto stag) {
      using S = typename decltype(stag)::type;
      if constexpr (!std::is_same<D, S>::value) launch<D, S>(it, stream);
    });
  });
}

}  // namespace internal

}  // namespace ember::ops
