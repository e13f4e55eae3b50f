// The strided loop every elementwise operation runs: N operands of one shape
// (inputs broadcast to it with zero strides), reduced to the fewest
// dimensions that describe the same memory walk.
//
//   IterLayout<2> it = make_iter<2>(out.sizes(), {&out, &in});
//   for_each_cpu(it, [&](char* const* p, const int64_t* s, int64_t n) { ... });
//
// make_iter orders the dimensions from the innermost (smallest stride of the
// first operand, normally the output) outwards and merges dimensions that are
// contiguous with each other for every operand; a contiguous tensor becomes
// one dimension. Strides are in bytes. The layout is a plain struct, so CUDA
// kernels take it by value (OffsetCalc in ops/ turns a linear index into each
// operand's byte offset).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "runtime/errors.hpp"
#include "tensor/tensor.hpp"

namespace ember {

// Most dimensions an iteration can have after merging (torch uses 25 too).
constexpr int kMaxIterDims = 25;

template <int N>
struct IterLayout {
  int ndim = 0;                           // >= 1 once built (a 0-d tensor is [1])
  int64_t numel = 0;
  int64_t shape[kMaxIterDims] = {};       // shape[0] is the innermost dim
  int64_t strides[N][kMaxIterDims] = {};  // bytes
  char* data[N] = {};

  // Every operand walks memory contiguously with its own element size.
  bool is_contiguous(const std::array<int64_t, N>& itemsizes) const {
    if (ndim != 1) return numel <= 1;
    for (int k = 0; k < N; ++k) {
      if (strides[k][0] != itemsizes[k]) return false;
    }
    return true;
  }
};

namespace detail {

// Strides (bytes) of `t` broadcast to `shape` (right-aligned, stride 0 where
// t has size 1 or no dim). The caller has checked that t broadcasts.
inline void broadcast_strides(const Tensor& t, const Shape& shape, int64_t* out) {
  const int64_t n = static_cast<int64_t>(shape.size());
  const int64_t off = n - t.dim();
  const int64_t item = static_cast<int64_t>(t.itemsize());
  for (int64_t d = 0; d < n; ++d) {
    const int64_t td = d - off;
    out[d] = (td < 0 || t.sizes()[td] == 1) ? 0 : t.strides()[td] * item;
  }
}

}  // namespace detail

// The layout of N operands given by their byte strides broadcast to `shape`
// (st[k][d]; 0 where operand k is broadcast) and their first elements
// (data[k]; null for a number passed by value, whose strides are all 0).
template <int N>
IterLayout<N> make_iter_strided(const Shape& shape, const int64_t (*st)[64], char* const* data) {
  IterLayout<N> it;
  const int64_t n = static_cast<int64_t>(shape.size());
  for (int k = 0; k < N; ++k) it.data[k] = data[k];
  it.numel = numel_of(shape);
  // Dims to keep (size 1 dims carry no movement), innermost first: sort by
  // the first operand whose strides differ.
  int64_t order[64];
  int m = 0;
  for (int64_t d = n - 1; d >= 0; --d) {
    if (shape[d] != 1) order[m++] = d;
  }
  auto inner_first = [&](int64_t a, int64_t b) {
    for (int k = 0; k < N; ++k) {
      const int64_t sa = st[k][a], sb = st[k][b];
      if (sa == 0 || sb == 0 || sa == sb) continue;
      return sa < sb;
    }
    return false;
  };
  // Insertion sort: safe when operands disagree (the comparison is then not a
  // strict order) and m is small.
  for (int i = 1; i < m; ++i) {
    for (int j = i; j > 0 && inner_first(order[j], order[j - 1]); --j) {
      std::swap(order[j], order[j - 1]);
    }
  }
  // Merge neighbours that are contiguous with each other for every operand.
  int out = 0;
  for (int i = 0; i < m; ++i) {
    const int64_t d = order[i];
    if (out > 0) {
      bool mergeable = true;
      for (int k = 0; k < N && mergeable; ++k) {
        mergeable = it.strides[k][out - 1] * it.shape[out - 1] == st[k][d];
      }
      if (mergeable) {
        it.shape[out - 1] *= shape[d];
        continue;
      }
    }
    EMBER_CHECK(out < kMaxIterDims, "this operation supports at most ", kMaxIterDims,
                " non-mergeable dimensions; make the tensor contiguous first");
    it.shape[out] = shape[d];
    for (int k = 0; k < N; ++k) it.strides[k][out] = st[k][d];
    ++out;
  }
  if (out == 0) {  // 0-d, all-ones, or empty shapes
    it.shape[0] = it.numel == 0 ? 0 : 1;
    for (int k = 0; k < N; ++k) it.strides[k][0] = 0;
    out = 1;
  }
  it.ndim = out;
  return it;
}

template <int N>
IterLayout<N> make_iter(const Shape& shape, const std::array<const Tensor*, N>& ops) {
  const int64_t n = static_cast<int64_t>(shape.size());
  EMBER_CHECK(n <= 64, "ember tensors have at most 64 dimensions, got ", n);
  int64_t st[N][64];
  char* data[N];
  for (int k = 0; k < N; ++k) {
    detail::broadcast_strides(*ops[k], shape, st[k]);
    data[k] = static_cast<char*>(ops[k]->data_ptr());
  }
  return make_iter_strided<N>(shape, st, data);
}

// Runs loop(ptrs, inner_strides, n) over every innermost row of the layout.
template <int N, typename Loop>
void for_each_cpu(const IterLayout<N>& it, Loop&& loop) {
  if (it.numel == 0) return;
  char* ptrs[N];
  int64_t inner[N];
  for (int k = 0; k < N; ++k) {
    ptrs[k] = it.data[k];
    inner[k] = it.strides[k][0];
  }
  if (it.ndim == 1) {
    loop(ptrs, inner, it.shape[0]);
    return;
  }
  int64_t counter[kMaxIterDims] = {};
  for (;;) {
    loop(ptrs, inner, it.shape[0]);
    int d = 1;
    for (; d < it.ndim; ++d) {
      for (int k = 0; k < N; ++k) ptrs[k] += it.strides[k][d];
      if (++counter[d] < it.shape[d]) break;
      for (int k = 0; k < N; ++k) ptrs[k] -= it.strides[k][d] * it.shape[d];
      counter[d] = 0;
    }
    if (d == it.ndim) return;
  }
}


// Runs loop(ptrs, inner_strides, n) over the elements with linear indices
// [begin, end) of the layout (dimension 0 the fastest), in rows: the pieces
// of a parallel loop.
template <int N, typename Loop>
void for_each_cpu_range(const IterLayout<N>& it, int64_t begin, int64_t end, Loop&& loop) {
  if (begin >= end) return;
  char* ptrs[N];
  int64_t inner[N];
  int64_t counter[kMaxIterDims] = {};
  for (int k = 0; k < N; ++k) {
    ptrs[k] = it.data[k];
    inner[k] = it.strides[k][0];
  }
  int64_t idx = begin;
  for (int d = 0; d < it.ndim; ++d) {
    counter[d] = idx % it.shape[d];
    idx /= it.shape[d];
    for (int k = 0; k < N; ++k) ptrs[k] += counter[d] * it.strides[k][d];
  }
  int64_t left = end - begin;
  while (left > 0) {
    const int64_t n = std::min(it.shape[0] - counter[0], left);
    loop(ptrs, inner, n);
    left -= n;
    if (left == 0) return;
    // Next row: back to column 0 of dim 0, then carry into the outer dims.
    for (int k = 0; k < N; ++k) ptrs[k] -= counter[0] * it.strides[k][0];
    counter[0] = 0;
    for (int d = 1; d < it.ndim; ++d) {
      for (int k = 0; k < N; ++k) ptrs[k] += it.strides[k][d];
      if (++counter[d] < it.shape[d]) break;
      for (int k = 0; k < N; ++k) ptrs[k] -= it.strides[k][d] * it.shape[d];
      counter[d] = 0;
    }
  }
}

}  // namespace ember
