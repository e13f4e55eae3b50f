#include "autograd/meta.hpp"

#include <mutex>

#include "autograd/grad_mode.hpp"
#include "runtime/errors.hpp"

namespace ember::autograd {

AutogradMeta::~AutogradMeta() { release_node(std::move(grad_fn)); }

namespace {
// Ops may record with the GIL released (large CPU ops): creating a tensor's
// meta or a leaf's accumulator happens under this lock so that two threads
// using one leaf agree on them.
std::mutex g_meta_mutex;
}  // namespace

AutogradMeta& materialize_meta(const Tensor& t) {
  auto& slot = t.impl()->autograd;
  std::lock_guard<std::mutex> lock(g_meta_mutex);
  if (!slot) slot = std::make_unique<AutogradMeta>();
  return *static_cast<AutogradMeta*>(slot.get());
}

void set_requires_grad(const Tensor& t, bool flag) {
  AutogradMeta* m = meta(t);
  if (m && m->grad_fn) {
    if (flag) return;  // already requires grad
    throw Error(
        "you can only change requires_grad flags of leaf variables. If you want to use a "
        "computed variable in a subgraph that doesn't require differentiation use "
        "var_no_grad = var.detach().");
  }
  if (flag && !is_floating_or_complex(t.dtype())) {
    throw Error("only Tensors of floating point and complex dtype can require gradients");
  }
  if (!flag && !m) return;
  materialize_meta(t).requires_grad = flag;
}

std::shared_ptr<Node> try_grad_accumulator(const Tensor& t) {
  AutogradMeta* m = meta(t);
  if (!m) return nullptr;
  std::lock_guard<std::mutex> lock(g_meta_mutex);
  return m->grad_accumulator.lock();
}

std::shared_ptr<Node> grad_accumulator(const Tensor& t) {
  AutogradMeta& m = materialize_meta(t);
  std::lock_guard<std::mutex> lock(g_meta_mutex);
  std::shared_ptr<Node> acc = m.grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    m.grad_accumulator = acc;
  }
  return acc;
}

Tensor detach(const Tensor& t) {
  return t.view_with(t.sizes(), t.strides(), t.storage_offset());
}

void detach_(const Tensor& t) {
  AutogradMeta* m = meta(t);
  if (!m) return;
  EMBER_CHECK(!m->is_view || !m->base.defined(),
              "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
              "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
              "buckets, and hence detach_() cannot be called on these gradients. To fix this error, "
              "please refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the "
              "solution.");
  release_node(std::move(m->grad_fn));
  m->grad_fn = nullptr;
  m->requires_grad = false;
  m->output_nr = 0;
}

void set_data(const Tensor& t, const Tensor& other) {
  TensorImpl* dst = t.impl();
  const TensorImpl* src = other.impl();
  if (dst == src) return;
  dst->storage = src->storage;
  dst->sizes = src->sizes;
  dst->strides = src->strides;
  dst->offset = src->offset;
  dst->dtype = src->dtype;
  dst->refresh();
  // The accumulator recorded the old shape and dtype; a new one is made on use.
  if (AutogradMeta* m = meta(t)) m->grad_accumulator.reset();
}

void retain_grad(const Tensor& t) {
  EMBER_CHECK(requires_grad(t), "can't retain_grad on Tensor that has requires_grad=False");
  const std::shared_ptr<Node>& fn = grad_fn(t);
  AutogradMeta* m = meta(t);
  if (!fn || m->retains_grad) return;  // leaves keep their grad anyway
  m->retains_grad = true;
  fn->retained.emplace_back(m->output_nr, t.impl_ptr());
}

std::string type_string(const Tensor& t) {
  return std::string(t.is_cuda() ? "ember.cuda." : "ember.") + torch_scalar_name(t.dtype()) +
         "Tensor";
}

}  // namespace ember::autograd
