// float32 exp, log, sin and cos over contiguous arrays for the CPU, written
// branch-free so that the compiler vectorises them (AVX-512, AVX2 or SSE
// versions of each loop are picked at run time where the compiler supports
// function multi-versioning). Cephes' range reductions and polynomials:
// about 1 ulp for exp and log; sin and cos within 1.5 ulp for |x| < 10 and
// 20 ulp (near zeros) for |x| < 1024, the C library for larger or non-finite
// arguments. The generic functors of
// unary_functors.hpp stay the definition; these only make contiguous
// float32 CPU loops fast.
#pragma once

#include <cstdint>

#include "ops/pointwise/unary.hpp"

// Compiles a function for AVX-512, AVX2 and the baseline, chosen at load
// time (GCC function multi-versioning on x86-64 Linux; elsewhere nothing).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define EMBER_CPU_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define EMBER_CPU_CLONES
#endif

namespace ember::ops {

// y[i] = f(x[i]) for i < n; false when op has no vector loop.
bool vector_unary_f32(UnaryOp op, const float* x, float* y, int64_t n);

}  // namespace ember::ops
