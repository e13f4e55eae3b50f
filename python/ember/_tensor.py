"""Tensor methods written in Python (torch/_tensor.py's share): ``__format__``,
pickling, ``__array_priority__``, ``type()`` with type strings and the legacy classes,
and ``isclose``/``allclose``/``equal``, composites of bound ops.

They are set on the bound class ``ember.Tensor`` once, at ``import ember``; none is a
number-protocol or comparison slot, so the fast slots the bindings set stay as they are.
Nothing here imports NumPy until a tensor is pickled.
"""
from ember import _C
from ember import _tensor_types

Tensor = _C.Tensor


def __format__(self, format_spec):
    """f"{loss:.4f}": a 0-d tensor formats as its value; other tensors only with an empty
    spec (their str), as torch's."""
    if self.dim() == 0 and type(self) is Tensor:
        return self.item().__format__(format_spec)
    if format_spec:
        raise TypeError(f"unsupported format string passed to {type(self).__name__}.__format__")
    return str(self)


# ---- pickling ----------------------------------------------------------------------------
# A tensor pickles as its values (contiguous, in its dtype), shape, device and requires_grad:
# a view comes back as a tensor of its own (torch keeps the whole storage and the strides);
# .grad and hooks are not kept (nor are they by torch).


def _rebuild_tensor(data, dtype, shape, device, requires_grad):
    import numpy as np

    import ember
    from ember.serialization import _NP

    arr = np.frombuffer(data, dtype=_NP[dtype]).reshape(shape).copy()
    t = ember.from_numpy(arr)
    if dtype == "bfloat16":
        t = t.view(ember.bfloat16)
    if device != "cpu":
        if not ember.cuda.is_available():
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but ember.cuda.is_available() "
                "is False. If you are running on a CPU-only machine, move the tensors to the CPU "
                "before pickling them, or load with ember.load(..., map_location='cpu') what "
                "ember.save wrote.")
        t = t.to(device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _tensor_state(t):
    cpu = t.detach().to("cpu").contiguous()
    dtype = str(cpu.dtype).split(".")[-1]
    if dtype == "bfloat16":
        cpu = cpu.view(_C.int16)
    data = cpu.numpy().tobytes() if cpu.numel() else b""
    return (data, dtype, tuple(t.shape), str(t.device), bool(t.requires_grad))


def __reduce_ex__(self, protocol):
    return (_rebuild_tensor, _tensor_state(self))


# ---- closeness (composites of bound ops; the boolean results sync as torch's do) ------------


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, elementwise (torch.isclose)."""
    if input.dtype != other.dtype:
        raise RuntimeError(f"{_tensor_types.scalar_name(input.dtype)} did not match "
                           f"{_tensor_types.scalar_name(other.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    close = input == other
    floating = input.is_floating_point()
    if equal_nan and floating:
        # torch: close |= (input != input).__iand__(other != other), an in-place op on a
        # tensor of input's shape, which other's shape must broadcast to
        shape = tuple(close.shape)
        if tuple(input.shape) != shape:
            raise RuntimeError(f"output with shape {list(input.shape)} doesn't match the "
                               f"broadcast shape {list(shape)}")
        close = close | (input.isnan() & other.isnan())
    if rtol == 0 and atol == 0:
        return close
    if not floating:  # integers and bools: the error is computed in the default dtype
        dt = _C.get_default_dtype()
        input, other = input.to(dt), other.to(dt)
    allowed = (other * rtol).abs() + atol
    actual = (input - other).abs()
    return close | (actual.isfinite() & (actual <= allowed))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when isclose holds everywhere (torch.allclose); one host read, as torch's."""
    return bool(isclose(input, other, rtol, atol, equal_nan).all().item())


def equal(input, other):
    """True when both have the same size and elements (torch.equal)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"equal(): argument 'other' must be Tensor, not {type(other).__name__}")
    if input.shape != other.shape:
        return False
    return bool((input == other).all().item())


def _install():
    Tensor.__format__ = __format__
    Tensor.__reduce_ex__ = __reduce_ex__
    Tensor.__array_priority__ = 1000  # NumPy defers to the tensor's operators
    Tensor.type = _tensor_types.tensor_type
    for fn in (isclose, allclose, equal):
        setattr(Tensor, fn.__name__, fn)


_install()
