// Autograd from Python: Tensor.requires_grad / grad / grad_fn / is_leaf /
// backward / detach / retain_grad / register_hook / data, the graph's nodes
// (ember.autograd.graph.Node), grad mode, and _run_backward for
// ember.autograd.backward/grad.
//
// backward() releases the GIL while the engine runs the graph (C++ nodes);
// Python hooks take it back for the call.
#include <Python.h>

#include <algorithm>
#include <cstdio>

#include "autograd/engine.hpp"
#include "autograd/functions.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/meta.hpp"
#include "bindings/tensor_common.hpp"
#include "runtime/errors.hpp"

namespace ember::bindings {

namespace {

using autograd::Node;
using autograd::TensorList;

// A Python callable run on a gradient (Tensor.register_hook).
class PyHook final : public autograd::TensorHook {
 public:
  explicit PyHook(py::object fn) : fn_(fn.release().ptr()) {}
  ~PyHook() override {
    if (!interpreter_alive()) return;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF(fn_);
    PyGILState_Release(g);
  }
  Tensor operator()(const Tensor& grad) override {
    py::gil_scoped_acquire gil;
    py::object r = py::reinterpret_borrow<py::object>(fn_)(py::cast(grad));
    if (r.is_none()) return Tensor();
    return tensor_arg(r, "the value returned by a hook");
  }

 private:
  PyObject* fn_;
};

int64_t g_next_hook_id = 1;

// What Tensor.register_hook returns: remove() takes the hook off again.
struct HookHandle {
  std::weak_ptr<TensorImpl> leaf;
  std::weak_ptr<Node> node;
  int64_t id = 0;

  void remove() {
    if (auto impl = leaf.lock()) {
      if (auto* m = static_cast<autograd::AutogradMeta*>(impl->autograd.get())) {
        auto& hs = m->hooks;
        hs.erase(std::remove_if(hs.begin(), hs.end(), [&](const auto& h) { return h->id == id; }),
                 hs.end());
        auto& post = m->post_accumulate_hooks;
        post.erase(std::remove_if(post.begin(), post.end(),
                                  [&](const auto& h) { return h->id == id; }),
                   post.end());
      }
    }
    if (auto n = node.lock()) {
      auto& hs = n->pre_hooks;
      hs.erase(std::remove_if(hs.begin(), hs.end(),
                              [&](const auto& h) { return h.second->id == id; }),
               hs.end());
    }
  }
};

HookHandle register_hook(const Tensor& t, py::object fn) {
  EMBER_CHECK(autograd::requires_grad(t),
              "cannot register a hook on a tensor that doesn't require gradient");
  auto hook = std::make_shared<PyHook>(std::move(fn));
  hook->id = g_next_hook_id++;
  HookHandle h;
  h.id = hook->id;
  if (const std::shared_ptr<Node>& fn_node = autograd::grad_fn(t)) {
    fn_node->pre_hooks.emplace_back(autograd::meta(t)->output_nr, hook);
    h.node = fn_node;
  } else {
    autograd::materialize_meta(t).hooks.push_back(hook);
    h.leaf = t.impl_ptr();
  }
  return h;
}

// A Python callable run on a leaf after its .grad was accumulated
// (Tensor.register_post_accumulate_grad_hook); it must return None.
class PyPostAccumulateHook final : public autograd::TensorHook {
 public:
  explicit PyPostAccumulateHook(py::object fn) : fn_(fn.release().ptr()) {}
  ~PyPostAccumulateHook() override {
    if (!interpreter_alive()) return;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF(fn_);
    PyGILState_Release(g);
  }
  Tensor operator()(const Tensor& leaf) override {
    py::gil_scoped_acquire gil;
    py::object r = py::reinterpret_borrow<py::object>(fn_)(py::cast(leaf));
    EMBER_CHECK(r.is_none(), "Tensor post accumulate grad hooks should return None.");
    return Tensor();
  }

 private:
  PyObject* fn_;
};

HookHandle register_post_accumulate_grad_hook(const Tensor& t, py::object fn) {
  EMBER_CHECK(autograd::requires_grad(t),
              "cannot register a hook on a tensor that doesn't require gradient");
  EMBER_CHECK(autograd::is_leaf(t),
              "post accumulate grad hooks cannot be registered on non-leaf tensors");
  auto hook = std::make_shared<PyPostAccumulateHook>(std::move(fn));
  hook->id = g_next_hook_id++;
  HookHandle h;
  h.id = hook->id;
  autograd::materialize_meta(t).post_accumulate_hooks.push_back(hook);
  h.leaf = t.impl_ptr();
  return h;
}

std::vector<Tensor> tensor_list(py::handle seq, const char* what) {
  std::vector<Tensor> out;
  if (seq.is_none()) return out;
  if (is_tensor(seq)) {
    out.push_back(tensor_arg(seq));
    return out;
  }
  for (py::handle h : seq) {
    if (h.is_none()) {
      out.emplace_back();
    } else {
      out.push_back(tensor_arg(h, what));
    }
  }
  return out;
}

TensorList backward_nogil(const TensorList& outputs, const TensorList& grads,
                        const TensorList& inputs, const autograd::BackwardOptions& o) {
  py::gil_scoped_release nogil;
  return autograd::run_backward(outputs, grads, inputs, o);
}

void set_grad(const Tensor& t, py::handle value) {
  if (value.is_none()) {
    if (auto* m = autograd::meta(t)) m->grad = Tensor();
    return;
  }
  const Tensor& g = tensor_arg(value, "grad");
  EMBER_CHECK(g.dtype() == t.dtype(), "assigned grad has data of a different type");
  EMBER_CHECK(g.device() == t.device(), "assigned grad has data located on a different device");
  EMBER_CHECK(g.sizes() == t.sizes(), "assigned grad has data of a different size");
  autograd::materialize_meta(t).grad = g;
}

py::object node_or_none(const std::shared_ptr<Node>& n) {
  if (!n) return py::none();
  return py::cast(n);
}

}  // namespace

void bind_autograd(py::module_& m) {
  auto cls = py::reinterpret_borrow<py::class_<Tensor>>(m.attr("Tensor"));

  py::class_<Node, std::shared_ptr<Node>> node(m, "_Node", R"doc(
A node of the backward graph (torch.autograd.graph.Node): the backward of one
forward op. ``name()`` is torch's class name ("AddBackward0"), ``next_functions``
the nodes its gradients flow to.)doc");
  node.def("name", &Node::name)
      .def_property_readonly("next_functions",
                             [](const Node& n) {
                               py::tuple out(n.next_edges.size());
                               for (size_t i = 0; i < n.next_edges.size(); ++i) {
                                 const auto& e = n.next_edges[i];
                                 out[i] = py::make_tuple(node_or_none(e.fn), e.input_nr);
                               }
                               return out;
                             })
      .def_property_readonly("variable",
                             [](const Node& n) -> py::object {
                               if (!n.is_accumulate_grad()) {
                                 throw py::attribute_error("only AccumulateGrad has .variable");
                               }
                               return py::cast(static_cast<const autograd::AccumulateGrad&>(n).variable());
                             })
      .def("_sequence_nr", &Node::sequence_nr)
      .def("__repr__", [](const Node& n) {
        char addr[32];
        std::snprintf(addr, sizeof(addr), "%p", static_cast<const void*>(&n));
        return detail::str("<", n.name(), " object at ", addr, ">");
      });

  py::class_<HookHandle>(m, "_HookHandle").def("remove", &HookHandle::remove);

  // Parameter's constructor: a new leaf over the same memory (Tensor.__init__(t, data, _alias=True)).
  cls.def(py::init([](const Tensor& data, bool) { return autograd::detach(data); }),
          py::arg("data"), py::kw_only(), py::arg("_alias"));

  cls.def_property(
         "requires_grad", [](const Tensor& t) { return autograd::requires_grad(t); },
         [](const Tensor& t, bool flag) { autograd::set_requires_grad(t, flag); })
      .def(
          "requires_grad_",
          [](py::object self, bool flag) {
            autograd::set_requires_grad(tensor_arg(self), flag);
            return self;
          },
          py::arg("requires_grad") = true)
      .def_property(
          "grad",
          [](const Tensor& t) -> py::object {
            const auto* mt = autograd::meta(t);
            if (!mt || !mt->grad.defined()) return py::none();
            return py::cast(mt->grad);
          },
          [](const Tensor& t, py::handle v) { set_grad(t, v); })
      .def("_clear_grad", [](const Tensor& t) { set_grad(t, py::none()); })
      .def_property_readonly("grad_fn",
                             [](const Tensor& t) { return node_or_none(autograd::grad_fn(t)); })
      .def_property_readonly("is_leaf", [](const Tensor& t) { return autograd::is_leaf(t); })
      .def_property_readonly("retains_grad",
                             [](const Tensor& t) {
                               const auto* mt = autograd::meta(t);
                               return mt && mt->retains_grad;
                             })
      .def("retain_grad", [](const Tensor& t) { autograd::retain_grad(t); })
      .def_property_readonly("output_nr",
                             [](const Tensor& t) {
                               const auto* mt = autograd::meta(t);
                               return mt ? mt->output_nr : 0u;
                             })
      .def_property_readonly("_version", [](const Tensor& t) { return autograd::version(t); })
      .def("_bump_version", [](const Tensor& t) { autograd::bump_version(t); })
      .def_property_readonly("_base",
                             [](const Tensor& t) -> py::object {
                               const auto* mt = autograd::meta(t);
                               if (!mt || !mt->is_view || !mt->base.defined()) return py::none();
                               return py::cast(mt->base);
                             })
      .def("_is_view",
           [](const Tensor& t) {
             const auto* mt = autograd::meta(t);
             return mt && mt->is_view;
           })
      .def("is_inference", [](const Tensor&) { return false; })
      .def(
          "type",
          [](py::object self, py::handle dtype, bool non_blocking) -> py::object {
            const Tensor& t = tensor_arg(self);
            if (dtype.is_none()) return py::str(autograd::type_string(t));
            return self.attr("to")(dtype, py::arg("non_blocking") = non_blocking);
          },
          py::arg("dtype") = py::none(), py::arg("non_blocking") = false,
          "type(): torch's type string ('ember.FloatTensor'); type(dtype): self.to(dtype).")
      .def_property(
          "data", [](const Tensor& t) { return autograd::detach(t); },
          [](const Tensor& t, const Tensor& other) { autograd::set_data(t, other); })
      .def("detach", [](const Tensor& t) { return autograd::detach(t); })
      .def("detach_",
           [](py::object self) {
             autograd::detach_(tensor_arg(self));
             return self;
           })
      .def("register_hook", &register_hook, py::arg("hook"))
      .def("register_post_accumulate_grad_hook", &register_post_accumulate_grad_hook,
           py::arg("hook"),
           "Runs hook(tensor) after a gradient was accumulated into this leaf's .grad.")
      .def(
          "backward",
          [](const Tensor& t, py::handle gradient, py::handle retain_graph, bool create_graph,
             py::handle inputs) {
            autograd::BackwardOptions o;
            o.create_graph = create_graph;
            o.keep_graph = retain_graph.is_none() ? create_graph : py::cast<bool>(retain_graph);
            o.accumulate_grad = true;
            TensorList grads;
            if (!gradient.is_none()) grads.push_back(tensor_arg(gradient, "gradient"));
            const TensorList in = tensor_list(inputs, "inputs");
            if (!inputs.is_none() && in.empty()) {
              throw Error("'inputs' argument to backward() cannot be empty.");
            }
            backward_nogil({t}, grads, in, o);
          },
          py::arg("gradient") = py::none(), py::arg("retain_graph") = py::none(),
          py::arg("create_graph") = false, py::arg("inputs") = py::none(),
          "Computes the gradient of this tensor with respect to the leaves of its graph and "
          "adds it into their .grad.");

  m.def("is_grad_enabled", &autograd::GradMode::is_enabled);
  m.def("_set_grad_enabled", &autograd::GradMode::set_enabled, py::arg("mode"));
  m.def("is_inference_mode_enabled", &autograd::InferenceMode::is_enabled);
  m.def("_set_inference_mode", [](bool on) {
    autograd::InferenceMode::set_enabled(on);
  });
  m.def(
      "_run_backward",
      [](py::handle tensors, py::handle grads, bool keep_graph, bool create_graph,
         py::handle inputs, bool allow_unused, bool accumulate_grad) -> py::object {
        autograd::BackwardOptions o;
        o.keep_graph = keep_graph;
        o.create_graph = create_graph;
        o.allow_unused = allow_unused;
        o.accumulate_grad = accumulate_grad;
        const TensorList outs = tensor_list(tensors, "tensors");
        const TensorList gs = tensor_list(grads, "grad_tensors");
        const TensorList in = tensor_list(inputs, "inputs");
        TensorList r = backward_nogil(outs, gs, in, o);
        py::tuple result(r.size());
        for (size_t i = 0; i < r.size(); ++i) {
          result[i] = r[i].defined() ? py::cast(std::move(r[i])) : py::none();
        }
        return result;
      },
      py::arg("tensors"), py::arg("grad_tensors"), py::arg("keep_graph"),
      py::arg("create_graph"), py::arg("inputs"), py::arg("allow_unused"),
      py::arg("accumulate_grad"));
}

}  // namespace ember::bindings
