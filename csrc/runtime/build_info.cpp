// The build facts of build_info.hpp. CMakeLists.txt defines EMBER_CUDA_ARCHS on
// this file only (bindings/cuda_device.cpp, which reads it, is compiled in a
// unity batch, and a file with definitions of its own cannot join one).
#include "runtime/build_info.hpp"

#ifndef EMBER_CUDA_ARCHS
#define EMBER_CUDA_ARCHS ""
#endif

namespace ember::cuda {

const char* arch_flags() noexcept { return EMBER_CUDA_ARCHS; }

}  // namespace ember::cuda
