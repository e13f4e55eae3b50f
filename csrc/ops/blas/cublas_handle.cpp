#include "ops/blas/cublas_handle.hpp"

#if EMBER_WITH_CUDA

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "memory/allocators.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/stream.hpp"

namespace ember::ops::blas {

namespace {

struct Handles {
  cublasHandle_t blas = nullptr;
  cublasLtHandle_t lt = nullptr;
};

// Handles given back by threads that exited, per device. Leaked at exit.
struct Pool {
  std::mutex mu;
  std::vector<Handles> free[cuda::kMaxDevices];
  // Workspaces per (device, stream), never freed.
  std::map<std::pair<int, cudaStream_t>, void*> workspaces;
  size_t workspace_bytes[cuda::kMaxDevices] = {};
};

Pool& pool() {
  static Pool* p = new Pool();
  return *p;
}

// The calling thread's handles; its destructor only pushes them back to the
// pool (no CUDA call), so it is safe at exit.
struct ThreadHandles {
  Handles h[cuda::kMaxDevices];
  cudaStream_t bound[cuda::kMaxDevices] = {};
  bool is_bound[cuda::kMaxDevices] = {};
  int math_mode[cuda::kMaxDevices] = {};
  void* ws[cuda::kMaxDevices] = {};
  size_t ws_size[cuda::kMaxDevices] = {};

  ~ThreadHandles() {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mu);
    for (int d = 0; d < cuda::kMaxDevices; ++d) {
      if (h[d].blas) p.free[d].push_back(h[d]);
    }
  }
};

thread_local ThreadHandles t_handles;

Handles acquire_handles(const CublasApi& api, int device) {
  Pool& p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mu);
    if (!p.free[device].empty()) {
      Handles h = p.free[device].back();
      p.free[device].pop_back();
      return h;
    }
  }
  Handles h;
  EMBER_CUBLAS_CHECK(api.cublasCreate(&h.blas));
  const cublasStatus_t s = api.cublasLtCreate(&h.lt);
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::lock_guard<std::mutex> lock(p.mu);
    p.free[device].push_back(Handles{h.blas, nullptr});  // keep it; Lt is retried next time
    ::ember::detail::throw_library_error("cuBLAS", static_cast<int>(s),
                                         ::ember::detail::describe_cublas_status(s),
                                         "cublasLtCreate");
  }
  return h;
}

// One ":SIZE:COUNT" pair list, sizes in KiB.
size_t parse_workspace_config(const char* s) {
  size_t total = 0;
  std::string v(s);
  size_t pos = 0;
  int pairs = 0;
  while (pos < v.size()) {
    if (v[pos] != ':') break;
    char* end = nullptr;
    const unsigned long long size = std::strtoull(v.c_str() + pos + 1, &end, 10);
    if (end == v.c_str() + pos + 1 || *end != ':') break;
    const char* count_start = end + 1;
    const unsigned long long count = std::strtoull(count_start, &end, 10);
    if (end == count_start) break;
    total += static_cast<size_t>(size * 1024 * count);
    ++pairs;
    pos = static_cast<size_t>(end - v.c_str());
  }
  if (pairs == 0 || pos != v.size()) {
    throw ValueError(::ember::detail::str(
        "CUBLAS_WORKSPACE_CONFIG='", v, "' is not of the form ':SIZE_KiB:COUNT' repeated (for "
        "example ':4096:8'); fix or unset it."));
  }
  return total;
}

void* workspace_for(int device, cudaStream_t stream, size_t* size) {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mu);
  if (p.workspace_bytes[device] == 0) {
    p.workspace_bytes[device] = workspace_size_for(cuda::get_device_properties(device).major);
  }
  *size = p.workspace_bytes[device];
  auto it = p.workspaces.find({device, stream});
  if (it != p.workspaces.end()) return it->second;
  void* ws = memory::raw_alloc(*size, device, cuda::StreamView(stream, device));
  p.workspaces.emplace(std::make_pair(device, stream), ws);
  return ws;
}

}  // namespace

size_t workspace_size_for(int major) {
  if (const char* env = std::getenv("CUBLAS_WORKSPACE_CONFIG")) {
    if (*env) return parse_workspace_config(env);
  }
  if (major >= 9) return size_t(4096) * 1024 * 8;
  return size_t(4096) * 1024 * 2 + size_t(16) * 1024 * 8;
}

CublasContext cublas_context(int device) {
  const CublasApi& api = cublas_api();
  ThreadHandles& t = t_handles;
  Handles& h = t.h[device];
  if (!h.blas || !h.lt) {
    if (h.blas && !h.lt) {
      EMBER_CUBLAS_CHECK(api.cublasLtCreate(&h.lt));
    } else {
      h = acquire_handles(api, device);
      t.is_bound[device] = false;
      t.math_mode[device] = -1;
    }
  }
  const cudaStream_t stream = cuda::current_stream(device).handle();
  if (!t.is_bound[device] || t.bound[device] != stream) {
    t.ws[device] = workspace_for(device, stream, &t.ws_size[device]);
    EMBER_CUBLAS_CHECK(api.cublasSetStream(h.blas, stream));
    // cublasSetStream resets the workspace to cuBLAS's own pool.
    EMBER_CUBLAS_CHECK(api.cublasSetWorkspace(h.blas, t.ws[device], t.ws_size[device]));
    t.bound[device] = stream;
    t.is_bound[device] = true;
  }
  return CublasContext{&api, h.blas, h.lt, stream, t.ws[device], t.ws_size[device]};
}

void set_math_mode(const CublasContext& ctx, int device, cublasMath_t mode) {
  int& current = t_handles.math_mode[device];
  if (current == static_cast<int>(mode)) return;
  EMBER_CUBLAS_CHECK(ctx.api->cublasSetMathMode(ctx.handle, mode));
  current = static_cast<int>(mode);
}

}  // namespace ember::ops::blas

#endif  // EMBER_WITH_CUDA
