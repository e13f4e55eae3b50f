"""The math composites (python/ember/_composite_math.py): diff, gradient, logaddexp(2),
copysign, heaviside, deg2rad/rad2deg, signbit, sinc, xlogy, trapezoid/trapz/
cumulative_trapezoid, aminmax, std_mean/var_mean, cross/linalg.cross and the window
functions. Values against NumPy on random data (empty, 0-d, non-contiguous, broadcast,
integer cases), dtypes as torch's, gradients against analytic ones, errors' types and
messages as torch's, and against torch where it is installed."""
import math
import warnings

import numpy as np
import pytest

import ember
from cuda_util import gpu
from math_util import to_np

DEVICES = ["cpu", pytest.param("cuda", marks=gpu)]


def _t(a, device="cpu", noncontig=False):
    a = np.asarray(a)
    if noncontig and a.ndim >= 2:
        return ember.from_numpy(np.ascontiguousarray(a.swapaxes(0, 1))).to(device).transpose(0, 1)
    return ember.from_numpy(np.array(a, copy=True)).to(device)


def _close(t, ref, rtol=1e-6, atol=1e-6, dtype=None):
    got = to_np(t)
    ref = np.asarray(ref)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    if dtype is not None:
        assert t.dtype == dtype, (t.dtype, dtype)
    if got.dtype == np.bool_ or np.issubdtype(got.dtype, np.integer):
        np.testing.assert_array_equal(got, ref)
    else:
        np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64), rtol=rtol,
                                   atol=atol, equal_nan=True)


# ---- diff, gradient -----------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.bool_, np.int32])
def test_diff_matches_numpy(device, dtype):
    rng = np.random.default_rng(1)
    for shape in [(5,), (0,), (3, 4), (2, 0, 3), (2, 3, 4)]:
        a = rng.integers(-5, 5, shape).astype(dtype)
        t = _t(a, device, noncontig=True)
        for dim in range(-len(shape), len(shape)):
            for n in (0, 1, 2, 7):
                ref = np.diff(a, n, axis=dim)
                got = ember.diff(t, n, dim)
                assert got.dtype == t.dtype
                _close(got, ref)
                _close(t.diff(n=n, dim=dim), ref)
            pre = rng.integers(-5, 5, shape[:dim % len(shape)] + (2,)
                               + shape[dim % len(shape) + 1:]).astype(dtype)
            app = pre[tuple(slice(0, 1) if i == dim % len(shape) else slice(None)
                            for i in range(len(shape)))]
            ref = np.diff(a, 1, axis=dim, prepend=pre, append=app)
            _close(ember.diff(t, 1, dim, _t(pre, device), _t(app, device)), ref)
    got = ember.diff(_t(np.array([True, False]), device), prepend=_t(np.array([1]), device))
    assert got.dtype == ember.int64  # prepend is concatenated with type promotion


def test_diff_errors():
    x = ember.zeros(3, 4)
    with pytest.raises(RuntimeError, match="diff expects input to be at least one-dimensional"):
        ember.diff(ember.tensor(1.0))
    with pytest.raises(RuntimeError, match="order must be non-negative but got -1"):
        ember.diff(x, -1)
    with pytest.raises(RuntimeError, match="diff expects prepend or append to be the same "
                       "dimension as input"):
        ember.diff(x, prepend=ember.tensor(1.0))
    with pytest.raises(RuntimeError, match=r"input.size\(0\) = 3, but got tensor.size\(0\) = 2"):
        ember.diff(x, prepend=ember.zeros(2, 1))
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.diff(x, 1, 2)


@pytest.mark.parametrize("device", DEVICES)
def test_gradient_matches_numpy(device):
    rng = np.random.default_rng(2)
    for shape in [(5,), (3, 4), (2, 3, 6)]:
        a = rng.standard_normal(shape)
        t = _t(a, device, noncontig=True)
        for edge in (1, 2):
            if min(shape) < edge + 1:
                continue
            got = ember.gradient(t, edge_order=edge)
            ref = np.gradient(a, edge_order=edge)
            ref = ref if isinstance(ref, (list, tuple)) else [ref]
            assert isinstance(got, tuple) and len(got) == len(ref)
            for g, r in zip(got, ref):
                _close(g, r, 1e-12, 1e-12)
            got = ember.gradient(t, spacing=2.5, dim=-1, edge_order=edge)
            _close(got[0], np.gradient(a, 2.5, axis=-1, edge_order=edge), 1e-12, 1e-12)
            hs = [float(h) for h in rng.uniform(0.5, 2, len(shape))]
            got = ember.gradient(t, spacing=hs, edge_order=edge)
            ref = np.gradient(a, *hs, edge_order=edge)
            ref = ref if isinstance(ref, (list, tuple)) else [ref]
            for g, r in zip(got, ref):
                _close(g, r, 1e-12, 1e-12)
            coords = [np.cumsum(rng.uniform(0.5, 2, n)) for n in shape]
            got = ember.gradient(t, spacing=[_t(c, device) for c in coords], edge_order=edge)
            ref = np.gradient(a, *coords, edge_order=edge)
            ref = ref if isinstance(ref, (list, tuple)) else [ref]
            for g, r in zip(got, ref):
                _close(g, r, 1e-10, 1e-10)
            dims = list(range(len(shape)))[::-1]
            got = ember.gradient(t, spacing=[_t(coords[d], device) for d in dims], dim=dims,
                                 edge_order=edge)
            ref = np.gradient(a, *[coords[d] for d in dims], axis=dims, edge_order=edge)
            ref = ref if isinstance(ref, (list, tuple)) else [ref]
            for g, r in zip(got, ref):
                _close(g, r, 1e-10, 1e-10)
    i = rng.integers(-9, 9, (3, 4))
    got = ember.gradient(_t(i, device))
    assert all(g.dtype == ember.float32 for g in got)
    for g, r in zip(got, np.gradient(i.astype(np.float64))):
        _close(g, r, 1e-6)
    assert ember.gradient(ember.tensor(1.0)) == ()


def test_gradient_errors():
    x = ember.zeros(3, 4)
    with pytest.raises(RuntimeError, match="expected each dimension size to be at least "
                       r"edge_order\+1"):
        ember.gradient(ember.zeros(2), edge_order=2)
    with pytest.raises(RuntimeError, match="only supports edge_order=1 and edge_order=2."):
        ember.gradient(x, edge_order=3)
    with pytest.raises(RuntimeError, match="a list of length equal to 'self.dim\\(\\) = 2', since "
                       "dim argument was not given, but got a list of length 1"):
        ember.gradient(x, spacing=[1.0])
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        ember.gradient(x, dim=[0, 0])
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        ember.gradient(ember.tensor(1.0), dim=0)
    with pytest.raises(RuntimeError, match="does not support uint8 input"):
        ember.gradient(ember.zeros(3, dtype=ember.uint8))


def test_diff_and_gradient_backward():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 6))
    w = rng.standard_normal((4, 5))
    x = _t(a).requires_grad_()
    (ember.diff(x) * _t(w)).sum().backward()
    ref = np.zeros_like(a)
    ref[:, 1:] += w
    ref[:, :-1] -= w
    np.testing.assert_allclose(to_np(x.grad), ref, rtol=1e-12)
    x = _t(a).requires_grad_()
    w = rng.standard_normal((4, 6))
    (ember.gradient(x, dim=1)[0] * _t(w)).sum().backward()
    # the adjoint of np.gradient along dim 1: columns of the (6, 6) operator matrix
    op = np.stack([np.gradient(np.eye(6)[k]) for k in range(6)])  # row k: gradient of e_k
    np.testing.assert_allclose(to_np(x.grad), w @ op.T, rtol=1e-12, atol=1e-12)


# ---- elementwise ------------------------------------------------------------------------

SPECIAL = np.array([0.0, -0.0, 1.0, -1.5, np.inf, -np.inf, np.nan, 30.0, -30.0, 1e-3])


@pytest.mark.parametrize("device", DEVICES)
def test_logaddexp_matches_numpy(device):
    rng = np.random.default_rng(4)
    a = np.concatenate([rng.standard_normal(40) * 20, SPECIAL])
    b = np.concatenate([rng.standard_normal(40) * 20, SPECIAL[::-1]])
    for dtype, tol in [(np.float64, 1e-13), (np.float32, 2e-6)]:
        x, y = _t(a.astype(dtype), device), _t(b.astype(dtype), device)
        with np.errstate(all="ignore"):
            ref, ref2 = np.logaddexp(a, b), np.logaddexp2(a, b)
        _close(ember.logaddexp(x, y), ref, tol, tol)
        _close(x.logaddexp2(y), ref2, tol, tol)
        both_inf = _t(np.array([np.inf, -np.inf]).astype(dtype), device)
        _close(ember.logaddexp(both_inf, both_inf), [np.inf, -np.inf])
    m = rng.standard_normal((3, 1))
    n = rng.standard_normal(4).astype(np.float32)
    got = ember.logaddexp(_t(m, device, True), _t(n, device))  # broadcast, promoted to float64
    assert got.dtype == ember.float64
    _close(got, np.logaddexp(m, n.astype(np.float64)), 1e-12)
    with pytest.raises(NotImplementedError, match="\"logaddexp_cpu\" not implemented for 'Long'"):
        ember.logaddexp(ember.ones(2, dtype=ember.int64), ember.ones(2, dtype=ember.int64))
    with pytest.raises(TypeError, match="argument 'other' \\(position 2\\) must be Tensor, not "
                       "float"):
        ember.logaddexp(ember.ones(2), 1.0)


@pytest.mark.parametrize("device", DEVICES)
def test_sign_functions_match_numpy(device):
    rng = np.random.default_rng(5)
    a = np.concatenate([rng.standard_normal(30), SPECIAL, -SPECIAL])
    b = np.concatenate([rng.standard_normal(30), SPECIAL[::-1], SPECIAL])
    for dtype in (np.float64, np.float32, np.float16):
        x, y = _t(a.astype(dtype), device), _t(b.astype(dtype), device)
        ref = np.signbit(a.astype(dtype))
        _close(ember.signbit(x), ref)
        _close(x.signbit(), ref)
        got = ember.copysign(x, y)
        ref = np.copysign(a.astype(dtype), b.astype(dtype))
        _close(got, ref, 0, 0)
        keep = np.ones(ref.shape, bool)
        if device == "cuda":
            # the composite's where(signbit(y), -|x|, |x|) runs through CUDA arithmetic,
            # which gives canonical NaNs: a NaN result's sign is not kept on the GPU (a
            # copysign kernel would keep it; known gap of the composite)
            keep = ~np.isnan(ref)
        np.testing.assert_array_equal(np.signbit(to_np(got))[keep], np.signbit(ref)[keep])
        _close(ember.copysign(x, -0.0), np.copysign(a.astype(dtype), -0.0), 0, 0)
    i = rng.integers(-5, 5, 20)
    _close(ember.signbit(_t(i, device)), np.signbit(i))
    _close(ember.signbit(_t(i.astype(np.uint8), device)), np.zeros(20, bool))
    _close(ember.signbit(_t(i > 0, device)), np.zeros(20, bool))
    got = ember.copysign(_t(i, device), _t(-i, device))
    assert got.dtype == ember.float32  # integers give the default float dtype, as torch
    _close(got, np.copysign(i, -i).astype(np.float32))
    got = ember.copysign(_t(i, device).reshape(4, 5), -1)
    _close(got, -np.abs(i).reshape(4, 5).astype(np.float32))
    x = _t(a, device)
    x.copysign_(-1.0)
    _close(x, -np.abs(a))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                       "output type Long"):
        _t(i, device).copysign_(_t(i, device))


@pytest.mark.parametrize("device", DEVICES)
def test_heaviside_matches_numpy(device):
    rng = np.random.default_rng(6)
    a = rng.integers(-2, 3, (4, 5)).astype(np.float64)
    v = rng.standard_normal(5)
    _close(ember.heaviside(_t(a, device, True), _t(v, device)), np.heaviside(a, v), 0, 0)
    i = a.astype(np.int64)
    got = _t(i, device).heaviside(_t(np.array(7), device))
    assert got.dtype == ember.int64
    _close(got, np.heaviside(i, 7).astype(np.int64))
    x = _t(a, device)
    x.heaviside_(_t(np.array(0.5), device))
    _close(x, np.heaviside(a, 0.5))
    with pytest.raises(RuntimeError, match="heaviside is not yet implemented for tensors with "
                       "different dtypes."):
        ember.heaviside(_t(a), _t(np.array(1)))
    with pytest.raises(TypeError, match="must be Tensor, not float"):
        ember.heaviside(_t(a), 0.5)


@pytest.mark.parametrize("device", DEVICES)
def test_angles_sinc_xlogy_match_numpy(device):
    rng = np.random.default_rng(7)
    a = np.concatenate([rng.standard_normal(30) * 3, [0.0, -0.0, 1.0, -2.0, np.inf, np.nan]])
    for dtype, tol in [(np.float64, 1e-13), (np.float32, 3e-6)]:
        x = _t(a.astype(dtype), device)
        _close(ember.deg2rad(x), np.deg2rad(a), tol, tol)
        _close(x.rad2deg(), np.rad2deg(a), tol, tol)
        with np.errstate(all="ignore"):
            _close(ember.sinc(x), np.sinc(a), tol, tol)
        y = _t(np.abs(a[::-1]).astype(dtype), device)
        with np.errstate(all="ignore"):
            ref = np.where(a == 0, 0.0, a * np.log(np.abs(a[::-1])))
        ref = np.where(np.isnan(a[::-1]), np.nan, ref)
        _close(ember.xlogy(x, y), ref, tol, tol)
    i = rng.integers(-200, 200, (3, 4))
    for fn, ref in [(ember.deg2rad, np.deg2rad), (ember.rad2deg, np.rad2deg),
                    (ember.sinc, np.sinc)]:
        got = fn(_t(i, device, True))
        assert got.dtype == ember.float32
        _close(got, ref(i.astype(np.float64)), 2e-6, 1e-6)
    h = _t(a.astype(np.float16), device)
    assert ember.rad2deg(h).dtype == ember.float16
    got = ember.xlogy(2, _t(np.array([1.0, 4.0]), device))
    _close(got, 2 * np.log([1.0, 4.0]), 1e-12)
    got = ember.xlogy(_t(np.array([0, 3]), device), 2)
    assert got.dtype == ember.float32
    _close(got, [0.0, 3 * np.log(2)], 1e-6)
    x = _t(a, device)
    assert ember.rad2deg_(x) is x
    _close(x, np.rad2deg(a), 1e-13)
    x = _t(np.abs(a), device)
    ember.xlogy_(x, 2.0)
    _close(x, np.abs(a) * np.log(2.0), 1e-13)
    x = _t(a, device)
    x.deg2rad_()
    _close(x, np.deg2rad(a), 1e-13)
    x.sinc_()
    with np.errstate(all="ignore"):
        _close(x, np.sinc(np.deg2rad(a)), 1e-13)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                       "output type Long"):
        _t(i, device).sinc_()
    with pytest.raises(TypeError, match="xlogy\\(\\) received an invalid combination of "
                       "arguments - got \\(int, int\\)"):
        ember.xlogy(2, 3)


def test_elementwise_backward():
    rng = np.random.default_rng(8)
    a = np.concatenate([rng.standard_normal(10), [0.0]])
    b = rng.standard_normal(11)
    x, y = _t(a).requires_grad_(), _t(b).requires_grad_()
    ember.sinc(x).sum().backward()
    pa = np.pi * a
    with np.errstate(all="ignore"):
        ref = np.where(a == 0, 0.0, (pa * np.cos(pa) - np.sin(pa)) / (pa * a))
    np.testing.assert_allclose(to_np(x.grad), ref, rtol=1e-10, atol=1e-12)
    x, y = _t(a).requires_grad_(), _t(b).requires_grad_()
    ember.logaddexp(x, y).sum().backward()
    s = 1 / (1 + np.exp(b - a))
    np.testing.assert_allclose(to_np(x.grad), s, rtol=1e-12)
    np.testing.assert_allclose(to_np(y.grad), 1 - s, rtol=1e-12)
    x, y = _t(a).requires_grad_(), _t(np.abs(b) + 0.5).requires_grad_()
    ember.xlogy(x, y).sum().backward()
    np.testing.assert_allclose(to_np(x.grad), np.log(np.abs(b) + 0.5), rtol=1e-12)
    np.testing.assert_allclose(to_np(y.grad), a / (np.abs(b) + 0.5), rtol=1e-12)
    got = ember.xlogy(ember.tensor([0.0, 0.0, 0.0]), ember.tensor([0.5, 0.0, math.inf]))
    assert to_np(got).tolist() == [0.0, 0.0, 0.0] and not np.signbit(to_np(got)).any()
    x = _t(a).requires_grad_()
    ember.copysign(x, _t(-b)).sum().backward()
    np.testing.assert_allclose(to_np(x.grad), np.sign(a) * np.where(np.signbit(-b), -1, 1))


# ---- integration ------------------------------------------------------------------------

def _np_cumtrapz(y, x=None, dx=1.0, axis=-1):
    y = np.moveaxis(y, axis, -1)
    d = np.diff(x) if x is not None else dx
    out = np.cumsum(d * (y[..., 1:] + y[..., :-1]) / 2.0, axis=-1)
    return np.moveaxis(out, -1, axis)


@pytest.mark.parametrize("device", DEVICES)
def test_trapezoid_matches_numpy(device):
    rng = np.random.default_rng(9)
    for shape in [(6,), (3, 5), (2, 4, 3), (3, 0), (3, 1)]:
        a = rng.standard_normal(shape)
        t = _t(a, device, noncontig=True)
        for dim in range(-len(shape), len(shape)):
            n = shape[dim]
            _close(ember.trapezoid(t, dim=dim), np.trapezoid(a, axis=dim), 1e-12, 1e-12)
            _close(ember.trapz(t, dx=0.5, dim=dim), np.trapezoid(a, dx=0.5, axis=dim), 1e-12,
                   1e-12)
            xs = np.cumsum(rng.uniform(0.1, 1, n))
            _close(ember.trapezoid(t, _t(xs, device), dim=dim), np.trapezoid(a, xs, axis=dim),
                   1e-12, 1e-12)
            _close(ember.trapz(t, _t(xs, device), dim=dim), np.trapezoid(a, xs, axis=dim),
                   1e-12, 1e-12)
            _close(ember.cumulative_trapezoid(t, dim=dim), _np_cumtrapz(a, axis=dim), 1e-12,
                   1e-12)
            _close(ember.cumulative_trapezoid(t, _t(xs, device), dim=dim),
                   _np_cumtrapz(a, xs, axis=dim), 1e-12, 1e-12)
            _close(ember.cumulative_trapezoid(t, dx=2.0, dim=dim),
                   _np_cumtrapz(a, dx=2.0, axis=dim), 1e-12, 1e-12)
    a = rng.standard_normal((3, 5))
    xs = np.cumsum(rng.uniform(0.1, 1, (3, 5)), axis=1)
    _close(ember.trapezoid(_t(a, device), _t(xs, device)), np.trapezoid(a, xs), 1e-12)
    i = rng.integers(-5, 5, (2, 3))
    got = ember.trapezoid(_t(i, device))
    assert got.dtype == ember.float32
    _close(got, np.trapezoid(i, axis=-1), 1e-6)
    got = ember.cumulative_trapezoid(_t(i, device), _t(np.array([0, 1, 3]), device))
    assert got.dtype == ember.float32
    _close(got, _np_cumtrapz(i.astype(np.float64), np.array([0, 1, 3])), 1e-6)
    with pytest.raises(RuntimeError, match="trapezoid: There must be one `x` value for each "
                       "sample point"):
        ember.trapezoid(_t(a), _t(np.ones(3)))
    with pytest.raises(RuntimeError, match="received a bool input for `y`, but bool is not "
                       "supported"):
        ember.trapezoid(_t(i > 0))
    with pytest.raises(IndexError, match="Dimension specified as -1 but tensor has no "
                       "dimensions"):
        ember.trapezoid(ember.tensor(1.0))
    with pytest.raises(TypeError, match="trapz\\(\\) received an invalid combination of "
                       "arguments - got \\(Tensor, float\\)"):
        ember.trapz(_t(a), 2.0)
    with pytest.raises(IndexError, match="slice\\(\\) cannot be applied to a 0-dim tensor."):
        ember.cumulative_trapezoid(ember.tensor(1.0))


# ---- reductions -------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
def test_aminmax_matches_numpy(device):
    rng = np.random.default_rng(10)
    for dtype in (np.float32, np.int64, np.bool_, np.uint8):
        for shape in [(), (5,), (3, 4), (2, 3, 4), (3, 0)]:
            a = rng.integers(0, 50, shape).astype(dtype)
            t = _t(a, device, noncontig=True)
            if a.size:
                r = ember.aminmax(t)
                assert type(r).__name__ == "aminmax" and r.min is r[0] and r.max is r[1]
                _close(r.min, a.min())
                _close(r.max, a.max())
                r = ember.aminmax(t, keepdim=True)
                _close(r.min, a.min(keepdims=True).reshape((1,) * a.ndim))
            for dim in range(-max(a.ndim, 1), max(a.ndim, 1)):
                if a.ndim and a.shape[dim] == 0:
                    with pytest.raises(IndexError, match=f"aminmax: Expected reduction dim "
                                       f"{dim % a.ndim} to have non-zero size."):
                        ember.aminmax(t, dim=dim)
                    continue
                for keep in (False, True):
                    lo, hi = t.aminmax(dim=dim, keepdim=keep)
                    if a.ndim == 0:
                        _close(lo, a)
                        _close(hi, a)
                        continue
                    _close(lo, a.min(axis=dim, keepdims=keep))
                    _close(hi, a.max(axis=dim, keepdims=keep))
    with pytest.raises(RuntimeError, match="aminmax\\(\\): cannot compute aminmax over an empty "
                       "dimension as the operation has no identity."):
        ember.aminmax(ember.zeros(0))


@pytest.mark.parametrize("device", DEVICES)
def test_std_var_mean_match_numpy(device):
    rng = np.random.default_rng(11)
    a = rng.standard_normal((3, 4, 5))
    t = _t(a, device, noncontig=True)
    for name, ref_fn in [("std_mean", np.std), ("var_mean", np.var)]:
        fn = getattr(ember, name)
        s, m = fn(t)
        _close(s, ref_fn(a, ddof=1), 1e-12)
        _close(m, a.mean(), 1e-12)
        s, m = fn(t, 1, correction=0, keepdim=True)
        _close(s, ref_fn(a, axis=1, ddof=0, keepdims=True), 1e-12)
        _close(m, a.mean(axis=1, keepdims=True), 1e-12)
        s, m = fn(t, (0, 2), False, True)
        _close(s, ref_fn(a, axis=(0, 2), ddof=0, keepdims=True), 1e-12)
        _close(m, a.mean(axis=(0, 2), keepdims=True), 1e-12)
        s, m = fn(t, False)
        _close(s, ref_fn(a, ddof=0), 1e-12)
        s, m = fn(t, dim=None, keepdim=True)
        assert s.shape == (1, 1, 1) and m.shape == (1, 1, 1)
        with pytest.warns(UserWarning, match=f"{name}\\(\\): degrees of freedom is <= 0"):
            s, m = fn(t[:1], 0)
        _close(m, a[:1].mean(0), 1e-12)
        assert np.isnan(to_np(s)).all()
        with pytest.raises(RuntimeError, match=f"{name} only support floating point and complex "
                           "dtypes"):
            fn(ember.ones(3, dtype=ember.int64))


# ---- cross ------------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
def test_cross_matches_numpy(device):
    rng = np.random.default_rng(12)
    a = rng.standard_normal((4, 3, 2))
    b = rng.standard_normal((1, 3, 2))
    ta, tb = _t(a, device, True), _t(b, device)
    _close(ember.cross(ta, tb, dim=1), np.cross(a, b, axis=1), 1e-12)
    _close(ta.cross(tb, 1), np.cross(a, b, axis=1), 1e-12)
    _close(ember.linalg.cross(ta.transpose(1, 2), tb.transpose(1, 2)),
           np.cross(a.swapaxes(1, 2), b.swapaxes(1, 2)), 1e-12)
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg is "
                      "deprecated"):
        got = ember.cross(ta, tb)
    _close(got, np.cross(a, b, axis=1), 1e-12)
    i, j = rng.integers(-5, 5, (5, 3)), rng.integers(-5, 5, (5, 3))
    got = ember.linalg.cross(_t(i, device), _t(j, device))
    assert got.dtype == ember.int64
    _close(got, np.cross(i, j))
    with pytest.raises(RuntimeError, match="linalg.cross: inputs dimension -1 must have length 3. "
                       "Got 3 and 4"):
        ember.linalg.cross(ember.ones(2, 3), ember.ones(2, 4))
    with pytest.raises(RuntimeError, match="linalg.cross: inputs must have the same number of "
                       "dimensions."):
        ember.linalg.cross(ember.ones(2, 3), ember.ones(3))
    with pytest.raises(IndexError, match="Dimension specified as -1 but tensor has no "
                       "dimensions"):
        ember.linalg.cross(ember.tensor(1.0), ember.tensor(1.0))
    with pytest.raises(RuntimeError, match="no dimension of size 3 in input"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ember.cross(ember.ones(2, 4), ember.ones(2, 4))
    with pytest.raises(NotImplementedError, match="\"cross\" not implemented for 'Bool'"):
        ember.linalg.cross(ember.ones(3, dtype=ember.bool), ember.ones(3, dtype=ember.bool))
    with pytest.raises(RuntimeError, match="expected scalar type Long but found Float"):
        ember.cross(ember.ones(3, dtype=ember.int64), ember.ones(3), dim=0)
    x = _t(a).requires_grad_()
    y = _t(np.broadcast_to(b, a.shape)).requires_grad_()
    w = rng.standard_normal(a.shape)
    (ember.cross(x, y, dim=1) * _t(w)).sum().backward()
    # d/dx <w, x × y> = y × w ; d/dy = w × x
    np.testing.assert_allclose(to_np(x.grad), np.cross(np.broadcast_to(b, a.shape), w, axis=1),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(to_np(y.grad), np.cross(w, a, axis=1), rtol=1e-12, atol=1e-12)


# ---- windows ----------------------------------------------------------------------------

def _np_window(name, n, periodic, **kw):
    if n == 0:
        return np.zeros(0)
    if n == 1:
        return np.ones(1)
    m = n + 1 if periodic else n
    if name == "hann_window":
        w = np.hanning(m)
    elif name == "hamming_window":
        alpha, beta = kw.get("alpha", 0.54), kw.get("beta", 0.46)
        w = alpha - beta * np.cos(2 * np.pi * np.arange(m) / (m - 1))
    elif name == "blackman_window":
        w = np.blackman(m)
    elif name == "bartlett_window":
        w = np.bartlett(m)
    else:
        w = np.kaiser(m, kw.get("beta", 12.0))
    return w[:-1] if periodic else w


WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", WINDOWS)
def test_windows_match_numpy(device, name):
    fn = getattr(ember, name)
    for n in (0, 1, 2, 3, 8, 51):
        for periodic in (True, False):
            got = fn(n, periodic, dtype=ember.float64, device=device)
            assert got.dtype == ember.float64 and got.device.type == device
            _close(got, _np_window(name, n, periodic), 1e-12, 1e-12)
            got = fn(n, periodic, device=device)
            assert got.dtype == ember.float32
            _close(got, _np_window(name, n, periodic), 2e-6, 2e-6)
        _close(fn(n, dtype=ember.float64), _np_window(name, n, True), 1e-12, 1e-12)
    h = fn(16, dtype=ember.float16)
    assert h.dtype == ember.float16
    _close(h, _np_window(name, 16, True), 2e-3, 2e-3)
    w = fn(5, requires_grad=True)
    assert w.requires_grad and w.is_leaf
    with pytest.raises(RuntimeError, match=f"{name} requires non-negative window_length, got "
                       "window_length=-1"):
        fn(-1)
    with pytest.raises(RuntimeError, match=f"{name} expects floating point dtypes"):
        fn(3, dtype=ember.int64)
    with pytest.raises(TypeError, match="argument 'window_length' \\(position 1\\) must be int, "
                       "not float"):
        fn(3.0)


def test_window_parameters():
    for alpha, beta in [(0.5, 0.3), (0.6, 0.1)]:
        _close(ember.hamming_window(9, False, alpha, beta, dtype=ember.float64),
               _np_window("hamming_window", 9, False, alpha=alpha, beta=beta), 1e-12, 1e-12)
    for beta in (0.0, 1.0, 5.5, 14.0, 40.0, 700.0, 1200.0):
        got = ember.kaiser_window(13, False, beta, dtype=ember.float64)
        if beta <= 700:
            ref = np.kaiser(13, beta)
        else:  # np.i0 overflows: the ratio from its asymptotic form exp(b(s - 1)) sqrt(1 / s)
            r = (np.arange(13) - 6.0) / 6.0
            s = np.sqrt(1 - r * r)
            with np.errstate(divide="ignore"):
                ref = np.exp(beta * (s - 1)) / np.sqrt(np.where(s > 0, s, 1.0))
            ref = np.where(s > 0, ref, 0.0)
        _close(got, ref, 1e-9 if beta <= 700 else 1e-3, 1e-300)


# ---- Tensor methods and against torch --------------------------------------------------------

def test_tensor_methods_exist():
    for name in ["diff", "logaddexp", "logaddexp2", "copysign", "copysign_", "heaviside",
                 "heaviside_", "deg2rad", "deg2rad_", "rad2deg", "rad2deg_", "signbit", "sinc",
                 "sinc_", "xlogy", "xlogy_", "aminmax", "cross", "flip", "roll", "rot90", "diag",
                 "unfold", "repeat", "tile", "repeat_interleave", "moveaxis", "tensor_split"]:
        assert callable(getattr(ember.Tensor, name)), name


@gpu
def test_composites_on_cuda_match_cpu():
    rng = np.random.default_rng(13)
    a, b = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    calls = [lambda x, y: ember.logaddexp(x, y), lambda x, y: ember.copysign(x, y),
             lambda x, y: ember.sinc(x), lambda x, y: ember.xlogy(x, y.abs()),
             lambda x, y: ember.gradient(x, edge_order=2)[1], lambda x, y: ember.diff(x, 2, 0),
             lambda x, y: ember.trapezoid(x, dim=0),
             lambda x, y: ember.cumulative_trapezoid(y), lambda x, y: ember.aminmax(x, dim=1)[1],
             lambda x, y: ember.cross(x[:, :3], y[:, :3], dim=1)]
    for f in calls:
        got = f(_t(a, "cuda"), _t(b, "cuda"))
        assert got.device.type == "cuda"
        np.testing.assert_allclose(to_np(got), to_np(f(_t(a), _t(b))), rtol=1e-12, atol=1e-12)
    for name in WINDOWS:
        np.testing.assert_allclose(to_np(getattr(ember, name)(10, device="cuda")),
                                   to_np(getattr(ember, name)(10)), rtol=1e-6, atol=1e-7)


def _cases(mod, x, y, i):
    return {
        "diff": lambda: mod.diff(x, 2, 0, prepend=x[:1]),
        "diff_bool": lambda: mod.diff(i > 0),
        "gradient": lambda: mod.gradient(x, spacing=[2.0, 0.5], edge_order=2),
        "gradient_int": lambda: mod.gradient(i, spacing=[mod.tensor([0, 1, 3]),
                                                           mod.tensor([0, 2, 3, 7, 8])]),
        "logaddexp": lambda: mod.logaddexp(x, y),
        "logaddexp2": lambda: mod.logaddexp2(x, y[0]),
        "copysign": lambda: mod.copysign(i, y),
        "copysign_scalar": lambda: mod.copysign(i, -1),
        "heaviside": lambda: mod.heaviside(i, i[0]),
        "deg2rad": lambda: mod.deg2rad(i),
        "rad2deg": lambda: x.rad2deg(),
        "signbit": lambda: mod.signbit(y),
        "sinc": lambda: mod.sinc(i),
        "xlogy": lambda: mod.xlogy(i, x.abs()),
        "xlogy_scalar": lambda: mod.xlogy(2, x),
        "trapezoid": lambda: mod.trapezoid(i),
        "trapezoid_x": lambda: mod.trapezoid(x, mod.tensor([0.0, 1.0, 3.0]), dim=0),
        "trapz_dx": lambda: mod.trapz(x, dx=0.5),
        "ctrapz": lambda: mod.cumulative_trapezoid(i, mod.tensor([0, 1, 3, 4, 9])),
        "aminmax": lambda: tuple(mod.aminmax(x, dim=0, keepdim=True)),
        "aminmax_all": lambda: tuple(mod.aminmax(i)),
        "std_mean": lambda: mod.std_mean(x, 1, correction=0),
        "var_mean": lambda: mod.var_mean(x, (0, 1), True, True),
        "cross": lambda: mod.cross(x, y, dim=0),
        "linalg_cross": lambda: mod.linalg.cross(x.T[:, :3], y.T[:, :3]),
        "hann": lambda: mod.hann_window(10),
        "hamming": lambda: mod.hamming_window(7, False, 0.6, 0.3, dtype=mod.float64),
        "blackman": lambda: mod.blackman_window(9, dtype=mod.float64),
        "bartlett": lambda: mod.bartlett_window(8, False),
        "kaiser": lambda: mod.kaiser_window(11, True, 8.0, dtype=mod.float64),
    }


def _errors(mod, x, i):
    return {
        "diff_0d": lambda: mod.diff(x[0, 0]),
        "diff_prepend": lambda: mod.diff(x, prepend=x[0]),
        "gradient_spacing": lambda: mod.gradient(x, spacing=[1.0]),
        "gradient_edge": lambda: mod.gradient(x, edge_order=3),
        "logaddexp_int": lambda: mod.logaddexp(i, i),
        "heaviside": lambda: mod.heaviside(x, i),
        "sinc_": lambda: i.clone().sinc_(),
        "trapezoid_x": lambda: mod.trapezoid(x, mod.ones(4)),
        "aminmax_empty": lambda: mod.aminmax(x[:0], dim=0),
        "std_mean_int": lambda: mod.std_mean(i),
        "cross": lambda: mod.linalg.cross(x, x, dim=1),
        "hann": lambda: mod.hann_window(-1),
    }


def test_against_torch(torch):
    rng = np.random.default_rng(14)
    a, b = rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    ia = rng.integers(-9, 9, (3, 5))
    e = _cases(ember, ember.from_numpy(a), ember.from_numpy(b), ember.from_numpy(ia))
    t = _cases(torch, torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(ia))
    for name in e:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got, ref = e[name](), t[name]()
        got = got if isinstance(got, tuple) else (got,)
        ref = ref if isinstance(ref, tuple) else (ref,)
        assert len(got) == len(ref), name
        for g, r in zip(got, ref):
            assert str(g.dtype).split(".")[-1] == str(r.dtype).split(".")[-1], name
            assert tuple(g.shape) == tuple(r.shape), name
            tol = 1e-6 if g.dtype in (ember.float32,) else 1e-12
            np.testing.assert_allclose(to_np(g).astype(np.float64),
                                       r.numpy().astype(np.float64), rtol=tol, atol=tol,
                                       err_msg=name)
    e = _errors(ember, ember.from_numpy(a), ember.from_numpy(ia))
    t = _errors(torch, torch.from_numpy(a), torch.from_numpy(ia))
    for name in e:
        with pytest.raises(Exception) as ref:
            t[name]()
        with pytest.raises(type(ref.value)) as got:
            e[name]()
        assert str(got.value).split("\n")[0] == str(ref.value).split("\n")[0], name
    assert math.isclose(float(ember.sinc(ember.tensor(0.25))), float(torch.sinc(
        torch.tensor(0.25))), rel_tol=1e-6)


_GRAD_CASES = {
    "diff": lambda m, x, y: m.diff(x, 2, 1, prepend=y[:, :1], append=y),
    "gradient": lambda m, x, y: m.gradient(x, spacing=[m.tensor([1.0, 3.0, 6.0, 10.0]), m.tensor(
        [1.0, 2.0, 4.0, 7.0, 11.0])], edge_order=2),
    "gradient_h": lambda m, x, y: m.gradient(x, spacing=0.3, dim=1),
    "logaddexp": lambda m, x, y: m.logaddexp(x, y),
    "logaddexp2": lambda m, x, y: m.logaddexp2(x, y),
    "copysign": lambda m, x, y: m.copysign(x, y),
    "sinc": lambda m, x, y: m.sinc(x * (m.arange(20.0, dtype=m.float64).reshape(4, 5) % 3 != 0)),
    "xlogy": lambda m, x, y: m.xlogy(x, y.abs()),
    "rad2deg": lambda m, x, y: m.rad2deg(x),
    "trapezoid": lambda m, x, y: m.trapezoid(x, y[0].abs().cumsum(0)),
    "cumulative_trapezoid": lambda m, x, y: m.cumulative_trapezoid(x, dim=0),
    "std_mean": lambda m, x, y: m.std_mean(x, 0),
    "var_mean": lambda m, x, y: m.var_mean(x, correction=0),
    "cross": lambda m, x, y: m.cross(x[:3], y[:3], dim=0),
    "flip": lambda m, x, y: m.flip(x, (0, 1)),
    "rot90": lambda m, x, y: m.rot90(x, 3),
    "diag_embed": lambda m, x, y: m.diag_embed(x, -2, 0, 2),
    "block_diag": lambda m, x, y: m.block_diag(x, y[0]),
    "unfold": lambda m, x, y: x.unfold(1, 3, 1),
    "repeat_interleave": lambda m, x, y: x.repeat_interleave(m.tensor([1, 0, 3, 2]), 0),
    "combinations": lambda m, x, y: m.combinations(x[0], 2, True),
    "meshgrid": lambda m, x, y: m.meshgrid(x[0], y[1], indexing="xy"),
}


def _grads(mod, a, b, f):
    x = mod.tensor(a, dtype=mod.float64, requires_grad=True)
    y = mod.tensor(b, dtype=mod.float64, requires_grad=True)
    out = f(mod, x, y)
    outs = out if isinstance(out, tuple) else (out,)
    loss = sum((o * mod.tensor(np.cos(np.arange(o.numel())).reshape(tuple(o.shape)),
                               dtype=mod.float64)).sum() for o in outs)
    loss.backward()
    return ([o.detach().cpu().numpy() for o in outs],
            [np.zeros(a.shape) if g is None else g.cpu().numpy() for g in (x.grad, y.grad)])


def test_gradients_against_torch(torch):
    rng = np.random.default_rng(15)
    a, b = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    for name, f in _GRAD_CASES.items():
        (eo, eg), (to, tg) = _grads(ember, a, b, f), _grads(torch, a, b, f)
        for u, v in zip(eo + eg, to + tg):
            np.testing.assert_allclose(u, v, rtol=1e-10, atol=1e-12, err_msg=name)


def test_out_argument():
    rng = np.random.default_rng(16)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    x, y = _t(a), _t(b)
    calls = {
        "diff": (lambda **kw: ember.diff(x, **kw), np.diff(a)),
        "logaddexp": (lambda **kw: ember.logaddexp(x, y, **kw), np.logaddexp(a, b)),
        "logaddexp2": (lambda **kw: ember.logaddexp2(x, y, **kw), np.logaddexp2(a, b)),
        "copysign": (lambda **kw: ember.copysign(x, y, **kw), np.copysign(a, b)),
        "deg2rad": (lambda **kw: ember.deg2rad(x, **kw), np.deg2rad(a)),
        "rad2deg": (lambda **kw: ember.rad2deg(x, **kw), np.rad2deg(a)),
        "sinc": (lambda **kw: ember.sinc(x, **kw), np.sinc(a)),
        "xlogy": (lambda **kw: ember.xlogy(x, y.abs(), **kw), a * np.log(np.abs(b))),
        "cross": (lambda **kw: ember.cross(x[:, :3], y[:, :3], dim=1, **kw),
                  np.cross(a[:, :3], b[:, :3])),
        "linalg.cross": (lambda **kw: ember.linalg.cross(x[:, :3], y[:, :3], **kw),
                         np.cross(a[:, :3], b[:, :3])),
    }
    for name, (fn, ref) in calls.items():
        out = ember.empty(0, dtype=ember.float64)
        assert fn(out=out) is out, name
        _close(out, ref, 1e-12, 1e-12)
        out = ember.empty(ref.shape, dtype=ember.float32)  # a dtype the result casts to
        fn(out=out)
        _close(out, ref, 1e-6, 1e-6)
        with pytest.raises(RuntimeError, match="result type Double can't be cast to the desired "
                           "output type Long"):
            fn(out=ember.empty(0, dtype=ember.int64))
    # heaviside's out= must have the inputs' dtype (torch: "not yet implemented for tensors
    # with different dtypes"), an empty one resized
    out = ember.empty(0, dtype=ember.float64)
    assert ember.heaviside(x, y, out=out) is out
    _close(out, np.heaviside(a, b), 0, 0)
    for dt in (ember.float32, ember.int64):
        with pytest.raises(RuntimeError, match="heaviside is not yet implemented for tensors "
                           "with different dtypes"):
            ember.heaviside(x, y, out=ember.empty(0, dtype=dt))
    out = ember.empty(0, dtype=ember.bool)
    ember.signbit(x, out=out)
    _close(out, np.signbit(a))
    with pytest.raises(RuntimeError, match="sinc\\(\\): functions with out=... arguments don't "
                       "support automatic differentiation, but one of the arguments requires "
                       "grad."):
        ember.sinc(_t(a).requires_grad_(), out=ember.empty(0, dtype=ember.float64))


def test_signbit_out_must_be_bool_and_low_precision_sinc_rounds_once():
    with pytest.raises(RuntimeError, match="signbit does not support non-boolean outputs"):
        ember.signbit(ember.tensor([1, -2], dtype=ember.int8), out=ember.empty(2, dtype=ember.int16))
    x = np.array([-9.125, 0.0, 0.5, 3.3, -1e-3], dtype=np.float32)
    for dt in (ember.float16, ember.bfloat16):
        t = ember.tensor(x).to(dt)
        xs = t.float().numpy().astype(np.float64)  # the values after rounding to dt
        ref = np.sinc(xs)  # computed exactly, then rounded once into dt (torch's opmath)
        got = ember.sinc(t).float().numpy()
        np.testing.assert_allclose(got, ember.tensor(ref.astype(np.float32)).to(dt).float().numpy(),
                                   rtol=0, atol=0)
