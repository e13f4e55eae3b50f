"""torch's NaN-skipping reductions and statistics that are compositions of ember's bound
ops: nansum, nanmean, logcumsumexp, cov, corrcoef.

- nansum/nanmean replace NaNs by zero with ``where`` and reduce with the bound sum
  (nanmean divides by the count of non-NaN elements).
- logcumsumexp is a Hillis-Steele scan of the (stable) logaddexp: ceil(log2(n)) passes of
  one elementwise logaddexp each over the dim, so no element is ever exponentiated
  against a far-away maximum (no underflow to -inf as exp/cumsum/log would).
- cov/corrcoef follow torch's formulas (fweights/aweights, correction), on the bound
  products and reductions.

Autograd comes from the composed ops. Names, arguments, dtypes, out= and messages are
torch's. Imports nothing but ember._C and the other composites.
"""
import math

from ember import _C
from ember._composite_shape import _attach, _out, _scalar_name, _wrap_dim

__all__ = ["nansum", "nanmean", "logcumsumexp", "cov", "corrcoef"]

_Tensor = _C.Tensor


def _zero_nans(input):
    if not input.dtype.is_floating_point:
        return input
    return _C.where(_C.isnan(input), _C.zeros((), dtype=input.dtype, device=input.device), input)


def _reduce_args(dim, keepdim, dtype):
    kw = {"keepdim": keepdim}
    if dim is not None:
        kw["dim"] = dim
    if dtype is not None:
        kw["dtype"] = dtype
    return kw


def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """torch.nansum: sum, treating NaNs as zero."""
    if input.is_complex():
        dev = "CUDA" if input.device.type == "cuda" else "CPU"
        raise RuntimeError(f"nansum on {dev} does not support complex inputs")
    if dtype is not None and dtype.is_complex:  # torch's kernel has no complex dtype=
        raise NotImplementedError(f'"nansum_{input.device.type}" not implemented for '
                                  f"'{_scalar_name(dtype)}'")
    r = _C.sum(_zero_nans(input), **_reduce_args(dim, keepdim, dtype))
    return _out("nansum", r, out, input)


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """torch.nanmean: the mean of the non-NaN elements (NaN where there are none)."""
    if not (input.dtype.is_floating_point and (dtype is None or dtype.is_floating_point)):
        got = input.dtype if dtype is None or not input.dtype.is_floating_point else dtype
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {_scalar_name(got)}")
    x = input if dtype is None else input.to(dtype)
    count = _C.sum(_C.logical_not(_C.isnan(x)), **_reduce_args(dim, keepdim, None))
    r = _C.sum(_zero_nans(x), **_reduce_args(dim, keepdim, None)) / count
    return _out("nanmean", r.to(x.dtype), out, input)


def logcumsumexp(input, dim, *, out=None):
    """torch.logcumsumexp: log(cumsum(exp(input))) along dim, computed stably."""
    from ember._composite_math import logaddexp
    if out is not None and out.dtype != input.dtype:  # torch's out must match exactly
        raise RuntimeError(f"expected scalar_type {_scalar_name(input.dtype)} but found "
                           f"{_scalar_name(out.dtype)}")
    d = _wrap_dim(dim, input.dim())
    if not (input.dtype.is_floating_point or input.is_complex()):
        kind = "cuda" if input.device.type == "cuda" else "cpu"
        raise NotImplementedError(f'"logcumsumexp_out_{kind}" not implemented for '
                                  f"'{_scalar_name(input.dtype)}'")
    if input.dim() == 0:
        return _out("logcumsumexp", input.clone(), out, input)
    # float16/bfloat16 in float32, each result rounded once (torch's accumulation type):
    # the log2(n) rounded steps in the dtype drift (4099 copies of 192.125 in float16 came
    # to 199.625 at 1024, the exact 199.056)
    low = input.dtype in (_C.float16, _C.bfloat16)
    x, n, k = (input.float() if low else input), input.shape[d], 1
    if x.is_complex() and n > 0:  # torch's scan starts from -inf: NaNs spread to both parts
        x = logaddexp(x, _C.full((), -math.inf, dtype=x.dtype, device=x.device))
    while k < n:
        head = x.narrow(d, 0, k)
        tail = logaddexp(x.narrow(d, k, n - k), x.narrow(d, 0, n - k))
        x = _C.cat([head, tail], d)
        k *= 2
    if low:
        x = x.to(input.dtype)
    if x is input:
        x = input.clone()
    return _out("logcumsumexp", x, out, input)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """torch.cov: the covariance of the variables (rows) of a 1-D or 2-D input over its
    observations (columns), with frequency and analytic weights."""
    if input.dim() > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.dim()} dimensions")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    num_obs = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.dim() > 1:
            raise RuntimeError("cov(): expected fweights to have one or fewer dimensions but got "
                               f"fweights with {fweights.dim()} dimensions")
        if fweights.dtype.is_floating_point or fweights.dtype == _C.bool:
            raise RuntimeError("cov(): expected fweights to have integral dtype but got "
                               f"fweights with {_scalar_name(fweights.dtype)} dtype")
        if fweights.numel() != num_obs:
            raise RuntimeError(f"cov(): expected fweights to have the same numel as there are "
                               f"observations in the input but got {fweights.numel()} != "
                               f"{num_obs}")
        if num_obs > 0 and bool((fweights.min() < 0).item()):
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights
    if aweights is not None:
        if aweights.dim() > 1:
            raise RuntimeError("cov(): expected aweights to have one or fewer dimensions but got "
                               f"aweights with {aweights.dim()} dimensions")
        if not aweights.dtype.is_floating_point:
            raise RuntimeError("cov(): expected aweights to have floating point dtype but got "
                               f"aweights with {_scalar_name(aweights.dtype)} dtype")
        if aweights.numel() != num_obs:
            raise RuntimeError(f"cov(): expected aweights to have the same numel as there are "
                               f"observations in the input but got {aweights.numel()} != "
                               f"{num_obs}")
        if num_obs > 0 and bool((aweights.min() < 0).item()):
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1) if x.dtype.is_floating_point else x.to(_C.get_default_dtype()).mean(1)
        w_sum = _C.tensor(num_obs, dtype=avg.dtype, device=x.device)
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
    if w is None:
        norm_factor = w_sum - correction
    elif correction == 0:
        norm_factor = w_sum
    elif aweights is None:
        norm_factor = w_sum - correction
    else:
        norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    norm_factor = _C.where(norm_factor <= 0, _C.zeros((), dtype=norm_factor.dtype,
                                                      device=x.device), norm_factor)
    xm = x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    c = _C.mm(xw, xm.t().to(xw.dtype)) / norm_factor
    return c.squeeze()


def corrcoef(input):
    """torch.corrcoef: the Pearson correlation coefficients of the rows of input (clipped to
    [-1, 1])."""
    if input.dim() > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got "
                           f"an input with {input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    std = _C.sqrt(d)
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    return _C.clamp(c, -1, 1)


def _methods():
    def ns(self, dim=None, keepdim=False, *, dtype=None):
        return nansum(self, dim, keepdim, dtype=dtype)

    def nm(self, dim=None, keepdim=False, *, dtype=None):
        return nanmean(self, dim, keepdim, dtype=dtype)

    def lcse(self, dim):
        return logcumsumexp(self, dim)

    def cv(self, *, correction=1, fweights=None, aweights=None):
        return cov(self, correction=correction, fweights=fweights, aweights=aweights)
    return {"nansum": ns, "nanmean": nm, "logcumsumexp": lcse, "cov": cv, "corrcoef": corrcoef}


_attach(_methods())
