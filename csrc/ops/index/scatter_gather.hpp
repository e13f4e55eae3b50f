// Indexing along one dimension: torch's gather and scatter (scatter_add,
// scatter_reduce's sum/prod/amax/amin), the two primitives that index_select,
// index_add/copy/fill/reduce, take, take_along_dim, put and masked_scatter are
// built from (python/ember/_composite_index.py passes them index tensors
// viewed with zero strides, so nothing is materialised).
//
// gather:   out[i][j][k] = self[i][index[i][j][k]][k]          (dim == 1)
// scatter_: self[i][index[i][j][k]][k] (op)= src[i][j][k]
// The iteration runs over index's shape; self is read through a view with
// index's sizes, self's strides and stride 0 along `dim`, plus index *
// self.stride(dim) -- int64 offsets throughout, any strides, one pass.
//
// Index checks (docs/design/ops_index.md): on the CPU every index is checked
// before anything is written and a bad one raises torch's error for the op
// (`IndexRule::message`). On the GPU nothing waits for the host: a bad index
// is skipped (gather writes zero there, scatter writes nothing) and recorded
// in the device's IndexErrorRecord (runtime/device_error.hpp), which the host
// turns into an IndexError at the next synchronising call.
//
// Duplicates: the CPU loops run in index order (deterministic; with plain
// scatter the last write wins). The GPU uses atomics for the reductions
// (native atomicAdd for floating types, int32 and int64; compare-and-swap
// loops otherwise); plain scatter with duplicates keeps one of the values.
#pragma once

#include <cstdint>
#include <optional>

#include "tensor/tensor.hpp"

namespace ember::ops {

enum class ScatterReduce : int { None = 0, Add = 1, Mul = 2, Max = 3, Min = 4 };

// Which CPU error a bad index raises (each is torch's wording for its ops).
enum class IndexMessage : int {
  Bounds = 0,         // RuntimeError "index 5 is out of bounds for dimension 1 with size 3"
  Data = 1,           // RuntimeError, index_select's "INDICES element is out of DATA bounds ..."
  IndexBounds = 2,    // IndexError "index 5 is out of bounds for dimension 1 with size 3"
  OpIndexBounds = 3,  // IndexError "op(): index 5 is out of bounds for dimension 1 with size 3"
  Self = 4,           // IndexError "index out of range in self"
  Flat = 5,           // IndexError "out of range: tried to access index 6 on a tensor of 6 elements."
};

struct IndexRule {
  const char* op = "gather";  // the op's name, for messages (interned for the GPU record)
  bool wrap = false;          // negative indices count from the end of the dim
  IndexMessage message = IndexMessage::Bounds;
};

// index: int64 (int32 is converted) on self's device, with self's number of
// dims (a 0-d and a 1-d tensor count as one dim), index.size(d) <=
// self.size(d) for d != dim. The result has index's shape and self's dtype;
// `out` (when defined) must have that shape and dtype and is written instead.
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, const IndexRule& rule,
              const Tensor& out = Tensor());

// In place. src has self's dtype and index.size(d) <= src.size(d) (its
// leading corner is read); with `src_is_value` src is a 0-d tensor written
// at every index. Reductions combine with self's current values (the caller
// resets the targets first for include_self=False).
void scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
              ScatterReduce reduce, const IndexRule& rule, bool src_is_value = false);

// Checks that every element of `index` (any integer dtype) lies in [0, size)
// ([-size, size) with rule.wrap), except those equal to `ignore`: on the CPU
// raises rule's error, on the GPU records a bad one (no host wait). Used for
// nll_loss / cross_entropy's class targets.
void check_index_range(const Tensor& index, int64_t size, int64_t dim,
                       std::optional<int64_t> ignore, const IndexRule& rule);

// masked_fill's one-pass GPU path: out = where(mask, value, self) for a contiguous
// CUDA self, `out` contiguous with self's shape and dtype (self itself for the in-place
// form), a bool mask on self's device that is contiguous and broadcasts over self's
// leading dims only (mask index = element index % mask.numel()), and a 0-d value of
// self's dtype on self's device. Returns false (nothing written) for any other case:
// the caller then takes `where`.
bool masked_fill_fast(const Tensor& out, const Tensor& self, const Tensor& mask,
                      const Tensor& value);

// The error a bad index `k` raises on the CPU under `rule`.
[[noreturn]] void throw_index_error(const IndexRule& rule, int64_t k, int64_t dim, int64_t size);

namespace internal {
#if EMBER_WITH_CUDA
// Over IterLayouts of index's shape: (out, self viewed, index) and (self
// viewed, index, src viewed); stride is self.stride(dim) in elements.
void gather_dim_cuda(const Tensor& out, const Tensor& self_v, const Tensor& index, int64_t size,
                     int64_t stride, int64_t dim, const IndexRule& rule);
void scatter_dim_cuda(const Tensor& self_v, const Tensor& index, const Tensor& src_v,
                      int64_t size, int64_t stride, int64_t dim, ScatterReduce reduce,
                      const IndexRule& rule);
void check_index_range_cuda(const Tensor& index, int64_t size, int64_t dim,
                            std::optional<int64_t> ignore, const IndexRule& rule);
// Fast paths (contiguous tensors; chosen by gather / scatter_ in scatter_gather.cpp).
// Row copy: out viewed [outer, n, inner] <- self viewed [outer, size, inner] at rows
// idx[j * idx_stride] (index_select and every gather whose index is one vector viewed
// with zero strides over the other dims); a bad row reads zeros.
void index_rows_cuda(const Tensor& out, const Tensor& self, const Tensor& index,
                     int64_t idx_stride, int64_t outer, int64_t n, int64_t size, int64_t inner,
                     int64_t dim, const IndexRule& rule);
// Along the last dim, out / self / index (and src) contiguous, index's leading sizes
// equal to self's: element i of index is in row i / index.size(-1) of self.
void gather_last_cuda(const Tensor& out, const Tensor& self, const Tensor& index,
                      int64_t size, int64_t dim, const IndexRule& rule);
void scatter_last_cuda(const Tensor& self, const Tensor& index, const Tensor& src,
                       int64_t size, int64_t dim, ScatterReduce reduce, const IndexRule& rule);
void masked_fill_cuda(const Tensor& out, const Tensor& self, const Tensor& mask,
                      const Tensor& value);
#endif
}  // namespace internal

}  // namespace ember::ops
