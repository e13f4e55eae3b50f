// torch.multinomial on the GPU: one thread block per row, the arithmetic of
// random_multinomial.hpp (so the CPU picks the same categories). Invalid rows
// set a flag that the launcher reads back once (the only host wait of the
// random functions), so that bad probabilities raise a RuntimeError instead
// of a device-side assert.
#include <cstdint>

#include "ops/copy/copy.hpp"
#include "ops/cuda_loops.cuh"
#include "ops/fill/fill.hpp"
#include "ops/random/random.hpp"
#include "ops/random/random_multinomial.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

namespace {

constexpr int kRowThreads = 256;

// With replacement: cumulative sums in the fixed chunk order, then one
// binary search per sample. cdf and chunk are scratch rows of n and
// ceil(n / chunk) doubles.
__global__ void __launch_bounds__(kRowThreads)
    multinomial_replacement_kernel(const double* probs, int64_t n, int64_t k, double* cdf_all,
                                   double* chunk_all, int64_t nchunks, int64_t* out,
                                   uint64_t seed, uint64_t offset, int* flag) {
  const int64_t row = blockIdx.x;
  const double* p = probs + row * n;
  double* cdf = cdf_all + row * n;
  double* chunk = chunk_all + row * nchunks;
  __shared__ double total;
  __shared__ int bad;
  if (threadIdx.x == 0) bad = 0;
  __syncthreads();
  for (int64_t c = threadIdx.x; c < nchunks; c += blockDim.x) {
    const int64_t c0 = c * rnd::kMultinomialChunk;
    const int64_t c1 = c0 + rnd::kMultinomialChunk < n ? c0 + rnd::kMultinomialChunk : n;
    double local = 0.0;
    for (int64_t j = c0; j < c1; ++j) {
      if (!rnd::valid_probability(p[j])) bad = 1;
      local = rnd::add(local, p[j]);
      cdf[j] = local;
    }
    chunk[c] = local;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    double prefix = 0.0;
    for (int64_t c = 0; c < nchunks; ++c) {  // exclusive prefix of the chunk totals
      const double t = chunk[c];
      chunk[c] = prefix;
      prefix = rnd::add(prefix, t);
    }
    total = prefix;
    if (bad) {
      atomicMax(flag, 1);
    } else if (!(prefix > 0.0)) {
      atomicMax(flag, 2);
    }
  }
  __syncthreads();
  for (int64_t c = threadIdx.x; c < nchunks; c += blockDim.x) {
    const int64_t c0 = c * rnd::kMultinomialChunk;
    const int64_t c1 = c0 + rnd::kMultinomialChunk < n ? c0 + rnd::kMultinomialChunk : n;
    for (int64_t j = c0; j < c1; ++j) cdf[j] = rnd::add(chunk[c], cdf[j]);
  }
  __syncthreads();
  for (int64_t s = threadIdx.x; s < k; s += blockDim.x) {
    const double u = rnd::draw_uniform53(seed, offset, row * k + s);
    out[row * k + s] = rnd::search_cdf(cdf, p, n, rnd::mul(u, total));
  }
}

// Without replacement: race keys, then k rounds of a block-wide argmin.
__global__ void __launch_bounds__(kRowThreads)
    multinomial_race_kernel(const double* probs, int64_t n, int64_t k, double* keys_all,
                            int64_t* out, uint64_t seed, uint64_t offset, int* flag) {
  const int64_t row = blockIdx.x;
  const double* p = probs + row * n;
  double* key = keys_all + row * n;
  __shared__ double best_key[kRowThreads];
  __shared__ int64_t best_idx[kRowThreads];
  __shared__ unsigned long long nonzero;
  __shared__ int bad;
  if (threadIdx.x == 0) {
    nonzero = 0;
    bad = 0;
  }
  __syncthreads();
  unsigned long long mine = 0;
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    if (!rnd::valid_probability(p[j])) bad = 1;
    mine += p[j] > 0.0;
    key[j] = rnd::race_key(p[j], rnd::draw_uniform53(seed, offset, row * n + j));
  }
  atomicAdd(&nonzero, mine);
  __syncthreads();
  if (bad || nonzero == 0 || nonzero < static_cast<unsigned long long>(k)) {
    if (threadIdx.x == 0) atomicMax(flag, bad ? 1 : nonzero == 0 ? 2 : 3);
    return;
  }
  for (int64_t t = 0; t < k; ++t) {
    double bk = std::numeric_limits<double>::infinity();
    int64_t bi = n;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const double v = key[j];
      if (v < bk || (v == bk && j < bi)) {
        bk = v;
        bi = j;
      }
    }
    best_key[threadIdx.x] = bk;
    best_idx[threadIdx.x] = bi;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) {
        const double v = best_key[threadIdx.x + half];
        const int64_t i = best_idx[threadIdx.x + half];
        if (v < best_key[threadIdx.x] ||
            (v == best_key[threadIdx.x] && i < best_idx[threadIdx.x])) {
          best_key[threadIdx.x] = v;
          best_idx[threadIdx.x] = i;
        }
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      out[row * k + t] = best_idx[0];
      key[best_idx[0]] = std::numeric_limits<double>::infinity();
    }
    __syncthreads();
  }
}

}  // namespace

namespace internal {

int multinomial_cuda(const Tensor& probs, const Tensor& out, int64_t k, bool replacement,
                     PhiloxState st) {
  const int dev = probs.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev).handle();
  const int64_t n = probs.sizes().back();
  const int64_t rows = probs.numel() / n;
  EMBER_CHECK(rows <= 0x7FFFFFFF, "multinomial: too many rows (", rows, ")");
  const Device d = probs.device();
  Tensor flag = Tensor::empty({1}, ScalarType::Int32, d);
  zero_(flag);
  int* f = static_cast<int*>(flag.data_ptr());
  const double* p = static_cast<const double*>(probs.data_ptr());
  int64_t* o = static_cast<int64_t*>(out.data_ptr());
  if (replacement) {
    const int64_t nchunks = (n + rnd::kMultinomialChunk - 1) / rnd::kMultinomialChunk;
    Tensor cdf = Tensor::empty({rows, n}, ScalarType::Float64, d);
    Tensor chunk = Tensor::empty({rows, nchunks}, ScalarType::Float64, d);
    multinomial_replacement_kernel<<<static_cast<unsigned>(rows), kRowThreads, 0, stream>>>(
        p, n, k, static_cast<double*>(cdf.data_ptr()), static_cast<double*>(chunk.data_ptr()),
        nchunks, o, st.seed, st.offset, f);
  } else {
    Tensor keys = Tensor::empty({rows, n}, ScalarType::Float64, d);
    multinomial_race_kernel<<<static_cast<unsigned>(rows), kRowThreads, 0, stream>>>(
        p, n, k, static_cast<double*>(keys.data_ptr()), o, st.seed, st.offset, f);
  }
  EMBER_KERNEL_LAUNCH_CHECK();
  // The one host wait: read the flag back (a synchronous copy on this stream).
  const Tensor host = to(flag, Device(DeviceType::CPU), ScalarType::Int32);
  return *static_cast<const int*>(host.data_ptr());
}

}  // namespace internal

}  // namespace ember::ops
