// cumsum and cumprod on the GPU (see scan.hpp):
// - a few long lines (scan_long_lines): CUB's single-pass (decoupled
//   look-back) DeviceScan, one call per line (chunks of at most 2^30 items, the
//   running value carried through a device slot), any strides;
// - lines along a contiguous dim (scan_lines_kernel<TX>): a warp (TX = 32) or
//   a block of 256 (TX = 256, when lines are too few to fill the GPU with a
//   warp each) per line, chunk by chunk with a running carry; each thread
//   scans 4 neighbouring elements of each of K groups, loaded and stored as
//   vectors (the warp's access one contiguous span);
// - anything else (scan_strided_kernel): a thread per line (neighbouring
//   threads read neighbouring elements).
// The current stream; every launch checked.
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <iterator>
#include <type_traits>

#include "ops/cuda_loops.cuh"
#include "ops/reduce/scan.hpp"
#include "ops/reduce/scan_functors.hpp"
#include "ops/vec_io.cuh"
#include "runtime/cuda_device.hpp"
#include "runtime/stream.hpp"

namespace ember::ops {

namespace {

using namespace cuda_loops;

struct ScanArgs {
  OffsetCalc<2> kept;
  char* out;
  const char* in;
  int64_t lines, len, in_stride, out_stride;
};

// Inclusive scan over the 32 lanes of a warp.
template <typename C, typename F>
__device__ __forceinline__ C warp_scan(const F& f, C v) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const C o = __shfl_up_sync(0xffffffffu, v, off);
    if (lane >= off) v = f(o, v);
  }
  return v;
}

// F's operation (ScanF) in the carry's type Acc.
template <typename Acc, typename F>
struct AccOp;
template <typename Acc, typename C, bool PROD>
struct AccOp<Acc, ScanF<C, PROD>> {
  static __device__ __forceinline__ Acc apply(Acc a, Acc b) { return ScanF<Acc, PROD>{}(a, b); }
};

// A chunk of a line is K groups of TX * 4 elements; in group k thread tx holds
// the 4 elements from k * TX * 4 + tx * 4. Each thread scans its 4, the warp
// its threads' totals (shuffles), the block its warps' totals (shared memory,
// one barrier a chunk, double-buffered), and the groups and chunks are chained
// by a running carry. The order of the operations is fixed: results are
// deterministic.
template <int TX, int K, typename F, typename In>
__global__ void __launch_bounds__(256) scan_lines_kernel(F f, ScanArgs a) {
  using C = compute_t<In>;
  using Out = scan_out_t<In>;
  constexpr int TY = 256 / TX;
  constexpr int W = TX / 32;
  constexpr int64_t kGroup = int64_t(TX) * 4;
  constexpr int64_t kChunk = K * kGroup;
  static_assert(W == 1 || TY == 1, "a warp per line or a block per line");
  __shared__ C warp_tot[2][K][W];
  const int tx = threadIdx.x, ty = threadIdx.y, lane = tx % 32, warp = tx / 32;
  int parity = 0;
  // Every thread of a block walks the same line groups, so barriers match.
  const int64_t groups = (a.lines + TY - 1) / TY;
  for (int64_t g = blockIdx.x; g < groups; g += gridDim.x) {
    const int64_t line = g * TY + ty;
    const bool active = line < a.lines;
    int64_t off[2] = {0, 0};
    if (active) a.kept.get(line, off);
    const In* in = reinterpret_cast<const In*>(a.in + off[1]);
    Out* out = reinterpret_cast<Out*>(a.out + off[0]);
    const bool vec = active && vec_io::vec4_aligned(in) && vec_io::vec4_aligned(out);
    // The running carry between chunks: in double for a float compute type
    // (float32, float16, bfloat16), so that a long line adds no rounding error
    // per chunk (each output is rounded once from carry + its chunk's prefix).
    using Acc = std::conditional_t<std::is_same<C, float>::value, double, C>;
    Acc carry = Acc(f.identity());
    for (int64_t c = 0; c < a.len; c += kChunk) {
      const bool full = vec && c + kChunk <= a.len;
      C r[K][4];
      if (full) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
          In x[4];
          vec_io::load4(in + c + k * kGroup + tx * 4, x);
#pragma unroll
          for (int e = 0; e < 4; ++e) r[k][e] = convert<C>(x[e]);
        }
      } else {
#pragma unroll
        for (int k = 0; k < K; ++k) {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int64_t i = c + k * kGroup + tx * 4 + e;
            r[k][e] = active && i < a.len ? convert<C>(in[i]) : f.identity();
          }
        }
      }
      C incl[K], pre[K], tot[K];
#pragma unroll
      for (int k = 0; k < K; ++k) {
#pragma unroll
        for (int e = 1; e < 4; ++e) r[k][e] = f(r[k][e - 1], r[k][e]);
        incl[k] = warp_scan(f, r[k][3]);
      }
      if constexpr (W == 1) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
          const C before = __shfl_up_sync(0xffffffffu, incl[k], 1);
          pre[k] = lane == 0 ? f.identity() : before;
          tot[k] = __shfl_sync(0xffffffffu, incl[k], 31);
        }
      } else {
        if (lane == 31) {
#pragma unroll
          for (int k = 0; k < K; ++k) warp_tot[parity][k][warp] = incl[k];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < K; ++k) {
          C wp = f.identity(), t = f.identity();
#pragma unroll
          for (int w = 0; w < W; ++w) {
            const C s = warp_tot[parity][k][w];
            if (w < warp) wp = f(wp, s);
            t = f(t, s);
          }
          const C before = __shfl_up_sync(0xffffffffu, incl[k], 1);
          pre[k] = lane == 0 ? wp : f(wp, before);
          tot[k] = t;
        }
        parity ^= 1;  // the next chunk writes the other buffer: one barrier a chunk
      }
#pragma unroll
      for (int k = 0; k < K; ++k) {
        Out y[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          y[e] = convert<Out>(C(AccOp<Acc, F>::apply(carry, Acc(f(pre[k], r[k][e])))));
        }
        if (full) {
          vec_io::store4(out + c + k * kGroup + tx * 4, y);
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int64_t i = c + k * kGroup + tx * 4 + e;
            if (active && i < a.len) out[i] = y[e];
          }
        }
        carry = AccOp<Acc, F>::apply(carry, Acc(tot[k]));
      }
    }
  }
}

template <typename F, typename In>
__global__ void scan_strided_kernel(F f, ScanArgs a) {
  using C = compute_t<In>;
  using Out = scan_out_t<In>;
  for (int64_t line = global_id(); line < a.lines; line += grid_size()) {
    int64_t off[2];
    a.kept.get(line, off);
    const In* in = reinterpret_cast<const In*>(a.in + off[1]);
    Out* out = reinterpret_cast<Out*>(a.out + off[0]);
    C acc = f.identity();
    for (int64_t i = 0; i < a.len; ++i) {
      acc = f(acc, convert<C>(in[i * a.in_stride]));
      out[i * a.out_stride] = convert<Out>(acc);
    }
  }
}

struct CudaScan {
  const ScanPlan& p;
  cudaStream_t stream;
  int sm_count;
  template <typename In, typename F>
  void run(const F& f) {
    // float16/bfloat16 accumulate in float (their compute type): rounding every
    // partial result to the dtype (what torch's CPU scan does) did not match
    // torch's CUDA scans, whose order and accumulation differ by path (the GPU
    // tests compare with them).
    ScanArgs a{OffsetCalc<2>(p.kept), p.kept.data[0], p.kept.data[1], p.lines, p.len,
               p.in_stride, p.out_stride};
    if (p.in_stride == 1 && p.out_stride == 1) {
      // A warp per line keeps 2 KiB (float) a warp in flight; with fewer lines
      // than 32 warps an SM, long lines take a block each instead.
      const bool wide = p.len > 1024 && p.lines < int64_t(32) * sm_count;
      const int TY = wide ? 1 : 8;
      const int64_t blocks = std::min<int64_t>((p.lines + TY - 1) / TY, 65535 * 16);
      if (wide) {
        scan_lines_kernel<256, 4, F, In>
            <<<static_cast<unsigned>(blocks), dim3(256, 1), 0, stream>>>(f, a);
      } else {
        scan_lines_kernel<32, 4, F, In>
            <<<static_cast<unsigned>(blocks), dim3(32, 8), 0, stream>>>(f, a);
      }
    } else {
      scan_strided_kernel<F, In><<<blocks_for(p.lines), kThreads, 0, stream>>>(f, a);
    }
    EMBER_KERNEL_LAUNCH_CHECK();
  }
};

// ---- a few long lines: CUB's DeviceScan, one instantiation per (compute type, op) ----
//
// The input iterator converts the stored dtype to the compute type C (float for
// float16/bfloat16/float32, double, int64 for the integers and bool) and, for
// a chunk after the first, folds the previous chunk's last running value into
// element 0; the output iterator converts back and keeps the chunk's last
// running value (in C) for the next chunk.

template <typename C>
__device__ __forceinline__ C load_c(const char* p, ScalarType dt) {
  if constexpr (std::is_same<C, float>::value) {
    if (dt == ScalarType::Float32) return *reinterpret_cast<const float*>(p);
    if (dt == ScalarType::Float16) return convert<float>(*reinterpret_cast<const Half*>(p));
    return convert<float>(*reinterpret_cast<const BFloat16*>(p));
  } else if constexpr (std::is_same<C, double>::value) {
    return *reinterpret_cast<const double*>(p);
  } else {
    if (dt == ScalarType::Int64) return *reinterpret_cast<const int64_t*>(p);
    if (dt == ScalarType::Int32) return *reinterpret_cast<const int32_t*>(p);
    return *reinterpret_cast<const uint8_t*>(p);  // uint8 and bool
  }
}

template <typename C>
__device__ __forceinline__ void store_c(char* p, ScalarType dt, C v) {
  if constexpr (std::is_same<C, float>::value) {
    if (dt == ScalarType::Float32) {
      *reinterpret_cast<float*>(p) = v;
    } else if (dt == ScalarType::Float16) {
      *reinterpret_cast<Half*>(p) = convert<Half>(v);
    } else {
      *reinterpret_cast<BFloat16*>(p) = convert<BFloat16>(v);
    }
  } else {
    *reinterpret_cast<C*>(p) = v;  // double, int64
  }
}

template <typename C, typename F>
struct ScanInIt {
  using value_type = C;
  using difference_type = int64_t;
  using pointer = void;
  using reference = C;
  using iterator_category = std::random_access_iterator_tag;

  const char* base;
  int64_t stride;  // bytes
  ScalarType dt;
  const C* carry;  // folded into element 0 where set
  F f;
  int64_t k = 0;

  __host__ __device__ ScanInIt operator+(int64_t d) const {
    ScanInIt s = *this;
    s.k += d;
    return s;
  }
  __host__ __device__ ScanInIt& operator+=(int64_t d) {
    k += d;
    return *this;
  }
  __device__ C operator[](int64_t d) const {
    const int64_t i = k + d;
    const C v = load_c<C>(base + i * stride, dt);
    return carry != nullptr && i == 0 ? f(*carry, v) : v;
  }
  __device__ C operator*() const { return (*this)[0]; }
};

template <typename C>
struct ScanOutRef {
  char* p;
  ScalarType dt;
  C* carry;
  __device__ __forceinline__ const ScanOutRef& operator=(C v) const {
    store_c<C>(p, dt, v);
    if (carry != nullptr) *carry = v;
    return *this;
  }
};

template <typename C>
struct ScanOutIt {
  using value_type = C;
  using difference_type = int64_t;
  using pointer = void;
  using reference = ScanOutRef<C>;
  using iterator_category = std::random_access_iterator_tag;

  char* base;
  int64_t stride;  // bytes
  ScalarType dt;
  C* carry;      // where set, element `last` also goes here
  int64_t last;
  int64_t k = 0;

  __host__ __device__ ScanOutIt operator+(int64_t d) const {
    ScanOutIt s = *this;
    s.k += d;
    return s;
  }
  __host__ __device__ ScanOutIt& operator+=(int64_t d) {
    k += d;
    return *this;
  }
  __device__ ScanOutRef<C> operator[](int64_t d) const {
    const int64_t i = k + d;
    return ScanOutRef<C>{base + i * stride, dt, carry != nullptr && i == last ? carry : nullptr};
  }
  __device__ ScanOutRef<C> operator*() const { return (*this)[0]; }
};

constexpr int64_t kCubChunk = int64_t(1) << 30;  // CUB's item counts stay within int

template <typename C, typename F>
void scan_long_lines(const F& f, const ScanPlan& p, ScalarType in, ScalarType out, int device,
                     cudaStream_t stream) {
  const int64_t in_stride = p.in_stride * int64_t(element_size(in));
  const int64_t out_stride = p.out_stride * int64_t(element_size(out));
  const int first = static_cast<int>(std::min(kCubChunk, p.len));
  size_t bytes = 0;
  EMBER_CUDA_CHECK(cub::DeviceScan::InclusiveScan(
      nullptr, bytes, ScanInIt<C, F>{nullptr, 0, in, nullptr, f},
      ScanOutIt<C>{nullptr, 0, out, nullptr, 0}, f, first, stream));
  // The scratch, then two carry slots (chunk j writes slot j % 2, reads the other).
  const int64_t scratch = (static_cast<int64_t>(bytes) + 15) / 16 * 16;
  const Tensor ws = Tensor::empty({scratch + 2 * int64_t(sizeof(C))}, ScalarType::UInt8,
                                  Device(DeviceType::CUDA, device));
  char* wsp = static_cast<char*>(ws.data_ptr());
  C* slots = reinterpret_cast<C*>(wsp + scratch);
  const IterLayout<2>& kept = p.kept;
  for (int64_t line = 0; line < p.lines; ++line) {
    int64_t off[2] = {0, 0}, r = line;
    for (int d = 0; d < kept.ndim; ++d) {
      const int64_t m = r % kept.shape[d];
      r /= kept.shape[d];
      off[0] += m * kept.strides[0][d];
      off[1] += m * kept.strides[1][d];
    }
    const int64_t nchunks = (p.len + kCubChunk - 1) / kCubChunk;
    for (int64_t j = 0; j < nchunks; ++j) {
      const int64_t s = j * kCubChunk;
      const int n = static_cast<int>(std::min(kCubChunk, p.len - s));
      const ScanInIt<C, F> it{kept.data[1] + off[1] + s * in_stride, in_stride, in,
                              j > 0 ? slots + (j + 1) % 2 : nullptr, f};
      const ScanOutIt<C> ot{kept.data[0] + off[0] + s * out_stride, out_stride, out,
                            nchunks > 1 ? slots + j % 2 : nullptr, n - 1};
      size_t b2 = bytes;
      EMBER_CUDA_CHECK(cub::DeviceScan::InclusiveScan(wsp, b2, it, ot, f, n, stream));
    }
  }
}

}  // namespace

namespace internal {

void scan_cuda(ScanOp op, const ScanPlan& p, ScalarType in, ScalarType out, int device) {
  cuda::DeviceGuard guard(device);
  cudaStream_t stream = cuda::current_stream(device).handle();
  // A few lines, each long (1-D tensors above all): a block or warp per line
  // would leave the GPU nearly idle, and CUB's single-pass scan reads and
  // writes each element once over the whole GPU. One call per line costs a
  // few microseconds: taken where a line has at least 16384 elements a line.
  if (p.len >= (int64_t(1) << 16) && p.lines * 16384 <= p.len) {
    const bool prod = op == ScanOp::Prod;
    switch (compute_dtype(in)) {
      case ScalarType::Float64:
        return prod ? scan_long_lines<double>(ScanF<double, true>{}, p, in, out, device, stream)
                    : scan_long_lines<double>(ScanF<double, false>{}, p, in, out, device, stream);
      case ScalarType::Float32:
        return prod ? scan_long_lines<float>(ScanF<float, true>{}, p, in, out, device, stream)
                    : scan_long_lines<float>(ScanF<float, false>{}, p, in, out, device, stream);
      default:
        return prod ? scan_long_lines<int64_t>(ScanF<int64_t, true>{}, p, in, out, device, stream)
                    : scan_long_lines<int64_t>(ScanF<int64_t, false>{}, p, in, out, device, stream);
    }
  }
  CudaScan r{p, stream, cuda::get_device_properties(device).multi_processor_count};
  dispatch_scan(op, in, r);
}

}  // namespace internal

}  // namespace ember::ops
