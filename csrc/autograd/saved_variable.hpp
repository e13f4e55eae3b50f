// SavedVariable: a tensor a Node keeps for its backward, with the version of
// its memory at the time it was saved. unpack() refuses a tensor modified in
// place since (torch's message) and one freed by a backward pass without
// retain_graph.
//
// An output of the node itself is saved without its grad_fn (that would be a
// cycle: node -> tensor -> node) and gets it back on unpack, so a graph built
// during backward (create_graph=True) still reaches the node.
//
// With saved-tensor hooks installed (saved_tensor_hooks.hpp) the tensor goes
// through the pack hook and only what it returned is kept, with the tensor's
// place in the graph (its grad_fn, or its leaf's AccumulateGrad), which the
// unpacked tensor gets back. The version check is not made then: the storage
// (where the counter lives) is what the hooks let go of.
#pragma once

#include <memory>

#include "autograd/saved_tensor_hooks.hpp"
#include "tensor/tensor.hpp"

namespace ember::autograd {

class Node;

class SavedVariable {
 public:
  SavedVariable() = default;
  // `is_output`: t is an output of the node that saves it.
  SavedVariable(const Tensor& t, bool is_output);

  bool defined() const noexcept { return saved_ || data_.defined() || packed_; }
  // The saved tensor; `node` is the node that saved it (for messages and to
  // restore the history of a saved output).
  Tensor unpack(const std::shared_ptr<Node>& node = nullptr) const;
  void reset() noexcept;

 private:
  Tensor data_;
  std::shared_ptr<PackedTensor> packed_;  // with saved-tensor hooks: instead of data_
  std::shared_ptr<Node> history_;         // with hooks: where the unpacked tensor's gradient goes
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool saved_ = false;     // something was saved (released later or not)
  bool is_output_ = false;
  bool is_leaf_ = false;
  bool requires_grad_ = false;
  std::string grad_fn_name_;  // the producer's name, for the version message
};

}  // namespace ember::autograd
