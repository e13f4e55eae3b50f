#include "ops/cublas_gemm.hpp"

#if EMBER_WITH_CUDA

#include <climits>

#include "ops/cublas_handle.hpp"
#include "ops/matmul_config.hpp"
#include "runtime/errors.hpp"

namespace ember::ops::blas {

namespace {

struct Types {
  cudaDataType data;
  cublasComputeType_t compute;
  cudaDataType scale;  // the type of alpha and beta
  cublasMath_t math;
};

Types types_for(ScalarType t) {
  switch (t) {
    case ScalarType::Float32:
      return {CUDA_R_32F, allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
              CUDA_R_32F, CUBLAS_DEFAULT_MATH};
    case ScalarType::Float64:
      return {CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F, CUBLAS_DEFAULT_MATH};
    case ScalarType::Float16:
      return {CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F,
              allow_fp16_reduced_precision_reduction()
                  ? CUBLAS_DEFAULT_MATH
                  : static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH |
                                              CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)};
    case ScalarType::BFloat16:
      return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F,
              allow_bf16_reduced_precision_reduction()
                  ? CUBLAS_DEFAULT_MATH
                  : static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH |
                                              CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)};
    default:
      break;
  }
  throw Error(detail::str("cuBLAS products support float32, float64, float16 and bfloat16, not ",
                          dtype_name(t)));
}

// alpha and beta in the scale type: float or double.
struct Scale {
  float f[2];
  double d[2];
  const void* alpha(cudaDataType t) const { return t == CUDA_R_64F ? (const void*)&d[0] : &f[0]; }
  const void* beta(cudaDataType t) const { return t == CUDA_R_64F ? (const void*)&d[1] : &f[1]; }
};

Scale scale_of(const Gemm& g) {
  return Scale{{static_cast<float>(g.alpha), static_cast<float>(g.beta)}, {g.alpha, g.beta}};
}

cublasOperation_t op(bool trans) { return trans ? CUBLAS_OP_T : CUBLAS_OP_N; }

bool fits_int(int64_t v) { return v <= INT_MAX; }

bool needs_64(const Gemm& g) {
  return !(fits_int(g.m) && fits_int(g.n) && fits_int(g.k) && fits_int(g.a.ld) &&
           fits_int(g.b.ld) && fits_int(g.ldc) && fits_int(g.batch));
}

}  // namespace

void gemm(int device, const Gemm& g) {
  const Types ty = types_for(g.dtype);
  const CublasContext ctx = cublas_context(device);
  set_math_mode(ctx, device, ty.math);
  const Scale s = scale_of(g);
  const CublasApi& api = *ctx.api;
  if (g.batch == 1 && !needs_64(g)) {
    EMBER_CUBLAS_CHECK(api.cublasGemmEx(
        ctx.handle, op(g.a.trans), op(g.b.trans), int(g.m), int(g.n), int(g.k),
        s.alpha(ty.scale), g.a.ptr, ty.data, int(g.a.ld), g.b.ptr, ty.data, int(g.b.ld),
        s.beta(ty.scale), g.c, ty.data, int(g.ldc), ty.compute, CUBLAS_GEMM_DEFAULT));
  } else if (g.batch == 1) {
    EMBER_CUBLAS_CHECK(api.cublasGemmEx_64(
        ctx.handle, op(g.a.trans), op(g.b.trans), g.m, g.n, g.k, s.alpha(ty.scale), g.a.ptr,
        ty.data, g.a.ld, g.b.ptr, ty.data, g.b.ld, s.beta(ty.scale), g.c, ty.data, g.ldc,
        ty.compute, CUBLAS_GEMM_DEFAULT));
  } else if (!needs_64(g)) {
    EMBER_CUBLAS_CHECK(api.cublasGemmStridedBatchedEx(
        ctx.handle, op(g.a.trans), op(g.b.trans), int(g.m), int(g.n), int(g.k),
        s.alpha(ty.scale), g.a.ptr, ty.data, int(g.a.ld), g.a.batch_stride, g.b.ptr, ty.data,
        int(g.b.ld), g.b.batch_stride, s.beta(ty.scale), g.c, ty.data, int(g.ldc), g.stride_c,
        int(g.batch), ty.compute, CUBLAS_GEMM_DEFAULT));
  } else {
    EMBER_CUBLAS_CHECK(api.cublasGemmStridedBatchedEx_64(
        ctx.handle, op(g.a.trans), op(g.b.trans), g.m, g.n, g.k, s.alpha(ty.scale), g.a.ptr,
        ty.data, g.a.ld, g.a.batch_stride, g.b.ptr, ty.data, g.b.ld, g.b.batch_stride,
        s.beta(ty.scale), g.c, ty.data, g.ldc, g.stride_c, g.batch, ty.compute,
        CUBLAS_GEMM_DEFAULT));
  }
}

bool gemm_bias(int device, const Gemm& g, const void* bias) {
  EMBER_CHECK(g.beta == 0.0 && g.batch == 1, "gemm_bias takes beta = 0 and one matrix");
  const Types ty = types_for(g.dtype);
  const CublasContext ctx = cublas_context(device);
  const CublasApi& api = *ctx.api;
  const Scale s = scale_of(g);

  struct Desc {
    const CublasApi& api;
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
    cublasLtMatmulPreference_t pref = nullptr;
    ~Desc() {
      if (pref) api.cublasLtMatmulPreferenceDestroy(pref);
      if (c) api.cublasLtMatrixLayoutDestroy(c);
      if (b) api.cublasLtMatrixLayoutDestroy(b);
      if (a) api.cublasLtMatrixLayoutDestroy(a);
      if (desc) api.cublasLtMatmulDescDestroy(desc);
    }
  } d{api};

  EMBER_CUBLAS_CHECK(api.cublasLtMatmulDescCreate(&d.desc, ty.compute, ty.scale));
  const cublasOperation_t ta = op(g.a.trans), tb = op(g.b.trans);
  const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
  EMBER_CUBLAS_CHECK(api.cublasLtMatmulDescSetAttribute(d.desc, CUBLASLT_MATMUL_DESC_TRANSA,
                                                        &ta, sizeof(ta)));
  EMBER_CUBLAS_CHECK(api.cublasLtMatmulDescSetAttribute(d.desc, CUBLASLT_MATMUL_DESC_TRANSB,
                                                        &tb, sizeof(tb)));
  EMBER_CUBLAS_CHECK(api.cublasLtMatmulDescSetAttribute(d.desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                                        &epilogue, sizeof(epilogue)));
  EMBER_CUBLAS_CHECK(api.cublasLtMatmulDescSetAttribute(
      d.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
  const uint64_t a_rows = g.a.trans ? g.k : g.m, a_cols = g.a.trans ? g.m : g.k;
  const uint64_t b_rows = g.b.trans ? g.n : g.k, b_cols = g.b.trans ? g.k : g.n;
  EMBER_CUBLAS_CHECK(api.cublasLtMatrixLayoutCreate(&d.a, ty.data, a_rows, a_cols, g.a.ld));
  EMBER_CUBLAS_CHECK(api.cublasLtMatrixLayoutCreate(&d.b, ty.data, b_rows, b_cols, g.b.ld));
  EMBER_CUBLAS_CHECK(api.cublasLtMatrixLayoutCreate(&d.c, ty.data, g.m, g.n, g.ldc));
  EMBER_CUBLAS_CHECK(api.cublasLtMatmulPreferenceCreate(&d.pref));
  const uint64_t ws = ctx.workspace_size;
  EMBER_CUBLAS_CHECK(api.cublasLtMatmulPreferenceSetAttribute(
      d.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)));

  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t hs = api.cublasLtMatmulAlgoGetHeuristic(ctx.lt, d.desc, d.a, d.b, d.c,
                                                               d.c, d.pref, 1, &result, &found);
  // No algorithm (NOT_SUPPORTED, or a dtype the epilogue lacks): the caller
  // falls back to copying the bias and one cublasGemmEx.
  if (hs != CUBLAS_STATUS_SUCCESS || found == 0) return false;
  EMBER_CUBLAS_CHECK(api.cublasLtMatmul(ctx.lt, d.desc, s.alpha(ty.scale), g.a.ptr, d.a, g.b.ptr,
                                        d.b, s.beta(ty.scale), g.c, d.c, g.c, d.c,
                                        &result.algo, ctx.workspace, ctx.workspace_size,
                                        ctx.stream));
  return true;
}

}  // namespace ember::ops::blas

#endif  // EMBER_WITH_CUDA
