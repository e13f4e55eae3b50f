#include "ops/blas/cublas_api.hpp"

#if EMBER_WITH_CUDA

#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include "runtime/dynlib.hpp"
#include "runtime/errors.hpp"

#define EMBER_STR2(x) #x
#define EMBER_STR(x) EMBER_STR2(x)

namespace ember::ops::blas {

namespace {

std::atomic<bool> g_loaded{false};

const char* const kLtSoname = "libcublasLt.so." EMBER_STR(EMBER_CUBLAS_MAJOR);
const char* const kSoname = "libcublas.so." EMBER_STR(EMBER_CUBLAS_MAJOR);
const char* const kLtPath = EMBER_CUDA_LIBRARY_DIR "/libcublasLt.so." EMBER_STR(EMBER_CUBLAS_MAJOR);
const char* const kPath = EMBER_CUDA_LIBRARY_DIR "/libcublas.so." EMBER_STR(EMBER_CUBLAS_MAJOR);

struct Loaded {
  // libcublasLt first: libcublas needs it, and a library already loaded under
  // its soname satisfies that dependency whichever directory it came from.
  DynLib lt{kLtSoname, kLtPath};
  DynLib blas{kSoname, kPath};
  CublasApi api;
  std::string missing;

  template <typename Fn>
  void resolve(const DynLib& lib, Fn& fn, const char* name) {
    fn = lib.get<Fn>(name);
    if (!fn) missing += std::string(missing.empty() ? "" : ", ") + name;
  }

  Loaded() {
    if (!lt.ok() || !blas.ok()) return;
    resolve(blas, api.cublasCreate, "cublasCreate_v2");
    resolve(blas, api.cublasSetStream, "cublasSetStream_v2");
    resolve(blas, api.cublasSetWorkspace, "cublasSetWorkspace_v2");
    resolve(blas, api.cublasSetMathMode, "cublasSetMathMode");
    resolve(blas, api.cublasGemmEx, "cublasGemmEx");
    resolve(blas, api.cublasGemmEx_64, "cublasGemmEx_64");
    resolve(blas, api.cublasGemmStridedBatchedEx, "cublasGemmStridedBatchedEx");
    resolve(blas, api.cublasGemmStridedBatchedEx_64, "cublasGemmStridedBatchedEx_64");
    resolve(blas, api.cublasStrsmV2, "cublasStrsm_v2");
    resolve(blas, api.cublasDtrsmV2, "cublasDtrsm_v2");
    resolve(blas, api.cublasSgetrfBatched, "cublasSgetrfBatched");
    resolve(blas, api.cublasDgetrfBatched, "cublasDgetrfBatched");
    resolve(blas, api.cublasSgetrsBatched, "cublasSgetrsBatched");
    resolve(blas, api.cublasDgetrsBatched, "cublasDgetrsBatched");
    resolve(blas, api.cublasSgeqrfBatched, "cublasSgeqrfBatched");
    resolve(blas, api.cublasDgeqrfBatched, "cublasDgeqrfBatched");
    resolve(blas, api.cublasCtrsmV2, "cublasCtrsm_v2");
    resolve(blas, api.cublasZtrsmV2, "cublasZtrsm_v2");
    resolve(blas, api.cublasCgetrfBatched, "cublasCgetrfBatched");
    resolve(blas, api.cublasZgetrfBatched, "cublasZgetrfBatched");
    resolve(blas, api.cublasCgetrsBatched, "cublasCgetrsBatched");
    resolve(blas, api.cublasZgetrsBatched, "cublasZgetrsBatched");
    resolve(blas, api.cublasCgeqrfBatched, "cublasCgeqrfBatched");
    resolve(blas, api.cublasZgeqrfBatched, "cublasZgeqrfBatched");
    resolve(lt, api.cublasLtCreate, "cublasLtCreate");
    resolve(lt, api.cublasLtMatmul, "cublasLtMatmul");
    resolve(lt, api.cublasLtMatmulDescCreate, "cublasLtMatmulDescCreate");
    resolve(lt, api.cublasLtMatmulDescDestroy, "cublasLtMatmulDescDestroy");
    resolve(lt, api.cublasLtMatmulDescSetAttribute, "cublasLtMatmulDescSetAttribute");
    resolve(lt, api.cublasLtMatrixLayoutCreate, "cublasLtMatrixLayoutCreate");
    resolve(lt, api.cublasLtMatrixLayoutDestroy, "cublasLtMatrixLayoutDestroy");
    resolve(lt, api.cublasLtMatrixLayoutSetAttribute, "cublasLtMatrixLayoutSetAttribute");
    resolve(lt, api.cublasLtMatmulPreferenceCreate, "cublasLtMatmulPreferenceCreate");
    resolve(lt, api.cublasLtMatmulPreferenceDestroy, "cublasLtMatmulPreferenceDestroy");
    resolve(lt, api.cublasLtMatmulPreferenceSetAttribute,
            "cublasLtMatmulPreferenceSetAttribute");
    resolve(lt, api.cublasLtMatmulAlgoGetHeuristic, "cublasLtMatmulAlgoGetHeuristic");
    Dl_info info{};
    if (api.cublasCreate && dladdr(reinterpret_cast<void*>(api.cublasCreate), &info) &&
        info.dli_fname) {
      api.path = info.dli_fname;
    }
  }
};

Loaded& loaded() {
  static Loaded* instance = new Loaded();  // never destroyed: used until exit
  return *instance;
}

}  // namespace

const CublasApi& cublas_api() {
  if (g_loaded.load(std::memory_order_acquire)) return loaded().api;
  Loaded& l = loaded();  // the static's initialisation is thread-safe
  if (!l.lt.ok() || !l.blas.ok()) {
    throw Error(detail::str(
        "ember could not open cuBLAS, which matrix products on the GPU need: ",
        l.lt.ok() ? l.blas.error() : l.lt.error(),
        ". Install the CUDA toolkit's cuBLAS (libcublas", EMBER_STR(EMBER_CUBLAS_MAJOR),
        ", e.g. the nvidia-cublas wheel) and make it findable through LD_LIBRARY_PATH or "
        "ldconfig."));
  }
  if (!l.missing.empty()) {
    throw Error(detail::str("the cuBLAS library ember opened lacks ", l.missing,
                            ": it is older than the cuBLAS ", EMBER_STR(EMBER_CUBLAS_MAJOR),
                            " ember was built with. Install a matching cuBLAS."));
  }
  g_loaded.store(true, std::memory_order_release);
  return l.api;
}

bool cublas_loaded() noexcept { return g_loaded.load(std::memory_order_acquire); }

}  // namespace ember::ops::blas

#endif  // EMBER_WITH_CUDA
