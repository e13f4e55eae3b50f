#include "runtime/device_error.hpp"

#include <atomic>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "runtime/errors.hpp"

#if EMBER_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace ember::cuda {

namespace {

// Its own bound (runtime/stream.hpp's kMaxDevices is 64): a distinct name, as the
// precompiled header (docs/design/build.md) brings stream.hpp into every file.
constexpr int kMaxRecordDevices = 256;

struct Records {
  std::mutex mu;
  std::set<std::string> names;
  IndexErrorRecord* host[kMaxRecordDevices] = {};
  IndexErrorRecord* dev[kMaxRecordDevices] = {};
  std::atomic<int> count{0};  // devices with a record (0: the checks are one load)
};

Records& records() {
  static Records* r = new Records();  // never freed: kernels may still write
  return *r;
}

}  // namespace

const char* intern_op_name(const char* name) {
  Records& r = records();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.names.insert(std::string(name)).first->c_str();
}

#if EMBER_WITH_CUDA
IndexErrorRecord* index_error_record(int device) {
  EMBER_CHECK(device >= 0 && device < kMaxRecordDevices, "index error record: bad device index ",
              device);
  Records& r = records();
  std::lock_guard<std::mutex> lock(r.mu);
  if (r.dev[device] == nullptr) {
    void* p = nullptr;
    EMBER_CUDA_CHECK(
        cudaHostAlloc(&p, sizeof(IndexErrorRecord), cudaHostAllocMapped | cudaHostAllocPortable));
    std::memset(p, 0, sizeof(IndexErrorRecord));
    void* d = nullptr;
    EMBER_CUDA_CHECK(cudaHostGetDevicePointer(&d, p, 0));
    r.host[device] = static_cast<IndexErrorRecord*>(p);
    r.dev[device] = static_cast<IndexErrorRecord*>(d);
    r.count.fetch_add(1, std::memory_order_release);
  }
  return r.dev[device];
}
#endif

void check_index_errors(int device) {
#if EMBER_WITH_CUDA
  Records& r = records();
  if (r.count.load(std::memory_order_acquire) == 0 || device < 0 || device >= kMaxRecordDevices) return;
  IndexErrorRecord* h = nullptr;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    h = r.host[device];
  }
  if (h == nullptr) return;
  volatile IndexErrorRecord* vh = h;
  if (vh->flag == 0) return;
  std::atomic_thread_fence(std::memory_order_acquire);
  const int64_t index = vh->index, size = vh->size, dim = vh->dim;
  const char* op = reinterpret_cast<const char*>(static_cast<intptr_t>(vh->op));
  vh->flag = 0;
  throw IndexError(detail::str(
      op != nullptr ? op : "an indexing op", ": index ", index,
      " is out of bounds for dimension ", dim, " with size ", size,
      " (index out of range in self, found on cuda:", device,
      " by a kernel queued earlier: ember checks GPU indices without waiting for the GPU, so the "
      "error surfaces at the next synchronising call -- synchronize(), .item(), .cpu(), ... -- "
      "on that device. The kernel skipped that index: a gather read "
      "zeros there, a scatter wrote nothing. The device stays usable.)"));
#else
  (void)device;
#endif
}

void check_all_index_errors() {
#if EMBER_WITH_CUDA
  Records& r = records();
  if (r.count.load(std::memory_order_acquire) == 0) return;
  for (int d = 0; d < kMaxRecordDevices; ++d) {
    bool has = false;
    {
      std::lock_guard<std::mutex> lock(r.mu);
      has = r.host[d] != nullptr;
    }
    if (has) check_index_errors(d);
  }
#endif
}

}  // namespace ember::cuda
