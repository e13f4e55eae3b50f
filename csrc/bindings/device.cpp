// ember.device: torch.device's constructor forms, attributes and comparisons.
#include <vector>

#include <pybind11/operators.h>

#include "bindings/bindings.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"

namespace ember::bindings {

namespace {

int index_from_py(py::handle index) {
  if (!py::isinstance<py::int_>(index) || py::isinstance<py::bool_>(index)) {
    throw TypeError(detail::str("Device index must be an int, not ",
                                py::str(py::type::of(index).attr("__name__")).cast<std::string>()));
  }
  const long long i = index.cast<long long>();
  EMBER_CHECK(i >= 0, "Device index must not be negative, got ", i);
  EMBER_CHECK(i < (1 << 15), "Device index ", i, " is too large");
  return static_cast<int>(i);
}

// `with ember.device(...)`: the defaults that each __enter__ replaced, per thread.
thread_local std::vector<Device> t_entered;

// torch.get_default_device(): an unindexed "cuda" reads as the current device.
Device default_device_resolved() {
  Device d = default_device();
  if (d.is_cuda() && !d.has_index()) d = Device(DeviceType::CUDA, cuda::current_device());
  return d;
}

}  // namespace

Device device_from_py(py::handle obj, py::handle index) {
  if (py::isinstance<Device>(obj)) {
    EMBER_CHECK_TYPE(index.is_none(), "device(device) takes no index argument");
    return obj.cast<Device>();
  }
  if (py::isinstance<py::str>(obj)) {
    const std::string s = obj.cast<std::string>();
    if (index.is_none()) return Device::parse(s);
    EMBER_CHECK(s.find(':') == std::string::npos, "type (string) must not include an index ",
                "because index was passed explicitly: ", s);
    return Device(Device::parse_type(s), index_from_py(index));
  }
  if (py::isinstance<py::int_>(obj) && !py::isinstance<py::bool_>(obj)) {
    EMBER_CHECK_TYPE(index.is_none(), "device(int) takes no index argument");
    return Device(DeviceType::CUDA, index_from_py(obj));
  }
  throw TypeError(detail::str(
      "Expected a device: a string such as 'cuda:0' or 'cpu', an int CUDA ordinal, or an "
      "ember.device; got ",
      py::str(py::type::of(obj).attr("__name__")).cast<std::string>()));
}

int cuda_index_from_py(py::handle obj) {
  if (obj.is_none()) return -1;
  if (py::isinstance<py::int_>(obj) && !py::isinstance<py::bool_>(obj)) {
    const long long i = obj.cast<long long>();
    return i < 0 ? -1 : static_cast<int>(i);
  }
  const Device d = device_from_py(obj);
  EMBER_CHECK_VALUE(d.is_cuda(), "Expected a cuda device, but got: ", d.str());
  return d.index;
}

void bind_device(py::module_& m) {
  py::class_<Device>(m, "device", R"doc(
Where a tensor lives, like torch.device: ``device("cuda")``, ``device("cuda:1")``,
``device("cpu")``, ``device("cuda", 0)`` or ``device(0)`` (CUDA ordinal 0).
``type`` is ``"cuda"`` or ``"cpu"``; ``index`` is an int, or None when not given.
)doc")
      .def(py::init([](py::handle type, py::handle index) { return device_from_py(type, index); }),
           py::arg("type"), py::arg("index") = py::none())
      .def_property_readonly("type", &Device::type_name)
      .def_property_readonly("index",
                             [](const Device& d) -> py::object {
                               return d.has_index() ? py::object(py::int_(d.index)) : py::none();
                             })
      .def(
          "__enter__",
          [](py::object self) {
            t_entered.push_back(default_device());
            set_default_device(self.cast<Device>());
            return self;
          },
          "`with ember.device('cuda'):` makes it the default device of creation functions "
          "in this thread until the block ends.")
      .def("__exit__",
           [](const Device&, py::args) {
             if (t_entered.empty()) return;
             set_default_device(t_entered.back());
             t_entered.pop_back();
           })
      .def("__str__", &Device::str)
      .def("__repr__", &Device::repr)
      .def("__hash__", &Device::hash)
      .def("__eq__",
           [](const Device& a, py::handle b) -> py::object {
             if (!py::isinstance<Device>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             return py::bool_(a == b.cast<Device>());
           })
      .def("__ne__",
           [](const Device& a, py::handle b) -> py::object {
             if (!py::isinstance<Device>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             return py::bool_(a != b.cast<Device>());
           })
      .def("__reduce__", [](const Device& d) {
        return py::make_tuple(py::type::of<Device>(), py::make_tuple(d.str()));
      });
  m.def(
      "set_default_device",
      [](py::handle device) {
        set_default_device(device.is_none() ? Device(DeviceType::CPU) : device_from_py(device));
      },
      py::arg("device"),
      "The device creation functions (zeros, tensor, arange, rand...) use when given none, "
      "in this thread (torch.set_default_device); None: the CPU again.");
  m.def(
      "get_default_device", []() { return default_device_resolved(); },
      "The device creation functions use when given none (torch.get_default_device).");
}

}  // namespace ember::bindings
