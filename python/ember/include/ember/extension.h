// ember's public C++ API for extensions, in one include (what
// ember.utils.cpp_extension puts at the top of every C++ source):
//
//   ember/c_api.h   the versioned C table exported by ember._C (the ABI)
//   ember/errors.h  ember::Error & co., EMBER_CHECK* macros
//   ember/tensor.h  ember::Tensor, ember::empty/zeros, dtypes, devices
//   ember/cuda.h    ember::cuda::current_stream(), DeviceGuard, EMBER_CUDA_CHECK
//   ember/pybind.h  ember::Tensor <-> ember.Tensor for pybind11, init_extension()
//   ember/device/half.cuh   ember::Half, ember::BFloat16 (host and device)
//
// CUDA sources (.cu) include <ember/tensor.h> and <ember/cuda.h>: they need
// neither Python nor pybind11. See docs/extensions.md for the stability rules.
#pragma once

#include "ember/cuda.h"
#include "ember/errors.h"
#include "ember/pybind.h"
#include "ember/tensor.h"
