#include "ops/blas/cublas_gemm.hpp"

#if EMBER_WITH_CUDA

#include <climits>
#include <cstring>
#include <memory>
#include <unordered_map>

#include "ops/blas/cublas_handle.hpp"
#include "ops/blas/matmul_config.hpp"
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
    // Complex products: cuComplex / cuDoubleComplex data, scales and
    // accumulation (IEEE, no TF32: as torch's default).
    case ScalarType::ComplexFloat:
      return {CUDA_C_32F, CUBLAS_COMPUTE_32F, CUDA_C_32F, CUBLAS_DEFAULT_MATH};
    case ScalarType::ComplexDouble:
      return {CUDA_C_64F, CUBLAS_COMPUTE_64F, CUDA_C_64F, CUBLAS_DEFAULT_MATH};
    default:
      break;
  }
  throw Error(detail::str("cuBLAS products support float32, float64, float16, bfloat16, "
                          "complex64 and complex128, not ", dtype_name(t)));
}

// alpha and beta in the scale type: float or double, each as {re, im} (a real
// scale type reads the first; the imaginary parts are 0: ops/blas/matmul.cpp
// applies complex scales itself).
struct Scale {
  float f[2][2];
  double d[2][2];
  bool wide(cudaDataType t) const { return t == CUDA_R_64F || t == CUDA_C_64F; }
  const void* alpha(cudaDataType t) const { return wide(t) ? (const void*)d[0] : f[0]; }
  const void* beta(cudaDataType t) const { return wide(t) ? (const void*)d[1] : f[1]; }
};

Scale scale_of(const Gemm& g) {
  return Scale{{{static_cast<float>(g.alpha), 0.0f}, {static_cast<float>(g.beta), 0.0f}},
               {{g.alpha, 0.0}, {g.beta, 0.0}}};
}

cublasOperation_t op(bool trans) { return trans ? CUBLAS_OP_T : CUBLAS_OP_N; }

bool fits_int(int64_t v) { return v <= INT_MAX; }

bool needs_64(const Gemm& g) {
  return !(fits_int(g.m) && fits_int(g.n) && fits_int(g.k) && fits_int(g.a.ld) &&
           fits_int(g.b.ld) && fits_int(g.ldc) && fits_int(g.batch));
}

}  // namespace

void gemm(int device, const Gemm& g) {
  if (gemm_small(device, g)) return;
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

// ---- cuBLASLt with cached plans -------------------------------------------------------
// A plan (descriptor, layouts, the heuristic's algorithm) per problem: shape,
// transposes, leading dimensions, dtype, compute type, epilogue and the
// alignment of every pointer. Made once per thread and device (descriptors are
// plain host objects; a thread's cache needs no lock) and reused, so a small
// product costs one cublasLtMatmul call instead of a descriptor build and a
// heuristic query. A full cache is emptied (problems in a loop repeat).

namespace {

// The problem as 16 integers (no padding: compared and hashed as bytes).
struct LtKey {
  int64_t v[16];
  bool operator==(const LtKey& o) const { return std::memcmp(v, o.v, sizeof(v)) == 0; }
};

struct LtKeyHash {
  size_t operator()(const LtKey& k) const noexcept {
    size_t h = 1469598103934665603ull;
    for (int64_t x : k.v) h = (h ^ static_cast<size_t>(x)) * 1099511628211ull;
    return h;
  }
};

struct LtPlan {
  const CublasApi* api = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo{};
  bool ok = false;  // the heuristic found an algorithm
  LtPlan() = default;
  LtPlan(const LtPlan&) = delete;
  LtPlan& operator=(const LtPlan&) = delete;
  ~LtPlan() {
    if (!api) return;
    if (c) api->cublasLtMatrixLayoutDestroy(c);
    if (b) api->cublasLtMatrixLayoutDestroy(b);
    if (a) api->cublasLtMatrixLayoutDestroy(a);
    if (desc) api->cublasLtMatmulDescDestroy(desc);
  }
};

constexpr size_t kMaxLtPlans = 256;

int alignment(const void* p) {
  const uintptr_t v = reinterpret_cast<uintptr_t>(p);
  int a = 1;
  while (a < 256 && v % (2 * a) == 0) a *= 2;
  return a;
}

// Indices into LtKey::v.
enum : int { kEpilogue = 3, kTransA = 10, kTransB = 11, kAlignA = 12, kAlignB, kAlignC, kAlignBias };

LtKey lt_key(int device, const Gemm& g, const Types& ty, const void* bias) {
  return LtKey{{device, static_cast<int64_t>(g.dtype), static_cast<int64_t>(ty.compute),
                bias != nullptr, g.m, g.n, g.k, g.a.ld, g.b.ld, g.ldc, g.a.trans, g.b.trans,
                alignment(g.a.ptr), alignment(g.b.ptr), alignment(g.c),
                bias != nullptr ? alignment(bias) : 0}};
}

void build_plan(LtPlan& p, const CublasContext& ctx, const LtKey& key, const Gemm& g,
                const Types& ty) {
  const CublasApi& api = *ctx.api;
  p.api = &api;
  EMBER_CUBLAS_CHECK(api.cublasLtMatmulDescCreate(&p.desc, ty.compute, ty.scale));
  const cublasOperation_t ta = op(g.a.trans), tb = op(g.b.trans);
  EMBER_CUBLAS_CHECK(api.cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSA,
                                                        &ta, sizeof(ta)));
  EMBER_CUBLAS_CHECK(api.cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSB,
                                                        &tb, sizeof(tb)));
  if (key.v[kEpilogue]) {
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    EMBER_CUBLAS_CHECK(api.cublasLtMatmulDescSetAttribute(
        p.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)));
  }
  const uint64_t a_rows = g.a.trans ? g.k : g.m, a_cols = g.a.trans ? g.m : g.k;
  const uint64_t b_rows = g.b.trans ? g.n : g.k, b_cols = g.b.trans ? g.k : g.n;
  EMBER_CUBLAS_CHECK(api.cublasLtMatrixLayoutCreate(&p.a, ty.data, a_rows, a_cols, g.a.ld));
  EMBER_CUBLAS_CHECK(api.cublasLtMatrixLayoutCreate(&p.b, ty.data, b_rows, b_cols, g.b.ld));
  EMBER_CUBLAS_CHECK(api.cublasLtMatrixLayoutCreate(&p.c, ty.data, g.m, g.n, g.ldc));
  struct Pref {
    const CublasApi& api;
    cublasLtMatmulPreference_t p = nullptr;
    ~Pref() {
      if (p) api.cublasLtMatmulPreferenceDestroy(p);
    }
  } pref{api};
  EMBER_CUBLAS_CHECK(api.cublasLtMatmulPreferenceCreate(&pref.p));
  const uint64_t ws = ctx.workspace_size;
  EMBER_CUBLAS_CHECK(api.cublasLtMatmulPreferenceSetAttribute(
      pref.p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)));
  // Only algorithms that work with these pointers' alignment (the default assumes 256 bytes).
  const cublasLtMatmulPreferenceAttributes_t align_attr[3] = {
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES};
  for (int i = 0; i < 3; ++i) {
    const uint32_t a = static_cast<uint32_t>(key.v[kAlignA + i]);
    EMBER_CUBLAS_CHECK(api.cublasLtMatmulPreferenceSetAttribute(pref.p, align_attr[i], &a, sizeof(a)));
  }
  const uint32_t align_d = static_cast<uint32_t>(key.v[kAlignC]);
  EMBER_CUBLAS_CHECK(api.cublasLtMatmulPreferenceSetAttribute(
      pref.p, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align_d, sizeof(align_d)));
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t hs = api.cublasLtMatmulAlgoGetHeuristic(ctx.lt, p.desc, p.a, p.b, p.c,
                                                               p.c, pref.p, 1, &result, &found);
  p.ok = hs == CUBLAS_STATUS_SUCCESS && found > 0;
  if (p.ok) p.algo = result.algo;
}

// Runs g through a cached plan; false when cuBLASLt has no algorithm for it.
bool lt_matmul(int device, const Gemm& g, const void* bias) {
  const Types ty = types_for(g.dtype);
  const CublasContext ctx = cublas_context(device);
  const LtKey key = lt_key(device, g, ty, bias);
  thread_local std::unordered_map<LtKey, std::unique_ptr<LtPlan>, LtKeyHash> plans;
  auto it = plans.find(key);
  if (it == plans.end()) {
    if (plans.size() >= kMaxLtPlans) plans.clear();
    auto plan = std::make_unique<LtPlan>();
    build_plan(*plan, ctx, key, g, ty);
    it = plans.emplace(key, std::move(plan)).first;
  }
  LtPlan& p = *it->second;
  if (!p.ok) return false;
  const CublasApi& api = *ctx.api;
  if (bias != nullptr) {
    EMBER_CUBLAS_CHECK(api.cublasLtMatmulDescSetAttribute(
        p.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
  }
  const Scale s = scale_of(g);
  EMBER_CUBLAS_CHECK(api.cublasLtMatmul(ctx.lt, p.desc, s.alpha(ty.scale), g.a.ptr, p.a, g.b.ptr,
                                        p.b, s.beta(ty.scale), g.c, p.c, g.c, p.c, &p.algo,
                                        ctx.workspace, ctx.workspace_size, ctx.stream));
  return true;
}

}  // namespace

bool gemm_bias(int device, const Gemm& g, const void* bias) {
  EMBER_CHECK(g.beta == 0.0 && g.batch == 1, "gemm_bias takes beta = 0 and one matrix");
  // No algorithm (NOT_SUPPORTED, or a dtype the epilogue lacks): the caller
  // falls back to copying the bias and one cublasGemmEx.
  return lt_matmul(device, g, bias);
}

bool gemm_small(int device, const Gemm& g) {
  if (g.batch != 1 || needs_64(g) || g.m * g.n * g.k > kSmallGemm) return false;
  if (g.dtype != ScalarType::Float32 && g.dtype != ScalarType::Float64) return false;
  return lt_matmul(device, g, nullptr);
}

}  // namespace ember::ops::blas

#endif  // EMBER_WITH_CUDA
