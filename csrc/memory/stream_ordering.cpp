// Stream ordering of cached blocks: reuse of a block freed on another stream,
// and record_stream.
//
// A free block sits in the free list of one stream and may carry
// dependencies: other streams whose work queued before the free may still
// touch it (`foreign`, from merging with neighbours freed on other streams),
// and events recorded when it was freed on the streams it was recorded for
// (`events`). Whoever takes the block satisfies all of them on the GPU before
// using it: for a stream, record an event on it now and make the taker wait
// for that event; for an event, make the taker wait for it (or drop it when it
// has already completed). The host never waits here.
//
// Events for streams are recorded when the block is taken, not when it is
// freed: the free path stays free of CUDA calls, and an event recorded later
// on the same stream orders the taker after at least the same work. The cost,
// two CUDA calls, is paid only when memory changes streams: once satisfied, a
// block and the remainder split from it belong to the taker's stream with no
// dependencies left.
//
// The streams a free block depends on must still exist when it is taken: a
// stream must outlive the memory freed on it until that memory is reused or
// released (empty_cache). Streams from ember's and torch's pools live as long
// as the process.
#include "memory/caching_allocator.hpp"

namespace ember::memory {

Block* CachingAllocator::take_from_other_stream(Request& r) {
  BlockPool& pool = *r.pool;
  Block key;
  Block* best = nullptr;
  auto it = pool.blocks.begin();
  while (it != pool.blocks.end()) {
    const Stream s = (*it)->stream;
    if (s.id() != r.stream.id()) {
      key.stream = s;
      key.size = r.size;
      key.ptr = nullptr;
      auto c = pool.blocks.lower_bound(&key);
      if (c != pool.blocks.end() && (*c)->stream.id() == s.id() && acceptable(*c, r.size) &&
          (best == nullptr || (*c)->size < best->size)) {
        best = *c;
      }
    }
    // Skip to the first block of the next stream.
    key.stream = Stream(reinterpret_cast<cuda::StreamHandle>(s.id() + 1), s.device());
    key.size = 0;
    key.ptr = nullptr;
    it = pool.blocks.lower_bound(&key);
  }
  if (best == nullptr) return nullptr;
  satisfy_deps(best, r.stream);  // throws before the block leaves the pool
  pool.blocks.erase(best);
  stats_.num_cross_stream_reuses.add();
  return best;
}

void CachingAllocator::satisfy_deps(Block* block, Stream stream) {
  auto order_after = [&](Stream s) {
    Event e = events_.get(s.device());
    try {
      backing_->record_event(e, s);
      backing_->stream_wait_event(stream, e);
    } catch (...) {
      events_.put(s.device(), e);
      throw;
    }
    // The wait captured the record: the event may be reused at once.
    events_.put(s.device(), e);
  };
  if (block->stream.id() != stream.id()) order_after(block->stream);
  for (const Stream& s : block->foreign) {
    if (s.id() != stream.id()) order_after(s);
  }
  // Events that have completed are dropped; the others are waited for. The
  // caller then drops the dependencies (they are satisfied for `stream`) and
  // hands the block, and any remainder split from it, to `stream`.
  std::vector<PendingEvent>& evs = block->events;
  size_t kept = 0;
  for (size_t i = 0; i < evs.size(); ++i) {
    if (backing_->query_event(evs[i].event)) {
      events_.put(evs[i].device, evs[i].event);
    } else {
      backing_->stream_wait_event(stream, evs[i].event);
      evs[kept++] = evs[i];
    }
  }
  evs.resize(kept);
}

void CachingAllocator::record_use_events(Block* block) {
  const size_t before = block->events.size();
  try {
    for (const Stream& s : block->stream_uses) {
      Event e = events_.get(s.device());
      block->events.push_back({e, s.device()});
      backing_->record_event(e, s);
    }
  } catch (...) {
    for (size_t i = before; i < block->events.size(); ++i) {
      events_.put(block->events[i].device, block->events[i].event);
    }
    block->events.resize(before);
    throw;
  }
  block->stream_uses.clear();
}

void CachingAllocator::add_foreign(Block* dst, Stream s) {
  if (s.id() == dst->stream.id()) return;
  for (const Stream& f : dst->foreign) {
    if (f.id() == s.id()) return;
  }
  dst->foreign.push_back(s);
}

void CachingAllocator::merge_deps(Block* dst, Block* src) {
  add_foreign(dst, src->stream);
  for (const Stream& s : src->foreign) add_foreign(dst, s);
  dst->events.insert(dst->events.end(), src->events.begin(), src->events.end());
  src->foreign.clear();
  src->events.clear();
}

void CachingAllocator::drop_deps(Block* block) noexcept {
  for (const PendingEvent& pe : block->events) {
    try {
      events_.put(pe.device, pe.event);
    } catch (...) {
      backing_->destroy_event(pe.event);
    }
  }
  block->events.clear();
  block->foreign.clear();
}

}  // namespace ember::memory
