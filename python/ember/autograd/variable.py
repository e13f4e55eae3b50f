"""ember.autograd.Variable (torch.autograd.variable): the pre-0.4 wrapper, kept for old
code. Every tensor is a Variable (``isinstance(t, Variable)`` is True) and
``Variable(t, requires_grad=True)`` returns a tensor that shares ``t``'s data."""
import warnings

from ember import _C

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, _C.Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(data=None, requires_grad=False, volatile=False)``: ``data`` detached from
    its history (the same memory) with ``requires_grad`` set; ``Variable()`` is an empty
    tensor. ``volatile`` was removed from torch: True warns and is ignored."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                          "instead.", UserWarning, stacklevel=2)
        if data is None:
            data = _C.empty(0)
        elif not isinstance(data, _C.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out
