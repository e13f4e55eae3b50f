"""ember.nn.Parameter: a tensor that a Module registers as one of its parameters."""
from ember._C import Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A leaf tensor over the memory of ``data`` that requires grad by default
    (torch.nn.Parameter). Assigning one to a Module attribute registers it."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from ember import empty
            data = empty(0)
        t = Tensor.__new__(cls)
        Tensor.__init__(t, data, _alias=True)
        if requires_grad:
            t.requires_grad_(True)
        return t

    def __init__(self, data=None, requires_grad=True):
        pass  # initialised by __new__

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):
        # torch's form: the data (pickled as a tensor) and requires_grad
        return (_rebuild_parameter, (self.detach(), self.requires_grad))


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)
