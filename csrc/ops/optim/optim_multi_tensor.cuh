// multi_tensor_apply: one kernel launch over chunks of many tensors (torch's
// design). The host walks the tensors, cutting each into kChunkSize-element
// chunks; a launch carries, by value in its argument struct, the pointers of
// up to kMaxTensors<DEPTH> tensors (DEPTH operands each), their sizes and
// per-tensor scalars, and up to kMaxBlocks (tensor, chunk) pairs -- one per
// block. A tensor whose chunks do not all fit continues in the next launch.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "ops/optim/optim_step.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/stream.hpp"

namespace ember::ops::mta {

constexpr int kMaxBlocks = 320;
constexpr int kBlockThreads = 512;
constexpr int kIlp = 4;

template <int DEPTH>
struct MaxTensors;
template <> struct MaxTensors<1> { static constexpr int value = 110; };
template <> struct MaxTensors<2> { static constexpr int value = 64; };
template <> struct MaxTensors<3> { static constexpr int value = 48; };
template <> struct MaxTensors<4> { static constexpr int value = 36; };
template <> struct MaxTensors<5> { static constexpr int value = 30; };

// S: the per-tensor scalars (a small struct, or an empty one).
template <int DEPTH, typename S>
struct TensorListMeta {
  static constexpr int kMaxTensors = MaxTensors<DEPTH>::value;
  void* addresses[DEPTH][kMaxTensors];
  int64_t sizes[kMaxTensors];
  S scalars[kMaxTensors];
  unsigned char block_to_tensor[kMaxBlocks];
  int block_to_chunk[kMaxBlocks];
};

struct NoScalars {};

// Launches kernel<<<blocks, kBlockThreads, 0, stream>>>(meta, args) over all
// chunks of lists[k][i] (k < DEPTH), with scalars[i] per tensor.
template <int DEPTH, typename S, typename Args, typename Kernel>
void apply(const std::vector<std::vector<Tensor>>& lists, const std::vector<S>& scalars,
           const Args& args, Kernel kernel) {
  const size_t n = lists[0].size();
  if (n == 0) return;
  const int dev = lists[0][0].device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev).handle();
  using Meta = TensorListMeta<DEPTH, S>;
  Meta meta;
  int tensors = 0, blocks = 0;
  auto launch = [&] {
    kernel<<<blocks, kBlockThreads, 0, stream>>>(meta, args);
    EMBER_KERNEL_LAUNCH_CHECK();
  };
  for (size_t t = 0; t < n; ++t) {
    const int64_t numel = lists[0][t].numel();
    if (numel == 0) continue;
    for (int k = 0; k < DEPTH; ++k) meta.addresses[k][tensors] = lists[k][t].data_ptr();
    meta.sizes[tensors] = numel;
    meta.scalars[tensors] = scalars.empty() ? S{} : scalars[t];
    ++tensors;
    const int64_t chunks = (numel + internal::kChunkSize - 1) / internal::kChunkSize;
    for (int64_t c = 0; c < chunks; ++c) {
      meta.block_to_tensor[blocks] = static_cast<unsigned char>(tensors - 1);
      meta.block_to_chunk[blocks] = static_cast<int>(c);
      ++blocks;
      const bool tensors_full = tensors == Meta::kMaxTensors && c == chunks - 1;
      const bool blocks_full = blocks == kMaxBlocks;
      if (!tensors_full && !blocks_full) continue;
      launch();
      blocks = 0;
      if (c == chunks - 1) {
        tensors = 0;
      } else {  // the current tensor continues: it becomes entry 0
        for (int k = 0; k < DEPTH; ++k) meta.addresses[k][0] = meta.addresses[k][tensors - 1];
        meta.sizes[0] = meta.sizes[tensors - 1];
        meta.scalars[0] = meta.scalars[tensors - 1];
        tensors = 1;
      }
    }
  }
  if (blocks > 0) launch();
}

}  // namespace ember::ops::mta
