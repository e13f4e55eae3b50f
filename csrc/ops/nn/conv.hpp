// torch.nn.functional.conv2d's engine: forward and the three gradients of a
// 2-D convolution (cross-correlation, as torch), no autograd (that is
// autograd/formulas_conv.cpp).
//
// Layout: input [N, C, H, W], weight [O, C / groups, kh, kw], bias [O],
// output [N, O, OH, OW], all read through their strides (non-contiguous
// operands are made contiguous once). Method, on both devices:
// - im2col: the receptive fields of a chunk of images are unrolled into a
//   column buffer [nb, G, C/G*kh*kw, OH*OW]; one batched GEMM per chunk
//   (ops::internal::gemm_into: cuBLAS on the GPU, NumPy's BLAS on the CPU)
//   multiplies it by the weight. Chunks bound the buffer (column_bytes_limit()).
// - grad_input: the GEMM W^T @ grad_out into a column buffer, then col2im
//   as a gather (each input element sums the columns that read it: written
//   once, deterministic, no atomics).
// - grad_weight: per-image partial products [nb, G, O/G, K] from one batched
//   GEMM per chunk, summed over the images by a reduction that accumulates
//   in float32 (float64), so float16/bfloat16 are rounded once per chunk.
// - GPU, small C/G*kh*kw (the first layer of an image model): direct
//   kernels compute the output (bias included) and grad_weight/grad_bias
//   without a column buffer: the output is written once and grad_out read once.
// Work runs on the current stream of the tensors' device.
#pragma once

#include <array>
#include <cstdint>
#include <tuple>

#include "tensor/tensor.hpp"

namespace ember::ops {

struct Conv2dParams {
  int64_t stride[2] = {1, 1};
  int64_t pad_lo[2] = {0, 0};  // rows/columns of zeros before the input
  int64_t pad_hi[2] = {0, 0};  // and after ('same' with an even kernel: one more)
  int64_t dilation[2] = {1, 1};
  int64_t groups = 1;
};

// Upper bound of one column buffer (bytes; 256 MiB by default); a chunk holds
// at least one image. The setter (a test hook: small limits exercise the
// chunking) returns the previous limit.
int64_t column_bytes_limit() noexcept;
int64_t set_column_bytes_limit(int64_t bytes) noexcept;

// Checks shapes, dtypes, devices and parameters with torch's messages
// (input must be 4-D here; the autograd layer handles unbatched input).
void check_conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                  const Conv2dParams& p);
// OH, OW for the input and weight (after check_conv2d).
std::array<int64_t, 2> conv2d_output_size(const Shape& input, const Shape& weight,
                                          const Conv2dParams& p);

Tensor conv2d_forward(const Tensor& input, const Tensor& weight, const Tensor& bias,
                      const Conv2dParams& p);

// (grad_input, grad_weight, grad_bias); undefined where mask[i] is false.
std::tuple<Tensor, Tensor, Tensor> conv2d_backward(const Tensor& grad_out, const Tensor& input,
                                                   const Tensor& weight, const Conv2dParams& p,
                                                   std::array<bool, 3> mask);

namespace internal {

// The geometry the kernels share (conv_kernels.hpp).
struct ConvGeom {
  int64_t C, H, W;       // input channels (all groups), rows, columns
  int64_t kh, kw;
  int64_t OH, OW;
  int64_t sh, sw, ph, pw, dh, dw;
};

// col [nb, C*kh*kw, OH*OW] (contiguous) from input images [nb, C, H, W]
// (contiguous), and the reverse gather (grad_in is written, not accumulated).
void im2col_cpu(const Tensor& input, const Tensor& col, const ConvGeom& g);
void col2im_cpu(const Tensor& col, const Tensor& grad_in, const ConvGeom& g);
#if EMBER_WITH_CUDA
void im2col_cuda(const Tensor& input, const Tensor& col, const ConvGeom& g);
void col2im_cuda(const Tensor& col, const Tensor& grad_in, const ConvGeom& g);
// Direct forward for small C/G*kh*kw: out [N, O, OH, OW] (contiguous),
// input and weight contiguous, bias undefined or [O]. False when the
// problem is not one it handles.
bool conv2d_direct_cuda(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const Tensor& out, const ConvGeom& g, int64_t groups);
// Direct grad_weight (and grad_bias when gb is defined) for small
// C/G*kh*kw: one pass over grad_out, a reduction over the pixels in float32
// (float64). gw [O, C/G, kh, kw] and gb [O] contiguous, written. False when
// the problem is not one it handles.
bool conv2d_weight_grad_direct_cuda(const Tensor& grad_out, const Tensor& input,
                                    const Tensor& gw, const Tensor& gb, const ConvGeom& g,
                                    int64_t groups);
#endif

}  // namespace internal

}  // namespace ember::ops
