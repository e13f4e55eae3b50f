#include "ops/blas/cublas_matmul.hpp"

#if EMBER_WITH_CUDA

#include <algorithm>
#include <vector>

#include "ops/copy/copy.hpp"
#include "ops/blas/cublas_gemm.hpp"
#include "ops/fill/fill.hpp"
#include "ops/blas/matmul.hpp"
#include "ops/pointwise/binary.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"

namespace ember::ops::internal {

namespace {

// Beyond this many cuBLAS calls for one batched product, the operands are
// made contiguous instead (one call).
constexpr int64_t kMaxBatchCalls = 8;

// A matrix of r x c elements with strides (s0, s1) as a column-major cuBLAS
// operand: not transposed when the rows are contiguous in memory (s0 == 1,
// ld = s1), transposed when the columns are (s1 == 1, ld = s0). Strides of
// dims of extent 1 do not matter. ok == false: a copy is needed.
struct Desc {
  bool ok = false;
  bool trans = false;
  int64_t ld = 1;
};

Desc colmajor(int64_t r, int64_t c, int64_t s0, int64_t s1) {
  const int64_t r1 = std::max<int64_t>(1, r), c1 = std::max<int64_t>(1, c);
  if ((s0 == 1 || r == 1) && (c == 1 || s1 >= r1)) return {true, false, c == 1 ? r1 : s1};
  if ((s1 == 1 || c == 1) && (r == 1 || s0 >= c1)) return {true, true, r == 1 ? c1 : s0};
  return {};
}

// How the output matrices are laid out: row-major (compute C^T = B^T A^T) or
// column-major (compute C = A B); neither means a temporary is needed.
enum class OutMode { Row, Col, None };

OutMode out_mode(const Tensor& out) {
  const int64_t m = out.size(-2), n = out.size(-1);
  const int64_t s0 = out.stride(-2), s1 = out.stride(-1);
  if ((s1 == 1 || n == 1) && (m == 1 || s0 >= std::max<int64_t>(1, n))) return OutMode::Row;
  if ((s0 == 1 || m == 1) && (n == 1 || s1 >= std::max<int64_t>(1, m))) return OutMode::Col;
  return OutMode::None;
}

// The two cuBLAS operands in the order cuBLAS takes them.
Desc first_operand(OutMode mode, const Tensor& a, const Tensor& b) {
  if (mode == OutMode::Row) return colmajor(b.size(-1), b.size(-2), b.stride(-1), b.stride(-2));
  return colmajor(a.size(-2), a.size(-1), a.stride(-2), a.stride(-1));
}
Desc second_operand(OutMode mode, const Tensor& a, const Tensor& b) {
  if (mode == OutMode::Row) return colmajor(a.size(-1), a.size(-2), a.stride(-1), a.stride(-2));
  return colmajor(b.size(-2), b.size(-1), b.stride(-2), b.stride(-1));
}

// A merged run of batch dims: its extent and each operand's stride (out, a, b).
struct Group {
  int64_t size;
  int64_t stride[3];
};

std::vector<Group> batch_groups(const Tensor& out, const Tensor& a, const Tensor& b) {
  std::vector<Group> groups;  // innermost first
  const Tensor* ops[3] = {&out, &a, &b};
  for (int64_t d = out.dim() - 3; d >= 0; --d) {
    const int64_t size = out.sizes()[d];
    if (size == 1) continue;
    int64_t st[3];
    for (int k = 0; k < 3; ++k) st[k] = ops[k]->strides()[d];
    if (!groups.empty()) {
      Group& g = groups.back();
      bool merge = true;
      for (int k = 0; k < 3; ++k) merge = merge && st[k] == g.stride[k] * g.size;
      if (merge) {
        g.size *= size;
        continue;
      }
    }
    groups.push_back(Group{size, {st[0], st[1], st[2]}});
  }
  return groups;
}

int64_t outer_calls(const std::vector<Group>& groups) {
  int64_t n = 1;
  for (size_t i = 1; i < groups.size(); ++i) n *= groups[i].size;
  return n;
}

char* byte_ptr(const Tensor& t) { return static_cast<char*>(t.data_ptr()); }

// The cuBLAS calls for out = alpha * a @ b + beta * out, for operands that
// cuBLAS can read as they are.
std::vector<blas::Gemm> plan_calls(OutMode mode, const Tensor& out, const Tensor& a,
                                   const Tensor& b, double alpha, double beta) {
  const Desc fa = first_operand(mode, a, b), fb = second_operand(mode, a, b);
  const int64_t m = out.size(-2), n = out.size(-1), k = a.size(-1);
  blas::Gemm g;
  g.dtype = out.dtype();
  g.alpha = alpha;
  g.beta = beta;
  const bool row = mode == OutMode::Row;
  g.m = row ? n : m;
  g.n = row ? m : n;
  g.k = k;
  g.a = blas::GemmOperand{nullptr, fa.ld, fa.trans, 0};
  g.b = blas::GemmOperand{nullptr, fb.ld, fb.trans, 0};
  g.ldc = row ? (m == 1 ? std::max<int64_t>(1, n) : out.stride(-2))
              : (n == 1 ? std::max<int64_t>(1, m) : out.stride(-1));
  const std::vector<Group> groups = batch_groups(out, a, b);
  const Tensor& first = row ? b : a;
  const Tensor& second = row ? a : b;
  // Stride index of `first` and `second` in Group::stride.
  const int fi = row ? 2 : 1, si = row ? 1 : 2;
  if (!groups.empty()) {
    g.batch = groups[0].size;
    g.stride_c = groups[0].stride[0];
    g.a.batch_stride = groups[0].stride[fi];
    g.b.batch_stride = groups[0].stride[si];
  }
  const int64_t item = static_cast<int64_t>(out.itemsize());
  const int64_t calls = outer_calls(groups);
  std::vector<blas::Gemm> out_calls;
  out_calls.reserve(static_cast<size_t>(calls));
  for (int64_t call = 0; call < calls; ++call) {
    int64_t off[3] = {0, 0, 0}, rest = call;
    for (size_t i = 1; i < groups.size(); ++i) {
      const int64_t idx = rest % groups[i].size;
      rest /= groups[i].size;
      for (int q = 0; q < 3; ++q) off[q] += idx * groups[i].stride[q];
    }
    g.c = byte_ptr(out) + off[0] * item;
    g.a.ptr = byte_ptr(first) + off[fi] * item;
    g.b.ptr = byte_ptr(second) + off[si] * item;
    out_calls.push_back(g);
  }
  return out_calls;
}

// a and b as cuBLAS will read them: an operand it cannot read is made
// contiguous (only that one), and both are when the batch would take too many calls.
void prepare_operands(OutMode mode, const Tensor& out, Tensor& a, Tensor& b) {
  const bool first_ok = first_operand(mode, a, b).ok;
  const bool second_ok = second_operand(mode, a, b).ok;
  const bool row = mode == OutMode::Row;
  if (!(row ? first_ok : second_ok)) b = contiguous(b);
  if (!(row ? second_ok : first_ok)) a = contiguous(a);
  if (outer_calls(batch_groups(out, a, b)) > kMaxBatchCalls) {
    a = contiguous(a);
    b = contiguous(b);
  }
}

bool shares_storage(const Tensor& x, const Tensor& y) {
  return x.storage().get() == y.storage().get() && x.storage()->data() != nullptr;
}

}  // namespace

void gemm_cuda(const Tensor& out, const Tensor& a_in, const Tensor& b_in, double alpha,
               double beta) {
  cuda::DeviceGuard guard(out.device().index);
  if (a_in.size(-1) == 0) {  // empty sum: alpha * 0 + beta * out
    if (beta == 0.0) {
      zero_(out);
    } else if (beta != 1.0) {
      if (is_complex(out.dtype())) {
        mul_(out, Scalar::from_double(beta));
      } else {
        scale_cuda(out, beta);
      }
    }
    return;
  }
  const OutMode mode = out_mode(out);
  if (mode == OutMode::None || shares_storage(out, a_in) || shares_storage(out, b_in)) {
    Tensor tmp = Tensor::empty(out.sizes(), out.dtype(), out.device());
    if (beta != 0.0) copy_(tmp, out);
    gemm_cuda(tmp, a_in, b_in, alpha, beta);
    copy_(out, tmp);
    return;
  }
  Tensor a = a_in, b = b_in;
  prepare_operands(mode, out, a, b);
  const int dev = out.device().index;
  for (const blas::Gemm& g : plan_calls(mode, out, a, b, alpha, beta)) blas::gemm(dev, g);
}

GemmPlan plan_gemm_for_testing(const Tensor& out, const Tensor& a_in, const Tensor& b_in) {
  GemmPlan plan;
  const OutMode mode = out_mode(out);
  plan.temporary_out =
      mode == OutMode::None || shares_storage(out, a_in) || shares_storage(out, b_in);
  if (plan.temporary_out || a_in.size(-1) == 0 || out.numel() == 0) return plan;
  plan.a = a_in;
  plan.b = b_in;
  prepare_operands(mode, out, plan.a, plan.b);
  plan.calls = plan_calls(mode, out, plan.a, plan.b, 1.0, 0.0);
  return plan;
}

bool gemm_bias_cuda(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias,
                    double alpha) {
  if (out.dim() != 2 || a.size(-1) == 0 || out.numel() == 0) return false;
  if (out_mode(out) != OutMode::Row || shares_storage(out, a) || shares_storage(out, b)) {
    return false;
  }
  const Desc fa = first_operand(OutMode::Row, a, b), fb = second_operand(OutMode::Row, a, b);
  if (!fa.ok || !fb.ok || bias.dim() != 1 || bias.stride(0) != 1) return false;
  // cuBLASLt wants 16-byte aligned bias vectors for its vectorised epilogues.
  if (reinterpret_cast<uintptr_t>(bias.data_ptr()) % 16 != 0) return false;
  cuda::DeviceGuard guard(out.device().index);
  const int64_t m = out.size(0), n = out.size(1);
  blas::Gemm g;
  g.dtype = out.dtype();
  g.m = n;
  g.n = m;
  g.k = a.size(1);
  g.a = blas::GemmOperand{b.data_ptr(), fa.ld, fa.trans, 0};
  g.b = blas::GemmOperand{a.data_ptr(), fb.ld, fb.trans, 0};
  g.c = out.data_ptr();
  g.ldc = m == 1 ? std::max<int64_t>(1, n) : out.stride(0);
  g.alpha = alpha;
  g.beta = 0.0;
  return blas::gemm_bias(out.device().index, g, bias.data_ptr());
}

}  // namespace ember::ops::internal

#endif  // EMBER_WITH_CUDA
