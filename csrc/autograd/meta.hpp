// AutogradMeta: what autograd keeps per TensorImpl (requires_grad, .grad,
// grad_fn, output_nr, hooks, the base of a view), and the accessors every
// other autograd file uses. Tensors that never took part in autograd have no
// meta at all, so the check "does any input require grad" is a null test.
//
// The version counter lives in the Storage (tensor/storage.hpp), so views
// share it; detach() shares it too. (torch gives `.data` a fresh counter;
// ember's `.data` shares it, so an in-place write through `.data` to a tensor
// saved for backward is reported instead of silently used.)
#pragma once

#include <memory>
#include <vector>

#include "autograd/node.hpp"
#include "tensor/tensor.hpp"

namespace ember::autograd {

struct AutogradMeta final : AutogradMetaInterface {
  ~AutogradMeta() override;

  bool requires_grad = false;  // set on leaves; non-leaves require grad through grad_fn
  bool retains_grad = false;
  bool is_view = false;
  uint32_t output_nr = 0;
  Tensor grad;
  std::shared_ptr<Node> grad_fn;
  std::weak_ptr<Node> grad_accumulator;
  // A view made in grad mode: the tensor it views (the root of a chain of
  // views), so that in-place writes through the view reach the base's history
  // (CopySlices), and the version of the memory when grad_fn was last set:
  // when the base was written since, grad_fn is made again from the base's.
  Tensor base;
  uint32_t view_version = 0;
  // Leaves: hooks run on each gradient before it is accumulated.
  std::vector<std::shared_ptr<TensorHook>> hooks;
  // Leaves: hooks run on the leaf after a gradient was accumulated into .grad
  // (Tensor.register_post_accumulate_grad_hook; what they return is ignored).
  std::vector<std::shared_ptr<TensorHook>> post_accumulate_hooks;
};

inline AutogradMeta* meta(const Tensor& t) noexcept {
  return static_cast<AutogradMeta*>(t.impl()->autograd.get());
}
AutogradMeta& materialize_meta(const Tensor& t);

inline bool requires_grad(const Tensor& t) noexcept {
  const AutogradMeta* m = meta(t);
  if (!m) return false;
  if (m->requires_grad || m->grad_fn) return true;
  if (!m->is_view) return false;
  const AutogradMeta* b = meta(m->base);
  return b && (b->requires_grad || b->grad_fn);
}
// The grad_fn of t (null for leaves); a view whose base was written in place
// since gets a new one from its base's first.
const std::shared_ptr<Node>& grad_fn(const Tensor& t);
inline bool is_leaf(const Tensor& t) noexcept { return !grad_fn(t); }

// Tensor.requires_grad_(flag): only leaves, only floating dtypes (torch's
// messages); turning it off on a leaf is always allowed.
void set_requires_grad(const Tensor& t, bool flag);
// The leaf's AccumulateGrad, made on first use (leaves that require grad).
std::shared_ptr<Node> grad_accumulator(const Tensor& t);
// The existing one or null.
std::shared_ptr<Node> try_grad_accumulator(const Tensor& t);

// A new tensor over the same memory without history (shares the version
// counter); detach_() drops the history of `t` itself.
Tensor detach(const Tensor& t);
void detach_(const Tensor& t);

// Tensor.data = other: `t` takes other's storage, sizes, strides, dtype
// (every handle of `t` sees it); its autograd state stays.
void set_data(const Tensor& t, const Tensor& other);

// Tensor.retain_grad(): a non-leaf keeps its gradient in .grad.
void retain_grad(const Tensor& t);

// The version counter (shared by views).
inline uint32_t version(const Tensor& t) noexcept { return t.storage()->version(); }
inline void bump_version(const Tensor& t) noexcept { t.storage()->bump_version(); }

// "ember.FloatTensor" / "ember.cuda.HalfTensor": torch's type string, used in
// autograd messages.
std::string type_string(const Tensor& t);

}  // namespace ember::autograd
