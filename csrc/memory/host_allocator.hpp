// The caching allocator for page-locked (pinned) host memory, over a
// HostBacking (cudaHostAlloc on a GPU machine, malloc in tests).
//
// - Sizes are rounded up to 4 KiB, the page size cudaHostAlloc works in anyway.
//   There is no power-of-two rounding: a 600 MiB buffer costs 600 MiB of host
//   RAM, not 1 GiB as in torch.
// - A request reuses the smallest cached block that fits and is at most 25%
//   larger than the rounded request; otherwise it gets a new block. Blocks are
//   never split.
// - record_stream(ptr, s) says a copy on stream s uses the block. When it is
//   freed, an event is recorded on each such stream and the block is reused
//   only once all of them have completed. Completion is polled (cudaEventQuery)
//   on later calls; the host never waits.
// - When cudaHostAlloc fails, every cached block is released and the
//   allocation retried once before an error is raised.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "memory/backing.hpp"
#include "memory/block.hpp"
#include "memory/event_pool.hpp"
#include "memory/memory_stats.hpp"

namespace ember::memory {

constexpr size_t kHostPage = 4096;

struct HostStats {
  Stat allocations;      // pinned blocks held (in use + cached)
  Stat allocated_bytes;  // their bytes
  Stat active_requests;  // blocks handed out and not yet reusable
  Stat active_bytes;     // their bytes
  Counter num_host_alloc;
  Counter num_host_free;
  // Microseconds spent in cudaHostAlloc / cudaFreeHost.
  Counter alloc_us_total, alloc_us_max, alloc_us_min, alloc_us_count;
  Counter free_us_total, free_us_max, free_us_min, free_us_count;
};

// host_memory_stats() with torch's keys, sorted.
std::vector<std::pair<std::string, int64_t>> flatten(const HostStats& s);

class HostCachingAllocator {
 public:
  explicit HostCachingAllocator(std::unique_ptr<HostBacking> backing);
  ~HostCachingAllocator();
  HostCachingAllocator(const HostCachingAllocator&) = delete;
  HostCachingAllocator& operator=(const HostCachingAllocator&) = delete;

  // nullptr for 0 bytes. Throws ember::Error when the memory cannot be had.
  void* allocate(size_t size);
  // False when `ptr` is not the start of a live block of this allocator.
  bool try_free(void* ptr);
  bool try_record_stream(void* ptr, Stream stream);
  // Releases every cached block that is free and no longer used by a stream.
  void empty_cache();
  // True when `ptr` points into a block of this allocator (live or cached).
  bool is_pinned(const void* ptr) const;

  // host_memory_stats(), with torch's keys, sorted.
  std::vector<std::pair<std::string, int64_t>> stats_snapshot() const;
  void reset_peak_stats();
  void reset_accumulated_stats();
  // (blocks held, blocks cached and reusable, blocks waiting for events)
  std::tuple<size_t, size_t, size_t> counts() const;

  static size_t round_size(size_t size) noexcept;
  HostBacking& backing() noexcept { return *backing_; }

 private:
  struct HostBlock {
    char* ptr = nullptr;
    size_t size = 0;
    bool allocated = false;
    std::vector<Stream> streams;  // record_stream uses while allocated
    int pending_events = 0;       // events to complete before reuse
  };
  struct EventQueue {
    uintptr_t stream = 0;
    std::deque<std::pair<PendingEvent, HostBlock*>> events;
  };

  void process_events();
  void make_reusable(HostBlock* b);
  HostBlock* take_cached(size_t rounded);
  void* backing_alloc(size_t size);
  void release(HostBlock* b);
  void release_cached();
  std::deque<std::pair<PendingEvent, HostBlock*>>& queue_of(Stream s);

  std::unique_ptr<HostBacking> backing_;
  mutable std::mutex mutex_;
  HostStats stats_;
  std::map<uintptr_t, HostBlock*> blocks_;           // every block, by address
  std::set<std::pair<size_t, uintptr_t>> free_;      // reusable blocks (size, address)
  std::vector<EventQueue> queues_;                   // per stream, in record order
  EventPool<HostBacking> events_;
};

}  // namespace ember::memory
