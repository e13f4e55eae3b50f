// The one per-device record of a bad index found by a GPU kernel.
//
// GPU kernels that take indices (gather/scatter and the index_* family, take,
// put, embedding, nll_loss/cross_entropy's class targets) must not wait for
// the host to check them, and must not assert on the device (that poisons the
// CUDA context for the rest of the process). Instead they skip the bad
// element (a gather reads zeros there, a scatter writes nothing) and record
// the first bad index in a small block of host-mapped pinned memory per
// device (`IndexErrorRecord`, allocated on first use, never freed: queued
// kernels may still write it). The host reads that block with a plain load,
// no synchronisation: after every synchronising call (synchronize(),
// Stream/Event.synchronize(), .item(), .tolist(), .cpu() and every
// device-to-host copy that waits), never at a later launch (that would raise
// it inside whichever op came next). A recorded error becomes one IndexError naming the
// op, the index, the dimension and its size, and the record is cleared: the
// process and the device keep working.
#pragma once

#include <cstdint>

namespace ember::cuda {

// Written by kernels (device side: runtime/device_error.cuh), read by the host.
// Several bad indices at once: one of them is kept (the fields may come
// from two racing threads; which one is unspecified).
struct IndexErrorRecord {
  int64_t flag;   // 1 once a kernel recorded a bad index
  int64_t index;  // the bad index as the user wrote it
  int64_t size;   // the size of the indexed dimension
  int64_t dim;    // the indexed dimension
  int64_t op;     // a `const char*` from intern_op_name(): the op's name
};

#if EMBER_WITH_CUDA
// The device-side address of `device`'s record (allocated on first use).
IndexErrorRecord* index_error_record(int device);
#endif

// A stable, never-freed copy of `name` that kernels may store in a record.
const char* intern_op_name(const char* name);

// Raises the IndexError a finished kernel on `device` recorded (if any) and
// clears it; a plain host load when there is none. No-op without CUDA, for
// device < 0, and for devices whose record was never allocated.
void check_index_errors(int device);
// check_index_errors for every device that has a record.
void check_all_index_errors();

}  // namespace ember::cuda
