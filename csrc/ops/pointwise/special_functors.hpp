// The special functions (ops/pointwise/special.hpp) as functors over a
// compute type C, shared by the CPU loops and the CUDA kernels, and the switch
// that picks one (dispatch_special). C is float (float16, bfloat16, float32)
// or double for the floating functions and int64 for gcd/lcm.
//
// Algorithms (the values follow torch's, special values included):
// - lgamma, the Bessel functions j0/j1, frexp, nextafter: the C library on the
//   host and CUDA's math library on the device (j0/j1 of +-inf give NaN, as
//   torch's Cephes versions);
// - digamma: recurrence up to x >= 10, then the asymptotic series (the
//   Cephes coefficients), reflection for x < 0 (taken in double);
// - polygamma: digamma (n = 0), the trigamma recurrence plus asymptotic
//   series (n = 1), (-1)^(n+1) n! zeta(n + 1, x) otherwise;
// - zeta(x, q): Hurwitz's zeta by Euler-Maclaurin summation (Cephes's
//   scheme and constants), accumulated in double on the host and in C on the
//   device (as torch's acc_type);
// - erfinv: on the host a rational first guess refined by two Newton steps
//   (torch's CPU scheme), on the device CUDA's erfinv;
// - i0, i0e, i1, i1e: Cephes's Chebyshev expansions on [0, 8] and (8, inf);
// - ndtri: Cephes's rational approximations (three ranges);
// - erfcx: exp(x^2) erfc(x) with x^2 split exactly (fma) below a threshold,
//   the asymptotic series above it, 2 exp(x^2) - erfcx(-x) for x < 0;
// - igamma/igammac: the power series (x < a + 1) or Lentz's continued
//   fraction, always in double (rounded once to float16..float32), Q for
//   a <= 1 by DLMF 8.7.3's series (no 1 - P cancellation); for
//   a > 1e5 Temme's uniform asymptotic expansion (two terms);
// - ndtr: torch's (1 + erf(x / sqrt 2)) / 2.
// Derived from the Cephes Math Library (Copyright 1984-2018 Stephen L.
// Moshier, 3-clause BSD): the coefficient tables below.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ops/element_access.hpp"
#include "ops/elementwise.hpp"
#include "ops/math_functions.hpp"
#include "ops/pointwise/special.hpp"
#include "runtime/errors.hpp"
#include "tensor/half.hpp"

namespace ember::ops {

namespace sp {

constexpr double kPi = 3.14159265358979323846;
constexpr double kSqrt1_2 = 0.70710678118654752440;
constexpr double kInvSqrtPi = 0.56418958354775628695;

EMBER_HD_INLINE float lgamma(float x) { return ::lgammaf(x); }
EMBER_HD_INLINE double lgamma(double x) { return ::lgamma(x); }
EMBER_HD_INLINE float j0(float x) { return ::j0f(x); }
EMBER_HD_INLINE double j0(double x) { return ::j0(x); }
EMBER_HD_INLINE float j1(float x) { return ::j1f(x); }
EMBER_HD_INLINE double j1(double x) { return ::j1(x); }
EMBER_HD_INLINE float nextafter(float x, float y) { return ::nextafterf(x, y); }
EMBER_HD_INLINE double nextafter(double x, double y) { return ::nextafter(x, y); }
EMBER_HD_INLINE float frexp(float x, int* e) { return ::frexpf(x, e); }
EMBER_HD_INLINE double frexp(double x, int* e) { return ::frexp(x, e); }
EMBER_HD_INLINE float fma(float a, float b, float c) { return ::fmaf(a, b, c); }
EMBER_HD_INLINE double fma(double a, double b, double c) { return ::fma(a, b, c); }

template <typename C>
EMBER_HD_INLINE C nan() {
  return C(NAN);
}
template <typename C>
EMBER_HD_INLINE C inf() {
  return C(INFINITY);
}

// Chebyshev series sum_{i} a[i] T_i(x/2) (Cephes's chbevl: the first
// coefficient is the highest order).
template <typename C, int N>
EMBER_HD_INLINE C chbevl(C x, const double (&a)[N]) {
  C b0 = C(a[0]), b1 = C(0), b2 = C(0);
  for (int i = 1; i < N; ++i) {
    b2 = b1;
    b1 = b0;
    b0 = x * b1 - b2 + C(a[i]);
  }
  return C(0.5) * (b0 - b2);
}

// Polynomial, highest order first; p1evl: with an implicit leading 1.
template <typename C, int N>
EMBER_HD_INLINE C polevl(C x, const double (&a)[N]) {
  C r = C(a[0]);
  for (int i = 1; i < N; ++i) r = r * x + C(a[i]);
  return r;
}
template <typename C, int N>
EMBER_HD_INLINE C p1evl(C x, const double (&a)[N]) {
  C r = x + C(a[0]);
  for (int i = 1; i < N; ++i) r = r * x + C(a[i]);
  return r;
}

// ---- gamma family ------------------------------------------------------------

template <typename C>
EMBER_HD C digamma(C x) {
  if (x == C(0)) return m::copysign(inf<C>(), -x);  // +-0 -> -+inf
  C result = C(0);
  if (x < C(0)) {
    if (x == m::trunc(x)) return nan<C>();  // the poles; -inf too
    // psi(x) = psi(1 - x) - pi / tan(pi x), with tan's argument reduced to
    // the fractional part (exact) and taken in double.
    const double r = double(x) - ::trunc(double(x));
    result = C(-kPi / ::tan(kPi * r));
    x = C(1) - x;
  }
  while (x < C(10)) {
    result -= C(1) / x;
    x += C(1);
  }
  if (x == C(10)) return result + C(2.25175258906672110764);
  constexpr double A[] = {8.33333333333333333333E-2, -2.10927960927960927961E-2,
                          7.57575757575757575758E-3, -4.16666666666666666667E-3,
                          3.96825396825396825397E-3, -8.33333333333333333333E-3,
                          8.33333333333333333333E-2};
  C y = C(0);
  if (x < C(1.0e17)) {
    const C z = C(1) / (x * x);
    y = z * polevl(z, A);
  }
  return result + m::log(x) - C(0.5) / x - y;
}

template <typename C>
EMBER_HD C trigamma(C x) {
  C sign = C(1), result = C(0);
  if (x < C(0.5)) {
    sign = C(-1);
    const C s = m::sin(C(kPi) * x);
    result -= C(kPi * kPi) / (s * s);
    x = C(1) - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += C(1) / (x * x);
    x += C(1);
  }
  const C ixx = C(1) / (x * x);
  result += (C(1) + C(1) / (C(2) * x) +
             ixx * (C(1) / C(6) - ixx * (C(1) / C(30) - ixx * (C(1) / C(42))))) /
            x;
  return sign * result;
}

// Hurwitz zeta(x, q) = sum_k (k + q)^-x.
template <typename C>
EMBER_HD C zeta(C xc, C qc) {
#if defined(__CUDA_ARCH__)
  using A = C;  // torch's CUDA accumulates in the compute type...
#else
  using A = double;  // ... and its CPU kernels in double
#endif
  const A x = A(xc), q = A(qc);
  constexpr double B[] = {12.0,
                          -720.0,
                          30240.0,
                          -1209600.0,
                          47900160.0,
                          -1.8924375803183791606e9,
                          7.47242496e10,
                          -2.950130727918164224e12,
                          1.1646782814350067249e14,
                          -4.5979787224074726105e15,
                          1.8152105401943546773e17,
                          -7.1661652561756670113e18};
  const A eps = A(1.11022302462515654042E-16);
  if (x == A(1)) return inf<C>();
  if (x < A(1)) return nan<C>();
  if (q <= A(0)) {
    if (q == m::floor(q)) return inf<C>();
    if (x != m::floor(x)) return nan<C>();
    if (q < A(-64)) {
      // The summation below steps q up by one until it passes 9: |q| steps
      // (q = -8e8 ran for minutes on the GPU). With n = ceil(-q), r = q + n in
      // (0, 1) and x an integer, the n terms (q + k)^-x before r are
      // (-1)^x (j - r)^-x for j = 1..n: zeta(x, q) = zeta(x, r) +
      // (-1)^x (zeta(x, 1 - r) - zeta(x, n + 1 - r)), all with positive q.
      const A n = m::ceil(-q), r = q + n;
      const A sgn = m::fmod(x, A(2)) == A(0) ? A(1) : A(-1);
      return C(A(zeta<C>(C(x), C(r))) +
               sgn * (A(zeta<C>(C(x), C(A(1) - r))) - A(zeta<C>(C(x), C(n + A(1) - r)))));
    }
  }
  A s = m::pow(q, -x);
  A a = q, b = A(0);
  int i = 0;
  while (i < 9 || a <= A(9)) {
    ++i;
    a += A(1);
    b = m::pow(a, -x);
    s += b;
    if (-eps * s < b && b < eps * s) return C(s);
  }
  const A w = a;
  s += b * w / (x - A(1));
  s -= A(0.5) * b;
  A f = A(1), k = A(0);
  for (int j = 0; j < 12; ++j) {
    f *= x + k;
    b /= w;
    A t = f * b / A(B[j]);
    s += t;
    if (m::fabs(t / s) < eps) return C(s);
    k += A(1);
    f *= x + k;
    b /= w;
    k += A(1);
  }
  return C(s);
}

template <typename C>
EMBER_HD C polygamma(int64_t n, C x) {
  if (n == 0) return digamma(x);
  if (n == 1) return trigamma(x);
  const C sign = (n % 2) ? C(1) : C(-1);
  return sign * m::exp(lgamma(C(n) + C(1))) * zeta(C(n + 1), x);
}

// lgamma(1 + a), accurate for tiny a (1 + a rounds to 1 below 1e-16).
EMBER_HD inline double lgamma1p(double a) {
  if (::fabs(a) < 1e-5) {
    // -gamma a + zeta(2)/2 a^2 - zeta(3)/3 a^3
    return a * (-0.57721566490153286 + a * (0.82246703342411322 - a * 0.40068563438653143));
  }
  return ::lgamma(1 + a);
}

// Temme's uniform asymptotic expansion of Q(a, x) for large a (leading
// term and first correction: relative error O(a^-3/2)).
EMBER_HD inline double incomplete_gamma_temme(double a, double x, bool upper) {
  const double d = x / a - 1;  // lambda - 1
  // lambda - 1 - log(lambda), without cancellation near lambda = 1
  const double h = ::fabs(d) < 1e-4 ? d * d * (0.5 - d * (1.0 / 3 - d * 0.25)) : d - ::log1p(d);
  const double eta = (d < 0 ? -1.0 : 1.0) * ::sqrt(2 * h);
  const double c0 = ::fabs(eta) < 1e-3 ? -1.0 / 3 + eta / 12 : 1 / d - 1 / eta;
  const double r = ::exp(-a * eta * eta / 2) / ::sqrt(2 * kPi * a) * c0;
  const double q = 0.5 * ::erfc(eta * ::sqrt(a / 2)) + r;
  if (upper) return q;
  return 0.5 * ::erfc(-eta * ::sqrt(a / 2)) - r;
}

// The regularized incomplete gamma functions, in double: P(a, x) (upper =
// false) or Q(a, x) (upper = true). The edge cases in torch's order (a NaN
// falls through them: igamma(NaN, 0) is 0, as torch's).
EMBER_HD inline double incomplete_gamma(double a, double x, bool upper) {
  if (a < 0 || x < 0) return NAN;
  if (a == 0) {
    if (x > 0) return upper ? 0.0 : 1.0;
    return NAN;
  }
  if (x == 0) return upper ? 1.0 : 0.0;
  if (m::is_inf(a)) {
    if (m::is_inf(x)) return NAN;
    return upper ? 1.0 : 0.0;
  }
  if (m::is_inf(x)) return upper ? 0.0 : 1.0;
  if (a != a || x != x) return NAN;
  if (a > 1e5) return incomplete_gamma_temme(a, x, upper);
  constexpr double kEps = 1.11022302462515654042E-16;
  constexpr int kMaxIter = 10000;
  const double logx = ::log(x);
  if (upper && x < a + 1 && a <= 1) {
    // Q without the cancellation of 1 - P (tiny Q for tiny a, DLMF 8.7.3):
    // Q = 1 - x^a / Gamma(a + 1) - x^a / Gamma(a) sum_{n>=1} (-x)^n / (n! (a + n))
    double fac = 1, sum = 0;
    for (int n = 1; n < kMaxIter; ++n) {
      fac *= -x / n;
      const double term = fac / (a + n);
      sum += term;
      if (::fabs(term) <= kEps * ::fabs(sum)) break;
    }
    return -::expm1(a * logx - lgamma1p(a)) - ::exp(a * logx - ::lgamma(a)) * sum;
  }
  if (x < a + 1) {
    // P = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n))
    double term = 1, sum = 1, r = a;
    for (int i = 0; i < kMaxIter; ++i) {
      r += 1;
      term *= x / r;
      sum += term;
      if (term <= kEps * sum) break;
    }
    const double p = ::exp(a * logx - x - ::lgamma(a + 1)) * sum;
    return upper ? 1.0 - p : p;
  }
  // Q = x^a e^-x / Gamma(a) * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...))
  constexpr double kTiny = 1e-300;
  double b = x + 1 - a, c = 1 / kTiny, d = 1 / b, h = d;
  for (int i = 1; i < kMaxIter; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (::fabs(del - 1) < kEps) break;
  }
  const double q = ::exp(a * logx - x - ::lgamma(a)) * h;
  return upper ? q : 1.0 - q;
}

// ---- error-function family ---------------------------------------------------

template <typename C>
EMBER_HD C erfinv(C y) {
#if defined(__CUDA_ARCH__)
  // CUDA's, as torch's CUDA kernel
  if constexpr (std::is_same<C, float>::value) {
    return ::erfinvf(y);
  } else {
    return ::erfinv(y);
  }
#else
  const C ay = m::fabs(y);
  if (ay > C(1)) return nan<C>();
  if (ay == C(1)) return m::copysign(inf<C>(), y);
  if (y != y) return y;
  C x;
  if (ay <= C(0.7)) {
    const C z = y * y;
    const C num = ((C(-0.140543331) * z + C(0.914624893)) * z + C(-1.645349621)) * z +
                  C(0.886226899);
    const C den = (((C(0.012229801) * z + C(-0.329097515)) * z + C(1.442710462)) * z +
                   C(-2.118377725)) * z + C(1);
    x = y * num / den;
  } else {
    const C z = m::sqrt(-m::log((C(1) - ay) / C(2)));
    const C num = ((C(1.641345311) * z + C(3.429567803)) * z + C(-1.624906493)) * z +
                  C(-1.970840454);
    const C den = (C(1.637067800) * z + C(3.543889200)) * z + C(1);
    x = m::copysign(num, y) / den;
  }
  // Two Newton steps on erf(x) = y.
  const C k = C(2 * kInvSqrtPi);
  x = x - (m::erf(x) - y) / (k * m::exp(-x * x));
  x = x - (m::erf(x) - y) / (k * m::exp(-x * x));
  return x;
#endif
}

template <typename C>
EMBER_HD C erfcx(C x) {
  // The threshold above which the asymptotic series is exact to the type's
  // precision (erfc(x) stays a normal number below it).
  constexpr bool kDouble = std::is_same<C, double>::value;
  const C big = kDouble ? C(12) : C(6);
  if (x != x) return x;
  const C ax = m::fabs(x);
  C r;
  if (ax < big) {
    // exp(x^2) with x^2 = hi + lo exactly.
    const C hi = ax * ax;
    const C lo = fma(ax, ax, -hi);
    r = m::exp(hi) * (C(1) + lo) * m::erfc(ax);
  } else if (m::is_inf(ax)) {
    r = C(0);
  } else {
    // erfcx(x) ~ 1/(x sqrt(pi)) (1 - 1/(2x^2) + 3/(2x^2)^2 - 15/(2x^2)^3 ...)
    const C t = C(1) / (C(2) * ax * ax);
    C term = C(1), sum = C(1);
    for (int k = 1; k <= (kDouble ? 14 : 8); ++k) {
      term *= -C(2 * k - 1) * t;
      sum += term;
    }
    r = sum * C(kInvSqrtPi) / ax;
  }
  if (x >= C(0)) return r;
  // erfcx(-|x|) = 2 exp(x^2) - erfcx(|x|)
  if (ax > (kDouble ? C(26.7) : C(9.4))) return inf<C>();
  const C hi = ax * ax;
  const C lo = fma(ax, ax, -hi);
  return C(2) * m::exp(hi) * (C(1) + lo) - r;
}

// torch's formula: (1 + erf(x / sqrt 2)) / 2 (0 below about -8.3 in double)
template <typename C>
EMBER_HD C ndtr(C x) {
  return (C(1) + m::erf(x * C(kSqrt1_2))) * C(0.5);
}

template <typename C>
EMBER_HD C log_ndtr(C x) {
  const C t = x * C(kSqrt1_2);
  if (x < C(-1)) return m::log(erfcx(-t) / C(2)) - t * t;
  return m::log1p(-m::erfc(t) / C(2));
}

template <typename C>
EMBER_HD C ndtri(C y0) {
  if (y0 != y0) return y0;
  if (y0 == C(0)) return -inf<C>();
  if (y0 == C(1)) return inf<C>();
  if (y0 < C(0) || y0 > C(1)) return nan<C>();
  constexpr double P0[] = {-5.99633501014107895267E1, 9.80010754185999661536E1,
                           -5.66762857469070293439E1, 1.39312609387279679503E1,
                           -1.23916583867381258016E0};
  constexpr double Q0[] = {1.95448858338141759834E0,  4.67627912898881538453E0,
                           8.63602421390890590575E1,  -2.25462687854119370527E2,
                           2.00260212380060660359E2,  -8.20372256168333339912E1,
                           1.59056225126211695515E1,  -1.18331621121330003142E0};
  constexpr double P1[] = {4.05544892305962419923E0,   3.15251094599893866154E1,
                           5.71628192246421288162E1,   4.40805073893200834700E1,
                           1.46849561928858024014E1,   2.18663306850790267539E0,
                           -1.40256079171354495875E-1, -3.50424626827848203418E-2,
                           -8.57456785154685413611E-4};
  constexpr double Q1[] = {1.57799883256466749731E1,   4.53907635128879210584E1,
                           4.13172038254672030440E1,   1.50425385692907503408E1,
                           2.50464946208309415979E0,   -1.42182922854787788574E-1,
                           -3.80806407691578277194E-2, -9.33259480895457427372E-4};
  constexpr double P2[] = {3.23774891776946035970E0,  6.91522889068984211695E0,
                           3.93881025292474443415E0,  1.33303460815807542389E0,
                           2.01485389549179081538E-1, 1.23716634817820021358E-2,
                           3.01581553508235416007E-4, 2.65806974686737550832E-6,
                           6.23974539184983293730E-9};
  constexpr double Q2[] = {6.02427039364742014255E0,  3.67983563856160859403E0,
                           1.37702099489081330271E0,  2.16236993594496635890E-1,
                           1.34204006088543189037E-2, 3.28014464682127739104E-4,
                           2.89247864745380683936E-6, 6.79019408009981274425E-9};
  constexpr double kExpM2 = 0.13533528323661269189;  // exp(-2)
  C y = y0;
  bool negate = true;  // the lower tail
  if (y > C(1) - C(kExpM2)) {
    y = C(1) - y;
    negate = false;
  }
  if (y > C(kExpM2)) {
    y = y - C(0.5);
    const C y2 = y * y;
    const C x = y + y * (y2 * polevl(y2, P0) / p1evl(y2, Q0));
    return x * C(2.50662827463100050242);
  }
  const C x = m::sqrt(C(-2) * m::log(y));
  const C x0 = x - m::log(x) / x;
  const C z = C(1) / x;
  const C x1 = x < C(8) ? z * polevl(z, P1) / p1evl(z, Q1) : z * polevl(z, P2) / p1evl(z, Q2);
  const C r = x0 - x1;
  return negate ? -r : r;
}

// ---- modified Bessel functions -----------------------------------------------

// exp(-|x|) I0(x)
template <typename C>
EMBER_HD C i0e(C x) {
  constexpr double kI0A[] = {
      -4.41534164647933937950E-18, 3.33079451882223809783E-17,  -2.43127984654795469359E-16,
      1.71539128555513303061E-15,  -1.16853328779934516808E-14, 7.67618549860493561688E-14,
      -4.85644678311192946090E-13, 2.95505266312963983461E-12,  -1.72682629144155570723E-11,
      9.67580903537323691224E-11,  -5.18979560163526290666E-10, 2.65982372468238665035E-9,
      -1.30002500998624804212E-8,  6.04699502254191894932E-8,   -2.67079385394061173391E-7,
      1.11738753912010371815E-6,   -4.41673835845875056359E-6,  1.64484480707288970893E-5,
      -5.75419501008210370398E-5,  1.88502885095841655729E-4,   -5.76375574538582365885E-4,
      1.63947561694133579842E-3,   -4.32430999505057594430E-3,  1.05464603945949983183E-2,
      -2.37374148058994688156E-2,  4.93052842396707084878E-2,   -9.49010970480476444210E-2,
      1.71620901522208775349E-1,   -3.04682672343198398683E-1,  6.76795274409476084995E-1};
  constexpr double kI0B[] = {
      -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
      3.46122286769746109310E-17,  -2.82762398051658348494E-16, -3.42548561967721913462E-16,
      1.77256013305652638360E-15,  3.81168066935262242075E-15,  -9.55484669882830764870E-15,
      -4.15056934728722208663E-14, 1.54008621752140982691E-14,  3.85277838274214270114E-13,
      7.18012445138366623367E-13,  -1.79417853150680611778E-12, -1.32158118404477131188E-11,
      -3.14991652796324136454E-11, 1.18891471078464383424E-11,  4.94060238822496958910E-10,
      3.39623202570838634515E-9,   2.26666899049817806459E-8,   2.04891858946906374183E-7,
      2.89137052083475648297E-6,   6.88975834691682398426E-5,   3.36911647825569408990E-3,
      8.04490411014108831608E-1};
  x = m::fabs(x);
  if (x <= C(8)) return chbevl(x / C(2) - C(2), kI0A);
  return chbevl(C(32) / x - C(2), kI0B) / m::sqrt(x);
}
template <typename C>
EMBER_HD C i0(C x) {
  return m::exp(m::fabs(x)) * i0e(x);
}
// exp(-|x|) I1(x) (scaled) or I1(x)
template <typename C>
EMBER_HD C i1_any(C x, bool scaled) {
  constexpr double kI1A[] = {
      2.77791411276104639959E-18,  -2.11142121435816608115E-17, 1.55363195773620046921E-16,
      -1.10559694773538630805E-15, 7.60068429473540693410E-15,  -5.04218550472791168711E-14,
      3.22379336594557470981E-13,  -1.98397439776494371520E-12, 1.17361862988909016308E-11,
      -6.66348972350202774223E-11, 3.62559028155211703701E-10,  -1.88724975172282928790E-9,
      9.38153738649577178388E-9,   -4.44505912879632808065E-8,  2.00329475355213526229E-7,
      -8.56872026469545474066E-7,  3.47025130813767847674E-6,   -1.32731636560394358279E-5,
      4.78156510755005422638E-5,   -1.61760815825896745588E-4,  5.12285956168575772895E-4,
      -1.51357245063125314899E-3,  4.15642294431288815669E-3,   -1.05640848946261981558E-2,
      2.47264490306265168283E-2,   -5.29459812080949914269E-2,  1.02643658689847095384E-1,
      -1.76416518357834055153E-1,  2.52587186443633654823E-1};
  constexpr double kI1B[] = {
      7.51729631084210481353E-18,  4.41434832307170791151E-18,  -4.65030536848935832153E-17,
      -3.20952592199342395980E-17, 2.96262899764595013876E-16,  3.30820231092092828324E-16,
      -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
      4.27244001671195135429E-14,  -2.10154184277266431302E-14, -4.08355111109219731823E-13,
      -7.19855177624590851209E-13, 2.03562854414708950722E-12,  1.41258074366137813316E-11,
      3.25260358301548823856E-11,  -1.89749581235054123450E-11, -5.58974346219658380687E-10,
      -3.83538038596423702205E-9,  -2.63146884688951950684E-8,  -2.51223623787020892529E-7,
      -3.88256480887769039346E-6,  -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
      7.78576235018280120474E-1};
  const C z = m::fabs(x);
  C r;
  if (z <= C(8)) {
    r = chbevl(z / C(2) - C(2), kI1A) * z;
  } else {
    r = chbevl(C(32) / z - C(2), kI1B) / m::sqrt(z);
  }
  if (!scaled) r = m::exp(z) * r;
  return x < C(0) ? -r : r;
}

// ---- the rest ------------------------------------------------------------------

template <typename C>
EMBER_HD C logit(C x, C eps) {
  if (eps >= C(0)) {
    const C lo = eps, hi = C(1) - eps;
    x = x < lo ? lo : (x > hi ? hi : x);
  }
  return m::log(x / (C(1) - x));
}

template <typename C>
EMBER_HD C entr(C x) {
  if (x != x) return x;
  if (x > C(0)) return -x * m::log(x);
  if (x == C(0)) return C(0);
  return -inf<C>();
}

// nextafter in the storage format `st` (float16 and bfloat16 step in their
// own bits; the compute type holds their values exactly).
template <typename C>
EMBER_HD C nextafter_in(C x, C y, ScalarType st) {
  if constexpr (std::is_same<C, float>::value) {
    if (st == ScalarType::Float16 || st == ScalarType::BFloat16) {
      if (x != x || y != y) return nan<C>();
      if (x == y) return y;
      const bool half = st == ScalarType::Float16;
      uint16_t bits;
      if (x == C(0)) {
        bits = static_cast<uint16_t>((y < C(0) ? 0x8000u : 0u) | 1u);
      } else {
        bits = half ? detail::float_to_half_bits(x)
                    : static_cast<uint16_t>(detail::f32_bits(x) >> 16);
        bits = static_cast<uint16_t>(((x < y) == (x > C(0))) ? bits + 1 : bits - 1);
      }
      return half ? detail::half_bits_to_float(bits) : detail::f32_from_bits(uint32_t(bits) << 16);
    }
  }
  return nextafter(x, y);
}

}  // namespace sp

// ---- functors ----------------------------------------------------------------------

#define EMBER_SPECIAL_FN(Name, expr)                         \
  template <typename C>                                      \
  struct Name {                                              \
    EMBER_HD_INLINE C operator()(C x) const { return expr; } \
  };

EMBER_SPECIAL_FN(LgammaF, sp::lgamma(x))
EMBER_SPECIAL_FN(DigammaF, sp::digamma(x))
EMBER_SPECIAL_FN(ErfinvF, sp::erfinv(x))
EMBER_SPECIAL_FN(I0F, sp::i0(x))
EMBER_SPECIAL_FN(I0eF, sp::i0e(x))
EMBER_SPECIAL_FN(I1F, sp::i1_any(x, false))
EMBER_SPECIAL_FN(I1eF, sp::i1_any(x, true))
EMBER_SPECIAL_FN(NdtrF, sp::ndtr(x))
EMBER_SPECIAL_FN(NdtriF, sp::ndtri(x))
EMBER_SPECIAL_FN(LogNdtrF, sp::log_ndtr(x))
EMBER_SPECIAL_FN(ErfcxF, sp::erfcx(x))
EMBER_SPECIAL_FN(BesselJ0F, m::is_inf(x) ? sp::nan<C>() : sp::j0(x))
EMBER_SPECIAL_FN(BesselJ1F, m::is_inf(x) ? sp::nan<C>() : sp::j1(x))
EMBER_SPECIAL_FN(EntrF, sp::entr(x))

#undef EMBER_SPECIAL_FN

template <typename C>
struct PolygammaF {
  int64_t n;
  EMBER_HD_INLINE C operator()(C x) const { return sp::polygamma(n, x); }
};
template <typename C>
struct LogitF {
  C eps;  // < 0: no clamping
  EMBER_HD_INLINE C operator()(C x) const { return sp::logit(x, eps); }
};
template <typename C>
struct FrexpMantissaF {
  EMBER_HD_INLINE C operator()(C x) const {
    int e = 0;
    return sp::frexp(x, &e);
  }
};
template <typename C>
struct FrexpExponentF {  // 0 for zeros, infinities and NaN (as torch)
  EMBER_HD_INLINE C operator()(C x) const {
    if (x != x || m::is_inf(x)) return C(0);
    int e = 0;
    sp::frexp(x, &e);
    return C(e);
  }
};
template <typename C>
struct IgammaF {
  bool upper;
  EMBER_HD_INLINE C operator()(C a, C x) const {
    return C(sp::incomplete_gamma(double(a), double(x), upper));
  }
};
template <typename C>
struct ZetaF {
  EMBER_HD_INLINE C operator()(C x, C q) const { return sp::zeta(x, q); }
};
template <typename C>
struct Xlog1pyF {  // 0 where x == 0 (NaN where y is NaN)
  EMBER_HD_INLINE C operator()(C x, C y) const {
    if (y != y) return y;
    if (x == C(0)) return C(0);
    return x * m::log1p(y);
  }
};
template <typename C>
struct NextafterF {
  ScalarType st;
  EMBER_HD_INLINE C operator()(C x, C y) const { return sp::nextafter_in(x, y, st); }
};
// gcd/lcm as torch computes them in the storage type st: abs wraps there
// (gcd(int8 -128, -5) is -1 in torch), and so does lcm's product for int32 and
// int64 (int8/int16 products are taken in int, as C++ promotes them). A
// remainder or quotient by -1 is 0 or a wrapping negation, never the
// INT64_MIN / -1 trap.
EMBER_HD_INLINE int64_t wrap_to(int64_t v, ScalarType st) {
  switch (st) {
    case ScalarType::Int8: return static_cast<int8_t>(v);
    case ScalarType::Int16: return static_cast<int16_t>(v);
    case ScalarType::Int32: return static_cast<int32_t>(v);
    case ScalarType::UInt8: return static_cast<uint8_t>(v);
    default: return v;
  }
}
EMBER_HD_INLINE int64_t gcd_in(int64_t a, int64_t b, ScalarType st) {
  a = wrap_to(a < 0 ? m::neg(a) : a, st);
  b = wrap_to(b < 0 ? m::neg(b) : b, st);
  while (a != 0) {
    const int64_t c = a;
    a = a == -1 ? 0 : b % a;
    b = c;
  }
  return b;
}
template <typename C>
struct GcdF {
  ScalarType st;
  EMBER_HD_INLINE C operator()(C a, C b) const { return gcd_in(a, b, st); }
};
template <typename C>
struct LcmF {
  ScalarType st;
  EMBER_HD_INLINE C operator()(C a, C b) const {
    const int64_t g = gcd_in(a, b, st);
    if (g == 0) return C(0);
    const int64_t q = g == -1 ? m::neg(int64_t(a)) : int64_t(a) / g;
    int64_t r = m::mul(q, int64_t(b));
    if (st == ScalarType::Int32) r = static_cast<int32_t>(r);
    return r < 0 ? m::neg(r) : r;
  }
};

template <typename C, typename Runner>
void dispatch_special_float(SpecialOp op, const SpecialArgs& a, ScalarType common, Runner& r) {
  switch (op) {
    case SpecialOp::Lgamma: return r.template run<C, 1>(LgammaF<C>{});
    case SpecialOp::Digamma: return r.template run<C, 1>(DigammaF<C>{});
    case SpecialOp::Polygamma: return r.template run<C, 1>(PolygammaF<C>{a.n});
    case SpecialOp::Erfinv: return r.template run<C, 1>(ErfinvF<C>{});
    case SpecialOp::I0: return r.template run<C, 1>(I0F<C>{});
    case SpecialOp::I0e: return r.template run<C, 1>(I0eF<C>{});
    case SpecialOp::I1: return r.template run<C, 1>(I1F<C>{});
    case SpecialOp::I1e: return r.template run<C, 1>(I1eF<C>{});
    case SpecialOp::Ndtr: return r.template run<C, 1>(NdtrF<C>{});
    case SpecialOp::Ndtri: return r.template run<C, 1>(NdtriF<C>{});
    case SpecialOp::LogNdtr: return r.template run<C, 1>(LogNdtrF<C>{});
    case SpecialOp::Erfcx: return r.template run<C, 1>(ErfcxF<C>{});
    case SpecialOp::BesselJ0: return r.template run<C, 1>(BesselJ0F<C>{});
    case SpecialOp::BesselJ1: return r.template run<C, 1>(BesselJ1F<C>{});
    case SpecialOp::Entr: return r.template run<C, 1>(EntrF<C>{});
    case SpecialOp::Logit: return r.template run<C, 1>(LogitF<C>{C(a.eps)});
    case SpecialOp::FrexpMantissa: return r.template run<C, 1>(FrexpMantissaF<C>{});
    case SpecialOp::FrexpExponent: return r.template run<C, 1>(FrexpExponentF<C>{});
    case SpecialOp::Igamma: return r.template run<C, 2>(IgammaF<C>{false});
    case SpecialOp::Igammac: return r.template run<C, 2>(IgammaF<C>{true});
    case SpecialOp::Zeta: return r.template run<C, 2>(ZetaF<C>{});
    case SpecialOp::Xlog1py: return r.template run<C, 2>(Xlog1pyF<C>{});
    case SpecialOp::Nextafter: return r.template run<C, 2>(NextafterF<C>{common});
    default: break;
  }
  throw Error("internal error: not a floating special op");
}

template <typename Runner>
void dispatch_special(SpecialOp op, const ElementwiseIter& it, const SpecialArgs& a, Runner& r) {
  if (op == SpecialOp::Gcd) return r.template run<int64_t, 2>(GcdF<int64_t>{it.common});
  if (op == SpecialOp::Lcm) return r.template run<int64_t, 2>(LcmF<int64_t>{it.common});
  if (compute_dtype(it.common) == ScalarType::Float64) {
    return dispatch_special_float<double>(op, a, it.common, r);
  }
  return dispatch_special_float<float>(op, a, it.common, r);
}

}  // namespace ember::ops
