// The CPU's BLAS and LAPACK, opened with dlopen on first use (import ember
// loads nothing): by default the OpenBLAS that NumPy's wheels bundle
// (numpy.libs/libscipy_openblas64_-*.so, symbols scipy_dgemm_64_ ...), so
// ember needs no new dependency, and a process that also uses NumPy shares one
// OpenBLAS (one thread pool). Products and factorizations call it directly
// from C++: nothing re-enters Python after the library is found.
//
// - Where to look: the bindings register a locator (bindings/linalg_lapack.cpp)
//   that lists candidate files once, at first use: $EMBER_LAPACK_LIBRARY when
//   set, then NumPy's and the scipy-openblas wheels' bundled libraries (found
//   without importing NumPy). The system's libopenblas / libflexiblas /
//   liblapack+libblas come after them.
// - Symbols: "<prefix><name>_<suffix>" in Fortran's calling convention; the
//   ILP64 builds (suffix 64_) take 64-bit integers, the plain ones (suffix _)
//   32-bit: every wrapper here takes int64_t and converts. Character arguments
//   get gfortran's hidden length arguments.
// - Matrices are column-major (Fortran's order), as LAPACK's. The wrappers
//   query and allocate LAPACK's workspaces themselves.
// - The float/double wrappers are templates on the element type so complex
//   types can join (c/z routines) without a new interface.
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace ember::ops::lapack {

// The real type of an element type (float for std::complex<float>).
template <typename T>
struct RealOf {
  using type = T;
};
template <typename T>
struct RealOf<std::complex<T>> {
  using type = T;
};
template <typename T>
using Real = typename RealOf<T>::type;
template <typename T>
inline constexpr bool is_complex_element = !std::is_same_v<T, Real<T>>;

// Candidate library files, most preferred first (may be empty).
using Locator = std::vector<std::string> (*)();
void set_locator(Locator locator) noexcept;

// Opens the library on first call (thread-safe); throws ember::Error naming
// what it tried when none has BLAS and LAPACK.
void ensure_loaded();
bool loaded() noexcept;
// The file the routines came from, and whether it takes 64-bit integers.
std::string library_path();
bool ilp64();

// ---- BLAS ----------------------------------------------------------------
// trans: 'N', 'T' or (complex) 'C'. float, double, std::complex<float> and
// std::complex<double> (c/z routines) unless a routine says otherwise.
template <typename T>
void gemm(char transa, char transb, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
          int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc);
template <typename T>
void trsm(char side, char uplo, char transa, char diag, int64_t m, int64_t n, T alpha, const T* a,
          int64_t lda, T* b, int64_t ldb);

// ---- LAPACK (each returns LAPACK's info) ------------------------------------
// Pivots are 1-based int32 as LAPACK's and torch's.
template <typename T>
int64_t getrf(int64_t m, int64_t n, T* a, int64_t lda, int32_t* ipiv);
template <typename T>
int64_t getrs(char trans, int64_t n, int64_t nrhs, const T* a, int64_t lda, const int32_t* ipiv,
              T* b, int64_t ldb);
template <typename T>
int64_t potrf(char uplo, int64_t n, T* a, int64_t lda);
template <typename T>
int64_t potrs(char uplo, int64_t n, int64_t nrhs, const T* a, int64_t lda, T* b, int64_t ldb);
template <typename T>
int64_t geqrf(int64_t m, int64_t n, T* a, int64_t lda, T* tau);
// Q's first n columns from geqrf's reflectors (k = number of reflectors).
template <typename T>
int64_t orgqr(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, const T* tau);
template <typename T>
int64_t ormqr(char side, char trans, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
              const T* tau, T* c, int64_t ldc);
// jobz 'N' or 'V'; w ascending (real). Complex: heevd (Hermitian).
template <typename T>
int64_t syevd(char jobz, char uplo, int64_t n, T* a, int64_t lda, Real<T>* w);
// jobz 'N', 'S' or 'A'; a is destroyed; s real.
template <typename T>
int64_t gesdd(char jobz, int64_t m, int64_t n, T* a, int64_t lda, Real<T>* s, T* u, int64_t ldu,
              T* vt, int64_t ldvt);
// Least squares (a destroyed, b [ldb x nrhs] holds X in its first n rows).
// gels: QR/LQ, full rank (also complex). gelsy: pivoted QR, rank. gelsd/gelss:
// SVD, rank and s (gelsy/gelsd/gelss: float and double only).
template <typename T>
int64_t gels(char trans, int64_t m, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb);
template <typename T>
int64_t gelsy(int64_t m, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb, T rcond,
              int64_t* rank);
template <typename T>
int64_t gelsd(int64_t m, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb, T* s,
              T rcond, int64_t* rank);
template <typename T>
int64_t gelss(int64_t m, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb, T* s,
              T rcond, int64_t* rank);
// Bunch-Kaufman LDL^T (uplo 'L' or 'U'); pivots as LAPACK's (negative: 2x2 blocks).
// Complex: symmetric (csytrf, L D L^T), or Hermitian (chetrf, L D L^H) when `hermitian`.
template <typename T>
int64_t sytrf(char uplo, int64_t n, T* a, int64_t lda, int32_t* ipiv, bool hermitian = false);
template <typename T>
int64_t sytrs(char uplo, int64_t n, int64_t nrhs, const T* a, int64_t lda, const int32_t* ipiv,
              T* b, int64_t ldb, bool hermitian = false);
// Real nonsymmetric eigenproblem: eigenvalues wr + i wi, right vectors in vr
// (LAPACK's packed real form for conjugate pairs) when jobvr == 'V'.
template <typename T>
int64_t geev(char jobvr, int64_t n, T* a, int64_t lda, T* wr, T* wi, T* vr, int64_t ldvr);
// Complex nonsymmetric eigenproblem (cgeev/zgeev): eigenvalues w, right vectors vr.
template <typename C>
int64_t geev(char jobvr, int64_t n, C* a, int64_t lda, C* w, C* vr, int64_t ldvr);

}  // namespace ember::ops::lapack
