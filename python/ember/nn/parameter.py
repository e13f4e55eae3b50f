"""ember.nn.Parameter: a tensor that a Module registers as one of its parameters."""
from ember._C import Tensor

__all__ = ["Parameter", "UninitializedParameter", "UninitializedBuffer", "is_lazy", "Buffer"]


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


class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet (lazy modules): it holds no
    data until ``materialize(shape)`` gives it uninitialised memory of that shape and
    turns it into ``cls_to_become``."""

    def materialize(self, shape, device=None, dtype=None):
        from ember import empty
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        self.data = empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. "
                           "This error usually happens in `load_state_dict` when trying to load "
                           "an uninitialized parameter into an initialized one. Call "
                           "`forward` to initialize the parameters before accessing their "
                           "attributes.")

    def share_memory_(self):
        raise RuntimeError("Can't call share_memory_() on an uninitialized parameter or buffer. "
                           "Call `forward` to initialize the parameters before calling "
                           "`module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


def is_lazy(param):
    """Whether param is an UninitializedParameter or UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from ember import empty
        return Parameter.__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, *args, **kwargs):
        pass


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        from ember import empty
        t = Tensor.__new__(cls)
        Tensor.__init__(t, empty(0, device=device, dtype=dtype), _alias=True)
        if requires_grad:
            t.requires_grad_(True)
        return t

    def __init__(self, *args, **kwargs):
        pass


class Buffer(Tensor):
    """A tensor that a Module registers as a buffer when assigned to one of its attributes
    (torch.nn.Buffer): ``persistent`` says whether state_dict() holds it."""

    def __new__(cls, data=None, *, persistent=True):
        from ember import empty
        if data is None:
            data = empty(0)
        t = Tensor.__new__(cls)
        Tensor.__init__(t, data.detach(), _alias=True)
        if data.requires_grad:
            t.requires_grad_(True)
        t.persistent = persistent
        return t

    def __init__(self, data=None, *, persistent=True):
        pass
