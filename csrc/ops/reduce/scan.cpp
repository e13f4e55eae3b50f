// CPU loops: selects on float comparisons vectorise only when comparisons
// may not raise floating-point exceptions (ember never reads those flags).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif

#include "ops/reduce/scan.hpp"

#include "ops/copy/copy.hpp"
#include "ops/cpu_parallel.hpp"
#include "ops/elementwise.hpp"
#include "ops/index/join.hpp"
#include "ops/pointwise/binary.hpp"
#include "ops/promotion.hpp"
#include "ops/reduce/scan_functors.hpp"
#include "runtime/errors.hpp"
#include "tensor/complex_views.hpp"
#include "tensor/views.hpp"

namespace ember::ops {

namespace {

struct CpuScan {
  const ScanPlan& p;
  // torch's CPU scans accumulate float32 in double (float16 and bfloat16 in
  // float, their compute type): a running sum keeps its accuracy over long
  // lines. Every value written is rounded once from the accumulator.
  template <typename In, typename C0, bool PROD>
  void run(const ScanF<C0, PROD>&) {
    using Out = scan_out_t<In>;
    using C = std::conditional_t<std::is_same<In, float>::value, double, C0>;
    const ScanF<C, PROD> f{};
    const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(p.len, 1));
    parallel_for(p.lines, grain, [&](int64_t b, int64_t e) {
      for_each_cpu_range(p.kept, b, e, [&](char* const* ptr, const int64_t* s, int64_t n) {
        for (int64_t l = 0; l < n; ++l) {
          Out* out = reinterpret_cast<Out*>(ptr[0] + l * s[0]);
          const In* in = reinterpret_cast<const In*>(ptr[1] + l * s[1]);
          C acc = f.identity();
          for (int64_t i = 0; i < p.len; ++i) {
            acc = f(acc, convert<C>(in[i * p.in_stride]));
            out[i * p.out_stride] = convert<Out>(acc);
          }
        }
      });
    });
  }
};

}  // namespace

namespace internal {

void scan_cpu(ScanOp op, const ScanPlan& p, ScalarType in, ScalarType) {
  CpuScan r{p};
  dispatch_scan(op, in, r);
}

}  // namespace internal

namespace {

// cumprod of complex values along d: the doubling scan (Hillis-Steele) with the
// complex mul kernel, y[i] *= y[i - k] for k = 1, 2, 4, ... (log2 n passes, each
// product rounded once per pass: no log, so zeros and signs are exact).
Tensor complex_cumprod(const Tensor& x, int64_t d) {
  const int64_t n = x.sizes()[d];
  Tensor y = x;
  for (int64_t k = 1; k < n; k *= 2) {
    const Tensor tail = mul(slice(y, d, k, n, 1), slice(y, d, 0, n - k, 1));
    y = cat({slice(y, d, 0, k, 1), tail}, d);
  }
  return y.is_same(x) ? clone(x) : y;
}

}  // namespace

Tensor scan(ScanOp op, const Tensor& x_in, int64_t dim, std::optional<ScalarType> dtype,
            const Tensor& out) {
  const char* name = op == ScanOp::Sum ? "cumsum" : "cumprod";
  wrap_dim(dim, x_in.dim());  // IndexError for a bad dim before the dtype checks (torch's order)
  if (out.defined() && out.is_same(x_in) && dtype && *dtype != x_in.dtype()) {
    throw Error(detail::str("Bad in-place call: input tensor dtype ",
                            torch_cpp_type_name(x_in.dtype()), " and output tensor dtype ",
                            torch_cpp_type_name(*dtype), " should match"));
  }
  // The dtype the scan runs in and gives: dtype=, else an out='s dtype (torch
  // converts the input first: cumsum(x, out=int64) adds int64 values), else
  // int64 for integers and bool, the input's for floats.
  const std::optional<ScalarType> as = dtype ? dtype : out.defined() ? std::optional(out.dtype())
                                                                     : std::nullopt;
  Tensor x = x_in;
  if (as && *as != x.dtype()) x = to(x, x.device(), *as);
  const ScalarType rdt =
      as ? *as : is_integral(x.dtype(), true) ? ScalarType::Int64 : x.dtype();
  if (out.defined() && !out.is_same(x_in) && dtype && out.dtype() != *dtype) {
    throw Error(detail::str("Expected out tensor to have dtype ", torch_cpp_type_name(*dtype),
                            ", but got ", torch_cpp_type_name(out.dtype()), " instead"));
  }
  const int64_t d = wrap_dim(dim, x.dim());
  if (x.dtype() == ScalarType::Int8 || x.dtype() == ScalarType::Int16) {
    x = to(x, x.device(), ScalarType::Int32);  // exact; the kernels read int32
  }
  // The kernels write int64 for integer and bool inputs: narrower results are
  // converted afterwards (wrapping as torch's accumulation in the narrow type).
  const ScalarType kernel_rdt = is_integral(rdt, true) ? ScalarType::Int64 : rdt;
  Tensor result;
  if (is_complex(x.dtype())) {
    // cumsum of complex values is the cumsum of both parts: the real view's
    // (its last dim holds the parts); cumprod a doubling scan of complex products.
    if (x.dtype() == ScalarType::ComplexHalf) {
      not_implemented(op == ScanOp::Sum ? "cumsum" : "cumprod", x.dtype(), x.is_cuda());
    }
    result = x.dim() == 0          ? clone(x)
             : op == ScanOp::Prod ? complex_cumprod(x, d)
                                  : view_as_complex(scan(op, view_as_real(x), d));
  } else {
    result = Tensor::empty(x.sizes(), kernel_rdt, x.device());
  }
  // On the GPU a line along the innermost dim scans in a tree (scan.cu's lines
  // kernel), any other line one element after another. torch's CUDA scans
  // read a contiguous copy of the input: an input strided along its innermost
  // dim (expanded, stepped) is copied first, so that a long line keeps the
  // tree's accuracy instead of accumulating its rounding errors serially.
  if (!is_complex(x.dtype()) && x.is_cuda() && x.dim() > 0 && x.sizes()[d] > 1 &&
      x.strides()[d] != 1 && result.strides()[d] == 1) {
    x = contiguous(x);
  }
  if (x.numel() > 0 && !is_complex(x.dtype())) {
    ScanPlan p;
    const Shape& sizes = x.sizes();
    p.len = x.dim() == 0 ? 1 : sizes[d];
    p.in_stride = x.dim() == 0 ? 1 : x.strides()[d];
    p.out_stride = x.dim() == 0 ? 1 : result.strides()[d];
    // The line starts: every dim but `dim`, output and input.
    Shape kshape;
    int64_t st[2][64];
    int k = 0;
    for (int64_t i = 0; i < x.dim(); ++i) {
      if (i == d) continue;
      kshape.push_back(sizes[i]);
      st[0][k] = result.strides()[i] * int64_t(result.itemsize());
      st[1][k] = x.strides()[i] * int64_t(x.itemsize());
      ++k;
    }
    char* data[2] = {static_cast<char*>(result.data_ptr()), static_cast<char*>(x.data_ptr())};
    p.kept = make_iter_strided<2>(kshape, st, data);
    p.lines = p.kept.numel;
    if (x.is_cuda()) {
#if EMBER_WITH_CUDA
      internal::scan_cuda(op, p, x.dtype(), kernel_rdt, x.device().index);
#endif
    } else {
      internal::scan_cpu(op, p, x.dtype(), kernel_rdt);
    }
  }
  if (kernel_rdt != rdt) result = to(result, result.device(), rdt);
  if (!out.defined()) return result;
  check_same_device(out, result);
  check_can_cast(rdt, out.dtype());
  EMBER_CHECK(out.sizes() == result.sizes(), name,
              "(): out= has shape ", shape_str(out.sizes()), " but the result has shape ",
              shape_str(result.sizes()));
  copy_(out, result);
  return out;
}

}  // namespace ember::ops
