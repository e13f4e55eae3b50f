#include "ops/fft/cufft_api.hpp"

#if EMBER_WITH_CUDA

#include <atomic>

#include "runtime/errors.hpp"
#include "runtime/library_loader.hpp"

#define EMBER_STR2(x) #x
#define EMBER_STR(x) EMBER_STR2(x)

namespace ember::ops::fft {

namespace {

std::atomic<bool> g_loaded{false};

const char* const kSoname = "libcufft.so." EMBER_STR(CUFFT_VER_MAJOR);
const char* const kPath = EMBER_CUDA_LIBRARY_DIR "/libcufft.so." EMBER_STR(CUFFT_VER_MAJOR);

struct Loaded {
  LibraryLoader lib{kSoname, kPath};
  CufftApi api;

  Loaded() {
    if (!lib.ok()) return;
    lib.resolve(api.Create, "cufftCreate");
    lib.resolve(api.Destroy, "cufftDestroy");
    lib.resolve(api.SetAutoAllocation, "cufftSetAutoAllocation");
    lib.resolve(api.XtMakePlanMany, "cufftXtMakePlanMany");
    lib.resolve(api.SetWorkArea, "cufftSetWorkArea");
    lib.resolve(api.SetStream, "cufftSetStream");
    lib.resolve(api.XtExec, "cufftXtExec");
    lib.note_path(reinterpret_cast<const void*>(api.Create));
    api.path = lib.path();
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
  l.lib.require(
      [](const std::string& error) {
        return detail::str("ember could not open cuFFT (libcufft.so.", EMBER_STR(CUFFT_VER_MAJOR),
                           "), which ember.fft on the GPU needs: ", error,
                           ". Install the CUDA toolkit's cuFFT (e.g. the nvidia-cufft wheel) and "
                           "make it findable through LD_LIBRARY_PATH or ldconfig.");
      },
      [](const std::string& path, const std::string& missing) {
        return detail::str("the cuFFT library ember opened (", path, ") lacks ", missing,
                           ": it is older than the cuFFT ", EMBER_STR(CUFFT_VER_MAJOR),
                           " ember was built with. Install a matching cuFFT.");
      });
  g_loaded.store(true, std::memory_order_release);
  return l.api;
}

bool cufft_api_loaded() noexcept { return g_loaded.load(std::memory_order_acquire); }

}  // namespace ember::ops::fft

#endif  // EMBER_WITH_CUDA
