// The special functions of torch.special that ember compiles for the GPU at
// run time (airy_ai, the Bessel functions Y0/Y1, I0/I1/K0/K1 and the scaled
// K0/K1, the spherical j0, and the orthogonal polynomials), as function
// templates over float and double shared by the host and the device.
//
// One source, two compilers: the CPU loops include this header (g++), and the
// build embeds its text in the library (CMake writes it into a string,
// cmake/embed_source.cmake) so that the jiterator compiles the very same code
// with NVRTC for the GPU (ops/pointwise/special_jit.cpp). It therefore
// includes nothing under NVRTC (no standard or CUDA headers there) and uses
// only the C math library's float/double functions, which both sides have.
//
// Semantics follow torch's (special values, the regimes of each algorithm,
// the order n of the polynomials truncated to an integer, negative n giving
// 0); the algorithms:
// - the Bessel functions: Cephes's rational and Chebyshev approximations (the
//   coefficient tables below are from the Cephes Math Library, Copyright
//   1984-2000 Stephen L. Moshier, 3-clause BSD);
// - airy_ai: the Maclaurin series of Ai near 0, Cephes's rational
//   approximations of the asymptotic forms for |x| >= 2.09;
// - spherical_bessel_j0: sin(x)/x, its Taylor series for |x| < 0.5;
// - the polynomials: their three-term recurrences, stopped once a term is
//   NaN; the Chebyshev families use the trigonometric forms (cos(n t),
//   sin((n+1) t)/sin t, ... with x = cos t) inside (-1, 1) for large n, and
//   Hermite's H/He give NaN above n = 128 (float) / 512 (double), as torch.
#pragma once

#if !defined(__CUDACC_RTC__)
#include <cmath>
#include <cstdint>
#include <limits>
#endif

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define EMBER_SPECIAL_HD __host__ __device__ inline
#else
#define EMBER_SPECIAL_HD inline
#endif

namespace ember {
namespace special_math {

// ---- the C library's functions, for float and double
// -------------------------

#define EMBER_SPECIAL_MATH_1(name, f, d)                  \
  EMBER_SPECIAL_HD float name(float x) { return ::f(x); } \
  EMBER_SPECIAL_HD double name(double x) { return ::d(x); }
EMBER_SPECIAL_MATH_1(sqrt_, sqrtf, sqrt)
EMBER_SPECIAL_MATH_1(exp_, expf, exp)
EMBER_SPECIAL_MATH_1(log_, logf, log)
EMBER_SPECIAL_MATH_1(sin_, sinf, sin)
EMBER_SPECIAL_MATH_1(cos_, cosf, cos)
EMBER_SPECIAL_MATH_1(acos_, acosf, acos)
EMBER_SPECIAL_MATH_1(fabs_, fabsf, fabs)
#undef EMBER_SPECIAL_MATH_1

template <typename T>
EMBER_SPECIAL_HD T infinity() {
#if defined(__CUDA_ARCH__)
  return sizeof(T) == 4 ? T(__int_as_float(0x7f800000))
                        : T(__longlong_as_double(0x7ff0000000000000LL));
#else
  return std::numeric_limits<T>::infinity();
#endif
}
template <typename T>
EMBER_SPECIAL_HD T quiet_nan() {
#if defined(__CUDA_ARCH__)
  return sizeof(T) == 4 ? T(__int_as_float(0x7fc00000))
                        : T(__longlong_as_double(0x7ff8000000000000LL));
#else
  return std::numeric_limits<T>::quiet_NaN();
#endif
}
template <typename T>
EMBER_SPECIAL_HD bool is_nan(T x) {
  return x != x;
}
template <typename T>
EMBER_SPECIAL_HD bool is_inf(T x) {
  return fabs_(x) == infinity<T>();
}
// Machine epsilon of T.
template <typename T>
EMBER_SPECIAL_HD T epsilon() {
  return sizeof(T) == 4 ? T(1.1920928955078125e-07) : T(2.220446049250313e-16);
}

constexpr double kPi = 3.14159265358979323846;
constexpr double kPi_4 = 0.78539816339744830962;
constexpr double k3Pi_4 = 2.35619449019234492885;
constexpr double k2_Pi = 0.63661977236758134308;
constexpr double kSqrt2_Pi = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kInvSqrtPi = 0.56418958354775628695;

// ---- series helpers (coefficients highest order first, rounded to T)
// ---------

// a[0] x^(N-1) + ... + a[N-1]
template <typename T, int N>
EMBER_SPECIAL_HD T polevl(T x, const double (&a)[N]) {
  T r = T(a[0]);
  for (int i = 1; i < N; ++i) r = r * x + T(a[i]);
  return r;
}
// x^N + a[0] x^(N-1) + ... + a[N-1] (an implicit leading 1)
template <typename T, int N>
EMBER_SPECIAL_HD T p1evl(T x, const double (&a)[N]) {
  T r = x + T(a[0]);
  for (int i = 1; i < N; ++i) r = r * x + T(a[i]);
  return r;
}
// Clenshaw's sum of a Chebyshev series in the variable y = x/2 (Cephes's
// chbevl convention: sum' a[N-1-i] T_i(y / 2)).
template <typename T, int N>
EMBER_SPECIAL_HD T chbevl(T y, const double (&a)[N]) {
  T b0 = T(a[0]), b1 = T(0), b2 = T(0);
  for (int i = 1; i < N; ++i) {
    b2 = b1;
    b1 = b0;
    b0 = y * b1 - b2 + T(a[i]);
  }
  return T(0.5) * (b0 - b2);
}

// The integer order of a polynomial from its value in T, as torch's kernels
// convert it: truncation; on the host a NaN or out-of-range order is the
// x86 conversion's "indefinite" INT64_MIN (so the polynomial is 0), on the
// device NaN is 0 (CUDA's conversion) and out-of-range orders saturate to
// INT64_MIN / INT64_MAX.
template <typename T>
EMBER_SPECIAL_HD long long order_of(T n) {
  const long long lo = -9223372036854775807LL - 1;
#if defined(__CUDA_ARCH__)
  if (is_nan(n)) return 0;
  if (n >= T(9.2233720368547758e18)) return 9223372036854775807LL;
  if (n <= T(-9.2233720368547758e18)) return lo;
#else
  if (is_nan(n) || !(fabs_(n) < T(9.2233720368547758e18))) return lo;
#endif
  return static_cast<long long>(n);
}

// ---- Bessel functions of the first and second kind
// ---------------------------

// Hankel's asymptotic form of J0/Y0 for x > 5: P0(25/x^2) and Q0(25/x^2).
template <typename T>
EMBER_SPECIAL_HD void hankel0(T z, T *p, T *q) {
  constexpr double PP[] = {7.96936729297347051624E-4, 8.28352392107440799803E-2,
                           1.23953371646414299388E0,  5.44725003058768775090E0,
                           8.74716500199817011941E0,  5.30324038235394892183E0,
                           9.99999999999999997821E-1};
  constexpr double PQ[] = {9.24408810558863637013E-4, 8.56288474354474431428E-2,
                           1.25352743901058953537E0,  5.47097740330417105182E0,
                           8.76190883237069594232E0,  5.30605288235394617618E0,
                           1.00000000000000000218E0};
  constexpr double QP[] = {-1.13663838898469149931E-2, -1.28252718670509318512E0,
                           -1.95539544257735972385E1,  -9.32060152123768231369E1,
                           -1.77681167980488050595E2,  -1.47077505154951170175E2,
                           -5.14105326766599330220E1,  -6.05014350600728481186E0};
  constexpr double QQ[] = {6.43178256118178023184E1, 8.56430025976980587198E2,
                           3.88240183605401609683E3, 7.24046774195652478189E3,
                           5.93072701187316984827E3, 2.06209331660327847417E3,
                           2.42005740240291393179E2};
  *p = polevl(z, PP) / polevl(z, PQ);
  *q = polevl(z, QP) / p1evl(z, QQ);
}

// The same for J1/Y1.
template <typename T>
EMBER_SPECIAL_HD void hankel1(T z, T *p, T *q) {
  constexpr double PP[] = {7.62125616208173112003E-4, 7.31397056940917570436E-2,
                           1.12719608129684925192E0,  5.11207951146807644818E0,
                           8.42404590141772420927E0,  5.21451598682361504063E0,
                           1.00000000000000000254E0};
  constexpr double PQ[] = {5.71323128072548699714E-4, 6.88455908754495404082E-2,
                           1.10514232634061696926E0,  5.07386386128601488557E0,
                           8.39985554327604159757E0,  5.20982848682361821619E0,
                           9.99999999999999997461E-1};
  constexpr double QP[] = {5.10862594750176621635E-2, 4.98213872951233449420E0,
                           7.58238284132545283818E1,  3.66779609360150777800E2,
                           7.10856304998926107277E2,  5.97489612400613639965E2,
                           2.11688757100572135698E2,  2.52070205858023719784E1};
  constexpr double QQ[] = {7.42373277035675149943E1, 1.05644886038262816351E3,
                           4.98641058337653607651E3, 9.56231892404756170795E3,
                           7.99704160447350683650E3, 2.82619278517639096600E3,
                           3.36093607810698293419E2};
  *p = polevl(z, PP) / polevl(z, PQ);
  *q = polevl(z, QP) / p1evl(z, QQ);
}

// J0 by Cephes's rational approximations (the zeros r1^2, r2^2 factored out on
// [0, 5]); Y0 needs it on (0, 5].
template <typename T>
EMBER_SPECIAL_HD T cephes_j0(T x) {
  constexpr double RP[] = {-4.79443220978201773821E9, 1.95617491946556577543E12,
                           -2.49248344360967716204E14, 9.70862251047306323952E15};
  constexpr double RQ[] = {4.99563147152651017219E2,  1.73785401676374683123E5,
                           4.84409658339962045305E7,  1.11855537045356834862E10,
                           2.11277520115489217587E12, 3.10518229857422583814E14,
                           3.18121955943204943306E16, 1.71086294081043136091E18};
  x = fabs_(x);
  if (x <= T(5)) {
    const T z = x * x;
    if (x < T(1e-5)) return T(1) - z / T(4);
    return (z - T(5.78318596294678452118E0)) * (z - T(3.04712623436620863991E1)) * polevl(z, RP) /
           p1evl(z, RQ);
  }
  const T w = T(5) / x;
  T p, qq;
  hankel0(T(25) / (x * x), &p, &qq);
  const T xn = x - T(kPi_4);
  return (p * cos_(xn) - w * qq * sin_(xn)) * T(kSqrt2_Pi) / sqrt_(x);
}

template <typename T>
EMBER_SPECIAL_HD T cephes_j1(T x) {
  constexpr double RP[] = {-8.99971225705559398224E8, 4.52228297998194034323E11,
                           -7.27494245221818276015E13, 3.68295732863852883286E15};
  constexpr double RQ[] = {6.20836478118054335476E2,  2.56987256757748830383E5,
                           8.35146791431949253037E7,  2.21511595479792499675E10,
                           4.74914122079991414898E12, 7.84369607876235854894E14,
                           8.95222336184627338078E16, 5.32278620332680085395E18};
  const T ax = fabs_(x);
  T r;
  if (ax <= T(5)) {
    const T z = x * x;
    r = polevl(z, RP) / p1evl(z, RQ) * ax * (z - T(1.46819706421238932572E1)) *
        (z - T(4.92184563216946036703E1));
  } else {
    const T w = T(5) / ax;
    T p, q;
    hankel1(w * w, &p, &q);
    const T xn = ax - T(k3Pi_4);
    r = (p * cos_(xn) - w * q * sin_(xn)) * T(kSqrt2_Pi) / sqrt_(ax);
  }
  return x < T(0) ? -r : r;
}

// Y0: -inf at 0, NaN for x < 0; Y0(x) - 2/pi log(x) J0(x) is rational on (0,
// 5].
template <typename T>
EMBER_SPECIAL_HD T bessel_y0(T x) {
  constexpr double YP[] = {1.55924367855235737965E4,  -1.46639295903971606143E7,
                           5.43526477051876500413E9,  -9.82136065717911466409E11,
                           8.75906394395366999549E13, -3.46628303384729719441E15,
                           4.42733268572569800351E16, -1.84950800436986690637E16};
  constexpr double YQ[] = {1.04128353664259848412E3,  6.26107330137134956842E5,
                           2.68919633393814121987E8,  8.64002487103935000337E10,
                           2.02979612750105546709E13, 3.17157752842975028269E15,
                           2.50596256172653059228E17};
  if (x <= T(5)) {
    if (x == T(0)) return -infinity<T>();
    if (x < T(0)) return quiet_nan<T>();
    const T z = x * x;
    return polevl(z, YP) / p1evl(z, YQ) + T(k2_Pi) * log_(x) * cephes_j0(x);
  }
  const T w = T(5) / x;
  T p, qq;
  hankel0(T(25) / (x * x), &p, &qq);
  const T xn = x - T(kPi_4);
  return (p * sin_(xn) + w * qq * cos_(xn)) * T(kSqrt2_Pi) / sqrt_(x);
}

// Y1: -inf at 0, NaN for x < 0; (Y1(x) - 2/pi (J1(x) log x - 1/x)) / x is
// rational on (0, 5].
template <typename T>
EMBER_SPECIAL_HD T bessel_y1(T x) {
  constexpr double YP[] = {1.26320474790178026440E9,  -6.47355876379160291031E11,
                           1.14509511541823727583E14, -8.12770255501325109621E15,
                           2.02439475713594898196E17, -7.78877196265950026825E17};
  constexpr double YQ[] = {5.94301592346128195359E2,  2.35564092943068577943E5,
                           7.34811944459721705660E7,  1.87601316108706159478E10,
                           3.88231277496238566008E12, 6.20557727146953693363E14,
                           6.87141087355300489866E16, 3.97270608116560655612E18};
  if (x <= T(5)) {
    if (x == T(0)) return -infinity<T>();
    if (x < T(0)) return quiet_nan<T>();
    const T z = x * x;
    return x * (polevl(z, YP) / p1evl(z, YQ)) + T(k2_Pi) * (cephes_j1(x) * log_(x) - T(1) / x);
  }
  const T w = T(5) / x;
  T p, q;
  hankel1(w * w, &p, &q);
  const T xn = x - T(k3Pi_4);
  return (p * sin_(xn) + w * q * cos_(xn)) * T(kSqrt2_Pi) / sqrt_(x);
}

// ---- modified Bessel functions
// -----------------------------------------------

// exp(-|x|) I0(x) by Chebyshev series on [0, 8], and exp(-|x|) sqrt|x| I0(x)
// in 32/|x| on (8, inf).
template <typename T>
EMBER_SPECIAL_HD T i0_series(T x) {
  constexpr double A[] = {
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
  constexpr double B[] = {
      -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
      3.46122286769746109310E-17,  -2.82762398051658348494E-16, -3.42548561967721913462E-16,
      1.77256013305652638360E-15,  3.81168066935262242075E-15,  -9.55484669882830764870E-15,
      -4.15056934728722208663E-14, 1.54008621752140982691E-14,  3.85277838274214270114E-13,
      7.18012445138366623367E-13,  -1.79417853150680611778E-12, -1.32158118404477131188E-11,
      -3.14991652796324136454E-11, 1.18891471078464383424E-11,  4.94060238822496958910E-10,
      3.39623202570838634515E-9,   2.26666899049817806459E-8,   2.04891858946906374183E-7,
      2.89137052083475648297E-6,   6.88975834691682398426E-5,   3.36911647825569408990E-3,
      8.04490411014108831608E-1};
  x = fabs_(x);
  if (x <= T(8)) return chbevl(x / T(2) - T(2), A);
  return chbevl(T(32) / x - T(2), B);  // times 1/sqrt(x)
}

// exp(-|x|) I1(x) / |x| on [0, 8], exp(-|x|) sqrt|x| I1(x) on (8, inf).
template <typename T>
EMBER_SPECIAL_HD T i1_series(T x) {
  constexpr double A[] = {
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
  constexpr double B[] = {
      7.51729631084210481353E-18,  4.41434832307170791151E-18,  -4.65030536848935832153E-17,
      -3.20952592199342395980E-17, 2.96262899764595013876E-16,  3.30820231092092828324E-16,
      -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
      4.27244001671195135429E-14,  -2.10154184277266431302E-14, -4.08355111109219731823E-13,
      -7.19855177624590851209E-13, 2.03562854414708950722E-12,  1.41258074366137813316E-11,
      3.25260358301548823856E-11,  -1.89749581235054123450E-11, -5.58974346219658380687E-10,
      -3.83538038596423702205E-9,  -2.63146884688951950684E-8,  -2.51223623787020892529E-7,
      -3.88256480887769039346E-6,  -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
      7.78576235018280120474E-1};
  const T z = fabs_(x);
  return z <= T(8) ? chbevl(z / T(2) - T(2), A) : chbevl(T(32) / z - T(2), B);
}

// I0 and I1 (odd), multiplied in torch's order so that results that overflow
// or underflow do so alike.
template <typename T>
EMBER_SPECIAL_HD T modified_bessel_i0(T x) {
  const T z = fabs_(x);
  if (z <= T(8)) return exp_(z) * i0_series(z);
  return exp_(z) * i0_series(z) / sqrt_(z);
}
template <typename T>
EMBER_SPECIAL_HD T modified_bessel_i1(T x) {
  const T z = fabs_(x);
  const T r = z <= T(8) ? i1_series(z) * z * exp_(z) : exp_(z) * i1_series(z) / sqrt_(z);
  return x < T(0) ? -r : r;
}

// K0 (scaled: exp(x) K0(x)); +inf at 0, NaN for x < 0.
template <typename T>
EMBER_SPECIAL_HD T bessel_k0_any(T x, bool scaled) {
  // K0(x) + log(x/2) I0(x) on [0, 2] (in x^2 - 2); exp(x) sqrt(x) K0(x) on
  // (2, inf) (in 8/x - 2)
  constexpr double A[] = {1.37446543561352307156E-16, 4.25981614279661018399E-14,
                          1.03496952576338420167E-11, 1.90451637722020886025E-9,
                          2.53479107902614945675E-7,  2.28621210311945178607E-5,
                          1.26461541144692592338E-3,  3.59799365153615016266E-2,
                          3.44289899924628486886E-1,  -5.35327393233902768720E-1};
  constexpr double B[] = {
      5.30043377268626276149E-18,  -1.64758043015242134646E-17, 5.21039150503902756861E-17,
      -1.67823109680541210385E-16, 5.51205597852431940784E-16,  -1.84859337734377901440E-15,
      6.34007647740507060557E-15,  -2.22751332699166985548E-14, 8.03289077536357521100E-14,
      -2.98009692317273043925E-13, 1.14034058820847496303E-12,  -4.51459788337394416547E-12,
      1.85594911495471785253E-11,  -7.95748924447710747776E-11, 3.57739728140030116597E-10,
      -1.69753450938905987466E-9,  8.57403401741422608519E-9,   -4.66048989768794782956E-8,
      2.76681363944501510342E-7,   -1.83175552271911948767E-6,  1.39498137188764993662E-5,
      -1.28495495816278026384E-4,  1.56988388573005337491E-3,   -3.14481013119645005427E-2,
      2.44030308206595545468E0};
  if (x == T(0)) return infinity<T>();
  if (x < T(0)) return quiet_nan<T>();
  if (x <= T(2)) {
    const T k = chbevl(x * x - T(2), A) - log_(T(0.5) * x) * modified_bessel_i0(x);
    return scaled ? k * exp_(x) : k;
  }
  const T c = chbevl(T(8) / x - T(2), B);
  return scaled ? c / sqrt_(x) : exp_(-x) * c / sqrt_(x);
}
template <typename T>
EMBER_SPECIAL_HD T bessel_k1_any(T x, bool scaled) {
  // x (K1(x) - log(x/2) I1(x)) on [0, 2]; exp(x) sqrt(x) K1(x) on (2, inf)
  constexpr double A[] = {
      -7.02386347938628759343E-18, -2.42744985051936593393E-15, -6.66690169419932900609E-13,
      -1.41148839263352776110E-10, -2.21338763073472585583E-8,  -2.43340614156596823496E-6,
      -1.73028895751305206302E-4,  -6.97572385963986435018E-3,  -1.22611180822657148235E-1,
      -3.53155960776544875667E-1,  1.52530022733894777053E0};
  constexpr double B[] = {
      -5.75674448366501715755E-18, 1.79405087314755922667E-17,  -5.68946255844285935196E-17,
      1.83809354436663880070E-16,  -6.05704724837331885336E-16, 2.03870316562433424052E-15,
      -7.01983709041831346144E-15, 2.47715442448130437068E-14,  -8.97670518232499435011E-14,
      3.34841966607842919884E-13,  -1.28917396095102890680E-12, 5.13963967348173025100E-12,
      -2.12996783842756842877E-11, 9.21831518760500529508E-11,  -4.19035475934189648750E-10,
      2.01504975519703286596E-9,   -1.03457624656780970260E-8,  5.74108412545004946722E-8,
      -3.50196060308781257119E-7,  2.40648494783721712015E-6,   -1.93619797416608296024E-5,
      1.95215518471351631108E-4,   -2.85781685962277938680E-3,  1.03923736576817238437E-1,
      2.72062619048444266945E0};
  if (x == T(0)) return infinity<T>();
  if (x < T(0)) return quiet_nan<T>();
  if (x <= T(2)) {
    const T k = log_(T(0.5) * x) * modified_bessel_i1(x) + chbevl(x * x - T(2), A) / x;
    return scaled ? k * exp_(x) : k;
  }
  const T c = chbevl(T(8) / x - T(2), B);
  return scaled ? c / sqrt_(x) : exp_(-x) * c / sqrt_(x);
}
template <typename T>
EMBER_SPECIAL_HD T modified_bessel_k0(T x) {
  return bessel_k0_any(x, false);
}
template <typename T>
EMBER_SPECIAL_HD T modified_bessel_k1(T x) {
  return bessel_k1_any(x, false);
}
template <typename T>
EMBER_SPECIAL_HD T scaled_modified_bessel_k0(T x) {
  return bessel_k0_any(x, true);
}
template <typename T>
EMBER_SPECIAL_HD T scaled_modified_bessel_k1(T x) {
  return bessel_k1_any(x, true);
}

// ---- Airy's Ai and the spherical j0
// ------------------------------------------

// Ai(x): NaN at +-inf, 0 above 103.892 (it underflows), the asymptotic
// rational forms for x < -2.09 and x >= 2.09 (alone above 8.32), the
// Maclaurin series Ai(x) = c1 f(x) - c2 g(x) in between.
template <typename T>
EMBER_SPECIAL_HD T airy_ai(T x) {
  constexpr double AN[] = {3.46538101525629032477E-1, 1.20075952739645805542E1,
                           7.62796053615234516538E1,  1.68089224934630576269E2,
                           1.59756391350164413639E2,  7.05360906840444183113E1,
                           1.40264691163389668864E1,  9.99999999999999995305E-1};
  constexpr double AD[] = {5.67594532638770212846E-1, 1.47562562584847203173E1,
                           8.45138970141474626562E1,  1.77318088145400459522E2,
                           1.64234692871529701831E2,  7.14778400825575695274E1,
                           1.40959135607834029598E1,  1.00000000000000000470E0};
  constexpr double AFN[] = {
      -1.31696323418331795333E-1, -6.26456544431912369773E-1, -6.93158036036933542233E-1,
      -2.79779981545119124951E-1, -4.91900132609500318020E-2, -4.06265923594885404393E-3,
      -1.59276496239262096340E-4, -2.77649108155232920844E-6, -1.67787698489114633780E-8};
  constexpr double AFD[] = {
      1.33560420706553243746E1,  3.26825032795224613948E1,  2.67367040941499554804E1,
      9.18707402907259625840E0,  1.47529146771666414581E0,  1.15687173795188044134E-1,
      4.40291641615211203805E-3, 7.54720348287414296618E-5, 4.51850092970580378464E-7};
  constexpr double AGN[] = {
      1.97339932091685679179E-2, 3.91103029615688277255E-1, 1.06579897599595591108E0,
      9.39169229816650230044E-1, 3.51465656105547619242E-1, 6.33888919628925490927E-2,
      5.85804113048388458567E-3, 2.82851600836737019778E-4, 6.98793669997260967291E-6,
      8.11789239554389293311E-8, 3.41551784765923618484E-10};
  constexpr double AGD[] = {9.30892908077441974853E0,  1.98352928718312140417E1,
                            1.55646628932864612953E1,  5.47686069422975497931E0,
                            9.54293611618961883998E-1, 8.64580826352392193095E-2,
                            4.12656523824222607191E-3, 1.01259085116509135510E-4,
                            1.17166733214413521882E-6, 4.91834570062930015649E-9};
  if (is_inf(x)) return quiet_nan<T>();
  if (x > T(103.892)) return T(0);
  if (x < T(-2.09)) {
    // Ai(-|x|) = pi^-1/2 |x|^-1/4 (sin(zeta + pi/4) f(zeta) - cos(zeta + pi/4)
    // g(zeta)), zeta = 2/3 |x|^3/2
    const T t = sqrt_(-x);
    const T zeta = T(-2) * x * t / T(3);
    const T z = T(1) / zeta, zz = z * z;
    const T uf = T(1) + zz * polevl(zz, AFN) / p1evl(zz, AFD);
    const T ug = z * polevl(zz, AGN) / p1evl(zz, AGD);
    const T theta = zeta + T(kPi_4);
    return T(kInvSqrtPi) / sqrt_(t) * (sin_(theta) * uf - cos_(theta) * ug);
  }
  T ai = T(0);
  const bool asymptotic = x >= T(2.09);
  if (asymptotic) {
    // Ai(x) = pi^-1/2 exp(-zeta) / (2 x^1/4) R(1/zeta)
    const T t = sqrt_(x);
    const T zeta = T(2) * x * t / T(3);
    const T z = T(1) / zeta;
    ai = T(kInvSqrtPi) * (polevl(z, AN) / polevl(z, AD)) / (T(2) * sqrt_(t) * exp_(zeta));
    if (x > T(8.3203353)) return ai;
  }
  // f = sum 3^k (1/3)_k x^3k / (3k)!, g = sum 3^k (2/3)_k x^(3k+1) / (3k+1)!
  T f = T(1), g = x, uf = T(1), ug = x, k = T(1), t = T(1);
  const T z = x * x * x;
  while (t > epsilon<T>()) {
    uf *= z;
    k += T(1);
    uf /= k;
    ug *= z;
    k += T(1);
    ug /= k;
    uf /= k;
    f += uf;
    k += T(1);
    ug /= k;
    g += ug;
    t = fabs_(uf / f);
  }
  if (asymptotic) return ai;
  return T(0.355028053887817239260) * f - T(0.258819403792806798405) * g;
}

// j0(x) = sin(x) / x; 0 at +-inf.
template <typename T>
EMBER_SPECIAL_HD T spherical_bessel_j0(T x) {
  if (is_inf(x)) return T(0);
  if (fabs_(x) < T(0.5)) {
    const T z = x * x;
    // sum (-1)^k x^2k / (2k + 1)!
    return T(1) + z * (T(-1) / T(6) +
                       z * (T(1) / T(120) +
                            z * (T(-1) / T(5040) +
                                 z * (T(1) / T(362880) +
                                      z * (T(-1) / T(39916800) + z * (T(1) / T(6227020800.0)))))));
  }
  return sin_(x) / x;
}

// ---- orthogonal polynomials
// ----------------------------------------------------

// The Chebyshev recurrence y_{k+1} = 2 t y_k - y_{k-1} from (y_0, y_1) = (1,
// q1) up to y_n (n >= 2), stopped at the first NaN term (torch's loop; a NaN x
// gives NaN).
template <typename T>
EMBER_SPECIAL_HD T chebyshev_recurrence(T t, T q1, long long n) {
  T p = T(1), q = q1, r = q1;
  if (is_nan(q)) return q;
  for (long long k = 2; k <= n && !is_nan(q); ++k) {
    r = (t + t) * q - p;
    p = q;
    q = r;
  }
  return r;
}

// T_n(x) = cos(n acos x)
template <typename T>
EMBER_SPECIAL_HD T chebyshev_t(T x, long long n) {
  if (n < 0) return T(0);
  if (fabs_(x) == T(1)) return (x > T(0) || n % 2 == 0) ? T(1) : T(-1);
  if (n > 6 && fabs_(x) < T(1)) return cos_(T(n) * acos_(x));
  if (n == 0) return T(1);
  if (n == 1) return x;
  return chebyshev_recurrence(x, x, n);
}

// U_n(x) = sin((n + 1) t) / sin t, x = cos t
template <typename T>
EMBER_SPECIAL_HD T chebyshev_u(T x, long long n) {
  if (n < 0) return T(0);
  if (fabs_(x) == T(1)) return (x > T(0) || n % 2 == 0) ? T(n + 1) : -T(n + 1);
  if (n > 8 && fabs_(x) < T(1)) {
    const T t = acos_(x);
    if (sin_(t) != T(0)) return sin_(T(n + 1) * t) / sin_(t);
    return T(n + 1) * cos_(T(n + 1) * t) / x;
  }
  if (n == 0) return T(1);
  if (n == 1) return x + x;
  return chebyshev_recurrence(x, x + x, n);
}

// V_n(x) = cos((n + 1/2) t) / cos(t / 2)
template <typename T>
EMBER_SPECIAL_HD T chebyshev_v(T x, long long n) {
  if (n < 0) return T(0);
  if (fabs_(x) == T(1)) {
    if (x > T(0)) return T(1);
    return n % 2 == 0 ? T(n + n + 1) : -T(n + n + 1);
  }
  if (n > 8 && fabs_(x) < T(1)) {
    const T t = acos_(x);
    if (sin_(t / T(2)) != T(1)) return cos_((T(n) + T(0.5)) * t) / cos_(t / T(2));
    return n % 2 == 0 ? T(n + n + 1) : -T(n + n + 1);
  }
  if (n == 0) return T(1);
  if (n == 1) return x + x - T(1);
  return chebyshev_recurrence(x, x + x - T(1), n);
}

// W_n(x) = sin((n + 1/2) t) / sin(t / 2)
template <typename T>
EMBER_SPECIAL_HD T chebyshev_w(T x, long long n) {
  if (n < 0) return T(0);
  if (fabs_(x) == T(1)) {
    if (x > T(0)) return T(n + n + 1);
    return n % 2 == 0 ? T(1) : T(-1);
  }
  if (n > 8 && fabs_(x) < T(1)) {
    const T t = acos_(x);
    if (cos_(t / T(2)) != T(1)) return sin_((T(n) + T(0.5)) * t) / sin_(t / T(2));
    if (x > T(0)) return T(n + n + 1);
    return n % 2 == 0 ? T(1) : T(-1);
  }
  if (n == 0) return T(1);
  if (n == 1) return x + x + T(1);
  return chebyshev_recurrence(x, x + x + T(1), n);
}

// The shifted polynomials T*_n(x) = T_n(2x - 1), ... (their own special points
// x = 1 and x = 0, and trigonometric forms for n > 6, or n > 4 for W*).
template <typename T>
EMBER_SPECIAL_HD T shifted_chebyshev_t(T x, long long n) {
  if (n < 0) return T(0);
  if (x == T(1)) return T(1);
  if (x == T(0)) return n % 2 == 0 ? T(1) : T(-1);
  const T y = x + x - T(1);
  if (n > 6 && fabs_(y) < T(1)) return cos_(T(n) * acos_(y));
  if (n == 0) return T(1);
  if (n == 1) return y;
  return chebyshev_recurrence(y, y, n);
}

template <typename T>
EMBER_SPECIAL_HD T shifted_chebyshev_u(T x, long long n) {
  if (n < 0) return T(0);
  if (x == T(1)) return T(n + 1);
  if (x == T(0)) return n % 2 == 0 ? T(n + 1) : -T(n + 1);
  const T y = x + x - T(1);
  if (n > 6 && fabs_(y) < T(1)) {
    const T t = acos_(y);
    if (sin_(t) != T(0)) return sin_(T(n + 1) * t) / sin_(t);
    return T(n + 1) * cos_(T(n + 1) * t) / y;
  }
  if (n == 0) return T(1);
  if (n == 1) return y + y;
  return chebyshev_recurrence(y, y + y, n);
}

template <typename T>
EMBER_SPECIAL_HD T shifted_chebyshev_v(T x, long long n) {
  if (n < 0) return T(0);
  if (x == T(1)) return T(1);
  if (x == T(0)) return n % 2 == 0 ? T(n + n + 1) : -T(n + n + 1);
  const T y = x + x - T(1);
  if (n > 6 && fabs_(y) < T(1)) {
    const T t = acos_(y);
    if (sin_(t / T(2)) != T(1)) return cos_((T(n) + T(0.5)) * t) / cos_(t / T(2));
    return n % 2 == 0 ? T(n + n + 1) : -T(n + n + 1);
  }
  if (n == 0) return T(1);
  if (n == 1) return y + y - T(1);
  return chebyshev_recurrence(y, y + y - T(1), n);
}

template <typename T>
EMBER_SPECIAL_HD T shifted_chebyshev_w(T x, long long n) {
  if (n < 0) return T(0);
  if (x == T(1)) return T(n + n + 1);
  if (x == T(0)) return n % 2 == 0 ? T(1) : T(-1);
  const T y = x + x - T(1);
  if (n > 4 && fabs_(y) < T(1)) {
    const T t = acos_(y);
    if (cos_(t / T(2)) != T(1)) return sin_((T(n) + T(0.5)) * t) / sin_(t / T(2));
    return n % 2 == 0 ? T(1) : T(-1);
  }
  if (n == 0) return T(1);
  if (n == 1) return y + y + T(1);
  return chebyshev_recurrence(y, y + y + T(1), n);
}

// The largest order the Hermite recurrences are run to (NaN above, as torch).
template <typename T>
EMBER_SPECIAL_HD long long hermite_limit() {
  return sizeof(T) == 4 ? 128 : 512;
}

// Physicists' H_{k+1} = 2x H_k - 2k H_{k-1}; an infinite or NaN order is -1.
template <typename T>
EMBER_SPECIAL_HD T hermite_h(T x, long long n) {
  if (n < 0) return T(0);
  if (n == 0) return T(1);
  if (n == 1) return x + x;
  if (n > hermite_limit<T>()) return quiet_nan<T>();
  T p = T(1), q = x + x, r = T(0);
  for (long long k = 1; k < n; ++k) {
    r = (x + x) * q - T(2 * k) * p;
    p = q;
    q = r;
  }
  return r;
}

// Probabilists' He_{k+1} = x He_k - k He_{k-1}.
template <typename T>
EMBER_SPECIAL_HD T hermite_he(T x, long long n) {
  if (n < 0) return T(0);
  if (n == 0) return T(1);
  if (n == 1) return x;
  if (n > hermite_limit<T>()) return quiet_nan<T>();
  T p = T(1), q = x, r = x;
  for (long long k = 1; k < n; ++k) {
    r = x * q - T(k) * p;
    p = q;
    q = r;
  }
  return r;
}

// L_{k+1} = ((2k + 1 - x) L_k - k L_{k-1}) / (k + 1); 1 at x = 0.
template <typename T>
EMBER_SPECIAL_HD T laguerre_l(T x, long long n) {
  if (n < 0) return T(0);
  if (fabs_(x) == T(0)) return T(1);
  if (n == 0) return T(1);
  if (n == 1) return T(1) - x;
  T p = T(1), q = T(1) - x, r = q;
  if (is_nan(q)) return q;
  for (long long k = 1; k < n && !is_nan(q); ++k) {
    r = (T(k + k) + (T(1) - x)) * q - T(k) * p;
    r = r / T(k + 1);
    p = q;
    q = r;
  }
  return r;
}

// P_{k+1} = ((2k + 1) x P_k - k P_{k-1}) / (k + 1); +-1 at x = +-1.
template <typename T>
EMBER_SPECIAL_HD T legendre_p(T x, long long n) {
  if (n < 0) return T(0);
  if (fabs_(x) == T(1)) return (x > T(0) || n == 0 || n % 2 == 0) ? T(1) : T(-1);
  if (n == 0) return T(1);
  if (n == 1) return x;
  T p = T(1), q = x, r = x;
  if (is_nan(q)) return q;
  for (long long k = 1; k < n && !is_nan(q); ++k) {
    r = (T(k + k + 1) * x * q - T(k) * p) / T(k + 1);
    p = q;
    q = r;
  }
  return r;
}

// hermite_h's order: torch maps an infinite or NaN order to -1 (so 0).
template <typename T>
EMBER_SPECIAL_HD long long hermite_h_order(T n) {
  return (is_inf(n) || is_nan(n)) ? -1 : order_of(n);
}

}  // namespace special_math
}  // namespace ember
