// The CPU runner of the reductions (see reduce_plan.hpp for the two shapes):
// - Inner: each row is reduced pairwise: halves recursively down to leaves of
//   at most 4096 elements, which fold into 64 independent accumulators
//   (vectorisable for contiguous rows) combined as a tree. Many rows: rows spread over the
//   thread pool; few long rows: each row is split over the pool and the
//   pieces combined as a tree.
// - Column: blocks of up to 4096 neighbouring outputs advance together down
//   the rows (contiguous loads), pairwise over the rows (leaves of 64 rows).
#pragma once

#include <algorithm>
#include <vector>

#include "ops/cpu_parallel.hpp"
#include "ops/cpu_vector_math.hpp"
#include "ops/reduce/reduce_dispatch.hpp"
#include "ops/reduce/reduce_plan.hpp"

namespace ember::ops {

namespace reduce_cpu_detail {

template <typename In, typename Op>
struct Rows {
  using Acc = typename Op::acc_t;
  using C = typename Op::compute_t;
  const Op& op;
  int64_t stride;  // elements

  // 64 accumulators side by side: the k loop vectorises (the compiler keeps
  // each lane's order, so results do not depend on the vector width).
  EMBER_CPU_CLONES Acc leaf_contiguous(const In* x, int64_t lo, int64_t hi) const {
    constexpr int K = 64;
    Acc acc[K];
    for (int k = 0; k < K; ++k) acc[k] = op.identity();
    int64_t i = lo;
    for (; i + K <= hi; i += K) {
      const In* p = x + i;
      for (int k = 0; k < K; ++k) acc[k] = op.fold(acc[k], convert<C>(p[k]), i + k);
    }
    for (int k = 0; i < hi; ++i, ++k) acc[k] = op.fold(acc[k], convert<C>(x[i]), i);
    for (int w = K / 2; w > 0; w /= 2) {
      for (int k = 0; k < w; ++k) acc[k] = op.combine(acc[k], acc[k + w]);
    }
    return acc[0];
  }

  // As many accumulators as the contiguous leaf, so that a strided row (a
  // permuted or expanded input) sums as accurately: with 8, each folded up to
  // 512 elements in order (4099 copies of -5.9123 summed to 0.03 off).
  Acc leaf_strided(const In* x, int64_t lo, int64_t hi) const {
    constexpr int K = 64;
    Acc acc[K];
    for (int k = 0; k < K; ++k) acc[k] = op.identity();
    int64_t i = lo;
    for (; i + K <= hi; i += K) {
      for (int k = 0; k < K; ++k) acc[k] = op.fold(acc[k], convert<C>(x[(i + k) * stride]), i + k);
    }
    for (int k = 0; i < hi; ++i, ++k) acc[k] = op.fold(acc[k], convert<C>(x[i * stride]), i);
    for (int w = K / 2; w > 0; w /= 2) {
      for (int k = 0; k < w; ++k) acc[k] = op.combine(acc[k], acc[k + w]);
    }
    return acc[0];
  }

  Acc leaf(const In* x, int64_t lo, int64_t hi) const {
    return stride == 1 ? leaf_contiguous(x, lo, hi) : leaf_strided(x, lo, hi);
  }

  Acc pairwise(const In* x, int64_t lo, int64_t hi) const {
    if (hi - lo <= 4096) return leaf(x, lo, hi);
    const int64_t mid = lo + (((hi - lo) / 2 + 63) & ~int64_t(63));
    return op.combine(pairwise(x, lo, mid), pairwise(x, mid, hi));
  }
};

// Base pointer of output o's elements.
inline const char* base_of(const ReducePlan& p, int64_t o) {
  const IterLayout<1>& k = p.kept;
  int64_t off = 0;
  for (int d = 0; d < k.ndim; ++d) {
    const int64_t q = o / k.shape[d];
    off += (o - q * k.shape[d]) * k.strides[0][d];
    o = q;
  }
  return k.data[0] + off;
}

template <typename In, typename Op>
void inner(const ReducePlan& p, const Op& op, const ReduceOutputs& outs) {
  using Acc = typename Op::acc_t;
  const Rows<In, Op> rows{op, p.stride_r};
  const int64_t M = p.outputs, R = p.reduced;
  const int threads = get_num_threads();
  if (M < threads && R >= kElementwiseGrain) {
    // Few long rows: split each over the pool, combine the pieces as a tree.
    const int64_t pieces = std::min<int64_t>(threads * 4, R / 4096);
    for (int64_t o = 0; o < M; ++o) {
      const In* x = reinterpret_cast<const In*>(base_of(p, o));
      std::vector<Acc> part(static_cast<size_t>(pieces));
      parallel_for(pieces, 1, [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k) {
          const int64_t lo = (R * k / pieces) & ~int64_t(7);
          const int64_t hi = k + 1 == pieces ? R : (R * (k + 1) / pieces) & ~int64_t(7);
          part[k] = rows.pairwise(x, lo, hi);
        }
      });
      for (int64_t w = 1; w < pieces; w *= 2) {
        for (int64_t k = 0; k + w < pieces; k += 2 * w) part[k] = op.combine(part[k], part[k + w]);
      }
      write_result(outs, o, op.project(part[0]));
    }
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(R, 1));
  parallel_for(M, grain, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      const In* x = reinterpret_cast<const In*>(base_of(p, o));
      write_result(outs, o, op.project(rows.pairwise(x, 0, R)));
    }
  });
}

template <typename In, typename Op>
struct Columns {
  using Acc = typename Op::acc_t;
  using C = typename Op::compute_t;
  const Op& op;
  int64_t stride_bytes;  // between rows

  // acc[j] for columns [0, n) starting at x, rows [lo, hi); `spare` holds
  // the accumulators of the deeper levels (n per level).
  void run(const char* x, int64_t n, int64_t lo, int64_t hi, Acc* acc, Acc* spare) const {
    if (hi - lo <= 64) {
      for (int64_t r = lo; r < hi; ++r) {
        const In* row = reinterpret_cast<const In*>(x + r * stride_bytes);
        for (int64_t j = 0; j < n; ++j) acc[j] = op.fold(acc[j], convert<C>(row[j]), r);
      }
      return;
    }
    const int64_t mid = lo + (hi - lo) / 2;
    run(x, n, lo, mid, acc, spare);
    for (int64_t j = 0; j < n; ++j) spare[j] = op.identity();
    run(x, n, mid, hi, spare, spare + n);
    for (int64_t j = 0; j < n; ++j) acc[j] = op.combine(acc[j], spare[j]);
  }
};

template <typename In, typename Op>
void column(const ReducePlan& p, const Op& op, const ReduceOutputs& outs) {
  using Acc = typename Op::acc_t;
  // Columns per block: 16 KiB of accumulators, rows read in long runs.
  constexpr int64_t kCols = std::max<int64_t>(256, 16384 / int64_t(sizeof(Acc)));
  const int64_t N = p.kept.shape[0];
  const int64_t outer = p.outputs / N;
  const int64_t blocks = (N + kCols - 1) / kCols;
  const Columns<In, Op> cols{op, p.stride_r * int64_t(sizeof(In))};
  int depth = 1;
  for (int64_t r = p.reduced; r > 64; r = (r + 1) / 2) ++depth;
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(p.reduced * kCols, 1));
  parallel_for(outer * blocks, grain, [&](int64_t b, int64_t e) {
    std::vector<Acc> acc(static_cast<size_t>(kCols * (depth + 1)));
    for (int64_t t = b; t < e; ++t) {
      const int64_t ob = t / blocks, j0 = (t % blocks) * kCols;
      const int64_t n = std::min<int64_t>(kCols, N - j0);
      const int64_t o0 = ob * N + j0;
      for (int64_t j = 0; j < n; ++j) acc[j] = op.identity();
      cols.run(base_of(p, o0), n, 0, p.reduced, acc.data(), acc.data() + n);
      for (int64_t j = 0; j < n; ++j) write_result(outs, o0 + j, op.project(acc[j]));
    }
  });
}

}  // namespace reduce_cpu_detail

struct ReduceCpuRunner {
  static constexpr bool kWideVar = true;  // var/std in double (reduce_dispatch.hpp)
  const ReducePlan& plan;
  ReduceOutputs outs;
  template <typename In, typename Op>
  void run(const Op& op) {
    if (plan.outputs == 0) return;
    if (plan.kind == ReducePlan::Column) {
      reduce_cpu_detail::column<In>(plan, op, outs);
    } else {
      reduce_cpu_detail::inner<In>(plan, op, outs);
    }
  }
};

}  // namespace ember::ops
