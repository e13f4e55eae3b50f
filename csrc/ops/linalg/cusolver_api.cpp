#include "ops/linalg/cusolver_api.hpp"

#if EMBER_WITH_CUDA

#include <atomic>

#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/library_loader.hpp"
#include "runtime/stream.hpp"

#define EMBER_STR2(x) #x
#define EMBER_STR(x) EMBER_STR2(x)

namespace ember::ops::linalg {

namespace {

std::atomic<bool> g_loaded{false};

const char* const kSoname = "libcusolver.so." EMBER_STR(CUSOLVER_VER_MAJOR);
const char* const kPath = EMBER_CUDA_LIBRARY_DIR "/libcusolver.so." EMBER_STR(CUSOLVER_VER_MAJOR);

struct Loaded {
  LibraryLoader lib{kSoname, kPath};
  CusolverApi api;

  Loaded() {
    if (!lib.ok()) return;
    lib.resolve(api.Create, "cusolverDnCreate");
    lib.resolve(api.SetStream, "cusolverDnSetStream");
    lib.resolve(api.CreateParams, "cusolverDnCreateParams");
    lib.resolve(api.CreateSyevjInfo, "cusolverDnCreateSyevjInfo");
    lib.resolve(api.CreateGesvdjInfo, "cusolverDnCreateGesvdjInfo");
    lib.resolve(api.DestroySyevjInfo, "cusolverDnDestroySyevjInfo");
    lib.resolve(api.DestroyGesvdjInfo, "cusolverDnDestroyGesvdjInfo");
    lib.resolve(api.XgesvdjSetMaxSweeps, "cusolverDnXgesvdjSetMaxSweeps");
#define EMBER_RESOLVE_TYPED(name, cname)                \
  lib.resolve(api.S##name, "cusolverDnS" #name);        \
  lib.resolve(api.D##name, "cusolverDnD" #name);        \
  lib.resolve(api.C##cname, "cusolverDnC" #cname);      \
  lib.resolve(api.Z##cname, "cusolverDnZ" #cname);
#define EMBER_RESOLVE_QUAD(name) EMBER_RESOLVE_TYPED(name, name)
    EMBER_RESOLVE_QUAD(getrf_bufferSize)
    EMBER_RESOLVE_QUAD(getrf)
    EMBER_RESOLVE_QUAD(getrs)
    EMBER_RESOLVE_QUAD(potrf_bufferSize)
    EMBER_RESOLVE_QUAD(potrf)
    EMBER_RESOLVE_QUAD(potrs)
    EMBER_RESOLVE_QUAD(potrfBatched)
    EMBER_RESOLVE_QUAD(geqrf_bufferSize)
    EMBER_RESOLVE_QUAD(geqrf)
    EMBER_RESOLVE_TYPED(orgqr_bufferSize, ungqr_bufferSize)
    EMBER_RESOLVE_TYPED(orgqr, ungqr)
    EMBER_RESOLVE_TYPED(ormqr_bufferSize, unmqr_bufferSize)
    EMBER_RESOLVE_TYPED(ormqr, unmqr)
    EMBER_RESOLVE_TYPED(syevd_bufferSize, heevd_bufferSize)
    EMBER_RESOLVE_TYPED(syevd, heevd)
    EMBER_RESOLVE_TYPED(syevjBatched_bufferSize, heevjBatched_bufferSize)
    EMBER_RESOLVE_TYPED(syevjBatched, heevjBatched)
    EMBER_RESOLVE_QUAD(gesvdj_bufferSize)
    EMBER_RESOLVE_QUAD(gesvdj)
    EMBER_RESOLVE_QUAD(gesvdjBatched_bufferSize)
    EMBER_RESOLVE_QUAD(gesvdjBatched)
#undef EMBER_RESOLVE_QUAD
#undef EMBER_RESOLVE_TYPED
    lib.resolve_optional(api.Xgeev_bufferSize, "cusolverDnXgeev_bufferSize");
    lib.resolve_optional(api.Xgeev, "cusolverDnXgeev");
    if (!api.Xgeev_bufferSize) api.Xgeev = nullptr;
    lib.note_path(reinterpret_cast<const void*>(api.Create));
    api.path = lib.path();
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
  l.lib.require(
      [](const std::string& error) {
        return detail::str(
            "ember could not open cuSOLVER (libcusolver.so.", EMBER_STR(CUSOLVER_VER_MAJOR),
            "), which linear algebra on the GPU needs: ", error,
            ". Install the CUDA toolkit's cuSOLVER (e.g. the nvidia-cusolver wheel) and make it "
            "findable through LD_LIBRARY_PATH or ldconfig.");
      },
      [](const std::string& path, const std::string& missing) {
        return detail::str("the cuSOLVER library ember opened (", path, ") lacks ", missing,
                           ": it is older than the cuSOLVER ", EMBER_STR(CUSOLVER_VER_MAJOR),
                           " ember was built with. Install a matching cuSOLVER.");
      });
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

cusolverDnParams_t cusolver_params() {
  const CusolverApi& api = cusolver_api();
  // The default options are read-only to the solvers: one object serves every
  // thread and device (never destroyed, as the handles).
  static cusolverDnParams_t params = [&] {
    cusolverDnParams_t p = nullptr;
    EMBER_CUSOLVER_CHECK(api.CreateParams(&p));
    return p;
  }();
  return params;
}

}  // namespace ember::ops::linalg

#endif  // EMBER_WITH_CUDA
