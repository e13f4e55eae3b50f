// Device side of runtime/device_error.hpp: a kernel that meets a bad index
// calls record_index_error and skips the element.
#pragma once

#include "runtime/device_error.hpp"

namespace ember::cuda {

__device__ __forceinline__ void record_index_error(IndexErrorRecord* e, int64_t index,
                                                   int64_t size, int64_t dim, const char* op) {
  volatile IndexErrorRecord* ve = e;
  if (ve->flag != 0) return;
  ve->index = index;
  ve->size = size;
  ve->dim = dim;
  ve->op = static_cast<int64_t>(reinterpret_cast<intptr_t>(op));
  __threadfence_system();  // the fields before the flag, as the host sees them
  ve->flag = 1;
}

}  // namespace ember::cuda
