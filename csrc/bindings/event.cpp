// ember.cuda.Event, bound straight to the C++ Event (record() is a hot path).
#include <cstdio>

#include "bindings/bindings.hpp"
#include "runtime/errors.hpp"
#include "runtime/event.hpp"

namespace ember::bindings {

void bind_event(py::module_& c) {
  using namespace pybind11::literals;
  using cuda::Event;
  py::class_<Event> event(c, "Event", R"doc(
A CUDA event: a marker in a stream's work, to wait on, to query, or to time.

``Event(enable_timing=False, blocking=False, interprocess=False)``. The CUDA event is made
on the first ``record()``, on the recording stream's device; afterwards only streams of
that device may record it, and streams of any device may ``wait()`` on it. ``blocking``
makes ``synchronize()`` sleep instead of spinning. ``interprocess`` events can be shared
with another process (``ipc_handle()`` / ``Event.from_ipc_handle()``); CUDA requires them
to have timing disabled.
)doc");
  event
      .def(py::init<bool, bool, bool>(), "enable_timing"_a = false, "blocking"_a = false,
           "interprocess"_a = false)
      .def_static(
          "from_ipc_handle",
          [](py::handle device, py::bytes handle) {
            const std::string h = handle;  // checked before CUDA is touched
            return Event::from_ipc_handle(cuda_index_from_py(device), h);
          },
          "device"_a, "handle"_a,
          "Open an event that another process exported with ipc_handle(), on `device`.")
      .def(
          "record", [](Event& e, py::handle stream) { e.record(stream_from_py(stream)); },
          "stream"_a = py::none(),
          "Capture the work queued on `stream` (default: the current stream) so far.")
      .def(
          "wait", [](const Event& e, py::handle stream) { e.wait(stream_from_py(stream)); },
          "stream"_a = py::none(),
          "Make future work on `stream` (default: the current stream) wait for this event.")
      .def("query", &Event::query,
           "True when the captured work has finished (or nothing was ever recorded).")
      .def("synchronize", &Event::synchronize, py::call_guard<py::gil_scoped_release>(),
           "Wait for the captured work to finish. Releases the GIL while waiting.")
      .def(
          "elapsed_time",
          [](const Event& e, py::handle end) {
            EMBER_CHECK_TYPE(py::isinstance<Event>(end), "elapsed_time() needs an ember.cuda.Event, got ",
                             py::str(py::type::of(end).attr("__name__")).cast<std::string>());
            return e.elapsed_time(end.cast<const Event&>());
          },
          "end_event"_a,
          "Milliseconds between this event and `end_event` (both recorded, timed, finished).")
      .def(
          "ipc_handle", [](Event& e) { return py::bytes(e.ipc_handle()); },
          "The handle another process opens with Event.from_ipc_handle() (interprocess events).")
      .def_property_readonly(
          "cuda_event",
          [](const Event& e) { return reinterpret_cast<uintptr_t>(e.handle()); },
          "The cudaEvent_t as an int (0 until the first record).")
      .def_property_readonly("device",
                             [](const Event& e) -> py::object {
                               if (e.device() < 0) return py::none();
                               return py::cast(Device(DeviceType::CUDA, e.device()));
                             })
      .def_property_readonly("enable_timing", &Event::enable_timing)
      .def_property_readonly("blocking", &Event::blocking)
      .def_property_readonly("interprocess", &Event::interprocess)
      .def("__repr__", [](const Event& e) {
        if (!e.is_created()) return std::string("<ember.cuda.Event uninitialized>");
        char buf[64];
        std::snprintf(buf, sizeof(buf), "<ember.cuda.Event %#llx>",
                      static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(e.handle())));
        return std::string(buf);
      });
  event.attr("__module__") = "ember.cuda";
}

}  // namespace ember::bindings
