#include "runtime/nvrtc.hpp"

#if EMBER_WITH_CUDA

#include <atomic>

#include "runtime/errors.hpp"
#include "runtime/library_loader.hpp"

#define EMBER_STR2(x) #x
#define EMBER_STR(x) EMBER_STR2(x)

namespace ember::nvrtc {

namespace {

std::atomic<bool> g_loaded{false};

const char* const kSoname = "libnvrtc.so." EMBER_STR(EMBER_NVRTC_MAJOR);
const char* const kPath = EMBER_CUDA_LIBRARY_DIR "/libnvrtc.so." EMBER_STR(EMBER_NVRTC_MAJOR);

struct Loaded {
  LibraryLoader lib{kSoname, kPath};
  NvrtcApi api;

  Loaded() {
    if (!lib.ok()) return;
    lib.resolve(api.nvrtcVersion, "nvrtcVersion");
    lib.resolve(api.nvrtcGetNumSupportedArchs, "nvrtcGetNumSupportedArchs");
    lib.resolve(api.nvrtcGetSupportedArchs, "nvrtcGetSupportedArchs");
    lib.resolve(api.nvrtcCreateProgram, "nvrtcCreateProgram");
    lib.resolve(api.nvrtcDestroyProgram, "nvrtcDestroyProgram");
    lib.resolve(api.nvrtcCompileProgram, "nvrtcCompileProgram");
    lib.resolve(api.nvrtcGetPTXSize, "nvrtcGetPTXSize");
    lib.resolve(api.nvrtcGetPTX, "nvrtcGetPTX");
    lib.resolve(api.nvrtcGetCUBINSize, "nvrtcGetCUBINSize");
    lib.resolve(api.nvrtcGetCUBIN, "nvrtcGetCUBIN");
    lib.resolve(api.nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize");
    lib.resolve(api.nvrtcGetProgramLog, "nvrtcGetProgramLog");
    lib.resolve(api.nvrtcAddNameExpression, "nvrtcAddNameExpression");
    lib.resolve(api.nvrtcGetLoweredName, "nvrtcGetLoweredName");
    lib.note_path(reinterpret_cast<const void*>(api.nvrtcVersion));
    api.path = lib.path();
  }
};

Loaded& loaded() {
  static Loaded* instance = new Loaded();  // never destroyed: used until exit
  return *instance;
}

// Destroys the program however compile() leaves.
struct Program {
  const NvrtcApi& api;
  nvrtcProgram prog = nullptr;
  ~Program() {
    if (prog) (void)api.nvrtcDestroyProgram(&prog);
  }
};

std::string program_log(const NvrtcApi& api, nvrtcProgram prog) {
  size_t n = 0;
  EMBER_NVRTC_CHECK(api.nvrtcGetProgramLogSize(prog, &n));
  std::string log(n, '\0');
  if (n > 0) EMBER_NVRTC_CHECK(api.nvrtcGetProgramLog(prog, &log[0]));
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

std::string arch_of(const std::vector<std::string>& options) {
  for (const std::string& o : options) {
    for (const char* prefix : {"--gpu-architecture=", "-arch="}) {
      const std::string p(prefix);
      if (o.compare(0, p.size(), p) == 0) return o.substr(p.size());
    }
  }
  return "";
}

}  // namespace

const NvrtcApi& nvrtc_api() {
  if (g_loaded.load(std::memory_order_acquire)) return loaded().api;
  Loaded& l = loaded();
  l.lib.require(
      [](const std::string& error) {
        return detail::str(
            "ember could not open NVRTC, which compiling CUDA kernels at run time needs: ", error,
            ". Install the CUDA toolkit's NVRTC (libnvrtc.so.", EMBER_STR(EMBER_NVRTC_MAJOR),
            ", e.g. the nvidia-cuda-nvrtc wheel) and make it findable through LD_LIBRARY_PATH or "
            "ldconfig.");
      },
      [](const std::string& path, const std::string& missing) {
        return detail::str("the NVRTC library ember opened (", path, ") lacks ", missing,
                           ": install the NVRTC of CUDA ", EMBER_STR(EMBER_NVRTC_MAJOR), ".");
      });
  g_loaded.store(true, std::memory_order_release);
  return l.api;
}

bool nvrtc_loaded() noexcept { return g_loaded.load(std::memory_order_acquire); }

int nvrtc_version() {
  int major = 0, minor = 0;
  EMBER_NVRTC_CHECK(nvrtc_api().nvrtcVersion(&major, &minor));
  return major * 1000 + minor * 10;
}

std::vector<int> supported_archs() {
  const NvrtcApi& api = nvrtc_api();
  int n = 0;
  EMBER_NVRTC_CHECK(api.nvrtcGetNumSupportedArchs(&n));
  std::vector<int> archs(static_cast<size_t>(n));
  if (n > 0) EMBER_NVRTC_CHECK(api.nvrtcGetSupportedArchs(archs.data()));
  return archs;
}

Compiled compile(const std::string& source, const std::string& file_name,
                 const std::vector<std::string>& options,
                 const std::vector<std::string>& name_expressions) {
  const NvrtcApi& api = nvrtc_api();
  Program p{api};
  EMBER_NVRTC_CHECK(
      api.nvrtcCreateProgram(&p.prog, source.c_str(), file_name.c_str(), 0, nullptr, nullptr));
  for (const std::string& e : name_expressions) {
    EMBER_NVRTC_CHECK(api.nvrtcAddNameExpression(p.prog, e.c_str()));
  }
  std::vector<const char*> opts;
  opts.reserve(options.size());
  for (const std::string& o : options) opts.push_back(o.c_str());
  const nvrtcResult status =
      api.nvrtcCompileProgram(p.prog, static_cast<int>(opts.size()), opts.data());
  Compiled out;
  out.log = program_log(api, p.prog);
  const std::string arch = arch_of(options);
  if (status == NVRTC_ERROR_COMPILATION) {
    throw CompileError(
        detail::str("NVRTC could not compile ", file_name, " for ", arch, ":\n", out.log), out.log);
  }
  if (status == NVRTC_ERROR_INVALID_OPTION) {
    std::string joined;
    for (const std::string& o : options) joined += (joined.empty() ? "" : " ") + o;
    throw CompileError(detail::str("NVRTC rejected the options of ", file_name, " (", joined,
                                   "): ", out.log.empty() ? "an option is not valid" : out.log,
                                   ". NVRTC spells them '-std=c++17', '--use_fast_math', "
                                   "'-DNAME=VALUE', '-I<dir>'."),
                       out.log);
  }
  EMBER_NVRTC_CHECK(status);
  out.is_ptx = arch.compare(0, 8, "compute_") == 0;
  size_t n = 0;
  if (out.is_ptx) {
    EMBER_NVRTC_CHECK(api.nvrtcGetPTXSize(p.prog, &n));
    out.binary.resize(n);
    EMBER_NVRTC_CHECK(api.nvrtcGetPTX(p.prog, &out.binary[0]));
  } else {
    EMBER_NVRTC_CHECK(api.nvrtcGetCUBINSize(p.prog, &n));
    out.binary.resize(n);
    EMBER_NVRTC_CHECK(api.nvrtcGetCUBIN(p.prog, &out.binary[0]));
  }
  for (const std::string& e : name_expressions) {
    const char* lowered = nullptr;
    EMBER_NVRTC_CHECK(api.nvrtcGetLoweredName(p.prog, e.c_str(), &lowered));
    out.lowered.emplace_back(e, lowered ? lowered : "");
  }
  return out;
}

}  // namespace ember::nvrtc

#endif  // EMBER_WITH_CUDA
