// torch.multinomial's arithmetic, shared by the CPU loop and the CUDA kernels
// so that both pick the same categories from the same stream position.
//
// Probabilities are float64 rows (the front converts them). Element i of the
// draw (row r, sample or category j) takes the 53-bit uniform from lane i % 2
// of Philox block offset + i / 2.
// - With replacement: u * total located in the row's cumulative sums. The
//   sums are added in one fixed order on both sides: sequentially within
//   chunks of kChunk categories, the chunk totals sequentially, then
//   cdf[j] = prefix(chunk of j) + (sum within the chunk up to j).
// - Without replacement: the exponential race. Category j gets the key
//   E_j / p_j with E_j = -log(1 - u_j) ~ Exp(1) (+inf when p_j = 0); the k
//   smallest keys (ties to the lower index), in increasing order, are the
//   samples.
#pragma once

#include <cstdint>
#include <limits>

#include "ops/random/philox.hpp"
#include "ops/random/random_math.hpp"

namespace ember::rnd {

constexpr int64_t kMultinomialChunk = 256;

EMBER_HD_INLINE double draw_uniform53(uint64_t seed, uint64_t offset, int64_t i) {
  const philox::Words w = philox::block(seed, offset + static_cast<uint64_t>(i / 2));
  const int lane = static_cast<int>(i % 2) * 2;
  return uniform_double(w.w[lane], w.w[lane + 1]);
}

EMBER_HD_INLINE double race_key(double p, double u) {
  if (!(p > 0.0)) return std::numeric_limits<double>::infinity();
  const double e = -log_(sub(1.0, u));
  return div(e, p);
}

// The first j in [0, n) with cdf[j] > target; the last category with a
// non-zero probability when rounding put target at the total.
EMBER_HD_INLINE int64_t search_cdf(const double* cdf, const double* p, int64_t n,
                                   double target) {
  int64_t lo = 0, hi = n;  // answer in [lo, hi]
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (cdf[mid] > target) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  if (lo < n) return lo;
  int64_t j = n - 1;
  while (j > 0 && !(p[j] > 0.0)) --j;
  return j;
}

// A probability ember accepts: finite and >= 0.
EMBER_HD_INLINE bool valid_probability(double p) {
  return p >= 0.0 && p <= 1.7976931348623157e308;
}

}  // namespace ember::rnd
