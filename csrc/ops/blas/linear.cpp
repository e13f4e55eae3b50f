#include "ops/blas/linear.hpp"

#include "ops/copy/copy.hpp"
#include "ops/blas/matmul.hpp"
#include "runtime/errors.hpp"
#include "tensor/views.hpp"

namespace ember::ops {

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  check_same_device(x, weight);
  if (bias.defined()) check_same_device(x, bias);
  EMBER_CHECK(x.dim() >= 1 && weight.dim() >= 1 && weight.dim() <= 2,
              "linear(): expected input of at least 1 dim and a 1-D or 2-D weight, but got "
              "input of shape ", shape_str(x.sizes()), " and weight of shape ",
              shape_str(weight.sizes()));
  const int64_t in = x.sizes().back();
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < x.dim(); ++d) rows *= x.sizes()[d];
  // [rows, in] @ [in, out]: weight^T is a transposed view, read in place by cuBLAS.
  const Tensor x2 = reshape(x, {rows, in});
  const Tensor wt = weight.dim() == 2 ? transpose(weight, 0, 1) : unsqueeze(weight, 1);
  Shape result(x.sizes().begin(), x.sizes().end() - 1);
  if (weight.dim() == 2) result.push_back(weight.sizes()[0]);
  Tensor y;
  if (!bias.defined()) {
    y = mm(x2, wt);
  } else if (bias.dim() <= 1 && weight.dim() == 2) {
    y = addmm(bias, x2, wt, Scalar::from_int(1), Scalar::from_int(1));
  } else {
    // A bias of the result's shape (or broadcasting to it): one row per input row.
    const Tensor b2 = reshape(expand(bias, result), {rows, wt.sizes()[1]});
    y = addmm(b2, x2, wt, Scalar::from_int(1), Scalar::from_int(1));
  }
  return view(y, result);
}

}  // namespace ember::ops
