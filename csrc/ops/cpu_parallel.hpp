// Parallel loops on the CPU: a small persistent pool of threads shared by the
// math kernels (elementwise ops, reductions). Work is split into contiguous
// ranges of at least `grain` items; the calling thread takes part.
//
// The loop runs serially when there is too little work, when it is called
// from inside another parallel loop, or when another thread's loop holds the
// pool (ember never waits for a busy pool). The first exception thrown by a
// piece is re-thrown in the caller after every piece has finished.
#pragma once

#include <cstdint>
#include <utility>

namespace ember::ops {

// Threads a parallel loop may use, the caller included (torch.get_num_threads).
int get_num_threads();
// At least 1; at most the machine's hardware threads.
void set_num_threads(int n);

namespace parallel_detail {
using RangeFn = void (*)(void* ctx, int64_t begin, int64_t end);
void parallel_for_impl(int64_t n, int64_t grain, RangeFn fn, void* ctx);
}  // namespace parallel_detail

// f(begin, end) over pieces of [0, n).
template <typename F>
void parallel_for(int64_t n, int64_t grain, F&& f) {
  if (n <= 0) return;
  if (n < 2 * grain || get_num_threads() == 1) {
    f(int64_t(0), n);
    return;
  }
  using Fn = std::remove_reference_t<F>;
  parallel_detail::parallel_for_impl(
      n, grain, [](void* ctx, int64_t b, int64_t e) { (*static_cast<Fn*>(ctx))(b, e); },
      const_cast<void*>(static_cast<const void*>(&f)));
}

// Elements per piece for elementwise loops: below twice this, one thread.
constexpr int64_t kElementwiseGrain = int64_t(1) << 17;

}  // namespace ember::ops
