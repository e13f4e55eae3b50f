// The device allocator's statistics, with torch's names and meanings.
//
// Every figure is a set of atomics written only under the allocator's lock and
// read without it, so memory_allocated() and friends are single relaxed loads.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ember::memory {

// current / peak / allocated (total ever added) / freed (total ever removed).
class Stat {
 public:
  // Writers hold the allocator's lock, so load+store is enough (no RMW).
  void increase(int64_t n) noexcept {
    const int64_t cur = current_.load(std::memory_order_relaxed) + n;
    current_.store(cur, std::memory_order_relaxed);
    if (cur > peak_.load(std::memory_order_relaxed)) peak_.store(cur, std::memory_order_relaxed);
    allocated_.store(allocated_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  void decrease(int64_t n) noexcept {
    current_.store(current_.load(std::memory_order_relaxed) - n, std::memory_order_relaxed);
    freed_.store(freed_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  void reset_peak() noexcept { peak_.store(current(), std::memory_order_relaxed); }
  void reset_accumulated() noexcept {
    allocated_.store(0, std::memory_order_relaxed);
    freed_.store(0, std::memory_order_relaxed);
  }
  int64_t current() const noexcept { return current_.load(std::memory_order_relaxed); }
  int64_t peak() const noexcept { return peak_.load(std::memory_order_relaxed); }
  int64_t allocated() const noexcept { return allocated_.load(std::memory_order_relaxed); }
  int64_t freed() const noexcept { return freed_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> current_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> allocated_{0};
  std::atomic<int64_t> freed_{0};
};

// A counter written under the lock and read without it.
class Counter {
 public:
  void add(int64_t n = 1) noexcept {
    v_.store(v_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  void set(int64_t n) noexcept { v_.store(n, std::memory_order_relaxed); }
  int64_t get() const noexcept { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> v_{0};
};

// Index into a StatArray: torch's StatType order.
enum StatType : int { kAggregate = 0, kSmallPool = 1, kLargePool = 2 };

// One figure for "all", "small_pool" and "large_pool".
class StatArray {
 public:
  // Changes "all" and the pool's own entry.
  void increase(bool small, int64_t n) noexcept {
    s_[kAggregate].increase(n);
    s_[small ? kSmallPool : kLargePool].increase(n);
  }
  void decrease(bool small, int64_t n) noexcept {
    s_[kAggregate].decrease(n);
    s_[small ? kSmallPool : kLargePool].decrease(n);
  }
  Stat& operator[](int type) noexcept { return s_[type]; }
  const Stat& operator[](int type) const noexcept { return s_[type]; }

 private:
  std::array<Stat, 3> s_;
};

struct DeviceStats {
  StatArray allocation;            // live allocations (count)
  StatArray segment;               // cudaMalloc'd segments (count)
  StatArray active;                // allocated blocks (count)
  StatArray inactive_split;        // free pieces of partly used segments (count)
  StatArray allocated_bytes;       // bytes of live allocations (rounded sizes)
  StatArray reserved_bytes;        // bytes of all segments
  StatArray active_bytes;          // bytes of active blocks
  StatArray inactive_split_bytes;  // bytes of free pieces of partly used segments
  StatArray requested_bytes;       // bytes the callers asked for (unrounded)
  Stat oversize_allocations;       // allocations >= max_split_size
  Stat oversize_segments;          // segments >= max_split_size

  Counter num_alloc_retries;       // cudaMalloc retried after freeing the cache
  Counter num_ooms;                // OutOfMemoryError raised
  Counter num_oom_rejections;      // of those, refused by the memory-fraction cap
  Counter num_sync_all_streams;    // full cache releases (empty_cache, OOM retry)
  Counter num_device_alloc;        // cudaMalloc calls that succeeded
  Counter num_device_free;         // cudaFree calls
  Counter num_cross_stream_reuses; // ember: blocks taken from another stream's cache
  Counter max_split_size;          // -1: unlimited (as torch reports it)

  void reset_peak() noexcept;
  void reset_accumulated() noexcept;
};

// The statistics as torch.cuda.memory_stats() spells them, sorted by key:
// "active_bytes.all.current", ..., "num_ooms", "max_split_size", ...
std::vector<std::pair<std::string, int64_t>> flatten(const DeviceStats& s);

// torch's format_size: "512 bytes", "1.50 KiB", "20.00 MiB", "79.19 GiB".
std::string format_size(uint64_t bytes);

}  // namespace ember::memory
