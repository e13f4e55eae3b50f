// 2-D pooling (torch.nn.functional.max_pool2d, avg_pool2d,
// adaptive_avg_pool2d) and their gradients, no autograd (that is
// autograd/formulas_pool.cpp). Inputs are [N, C, H, W] (the autograd layer
// turns 3-D input into one image); results are contiguous.
//
// One thread (GPU) or loop iteration (CPU) per output element; the
// gradients are gathers (each input element sums the outputs whose window
// holds it), so they write every element once, need no atomics and are
// deterministic. Sums accumulate in float32 (float64 for float64). max_pool2d
// returns torch's indices: the position in the H*W plane (int64), NaN wins.
#pragma once

#include <array>
#include <cstdint>
#include <utility>

#include "tensor/tensor.hpp"

namespace ember::ops {

struct Pool2dParams {
  int64_t kernel[2] = {1, 1};
  int64_t stride[2] = {1, 1};
  int64_t padding[2] = {0, 0};
  int64_t dilation[2] = {1, 1};
  bool ceil_mode = false;
  bool count_include_pad = true;  // avg_pool2d
  int64_t divisor_override = 0;   // avg_pool2d; 0: none
};

// torch's pooling_output_shape for one dim.
int64_t pool_output_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation,
                         bool ceil_mode);

// (output, indices).
std::pair<Tensor, Tensor> max_pool2d(const Tensor& x, const Pool2dParams& p);
Tensor max_pool2d_backward(const Tensor& grad, const Tensor& x, const Tensor& indices,
                           const Pool2dParams& p);
Tensor avg_pool2d(const Tensor& x, const Pool2dParams& p);
Tensor avg_pool2d_backward(const Tensor& grad, const Tensor& x, const Pool2dParams& p);
Tensor adaptive_avg_pool2d(const Tensor& x, int64_t oh, int64_t ow);
Tensor adaptive_avg_pool2d_backward(const Tensor& grad, const Tensor& x);

namespace internal {

enum class PoolKind : uint8_t { Max, Avg, Adaptive };

// The geometry the kernels share (pool_kernels.hpp); planes = N * C.
struct PoolGeom {
  int64_t planes, H, W, OH, OW;
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  bool count_include_pad;
  int64_t divisor;  // 0: none
};

// out/indices contiguous [planes, OH, OW]; x contiguous [planes, H, W].
void pool_forward_cpu(PoolKind kind, const Tensor& x, const Tensor& out, const Tensor& indices,
                      const PoolGeom& g);
// grad_in contiguous [planes, H, W] is written from grad (contiguous).
void pool_backward_cpu(PoolKind kind, const Tensor& grad, const Tensor& indices,
                       const Tensor& grad_in, const PoolGeom& g);
#if EMBER_WITH_CUDA
void pool_forward_cuda(PoolKind kind, const Tensor& x, const Tensor& out, const Tensor& indices,
                       const PoolGeom& g);
void pool_backward_cuda(PoolKind kind, const Tensor& grad, const Tensor& indices,
                        const Tensor& grad_in, const PoolGeom& g);
#endif

}  // namespace internal

}  // namespace ember::ops
