// The device caching allocator's bookkeeping: recycling of its blocks and
// pointer-map nodes (the cached path calls no malloc), statistics access, and
// snapshots of its segments.
#include <algorithm>

#include "memory/caching_allocator.hpp"

namespace ember::memory {

namespace {

constexpr size_t kMaxSpare = 4096;

}  // namespace

Block* CachingAllocator::new_block() {
  if (spare_blocks_.empty()) return new Block();
  Block* b = spare_blocks_.back();
  spare_blocks_.pop_back();
  return b;
}

void CachingAllocator::delete_block(Block* b) noexcept {
  if (spare_blocks_.size() >= kMaxSpare) {
    delete b;
    return;
  }
  b->stream = Stream();
  b->size = b->requested_size = 0;
  b->pool = nullptr;
  b->ptr = nullptr;
  b->allocated = false;
  b->prev = b->next = nullptr;
  b->gc_count_base = 0;
  b->stream_uses.clear();
  b->foreign.clear();
  b->events.clear();
  try {
    spare_blocks_.push_back(b);
  } catch (...) {
    delete b;
  }
}

void CachingAllocator::remember(Block* b) {
  if (spare_nodes_.empty()) {
    allocated_.emplace(b->ptr, b);
    return;
  }
  auto node = std::move(spare_nodes_.back());
  spare_nodes_.pop_back();
  node.key() = b->ptr;
  node.mapped() = b;
  allocated_.insert(std::move(node));
}

void CachingAllocator::forget(std::unordered_map<void*, Block*>::iterator it) noexcept {
  auto node = allocated_.extract(it);
  if (spare_nodes_.size() < kMaxSpare) {
    try {
      spare_nodes_.push_back(std::move(node));
    } catch (...) {
      // The node is freed with `node`.
    }
  }
}

std::vector<std::pair<std::string, int64_t>> CachingAllocator::stats_snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return flatten(stats_);
}

void CachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.reset_peak();
}

void CachingAllocator::reset_accumulated_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.reset_accumulated();
}

size_t CachingAllocator::live_allocations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return allocated_.size();
}

std::vector<SegmentInfo> CachingAllocator::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<const Block*> heads;
  auto consider = [&heads](const Block* b) {
    if (b->prev == nullptr) heads.push_back(b);
  };
  for (const BlockPool* pool : {&small_blocks_, &large_blocks_}) {
    for (const Block* b : pool->blocks) consider(b);
  }
  for (const auto& kv : allocated_) consider(kv.second);
  std::sort(heads.begin(), heads.end(), [](const Block* a, const Block* b) { return a->ptr < b->ptr; });
  std::vector<SegmentInfo> out;
  for (const Block* h : heads) {
    SegmentInfo seg;
    seg.ptr = reinterpret_cast<uintptr_t>(h->ptr);
    seg.is_small = h->pool->is_small;
    for (const Block* b = h; b != nullptr; b = b->next) {
      seg.blocks.push_back({reinterpret_cast<uintptr_t>(b->ptr), b->size, b->requested_size,
                            b->allocated, b->stream.id(), b->foreign.size(), b->events.size()});
      seg.size += b->size;
    }
    out.push_back(std::move(seg));
  }
  return out;
}

}  // namespace ember::memory
