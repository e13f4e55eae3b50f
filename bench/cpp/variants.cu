// Experiments behind two of ember's choices, run on the GPU machine:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Icsrc bench/cpp/variants.cu -lcublas -lcublasLt -o /tmp/variants
// 1. Which cuBLAS entry point picks the fastest kernel for float32 products (tf32 on/off,
//    transposed operands, strided batches): cublasGemmEx with a compute type, cublasSgemm
//    with the handle's math mode (torch's call), or cublasLtMatmul's first heuristic.
// 2. What each step of ember's bit-reproducible Box-Muller costs (randn into 1 GiB).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <cmath>
#include <cstdio>
#include <vector>

#include "ops/random/random_math.hpp"

#define CK(x)                                                                  \
  do {                                                                         \
    auto e_ = (x);                                                             \
    if ((int)e_ != 0) { printf("%s:%d error %d\n", __FILE__, __LINE__, (int)e_); exit(1); } \
  } while (0)

template <typename F>
float time_ms(F f, int reps = 20) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> ts;
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    ts.push_back(ms);
  }
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}

void gemm_variants(cublasHandle_t h, cublasLtHandle_t lt, void* ws, size_t wsz) {
  const int n = 4096;
  float *A, *B, *C;
  CK(cudaMalloc(&A, sizeof(float) * n * n * 4));
  CK(cudaMalloc(&B, sizeof(float) * n * n * 4));
  CK(cudaMalloc(&C, sizeof(float) * n * n * 4));
  cudaMemset(A, 0, sizeof(float) * n * n * 4);
  cudaMemset(B, 0, sizeof(float) * n * n * 4);
  const float one = 1, zero = 0;
  struct Case { const char* name; int m, nn, k, batch; bool tf32; };
  const Case cases[] = {{"4096^3 tf32", n, n, n, 1, true},
                        {"4096^3 fp32", n, n, n, 1, false},
                        {"bmm 64x512^3 fp32", 512, 512, 512, 64, false},
                        {"bmm 64x512^3 tf32", 512, 512, 512, 64, true}};
  for (const Case& c : cases) {
    for (int ta = 0; ta < 2; ++ta) {
      for (int tb = 0; tb < 2; ++tb) {
        const cublasOperation_t oa = ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                                ob = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
        const int lda = ta ? c.k : c.m, ldb = tb ? c.nn : c.k;
        const long long sa = (long long)c.m * c.k, sb = (long long)c.k * c.nn,
                        sc = (long long)c.m * c.nn;
        const double flop = 2.0 * c.m * c.nn * c.k * c.batch;
        // (1) GemmEx with a compute type, default math mode
        CK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
        const cublasComputeType_t ct = c.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
        float t1 = time_ms([&] {
          if (c.batch == 1)
            cublasGemmEx(h, oa, ob, c.m, c.nn, c.k, &one, A, CUDA_R_32F, lda, B, CUDA_R_32F, ldb,
                         &zero, C, CUDA_R_32F, c.m, ct, CUBLAS_GEMM_DEFAULT);
          else
            cublasGemmStridedBatchedEx(h, oa, ob, c.m, c.nn, c.k, &one, A, CUDA_R_32F, lda, sa, B,
                                       CUDA_R_32F, ldb, sb, &zero, C, CUDA_R_32F, c.m, sc,
                                       c.batch, ct, CUBLAS_GEMM_DEFAULT);
        });
        // (2) torch's call: Sgemm with the handle's math mode
        CK(cublasSetMathMode(h, c.tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
        float t2 = time_ms([&] {
          if (c.batch == 1)
            cublasSgemm(h, oa, ob, c.m, c.nn, c.k, &one, A, lda, B, ldb, &zero, C, c.m);
          else
            cublasSgemmStridedBatched(h, oa, ob, c.m, c.nn, c.k, &one, A, lda, sa, B, ldb, sb,
                                      &zero, C, c.m, sc, c.batch);
        });
        CK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
        // (3) cublasLt, first heuristic
        cublasLtMatmulDesc_t d;
        CK(cublasLtMatmulDescCreate(&d, ct, CUDA_R_32F));
        CK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &oa, sizeof(oa)));
        CK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &ob, sizeof(ob)));
        cublasLtMatrixLayout_t la, lb, lc;
        CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, ta ? c.k : c.m, ta ? c.m : c.k, lda));
        CK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, tb ? c.nn : c.k, tb ? c.k : c.nn, ldb));
        CK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, c.m, c.nn, c.m));
        if (c.batch > 1) {
          int32_t bc = c.batch;
          for (auto [l, s] : {std::pair{la, sa}, {lb, sb}, {lc, sc}}) {
            CK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &bc, sizeof(bc)));
            int64_t st = s;
            CK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &st, sizeof(st)));
          }
        }
        cublasLtMatmulPreference_t pref;
        CK(cublasLtMatmulPreferenceCreate(&pref));
        CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsz, sizeof(wsz)));
        cublasLtMatmulHeuristicResult_t res[8];
        int got = 0;
        CK(cublasLtMatmulAlgoGetHeuristic(lt, d, la, lb, lc, lc, pref, 8, res, &got));
        float t3 = 1e9, t3b = 1e9;
        int best = -1;
        for (int i = 0; i < got; ++i) {
          float t = time_ms([&] {
            cublasLtMatmul(lt, d, &one, A, la, B, lb, &zero, C, lc, C, lc, &res[i].algo, ws, wsz, 0);
          }, 10);
          if (i == 0) t3 = t;
          if (t < t3b) { t3b = t; best = i; }
        }
        printf("%-20s %c%c  GemmEx %7.1f  Sgemm %7.1f  Lt[0] %7.1f  Lt best %7.1f (#%d of %d) TFLOP/s\n",
               c.name, ta ? 'T' : 'N', tb ? 'T' : 'N', flop / t1 / 1e9, flop / t2 / 1e9,
               flop / t3 / 1e9, flop / t3b / 1e9, best, got);
        cublasLtMatmulPreferenceDestroy(pref);
        cublasLtMatrixLayoutDestroy(la);
        cublasLtMatrixLayoutDestroy(lb);
        cublasLtMatrixLayoutDestroy(lc);
        cublasLtMatmulDescDestroy(d);
      }
    }
  }
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
}

// ---- randn variants ---------------------------------------------------------------------
template <int V>
__device__ void pair(float u1, float u2, float* out) {
  using namespace ember::rnd;
  float r, s, c;
  if (V == 0) {  // ember: own log, sqrt_rn, own sincos
    r = sqrt_(mul(-2.0f, log_(u1)));
    sincos_2pi(u2, s, c);
  } else if (V == 1) {  // CUDA logf, own sincos
    r = sqrtf(-2.0f * logf(u1));
    sincos_2pi(u2, s, c);
  } else if (V == 2) {  // own log, __sincosf
    r = sqrt_(mul(-2.0f, log_(u1)));
    __sincosf(u2 * 6.2831853f, &s, &c);
  } else if (V == 3) {  // curand's: logf + __sincosf
    r = sqrtf(-2.0f * logf(u1));
    __sincosf(u2 * 6.2831853f, &s, &c);
  } else {  // no transcendental: Philox + store only
    r = u1; s = u2; c = u1 + u2;
  }
  out[0] = r * c;
  out[1] = r * s;
}

template <int V>
__global__ void randn_kernel(float4* out, int64_t blocks, uint64_t seed) {
  for (int64_t b = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; b < blocks;
       b += (int64_t)gridDim.x * blockDim.x) {
    const auto w = ember::philox::block(seed, b);
    float v[4];
    using ember::rnd::uniform_float;
    pair<V>(1.0f - uniform_float<24>(w.w[0]), uniform_float<24>(w.w[1]), v);
    pair<V>(1.0f - uniform_float<24>(w.w[2]), uniform_float<24>(w.w[3]), v + 2);
    out[b] = make_float4(v[0], v[1], v[2], v[3]);
  }
}

template <int V>
void randn_variant(const char* name, float4* out, int64_t blocks) {
  int per_sm = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, randn_kernel<V>, 256, 0);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const float ms = time_ms([&] { randn_kernel<V><<<per_sm * sms, 256>>>(out, blocks, 42); });
  printf("randn 1 GiB %-28s %7.0f GB/s\n", name, blocks * 16.0 / ms / 1e6);
}

int main(int argc, char** argv) {
  cublasHandle_t h;
  cublasLtHandle_t lt;
  CK(cublasCreate(&h));
  CK(cublasLtCreate(&lt));
  void* ws;
  size_t wsz = 32u << 20;
  CK(cudaMalloc(&ws, wsz));
  CK(cublasSetWorkspace(h, ws, wsz));
  if (argc < 2 || std::string(argv[1]) != "randn") gemm_variants(h, lt, ws, wsz);
  float4* out;
  const int64_t blocks = (1ll << 30) / 16;
  CK(cudaMalloc(&out, blocks * 16));
  randn_variant<0>("ember (own log/sincos, rn)", out, blocks);
  randn_variant<1>("logf + own sincos", out, blocks);
  randn_variant<2>("own log + __sincosf", out, blocks);
  randn_variant<3>("logf + __sincosf (curand)", out, blocks);
  randn_variant<4>("philox + store only", out, blocks);
  return 0;
}
