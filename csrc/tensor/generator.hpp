// Random number generators: a Philox stream is a (seed, offset) pair. The
// seed is Philox's 64-bit key; the offset counts the 128-bit counter blocks
// (4 x 32-bit words) already used. A draw reserves the blocks it needs under
// the generator's lock and advances the offset by that many, so the draws of
// one generator never overlap and are reproducible from (seed, offset) alone:
// the kernels compute every block from its index (ops/random/philox.hpp).
//
// - One default generator for the CPU and one per CUDA device, created
//   lazily, never destroyed. They are host objects: seeding them touches no
//   CUDA API, so ember.manual_seed() works before (and without) CUDA.
// - The default seed is torch's, 67280421310721. manual_seed(s) seeds the CPU
//   and every CUDA default generator (with offset 0), so the same draw on the
//   CPU and on a GPU gives the same numbers (see ops/random/random.hpp).
// - The state is 16 bytes, seed then offset, little-endian uint64s (torch's
//   CUDA generators use the same shape of state).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>

#include "runtime/device.hpp"

namespace ember {

constexpr uint64_t kDefaultRngSeed = 67280421310721ull;
constexpr size_t kRngStateBytes = 16;

struct PhiloxState {
  uint64_t seed = 0;
  uint64_t offset = 0;  // in 128-bit blocks
};

class GeneratorImpl {
 public:
  // `device`: CPU, or CUDA with its index set.
  explicit GeneratorImpl(Device device, uint64_t seed = kDefaultRngSeed);

  const Device& device() const noexcept { return device_; }
  uint64_t initial_seed() const;
  // Sets the seed and rewinds the stream (offset 0).
  void manual_seed(uint64_t seed);
  // Seeds from std::random_device and returns the seed.
  uint64_t seed();
  uint64_t offset() const;
  void set_offset(uint64_t offset);

  // The stream position for a draw of `blocks` blocks; advances past them.
  PhiloxState reserve(uint64_t blocks);

  std::array<uint8_t, kRngStateBytes> get_state() const;
  // RuntimeError ("RNG state is wrong size") unless `n` == kRngStateBytes.
  void set_state(const uint8_t* bytes, size_t n);

 private:
  mutable std::mutex mu_;
  Device device_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

using Generator = std::shared_ptr<GeneratorImpl>;

// A seed nobody chose (std::random_device), as torch.seed() draws.
uint64_t nondeterministic_seed();

Generator default_cpu_generator();
// The default generator of CUDA device `index` (>= 0; not checked against
// the device count, so no CUDA call is made).
Generator default_cuda_generator(int index);
// The default generator for `device` (CPU, or CUDA with an index).
Generator default_generator(const Device& device);

// Seeds every CUDA default generator, those not created yet included.
void manual_seed_all_cuda(uint64_t seed);

}  // namespace ember
