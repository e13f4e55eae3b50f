// torch.nn.functional.linear: y = x @ weight^T + bias.
//
// x [*, in] is folded into one [M, in] matrix (a view when its strides allow,
// a copy otherwise) and multiplied by weight^T, which cuBLAS reads in place
// through its transpose flag. With a bias on the GPU the product is one
// addmm whose bias is added in cuBLASLt's epilogue (CUBLASLT_EPILOGUE_BIAS),
// so the output is written once; without it, one GEMM.
#pragma once

#include <optional>

#include "tensor/tensor.hpp"

namespace ember::ops {

// weight: [out, in] (or [in]: then y = x @ weight); bias: [out] or anything
// that broadcasts to the result (or undefined: none).
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias);

}  // namespace ember::ops
