// The random draws' CUDA kernel: one template for every distribution and
// dtype (the plans of random_dispatch.hpp pick the sampler and the map).
//
// Each thread takes Philox blocks b = global id, global id + grid size, ...
// (a grid-stride loop), computes the block's four words, turns them into E
// values and writes elements b*E .. b*E+E-1 with one vector store (a float4
// for float32). Outputs that are not contiguous and 16-byte aligned are drawn
// into a new contiguous tensor and copied. The values depend on the block
// index only, never on the grid.
#include <algorithm>
#include <atomic>

#include "ops/copy/copy.hpp"
#include "ops/cuda_loops.cuh"
#include "ops/random/random.hpp"
#include "ops/random/random_dispatch.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

namespace {

using namespace cuda_loops;

// Contiguous, aligned outputs: one vector store per Philox block and no
// address arithmetic, in a kernel of its own (the general one's registers
// would cost this one occupancy). The last, partial block is written by
// thread 0 element by element.
template <typename T, typename S, typename M>
__global__ void __launch_bounds__(kThreads)
    random_contig_kernel(T* out, int64_t n, uint64_t seed, uint64_t offset, S sampler, M map) {
  using Acc = typename S::Acc;
  constexpr int E = S::E;
  const int64_t full = n / E;
  for (int64_t b = global_id(); b < full; b += grid_size()) {
    const philox::Words w = philox::block(seed, offset + static_cast<uint64_t>(b));
    Acc v[E];
    sampler(w, v);
    const int64_t i0 = b * E;
    Vec<T, E> vec;
#pragma unroll
    for (int e = 0; e < E; ++e) vec.v[e] = map(v[e], i0 + e);
    *reinterpret_cast<Vec<T, E>*>(out + i0) = vec;
  }
  if (full * E < n && global_id() == 0) {
    const philox::Words w = philox::block(seed, offset + static_cast<uint64_t>(full));
    Acc v[E];
    sampler(w, v);
    const int64_t i0 = full * E;
#pragma unroll
    for (int e = 0; e < E; ++e) {
      if (i0 + e < n) out[i0 + e] = map(v[e], i0 + e);
    }
  }
}

// Exactly one wave of resident thread blocks (as many as the kernel's
// register use lets each SM hold, asked once per kernel and device): a
// partial second wave would leave most SMs idle at the end. Each thread then
// loops over several Philox blocks.
template <auto kernel>  // one cached occupancy per kernel
unsigned grid_for(int64_t philox_blocks, int device) {
  static std::atomic<int> resident[cuda::kMaxDevices] = {};  // blocks per SM; 0: not asked
  int per_sm = resident[device].load(std::memory_order_relaxed);
  if (per_sm == 0) {
    EMBER_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, reinterpret_cast<const void*>(kernel), kThreads, 0));
    per_sm = per_sm > 0 ? per_sm : 1;
    resident[device].store(per_sm, std::memory_order_relaxed);
  }
  const int64_t wave =
      static_cast<int64_t>(cuda::get_device_properties(device).multi_processor_count) * per_sm;
  const int64_t full = (philox_blocks + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(full, wave)));
}

struct CudaRunner {
  const Tensor& out;
  GeneratorImpl& gen;

  template <typename Tag, typename S, typename M>
  void operator()(Tag, S sampler, M map) const {
    using T = typename Tag::type;
    constexpr int E = S::E;
    const int dev = out.device().index;
    cuda::DeviceGuard guard(dev);
    const int64_t n = out.numel();
    const uint64_t blocks = internal::blocks_for_draw(n, E);
    const rnd::Logical l = rnd::make_logical(out);  // checks the layout (as the CPU)
    const bool vector_store =
        l.ndim == 0 && reinterpret_cast<uintptr_t>(l.data) % sizeof(Vec<T, E>) == 0;
    // Other layouts (strided, or contiguous but misaligned) draw into a new
    // contiguous tensor and copy: the values depend on the logical index only,
    // so they are the same, and one kernel per distribution and dtype is
    // built instead of two (build time; these layouts are rare).
    Tensor dense = vector_store ? out : Tensor::empty(out.sizes(), out.dtype(), out.device());
    T* data = static_cast<T*>(dense.data_ptr());
    EMBER_CHECK(reinterpret_cast<uintptr_t>(data) % sizeof(Vec<T, E>) == 0,
                "internal error: a new CUDA tensor is not 16-byte aligned");
    const PhiloxState st = gen.reserve(blocks);
    cudaStream_t stream = cuda::current_stream(dev).handle();
    const unsigned grid = grid_for<&random_contig_kernel<T, S, M>>(static_cast<int64_t>(blocks), dev);
    random_contig_kernel<T, S, M><<<grid, kThreads, 0, stream>>>(data, n, st.seed, st.offset,
                                                                  sampler, map);
    EMBER_KERNEL_LAUNCH_CHECK();
    if (!vector_store) copy_(out, dense);
  }
};

}  // namespace

namespace internal {

void uniform_cuda(const Tensor& out, double from, double to, GeneratorImpl& gen) {
  rnd::plan_uniform(out.dtype(), from, to, CudaRunner{out, gen});
}

void normal_cuda(const Tensor& out, double mean, double std, GeneratorImpl& gen) {
  rnd::plan_normal(out.dtype(), mean, std, CudaRunner{out, gen});
}

void random_cuda(const Tensor& out, int64_t low, uint64_t range, GeneratorImpl& gen) {
  rnd::plan_random(out.dtype(), low, range, CudaRunner{out, gen});
}

void exponential_cuda(const Tensor& out, double lambd, GeneratorImpl& gen) {
  rnd::plan_exponential(out.dtype(), lambd, CudaRunner{out, gen});
}

void bernoulli_scalar_cuda(const Tensor& out, double p, GeneratorImpl& gen) {
  rnd::plan_bernoulli_scalar(out.dtype(), p, CudaRunner{out, gen});
}

void bernoulli_tensor_cuda(const Tensor& out, const Tensor& p, GeneratorImpl& gen) {
  rnd::plan_bernoulli_tensor(out.dtype(), p, CudaRunner{out, gen});
}

void normal_tensor_cuda(const Tensor& out, const Tensor& mean, const Tensor& std,
                        GeneratorImpl& gen) {
  rnd::plan_normal_tensor(out.dtype(), mean, std, CudaRunner{out, gen});
}

}  // namespace internal

}  // namespace ember::ops
