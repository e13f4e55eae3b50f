// Simulated backings for testing the allocators without a GPU.
//
// SimDeviceBacking hands out fake, never reused addresses from a device of a
// given size, can be told to fail the next cudaMallocs, and logs every call
// that matters to stream ordering. Its events complete only when the test
// says so (complete_stream / complete_all), as if the GPU were still busy.
// SimHostBacking is the same for the host allocator, over plain malloc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "memory/backing.hpp"

namespace ember::memory {

// One logged backing call: op is "malloc", "free", "record", "wait", "sync",
// "query"; a and b are its operands (a size or address, an event id, a stream).
struct SimCall {
  std::string op;
  uint64_t a = 0;
  uint64_t b = 0;
};

// Events of a simulated GPU: recorded on a stream, complete when told.
class SimEvents {
 public:
  Event create();
  void destroy(Event e) noexcept;
  void record(Event e, Stream s);
  bool query(Event e);
  void synchronize(Event e);
  void wait(Stream s, Event e);
  // Completes every event recorded so far on stream `s` / on every stream.
  void complete_stream(uint64_t stream);
  void complete_all();
  size_t live() const;
  std::vector<SimCall> take_log();
  void log(std::string op, uint64_t a, uint64_t b);
  // Logging is on by default; stress tests and benchmarks turn it off.
  void set_logging(bool on);

 private:
  struct State {
    uint64_t stream = 0;
    bool recorded = false;
    bool complete = true;
  };
  State& at(Event e);
  mutable std::mutex mu_;
  uint64_t next_id_ = 1;
  std::map<uint64_t, State> events_;
  std::vector<SimCall> log_;
  bool logging_ = true;
};

class SimDeviceBacking : public DeviceBacking {
 public:
  explicit SimDeviceBacking(size_t total_bytes, int device = 0);

  int device() const override { return device_; }
  MallocStatus malloc(void** ptr, size_t size) override;
  void free(void* ptr) override;
  std::pair<size_t, size_t> mem_get_info() override;
  Event create_event(int) override { return events_.create(); }
  void destroy_event(Event e) noexcept override { events_.destroy(e); }
  void record_event(Event e, Stream s) override { events_.record(e, s); }
  bool query_event(Event e) override { return events_.query(e); }
  void synchronize_event(Event e) override { events_.synchronize(e); }
  void stream_wait_event(Stream s, Event e) override { events_.wait(s, e); }

  SimEvents& events() noexcept { return events_; }
  // The next `n` mallocs fail as if the device were out of memory.
  void fail_next_mallocs(int n);
  size_t used() const;
  size_t segments() const;

 private:
  mutable std::mutex mu_;
  SimEvents events_;
  const size_t total_;
  const int device_;
  size_t used_ = 0;
  uintptr_t next_addr_ = uintptr_t{1} << 40;
  int fail_next_ = 0;
  std::map<uintptr_t, size_t> live_;
};

class SimHostBacking : public HostBacking {
 public:
  // `capacity`: how many bytes alloc() hands out before it fails.
  explicit SimHostBacking(size_t capacity);
  ~SimHostBacking() override;

  void* alloc(size_t size) override;
  void free(void* ptr) override;
  Event create_event(int) override { return events_.create(); }
  void destroy_event(Event e) noexcept override { events_.destroy(e); }
  void record_event(Event e, Stream s) override { events_.record(e, s); }
  bool query_event(Event e) override { return events_.query(e); }

  SimEvents& events() noexcept { return events_; }
  size_t used() const;

 private:
  mutable std::mutex mu_;
  SimEvents events_;
  const size_t capacity_;
  size_t used_ = 0;
  std::map<void*, size_t> live_;
};

}  // namespace ember::memory
