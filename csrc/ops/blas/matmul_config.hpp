// Process-wide switches of the matrix products, with torch's semantics:
//
// - float32 matmul precision: "highest" (IEEE float32, the default), "high"
//   (TF32 tensor cores allowed) or "medium" (on CUDA the same as "high", as in
//   torch). ember.backends.cuda.matmul.allow_tf32 is a view of it: reading
//   gives precision != "highest"; writing True sets "high", False "highest".
// - allow_fp16/bf16_reduced_precision_reduction (default True, as torch):
//   whether cuBLAS may use reduced-precision reductions in float16/bfloat16
//   products (CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION when False).
//
// Each is one relaxed atomic: products read them on every call.
#pragma once

#include <string>

namespace ember::ops {

enum class MatmulPrecision : int { Highest = 0, High = 1, Medium = 2 };

MatmulPrecision float32_matmul_precision() noexcept;
void set_float32_matmul_precision(MatmulPrecision p) noexcept;
// "highest" | "high" | "medium"; ValueError naming the choices otherwise.
MatmulPrecision matmul_precision_from_name(const std::string& name);
const char* matmul_precision_name(MatmulPrecision p) noexcept;

inline bool allow_tf32() noexcept { return float32_matmul_precision() != MatmulPrecision::Highest; }
void set_allow_tf32(bool allow) noexcept;

bool allow_fp16_reduced_precision_reduction() noexcept;
void set_allow_fp16_reduced_precision_reduction(bool allow) noexcept;
bool allow_bf16_reduced_precision_reduction() noexcept;
void set_allow_bf16_reduced_precision_reduction(bool allow) noexcept;

}  // namespace ember::ops
