/* ember's C API: what a C++/CUDA extension built apart from ember calls.
 *
 * ember._C exports one PyCapsule, ember._C._C_API, holding an EmberCApi: a
 * versioned table of function pointers (NumPy's C API works the same way).
 * An extension links against nothing of ember: it finds the table at run
 * time (ember/tensor.h does it for you), so ember's C++ symbols stay hidden
 * and any compiler, standard library or pybind11 version may build it.
 *
 * Stability rules (docs/extensions.md):
 * - EMBER_C_API_VERSION changes only when an existing member changes meaning
 *   or signature; an extension refuses a table of another version.
 * - New members are appended; `size` says how many bytes of the table the
 *   installed ember fills, so an extension built against a newer header
 *   checks that the members it uses are present.
 * - The numbers of EmberDType are fixed forever (new dtypes get new numbers).
 *
 * Errors: every function that can fail returns an EmberStatus; on failure
 * last_error() returns this thread's message until the next failing call.
 * No function sets a Python exception. Functions that take or make Python
 * objects need the GIL; the others do not.
 */
#ifndef EMBER_C_API_H
#define EMBER_C_API_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EMBER_C_API_VERSION 1
#define EMBER_C_API_CAPSULE "ember._C._C_API"

/* One reference to an ember tensor: tensor_retain adds one, tensor_release
 * drops one. The tensor (and its memory) lives while any reference does. */
typedef struct EmberTensor EmberTensor;

typedef enum EmberDType {
  EMBER_BOOL = 0,
  EMBER_UINT8 = 1,
  EMBER_INT8 = 2,
  EMBER_INT16 = 3,
  EMBER_INT32 = 4,
  EMBER_INT64 = 5,
  EMBER_FLOAT16 = 6,
  EMBER_BFLOAT16 = 7,
  EMBER_FLOAT32 = 8,
  EMBER_FLOAT64 = 9
} EmberDType;

typedef enum EmberDeviceType { EMBER_CPU = 0, EMBER_CUDA = 1 } EmberDeviceType;

typedef enum EmberStatus {
  EMBER_OK = 0,
  EMBER_ERROR_RUNTIME = 1,       /* RuntimeError */
  EMBER_ERROR_VALUE = 2,         /* ValueError */
  EMBER_ERROR_TYPE = 3,          /* TypeError */
  EMBER_ERROR_INDEX = 4,         /* IndexError */
  EMBER_ERROR_CUDA = 5,          /* ember.cuda.CudaError */
  EMBER_ERROR_OUT_OF_MEMORY = 6  /* ember.cuda.OutOfMemoryError */
} EmberStatus;

/* A snapshot of a tensor's metadata. `sizes` and `strides` (in elements)
 * point into the tensor and stay valid while the reference it was read from
 * lives and the tensor's shape is not changed in place. */
typedef struct EmberTensorInfo {
  void* data; /* the address of element [0, ..., 0] */
  int64_t numel;
  const int64_t* sizes;
  const int64_t* strides;
  int32_t ndim;
  int32_t dtype;        /* EmberDType */
  int32_t device_type;  /* EmberDeviceType */
  int32_t device_index; /* -1 for the CPU */
  int32_t itemsize;
  int32_t is_contiguous;
} EmberTensorInfo;

struct _object; /* PyObject */

typedef struct EmberCApi {
  uint32_t version; /* EMBER_C_API_VERSION of the ember that filled the table */
  uint32_t size;    /* sizeof(EmberCApi) of that ember */
  const char* ember_version;

  /* This thread's message of the last failed call. */
  const char* (*last_error)(void);

  /* An ember.Tensor (or subclass) -> a new reference. EMBER_ERROR_TYPE for
   * anything else. Needs the GIL. */
  int (*tensor_from_object)(struct _object* obj, EmberTensor** out);
  /* A new reference to the ember.Tensor of `t`. Needs the GIL. */
  int (*tensor_to_object)(const EmberTensor* t, struct _object** out);
  EmberTensor* (*tensor_retain)(const EmberTensor* t);
  void (*tensor_release)(EmberTensor* t);
  void (*tensor_info)(const EmberTensor* t, EmberTensorInfo* out);
  /* Tells autograd that the tensor's data was written in place (its version
   * counter), as ember's own in-place operations do. */
  void (*tensor_bump_version)(const EmberTensor* t);

  /* New tensors: uninitialised (empty) or zero-filled (zeros), contiguous, on
   * the caching allocator of the device (on its current stream). A CUDA
   * device_index of -1 means the current device. */
  int (*empty)(int32_t ndim, const int64_t* sizes, int32_t dtype, int32_t device_type,
               int32_t device_index, EmberTensor** out);
  int (*zeros)(int32_t ndim, const int64_t* sizes, int32_t dtype, int32_t device_type,
               int32_t device_index, EmberTensor** out);

  /* ember's current CUDA stream of a device (-1: the current device), as a
   * cudaStream_t; every ember operation on that device runs on it. */
  int (*current_stream)(int32_t device_index, void** stream);
  int (*current_device)(int32_t* out);
  int (*set_device)(int32_t device_index);
} EmberCApi;

#ifdef __cplusplus
}
#endif

#endif /* EMBER_C_API_H */
