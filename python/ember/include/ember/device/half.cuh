// ember's float16 and bfloat16 element types for device code: what the
// jiterator instantiates a float16/bfloat16 function with, and what kernels
// given to ember.cuda.RawKernel or built with ember.utils.cpp_extension may
// use for ember.float16 / ember.bfloat16 data.
//
// - Works under NVRTC (no standard or CUDA headers needed) and nvcc, in
//   device and host code. 16 bits of storage, layout-compatible with
//   __half / __nv_bfloat16 and with ember's tensors.
// - Arithmetic follows torch's c10::Half: Half op Half computes in float and
//   rounds back to Half; Half op float gives float, Half op double gives
//   double, Half op int gives Half. Math functions (sin, exp, ...) take the
//   float overload through the implicit conversion to float.
// - Conversions round to nearest even (the hardware's cvt.rn on the device).
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define EMBER_DEVICE_HD __host__ __device__ __forceinline__
#else
#define EMBER_DEVICE_HD inline
#endif

namespace ember {

namespace device_detail {

EMBER_DEVICE_HD unsigned int float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  union { float f; unsigned int u; } v;
  v.f = f;
  return v.u;
#endif
}

EMBER_DEVICE_HD float bits_float(unsigned int u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  union { float f; unsigned int u; } v;
  v.u = u;
  return v.f;
#endif
}

EMBER_DEVICE_HD float half_to_float(unsigned short h) {
#if defined(__CUDA_ARCH__)
  float f;
  asm("{ cvt.f32.f16 %0, %1; }" : "=f"(f) : "h"(h));
  return f;
#else
  const unsigned int sign = (unsigned int)(h & 0x8000u) << 16;
  unsigned int exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu;
  if (exp == 0x1F) return bits_float(sign | 0x7F800000u | (man << 13));
  if (exp == 0) {
    if (man == 0) return bits_float(sign);
    int e = -1;
    do {
      ++e;
      man <<= 1;
    } while ((man & 0x400u) == 0);
    return bits_float(sign | ((112u - e) << 23) | ((man & 0x3FFu) << 13));
  }
  return bits_float(sign | ((exp + 112u) << 23) | (man << 13));
#endif
}

EMBER_DEVICE_HD unsigned short float_to_half(float f) {
#if defined(__CUDA_ARCH__)
  unsigned short h;
  asm("{ cvt.rn.f16.f32 %0, %1; }" : "=h"(h) : "f"(f));
  return h;
#else
  const unsigned int u = float_bits(f), sign = (u >> 16) & 0x8000u, a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return (unsigned short)(sign | 0x7E00u | ((a >> 13) & 0x3FFu));
  if (a >= 0x477FF000u) return (unsigned short)(sign | 0x7C00u);
  if (a < 0x38800000u) {
    if (a < 0x33000000u) return (unsigned short)sign;
    const unsigned int shift = 126u - (a >> 23), man = (a & 0x7FFFFFu) | 0x800000u;
    unsigned int r = man >> shift;
    const unsigned int rem = man & ((1u << shift) - 1u), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (r & 1u))) ++r;
    return (unsigned short)(sign | r);
  }
  unsigned int r = a - 0x38000000u;
  const unsigned int rem = r & 0x1FFFu;
  r >>= 13;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
  return (unsigned short)(sign | r);
#endif
}

EMBER_DEVICE_HD float bf16_to_float(unsigned short h) { return bits_float((unsigned int)h << 16); }

EMBER_DEVICE_HD unsigned short float_to_bf16(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned short h;
  asm("{ cvt.rn.bf16.f32 %0, %1; }" : "=h"(h) : "f"(f));
  return h;
#else
  const unsigned int u = float_bits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (unsigned short)((u >> 16) | 0x0040u);
  return (unsigned short)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
#endif
}

}  // namespace device_detail

#define EMBER_DEFINE_HALF_TYPE(Name, to_float, from_float)                                   \
  struct alignas(2) Name {                                                                     \
    unsigned short x;                                                                          \
    Name() = default;                                                                          \
    EMBER_DEVICE_HD Name(float f) : x(device_detail::from_float(f)) {}                         \
    EMBER_DEVICE_HD operator float() const { return device_detail::to_float(x); }              \
    static EMBER_DEVICE_HD Name from_bits(unsigned short bits) {                               \
      Name h;                                                                                  \
      h.x = bits;                                                                              \
      return h;                                                                                \
    }                                                                                          \
    EMBER_DEVICE_HD Name& operator+=(const Name& o) { return *this = Name(float(*this) + float(o)); } \
    EMBER_DEVICE_HD Name& operator-=(const Name& o) { return *this = Name(float(*this) - float(o)); } \
    EMBER_DEVICE_HD Name& operator*=(const Name& o) { return *this = Name(float(*this) * float(o)); } \
    EMBER_DEVICE_HD Name& operator/=(const Name& o) { return *this = Name(float(*this) / float(o)); } \
  };                                                                                           \
  EMBER_DEVICE_HD Name operator-(const Name& a) { return Name(-float(a)); }                    \
  EMBER_DEVICE_HD Name operator+(const Name& a, const Name& b) { return Name(float(a) + float(b)); } \
  EMBER_DEVICE_HD Name operator-(const Name& a, const Name& b) { return Name(float(a) - float(b)); } \
  EMBER_DEVICE_HD Name operator*(const Name& a, const Name& b) { return Name(float(a) * float(b)); } \
  EMBER_DEVICE_HD Name operator/(const Name& a, const Name& b) { return Name(float(a) / float(b)); } \
  EMBER_DEFINE_HALF_MIXED_FP(Name, float)                                                      \
  EMBER_DEFINE_HALF_MIXED_FP(Name, double)                                                     \
  EMBER_DEFINE_HALF_MIXED_INT(Name, int)                                                       \
  EMBER_DEFINE_HALF_MIXED_INT(Name, long)                                                      \
  EMBER_DEFINE_HALF_MIXED_INT(Name, long long)

// Name op Other and Other op Name for a floating Other: computed in Other
// (float or double), giving Other.
#define EMBER_DEFINE_HALF_MIXED_FP(Name, Other)                                                \
  EMBER_DEVICE_HD Other operator+(const Name& a, Other b) { return Other(float(a)) + b; }       \
  EMBER_DEVICE_HD Other operator-(const Name& a, Other b) { return Other(float(a)) - b; }       \
  EMBER_DEVICE_HD Other operator*(const Name& a, Other b) { return Other(float(a)) * b; }       \
  EMBER_DEVICE_HD Other operator/(const Name& a, Other b) { return Other(float(a)) / b; }       \
  EMBER_DEVICE_HD Other operator+(Other a, const Name& b) { return a + Other(float(b)); }       \
  EMBER_DEVICE_HD Other operator-(Other a, const Name& b) { return a - Other(float(b)); }       \
  EMBER_DEVICE_HD Other operator*(Other a, const Name& b) { return a * Other(float(b)); }       \
  EMBER_DEVICE_HD Other operator/(Other a, const Name& b) { return a / Other(float(b)); }

// Name op Other for an integer Other: the integer is converted to Name first
// (c10's rule), giving Name.
#define EMBER_DEFINE_HALF_MIXED_INT(Name, Other)                                               \
  EMBER_DEVICE_HD Name operator+(const Name& a, Other b) { return a + Name(float(b)); }         \
  EMBER_DEVICE_HD Name operator-(const Name& a, Other b) { return a - Name(float(b)); }         \
  EMBER_DEVICE_HD Name operator*(const Name& a, Other b) { return a * Name(float(b)); }         \
  EMBER_DEVICE_HD Name operator/(const Name& a, Other b) { return a / Name(float(b)); }         \
  EMBER_DEVICE_HD Name operator+(Other a, const Name& b) { return Name(float(a)) + b; }         \
  EMBER_DEVICE_HD Name operator-(Other a, const Name& b) { return Name(float(a)) - b; }         \
  EMBER_DEVICE_HD Name operator*(Other a, const Name& b) { return Name(float(a)) * b; }         \
  EMBER_DEVICE_HD Name operator/(Other a, const Name& b) { return Name(float(a)) / b; }

EMBER_DEFINE_HALF_TYPE(Half, half_to_float, float_to_half)
EMBER_DEFINE_HALF_TYPE(BFloat16, bf16_to_float, float_to_bf16)

#undef EMBER_DEFINE_HALF_TYPE
#undef EMBER_DEFINE_HALF_MIXED_FP
#undef EMBER_DEFINE_HALF_MIXED_INT

}  // namespace ember
