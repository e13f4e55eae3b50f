// conv2d as one autograd node (ConvolutionBackward0) whose backward is
// ops::conv2d_backward: grad_input only when the input wants one,
// grad_weight and grad_bias from one pass where the GPU's direct kernel
// applies. The backward is not recorded, so create_graph=True through a
// convolution raises instead of returning a wrong second derivative.
#include "autograd/autocast.hpp"
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "autograd/grad_mode.hpp"
#include "ops/nn/conv.hpp"
#include "runtime/errors.hpp"
#include "tensor/views.hpp"

namespace ember::autograd {

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
              const ops::Conv2dParams& p) {
  // torch's autocast (cuda and cpu lists): the lower precision
  EMBER_AUTOCAST(Lower, kBothLists, input,
                 return autograd::conv2d(ac.cast(input), ac.cast(weight), ac.cast(bias), p));
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4,
              "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: ",
              shape_str(input.sizes()));
  const bool unbatched = input.dim() == 3;
  const Tensor x = unbatched ? ember::unsqueeze(input, 0) : input;
  Tensor out4 = ops::conv2d_forward(x, weight, bias, p);
  Tensor out = unbatched ? ember::squeeze(out4, std::vector<int64_t>{0}) : out4;
  if (!needs_grad(input, weight, bias)) return out;
  const Shape in_sizes = input.sizes();
  auto node = record(
      "ConvolutionBackward0", {&input, &weight, &bias}, {&out},
      [p, in_sizes](FormulaNode& n, TensorList& g) -> TensorList {
        refuse_double_backward("conv2d");
        const Tensor xi = n.saved(0);
        const Tensor x4 = xi.dim() == 3 ? ember::unsqueeze(xi, 0) : xi;
        const Tensor g4 = g[0].dim() == 3 ? ember::unsqueeze(g[0], 0) : g[0];
        auto [gi, gw, gb] =
            ops::conv2d_backward(g4, x4, n.saved(1), p, {n.needs(0), n.needs(1), n.needs(2)});
        if (gi.defined() && in_sizes.size() == 3) gi = ember::view(gi, in_sizes);
        return {gi, gw, gb};
      });
  node->save(input);
  node->save(weight);
  return out;
}

}  // namespace ember::autograd
