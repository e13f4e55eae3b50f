"""ember.autocast (torch.autocast): regions in mixed precision.

The state is C++ and thread-local (csrc/autograd/autocast.hpp): per device type
an enabled flag and a dtype, the nesting depth and the cast cache. Entering and
leaving a region are one C++ call each. The ops on torch's autocast lists cast
their inputs themselves (docs/design/amp.md).
"""
import collections
import functools
import warnings

import ember
from ember import _C

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available"]

_DEVICE_INDEX = {"cpu": 0, "cuda": 1}


def is_autocast_available(device_type):
    """Whether ember can autocast on ``device_type`` ('cpu' and 'cuda')."""
    return device_type in _DEVICE_INDEX


def _cuda_not_available():
    return not ember.cuda.is_available()


def _bf16_supported():
    return ember.cuda.get_device_capability()[0] >= 8


def autocast_decorator(autocast_instance, func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)
    return decorate_autocast


class autocast:
    """Context manager and decorator running its region in mixed precision (torch.autocast).

    In the region the ops on torch's lists run in ``dtype`` (matmul, mm, bmm, linear,
    addmm, baddbmm, einsum, ...), in float32 (exp, log, pow, softmax, sum, losses, ...)
    or in the widest input type (addcmul, addcdiv, atan2, dot, ...); see docs/design/amp.md.
    ``device_type`` is 'cuda' (default dtype float16) or 'cpu' (default bfloat16).
    ``enabled=False`` regions may be nested inside enabled ones. The state is
    thread-local: a new thread starts with autocast off. Casts of float32 leaves
    that require grad (weights) are cached until the outermost region exits
    (``cache_enabled``).
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.device = device_type
        self._dev = _DEVICE_INDEX[device_type]
        self.fast_dtype = _C.get_autocast_dtype(device_type)
        self._cache_enabled = _C.is_autocast_cache_enabled()
        if enabled and device_type == "cuda" and _cuda_not_available():
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. Disabling",
                          stacklevel=2)
            enabled = False
        if dtype is not None:
            if not isinstance(dtype, ember.dtype):
                raise TypeError(f"dtype must be an ember.dtype, got {type(dtype).__name__}")
            self.fast_dtype = dtype
        if cache_enabled is not None:
            self._cache_enabled = bool(cache_enabled)
        if device_type == "cpu":
            supported_dtype = [ember.bfloat16, ember.float16]
            if self.fast_dtype not in supported_dtype and enabled:
                error_message = "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                error_message += "CPU Autocast only supports dtype of "
                error_message += ", ".join(str(d) for d in supported_dtype) + " currently."
                warnings.warn(error_message, stacklevel=2)
                enabled = False
        elif enabled and self.fast_dtype == ember.bfloat16 and not _bf16_supported():
            raise RuntimeError(
                "Current CUDA Device does not support bfloat16. Please switch dtype to float16.")
        if enabled and not self.fast_dtype.is_floating_point:
            raise ValueError(f"autocast dtype must be a floating point dtype, got {self.fast_dtype}")
        self._enabled = bool(enabled)

    def __enter__(self):
        self._prev = _C._autocast_enter(self._dev, self._enabled, self.fast_dtype,
                                        self._cache_enabled)

    def __exit__(self, exc_type, exc_val, exc_tb):
        _C._autocast_exit(self._dev, self._prev)
        return False

    def __call__(self, func):
        return autocast_decorator(self, func)

    def __repr__(self):
        return (f"autocast(device_type={self.device!r}, dtype={self.fast_dtype}, "
                f"enabled={self._enabled}, cache_enabled={self._cache_enabled})")


def _cast(value, device_type, dtype):
    """Casts the floating tensors on device_type (not float64) in nested containers."""
    if isinstance(value, ember.Tensor):
        eligible = (value.is_floating_point() and value.device.type == device_type
                    and value.dtype is not ember.float64)
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)):
        return value
    if type(value).__module__ == "numpy":
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        iterable = (_cast(v, device_type, dtype) for v in value)
        if isinstance(value, (list, tuple)):
            return type(value)(iterable)
        return iterable
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for the ``forward`` of an ember.autograd.Function (torch.amp.custom_fwd):
    with ``cast_inputs``, inside an autocast region, floating inputs on device_type are
    cast to it and forward runs with autocast off."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = _C.get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = _C.is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = _C.is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs),
                           **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for the ``backward`` of an ember.autograd.Function (torch.amp.custom_bwd):
    backward runs with the autocast state forward had."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast,
                      dtype=args[0]._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd


# torch's deprecated per-device spellings of the state functions (DeprecationWarning,
# torch's messages).
def _deprecated(old, new):
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled():
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return _C.is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    _C.set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return _C.get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    _C.set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return _C.get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype):
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    _C.set_autocast_dtype("cuda", dtype)
