#include "autograd/node.hpp"

#include "autograd/anomaly_mode.hpp"
#include "autograd/functions.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/meta.hpp"
#include "ops/copy/copy.hpp"
#include "runtime/errors.hpp"

namespace ember::autograd {

namespace {

thread_local uint64_t t_sequence_nr = 0;

// Nodes whose last reference is being dropped, released one at a time by the
// outermost release_node on this thread (so a chain of a million nodes does
// not recurse a million deep).
thread_local std::vector<std::shared_ptr<Node>>* t_pending = nullptr;

}  // namespace

void release_node(std::shared_ptr<Node>&& node) noexcept {
  if (!node) return;
  if (t_pending) {  // an outer release_node is draining: hand it over
    t_pending->push_back(std::move(node));
    return;
  }
  std::vector<std::shared_ptr<Node>> pending;
  t_pending = &pending;
  pending.push_back(std::move(node));
  while (!pending.empty()) {
    std::shared_ptr<Node> n = std::move(pending.back());
    pending.pop_back();
    n.reset();  // may push this node's own edges onto `pending`
  }
  t_pending = nullptr;
}

Node::Node() : sequence_nr_(t_sequence_nr++) {
  if (AnomalyMode::is_enabled()) anomaly_trace = anomaly_trace_now();
}

Node::~Node() {
  for (Edge& e : next_edges) release_node(std::move(e.fn));
}

uint32_t Node::add_input_metadata(const Tensor& t) {
  input_meta.push_back(InputMeta{t.sizes(), t.dtype(), t.device()});
  return static_cast<uint32_t>(input_meta.size() - 1);
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* m = meta(t);
  if (!m) return Edge{};
  if (const std::shared_ptr<Node>& fn = grad_fn(t)) return Edge{fn, m->output_nr};
  if (m->requires_grad) return Edge{grad_accumulator(t), 0};
  return Edge{};
}

std::vector<Edge> collect_next_edges(std::initializer_list<const Tensor*> inputs) {
  std::vector<Edge> edges;
  edges.reserve(inputs.size());
  for (const Tensor* t : inputs) edges.push_back(t && t->defined() ? gradient_edge(*t) : Edge{});
  return edges;
}

std::vector<Edge> collect_next_edges(const std::vector<Tensor>& inputs) {
  std::vector<Edge> edges;
  edges.reserve(inputs.size());
  for (const Tensor& t : inputs) edges.push_back(t.defined() ? gradient_edge(t) : Edge{});
  return edges;
}

void set_history(const Tensor& out, const std::shared_ptr<Node>& node) {
  AutogradMeta& m = materialize_meta(out);
  m.grad_fn = node;
  m.requires_grad = false;
  m.output_nr = node->add_input_metadata(out);
  if (out.is_cuda() && !node->has_stream) {
    node->has_stream = true;
    node->stream = cuda::current_stream(out.device().index);
  }
}

AccumulateGrad::AccumulateGrad(Tensor variable) : variable_(std::move(variable)) {
  add_input_metadata(variable_);
}

TensorList AccumulateGrad::apply(TensorList&& grads) {
  Tensor grad = std::move(grads[0]);
  if (!grad.defined()) return {};
  AutogradMeta* m = meta(variable_);
  if (m) {
    const auto hooks = m->hooks;  // a hook may register or remove hooks
    for (const auto& hook : hooks) {
      Tensor r = (*hook)(grad);
      if (r.defined()) grad = std::move(r);
    }
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    accumulate_grad(variable_, grad);
  }
  if (m && !m->post_accumulate_hooks.empty()) {
    const auto post = m->post_accumulate_hooks;  // a hook may remove hooks
    for (const auto& hook : post) (*hook)(variable_);
  }
  return {};
}

GraphRoot::GraphRoot(std::vector<Edge> roots, TensorList grads) : grads_(std::move(grads)) {
  next_edges = std::move(roots);
}

namespace {

// Nothing but `grad` refers to its memory: it may become .grad as it is.
bool can_steal(const Tensor& grad) {
  return grad.impl_ptr().use_count() == 1 && grad.storage().use_count() == 1 &&
         is_leaf(grad) && grad.is_non_overlapping_and_dense();
}

}  // namespace

void accumulate_grad(const Tensor& variable, const Tensor& grad) {
  AutogradMeta& m = materialize_meta(variable);
  if (!m.grad.defined()) {
    if (!GradMode::is_enabled() && can_steal(grad)) {
      m.grad = grad;
    } else {
      m.grad = GradMode::is_enabled() ? autograd::clone(grad) : ops::clone(grad);
    }
    return;
  }
  if (!GradMode::is_enabled() && !requires_grad(m.grad)) {
    add_into(m.grad, grad);  // in place: the optimiser sees the same tensor
    bump_version(m.grad);
  } else {
    m.grad = autograd::add(m.grad, grad);
  }
}

}  // namespace ember::autograd
