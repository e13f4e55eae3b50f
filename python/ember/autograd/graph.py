"""ember.autograd.graph: the nodes of the backward graph (``tensor.grad_fn``) and
hooks on the tensors the graph saves.

``saved_tensors_hooks(pack_hook, unpack_hook)``: inside the context, every tensor
a node saves for backward goes through ``pack_hook`` (the node keeps only what it
returns) and comes back through ``unpack_hook`` when the backward needs it
(csrc/autograd/saved_tensor_hooks.hpp; the hooks are per thread, the innermost
applies). ``save_on_cpu`` is such a pair: saved tensors wait in (pinned) CPU memory.
With hooks, the in-place check of saved tensors (the version counter) is not made.
"""
from ember import _C

#: torch.autograd.graph.Node: ``name()``, ``next_functions``, and ``variable`` for
#: AccumulateGrad.
Node = _C._Node

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "increment_version"]

import threading as _threading

_disabled = _threading.local()  # disable_saved_tensors_hooks's message, per thread


class saved_tensors_hooks:
    """Context manager: ``pack_hook(tensor) -> anything`` when a tensor is saved for
    backward, ``unpack_hook(that) -> tensor`` when the backward reads it. The unpacked
    tensor must have the saved one's size and dtype; the hooks must not modify their
    argument in place."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        message = getattr(_disabled, "message", None)
        if message is not None:
            raise RuntimeError(message)
        _C._push_saved_tensors_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        _C._pop_saved_tensors_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are copied to the CPU (to pinned memory with ``pin_memory=True``,
    so that the copy back is asynchronous) and go back to their device in backward."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        import ember

        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            packed = ember.empty(tensor.size(), dtype=tensor.dtype,
                                 pin_memory=ember.cuda.is_available())
            packed.copy_(tensor)
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:
    """Inside, installing saved-tensor hooks raises RuntimeError(error_message) (for
    features that are incompatible with them)."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        self.prev = getattr(_disabled, "message", None)
        _disabled.message = self.error_message

    def __exit__(self, *args):
        _disabled.message = self.prev

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper


def increment_version(tensor):
    """Bumps the version counter of a tensor (or of each tensor of an iterable), as an
    in-place write would: saved copies of it then refuse to be used."""
    tensors = (tensor,) if _C.is_tensor(tensor) else tensor
    for t in tensors:
        t._bump_version()
