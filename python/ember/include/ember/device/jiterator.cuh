// What the kernels that ember.cuda.jiterator generates include: element
// conversions with torch's rules and the strided walk of ember's elementwise
// layout. NVRTC-only code (no standard or CUDA headers); included before the
// user's function, so its names live in ember::jit.
//
// The layout mirrors csrc/ops/jit/jiterator.cpp's JitLayout<N> byte for byte:
// the innermost dimension first, byte strides per operand (operand 0.. the
// outputs, then the tensor inputs), and a 32-bit fast division (magic number
// and shift, Granlund-Montgomery) for every dimension when all indices fit in
// 31 bits.
#pragma once

#include <ember/device/complex.cuh>
#include <ember/device/half.cuh>

namespace ember {
namespace jit {

constexpr int kMaxDims = 25;

template <typename T> struct is_reduced { static constexpr bool value = false; };
template <> struct is_reduced<Half> { static constexpr bool value = true; };
template <> struct is_reduced<BFloat16> { static constexpr bool value = true; };
template <typename T> struct is_floating { static constexpr bool value = false; };
template <> struct is_floating<float> { static constexpr bool value = true; };
template <> struct is_floating<double> { static constexpr bool value = true; };
template <typename A, typename B> struct same { static constexpr bool value = false; };
template <typename A> struct same<A, A> { static constexpr bool value = true; };

// One element from S to D, as torch converts: anything -> bool is != 0;
// float16/bfloat16 go through float; floating -> integers narrower than 64
// bits go through long long (so -1.0 -> uint8 is 255); complex -> real keeps
// the real part, real -> complex has imaginary part 0, complex -> bool is
// true when either part is nonzero.
template <typename D, typename S>
__device__ __forceinline__ D convert(S s) {
  if constexpr (same<D, S>::value) {
    return s;
  } else if constexpr (is_complex_t<S>::value) {
    if constexpr (is_complex_t<D>::value) {
      typedef typename complex_part<D>::type P;
      return D(convert<P>(s.re), convert<P>(s.im));
    } else if constexpr (same<D, bool>::value) {
      return convert<bool>(s.re) || convert<bool>(s.im);
    } else {
      return convert<D>(s.re);
    }
  } else if constexpr (is_complex_t<D>::value) {
    typedef typename complex_part<D>::type P;
    return D(convert<P>(s), convert<P>(0));
  } else if constexpr (is_reduced<S>::value) {
    return convert<D, float>(float(s));
  } else if constexpr (same<D, bool>::value) {
    return s != S(0);
  } else if constexpr (same<S, bool>::value) {
    return convert<D, int>(s ? 1 : 0);
  } else if constexpr (is_reduced<D>::value) {
    return D(float(s));
  } else if constexpr (!is_floating<D>::value && is_floating<S>::value && sizeof(D) < 8) {
    return static_cast<D>(static_cast<long long>(s));
  } else {
    return static_cast<D>(s);
  }
}

template <int N>
struct Layout {
  int ndim;
  int index32;  // every linear index fits in 31 bits: use the fast division
  long long shape[kMaxDims];
  unsigned int magic[kMaxDims];
  unsigned int shift[kMaxDims];
  long long strides[N][kMaxDims];  // bytes
  char* data[N];
};

// The byte offset of linear index i for each operand.
template <int N>
__device__ __forceinline__ void offsets(const Layout<N>& L, long long i, long long (&off)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) off[k] = 0;
  if (L.index32) {
    unsigned int r = (unsigned int)i;
    for (int d = 0; d < L.ndim; ++d) {
      const unsigned int q = (__umulhi(r, L.magic[d]) + r) >> L.shift[d];
      const long long m = r - q * (unsigned int)L.shape[d];
      r = q;
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] += m * L.strides[k][d];
    }
    return;
  }
  for (int d = 0; d < L.ndim; ++d) {
    const long long q = i / L.shape[d];
    const long long m = i - q * L.shape[d];
    i = q;
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] += m * L.strides[k][d];
  }
}

}  // namespace jit
}  // namespace ember
