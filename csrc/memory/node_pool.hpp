// Recycling of the allocators' small, fixed-size bookkeeping objects (tree and
// hash nodes): an allocate+free pair of a cached block would otherwise cost
// several malloc/free calls, as much as the rest of its work together.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace ember::memory {

// A free list of blocks of one size (set by the first request). Not
// thread-safe: used under its allocator's lock.
class NodePool {
 public:
  NodePool() = default;
  NodePool(const NodePool&) = delete;
  NodePool& operator=(const NodePool&) = delete;
  ~NodePool() {
    for (void* p : free_) ::operator delete(p);
  }

  void* get(size_t bytes) {
    if (bytes_ == 0) bytes_ = bytes;
    if (bytes == bytes_ && !free_.empty()) {
      void* p = free_.back();
      free_.pop_back();
      return p;
    }
    return ::operator new(bytes);
  }

  void put(void* p, size_t bytes) noexcept {
    if (bytes == bytes_ && free_.size() < kMaxCached) {
      try {
        free_.push_back(p);
        return;
      } catch (...) {
        // No room to remember it: give it back.
      }
    }
    ::operator delete(p);
  }

 private:
  static constexpr size_t kMaxCached = 1 << 16;
  std::vector<void*> free_;
  size_t bytes_ = 0;
};

// A standard allocator over a NodePool, for node-based containers.
template <typename T>
struct PoolAllocator {
  using value_type = T;

  explicit PoolAllocator(NodePool* pool) noexcept : pool(pool) {}
  template <typename U>
  PoolAllocator(const PoolAllocator<U>& other) noexcept : pool(other.pool) {}

  T* allocate(size_t n) {
    if (n == 1) return static_cast<T*>(pool->get(sizeof(T)));
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n == 1) {
      pool->put(p, sizeof(T));
    } else {
      ::operator delete(p);
    }
  }
  template <typename U>
  bool operator==(const PoolAllocator<U>& o) const noexcept {
    return pool == o.pool;
  }
  template <typename U>
  bool operator!=(const PoolAllocator<U>& o) const noexcept {
    return pool != o.pool;
  }

  NodePool* pool;
};

}  // namespace ember::memory
