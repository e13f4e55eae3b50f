// Views: new sizes/strides/offset over the same storage, never a copy. The
// operations that may copy (reshape, flatten, contiguous, clone) live in
// ops/copy/copy.hpp. Errors use torch's wording.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tensor/tensor.hpp"

namespace ember {

// view(shape) with at most one -1; RuntimeError when the strides do not allow it.
Tensor view(const Tensor& t, const Shape& shape);
// Like view, but returns an undefined Tensor instead of raising when the
// strides do not allow a view (reshape then copies). Shape errors still raise.
Tensor try_view(const Tensor& t, const Shape& shape);
// as_strided with a bounds check against the storage.
Tensor as_strided(const Tensor& t, const Shape& sizes, const Shape& strides,
                  std::optional<int64_t> offset = std::nullopt);

Tensor squeeze(const Tensor& t);
Tensor squeeze(const Tensor& t, const std::vector<int64_t>& dims);
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor permute(const Tensor& t, const std::vector<int64_t>& dims);
Tensor transpose(const Tensor& t, int64_t d0, int64_t d1);
Tensor t_2d(const Tensor& t);        // Tensor.t(): <= 2 dims
Tensor reverse_dims(const Tensor& t);  // Tensor.T
// Tensor.mT (name "mT") and Tensor.mH ("mH", the same for real dtypes): the
// last two dims swapped; the identity on 0-d tensors (torch 2.11).
Tensor matrix_transpose(const Tensor& t, const char* name = "mT");
Tensor movedim(const Tensor& t, const std::vector<int64_t>& src, const std::vector<int64_t>& dst);
Tensor expand(const Tensor& t, const Shape& sizes);
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
// Python slice semantics on one dim: start/stop are clamped, step > 0.
Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> stop, int64_t step);
// `index` wraps when negative; IndexError with torch's select() messages
// ("select(): index 5 out of range for tensor of size [3] at dimension 0").
// Indexing (x[5]) checks first and raises torch's indexing messages.
Tensor select(const Tensor& t, int64_t dim, int64_t index);
std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim);
std::vector<Tensor> split_with_sizes(const Tensor& t, const std::vector<int64_t>& sizes,
                                     int64_t dim);
std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim);
std::vector<Tensor> unbind(const Tensor& t, int64_t dim);
Tensor diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2);
// Reinterprets the bytes as another dtype of the same size (Tensor.view(dtype)).
Tensor view_dtype(const Tensor& t, ScalarType dtype);

}  // namespace ember
