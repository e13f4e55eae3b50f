// A kernel that keeps the GPU busy for a number of clock cycles, so tests and
// benchmarks can make ordering and concurrency between streams observable
// without tensors (torch.cuda._sleep). About 0.5 ms per million cycles on an
// H100 at 1.98 GHz; the rate follows the SM clock, so calibrate against events.
#pragma once

#include <cstdint>

#include "runtime/stream.hpp"

namespace ember::cuda {

#if EMBER_WITH_CUDA
// Queues one single-thread block on `s` that spins until `cycles` SM clock
// cycles (clock64) have passed. Returns at once; `cycles` must be >= 0.
void sleep_cycles(int64_t cycles, StreamView s);
#endif

}  // namespace ember::cuda
