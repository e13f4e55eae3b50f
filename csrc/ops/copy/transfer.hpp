// Host <-> device transfers of contiguous bytes, and the staging pipeline that
// makes pageable (NumPy) memory fast.
//
// Pageable memory cannot be read by the GPU's DMA engines; the driver stages it
// through its own small pinned buffer with one CPU thread. ember stages it
// itself: the bytes go through two or more pinned chunks (alloc_pinned) while
// several threads do the host-side memcpy of chunk k+1 as the DMA engine
// moves chunk k. A chunk is reused only after the event recorded behind its
// DMA has completed; nothing else waits on the host.
#pragma once

#include <cstddef>

#include "runtime/stream.hpp"

namespace ember::ops {

// Host -> device on `stream` (whose device owns `dst`). `src_pinned`: src is
// page-locked, so the copy is one cudaMemcpyAsync; with `non_blocking` the
// call then returns at once. Pageable sources go through the staging pipeline
// (or the driver for small copies) and the call returns once src may be reused
// (and, without non_blocking, once the copy has landed).
void copy_h2d(void* dst, const void* src, size_t nbytes, bool src_pinned, bool non_blocking,
              cuda::StreamView stream);

// Device -> host on `stream` (whose device owns `src`). Into pinned memory with
// `non_blocking` the call returns at once; every other case returns when dst
// holds the data.
void copy_d2h(void* dst, const void* src, size_t nbytes, bool dst_pinned, bool non_blocking,
              cuda::StreamView stream);

// memcpy on several threads for large copies (host memory only).
void parallel_memcpy(void* dst, const void* src, size_t nbytes);

// Frees the pinned staging chunks kept between transfers (see transfer.cpp).
void release_staging_buffers();

}  // namespace ember::ops
