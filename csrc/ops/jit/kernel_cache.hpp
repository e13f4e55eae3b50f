// Compile-or-load: CUDA C++ source -> a cubin (or PTX) for one GPU
// architecture, through three levels:
//
//   1. this process's memory (a map from key to binary);
//   2. the disk cache, <cache root>/kernels (runtime/disk_cache.hpp), which
//      other processes share (EMBER_CACHE_DIR moves the root);
//   3. NVRTC (runtime/nvrtc.hpp), whose result is stored in both.
//
// - The key is the SHA-256 of everything the binary depends on: the source,
//   the options, the name expressions, the file name, the GPU's compute
//   capability, ember's version, the CUDA version ember was built with, the
//   NVRTC major version and the contents of ember's device headers
//   (include/ember/device/). It names the device's architecture, not the
//   target NVRTC picks, so a warm load opens no NVRTC at all. Headers the
//   source includes from elsewhere (-I) are not part of the key: change the
//   source or the options after changing them (or delete the cache).
// - Every compilation gets -I for ember's installed headers (include/, beside
//   ember/_C) and the CUDA toolkit's include directory ($CUDA_HOME/include,
//   else the toolkit ember was built with), and --gpu-architecture: sm_XY
//   (a cubin) when NVRTC knows the GPU, else compute_XY of the newest
//   architecture it knows (PTX the driver compiles).
// - Nothing here needs a GPU: the tests compile for a given architecture on
//   the CPU.
#pragma once

#if EMBER_WITH_CUDA

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/disk_cache.hpp"
#include "runtime/sha256.hpp"

namespace ember::ops::jit {

struct Source {
  std::string code;
  std::string file_name;                      // NVRTC's messages name it
  std::vector<std::string> options;           // the caller's, without the arch and -I
  std::vector<std::string> name_expressions;  // C++ names to lower ("k<float>")
};

struct Binary {
  std::string target;  // "sm_90" or "compute_90"
  std::string image;   // cubin, or PTX text
  bool is_ptx = false;
  std::string log;                                           // NVRTC's warnings
  std::vector<std::pair<std::string, std::string>> lowered;  // (expression, lowered name)
  Digest key{};
};

// Where a binary came from (for tests and benchmarks).
enum class Origin { Memory, Disk, Compiled };

struct Lookup {
  std::shared_ptr<const Binary> binary;
  Origin origin = Origin::Compiled;
  std::string refused;  // why a disk entry was refused (corrupt), if one was
};

// The cache key of `src` compiled for compute capability `sm` (e.g. 90).
Digest cache_key(const Source& src, int sm);

// The binary of `src` for compute capability `sm`, from memory, the disk
// cache at `cache_dir` ("" for <cache root>/kernels; "-" for none), or NVRTC.
// CompileError with NVRTC's log when the source does not compile. Thread-safe;
// may take a while (call without the GIL).
Lookup compile_or_load(const Source& src, int sm, const std::string& cache_dir = "",
                       bool use_memory = true);

// The options NVRTC gets for `src` on `sm`: the caller's, then -I for ember's
// and CUDA's headers, then the architecture.
std::vector<std::string> full_options(const Source& src, int sm);

// ember's installed public headers (the include/ folder beside ember/_C).
const std::string& ember_include_dir();
// The CUDA toolkit's include directory NVRTC is given.
std::string cuda_include_dir();

// (memory hits, disk hits, compilations) since the process started.
struct CacheCounts {
  long long memory = 0, disk = 0, compiled = 0, refused = 0;
};
CacheCounts cache_counts();

// Binary <-> the disk cache's payload (exposed for the tests).
std::string serialize(const Binary& b);
// False when the payload is not a well-formed binary.
bool deserialize(const std::string& payload, Binary* out);

}  // namespace ember::ops::jit

#endif  // EMBER_WITH_CUDA
