// ember.cuda's memory functions.
//
// The per-call hot paths -- memory_allocated() and the other single figures,
// caching_allocator_alloc/delete -- are plain CPython METH_FASTCALL functions
// with hand-written argument parsing: pybind11's dispatcher alone costs more
// than the work they do. Everything else is ordinary pybind11.
#include <pybind11/stl.h>

#include <cstring>

#include "bindings/bindings.hpp"
#include "bindings/fastcall.hpp"
#include "bindings/memory_args.hpp"
#include "memory/allocator_config.hpp"
#include "memory/allocators.hpp"
#include "ops/copy/transfer.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/init.hpp"

namespace ember::bindings {

namespace {

using memory::CachingAllocator;

// ---- the single figures: memory_allocated(device=None) and friends -------

using Getter = int64_t (CachingAllocator::*)() const noexcept;

PyObject* read_figure(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                      const Signature& sig, Getter getter) {
  PyObject* dev = nullptr;
  try {
    sig.parse(args, nargs, kwnames, &dev);
    int idx = (dev == nullptr || dev == Py_None) ? -1 : cuda_index_from_py(dev);
    // Before CUDA is initialised nothing can have been allocated (torch: 0 too).
    if (!cuda::is_initialized()) return PyLong_FromLong(0);
    if (idx < 0) idx = cuda::current_device();
    if (CachingAllocator* a = memory::existing_device_allocator(idx)) {
      return PyLong_FromLongLong((a->*getter)());
    }
    cuda::check_device_index(idx);
    return PyLong_FromLong(0);
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

PyObject* memory_allocated(PyObject*, PyObject* const* a, Py_ssize_t n, PyObject* kw) {
  static const Signature sig("memory_allocated", 1, {"device"});
  return read_figure(a, n, kw, sig, &CachingAllocator::memory_allocated);
}
PyObject* max_memory_allocated(PyObject*, PyObject* const* a, Py_ssize_t n, PyObject* kw) {
  static const Signature sig("max_memory_allocated", 1, {"device"});
  return read_figure(a, n, kw, sig, &CachingAllocator::max_memory_allocated);
}
PyObject* memory_reserved(PyObject*, PyObject* const* a, Py_ssize_t n, PyObject* kw) {
  static const Signature sig("memory_reserved", 1, {"device"});
  return read_figure(a, n, kw, sig, &CachingAllocator::memory_reserved);
}
PyObject* max_memory_reserved(PyObject*, PyObject* const* a, Py_ssize_t n, PyObject* kw) {
  static const Signature sig("max_memory_reserved", 1, {"device"});
  return read_figure(a, n, kw, sig, &CachingAllocator::max_memory_reserved);
}

// ---- caching_allocator_alloc(size, device=None, stream=None) / _delete(ptr) --

PyObject* caching_allocator_alloc(PyObject*, PyObject* const* args, Py_ssize_t nargs,
                                  PyObject* kwnames) {
  static const Signature sig("caching_allocator_alloc", 3, {"size", "device", "stream"}, 1);
  PyObject* v[3] = {nullptr, nullptr, nullptr};
  try {
    sig.parse(args, nargs, kwnames, v);
    const size_t size = size_from_py(v[0], "caching_allocator_alloc", "size");
    int idx = (v[1] == nullptr || v[1] == Py_None) ? -1 : cuda_index_from_py(v[1]);
    if (idx < 0) idx = cuda::current_device();
    const memory::Stream stream = stream_from_py(v[2], idx, /*allow_handle=*/true);
    return PyLong_FromVoidPtr(memory::raw_alloc(size, idx, stream));
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

PyObject* caching_allocator_delete(PyObject*, PyObject* const* args, Py_ssize_t nargs,
                                   PyObject* kwnames) {
  static const Signature sig("caching_allocator_delete", 1, {"mem_ptr"}, 1);
  PyObject* p = nullptr;
  try {
    sig.parse(args, nargs, kwnames, &p);
    memory::raw_delete(ptr_from_py(p, "caching_allocator_delete"));
    Py_RETURN_NONE;
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

PyMethodDef kFastMethods[] = {
    {"memory_allocated", EMBER_FAST(&memory_allocated),
     METH_FASTCALL | METH_KEYWORDS,
     "memory_allocated(device=None) -> int\n\nBytes of GPU memory held by live allocations "
     "(rounded sizes), as torch counts them. One load; does not initialise CUDA."},
    {"max_memory_allocated",
     EMBER_FAST(&max_memory_allocated),
     METH_FASTCALL | METH_KEYWORDS,
     "max_memory_allocated(device=None) -> int\n\nPeak of memory_allocated() since the start "
     "or the last reset_peak_memory_stats()."},
    {"memory_reserved", EMBER_FAST(&memory_reserved),
     METH_FASTCALL | METH_KEYWORDS,
     "memory_reserved(device=None) -> int\n\nBytes of GPU memory the caching allocator holds "
     "(allocated or cached)."},
    {"max_memory_reserved",
     EMBER_FAST(&max_memory_reserved),
     METH_FASTCALL | METH_KEYWORDS,
     "max_memory_reserved(device=None) -> int\n\nPeak of memory_reserved()."},
    {"caching_allocator_alloc",
     EMBER_FAST(&caching_allocator_alloc),
     METH_FASTCALL | METH_KEYWORDS,
     "caching_allocator_alloc(size, device=None, stream=None) -> int\n\nAllocates `size` bytes "
     "with the caching allocator, usable in stream order on `stream` (default: the device's "
     "current stream; an ember Stream, an object with __cuda_stream__, or an int handle). "
     "Returns the address; free it with caching_allocator_delete."},
    {"caching_allocator_delete",
     EMBER_FAST(&caching_allocator_delete),
     METH_FASTCALL | METH_KEYWORDS,
     "caching_allocator_delete(mem_ptr)\n\nFrees memory from caching_allocator_alloc. Its "
     "memory is reused at once by work on the stream it was allocated on, and by other streams "
     "after they have been ordered behind that stream's work."},
    {nullptr, nullptr, 0, nullptr}};

// ---- the rest: ordinary pybind11 ---------------------------------------

int resolve_device(py::handle device) {
  const int idx = cuda_index_from_py(device);
  return idx < 0 ? cuda::current_device() : idx;
}

py::dict memory_stats(py::handle device) {
  const int idx = cuda_index_from_py(device);
  if (cuda::is_initialized()) {
    const int d = idx < 0 ? cuda::current_device() : idx;
    if (CachingAllocator* a = memory::existing_device_allocator(d)) {
      return to_dict(a->stats_snapshot());
    }
    cuda::check_device_index(d);
  }
  // Nothing allocated yet: every figure is zero.
  memory::DeviceStats zero;
  const size_t max_split = memory::process_alloc_conf().max_split_size;
  zero.max_split_size.set(max_split == std::numeric_limits<size_t>::max()
                              ? -1
                              : static_cast<int64_t>(max_split));
  return to_dict(memory::flatten(zero));
}

template <typename F>
void with_allocator(py::handle device, F f) {
  if (!cuda::is_initialized()) return;
  const int idx = resolve_device(device);
  if (CachingAllocator* a = memory::existing_device_allocator(idx)) {
    f(*a);
  } else {
    cuda::check_device_index(idx);
  }
}

py::list memory_snapshot() {
  py::list out;
  for (int d = 0; d < cuda::kMaxDevices; ++d) {
    CachingAllocator* a = memory::existing_device_allocator(d);
    if (a == nullptr) continue;
    for (const memory::SegmentInfo& s : a->snapshot()) {
      py::dict seg;
      size_t allocated = 0;
      py::list blocks;
      for (const memory::BlockInfo& b : s.blocks) {
        py::dict bd;
        bd["address"] = b.ptr;
        bd["size"] = b.size;
        bd["requested_size"] = b.requested_size;
        bd["state"] = b.allocated ? "active_allocated" : "inactive";
        bd["stream"] = b.stream;
        blocks.append(bd);
        if (b.allocated) allocated += b.size;
      }
      seg["device"] = d;
      seg["address"] = s.ptr;
      seg["total_size"] = s.size;
      seg["allocated_size"] = allocated;
      seg["segment_type"] = s.is_small ? "small" : "large";
      seg["blocks"] = blocks;
      out.append(seg);
    }
  }
  return out;
}

// A pinned host buffer from the caching host allocator. Freed by free(), by
// leaving a `with` block, or when garbage-collected.
class HostBuffer {
 public:
  explicit HostBuffer(size_t nbytes)
      : ptr_(memory::host_allocator().allocate(nbytes)), nbytes_(nbytes) {}
  ~HostBuffer() {
    try {
      free();
    } catch (...) {
      // A destructor must not throw; the block stays with the allocator.
    }
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  void free() {
    if (ptr_ == nullptr || freed_) return;
    memory::host_allocator().try_free(ptr_);
    freed_ = true;
  }
  void record_stream(py::handle stream) {
    check_live("record_stream");
    memory::host_allocator().try_record_stream(ptr_, stream_from_py(stream, -1, /*allow_handle=*/true));
  }
  py::bytes read(size_t offset, py::handle nbytes) const {
    check_live("read");
    const size_t n = nbytes.is_none() ? nbytes_ - std::min(offset, nbytes_) : nbytes.cast<size_t>();
    check_range(offset, n);
    return py::bytes(static_cast<const char*>(ptr_) + offset, n);
  }
  void write(const py::bytes& data, size_t offset) {
    check_live("write");
    const std::string_view s = data;
    check_range(offset, s.size());
    if (!s.empty()) std::memcpy(static_cast<char*>(ptr_) + offset, s.data(), s.size());
  }
  uintptr_t ptr() const { return freed_ ? 0 : reinterpret_cast<uintptr_t>(ptr_); }
  size_t nbytes() const { return nbytes_; }
  bool freed() const { return freed_; }

 private:
  void check_live(const char* what) const {
    EMBER_CHECK(!freed_, "HostBuffer.", what, "(): the buffer was already freed");
  }
  void check_range(size_t offset, size_t n) const {
    if (offset > nbytes_ || n > nbytes_ - offset) {
      throw IndexError(detail::str("HostBuffer range [", offset, ", ", offset + n,
                                   ") is outside the buffer of ", nbytes_, " bytes"));
    }
  }
  void* ptr_;
  size_t nbytes_;
  bool freed_ = false;
};

py::dict host_memory_stats() {
  if (memory::HostCachingAllocator* h = memory::existing_host_allocator()) {
    return to_dict(h->stats_snapshot());
  }
  return to_dict(memory::flatten(memory::HostStats{}));
}

}  // namespace

void bind_memory(py::module_& cuda) {
  for (PyMethodDef* def = kFastMethods; def->ml_name != nullptr; ++def) {
    PyObject* fn = PyCFunction_NewEx(def, nullptr, nullptr);
    if (fn == nullptr) throw py::error_already_set();
    cuda.attr(def->ml_name) = py::reinterpret_steal<py::object>(fn);
  }
  cuda.def("memory_stats", &memory_stats, py::arg("device") = py::none(),
           "torch.cuda.memory_stats(): every allocator statistic, flat and sorted by key.");
  cuda.def(
      "reset_peak_memory_stats",
      [](py::handle device) { with_allocator(device, [](CachingAllocator& a) { a.reset_peak_stats(); }); },
      py::arg("device") = py::none(), "Sets every peak statistic to its current value.");
  cuda.def(
      "reset_accumulated_memory_stats",
      [](py::handle device) {
        with_allocator(device, [](CachingAllocator& a) { a.reset_accumulated_stats(); });
      },
      py::arg("device") = py::none(),
      "Zeroes the accumulated statistics (the .allocated and .freed totals and the num_* "
      "counters).");
  cuda.def(
      "empty_cache",
      [] {
        py::gil_scoped_release nogil;
        ops::release_staging_buffers();  // the pageable-transfer chunks go back to the cache first
        memory::empty_cache();
      },
      "Returns every unused cached block -- device memory of every device, pinned host "
      "memory, and the staging buffers of pageable transfers -- to the driver. Releases the GIL.");
  cuda.def(
      "set_per_process_memory_fraction",
      [](py::handle fraction, py::handle device) {
        EMBER_CHECK_TYPE(py::isinstance<py::float_>(fraction),
                         "Invalid type for fraction argument, must be `float`");
        memory::device_allocator(resolve_device(device))
            .set_memory_fraction(fraction.cast<double>());
      },
      py::arg("fraction"), py::arg("device") = py::none(),
      "Caps the memory ember may reserve on the device at fraction * its total memory; "
      "allocations past the cap raise OutOfMemoryError without calling cudaMalloc.");
  cuda.def(
      "get_per_process_memory_fraction",
      [](py::handle device) {
        const int idx = resolve_device(device);
        CachingAllocator* a = memory::existing_device_allocator(idx);
        return a ? a->memory_fraction() : 1.0;
      },
      py::arg("device") = py::none());
  cuda.def(
      "caching_allocator_record_stream",
      [](py::handle ptr, py::handle stream) {
        EMBER_CHECK_TYPE(!stream.is_none(), "caching_allocator_record_stream: pass a stream");
        void* p = ptr_from_py(ptr.ptr(), "caching_allocator_record_stream");
        if (PyLong_Check(stream.ptr()) && !PyBool_Check(stream.ptr())) {
          // A bare handle: a stream of the allocation's device.
          memory::record_stream(p, static_cast<cuda::StreamHandle>(PyLong_AsVoidPtr(stream.ptr())),
                                -1);
        } else {
          const memory::Stream s = stream_from_py(stream, -1, /*allow_handle=*/true);
          memory::record_stream(p, s.handle(), s.device());
        }
      },
      py::arg("mem_ptr"), py::arg("stream"),
      "The allocation at mem_ptr is used by work on `stream`: when it is freed, its memory is "
      "reused only after the work queued on `stream` by then (ordered on the GPU; the host "
      "never waits). Like Tensor.record_stream.");
  cuda.def("memory_snapshot", &memory_snapshot,
           "Every segment of every device's caching allocator, with its blocks.");

  py::class_<HostBuffer>(cuda, "_HostBuffer",
                         "Pinned (page-locked) host memory from ember's caching host allocator.")
      .def_property_readonly("ptr", &HostBuffer::ptr)
      .def_property_readonly("nbytes", &HostBuffer::nbytes)
      .def_property_readonly("freed", &HostBuffer::freed)
      .def("free", &HostBuffer::free, "Returns the buffer to the cache (idempotent).")
      .def("record_stream", &HostBuffer::record_stream, py::arg("stream"),
           "Copies on `stream` use this buffer: once freed, it is reused only after the work "
           "queued on `stream` by then has finished (polled with events, never waited for).")
      .def("read", &HostBuffer::read, py::arg("offset") = 0, py::arg("nbytes") = py::none())
      .def("write", &HostBuffer::write, py::arg("data"), py::arg("offset") = 0)
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](HostBuffer& b, py::args) { b.free(); });
  cuda.def(
      "_host_alloc", [](size_t nbytes) { return std::make_unique<HostBuffer>(nbytes); },
      py::arg("nbytes"), "Pinned host memory from the caching host allocator (raw buffer API).");
  cuda.def(
      "_is_pinned",
      [](uintptr_t ptr) {
        memory::HostCachingAllocator* h = memory::existing_host_allocator();
        return h != nullptr && h->is_pinned(reinterpret_cast<void*>(ptr));
      },
      py::arg("ptr"));
  cuda.def("host_memory_stats", &host_memory_stats,
           "Statistics of the pinned host allocator, with torch's keys.");
  cuda.def("reset_peak_host_memory_stats", [] {
    if (auto* h = memory::existing_host_allocator()) h->reset_peak_stats();
  });
  cuda.def("reset_accumulated_host_memory_stats", [] {
    if (auto* h = memory::existing_host_allocator()) h->reset_accumulated_stats();
  });
  cuda.def(
      "_alloc_conf", [] { return memory::process_alloc_conf().str(); },
      "EMBER_CUDA_ALLOC_CONF as parsed (ValueError when invalid).");
}

}  // namespace ember::bindings
