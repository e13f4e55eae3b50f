// A Block is a piece of a segment (one cudaMalloc): allocated to a caller, or
// free and cached in a BlockPool. Blocks of one segment form a doubly linked
// list in address order, so free neighbours can be merged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <vector>

#include "memory/backing.hpp"
#include "memory/node_pool.hpp"

namespace ember::memory {

struct BlockPool;

// An event recorded on a stream that used a block (record_stream), which
// whoever reuses the block must wait for on the GPU.
struct PendingEvent {
  Event event = nullptr;
  int device = 0;
};

struct Block {
  // The allocation stream while allocated; while free, the stream whose free
  // list holds the block: reusing it on that stream needs no synchronisation.
  Stream stream;
  size_t size = 0;
  size_t requested_size = 0;  // what the caller asked for (0 while free)
  BlockPool* pool = nullptr;
  char* ptr = nullptr;
  bool allocated = false;
  Block* prev = nullptr;  // neighbours within the segment, in address order
  Block* next = nullptr;
  int64_t gc_count_base = 0;  // the pool's free-list search count at insertion

  // While allocated: other streams the block was used on (record_stream).
  std::vector<Stream> stream_uses;
  // While free, what a reuser must order itself after (dependencies), beyond
  // `stream`: streams whose work queued before the memory was freed may still
  // touch it (no event recorded yet: one is recorded when the block is taken),
  std::vector<Stream> foreign;
  // and events recorded when the block was freed, on its record_stream streams.
  std::vector<PendingEvent> events;

  bool is_split() const noexcept { return prev != nullptr || next != nullptr; }
  bool has_deps() const noexcept { return !foreign.empty() || !events.empty(); }
};

// Free blocks ordered by (stream, size, address): best fit within a stream is
// one lower_bound, and each stream's blocks are contiguous in the set.
struct BlockLess {
  bool operator()(const Block* a, const Block* b) const noexcept {
    if (a->stream.id() != b->stream.id()) return a->stream.id() < b->stream.id();
    if (a->size != b->size) return a->size < b->size;
    return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
  }
};

struct BlockPool {
  explicit BlockPool(bool small) : is_small(small) {}
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;

  NodePool nodes;  // the tree's nodes, recycled (declared first: outlives `blocks`)
  std::set<Block*, BlockLess, PoolAllocator<Block*>> blocks{BlockLess{},
                                                            PoolAllocator<Block*>(&nodes)};
  const bool is_small;
  // Counts free-list searches while garbage collection is on; a block's age is
  // the number of searches since it was cached.
  int64_t get_free_blocks_call_count = 0;
};

}  // namespace ember::memory
