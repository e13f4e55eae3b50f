// ops/linalg/linalg.hpp's GPU cores: cuSOLVER's dense routines, looped over the
// batch, and the batched calls where they are faster for small matrices
// (cuBLAS getrfBatched/getrsBatched/geqrfBatched, cuSOLVER potrfBatched,
// syevjBatched, gesvdjBatched; torch's choices). Every info stays on the
// device: nothing here synchronises with the host. Operands are checked by
// linalg_cpu.cpp's callers (batched column-major, float32/float64).
#include "ops/linalg/linalg.hpp"
#include "ops/linalg/linalg_common.hpp"

#if EMBER_WITH_CUDA

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "ops/blas/cublas_handle.hpp"
#include "ops/copy/copy.hpp"
#include "ops/fill/fill.hpp"
#include "ops/linalg/cusolver_api.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "tensor/views.hpp"

namespace ember::ops::linalg::internal {

namespace {

using common::batch_count;
using common::batch_shape;
using common::real_dispatch;
using common::with;

// The float or double member of a cuSOLVER/cuBLAS pair.
#define EMBER_PICK(api, s, d)                                   \
  ([&]() {                                                      \
    if constexpr (std::is_same_v<T, double>) return (api).d;    \
    else return (api).s;                                        \
  }())
#define EMBER_SOLVER(name) EMBER_PICK(api, S##name, D##name)
#define EMBER_BLAS(name) EMBER_PICK(*blas.api, cublasS##name, cublasD##name)

int ld(int64_t rows) { return static_cast<int>(std::max<int64_t>(1, rows)); }

template <typename T>
T* ptr(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

void check_int(int64_t v, const char* fn) {
  EMBER_CHECK(v <= INT32_MAX, fn, ": matrices with more than 2^31 - 1 rows, columns or elements "
              "are not supported on the GPU");
}


// A device array of the batch's matrix pointers base + i * stride (elements
// of `elem` bytes), for cuBLAS/cuSOLVER's batched calls. Kept alive by the
// returned tensor (the caching allocator orders its reuse on the stream).
Tensor pointer_array(void* base, int64_t count, int64_t stride, size_t elem, const Device& dev) {
  Tensor host = Tensor::empty({count}, ScalarType::Int64, Device(DeviceType::CPU));
  int64_t* h = static_cast<int64_t*>(host.data_ptr());
  char* b = static_cast<char*>(base);
  for (int64_t i = 0; i < count; ++i) {
    h[i] = reinterpret_cast<int64_t>(b + static_cast<size_t>(i * stride) * elem);
  }
  return ops::to(host, dev, ScalarType::Int64);
}

template <typename T>
Tensor workspace(int lwork, const Device& dev) {
  return Tensor::empty({std::max(lwork, 1)}, sizeof(T) == 8 ? ScalarType::Float64
                                                            : ScalarType::Float32, dev);
}

Tensor int_tensor(const Shape& s, const Device& d) { return Tensor::empty(s, ScalarType::Int32, d); }

}  // namespace

bool cusolver_loaded() noexcept { return cusolver_api_loaded(); }

std::tuple<Tensor, Tensor> lu_factor_cuda(const Tensor& A) {
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), nb = batch_count(A);
  check_int(m * n, "lu_factor");
  const Device dev = A.device();
  cuda::DeviceGuard guard(dev.index);
  Tensor piv = int_tensor(with(batch_shape(A), {k}), dev);
  Tensor info = int_tensor(batch_shape(A), dev);
  if (k == 0 || nb == 0) {
    zero_(info);
    return {piv, info};
  }
  real_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    if (m == n && nb > 1 && n <= 128) {
      const blas::CublasContext blas = blas::cublas_context(dev.index);
      Tensor ptrs = pointer_array(A.data_ptr(), nb, n * n, sizeof(T), dev);
      EMBER_CUBLAS_CHECK(EMBER_BLAS(getrfBatched)(blas.handle, int(n), ptr<T*>(ptrs), ld(n),
                                                  ptr<int>(piv), ptr<int>(info), int(nb)));
      return;
    }
    const CusolverApi& api = cusolver_api();
    cusolverDnHandle_t h = cusolver_handle(dev.index);
    int lwork = 0;
    EMBER_CUSOLVER_CHECK(EMBER_SOLVER(getrf_bufferSize)(h, int(m), int(n), ptr<T>(A), ld(m), &lwork));
    Tensor work = workspace<T>(lwork, dev);
    for (int64_t b = 0; b < nb; ++b) {
      EMBER_CUSOLVER_CHECK(EMBER_SOLVER(getrf)(h, int(m), int(n), ptr<T>(A) + b * m * n, ld(m),
                                               ptr<T>(work), ptr<int>(piv) + b * k,
                                               ptr<int>(info) + b));
    }
  });
  return {piv, info};
}

void lu_solve_cuda(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool trans) {
  const int64_t n = LU.size(-1), nrhs = B.size(-1), nb = batch_count(LU);
  if (n == 0 || nrhs == 0 || nb == 0) return;
  check_int(n * std::max(n, nrhs), "lu_solve");
  const Device dev = LU.device();
  cuda::DeviceGuard guard(dev.index);
  real_dispatch(LU.dtype(), [&](auto z) {
    using T = decltype(z);
    if (nb > 1 && n <= 128) {
      const blas::CublasContext blas = blas::cublas_context(dev.index);
      Tensor pa = pointer_array(LU.data_ptr(), nb, n * n, sizeof(T), dev);
      Tensor pb = pointer_array(B.data_ptr(), nb, n * nrhs, sizeof(T), dev);
      int host_info = 0;  // argument errors only
      EMBER_CUBLAS_CHECK(EMBER_BLAS(getrsBatched)(
          blas.handle, trans ? CUBLAS_OP_T : CUBLAS_OP_N, int(n), int(nrhs), ptr<T*>(pa), ld(n),
          ptr<int>(pivots), ptr<T*>(pb), ld(n), &host_info, int(nb)));
      EMBER_CHECK(host_info == 0, "lu_solve: cublasgetrsBatched rejected argument ", -host_info);
      return;
    }
    const CusolverApi& api = cusolver_api();
    cusolverDnHandle_t h = cusolver_handle(dev.index);
    Tensor dinfo = int_tensor({1}, dev);
    for (int64_t b = 0; b < nb; ++b) {
      EMBER_CUSOLVER_CHECK(EMBER_SOLVER(getrs)(h, trans ? CUBLAS_OP_T : CUBLAS_OP_N, int(n),
                                               int(nrhs), ptr<T>(LU) + b * n * n, ld(n),
                                               ptr<int>(pivots) + b * n,
                                               ptr<T>(B) + b * n * nrhs, ld(n), ptr<int>(dinfo)));
    }
  });
}

Tensor cholesky_cuda(const Tensor& A, bool upper) {
  const int64_t n = A.size(-1), nb = batch_count(A);
  check_int(n * n, "cholesky");
  const Device dev = A.device();
  cuda::DeviceGuard guard(dev.index);
  Tensor info = int_tensor(batch_shape(A), dev);
  if (n == 0 || nb == 0) {
    zero_(info);
    return info;
  }
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  real_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    const CusolverApi& api = cusolver_api();
    cusolverDnHandle_t h = cusolver_handle(dev.index);
    if (nb > 1 && n <= 256) {
      Tensor pa = pointer_array(A.data_ptr(), nb, n * n, sizeof(T), dev);
      EMBER_CUSOLVER_CHECK(EMBER_SOLVER(potrfBatched)(h, uplo, int(n), ptr<T*>(pa), ld(n),
                                                      ptr<int>(info), int(nb)));
      return;
    }
    int lwork = 0;
    EMBER_CUSOLVER_CHECK(EMBER_SOLVER(potrf_bufferSize)(h, uplo, int(n), ptr<T>(A), ld(n), &lwork));
    Tensor work = workspace<T>(lwork, dev);
    for (int64_t b = 0; b < nb; ++b) {
      EMBER_CUSOLVER_CHECK(EMBER_SOLVER(potrf)(h, uplo, int(n), ptr<T>(A) + b * n * n, ld(n),
                                               ptr<T>(work), lwork, ptr<int>(info) + b));
    }
  });
  return info;
}

void cholesky_solve_cuda(const Tensor& L, const Tensor& B, bool upper) {
  const int64_t n = L.size(-1), nrhs = B.size(-1), nb = batch_count(L);
  if (n == 0 || nrhs == 0 || nb == 0) return;
  check_int(n * std::max(n, nrhs), "cholesky_solve");
  const Device dev = L.device();
  cuda::DeviceGuard guard(dev.index);
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  real_dispatch(L.dtype(), [&](auto z) {
    using T = decltype(z);
    const CusolverApi& api = cusolver_api();
    cusolverDnHandle_t h = cusolver_handle(dev.index);
    Tensor dinfo = int_tensor({1}, dev);
    for (int64_t b = 0; b < nb; ++b) {
      EMBER_CUSOLVER_CHECK(EMBER_SOLVER(potrs)(h, uplo, int(n), int(nrhs), ptr<T>(L) + b * n * n,
                                               ld(n), ptr<T>(B) + b * n * nrhs, ld(n),
                                               ptr<int>(dinfo)));
    }
  });
}

void triangular_solve_cuda(const Tensor& A, const Tensor& B, bool upper, bool left, bool trans,
                           bool unitriangular) {
  const int64_t m = B.size(-2), n = B.size(-1), na = A.size(-1), nb = batch_count(A);
  if (m == 0 || n == 0 || nb == 0) return;
  check_int(std::max(na * na, m * n), "solve_triangular");
  const Device dev = A.device();
  cuda::DeviceGuard guard(dev.index);
  real_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    const blas::CublasContext blas = blas::cublas_context(dev.index);
    const T one = 1;
    for (int64_t b = 0; b < nb; ++b) {
      EMBER_CUBLAS_CHECK(EMBER_BLAS(trsmV2)(
          blas.handle, left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT,
          upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
          trans ? CUBLAS_OP_T : CUBLAS_OP_N, unitriangular ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT,
          int(m), int(n), &one, ptr<T>(A) + b * na * na, ld(na), ptr<T>(B) + b * m * n, ld(m)));
    }
  });
}

Tensor geqrf_cuda(const Tensor& A) {
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), nb = batch_count(A);
  check_int(m * n, "geqrf");
  const Device dev = A.device();
  cuda::DeviceGuard guard(dev.index);
  Tensor tau = Tensor::empty(with(batch_shape(A), {k}), A.dtype(), dev);
  if (k == 0 || nb == 0) return tau;
  real_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    // torch's rule: cuBLAS's batched QR for many small matrices.
    if (m <= 256 && nb >= std::max<int64_t>(2, m / 16)) {
      const blas::CublasContext blas = blas::cublas_context(dev.index);
      Tensor pa = pointer_array(A.data_ptr(), nb, m * n, sizeof(T), dev);
      Tensor pt = pointer_array(tau.data_ptr(), nb, k, sizeof(T), dev);
      int host_info = 0;
      EMBER_CUBLAS_CHECK(EMBER_BLAS(geqrfBatched)(blas.handle, int(m), int(n), ptr<T*>(pa),
                                                  ld(m), ptr<T*>(pt), &host_info, int(nb)));
      EMBER_CHECK(host_info == 0, "geqrf: cublasgeqrfBatched rejected argument ", -host_info);
      return;
    }
    const CusolverApi& api = cusolver_api();
    cusolverDnHandle_t h = cusolver_handle(dev.index);
    int lwork = 0;
    EMBER_CUSOLVER_CHECK(EMBER_SOLVER(geqrf_bufferSize)(h, int(m), int(n), ptr<T>(A), ld(m), &lwork));
    Tensor work = workspace<T>(lwork, dev);
    Tensor dinfo = int_tensor({1}, dev);
    for (int64_t b = 0; b < nb; ++b) {
      EMBER_CUSOLVER_CHECK(EMBER_SOLVER(geqrf)(h, int(m), int(n), ptr<T>(A) + b * m * n, ld(m),
                                               ptr<T>(tau) + b * k, ptr<T>(work), lwork,
                                               ptr<int>(dinfo)));
    }
  });
  return tau;
}

void orgqr_cuda(const Tensor& A, const Tensor& tau) {
  const int64_t m = A.size(-2), n = A.size(-1), k = tau.size(-1), nb = batch_count(A);
  if (m == 0 || n == 0 || nb == 0) return;
  check_int(m * n, "householder_product");
  const Device dev = A.device();
  cuda::DeviceGuard guard(dev.index);
  real_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    const CusolverApi& api = cusolver_api();
    cusolverDnHandle_t h = cusolver_handle(dev.index);
    int lwork = 0;
    EMBER_CUSOLVER_CHECK(EMBER_SOLVER(orgqr_bufferSize)(h, int(m), int(n), int(k), ptr<T>(A),
                                                        ld(m), ptr<T>(tau), &lwork));
    Tensor work = workspace<T>(lwork, dev);
    Tensor dinfo = int_tensor({1}, dev);
    for (int64_t b = 0; b < nb; ++b) {
      EMBER_CUSOLVER_CHECK(EMBER_SOLVER(orgqr)(h, int(m), int(n), int(k), ptr<T>(A) + b * m * n,
                                               ld(m), ptr<T>(tau) + b * k, ptr<T>(work), lwork,
                                               ptr<int>(dinfo)));
    }
  });
}

void ormqr_cuda(const Tensor& A, const Tensor& tau, const Tensor& C, bool left, bool trans) {
  const int64_t ma = A.size(-2), na = A.size(-1), k = tau.size(-1), nb = batch_count(A);
  const int64_t m = C.size(-2), n = C.size(-1);
  if (m == 0 || n == 0 || k == 0 || nb == 0) return;
  check_int(std::max(ma * na, m * n), "ormqr");
  const Device dev = A.device();
  cuda::DeviceGuard guard(dev.index);
  const cublasSideMode_t side = left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
  const cublasOperation_t op = trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  real_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    const CusolverApi& api = cusolver_api();
    cusolverDnHandle_t h = cusolver_handle(dev.index);
    int lwork = 0;
    EMBER_CUSOLVER_CHECK(EMBER_SOLVER(ormqr_bufferSize)(h, side, op, int(m), int(n), int(k),
                                                        ptr<T>(A), ld(ma), ptr<T>(tau),
                                                        ptr<T>(C), ld(m), &lwork));
    Tensor work = workspace<T>(lwork, dev);
    Tensor dinfo = int_tensor({1}, dev);
    for (int64_t b = 0; b < nb; ++b) {
      EMBER_CUSOLVER_CHECK(EMBER_SOLVER(ormqr)(h, side, op, int(m), int(n), int(k),
                                               ptr<T>(A) + b * ma * na, ld(ma),
                                               ptr<T>(tau) + b * k, ptr<T>(C) + b * m * n, ld(m),
                                               ptr<T>(work), lwork, ptr<int>(dinfo)));
    }
  });
}

std::tuple<Tensor, Tensor> syevd_cuda(const Tensor& A, bool upper, bool vectors) {
  const int64_t n = A.size(-1), nb = batch_count(A);
  check_int(n * n, "eigh");
  const Device dev = A.device();
  cuda::DeviceGuard guard(dev.index);
  Tensor w = Tensor::empty(with(batch_shape(A), {n}), A.dtype(), dev);
  Tensor info = int_tensor(batch_shape(A), dev);
  if (n == 0 || nb == 0) {
    zero_(info);
    return {w, info};
  }
  const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  real_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    const CusolverApi& api = cusolver_api();
    cusolverDnHandle_t h = cusolver_handle(dev.index);
    if (nb > 1 && n <= 32) {
      syevjInfo_t params = nullptr;
      EMBER_CUSOLVER_CHECK(api.CreateSyevjInfo(&params));
      int lwork = 0;
      EMBER_CUSOLVER_CHECK(EMBER_SOLVER(syevjBatched_bufferSize)(
          h, jobz, uplo, int(n), ptr<T>(A), ld(n), ptr<T>(w), &lwork, params, int(nb)));
      Tensor work = workspace<T>(lwork, dev);
      EMBER_CUSOLVER_CHECK(EMBER_SOLVER(syevjBatched)(h, jobz, uplo, int(n), ptr<T>(A), ld(n),
                                                      ptr<T>(w), ptr<T>(work), lwork,
                                                      ptr<int>(info), params, int(nb)));
      api.DestroySyevjInfo(params);
      return;
    }
    int lwork = 0;
    EMBER_CUSOLVER_CHECK(EMBER_SOLVER(syevd_bufferSize)(h, jobz, uplo, int(n), ptr<T>(A), ld(n),
                                                        ptr<T>(w), &lwork));
    Tensor work = workspace<T>(lwork, dev);
    for (int64_t b = 0; b < nb; ++b) {
      EMBER_CUSOLVER_CHECK(EMBER_SOLVER(syevd)(h, jobz, uplo, int(n), ptr<T>(A) + b * n * n, ld(n),
                                               ptr<T>(w) + b * n, ptr<T>(work), lwork,
                                               ptr<int>(info) + b));
    }
  });
  return {w, info};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> svd_cuda(const Tensor& A, bool full, bool vectors) {
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), nb = batch_count(A);
  check_int(std::max(m, n) * std::max(m, n), "svd");
  const Device dev = A.device();
  cuda::DeviceGuard guard(dev.index);
  const Shape bs = batch_shape(A);
  Tensor S = Tensor::empty(with(bs, {k}), A.dtype(), dev);
  Tensor info = int_tensor(bs, dev);
  const bool batched = nb > 1 && m <= 32 && n <= 32;
  // gesvdjBatched computes full U and V only.
  const bool full_here = full || batched;
  const int64_t ucols = full_here ? m : k, vrows = full_here ? n : k;
  // U: column-major m x ucols. V (n x vrows, column-major) is Vh (vrows x n)
  // row-major: Vh is allocated contiguous and handed to cuSOLVER as V.
  Tensor U = transpose(Tensor::empty(with(bs, {ucols, m}), A.dtype(), dev), -2, -1);
  Tensor Vh = Tensor::empty(with(bs, {vrows, n}), A.dtype(), dev);
  // cuSOLVER is always asked for the vectors, into full-size buffers: without them
  // (svdvals) gesvdjBatched faulted on the H100 (illegal instruction) and returned zeros,
  // and gesvdj of 300 x 200 float64 matrices failed (CUSOLVER_STATUS_EXECUTION_FAILED,
  // then an illegal address). svdvals pays for the vectors it drops.
  if (k == 0 || nb == 0) {
    zero_(info);
  } else {
    const cusolverEigMode_t jobz = CUSOLVER_EIG_MODE_VECTOR;
    real_dispatch(A.dtype(), [&](auto z) {
      using T = decltype(z);
      const CusolverApi& api = cusolver_api();
      cusolverDnHandle_t h = cusolver_handle(dev.index);
      gesvdjInfo_t params = nullptr;
      EMBER_CUSOLVER_CHECK(api.CreateGesvdjInfo(&params));
      const int64_t us = m * ucols, vs = n * vrows;
      int lwork = 0;
      if (batched) {
        EMBER_CUSOLVER_CHECK(EMBER_SOLVER(gesvdjBatched_bufferSize)(
            h, jobz, int(m), int(n), ptr<T>(A), ld(m), ptr<T>(S), ptr<T>(U), ld(m), ptr<T>(Vh),
            ld(n), &lwork, params, int(nb)));
        Tensor work = workspace<T>(lwork, dev);
        EMBER_CUSOLVER_CHECK(EMBER_SOLVER(gesvdjBatched)(
            h, jobz, int(m), int(n), ptr<T>(A), ld(m), ptr<T>(S), ptr<T>(U), ld(m), ptr<T>(Vh),
            ld(n), ptr<T>(work), lwork, ptr<int>(info), params, int(nb)));
      } else {
        const int econ = full_here ? 0 : 1;
        EMBER_CUSOLVER_CHECK(EMBER_SOLVER(gesvdj_bufferSize)(
            h, jobz, econ, int(m), int(n), ptr<T>(A), ld(m), ptr<T>(S), ptr<T>(U), ld(m),
            ptr<T>(Vh), ld(n), &lwork, params));
        Tensor work = workspace<T>(lwork, dev);
        for (int64_t b = 0; b < nb; ++b) {
          EMBER_CUSOLVER_CHECK(EMBER_SOLVER(gesvdj)(
              h, jobz, econ, int(m), int(n), ptr<T>(A) + b * m * n, ld(m), ptr<T>(S) + b * k,
              ptr<T>(U) + b * us, ld(m), ptr<T>(Vh) + b * vs, ld(n), ptr<T>(work), lwork,
              ptr<int>(info) + b, params));
        }
      }
      api.DestroyGesvdjInfo(params);
    });
  }
  if (!vectors) return {Tensor(), S, Tensor(), info};
  if (!full && full_here && m != n) {
    // Reduced outputs from the batched call's full ones: views of the first k.
    U = U.view_with(with(bs, {m, k}), U.strides(), U.storage_offset());
    Vh = Vh.view_with(with(bs, {k, n}), Vh.strides(), Vh.storage_offset());
  }
  return {U, S, Vh, info};
}

#undef EMBER_BLAS
#undef EMBER_SOLVER
#undef EMBER_PICK

}  // namespace ember::ops::linalg::internal

#endif  // EMBER_WITH_CUDA
