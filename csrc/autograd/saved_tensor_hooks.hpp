// Saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks): while a pair
// of hooks is installed (a thread-local stack; the innermost applies), every
// tensor a node saves for backward goes through `pack` when it is saved, and
// the node keeps only what pack returned; `unpack` gives the tensor back when
// the backward needs it. The bindings implement them with Python callables
// (save_on_cpu, activation checkpointing).
#pragma once

#include <memory>

#include "tensor/tensor.hpp"

namespace ember::autograd {

// What a pack hook returned; unpack() gives the saved tensor back.
struct PackedTensor {
  virtual ~PackedTensor() = default;
  virtual Tensor unpack() = 0;
};

struct SavedTensorHooks {
  virtual ~SavedTensorHooks() = default;
  virtual std::shared_ptr<PackedTensor> pack(const Tensor& t) = 0;
};

void push_saved_tensor_hooks(std::shared_ptr<SavedTensorHooks> hooks);
// Throws when none is installed.
void pop_saved_tensor_hooks();
// The innermost pair, or null (one thread-local read when none is installed).
std::shared_ptr<SavedTensorHooks> current_saved_tensor_hooks();

}  // namespace ember::autograd
