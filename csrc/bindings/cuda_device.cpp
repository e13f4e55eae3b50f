// ember.cuda's device functions, bound straight to C++ (no Python wrappers on
// the hot paths: synchronize, current_device, is_available).
#include <pybind11/stl.h>

#include "bindings/bindings.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/init.hpp"
#include "runtime/nvml.hpp"

namespace ember::bindings {

namespace {

// -1 (None or negative) means the current device.
int resolve(py::handle device) {
  const int idx = cuda_index_from_py(device);
  return idx < 0 ? cuda::current_device() : idx;
}

}  // namespace

void bind_cuda_device(py::module_& c) {
  using namespace ember::cuda;
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
  c.def("_nvml_available", &nvml::available);
  c.def("_visible_device_count", &visible_device_count, py::arg("env"), py::arg("nvml_count"),
        py::arg("uuids"));
}

}  // namespace ember::bindings
