// The device caching allocator: one per device, thread-safe, over a
// DeviceBacking (CUDA on a GPU, simulated in tests). The algorithm is described
// at the top of caching_allocator.cpp and in docs/design/memory.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "memory/allocator_config.hpp"
#include "memory/backing.hpp"
#include "memory/block.hpp"
#include "memory/event_pool.hpp"
#include "memory/memory_stats.hpp"

namespace ember::memory {

constexpr size_t kMinBlockSize = 512;           // every size is rounded up to 512 bytes
constexpr size_t kSmallSize = 1 << 20;          // requests up to 1 MiB use the small pool
constexpr size_t kSmallBuffer = 2 << 20;        // which is carved from 2 MiB segments
constexpr size_t kMinLargeAlloc = 10 << 20;     // requests of 1-10 MiB share
constexpr size_t kLargeBuffer = 20 << 20;       // 20 MiB segments
constexpr size_t kRoundLarge = 2 << 20;         // larger requests are rounded up to 2 MiB

// For tests and memory_snapshot-like views.
struct BlockInfo {
  uintptr_t ptr = 0;
  size_t size = 0;
  size_t requested_size = 0;
  bool allocated = false;
  uintptr_t stream = 0;
  size_t num_foreign = 0;  // streams to order behind when reused
  size_t num_events = 0;   // record_stream events still attached
};

struct SegmentInfo {
  uintptr_t ptr = 0;
  size_t size = 0;
  bool is_small = false;
  std::vector<BlockInfo> blocks;
};

class CachingAllocator {
 public:
  CachingAllocator(std::unique_ptr<DeviceBacking> backing, const AllocatorConfig& config);
  // Returns cached and live segments to the backing (used by the simulated
  // allocators; the process-wide CUDA allocators are never destroyed).
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // `size` bytes usable in stream order on `stream` (nullptr for 0 bytes).
  // Throws OutOfMemoryError when even an emptied cache cannot satisfy it.
  void* allocate(size_t size, Stream stream);
  // Frees memory from allocate(); false when `ptr` is not this allocator's.
  bool try_deallocate(void* ptr);
  // Marks the allocation at `ptr` as used by work on `stream`: its memory is
  // not reused before the work queued on `stream` when it is freed is done.
  // False when `ptr` is not this allocator's.
  bool try_record_stream(void* ptr, Stream stream);

  // Returns every cached, unused segment to the backing (cudaFree).
  void empty_cache();
  // Caps reserved bytes at fraction * the device's total memory (1.0: no cap
  // beyond the device). Throws ValueError outside [0, 1].
  void set_memory_fraction(double fraction);
  double memory_fraction() const;

  // O(1), lock-free.
  int64_t memory_allocated() const noexcept { return stats_.allocated_bytes[kAggregate].current(); }
  int64_t max_memory_allocated() const noexcept { return stats_.allocated_bytes[kAggregate].peak(); }
  int64_t memory_reserved() const noexcept { return stats_.reserved_bytes[kAggregate].current(); }
  int64_t max_memory_reserved() const noexcept { return stats_.reserved_bytes[kAggregate].peak(); }
  const DeviceStats& stats() const noexcept { return stats_; }

  // memory_stats(): a consistent copy, taken under the lock.
  std::vector<std::pair<std::string, int64_t>> stats_snapshot() const;
  void reset_peak_stats();
  void reset_accumulated_stats();
  size_t largest_free_block() const;
  std::vector<SegmentInfo> snapshot() const;
  size_t live_allocations() const;

  const AllocatorConfig& config() const noexcept { return config_; }
  DeviceBacking& backing() noexcept { return *backing_; }
  int device() const noexcept { return backing_->device(); }

  // The size a request is rounded to, and the segment size cudaMalloc'd for it.
  size_t round_size(size_t size) const noexcept;
  static size_t allocation_size(size_t rounded) noexcept;

 private:
  struct Request {
    size_t orig_size = 0;
    size_t size = 0;        // rounded
    size_t alloc_size = 0;  // segment size if a new one is needed
    Stream stream;
    BlockPool* pool = nullptr;
    bool rejected_by_cap = false;
  };

  Block* malloc_locked(Request& r);
  Block* malloc_uncached(Request& r);
  void free_locked(Block* block);

  // caching_allocator.cpp: finding, splitting, merging.
  Block* get_free_block(Request& r);
  bool acceptable(const Block* b, size_t size) const noexcept;
  bool should_split(const Block* b, size_t size) const noexcept;
  Block* alloc_found_block(Block* block, const Request& r);
  void free_block(Block* block);
  size_t try_merge_blocks(Block* dst, Block* src);
  void insert_free(Block* block);

  // stream_ordering.cpp: reuse across streams and record_stream.
  Block* take_from_other_stream(Request& r);
  void satisfy_deps(Block* block, Stream stream);
  void record_use_events(Block* block);
  static void add_foreign(Block* dst, Stream s);
  void merge_deps(Block* dst, Block* src);
  void drop_deps(Block* block) noexcept;

  // cache_release.cpp: new segments, the out-of-memory path, releasing.
  Block* alloc_block(Request& r, bool is_retry);
  bool release_available_cached_blocks(const Request& r);
  void release_cached_blocks();
  void release_block(Block* block);
  void garbage_collect_cached_blocks();
  [[noreturn]] void throw_oom(const Request& r);
  size_t largest_free_block_locked() const;
  size_t device_total();

  // Blocks and pointer-map nodes are recycled: the hot path calls no malloc.
  Block* new_block();
  void delete_block(Block* b) noexcept;
  void remember(Block* b);
  void forget(std::unordered_map<void*, Block*>::iterator it) noexcept;

  std::unique_ptr<DeviceBacking> backing_;
  const AllocatorConfig config_;
  mutable std::mutex mutex_;
  DeviceStats stats_;
  BlockPool small_blocks_{true};
  BlockPool large_blocks_{false};
  std::unordered_map<void*, Block*> allocated_;  // live allocations by address
  std::vector<std::unordered_map<void*, Block*>::node_type> spare_nodes_;
  std::vector<Block*> spare_blocks_;
  EventPool<DeviceBacking> events_;
  size_t limit_ = std::numeric_limits<size_t>::max();  // cap on reserved bytes; max: none
  double fraction_ = 1.0;
  size_t device_total_ = 0;    // cached mem_get_info().second
};

}  // namespace ember::memory
