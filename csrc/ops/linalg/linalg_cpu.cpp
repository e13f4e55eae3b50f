// ops/linalg/linalg.hpp's functions: argument checks, the device dispatch, and
// the CPU's loops over the batch calling LAPACK (ops/linalg/lapack_api).
#include <algorithm>
#include <complex>
#include <type_traits>
#include <vector>

#include "ops/linalg/lapack_api.hpp"
#include "ops/linalg/linalg.hpp"
#include "ops/linalg/linalg_common.hpp"
#include "runtime/errors.hpp"
#include "tensor/views.hpp"

namespace ember::ops::linalg {

namespace {

using common::batch_count;
using common::batch_shape;
using common::lapack_dispatch;
using common::with;

// (..., m, n) whose .mT is contiguous.
void check_fortran(const Tensor& t, const char* fn, const char* what) {
  EMBER_CHECK(t.dim() >= 2, fn, ": ", what, " must have at least 2 dimensions");
  EMBER_CHECK(t.dtype() == ScalarType::Float32 || t.dtype() == ScalarType::Float64 ||
                  t.dtype() == ScalarType::ComplexFloat || t.dtype() == ScalarType::ComplexDouble,
              fn, ": ", what, " must be float32, float64, complex64 or complex128, got ",
              dtype_name(t.dtype()));
  const int64_t m = t.size(-2), n = t.size(-1);
  if (t.numel() == 0) return;
  int64_t expect = m * n;
  bool ok = (m <= 1 || t.stride(-2) == 1) && (n <= 1 || t.stride(-1) == m);
  for (int64_t d = t.dim() - 3; d >= 0 && ok; --d) {
    if (t.sizes()[d] != 1 && t.strides()[d] != expect) ok = false;
    expect *= t.sizes()[d];
  }
  EMBER_CHECK(ok, fn, ": internal error: ", what, " is not a batch of column-major matrices");
}

void check_like(const Tensor& a, const Tensor& b, const char* fn) {
  EMBER_CHECK(a.dtype() == b.dtype() && a.device() == b.device(), fn,
              ": internal error: operands differ in dtype or device");
  EMBER_CHECK(batch_count(a) == batch_count(b), fn,
              ": internal error: operands differ in batch size");
}


Tensor new_int(const Shape& s, const Device& d, ScalarType t = ScalarType::Int32) {
  return Tensor::empty(s, t, d);
}

int64_t ld(int64_t rows) { return std::max<int64_t>(1, rows); }

template <typename T>
T* ptr(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

// LAPACK's op(A) for `trans`: the conjugate transpose for complex types (torch's adjoint).
template <typename T>
char op_char(bool trans) {
  if (!trans) return 'N';
  return lapack::is_complex_element<T> ? 'C' : 'T';
}

#if EMBER_WITH_CUDA
// The GPU cores take float32/float64; ember.linalg runs complex CUDA operands on the host.
void check_cuda_real(const Tensor& t, const char* fn) {
  EMBER_CHECK(!is_complex(t.dtype()), fn, ": internal error: complex matrices are factored on "
              "the host (ember.linalg copies them there)");
}
#endif

}  // namespace

std::string lapack_library() { return lapack::library_path(); }

std::tuple<Tensor, Tensor> lu_factor_(const Tensor& A) {
  check_fortran(A, "lu_factor", "A");
#if EMBER_WITH_CUDA
  if (A.is_cuda()) {
    check_cuda_real(A, "lu_factor");
    return internal::lu_factor_cuda(A);
  }
#endif
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), nb = batch_count(A);
  Tensor piv = new_int(with(batch_shape(A), {k}), A.device());
  Tensor info = new_int(batch_shape(A), A.device());
  int32_t* pi = ptr<int32_t>(piv);
  int32_t* in = ptr<int32_t>(info);
  lapack_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    T* a = ptr<T>(A);
    for (int64_t b = 0; b < nb; ++b) {
      in[b] = k == 0 ? 0 : static_cast<int32_t>(lapack::getrf<T>(m, n, a + b * m * n, ld(m), pi + b * k));
    }
  });
  return {piv, info};
}

void lu_solve_(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool trans) {
  check_fortran(LU, "lu_solve", "LU");
  check_fortran(B, "lu_solve", "B");
  check_like(LU, B, "lu_solve");
  EMBER_CHECK(pivots.dtype() == ScalarType::Int32 && pivots.is_contiguous(),
              "lu_solve: internal error: pivots must be contiguous int32");
#if EMBER_WITH_CUDA
  if (LU.is_cuda()) {
    check_cuda_real(LU, "lu_solve");
    return internal::lu_solve_cuda(LU, pivots, B, trans);
  }
#endif
  const int64_t n = LU.size(-1), nrhs = B.size(-1), nb = batch_count(LU);
  if (n == 0 || nrhs == 0) return;
  const int32_t* pi = ptr<int32_t>(pivots);
  lapack_dispatch(LU.dtype(), [&](auto z) {
    using T = decltype(z);
    for (int64_t b = 0; b < nb; ++b) {
      lapack::getrs<T>(op_char<T>(trans), n, nrhs, ptr<T>(LU) + b * n * n, ld(n), pi + b * n,
                       ptr<T>(B) + b * n * nrhs, ld(n));
    }
  });
}

Tensor cholesky_(const Tensor& A, bool upper) {
  check_fortran(A, "cholesky", "A");
#if EMBER_WITH_CUDA
  if (A.is_cuda()) {
    check_cuda_real(A, "cholesky");
    return internal::cholesky_cuda(A, upper);
  }
#endif
  const int64_t n = A.size(-1), nb = batch_count(A);
  Tensor info = new_int(batch_shape(A), A.device());
  int32_t* in = ptr<int32_t>(info);
  lapack_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    for (int64_t b = 0; b < nb; ++b) {
      in[b] = n == 0 ? 0 : static_cast<int32_t>(lapack::potrf<T>(upper ? 'U' : 'L', n, ptr<T>(A) + b * n * n, ld(n)));
    }
  });
  return info;
}

void cholesky_solve_(const Tensor& L, const Tensor& B, bool upper) {
  check_fortran(L, "cholesky_solve", "L");
  check_fortran(B, "cholesky_solve", "B");
  check_like(L, B, "cholesky_solve");
#if EMBER_WITH_CUDA
  if (L.is_cuda()) {
    check_cuda_real(L, "cholesky_solve");
    return internal::cholesky_solve_cuda(L, B, upper);
  }
#endif
  const int64_t n = L.size(-1), nrhs = B.size(-1), nb = batch_count(L);
  if (n == 0 || nrhs == 0) return;
  lapack_dispatch(L.dtype(), [&](auto z) {
    using T = decltype(z);
    for (int64_t b = 0; b < nb; ++b) {
      lapack::potrs<T>(upper ? 'U' : 'L', n, nrhs, ptr<T>(L) + b * n * n, ld(n),
                       ptr<T>(B) + b * n * nrhs, ld(n));
    }
  });
}

void triangular_solve_(const Tensor& A, const Tensor& B, bool upper, bool left, bool trans,
                       bool unitriangular) {
  check_fortran(A, "solve_triangular", "A");
  check_fortran(B, "solve_triangular", "B");
  check_like(A, B, "solve_triangular");
#if EMBER_WITH_CUDA
  if (A.is_cuda()) {
    check_cuda_real(A, "triangular_solve");
    return internal::triangular_solve_cuda(A, B, upper, left, trans, unitriangular);
  }
#endif
  const int64_t m = B.size(-2), n = B.size(-1), na = A.size(-1), nb = batch_count(A);
  if (m == 0 || n == 0) return;
  lapack_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    for (int64_t b = 0; b < nb; ++b) {
      lapack::trsm<T>(left ? 'L' : 'R', upper ? 'U' : 'L', op_char<T>(trans),
                      unitriangular ? 'U' : 'N', m, n, T(1), ptr<T>(A) + b * na * na, ld(na),
                      ptr<T>(B) + b * m * n, ld(m));
    }
  });
}

Tensor geqrf_(const Tensor& A) {
  check_fortran(A, "geqrf", "A");
#if EMBER_WITH_CUDA
  if (A.is_cuda()) {
    check_cuda_real(A, "geqrf");
    return internal::geqrf_cuda(A);
  }
#endif
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), nb = batch_count(A);
  Tensor tau = Tensor::empty(with(batch_shape(A), {k}), A.dtype(), A.device());
  if (k == 0) return tau;
  lapack_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    for (int64_t b = 0; b < nb; ++b) {
      lapack::geqrf<T>(m, n, ptr<T>(A) + b * m * n, ld(m), ptr<T>(tau) + b * k);
    }
  });
  return tau;
}

void orgqr_(const Tensor& A, const Tensor& tau) {
  check_fortran(A, "householder_product", "A");
  EMBER_CHECK(tau.is_contiguous() && tau.dtype() == A.dtype(),
              "householder_product: internal error: tau must be contiguous");
#if EMBER_WITH_CUDA
  if (A.is_cuda()) {
    check_cuda_real(A, "orgqr");
    return internal::orgqr_cuda(A, tau);
  }
#endif
  const int64_t m = A.size(-2), n = A.size(-1), k = tau.size(-1), nb = batch_count(A);
  if (m == 0 || n == 0) return;
  lapack_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    for (int64_t b = 0; b < nb; ++b) {
      lapack::orgqr<T>(m, n, k, ptr<T>(A) + b * m * n, ld(m), ptr<T>(tau) + b * k);
    }
  });
}

void ormqr_(const Tensor& A, const Tensor& tau, const Tensor& C, bool left, bool trans) {
  check_fortran(A, "ormqr", "A");
  check_fortran(C, "ormqr", "C");
  check_like(A, C, "ormqr");
#if EMBER_WITH_CUDA
  if (A.is_cuda()) {
    check_cuda_real(A, "ormqr");
    return internal::ormqr_cuda(A, tau, C, left, trans);
  }
#endif
  const int64_t ma = A.size(-2), na = A.size(-1), k = tau.size(-1), nb = batch_count(A);
  const int64_t m = C.size(-2), n = C.size(-1);
  if (m == 0 || n == 0 || k == 0) return;
  lapack_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    for (int64_t b = 0; b < nb; ++b) {
      lapack::ormqr<T>(left ? 'L' : 'R', op_char<T>(trans), m, n, k, ptr<T>(A) + b * ma * na,
                       ld(ma), ptr<T>(tau) + b * k, ptr<T>(C) + b * m * n, ld(m));
    }
  });
}

std::tuple<Tensor, Tensor> syevd_(const Tensor& A, bool upper, bool vectors) {
  check_fortran(A, "eigh", "A");
#if EMBER_WITH_CUDA
  if (A.is_cuda()) {
    check_cuda_real(A, "syevd");
    return internal::syevd_cuda(A, upper, vectors);
  }
#endif
  const int64_t n = A.size(-1), nb = batch_count(A);
  Tensor w = Tensor::empty(with(batch_shape(A), {n}), to_real_type(A.dtype()), A.device());
  Tensor info = new_int(batch_shape(A), A.device());
  int32_t* in = ptr<int32_t>(info);
  lapack_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    for (int64_t b = 0; b < nb; ++b) {
      in[b] = n == 0 ? 0
                     : static_cast<int32_t>(lapack::syevd<T>(vectors ? 'V' : 'N', upper ? 'U' : 'L',
                                                             n, ptr<T>(A) + b * n * n, ld(n),
                                                             ptr<lapack::Real<T>>(w) + b * n));
    }
  });
  return {w, info};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> svd_(const Tensor& A, bool full, bool vectors) {
  check_fortran(A, "svd", "A");
#if EMBER_WITH_CUDA
  if (A.is_cuda()) {
    check_cuda_real(A, "svd");
    return internal::svd_cuda(A, full, vectors);
  }
#endif
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), nb = batch_count(A);
  const int64_t ucols = full ? m : k, vrows = full ? n : k;
  const Shape bs = batch_shape(A);
  Tensor S = Tensor::empty(with(bs, {k}), to_real_type(A.dtype()), A.device());
  Tensor U, Vh;
  if (vectors) {
    U = transpose(Tensor::empty(with(bs, {ucols, m}), A.dtype(), A.device()), -2, -1);
    Vh = transpose(Tensor::empty(with(bs, {n, vrows}), A.dtype(), A.device()), -2, -1);
  }
  Tensor info = new_int(bs, A.device());
  int32_t* in = ptr<int32_t>(info);
  lapack_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    T dummy[1] = {0};
    for (int64_t b = 0; b < nb; ++b) {
      if (k == 0) {
        in[b] = 0;
        continue;
      }
      in[b] = static_cast<int32_t>(lapack::gesdd<T>(
          vectors ? (full ? 'A' : 'S') : 'N', m, n, ptr<T>(A) + b * m * n, ld(m),
          ptr<lapack::Real<T>>(S) + b * k, vectors ? ptr<T>(U) + b * m * ucols : dummy, vectors ? ld(m) : 1,
          vectors ? ptr<T>(Vh) + b * vrows * n : dummy, vectors ? ld(vrows) : 1));
    }
  });
  return {U, S, Vh, info};
}

std::tuple<Tensor, Tensor, Tensor> geev_(const Tensor& A, bool vectors) {
  check_fortran(A, "eig", "A");
  EMBER_CHECK(A.is_cpu(), "eig: internal error: geev runs on the CPU");
  const int64_t n = A.size(-1), nb = batch_count(A);
  EMBER_CHECK(A.size(-2) == n, "eig: internal error: A must be square");
  const ScalarType ct = (A.dtype() == ScalarType::Float32 || A.dtype() == ScalarType::ComplexFloat)
                            ? ScalarType::ComplexFloat
                            : ScalarType::ComplexDouble;
  const Shape bs = batch_shape(A);
  Tensor w = Tensor::empty(with(bs, {n}), ct, A.device());
  Tensor V;
  if (vectors) V = transpose(Tensor::empty(with(bs, {n, n}), ct, A.device()), -2, -1);
  Tensor info = new_int(bs, A.device());
  int32_t* in = ptr<int32_t>(info);
  const char job = vectors ? 'V' : 'N';
  lapack_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    using R = lapack::Real<T>;
    using C = std::complex<R>;
    C* wc = ptr<C>(w);
    for (int64_t b = 0; b < nb; ++b) {
      if (n == 0) {
        in[b] = 0;
        continue;
      }
      T* a = ptr<T>(A) + b * n * n;
      C* wb = wc + b * n;
      C* vb = vectors ? ptr<C>(V) + b * n * n : nullptr;
      if constexpr (lapack::is_complex_element<T>) {
        T dummy[1] = {T(0)};
        in[b] = static_cast<int32_t>(
            lapack::geev<T>(job, n, a, ld(n), wb, vectors ? vb : dummy, vectors ? ld(n) : 1));
      } else {
        // Real geev: eigenvalues wr + i wi; a conjugate pair (wi[j] > 0) has the vectors
        // vr[:, j] +- i vr[:, j + 1].
        std::vector<T> wr(static_cast<size_t>(n)), wi(static_cast<size_t>(n));
        std::vector<T> vr(vectors ? static_cast<size_t>(n * n) : 1);
        const int64_t st = lapack::geev<T>(job, n, a, ld(n), wr.data(), wi.data(), vr.data(),
                                           vectors ? ld(n) : 1);
        in[b] = static_cast<int32_t>(st);
        for (int64_t j = 0; j < n; ++j) wb[j] = C(wr[j], wi[j]);
        if (!vectors) continue;
        for (int64_t j = 0; j < n; ++j) {
          const T* re = vr.data() + j * n;
          if (wi[j] == T(0) || j + 1 >= n) {
            for (int64_t i = 0; i < n; ++i) vb[j * n + i] = C(re[i], 0);
            continue;
          }
          const T* im = re + n;
          for (int64_t i = 0; i < n; ++i) {
            vb[j * n + i] = C(re[i], im[i]);
            vb[(j + 1) * n + i] = C(re[i], -im[i]);
          }
          ++j;
        }
      }
    }
  });
  return {w, V, info};
}

std::tuple<Tensor, Tensor, Tensor> lstsq_(const Tensor& A, const Tensor& B,
                                          const std::string& driver, double rcond) {
  check_fortran(A, "lstsq", "A");
  check_fortran(B, "lstsq", "B");
  check_like(A, B, "lstsq");
  EMBER_CHECK(A.is_cpu(), "lstsq: internal error: the LAPACK drivers run on the CPU");
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), nrhs = B.size(-1);
  const int64_t ldb = B.size(-2), nb = batch_count(A);
  EMBER_CHECK(ldb >= std::max(m, n), "lstsq: internal error: B is too short");
  const Shape bs = batch_shape(A);
  const bool has_rank = driver != "gels", has_sv = driver == "gelsd" || driver == "gelss";
  Tensor rank = has_rank ? new_int(bs, A.device(), ScalarType::Int64) : Tensor();
  EMBER_CHECK(driver == "gels" || !is_complex(A.dtype()),
              "lstsq: internal error: complex least squares use the gels driver");
  Tensor sv = has_sv ? Tensor::empty(with(bs, {k}), A.dtype(), A.device()) : Tensor();
  Tensor info = new_int(bs, A.device());
  int32_t* in = ptr<int32_t>(info);
  lapack_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    for (int64_t b = 0; b < nb; ++b) {
      T* a = ptr<T>(A) + b * m * n;
      T* x = ptr<T>(B) + b * ldb * nrhs;
      int64_t r = 0, status = 0;
      if (k == 0 || nrhs == 0) {
        in[b] = 0;
        if (has_rank) ptr<int64_t>(rank)[b] = 0;
        continue;
      }
      if constexpr (lapack::is_complex_element<T>) {
        status = lapack::gels<T>('N', m, n, nrhs, a, ld(m), x, ld(ldb));
      } else if (driver == "gels") {
        status = lapack::gels<T>('N', m, n, nrhs, a, ld(m), x, ld(ldb));
      } else if (driver == "gelsy") {
        status = lapack::gelsy<T>(m, n, nrhs, a, ld(m), x, ld(ldb), static_cast<T>(rcond), &r);
      } else if (driver == "gelsd") {
        status = lapack::gelsd<T>(m, n, nrhs, a, ld(m), x, ld(ldb), ptr<T>(sv) + b * k,
                                  static_cast<T>(rcond), &r);
      } else {
        status = lapack::gelss<T>(m, n, nrhs, a, ld(m), x, ld(ldb), ptr<T>(sv) + b * k,
                                  static_cast<T>(rcond), &r);
      }
      in[b] = static_cast<int32_t>(status);
      if (has_rank) ptr<int64_t>(rank)[b] = r;
    }
  });
  return {rank, sv, info};
}

std::tuple<Tensor, Tensor> ldl_factor_(const Tensor& A, bool upper, bool hermitian) {
  check_fortran(A, "ldl_factor", "A");
  EMBER_CHECK(A.is_cpu(), "ldl_factor: internal error: sytrf runs on the CPU");
  const int64_t n = A.size(-1), nb = batch_count(A);
  Tensor piv = new_int(with(batch_shape(A), {n}), A.device());
  Tensor info = new_int(batch_shape(A), A.device());
  int32_t* in = ptr<int32_t>(info);
  lapack_dispatch(A.dtype(), [&](auto z) {
    using T = decltype(z);
    for (int64_t b = 0; b < nb; ++b) {
      in[b] = n == 0 ? 0
                     : static_cast<int32_t>(lapack::sytrf<T>(upper ? 'U' : 'L', n,
                                                             ptr<T>(A) + b * n * n, ld(n),
                                                             ptr<int32_t>(piv) + b * n, hermitian));
    }
  });
  return {piv, info};
}

void ldl_solve_(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool upper,
                bool hermitian) {
  check_fortran(LD, "ldl_solve", "LD");
  check_fortran(B, "ldl_solve", "B");
  check_like(LD, B, "ldl_solve");
  EMBER_CHECK(LD.is_cpu(), "ldl_solve: internal error: sytrs runs on the CPU");
  const int64_t n = LD.size(-1), nrhs = B.size(-1), nb = batch_count(LD);
  if (n == 0 || nrhs == 0) return;
  lapack_dispatch(LD.dtype(), [&](auto z) {
    using T = decltype(z);
    for (int64_t b = 0; b < nb; ++b) {
      lapack::sytrs<T>(upper ? 'U' : 'L', n, nrhs, ptr<T>(LD) + b * n * n, ld(n),
                       ptr<int32_t>(pivots) + b * n, ptr<T>(B) + b * n * nrhs, ld(n),
                       hermitian);
    }
  });
}

}  // namespace ember::ops::linalg
