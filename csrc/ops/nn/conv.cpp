#include "ops/nn/conv.hpp"

#include <algorithm>
#include <atomic>
#include <string>

#include "ops/pointwise/binary.hpp"
#include "ops/nn/conv_kernels.hpp"
#include "ops/copy/copy.hpp"
#include "ops/cpu_parallel.hpp"
#include "ops/elementwise.hpp"
#include "ops/fill/fill.hpp"
#include "ops/blas/matmul.hpp"
#include "ops/reduce/reduce.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/views.hpp"

namespace ember::ops {

namespace {

using internal::ConvGeom;

// f(TypeTag<T>) for the four floating dtypes.
template <typename F>
void dispatch_floating(ScalarType t, F&& f) {
  ember::dispatch_floating(t, f, [t] {
    throw Error(detail::str("conv2d: unsupported dtype ", dtype_name(t)));
  });
}

ConvGeom geometry(const Tensor& x, const Tensor& w, const Conv2dParams& p) {
  const auto out = conv2d_output_size(x.sizes(), w.sizes(), p);
  return ConvGeom{x.size(1), x.size(2),      x.size(3),      w.size(2),      w.size(3),
                  out[0],    out[1],         p.stride[0],    p.stride[1],    p.pad_lo[0],
                  p.pad_lo[1], p.dilation[0], p.dilation[1]};
}

// A 1x1 kernel with stride 1 and no padding reads the input as its own column buffer.
bool is_pointwise(const ConvGeom& g) {
  return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0 &&
         g.OH == g.H && g.OW == g.W;
}

std::atomic<int64_t> g_column_bytes{int64_t(256) << 20};

// Images per chunk: the column buffer (and `extra_per_image` bytes of other
// per-image workspace) stays under the limit, at least one image.
int64_t chunk_images(int64_t n, int64_t col_per_image, int64_t extra_per_image) {
  const int64_t per = std::max<int64_t>(std::max(col_per_image, extra_per_image), 1);
  return std::max<int64_t>(1, std::min<int64_t>(n, column_bytes_limit() / per));
}

void im2col(const Tensor& x, const Tensor& col, const ConvGeom& g) {
  if (x.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::im2col_cuda(x, col, g);
#endif
  } else {
    internal::im2col_cpu(x, col, g);
  }
}

void col2im(const Tensor& col, const Tensor& gi, const ConvGeom& g) {
  if (col.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::col2im_cuda(col, gi, g);
#endif
  } else {
    internal::col2im_cpu(col, gi, g);
  }
}

const Scalar kOne = Scalar::from_int(1);

// The chunk loop that the forward and both gradients share: images in chunks
// that keep the column buffer (and `extra_per_image` bytes of other per-image
// workspace) under the column limit. body(n0, cur, col) gets each chunk's
// column buffer [cur, G, K, P]: for a pointwise convolution, `images` (x or
// grad_input, [N, C, H, W]) read in place as its own column buffer; otherwise
// a slice of one buffer, filled from `images` by im2col when `fill`.
template <typename Body>
void for_each_column_chunk(const Tensor& images, const ConvGeom& g, int64_t G, int64_t K,
                           int64_t extra_per_image, bool fill, Body&& body) {
  const int64_t N = images.size(0), P = g.OH * g.OW;
  const int64_t col_bytes = g.C * g.kh * g.kw * P * int64_t(images.itemsize());
  const int64_t nb = chunk_images(N, col_bytes, extra_per_image);
  const bool pointwise = is_pointwise(g);
  const Tensor col_buf =
      pointwise ? Tensor() : Tensor::empty({nb, G, K, P}, images.dtype(), images.device());
  for (int64_t n0 = 0; n0 < N; n0 += nb) {
    const int64_t cur = std::min(nb, N - n0);
    const Tensor chunk = narrow(images, 0, n0, cur);
    Tensor col;
    if (pointwise) {
      col = view(chunk, {cur, G, K, P});
    } else {
      col = narrow(col_buf, 0, 0, cur);
      if (fill) im2col(chunk, col, g);
    }
    body(n0, cur, col);
  }
}
const Scalar kZero = Scalar::from_int(0);

}  // namespace

int64_t column_bytes_limit() noexcept { return g_column_bytes.load(std::memory_order_relaxed); }

int64_t set_column_bytes_limit(int64_t bytes) noexcept {
  return g_column_bytes.exchange(std::max<int64_t>(bytes, 1));
}

void check_conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                  const Conv2dParams& p) {
  EMBER_CHECK(input.dim() == 4, "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got "
              "input of size: ", shape_str(input.sizes()));
  EMBER_CHECK(weight.dim() == 4, "conv2d: expected a 4-D weight [out_channels, in_channels / "
              "groups, kH, kW], but got weight of size ", shape_str(weight.sizes()));
  check_same_device(input, weight);
  if (bias.defined()) check_same_device(input, bias);
  if (!is_floating(input.dtype())) not_implemented("conv2d", input.dtype(), input.is_cuda());
  EMBER_CHECK(input.dtype() == weight.dtype(), "Input type (",
              torch_scalar_name(input.dtype()), ") and weight type (",
              torch_scalar_name(weight.dtype()), ") should be the same");
  EMBER_CHECK(!bias.defined() || bias.dtype() == input.dtype(), "Input type (",
              torch_scalar_name(input.dtype()), ") and bias type (",
              torch_scalar_name(bias.dtype()), ") should be the same");
  for (int d = 0; d < 2; ++d) {
    EMBER_CHECK(p.stride[d] > 0, "non-positive stride is not supported");
    EMBER_CHECK(p.pad_lo[d] >= 0 && p.pad_hi[d] >= 0, "negative padding is not supported");
    EMBER_CHECK(p.dilation[d] > 0, "dilation should be greater than zero");
  }
  EMBER_CHECK(p.groups > 0, "non-positive groups is not supported");
  const int64_t out_ch = weight.size(0);
  EMBER_CHECK(out_ch % p.groups == 0, "Given groups=", p.groups,
              ", expected weight to be divisible by ", p.groups,
              " at dimension 0, but got weight of size ", shape_str(weight.sizes()), " instead");
  EMBER_CHECK(input.size(1) == weight.size(1) * p.groups, "Given groups=", p.groups,
              ", weight of size ", shape_str(weight.sizes()), ", expected input",
              shape_str(input.sizes()), " to have ", weight.size(1) * p.groups,
              " channels, but got ", input.size(1), " channels instead");
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == out_ch),
              "Given weight of size ", shape_str(weight.sizes()),
              ", expected bias to be 1-dimensional with ", out_ch,
              " elements, but got bias of size ", shape_str(bias.defined() ? bias.sizes() : Shape{}),
              " instead");
  int64_t padded[2], kernel[2];
  for (int d = 0; d < 2; ++d) {
    padded[d] = input.size(2 + d) + p.pad_lo[d] + p.pad_hi[d];
    kernel[d] = p.dilation[d] * (weight.size(2 + d) - 1) + 1;
  }
  EMBER_CHECK(padded[0] >= kernel[0] && padded[1] >= kernel[1],
              "Calculated padded input size per channel: (", padded[0], " x ", padded[1],
              "). Kernel size: (", kernel[0], " x ", kernel[1],
              "). Kernel size can't be greater than actual input size");
}

std::array<int64_t, 2> conv2d_output_size(const Shape& input, const Shape& weight,
                                          const Conv2dParams& p) {
  std::array<int64_t, 2> out{};
  for (int d = 0; d < 2; ++d) {
    const int64_t padded = input[2 + d] + p.pad_lo[d] + p.pad_hi[d];
    out[d] = (padded - p.dilation[d] * (weight[2 + d] - 1) - 1) / p.stride[d] + 1;
  }
  return out;
}

Tensor conv2d_forward(const Tensor& input, const Tensor& weight, const Tensor& bias,
                      const Conv2dParams& p) {
  check_conv2d(input, weight, bias, p);
  const Tensor x = contiguous(input), w = contiguous(weight);
  const ConvGeom g = geometry(x, w, p);
  const int64_t N = x.size(0), O = w.size(0), G = p.groups;
  const int64_t Og = O / G, K = w.size(1) * g.kh * g.kw, P = g.OH * g.OW;
  Tensor out = Tensor::empty({N, O, g.OH, g.OW}, x.dtype(), x.device());
  if (out.numel() == 0) return out;
  const Tensor b = bias.defined() ? contiguous(bias) : bias;
#if EMBER_WITH_CUDA
  if (x.is_cuda() && internal::conv2d_direct_cuda(x, w, b, out, g, G)) return out;
#endif
  if (b.defined()) {
    copy_(out, expand(view(b, {1, O, 1, 1}), out.sizes()));
  } else {
    zero_(out);
  }
  if (K == 0) return out;
  const Tensor w3 = unsqueeze(view(w, {G, Og, K}), 0);
  for_each_column_chunk(x, g, G, K, 0, true, [&](int64_t n0, int64_t cur, const Tensor& col) {
    const Tensor os = view(narrow(out, 0, n0, cur), {cur, G, Og, P});
    internal::gemm_into(os, expand(w3, {cur, G, Og, K}), col, kOne, kOne);
  });
  return out;
}

std::tuple<Tensor, Tensor, Tensor> conv2d_backward(const Tensor& grad_out, const Tensor& input,
                                                   const Tensor& weight, const Conv2dParams& p,
                                                   std::array<bool, 3> mask) {
  const Tensor x = contiguous(input), w = contiguous(weight), go = contiguous(grad_out);
  const ConvGeom g = geometry(x, w, p);
  const int64_t N = x.size(0), O = w.size(0), G = p.groups;
  const int64_t Og = O / G, K = w.size(1) * g.kh * g.kw, P = g.OH * g.OW;
  EMBER_CHECK(go.dim() == 4 && go.size(0) == N && go.size(1) == O && go.size(2) == g.OH &&
                  go.size(3) == g.OW,
              "conv2d backward: expected a gradient of size ",
              shape_str({N, O, g.OH, g.OW}), ", but got ", shape_str(go.sizes()));
  const int64_t item = int64_t(x.itemsize());
  const int64_t col_bytes = g.C * g.kh * g.kw * P * item;
  Tensor gi, gw, gb;
#if EMBER_WITH_CUDA
  if (mask[1] && x.is_cuda() && N > 0 && P > 0) {
    // Small reductions: grad_weight (and grad_bias) in one pass over grad_out.
    Tensor w_direct = Tensor::empty(w.sizes(), x.dtype(), x.device());
    Tensor b_direct = mask[2] ? Tensor::empty({O}, x.dtype(), x.device()) : Tensor();
    if (internal::conv2d_weight_grad_direct_cuda(go, x, w_direct, b_direct, g, G)) {
      gw = w_direct;
      gb = b_direct;
      mask[1] = false;
      mask[2] = false;
    }
  }
#endif
  if (mask[2]) gb = sum(go, std::vector<int64_t>{0, 2, 3});
  if (mask[0]) {
    gi = Tensor::empty(x.sizes(), x.dtype(), x.device());
    if (gi.numel() > 0 && (K == 0 || Og == 0 || P == 0)) zero_(gi);
    if (gi.numel() > 0 && K > 0 && Og > 0 && P > 0) {
      // [G, K, Og]: W^T per group, broadcast over the images.
      const Tensor wt = unsqueeze(transpose(view(w, {G, Og, K}), 1, 2), 0);
      const bool pointwise = is_pointwise(g);
      for_each_column_chunk(gi, g, G, K, 0, false,
                            [&](int64_t n0, int64_t cur, const Tensor& col) {
                              const Tensor gs = view(narrow(go, 0, n0, cur), {cur, G, Og, P});
                              internal::gemm_into(col, expand(wt, {cur, G, K, Og}), gs, kOne,
                                                  kZero);
                              if (!pointwise) col2im(col, narrow(gi, 0, n0, cur), g);
                            });
    }
  }
  if (mask[1]) {
    // Per-image partial products, summed in float32 (float64) over the images.
    const ScalarType acc = x.dtype() == ScalarType::Float64 ? ScalarType::Float64
                                                             : ScalarType::Float32;
    Tensor total;
    if (N > 0 && K > 0 && Og > 0 && P > 0) {
      const int64_t nb = chunk_images(N, col_bytes, O * K * item);
      const Tensor part_buf = Tensor::empty({nb, G, Og, K}, x.dtype(), x.device());
      for_each_column_chunk(x, g, G, K, O * K * item, true,
                            [&](int64_t n0, int64_t cur, const Tensor& col) {
                              const Tensor part = narrow(part_buf, 0, 0, cur);
                              internal::gemm_into(part,
                                                  view(narrow(go, 0, n0, cur), {cur, G, Og, P}),
                                                  transpose(col, 2, 3), kOne, kZero);
                              const Tensor s = sum(part, std::vector<int64_t>{0}, false, acc);
                              total = total.defined() ? add(total, s) : s;
                            });
    }
    if (total.defined()) {
      gw = to(view(total, w.sizes()), x.device(), x.dtype());
    } else {
      gw = Tensor::empty(w.sizes(), x.dtype(), x.device());
      zero_(gw);
    }
  }
  return {gi, gw, gb};
}

namespace internal {

void im2col_cpu(const Tensor& input, const Tensor& col, const ConvGeom& g) {
  dispatch_floating(col.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = static_cast<const T*>(input.data_ptr());
    T* c = static_cast<T*>(col.data_ptr());
    parallel_for(col.numel(), 1 << 15, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) c[i] = conv_detail::im2col_at(in, g, i);
    });
  });
}

void col2im_cpu(const Tensor& col, const Tensor& grad_in, const ConvGeom& g) {
  dispatch_floating(col.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* c = static_cast<const T*>(col.data_ptr());
    T* gi = static_cast<T*>(grad_in.data_ptr());
    parallel_for(grad_in.numel(), 1 << 14, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) gi[i] = conv_detail::col2im_at(c, g, i);
    });
  });
}

}  // namespace internal

}  // namespace ember::ops
