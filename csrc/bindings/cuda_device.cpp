// ember.cuda's device functions, bound straight to C++ (no Python wrappers on
// the hot paths: synchronize, current_device, is_available).
#include <pybind11/stl.h>

#include "bindings/bindings.hpp"
#include "runtime/build_info.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/init.hpp"
#include "runtime/nvml.hpp"
#include "runtime/peer_access.hpp"
#include "runtime/sync_debug.hpp"

namespace ember::bindings {

namespace {

// -1 (None or negative) means the current device.
int resolve(py::handle device) {
  const int idx = cuda_index_from_py(device);
  return idx < 0 ? cuda::current_device() : idx;
}

// The runtime's sync-debug warnings go through Python's warnings module (filters,
// pytest.warns, -W error); a warning turned into an exception propagates as it.
void warn_host_sync(const char* message) {
  py::gil_scoped_acquire gil;
  if (PyErr_WarnEx(PyExc_UserWarning, message, 1) < 0) throw py::error_already_set();
}

}  // namespace

void bind_cuda_device(py::module_& c) {
  using namespace ember::cuda;
  set_sync_warn_handler(&warn_host_sync);
  c.def(
      "set_sync_debug_mode",
      [](py::handle mode) {
        long long m = -1;
        if (py::isinstance<py::str>(mode)) {
          const std::string s = mode.cast<std::string>();
          m = s == "default" ? 0 : s == "warn" ? 1 : s == "error" ? 2 : -1;
          EMBER_CHECK(m >= 0, "invalid value of debug_mode, expected one of `default`, `warn`, "
                      "`error`");
        } else {
          EMBER_CHECK_TYPE(py::isinstance<py::int_>(mode) && !py::isinstance<py::bool_>(mode),
                           "set_sync_debug_mode(): debug_mode must be a str or an int, not ",
                           type_name(mode));
          m = mode.cast<long long>();
          EMBER_CHECK(m >= 0 && m <= 2, "invalid value of debug_mode, expected one of 0,1,2");
        }
        set_sync_debug_mode(static_cast<SyncDebugMode>(m));
      },
      py::arg("debug_mode"),
      "Reports the host synchronisations ops perform: \"default\"/0 (off), \"warn\"/1 "
      "(UserWarning), \"error\"/2 (RuntimeError). Explicit synchronize() calls never count.");
  c.def(
      "get_sync_debug_mode", []() { return static_cast<int>(sync_debug_mode()); },
      "The current sync debug mode: 0 (default), 1 (warn) or 2 (error).");
  c.def("is_available", &is_available,
        "True when ember was built with CUDA and at least one GPU is visible. Does not "
        "initialise CUDA, so the process may still fork.");
  c.def("device_count", &device_count,
        "Number of visible GPUs (honours CUDA_VISIBLE_DEVICES); does not initialise CUDA.");
  c.def("init", &lazy_init, "Initialise CUDA now instead of on first use.");
  c.def("is_initialized", &is_initialized);
  c.def("_in_bad_fork", &in_bad_fork);
  c.def("_compiled_with_cuda", &compiled_with_cuda);
  c.def("current_device", &current_device, "Index of the current device of this thread.");
  c.def(
      "set_device", [](py::handle device) {
        const int idx = cuda_index_from_py(device);
        if (idx >= 0) set_device(idx);  // negative: no-op, as in torch
      },
      py::arg("device"), "Make `device` the current device of this thread.");
  c.def("_exchange_device", &exchange_device, py::arg("device"));
  c.def("_device_index", &cuda_index_from_py, py::arg("device"),
        "The CUDA ordinal a device argument names; -1 for None.");
  c.def(
      "synchronize",
      [](py::handle device) {
        const int idx = device.is_none() ? -1 : cuda_index_from_py(device);
        py::gil_scoped_release nogil;
        synchronize(idx);
      },
      py::arg("device") = py::none(),
      "Wait for all work on the device (default: current) to finish. Releases the GIL.");
  c.def(
      "mem_get_info", [](py::handle device) { return mem_get_info(resolve(device)); },
      py::arg("device") = py::none(), "(free, total) bytes of GPU memory, from the driver.");

  py::class_<DeviceProperties>(c, "_CudaDeviceProperties")
      .def_readonly("name", &DeviceProperties::name)
      .def_readonly("major", &DeviceProperties::major)
      .def_readonly("minor", &DeviceProperties::minor)
      .def_readonly("total_memory", &DeviceProperties::total_memory)
      .def_readonly("multi_processor_count", &DeviceProperties::multi_processor_count)
      .def_readonly("L2_cache_size", &DeviceProperties::L2_cache_size)
      .def_readonly("warp_size", &DeviceProperties::warp_size)
      .def_readonly("uuid", &DeviceProperties::uuid)
      .def_readonly("max_threads_per_multi_processor",
                    &DeviceProperties::max_threads_per_multi_processor)
      .def_readonly("max_threads_per_block", &DeviceProperties::max_threads_per_block)
      .def_readonly("shared_memory_per_block", &DeviceProperties::shared_memory_per_block)
      .def_readonly("shared_memory_per_block_optin",
                    &DeviceProperties::shared_memory_per_block_optin)
      .def_readonly("shared_memory_per_multiprocessor",
                    &DeviceProperties::shared_memory_per_multiprocessor)
      .def_readonly("regs_per_multiprocessor", &DeviceProperties::regs_per_multiprocessor)
      .def_readonly("memory_bus_width", &DeviceProperties::memory_bus_width)
      .def_readonly("is_integrated", &DeviceProperties::is_integrated)
      .def_readonly("is_multi_gpu_board", &DeviceProperties::is_multi_gpu_board)
      .def_readonly("pci_bus_id", &DeviceProperties::pci_bus_id)
      .def_readonly("pci_device_id", &DeviceProperties::pci_device_id)
      .def_readonly("pci_domain_id", &DeviceProperties::pci_domain_id)
      .def("__repr__", &DeviceProperties::repr);

  c.def(
      "get_device_properties",
      [](py::handle device) { return get_device_properties(resolve(device)); },
      py::arg("device") = py::none(), py::return_value_policy::copy);
  c.def(
      "get_device_name",
      [](py::handle device) { return get_device_properties(resolve(device)).name; },
      py::arg("device") = py::none());
  c.def(
      "get_device_capability",
      [](py::handle device) {
        const auto& p = get_device_properties(resolve(device));
        return py::make_tuple(p.major, p.minor);
      },
      py::arg("device") = py::none());

  c.def("_runtime_version", &runtime_version, "CUDA runtime version ember was built with.");
  c.def("_driver_version", &driver_version, "CUDA version the driver supports (0: none).");
  c.def("_driver_version_string", &nvml::driver_version, "The driver's own version string.");
  c.def("can_device_access_peer", &can_device_access_peer, py::arg("device"),
        py::arg("peer_device"), "Whether `device` can access `peer_device`'s memory directly.");
  c.attr("_arch_flags") = cuda::arch_flags();  // CMAKE_CUDA_ARCHITECTURES of this build
  c.def("_nvml_available", &nvml::available);
  c.def("_nvml_uuids", &nvml::device_uuids, "The GPUs' UUIDs in NVML's order.");
  c.def(
      "_nvml_reading",
      [](int index, int what) {
        EMBER_CHECK_VALUE(what >= 0 && what <= static_cast<int>(nvml::Reading::MemoryUsed),
                          "_nvml_reading(): unknown reading ", what);
        return nvml::reading(index, static_cast<nvml::Reading>(what));
      },
      py::arg("index"), py::arg("what"),
      "A reading of GPU `index` (NVML's order): 0 utilization %, 1 memory utilization %, "
      "2 temperature C, 3 power mW, 4 SM clock MHz, 5 memory used bytes; -1 when unknown.");
  c.def(
      "_nvml_processes",
      [](int index) -> py::object {
        const nvml::Processes p = nvml::compute_processes(index);
        if (!p.ok) return py::none();
        return py::cast(p.list);
      },
      py::arg("index"), "[(pid, bytes)] of the compute processes on GPU `index`; None: unknown.");
  c.def("_visible_device_count", &visible_device_count, py::arg("env"), py::arg("nvml_count"),
        py::arg("uuids"));
}

}  // namespace ember::bindings
