"""torch's math functions that are compositions of ember's bound ops: diff, gradient,
logaddexp/logaddexp2, copysign, heaviside, deg2rad/rad2deg, signbit, sinc, xlogy,
trapezoid/trapz/cumulative_trapezoid, aminmax, std_mean/var_mean, cross (and
linalg.cross) and the window functions.

They run on every device the composed ops run on and get autograd from them (where,
narrow, cat and the elementwise ops are differentiable; the composites keep the
branches that `where` discards finite, so their gradients are torch's: sinc'(0) = 0).
Names, arguments, dtypes (integer inputs of the float-valued functions compute in the
default float dtype), validation and messages are torch's.

Imports nothing but ember._C and the shape composites (so ``import ember`` stays cheap).
"""
import math
from collections import namedtuple

from ember import _C
from ember._composite_shape import _attach, _out, _scalar_name, _wrap_dim

__all__ = ["diff", "gradient", "logaddexp", "logaddexp2", "copysign", "heaviside", "deg2rad",
           "rad2deg", "signbit", "sinc", "xlogy", "trapz", "trapezoid", "cumulative_trapezoid",
           "aminmax", "std_mean", "var_mean", "cross", "hann_window", "hamming_window",
           "blackman_window", "bartlett_window", "kaiser_window", "deg2rad_", "rad2deg_",
           "sinc_", "xlogy_"]

_Tensor = _C.Tensor


def _is_float(dtype):
    return dtype.is_floating_point


def _float_dtype(dtype):
    """dtype where it is floating, else the default float dtype (torch's int-to-float rule)."""
    return dtype if _is_float(dtype) else _C.get_default_dtype()


def _check_tensor(fn, name, pos, value):
    if not isinstance(value, _Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(value).__name__}")


def _cast_into(self, result):
    """The in-place forms: result copied into self where its dtype casts to self's."""
    if not _C.can_cast(result.dtype, self.dtype):
        raise RuntimeError(f"result type {_scalar_name(result.dtype)} can't be cast to the "
                           f"desired output type {_scalar_name(self.dtype)}")
    return self.copy_(result)


def _slice(x, dim, start=None, stop=None):
    return x[(slice(None),) * dim + (slice(start, stop),)]


# ---- differences ------------------------------------------------------------------------

def diff(input, n=1, dim=-1, prepend=None, append=None, *, out=None):
    """torch.diff: the n-th forward difference along dim (logical_xor for bool), after
    concatenating prepend and append along dim."""
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, input.dim())
    parts = []
    for other in (prepend, append):
        if other is None:
            continue
        if other.dim() != input.dim():
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        for i in range(input.dim()):
            if i != d and other.shape[i] != input.shape[i]:
                raise RuntimeError(
                    "diff expects the shape of tensor to prepend or append to match that of "
                    f"input except along the differencing dimension; input.size({i}) = "
                    f"{input.shape[i]}, but got tensor.size({i}) = {other.shape[i]}")
    if prepend is not None:
        parts.append(prepend)
    parts.append(input)
    if append is not None:
        parts.append(append)
    x = _C.cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        hi, lo = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
        x = _C.logical_xor(hi, lo) if x.dtype == _C.bool else hi - lo
    return _out("diff", x, out, input, prepend, append)


def _grad_dims(input, dim):
    if dim is None:
        return list(range(input.dim())), False
    dims = [dim] if isinstance(dim, int) else list(dim)
    if input.dim() == 0 and dims:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    seen = set()
    for d in dims:
        w = _wrap_dim(d, input.dim())
        if w in seen:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        seen.add(w)
    return [_wrap_dim(d, input.dim()) for d in dims], True


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """torch.gradient: central differences inside, one-sided (edge_order 1 or 2) at the
    ends, along each dim; spacing a scalar, a list of scalars, or a list of coordinate
    tensors (one per dim). A tuple of tensors, one per dim."""
    if input.dtype == _C.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    dims, given = _grad_dims(input, dim)
    if isinstance(spacing, (int, float)) and not isinstance(spacing, bool):
        spacing = [spacing] * len(dims)
    elif isinstance(spacing, _Tensor):
        spacing = [spacing]
    spacing = list(spacing)
    if not given and len(spacing) != input.dim():
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
            f"equal to 'self.dim() = {input.dim()}', since dim argument was not given, but got "
            f"a list of length {len(spacing)}")
    if given and len(spacing) != len(dims):
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
            f"arguments to have the same length, but got a spacing argument of length "
            f"{len(spacing)} and a dim argument of length {len(dims)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1")
    out = []
    for d, h in zip(dims, spacing):
        s = lambda a, b=None: _slice(input, d, a, b)  # noqa: E731
        if isinstance(h, _Tensor):
            if h.dim() != 1:
                raise RuntimeError("torch.gradient expected each tensor of spacing to be "
                                   f"one-dimensional, but got {h.dim()} dims")
            if h.device != input.device:
                raise RuntimeError("torch.gradient expected each tensor to be on the same device "
                                   "as the input tensor")
            shape = [1] * input.dim()
            shape[d] = -1
            dx = h[1:] - h[:-1]
            dx1, dx2 = dx[:-1], dx[1:]
            a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
            b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
            c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
            center = a * s(0, -2) + b * s(1, -1) + c * s(2)
            if edge_order == 1:
                pre = (s(1, 2) - s(0, 1)) / dx[0]
                post = (s(-1) - s(-2, -1)) / dx[-1]
            else:
                a = -(2.0 * dx[0] + dx[1]) / (dx[0] * (dx[0] + dx[1]))
                b = (dx[0] + dx[1]) / (dx[0] * dx[1])
                c = (-dx[0]) / (dx[1] * (dx[0] + dx[1]))
                pre = a * s(0, 1) + b * s(1, 2) + c * s(2, 3)
                a = dx[-1] / (dx[-2] * (dx[-1] + dx[-2]))
                b = -(dx[-1] + dx[-2]) / (dx[-1] * dx[-2])
                c = (2 * dx[-1] + dx[-2]) / (dx[-1] * (dx[-1] + dx[-2]))
                post = a * s(-3, -2) + b * s(-2, -1) + c * s(-1)
        else:
            center = (s(2) - s(0, -2)) / h / 2
            if edge_order == 1:
                pre = (s(1, 2) - s(0, 1)) / h
                post = (s(-1) - s(-2, -1)) / h
            else:
                pre = (s(0, 1) * -1.5 + s(1, 2) * 2 - s(2, 3) * 0.5) / h
                post = (s(-3, -2) * 0.5 - s(-2, -1) * 2 + s(-1) * 1.5) / h
        dtype = _C.promote_types(_C.promote_types(pre.dtype, center.dtype), post.dtype)
        out.append(_C.cat([pre.to(dtype), center.to(dtype), post.to(dtype)], d))
    return tuple(out)


# ---- elementwise ------------------------------------------------------------------------

def _logaddexp(name, input, other, two):
    _check_tensor(name, "other", 2, other)
    dtype = _C.result_type(input, other)
    if dtype.is_complex and not two:
        return _logaddexp_complex(input.to(dtype), other.to(dtype))
    if not _is_float(dtype):
        kind = "cuda" if input.device.type == "cuda" else "cpu"
        raise NotImplementedError(f'"{name}_{kind}" not implemented for '
                                  f"'{_scalar_name(dtype)}'")
    # torch's kernels: m + log1p(exp(-|a - b|)) (times 1/ln 2 for logaddexp2), computed
    # in float32 for float16/bfloat16 (opmath) and rounded once into the dtype
    cdt = _C.float32 if dtype in (_C.float16, _C.bfloat16) else dtype
    a, b = input.to(dtype).to(cdt), other.to(dtype).to(cdt)  # operands in the result dtype
    m = _C.maximum(a, b)
    d = -(a - b).abs()
    if two:  # log1p(...) * (1 / ln 2) + m as one fused multiply-add (torch's compilers fuse)
        r = _C.addcmul(m, _C.log1p(_C.exp2(d)), _C.full((), 1.0 / math.log(2.0), dtype=cdt,
                                                         device=m.device))
    else:
        r = m + _C.log1p(_C.exp(d))
    return _C.where(_C.isinf(a) & (a == b), a, r).to(dtype)


def _cadd(a, b, sign=1):
    """a + sign * b of complex tensors, part by part."""
    ra, rb = _C.view_as_real(a), _C.view_as_real(b)
    return _C.view_as_complex((ra + rb if sign > 0 else ra - rb).contiguous())


def _logaddexp_complex(a, b):
    # torch's _log_add_exp_helper: ordered by the real parts, log1p(exp(min - max)) + max;
    # NaN where either has a NaN part; min where both real parts are -inf; log(exp(min) +
    # exp(max)) where both are +inf. (log(1 + w) for log1p: w's digits past 1 are below
    # the rounding of the result's magnitude, max's, except near its zeros.)
    ar, br = _C.real(a), _C.real(b)
    swap = ar < br
    mx, mn = _C.where(swap, b, a), _C.where(swap, a, b)
    mxr, mnr = _C.real(mx), _C.real(mn)
    # parts added separately (torch's scalar complex arithmetic): the kernels' a + 1 * b
    # would make inf * 0 of an infinite part's partner a NaN
    r = _cadd(_C.log(_C.exp(_cadd(mn, mx, -1)) + 1), mx)
    both_inf = _C.isinf(mnr) & (mnr == mxr)
    r = _C.where(both_inf, _C.where(mnr < 0, mn, _C.log(_C.exp(mn) + _C.exp(mx))), r)
    nan = _C.isnan(a) | _C.isnan(b)
    return _C.where(nan, _C.full((), complex(math.nan, math.nan), dtype=r.dtype,
                                 device=r.device), r)


def logaddexp(input, other, *, out=None):
    """torch.logaddexp: log(exp(input) + exp(other)) without overflow."""
    return _out("logaddexp", _logaddexp("logaddexp", input, other, False), out, input, other)


def logaddexp2(input, other, *, out=None):
    """torch.logaddexp2: log2(2**input + 2**other) without overflow."""
    return _out("logaddexp2", _logaddexp("logaddexp2", input, other, True), out, input, other)


def signbit(input, *, out=None):
    """torch.signbit: whether the sign bit is set (-0.0 and -nan included)."""
    if out is not None and isinstance(out, _Tensor) and out.dtype != _C.bool:
        raise RuntimeError("signbit does not support non-boolean outputs.")
    return _out("signbit", _signbit(input), out)


def _signbit(input):
    if input.dtype == _C.bool or not input.dtype.is_signed:
        return _C.zeros(input.shape, dtype=_C.bool, device=input.device)
    if not _is_float(input.dtype):
        return input < 0
    bits = {2: _C.int16, 4: _C.int32, 8: _C.int64}[input.element_size()]
    return input.detach().contiguous().view(bits) < 0


def copysign(input, other, *, out=None):
    """torch.copysign: input's magnitude with other's sign (float results)."""
    dtype = _float_dtype(_C.result_type(input, other))
    mag = input.to(dtype).abs()
    if isinstance(other, _Tensor):
        r = _C.where(_signbit(other), -mag, mag)
    else:
        r = -mag if math.copysign(1.0, other) < 0 else mag
    return _out("copysign", r, out, input, other)


def heaviside(input, values, *, out=None):
    """torch.heaviside: 0 where input < 0, values where input == 0, 1 where input > 0."""
    _check_tensor("heaviside", "values", 2, values)
    # torch's check covers out= too: every operand of one dtype
    if input.dtype != values.dtype or (isinstance(out, _Tensor) and out.dtype != input.dtype):
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return _out("heaviside", _C.where(input == 0, values, (input > 0).to(input.dtype)), out,
                input, values)


def deg2rad(input, *, out=None):
    """torch.deg2rad: degrees to radians (integers in the default float dtype)."""
    return _out("deg2rad", input.to(_float_dtype(input.dtype)) * (math.pi / 180.0), out, input)


def rad2deg(input, *, out=None):
    """torch.rad2deg: radians to degrees (integers in the default float dtype)."""
    return _out("rad2deg", input.to(_float_dtype(input.dtype)) * (180.0 / math.pi), out, input)


def sinc(input, *, out=None):
    """torch.sinc: sin(pi x) / (pi x), 1 at 0."""
    if input.dtype.is_complex:
        # sin(pi z) / (pi z) in the complex dtype, 1 at 0
        zero = input == 0
        pz = _C.where(zero, 1.0, input * math.pi)
        return _out("sinc", _C.where(zero, 1.0, _C.sin(pz) / pz), out, input)
    rdt = _float_dtype(input.dtype)
    # float16/bfloat16 compute in float32 and round once (torch's opmath): pi * x rounded
    # to bfloat16 first would move sin's argument by up to 0.1
    x = input.to(_C.float32 if rdt in (_C.float16, _C.bfloat16) else rdt)
    zero = x == 0
    px = _C.where(zero, 1.0, x * math.pi)  # a finite branch where x == 0 (finite gradient)
    return _out("sinc", _C.where(zero, 1.0, _C.sin(px) / px).to(rdt), out, input)


def xlogy(input, other, *, out=None):
    """torch.xlogy: input * log(other), 0 where input == 0 (nan where other is nan)."""
    if not isinstance(input, _Tensor) and not isinstance(other, _Tensor):
        raise TypeError(
            f"xlogy() received an invalid combination of arguments - got "
            f"({type(input).__name__}, {type(other).__name__}), but expected one of:\n"
            " * (Tensor input, Tensor other, *, Tensor out = None)\n"
            " * (Number self, Tensor other, *, Tensor out = None)\n"
            " * (Tensor input, Number other, *, Tensor out = None)")
    common = _C.result_type(input, other)
    device = (input if isinstance(input, _Tensor) else other).device
    if common.is_complex:
        suffix = "cuda" if device.type == "cuda" else "cpu"
        raise NotImplementedError(f"\"xlogy_{suffix}\" not implemented for "
                                  f"'{_scalar_name(common)}'")
    dtype = _float_dtype(common)
    x = input.to(dtype) if isinstance(input, _Tensor) else _C.tensor(input, dtype=dtype,
                                                                       device=device)
    y = other.to(dtype) if isinstance(other, _Tensor) else _C.tensor(other, dtype=dtype,
                                                                     device=device)
    # x == 0 gives 0; where log(y) is not finite there (y <= 0 or inf) log(y) is replaced
    # by 0 (and y by 1, so that no 0 * inf reaches the gradient): x's gradient stays log(y)
    # where y > 0, as torch's. + 0.0 makes the -0.0 of 0 * log(y < 1) torch's +0.0.
    mask = (x == 0) & ~((y > 0) & _C.isfinite(y))
    ly = _C.where(mask, 0.0, _C.log(_C.where(mask, 1.0, y)))
    return _out("xlogy", _C.where(_C.isnan(y), math.nan, x * ly + 0.0), out, input, other)


# ---- integration ------------------------------------------------------------------------

def _x_viewed(name, y, x, d):
    if x.dim() == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y.dim()
        shape[d] = x.shape[0]
        return x.reshape(shape)
    if x.dim() < y.dim():
        return x.reshape((1,) * (y.dim() - x.dim()) + tuple(x.shape))
    return x


def _trapz_args(name, y, x, dx, dim, fname=None):
    if y.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, y.dim())
    if x is not None and dx is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got both `x` "
                        "and `dx`; pass one of them")
    if x is not None and not isinstance(x, _Tensor):
        raise TypeError(
            f"{fname or name}() received an invalid combination of arguments - got (Tensor, "
            f"{type(x).__name__}), but expected one of:\n"
            f" * (Tensor y, Tensor x, *, int dim = -1)\n"
            f" * (Tensor y, *, Number dx = 1, int dim = -1)\n")
    if isinstance(dx, (bool, complex)):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")
    return d, x, (1 if dx is None else dx)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """torch.trapezoid: the trapezoidal rule along dim, with sample points x (a tensor)
    or a constant spacing dx."""
    return _trapezoid(y, x, dx, dim, "trapezoid")


def _trapezoid(y, x, dx, dim, fname):
    d, x, dx = _trapz_args("trapezoid", y, x, dx, dim, fname)
    if y.shape[d] == 0:
        shape = list(y.shape)
        del shape[d]
        return y.new_zeros(shape)
    if x is not None:
        if y.dtype == _C.bool or x.dtype == _C.bool:
            raise RuntimeError("trapezoid: received a bool input for `x` or `y`, but bool is not "
                               "supported")
        xv = _x_viewed("trapezoid", y, x, d)
        dxt = _slice(xv, d, 1) - _slice(xv, d, 0, -1)
        return (dxt * (_slice(y, d, 0, -1) + _slice(y, d, 1))).sum(d) / 2.0
    if y.dtype == _C.bool:
        raise RuntimeError("trapezoid: received a bool input for `y`, but bool is not supported")
    return (y.sum(d) - (y.select(d, 0) + y.select(d, -1)) * 0.5) * dx


def trapz(y, x=None, *, dx=None, dim=-1):
    """torch.trapz: alias of trapezoid."""
    return _trapezoid(y, x, dx, dim, "trapz")


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """torch.cumulative_trapezoid: the running trapezoidal integral along dim (one fewer
    element than y along dim)."""
    if y.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d, x, dx = _trapz_args("cumulative_trapezoid", y, x, dx, dim)
    left, right = _slice(y, d, 0, -1), _slice(y, d, 1)
    if x is not None:
        if y.dtype == _C.bool or x.dtype == _C.bool:
            raise RuntimeError("cumulative_trapezoid: received a bool input for `x` or `y`, but "
                               "bool is not supported")
        xv = _x_viewed("cumulative_trapezoid", y, x, d)
        dxt = _slice(xv, d, 1) - _slice(xv, d, 0, -1)
        return (dxt / 2.0 * (left + right)).cumsum(d)
    if y.dtype == _C.bool:
        raise RuntimeError("cumulative_trapezoid: received a bool input for `y`, but bool is not "
                           "supported")
    return (dx / 2.0 * (left + right)).cumsum(d)


# ---- reductions -------------------------------------------------------------------------

def _return_type():
    rt = _C.return_types
    cls = getattr(rt, "aminmax", None)
    if cls is None:
        base = namedtuple("aminmax", ["min", "max"])

        class aminmax(base):
            """aminmax(min, max): what ember.aminmax returns (torch.return_types')."""
            __slots__ = ()

            def __repr__(self):
                return f"ember.return_types.aminmax(min={self.min!r}, max={self.max!r})"

        aminmax.__module__, aminmax.__qualname__ = "ember.return_types", "aminmax"
        cls = rt.aminmax = aminmax
    return cls


_AminmaxResult = _return_type()


def aminmax(input, *, dim=None, keepdim=False):
    """torch.aminmax: (min, max) of the tensor, or along dim (a named tuple)."""
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                               "operation has no identity.")
        lo, hi = input.amin(), input.amax()
        if keepdim:
            shape = (1,) * input.dim()
            lo, hi = lo.reshape(shape), hi.reshape(shape)
        return _AminmaxResult(lo, hi)
    d = _wrap_dim(dim, input.dim())
    if input.dim() and input.shape[d] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    if input.dim() == 0:
        return _AminmaxResult(input.clone(), input.clone())
    return _AminmaxResult(input.amin(d, keepdim), input.amax(d, keepdim))


def _stat_mean(name, fn, input, args, kwargs):
    if not (_is_float(input.dtype) or getattr(input, "is_complex", lambda: False)()):
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    stat = fn(input, *args, **kwargs)
    dim, keepdim = kwargs.get("dim"), kwargs.get("keepdim", False)
    if args and not isinstance(args[0], bool):
        dim = args[0]
        if len(args) >= 3:
            keepdim = args[2]
    if dim is None:
        mean = input.mean()
        if keepdim:
            mean = mean.reshape((1,) * input.dim())
    else:
        mean = input.mean(dim, keepdim)
    correction = kwargs.get("correction")
    if correction is None:
        unbiased = kwargs.get("unbiased", True)
        if args and isinstance(args[0], bool):
            unbiased = args[0]
        elif len(args) >= 2:
            unbiased = args[1]
        correction = 1 if unbiased else 0
    if input.numel() // max(mean.numel(), 1) - correction <= 0:
        import warnings
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=3)
    return stat, mean


def std_mean(input, *args, **kwargs):
    """torch.std_mean: (std, mean) over dim, with std's arguments (unbiased or correction)."""
    return _stat_mean("std_mean", _C.std, input, args, kwargs)


def var_mean(input, *args, **kwargs):
    """torch.var_mean: (var, mean) over dim, with var's arguments (unbiased or correction)."""
    return _stat_mean("var_mean", _C.var, input, args, kwargs)


# ---- cross ------------------------------------------------------------------------------

def _linalg_cross(input, other, dim):
    if input.dtype == _C.bool:
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, input.dim())
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[d]} and {other.shape[d]}")
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_name(input.dtype)} but found "
                           f"{_scalar_name(other.dtype)}")
    if input.device != other.device:
        raise RuntimeError("linalg.cross: Expected both inputs to be on the same device, but got "
                           f"{input.device} and {other.device}")
    shape = [max(p, q) if 1 in (p, q) else p for p, q in zip(input.shape, other.shape)]
    shape[d] = 3
    a, b = input.expand(shape), other.expand(shape)
    a0, a1, a2 = (a.narrow(d, i, 1) for i in range(3))
    b0, b1, b2 = (b.narrow(d, i, 1) for i in range(3))
    return _C.cat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], d)


def cross(input, other, dim=None, *, out=None):
    """torch.cross: the cross product along dim (without dim: the first dim of size 3,
    deprecated in torch, with its warning)."""
    if dim is None:
        import warnings
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\n"
                      "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
                      "The default value of dim will change to agree with that of linalg.cross "
                      "in a future release.", UserWarning, stacklevel=2)
        dim = next((i for i, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return _out("cross", _linalg_cross(input, other, dim), out, input, other)


def linalg_cross(input, other, *, dim=-1, out=None):
    """torch.linalg.cross: the cross product along dim (default -1), broadcasting."""
    return _out("linalg_cross", _linalg_cross(input, other, dim), out, input, other)


# ---- windows ----------------------------------------------------------------------------

def _window(name, window_length, dtype, device):
    if isinstance(window_length, bool) or not isinstance(window_length, int):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    dtype = _C.get_default_dtype() if dtype is None else dtype
    if not _is_float(dtype):
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    return dtype, ("cpu" if device is None else device)


def _finish(w, periodic, requires_grad):
    if periodic:
        w = w.narrow(0, 0, w.shape[0] - 1).clone()
    return w.requires_grad_(True) if requires_grad else w


def _trivial(window_length, dtype, device, requires_grad):
    if window_length > 1:
        return None
    w = (_C.ones if window_length == 1 else _C.empty)((window_length,), dtype=dtype,
                                                       device=device)
    return w.requires_grad_(True) if requires_grad else w


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    """torch.hamming_window: alpha - beta cos(2 pi n / (N - 1)); periodic drops the last
    point of the window one longer."""
    return _hamming("hamming_window", window_length, periodic, alpha, beta, dtype, device,
                    requires_grad)


def _hamming(name, window_length, periodic, alpha, beta, dtype, device, requires_grad):
    dtype, device = _window(name, window_length, dtype, device)
    w = _trivial(window_length, dtype, device, requires_grad)
    if w is not None:
        return w
    n = window_length + 1 if periodic else window_length
    w = _C.arange(n, dtype=dtype, device=device) * (math.pi * 2.0 / (n - 1))
    return _finish(w.cos() * -beta + alpha, periodic, requires_grad)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """torch.hann_window: 0.5 - 0.5 cos(2 pi n / (N - 1))."""
    return _hamming("hann_window", window_length, periodic, 0.5, 0.5, dtype, device,
                    requires_grad)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """torch.blackman_window: 0.42 - 0.5 cos(2 pi n / (N-1)) + 0.08 cos(4 pi n / (N-1))."""
    dtype, device = _window("blackman_window", window_length, dtype, device)
    w = _trivial(window_length, dtype, device, requires_grad)
    if w is not None:
        return w
    n = window_length + 1 if periodic else window_length
    w = _C.arange(n, dtype=dtype, device=device) * (math.pi / (n - 1))
    w = (w * 4).cos() * 0.08 - (w * 2).cos() * 0.5 + 0.42
    return _finish(w, periodic, requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """torch.bartlett_window: the triangular window 1 - |2n / (N - 1) - 1|."""
    dtype, device = _window("bartlett_window", window_length, dtype, device)
    w = _trivial(window_length, dtype, device, requires_grad)
    if w is not None:
        return w
    n = window_length + 1 if periodic else window_length
    w = _C.arange(n, dtype=dtype, device=device) * (2.0 / (n - 1))
    half = ((n - 1) >> 1) + 1
    w = _C.cat([w.narrow(0, 0, half), w.narrow(0, half, n - half) * -1 + 2])
    return _finish(w, periodic, requires_grad)


def _log_i0(x, terms):
    """log I0(x) for x >= 0 (float64), from the power series sum_k (x/2)^(2k) / (k!)^2
    summed in log space (no overflow for any x)."""
    k = _C.arange(terms, dtype=_C.float64, device=x.device)
    lg = _C.tensor([2.0 * math.lgamma(i + 1.0) for i in range(terms)], dtype=_C.float64,
                   device=x.device)
    logh = _C.log(x.unsqueeze(-1) / 2.0)
    logt = _C.where(k == 0, 0.0, 2.0 * k * _C.where(k == 0, 0.0, logh)) - lg
    return _C.logsumexp(logt, -1)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    """torch.kaiser_window: I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta), a = (N - 1) / 2.
    Computed in float64 (I0 from its series) and rounded to dtype."""
    dtype, device = _window("kaiser_window", window_length, dtype, device)
    w = _trivial(window_length, dtype, device, requires_grad)
    if w is not None:
        return w
    n = window_length + 1 if periodic else window_length
    alpha = (n - 1) / 2.0
    r = (_C.arange(n, dtype=_C.float64, device=device) - alpha) / alpha
    arg = (1.0 - r * r).abs().sqrt() * abs(float(beta))
    terms = int(abs(float(beta))) + 40
    b = _C.tensor([abs(float(beta))], dtype=_C.float64, device=device)
    w = _C.exp(_log_i0(arg, terms) - _log_i0(b, terms))
    return _finish(w.to(dtype), periodic, requires_grad)


# ---- in-place forms (module-level where torch has them; also Tensor methods) -------------

def deg2rad_(input):
    """torch.deg2rad_: deg2rad in place (floating tensors)."""
    return _cast_into(input, deg2rad(input))


def rad2deg_(input):
    """torch.rad2deg_: rad2deg in place (floating tensors)."""
    return _cast_into(input, rad2deg(input))


def sinc_(input):
    """torch.sinc_: sinc in place (floating tensors)."""
    return _cast_into(input, sinc(input))


def xlogy_(input, other):
    """torch.xlogy_: xlogy in place (floating tensors)."""
    return _cast_into(input, xlogy(input, other))


# ---- Tensor methods (where torch has them) --------------------------------------------------

def _methods():
    def inplace(fn):
        return lambda self, *args: _cast_into(self, fn(self, *args))

    def aminmax_m(self, *, dim=None, keepdim=False):
        return aminmax(self, dim=dim, keepdim=keepdim)

    return {"diff": diff, "logaddexp": logaddexp, "logaddexp2": logaddexp2,
            "copysign": copysign, "copysign_": inplace(copysign), "heaviside": heaviside,
            "heaviside_": inplace(heaviside), "deg2rad": deg2rad, "deg2rad_": deg2rad_,
            "rad2deg": rad2deg, "rad2deg_": rad2deg_, "signbit": signbit, "sinc": sinc,
            "sinc_": sinc_, "xlogy": xlogy, "xlogy_": xlogy_,
            "aminmax": aminmax_m, "cross": cross}


_attach(_methods())
