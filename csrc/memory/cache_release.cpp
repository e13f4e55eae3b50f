// New segments, the out-of-memory path, empty_cache, the memory-fraction cap
// and garbage collection of the device caching allocator.
#include <algorithm>
#include <cstdio>

#include "memory/caching_allocator.hpp"
#include "runtime/errors.hpp"

namespace ember::memory {

namespace {

constexpr size_t kNoLimit = std::numeric_limits<size_t>::max();

}  // namespace

Block* CachingAllocator::alloc_block(Request& r, bool is_retry) {
  if (is_retry) stats_.num_alloc_retries.add();
  const size_t size = r.alloc_size;
  const auto reserved = static_cast<size_t>(stats_.reserved_bytes[kAggregate].current());
  if (limit_ != kNoLimit && reserved + size > limit_) {
    r.rejected_by_cap = true;  // refused without asking the device
    return nullptr;
  }
  r.rejected_by_cap = false;
  void* ptr = nullptr;
  if (backing_->malloc(&ptr, size) != MallocStatus::kOk) return nullptr;
  Block* b = new_block();
  b->stream = r.stream;
  b->size = size;
  b->pool = r.pool;
  b->ptr = static_cast<char*>(ptr);
  const bool small = r.pool->is_small;
  stats_.segment.increase(small, 1);
  stats_.reserved_bytes.increase(small, static_cast<int64_t>(size));
  if (size >= config_.max_split_size) stats_.oversize_segments.increase(1);
  stats_.num_device_alloc.add();
  return b;
}

Block* CachingAllocator::malloc_uncached(Request& r) {
  // One cudaMalloc of exactly the requested bytes, so that memory checkers see
  // every overrun; statistics count the exact size.
  const size_t size = r.orig_size;
  const auto reserved = static_cast<size_t>(stats_.reserved_bytes[kAggregate].current());
  void* ptr = nullptr;
  if (limit_ != kNoLimit && reserved + size > limit_) {
    r.rejected_by_cap = true;
    throw_oom(r);
  }
  if (backing_->malloc(&ptr, size) != MallocStatus::kOk) throw_oom(r);
  Block* b = new_block();
  b->stream = r.stream;
  b->size = size;
  b->requested_size = size;
  b->pool = r.pool;
  b->ptr = static_cast<char*>(ptr);
  b->allocated = true;
  const bool small = r.pool->is_small;
  const auto n = static_cast<int64_t>(size);
  stats_.segment.increase(small, 1);
  stats_.reserved_bytes.increase(small, n);
  stats_.num_device_alloc.add();
  stats_.allocation.increase(small, 1);
  stats_.allocated_bytes.increase(small, n);
  stats_.active.increase(small, 1);
  stats_.active_bytes.increase(small, n);
  stats_.requested_bytes.increase(small, n);
  return b;
}

// Frees cached oversize blocks (>= max_split_size, never split) of the
// request's pool, of any stream: the smallest one that would satisfy the
// request, or else the largest ones until enough is freed.
bool CachingAllocator::release_available_cached_blocks(const Request& r) {
  const size_t max_split = config_.max_split_size;
  if (max_split == kNoLimit) return false;
  const size_t target = std::max(r.size, max_split);
  std::vector<Block*> oversize;
  Block* best = nullptr;
  for (Block* b : r.pool->blocks) {
    if (b->size < max_split || b->is_split()) continue;
    oversize.push_back(b);
    if (b->size >= target && (best == nullptr || b->size < best->size)) best = b;
  }
  if (best != nullptr) {
    release_block(best);
    return true;
  }
  std::sort(oversize.begin(), oversize.end(),
            [](const Block* a, const Block* b) { return a->size > b->size; });
  size_t released = 0;
  for (Block* b : oversize) {
    if (released >= target) break;
    released += b->size;
    release_block(b);
  }
  return !oversize.empty() && released >= target;
}

void CachingAllocator::release_cached_blocks() {
  stats_.num_sync_all_streams.add();
  for (BlockPool* pool : {&large_blocks_, &small_blocks_}) {
    std::vector<Block*> whole;
    for (Block* b : pool->blocks) {
      if (!b->is_split()) whole.push_back(b);
    }
    for (Block* b : whole) release_block(b);
  }
}

void CachingAllocator::release_block(Block* block) {
  // record_stream events must complete before the memory goes back to the
  // driver; cudaFree itself waits for the device, which covers the streams.
  for (const PendingEvent& pe : block->events) backing_->synchronize_event(pe.event);
  backing_->free(block->ptr);
  block->pool->blocks.erase(block);
  drop_deps(block);
  const bool small = block->pool->is_small;
  stats_.segment.decrease(small, 1);
  stats_.reserved_bytes.decrease(small, static_cast<int64_t>(block->size));
  if (block->size >= config_.max_split_size) stats_.oversize_segments.decrease(1);
  stats_.num_device_free.add();
  delete_block(block);
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (config_.caching) release_cached_blocks();
}

size_t CachingAllocator::device_total() {
  if (device_total_ == 0) device_total_ = backing_->mem_get_info().second;
  return device_total_;
}

void CachingAllocator::set_memory_fraction(double fraction) {
  if (!(fraction >= 0.0 && fraction <= 1.0)) {
    throw ValueError(detail::str("Invalid fraction value: ", fraction,
                                 ". Allowed range: 0~1 (a fraction of the device's total memory)"));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  limit_ = static_cast<size_t>(fraction * static_cast<double>(device_total()));
  fraction_ = fraction;
}

double CachingAllocator::memory_fraction() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return fraction_;
}

// Past garbage_collection_threshold of the limit (the fraction cap, or the
// device's memory without one), frees unsplit large cached blocks that have
// gone unused for longer than average, until under the threshold.
void CachingAllocator::garbage_collect_cached_blocks() {
  const size_t base = limit_ != kNoLimit ? limit_ : device_total();
  const auto threshold =
      static_cast<size_t>(config_.garbage_collection_threshold * static_cast<double>(base));
  const auto reserved = static_cast<size_t>(stats_.reserved_bytes[kAggregate].current());
  if (reserved <= threshold) return;
  const size_t target = reserved - threshold;
  BlockPool& pool = large_blocks_;
  auto age = [&pool](const Block* b) { return pool.get_free_blocks_call_count - b->gc_count_base; };
  int64_t total_age = 0;
  int64_t freeable = 0;
  for (const Block* b : pool.blocks) {
    if (!b->is_split()) {
      total_age += age(b);
      ++freeable;
    }
  }
  size_t reclaimed = 0;
  bool freed = true;
  while (reclaimed < target && freed && freeable > 0) {
    const double threshold_age = static_cast<double>(total_age) / static_cast<double>(freeable);
    freed = false;
    std::vector<Block*> old;
    for (Block* b : pool.blocks) {
      if (!b->is_split() && static_cast<double>(age(b)) >= threshold_age) old.push_back(b);
    }
    for (Block* b : old) {
      freed = true;
      reclaimed += b->size;
      total_age -= age(b);
      --freeable;
      release_block(b);
    }
  }
}

size_t CachingAllocator::largest_free_block_locked() const {
  size_t largest = 0;
  for (const BlockPool* pool : {&small_blocks_, &large_blocks_}) {
    for (const Block* b : pool->blocks) largest = std::max(largest, b->size);
  }
  return largest;
}

size_t CachingAllocator::largest_free_block() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return largest_free_block_locked();
}

void CachingAllocator::throw_oom(const Request& r) {
  stats_.num_ooms.add();
  if (r.rejected_by_cap) stats_.num_oom_rejections.add();
  std::pair<size_t, size_t> info_pair{0, 0};
  try {
    info_pair = backing_->mem_get_info();
  } catch (const Error&) {
    // The figures are a courtesy; the out-of-memory error is what matters.
  }
  OomInfo info;
  info.device = backing_->device();
  info.requested = r.orig_size;
  info.gpu_free = info_pair.first;
  info.gpu_total = info_pair.second;
  const auto allocated = static_cast<size_t>(stats_.allocated_bytes[kAggregate].current());
  const auto reserved = static_cast<size_t>(stats_.reserved_bytes[kAggregate].current());
  info.allocated = allocated;
  info.reserved_unused = reserved - allocated;
  info.largest_free_block = largest_free_block_locked();
  info.limit = limit_ == kNoLimit ? 0 : limit_;
  std::string cap;
  if (limit_ != kNoLimit) {
    cap = detail::str(format_size(limit_), " allowed by set_per_process_memory_fraction(",
                      fraction_, "); ");
  }
  std::string msg = detail::str(
      "CUDA out of memory. Tried to allocate ", format_size(r.orig_size), ". GPU ", info.device,
      " has a total capacity of ", format_size(info.gpu_total), " of which ",
      format_size(info.gpu_free), " is free. ", cap, "Of the allocated memory ",
      format_size(allocated), " is allocated by ember, and ", format_size(info.reserved_unused),
      " is reserved by ember but unallocated (largest free cached block: ",
      format_size(info.largest_free_block),
      "). Free tensors you no longer need, or use smaller batches; ember.cuda.empty_cache() "
      "returns cached memory to the driver for other processes. If reserved but unallocated "
      "memory is large, set EMBER_CUDA_ALLOC_CONF=max_split_size_mb:<N> to reduce "
      "fragmentation.");
  throw OutOfMemoryError(std::move(msg), info);
}

}  // namespace ember::memory
