#include "ops/linalg/cusolver_api.hpp"

#if EMBER_WITH_CUDA

#include <dlfcn.h>

#include <atomic>

#include "runtime/cuda_device.hpp"
#include "runtime/dynlib.hpp"
#include "runtime/errors.hpp"
#include "runtime/stream.hpp"

#define EMBER_STR2(x) #x
#define EMBER_STR(x) EMBER_STR2(x)

namespace ember::ops::linalg {

namespace {

std::atomic<bool> g_loaded{false};

const char* const kSoname = "libcusolver.so." EMBER_STR(CUSOLVER_VER_MAJOR);
const char* const kPath = EMBER_CUDA_LIBRARY_DIR "/libcusolver.so." EMBER_STR(CUSOLVER_VER_MAJOR);

struct Loaded {
  DynLib lib{kSoname, kPath};
  CusolverApi api;
  std::string missing;

  template <typename Fn>
  void resolve(Fn& fn, const char* name) {
    fn = lib.get<Fn>(name);
    if (!fn) missing += std::string(missing.empty() ? "" : ", ") + name;
  }

  Loaded() {
    if (!lib.ok()) return;
    resolve(api.Create, "cusolverDnCreate");
    resolve(api.SetStream, "cusolverDnSetStream");
    resolve(api.CreateSyevjInfo, "cusolverDnCreateSyevjInfo");
    resolve(api.CreateGesvdjInfo, "cusolverDnCreateGesvdjInfo");
    resolve(api.DestroySyevjInfo, "cusolverDnDestroySyevjInfo");
    resolve(api.DestroyGesvdjInfo, "cusolverDnDestroyGesvdjInfo");
    resolve(api.XgesvdjSetMaxSweeps, "cusolverDnXgesvdjSetMaxSweeps");
#define EMBER_RESOLVE_PAIR(name)                   \
  resolve(api.S##name, "cusolverDnS" #name);       \
  resolve(api.D##name, "cusolverDnD" #name);
    EMBER_RESOLVE_PAIR(getrf_bufferSize)
    EMBER_RESOLVE_PAIR(getrf)
    EMBER_RESOLVE_PAIR(getrs)
    EMBER_RESOLVE_PAIR(potrf_bufferSize)
    EMBER_RESOLVE_PAIR(potrf)
    EMBER_RESOLVE_PAIR(potrs)
    EMBER_RESOLVE_PAIR(potrfBatched)
    EMBER_RESOLVE_PAIR(geqrf_bufferSize)
    EMBER_RESOLVE_PAIR(geqrf)
    EMBER_RESOLVE_PAIR(orgqr_bufferSize)
    EMBER_RESOLVE_PAIR(orgqr)
    EMBER_RESOLVE_PAIR(ormqr_bufferSize)
    EMBER_RESOLVE_PAIR(ormqr)
    EMBER_RESOLVE_PAIR(syevd_bufferSize)
    EMBER_RESOLVE_PAIR(syevd)
    EMBER_RESOLVE_PAIR(syevjBatched_bufferSize)
    EMBER_RESOLVE_PAIR(syevjBatched)
    EMBER_RESOLVE_PAIR(gesvdj_bufferSize)
    EMBER_RESOLVE_PAIR(gesvdj)
    EMBER_RESOLVE_PAIR(gesvdjBatched_bufferSize)
    EMBER_RESOLVE_PAIR(gesvdjBatched)
#undef EMBER_RESOLVE_PAIR
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

struct ThreadHandles {
  cusolverDnHandle_t h[cuda::kMaxDevices] = {};
  cudaStream_t bound[cuda::kMaxDevices] = {};
};
thread_local ThreadHandles t_handles;

}  // namespace

const CusolverApi& cusolver_api() {
  if (g_loaded.load(std::memory_order_acquire)) return loaded().api;
  Loaded& l = loaded();
  if (!l.lib.ok()) {
    throw Error(detail::str(
        "ember could not open cuSOLVER (libcusolver.so.", EMBER_STR(CUSOLVER_VER_MAJOR),
        "), which linear algebra on the GPU needs: ", l.lib.error(),
        ". Install the CUDA toolkit's cuSOLVER (e.g. the nvidia-cusolver wheel) and make it "
        "findable through LD_LIBRARY_PATH or ldconfig."));
  }
  if (!l.missing.empty()) {
    throw Error(detail::str("the cuSOLVER library ember opened (", l.api.path, ") lacks ",
                            l.missing, ": it is older than the cuSOLVER ",
                            EMBER_STR(CUSOLVER_VER_MAJOR),
                            " ember was built with. Install a matching cuSOLVER."));
  }
  g_loaded.store(true, std::memory_order_release);
  return l.api;
}

bool cusolver_api_loaded() noexcept { return g_loaded.load(std::memory_order_acquire); }

cusolverDnHandle_t cusolver_handle(int device) {
  const CusolverApi& api = cusolver_api();
  ThreadHandles& t = t_handles;
  // Handles are never destroyed (as cuBLAS's: destroying them from static
  // destructors may run after the driver is gone); a thread's stays with it.
  if (!t.h[device]) EMBER_CUSOLVER_CHECK(api.Create(&t.h[device]));
  const cudaStream_t stream = cuda::current_stream(device).handle();
  if (t.bound[device] != stream || stream == nullptr) {
    EMBER_CUSOLVER_CHECK(api.SetStream(t.h[device], stream));
    t.bound[device] = stream;
  }
  return t.h[device];
}

}  // namespace ember::ops::linalg

#endif  // EMBER_WITH_CUDA
