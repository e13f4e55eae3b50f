// The graph autograd records: Nodes (the backward of one forward op) joined
// by Edges.
//
// Ownership (as in torch): a tensor produced by a recorded op owns its
// grad_fn (AutogradMeta::grad_fn, a shared_ptr); a Node owns the nodes its
// gradients flow to (next_edges) and the tensors it saved for backward. So
// the graph lives exactly as long as some output (or a later node) refers to
// it. A leaf that requires grad is reached through an AccumulateGrad node,
// which owns the leaf; the leaf refers to it weakly (one per leaf, made on
// first use). Chains are released iteratively, so deep graphs do not
// overflow the stack when they die.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "runtime/stream.hpp"
#include "tensor/tensor.hpp"

namespace ember::autograd {

class Node;
using TensorList = std::vector<Tensor>;

// Where the gradient of one tensor goes: input `input_nr` of node `fn`.
struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const noexcept { return fn != nullptr; }
};

// What a gradient flowing into a node must look like: the shape, dtype and
// device of the forward output it belongs to.
struct InputMeta {
  Shape sizes;
  ScalarType dtype = ScalarType::Float32;
  Device device{DeviceType::CPU};
};

// A function applied to a gradient before it is used (Tensor.register_hook,
// retain_grad). Returns the replacement or an undefined tensor to keep it.
struct TensorHook {
  virtual ~TensorHook() = default;
  virtual Tensor operator()(const Tensor& grad) = 0;
  int64_t id = 0;
};

class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // Gradients of the forward outputs in, gradients of the forward inputs out
  // (one per next edge; undefined where no gradient flows).
  virtual TensorList apply(TensorList&& grads) = 0;
  // torch's class name: "AddBackward0".
  virtual std::string name() const = 0;
  // Frees the saved tensors (backward without retain_graph).
  virtual void release_variables() {}
  virtual bool is_accumulate_grad() const { return false; }
  // Whether the engine replaces the gradients that never arrived with zeros before
  // apply() (true for every built-in node; a Python Function may say no:
  // ctx.set_materialize_grads(False)). Asked only when one is missing.
  virtual bool materialize_grads() const { return true; }

  uint64_t sequence_nr() const noexcept { return sequence_nr_; }
  uint32_t num_inputs() const noexcept { return static_cast<uint32_t>(input_meta.size()); }
  uint32_t num_outputs() const noexcept { return static_cast<uint32_t>(next_edges.size()); }
  // Registers one forward output; returns its output_nr.
  uint32_t add_input_metadata(const Tensor& t);

  std::vector<Edge> next_edges;
  std::vector<InputMeta> input_meta;
  // The stream current when the forward ran (CUDA ops): backward runs there.
  bool has_stream = false;
  cuda::StreamView stream;
  // Hooks on the gradient of forward output `first` (non-leaf tensors).
  std::vector<std::pair<uint32_t, std::shared_ptr<TensorHook>>> pre_hooks;
  // Tensors that retain their grad: (output_nr, the tensor, weakly).
  std::vector<std::pair<uint32_t, std::weak_ptr<TensorImpl>>> retained;
  // Anomaly mode: where the forward that made this node ran (a Python stack).
  std::string anomaly_trace;

 private:
  uint64_t sequence_nr_;
};

// The edges of the gradients of `inputs` (invalid for tensors that need none).
Edge gradient_edge(const Tensor& t);
std::vector<Edge> collect_next_edges(std::initializer_list<const Tensor*> inputs);
std::vector<Edge> collect_next_edges(const std::vector<Tensor>& inputs);

// Makes `node` the grad_fn of `out` (the next forward output of the node):
// sets grad_fn and output_nr and records the stream for CUDA tensors.
void set_history(const Tensor& out, const std::shared_ptr<Node>& node);

// Releases a node reference without recursing into the nodes it owns.
void release_node(std::shared_ptr<Node>&& node) noexcept;

// Accumulates gradients into a leaf's .grad.
class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(Tensor variable);
  TensorList apply(TensorList&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  bool is_accumulate_grad() const override { return true; }
  const Tensor& variable() const noexcept { return variable_; }

 private:
  Tensor variable_;
  std::mutex mutex_;  // two backward passes (threads) may accumulate at once
};

// The start of a backward pass: hands out the given gradients.
class GraphRoot final : public Node {
 public:
  GraphRoot(std::vector<Edge> roots, TensorList grads);
  TensorList apply(TensorList&&) override { return grads_; }
  std::string name() const override { return "GraphRoot"; }

 private:
  TensorList grads_;
};

// Adds `grad` into the leaf's .grad (torch's AccumulateGrad rules: the first
// gradient is stored -- stolen when nothing else refers to it, else cloned --
// later ones are added in place, or out of place while grad mode is on).
void accumulate_grad(const Tensor& variable, const Tensor& grad);

}  // namespace ember::autograd
