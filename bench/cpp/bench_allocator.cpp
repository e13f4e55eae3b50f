// Micro-benchmarks of the caching allocators over the simulated backings: the
// cost of ember's own bookkeeping (the CUDA calls are not on these paths).
// Target: the allocate+free pair of a cached device block <= 150 ns.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "memory/allocator_config.hpp"
#include "memory/caching_allocator.hpp"
#include "memory/host_allocator.hpp"
#include "memory/sim_backing.hpp"

namespace {

using ember::memory::AllocatorConfig;
using ember::memory::CachingAllocator;
using ember::memory::HostCachingAllocator;
using ember::memory::SimDeviceBacking;
using ember::memory::SimHostBacking;
using ember::memory::Stream;

std::unique_ptr<CachingAllocator> make_allocator() {
  auto backing = std::make_unique<SimDeviceBacking>(size_t{1} << 40);
  backing->events().set_logging(false);
  return std::make_unique<CachingAllocator>(std::move(backing), AllocatorConfig{});
}

Stream stream(uintptr_t id) { return Stream(reinterpret_cast<void*>(id), 0); }

// One stream, nothing else live: the pair the Python target is about.
void BM_AllocFreeCached(benchmark::State& state) {
  auto a = make_allocator();
  const auto size = static_cast<size_t>(state.range(0));
  a->try_deallocate(a->allocate(size, stream(0)));
  for (auto _ : state) {
    void* p = a->allocate(size, stream(0));
    benchmark::DoNotOptimize(p);
    a->try_deallocate(p);
  }
}
BENCHMARK(BM_AllocFreeCached)->Arg(512)->Arg(1 << 20)->Arg(8 << 20)->Arg(64 << 20);

// The same with 1000 live allocations of mixed sizes on 4 streams and their
// free pieces in the pools (deeper trees, a bigger pointer map).
void BM_AllocFreeCachedBusy(benchmark::State& state) {
  auto a = make_allocator();
  std::vector<void*> live;
  for (int i = 0; i < 2000; ++i) {
    live.push_back(a->allocate(512u * (1 + (i * 7919) % 40000), stream(i % 4)));
  }
  for (size_t i = 0; i < live.size(); i += 2) a->try_deallocate(live[i]);
  const size_t size = 1 << 20;
  a->try_deallocate(a->allocate(size, stream(0)));
  for (auto _ : state) {
    void* p = a->allocate(size, stream(0));
    benchmark::DoNotOptimize(p);
    a->try_deallocate(p);
  }
  for (size_t i = 1; i < live.size(); i += 2) a->try_deallocate(live[i]);
}
BENCHMARK(BM_AllocFreeCachedBusy);

// A block freed on stream 1 taken by stream 2 and back: the cross-stream path
// (two simulated event calls per take).
void BM_AllocFreeCrossStream(benchmark::State& state) {
  auto a = make_allocator();
  uintptr_t s = 1;
  for (auto _ : state) {
    void* p = a->allocate(1 << 20, stream(s));
    a->try_deallocate(p);
    s = 3 - s;
  }
}
BENCHMARK(BM_AllocFreeCrossStream);

void BM_MemoryAllocated(benchmark::State& state) {
  auto a = make_allocator();
  void* p = a->allocate(1000, stream(0));
  for (auto _ : state) benchmark::DoNotOptimize(a->memory_allocated());
  a->try_deallocate(p);
}
BENCHMARK(BM_MemoryAllocated);

void BM_HostAllocFreeCached(benchmark::State& state) {
  auto backing = std::make_unique<SimHostBacking>(size_t{1} << 40);
  backing->events().set_logging(false);
  HostCachingAllocator h(std::move(backing));
  h.try_free(h.allocate(1 << 20));
  for (auto _ : state) {
    void* p = h.allocate(1 << 20);
    benchmark::DoNotOptimize(p);
    h.try_free(p);
  }
}
BENCHMARK(BM_HostAllocFreeCached);

}  // namespace

BENCHMARK_MAIN();
