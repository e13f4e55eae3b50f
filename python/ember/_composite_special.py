"""torch's special-function composites of ember's bound ops: mvlgamma (multigammaln),
ldexp, frexp's named result, isposinf/isneginf/isreal, and the module-level in-place
spellings torch has for Tensor methods (clamp_, clip_, fill_, zero_, fill ...).

The special functions themselves (lgamma, digamma, polygamma, erfinv, i0, logit,
igamma, gcd, ...) are bound C++ (csrc/ops/pointwise/special.hpp); ember.special
re-exports them under torch.special's names.

Imports nothing but ember._C and the shape composites (so ``import ember`` stays cheap).
"""
import math
from collections import namedtuple

from ember import _C
from ember._composite_shape import _attach, _out, _scalar_name

__all__ = ["mvlgamma", "ldexp", "ldexp_", "frexp", "isposinf", "isneginf", "isreal",
           "clamp_", "clamp_min_", "clamp_max_", "clip_", "fill_", "fill", "zero_"]

_Tensor = _C.Tensor


def _float_dtype(dtype):
    return dtype if dtype.is_floating_point else _C.get_default_dtype()


def _check_tensor(fn, arg, pos, value):
    if not isinstance(value, _Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not "
                        f"{type(value).__name__}")


# ---- multivariate log-gamma --------------------------------------------------------------

def _mvlgamma(input, p, name):
    _check_tensor(name, "input", 1, input)
    if not isinstance(p, int) or isinstance(p, bool):
        raise TypeError(f"{name}(): argument 'p' (position 2) must be int, not "
                        f"{type(p).__name__}")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = input if input.dtype.is_floating_point else input.to(_C.get_default_dtype())
    # no domain check (torch 2.11 has none either: lgamma's poles give inf), so nothing
    # waits for the device
    r = _C.lgamma(x)
    for j in range(1, p):
        r = r + _C.lgamma(x - 0.5 * j)
    return r + p * (p - 1) / 4.0 * math.log(math.pi)


def mvlgamma(input, p, *, out=None):
    """torch.mvlgamma (torch.special.multigammaln): log of the multivariate gamma
    function of dimension p, sum_j lgamma(x - j/2) + p(p-1)/4 log(pi)."""
    return _out("mvlgamma", _mvlgamma(input, p, "mvlgamma"), out, input)


# ---- ldexp, frexp --------------------------------------------------------------------------

def ldexp(input, other, *, out=None):
    """torch.ldexp: input * 2**other, with 2**other taken in other's floating dtype (the
    default one for integers) as torch's pow(2.0, other); the result in the floating
    dtype of both."""
    _check_tensor("ldexp", "input", 1, input)
    _check_tensor("ldexp", "other", 2, other)
    dtype = _float_dtype(_C.result_type(input, other))
    r = input.to(dtype) * _C.pow(2.0, other).to(dtype)
    return _out("ldexp", r, out, input, other)


def ldexp_(input, other):
    """torch.ldexp_: ldexp in place."""
    r = ldexp(input, other)
    if not _C.can_cast(r.dtype, input.dtype):
        raise RuntimeError(f"result type {_scalar_name(r.dtype)} can't be cast to the desired "
                           f"output type {_scalar_name(input.dtype)}")
    return input.copy_(r)


def _frexp_type():
    rt = _C.return_types
    cls = getattr(rt, "frexp", None)
    if cls is None:
        base = namedtuple("frexp", ["mantissa", "exponent"])

        class frexp(base):
            """frexp(mantissa, exponent): what ember.frexp returns (torch.return_types')."""
            __slots__ = ()

            def __repr__(self):
                return (f"ember.return_types.frexp(mantissa={self.mantissa!r}, "
                        f"exponent={self.exponent!r})")

        frexp.__module__, frexp.__qualname__ = "ember.return_types", "frexp"
        cls = rt.frexp = frexp
    return cls


_FrexpResult = _frexp_type()


def frexp(input, *, out=None):
    """torch.frexp: (mantissa, exponent) with input = mantissa * 2**exponent, |mantissa|
    in [0.5, 1) (0 for 0; exponent 0 for 0, inf and NaN); exponent is int32."""
    _check_tensor("frexp", "input", 1, input)
    if out is None:
        return _FrexpResult(*_C._frexp(input))
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError("frexp(): argument 'out' must be tuple of Tensors")
    return _FrexpResult(*_C._frexp(input, out[0], out[1]))


# ---- predicates ----------------------------------------------------------------------------

def _inf_test(name, input, sign, out):
    _check_tensor(name, "input", 1, input)
    if out is not None and out.dtype != _C.bool:
        raise RuntimeError(f"{name} does not support non-boolean outputs.")
    if input.dtype.is_floating_point:
        r = input == sign * math.inf
    else:
        r = _C.zeros(input.shape, dtype=_C.bool, device=input.device)
    return _out(name, r, out)


def isposinf(input, *, out=None):
    """torch.isposinf: input == +inf (all False for integers and bool)."""
    return _inf_test("isposinf", input, 1.0, out)


def isneginf(input, *, out=None):
    """torch.isneginf: input == -inf (all False for integers and bool)."""
    return _inf_test("isneginf", input, -1.0, out)


def isreal(input):
    """torch.isreal: True everywhere (ember's tensors are real)."""
    _check_tensor("isreal", "input", 1, input)
    return _C.ones(input.shape, dtype=_C.bool, device=input.device)


# ---- module-level spellings of in-place Tensor methods --------------------------------------

def _inplace(name):
    method = getattr(_Tensor, name)

    def f(input, *args, **kwargs):
        _check_tensor(name, "input", 1, input)
        return method(input, *args, **kwargs)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"ember.{name}(input, ...) is input.{name}(...)"
    return f


clamp_ = _inplace("clamp_")
clamp_min_ = _inplace("clamp_min_")
clamp_max_ = _inplace("clamp_max_")
clip_ = _inplace("clip_")
fill_ = _inplace("fill_")
zero_ = _inplace("zero_")


def fill(input, value):
    """torch.fill: a new tensor like input, filled with value (a number or a 0-d tensor)."""
    _check_tensor("fill", "input", 1, input)
    return _C.empty_like(input).fill_(value)


# ---- Tensor methods (where torch has them) --------------------------------------------------

def _methods():
    def mvlgamma_m(self, p):
        return mvlgamma(self, p)

    def mvlgamma_(self, p):
        r = _mvlgamma(self, p, "mvlgamma_")
        if not _C.can_cast(r.dtype, self.dtype):
            raise RuntimeError(f"result type {_scalar_name(r.dtype)} can't be cast to the "
                               f"desired output type {_scalar_name(self.dtype)}")
        return self.copy_(r)

    def frexp_m(self):
        return frexp(self)

    return {"mvlgamma": mvlgamma_m, "mvlgamma_": mvlgamma_, "ldexp": ldexp, "ldexp_": ldexp_,
            "frexp": frexp_m, "isposinf": isposinf, "isneginf": isneginf, "isreal": isreal}


_attach(_methods())
