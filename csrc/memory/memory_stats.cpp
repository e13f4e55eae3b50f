#include "memory/memory_stats.hpp"

#include <algorithm>
#include <cstdio>

namespace ember::memory {

namespace {

const char* const kPoolNames[3] = {"all", "small_pool", "large_pool"};

void add_stat(std::vector<std::pair<std::string, int64_t>>& out, const std::string& prefix,
              const Stat& s) {
  out.emplace_back(prefix + ".current", s.current());
  out.emplace_back(prefix + ".peak", s.peak());
  out.emplace_back(prefix + ".allocated", s.allocated());
  out.emplace_back(prefix + ".freed", s.freed());
}

void add_array(std::vector<std::pair<std::string, int64_t>>& out, const char* name,
               const StatArray& a) {
  for (int t = 0; t < 3; ++t) add_stat(out, std::string(name) + "." + kPoolNames[t], a[t]);
}

template <typename F>
void for_each_stat(DeviceStats& s, F f) {
  for (StatArray* a : {&s.allocation, &s.segment, &s.active, &s.inactive_split,
                       &s.allocated_bytes, &s.reserved_bytes, &s.active_bytes,
                       &s.inactive_split_bytes, &s.requested_bytes}) {
    for (int t = 0; t < 3; ++t) f((*a)[t]);
  }
  f(s.oversize_allocations);
  f(s.oversize_segments);
}

}  // namespace

void DeviceStats::reset_peak() noexcept {
  for_each_stat(*this, [](Stat& st) { st.reset_peak(); });
}

void DeviceStats::reset_accumulated() noexcept {
  for_each_stat(*this, [](Stat& st) { st.reset_accumulated(); });
  for (Counter* c : {&num_alloc_retries, &num_ooms, &num_oom_rejections, &num_sync_all_streams,
                     &num_device_alloc, &num_device_free, &num_cross_stream_reuses}) {
    c->set(0);
  }
}

std::vector<std::pair<std::string, int64_t>> flatten(const DeviceStats& s) {
  std::vector<std::pair<std::string, int64_t>> out;
  out.reserve(128);
  add_array(out, "active", s.active);
  add_array(out, "active_bytes", s.active_bytes);
  add_array(out, "allocated_bytes", s.allocated_bytes);
  add_array(out, "allocation", s.allocation);
  add_array(out, "inactive_split", s.inactive_split);
  add_array(out, "inactive_split_bytes", s.inactive_split_bytes);
  add_array(out, "requested_bytes", s.requested_bytes);
  add_array(out, "reserved_bytes", s.reserved_bytes);
  add_array(out, "segment", s.segment);
  add_stat(out, "oversize_allocations", s.oversize_allocations);
  add_stat(out, "oversize_segments", s.oversize_segments);
  out.emplace_back("max_split_size", s.max_split_size.get());
  out.emplace_back("num_alloc_retries", s.num_alloc_retries.get());
  out.emplace_back("num_cross_stream_reuses", s.num_cross_stream_reuses.get());
  out.emplace_back("num_device_alloc", s.num_device_alloc.get());
  out.emplace_back("num_device_free", s.num_device_free.get());
  out.emplace_back("num_oom_rejections", s.num_oom_rejections.get());
  out.emplace_back("num_ooms", s.num_ooms.get());
  out.emplace_back("num_sync_all_streams", s.num_sync_all_streams.get());
  std::sort(out.begin(), out.end());
  return out;
}

std::string format_size(uint64_t bytes) {
  char buf[64];
  const double b = static_cast<double>(bytes);
  if (bytes <= 1024) {
    std::snprintf(buf, sizeof(buf), "%llu bytes", static_cast<unsigned long long>(bytes));
  } else if (bytes <= (1ull << 20)) {
    std::snprintf(buf, sizeof(buf), "%.2f KiB", b / 1024.0);
  } else if (bytes <= (1ull << 30)) {
    std::snprintf(buf, sizeof(buf), "%.2f MiB", b / 1048576.0);
  } else {
    std::snprintf(buf, sizeof(buf), "%.2f GiB", b / 1073741824.0);
  }
  return buf;
}

}  // namespace ember::memory
