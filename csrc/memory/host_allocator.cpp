#include "memory/host_allocator.hpp"

#include <algorithm>
#include <chrono>

#include "runtime/errors.hpp"

namespace ember::memory {

namespace {

int64_t elapsed_us(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                               t0)
      .count();
}

void add_time(Counter& total, Counter& max, Counter& min, Counter& count, int64_t us) {
  total.add(us);
  if (us > max.get()) max.set(us);
  if (count.get() == 0 || us < min.get()) min.set(us);
  count.add();
}

void add_stat(std::vector<std::pair<std::string, int64_t>>& out, const char* name, const Stat& s) {
  const std::string p(name);
  out.emplace_back(p + ".current", s.current());
  out.emplace_back(p + ".peak", s.peak());
  out.emplace_back(p + ".allocated", s.allocated());
  out.emplace_back(p + ".freed", s.freed());
}

void add_time_stat(std::vector<std::pair<std::string, int64_t>>& out, const char* name,
                   const Counter& total, const Counter& max, const Counter& min,
                   const Counter& count) {
  const std::string p(name);
  out.emplace_back(p + ".total", total.get());
  out.emplace_back(p + ".max", max.get());
  out.emplace_back(p + ".min", min.get());
  out.emplace_back(p + ".count", count.get());
  out.emplace_back(p + ".avg", count.get() ? total.get() / count.get() : 0);
}

}  // namespace

HostCachingAllocator::HostCachingAllocator(std::unique_ptr<HostBacking> backing)
    : backing_(std::move(backing)), events_(*backing_) {}

HostCachingAllocator::~HostCachingAllocator() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& q : queues_) {
    for (auto& [pe, block] : q.events) events_.put(pe.device, pe.event);
  }
  for (auto& kv : blocks_) {
    try {
      backing_->free(kv.second->ptr);
    } catch (...) {
      // Nothing to report to at teardown; the process returns the memory.
    }
    delete kv.second;
  }
}

size_t HostCachingAllocator::round_size(size_t size) noexcept {
  if (size == 0) return kHostPage;
  return (size + kHostPage - 1) / kHostPage * kHostPage;
}

void* HostCachingAllocator::allocate(size_t size) {
  if (size == 0) return nullptr;
  EMBER_CHECK(size <= (static_cast<size_t>(1) << 60), "Cannot allocate ", size,
              " bytes of pinned host memory");
  std::lock_guard<std::mutex> lock(mutex_);
  process_events();
  const size_t rounded = round_size(size);
  HostBlock* b = take_cached(rounded);
  if (b == nullptr) {
    void* p = backing_alloc(rounded);
    if (p == nullptr) {
      release_cached();
      p = backing_alloc(rounded);
    }
    if (p == nullptr) {
      throw Error(detail::str(
          "Could not allocate ", format_size(rounded), " of pinned (page-locked) host memory: ",
          "the system refused. ember holds ", format_size(stats_.allocated_bytes.current()),
          " of pinned memory. Free pinned buffers you no longer need, call "
          "ember.cuda.empty_cache(), or use pageable memory."));
    }
    b = new HostBlock();
    b->ptr = static_cast<char*>(p);
    b->size = rounded;
    blocks_.emplace(reinterpret_cast<uintptr_t>(p), b);
    stats_.allocations.increase(1);
    stats_.allocated_bytes.increase(static_cast<int64_t>(rounded));
  }
  b->allocated = true;
  stats_.active_requests.increase(1);
  stats_.active_bytes.increase(static_cast<int64_t>(b->size));
  return b->ptr;
}

HostCachingAllocator::HostBlock* HostCachingAllocator::take_cached(size_t rounded) {
  auto it = free_.lower_bound({rounded, 0});
  if (it == free_.end() || it->first > rounded + rounded / 4) return nullptr;
  HostBlock* b = blocks_.at(it->second);
  free_.erase(it);
  return b;
}

void* HostCachingAllocator::backing_alloc(size_t size) {
  const auto t0 = std::chrono::steady_clock::now();
  void* p = backing_->alloc(size);
  if (p != nullptr) {
    stats_.num_host_alloc.add();
    add_time(stats_.alloc_us_total, stats_.alloc_us_max, stats_.alloc_us_min,
             stats_.alloc_us_count, elapsed_us(t0));
  }
  return p;
}

bool HostCachingAllocator::try_free(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = blocks_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == blocks_.end() || !it->second->allocated) return false;
  HostBlock* b = it->second;
  // Record first: if a stream is invalid, nothing has changed yet.
  std::vector<PendingEvent> recorded;
  try {
    for (const Stream& s : b->streams) {
      recorded.push_back({events_.get(s.device()), s.device()});
      backing_->record_event(recorded.back().event, s);
    }
  } catch (...) {
    for (const PendingEvent& pe : recorded) events_.put(pe.device, pe.event);
    throw;
  }
  b->allocated = false;
  for (size_t i = 0; i < recorded.size(); ++i) {
    queue_of(b->streams[i]).emplace_back(recorded[i], b);
  }
  b->pending_events = static_cast<int>(recorded.size());
  b->streams.clear();
  if (b->pending_events == 0) make_reusable(b);
  process_events();
  return true;
}

bool HostCachingAllocator::try_record_stream(void* ptr, Stream stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = blocks_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == blocks_.end() || !it->second->allocated) return false;
  auto& streams = it->second->streams;
  for (const Stream& s : streams) {
    if (s == stream) return true;
  }
  streams.push_back(stream);
  return true;
}

std::deque<std::pair<PendingEvent, HostCachingAllocator::HostBlock*>>&
HostCachingAllocator::queue_of(Stream s) {
  for (EventQueue& q : queues_) {
    if (q.stream == s.id()) return q.events;
  }
  queues_.push_back(EventQueue{s.id(), {}});
  return queues_.back().events;
}

void HostCachingAllocator::make_reusable(HostBlock* b) {
  free_.emplace(b->size, reinterpret_cast<uintptr_t>(b->ptr));
  stats_.active_requests.decrease(1);
  stats_.active_bytes.decrease(static_cast<int64_t>(b->size));
}

// Per stream, events complete in record order: stop at the first that has not.
void HostCachingAllocator::process_events() {
  for (EventQueue& q : queues_) {
    while (!q.events.empty()) {
      auto& [pe, block] = q.events.front();
      if (!backing_->query_event(pe.event)) break;
      events_.put(pe.device, pe.event);
      if (--block->pending_events == 0) make_reusable(block);
      q.events.pop_front();
    }
  }
}

void HostCachingAllocator::release(HostBlock* b) {
  const auto t0 = std::chrono::steady_clock::now();
  backing_->free(b->ptr);
  stats_.num_host_free.add();
  add_time(stats_.free_us_total, stats_.free_us_max, stats_.free_us_min, stats_.free_us_count,
           elapsed_us(t0));
  stats_.allocations.decrease(1);
  stats_.allocated_bytes.decrease(static_cast<int64_t>(b->size));
  free_.erase({b->size, reinterpret_cast<uintptr_t>(b->ptr)});
  blocks_.erase(reinterpret_cast<uintptr_t>(b->ptr));
  delete b;
}

void HostCachingAllocator::release_cached() {
  process_events();
  const std::vector<std::pair<size_t, uintptr_t>> cached(free_.begin(), free_.end());
  for (const auto& [size, addr] : cached) release(blocks_.at(addr));
}

void HostCachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  release_cached();
}

bool HostCachingAllocator::is_pinned(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto addr = reinterpret_cast<uintptr_t>(ptr);
  auto it = blocks_.upper_bound(addr);
  if (it == blocks_.begin()) return false;
  --it;
  return addr < it->first + it->second->size;
}

std::vector<std::pair<std::string, int64_t>> flatten(const HostStats& s) {
  std::vector<std::pair<std::string, int64_t>> out;
  add_stat(out, "active_bytes", s.active_bytes);
  add_stat(out, "active_requests", s.active_requests);
  add_stat(out, "allocated_bytes", s.allocated_bytes);
  add_stat(out, "allocations", s.allocations);
  add_time_stat(out, "host_alloc_time", s.alloc_us_total, s.alloc_us_max, s.alloc_us_min,
                s.alloc_us_count);
  add_time_stat(out, "host_free_time", s.free_us_total, s.free_us_max, s.free_us_min,
                s.free_us_count);
  out.emplace_back("num_host_alloc", s.num_host_alloc.get());
  out.emplace_back("num_host_free", s.num_host_free.get());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<std::string, int64_t>> HostCachingAllocator::stats_snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return flatten(stats_);
}

void HostCachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (Stat* s : {&stats_.allocations, &stats_.allocated_bytes, &stats_.active_requests,
                  &stats_.active_bytes}) {
    s->reset_peak();
  }
}

void HostCachingAllocator::reset_accumulated_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (Stat* s : {&stats_.allocations, &stats_.allocated_bytes, &stats_.active_requests,
                  &stats_.active_bytes}) {
    s->reset_accumulated();
  }
  for (Counter* c : {&stats_.num_host_alloc, &stats_.num_host_free, &stats_.alloc_us_total,
                     &stats_.alloc_us_max, &stats_.alloc_us_min, &stats_.alloc_us_count,
                     &stats_.free_us_total, &stats_.free_us_max, &stats_.free_us_min,
                     &stats_.free_us_count}) {
    c->set(0);
  }
}

std::tuple<size_t, size_t, size_t> HostCachingAllocator::counts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t pending = 0;
  for (const auto& kv : blocks_) {
    if (!kv.second->allocated && kv.second->pending_events > 0) ++pending;
  }
  return {blocks_.size(), free_.size(), pending};
}

}  // namespace ember::memory
