"""The legacy tensor types: ``ember.FloatTensor``, ``ember.cuda.HalfTensor``, ...

torch keeps them for old code: ``torch.FloatTensor(2, 3)`` makes an uninitialised
float32 CPU tensor, ``torch.LongTensor([1, 2])`` one from data, and
``isinstance(x, torch.FloatTensor)`` asks "float32 on the CPU?" (the classes are
not subclasses of Tensor: ``issubclass(torch.FloatTensor, torch.Tensor)`` is False).
``x.type()`` names them (``'ember.FloatTensor'``) and ``x.type('torch.DoubleTensor')``
or ``x.type(ember.cuda.HalfTensor)`` converts to them. The default device does not
apply to them (torch's rule): the CPU classes make CPU tensors, the ``ember.cuda``
ones CUDA tensors on the current device.
"""
from ember import _C

# torch's type names and the dtypes they stand for.
_TYPES = {
    "Double": "float64", "Float": "float32", "Half": "float16", "BFloat16": "bfloat16",
    "Long": "int64", "Int": "int32", "Short": "int16", "Char": "int8", "Byte": "uint8",
    "Bool": "bool",
}


_SCALAR_NAMES = {v: k for k, v in _TYPES.items()}


def scalar_name(dtype):
    """torch's scalar type name of a dtype: 'Float' for float32 (its messages use them)."""
    return _SCALAR_NAMES[str(dtype).split(".")[-1]]


class _TensorType(type):
    """The metaclass: isinstance(x, ember.FloatTensor) checks x's dtype and device type."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, _C.Tensor) and obj.dtype == cls.dtype and obj.is_cuda == cls.is_cuda

    def __subclasscheck__(cls, sub):
        return type.__subclasscheck__(cls, sub)

    def __repr__(cls):
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def _new(cls, *args, device=None):
    import ember

    dev = "cuda" if cls.is_cuda else "cpu"
    if cls.is_cuda:
        import warnings
        warnings.warn("The torch.cuda.*DtypeTensor constructors are no longer recommended. It's "
                      "best to use methods such as torch.tensor(data, dtype=*, device='cuda') to "
                      "create tensors.", UserWarning, stacklevel=2)
    if device is not None:
        d = ember.device(device)
        if d.type != dev:
            raise RuntimeError(f"legacy constructor expects device type: {dev} but device type: "
                               f"{d.type} was passed")
        dev = d
    if len(args) == 1 and isinstance(args[0], _C.Tensor):
        t = args[0]
        if not isinstance(t, cls):
            raise TypeError(f"expected {cls.__module__}.{cls.__name__} (got {t.type()})")
        return t.view(t.shape)  # an alias, as torch's
    if len(args) == 1 and isinstance(args[0], str):
        raise TypeError("new(): invalid data type 'str'")
    if len(args) == 1 and not isinstance(args[0], (int, _C.Size)) and hasattr(args[0], "__len__"):
        return ember.tensor(args[0], dtype=cls.dtype, device=dev)
    if len(args) == 1 and isinstance(args[0], _C.Size):
        args = tuple(args[0])
    for a in args:
        if not isinstance(a, int) or isinstance(a, bool):
            raise TypeError(f"new(): data must be a sequence (got {type(a).__name__})")
    return ember.empty(*args, dtype=cls.dtype, device=dev) if args else \
        ember.empty(0, dtype=cls.dtype, device=dev)


def _make(name, dtype_name, cuda):
    module = "ember.cuda" if cuda else "ember"
    dtype = getattr(_C, dtype_name)
    doc = (f"{module}.{name}(*sizes) / ({module}.{name}(data)): an uninitialised (or filled) "
           f"{dtype_name} tensor on the {'GPU' if cuda else 'CPU'}; isinstance(x, {name}) asks "
           f"whether x is one.")
    return _TensorType(name, (), {"__module__": module, "__doc__": doc, "__new__": _new,
                                  "dtype": dtype, "is_cuda": cuda, "is_sparse": False})


# Written out (not made in a loop) so that type checkers see ember.FloatTensor & co.
DoubleTensor = _make("DoubleTensor", "float64", False)
FloatTensor = _make("FloatTensor", "float32", False)
HalfTensor = _make("HalfTensor", "float16", False)
BFloat16Tensor = _make("BFloat16Tensor", "bfloat16", False)
LongTensor = _make("LongTensor", "int64", False)
IntTensor = _make("IntTensor", "int32", False)
ShortTensor = _make("ShortTensor", "int16", False)
CharTensor = _make("CharTensor", "int8", False)
ByteTensor = _make("ByteTensor", "uint8", False)
BoolTensor = _make("BoolTensor", "bool", False)
CPU_TYPES = {c.__name__: c for c in (DoubleTensor, FloatTensor, HalfTensor, BFloat16Tensor,
                                     LongTensor, IntTensor, ShortTensor, CharTensor, ByteTensor,
                                     BoolTensor)}
assert list(CPU_TYPES) == [f"{k}Tensor" for k in _TYPES]
CUDA_TYPES = {f"{k}Tensor": _make(f"{k}Tensor", v, True) for k, v in _TYPES.items()}


def from_type_string(name):
    """The class a type string names: 'torch.FloatTensor', 'ember.cuda.HalfTensor', ..."""
    parts = name.split(".")
    if len(parts) in (2, 3) and parts[0] in ("torch", "ember"):
        table = CUDA_TYPES if len(parts) == 3 and parts[1] == "cuda" else \
            CPU_TYPES if len(parts) == 2 else None
        if table is not None and parts[-1] in table:
            return table[parts[-1]]
    raise ValueError(f"invalid type: {name!r}")


def tensor_type(self, dtype=None, non_blocking=False, **kwargs):
    """x.type(): the type string ('ember.FloatTensor'); x.type(dtype, a legacy class or a
    type string such as 'torch.cuda.HalfTensor'): x converted to it (x itself when it is
    already of that type)."""
    if "async" in kwargs:
        non_blocking = kwargs.pop("async")
    if kwargs:
        raise TypeError(f"type() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if dtype is None:
        return _C_type(self)
    if isinstance(dtype, str):
        dtype = from_type_string(dtype)
    if isinstance(dtype, _TensorType):
        if isinstance(self, dtype):
            return self
        return self.to(device="cuda" if dtype.is_cuda else "cpu", dtype=dtype.dtype,
                       non_blocking=non_blocking)
    return _C_type(self, dtype, non_blocking)


_C_type = _C.Tensor.type
