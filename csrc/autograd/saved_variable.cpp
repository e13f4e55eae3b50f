#include "autograd/saved_variable.hpp"

#include "autograd/grad_mode.hpp"
#include "autograd/meta.hpp"
#include "runtime/errors.hpp"

namespace ember::autograd {

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
  if (!t.defined()) return;
  saved_ = true;
  is_output_ = is_output;
  version_ = version(t);
  const AutogradMeta* m = meta(t);
  is_leaf_ = !m || !m->grad_fn;
  requires_grad_ = requires_grad(t);
  output_nr_ = m ? m->output_nr : 0;
  if (std::shared_ptr<SavedTensorHooks> hooks = current_saved_tensor_hooks()) {
    if (!is_output && requires_grad_) {
      history_ = is_leaf_ ? grad_accumulator(t) : grad_fn(t);
      if (is_leaf_) output_nr_ = 0;
    }
    const GradModeGuard no_grad(false);  // the hook's own ops save nothing
    packed_ = hooks->pack(is_output ? detach(t) : t);
    return;
  }
  if (is_output) {
    data_ = detach(t);  // no grad_fn: it would own the node that owns it
  } else {
    data_ = t;
  }
}

void SavedVariable::reset() noexcept {
  data_ = Tensor();
  packed_.reset();
  history_.reset();
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& node) const {
  if (!saved_) return Tensor();
  if (!data_.defined() && !packed_) {
    throw Error(
        "Trying to backward through the graph a second time (or directly access saved tensors "
        "after they have already been freed). Saved intermediate values of the graph are freed "
        "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
        "backward through the graph a second time or if you need to access saved tensors after "
        "calling backward.");
  }
  if (packed_) {
    Tensor t = packed_->unpack();
    if (!requires_grad_ || !t.defined()) return t;
    Tensor out = detach(t);
    const std::shared_ptr<Node>& history = is_output_ ? node : history_;
    if (history) {
      AutogradMeta& m = materialize_meta(out);
      m.grad_fn = history;
      m.output_nr = output_nr_;
    }
    return out;
  }
  const uint32_t now = version(data_);
  if (now != version_) {
    std::string who;
    if (is_output_ && node) {
      who = detail::str(", which is output ", output_nr_, " of ", node->name(), ",");
    } else if (!is_leaf_) {
      const AutogradMeta* m = meta(data_);
      if (m && m->grad_fn) {
        who = detail::str(", which is output ", m->output_nr, " of ", m->grad_fn->name(), ",");
      }
    }
    throw Error(detail::str(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [", type_string(data_), " ", shape_str(data_.sizes()), "]", who,
        " is at version ", now, "; expected version ", version_,
        " instead. Hint: enable anomaly detection to find the operation that failed to compute "
        "its gradient, with torch.autograd.set_detect_anomaly(True)."));
  }
  if (is_output_ && node && requires_grad_) {
    // Give the saved output its history back (create_graph needs it).
    Tensor out = detach(data_);
    AutogradMeta& m = materialize_meta(out);
    m.grad_fn = node;
    m.output_nr = output_nr_;
    return out;
  }
  return data_;
}

}  // namespace ember::autograd
