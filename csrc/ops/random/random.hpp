// Random draws into tensors, from ember's Philox generators (tensor/generator.hpp).
//
// Reproducibility rule: a draw of n elements from a generator at (seed,
// offset) gives element i -- the i-th element of the tensor in row-major
// order, whatever its strides -- the values computed from Philox block
// offset + i / E (lane i % E), where E is the number of values one block
// yields for that distribution and dtype (ops/random/random_math.hpp):
//   4 for 32-bit values (float32/float16/bfloat16 uniforms, normals, 32-bit
//     integer ranges, bernoulli), 2 for 64-bit ones (float64, integer ranges
//     wider than 2^32).
// The generator then advances by ceil(n / E) blocks. So the numbers depend on
// the seed, the offset and the logical index only: not on the launch
// configuration, the device, or the tensor's layout. The CPU and the GPUs run
// the same code (bit-identical results, also for normals: ember's own log
// and sin/cos polynomials, see random_math.hpp).
//
// All functions run on the current stream of the tensor's device and never
// wait on the host, except multinomial on the GPU, which synchronises once to
// validate the probabilities (see its comment).
#pragma once

#include <cstdint>

#include "tensor/generator.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

// `gen` undefined: the default generator of `out`'s device. RuntimeError when
// `gen` is for another device type.
void uniform_(const Tensor& out, double from, double to, const Generator& gen);
void normal_(const Tensor& out, double mean, double std, const Generator& gen);
// Integers uniform in [low, high) (torch's random_(from, to) / randint).
void random_(const Tensor& out, int64_t low, int64_t high, const Generator& gen);
void exponential_(const Tensor& out, double lambd, const Generator& gen);
void bernoulli_(const Tensor& out, double p, const Generator& gen);
// p broadcasts to out; values outside [0, 1] raise on the CPU (as torch) and
// behave as clamped on the GPU (no synchronisation to check them).
void bernoulli_(const Tensor& out, const Tensor& p, const Generator& gen);
// out = mean + std * N(0, 1), mean and std broadcast to out (torch.normal's
// tensor forms). std < 0 raises on the CPU; on the GPU it is not checked.
void normal_tensor_(const Tensor& out, const Tensor& mean, const Tensor& std,
                    const Generator& gen);

// A random permutation of 0..n-1 (Fisher-Yates driven by Philox, on the host:
// the same permutation for the CPU and the GPU generators at the same state,
// then copied to the GPU). n advances the generator by ceil(n / 2) blocks.
Tensor randperm(int64_t n, ScalarType dtype, const Device& device, const Generator& gen);

// Indices sampled from the rows of `probs` (1-D or 2-D, non-negative, finite,
// not all zero): torch.multinomial. Without replacement, each row uses the
// exponential race (the k smallest E_j / p_j, E_j ~ Exp(1)); with replacement,
// inversion of the row's cumulative sums. The GPU version synchronises once to
// report invalid rows as a RuntimeError (torch raises a device-side assert).
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement,
                   const Generator& gen);

// The generator a draw on `device` uses: `gen` checked against it, or the default.
Generator generator_for(const Generator& gen, const Device& device, const char* fn);

namespace internal {

// Blocks a draw of n elements with E values per block uses.
inline uint64_t blocks_for_draw(int64_t n, int e) {
  return static_cast<uint64_t>((n + e - 1) / e);
}

#if EMBER_WITH_CUDA
// random.cu: the GPU versions, after the checks. Each reserves its blocks
// from `gen` (the number depends on the sampler the dtype uses).
void uniform_cuda(const Tensor& out, double from, double to, GeneratorImpl& gen);
void normal_cuda(const Tensor& out, double mean, double std, GeneratorImpl& gen);
void random_cuda(const Tensor& out, int64_t low, uint64_t range, GeneratorImpl& gen);
void exponential_cuda(const Tensor& out, double lambd, GeneratorImpl& gen);
void bernoulli_scalar_cuda(const Tensor& out, double p, GeneratorImpl& gen);
void bernoulli_tensor_cuda(const Tensor& out, const Tensor& p, GeneratorImpl& gen);
void normal_tensor_cuda(const Tensor& out, const Tensor& mean, const Tensor& std,
                        GeneratorImpl& gen);
#endif

}  // namespace internal

}  // namespace ember::ops
