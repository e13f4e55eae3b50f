// Reduction functors, shared by the CPU loops and the CUDA kernels. Each has
// an accumulator type (acc_t), an identity, fold (one element with its index
// along the reduction), combine (two partial results: the order of combining
// is a tree) and project (the final value in the compute type C, or, for the
// arg reductions, value and index).
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "ops/element_access.hpp"
#include "ops/math_functions.hpp"

namespace ember::ops {

template <typename C>
EMBER_HD_INLINE C lowest_of() {
  if constexpr (std::is_floating_point<C>::value) {
    return -C(INFINITY);
  } else {
    return std::numeric_limits<C>::lowest();
  }
}
template <typename C>
EMBER_HD_INLINE C highest_of() {
  if constexpr (std::is_floating_point<C>::value) {
    return C(INFINITY);
  } else {
    return std::numeric_limits<C>::max();
  }
}

template <typename C>
struct SumR {
  using acc_t = C;
  using compute_t = C;
  EMBER_HD_INLINE C identity() const { return C(0); }
  EMBER_HD_INLINE C fold(C a, C x, int64_t) const { return m::add(a, x); }
  EMBER_HD_INLINE C combine(C a, C b) const { return m::add(a, b); }
  EMBER_HD_INLINE C project(C a) const { return a; }
};

template <typename C>
struct MeanR {
  using acc_t = C;
  using compute_t = C;
  C n;  // the reduced count
  EMBER_HD_INLINE C identity() const { return C(0); }
  EMBER_HD_INLINE C fold(C a, C x, int64_t) const { return a + x; }
  EMBER_HD_INLINE C combine(C a, C b) const { return a + b; }
  EMBER_HD_INLINE C project(C a) const { return a / n; }
};

template <typename C>
struct ProdR {
  using acc_t = C;
  using compute_t = C;
  EMBER_HD_INLINE C identity() const { return C(1); }
  EMBER_HD_INLINE C fold(C a, C x, int64_t) const { return m::mul(a, x); }
  EMBER_HD_INLINE C combine(C a, C b) const { return m::mul(a, b); }
  EMBER_HD_INLINE C project(C a) const { return a; }
};

// NaN-propagating max/min (torch's amax/amin and max()).
template <typename C, bool MAX>
struct ExtremeR {
  using acc_t = C;
  using compute_t = C;
  EMBER_HD_INLINE C identity() const { return MAX ? lowest_of<C>() : highest_of<C>(); }
  // One select (a NaN in a keeps a; a NaN in b fails the comparison and
  // gives b), so that CPU loops vectorise.
  EMBER_HD_INLINE C combine(C a, C b) const {
    const bool keep_a = (MAX ? a > b : a < b) || m::is_nan(a);
    return keep_a ? a : b;
  }
  EMBER_HD_INLINE C fold(C a, C x, int64_t) const { return combine(a, x); }
  EMBER_HD_INLINE C project(C a) const { return a; }
};

template <typename C>
struct ValueIndex {
  C value;
  int64_t index;
};

// argmax/argmin and max/min with dim: NaN counts as the extreme; ties and
// NaNs keep the lowest index.
template <typename C, bool MAX>
struct ArgR {
  using acc_t = ValueIndex<C>;
  using compute_t = C;
  EMBER_HD_INLINE acc_t identity() const {
    return {MAX ? lowest_of<C>() : highest_of<C>(), std::numeric_limits<int64_t>::max()};
  }
  EMBER_HD_INLINE acc_t combine(acc_t a, acc_t b) const {
    const bool na = m::is_nan(a.value), nb = m::is_nan(b.value);
    if (na || nb) {
      if (na && nb) return a.index <= b.index ? a : b;
      return na ? a : b;
    }
    if (a.value == b.value) return a.index <= b.index ? a : b;
    return (MAX ? a.value > b.value : a.value < b.value) ? a : b;
  }
  EMBER_HD_INLINE acc_t fold(acc_t a, C x, int64_t i) const { return combine(a, acc_t{x, i}); }
  EMBER_HD_INLINE acc_t project(acc_t a) const { return a; }
};

// Welford's running mean and sum of squared deviations; partial results
// combine with Chan's formula.
template <typename C>
struct Welford {
  C mean, m2;
  int64_t n;
};

template <typename C>
struct VarR {
  using acc_t = Welford<C>;
  using compute_t = C;
  C correction;
  bool take_sqrt;
  EMBER_HD_INLINE acc_t identity() const { return {C(0), C(0), 0}; }
  EMBER_HD_INLINE acc_t fold(acc_t a, C x, int64_t) const {
    const int64_t n = a.n + 1;
    const C d = x - a.mean;
    const C mean = a.mean + d / C(n);
    return {mean, a.m2 + d * (x - mean), n};
  }
  EMBER_HD_INLINE acc_t combine(acc_t a, acc_t b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const int64_t n = a.n + b.n;
    const C d = b.mean - a.mean;
    const C fb = C(b.n) / C(n);
    return {a.mean + d * fb, a.m2 + b.m2 + d * d * C(a.n) * fb, n};
  }
  EMBER_HD_INLINE C project(acc_t a) const {
    C div = C(a.n) - correction;
    if (div < C(0)) div = C(0);
    const C v = a.m2 / div;
    return take_sqrt ? m::sqrt(v) : v;
  }
};

// Vector norms: kind 0 counts non-zeros, 1 sums |x|, 2 sums x*x (sqrt at the
// end), 3 is max |x| (p = inf), 4 min |x| (p = -inf), 5 sums |x|^p.
template <typename C>
struct NormR {
  using acc_t = C;
  using compute_t = C;
  int kind;
  C p;
  EMBER_HD_INLINE C identity() const { return kind == 4 ? C(INFINITY) : C(0); }
  EMBER_HD_INLINE C fold(C a, C x, int64_t) const {
    const C ax = m::fabs(x);
    switch (kind) {
      case 0: return a + (x != C(0) ? C(1) : C(0));
      case 1: return a + ax;
      case 2: return a + x * x;
      case 3: return combine(a, ax);
      case 4: return combine(a, ax);
      default: return a + m::pow(ax, p);
    }
  }
  EMBER_HD_INLINE C combine(C a, C b) const {
    if (kind == 3 || kind == 4) {
      if (m::is_nan(a)) return a;
      if (m::is_nan(b)) return b;
      return kind == 3 ? (a > b ? a : b) : (a < b ? a : b);
    }
    return a + b;
  }
  EMBER_HD_INLINE C project(C a) const {
    if (kind == 2) return m::sqrt(a);
    if (kind == 5) return m::pow(a, C(1) / p);
    return a;
  }
};

template <typename C>
struct MaxSum {
  C max, sum;  // sum of exp(x - max)
};

// logsumexp in one pass: the running maximum and the sum scaled to it.
template <typename C>
struct LogSumExpR {
  using acc_t = MaxSum<C>;
  using compute_t = C;
  EMBER_HD_INLINE acc_t identity() const { return {-C(INFINITY), C(0)}; }
  EMBER_HD_INLINE acc_t combine(acc_t a, acc_t b) const {
    if (m::is_nan(a.max) || m::is_nan(b.max)) return {a.max + b.max, a.sum + b.sum};
    if (b.sum == C(0)) return a;
    if (a.sum == C(0)) return b;
    if (a.max == b.max) return {a.max, a.sum + b.sum};
    if (a.max < b.max) {
      const acc_t t = a;
      a = b;
      b = t;
    }
    return {a.max, a.sum + b.sum * m::exp(b.max - a.max)};
  }
  EMBER_HD_INLINE acc_t fold(acc_t a, C x, int64_t) const {
    if (x == -C(INFINITY)) return a;
    return combine(a, acc_t{x, C(1)});
  }
  // max + log(sum), in double. `relative` gives log(sum) alone, the sum
  // being of exp(x - max): softmax subtracts max and log(sum) in turn (as
  // torch), since max + log(sum) rounds away log(sum) where max is large.
  bool relative = false;
  EMBER_HD_INLINE double project(acc_t a) const {
    if (a.sum == C(0)) return -static_cast<double>(INFINITY);
    const double l = m::log(static_cast<double>(a.sum));
    return relative ? l : static_cast<double>(a.max) + l;
  }
};

// all/any over bytes (bool and uint8 storage).
template <bool ALL>
struct AllAnyR {
  using acc_t = int64_t;
  using compute_t = int64_t;
  EMBER_HD_INLINE int64_t identity() const { return ALL ? 1 : 0; }
  EMBER_HD_INLINE int64_t fold(int64_t a, int64_t x, int64_t) const {
    return ALL ? (a && x != 0) : (a || x != 0);
  }
  EMBER_HD_INLINE int64_t combine(int64_t a, int64_t b) const { return ALL ? (a && b) : (a || b); }
  EMBER_HD_INLINE int64_t project(int64_t a) const { return a; }
};

}  // namespace ember::ops
