"""make_tensor: a tensor of random values for tests (torch.testing.make_tensor)."""
import math

import ember

_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _name(dtype):
    return str(dtype).split(".")[-1]


def _low_high(low, high, lowest, highest, default_low, default_high, dtype):
    """torch's rule: missing bounds default to [default_low, default_high), clamped to what
    the dtype holds; NaN bounds and low > high are errors."""
    for name, v in (("low", low), ("high", high)):
        if v is not None and isinstance(v, float) and math.isnan(v):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low is not None and high is not None and low > high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    low = max(default_low if low is None else low, lowest)
    high = min(default_high if high is None else high, highest)
    return low, high


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """A tensor of the given shape, dtype and device filled with values drawn uniformly
    from [low, high) (torch's defaults: [-9, 9) for floating types, [-9, 10) for integers,
    from 0 for uint8; bool: False/True). ``exclude_zero`` replaces zeros with the dtype's
    smallest positive value (1 for integers); ``noncontiguous`` returns a strided view."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, ember.Size)):
        shape = tuple(shape[0])
    if requires_grad and _name(dtype) not in _FLOATS:
        raise ValueError("`requires_grad=True` is not supported for boolean and integral dtypes, "
                         f"but got dtype={dtype}")
    if memory_format is not None:
        raise NotImplementedError("make_tensor(): ember tensors have no memory formats other "
                                  "than contiguous (memory_format=None)")
    name = _name(dtype)
    if name == "bool":
        t = ember.randint(0, 2, shape, device=device).to(ember.bool)
    elif name in _FLOATS:
        fi = ember.finfo(dtype)
        lo, hi = _low_high(low, high, fi.min, fi.max, -9, 9, dtype)
        t = ember.empty(shape, dtype=dtype, device=device).uniform_(lo, hi)
    else:
        ii = ember.iinfo(dtype)
        lo, hi = _low_high(low, high, ii.min, ii.max, -9, 10, dtype)
        t = ember.randint(math.ceil(lo), math.ceil(hi) if hi != lo else hi + 1, shape,
                          dtype=ember.int64, device=device).to(dtype)
    if exclude_zero:
        replace = ember.finfo(dtype).tiny if name in _FLOATS else 1
        t = ember.where(t == 0, ember.full((), replace, dtype=dtype, device=device), t)
    if noncontiguous and t.numel() > 1:
        t = ember.stack([t, t], dim=-1)[..., 0]
    if requires_grad:
        t.requires_grad_(True)
    return t
