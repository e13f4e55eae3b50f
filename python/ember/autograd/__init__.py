"""ember.autograd: reverse-mode automatic differentiation (torch.autograd).

The graph and the engine are C++ (csrc/autograd/): ``Tensor.backward`` and
``ember.autograd.grad`` call the engine once, with the GIL released while it
runs. See docs/design/autograd.md.
"""
from ember import _C
from ember.autograd.grad_mode import (
    no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
    is_inference_mode_enabled,
)


def __getattr__(name):
    # gradcheck and Function load on first use: import ember stays cheap.
    import importlib
    if name in ("gradcheck", "gradgradcheck", "GradcheckError"):
        return getattr(importlib.import_module("ember.autograd._gradcheck"), name)
    if name in ("Function", "FunctionCtx"):
        return getattr(importlib.import_module("ember.autograd.function"), name)
    if name == "Variable":
        return importlib.import_module("ember.autograd.variable").Variable
    if name in ("detect_anomaly", "set_detect_anomaly"):
        return getattr(importlib.import_module("ember.autograd.anomaly_mode"), name)
    if name in ("graph", "function", "variable", "functional", "anomaly_mode"):
        return importlib.import_module("ember.autograd." + name)
    raise AttributeError(f"module 'ember.autograd' has no attribute {name!r}")


__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled", "gradcheck", "gradgradcheck",
           "GradcheckError", "Function", "graph", "Variable", "function", "variable",
           "functional", "anomaly_mode", "detect_anomaly", "set_detect_anomaly"]


def _tensor_or_tensors_to_tuple(tensors, length):
    if tensors is None:
        return (None,) * length
    if _C.is_tensor(tensors):
        return (tensors,)
    return tuple(tensors)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """Adds the gradients of ``tensors`` with respect to the leaves into their ``.grad``
    (torch.autograd.backward)."""
    if grad_variables is not None:
        grad_tensors = grad_variables
    tensors = (tensors,) if _C.is_tensor(tensors) else tuple(tensors)
    grad_tensors = _tensor_or_tensors_to_tuple(grad_tensors, len(tensors))
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = (inputs,) if _C.is_tensor(inputs) else tuple(inputs)
        if len(inputs) == 0:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    _C._run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs, False, True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned instead of added
    into ``.grad`` (torch.autograd.grad). Only the part of the graph between them runs."""
    if is_grads_batched:
        raise NotImplementedError("ember.autograd.grad: is_grads_batched=True is not supported")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    single_input = _C.is_tensor(inputs)
    outputs = (outputs,) if _C.is_tensor(outputs) else tuple(outputs)
    inputs = (inputs,) if single_input else tuple(inputs)
    grad_outputs = _tensor_or_tensors_to_tuple(grad_outputs, len(outputs))
    if retain_graph is None:
        retain_graph = create_graph
    result = _C._run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs,
                              allow_unused, False)
    if materialize_grads:
        import ember
        result = tuple(ember.zeros_like(i) if g is None else g for g, i in zip(result, inputs))
    return result
