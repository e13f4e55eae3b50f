// Helpers for the allocators' tests and benchmarks: a multi-threaded stress
// run that checks no two live allocations overlap, a timing loop for the
// allocate+free pair of a cached block, and stream-ordered memset/memcpy so
// GPU tests can observe reuse without tensors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "memory/backing.hpp"
#include "memory/caching_allocator.hpp"

namespace ember::memory::testing {

struct StressResult {
  uint64_t allocations = 0;
  uint64_t overlaps = 0;     // live allocations found overlapping: must be 0
  uint64_t ooms = 0;         // OutOfMemoryError caught (and recovered from)
};

// `threads` threads each run `iterations` random steps on `allocator`:
// allocate (sizes log-uniform in [1, max_size]) on a random stream of
// `streams`, free a random live allocation, sometimes record_stream it on
// another stream. Everything is freed at the end. Deterministic per seed.
StressResult stress(CachingAllocator& allocator, const std::vector<Stream>& streams, int threads,
                    int iterations, size_t max_size, uint64_t seed);

// Nanoseconds per allocate+free of `size` bytes on `stream` (a cached block
// after the first iteration), averaged over `iterations`.
double alloc_free_ns(CachingAllocator& allocator, size_t size, Stream stream, int iterations);

// Stream-ordered byte fill and copy (CUDA builds; Error otherwise).
void memset_async(void* ptr, int value, size_t nbytes, Stream stream);
void memcpy_async(void* dst, const void* src, size_t nbytes, Stream stream);
void stream_synchronize(Stream stream);

}  // namespace ember::memory::testing
