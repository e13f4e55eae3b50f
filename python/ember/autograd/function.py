"""ember.autograd.function (torch.autograd.function): user-defined operations with their
own backward, ``Function``, in both of torch's forms:

- ``forward(ctx, *args)`` and ``backward(ctx, *grads)``;
- ``forward(*args)`` without ctx plus ``setup_context(ctx, inputs, output)``, which
  saves what backward needs (torch 2's form, the one functorch transforms require).

``forward`` runs without recording a graph; when an input requires grad, one
node is recorded whose backward calls ``backward(ctx, *grad_outputs)`` (with
the GIL, from the C++ engine). ``ctx.save_for_backward`` keeps tensors with
their version, checked when ``ctx.saved_tensors`` is read, and freed after a
backward pass without retain_graph, as for built-in ops. Outputs whose gradient
never arrives get zeros in their place, from the engine (``ctx.set_materialize_grads(False)``
makes it pass None instead); ``ctx.mark_non_differentiable`` outputs get no history;
``@once_differentiable`` runs a backward without recording it.
"""
import functools

from ember import _C
from ember.autograd.grad_mode import no_grad

__all__ = ["Function", "FunctionCtx", "once_differentiable"]

_FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
          "after they have already been freed). Saved intermediate values of the graph are freed "
          "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need "
          "to backward through the graph a second time or if you need to access saved tensors "
          "after calling backward.")


class FunctionCtx:
    """The ``ctx`` passed to forward and backward."""

    def __init__(self):
        self._saved = None
        self._versions = ()
        self._packed = None  # with saved-tensor hooks: [(what pack returned, unpack)]
        self._freed = False
        self._non_differentiable = ()
        self.needs_input_grad = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        hooks = _C._current_saved_tensors_hooks()
        if hooks is not None:
            # ember.autograd.graph.saved_tensors_hooks: keep what pack returned.
            pack, unpack = hooks
            with no_grad():
                self._packed = [None if t is None else (pack(t), unpack) for t in tensors]
            self._saved = ()
            self._versions = ()
            return
        self._packed = None
        self._saved = tensors
        self._versions = tuple(t._version if t is not None else None for t in tensors)

    @property
    def saved_tensors(self):
        if self._freed:
            raise RuntimeError(_FREED)
        if self._packed is not None:
            out = []
            for item in self._packed:
                if item is None:
                    out.append(None)
                    continue
                t = item[1](item[0])
                if not _C.is_tensor(t):
                    raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor "
                                    f"but got result of type {type(t).__name__}")
                out.append(t)
            return tuple(out)
        if self._saved is None:
            return ()
        for t, v in zip(self._saved, self._versions):
            if t is not None and t._version != v:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by "
                    f"an inplace operation: [{t.type()} {list(t.shape)}] is at version "
                    f"{t._version}; expected version {v} instead.")
        return self._saved

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def mark_dirty(self, *tensors):
        pass  # in-place outputs: their version is bumped by the in-place op itself

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)

    def _free(self):
        self._saved = None
        self._packed = None
        self._freed = True


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_name = name + "Backward"


class Function(metaclass=_FunctionMeta):
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``;
    call ``MyFunction.apply(*args)``."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Overridden (with a ``forward`` that takes no ctx) to save what backward needs."""
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def _new_style(cls):
        return cls.setup_context is not Function.setup_context

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(_C.is_tensor(a) and a.requires_grad for a in args)
        with no_grad():
            if cls._new_style():
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        # An input returned as is gets an alias of its own: the node's history
        # must not replace the input's.
        ids = {id(a) for a in args if _C.is_tensor(a)}
        if any(id(o) in ids for o in outs):
            outs = tuple(o.detach() if id(o) in ids else o for o in outs)
            outputs = outs[0] if single else outs
        _C._record_function(cls._backward_name, cls.backward, ctx, args, outs,
                            ctx._non_differentiable)
        return outputs


_TWICE = "trying to differentiate twice a function that was marked with @once_differentiable"


class _DelayedError(Function):
    """What a once_differentiable backward returns when its gradients require grad: the
    values as they are, with a node whose backward raises (a double backward through it)."""

    @staticmethod
    def forward(ctx, *tensors):
        return tensors[0] if len(tensors) == 1 else tensors

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(_TWICE)


def once_differentiable(fn):
    """Decorates a backward that cannot itself be differentiated: it runs without recording
    a graph; where its incoming gradients require grad (a backward with create_graph=True
    that is itself differentiated), its results get a node that raises torch's
    "trying to differentiate twice" error when a second backward reaches it."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not _C.is_grad_enabled():
            return outputs
        if not any(_C.is_tensor(a) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        where = [i for i, o in enumerate(outs) if _C.is_tensor(o)]
        if not where:
            return outputs
        fakes = []
        for i in where:
            t = outs[i].detach()
            t.requires_grad_(True)
            fakes.append(t)
        wrapped = _DelayedError.apply(*fakes)
        wrapped = (wrapped,) if len(fakes) == 1 else wrapped
        result = list(outs)
        for i, w in zip(where, wrapped):
            result[i] = w
        return result[0] if single else tuple(result)
    return wrapper
