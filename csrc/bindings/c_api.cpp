// ember._C._C_API: the capsule of ember's C API (include/ember/c_api.h), the
// table of functions that extensions built apart from ember call (through
// the header-only C++ API of include/ember/*.h). NumPy's C API works the same
// way: no ember symbol is exported, so extensions depend only on the table's
// layout, whose stability rules c_api.h and docs/extensions.md state.
//
// A handle (EmberTensor*) is a heap-allocated ember::Tensor: one reference.
// Every function catches ember's exceptions and returns their EmberStatus;
// the message waits in a thread-local string for last_error().
#include <Python.h>
#include <ember/c_api.h>

#include <string>

#include "bindings/bindings.hpp"
#include "bindings/tensor_common.hpp"
#include "ops/fill/fill.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/stream.hpp"
#include "tensor/tensor.hpp"

struct EmberTensor {
  ember::Tensor t;
};

namespace ember::bindings {

namespace {

static_assert(EMBER_BOOL == int(ScalarType::Bool) && EMBER_UINT8 == int(ScalarType::UInt8) &&
                  EMBER_INT8 == int(ScalarType::Int8) && EMBER_INT16 == int(ScalarType::Int16) &&
                  EMBER_INT32 == int(ScalarType::Int32) && EMBER_INT64 == int(ScalarType::Int64) &&
                  EMBER_FLOAT16 == int(ScalarType::Float16) &&
                  EMBER_BFLOAT16 == int(ScalarType::BFloat16) &&
                  EMBER_FLOAT32 == int(ScalarType::Float32) &&
                  EMBER_FLOAT64 == int(ScalarType::Float64),
              "EmberDType's numbers are ember's ScalarType's (and fixed forever)");

thread_local std::string t_last_error;

// Runs f, turning ember's exceptions (and Python's) into an EmberStatus.
template <typename F>
int guarded(F&& f) {
  try {
    f();
    return EMBER_OK;
  } catch (const OutOfMemoryError& e) {
    t_last_error = e.what();
    return EMBER_ERROR_OUT_OF_MEMORY;
  } catch (const CudaError& e) {
    t_last_error = e.what();
    return EMBER_ERROR_CUDA;
  } catch (const ValueError& e) {
    t_last_error = e.what();
    return EMBER_ERROR_VALUE;
  } catch (const TypeError& e) {
    t_last_error = e.what();
    return EMBER_ERROR_TYPE;
  } catch (const IndexError& e) {
    t_last_error = e.what();
    return EMBER_ERROR_INDEX;
  } catch (const py::error_already_set& e) {
    t_last_error = e.what();
    return EMBER_ERROR_RUNTIME;
  } catch (const std::exception& e) {
    t_last_error = e.what();
    return EMBER_ERROR_RUNTIME;
  }
}

const char* last_error() { return t_last_error.c_str(); }

int tensor_from_object(PyObject* obj, EmberTensor** out) {
  return guarded([&] {
    if (!is_tensor(obj)) {
      throw TypeError(detail::str("expected an ember.Tensor, got ", type_name(obj)));
    }
    *out = new EmberTensor{tensor_arg(obj)};
  });
}

int tensor_to_object(const EmberTensor* t, PyObject** out) {
  return guarded([&] { *out = py::cast(t->t).release().ptr(); });
}

EmberTensor* tensor_retain(const EmberTensor* t) { return new EmberTensor{t->t}; }

void tensor_release(EmberTensor* t) { delete t; }

void tensor_info(const EmberTensor* h, EmberTensorInfo* out) {
  const Tensor& t = h->t;
  out->data = t.data_ptr();
  out->numel = t.numel();
  out->sizes = t.sizes().data();
  out->strides = t.strides().data();
  out->ndim = static_cast<int32_t>(t.dim());
  out->dtype = static_cast<int32_t>(t.dtype());
  out->device_type = t.is_cuda() ? EMBER_CUDA : EMBER_CPU;
  out->device_index = t.is_cuda() ? t.device().index : -1;
  out->itemsize = static_cast<int32_t>(t.itemsize());
  out->is_contiguous = t.is_contiguous() ? 1 : 0;
}

void tensor_bump_version(const EmberTensor* t) { t->t.storage()->bump_version(); }

Tensor make(int32_t ndim, const int64_t* sizes, int32_t dtype, int32_t device_type,
            int32_t device_index) {
  EMBER_CHECK_VALUE(ndim >= 0 && ndim <= kMaxDims, "ember tensors have 0 to ", kMaxDims,
                    " dimensions, got ", ndim);
  EMBER_CHECK_TYPE(dtype >= 0 && dtype < kNumScalarTypes, "unknown EmberDType ", dtype);
  EMBER_CHECK_VALUE(device_type == EMBER_CPU || device_type == EMBER_CUDA,
                    "unknown EmberDeviceType ", device_type);
  const Device d = device_type == EMBER_CPU
                       ? Device(DeviceType::CPU)
                       : resolve_device(Device(DeviceType::CUDA, device_index));
  return Tensor::empty(Shape(sizes, sizes + ndim), static_cast<ScalarType>(dtype), d);
}

int empty(int32_t ndim, const int64_t* sizes, int32_t dtype, int32_t device_type,
          int32_t device_index, EmberTensor** out) {
  return guarded(
      [&] { *out = new EmberTensor{make(ndim, sizes, dtype, device_type, device_index)}; });
}

int zeros(int32_t ndim, const int64_t* sizes, int32_t dtype, int32_t device_type,
          int32_t device_index, EmberTensor** out) {
  return guarded([&] {
    Tensor t = make(ndim, sizes, dtype, device_type, device_index);
    ops::fill_(t, Scalar::from_int(0));
    *out = new EmberTensor{std::move(t)};
  });
}

int current_stream(int32_t device, void** out) {
  return guarded([&] {
#if EMBER_WITH_CUDA
    *out = static_cast<void*>(cuda::current_stream(device).handle());
#else
    (void)device;
    (void)out;
    throw Error("ember was built without CUDA: there is no current stream");
#endif
  });
}

int current_device(int32_t* out) {
  return guarded([&] { *out = cuda::current_device(); });
}

int set_device(int32_t device) {
  return guarded([&] { cuda::set_device(device); });
}

const EmberCApi kApi = {
    EMBER_C_API_VERSION, sizeof(EmberCApi),    EMBER_VERSION,  &last_error,
    &tensor_from_object, &tensor_to_object,    &tensor_retain, &tensor_release,
    &tensor_info,        &tensor_bump_version, &empty,         &zeros,
    &current_stream,     &current_device,      &set_device,
};

}  // namespace

void bind_c_api(py::module_& m) {
  m.attr("_C_API") = py::capsule(&kApi, EMBER_C_API_CAPSULE);
  m.attr("_C_API_VERSION") = EMBER_C_API_VERSION;
}

}  // namespace ember::bindings
