#include "ops/blas/blas_cpu.hpp"

#include <complex>
#include <algorithm>
#include <vector>

#include "ops/copy/copy.hpp"
#include "ops/cpu_parallel.hpp"
#include "ops/linalg/lapack_api.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops::cpu_blas {

namespace {

// How BLAS can read a rows x cols matrix with strides (rs, cs):
// 'R' row-major with leading dimension *ld, 'C' column-major, 0 neither.
char layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int64_t* ld) {
  if (cs == 1 || cols <= 1) {
    const int64_t l = rows <= 1 ? std::max<int64_t>(cols, 1) : rs;
    if (l >= std::max<int64_t>(cols, 1)) {
      *ld = l;
      return 'R';
    }
  }
  if (rs == 1 || rows <= 1) {
    const int64_t l = cols <= 1 ? std::max<int64_t>(rows, 1) : cs;
    if (l >= std::max<int64_t>(rows, 1)) {
      *ld = l;
      return 'C';
    }
  }
  return 0;
}

// Offsets (in elements) of each matrix of the batch, for the three operands.
struct BatchOffsets {
  std::vector<int64_t> out, a, b;
};

BatchOffsets batch_offsets(const Tensor& out, const Tensor& a, const Tensor& b) {
  const int64_t nb = out.dim() - 2;
  int64_t count = 1;
  for (int64_t d = 0; d < nb; ++d) count *= out.sizes()[d];
  BatchOffsets o;
  o.out.resize(count);
  o.a.resize(count);
  o.b.resize(count);
  std::vector<int64_t> idx(nb, 0);
  int64_t po = 0, pa = 0, pb = 0;
  for (int64_t i = 0; i < count; ++i) {
    o.out[i] = po;
    o.a[i] = pa;
    o.b[i] = pb;
    for (int64_t d = nb - 1; d >= 0; --d) {
      po += out.strides()[d];
      pa += a.strides()[d];
      pb += b.strides()[d];
      if (++idx[d] < out.sizes()[d]) break;
      po -= out.strides()[d] * out.sizes()[d];
      pa -= a.strides()[d] * out.sizes()[d];
      pb -= b.strides()[d] * out.sizes()[d];
      idx[d] = 0;
    }
  }
  return o;
}

Tensor contiguous_copy(const Tensor& t) {
  Tensor c = Tensor::empty(t.sizes(), t.dtype(), t.device());
  copy_(c, t);
  return c;
}

template <typename T>
void gemm_blas(const Tensor& out_, const Tensor& a_, const Tensor& b_, T alpha, T beta) {
  const int64_t m = out_.size(-2), n = out_.size(-1), k = a_.size(-1);
  Tensor a = a_, b = b_, out = out_;
  int64_t lda = 0, ldb = 0, ldc = 0;
  char la = layout(m, k, a.stride(-2), a.stride(-1), &lda);
  if (!la) {
    a = contiguous_copy(a);
    la = layout(m, k, a.stride(-2), a.stride(-1), &lda);
  }
  char lb = layout(k, n, b.stride(-2), b.stride(-1), &ldb);
  if (!lb) {
    b = contiguous_copy(b);
    lb = layout(k, n, b.stride(-2), b.stride(-1), &ldb);
  }
  char lc = layout(m, n, out.stride(-2), out.stride(-1), &ldc);
  const bool via_temp = lc == 0;
  if (via_temp) {
    out = Tensor::empty(out_.sizes(), out_.dtype(), out_.device());
    if (beta != T(0)) copy_(out, out_);
    lc = layout(m, n, out.stride(-2), out.stride(-1), &ldc);
  }
  const BatchOffsets off = batch_offsets(out, a, b);
  const T* pa = static_cast<const T*>(a.data_ptr());
  const T* pb = static_cast<const T*>(b.data_ptr());
  T* pc = static_cast<T*>(out.data_ptr());
  for (size_t i = 0; i < off.out.size(); ++i) {
    if (lc == 'R') {
      // C^T (n x m, column-major) = B^T A^T.
      lapack::gemm<T>(lb == 'R' ? 'N' : 'T', la == 'R' ? 'N' : 'T', n, m, k, alpha,
                      pb + off.b[i], ldb, pa + off.a[i], lda, beta, pc + off.out[i], ldc);
    } else {
      lapack::gemm<T>(la == 'C' ? 'N' : 'T', lb == 'C' ? 'N' : 'T', m, n, k, alpha,
                      pa + off.a[i], lda, pb + off.b[i], ldb, beta, pc + off.out[i], ldc);
    }
  }
  if (via_temp) copy_(out_, out);
}

// Integer products: i-k-j loops in the dtype itself (wrapping as torch's).
template <typename T>
void gemm_naive(const Tensor& out, const Tensor& a, const Tensor& b, T alpha, T beta) {
  const int64_t m = out.size(-2), n = out.size(-1), k = a.size(-1);
  const int64_t ars = a.stride(-2), acs = a.stride(-1), brs = b.stride(-2), bcs = b.stride(-1);
  const int64_t ors = out.stride(-2), ocs = out.stride(-1);
  const BatchOffsets off = batch_offsets(out, a, b);
  const T* pa = static_cast<const T*>(a.data_ptr());
  const T* pb = static_cast<const T*>(b.data_ptr());
  T* pc = static_cast<T*>(out.data_ptr());
  const int64_t rows = static_cast<int64_t>(off.out.size()) * m;
  parallel_for(rows, std::max<int64_t>(1, (int64_t(1) << 15) / std::max<int64_t>(1, n * k)),
               [&](int64_t begin, int64_t end) {
                 std::vector<T> acc(static_cast<size_t>(n));
                 for (int64_t r = begin; r < end; ++r) {
                   const int64_t bi = r / m, i = r % m;
                   std::fill(acc.begin(), acc.end(), T(0));
                   const T* ar = pa + off.a[bi] + i * ars;
                   const T* bm = pb + off.b[bi];
                   for (int64_t p = 0; p < k; ++p) {
                     const T av = ar[p * acs];
                     const T* br = bm + p * brs;
                     for (int64_t j = 0; j < n; ++j) acc[j] = static_cast<T>(acc[j] + av * br[j * bcs]);
                   }
                   T* cr = pc + off.out[bi] + i * ors;
                   for (int64_t j = 0; j < n; ++j) {
                     const T v = static_cast<T>(alpha * acc[j]);
                     cr[j * ocs] = beta == T(0) ? v : static_cast<T>(v + beta * cr[j * ocs]);
                   }
                 }
               });
}

}  // namespace

void gemm(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha,
          const Scalar& beta) {
  const ScalarType t = out.dtype();
  if (t == ScalarType::Float32) {
    gemm_blas<float>(out, a, b, static_cast<float>(alpha.to_double()),
                     static_cast<float>(beta.to_double()));
    return;
  }
  if (t == ScalarType::Float64) {
    gemm_blas<double>(out, a, b, alpha.to_double(), beta.to_double());
    return;
  }
  if (t == ScalarType::Float16 || t == ScalarType::BFloat16) {
    // float32 BLAS, one rounding at the end.
    const Device cpu(DeviceType::CPU);
    const Tensor a32 = ops::to(a, cpu, ScalarType::Float32);
    const Tensor b32 = ops::to(b, cpu, ScalarType::Float32);
    Tensor out32 = Tensor::empty(out.sizes(), ScalarType::Float32, cpu);
    const bool reads_out = !(beta.to_double() == 0.0);
    if (reads_out) ops::copy_(out32, out);
    gemm(out32, a32, b32, alpha, reads_out ? beta : Scalar::from_int(0));
    ops::copy_(out, out32);
    return;
  }
  if (t == ScalarType::ComplexFloat) {
    using C = std::complex<float>;
    gemm_blas<C>(out, a, b, C(static_cast<float>(alpha.to_double()), static_cast<float>(alpha.im)),
                 C(static_cast<float>(beta.to_double()), static_cast<float>(beta.im)));
    return;
  }
  if (t == ScalarType::ComplexDouble) {
    using C = std::complex<double>;
    gemm_blas<C>(out, a, b, C(alpha.to_double(), alpha.im), C(beta.to_double(), beta.im));
    return;
  }
  EMBER_CHECK(t != ScalarType::Bool, "CPU matrix products do not take bool tensors");
  dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const auto to_t = [](const Scalar& s) {
        return s.is_bool() ? static_cast<T>(s.b) : static_cast<T>(s.is_integral() ? s.i : static_cast<int64_t>(s.d));
      };
      gemm_naive<T>(out, a, b, to_t(alpha), to_t(beta));
    }
  });
}

}  // namespace ember::ops::cpu_blas
