// Fused loss nodes: mse_loss as one node whose backward is two kernels
// (the scaled gradient, times the saved difference) instead of the five of
// its composition -- the training loop's loss runs every step.
#include <algorithm>

#include "autograd/autocast.hpp"
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "ops/nn/ctc.hpp"
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

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets,
                const std::vector<int64_t>& input_lengths,
                const std::vector<int64_t>& target_lengths, int64_t blank, bool zero_infinity) {
  // torch's autocast (cuda and cpu lists): float32
  EMBER_AUTOCAST(Float32, kBothLists, log_probs,
                 return autograd::ctc_loss(ac.cast(log_probs), targets, input_lengths,
                                           target_lengths, blank, zero_infinity));
  const ops::CtcForward f =
      ops::ctc_loss_forward(log_probs, targets, input_lengths, target_lengths, blank,
                            zero_infinity);
  if (!needs_grad(log_probs)) return f.loss;
  auto node = record("CtcLossBackward0", {&log_probs}, {&f.loss},
                     [f, blank, zero_infinity](FormulaNode& n, TensorList& g) -> TensorList {
                       EMBER_CHECK(!GradMode::is_enabled(),
                                   "ctc_loss: double backward (backward with create_graph=True "
                                   "through ctc_loss) is not supported by ember");
                       return {ops::ctc_loss_backward(g[0], n.saved(0), f, blank, zero_infinity)};
                     });
  node->save(log_probs);
  return f.loss;
}

}  // namespace ember::autograd
