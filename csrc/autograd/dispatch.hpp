// How an op records itself in the graph: the one helper every autograd-aware
// function (autograd/functions.hpp, the functions the Python bindings call)
// goes through.
//
//   Tensor out = ops::foo(a, b);                      // the forward, no autograd
//   if (needs_grad(a, b)) {
//     auto node = record("FooBackward0", {&a, &b}, {&out},
//                        [](FormulaNode& n, TensorList& g) -> TensorList {...});
//     node->save(a);                                  // tensors the formula needs
//   }
//
// The formula gets the gradients of the outputs (undefined ones are zeros by
// then) and returns one gradient per input (undefined where none flows;
// n.needs(i) says whether input i wants one). Non-tensor arguments are
// captured by the lambda. Formulas call the autograd-aware functions, so that
// backward with create_graph=True records a graph of its own.
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autograd/grad_mode.hpp"
#include "autograd/meta.hpp"
#include "autograd/node.hpp"
#include "autograd/saved_variable.hpp"

namespace ember::autograd {

// Grad mode is on and some tensor requires grad.
inline bool needs_grad(const Tensor& a) noexcept {
  return GradMode::is_enabled() && a.defined() && requires_grad(a);
}
inline bool needs_grad(const Tensor& a, const Tensor& b) noexcept {
  return GradMode::is_enabled() &&
         ((a.defined() && requires_grad(a)) || (b.defined() && requires_grad(b)));
}
inline bool needs_grad(const Tensor& a, const Tensor& b, const Tensor& c) noexcept {
  return GradMode::is_enabled() && ((a.defined() && requires_grad(a)) ||
                                    (b.defined() && requires_grad(b)) ||
                                    (c.defined() && requires_grad(c)));
}
bool needs_grad(const std::vector<Tensor>& ts) noexcept;

class FormulaNode : public Node {
 public:
  using Fn = std::function<TensorList(FormulaNode&, TensorList&)>;
  FormulaNode(const char* name, Fn fn) : name_(name), fn_(std::move(fn)) {}

  TensorList apply(TensorList&& grads) override { return fn_(*this, grads); }
  std::string name() const override { return name_; }
  void release_variables() override;

  // Saves t for backward; returns its index for saved(i).
  size_t save(const Tensor& t, bool is_output = false);
  Tensor saved(size_t i);
  // Input i wants a gradient.
  bool needs(size_t i) const noexcept { return i < next_edges.size() && next_edges[i].valid(); }

 private:
  const char* name_;
  Fn fn_;
  std::vector<SavedVariable> saved_;
};

// Makes a node for `inputs` (its next edges) and `outputs` (their grad_fn).
std::shared_ptr<FormulaNode> record(const char* name, std::initializer_list<const Tensor*> inputs,
                                    std::initializer_list<const Tensor*> outputs,
                                    FormulaNode::Fn fn);
std::shared_ptr<FormulaNode> record(const char* name, const std::vector<Tensor>& inputs,
                                    const std::vector<Tensor>& outputs, FormulaNode::Fn fn);

// ---- views ---------------------------------------------------------------------
// Marks `out` as a view of `self` (remembers the base for in-place writes
// through the view) when grad mode is on.
void mark_view(const Tensor& out, const Tensor& self);

// ---- in-place writes -------------------------------------------------------------
// Before an in-place write from Python: RuntimeError for a leaf that requires
// grad (in grad mode) and for a view of one.
void check_inplace(const Tensor& self);
// After it: bumps the version counter.
inline void mark_dirty(const Tensor& self) noexcept { bump_version(self); }
// After an in-place op recorded as `node` (whose first input is self's old
// value): self's history becomes node; for a view of a tensor in the graph,
// the base's history becomes CopySlices(node) and the view is regenerated.
void rebase_history(const Tensor& self, const std::shared_ptr<FormulaNode>& node);
// Makes the node of an in-place op on self: inputs[0] must be self.
std::shared_ptr<FormulaNode> record_inplace(const char* name, const Tensor& self,
                                            std::initializer_list<const Tensor*> others,
                                            FormulaNode::Fn fn);

// RuntimeError for out= with an input that requires grad (torch's message).
void check_out_no_grad(const char* fn, std::initializer_list<const Tensor*> inputs);

}  // namespace ember::autograd
