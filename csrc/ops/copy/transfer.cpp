// The staging pipeline (see transfer.hpp) and the memcpy thread pool.
//
// H2D: for chunk k, wait for the event of the pinned slot it will use (the DMA
// of chunk k - slots), memcpy pageable -> slot on the pool's threads, queue
// cudaMemcpyAsync slot -> device on the stream, record the slot's event. The
// memcpy of chunk k+1 runs while the DMA of chunk k is in flight.
// D2H: queue the DMAs of the first `slots` chunks; then for each chunk wait
// for its slot's event, memcpy slot -> pageable on the pool's threads and
// queue the DMA of the chunk that reuses the slot.
// The call returns when the last event has completed; the staging memory is
// then idle and is kept for the next transfer (one set, reused; a concurrent
// transfer on another thread allocates its own).
#include "ops/copy/transfer.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <unistd.h>

#include "runtime/cuda_device.hpp"
#include "runtime/device_error.hpp"
#include "runtime/errors.hpp"
#include "runtime/sync_debug.hpp"
#include "tensor/storage.hpp"

namespace ember::ops {

namespace {

// ---- memcpy on several threads ----------------------------------------------

constexpr size_t kMinBytesPerThread = size_t(1) << 20;

class MemcpyPool {
 public:
  explicit MemcpyPool(int threads) : pid_(getpid()), threads_(threads) {
    for (int i = 0; i < threads; ++i) std::thread([this] { work(); }).detach();
  }
  int threads() const { return threads_; }

  // False when another copy holds the pool or this is a forked child (whose
  // pool threads do not exist).
  bool try_copy(char* dst, const char* src, size_t n, int parts) {
    if (getpid() != pid_) return false;
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    auto job = std::make_shared<Job>(dst, src, n, parts);
    {
      std::lock_guard<std::mutex> lock(m_);
      job_ = job;
      ++generation_;
    }
    cv_work_.notify_all();
    job->run();
    std::unique_lock<std::mutex> lock(job->m);
    job->cv.wait(lock, [&] { return job->remaining.load() == 0; });
    return true;
  }

 private:
  // One copy split in `parts`; threads that wake late hold it alive and find
  // no part left.
  struct Job {
    Job(char* d, const char* s, size_t n_, int p) : dst(d), src(s), n(n_), parts(p), remaining(p) {}
    char* const dst;
    const char* const src;
    const size_t n;
    const int parts;
    std::atomic<int> next{0}, remaining;
    std::mutex m;
    std::condition_variable cv;

    void run() {
      const size_t per = (n + parts - 1) / parts;
      for (int k; (k = next.fetch_add(1)) < parts;) {
        const size_t begin = per * k;
        const size_t len = begin >= n ? 0 : std::min(per, n - begin);
        if (len) std::memcpy(dst + begin, src + begin, len);
        if (remaining.fetch_sub(1) == 1) {
          std::lock_guard<std::mutex> lock(m);
          cv.notify_all();
        }
      }
    }
  };

  void work() {
    uint64_t seen = 0;
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_work_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        job = job_;
      }
      job->run();
    }
  }

  const pid_t pid_;
  const int threads_;
  std::mutex busy_, m_;
  std::condition_variable cv_work_;
  uint64_t generation_ = 0;
  std::shared_ptr<Job> job_;
};

// Helper threads: EMBER_COPY_THREADS if set (0 disables them), else one per
// core but one, at most 11 (host memory bandwidth, not cores, is the limit).
int pool_threads() {
  if (const char* env = std::getenv("EMBER_COPY_THREADS")) {
    const int n = std::atoi(env);
    return std::max(0, std::min(n, 64));
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return static_cast<int>(std::min(hw > 1 ? hw - 1 : 1u, 11u));
}

MemcpyPool& pool() {
  // Never destroyed: its threads may outlive the statics.
  static MemcpyPool* p = new MemcpyPool(pool_threads());
  return *p;
}

}  // namespace

void parallel_memcpy(void* dst, const void* src, size_t nbytes) {
  if (nbytes < 2 * kMinBytesPerThread) {
    std::memcpy(dst, src, nbytes);
    return;
  }
  MemcpyPool& p = pool();
  const int parts =
      static_cast<int>(std::min<size_t>(p.threads() + 1, nbytes / kMinBytesPerThread));
  if (parts < 2 || !p.try_copy(static_cast<char*>(dst), static_cast<const char*>(src), nbytes, parts)) {
    std::memcpy(dst, src, nbytes);
  }
}

#if EMBER_WITH_CUDA

namespace {

// ---- the staging pipeline ---------------------------------------------------

constexpr size_t kChunk = size_t(16) << 20;
constexpr int kSlots = 3;
// Below this the driver's own staging is as fast and needs no events.
constexpr size_t kPipelineMin = size_t(4) << 20;

std::mutex g_staging_mutex;
// kSlots * kChunk pinned bytes, idle between transfers. Never destroyed (the
// CUDA runtime may be gone when statics die); the driver reclaims it at exit.
UniqueDataPtr& g_staging = *new UniqueDataPtr();

UniqueDataPtr take_staging() {
  {
    std::lock_guard<std::mutex> lock(g_staging_mutex);
    if (g_staging.get()) return std::move(g_staging);
  }
  return UniqueDataPtr(alloc_pinned(kSlots * kChunk));
}

void give_back_staging(UniqueDataPtr buf) {
  std::lock_guard<std::mutex> lock(g_staging_mutex);
  if (!g_staging.get()) g_staging = std::move(buf);
}

// kSlots events on the current device, destroyed with the object.
struct SlotEvents {
  cudaEvent_t e[kSlots] = {};
  bool used[kSlots] = {};
  SlotEvents() {
    for (auto& ev : e) EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  }
  ~SlotEvents() {
    for (int i = 0; i < kSlots; ++i) {
      // Never free staging memory that a DMA may still touch.
      if (used[i]) EMBER_CUDA_WARN(cudaEventSynchronize(e[i]));
      EMBER_CUDA_WARN(cudaEventDestroy(e[i]));
    }
  }
  void record(int slot, cudaStream_t s) {
    EMBER_CUDA_CHECK(cudaEventRecord(e[slot], s));
    used[slot] = true;
  }
  void wait(int slot) {
    if (used[slot]) EMBER_CUDA_CHECK(cudaEventSynchronize(e[slot]));
  }
};

void pipeline_h2d(char* dst, const char* src, size_t n, cuda::StreamView stream) {
  UniqueDataPtr staging = take_staging();
  auto* slots = static_cast<char*>(staging.get());
  {
    SlotEvents ev;
    size_t k = 0;
    for (size_t off = 0; off < n; off += kChunk, ++k) {
      const int slot = static_cast<int>(k % kSlots);
      const size_t len = std::min(kChunk, n - off);
      char* buf = slots + slot * kChunk;
      ev.wait(slot);
      parallel_memcpy(buf, src + off, len);
      EMBER_CUDA_CHECK(
          cudaMemcpyAsync(dst + off, buf, len, cudaMemcpyHostToDevice, stream.handle()));
      ev.record(slot, stream.handle());
    }
    for (int s = 0; s < kSlots; ++s) ev.wait(s);
  }
  give_back_staging(std::move(staging));
}

void pipeline_d2h(char* dst, const char* src, size_t n, cuda::StreamView stream) {
  UniqueDataPtr staging = take_staging();
  auto* slots = static_cast<char*>(staging.get());
  {
    SlotEvents ev;
    const size_t chunks = (n + kChunk - 1) / kChunk;
    auto issue = [&](size_t k) {
      const int slot = static_cast<int>(k % kSlots);
      const size_t off = k * kChunk, len = std::min(kChunk, n - off);
      EMBER_CUDA_CHECK(cudaMemcpyAsync(slots + slot * kChunk, src + off, len,
                                       cudaMemcpyDeviceToHost, stream.handle()));
      ev.record(slot, stream.handle());
    };
    for (size_t k = 0; k < chunks && k < kSlots; ++k) issue(k);
    for (size_t k = 0; k < chunks; ++k) {
      const int slot = static_cast<int>(k % kSlots);
      const size_t off = k * kChunk, len = std::min(kChunk, n - off);
      ev.wait(slot);
      parallel_memcpy(dst + off, slots + slot * kChunk, len);
      if (k + kSlots < chunks) issue(k + kSlots);
    }
  }
  give_back_staging(std::move(staging));
}

}  // namespace

constexpr const char* kH2DSync =
    "a blocking copy from host memory to the GPU (non_blocking=False) waits for it";
constexpr const char* kD2HSync =
    "a copy from the GPU to pageable host memory waits for it (.item(), .tolist(), .cpu(), "
    ".numpy(), bool(), printing, a boolean mask...)";

void copy_h2d(void* dst, const void* src, size_t nbytes, bool src_pinned, bool non_blocking,
              cuda::StreamView stream) {
  if (nbytes == 0) return;
  // Blocking copies wait for the stream (torch counts them too); non_blocking ones
  // from pageable memory wait only for ember's own staging slots, as the driver's
  // pageable copies do, and are not counted.
  if (!non_blocking) cuda::note_host_sync(kH2DSync);
  cuda::DeviceGuard guard(stream.device());
  if (src_pinned || nbytes < kPipelineMin) {
    EMBER_CUDA_CHECK(
        cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyHostToDevice, stream.handle()));
    if (!non_blocking) EMBER_CUDA_CHECK(cudaStreamSynchronize(stream.handle()));
    return;
  }
  pipeline_h2d(static_cast<char*>(dst), static_cast<const char*>(src), nbytes, stream);
}

void copy_d2h(void* dst, const void* src, size_t nbytes, bool dst_pinned, bool non_blocking,
              cuda::StreamView stream) {
  if (nbytes == 0) return;
  if (!(dst_pinned && non_blocking)) cuda::note_host_sync(kD2HSync);
  cuda::DeviceGuard guard(stream.device());
  if (dst_pinned || nbytes < kPipelineMin) {
    EMBER_CUDA_CHECK(
        cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToHost, stream.handle()));
    if (!(dst_pinned && non_blocking)) {
      EMBER_CUDA_CHECK(cudaStreamSynchronize(stream.handle()));
      cuda::check_index_errors(stream.device());  // runtime/device_error.hpp
    }
    return;
  }
  pipeline_d2h(static_cast<char*>(dst), static_cast<const char*>(src), nbytes, stream);
  cuda::check_index_errors(stream.device());
}

void release_staging_buffers() {
  UniqueDataPtr old;
  {
    std::lock_guard<std::mutex> lock(g_staging_mutex);
    old = std::move(g_staging);
  }
}

#else

void copy_h2d(void*, const void*, size_t, bool, bool, cuda::StreamView) {
  throw Error("ember was built without CUDA support");
}
void copy_d2h(void*, const void*, size_t, bool, bool, cuda::StreamView) {
  throw Error("ember was built without CUDA support");
}
void release_staging_buffers() {}

#endif

}  // namespace ember::ops
