"""Helpers for the tests of the composites against torch (the oracle) and NumPy: the same
NumPy values built in each library (optionally non-contiguous), a call run in both and
compared (values, dtype, shape; or the exception type), gradients included."""
import warnings

import numpy as np

import ember

ERRORS = (RuntimeError, IndexError, TypeError, ValueError, NotImplementedError)


def build(L, a, device="cpu", noncontig=False, requires_grad=False):
    """a (NumPy) as a tensor of library L on device; noncontig: a transposed view."""
    if not isinstance(a, np.ndarray):
        return a
    if noncontig and a.ndim >= 2:
        t = L.from_numpy(np.ascontiguousarray(a.swapaxes(0, 1))).to(device).transpose(0, 1)
    else:
        t = L.from_numpy(np.array(a, copy=True)).to(device)
    if requires_grad:
        t = t.detach().requires_grad_()
    return t


def to_np(x):
    if isinstance(x, (tuple, list)):
        return [to_np(v) for v in x]
    if hasattr(x, "detach"):
        x = x.detach().cpu()
        if str(x.dtype).endswith("bfloat16"):
            x = x.float()
        return x.numpy()
    return np.asarray(x)


def outcome(L, fn, arrays, device="cpu", noncontig=False, grad=False):
    """fn(L, *tensors): its result (and, with grad, the inputs' gradients of a weighted sum
    of it) as NumPy, or (exception type, message)."""
    ts = [build(L, a, device, noncontig, grad and isinstance(a, np.ndarray)
                and a.dtype.kind == "f") for a in arrays]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(L, *ts)
    except ERRORS as e:
        return type(e), str(e)
    out = {"value": to_np(r), "dtype": _dtype(r)}
    if grad:
        outs = r if isinstance(r, (tuple, list)) else [r]
        total = None
        for i, o in enumerate(outs):
            if o.requires_grad:
                w = L.from_numpy(np.cos(np.arange(o.numel(), dtype=np.float64) + i)
                                 .reshape(tuple(o.shape))).to(o.dtype).to(o.device)
                s = (o * w).sum()
                total = s if total is None else total + s
        if total is not None:
            leaves = [t for t in ts if hasattr(t, "requires_grad") and t.requires_grad]
            try:
                grads = L.autograd.grad(total, leaves, allow_unused=True)
            except ERRORS as e:  # a backward the library lacks: not compared
                out["grad_error"] = (type(e), str(e))
                return out
            out["grads"] = [None if g is None else to_np(g) for g in grads]
    return out


def _dtype(r):
    if isinstance(r, (tuple, list)):
        return [_dtype(v) for v in r]
    return str(getattr(r, "dtype", type(r).__name__)).split(".")[-1]


def assert_same(got, want, rtol=1e-5, atol=1e-6):
    """got (ember's outcome) equals want (torch's or a NumPy reference)."""
    if isinstance(want, tuple) and isinstance(want[0], type):
        assert isinstance(got, tuple) and isinstance(got[0], type), (got, want)
        assert issubclass(got[0], want[0]) or got[0] is want[0], (got, want)
        return
    assert not (isinstance(got, tuple) and isinstance(got[0], type)), (got, want)
    if "float32" in str(want["dtype"]) or "float16" in str(want["dtype"]):
        rtol, atol = max(rtol, 1e-5), max(atol, 1e-5)
    _close(got["value"], want["value"], rtol, atol)
    assert got["dtype"] == want["dtype"], (got["dtype"], want["dtype"])
    if "grads" in want:
        assert "grads" in got, got.get("grad_error")
        for g, w in zip(got["grads"], want["grads"]):
            if w is None or g is None:
                assert not np.any(g if w is None else w), (g, w)
            else:
                _close(g, w, rtol * 10, atol * 10)


def _close(g, w, rtol, atol):
    if isinstance(w, list):
        assert isinstance(g, list) and len(g) == len(w), (g, w)
        for a, b in zip(g, w):
            _close(a, b, rtol, atol)
        return
    g, w = np.asarray(g), np.asarray(w)
    assert g.shape == w.shape, (g.shape, w.shape)
    if w.dtype.kind in "biu":
        np.testing.assert_array_equal(g, w)
    else:
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol,
                                   atol=atol, equal_nan=True)


def compare(torch, fn, arrays, device="cpu", noncontig=False, grad=False, **tol):
    """fn run in ember and in torch on the same values: the same outcome."""
    want = outcome(torch, fn, arrays, device, noncontig, grad)
    got = outcome(ember, fn, arrays, device, noncontig, grad)
    assert_same(got, want, **tol)
    return got
