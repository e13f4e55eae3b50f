// ops/linalg/linalg.hpp's GPU cores: cuSOLVER's dense routines, looped over the
// batch, and the batched calls where they are faster for small matrices
// (cuBLAS getrfBatched/getrsBatched/geqrfBatched, cuSOLVER potrfBatched,
// syevjBatched, gesvdjBatched; torch's choices), for float32, float64,
// complex64 and complex128 (the s/d/c/z routines; `trans` is the conjugate
// transpose for complex types). Every info stays on the device: nothing here
// synchronises with the host. Operands are checked by linalg_cpu.cpp's
// callers (batched column-major). geev (Xgeev, cuSOLVER >= 11.7) is used when
// the loaded library has it.
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
#include "ops/pointwise/complex.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "tensor/views.hpp"

namespace ember::ops::linalg::internal {

namespace {

using common::batch_count;
using common::batch_shape;
using common::with;

// The element types of cuSOLVER/cuBLAS: float, double, cuComplex, cuDoubleComplex.
template <typename T>
constexpr bool kComplex = std::is_same_v<T, cuComplex> || std::is_same_v<T, cuDoubleComplex>;
template <typename T>
using Real = std::conditional_t<std::is_same_v<T, cuComplex>, float,
                                std::conditional_t<std::is_same_v<T, cuDoubleComplex>, double, T>>;

// f(T{}) with T the cuSOLVER element type of `t`.
template <typename F>
void solver_dispatch(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float64: f(double{}); break;
    case ScalarType::ComplexFloat: f(cuComplex{}); break;
    case ScalarType::ComplexDouble: f(cuDoubleComplex{}); break;
    default: f(float{}); break;
  }
}

// The s/d/c/z member of a cuSOLVER/cuBLAS family for T.
#define EMBER_PICK(api, s, d, c, z)                                         \
  ([&]() {                                                                  \
    if constexpr (std::is_same_v<T, double>) return (api).d;                \
    else if constexpr (std::is_same_v<T, cuComplex>) return (api).c;        \
    else if constexpr (std::is_same_v<T, cuDoubleComplex>) return (api).z;  \
    else return (api).s;                                                    \
  }())
#define EMBER_SOLVER(name) EMBER_PICK(api, S##name, D##name, C##name, Z##name)
// Routines whose complex name differs (syevd/heevd, orgqr/ungqr, ormqr/unmqr).
#define EMBER_SOLVER2(name, cname) EMBER_PICK(api, S##name, D##name, C##cname, Z##cname)
#define EMBER_BLAS(name) \
  EMBER_PICK(*blas.api, cublasS##name, cublasD##name, cublasC##name, cublasZ##name)

// op(A) for `trans`: the conjugate transpose for complex types (torch's adjoint).
template <typename T>
cublasOperation_t op_of(bool trans) {
  if (!trans) return CUBLAS_OP_N;
  return kComplex<T> ? CUBLAS_OP_C : CUBLAS_OP_T;
}

template <typename T>
T one() {
  if constexpr (kComplex<T>) {
    T v{};
    v.x = 1;
    return v;
  } else {
    return T(1);
  }
}

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

// lwork elements of T (bytes: the element types include cuDoubleComplex).
template <typename T>
Tensor workspace(int64_t lwork, const Device& dev) {
  return Tensor::empty({std::max<int64_t>(lwork, 1) * static_cast<int64_t>(sizeof(T))},
                       ScalarType::UInt8, dev);
}

Tensor int_tensor(const Shape& s, const Device& d) { return Tensor::empty(s, ScalarType::Int32, d); }

}  // namespace

bool cusolver_loaded() noexcept { return cusolver_api_loaded(); }

std::string cusolver_path() { return cusolver_api().path; }

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
  solver_dispatch(A.dtype(), [&](auto z) {
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
  solver_dispatch(LU.dtype(), [&](auto z) {
    using T = decltype(z);
    if (nb > 1 && n <= 128) {
      const blas::CublasContext blas = blas::cublas_context(dev.index);
      Tensor pa = pointer_array(LU.data_ptr(), nb, n * n, sizeof(T), dev);
      Tensor pb = pointer_array(B.data_ptr(), nb, n * nrhs, sizeof(T), dev);
      int host_info = 0;  // argument errors only
      EMBER_CUBLAS_CHECK(EMBER_BLAS(getrsBatched)(
          blas.handle, op_of<T>(trans), int(n), int(nrhs), ptr<T*>(pa), ld(n),
          ptr<int>(pivots), ptr<T*>(pb), ld(n), &host_info, int(nb)));
      EMBER_CHECK(host_info == 0, "lu_solve: cublasgetrsBatched rejected argument ", -host_info);
      return;
    }
    const CusolverApi& api = cusolver_api();
    cusolverDnHandle_t h = cusolver_handle(dev.index);
    Tensor dinfo = int_tensor({1}, dev);
    for (int64_t b = 0; b < nb; ++b) {
      EMBER_CUSOLVER_CHECK(EMBER_SOLVER(getrs)(h, op_of<T>(trans), int(n),
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
  solver_dispatch(A.dtype(), [&](auto z) {
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
  solver_dispatch(L.dtype(), [&](auto z) {
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
  solver_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    const blas::CublasContext blas = blas::cublas_context(dev.index);
    const T alpha = one<T>();
    for (int64_t b = 0; b < nb; ++b) {
      EMBER_CUBLAS_CHECK(EMBER_BLAS(trsmV2)(
          blas.handle, left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT,
          upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
          op_of<T>(trans), unitriangular ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT,
          int(m), int(n), &alpha, ptr<T>(A) + b * na * na, ld(na), ptr<T>(B) + b * m * n, ld(m)));
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
  solver_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    // torch's rule: cuBLAS's batched QR for many small matrices.
    if (m <= 256 && nb >= std::max<int64_t>(2, m / 16)) {
      const blas::CublasContext blas = blas::cublas_context(dev.index);
      Tensor pa = pointer_array(A.data_ptr(), nb, m * n, sizeof(T), dev);
      Tensor pt = pointer_array(tau.data_ptr(), nb, k, sizeof(T), dev);
      int host_info = 0;
      EMBER_CUBLAS_CHECK(EMBER_BLAS(geqrfBatched)(blas.handle, int(m), int(n), ptr<T*>(pa), ld(m),
                                                  ptr<T*>(pt), &host_info, int(nb)));
      EMBER_CHECK(host_info == 0, "geqrf: cublasgeqrfBatched rejected argument ", -host_info);
      return;
    }
    const CusolverApi& api = cusolver_api();
    cusolverDnHandle_t h = cusolver_handle(dev.index);
    int lwork = 0;
    EMBER_CUSOLVER_CHECK(
        EMBER_SOLVER(geqrf_bufferSize)(h, int(m), int(n), ptr<T>(A), ld(m), &lwork));
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
  solver_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    const CusolverApi& api = cusolver_api();
    cusolverDnHandle_t h = cusolver_handle(dev.index);
    int lwork = 0;
    EMBER_CUSOLVER_CHECK(EMBER_SOLVER2(orgqr_bufferSize, ungqr_bufferSize)(
        h, int(m), int(n), int(k), ptr<T>(A), ld(m), ptr<T>(tau), &lwork));
    Tensor work = workspace<T>(lwork, dev);
    Tensor dinfo = int_tensor({1}, dev);
    for (int64_t b = 0; b < nb; ++b) {
      EMBER_CUSOLVER_CHECK(
          EMBER_SOLVER2(orgqr, ungqr)(h, int(m), int(n), int(k), ptr<T>(A) + b * m * n, ld(m),
                                      ptr<T>(tau) + b * k, ptr<T>(work), lwork, ptr<int>(dinfo)));
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
  solver_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    const cublasOperation_t op = op_of<T>(trans);
    const CusolverApi& api = cusolver_api();
    cusolverDnHandle_t h = cusolver_handle(dev.index);
    int lwork = 0;
    EMBER_CUSOLVER_CHECK(EMBER_SOLVER2(ormqr_bufferSize, unmqr_bufferSize)(
        h, side, op, int(m), int(n), int(k), ptr<T>(A), ld(ma), ptr<T>(tau), ptr<T>(C), ld(m),
        &lwork));
    Tensor work = workspace<T>(lwork, dev);
    Tensor dinfo = int_tensor({1}, dev);
    for (int64_t b = 0; b < nb; ++b) {
      EMBER_CUSOLVER_CHECK(EMBER_SOLVER2(ormqr, unmqr)(h, side, op, int(m), int(n), int(k),
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
  Tensor w = Tensor::empty(with(batch_shape(A), {n}), to_real_type(A.dtype()), dev);
  Tensor info = int_tensor(batch_shape(A), dev);
  if (n == 0 || nb == 0) {
    zero_(info);
    return {w, info};
  }
  const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  solver_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    const CusolverApi& api = cusolver_api();
    cusolverDnHandle_t h = cusolver_handle(dev.index);
    if (nb > 1 && n <= 32) {
      syevjInfo_t params = nullptr;
      EMBER_CUSOLVER_CHECK(api.CreateSyevjInfo(&params));
      int lwork = 0;
      EMBER_CUSOLVER_CHECK(EMBER_SOLVER2(syevjBatched_bufferSize, heevjBatched_bufferSize)(
          h, jobz, uplo, int(n), ptr<T>(A), ld(n), ptr<Real<T>>(w), &lwork, params, int(nb)));
      Tensor work = workspace<T>(lwork, dev);
      EMBER_CUSOLVER_CHECK(EMBER_SOLVER2(syevjBatched, heevjBatched)(
          h, jobz, uplo, int(n), ptr<T>(A), ld(n), ptr<Real<T>>(w), ptr<T>(work), lwork,
          ptr<int>(info), params, int(nb)));
      api.DestroySyevjInfo(params);
      return;
    }
    int lwork = 0;
    EMBER_CUSOLVER_CHECK(EMBER_SOLVER2(syevd_bufferSize, heevd_bufferSize)(
        h, jobz, uplo, int(n), ptr<T>(A), ld(n), ptr<Real<T>>(w), &lwork));
    Tensor work = workspace<T>(lwork, dev);
    for (int64_t b = 0; b < nb; ++b) {
      EMBER_CUSOLVER_CHECK(EMBER_SOLVER2(syevd, heevd)(h, jobz, uplo, int(n), ptr<T>(A) + b * n * n,
                                                       ld(n), ptr<Real<T>>(w) + b * n, ptr<T>(work),
                                                       lwork, ptr<int>(info) + b));
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
  Tensor S = Tensor::empty(with(bs, {k}), to_real_type(A.dtype()), dev);
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
    solver_dispatch(A.dtype(), [&](auto z) {
      using T = decltype(z);
      const CusolverApi& api = cusolver_api();
      cusolverDnHandle_t h = cusolver_handle(dev.index);
      gesvdjInfo_t params = nullptr;
      EMBER_CUSOLVER_CHECK(api.CreateGesvdjInfo(&params));
      const int64_t us = m * ucols, vs = n * vrows;
      int lwork = 0;
      if (batched) {
        EMBER_CUSOLVER_CHECK(EMBER_SOLVER(gesvdjBatched_bufferSize)(
            h, jobz, int(m), int(n), ptr<T>(A), ld(m), ptr<Real<T>>(S), ptr<T>(U), ld(m),
            ptr<T>(Vh), ld(n), &lwork, params, int(nb)));
        Tensor work = workspace<T>(lwork, dev);
        EMBER_CUSOLVER_CHECK(EMBER_SOLVER(gesvdjBatched)(
            h, jobz, int(m), int(n), ptr<T>(A), ld(m), ptr<Real<T>>(S), ptr<T>(U), ld(m),
            ptr<T>(Vh), ld(n), ptr<T>(work), lwork, ptr<int>(info), params, int(nb)));
      } else {
        const int econ = full_here ? 0 : 1;
        EMBER_CUSOLVER_CHECK(EMBER_SOLVER(gesvdj_bufferSize)(
            h, jobz, econ, int(m), int(n), ptr<T>(A), ld(m), ptr<Real<T>>(S), ptr<T>(U), ld(m),
            ptr<T>(Vh), ld(n), &lwork, params));
        Tensor work = workspace<T>(lwork, dev);
        for (int64_t b = 0; b < nb; ++b) {
          EMBER_CUSOLVER_CHECK(EMBER_SOLVER(gesvdj)(
              h, jobz, econ, int(m), int(n), ptr<T>(A) + b * m * n, ld(m), ptr<Real<T>>(S) + b * k,
              ptr<T>(U) + b * us, ld(m), ptr<T>(Vh) + b * vs, ld(n), ptr<T>(work), lwork,
              ptr<int>(info) + b, params));
        }
      }
      api.DestroyGesvdjInfo(params);
    });
    // cuSOLVER gives V; the buffer read as row-major is V^T, and Vh = V^H.
    if (vectors && is_complex(A.dtype())) conj_physical(Vh, Tensor(), /*inplace=*/true);
  }
  if (!vectors) return {Tensor(), S, Tensor(), info};
  if (!full && full_here && m != n) {
    // Reduced outputs from the batched call's full ones: views of the first k.
    U = U.view_with(with(bs, {m, k}), U.strides(), U.storage_offset());
    Vh = Vh.view_with(with(bs, {k, n}), Vh.strides(), Vh.storage_offset());
  }
  return {U, S, Vh, info};
}

bool geev_available() noexcept {
  try {
    return cusolver_api().Xgeev != nullptr;
  } catch (const std::exception&) {
    return false;  // no usable cuSOLVER: geev_ runs LAPACK on the host
  }
}

std::tuple<Tensor, Tensor, Tensor> geev_cuda(const Tensor& A, bool vectors) {
  const int64_t n = A.size(-1), nb = batch_count(A);
  const Device dev = A.device();
  cuda::DeviceGuard guard(dev.index);
  const ScalarType ct = (A.dtype() == ScalarType::Float32 || A.dtype() == ScalarType::ComplexFloat)
                            ? ScalarType::ComplexFloat
                            : ScalarType::ComplexDouble;
  const Shape bs = batch_shape(A);
  Tensor w = Tensor::empty(with(bs, {n}), ct, dev);
  Tensor V;
  if (vectors) V = transpose(Tensor::empty(with(bs, {n, n}), ct, dev), -2, -1);
  Tensor info = int_tensor(bs, dev);
  if (n == 0 || nb == 0) {
    zero_(info);
    return {w, V, info};
  }
  const bool real = !is_complex(A.dtype());
  // A real matrix's right eigenvectors come back in geev's packed real form
  // (a conjugate pair's real and imaginary parts in two columns), unpacked below.
  Tensor VR = vectors && real ? Tensor::empty(with(bs, {n, n}), A.dtype(), dev) : V;
  const cusolverEigMode_t jobvr = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const bool f32 = A.dtype() == ScalarType::Float32 || A.dtype() == ScalarType::ComplexFloat;
  const cudaDataType ta = real ? (f32 ? CUDA_R_32F : CUDA_R_64F) : (f32 ? CUDA_C_32F : CUDA_C_64F);
  const cudaDataType tw = f32 ? CUDA_C_32F : CUDA_C_64F;
  const int64_t esz = static_cast<int64_t>(A.itemsize()), wsz = static_cast<int64_t>(w.itemsize());
  const CusolverApi& api = cusolver_api();
  cusolverDnHandle_t h = cusolver_handle(dev.index);
  cusolverDnParams_t params = cusolver_params();
  char* a = static_cast<char*>(A.data_ptr());
  char* wp = static_cast<char*>(w.data_ptr());
  char* vr = vectors ? static_cast<char*>(VR.data_ptr()) : nullptr;
  size_t dev_bytes = 0, host_bytes = 0;
  EMBER_CUSOLVER_CHECK(api.Xgeev_bufferSize(h, params, CUSOLVER_EIG_MODE_NOVECTOR, jobvr, n, ta, a,
                                            n, tw, wp, ta, nullptr, n, ta, vr, n, ta, &dev_bytes,
                                            &host_bytes));
  Tensor work = workspace<char>(static_cast<int64_t>(dev_bytes), dev);
  // The host part of the workspace is used while the call runs (torch frees its
  // pinned one right after the call too); one buffer per thread, grown as needed.
  thread_local std::vector<char> host_work;
  if (host_work.size() < std::max<size_t>(host_bytes, 1))
    host_work.resize(std::max<size_t>(host_bytes, 1));
  for (int64_t b = 0; b < nb; ++b) {
    EMBER_CUSOLVER_CHECK(api.Xgeev(h, params, CUSOLVER_EIG_MODE_NOVECTOR, jobvr, n, ta,
                                   a + b * n * n * esz, n, tw, wp + b * n * wsz, ta, nullptr, n, ta,
                                   vectors ? vr + b * n * n * esz : nullptr, n, ta, work.data_ptr(),
                                   dev_bytes, host_work.data(), host_bytes, ptr<int>(info) + b));
  }
  if (vectors && real) unpack_real_eigenvectors_cuda(VR, w, V);
  return {w, V, info};
}

#undef EMBER_BLAS
#undef EMBER_SOLVER2
#undef EMBER_SOLVER
#undef EMBER_PICK

}  // namespace ember::ops::linalg::internal

#endif  // EMBER_WITH_CUDA
