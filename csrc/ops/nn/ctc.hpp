// nn.functional.ctc_loss without autograd (autograd/formulas_loss.cpp makes
// the node): the forward (alpha) recursion in log space giving each sample's
// negative log-likelihood, and the backward (beta) recursion with the gradient
// with respect to the log-probabilities, as torch computes it
// (exp(lp) - exp(log(alpha * beta) + nll - lp), the gradient that, through a
// log_softmax, is the one of the logits).
//
// log_probs (T, N, C) float32/float64; targets int64/int32, padded (N, S) or
// the targets of all samples concatenated (1-D); lengths are host vectors
// (torch's IntArrayRef). The extended target of a sample of length L is
// blank, t0, blank, t1, ..., blank (2L + 1 states).
//
// CPU: one sample per task, the recursion over time in the accumulation
// dtype. GPU: one block per sample whose threads cover the states, one
// __syncthreads per time step (alpha and beta alike), then one thread per
// (t, n, c) gathering alpha + beta over the states of class c. Queued on the
// current stream; nothing waits on the host.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/tensor.hpp"

namespace ember::ops {

struct CtcForward {
  Tensor loss;       // [N], log_probs' dtype: nll, with infinities zeroed when zero_infinity
  Tensor nll;        // [N] (inf for an impossible alignment)
  Tensor log_alpha;  // [N, T, 2 * max_target_length + 1]
  Tensor targets;    // int64 contiguous, on log_probs' device
  Tensor meta;       // int64 [4, N] on log_probs' device: input length, target length,
                     // offset of the sample's targets, stride between them (saved)
};
CtcForward ctc_loss_forward(const Tensor& log_probs, const Tensor& targets,
                            const std::vector<int64_t>& input_lengths,
                            const std::vector<int64_t>& target_lengths, int64_t blank,
                            bool zero_infinity);
// grad_out [N] (the gradient of each sample's loss): the gradient of log_probs.
// zero_infinity: samples whose nll is infinite get a zero gradient.
Tensor ctc_loss_backward(const Tensor& grad_out, const Tensor& log_probs, const CtcForward& f,
                         int64_t blank, bool zero_infinity);

namespace internal {

struct CtcArgs {
  Tensor lp, targets, meta, loss, nll, log_alpha, log_beta, grad_out, grad;
  int64_t T, N, C, S;  // S: the number of extended states (2 * max_target_length + 1)
  int64_t blank;
  bool zero_infinity;
};
void ctc_fwd_cpu(const CtcArgs& a);
void ctc_bwd_cpu(const CtcArgs& a);
#if EMBER_WITH_CUDA
void ctc_fwd_cuda(const CtcArgs& a);
void ctc_bwd_cuda(const CtcArgs& a);
#endif

}  // namespace internal

}  // namespace ember::ops
