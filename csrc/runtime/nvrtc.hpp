// NVRTC, CUDA's runtime compiler, opened with dlopen on first use (import
// ember must not load it: libnvrtc is ~100 MB and costs tens of ms).
//
// - nvrtc_api() opens libnvrtc.so.<major> (by soname, then from the toolkit
//   directory baked in at build time) and resolves the entry points into
//   typed function pointers (types from nvrtc.h). It throws a RuntimeError
//   saying what to install when NVRTC cannot be opened. Never unloaded.
// - nvrtc_compile() compiles one source to a cubin (or to PTX for a virtual
//   architecture, "compute_XY"): a source that does not compile raises
//   CompileError carrying NVRTC's log; other failures go through
//   EMBER_NVRTC_CHECK (runtime/library_errors.hpp).
// - Compiling needs no GPU and no driver (the tests compile on the CPU).
#pragma once

#if EMBER_WITH_CUDA

#include <nvrtc.h>

#include <string>
#include <utility>
#include <vector>

#include "runtime/library_errors.hpp"

namespace ember::nvrtc {

struct NvrtcApi {
  std::string path;  // where libnvrtc was found
  decltype(&::nvrtcVersion) nvrtcVersion = nullptr;
  decltype(&::nvrtcGetNumSupportedArchs) nvrtcGetNumSupportedArchs = nullptr;
  decltype(&::nvrtcGetSupportedArchs) nvrtcGetSupportedArchs = nullptr;
  decltype(&::nvrtcCreateProgram) nvrtcCreateProgram = nullptr;
  decltype(&::nvrtcDestroyProgram) nvrtcDestroyProgram = nullptr;
  decltype(&::nvrtcCompileProgram) nvrtcCompileProgram = nullptr;
  decltype(&::nvrtcGetPTXSize) nvrtcGetPTXSize = nullptr;
  decltype(&::nvrtcGetPTX) nvrtcGetPTX = nullptr;
  decltype(&::nvrtcGetCUBINSize) nvrtcGetCUBINSize = nullptr;
  decltype(&::nvrtcGetCUBIN) nvrtcGetCUBIN = nullptr;
  decltype(&::nvrtcGetProgramLogSize) nvrtcGetProgramLogSize = nullptr;
  decltype(&::nvrtcGetProgramLog) nvrtcGetProgramLog = nullptr;
  decltype(&::nvrtcAddNameExpression) nvrtcAddNameExpression = nullptr;
  decltype(&::nvrtcGetLoweredName) nvrtcGetLoweredName = nullptr;
};

// Opens the library on the first call (thread-safe).
const NvrtcApi& nvrtc_api();
// True once nvrtc_api() has succeeded (tests: import ember loads nothing).
bool nvrtc_loaded() noexcept;

// NVRTC's version as major * 1000 + minor * 10 (13000 for 13.0).
int nvrtc_version();
// The SM architectures this NVRTC compiles for (75, 80, 86, 89, 90, ...).
std::vector<int> supported_archs();

struct Compiled {
  std::string binary;  // cubin, or PTX text when `is_ptx`
  bool is_ptx = false;
  std::string log;  // warnings (empty when there are none)
  // (name expression, lowered name) for each name expression asked for.
  std::vector<std::pair<std::string, std::string>> lowered;
};

// Compiles `source` (its messages call it `file_name`) with `options` (NVRTC's
// spelling; must include --gpu-architecture). A cubin for "sm_XY", PTX for
// "compute_XY". CompileError with NVRTC's log when the source has errors.
Compiled compile(const std::string& source, const std::string& file_name,
                 const std::vector<std::string>& options,
                 const std::vector<std::string>& name_expressions);

}  // namespace ember::nvrtc

#endif  // EMBER_WITH_CUDA
