// ember's own elementwise ops whose CUDA kernels are compiled at first use
// by the jiterator's machinery (NVRTC, then the memory and disk caches of
// kernel_cache.hpp) instead of ahead of time: ops that are rarely hot, or
// have many dtype combinations, and would otherwise add precompiled kernels
// (and minutes) to the build. Used by the complex functions
// (ops/pointwise/complex_jit.cpp), the torch.special functions of
// ops/pointwise/special_jit.hpp and the rare floating unary functions
// (ops/pointwise/unary_jit.cpp).
//
// An op is a name and the source of one function template,
//
//   template <typename T> R ember_<name>(T a, T b, ...) { ... }
//
// (with whatever it needs before it: a header's text embedded at build time,
// cmake/embed_source.cmake), instantiated with the compute type of the
// iterator's common dtype (float for float16/bfloat16, as torch's
// opmath_type). The op plans its call with make_elementwise (dtypes,
// broadcasting, out=, in-place) exactly as for a precompiled kernel; then
// run_jitted loads each input from its dtype, calls the function and stores
// into the output's dtype, on the current stream of the output's device. The
// first call of a variant (common dtype, input dtypes, which inputs travel by
// value) compiles it (~0.2-1 s) or loads it from the disk cache (ms); later
// calls only launch.
#pragma once

#if EMBER_WITH_CUDA

#include <functional>
#include <string>
#include <vector>

#include "ops/elementwise.hpp"
#include "ops/jit/jiterator.hpp"

namespace ember::ops::jit {

// The op's function (named "ember_<name>"), made at its first use from
// code() and kept for the process: it holds the compiled variants.
JitFunction& jitted_function(const std::string& name, const std::function<std::string()>& code);

// Runs the op (one output) over an iterator planned by make_elementwise.
void run_jitted(const std::string& name, const std::function<std::string()>& code,
                const ElementwiseIter& it);

// The CUDA source of the op's kernels for one variant whose inputs are all
// tensors of the given dtypes (the compile-only tests build every op's source
// with NVRTC on machines without a GPU).
std::string jitted_source(const std::string& name, const std::string& code, ScalarType common,
                          const std::vector<ScalarType>& inputs);

}  // namespace ember::ops::jit

#endif  // EMBER_WITH_CUDA
