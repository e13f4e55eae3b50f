// The cuFFT plan cache: one LRU cache of plans per device, as torch's
// (aten/src/ATen/native/cuda/CuFFTPlanCache.h), with its controls
// (ember.backends.cuda.cufft_plan_cache[i].size / .max_size / .clear()).
//
// - A plan is keyed by everything cuFFT bakes into it: the transform kind
//   (c2c, r2c, c2r), the precision, the signal sizes (rank <= 3), the batch
//   count and the input's batch distance (the layouts are otherwise packed).
// - A hit is one hash-map lookup under the device's mutex and a splice to the
//   front of the LRU list: no Python, no CUDA call.
// - Plans are made with cufftSetAutoAllocation(0): cuFFT allocates no
//   workspace of its own; each execution takes its workspace from ember's
//   caching allocator on the current stream (so memory statistics see it).
// - An evicted or cleared plan is destroyed when its last user lets it go
//   (shared_ptr), never under another thread's execution.
// - Default max_size 4096 (torch 2.x's CUFFT_DEFAULT_CACHE_SIZE); max_size 0
//   disables caching (each call makes and destroys its plan).
#pragma once

#if EMBER_WITH_CUDA

#include <cufft.h>
#include <library_types.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>

namespace ember::ops::fft {

enum class FftKind : int8_t { C2C = 0, R2C = 1, C2R = 2 };

constexpr int kMaxPlanRank = 3;

struct PlanKey {
  int64_t n[kMaxPlanRank] = {0, 0, 0};  // the (real-side) signal sizes
  int64_t batch = 0;
  int64_t idist = 0;  // elements between the inputs of consecutive batch entries
  int8_t rank = 0;
  FftKind kind = FftKind::C2C;
  int8_t precision = 0;  // 0 half, 1 float, 2 double
  int8_t pad_[5] = {0, 0, 0, 0, 0};

  bool operator==(const PlanKey& o) const noexcept { return std::memcmp(this, &o, sizeof(*this)) == 0; }
};

struct PlanKeyHash {
  size_t operator()(const PlanKey& k) const noexcept;
};

// One cuFFT plan, with the workspace size it asked for.
struct Plan {
  cufftHandle handle = 0;
  size_t work_size = 0;
  int device = 0;
  std::mutex mu;  // held while the plan is bound to a stream/workspace and executed
  // What the plan was last bound to (under mu): cufftSetStream/SetWorkArea run only
  // when these change.
  void* bound_stream = nullptr;
  void* bound_work = nullptr;
  bool bound = false;
  Plan() = default;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan();
};

// The plan for `key` on `device` (made current by the caller): from the cache
// or made now (and cached while max_size > 0).
std::shared_ptr<Plan> get_plan(int device, const PlanKey& key);

// torch._cufft_get_plan_cache_size / _max_size / set_max_size / clear.
int64_t plan_cache_size(int device);
int64_t plan_cache_max_size(int device);
void set_plan_cache_max_size(int device, int64_t max_size);
void clear_plan_cache(int device);

}  // namespace ember::ops::fft

#endif  // EMBER_WITH_CUDA
