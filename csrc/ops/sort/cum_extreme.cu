// torch.cummax / cummin on the GPU (cum_extreme.hpp): a few long lines take
// CUB's single-pass scan of (value, index) pairs, one call per line; other
// lines along the innermost dim take a warp each (groups of 4 neighbouring
// elements a lane, vector loads and stores, the lanes' running extremes
// combined with shuffles, a carry from group to group); lines along a strided
// dim one thread each (neighbouring threads read neighbouring elements).
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <iterator>
#include <type_traits>

#include "ops/cuda_loops.cuh"
#include "ops/element_access.hpp"
#include "ops/vec_io.cuh"
#include "ops/sort/cum_extreme.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

template <typename T, typename C>
__global__ void cum_extreme_kernel(const T* in, int64_t lines, int64_t n, int64_t inner,
                                   bool is_max, T* out, int64_t* idx) {
  for (int64_t r = cuda_loops::global_id(); r < lines; r += cuda_loops::grid_size()) {
    const int64_t o = r / inner, i = r - o * inner;
    const int64_t base = o * n * inner + i;
    C best = C(in[base]);
    T best_t = in[base];
    int64_t at = 0;
    for (int64_t j = 0; j < n; ++j) {
      const T vt = in[base + j * inner];
      const C v = C(vt);
      if (takes_extreme<C>(v, best, is_max)) {
        best = v;
        best_t = vt;
        at = j;
      }
      out[base + j * inner] = best_t;
      idx[base + j * inner] = at;
    }
  }
}

// A running extreme and where it was taken; at < 0: nothing yet (an empty segment).
template <typename C>
struct Best {
  C v;
  int64_t at;
};

// The extreme of segment a followed by segment b: b's where takes_extreme says so
// (a NaN, or >= / <= a's), a's otherwise. Associative, so the warp may combine
// its lanes' segments in any grouping.
template <typename C>
__device__ __forceinline__ Best<C> combine(const Best<C>& a, const Best<C>& b, bool is_max) {
  if (b.at < 0) return a;
  if (a.at < 0) return b;
  return takes_extreme<C>(b.v, a.v, is_max) ? b : a;
}

// Shuffles of C (types narrower than 32 bits travel as int).
template <typename C>
__device__ __forceinline__ C shfl_up_c(C v, int off) {
  if constexpr (sizeof(C) < 4) {
    return C(__shfl_up_sync(0xffffffffu, int(v), off));
  } else {
    return __shfl_up_sync(0xffffffffu, v, off);
  }
}
template <typename C>
__device__ __forceinline__ C shfl_c(C v, int lane) {
  if constexpr (sizeof(C) < 4) {
    return C(__shfl_sync(0xffffffffu, int(v), lane));
  } else {
    return __shfl_sync(0xffffffffu, v, lane);
  }
}

// A warp per line, the line in chunks of K groups of 128 elements: in group k
// lane l holds the 4 elements from k * 128 + l * 4, loaded and stored (values
// and indices) as vectors where the line is aligned, so each access of the
// warp is one contiguous span. Each lane combines its 4 elements, the warp
// scans its lanes' segments with shuffles, and a carry runs from group to
// group and chunk to chunk.
template <int K, typename T, typename C>
__global__ void __launch_bounds__(256, sizeof(C) <= 4 ? 4 : 3) cum_extreme_rows_kernel(
    const T* __restrict__ in, int64_t lines, int64_t n, bool is_max, T* __restrict__ out,
    int64_t* __restrict__ idx) {
  constexpr int64_t kChunk = int64_t(K) * 128;
  const int lane = threadIdx.x & 31;
  const int64_t wpb = blockDim.x / 32;
  for (int64_t line = int64_t(blockIdx.x) * wpb + threadIdx.x / 32; line < lines;
       line += int64_t(gridDim.x) * wpb) {
    const T* src = in + line * n;
    T* dst = out + line * n;
    int64_t* di = idx + line * n;
    const bool vec = vec_io::vec4_aligned(src) && vec_io::vec4_aligned(dst) &&
                     vec_io::vec4_aligned(di);
    Best<C> carry{C(0), -1};
    for (int64_t c = 0; c < n; c += kChunk) {
      const bool full = vec && c + kChunk <= n;
      T x[K][4];
      if (full) {
#pragma unroll
        for (int k = 0; k < K; ++k) vec_io::load4(src + c + k * 128 + lane * 4, x[k]);
      } else {
#pragma unroll
        for (int k = 0; k < K; ++k) {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int64_t i = c + k * 128 + lane * 4 + e;
            if (i < n) x[k][e] = src[i];
          }
        }
      }
      // Each lane's segment of each group, then the warp's inclusive scan of the
      // lanes' segments (the elements' running values are recomputed below from
      // the prefix: fewer registers, so more warps and loads in flight).
      Best<C> before[K], total[K];
#pragma unroll
      for (int k = 0; k < K; ++k) {
        Best<C> t{C(0), -1};
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int64_t i = c + k * 128 + lane * 4 + e;
          if (i < n) t = combine(t, Best<C>{C(x[k][e]), i}, is_max);
        }
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
          Best<C> o;
          o.v = shfl_up_c(t.v, off);
          o.at = __shfl_up_sync(0xffffffffu, t.at, off);
          if (lane >= off) t = combine(o, t, is_max);
        }
        before[k].v = shfl_up_c(t.v, 1);
        before[k].at = __shfl_up_sync(0xffffffffu, t.at, 1);
        if (lane == 0) before[k].at = -1;  // nothing before the first lane
        total[k].v = shfl_c(t.v, 31);
        total[k].at = __shfl_sync(0xffffffffu, t.at, 31);
      }
#pragma unroll
      for (int k = 0; k < K; ++k) {
        Best<C> res = combine(carry, before[k], is_max);
        T y[4];
        int64_t yi[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int64_t i = c + k * 128 + lane * 4 + e;
          if (i < n) res = combine(res, Best<C>{C(x[k][e]), i}, is_max);
          // the element itself where it was taken (exact bits: -0.0, NaN payloads)
          y[e] = res.at == i ? x[k][e] : T(res.v);
          yi[e] = res.at;
        }
        if (full) {
          vec_io::store4(dst + c + k * 128 + lane * 4, y);
          vec_io::store4(di + c + k * 128 + lane * 4, yi);
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int64_t i = c + k * 128 + lane * 4 + e;
            if (i < n) {
              dst[i] = y[e];
              di[i] = yi[e];
            }
          }
        }
        carry = combine(carry, total[k], is_max);
      }
    }
  }
}

// ---- a few long lines: CUB's single-pass DeviceScan of (value, index) pairs ----------
//
// One instantiation per compute type C (float for float16/bfloat16/float32,
// double, int64 for bool and the integers): the input iterator reads any dtype
// as C (element_access.hpp's load_as) with the element's index in the line,
// the output iterator writes the value back in the dtype and the index. Lines
// are scanned one call each, in chunks of at most 2^30 elements with the
// running extreme carried through a device slot (as scan.cu's long lines).

template <typename C>
struct BestOp {
  bool is_max;
  __host__ __device__ __forceinline__ Best<C> operator()(const Best<C>& a, const Best<C>& b) const {
    return takes_extreme<C>(b.v, a.v, is_max) ? b : a;
  }
};

template <typename C>
struct BestInIt {
  using value_type = Best<C>;
  using difference_type = int64_t;
  using pointer = void;
  using reference = Best<C>;
  using iterator_category = std::random_access_iterator_tag;

  const char* base;  // the chunk's first element
  int64_t stride;    // bytes
  ScalarType dt;
  int64_t first;          // the chunk's first index in the line
  const Best<C>* carry;   // folded into element 0 where set
  bool is_max;
  int64_t k = 0;

  __host__ __device__ BestInIt operator+(int64_t d) const {
    BestInIt s = *this;
    s.k += d;
    return s;
  }
  __host__ __device__ BestInIt& operator+=(int64_t d) {
    k += d;
    return *this;
  }
  __device__ Best<C> operator[](int64_t d) const {
    const int64_t i = k + d;
    const Best<C> b{load_as<C>(base + i * stride, dt), first + i};
    return carry != nullptr && i == 0 ? BestOp<C>{is_max}(*carry, b) : b;
  }
  __device__ Best<C> operator*() const { return (*this)[0]; }
};

template <typename C>
struct BestOutRef {
  char* v;
  int64_t* at;
  ScalarType dt;
  Best<C>* carry;
  __device__ __forceinline__ const BestOutRef& operator=(const Best<C>& b) const {
    store_as<C>(v, dt, b.v);
    *at = b.at;
    if (carry != nullptr) *carry = b;
    return *this;
  }
};

template <typename C>
struct BestOutIt {
  using value_type = Best<C>;
  using difference_type = int64_t;
  using pointer = void;
  using reference = BestOutRef<C>;
  using iterator_category = std::random_access_iterator_tag;

  char* v;
  int64_t* at;
  int64_t vstride, astride;  // bytes, elements
  ScalarType dt;
  Best<C>* carry;  // where set, element `last` also goes here
  int64_t last;
  int64_t k = 0;

  __host__ __device__ BestOutIt operator+(int64_t d) const {
    BestOutIt s = *this;
    s.k += d;
    return s;
  }
  __host__ __device__ BestOutIt& operator+=(int64_t d) {
    k += d;
    return *this;
  }
  __device__ BestOutRef<C> operator[](int64_t d) const {
    const int64_t i = k + d;
    return BestOutRef<C>{v + i * vstride, at + i * astride, dt,
                         carry != nullptr && i == last ? carry : nullptr};
  }
  __device__ BestOutRef<C> operator*() const { return (*this)[0]; }
};

constexpr int64_t kCubChunk = int64_t(1) << 30;  // CUB's item counts stay within int

template <typename C>
void cum_extreme_long_lines(bool is_max, const Tensor& xc, const LinePlan& p,
                            const Tensor& values, const Tensor& indices, cudaStream_t stream) {
  const ScalarType dt = xc.dtype();
  const int64_t es = int64_t(xc.itemsize());
  const int first = static_cast<int>(std::min(kCubChunk, p.n));
  const BestOp<C> op{is_max};
  size_t bytes = 0;
  EMBER_CUDA_CHECK(cub::DeviceScan::InclusiveScan(
      nullptr, bytes, BestInIt<C>{nullptr, 0, dt, 0, nullptr, is_max},
      BestOutIt<C>{nullptr, nullptr, 0, 0, dt, nullptr, 0}, op, first, stream));
  const int64_t scratch = (static_cast<int64_t>(bytes) + 15) / 16 * 16;
  const Tensor ws = Tensor::empty({scratch + 2 * int64_t(sizeof(Best<C>))}, ScalarType::UInt8,
                                  xc.device());
  char* wsp = static_cast<char*>(ws.data_ptr());
  Best<C>* slots = reinterpret_cast<Best<C>*>(wsp + scratch);
  const char* in = static_cast<const char*>(xc.data_ptr());
  char* vout = static_cast<char*>(values.data_ptr());
  int64_t* iout = static_cast<int64_t*>(indices.data_ptr());
  const int64_t nchunks = (p.n + kCubChunk - 1) / kCubChunk;
  for (int64_t r = 0; r < p.lines(); ++r) {
    const int64_t o = r / p.inner, i = r - o * p.inner;
    const int64_t base = o * p.n * p.inner + i;  // elements
    for (int64_t j = 0; j < nchunks; ++j) {
      const int64_t s = j * kCubChunk;
      const int n = static_cast<int>(std::min(kCubChunk, p.n - s));
      const int64_t at = base + s * p.inner;
      const BestInIt<C> it{in + at * es, p.inner * es, dt, s,
                           j > 0 ? slots + (j + 1) % 2 : nullptr, is_max};
      const BestOutIt<C> ot{vout + at * es, iout + at, p.inner * es, p.inner, dt,
                            nchunks > 1 ? slots + j % 2 : nullptr, n - 1};
      size_t b2 = bytes;
      EMBER_CUDA_CHECK(cub::DeviceScan::InclusiveScan(wsp, b2, it, ot, op, n, stream));
    }
  }
}

}  // namespace

namespace internal {

void cum_extreme_cuda(bool is_max, const Tensor& xc, const LinePlan& p, const Tensor& values,
                      const Tensor& indices) {
  const int dev = xc.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev).handle();
  const int64_t lines = p.outer * p.inner;
  // A few long lines (a 1-D tensor above all): a warp or thread per line would
  // leave the GPU nearly idle; CUB's single-pass scan spreads each line over it.
  if (p.n >= (int64_t(1) << 16) && lines * 16384 <= p.n) {
    switch (compute_dtype(xc.dtype())) {
      case ScalarType::Float64:
        return cum_extreme_long_lines<double>(is_max, xc, p, values, indices, stream);
      case ScalarType::Float32:
        return cum_extreme_long_lines<float>(is_max, xc, p, values, indices, stream);
      default:
        return cum_extreme_long_lines<int64_t>(is_max, xc, p, values, indices, stream);
    }
  }
  dispatch(xc.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = std::conditional_t<std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value,
                                 float, T>;
    if (p.inner == 1) {  // along the innermost dim: a warp per line
      constexpr int kWarps = cuda_loops::kThreads / 32;
      const int64_t blocks = std::min<int64_t>((lines + kWarps - 1) / kWarps, 65535 * 8);
      cum_extreme_rows_kernel<2, T, C>
          <<<static_cast<unsigned>(blocks), cuda_loops::kThreads, 0, stream>>>(
              static_cast<const T*>(xc.data_ptr()), lines, p.n, is_max,
              static_cast<T*>(values.data_ptr()), static_cast<int64_t*>(indices.data_ptr()));
      EMBER_KERNEL_LAUNCH_CHECK();
      return;
    }
    cum_extreme_kernel<T, C><<<cuda_loops::blocks_for(lines), cuda_loops::kThreads, 0, stream>>>(
        static_cast<const T*>(xc.data_ptr()), lines, p.n, p.inner, is_max,
        static_cast<T*>(values.data_ptr()), static_cast<int64_t*>(indices.data_ptr()));
    EMBER_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace internal

}  // namespace ember::ops
