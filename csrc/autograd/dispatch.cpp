#include "autograd/dispatch.hpp"

#include "autograd/functions.hpp"
#include "ops/copy/copy.hpp"
#include "ops/fill/fill.hpp"
#include "runtime/errors.hpp"
#include "tensor/views.hpp"

namespace ember::autograd {

bool needs_grad(const std::vector<Tensor>& ts) noexcept {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : ts) {
    if (t.defined() && requires_grad(t)) return true;
  }
  return false;
}

void FormulaNode::release_variables() {
  for (SavedVariable& s : saved_) s.reset();
}

size_t FormulaNode::save(const Tensor& t, bool is_output) {
  saved_.emplace_back(t, is_output);
  return saved_.size() - 1;
}

Tensor FormulaNode::saved(size_t i) {
  EMBER_CHECK(i < saved_.size(), "internal error: ", name_, " has no saved tensor ", i);
  return saved_[i].unpack(std::static_pointer_cast<Node>(shared_from_this()));
}

std::shared_ptr<FormulaNode> record(const char* name, std::initializer_list<const Tensor*> inputs,
                                    std::initializer_list<const Tensor*> outputs,
                                    FormulaNode::Fn fn) {
  auto node = std::make_shared<FormulaNode>(name, std::move(fn));
  node->next_edges = collect_next_edges(inputs);
  for (const Tensor* out : outputs) set_history(*out, node);
  return node;
}

std::shared_ptr<FormulaNode> record(const char* name, const std::vector<Tensor>& inputs,
                                    const std::vector<Tensor>& outputs, FormulaNode::Fn fn) {
  auto node = std::make_shared<FormulaNode>(name, std::move(fn));
  node->next_edges = collect_next_edges(inputs);
  for (const Tensor& out : outputs) set_history(out, node);
  return node;
}

// ---- views ---------------------------------------------------------------------

namespace {

// The geometry of a view relative to its base: the view is
// as_strided(base, sizes, strides, offset) when base starts at offset 0.
struct Geometry {
  Shape sizes, strides;
  int64_t offset;
};

Geometry geometry(const Tensor& view, const Tensor& base) {
  return Geometry{view.sizes(), view.strides(), view.storage_offset() - base.storage_offset()};
}

// A tensor laid out like `base` (same strides), so that a view's geometry
// applies to it.
Tensor empty_like_base(const Tensor& base) {
  EMBER_CHECK(base.is_non_overlapping_and_dense(),
              "in-place write through a view of a tensor whose elements are not dense "
              "(expanded or overlapping): ember cannot record its gradient. Clone the base "
              "tensor first.");
  return Tensor::empty_strided(base.sizes(), base.strides(), base.dtype(), base.device());
}

// grad_base = zeros like base with grad_view written at the view's place.
Tensor scatter_into_base(const Tensor& grad_view, const Tensor& base_like, const Geometry& g) {
  Tensor z = empty_like_base(base_like);
  ops::zero_(z);  // not autograd: z is fresh
  ember::autograd::copy_(ember::as_strided(z, g.sizes, g.strides, z.storage_offset() + g.offset),
                         grad_view);
  return z;
}

// The grad_fn of a view regenerated from its base's after the base was
// written in place: the gradient of the base, scattered.
std::shared_ptr<Node> view_node_from_base(const Tensor& view, const Tensor& base) {
  const Geometry g = geometry(view, base);
  const Tensor base_meta = ember::autograd::alias(base);  // shape/strides/dtype/device only
  auto node = std::make_shared<FormulaNode>(
      "AsStridedBackward0", [g, base_meta](FormulaNode&, TensorList& grads) -> TensorList {
        return {scatter_into_base(grads[0], base_meta, g)};
      });
  node->next_edges = collect_next_edges({&base});
  return node;
}

}  // namespace

const std::shared_ptr<Node>& grad_fn(const Tensor& t) {
  static const std::shared_ptr<Node> kNone;
  AutogradMeta* m = meta(t);
  if (!m) return kNone;
  if (m->is_view && m->base.defined() && m->view_version != version(t) && requires_grad(m->base)) {
    std::shared_ptr<Node> node = view_node_from_base(t, m->base);
    m->output_nr = node->add_input_metadata(t);
    if (t.is_cuda()) {
      node->has_stream = true;
      node->stream = cuda::current_stream(t.device().index);
    }
    release_node(std::move(m->grad_fn));
    m->grad_fn = std::move(node);
    m->view_version = version(t);
  }
  return m->grad_fn;
}

void mark_view(const Tensor& out, const Tensor& self) {
  if (!GradMode::is_enabled()) return;
  AutogradMeta& m = materialize_meta(out);
  m.is_view = true;
  const AutogradMeta* sm = meta(self);
  m.base = sm && sm->is_view && sm->base.defined() ? sm->base : self;
  m.view_version = version(out);
}

// ---- in-place writes --------------------------------------------------------------

void check_inplace(const Tensor& self) {
  if (!GradMode::is_enabled()) return;
  const AutogradMeta* m = meta(self);
  if (!m) return;
  if (m->requires_grad && !m->grad_fn && !m->is_view) {
    throw Error("a leaf Variable that requires grad is being used in an in-place operation.");
  }
  if (m->is_view && m->base.defined()) {
    const AutogradMeta* b = meta(m->base);
    if (b && b->requires_grad && !b->grad_fn) {
      throw Error(
          "a view of a leaf Variable that requires grad is being used in an in-place "
          "operation.");
    }
  }
}

namespace {

// The backward of an in-place op `fn` on a view of `base`: the gradient of the
// base passes through unchanged except at the view, where fn's backward
// applies (torch's CopySlices).
class CopySlices final : public Node {
 public:
  CopySlices(const Tensor& base, const Geometry& g, std::shared_ptr<FormulaNode> fn)
      : base_(alias(base)), g_(g), fn_(std::move(fn)) {}

  TensorList apply(TensorList&& grads) override {
    const Tensor& grad = grads[0];
    Tensor result = empty_like_base(base_);
    ember::autograd::copy_(result, grad);
    // With create_graph (a gradient that requires grad) the slice is a tracked
    // view, so that the gradient through the view and the write into it are
    // recorded (double backward through in-place writes on views, hvp/jvp's
    // double-backward trick); otherwise a plain view.
    const bool track = GradMode::is_enabled() && requires_grad(grad);
    const Tensor slice =
        track ? ember::autograd::as_strided(result, g_.sizes, g_.strides,
                                            result.storage_offset() + g_.offset)
              : ember::as_strided(result, g_.sizes, g_.strides, result.storage_offset() + g_.offset);
    TensorList fn_grads{ember::autograd::clone(slice)};
    TensorList res = fn_->apply(std::move(fn_grads));
    TensorList out(next_edges.size());
    if (res.size() > 0 && res[0].defined()) {
      ember::autograd::copy_(slice, res[0]);
    } else if (track) {
      ember::autograd::fill_(slice, Scalar::from_int(0));
    } else {
      ops::zero_(slice);
    }
    out[0] = std::move(result);
    for (size_t i = 1; i < res.size() && i < out.size(); ++i) out[i] = std::move(res[i]);
    return out;
  }
  std::string name() const override { return "CopySlices"; }
  void release_variables() override { fn_->release_variables(); }

 private:
  Tensor base_;  // an alias: the layout of the base (not its history)
  Geometry g_;
  std::shared_ptr<FormulaNode> fn_;
};

}  // namespace

void rebase_history(const Tensor& self, const std::shared_ptr<FormulaNode>& node) {
  AutogradMeta& m = materialize_meta(self);
  if (m.is_view && m.base.defined()) {
    const Tensor base = m.base;
    auto cs = std::make_shared<CopySlices>(base, geometry(self, base), node);
    cs->next_edges.reserve(node->next_edges.size());
    cs->next_edges.push_back(gradient_edge(base));
    for (size_t i = 1; i < node->next_edges.size(); ++i) cs->next_edges.push_back(node->next_edges[i]);
    // node is applied by CopySlices, not by the engine; its edges only say
    // which gradients are needed.
    AutogradMeta& bm = materialize_meta(base);
    release_node(std::move(bm.grad_fn));
    bm.grad_fn = cs;
    bm.requires_grad = false;
    bm.output_nr = cs->add_input_metadata(base);
    if (base.is_cuda()) {
      cs->has_stream = true;
      cs->stream = cuda::current_stream(base.device().index);
    }
    // The view's own grad_fn comes from the base's on next use.
    m.view_version = version(self) - 1;
    (void)grad_fn(self);
    return;
  }
  release_node(std::move(m.grad_fn));
  m.grad_fn = nullptr;
  m.requires_grad = false;
  m.output_nr = 0;
  set_history(self, node);
  if (m.retains_grad) node->retained.emplace_back(m.output_nr, self.impl_ptr());
}

std::shared_ptr<FormulaNode> record_inplace(const char* name, const Tensor& self,
                                            std::initializer_list<const Tensor*> others,
                                            FormulaNode::Fn fn) {
  auto node = std::make_shared<FormulaNode>(name, std::move(fn));
  node->next_edges.reserve(others.size() + 1);
  node->next_edges.push_back(gradient_edge(self));
  for (const Tensor* t : others) {
    node->next_edges.push_back(t && t->defined() ? gradient_edge(*t) : Edge{});
  }
  rebase_history(self, node);
  return node;
}

void check_out_no_grad(const char* fn, std::initializer_list<const Tensor*> inputs) {
  if (!GradMode::is_enabled()) return;
  for (const Tensor* t : inputs) {
    if (t && t->defined() && requires_grad(*t)) {
      throw Error(detail::str(fn, "(): functions with out=... arguments don't support automatic "
                                  "differentiation, but one of the arguments requires grad."));
    }
  }
}

}  // namespace ember::autograd
