// The per-element bodies of the convolution and pooling kernels, shared by
// the CPU loops (conv.cpp, pool.cpp) and the CUDA kernels (conv.cu, pool.cu):
// one definition of the index arithmetic, tested on the CPU.
// Internal to ops/: include only from those four files.
#pragma once

#include <cstdint>

#include "ops/nn/conv.hpp"
#include "ops/nn/pool.hpp"
#include "tensor/half.hpp"

namespace ember::ops::conv_detail {

// The accumulation type: float for float16/bfloat16/float32, double for double.
template <typename T> struct Acc { using type = float; };
template <> struct Acc<double> { using type = double; };

template <typename A>
EMBER_HD_INLINE bool is_nan(A v) { return v != v; }

// Element i of the column buffer [nb, C*kh*kw, OH*OW] of images in [nb, C, H, W].
template <typename T>
EMBER_HD_INLINE T im2col_at(const T* in, const internal::ConvGeom& g, int64_t i) {
  const int64_t P = g.OH * g.OW;
  const int64_t p = i % P;
  int64_t q = i / P;
  const int64_t j = q % g.kw;
  q /= g.kw;
  const int64_t k = q % g.kh;
  q /= g.kh;  // n * C + c
  const int64_t oh = p / g.OW, ow = p - oh * g.OW;
  const int64_t h = oh * g.sh - g.ph + k * g.dh;
  const int64_t w = ow * g.sw - g.pw + j * g.dw;
  if (h < 0 || h >= g.H || w < 0 || w >= g.W) return T(0.0f);
  return in[(q * g.H + h) * g.W + w];
}

// Element i of grad_in [nb, C, H, W]: the sum of the columns that read it.
template <typename T>
EMBER_HD_INLINE T col2im_at(const T* col, const internal::ConvGeom& g, int64_t i) {
  using A = typename Acc<T>::type;
  const int64_t P = g.OH * g.OW;
  const int64_t w = i % g.W;
  int64_t q = i / g.W;
  const int64_t h = q % g.H;
  q /= g.H;  // n * C + c
  A acc = A(0);
  for (int64_t k = 0; k < g.kh; ++k) {
    const int64_t t = h + g.ph - k * g.dh;
    if (t < 0 || t % g.sh != 0) continue;
    const int64_t oh = t / g.sh;
    if (oh >= g.OH) continue;
    for (int64_t j = 0; j < g.kw; ++j) {
      const int64_t u = w + g.pw - j * g.dw;
      if (u < 0 || u % g.sw != 0) continue;
      const int64_t ow = u / g.sw;
      if (ow >= g.OW) continue;
      acc += A(col[((q * g.kh + k) * g.kw + j) * P + oh * g.OW + ow]);
    }
  }
  return T(acc);
}

// ---- pooling ------------------------------------------------------------------

struct Window {
  int64_t hs, he, ws, we;  // clamped to the input
  int64_t divisor;         // avg_pool2d's
};

// avg_pool2d's window of output (oh, ow), torch's rule for the divisor.
EMBER_HD_INLINE Window avg_window(const internal::PoolGeom& g, int64_t oh, int64_t ow) {
  Window r;
  int64_t hs = oh * g.sh - g.ph, ws = ow * g.sw - g.pw;
  int64_t he = hs + g.kh < g.H + g.ph ? hs + g.kh : g.H + g.ph;
  int64_t we = ws + g.kw < g.W + g.pw ? ws + g.kw : g.W + g.pw;
  const int64_t pool = (he - hs) * (we - ws);
  r.hs = hs < 0 ? 0 : hs;
  r.ws = ws < 0 ? 0 : ws;
  r.he = he > g.H ? g.H : he;
  r.we = we > g.W ? g.W : we;
  r.divisor = g.divisor ? g.divisor
              : g.count_include_pad ? pool
                                    : (r.he - r.hs) * (r.we - r.ws);
  return r;
}

// adaptive_avg_pool2d's window [start, end) of output o of `out` over `in`.
EMBER_HD_INLINE int64_t adaptive_start(int64_t o, int64_t in, int64_t out) {
  return (o * in) / out;
}
EMBER_HD_INLINE int64_t adaptive_end(int64_t o, int64_t in, int64_t out) {
  return ((o + 1) * in + out - 1) / out;
}

// Output element i of [planes, OH, OW]; `ind` is written for Max only.
template <typename T>
EMBER_HD_INLINE void pool_forward_at(internal::PoolKind kind, const T* x,
                                     const internal::PoolGeom& g, int64_t i, T* out,
                                     int64_t* ind) {
  using A = typename Acc<T>::type;
  const int64_t ow = i % g.OW;
  int64_t q = i / g.OW;
  const int64_t oh = q % g.OH;
  const int64_t plane = q / g.OH;
  const T* xp = x + plane * g.H * g.W;
  if (kind == internal::PoolKind::Max) {
    const int64_t hs = oh * g.sh - g.ph, ws = ow * g.sw - g.pw;
    A best = A(0);
    int64_t bi = -1;
    for (int64_t k = 0; k < g.kh; ++k) {
      const int64_t h = hs + k * g.dh;
      if (h < 0 || h >= g.H) continue;
      for (int64_t j = 0; j < g.kw; ++j) {
        const int64_t w = ws + j * g.dw;
        if (w < 0 || w >= g.W) continue;
        const A v = A(xp[h * g.W + w]);
        if (bi < 0 || v > best || is_nan(v)) {
          best = v;
          bi = h * g.W + w;
        }
      }
    }
    out[i] = T(best);
    ind[i] = bi < 0 ? 0 : bi;
    return;
  }
  int64_t hs, he, ws, we, divisor;
  if (kind == internal::PoolKind::Avg) {
    const Window win = avg_window(g, oh, ow);
    hs = win.hs, he = win.he, ws = win.ws, we = win.we, divisor = win.divisor;
  } else {
    hs = adaptive_start(oh, g.H, g.OH), he = adaptive_end(oh, g.H, g.OH);
    ws = adaptive_start(ow, g.W, g.OW), we = adaptive_end(ow, g.W, g.OW);
    divisor = (he - hs) * (we - ws);
  }
  if (hs >= he || ws >= we) {
    out[i] = T(0.0f);
    return;
  }
  A acc = A(0);
  for (int64_t h = hs; h < he; ++h)
    for (int64_t w = ws; w < we; ++w) acc += A(xp[h * g.W + w]);
  out[i] = T(acc / A(divisor));
}

// Input element i of grad_in [planes, H, W]: the sum over the outputs whose
// window holds it.
template <typename T>
EMBER_HD_INLINE T pool_backward_at(internal::PoolKind kind, const T* grad, const int64_t* ind,
                                   const internal::PoolGeom& g, int64_t i) {
  using A = typename Acc<T>::type;
  const int64_t w = i % g.W;
  int64_t q = i / g.W;
  const int64_t h = q % g.H;
  const int64_t plane = q / g.H;
  const T* gp = grad + plane * g.OH * g.OW;
  int64_t oh0, oh1, ow0, ow1;  // candidate outputs, inclusive
  if (kind == internal::PoolKind::Adaptive) {
    oh0 = (h * g.OH) / g.H;
    oh1 = ((h + 1) * g.OH + g.H - 1) / g.H - 1;
    ow0 = (w * g.OW) / g.W;
    ow1 = ((w + 1) * g.OW + g.W - 1) / g.W - 1;
  } else {
    const int64_t reach_h = (g.kh - 1) * (kind == internal::PoolKind::Max ? g.dh : 1);
    const int64_t reach_w = (g.kw - 1) * (kind == internal::PoolKind::Max ? g.dw : 1);
    const int64_t th = h + g.ph - reach_h, tw = w + g.pw - reach_w;
    oh0 = th <= 0 ? 0 : (th + g.sh - 1) / g.sh;
    ow0 = tw <= 0 ? 0 : (tw + g.sw - 1) / g.sw;
    oh1 = (h + g.ph) / g.sh;
    ow1 = (w + g.pw) / g.sw;
  }
  if (oh0 < 0) oh0 = 0;
  if (ow0 < 0) ow0 = 0;
  if (oh1 > g.OH - 1) oh1 = g.OH - 1;
  if (ow1 > g.OW - 1) ow1 = g.OW - 1;
  A acc = A(0);
  for (int64_t oh = oh0; oh <= oh1; ++oh) {
    for (int64_t ow = ow0; ow <= ow1; ++ow) {
      const int64_t o = oh * g.OW + ow;
      if (kind == internal::PoolKind::Max) {
        if (ind[plane * g.OH * g.OW + o] == h * g.W + w) acc += A(gp[o]);
      } else if (kind == internal::PoolKind::Avg) {
        const Window win = avg_window(g, oh, ow);
        if (h >= win.hs && h < win.he && w >= win.ws && w < win.we)
          acc += A(gp[o]) / A(win.divisor);
      } else {
        const int64_t hs = adaptive_start(oh, g.H, g.OH), he = adaptive_end(oh, g.H, g.OH);
        const int64_t ws = adaptive_start(ow, g.W, g.OW), we = adaptive_end(ow, g.W, g.OW);
        if (h >= hs && h < he && w >= ws && w < we) acc += A(gp[o]) / A((he - hs) * (we - ws));
      }
    }
  }
  return T(acc);
}

}  // namespace ember::ops::conv_detail
