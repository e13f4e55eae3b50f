// The in-place updates of the optimisers and of GradScaler, as ember.optim and
// ember.amp call them (once per parameter group), with autograd's in-place
// bookkeeping around the fused kernels of ops/optim:
// - the kernels write contiguous memory, so every written tensor that is not
//   contiguous goes through a contiguous stand-in, copied back after the step;
//   read-only operands (gradients) only need contiguous values;
// - every tensor written has its version bumped, as any in-place op's.
// No autograd history is recorded: torch's optimisers step under no_grad.
// These never touch Python: the bindings may call them without the GIL.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/optim/optim_step.hpp"
#include "tensor/tensor.hpp"

namespace ember::autograd {

void sgd_step(std::vector<Tensor> params, std::vector<Tensor> grads, std::vector<Tensor> bufs,
              const std::vector<bool>& first, const ops::SgdOptions& o);

void adam_step(std::vector<Tensor> params, std::vector<Tensor> grads,
               std::vector<Tensor> exp_avgs, std::vector<Tensor> exp_avg_sqs,
               std::vector<Tensor> max_exp_avg_sqs, const std::vector<int64_t>& steps,
               const ops::AdamOptions& o);

// torch._amp_foreach_non_finite_check_and_unscale_ and torch._amp_update_scale_.
void amp_non_finite_check_and_unscale_(std::vector<Tensor> grads, const Tensor& found_inf,
                                       const Tensor& inv_scale);
void amp_update_scale_(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf,
                       double growth_factor, double backoff_factor, int64_t growth_interval);

}  // namespace ember::autograd
