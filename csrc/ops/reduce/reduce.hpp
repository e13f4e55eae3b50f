// Reductions over all elements or over some dims (negative dims wrap;
// keepdim keeps them with size 1): sum, prod, mean, amax/amin, max/min with
// indices, argmax/argmin, var/std (correction), norm (p = 0, 1, 2, inf,
// -inf, any other p), all/any, count_nonzero, logsumexp.
//
// Result dtypes as torch: sum/prod of bool and integers give int64, mean,
// var, std and norm need floating inputs, logsumexp gives the default dtype
// for integers, all/any give bool (uint8 for uint8), arg* give int64;
// dtype= converts the input first. float16/bfloat16 accumulate in float32,
// float32 in float32 with a tree order (pairwise on the CPU; on the GPU each
// thread adds at most 64 vectors serially before the tree), float64 in
// float64, integers in int64 (wrapping).
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "tensor/tensor.hpp"

namespace ember::ops {

enum class ReduceOp : uint8_t {
  Sum, Prod, Mean, Amax, Amin, ArgMax, ArgMin, Var, Std, Norm, All, Any, LogSumExp,
};

// The dims argument: nullopt (or an empty list with all_if_empty) reduces
// everything.
using Dims = std::optional<std::vector<int64_t>>;

struct ReduceArgs {
  double p = 2.0;           // norm
  double correction = 1.0;  // var/std
  // Results in this dtype instead of torch's (internal: softmax keeps its
  // logsumexp in float32 for float16 inputs).
  std::optional<ScalarType> result_dtype;
  // logsumexp gives log(sum(exp(x - max))) without max (internal: softmax).
  bool lse_relative = false;
};

Tensor reduce(ReduceOp op, const Tensor& x, const Dims& dims, bool keepdim,
              std::optional<ScalarType> dtype = std::nullopt, const ReduceArgs& args = {},
              const Tensor& out = Tensor());

// max/min over one dim: (values, indices), NaN wins with its first index.
std::pair<Tensor, Tensor> max_min_dim(bool is_max, const Tensor& x, int64_t dim, bool keepdim);

inline Tensor sum(const Tensor& x, const Dims& dims = std::nullopt, bool keepdim = false,
                  std::optional<ScalarType> dtype = std::nullopt) {
  return reduce(ReduceOp::Sum, x, dims, keepdim, dtype);
}
inline Tensor mean(const Tensor& x, const Dims& dims = std::nullopt, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt) {
  return reduce(ReduceOp::Mean, x, dims, keepdim, dtype);
}
inline Tensor amax(const Tensor& x, const Dims& dims = std::nullopt, bool keepdim = false) {
  return reduce(ReduceOp::Amax, x, dims, keepdim);
}
Tensor count_nonzero(const Tensor& x, const Dims& dims = std::nullopt);

const char* reduce_name(ReduceOp op);

}  // namespace ember::ops
