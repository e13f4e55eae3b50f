#include "autograd/engine.hpp"

#include <algorithm>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd/anomaly_mode.hpp"
#include "autograd/functions.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/meta.hpp"
#include "runtime/errors.hpp"
#include "runtime/event.hpp"
#include "runtime/stream_guard.hpp"
#include "ops/pointwise/unary.hpp"
#include "ops/reduce/reduce.hpp"
#include "tensor/views.hpp"

namespace ember::autograd {

namespace {

using cuda::StreamView;

// Anomaly mode's check of a node's gradients (torch's message; one host
// synchronisation per floating gradient on the GPU, as torch's check).
void check_nan(const Node& n, const TensorList& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    const Tensor& g = out[i];
    if (!g.defined() || !is_floating_or_complex(g.dtype()) || g.numel() == 0) continue;
    Tensor count = ops::count_nonzero(ops::unary(ops::UnaryOp::IsNan, g));
    if (count.is_cuda()) count = autograd::to(count, Device{DeviceType::CPU}, count.dtype());
    if (*static_cast<const int64_t*>(count.data_ptr()) != 0) {
      throw Error(detail::str("Function '", n.name(), "' returned nan values in its ", i,
                              "th output."));
    }
  }
}

// Makes a stream (when there is one) current for a scope.
cuda::StreamGuard switch_to(const StreamView* s) {
  return s ? cuda::StreamGuard(*s) : cuda::StreamGuard();
}

struct NodeState {
  int deps = 0;
  TensorList grads;            // the input buffer
  bool has_stream = false;     // the stream the buffer's gradients are ready on
  StreamView stream;
  bool execute = true;         // with captures: some needed node is below
  bool needed = true;          // with captures: a capture is here or below
  std::vector<std::pair<uint32_t, size_t>> captures;  // (input_nr, result index)
};

struct ByPriority {
  bool operator()(const Node* a, const Node* b) const {
    return a->sequence_nr() < b->sequence_nr();  // larger first
  }
};

// The stream a node runs on: its own, else the one its gradients came on.
const StreamView* exec_stream(const Node* n, const NodeState& s) {
  if (n->has_stream) return &n->stream;
  if (s.has_stream) return &s.stream;
  return nullptr;
}

class GraphTask {
 public:
  GraphTask(const BackwardOptions& o) : opt_(o) {}

  TensorList run(const TensorList& outputs, const TensorList& grad_outputs,
                 const TensorList& inputs);

 private:
  void count_dependencies(Node* root);
  void setup_captures(const TensorList& inputs);
  void compute_needed(Node* root);
  TensorList call(Node* n, NodeState& s, TensorList grads);
  void add_to_buffer(Node* consumer, NodeState& cs, uint32_t nr, Tensor grad,
                     const StreamView* producer_stream);
  Tensor validate(const Node* producer, size_t index, const InputMeta& meta, Tensor grad);
  void sync_caller();

  BackwardOptions opt_;
  std::unordered_map<Node*, NodeState> state_;
  std::vector<Node*> order_;  // discovery order (root first)
  TensorList results_;
  std::vector<bool> captured_;
  bool have_captures_ = false;
  std::vector<StreamView> used_streams_;
};

void GraphTask::count_dependencies(Node* root) {
  std::vector<Node*> stack{root};
  state_[root];
  order_.push_back(root);
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges) {
      Node* c = e.fn.get();
      if (!c) continue;
      auto it = state_.find(c);
      if (it == state_.end()) {
        it = state_.emplace(c, NodeState{}).first;
        order_.push_back(c);
        stack.push_back(c);
      }
      it->second.deps += 1;
    }
  }
}

void GraphTask::setup_captures(const TensorList& inputs) {
  results_.assign(inputs.size(), Tensor());
  captured_.assign(inputs.size(), false);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    EMBER_CHECK(t.defined(), "One of the differentiated Tensors is undefined");
    EMBER_CHECK(requires_grad(t), "One of the differentiated Tensors does not require grad");
    Edge e;
    if (const std::shared_ptr<Node>& fn = grad_fn(t)) {
      e = Edge{fn, meta(t)->output_nr};
    } else {
      e = Edge{try_grad_accumulator(t), 0};
    }
    if (!e.fn) continue;
    auto it = state_.find(e.fn.get());
    if (it == state_.end()) continue;  // not part of this graph: unused
    it->second.captures.emplace_back(e.input_nr, i);
  }
}

// needed: a capture here or below; execute: a needed node below. Visited in
// reverse topological order (children before parents).
void GraphTask::compute_needed(Node* root) {
  // Topological order by Kahn's algorithm over the dependency counts.
  std::unordered_map<Node*, int> deps;
  for (auto& kv : state_) deps[kv.first] = kv.second.deps;
  std::vector<Node*> topo;
  std::vector<Node*> ready{root};
  while (!ready.empty()) {
    Node* n = ready.back();
    ready.pop_back();
    topo.push_back(n);
    for (const Edge& e : n->next_edges) {
      if (e.fn && --deps[e.fn.get()] == 0) ready.push_back(e.fn.get());
    }
  }
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    Node* n = *it;
    NodeState& s = state_[n];
    bool below = false;
    for (const Edge& e : n->next_edges) {
      if (e.fn && state_[e.fn.get()].needed) below = true;
    }
    s.execute = below;
    s.needed = below || !s.captures.empty();
  }
}

Tensor GraphTask::validate(const Node* producer, size_t index, const InputMeta& meta,
                           Tensor grad) {
  if (grad.sizes() != meta.sizes) {
    if (!is_expandable_to(meta.sizes, grad.sizes())) {
      throw Error(detail::str("Function ", producer->name(), " returned an invalid gradient at "
                              "index ", index, " - got ", shape_str(grad.sizes()),
                              " but expected shape compatible with ", shape_str(meta.sizes)));
    }
    grad = sum_to(grad, meta.sizes);
  }
  if (grad.device() != meta.device) {
    throw Error(detail::str("Function ", producer->name(), " returned an invalid gradient at "
                            "index ", index, " - expected device ", meta.device.str(),
                            " but got ", grad.device().str()));
  }
  if (grad.dtype() != meta.dtype) grad = autograd::to(grad, grad.device(), meta.dtype);
  return grad;
}

void GraphTask::add_to_buffer(Node* consumer, NodeState& cs, uint32_t nr, Tensor grad,
                              const StreamView* producer_stream) {
  if (cs.grads.empty()) cs.grads.resize(consumer->num_inputs());
  Tensor& slot = cs.grads[nr];
  if (!grad.is_cuda()) {
    slot = slot.defined() ? autograd::add(slot, grad) : std::move(grad);
    return;
  }
  // The stream the consumer will read the buffer on.
  const StreamView consumer_stream = consumer->has_stream ? consumer->stream
                                     : producer_stream    ? *producer_stream
                                                          : cuda::current_stream(grad.device().index);
  if (producer_stream && *producer_stream != consumer_stream) {
    cuda::wait_stream(consumer_stream, *producer_stream);
  }
  if (cs.has_stream && cs.stream != consumer_stream && slot.defined()) {
    cuda::wait_stream(consumer_stream, cs.stream);
  }
  cs.has_stream = true;
  cs.stream = consumer_stream;
  if (slot.defined()) {
    const cuda::StreamGuard on(consumer_stream);
    slot = autograd::add(slot, grad);
  } else {
    slot = std::move(grad);
  }
}

TensorList GraphTask::call(Node* n, NodeState& s, TensorList grads) {
  // Hooks and retained gradients see the summed gradient of each output.
  const auto hooks = n->pre_hooks;  // a hook may remove hooks
  for (const auto& [nr, hook] : hooks) {
    if (nr < grads.size() && grads[nr].defined()) {
      Tensor r = (*hook)(grads[nr]);
      if (r.defined()) grads[nr] = std::move(r);
    }
  }
  for (auto& [nr, weak] : n->retained) {
    std::shared_ptr<TensorImpl> impl = weak.lock();
    if (!impl || nr >= grads.size() || !grads[nr].defined()) continue;
    AutogradMeta& m = materialize_meta(Tensor(impl));
    m.grad = m.grad.defined() ? autograd::add(m.grad, grads[nr]) : autograd::clone(grads[nr]);
  }
  bool any = n->num_inputs() == 0;
  for (const Tensor& g : grads) any = any || g.defined();
  if (!any) return TensorList(n->num_outputs());
  for (uint32_t i = 0; i < n->num_inputs(); ++i) {
    if (!grads[i].defined()) {
      if (!n->materialize_grads()) break;  // the node takes undefined gradients (None)
      const InputMeta& m = n->input_meta[i];
      grads[i] = zeros(m.sizes, m.dtype, m.device);
    }
  }
  if (!AnomalyMode::is_enabled()) {
    TensorList out = n->apply(std::move(grads));
    if (!opt_.keep_graph) n->release_variables();
    return out;
  }
  // Anomaly mode: a failing node reports where its forward ran, and NaN
  // gradients are an error naming the node.
  try {
    TensorList out = n->apply(std::move(grads));
    if (AnomalyMode::should_check_nan()) check_nan(*n, out);
    if (!opt_.keep_graph) n->release_variables();
    return out;
  } catch (...) {
    report_anomaly(*n);
    throw;
  }
}

void GraphTask::sync_caller() {
  for (const StreamView& s : used_streams_) {
    const StreamView caller = cuda::current_stream(s.device());
    if (caller != s) cuda::wait_stream(caller, s);
  }
}

TensorList GraphTask::run(const TensorList& outputs, const TensorList& grad_outputs,
                          const TensorList& inputs) {
  std::vector<Edge> roots;
  TensorList grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    Edge e = gradient_edge(out);
    EMBER_CHECK(e.valid(), "element ", i, " of tensors does not require grad and does not have "
                "a grad_fn");
    Tensor g = i < grad_outputs.size() ? grad_outputs[i] : Tensor();
    if (!g.defined()) {
      EMBER_CHECK(out.numel() == 1, "grad can be implicitly created only for scalar outputs");
      g = ones_like(out);
    } else if (g.sizes() != out.sizes()) {
      throw Error(detail::str("Mismatch in shape: grad_output[", i, "] has a shape of ",
                              "ember.Size(", shape_str(g.sizes()), ") and output[", i,
                              "] has a shape of ember.Size(", shape_str(out.sizes()), ")."));
    }
    roots.push_back(std::move(e));
    grads.push_back(std::move(g));
  }
  auto root = std::make_shared<GraphRoot>(std::move(roots), std::move(grads));
  if (!outputs.empty() && outputs[0].is_cuda()) {
    root->has_stream = true;
    root->stream = cuda::current_stream(outputs[0].device().index);
  }
  count_dependencies(root.get());
  if (!inputs.empty()) {
    have_captures_ = true;
    setup_captures(inputs);
    compute_needed(root.get());
  }

  std::priority_queue<Node*, std::vector<Node*>, ByPriority> ready;
  // The root goes first whatever its sequence number.
  std::vector<Node*> first{root.get()};
  while (!first.empty() || !ready.empty()) {
    Node* n;
    if (!first.empty()) {
      n = first.back();
      first.pop_back();
    } else {
      n = ready.top();
      ready.pop();
    }
    NodeState& s = state_[n];
    TensorList grads = std::move(s.grads);
    if (grads.size() < n->num_inputs()) grads.resize(n->num_inputs());
    for (auto& [nr, idx] : s.captures) {
      results_[idx] = grads[nr];
      captured_[idx] = true;
    }
    TensorList out;
    const StreamView* stream = exec_stream(n, s);
    if (stream) {
      if (std::find(used_streams_.begin(), used_streams_.end(), *stream) == used_streams_.end()) {
        used_streams_.push_back(*stream);
      }
    }
    const bool run_it = !have_captures_ || s.execute;
    if (run_it && !(have_captures_ && n->is_accumulate_grad())) {
      const cuda::StreamGuard on = switch_to(stream);
      out = call(n, s, std::move(grads));
      EMBER_CHECK(out.size() == n->next_edges.size() || n->next_edges.empty(), "function ",
                  n->name(), " returned an incorrect number of gradients (expected ",
                  n->next_edges.size(), ", got ", out.size(), ")");
    }
    if (!run_it) continue;
    for (size_t i = 0; i < n->next_edges.size(); ++i) {
      const Edge& e = n->next_edges[i];
      Node* c = e.fn.get();
      if (!c) continue;
      NodeState& cs = state_[c];
      if (i < out.size() && out[i].defined()) {
        Tensor g = validate(n, i, c->input_meta[e.input_nr], std::move(out[i]));
        const cuda::StreamGuard on = switch_to(stream);
        add_to_buffer(c, cs, e.input_nr, std::move(g), stream);
      }
      if (--cs.deps == 0) ready.push(c);
    }
  }
  sync_caller();

  if (!have_captures_) return {};
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!results_[i].defined() && !opt_.allow_unused && !opt_.accumulate_grad) {
      throw Error("One of the differentiated Tensors appears to not have been used in the "
                  "graph. Set allow_unused=True if this is the desired behavior.");
    }
    if (opt_.accumulate_grad && results_[i].defined()) accumulate_grad(inputs[i], results_[i]);
  }
  return results_;
}

}  // namespace

TensorList run_backward(const TensorList& outputs, const TensorList& grad_outputs,
                        const TensorList& inputs, const BackwardOptions& options) {
  GradModeGuard mode(options.create_graph);
  GraphTask task(options);
  return task.run(outputs, grad_outputs, inputs);
}

}  // namespace ember::autograd
