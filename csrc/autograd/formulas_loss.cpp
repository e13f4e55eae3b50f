// Fused loss nodes: mse_loss as one node whose backward is two kernels
// (the scaled gradient, times the saved difference) instead of the five of
// its composition -- the training loop's loss runs every step.
#include <algorithm>

#include "autograd/autocast.hpp"
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "ops/pointwise/binary.hpp"
#include "ops/reduce/reduce.hpp"
#include "ops/pointwise/unary.hpp"
#include "runtime/errors.hpp"

namespace ember::autograd {

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  // torch's autocast (cuda and cpu lists): float32
  EMBER_AUTOCAST(Float32, kBothLists, input,
                 return autograd::mse_loss(ac.cast(input), ac.cast(target), reduction));
  const bool grad = needs_grad(input, target);
  const Tensor diff = ops::sub(input, target);
  Tensor sq = ops::unary(ops::UnaryOp::Square, diff);
  Tensor out = reduction == Reduction::Mean ? ops::mean(sq)
               : reduction == Reduction::Sum ? ops::sum(sq)
                                             : sq;
  if (!grad || !is_floating(out.dtype())) return out;
  const double scale = reduction == Reduction::Mean ? 2.0 / static_cast<double>(std::max<int64_t>(sq.numel(), 1))
                                                    : 2.0;
  auto node = record("MseLossBackward0", {&input, &target}, {&out},
                     [scale](FormulaNode& n, TensorList& g) -> TensorList {
                       // d loss / d input = scale * g * (input - target); with
                       // create_graph the difference is recomputed with history.
                       const Tensor d = GradMode::is_enabled()
                                            ? autograd::sub(n.saved(1), n.saved(2))
                                            : n.saved(0);
                       const Tensor gi = autograd::mul(d, autograd::mul(g[0], ops::Operand(scale)));
                       TensorList r(2);
                       if (n.needs(0)) r[0] = gi;
                       if (n.needs(1)) r[1] = autograd::neg(gi);
                       return r;
                     });
  node->save(diff);
  node->save(input);
  node->save(target);
  return out;
}

}  // namespace ember::autograd
