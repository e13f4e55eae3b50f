#include "memory/testing.hpp"

#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"

namespace ember::memory::testing {

namespace {

// Live ranges of all threads; an overlap means the allocator handed out the
// same memory twice.
class LiveRanges {
 public:
  bool add(uintptr_t p, size_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    auto next = ranges_.lower_bound(p);
    if (next != ranges_.end() && next->first < p + n) return false;
    if (next != ranges_.begin() && std::prev(next)->second > p) return false;
    ranges_.emplace(p, p + n);
    return true;
  }
  void remove(uintptr_t p) {
    std::lock_guard<std::mutex> lock(mu_);
    ranges_.erase(p);
  }

 private:
  std::mutex mu_;
  std::map<uintptr_t, uintptr_t> ranges_;
};

}  // namespace

StressResult stress(CachingAllocator& allocator, const std::vector<Stream>& streams, int threads,
                    int iterations, size_t max_size, uint64_t seed) {
  EMBER_CHECK_VALUE(!streams.empty() && threads > 0 && iterations >= 0 && max_size > 0,
                    "stress: needs streams, threads > 0, iterations >= 0, max_size > 0");
  LiveRanges ranges;
  std::vector<StressResult> results(threads);
  std::vector<std::thread> pool;
  std::mutex error_mu;
  std::string error;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::mt19937_64 rng(seed * 7919 + t);
      std::uniform_real_distribution<double> log_size(0.0, std::log(static_cast<double>(max_size)));
      std::vector<std::pair<void*, Stream>> live;
      StressResult& r = results[t];
      try {
        for (int i = 0; i < iterations; ++i) {
          const bool do_alloc = live.empty() || (rng() % 100) < 50;
          if (do_alloc) {
            const auto size = static_cast<size_t>(std::exp(log_size(rng)));
            const Stream s = streams[rng() % streams.size()];
            void* p = nullptr;
            try {
              p = allocator.allocate(size == 0 ? 1 : size, s);
            } catch (const OutOfMemoryError&) {
              ++r.ooms;
              continue;
            }
            ++r.allocations;
            if (!ranges.add(reinterpret_cast<uintptr_t>(p), size == 0 ? 1 : size)) ++r.overlaps;
            live.emplace_back(p, s);
          } else {
            const size_t k = rng() % live.size();
            auto [p, s] = live[k];
            if (rng() % 8 == 0) allocator.try_record_stream(p, streams[rng() % streams.size()]);
            ranges.remove(reinterpret_cast<uintptr_t>(p));
            allocator.try_deallocate(p);
            live[k] = live.back();
            live.pop_back();
          }
        }
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(error_mu);
        error = e.what();
      }
      for (auto& [p, s] : live) {
        ranges.remove(reinterpret_cast<uintptr_t>(p));
        allocator.try_deallocate(p);
      }
    });
  }
  for (auto& th : pool) th.join();
  EMBER_CHECK(error.empty(), "stress: a thread failed: ", error);
  StressResult total;
  for (const StressResult& r : results) {
    total.allocations += r.allocations;
    total.overlaps += r.overlaps;
    total.ooms += r.ooms;
  }
  return total;
}

double alloc_free_ns(CachingAllocator& allocator, size_t size, Stream stream, int iterations) {
  EMBER_CHECK_VALUE(iterations > 0, "alloc_free_ns: iterations must be positive");
  allocator.try_deallocate(allocator.allocate(size, stream));  // warm: the block is cached
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) allocator.try_deallocate(allocator.allocate(size, stream));
  const auto ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0);
  return ns.count() / iterations;
}

#if EMBER_WITH_CUDA
void memset_async(void* ptr, int value, size_t nbytes, Stream stream) {
  cuda::DeviceGuard guard(stream.device());
  EMBER_CUDA_CHECK(cudaMemsetAsync(ptr, value, nbytes, stream.handle()));
}

void memcpy_async(void* dst, const void* src, size_t nbytes, Stream stream) {
  cuda::DeviceGuard guard(stream.device());
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDefault, stream.handle()));
}

void stream_synchronize(Stream stream) {
  cuda::DeviceGuard guard(stream.device());
  EMBER_CUDA_CHECK(cudaStreamSynchronize(stream.handle()));
}
#else
void memset_async(void*, int, size_t, Stream) { throw Error("ember was built without CUDA"); }
void memcpy_async(void*, const void*, size_t, Stream) { throw Error("ember was built without CUDA"); }
void stream_synchronize(Stream) { throw Error("ember was built without CUDA"); }
#endif

}  // namespace ember::memory::testing
