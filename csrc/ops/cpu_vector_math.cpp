// Selects on float comparisons become vector blends only when comparisons
// may not raise floating-point exceptions (ember never reads those flags).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif

#include "ops/cpu_vector_math.hpp"

#include <cmath>
#include <cstring>

namespace ember::ops {

namespace {

inline float bits_to_float(int32_t i) {
  float f;
  std::memcpy(&f, &i, 4);
  return f;
}
inline int32_t float_to_bits(float f) {
  int32_t i;
  std::memcpy(&i, &f, 4);
  return i;
}
// 2^e for e in [-126, 127].
inline float pow2i(int32_t e) { return bits_to_float((e + 127) << 23); }
// Round to nearest for |v| < 2^22.
inline float round_near(float v) { return (v + 12582912.0f) - 12582912.0f; }

inline float exp1(float x) {
  float xc = x < -104.0f ? -104.0f : x;
  xc = xc > 89.0f ? 89.0f : xc;
  xc = x == x ? xc : 0.0f;  // NaN: any finite value, replaced at the end
  const float n = round_near(xc * 1.44269504088896341f);
  float r = xc - n * 0.693359375f;
  r = r + n * 2.12194440e-4f;
  const float z = r * r;
  float p = 1.9875691500E-4f;
  p = p * r + 1.3981999507E-3f;
  p = p * r + 8.3334519073E-3f;
  p = p * r + 4.1665795894E-2f;
  p = p * r + 1.6666665459E-1f;
  p = p * r + 5.0000001201E-1f;
  p = p * z + r + 1.0f;
  // 2^n in two factors, so that results near underflow and overflow round once.
  const int32_t ni = static_cast<int32_t>(n);
  const int32_t e1 = ni >> 1, e2 = ni - e1;
  const float y = p * pow2i(e1) * pow2i(e2);
  return x != x ? x : y;
}

inline float log1(float x) {
  // Subnormals: scale into the normal range first.
  const bool tiny = x < 1.17549435e-38f;
  const float xs = tiny ? x * 8388608.0f : x;
  const int32_t bits = float_to_bits(xs);
  int32_t e = ((bits >> 23) & 0xff) - 126 - (tiny ? 23 : 0);
  float m = bits_to_float((bits & 0x007fffff) | 0x3f000000);  // [0.5, 1)
  const bool low = m < 0.707106781186547524f;
  e = low ? e - 1 : e;
  m = low ? m + m - 1.0f : m - 1.0f;
  const float fe = static_cast<float>(e);
  const float z = m * m;
  float y = 7.0376836292E-2f;
  y = y * m - 1.1514610310E-1f;
  y = y * m + 1.1676998740E-1f;
  y = y * m - 1.2420140846E-1f;
  y = y * m + 1.4249322787E-1f;
  y = y * m - 1.6668057665E-1f;
  y = y * m + 2.0000714765E-1f;
  y = y * m - 2.4999993993E-1f;
  y = y * m + 3.3333331174E-1f;
  y = y * m * z;
  y += fe * -2.12194440e-4f;
  y += -0.5f * z;
  float r = m + y + fe * 0.693359375f;
  r = x == 0.0f ? -INFINITY : r;
  r = x < 0.0f ? NAN : r;
  r = x == INFINITY ? x : r;
  return x != x ? x : r;
}

// sin (cos_shift = 0) or cos (cos_shift = 2) for |x| < 1024; fixed up by
// the caller outside that range.
inline float sincos1(float x, int32_t cos_shift) {
  const float ax = std::fabs(x);
  int32_t j = static_cast<int32_t>(ax * 1.27323954473516f);  // 4/pi
  j = (j + 1) & ~1;
  const float y = static_cast<float>(j);
  float r = ((ax - y * 0.78515625f) - y * 2.4187564849853515625e-4f) - y * 3.77489497744594108e-8f;
  j = (j + cos_shift) & 7;
  // sin is odd: the sign of x matters for sin only.
  float sign = (cos_shift == 0 && float_to_bits(x) < 0) ? -1.0f : 1.0f;
  sign = j > 3 ? -sign : sign;
  j = j > 3 ? j - 4 : j;
  const float z = r * r;
  float c = 2.443315711809948E-005f;
  c = c * z - 1.388731625493765E-003f;
  c = c * z + 4.166664568298827E-002f;
  c = c * z * z - 0.5f * z + 1.0f;
  float s = -1.9515295891E-4f;
  s = s * z + 8.3321608736E-3f;
  s = s * z - 1.6666654611E-1f;
  s = s * z * r + r;
  const float v = (j == 1 || j == 2) ? c : s;
  return sign * v;
}

EMBER_CPU_CLONES void vexp(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = exp1(x[i]);
}

EMBER_CPU_CLONES void vlog(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = log1(x[i]);
}

// sin/cos, and whether any argument needs the C library (|x| >= 1024, inf, NaN).
EMBER_CPU_CLONES int vsin(const float* x, float* y, int64_t n) {
  int out_of_range = 0;
  for (int64_t i = 0; i < n; ++i) {
    y[i] = sincos1(x[i], 0);
    out_of_range |= !(std::fabs(x[i]) < 1024.0f);
  }
  return out_of_range;
}

EMBER_CPU_CLONES int vcos(const float* x, float* y, int64_t n) {
  int out_of_range = 0;
  for (int64_t i = 0; i < n; ++i) {
    y[i] = sincos1(x[i], 2);
    out_of_range |= !(std::fabs(x[i]) < 1024.0f);
  }
  return out_of_range;
}

// Arguments outside the vector range go through the C library.
void fix_large(const float* x, float* y, int64_t n, float (*f)(float)) {
  for (int64_t i = 0; i < n; ++i) {
    if (!(std::fabs(x[i]) < 1024.0f)) y[i] = f(x[i]);
  }
}

}  // namespace

bool vector_unary_f32(UnaryOp op, const float* x, float* y, int64_t n) {
  switch (op) {
    case UnaryOp::Exp:
      vexp(x, y, n);
      return true;
    case UnaryOp::Log:
      vlog(x, y, n);
      return true;
    case UnaryOp::Sin:
      // In place (y == x) the fix-up must see the inputs: keep them first.
      if (x == y) return false;
      if (vsin(x, y, n)) fix_large(x, y, n, ::sinf);
      return true;
    case UnaryOp::Cos:
      if (x == y) return false;
      if (vcos(x, y, n)) fix_large(x, y, n, ::cosf);
      return true;
    default:
      return false;
  }
}

}  // namespace ember::ops
