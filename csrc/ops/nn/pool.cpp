#include "ops/nn/pool.hpp"

#include <string>

#include "ops/nn/conv_kernels.hpp"
#include "ops/copy/copy.hpp"
#include "ops/cpu_parallel.hpp"
#include "ops/elementwise.hpp"
#include "ops/fill/fill.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/views.hpp"

namespace ember::ops {

namespace {

using internal::PoolGeom;
using internal::PoolKind;

template <typename F>
void dispatch_floating(ScalarType t, F&& f) {
  ember::dispatch_floating(t, f, [t] {
    throw Error(detail::str("pooling: unsupported dtype ", dtype_name(t)));
  });
}

void check_input(const Tensor& x, const char* name) {
  EMBER_CHECK(x.dim() == 4 && x.size(1) > 0 && x.size(2) > 0 && x.size(3) > 0,
              name, "(): Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size "
              "for input, but got: ", shape_str(x.sizes()));
  if (!is_floating(x.dtype())) not_implemented(name, x.dtype(), x.is_cuda());
}

PoolGeom window_geometry(const Tensor& x, const Pool2dParams& p, bool dilated) {
  for (int d = 0; d < 2; ++d) {
    EMBER_CHECK(p.kernel[0] > 0 && p.kernel[1] > 0,
                "kernel size should be greater than zero, but got kH: ", p.kernel[0],
                " kW: ", p.kernel[1]);
    EMBER_CHECK(p.stride[0] > 0 && p.stride[1] > 0,
                "stride should be greater than zero, but got dH: ", p.stride[0], " dW: ",
                p.stride[1]);
    EMBER_CHECK(p.dilation[0] > 0 && p.dilation[1] > 0,
                "dilation should be greater than zero, but got dilationH: ", p.dilation[0],
                " dilationW: ", p.dilation[1]);
    EMBER_CHECK(p.padding[d] >= 0 && p.padding[d] <= p.kernel[d] / 2,
                "pad should be at most half of effective kernel size, but got pad=",
                p.padding[d], ", kernel_size=", p.kernel[d], " and dilation=", p.dilation[d]);
  }
  PoolGeom g{};
  g.planes = x.size(0) * x.size(1);
  g.H = x.size(2);
  g.W = x.size(3);
  g.kh = p.kernel[0], g.kw = p.kernel[1];
  g.sh = p.stride[0], g.sw = p.stride[1];
  g.ph = p.padding[0], g.pw = p.padding[1];
  g.dh = dilated ? p.dilation[0] : 1;
  g.dw = dilated ? p.dilation[1] : 1;
  g.OH = pool_output_size(g.H, g.kh, g.ph, g.sh, g.dh, p.ceil_mode);
  g.OW = pool_output_size(g.W, g.kw, g.pw, g.sw, g.dw, p.ceil_mode);
  g.count_include_pad = p.count_include_pad;
  g.divisor = p.divisor_override;
  EMBER_CHECK(g.OH >= 1 && g.OW >= 1, "Given input size: (", x.size(1), "x", g.H, "x", g.W,
              "). Calculated output size: (", x.size(1), "x", g.OH, "x", g.OW,
              "). Output size is too small");
  return g;
}

void forward(PoolKind kind, const Tensor& x, const Tensor& out, const Tensor& ind,
             const PoolGeom& g) {
  if (out.numel() == 0) return;
  if (x.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::pool_forward_cuda(kind, x, out, ind, g);
#endif
  } else {
    internal::pool_forward_cpu(kind, x, out, ind, g);
  }
}

Tensor backward(PoolKind kind, const Tensor& grad, const Tensor& x, const Tensor& ind,
                const PoolGeom& g) {
  Tensor gi = Tensor::empty(x.sizes(), x.dtype(), x.device());
  if (gi.numel() == 0) return gi;
  const Tensor gc = contiguous(grad);
  EMBER_CHECK(gc.numel() == g.planes * g.OH * g.OW, "pooling backward: expected a gradient of ",
              g.planes * g.OH * g.OW, " elements, but got one of size ", shape_str(gc.sizes()));
  if (x.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::pool_backward_cuda(kind, gc, ind, gi, g);
#endif
  } else {
    internal::pool_backward_cpu(kind, gc, ind, gi, g);
  }
  return gi;
}

}  // namespace

int64_t pool_output_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation,
                         bool ceil_mode) {
  const int64_t span = in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  // Floor division (span may be negative for a kernel larger than the input).
  int64_t out = (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
  // The last window must start inside the input or its left padding.
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

std::pair<Tensor, Tensor> max_pool2d(const Tensor& x_in, const Pool2dParams& p) {
  check_input(x_in, "max_pool2d");
  const Tensor x = contiguous(x_in);
  const PoolGeom g = window_geometry(x, p, true);
  Tensor out = Tensor::empty({x.size(0), x.size(1), g.OH, g.OW}, x.dtype(), x.device());
  Tensor ind = Tensor::empty(out.sizes(), ScalarType::Int64, x.device());
  forward(PoolKind::Max, x, out, ind, g);
  return {out, ind};
}

Tensor max_pool2d_backward(const Tensor& grad, const Tensor& x, const Tensor& indices,
                           const Pool2dParams& p) {
  const PoolGeom g = window_geometry(x, p, true);
  return backward(PoolKind::Max, grad, x, contiguous(indices), g);
}

Tensor avg_pool2d(const Tensor& x_in, const Pool2dParams& p) {
  check_input(x_in, "avg_pool2d");
  const Tensor x = contiguous(x_in);
  const PoolGeom g = window_geometry(x, p, false);
  Tensor out = Tensor::empty({x.size(0), x.size(1), g.OH, g.OW}, x.dtype(), x.device());
  forward(PoolKind::Avg, x, out, Tensor(), g);
  return out;
}

Tensor avg_pool2d_backward(const Tensor& grad, const Tensor& x, const Pool2dParams& p) {
  const PoolGeom g = window_geometry(x, p, false);
  return backward(PoolKind::Avg, grad, x, Tensor(), g);
}

namespace {
PoolGeom adaptive_geometry(const Tensor& x, int64_t oh, int64_t ow) {
  PoolGeom g{};
  g.planes = x.size(0) * x.size(1);
  g.H = x.size(2);
  g.W = x.size(3);
  g.OH = oh < 0 ? g.H : oh;
  g.OW = ow < 0 ? g.W : ow;
  g.kh = g.kw = g.sh = g.sw = g.dh = g.dw = 1;
  return g;
}
}  // namespace

Tensor adaptive_avg_pool2d(const Tensor& x_in, int64_t oh, int64_t ow) {
  EMBER_CHECK(x_in.dim() == 4, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got ",
              shape_str(x_in.sizes()));
  for (int64_t d = 1; d < 4; ++d)
    EMBER_CHECK(x_in.size(d) > 0, "adaptive_avg_pool2d(): Expected input to have non-zero size "
                "for non-batch dimensions, but input has sizes ", shape_str(x_in.sizes()),
                " with dimension ", d, " being empty");
  EMBER_CHECK(oh >= -1 && ow >= -1, "adaptive_avg_pool2d: elements of output_size must be "
              "greater than or equal to 0 but received {", oh, ", ", ow, "}");
  if (!is_floating(x_in.dtype())) not_implemented("adaptive_avg_pool2d", x_in.dtype(), x_in.is_cuda());
  const Tensor x = contiguous(x_in);
  const PoolGeom g = adaptive_geometry(x, oh, ow);
  Tensor out = Tensor::empty({x.size(0), x.size(1), g.OH, g.OW}, x.dtype(), x.device());
  forward(PoolKind::Adaptive, x, out, Tensor(), g);
  return out;
}

Tensor adaptive_avg_pool2d_backward(const Tensor& grad, const Tensor& x) {
  const PoolGeom g = adaptive_geometry(x, grad.size(-2), grad.size(-1));
  if (g.OH == 0 || g.OW == 0) {
    Tensor gi = Tensor::empty(x.sizes(), x.dtype(), x.device());
    if (gi.numel() > 0) zero_(gi);
    return gi;
  }
  return backward(PoolKind::Adaptive, grad, x, Tensor(), g);
}

namespace internal {

void pool_forward_cpu(PoolKind kind, const Tensor& x, const Tensor& out, const Tensor& indices,
                      const PoolGeom& g) {
  dispatch_floating(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = static_cast<const T*>(x.data_ptr());
    T* op = static_cast<T*>(out.data_ptr());
    int64_t* ip = indices.defined() ? static_cast<int64_t*>(indices.data_ptr()) : nullptr;
    parallel_for(out.numel(), 1 << 12, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) conv_detail::pool_forward_at(kind, xp, g, i, op, ip);
    });
  });
}

void pool_backward_cpu(PoolKind kind, const Tensor& grad, const Tensor& indices,
                       const Tensor& grad_in, const PoolGeom& g) {
  dispatch_floating(grad.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* gp = static_cast<const T*>(grad.data_ptr());
    const int64_t* ip = indices.defined() ? static_cast<const int64_t*>(indices.data_ptr()) : nullptr;
    T* gi = static_cast<T*>(grad_in.data_ptr());
    parallel_for(grad_in.numel(), 1 << 12, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) gi[i] = conv_detail::pool_backward_at(kind, gp, ip, g, i);
    });
  });
}

}  // namespace internal

}  // namespace ember::ops
