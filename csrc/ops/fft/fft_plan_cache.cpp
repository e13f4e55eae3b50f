#include "ops/fft/fft_plan_cache.hpp"

#if EMBER_WITH_CUDA

#include <list>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ops/fft/cufft_api.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/stream.hpp"

namespace ember::ops::fft {

namespace {

constexpr int64_t kDefaultMaxSize = 4096;  // torch 2.x: CUFFT_DEFAULT_CACHE_SIZE

struct DeviceCache {
  std::mutex mu;
  int64_t max_size = kDefaultMaxSize;
  // Most recently used first.
  std::list<std::pair<PlanKey, std::shared_ptr<Plan>>> lru;
  std::unordered_map<PlanKey, decltype(lru)::iterator, PlanKeyHash> map;

  // Drops the least recently used plans beyond `keep` (under mu). The plans
  // are handed back so that they are destroyed outside the lock.
  void trim(size_t keep, std::vector<std::shared_ptr<Plan>>& dropped) {
    while (lru.size() > keep) {
      map.erase(lru.back().first);
      dropped.push_back(std::move(lru.back().second));
      lru.pop_back();
    }
  }
};

DeviceCache& cache(int device) {
  EMBER_CHECK_VALUE(device >= 0 && device < cuda::kMaxDevices,
                    "cufft_plan_cache: invalid device index ", device);
  // Never destroyed: plans would otherwise be destroyed after the driver.
  static DeviceCache* caches = new DeviceCache[cuda::kMaxDevices];
  return caches[device];
}

cudaDataType value_type(int precision, bool complex) {
  switch (precision) {
    case 0: return complex ? CUDA_C_16F : CUDA_R_16F;
    case 1: return complex ? CUDA_C_32F : CUDA_R_32F;
    default: return complex ? CUDA_C_64F : CUDA_R_64F;
  }
}

std::shared_ptr<Plan> make_plan(int device, const PlanKey& k) {
  const CufftApi& api = cufft_api();
  auto plan = std::make_shared<Plan>();
  plan->device = device;
  EMBER_CUFFT_CHECK(api.Create(&plan->handle));
  EMBER_CUFFT_CHECK(api.SetAutoAllocation(plan->handle, 0));
  long long n[kMaxPlanRank], inembed[kMaxPlanRank], onembed[kMaxPlanRank];
  long long in_elems = 1, out_elems = 1;
  for (int i = 0; i < k.rank; ++i) {
    n[i] = inembed[i] = onembed[i] = k.n[i];
  }
  const int last = k.rank - 1;
  if (k.kind == FftKind::R2C) onembed[last] = k.n[last] / 2 + 1;
  if (k.kind == FftKind::C2R) inembed[last] = k.n[last] / 2 + 1;
  for (int i = 0; i < k.rank; ++i) {
    in_elems *= inembed[i];
    out_elems *= onembed[i];
  }
  (void)in_elems;
  const cudaDataType in_t = value_type(k.precision, k.kind != FftKind::R2C);
  const cudaDataType out_t = value_type(k.precision, k.kind != FftKind::C2R);
  const cudaDataType exec_t = value_type(k.precision, true);
  size_t work = 0;
  EMBER_CUFFT_CHECK(api.XtMakePlanMany(plan->handle, k.rank, n, inembed, 1, k.idist, in_t,
                                       onembed, 1, out_elems, out_t, k.batch, &work, exec_t));
  plan->work_size = work;
  return plan;
}

}  // namespace

size_t PlanKeyHash::operator()(const PlanKey& k) const noexcept {
  // FNV-1a over the key's bytes (the padding is zeroed).
  const unsigned char* p = reinterpret_cast<const unsigned char*>(&k);
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < sizeof(PlanKey); ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return static_cast<size_t>(h);
}

Plan::~Plan() {
  if (handle == 0 || !cufft_api_loaded()) return;
  try {
    cuda::DeviceGuard guard(device);
    cufft_api().Destroy(handle);  // a failure here has nowhere to go
  } catch (...) {
  }
}

std::shared_ptr<Plan> get_plan(int device, const PlanKey& key) {
  DeviceCache& c = cache(device);
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.map.find(key);
    if (it != c.map.end()) {
      c.lru.splice(c.lru.begin(), c.lru, it->second);
      return it->second->second;
    }
  }
  // A miss: make the plan outside the lock (planning takes milliseconds).
  std::shared_ptr<Plan> plan = make_plan(device, key);
  std::vector<std::shared_ptr<Plan>> dropped;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    if (c.max_size <= 0) return plan;
    auto it = c.map.find(key);
    if (it != c.map.end()) {  // another thread made it meanwhile: use the cached one
      c.lru.splice(c.lru.begin(), c.lru, it->second);
      dropped.push_back(std::move(plan));
      return it->second->second;
    }
    c.lru.emplace_front(key, plan);
    c.map.emplace(key, c.lru.begin());
    c.trim(static_cast<size_t>(c.max_size), dropped);
  }
  return plan;
}

int64_t plan_cache_size(int device) {
  DeviceCache& c = cache(device);
  std::lock_guard<std::mutex> lock(c.mu);
  return static_cast<int64_t>(c.lru.size());
}

int64_t plan_cache_max_size(int device) {
  DeviceCache& c = cache(device);
  std::lock_guard<std::mutex> lock(c.mu);
  return c.max_size;
}

void set_plan_cache_max_size(int device, int64_t max_size) {
  EMBER_CHECK(max_size >= 0, "cuFFT plan cache size must be non-negative, but got ", max_size);
  DeviceCache& c = cache(device);
  std::vector<std::shared_ptr<Plan>> dropped;
  std::lock_guard<std::mutex> lock(c.mu);
  c.max_size = max_size;
  c.trim(static_cast<size_t>(max_size), dropped);
}

void clear_plan_cache(int device) {
  DeviceCache& c = cache(device);
  std::vector<std::shared_ptr<Plan>> dropped;
  std::lock_guard<std::mutex> lock(c.mu);
  c.trim(0, dropped);
}

}  // namespace ember::ops::fft

#endif  // EMBER_WITH_CUDA
