#include "ops/linalg/lapack_api.hpp"

#include <complex>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <mutex>
#include <type_traits>

#include "runtime/errors.hpp"

namespace ember::ops::lapack {

namespace {

enum Routine {
  GEMM, TRSM, GETRF, GETRS, POTRF, POTRS, GEQRF, ORGQR, ORMQR, SYEVD, GESDD, GELS, GELSY,
  GELSD, GELSS, SYTRF, SYTRS, GEEV, HETRF, HETRS, kRoutines
};
// Names without the type letter (s/d prepended); the complex (c/z) names
// differ where LAPACK's do: Hermitian heevd, unitary ungqr/unmqr.
const char* const kNames[kRoutines] = {"gemm",  "trsm",  "getrf", "getrs", "potrf",
                                       "potrs", "geqrf", "orgqr", "ormqr", "syevd",
                                       "gesdd", "gels",  "gelsy", "gelsd", "gelss",
                                       "sytrf", "sytrs", "geev",  "sytrf", "sytrs"};
const char* const kComplexNames[kRoutines] = {"gemm",  "trsm",  "getrf", "getrs", "potrf",
                                              "potrs", "geqrf", "ungqr", "unmqr", "heevd",
                                              "gesdd", "gels",  "gelsy", "gelsd", "gelss",
                                              "sytrf", "sytrs", "geev",  "hetrf", "hetrs"};

struct Scheme {
  const char* prefix;
  const char* suffix;
  bool ilp64;
};
// NumPy >= 2's scipy-openblas64, NumPy 1.x's openblas64_, scipy-openblas32,
// then plain LP64 Fortran names.
const Scheme kSchemes[] = {
    {"scipy_", "_64_", true}, {"", "_64_", true}, {"scipy_", "_", false}, {"", "_", false}};

std::atomic<Locator> g_locator{nullptr};
std::atomic<bool> g_loaded{false};

struct Loaded {
  void* handle = nullptr;
  std::string path;
  bool ilp64 = false;
  void* sym[kRoutines][4] = {};  // [routine][s, d, c, z]
  std::string tried;             // what failed, for the message

  bool try_open(const std::string& file) {
    void* h = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      tried += "\n  " + file + ": " + (e ? e : "cannot be opened");
      return false;
    }
    for (const Scheme& s : kSchemes) {
      const std::string gemm = std::string(s.prefix) + "dgemm" + s.suffix;
      const std::string getrf = std::string(s.prefix) + "dgetrf" + s.suffix;
      if (!dlsym(h, gemm.c_str()) || !dlsym(h, getrf.c_str())) continue;
      handle = h;
      ilp64 = s.ilp64;
      for (int r = 0; r < kRoutines; ++r) {
        for (int t = 0; t < 4; ++t) {
          const std::string name = std::string(s.prefix) + "sdcz"[t] +
                                   (t < 2 ? kNames[r] : kComplexNames[r]) + s.suffix;
          sym[r][t] = dlsym(h, name.c_str());
        }
      }
      Dl_info info{};
      path = dladdr(sym[GEMM][1], &info) && info.dli_fname ? info.dli_fname : file;
      return true;
    }
    tried += "\n  " + file + ": has no BLAS/LAPACK symbols ember knows (dgemm_, dgetrf_)";
    dlclose(h);
    return false;
  }

  Loaded() {
    std::vector<std::string> files;
    if (const char* env = std::getenv("EMBER_LAPACK_LIBRARY")) {
      if (*env) files.emplace_back(env);
    }
    if (Locator loc = g_locator.load()) {
      for (std::string& f : loc()) files.push_back(std::move(f));
    }
    for (const char* f : {"libopenblas.so.0", "libflexiblas.so.3", "liblapack.so.3"}) {
      files.emplace_back(f);
    }
    for (const std::string& f : files) {
      if (try_open(f)) return;
    }
  }
};

std::mutex g_mu;
Loaded* g_instance = nullptr;  // never destroyed: used until exit

Loaded& lib() {
  if (g_loaded.load(std::memory_order_acquire)) return *g_instance;
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_instance) g_instance = new Loaded();
  if (!g_instance->handle) {
    // Forget this attempt: a later call may find a library installed since.
    const std::string tried = g_instance->tried;
    delete g_instance;
    g_instance = nullptr;
    throw Error(detail::str(
        "ember found no BLAS/LAPACK library for linear algebra on the CPU. It uses the "
        "OpenBLAS that NumPy's wheels bundle (numpy.libs/libscipy_openblas64_*.so): install "
        "NumPy from a wheel (pip install numpy) or the scipy-openblas64 wheel, or set "
        "EMBER_LAPACK_LIBRARY to an OpenBLAS/LAPACK shared library. Tried:",
        tried));
  }
  g_loaded.store(true, std::memory_order_release);
  return *g_instance;
}

template <typename T>
constexpr int tix() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> ||
                    std::is_same_v<T, std::complex<float>> ||
                    std::is_same_v<T, std::complex<double>>,
                "LAPACK wrappers take float, double, complex<float> or complex<double>");
  if constexpr (std::is_same_v<T, double>) return 1;
  if constexpr (std::is_same_v<T, std::complex<float>>) return 2;
  if constexpr (std::is_same_v<T, std::complex<double>>) return 3;
  return 0;
}

template <typename Fn, typename T>
Fn sym(Routine r) {
  Loaded& l = lib();
  void* p = l.sym[r][tix<T>()];
  if (!p) {
    throw Error(detail::str("the BLAS/LAPACK library ember opened (", l.path, ") lacks ",
                            "sdcz"[tix<T>()], tix<T>() < 2 ? kNames[r] : kComplexNames[r],
                            "; set EMBER_LAPACK_LIBRARY to a complete LAPACK (OpenBLAS)"));
  }
  return reinterpret_cast<Fn>(p);
}

// Calls f with a zero of the library's integer type.
template <typename F>
int64_t with_int(F&& f) {
  if (lib().ilp64) return f(int64_t{0});
  return f(int32_t{0});
}

using flen = size_t;  // gfortran's hidden CHARACTER lengths

// LAPACK returns workspace sizes as a floating value (the real part for complex).
template <typename T>
int64_t lwork_of(T w) {
  return std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(static_cast<double>(std::real(w)) * 1.0001)));
}

template <typename T>
constexpr bool is_complex_v = tix<T>() >= 2;

// Pivots: int32 everywhere; an ILP64 library writes into a copy.
template <typename I>
struct Pivots {
  std::vector<I> buf;
  int32_t* out;
  I* get(int32_t* p, int64_t n) {
    if constexpr (sizeof(I) == sizeof(int32_t)) {
      return reinterpret_cast<I*>(p);
    } else {
      out = p;
      buf.assign(static_cast<size_t>(std::max<int64_t>(n, 1)), 0);
      return buf.data();
    }
  }
  const I* in(const int32_t* p, int64_t n) {
    if constexpr (sizeof(I) == sizeof(int32_t)) {
      return reinterpret_cast<const I*>(p);
    } else {
      buf.assign(p, p + n);
      if (buf.empty()) buf.push_back(0);
      return buf.data();
    }
  }
  void flush(int64_t n) {
    if constexpr (sizeof(I) != sizeof(int32_t)) {
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<int32_t>(buf[i]);
    }
  }
};

}  // namespace

void set_locator(Locator locator) noexcept { g_locator.store(locator); }
void ensure_loaded() { (void)lib(); }
bool loaded() noexcept { return g_loaded.load(std::memory_order_acquire); }
std::string library_path() { return lib().path; }
bool ilp64() { return lib().ilp64; }

template <typename T>
void gemm(char transa, char transb, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
          int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  with_int([&](auto z) -> int64_t {
    using I = decltype(z);
    using Fn = void (*)(const char*, const char*, const I*, const I*, const I*, const T*,
                        const T*, const I*, const T*, const I*, const T*, T*, const I*, flen,
                        flen);
    const I M = m, N = n, K = k, LDA = lda, LDB = ldb, LDC = ldc;
    sym<Fn, T>(GEMM)(&transa, &transb, &M, &N, &K, &alpha, a, &LDA, b, &LDB, &beta, c, &LDC, 1,
                     1);
    return 0;
  });
}

template <typename T>
void trsm(char side, char uplo, char transa, char diag, int64_t m, int64_t n, T alpha, const T* a,
          int64_t lda, T* b, int64_t ldb) {
  with_int([&](auto z) -> int64_t {
    using I = decltype(z);
    using Fn = void (*)(const char*, const char*, const char*, const char*, const I*, const I*,
                        const T*, const T*, const I*, T*, const I*, flen, flen, flen, flen);
    const I M = m, N = n, LDA = lda, LDB = ldb;
    sym<Fn, T>(TRSM)(&side, &uplo, &transa, &diag, &M, &N, &alpha, a, &LDA, b, &LDB, 1, 1, 1, 1);
    return 0;
  });
}

template <typename T>
int64_t getrf(int64_t m, int64_t n, T* a, int64_t lda, int32_t* ipiv) {
  return with_int([&](auto z) -> int64_t {
    using I = decltype(z);
    using Fn = void (*)(const I*, const I*, T*, const I*, I*, I*);
    const I M = m, N = n, LDA = lda;
    I info = 0;
    const int64_t k = std::min(m, n);
    Pivots<I> p;
    sym<Fn, T>(GETRF)(&M, &N, a, &LDA, p.get(ipiv, k), &info);
    p.flush(k);
    return info;
  });
}

template <typename T>
int64_t getrs(char trans, int64_t n, int64_t nrhs, const T* a, int64_t lda, const int32_t* ipiv,
              T* b, int64_t ldb) {
  return with_int([&](auto z) -> int64_t {
    using I = decltype(z);
    using Fn = void (*)(const char*, const I*, const I*, const T*, const I*, const I*, T*,
                        const I*, I*, flen);
    const I N = n, NRHS = nrhs, LDA = lda, LDB = ldb;
    I info = 0;
    Pivots<I> p;
    sym<Fn, T>(GETRS)(&trans, &N, &NRHS, a, &LDA, p.in(ipiv, n), b, &LDB, &info, 1);
    return info;
  });
}

template <typename T>
int64_t potrf(char uplo, int64_t n, T* a, int64_t lda) {
  return with_int([&](auto z) -> int64_t {
    using I = decltype(z);
    using Fn = void (*)(const char*, const I*, T*, const I*, I*, flen);
    const I N = n, LDA = lda;
    I info = 0;
    sym<Fn, T>(POTRF)(&uplo, &N, a, &LDA, &info, 1);
    return info;
  });
}

template <typename T>
int64_t potrs(char uplo, int64_t n, int64_t nrhs, const T* a, int64_t lda, T* b, int64_t ldb) {
  return with_int([&](auto z) -> int64_t {
    using I = decltype(z);
    using Fn = void (*)(const char*, const I*, const I*, const T*, const I*, T*, const I*, I*,
                        flen);
    const I N = n, NRHS = nrhs, LDA = lda, LDB = ldb;
    I info = 0;
    sym<Fn, T>(POTRS)(&uplo, &N, &NRHS, a, &LDA, b, &LDB, &info, 1);
    return info;
  });
}

template <typename T>
int64_t geqrf(int64_t m, int64_t n, T* a, int64_t lda, T* tau) {
  return with_int([&](auto z) -> int64_t {
    using I = decltype(z);
    using Fn = void (*)(const I*, const I*, T*, const I*, T*, T*, const I*, I*);
    const I M = m, N = n, LDA = lda;
    I info = 0, lwork = -1;
    T q = 0;
    auto f = sym<Fn, T>(GEQRF);
    f(&M, &N, a, &LDA, tau, &q, &lwork, &info);
    if (info) return info;
    lwork = static_cast<I>(lwork_of(q));
    std::vector<T> work(static_cast<size_t>(lwork));
    f(&M, &N, a, &LDA, tau, work.data(), &lwork, &info);
    return info;
  });
}

template <typename T>
int64_t orgqr(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, const T* tau) {
  return with_int([&](auto z) -> int64_t {
    using I = decltype(z);
    using Fn = void (*)(const I*, const I*, const I*, T*, const I*, const T*, T*, const I*, I*);
    const I M = m, N = n, K = k, LDA = lda;
    I info = 0, lwork = -1;
    T q = 0;
    auto f = sym<Fn, T>(ORGQR);
    f(&M, &N, &K, a, &LDA, tau, &q, &lwork, &info);
    if (info) return info;
    lwork = static_cast<I>(lwork_of(q));
    std::vector<T> work(static_cast<size_t>(lwork));
    f(&M, &N, &K, a, &LDA, tau, work.data(), &lwork, &info);
    return info;
  });
}

template <typename T>
int64_t ormqr(char side, char trans, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
              const T* tau, T* c, int64_t ldc) {
  return with_int([&](auto z) -> int64_t {
    using I = decltype(z);
    using Fn = void (*)(const char*, const char*, const I*, const I*, const I*, const T*,
                        const I*, const T*, T*, const I*, T*, const I*, I*, flen, flen);
    const I M = m, N = n, K = k, LDA = lda, LDC = ldc;
    I info = 0, lwork = -1;
    T q = 0;
    auto f = sym<Fn, T>(ORMQR);
    f(&side, &trans, &M, &N, &K, a, &LDA, tau, c, &LDC, &q, &lwork, &info, 1, 1);
    if (info) return info;
    lwork = static_cast<I>(lwork_of(q));
    std::vector<T> work(static_cast<size_t>(lwork));
    f(&side, &trans, &M, &N, &K, a, &LDA, tau, c, &LDC, work.data(), &lwork, &info, 1, 1);
    return info;
  });
}

template <typename T>
int64_t syevd(char jobz, char uplo, int64_t n, T* a, int64_t lda, Real<T>* w) {
  return with_int([&](auto z) -> int64_t {
    using I = decltype(z);
    using R = Real<T>;
    const I N = n, LDA = lda;
    I info = 0, lwork = -1, liwork = -1, iq = 0;
    T q = 0;
    if constexpr (is_complex_v<T>) {
      // heevd: the real workspace rwork comes after work.
      using Fn = void (*)(const char*, const char*, const I*, T*, const I*, R*, T*, const I*,
                          R*, const I*, I*, const I*, I*, flen, flen);
      I lrwork = -1;
      R rq = 0;
      auto f = sym<Fn, T>(SYEVD);
      f(&jobz, &uplo, &N, a, &LDA, w, &q, &lwork, &rq, &lrwork, &iq, &liwork, &info, 1, 1);
      if (info) return info;
      lwork = static_cast<I>(lwork_of(q));
      lrwork = static_cast<I>(lwork_of(rq));
      liwork = std::max<I>(1, iq);
      std::vector<T> work(static_cast<size_t>(lwork));
      std::vector<R> rwork(static_cast<size_t>(lrwork));
      std::vector<I> iwork(static_cast<size_t>(liwork));
      f(&jobz, &uplo, &N, a, &LDA, w, work.data(), &lwork, rwork.data(), &lrwork, iwork.data(),
        &liwork, &info, 1, 1);
      return info;
    } else {
      using Fn = void (*)(const char*, const char*, const I*, T*, const I*, T*, T*, const I*, I*,
                          const I*, I*, flen, flen);
      auto f = sym<Fn, T>(SYEVD);
      f(&jobz, &uplo, &N, a, &LDA, w, &q, &lwork, &iq, &liwork, &info, 1, 1);
      if (info) return info;
      lwork = static_cast<I>(lwork_of(q));
      liwork = std::max<I>(1, iq);
      std::vector<T> work(static_cast<size_t>(lwork));
      std::vector<I> iwork(static_cast<size_t>(liwork));
      f(&jobz, &uplo, &N, a, &LDA, w, work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
      return info;
    }
  });
}

template <typename T>
int64_t gesdd(char jobz, int64_t m, int64_t n, T* a, int64_t lda, Real<T>* s, T* u, int64_t ldu,
              T* vt, int64_t ldvt) {
  return with_int([&](auto z) -> int64_t {
    using I = decltype(z);
    using R = Real<T>;
    const I M = m, N = n, LDA = lda, LDU = ldu, LDVT = ldvt;
    I info = 0, lwork = -1;
    T q = 0;
    const int64_t mn = std::min(m, n), mx = std::max(m, n);
    std::vector<I> iwork(static_cast<size_t>(std::max<int64_t>(1, 8 * mn)));
    if constexpr (is_complex_v<T>) {
      // The complex gesdd takes a real workspace (LAPACK's documented size) before iwork.
      using Fn = void (*)(const char*, const I*, const I*, T*, const I*, R*, T*, const I*, T*,
                          const I*, T*, const I*, R*, I*, I*, flen);
      const int64_t lrwork =
          jobz == 'N' ? 7 * mn
                      : std::max(5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn);
      std::vector<R> rwork(static_cast<size_t>(std::max<int64_t>(1, lrwork)));
      auto f = sym<Fn, T>(GESDD);
      f(&jobz, &M, &N, a, &LDA, s, u, &LDU, vt, &LDVT, &q, &lwork, rwork.data(), iwork.data(),
        &info, 1);
      if (info) return info;
      lwork = static_cast<I>(lwork_of(q));
      std::vector<T> work(static_cast<size_t>(lwork));
      f(&jobz, &M, &N, a, &LDA, s, u, &LDU, vt, &LDVT, work.data(), &lwork, rwork.data(),
        iwork.data(), &info, 1);
      return info;
    } else {
      using Fn = void (*)(const char*, const I*, const I*, T*, const I*, T*, T*, const I*, T*,
                          const I*, T*, const I*, I*, I*, flen);
      auto f = sym<Fn, T>(GESDD);
      f(&jobz, &M, &N, a, &LDA, s, u, &LDU, vt, &LDVT, &q, &lwork, iwork.data(), &info, 1);
      if (info) return info;
      lwork = static_cast<I>(lwork_of(q));
      std::vector<T> work(static_cast<size_t>(lwork));
      f(&jobz, &M, &N, a, &LDA, s, u, &LDU, vt, &LDVT, work.data(), &lwork, iwork.data(), &info,
        1);
      return info;
    }
  });
}

template <typename T>
int64_t gels(char trans, int64_t m, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b,
             int64_t ldb) {
  return with_int([&](auto z) -> int64_t {
    using I = decltype(z);
    using Fn = void (*)(const char*, const I*, const I*, const I*, T*, const I*, T*, const I*,
                        T*, const I*, I*, flen);
    const I M = m, N = n, NRHS = nrhs, LDA = lda, LDB = ldb;
    I info = 0, lwork = -1;
    T q = 0;
    auto f = sym<Fn, T>(GELS);
    f(&trans, &M, &N, &NRHS, a, &LDA, b, &LDB, &q, &lwork, &info, 1);
    if (info) return info;
    lwork = static_cast<I>(lwork_of(q));
    std::vector<T> work(static_cast<size_t>(lwork));
    f(&trans, &M, &N, &NRHS, a, &LDA, b, &LDB, work.data(), &lwork, &info, 1);
    return info;
  });
}

template <typename T>
int64_t gelsy(int64_t m, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb, T rcond,
              int64_t* rank) {
  return with_int([&](auto z) -> int64_t {
    using I = decltype(z);
    using Fn = void (*)(const I*, const I*, const I*, T*, const I*, T*, const I*, I*, const T*,
                        I*, T*, const I*, I*);
    const I M = m, N = n, NRHS = nrhs, LDA = lda, LDB = ldb;
    I info = 0, lwork = -1, r = 0;
    T q = 0;
    std::vector<I> jpvt(static_cast<size_t>(std::max<int64_t>(1, n)), 0);
    auto f = sym<Fn, T>(GELSY);
    f(&M, &N, &NRHS, a, &LDA, b, &LDB, jpvt.data(), &rcond, &r, &q, &lwork, &info);
    if (info) return info;
    lwork = static_cast<I>(lwork_of(q));
    std::vector<T> work(static_cast<size_t>(lwork));
    f(&M, &N, &NRHS, a, &LDA, b, &LDB, jpvt.data(), &rcond, &r, work.data(), &lwork, &info);
    *rank = r;
    return info;
  });
}

template <typename T>
int64_t gelsd(int64_t m, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb, T* s,
              T rcond, int64_t* rank) {
  return with_int([&](auto z) -> int64_t {
    using I = decltype(z);
    using Fn = void (*)(const I*, const I*, const I*, T*, const I*, T*, const I*, T*, const T*,
                        I*, T*, const I*, I*, I*);
    const I M = m, N = n, NRHS = nrhs, LDA = lda, LDB = ldb;
    I info = 0, lwork = -1, r = 0, iq = 0;
    T q = 0;
    auto f = sym<Fn, T>(GELSD);
    f(&M, &N, &NRHS, a, &LDA, b, &LDB, s, &rcond, &r, &q, &lwork, &iq, &info);
    if (info) return info;
    lwork = static_cast<I>(lwork_of(q));
    std::vector<T> work(static_cast<size_t>(lwork));
    std::vector<I> iwork(static_cast<size_t>(std::max<I>(1, iq)));
    f(&M, &N, &NRHS, a, &LDA, b, &LDB, s, &rcond, &r, work.data(), &lwork, iwork.data(), &info);
    *rank = r;
    return info;
  });
}

template <typename T>
int64_t gelss(int64_t m, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb, T* s,
              T rcond, int64_t* rank) {
  return with_int([&](auto z) -> int64_t {
    using I = decltype(z);
    using Fn = void (*)(const I*, const I*, const I*, T*, const I*, T*, const I*, T*, const T*,
                        I*, T*, const I*, I*);
    const I M = m, N = n, NRHS = nrhs, LDA = lda, LDB = ldb;
    I info = 0, lwork = -1, r = 0;
    T q = 0;
    auto f = sym<Fn, T>(GELSS);
    f(&M, &N, &NRHS, a, &LDA, b, &LDB, s, &rcond, &r, &q, &lwork, &info);
    if (info) return info;
    lwork = static_cast<I>(lwork_of(q));
    std::vector<T> work(static_cast<size_t>(lwork));
    f(&M, &N, &NRHS, a, &LDA, b, &LDB, s, &rcond, &r, work.data(), &lwork, &info);
    *rank = r;
    return info;
  });
}

template <typename T>
int64_t sytrf(char uplo, int64_t n, T* a, int64_t lda, int32_t* ipiv, bool hermitian) {
  return with_int([&](auto z) -> int64_t {
    using I = decltype(z);
    using Fn = void (*)(const char*, const I*, T*, const I*, I*, T*, const I*, I*, flen);
    const I N = n, LDA = lda;
    I info = 0, lwork = -1;
    T q = 0;
    Pivots<I> p;
    I* piv = p.get(ipiv, n);
    auto f = sym<Fn, T>(hermitian ? HETRF : SYTRF);
    f(&uplo, &N, a, &LDA, piv, &q, &lwork, &info, 1);
    if (info) return info;
    lwork = static_cast<I>(lwork_of(q));
    std::vector<T> work(static_cast<size_t>(lwork));
    f(&uplo, &N, a, &LDA, piv, work.data(), &lwork, &info, 1);
    p.flush(n);
    return info;
  });
}

template <typename T>
int64_t sytrs(char uplo, int64_t n, int64_t nrhs, const T* a, int64_t lda, const int32_t* ipiv,
              T* b, int64_t ldb, bool hermitian) {
  return with_int([&](auto z) -> int64_t {
    using I = decltype(z);
    using Fn = void (*)(const char*, const I*, const I*, const T*, const I*, const I*, T*,
                        const I*, I*, flen);
    const I N = n, NRHS = nrhs, LDA = lda, LDB = ldb;
    I info = 0;
    Pivots<I> p;
    sym<Fn, T>(hermitian ? HETRS : SYTRS)(&uplo, &N, &NRHS, a, &LDA, p.in(ipiv, n), b, &LDB, &info, 1);
    return info;
  });
}

template <typename T>
int64_t geev(char jobvr, int64_t n, T* a, int64_t lda, T* wr, T* wi, T* vr, int64_t ldvr) {
  return with_int([&](auto z) -> int64_t {
    using I = decltype(z);
    using Fn = void (*)(const char*, const char*, const I*, T*, const I*, T*, T*, T*, const I*,
                        T*, const I*, T*, const I*, I*, flen, flen);
    const char jobvl = 'N';
    const I N = n, LDA = lda, LDVL = 1, LDVR = std::max<int64_t>(1, ldvr);
    I info = 0, lwork = -1;
    T q = 0, vl = 0;
    auto f = sym<Fn, T>(GEEV);
    f(&jobvl, &jobvr, &N, a, &LDA, wr, wi, &vl, &LDVL, vr, &LDVR, &q, &lwork, &info, 1, 1);
    if (info) return info;
    lwork = static_cast<I>(lwork_of(q));
    std::vector<T> work(static_cast<size_t>(lwork));
    f(&jobvl, &jobvr, &N, a, &LDA, wr, wi, &vl, &LDVL, vr, &LDVR, work.data(), &lwork, &info, 1,
      1);
    return info;
  });
}

template <typename C>
int64_t geev(char jobvr, int64_t n, C* a, int64_t lda, C* w, C* vr, int64_t ldvr) {
  return with_int([&](auto z) -> int64_t {
    using I = decltype(z);
    using R = Real<C>;
    using Fn = void (*)(const char*, const char*, const I*, C*, const I*, C*, C*, const I*, C*,
                        const I*, C*, const I*, R*, I*, flen, flen);
    const char jobvl = 'N';
    const I N = n, LDA = lda, LDVL = 1, LDVR = std::max<int64_t>(1, ldvr);
    I info = 0, lwork = -1;
    C q = 0, vl = 0;
    std::vector<R> rwork(static_cast<size_t>(std::max<int64_t>(1, 2 * n)));
    auto f = sym<Fn, C>(GEEV);
    f(&jobvl, &jobvr, &N, a, &LDA, w, &vl, &LDVL, vr, &LDVR, &q, &lwork, rwork.data(), &info, 1,
      1);
    if (info) return info;
    lwork = static_cast<I>(lwork_of(q));
    std::vector<C> work(static_cast<size_t>(lwork));
    f(&jobvl, &jobvr, &N, a, &LDA, w, &vl, &LDVL, vr, &LDVR, work.data(), &lwork, rwork.data(),
      &info, 1, 1);
    return info;
  });
}

#define EMBER_LAPACK_INSTANTIATE(T)                                                            \
  template void gemm<T>(char, char, int64_t, int64_t, int64_t, T, const T*, int64_t, const T*, \
                        int64_t, T, T*, int64_t);                                              \
  template void trsm<T>(char, char, char, char, int64_t, int64_t, T, const T*, int64_t, T*,    \
                        int64_t);                                                              \
  template int64_t getrf<T>(int64_t, int64_t, T*, int64_t, int32_t*);                          \
  template int64_t getrs<T>(char, int64_t, int64_t, const T*, int64_t, const int32_t*, T*,     \
                            int64_t);                                                          \
  template int64_t potrf<T>(char, int64_t, T*, int64_t);                                       \
  template int64_t potrs<T>(char, int64_t, int64_t, const T*, int64_t, T*, int64_t);           \
  template int64_t geqrf<T>(int64_t, int64_t, T*, int64_t, T*);                                \
  template int64_t orgqr<T>(int64_t, int64_t, int64_t, T*, int64_t, const T*);                 \
  template int64_t ormqr<T>(char, char, int64_t, int64_t, int64_t, const T*, int64_t,          \
                            const T*, T*, int64_t);                                            \
  template int64_t syevd<T>(char, char, int64_t, T*, int64_t, Real<T>*);                       \
  template int64_t gesdd<T>(char, int64_t, int64_t, T*, int64_t, Real<T>*, T*, int64_t, T*,    \
                            int64_t);                                                          \
  template int64_t gels<T>(char, int64_t, int64_t, int64_t, T*, int64_t, T*, int64_t);         \
  template int64_t gelsy<T>(int64_t, int64_t, int64_t, T*, int64_t, T*, int64_t, T, int64_t*); \
  template int64_t gelsd<T>(int64_t, int64_t, int64_t, T*, int64_t, T*, int64_t, T*, T,        \
                            int64_t*);                                                         \
  template int64_t gelss<T>(int64_t, int64_t, int64_t, T*, int64_t, T*, int64_t, T*, T,        \
                            int64_t*);                                                         \
  template int64_t sytrf<T>(char, int64_t, T*, int64_t, int32_t*, bool);                       \
  template int64_t sytrs<T>(char, int64_t, int64_t, const T*, int64_t, const int32_t*, T*,     \
                            int64_t, bool);                                                    \
  template int64_t geev<T>(char, int64_t, T*, int64_t, T*, T*, T*, int64_t);

// The routines every type has (complex: the c/z routines of the same shapes).
#define EMBER_LAPACK_INSTANTIATE_ALL(T)                                                        \
  template void gemm<T>(char, char, int64_t, int64_t, int64_t, T, const T*, int64_t, const T*, \
                        int64_t, T, T*, int64_t);                                              \
  template void trsm<T>(char, char, char, char, int64_t, int64_t, T, const T*, int64_t, T*,    \
                        int64_t);                                                              \
  template int64_t getrf<T>(int64_t, int64_t, T*, int64_t, int32_t*);                          \
  template int64_t getrs<T>(char, int64_t, int64_t, const T*, int64_t, const int32_t*, T*,     \
                            int64_t);                                                          \
  template int64_t potrf<T>(char, int64_t, T*, int64_t);                                       \
  template int64_t potrs<T>(char, int64_t, int64_t, const T*, int64_t, T*, int64_t);           \
  template int64_t geqrf<T>(int64_t, int64_t, T*, int64_t, T*);                                \
  template int64_t orgqr<T>(int64_t, int64_t, int64_t, T*, int64_t, const T*);                 \
  template int64_t ormqr<T>(char, char, int64_t, int64_t, int64_t, const T*, int64_t,          \
                            const T*, T*, int64_t);                                            \
  template int64_t syevd<T>(char, char, int64_t, T*, int64_t, Real<T>*);                       \
  template int64_t gesdd<T>(char, int64_t, int64_t, T*, int64_t, Real<T>*, T*, int64_t, T*,    \
                            int64_t);                                                          \
  template int64_t gels<T>(char, int64_t, int64_t, int64_t, T*, int64_t, T*, int64_t);        \
  template int64_t sytrf<T>(char, int64_t, T*, int64_t, int32_t*, bool);                       \
  template int64_t sytrs<T>(char, int64_t, int64_t, const T*, int64_t, const int32_t*, T*,     \
                            int64_t, bool);

EMBER_LAPACK_INSTANTIATE(float)
EMBER_LAPACK_INSTANTIATE(double)
#undef EMBER_LAPACK_INSTANTIATE
EMBER_LAPACK_INSTANTIATE_ALL(std::complex<float>)
EMBER_LAPACK_INSTANTIATE_ALL(std::complex<double>)
#undef EMBER_LAPACK_INSTANTIATE_ALL
template int64_t geev<std::complex<float>>(char, int64_t, std::complex<float>*, int64_t,
                                           std::complex<float>*, std::complex<float>*, int64_t);
template int64_t geev<std::complex<double>>(char, int64_t, std::complex<double>*, int64_t,
                                            std::complex<double>*, std::complex<double>*,
                                            int64_t);

}  // namespace ember::ops::lapack

