"""Module full backward hooks (torch.utils.hooks.BackwardHook's scheme): the module's
tensor inputs and outputs pass through identity autograd Functions, whose backward sees
the gradients of all outputs at once (backward pre-hooks run there) and then of all inputs
at once (backward hooks run there, with the output gradients kept from before)."""
from ember.autograd.function import Function
from ember._C import Tensor


class _Identity(Function):
    @staticmethod
    def forward(ctx, state, which, *tensors):
        ctx.state, ctx.which = state, which
        return tensors if len(tensors) != 1 else tensors[0]

    @staticmethod
    def backward(ctx, *grads):
        state = ctx.state
        grads = state.on_outputs(grads) if ctx.which == "out" else state.on_inputs(grads)
        return (None, None) + tuple(grads)


class _BackwardHook:
    def __init__(self, module, hooks, pre_hooks):
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.n_inputs = 0
        self.input_index = None  # positions of the inputs that pass through _Identity
        self.grad_outputs = None
        self.n_outputs = 0
        self.output_index = None

    @staticmethod
    def _pack(index, values, size):
        out = [None] * size
        for i, v in zip(index, values):
            out[i] = v
        return tuple(out)

    def setup_input_hook(self, args):
        self.n_inputs = len(args)
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        if not index or not self.hooks:
            return args
        self.input_index = index
        new = _Identity.apply(self, "in", *(args[i] for i in index))
        if len(index) == 1:
            new = (new,)
        args = list(args)
        for i, t in zip(index, new):
            args[i] = t
        return tuple(args)

    def setup_output_hook(self, result):
        single = isinstance(result, Tensor)
        outs = (result,) if single else result
        if not isinstance(outs, tuple):
            return result
        self.n_outputs = len(outs)
        index = [i for i, o in enumerate(outs) if isinstance(o, Tensor) and o.requires_grad]
        if not index:
            return result
        self.output_index = index
        new = _Identity.apply(self, "out", *(outs[i] for i in index))
        if len(index) == 1:
            new = (new,)
        outs = list(outs)
        for i, t in zip(index, new):
            outs[i] = t
        return outs[0] if single else tuple(outs)

    def on_outputs(self, grads):
        grad_outputs = self._pack(self.output_index, grads, self.n_outputs)
        for hook in self.pre_hooks:
            r = hook(self.module, grad_outputs)
            if r is not None:
                r = r if isinstance(r, tuple) else (r,)
                if len(r) != len(grad_outputs):
                    raise RuntimeError(f"Backward pre hook returned an invalid number of grad "
                                       f"outputs, got {len(r)}, but expected "
                                       f"{len(grad_outputs)}")
                grad_outputs = r
        self.grad_outputs = grad_outputs
        if self.input_index is None and self.hooks:
            # no input wants a gradient: the hooks run now, with None for each input
            grad_inputs = (None,) * self.n_inputs
            for hook in self.hooks:
                r = hook(self.module, grad_inputs, grad_outputs)
                if r is not None and not (isinstance(r, tuple) and all(e is None for e in r)):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
        return [grad_outputs[i] for i in self.output_index]

    def on_inputs(self, grads):
        grad_inputs = self._pack(self.input_index, grads, self.n_inputs)
        for hook in self.hooks:
            r = hook(self.module, grad_inputs, self.grad_outputs)
            if r is not None:
                r = r if isinstance(r, tuple) else (r,)
                if len(r) != len(grad_inputs):
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input, "
                                       f"got {len(r)}, but expected {len(grad_inputs)}")
                grad_inputs = r
        return [grad_inputs[i] for i in self.input_index]
