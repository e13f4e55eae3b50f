// Recycled events for the allocators' stream ordering. Creating an event costs
// microseconds and serialises threads in the driver; the allocators record one
// only on their rare paths (cross-stream reuse, record_stream), and reuse them.
#pragma once

#include <utility>
#include <vector>

#include "memory/backing.hpp"

namespace ember::memory {

// Not thread-safe: used under its allocator's lock. `Backing` is DeviceBacking
// or HostBacking.
template <typename Backing>
class EventPool {
 public:
  explicit EventPool(Backing& backing) : backing_(backing) {}
  ~EventPool() { clear(); }
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;

  Event get(int device) {
    for (auto& [dev, events] : free_) {
      if (dev == device && !events.empty()) {
        Event e = events.back();
        events.pop_back();
        return e;
      }
    }
    return backing_.create_event(device);
  }

  void put(int device, Event e) {
    for (auto& [dev, events] : free_) {
      if (dev == device) {
        events.push_back(e);
        return;
      }
    }
    free_.emplace_back(device, std::vector<Event>{e});
  }

  void clear() noexcept {
    for (auto& [dev, events] : free_) {
      for (Event e : events) backing_.destroy_event(e);
      events.clear();
    }
  }

 private:
  Backing& backing_;
  std::vector<std::pair<int, std::vector<Event>>> free_;
};

}  // namespace ember::memory
