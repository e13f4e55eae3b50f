// ember.cuda.Stream, ExternalStream, StreamContext / stream(), and the
// current-stream functions, bound straight to C++ (the `with stream(s):` and
// current_stream() hot paths make no Python-level call).
//
// One Python type, Stream (C++ PyStream), for three kinds of stream objects:
//  - Stream(device, priority) owns a pooled CUDA stream (cuda::Stream);
//  - views: current_stream(), default_stream(), and the wrappers made for
//    foreign __cuda_stream__ objects (which they keep alive);
//  - ExternalStream(ptr), a subclass: a view of a stream made elsewhere.
//
// Each thread keeps, in its Python thread-state dict, the Python object of the
// current stream of each device. So current_stream() returns the same object
// without allocating while the current stream does not change, and the owner
// of a current stream stays alive while it is current: its CUDA stream cannot
// go back to the pool and be handed to another Stream while in use. The cache
// dies with the thread. The C++ current stream (runtime/stream.hpp) stays the
// truth: an entry that no longer matches it is replaced by a fresh view.
#include <cstdio>

#include <climits>
#include <memory>
#include <optional>
#include <vector>

#include "bindings/bindings.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/event.hpp"
#include "runtime/init.hpp"
#include "runtime/sleep.hpp"
#include "runtime/stream.hpp"
#include "runtime/stream_guard.hpp"

namespace ember::bindings {

namespace {

using cuda::StreamView;

constexpr int kUnknownPriority = INT_MIN;

// What entering a stream changed, so that leaving it restores exactly that:
// the guard restores the C++ current streams and device, and the cached
// Python objects of the streams it restores go back into the thread's cache.
struct Saved {
  unsigned long thread = 0;     // the thread that entered
  cuda::StreamGuard guard;      // runtime/stream_guard.hpp
  py::object src_obj, dst_obj;  // objects of the guard's original streams (None: unknown)
};

struct PyStream {
  StreamView view;
  std::optional<cuda::Stream> owned;
  py::object keepalive;  // the foreign stream object this view stands for
  int priority = kUnknownPriority;
  std::vector<Saved> entered;  // `with stream:` levels, innermost last
};

struct PyExternalStream : PyStream {};

struct StreamContext {
  py::object stream;
  std::vector<Saved> entered;
};

PyTypeObject* g_stream_type = nullptr;    // ember.cuda.Stream, set by bind_stream
PyTypeObject* g_external_type = nullptr;  // ember.cuda.ExternalStream

// The PyStream inside an ember.cuda.Stream (or subclass) object; nullptr for
// anything else. On the hot paths (every `with stream(s):` asks it several
// times), so it reads the value pointer of pybind11's simple instance layout
// directly (2 ns) instead of pybind11's generic cast (40-100 ns), and falls
// back to the generic cast for other layouts.
PyStream* as_stream(py::handle obj) {
  if (!PyObject_TypeCheck(obj.ptr(), g_stream_type)) return nullptr;
  auto* inst = reinterpret_cast<py::detail::instance*>(obj.ptr());
  if (!inst->simple_layout) return obj.cast<PyStream*>();
  void* value = inst->simple_value_holder[0];
  EMBER_CHECK_TYPE(value != nullptr, "This ", type_name(obj),
                   " object was never initialised: a subclass's __init__ must call "
                   "super().__init__()");
  if (PyObject_TypeCheck(obj.ptr(), g_external_type)) {
    return static_cast<PyExternalStream*>(value);
  }
  return static_cast<PyStream*>(value);
}

py::object make_view(StreamView v, py::object keepalive = py::none()) {
  auto* p = new PyStream();
  p->view = v;
  p->keepalive = std::move(keepalive);
  return py::cast(p, py::return_value_policy::take_ownership);
}

// ---- handles and the CUDA stream protocol ----


// The handle of a __cuda_stream__ object; nullopt when `obj` has none.
std::optional<cuda::StreamHandle> protocol_handle(py::handle obj) {
  py::object fn = py::getattr(obj, "__cuda_stream__", py::none());
  if (fn.is_none()) return std::nullopt;
  py::object r = fn();
  EMBER_CHECK_TYPE(py::isinstance<py::tuple>(r) && py::len(r) == 2,
                   "__cuda_stream__() of ", type_name(obj),
                   " must return a tuple (version, handle) of two ints, got ", type_name(r));
  py::tuple t = r.cast<py::tuple>();
  EMBER_CHECK_TYPE(PyLong_Check(t[0].ptr()), "__cuda_stream__() version must be an int");
  const long long version = t[0].cast<long long>();
  EMBER_CHECK_VALUE(version == 0, "Unsupported __cuda_stream__ protocol version ", version,
                    " from ", type_name(obj), ": ember understands version 0");
  return handle_from_int(t[1], "__cuda_stream__() handle");
}

// A view of a stream made elsewhere. `device` -1: ask CUDA (the current device
// for the special handles 0, 1, 2); otherwise it must match what CUDA says.
StreamView view_of_handle(cuda::StreamHandle h, int device) {
  cuda::lazy_init();
  const int actual = cuda::stream_device(h);
  if (device < 0) return StreamView(h, actual >= 0 ? actual : cuda::current_device());
  cuda::check_device_index(device);
  EMBER_CHECK_VALUE(actual < 0 || actual == device, "The stream ",
                    reinterpret_cast<void*>(h), " belongs to cuda:", actual, ", not cuda:", device,
                    ": pass device=", actual, " (or None to let ember ask CUDA).");
  return StreamView(h, device);
}

[[noreturn]] void throw_not_a_stream(py::handle obj) {
  throw TypeError(detail::str(
      "Expected a CUDA stream: an ember.cuda.Stream, None (the current stream), or an object "
      "with the __cuda_stream__ protocol (a torch.cuda.Stream from torch 2.10 on, a CuPy or "
      "cuda.core stream); got ",
      type_name(obj), ". Wrap a raw cudaStream_t with ember.cuda.ExternalStream(handle)."));
}

// The ember Stream object for a stream argument (not None), and its view.
py::object stream_object_from_py(py::handle obj, StreamView* view) {
  if (PyStream* p = as_stream(obj)) {
    *view = p->view;
    return py::reinterpret_borrow<py::object>(obj);
  }
  auto h = protocol_handle(obj);
  if (!h) throw_not_a_stream(obj);
  *view = view_of_handle(*h, -1);
  return make_view(*view, py::reinterpret_borrow<py::object>(obj));
}

// ---- the per-thread cache of current-stream objects ----

// This thread's list of kMaxDevices stream objects (None: not known), owned by
// the thread state's dict.
PyObject* thread_cache() {
  static PyObject* key = PyUnicode_InternFromString("ember.cuda.current_streams");
  PyObject* dict = PyThreadState_GetDict();
  EMBER_CHECK(dict != nullptr, "ember: this thread has no Python thread state");
  PyObject* list = PyDict_GetItemWithError(dict, key);
  if (list != nullptr) return list;
  if (PyErr_Occurred()) throw py::error_already_set();
  py::list fresh(cuda::kMaxDevices);
  for (int i = 0; i < cuda::kMaxDevices; ++i) {
    Py_INCREF(Py_None);
    PyList_SET_ITEM(fresh.ptr(), i, Py_None);
  }
  if (PyDict_SetItem(dict, key, fresh.ptr()) != 0) throw py::error_already_set();
  return fresh.ptr();  // the dict holds it now
}

// The cached object for `v`'s device if it stands for `v`, else None.
py::object cached(PyObject* cache, StreamView v) {
  PyObject* item = PyList_GET_ITEM(cache, v.device());
  if (item != Py_None) {
    PyStream* p = as_stream(item);
    if (p != nullptr && p->view == v) return py::reinterpret_borrow<py::object>(item);
  }
  return py::none();
}

void cache_set(PyObject* cache, int device, const py::object& obj) {
  PyList_SetItem(cache, device, obj.inc_ref().ptr());  // steals; releases the old one
}

int checked_device(int device) {
  if (device < 0) return cuda::current_device();
  cuda::check_device_index(device);
  EMBER_CHECK(device < cuda::kMaxDevices, "ember supports at most ", cuda::kMaxDevices,
              " devices");
  return device;
}

py::object current_stream_object(int device) {
  device = checked_device(device);
  const StreamView v = cuda::current_stream(device);
  PyObject* cache = thread_cache();
  py::object obj = cached(cache, v);
  if (obj.is_none()) {
    obj = make_view(v);
    cache_set(cache, device, obj);
  }
  return obj;
}

// torch.cuda.set_stream: the stream becomes current on its device, and its
// device becomes the current device.
void set_stream(py::handle obj) {
  if (obj.is_none()) return;
  StreamView v;
  py::object stream = stream_object_from_py(obj, &v);
  cuda::exchange_device(v.device());
  cuda::set_current_stream(v);
  cache_set(thread_cache(), v.device(), stream);
}

// ---- entering and leaving a stream (StreamContext and Stream.__enter__) ----

void enter_stream(py::handle obj, std::vector<Saved>& stack) {
  StreamView v;
  py::object stream = stream_object_from_py(obj, &v);
  PyObject* cache = thread_cache();
  Saved s;
  s.thread = PyThread_get_thread_ident();
  s.guard = cuda::StreamGuard(v);
  s.src_obj = cached(cache, s.guard.original_stream());
  if (v.device() != s.guard.original_device()) {
    s.dst_obj = cached(cache, s.guard.original_stream_of_target());
  }
  stack.push_back(std::move(s));
  cache_set(cache, v.device(), stream);
}

void exit_stream(std::vector<Saved>& stack) {
  const unsigned long me = PyThread_get_thread_ident();
  auto it = stack.end();
  while (it != stack.begin() && (it - 1)->thread != me) --it;
  EMBER_CHECK(it != stack.begin(),
              "__exit__ without a matching __enter__ in this thread: enter a stream context with "
              "`with ember.cuda.stream(s):` and leave it in the same thread");
  Saved s = std::move(*(it - 1));
  stack.erase(it - 1);
  PyObject* cache = thread_cache();
  const int prev = s.guard.original_device(), target = s.guard.stream().device();
  s.guard.restore();
  if (target != prev) cache_set(cache, target, s.dst_obj);
  cache_set(cache, prev, s.src_obj);
}

long long priority_from_py(py::handle p) {
  EMBER_CHECK_TYPE(PyLong_Check(p.ptr()), "priority must be an int, got ", type_name(p));
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(p.ptr(), &overflow);
  if (overflow != 0) return overflow > 0 ? LLONG_MAX : LLONG_MIN;  // clamped anyway
  return v;
}

cuda::Event& event_from_py(py::handle obj) {
  EMBER_CHECK_TYPE(py::isinstance<cuda::Event>(obj), "Expected an ember.cuda.Event, got ",
                   type_name(obj));
  return obj.cast<cuda::Event&>();
}

}  // namespace

cuda::StreamHandle handle_from_int(py::handle obj, const char* what) {
  EMBER_CHECK_TYPE(PyLong_Check(obj.ptr()), what, " must be an int (a cudaStream_t), got ",
                   type_name(obj));
  const unsigned long long v = PyLong_AsUnsignedLongLong(obj.ptr());
  if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    throw ValueError(detail::str(what, " must be a non-negative int that fits a pointer"));
  }
  return reinterpret_cast<cuda::StreamHandle>(static_cast<uintptr_t>(v));
}

cuda::StreamView stream_from_py(py::handle obj, int device, bool allow_handle) {
  if (!obj || obj.is_none()) return cuda::current_stream(device);
  StreamView v;
  if (PyStream* p = as_stream(obj)) {
    v = p->view;
  } else if (allow_handle && PyLong_Check(obj.ptr()) && !PyBool_Check(obj.ptr())) {
    return StreamView(handle_from_int(obj, "stream"), device < 0 ? cuda::current_device() : device);
  } else if (auto h = protocol_handle(obj)) {
    v = view_of_handle(*h, -1);
  } else {
    throw_not_a_stream(obj);
  }
  EMBER_CHECK_VALUE(device < 0 || device == v.device(), "The stream is on cuda:", v.device(),
                    " but device=cuda:", device, " was asked for: pass matching arguments.");
  return v;
}

void bind_stream(py::module_& c) {
  using namespace pybind11::literals;
  py::class_<PyStream> stream(c, "Stream", R"doc(
A CUDA stream: a queue of GPU work that runs in order, independently of other streams.

``Stream(device=None, priority=0)`` makes a stream on ``device`` (the current one when
None or negative). Lower priority numbers run first; values outside the device's range
(``Stream.priority_range()``, (0, -5) on an H100) are clamped to the nearest valid one.
Streams are non-blocking (they do not wait for the legacy default stream) and come from a
pool that grows: two live Stream objects are always two CUDA streams. A stream whose
owner died goes back to the pool and may be handed out again, possibly still busy.

``with s:`` (or ``with ember.cuda.stream(s):``) makes ``s`` the current stream.
Every ember API that takes a stream also takes any object with ``__cuda_stream__``.
)doc");
  stream
      .def(py::init([](py::handle device, py::handle priority) {
             const long long prio = priority_from_py(priority);
             const int dev = cuda_index_from_py(device);
             auto p = std::make_unique<PyStream>();
             p->owned.emplace(dev, prio);
             p->view = p->owned->view();
             p->priority = p->owned->priority();
             return p;
           }),
           "device"_a = py::none(), "priority"_a = 0)
      .def_static(
          "priority_range",
          [](py::handle device) {
            const auto r = cuda::priority_range(cuda_index_from_py(device));
            return py::make_tuple(r.first, r.second);
          },
          "device"_a = py::none(),
          "(least, greatest) stream priorities of the device; lower numbers run first.")
      .def_property_readonly(
          "device", [](const PyStream& s) { return Device(DeviceType::CUDA, s.view.device()); })
      .def_property_readonly("device_index", [](const PyStream& s) { return s.view.device(); })
      .def_property_readonly("cuda_stream", [](const PyStream& s) { return s.view.id(); },
                             "The cudaStream_t handle as an int (0: the legacy default stream).")
      .def_property_readonly("priority",
                             [](PyStream& s) {
                               if (s.priority == kUnknownPriority)
                                 s.priority = cuda::stream_priority(s.view);
                               return s.priority;
                             })
      .def(
          "__cuda_stream__", [](const PyStream& s) { return py::make_tuple(0, s.view.id()); },
          "The CUDA stream protocol: (version 0, handle).")
      .def(
          "query", [](const PyStream& s) { return cuda::stream_query(s.view); },
          "True when all work queued on the stream has finished.")
      .def(
          "synchronize",
          [](const PyStream& s) {
            const StreamView v = s.view;
            py::gil_scoped_release nogil;
            cuda::stream_synchronize(v);
          },
          "Wait for all work queued on the stream. Releases the GIL while waiting.")
      .def(
          "wait_event",
          [](const PyStream& s, py::handle event) { event_from_py(event).wait(s.view); },
          "event"_a, "Make future work on this stream wait for the event.")
      .def(
          "wait_stream",
          [](const PyStream& s, py::handle other) {
            cuda::wait_stream(s.view, stream_from_py(other));
          },
          "stream"_a,
          "Make future work on this stream wait for the work queued on `stream` so far.")
      .def(
          "record_event",
          [](const PyStream& s, py::object event) {
            if (event.is_none()) event = py::cast(cuda::Event());
            event_from_py(event).record(s.view);
            return event;
          },
          "event"_a = py::none(), "Record `event` (a new Event when None) on this stream.")
      .def("__eq__",
           [](const PyStream& a, py::handle b) -> py::object {
             const PyStream* p = as_stream(b);
             if (p == nullptr) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             return py::bool_(a.view == p->view);
           })
      .def("__hash__",
           [](const PyStream& s) { return py::hash(py::make_tuple(s.view.id(), s.view.device())); })
      .def("__repr__",
           [](py::handle self) {
             const PyStream& s = self.cast<const PyStream&>();
             char hex[32];
             std::snprintf(hex, sizeof(hex), "%#llx", static_cast<unsigned long long>(s.view.id()));
             py::handle type = py::type::of(self);
             const std::string cls = py::str(type.attr("__module__")).cast<std::string>() + "." +
                                     py::str(type.attr("__qualname__")).cast<std::string>();
             return detail::str("<", cls, " device=cuda:", s.view.device(),
                                " cuda_stream=", s.view.id() == 0 ? "0x0" : hex, ">");
           })
      .def("__enter__",
           [](py::handle self) {
             enter_stream(self, self.cast<PyStream&>().entered);
             return py::reinterpret_borrow<py::object>(self);
           })
      .def("__exit__", [](PyStream& s, py::handle, py::handle, py::handle) {
        exit_stream(s.entered);
      });
  stream.attr("__module__") = "ember.cuda";
  g_stream_type = reinterpret_cast<PyTypeObject*>(stream.ptr());

  py::class_<PyExternalStream, PyStream> external(c, "ExternalStream", R"doc(
A stream made elsewhere (another library, a raw cudaStream_t), which ember never destroys:
keep it alive while ember uses it. ``stream_ptr`` is the handle as an int, or any object
with ``__cuda_stream__``. ``device``: where it was made; None asks CUDA (for the special
handles 0, 1 and 2: the current device). A wrong device raises ValueError.
)doc");
  auto external_init = [](py::handle ptr, py::handle device) {
    const auto proto = protocol_handle(ptr);
    const cuda::StreamHandle h = proto ? *proto : handle_from_int(ptr, "stream_ptr");
    const int dev = cuda_index_from_py(device);
    auto p = std::make_unique<PyExternalStream>();
    p->view = view_of_handle(h, dev);
    return p;
  };
  external.def(py::init(external_init), "stream_ptr"_a, "device"_a = py::none())
      .def(py::init(external_init), py::kw_only(), "handle"_a, "device"_a = py::none());
  external.attr("__module__") = "ember.cuda";
  g_external_type = reinterpret_cast<PyTypeObject*>(external.ptr());

  py::class_<StreamContext> context(c, "StreamContext", R"doc(
Context manager that makes ``stream`` the current stream of its device for the block, and
restores on exit (also when the block raises) the previous current streams of both the
previous device and the stream's device, and the previous current device. A stream of
another device also makes that device current for the block, as in torch. None: a no-op.
)doc");
  context
      .def(py::init([](py::object s) { return std::make_unique<StreamContext>(StreamContext{std::move(s), {}}); }),
           "stream"_a)
      .def_property_readonly("stream", [](const StreamContext& ctx) { return ctx.stream; })
      .def("__enter__",
           [](StreamContext& ctx) {
             if (!ctx.stream.is_none()) enter_stream(ctx.stream, ctx.entered);
           })
      .def("__exit__", [](StreamContext& ctx, py::handle, py::handle, py::handle) {
        if (!ctx.stream.is_none()) exit_stream(ctx.entered);
      });
  context.attr("__module__") = "ember.cuda";

  c.def(
      "stream",
      [](py::object s) { return std::make_unique<StreamContext>(StreamContext{std::move(s), {}}); },
      "stream"_a,
      "Context manager selecting `stream` for its block (a StreamContext); None: no-op.");
  c.def(
      "current_stream", [](py::handle device) { return current_stream_object(cuda_index_from_py(device)); },
      "device"_a = py::none(),
      "The current stream of `device` (default: the current device) for this thread.");
  c.def(
      "default_stream",
      [](py::handle device) {
        const int dev = checked_device(cuda_index_from_py(device));
        const StreamView v = cuda::default_stream(dev);
        py::object obj = cached(thread_cache(), v);
        return obj.is_none() ? make_view(v) : obj;
      },
      "device"_a = py::none(), "The default (legacy, handle 0) stream of `device`.");
  c.def("set_stream", &set_stream, "stream"_a,
        "Make `stream` the current stream of its device, and its device current. None: no-op. "
        "Prefer `with ember.cuda.stream(s):`, which restores.");
  c.def(
      "_sleep",
      [](long long cycles) {
        EMBER_CHECK_VALUE(cycles >= 0, "_sleep() needs a number of cycles >= 0, got ", cycles);
#if EMBER_WITH_CUDA
        cuda::sleep_cycles(cycles, cuda::current_stream(-1));
#else
        cuda::lazy_init();  // raises: no CUDA in this build
#endif
      },
      "cycles"_a,
      "Queue a kernel that spins for `cycles` GPU clock cycles on the current stream.");
  c.def(
      "_stream_pool_stats",
      [](py::handle device) {
        const auto r = cuda::stream_pool_stats(cuda_index_from_py(device));
        return py::make_tuple(r.first, r.second);
      },
      "device"_a = py::none(), "(created, free) CUDA streams of the device's stream pool.");
}

}  // namespace ember::bindings
