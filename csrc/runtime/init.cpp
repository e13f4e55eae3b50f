#include "runtime/init.hpp"

#include <pthread.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <new>
#include <set>

#include "runtime/errors.hpp"
#include "runtime/nvml.hpp"

namespace ember::cuda {

namespace {

std::atomic<bool> g_initialized{false};
std::atomic<bool> g_bad_fork{false};
std::atomic<int> g_count{-2};  // -2: not yet counted
std::mutex g_mutex;

void on_fork_child() {
  // The child inherits a copy of a driver state it cannot use. Remember that,
  // and give it fresh locks (another thread may have held one at fork time).
  new (&g_mutex) std::mutex();
  if (g_initialized.load()) {
    g_bad_fork.store(true);
    g_initialized.store(false);
  }
}

struct ForkHandlerInstaller {
  ForkHandlerInstaller() { pthread_atfork(nullptr, nullptr, on_fork_child); }
} g_fork_handler_installer;

std::string strip(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

int runtime_device_count() noexcept {
#if EMBER_WITH_CUDA
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
#else
  return 0;
#endif
}

int count_without_init() {
  if (!compiled_with_cuda()) return 0;  // a CPU-only build can use no GPU, whatever NVML sees
  const int nvml_count = nvml::device_count();
  if (nvml_count < 0) return runtime_device_count();  // no NVML: ask the runtime
  const int n = visible_device_count(std::getenv("CUDA_VISIBLE_DEVICES"), nvml_count,
                                     nvml::device_uuids());
  return n >= 0 ? n : runtime_device_count();
}

}  // namespace

bool compiled_with_cuda() noexcept { return EMBER_WITH_CUDA != 0; }

int visible_device_count(const char* env, int nvml_count, const std::vector<std::string>& uuids) {
  if (env == nullptr) return nvml_count;
  std::vector<std::string> items;
  std::string s(env);
  size_t start = 0;
  while (true) {
    const size_t comma = s.find(',', start);
    items.push_back(strip(s.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (const auto& it : items) {
    if (it.rfind("MIG-", 0) == 0) return -1;
  }
  std::set<int> seen;
  const bool by_uuid = !items.empty() && items[0].rfind("GPU-", 0) == 0;
  for (const auto& it : items) {
    int ordinal = -1;
    if (by_uuid) {
      if (it.rfind("GPU-", 0) != 0) break;
      int matches = 0;
      for (size_t i = 0; i < uuids.size(); ++i) {
        if (uuids[i].rfind(it, 0) == 0) {
          ++matches;
          ordinal = static_cast<int>(i);
        }
      }
      if (matches != 1) break;  // unknown or ambiguous prefix ends the list
    } else {
      size_t digits = 0;
      while (digits < it.size() && digits < 9 && it[digits] >= '0' && it[digits] <= '9') ++digits;
      if (digits == 0) break;  // not a number (or negative) ends the list
      ordinal = std::stoi(it.substr(0, digits));
      if (ordinal >= nvml_count) break;
    }
    if (!seen.insert(ordinal).second) return 0;  // a repeated device exposes none
  }
  return static_cast<int>(seen.size());
}

int device_count() {
  int n = g_count.load(std::memory_order_acquire);
  if (n != -2) return n;
  std::lock_guard<std::mutex> lock(g_mutex);
  n = g_count.load();
  if (n == -2) {
    n = count_without_init();
    g_count.store(n, std::memory_order_release);
  }
  return n;
}

bool is_available() { return compiled_with_cuda() && device_count() > 0; }

bool is_initialized() noexcept { return g_initialized.load(std::memory_order_acquire); }
bool in_bad_fork() noexcept { return g_bad_fork.load(); }

void lazy_init() {
  if (g_initialized.load(std::memory_order_acquire)) return;
  if (g_bad_fork.load()) {
    throw Error(
        "Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you "
        "must use the 'spawn' start method");
  }
#if EMBER_WITH_CUDA
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_initialized.load()) return;
  int n = 0;
  EMBER_CUDA_CHECK(cudaGetDeviceCount(&n));  // initialises the driver, no context yet
  if (n == 0) {
    throw CudaError(
        "No CUDA GPUs are available: check nvidia-smi and CUDA_VISIBLE_DEVICES, or use "
        "device='cpu'.",
        100, "cudaErrorNoDevice");
  }
  // From here on the runtime's count is the truth (it also resolves MIG).
  g_count.store(n, std::memory_order_release);
  g_initialized.store(true, std::memory_order_release);
#else
  throw Error(
      "ember was built without CUDA support (no CUDA compiler was found at build time), so no "
      "GPU can be used. Reinstall ember on a machine with the CUDA toolkit (nvcc), or use "
      "device='cpu'.");
#endif
}

int runtime_version() noexcept {
#if EMBER_WITH_CUDA
  return CUDART_VERSION;
#else
  return 0;
#endif
}

int driver_version() noexcept {
#if EMBER_WITH_CUDA
  int v = 0;
  if (cudaDriverGetVersion(&v) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return v;
#else
  return 0;
#endif
}

}  // namespace ember::cuda
