// Fused optimiser updates over lists of tensors (torch's foreach/multi-tensor
// path): one call updates every parameter of a group.
//
// On the GPU the tensors of one (device, dtype) are cut into chunks of
// kChunkSize elements and a launch takes up to kMaxBlocks chunks of up to a
// depth-dependent number of tensors, with the pointers, sizes and per-tensor
// scalars in the kernel's argument struct (torch's multi_tensor_apply): a
// 784-256-10 MLP steps in one launch, a 4096x4096 one in a few, instead of one
// launch per parameter per elementwise op. On the CPU the same per-element
// formulas run in a loop (float16/bfloat16 computed in float32).
//
// Every tensor must be contiguous (the Python optimisers guarantee it: they
// pass contiguous views or copies); parameters, gradients and states of one
// index have the same shape. Work is queued on the current stream of the
// tensors' device. The caller bumps the version counters.
#pragma once

#include <cstdint>
#include <vector>

#include <utility>

#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

struct SgdOptions {
  double lr = 0.01;
  double momentum = 0.0;
  double dampening = 0.0;
  double weight_decay = 0.0;
  bool nesterov = false;
  bool maximize = false;
};

// p -= lr * d_p with torch.optim.SGD's d_p (weight decay, momentum buffer,
// nesterov). `bufs` is empty when momentum == 0; `first[i]` says that
// bufs[i] has not been written yet (it is set to d_p, as torch's clone).
void sgd_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
              const std::vector<Tensor>& bufs, const std::vector<bool>& first,
              const SgdOptions& o);

struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;
  bool amsgrad = false;
  bool maximize = false;
  bool decoupled = false;  // AdamW: p *= 1 - lr * weight_decay
};

// torch.optim.Adam/AdamW's update; steps[i] is the step count of parameter i
// after this step (>= 1), for the bias corrections. `max_sqs` is empty
// without amsgrad.
void adam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
               const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
               const std::vector<Tensor>& max_sqs, const std::vector<int64_t>& steps,
               const AdamOptions& o);

namespace internal {

// f(TypeTag<T>{}) for the dtype of a parameter group (the four floating
// dtypes); Error for any other (the CPU loops and the CUDA kernels share it).
template <typename F>
void for_float_types(ScalarType t, F&& f) {
  dispatch_floating(t, std::forward<F>(f), [t] {
    throw Error(detail::str("optimizer step: unsupported dtype ", dtype_name(t)));
  });
}

constexpr int64_t kChunkSize = 65536;

// Per-element scalars of one tensor of a launch (Adam's bias corrections).
struct AdamScalars {
  double step_size;      // lr / (1 - beta1^t)
  double bc2_sqrt;       // sqrt(1 - beta2^t)
};

#if EMBER_WITH_CUDA
// One (device, dtype) list each: lists[k][i] is tensor i of operand k.
void sgd_cuda(const std::vector<std::vector<Tensor>>& lists, const std::vector<bool>& first,
              const SgdOptions& o);
void adam_cuda(const std::vector<std::vector<Tensor>>& lists,
               const std::vector<AdamScalars>& scalars, const AdamOptions& o);
#endif

}  // namespace internal

}  // namespace ember::ops
