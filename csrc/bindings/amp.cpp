// Mixed precision from Python: the autocast state (torch.is_autocast_enabled,
// set_autocast_dtype, ... and the one-call enter/exit of ember.autocast), the
// float32 casts of the losses written in Python, and GradScaler's device-side
// steps (torch._amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_).
#include <pybind11/stl.h>

#include "autograd/autocast.hpp"
#include "autograd/optim.hpp"
#include "bindings/bindings.hpp"
#include "bindings/tensor_common.hpp"
#include "runtime/errors.hpp"

namespace ember::bindings {

namespace {

namespace ac = ::ember::autocast;

// "cuda", "cpu" (or "cuda:0": torch reads the type of a device string).
DeviceType device_type_arg(py::handle obj) {
  if (!PyUnicode_Check(obj.ptr())) {
    throw TypeError(detail::str("device_type must be a str such as 'cuda' or 'cpu', got ",
                                type_name(obj)));
  }
  return Device::parse(py::cast<std::string>(obj)).type;
}

DeviceType device_type_int(int d) {
  EMBER_CHECK_VALUE(d == 0 || d == 1, "autocast: device type index must be 0 (cpu) or 1 (cuda)");
  return static_cast<DeviceType>(d);
}

// Packs the state ember.autocast.__enter__ replaces, for __exit__.
int64_t pack(DeviceType d) {
  return (ac::is_enabled(d) ? 1 : 0) | (static_cast<int64_t>(ac::get_dtype(d)) << 8) |
         (ac::is_cache_enabled() ? (int64_t(1) << 16) : 0);
}

void check_autocast_dtype(ScalarType t) {
  EMBER_CHECK_VALUE(is_floating(t), "autocast dtype must be a floating point dtype, got ",
                    dtype_name(t));
}

void bind_autocast_state(py::module_& m) {
  m.def(
      "is_autocast_enabled",
      [](py::handle device_type) {
        return ac::is_enabled(device_type.is_none() ? DeviceType::CUDA : device_type_arg(device_type));
      },
      py::arg("device_type") = py::none(),
      "Whether autocast is on for device_type ('cuda' when None) in this thread.");
  m.def(
      "set_autocast_enabled",
      [](py::handle a, py::handle b) {
        if (b.is_none()) {  // set_autocast_enabled(enabled): cuda (torch's old form)
          ac::set_enabled(DeviceType::CUDA, py::cast<bool>(a));
        } else {
          ac::set_enabled(device_type_arg(a), py::cast<bool>(b));
        }
      },
      py::arg("device_type"), py::arg("enabled") = py::none(),
      "set_autocast_enabled(device_type, enabled) (or set_autocast_enabled(enabled) for cuda).");
  m.def(
      "get_autocast_dtype", [](py::handle d) { return dtype_to_py(ac::get_dtype(device_type_arg(d))); },
      py::arg("device_type"), "The dtype autocast lowers to on device_type in this thread.");
  m.def(
      "set_autocast_dtype",
      [](py::handle d, py::handle dtype) {
        const DeviceType dt = device_type_arg(d);
        const ScalarType t = dtype_from_py(dtype);
        check_autocast_dtype(t);
        ac::set_dtype(dt, t);
      },
      py::arg("device_type"), py::arg("dtype"));
  m.def("is_autocast_cache_enabled", &ac::is_cache_enabled);
  m.def("set_autocast_cache_enabled", &ac::set_cache_enabled, py::arg("enabled"));
  m.def("autocast_increment_nesting", &ac::increment_nesting);
  m.def("autocast_decrement_nesting", &ac::decrement_nesting);
  m.def("clear_autocast_cache", &ac::clear_cache);
  m.def("_is_any_autocast_enabled", &ac::any_enabled,
        "Autocast is on for some device type in this thread (one thread-local load).");
  m.def("_autocast_cache_size", &ac::cache_size);
  m.def("_autocast_nesting", &ac::nesting);
  // ember.autocast.__enter__/__exit__ in one call each (torch's seven).
  m.def(
      "_autocast_enter",
      [](int device, bool enabled, py::handle dtype, bool cache_enabled) {
        const DeviceType d = device_type_int(device);
        const ScalarType t = dtype_from_py(dtype);
        const int64_t prev = pack(d);
        ac::set_enabled(d, enabled);
        ac::set_dtype(d, t);
        ac::increment_nesting();
        ac::set_cache_enabled(cache_enabled);
        return prev;
      },
      py::arg("device"), py::arg("enabled"), py::arg("dtype"), py::arg("cache_enabled"));
  m.def(
      "_autocast_exit",
      [](int device, int64_t prev) {
        const DeviceType d = device_type_int(device);
        if (ac::decrement_nesting() == 0) ac::clear_cache();
        ac::set_enabled(d, (prev & 1) != 0);
        ac::set_dtype(d, static_cast<ScalarType>((prev >> 8) & 0xff));
        ac::set_cache_enabled(((prev >> 16) & 1) != 0);
      },
      py::arg("device"), py::arg("prev"));
  // The losses written in Python (l1_loss, nll_loss, cross_entropy, ...): their
  // tensors cast to float32 when autocast applies to the first one and `lists`
  // (1: cpu, 2: cuda, 3: both) has the op; None passes through.
  m.def(
      "_autocast_float32",
      [](int lists, py::args args) -> py::tuple {
        py::tuple out(args.size());
        const Tensor* first = nullptr;
        for (size_t i = 0; i < args.size() && !first; ++i) {
          if (is_tensor(args[i])) first = &tensor_arg(args[i]);
        }
        const auto d = first ? ac::applies(*first, static_cast<uint8_t>(lists)) : std::nullopt;
        for (size_t i = 0; i < args.size(); ++i) {
          if (d && is_tensor(args[i])) {
            out[i] = py::cast(ac::cached_cast(ScalarType::Float32, tensor_arg(args[i]), *d));
          } else {
            out[i] = args[i];
          }
        }
        return out;
      },
      py::arg("lists"));
}

void bind_scaler_kernels(py::module_& m) {
  m.def(
      "_amp_foreach_non_finite_check_and_unscale_",
      [](py::handle self, const Tensor& found_inf, const Tensor& inv_scale) {
        autograd::amp_non_finite_check_and_unscale_(tensor_list_arg(self, "self"), found_inf,
                                                    inv_scale);
      },
      py::arg("self"), py::arg("found_inf"), py::arg("inv_scale"),
      "Multiplies every tensor by inv_scale in place and sets found_inf to 1.0 if any "
      "holds an inf or NaN (torch's; no host synchronisation).");
  m.def(
      "_amp_update_scale_",
      [](py::object self_obj, const Tensor& growth_tracker, const Tensor& found_inf,
         double growth_factor, double backoff_factor, int64_t growth_interval) {
        autograd::amp_update_scale_(tensor_arg(self_obj, "self"), growth_tracker, found_inf,
                                    growth_factor, backoff_factor, growth_interval);
        return self_obj;  // torch returns self
      },
      py::arg("self"), py::arg("growth_tracker"), py::arg("found_inf"), py::arg("scale_growth_factor"),
      py::arg("scale_backoff_factor"), py::arg("growth_interval"),
      "GradScaler's scale update on the device (torch's rule).");
}

}  // namespace

void bind_amp(py::module_& m) {
  bind_autocast_state(m);
  bind_scaler_kernels(m);
}

}  // namespace ember::bindings
