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
    if input.dtype == _C.bool:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if input.dtype.is_complex:  # torch fails building its arange of j/2 in that dtype
        suffix = "cuda" if input.device.type == "cuda" else "cpu"
        raise NotImplementedError(f"\"arange_{suffix}\" not implemented for "
                                  f"'{_scalar_name(input.dtype)}'")
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

def _ldexp_int(input, other):
    """std::ldexp(double(x), n) rounded to x's dtype, torch's kernel for a floating input
    and an integer exponent: x * 2**n rounded once in double (no overflow of 2**n on the
    way: ldexp(1e-38, 144) is 262144 in float32, ldexp(0, 126) 0 in float16, ldexp(inf,
    -678) inf). Exponents beyond any float range give 0 or inf (torch passes n on as a C
    int, which wraps for int64 n beyond int32). torch's CPU kernel takes no bool exponent;
    its CUDA kernel (::ldexp(x, int(n)) in x's dtype, the same results) takes one as 0/1."""
    if other.dtype == _C.bool:
        if not input.is_cuda:
            raise NotImplementedError("\"ldexp_cpu_exp\" not implemented for 'Bool'")
        other = other.to(_C.int64)
    x = input.to(_C.float64)
    m, k = _C._frexp(x)  # x = m * 2**k, 0.5 <= |m| < 1
    s = k.to(_C.int64) + other.to(_C.int64).clamp(-4000, 4000)
    # m * 2**s as (m * 2**a) * 2**b with exact powers of two built from their bits: the
    # first product is exact (a >= -1021 keeps it normal, a <= 1023 finite or just inf),
    # the second rounds once (subnormal, 0 or inf)
    a = s.clamp(-1021, 1023)
    b = (s - a).clamp(-1022, 1023)
    r = (m * _exact_pow2(a)) * _exact_pow2(b)
    r = _C.where((x == 0.0) | ~_C.isfinite(x), x, r)
    return r.to(input.dtype)


def _exact_pow2(e):
    """2.0**e as float64 for int64 e in [-1022, 1023], from its IEEE bits (exact: no pow)."""
    return ((e + 1023) << 52).view(_C.float64)


def _pow2(input, other):
    """torch's 2**other for ldexp's product: float32 for an integer or float32 input
    (pow(2.0, other)), else a 0-d 2.0 of input's dtype to the power other."""
    if not input.dtype.is_floating_point or input.dtype == _C.float32:
        return _C.pow(2.0, other)
    return _C.pow(_C.full((), 2.0, dtype=input.dtype, device=input.device), other)


def _int_exponent(input, other):
    return other.dtype in _INTEGRAL and input.dtype.is_floating_point


_INTEGRAL = (_C.bool, _C.uint8, _C.int8, _C.int16, _C.int32, _C.int64)


def ldexp(input, other, *, out=None):
    """torch.ldexp: input * 2**other. A floating input with an integer exponent is
    std::ldexp in double, rounded to input's dtype (out= of another dtype takes the
    product instead); otherwise input * 2**other with torch's 2**other (see _pow2)."""
    _check_tensor("ldexp", "input", 1, input)
    _check_tensor("ldexp", "other", 2, other)
    if out is not None and not out.dtype.is_floating_point:
        raise RuntimeError(f"ldexp can't be cast to the desired output type "
                           f"{_scalar_name(out.dtype)}")
    if _int_exponent(input, other) and (out is None or out.dtype == input.dtype):
        r = _ldexp_int(input, other)
    else:
        r = input * _pow2(input, other)
    return _out("ldexp", r, out, input, other)


def ldexp_(input, other):
    """torch.ldexp_: ldexp in place (ldexp's out= with input as out)."""
    if _int_exponent(input, other):
        r = _ldexp_int(input, other)
    else:
        r = input * _pow2(input, other)
        if not _C.can_cast(r.dtype, input.dtype):
            raise RuntimeError(f"result type {_scalar_name(r.dtype)} can't be cast to the "
                               f"desired output type {_scalar_name(input.dtype)}")
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
    """torch.isreal: whether each imaginary part is zero (True everywhere for real dtypes)."""
    _check_tensor("isreal", "input", 1, input)
    if input.is_complex():
        return _C.imag(input) == 0
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
