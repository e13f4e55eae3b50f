#include "memory/sim_backing.hpp"

#include <cstdlib>

#include "runtime/errors.hpp"

namespace ember::memory {

namespace {

uint64_t id_of(Event e) { return reinterpret_cast<uintptr_t>(e); }

}  // namespace

// ---- SimEvents ----------------------------------------------------------

Event SimEvents::create() {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t id = next_id_++;
  events_[id] = State{};
  return reinterpret_cast<Event>(static_cast<uintptr_t>(id));
}

void SimEvents::destroy(Event e) noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  events_.erase(id_of(e));
}

SimEvents::State& SimEvents::at(Event e) {
  auto it = events_.find(id_of(e));
  EMBER_CHECK(it != events_.end(), "simulated event ", id_of(e), " does not exist");
  return it->second;
}

void SimEvents::record(Event e, Stream s) {
  std::lock_guard<std::mutex> lock(mu_);
  State& st = at(e);
  st.stream = s.id();
  st.recorded = true;
  st.complete = false;
  if (logging_) log_.push_back({"record", id_of(e), s.id()});
}

bool SimEvents::query(Event e) {
  std::lock_guard<std::mutex> lock(mu_);
  return at(e).complete;
}

void SimEvents::synchronize(Event e) {
  std::lock_guard<std::mutex> lock(mu_);
  at(e).complete = true;
  if (logging_) log_.push_back({"sync", id_of(e), 0});
}

void SimEvents::wait(Stream s, Event e) {
  std::lock_guard<std::mutex> lock(mu_);
  (void)at(e);
  if (logging_) log_.push_back({"wait", s.id(), id_of(e)});
}

void SimEvents::complete_stream(uint64_t stream) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& kv : events_) {
    if (kv.second.recorded && kv.second.stream == stream) kv.second.complete = true;
  }
}

void SimEvents::complete_all() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& kv : events_) kv.second.complete = true;
}

size_t SimEvents::live() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_.size();
}

std::vector<SimCall> SimEvents::take_log() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<SimCall> out;
  out.swap(log_);
  return out;
}

void SimEvents::log(std::string op, uint64_t a, uint64_t b) {
  std::lock_guard<std::mutex> lock(mu_);
  if (logging_) log_.push_back({std::move(op), a, b});
}

void SimEvents::set_logging(bool on) {
  std::lock_guard<std::mutex> lock(mu_);
  logging_ = on;
}

// ---- SimDeviceBacking ---------------------------------------------------

SimDeviceBacking::SimDeviceBacking(size_t total_bytes, int device)
    : total_(total_bytes), device_(device) {}

MallocStatus SimDeviceBacking::malloc(void** ptr, size_t size) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (fail_next_ > 0 || size > total_ - used_) {
      if (fail_next_ > 0) --fail_next_;
      *ptr = nullptr;
    } else {
      const uintptr_t addr = next_addr_;
      next_addr_ += (size + 511) / 512 * 512 + 512;  // a gap catches overruns in tests
      used_ += size;
      live_[addr] = size;
      *ptr = reinterpret_cast<void*>(addr);
    }
  }
  events_.log(*ptr ? "malloc" : "malloc_failed", size, reinterpret_cast<uintptr_t>(*ptr));
  return *ptr ? MallocStatus::kOk : MallocStatus::kOutOfMemory;
}

void SimDeviceBacking::free(void* ptr) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(reinterpret_cast<uintptr_t>(ptr));
    EMBER_CHECK(it != live_.end(), "simulated cudaFree of ", ptr, ", which is not a segment");
    used_ -= it->second;
    live_.erase(it);
  }
  events_.log("free", reinterpret_cast<uintptr_t>(ptr), 0);
}

std::pair<size_t, size_t> SimDeviceBacking::mem_get_info() {
  std::lock_guard<std::mutex> lock(mu_);
  return {total_ - used_, total_};
}

void SimDeviceBacking::fail_next_mallocs(int n) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_next_ = n;
}

size_t SimDeviceBacking::used() const {
  std::lock_guard<std::mutex> lock(mu_);
  return used_;
}

size_t SimDeviceBacking::segments() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_.size();
}

// ---- SimHostBacking -----------------------------------------------------

SimHostBacking::SimHostBacking(size_t capacity) : capacity_(capacity) {}

SimHostBacking::~SimHostBacking() {
  for (auto& kv : live_) std::free(kv.first);
}

void* SimHostBacking::alloc(size_t size) {
  void* p = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (size <= capacity_ - used_) {
      p = std::malloc(size);
      if (p) {
        used_ += size;
        live_[p] = size;
      }
    }
  }
  events_.log(p ? "malloc" : "malloc_failed", size, reinterpret_cast<uintptr_t>(p));
  return p;
}

void SimHostBacking::free(void* ptr) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(ptr);
    EMBER_CHECK(it != live_.end(), "simulated cudaFreeHost of ", ptr, ", which is not a block");
    used_ -= it->second;
    live_.erase(it);
  }
  std::free(ptr);
  events_.log("free", reinterpret_cast<uintptr_t>(ptr), 0);
}

size_t SimHostBacking::used() const {
  std::lock_guard<std::mutex> lock(mu_);
  return used_;
}

}  // namespace ember::memory
