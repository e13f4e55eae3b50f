// Loads and stores of 4 neighbouring elements of any storage type as one (or,
// for 8-byte types, two) vector accesses: the line kernels of the scans
// (ops/reduce/scan.cu) and cummax/cummin (ops/sort/cum_extreme.cu) give each
// thread 4 neighbouring elements, neighbouring threads the next 4, so a warp's
// access is one contiguous span. The address must be aligned to 4 elements
// (vec4_aligned says so); the elements travel as raw bytes.
#pragma once

#include <cstdint>
#include <cstring>

namespace ember::ops::vec_io {

template <typename T>
__device__ __forceinline__ bool vec4_aligned(const T* p) {
  constexpr uintptr_t a = 4 * sizeof(T) < 16 ? 4 * sizeof(T) : 16;
  return (reinterpret_cast<uintptr_t>(p) & (a - 1)) == 0;
}

template <typename T>
__device__ __forceinline__ void load4(const T* p, T (&x)[4]) {
  constexpr int B = 4 * sizeof(T);
  if constexpr (B == 4) {
    const uint32_t u = *reinterpret_cast<const uint32_t*>(p);
    memcpy(x, &u, B);
  } else if constexpr (B == 8) {
    const uint2 u = *reinterpret_cast<const uint2*>(p);
    memcpy(x, &u, B);
  } else if constexpr (B == 16) {
    const uint4 u = *reinterpret_cast<const uint4*>(p);
    memcpy(x, &u, B);
  } else {
    static_assert(B == 32, "4 elements of 1, 2, 4 or 8 bytes");
    uint4 u[2];
    u[0] = reinterpret_cast<const uint4*>(p)[0];
    u[1] = reinterpret_cast<const uint4*>(p)[1];
    memcpy(x, u, B);
  }
}

template <typename T>
__device__ __forceinline__ void store4(T* p, const T (&x)[4]) {
  constexpr int B = 4 * sizeof(T);
  if constexpr (B == 4) {
    uint32_t u;
    memcpy(&u, x, B);
    *reinterpret_cast<uint32_t*>(p) = u;
  } else if constexpr (B == 8) {
    uint2 u;
    memcpy(&u, x, B);
    *reinterpret_cast<uint2*>(p) = u;
  } else if constexpr (B == 16) {
    uint4 u;
    memcpy(&u, x, B);
    *reinterpret_cast<uint4*>(p) = u;
  } else {
    static_assert(B == 32, "4 elements of 1, 2, 4 or 8 bytes");
    uint4 u[2];
    memcpy(u, x, B);
    reinterpret_cast<uint4*>(p)[0] = u[0];
    reinterpret_cast<uint4*>(p)[1] = u[1];
  }
}

}  // namespace ember::ops::vec_io
