#include "tensor/generator.hpp"

#include <atomic>
#include <random>

#include "runtime/errors.hpp"
#include "runtime/stream.hpp"

namespace ember {

GeneratorImpl::GeneratorImpl(Device device, uint64_t seed) : device_(device), seed_(seed) {}

uint64_t GeneratorImpl::initial_seed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return seed_;
}

void GeneratorImpl::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mu_);
  seed_ = seed;
  offset_ = 0;
}

uint64_t GeneratorImpl::seed() {
  const uint64_t s = nondeterministic_seed();
  manual_seed(s);
  return s;
}

uint64_t GeneratorImpl::offset() const {
  std::lock_guard<std::mutex> lock(mu_);
  return offset_;
}

void GeneratorImpl::set_offset(uint64_t offset) {
  std::lock_guard<std::mutex> lock(mu_);
  offset_ = offset;
}

PhiloxState GeneratorImpl::reserve(uint64_t blocks) {
  std::lock_guard<std::mutex> lock(mu_);
  const PhiloxState s{seed_, offset_};
  offset_ += blocks;
  return s;
}

std::array<uint8_t, kRngStateBytes> GeneratorImpl::get_state() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::array<uint8_t, kRngStateBytes> out{};
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<uint8_t>(seed_ >> (8 * i));
    out[8 + i] = static_cast<uint8_t>(offset_ >> (8 * i));
  }
  return out;
}

void GeneratorImpl::set_state(const uint8_t* bytes, size_t n) {
  EMBER_CHECK(n == kRngStateBytes, "RNG state is wrong size: ember's generator state is ",
                    kRngStateBytes, " bytes (seed and offset), got ", n,
                    ". Pass a tensor from get_state()/get_rng_state().");
  uint64_t seed = 0, offset = 0;
  for (int i = 0; i < 8; ++i) {
    seed |= static_cast<uint64_t>(bytes[i]) << (8 * i);
    offset |= static_cast<uint64_t>(bytes[8 + i]) << (8 * i);
  }
  std::lock_guard<std::mutex> lock(mu_);
  seed_ = seed;
  offset_ = offset;
}

uint64_t nondeterministic_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

namespace {

// Never destroyed: generators may be used until the very end of the process.
struct Defaults {
  Generator cpu = std::make_shared<GeneratorImpl>(Device(DeviceType::CPU));
  std::mutex mu;
  Generator cuda[cuda::kMaxDevices];
  uint64_t cuda_seed = kDefaultRngSeed;  // for generators created later
};

Defaults& defaults() {
  static Defaults* d = new Defaults();
  return *d;
}

}  // namespace

Generator default_cpu_generator() { return defaults().cpu; }

Generator default_cuda_generator(int index) {
  EMBER_CHECK(index >= 0 && index < cuda::kMaxDevices, "invalid CUDA device index ", index,
              " for a default generator");
  Defaults& d = defaults();
  std::lock_guard<std::mutex> lock(d.mu);
  if (!d.cuda[index]) {
    d.cuda[index] = std::make_shared<GeneratorImpl>(Device(DeviceType::CUDA, index), d.cuda_seed);
  }
  return d.cuda[index];
}

Generator default_generator(const Device& device) {
  return device.is_cuda() ? default_cuda_generator(device.index) : default_cpu_generator();
}

void manual_seed_all_cuda(uint64_t seed) {
  Defaults& d = defaults();
  std::lock_guard<std::mutex> lock(d.mu);
  d.cuda_seed = seed;
  for (Generator& g : d.cuda) {
    if (g) g->manual_seed(seed);
  }
}

}  // namespace ember
