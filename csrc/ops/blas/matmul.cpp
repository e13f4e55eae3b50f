#include "ops/blas/matmul.hpp"

#include <algorithm>
#include <string>
#include <type_traits>

#include "ops/blas/blas_cpu.hpp"
#include "ops/copy/copy.hpp"
#include "ops/blas/cublas_matmul.hpp"
#include "ops/fill/fill.hpp"
#include "ops/overlap.hpp"
#include "ops/pointwise/binary.hpp"
#include "ops/pointwise/complex.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/views.hpp"

namespace ember::ops {

namespace internal {

void gemm_into(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha,
               const Scalar& beta) {
  check_no_internal_overlap(out);
  if (out.numel() == 0) return;
  if ((alpha.is_complex() && alpha.im != 0.0) || (beta.is_complex() && beta.im != 0.0)) {
    // The engines take real scales: a complex one is applied elementwise.
    const Tensor p = Tensor::empty(out.sizes(), out.dtype(), out.device());
    gemm_into(p, a, b, Scalar::from_int(1), Scalar::from_int(0));
    if (!beta.is_complex() && beta.to_double() == 0.0) {
      binary(BinaryOp::Mul, p, alpha, {}, out);
    } else {
      mul_(out, beta);
      add_(out, p, alpha);
    }
    return;
  }
  const bool complex_out =
      out.dtype() == ScalarType::ComplexFloat || out.dtype() == ScalarType::ComplexDouble;
  if ((out.is_cuda() && !is_floating(out.dtype()) && !complex_out) ||
      out.dtype() == ScalarType::Bool) {
    // An integer product on the GPU, and a bool one anywhere, passes the dtype check only
    // when it is degenerate (torch's addmm/bmm return before their dtype dispatch): k == 0
    // gives beta * out.
    if (beta.to_double() == 0.0) {
      fill_(out, Scalar::from_int(0));
    } else {
      mul_(out, beta);
    }
    return;
  }
#if EMBER_WITH_CUDA
  if (out.is_cuda()) {
    gemm_cuda(out, a, b, alpha.to_double(), beta.to_double());
    return;
  }
#endif
  cpu_blas::gemm(out, a, b, alpha, beta);
}

}  // namespace internal

namespace {

// Which dtypes a product takes: cuBLAS's four floating types and complex64/
// complex128 on the GPU, everything but bool and complex32 on the CPU.
// `cuda_name`/`cpu_name` are torch's kernel names for its message.
// A degenerate product (an empty result, or k == 0) takes every dtype, bool included:
// torch's addmm/bmm return (or scale by beta) before their dtype dispatch, on both devices
// (mm(bool (2, 3), bool (3, 0)) is an empty bool tensor, mm(bool (2, 0), bool (0, 3))
// zeros).
void check_dtype(const Tensor& t, const char* cuda_name, const char* cpu_name,
                 bool degenerate = false) {
  const ScalarType s = t.dtype();
  if (t.is_cuda()) {
    EMBER_CHECK(degenerate || is_floating(s) || s == ScalarType::ComplexFloat ||
                    s == ScalarType::ComplexDouble,
                "\"", cuda_name, "\" not implemented for '", torch_scalar_name(s), "'");
  } else {
    EMBER_CHECK(degenerate || (s != ScalarType::Bool && s != ScalarType::ComplexHalf), "\"",
                cpu_name, "\" not implemented for '", torch_scalar_name(s), "'");
  }
}

void check_same_dtype(const Tensor& a, const Tensor& b, const char* na, const char* nb) {
  EMBER_CHECK(a.dtype() == b.dtype(), "expected ", na, " and ", nb,
              " to have the same dtype, but got: ", torch_cpp_type_name(a.dtype()),
              " != ", torch_cpp_type_name(b.dtype()));
}

// torch's rule for the scalars of addmm/addmv/baddbmm on integer tensors.
void check_scalars(ScalarType t, const Scalar& beta, const Scalar& alpha) {
  if (is_integral(t, true)) {
    EMBER_CHECK(!beta.is_floating() && !alpha.is_floating(),
                "For integral input tensors, argument beta and alpha must not be a floating "
                "point number.");
  }
}

std::string dims_x(const Tensor& t) {  // "2x3"
  std::string s;
  for (int64_t d = 0; d < t.dim(); ++d) s += (d ? "x" : "") + std::to_string(t.sizes()[d]);
  return s;
}

void check_out(const Tensor& out, const Shape& shape, const Tensor& like, const char* fn) {
  EMBER_CHECK(out.sizes() == shape && out.dtype() == like.dtype() &&
                  out.device() == like.device(),
              fn, "(): expected out= to have shape ", shape_str(shape), ", dtype ",
              dtype_name(like.dtype()), " and device ", like.device().str(), ", but got shape ",
              shape_str(out.sizes()), ", dtype ", dtype_name(out.dtype()), " and device ",
              out.device().str(), ". Allocate it with the result's shape (ember does not resize "
              "out= tensors).");
  check_no_internal_overlap(out);
}

Tensor new_like(const Shape& shape, const Tensor& like) {
  return Tensor::empty(shape, like.dtype(), like.device());
}

// ---- mm / addmm -----------------------------------------------------------

void check_mm(const Tensor& a, const Tensor& b, const char* cuda_name, const char* cpu_name) {
  check_same_device(a, b);
  EMBER_CHECK(a.dim() == 2, "self must be a matrix");
  EMBER_CHECK(b.dim() == 2, "mat2 must be a matrix");
  EMBER_CHECK(a.sizes()[1] == b.sizes()[0], "mat1 and mat2 shapes cannot be multiplied (",
              dims_x(a), " and ", dims_x(b), ")");
  check_same_dtype(a, b, "m1", "m2");
  check_dtype(a, cuda_name, cpu_name,
              a.sizes()[0] == 0 || a.sizes()[1] == 0 || b.sizes()[1] == 0);
}

// beta * self (broadcast to out) + alpha * a @ b into out; `self` may be out.
void addmm_into(const Tensor& out, const Tensor& self, const Tensor& a, const Tensor& b,
                const Scalar& beta, const Scalar& alpha) {
  const bool reads_self = beta.to_double() != 0.0 || beta.to_complex().im != 0.0;
#if EMBER_WITH_CUDA
  // nn.Linear's case: bias fused into the cuBLASLt epilogue.
  if (out.is_cuda() && reads_self && beta.to_double() == 1.0 && !beta.is_complex() &&
      !is_complex(out.dtype()) && !self.is_same(out) &&
      self.dim() == 1 && out.dim() == 2 && self.sizes()[0] == out.sizes()[1] &&
      internal::gemm_bias_cuda(out, a, b, self, alpha.to_double())) {
    return;
  }
#endif
  if (reads_self && !self.is_same(out)) copy_(out, expand(self, out.sizes()));
  internal::gemm_into(out, a, b, alpha, reads_self ? beta : Scalar::from_int(0));
}

void check_addmm(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
                 const Scalar& alpha) {
  check_same_device(self, a);
  check_mm(a, b, "addmm_cuda", "addmm_impl_cpu_");
  EMBER_CHECK(self.dtype() == a.dtype(), "self and mat2 must have the same dtype, but got ",
              torch_scalar_name(self.dtype()), " and ", torch_scalar_name(a.dtype()));
  check_scalars(a.dtype(), beta, alpha);
}

// ---- bmm / baddbmm --------------------------------------------------------

void check_bmm(const Tensor& a, const Tensor& b, const char* cuda_name, const char* cpu_name) {
  check_same_device(a, b);
  EMBER_CHECK(a.dim() == 3, "batch1 must be a 3D tensor");
  EMBER_CHECK(b.dim() == 3, "batch2 must be a 3D tensor");
  EMBER_CHECK(a.sizes()[0] == b.sizes()[0], "batch1 and batch2 must have same number of "
              "batches, got ", a.sizes()[0], " and ", b.sizes()[0]);
  EMBER_CHECK(a.sizes()[2] == b.sizes()[1], "Expected size for first two dimensions of batch2 "
              "tensor to be: [", a.sizes()[0], ", ", a.sizes()[2], "] but got: [", b.sizes()[0],
              ", ", b.sizes()[1], "] (", cpu_name, " of ", shape_str(a.sizes()), " and ",
              shape_str(b.sizes()), ")");
  check_same_dtype(a, b, "batch1", "batch2");
  check_dtype(a, cuda_name, cpu_name,
              a.sizes()[0] == 0 || a.sizes()[1] == 0 || a.sizes()[2] == 0 || b.sizes()[2] == 0);
}

// ---- matmul ---------------------------------------------------------------

// The shape of matmul(a, b) and the operands as [batch..., m, k] @
// [batch..., k, n] (broadcast) views; `fold` when a's batch folds into m.
struct MatmulPlan {
  Shape result;
  Shape internal;  // batch + [m, n]
  Tensor a, b;
};

MatmulPlan plan_matmul(const Tensor& a, const Tensor& b) {
  check_same_device(a, b);
  const int64_t da = a.dim(), db = b.dim();
  EMBER_CHECK(da > 0 && db > 0, "both arguments to matmul need to be at least 1D, but they are ",
              da, "D and ", db, "D");
  MatmulPlan p;
  if (da >= 3 && db <= 2) {
    // Fold a's batch into its rows when that is a view: one plain GEMM.
    const int64_t k = a.sizes()[da - 1];
    const Tensor b2 = db == 1 ? unsqueeze(b, 1) : b;
    int64_t rows = 1;
    for (int64_t d = 0; d + 1 < da; ++d) rows *= a.sizes()[d];
    Tensor a2 = try_view(a, {rows, k});
    if (a2.defined()) {
      EMBER_CHECK(k == b2.sizes()[0], "mat1 and mat2 shapes cannot be multiplied (", rows, "x",
                  k, " and ", dims_x(b2), ")");
      p.a = a2;
      p.b = b2;
      p.internal = {rows, b2.sizes()[1]};
      p.result = Shape(a.sizes().begin(), a.sizes().end() - 1);
      if (db == 2) p.result.push_back(b.sizes()[1]);
      return p;
    }
  }
  const Tensor a1 = da == 1 ? unsqueeze(a, 0) : a;
  const Tensor b1 = db == 1 ? unsqueeze(b, 1) : b;
  const int64_t m = a1.size(-2), k = a1.size(-1), k2 = b1.size(-2), n = b1.size(-1);
  if (da <= 2 && db <= 2) {
    EMBER_CHECK(k == k2, "mat1 and mat2 shapes cannot be multiplied (", dims_x(a1), " and ",
                dims_x(b1), ")");
  } else {
    EMBER_CHECK(k == k2, "matmul: shapes ", shape_str(a.sizes()), " and ", shape_str(b.sizes()),
                " cannot be multiplied (", k, " != ", k2, ")");
  }
  const Shape ba(a1.sizes().begin(), a1.sizes().end() - 2);
  const Shape bb(b1.sizes().begin(), b1.sizes().end() - 2);
  Shape batch = broadcast_shapes(ba, bb);
  Shape sa = batch, sb = batch;
  sa.insert(sa.end(), {m, k});
  sb.insert(sb.end(), {k, n});
  p.a = expand(a1, sa);
  p.b = expand(b1, sb);
  p.internal = batch;
  p.internal.insert(p.internal.end(), {m, n});
  p.result = batch;
  if (da > 1) p.result.push_back(m);
  if (db > 1) p.result.push_back(n);
  return p;
}

void check_matmul_types(const MatmulPlan& p) {
  const bool batched = p.internal.size() > 2;
  check_same_dtype(p.a, p.b, "m1", "m2");
  int64_t result_numel = 1;
  for (int64_t v : p.internal) result_numel *= v;
  check_dtype(p.a, batched ? "bmm_cuda" : "addmm_cuda", batched ? "bmm" : "addmm_impl_cpu_",
              result_numel == 0 || p.a.size(-1) == 0);
}


}  // namespace

// ---- public products ----------------------------------------------------------

Tensor mm(const Tensor& a, const Tensor& b) {
  check_mm(a, b, "addmm_cuda", "addmm_impl_cpu_");
  Tensor out = new_like({a.sizes()[0], b.sizes()[1]}, a);
  internal::gemm_into(out, a, b, Scalar::from_int(1), Scalar::from_int(0));
  return out;
}

void mm_out(const Tensor& out, const Tensor& a, const Tensor& b) {
  check_mm(a, b, "addmm_cuda", "addmm_impl_cpu_");
  check_out(out, {a.sizes()[0], b.sizes()[1]}, a, "mm");
  internal::gemm_into(out, a, b, Scalar::from_int(1), Scalar::from_int(0));
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  check_bmm(a, b, "bmm_cuda", "bmm");
  Tensor out = new_like({a.sizes()[0], a.sizes()[1], b.sizes()[2]}, a);
  internal::gemm_into(out, a, b, Scalar::from_int(1), Scalar::from_int(0));
  return out;
}

void bmm_out(const Tensor& out, const Tensor& a, const Tensor& b) {
  check_bmm(a, b, "bmm_cuda", "bmm");
  check_out(out, {a.sizes()[0], a.sizes()[1], b.sizes()[2]}, a, "bmm");
  internal::gemm_into(out, a, b, Scalar::from_int(1), Scalar::from_int(0));
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  if (a.dim() == 1 && b.dim() == 1) return dot(a, b);
  if (a.dim() == 2 && b.dim() == 1) return mv(a, b);
  if (a.dim() == 2 && b.dim() == 2) return mm(a, b);
  const MatmulPlan p = plan_matmul(a, b);
  check_matmul_types(p);
  Tensor out = new_like(p.internal, p.a);
  internal::gemm_into(out, p.a, p.b, Scalar::from_int(1), Scalar::from_int(0));
  return view(out, p.result);
}

void matmul_out(const Tensor& out, const Tensor& a, const Tensor& b) {
  const MatmulPlan p = plan_matmul(a, b);
  check_matmul_types(p);
  check_out(out, p.result, p.a, "matmul");
  // out viewed as the internal shape (the dims of 1-D operands put back, a
  // folded batch merged); a temporary when its strides do not allow that.
  const Tensor iv = try_view(out, p.internal);
  if (iv.defined()) {
    internal::gemm_into(iv, p.a, p.b, Scalar::from_int(1), Scalar::from_int(0));
    return;
  }
  Tensor tmp = new_like(p.internal, p.a);
  internal::gemm_into(tmp, p.a, p.b, Scalar::from_int(1), Scalar::from_int(0));
  copy_(out, view(tmp, p.result));
}

Tensor mv(const Tensor& mat, const Tensor& vec) {
  check_same_device(mat, vec);
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1, "vector + matrix @ vector expected, got 1, ",
              mat.dim(), ", ", vec.dim());
  EMBER_CHECK(mat.sizes()[1] == vec.sizes()[0], "size mismatch, got input (", mat.sizes()[0],
              "), mat (", dims_x(mat), "), vec (", vec.sizes()[0], ")");
  check_same_dtype(mat, vec, "m1", "m2");
  check_dtype(mat, "addmv_impl_cuda", "addmv_impl_cpu");
  Tensor out = new_like({mat.sizes()[0]}, mat);
  internal::gemm_into(unsqueeze(out, 1), mat, unsqueeze(vec, 1), Scalar::from_int(1),
                      Scalar::from_int(0));
  return out;
}

Tensor dot(const Tensor& a, const Tensor& b) {
  check_same_device(a, b);
  EMBER_CHECK(a.dim() == 1 && b.dim() == 1, "1D tensors expected, but got ", a.dim(), "D and ",
              b.dim(), "D tensors");
  EMBER_CHECK(a.dtype() == b.dtype(), "dot : expected both vectors to have same dtype, but found ",
              torch_scalar_name(a.dtype()), " and ", torch_scalar_name(b.dtype()));
  EMBER_CHECK(a.numel() == b.numel(), "inconsistent tensor size, expected tensor [", a.numel(),
              "] and src [", b.numel(), "] to have the same number of elements, but got ",
              a.numel(), " and ", b.numel(), " elements respectively");
  check_dtype(a, "dot", "dot");
  Tensor out = new_like({}, a);
  internal::gemm_into(view(out, {1, 1}), unsqueeze(a, 0), unsqueeze(b, 1), Scalar::from_int(1),
                      Scalar::from_int(0));
  return out;
}

Tensor vdot(const Tensor& a, const Tensor& b) {
  check_same_device(a, b);
  EMBER_CHECK(a.dim() == 1 && b.dim() == 1, "1D tensors expected, but got ", a.dim(), "D and ",
              b.dim(), "D tensors");
  EMBER_CHECK(a.dtype() == b.dtype(), "vdot : expected both vectors to have same dtype, but found ",
              torch_scalar_name(a.dtype()), " and ", torch_scalar_name(b.dtype()));
  return dot(conj(a), b);  // conjugates the first vector (a copy for complex; a itself for real)
}

Tensor outer(const Tensor& a_in, const Tensor& b_in) {
  check_same_device(a_in, b_in);
  EMBER_CHECK(a_in.dim() == 1 && b_in.dim() == 1, "outer: Expected 1-D argument self, but got ",
              a_in.dim(), "-D and ", b_in.dim(), "-D");
  const ScalarType t = promote_types(a_in.dtype(), b_in.dtype());
  const Tensor a = to(a_in, a_in.device(), t), b = to(b_in, b_in.device(), t);
  if (is_complex(t)) return mul(unsqueeze(a, 1), b);  // the complex mul kernel
  Tensor out = new_like({a.sizes()[0], b.sizes()[0]}, a);
#if EMBER_WITH_CUDA
  if (out.is_cuda()) {
    internal::outer_cuda(out, a, b);
    return out;
  }
#endif
  // An elementwise product (torch: a[:, None] * b), not a BLAS call.
  dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = static_cast<T*>(out.data_ptr());
    const T* pa = static_cast<const T*>(a.data_ptr());
    const T* pb = static_cast<const T*>(b.data_ptr());
    const int64_t m = a.sizes()[0], n = b.sizes()[0], sa = a.strides()[0], sb = b.strides()[0];
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        if constexpr (std::is_same_v<T, bool>) {
          o[i * n + j] = pa[i * sa] && pb[j * sb];
        } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
          o[i * n + j] = T(static_cast<float>(pa[i * sa]) * static_cast<float>(pb[j * sb]));
        } else {
          o[i * n + j] = static_cast<T>(pa[i * sa] * pb[j * sb]);
        }
      }
    }
  });
  return out;
}

Tensor addmm(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
             const Scalar& alpha) {
  check_addmm(self, a, b, beta, alpha);
  Tensor out = new_like({a.sizes()[0], b.sizes()[1]}, a);
  (void)expand(self, out.sizes());  // torch's broadcast error before any work
  addmm_into(out, self, a, b, beta, alpha);
  return out;
}

void addmm_out(const Tensor& out, const Tensor& self, const Tensor& a, const Tensor& b,
               const Scalar& beta, const Scalar& alpha) {
  check_addmm(self, a, b, beta, alpha);
  check_out(out, {a.sizes()[0], b.sizes()[1]}, a, "addmm");
  (void)expand(self, out.sizes());
  addmm_into(out, self, a, b, beta, alpha);
}

void addmm_(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
            const Scalar& alpha) {
  check_addmm(self, a, b, beta, alpha);
  const Shape shape{a.sizes()[0], b.sizes()[1]};
  EMBER_CHECK(self.sizes() == shape, "addmm_: self of shape ", shape_str(self.sizes()),
              " cannot hold the result of shape ", shape_str(shape));
  check_no_internal_overlap(self);
  addmm_into(self, self, a, b, beta, alpha);
}

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
             const Scalar& alpha) {
  check_same_device(self, mat);
  check_same_device(mat, vec);
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1, "vector + matrix @ vector expected, got ",
              self.dim(), ", ", mat.dim(), ", ", vec.dim());
  EMBER_CHECK(mat.sizes()[1] == vec.sizes()[0] &&
                  (self.numel() == 1 || (self.dim() == 1 && self.sizes()[0] == mat.sizes()[0])),
              "size mismatch, got input (", self.dim() == 1 ? self.sizes()[0] : self.numel(),
              "), mat (", dims_x(mat), "), vec (", vec.sizes()[0], ")");
  check_same_dtype(mat, vec, "m1", "m2");
  check_same_dtype(self, mat, "self", "mat");
  check_dtype(mat, "addmv_impl_cuda", "addmv_impl_cpu");
  check_scalars(mat.dtype(), beta, alpha);
  Tensor out = new_like({mat.sizes()[0]}, mat);
  const bool reads_self = beta.to_double() != 0.0 || beta.to_complex().im != 0.0;
  if (reads_self) copy_(out, expand(self.dim() == 1 ? self : reshape(self, {1}), out.sizes()));
  internal::gemm_into(unsqueeze(out, 1), mat, unsqueeze(vec, 1), alpha,
                      reads_self ? beta : Scalar::from_int(0));
  return out;
}

Tensor baddbmm(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
               const Scalar& alpha) {
  check_same_device(self, a);
  check_bmm(a, b, "baddbmm_cuda", "baddbmm");
  check_same_dtype(self, a, "self", "batch1");
  check_scalars(a.dtype(), beta, alpha);
  Tensor out = new_like({a.sizes()[0], a.sizes()[1], b.sizes()[2]}, a);
  const Tensor self_e = expand(self, out.sizes());
  const bool reads_self = beta.to_double() != 0.0 || beta.to_complex().im != 0.0;
  if (reads_self) copy_(out, self_e);
  internal::gemm_into(out, a, b, alpha, reads_self ? beta : Scalar::from_int(0));
  return out;
}

void baddbmm_(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
              const Scalar& alpha) {
  check_same_device(self, a);
  check_bmm(a, b, "baddbmm_cuda", "baddbmm");
  check_same_dtype(self, a, "self", "batch1");
  check_scalars(a.dtype(), beta, alpha);
  const Shape shape{a.sizes()[0], a.sizes()[1], b.sizes()[2]};
  EMBER_CHECK(self.sizes() == shape, "baddbmm_: self of shape ", shape_str(self.sizes()),
              " cannot hold the result of shape ", shape_str(shape));
  check_no_internal_overlap(self);
  const bool reads_self = beta.to_double() != 0.0 || beta.to_complex().im != 0.0;
  internal::gemm_into(self, a, b, alpha, reads_self ? beta : Scalar::from_int(0));
}

}  // namespace ember::ops
