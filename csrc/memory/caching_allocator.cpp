// ember's caching allocator for device memory.
//
// - Every request is rounded up to a multiple of 512 bytes (or, with
//   roundup_power2_divisions:N, to one of N steps between powers of two).
// - Requests of up to 1 MiB come from the small pool, carved out of 2 MiB
//   segments; larger ones from the large pool: 1-10 MiB requests share 20 MiB
//   segments, larger requests get a segment of their size rounded up to 2 MiB.
//   This is torch's policy on purpose: one allocation sequence gives the same
//   memory_allocated() and memory_reserved() as torch.
// - A request takes the smallest cached free block of its pool that fits
//   (best fit) and splits off the rest when it is worth keeping (>= 512 bytes
//   in the small pool, > 1 MiB in the large one). A freed block merges with its
//   free neighbours. Blocks of max_split_size or more are never split and only
//   serve requests that waste less than 20 MiB of them.
// - Stream order: a block is allocated on a stream and, once freed, goes to
//   that stream's free list, reusable at once by work on the same stream.
//   When a stream finds nothing usable in its own list it takes a block freed
//   on another stream, after making itself wait (cudaStreamWaitEvent, on the
//   GPU, never the host) for an event recorded on that stream: memory is never
//   stranded on the stream that freed it. The rest of a taken block moves to
//   the taker's free list. record_stream(s) records an event on
//   s when the block is freed; the block goes to the free list with the event
//   attached and whoever reuses it waits for the event on the GPU first.
// - When cudaMalloc fails (or the memory-fraction cap refuses), the allocator
//   frees oversize cached blocks that would satisfy the request and retries,
//   then frees every unused cached segment (cudaFree synchronises the device)
//   and retries; only then does it raise OutOfMemoryError with the figures a
//   user needs. Nothing changes state on that path, so nothing leaks.
// - Statistics use torch's names and meanings and are atomics updated under
//   the lock, so a single figure is one load.
//
// One mutex per device guards all of it; cudaMalloc is called with it held.
// This file: the API, finding, splitting and merging. stream_ordering.cpp:
// cross-stream reuse and record_stream. cache_release.cpp: new segments, the
// out-of-memory path, empty_cache and garbage collection.
// allocator_bookkeeping.cpp: object recycling, statistics and snapshots.
#include "memory/caching_allocator.hpp"

#include <algorithm>

#include "runtime/errors.hpp"

namespace ember::memory {

namespace {

constexpr size_t kMaxRequest = static_cast<size_t>(1) << 60;

bool is_pow2(size_t x) { return x != 0 && (x & (x - 1)) == 0; }

size_t floor_pow2(size_t x) {
  size_t p = 1;
  while (p <= x / 2) p <<= 1;
  return p;
}

// Rounds `size` up to the next of `divisions` equal steps between the powers
// of two around it (1200 with 4 divisions: 1024, 1280, ... -> 1280).
size_t roundup_power2_next_division(size_t size, size_t divisions) {
  if (is_pow2(size)) return size;
  const size_t floor = floor_pow2(size);
  const size_t step = floor / divisions;
  if (step == 0) return floor << 1;
  const size_t down = size & ~(step - 1);
  return down == size ? size : down + step;
}

}  // namespace

CachingAllocator::CachingAllocator(std::unique_ptr<DeviceBacking> backing,
                                   const AllocatorConfig& config)
    : backing_(std::move(backing)), config_(config), events_(*backing_) {
  const bool unlimited = config_.max_split_size == std::numeric_limits<size_t>::max();
  stats_.max_split_size.set(unlimited ? -1 : static_cast<int64_t>(config_.max_split_size));
  allocated_.reserve(1024);
}

CachingAllocator::~CachingAllocator() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Block*> all;
  for (BlockPool* pool : {&small_blocks_, &large_blocks_}) {
    all.insert(all.end(), pool->blocks.begin(), pool->blocks.end());
  }
  for (auto& kv : allocated_) all.push_back(kv.second);
  for (Block* b : all) {
    if (b->prev == nullptr) {
      try {
        backing_->free(b->ptr);
      } catch (...) {
        // A dying allocator has no one to report to; the memory goes with the process.
      }
    }
  }
  for (Block* b : all) {
    drop_deps(b);
    delete b;
  }
  for (Block* b : spare_blocks_) delete b;
}

size_t CachingAllocator::round_size(size_t size) const noexcept {
  if (size < kMinBlockSize) return kMinBlockSize;
  const size_t div = config_.roundup_power2_divisions;
  if (div > 1 && size > kMinBlockSize * div) return roundup_power2_next_division(size, div);
  return kMinBlockSize * ((size + kMinBlockSize - 1) / kMinBlockSize);
}

size_t CachingAllocator::allocation_size(size_t size) noexcept {
  if (size <= kSmallSize) return kSmallBuffer;
  if (size < kMinLargeAlloc) return kLargeBuffer;
  return kRoundLarge * ((size + kRoundLarge - 1) / kRoundLarge);
}

void* CachingAllocator::allocate(size_t size, Stream stream) {
  if (size == 0) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  Request r;
  r.orig_size = size;
  r.stream = stream;
  if (size > kMaxRequest) {
    r.size = r.alloc_size = size;
    r.pool = &large_blocks_;
    throw_oom(r);
  }
  r.size = round_size(size);
  r.pool = r.size <= kSmallSize ? &small_blocks_ : &large_blocks_;
  r.alloc_size = allocation_size(r.size);
  Block* b = config_.caching ? malloc_locked(r) : malloc_uncached(r);
  remember(b);
  return b->ptr;
}

Block* CachingAllocator::malloc_locked(Request& r) {
  Block* b = get_free_block(r);
  if (b == nullptr) b = take_from_other_stream(r);
  if (b == nullptr) {
    if (config_.garbage_collection_threshold > 0.0) garbage_collect_cached_blocks();
    b = alloc_block(r, false);
    if (b == nullptr && release_available_cached_blocks(r)) b = alloc_block(r, false);
    if (b == nullptr) {
      release_cached_blocks();
      b = alloc_block(r, true);
    }
    if (b == nullptr) throw_oom(r);
  }
  return alloc_found_block(b, r);
}

bool CachingAllocator::acceptable(const Block* b, size_t size) const noexcept {
  const size_t max_split = config_.max_split_size;
  // An oversize block never serves a request it would have to be split for,
  if (size < max_split && b->size >= max_split) return false;
  // and serves an oversize request only when less than 20 MiB of it is wasted.
  if (size >= max_split && b->size >= size + kLargeBuffer) return false;
  return true;
}

bool CachingAllocator::should_split(const Block* b, size_t size) const noexcept {
  const size_t remaining = b->size - size;
  if (b->pool->is_small) return remaining >= kMinBlockSize;
  return size < config_.max_split_size && remaining > kSmallSize;
}

Block* CachingAllocator::get_free_block(Request& r) {
  BlockPool& pool = *r.pool;
  if (config_.garbage_collection_threshold > 0.0) ++pool.get_free_blocks_call_count;
  Block key;
  key.stream = r.stream;
  key.size = r.size;
  auto it = pool.blocks.lower_bound(&key);
  if (it == pool.blocks.end() || (*it)->stream.id() != r.stream.id()) return nullptr;
  Block* b = *it;
  if (!acceptable(b, r.size)) return nullptr;
  if (b->has_deps()) satisfy_deps(b, r.stream);  // throws before the block leaves the pool
  pool.blocks.erase(it);
  return b;
}

Block* CachingAllocator::alloc_found_block(Block* block, const Request& r) {
  const bool small = r.pool->is_small;
  const bool already_split = block->is_split();
  if (should_split(block, r.size)) {
    // The front becomes the allocation; `remaining` keeps the rest and goes
    // back to the free list -- of the allocating stream, without dependencies:
    // that stream has just been ordered after all of them (see satisfy_deps).
    Block* remaining = block;
    block = new_block();
    block->stream = r.stream;
    block->size = r.size;
    block->pool = r.pool;
    block->ptr = remaining->ptr;
    block->prev = remaining->prev;
    if (block->prev) block->prev->next = block;
    block->next = remaining;
    remaining->prev = block;
    remaining->ptr += r.size;
    remaining->size -= r.size;
    remaining->stream = r.stream;
    drop_deps(remaining);
    insert_free(remaining);
    if (already_split) {
      stats_.inactive_split_bytes.decrease(small, static_cast<int64_t>(block->size));
    } else {
      stats_.inactive_split_bytes.increase(small, static_cast<int64_t>(remaining->size));
      stats_.inactive_split.increase(small, 1);
    }
  } else {
    if (already_split) {
      stats_.inactive_split_bytes.decrease(small, static_cast<int64_t>(block->size));
      stats_.inactive_split.decrease(small, 1);
    }
    drop_deps(block);  // the taker has waited for them
    block->stream = r.stream;
  }
  block->allocated = true;
  block->requested_size = r.orig_size;
  stats_.allocation.increase(small, 1);
  stats_.allocated_bytes.increase(small, static_cast<int64_t>(block->size));
  stats_.active.increase(small, 1);
  stats_.active_bytes.increase(small, static_cast<int64_t>(block->size));
  stats_.requested_bytes.increase(small, static_cast<int64_t>(block->requested_size));
  if (block->size >= config_.max_split_size) stats_.oversize_allocations.increase(1);
  return block;
}

bool CachingAllocator::try_deallocate(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = allocated_.find(ptr);
  if (it == allocated_.end()) return false;
  Block* b = it->second;
  if (!config_.caching) {
    backing_->free(b->ptr);  // cudaFree waits for the device: no events needed
    forget(it);
    free_locked(b);
    return true;
  }
  if (!b->stream_uses.empty()) record_use_events(b);  // throws before any change
  forget(it);
  free_locked(b);
  return true;
}

void CachingAllocator::free_locked(Block* block) {
  const bool small = block->pool->is_small;
  block->allocated = false;
  stats_.allocation.decrease(small, 1);
  stats_.allocated_bytes.decrease(small, static_cast<int64_t>(block->size));
  if (!config_.caching) {
    stats_.active.decrease(small, 1);
    stats_.active_bytes.decrease(small, static_cast<int64_t>(block->size));
    stats_.requested_bytes.decrease(small, static_cast<int64_t>(block->requested_size));
    stats_.segment.decrease(small, 1);
    stats_.reserved_bytes.decrease(small, static_cast<int64_t>(block->size));
    stats_.num_device_free.add();
    delete_block(block);
    return;
  }
  if (block->size >= config_.max_split_size) stats_.oversize_allocations.decrease(1);
  free_block(block);
}

void CachingAllocator::free_block(Block* block) {
  const bool small = block->pool->is_small;
  const size_t original_size = block->size;
  const size_t requested = block->requested_size;
  block->requested_size = 0;
  int64_t net_split_blocks = 0;
  int64_t net_split_bytes = 0;
  for (Block* candidate : {block->prev, block->next}) {
    const size_t subsumed = try_merge_blocks(block, candidate);
    if (subsumed > 0) {
      net_split_blocks -= 1;
      net_split_bytes -= static_cast<int64_t>(subsumed);
    }
  }
  insert_free(block);
  if (block->is_split()) {
    net_split_blocks += 1;
    net_split_bytes += static_cast<int64_t>(block->size);
  }
  if (net_split_blocks > 0) stats_.inactive_split.increase(small, net_split_blocks);
  if (net_split_blocks < 0) stats_.inactive_split.decrease(small, -net_split_blocks);
  if (net_split_bytes > 0) stats_.inactive_split_bytes.increase(small, net_split_bytes);
  if (net_split_bytes < 0) stats_.inactive_split_bytes.decrease(small, -net_split_bytes);
  stats_.active.decrease(small, 1);
  stats_.active_bytes.decrease(small, static_cast<int64_t>(original_size));
  stats_.requested_bytes.decrease(small, static_cast<int64_t>(requested));
}

// Absorbs the free neighbour `src` into `dst` (which is not in the free list);
// returns the bytes absorbed, 0 when `src` is absent or allocated.
size_t CachingAllocator::try_merge_blocks(Block* dst, Block* src) {
  if (src == nullptr || src->allocated) return 0;
  src->pool->blocks.erase(src);
  merge_deps(dst, src);
  if (dst->prev == src) {
    dst->ptr = src->ptr;
    dst->prev = src->prev;
    if (dst->prev) dst->prev->next = dst;
  } else {
    dst->next = src->next;
    if (dst->next) dst->next->prev = dst;
  }
  const size_t subsumed = src->size;
  dst->size += subsumed;
  delete_block(src);
  return subsumed;
}

void CachingAllocator::insert_free(Block* block) {
  block->gc_count_base = block->pool->get_free_blocks_call_count;
  block->pool->blocks.insert(block);
}

bool CachingAllocator::try_record_stream(void* ptr, Stream stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = allocated_.find(ptr);
  if (it == allocated_.end()) return false;
  Block* b = it->second;
  if (stream.id() == b->stream.id()) return true;  // stream order covers it
  for (const Stream& s : b->stream_uses) {
    if (s.id() == stream.id()) return true;
  }
  b->stream_uses.push_back(stream);
  return true;
}

}  // namespace ember::memory
