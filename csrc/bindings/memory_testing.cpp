// ember._C._memory: the allocators over simulated backings, and test helpers.
// CI exercises all of the allocators' bookkeeping through these on machines
// without a GPU; the GPU tests use the stream-ordered memset/memcpy helpers.
#include <pybind11/stl.h>

#include "bindings/bindings.hpp"
#include "bindings/memory_args.hpp"
#include "memory/allocator_config.hpp"
#include "memory/allocators.hpp"
#include "memory/caching_allocator.hpp"
#include "memory/host_allocator.hpp"
#include "memory/sim_backing.hpp"
#include "memory/testing.hpp"
#include "runtime/errors.hpp"

namespace ember::bindings {

namespace {

using memory::CachingAllocator;
using memory::HostCachingAllocator;
using memory::SimDeviceBacking;
using memory::SimHostBacking;

memory::Stream sim_stream(uint64_t id, int device) {
  return memory::Stream(reinterpret_cast<cuda::StreamHandle>(static_cast<uintptr_t>(id)), device);
}

py::list log_list(memory::SimEvents& events) {
  py::list out;
  for (const memory::SimCall& c : events.take_log()) out.append(py::make_tuple(c.op, c.a, c.b));
  return out;
}

[[noreturn]] void unknown(uintptr_t ptr) {
  throw ValueError(detail::str("pointer ", ptr, " is not a live allocation of this allocator"));
}

// The device caching allocator over a simulated device of `total_bytes`.
class SimAllocator {
 public:
  SimAllocator(size_t total_bytes, const std::string& conf, int device) {
    auto backing = std::make_unique<SimDeviceBacking>(total_bytes, device);
    backing_ = backing.get();
    alloc_ = std::make_unique<CachingAllocator>(std::move(backing), memory::parse_alloc_conf(conf));
  }
  uintptr_t alloc(size_t size, uint64_t stream) {
    return reinterpret_cast<uintptr_t>(alloc_->allocate(size, sim_stream(stream, alloc_->device())));
  }
  void free(uintptr_t ptr) {
    if (ptr != 0 && !alloc_->try_deallocate(reinterpret_cast<void*>(ptr))) unknown(ptr);
  }
  void record_stream(uintptr_t ptr, uint64_t stream) {
    if (!alloc_->try_record_stream(reinterpret_cast<void*>(ptr), sim_stream(stream, alloc_->device()))) {
      unknown(ptr);
    }
  }
  py::list snapshot() const {
    py::list out;
    for (const memory::SegmentInfo& s : alloc_->snapshot()) {
      py::list blocks;
      for (const memory::BlockInfo& b : s.blocks) {
        py::dict d;
        d["ptr"] = b.ptr;
        d["size"] = b.size;
        d["requested_size"] = b.requested_size;
        d["allocated"] = b.allocated;
        d["stream"] = b.stream;
        d["foreign"] = b.num_foreign;
        d["events"] = b.num_events;
        blocks.append(d);
      }
      py::dict seg;
      seg["ptr"] = s.ptr;
      seg["size"] = s.size;
      seg["pool"] = s.is_small ? "small" : "large";
      seg["blocks"] = blocks;
      out.append(seg);
    }
    return out;
  }
  CachingAllocator& a() { return *alloc_; }
  SimDeviceBacking& backing() { return *backing_; }

 private:
  SimDeviceBacking* backing_ = nullptr;  // owned by alloc_
  std::unique_ptr<CachingAllocator> alloc_;
};

// The pinned host allocator over malloc, with a capacity.
class SimHostAllocator {
 public:
  explicit SimHostAllocator(size_t capacity) {
    auto backing = std::make_unique<SimHostBacking>(capacity);
    backing_ = backing.get();
    alloc_ = std::make_unique<HostCachingAllocator>(std::move(backing));
  }
  HostCachingAllocator& a() { return *alloc_; }
  SimHostBacking& backing() { return *backing_; }

 private:
  SimHostBacking* backing_ = nullptr;
  std::unique_ptr<HostCachingAllocator> alloc_;
};

py::dict config_dict(const memory::AllocatorConfig& c) {
  py::dict d;
  const bool unlimited = c.max_split_size == std::numeric_limits<size_t>::max();
  d["max_split_size"] = unlimited ? py::object(py::none()) : py::object(py::int_(c.max_split_size));
  d["garbage_collection_threshold"] = c.garbage_collection_threshold;
  d["roundup_power2_divisions"] = c.roundup_power2_divisions;
  d["caching"] = c.caching;
  d["str"] = c.str();
  return d;
}

void bind_sim_allocator(py::module_& m) {
  py::class_<SimAllocator>(m, "_SimAllocator",
                           "ember's device caching allocator over a simulated device: fake "
                           "addresses, streams as ints, events completed by the test.")
      .def(py::init<size_t, const std::string&, int>(), py::arg("total_bytes"),
           py::arg("conf") = "", py::arg("device") = 0)
      .def("alloc", &SimAllocator::alloc, py::arg("size"), py::arg("stream") = 0)
      .def("free", &SimAllocator::free, py::arg("ptr"))
      .def("record_stream", &SimAllocator::record_stream, py::arg("ptr"), py::arg("stream"))
      .def("empty_cache", [](SimAllocator& s) { s.a().empty_cache(); })
      .def("set_memory_fraction", [](SimAllocator& s, double f) { s.a().set_memory_fraction(f); })
      .def("get_memory_fraction", [](SimAllocator& s) { return s.a().memory_fraction(); })
      .def("fail_next_mallocs", [](SimAllocator& s, int n) { s.backing().fail_next_mallocs(n); })
      .def("complete", [](SimAllocator& s, uint64_t st) { s.backing().events().complete_stream(st); },
           py::arg("stream"), "Completes the events recorded so far on `stream`.")
      .def("complete_all", [](SimAllocator& s) { s.backing().events().complete_all(); })
      .def("set_logging", [](SimAllocator& s, bool on) { s.backing().events().set_logging(on); })
      .def("log", [](SimAllocator& s) { return log_list(s.backing().events()); },
           "The backing calls since the last log(): (op, a, b) tuples.")
      .def("memory_allocated", [](SimAllocator& s) { return s.a().memory_allocated(); })
      .def("max_memory_allocated", [](SimAllocator& s) { return s.a().max_memory_allocated(); })
      .def("memory_reserved", [](SimAllocator& s) { return s.a().memory_reserved(); })
      .def("max_memory_reserved", [](SimAllocator& s) { return s.a().max_memory_reserved(); })
      .def("memory_stats", [](SimAllocator& s) { return to_dict(s.a().stats_snapshot()); })
      .def("reset_peak_memory_stats", [](SimAllocator& s) { s.a().reset_peak_stats(); })
      .def("reset_accumulated_memory_stats", [](SimAllocator& s) { s.a().reset_accumulated_stats(); })
      .def("largest_free_block", [](SimAllocator& s) { return s.a().largest_free_block(); })
      .def("live_allocations", [](SimAllocator& s) { return s.a().live_allocations(); })
      .def("snapshot", &SimAllocator::snapshot)
      .def("round_size", [](SimAllocator& s, size_t n) { return s.a().round_size(n); })
      .def_static("allocation_size", &CachingAllocator::allocation_size)
      .def("used", [](SimAllocator& s) { return s.backing().used(); },
           "Bytes the simulated device has handed out (cudaMalloc'd and not freed).")
      .def("segments", [](SimAllocator& s) { return s.backing().segments(); })
      .def("live_events", [](SimAllocator& s) { return s.backing().events().live(); })
      .def(
          "stress",
          [](SimAllocator& s, const std::vector<uint64_t>& streams, int threads, int iterations,
             size_t max_size, uint64_t seed) {
            std::vector<memory::Stream> ss;
            for (uint64_t id : streams) ss.push_back(sim_stream(id, s.a().device()));
            memory::testing::StressResult r;
            {
              py::gil_scoped_release nogil;
              r = memory::testing::stress(s.a(), ss, threads, iterations, max_size, seed);
            }
            return py::make_tuple(r.allocations, r.overlaps, r.ooms);
          },
          py::arg("streams"), py::arg("threads"), py::arg("iterations"), py::arg("max_size"),
          py::arg("seed") = 0,
          "Runs testing::stress without the GIL; returns (allocations, overlaps, ooms).")
      .def(
          "alloc_free_ns",
          [](SimAllocator& s, size_t size, int iterations) {
            py::gil_scoped_release nogil;
            return memory::testing::alloc_free_ns(s.a(), size, sim_stream(0, s.a().device()),
                                                  iterations);
          },
          py::arg("size"), py::arg("iterations"));

  py::class_<SimHostAllocator>(m, "_SimHostAllocator",
                               "ember's pinned host allocator over malloc, with simulated events.")
      .def(py::init<size_t>(), py::arg("capacity") = static_cast<size_t>(1) << 40)
      .def("alloc", [](SimHostAllocator& s, size_t n) {
        return reinterpret_cast<uintptr_t>(s.a().allocate(n));
      })
      .def("free", [](SimHostAllocator& s, uintptr_t p) {
        if (p != 0 && !s.a().try_free(reinterpret_cast<void*>(p))) unknown(p);
      })
      .def("record_stream",
           [](SimHostAllocator& s, uintptr_t p, uint64_t stream) {
             if (!s.a().try_record_stream(reinterpret_cast<void*>(p), sim_stream(stream, 0))) {
               unknown(p);
             }
           })
      .def("complete", [](SimHostAllocator& s, uint64_t st) { s.backing().events().complete_stream(st); })
      .def("complete_all", [](SimHostAllocator& s) { s.backing().events().complete_all(); })
      .def("log", [](SimHostAllocator& s) { return log_list(s.backing().events()); })
      .def("empty_cache", [](SimHostAllocator& s) { s.a().empty_cache(); })
      .def("is_pinned", [](SimHostAllocator& s, uintptr_t p) {
        return s.a().is_pinned(reinterpret_cast<void*>(p));
      })
      .def("stats", [](SimHostAllocator& s) { return to_dict(s.a().stats_snapshot()); })
      .def("reset_peak_stats", [](SimHostAllocator& s) { s.a().reset_peak_stats(); })
      .def("reset_accumulated_stats", [](SimHostAllocator& s) { s.a().reset_accumulated_stats(); })
      .def("counts", [](SimHostAllocator& s) { return s.a().counts(); },
           "(blocks held, cached reusable blocks, blocks waiting for events)")
      .def("used", [](SimHostAllocator& s) { return s.backing().used(); })
      .def("live_events", [](SimHostAllocator& s) { return s.backing().events().live(); })
      .def_static("round_size", &HostCachingAllocator::round_size);
}

void bind_gpu_helpers(py::module_& m) {
  m.def(
      "_memset_async",
      [](uintptr_t ptr, int value, size_t nbytes, py::handle stream) {
        memory::testing::memset_async(reinterpret_cast<void*>(ptr), value, nbytes,
                                      stream_from_py(stream, -1, /*allow_handle=*/true));
      },
      py::arg("ptr"), py::arg("value"), py::arg("nbytes"), py::arg("stream") = py::none());
  m.def(
      "_memcpy_async",
      [](uintptr_t dst, uintptr_t src, size_t nbytes, py::handle stream) {
        memory::testing::memcpy_async(reinterpret_cast<void*>(dst),
                                      reinterpret_cast<const void*>(src), nbytes,
                                      stream_from_py(stream, -1, /*allow_handle=*/true));
      },
      py::arg("dst"), py::arg("src"), py::arg("nbytes"), py::arg("stream") = py::none());
  m.def(
      "_stream_synchronize",
      [](py::handle stream) {
        const memory::Stream s = stream_from_py(stream, -1, /*allow_handle=*/true);
        py::gil_scoped_release nogil;
        memory::testing::stream_synchronize(s);
      },
      py::arg("stream") = py::none());
  m.def(
      "_device_stress",
      [](int device, const std::vector<uintptr_t>& handles, int threads, int iterations,
         size_t max_size, uint64_t seed) {
        CachingAllocator& a = memory::device_allocator(device);
        std::vector<memory::Stream> ss;
        for (uintptr_t h : handles) {
          ss.emplace_back(reinterpret_cast<cuda::StreamHandle>(h), device);
        }
        memory::testing::StressResult r;
        {
          py::gil_scoped_release nogil;
          r = memory::testing::stress(a, ss, threads, iterations, max_size, seed);
        }
        return py::make_tuple(r.allocations, r.overlaps, r.ooms);
      },
      py::arg("device"), py::arg("streams"), py::arg("threads"), py::arg("iterations"),
      py::arg("max_size"), py::arg("seed") = 0,
      "testing::stress on the device's real caching allocator, without the GIL.");
  m.def(
      "_device_alloc_free_ns",
      [](int device, size_t size, int iterations) {
        CachingAllocator& a = memory::device_allocator(device);
        const memory::Stream s = cuda::current_stream(device);
        py::gil_scoped_release nogil;
        return memory::testing::alloc_free_ns(a, size, s, iterations);
      },
      py::arg("device"), py::arg("size"), py::arg("iterations"),
      "ns per C++ allocate+free of a cached block on the device's current stream.");
}

}  // namespace

void bind_memory_testing(py::module_& m) {
  py::module_ mm = m.def_submodule("_memory", "ember's allocators over simulated backings, for tests");
  bind_sim_allocator(mm);
  bind_gpu_helpers(mm);
  mm.def(
      "parse_alloc_conf", [](const std::string& text) { return config_dict(memory::parse_alloc_conf(text)); },
      py::arg("text"), "Parses an EMBER_CUDA_ALLOC_CONF value (ValueError when invalid).");
  mm.def("format_size", &memory::format_size, py::arg("bytes"));
  mm.attr("kMinBlockSize") = memory::kMinBlockSize;
  mm.attr("kSmallSize") = memory::kSmallSize;
  mm.attr("kSmallBuffer") = memory::kSmallBuffer;
  mm.attr("kMinLargeAlloc") = memory::kMinLargeAlloc;
  mm.attr("kLargeBuffer") = memory::kLargeBuffer;
  mm.attr("kRoundLarge") = memory::kRoundLarge;
  mm.attr("kHostPage") = memory::kHostPage;
}

}  // namespace ember::bindings
