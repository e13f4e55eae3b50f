#include "ops/fft/cufft_api.hpp"

#if EMBER_WITH_CUDA

#include <dlfcn.h>

#include <atomic>

#include "runtime/dynlib.hpp"
#include "runtime/errors.hpp"

#define EMBER_STR2(x) #x
#define EMBER_STR(x) EMBER_STR2(x)

namespace ember::ops::fft {

namespace {

std::atomic<bool> g_loaded{false};

const char* const kSoname = "libcufft.so." EMBER_STR(CUFFT_VER_MAJOR);
const char* const kPath = EMBER_CUDA_LIBRARY_DIR "/libcufft.so." EMBER_STR(CUFFT_VER_MAJOR);

struct Loaded {
  DynLib lib{kSoname, kPath};
  CufftApi api;
  std::string missing;

  template <typename Fn>
  void resolve(Fn& fn, const char* name) {
    fn = lib.get<Fn>(name);
    if (!fn) missing += std::string(missing.empty() ? "" : ", ") + name;
  }

  Loaded() {
    if (!lib.ok()) return;
    resolve(api.Create, "cufftCreate");
    resolve(api.Destroy, "cufftDestroy");
    resolve(api.SetAutoAllocation, "cufftSetAutoAllocation");
    resolve(api.XtMakePlanMany, "cufftXtMakePlanMany");
    resolve(api.SetWorkArea, "cufftSetWorkArea");
    resolve(api.SetStream, "cufftSetStream");
    resolve(api.XtExec, "cufftXtExec");
    Dl_info info{};
    if (api.Create && dladdr(reinterpret_cast<void*>(api.Create), &info) && info.dli_fname) {
      api.path = info.dli_fname;
    }
  }
};

Loaded& loaded() {
  static Loaded* instance = new Loaded();  // never destroyed: used until exit
  return *instance;
}

}  // namespace

const CufftApi& cufft_api() {
  if (g_loaded.load(std::memory_order_acquire)) return loaded().api;
  Loaded& l = loaded();
  if (!l.lib.ok()) {
    throw Error(detail::str(
        "ember could not open cuFFT (libcufft.so.", EMBER_STR(CUFFT_VER_MAJOR),
        "), which ember.fft on the GPU needs: ", l.lib.error(),
        ". Install the CUDA toolkit's cuFFT (e.g. the nvidia-cufft wheel) and make it "
        "findable through LD_LIBRARY_PATH or ldconfig."));
  }
  if (!l.missing.empty()) {
    throw Error(detail::str("the cuFFT library ember opened (", l.api.path, ") lacks ", l.missing,
                            ": it is older than the cuFFT ", EMBER_STR(CUFFT_VER_MAJOR),
                            " ember was built with. Install a matching cuFFT."));
  }
  g_loaded.store(true, std::memory_order_release);
  return l.api;
}

bool cufft_api_loaded() noexcept { return g_loaded.load(std::memory_order_acquire); }

}  // namespace ember::ops::fft

#endif  // EMBER_WITH_CUDA
