"""Reductions against NumPy on the CPU: every op over all elements, one dim,
several dims, negative dims, keepdim; dtypes and torch's result dtypes;
non-contiguous inputs (both plan shapes and the copy fallback); empty and 0-d
tensors; NaN rules; accuracy of float32 sums; errors."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember
from math_util import ALL, FLOATS, INTS, NP, assert_close, name, sample, to_ember, to_np

rng = np.random.default_rng(5)


def logsumexp(a, axis=None, keepdims=False):
    m = np.max(a, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    r = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return r if keepdims else np.squeeze(r, axis=axis)


# op -> (ember method, numpy reference, dtypes)
REF = {
    "sum": (np.sum, ALL), "prod": (np.prod, ALL), "mean": (np.mean, FLOATS),
    "amax": (np.max, ALL), "amin": (np.min, ALL),
    "var": (lambda a, axis=None, keepdims=False: np.var(a, axis=axis, keepdims=keepdims, ddof=1),
            FLOATS),
    "std": (lambda a, axis=None, keepdims=False: np.std(a, axis=axis, keepdims=keepdims, ddof=1),
            FLOATS),
    "norm": (lambda a, axis=None, keepdims=False: np.sqrt(np.sum(a * a, axis=axis,
                                                                 keepdims=keepdims)), FLOATS),
    "logsumexp": (logsumexp, FLOATS),
    "all": (np.all, ALL), "any": (np.any, ALL),
}

DIMS = [None, 0, 1, -1, (0, 2), (1, 2), (0, 1, 2), (-3, -1)]


def expected_dtype(op, dtype):
    if op in ("sum", "prod") and dtype in INTS + [ember.bool]:
        return ember.int64
    if op in ("all", "any"):
        return ember.uint8 if dtype == ember.uint8 else ember.bool
    return dtype


@pytest.mark.parametrize("op", list(REF))
@pytest.mark.parametrize("dtype", ALL, ids=name)
def test_reductions_over_dims(op, dtype):
    ref, dtypes = REF[op]
    if dtype not in dtypes:
        return
    a = sample(dtype, (3, 4, 5), rng, -3, 4)
    if op == "prod" and dtype in FLOATS:
        a = rng.uniform(0.5, 1.5, (3, 4, 5))
    x = to_ember(a, dtype)
    af = to_np(x).astype(np.float64) if dtype in FLOATS else a
    for dims in DIMS:
        for keepdim in (False, True):
            axis = dims if dims is None or isinstance(dims, int) else tuple(dims)
            r = getattr(x, op)(dims, keepdim=keepdim) if op != "norm" else x.norm(2, dims, keepdim)
            with np.errstate(over="ignore"):
                expect = ref(af if dtype in FLOATS else a.astype(np.int64) if op in (
                    "sum", "prod") else a, axis=axis, keepdims=keepdim)
            assert r.dtype == expected_dtype(op, dtype), (op, dims)
            assert r.shape == np.shape(expect), (op, dims, keepdim)
            tol = {ember.float16: 4e-3, ember.bfloat16: 3e-2}.get(dtype)
            assert_close(r, expect, rtol=tol, atol=1e-5 if dtype in FLOATS else 0)


@pytest.mark.parametrize("dtype", [d for d in ALL if d != ember.bool], ids=name)
def test_argmax_argmin_and_max_with_dim(dtype):
    a = sample(dtype, (4, 6), rng, -50, 50)
    x = to_ember(a, dtype)
    af = to_np(x)
    assert x.argmax().item() == np.argmax(af) and x.argmin().item() == np.argmin(af)
    for d in (0, 1, -1):
        np.testing.assert_array_equal(x.argmax(d).numpy(), np.argmax(af, d))
        np.testing.assert_array_equal(ember.argmin(x, d).numpy(), np.argmin(af, d))
        v, i = x.max(d)
        np.testing.assert_array_equal(to_np(v), np.max(af, d))
        np.testing.assert_array_equal(i.numpy(), np.argmax(af, d))
        r = ember.min(x, dim=d, keepdim=True)
        np.testing.assert_array_equal(to_np(r.values), np.min(af, d, keepdims=True))
        np.testing.assert_array_equal(r.indices.numpy(), np.argmin(af, d, keepdims=True))
        assert r.values.dtype == dtype and r.indices.dtype == ember.int64
    # argmax over everything indexes the flattened tensor, also when transposed
    assert x.t().argmax().item() == np.argmax(af.T)
    assert x.argmax(keepdim=True).shape == (1, 1)


def test_ties_and_nan_pick_the_first_index():
    x = ember.tensor([1.0, 3.0, 3.0, 0.0, 3.0])
    assert x.argmax().item() == 1 and x.max(0).indices.item() == 1
    y = ember.tensor([1.0, math.nan, 5.0, math.nan])
    assert y.argmax().item() == 1 and y.argmin().item() == 1
    assert math.isnan(y.max().item()) and math.isnan(y.amin().item())
    assert math.isnan(y.sum().item()) and math.isnan(y.norm(float("inf")).item())
    b = ember.tensor([False, True, True])
    v, i = b.max(0)
    assert v.item() is True and v.dtype == ember.bool and i.item() == 1
    with pytest.raises(RuntimeError, match="not implemented for 'Bool'"):
        b.argmax()


def test_max_min_forms():
    x = ember.tensor([[1.0, 5.0], [7.0, 2.0]])
    assert x.max().item() == 7.0 and ember.min(x).item() == 1.0
    assert ember.max(x, ember.tensor([3.0, 3.0])).tolist() == [[3.0, 5.0], [7.0, 3.0]]
    r = ember.max(x, 1)
    assert isinstance(r, tuple) and len(r) == 2 and r[0].tolist() == [5.0, 7.0]
    assert ember.return_types.max is type(r)
    values, indices = x.min(0)
    assert values.tolist() == [1.0, 2.0] and indices.tolist() == [0, 1]


def test_mean_dtype_rules():
    i = ember.tensor([1, 2, 4])
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype. Input dtype "
                                           "must be either a floating point or complex dtype. "
                                           "Got: Long"):
        i.mean()
    assert i.mean(dtype=ember.float64).item() == pytest.approx(7 / 3)
    assert ember.sum(i, dtype=ember.float32).dtype == ember.float32
    assert ember.tensor([1.5, 2.5]).sum(dtype=ember.int32).item() == 3  # converted first
    h = ember.tensor([1.0, 2.0]).half()
    assert h.mean().dtype == ember.float16 and h.sum().dtype == ember.float16
    with pytest.raises(RuntimeError, match="std and var only support floating point"):
        i.var()
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor"):
        i.norm()
    assert ember.logsumexp(i, 0).dtype == ember.float32
    with pytest.raises(TypeError, match="unexpected keyword argument 'dtype'"):
        ember.amax(i, dtype=ember.float32)


def test_var_std_corrections():
    a = rng.uniform(-2, 2, (5, 7))
    x = ember.tensor(a)
    for corr in (0, 1, 2):
        assert_close(x.var(1, correction=corr), np.var(a, 1, ddof=corr), rtol=1e-12)
        assert_close(ember.std(x, 0, correction=corr), np.std(a, 0, ddof=corr), rtol=1e-12)
    assert_close(x.var(unbiased=False), np.var(a), rtol=1e-12)
    assert_close(ember.var(x, False), np.var(a), rtol=1e-12)
    assert_close(ember.std(x, 1, True, True), np.std(a, 1, ddof=1, keepdims=True), rtol=1e-12)
    assert math.isnan(ember.tensor([1.0]).var().item())  # n - correction = 0


@pytest.mark.parametrize("p", [0, 1, 2, 3, 0.5, math.inf, -math.inf, "fro"])
def test_norms(p):
    a = rng.uniform(-3, 3, (4, 5))
    a[0, 0] = 0.0
    x = ember.tensor(a)
    pn = 2 if p == "fro" else p
    if pn == 0:
        ref = np.count_nonzero(a)
    elif pn == math.inf:
        ref = np.max(np.abs(a))
    elif pn == -math.inf:
        ref = np.min(np.abs(a))
    else:
        ref = np.sum(np.abs(a) ** pn) ** (1 / pn)
    assert_close(ember.norm(x, p), ref, rtol=1e-12)
    assert_close(x.norm(p, dim=1), np.linalg.norm(a, ord=pn, axis=1) if pn not in (
        0, 0.5) else (np.count_nonzero(a, axis=1) if pn == 0 else
                      np.sum(np.abs(a) ** 0.5, axis=1) ** 2), rtol=1e-12)
    with pytest.raises(RuntimeError, match="nuclear norm"):
        x.norm("nuc")


def test_all_any_count_nonzero():
    a = np.array([[0.0, 1.0, math.nan], [0.0, 0.0, 0.0]])
    x = ember.tensor(a)
    np.testing.assert_array_equal(x.all(1).numpy(), np.all(a, 1))
    np.testing.assert_array_equal(ember.any(x, 1).numpy(), np.any(a, 1))
    assert x.any().item() is True and x.all().item() is False
    np.testing.assert_array_equal(ember.count_nonzero(x, 0).numpy(), np.count_nonzero(a, 0))
    assert ember.count_nonzero(x).item() == 2 and x.count_nonzero(dim=(0, 1)).item() == 2
    u = ember.tensor([1, 2], dtype=ember.uint8)
    assert u.all().dtype == ember.uint8 and u.all().item() == 1


def test_empty_and_zero_d():
    e = ember.empty(0, 3)
    assert e.sum().item() == 0 and e.prod().item() == 1
    assert math.isnan(e.mean().item())
    assert e.sum(0).tolist() == [0, 0, 0] and e.sum(1).shape == (0,)
    assert e.logsumexp(0).tolist() == [-math.inf] * 3
    assert e.all().item() is True and e.any().item() is False
    assert e.norm().item() == 0.0
    with pytest.raises(RuntimeError, match="Expected reduction dim to be specified for "
                                           "input.numel\\(\\) == 0"):
        e.max()
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        e.amax(0)
    assert e.amax(1).shape == (0,)
    z = ember.tensor(3.5)
    assert z.sum().item() == 3.5 and z.sum(0).item() == 3.5 and z.sum(-1, keepdim=True).shape == ()
    assert z.max(0).indices.item() == 0 and z.argmax().item() == 0


def test_dim_errors():
    x = ember.ones(2, 3)
    with pytest.raises(RuntimeError, match="dim 1 appears multiple times in the list of dims"):
        x.sum((1, -1))
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.sum(2)
    with pytest.raises(TypeError, match="must be tuple of ints"):
        x.sum((0, 1.5))
    assert x.sum(()).item() == 6.0  # an empty dim list reduces everything (torch's sum)


def test_float32_sums_are_pairwise():
    # Naive left-to-right float32 summation of 2**24 ones stops at 2**24; a tree does not.
    n = (1 << 24) + 4096
    x = ember.ones(n)
    assert x.sum().item() == n
    v = rng.uniform(0, 1, 3_000_000).astype(np.float32)
    exact = np.sum(v.astype(np.float64))
    err = abs(ember.from_numpy(v).sum().item() - exact) / exact
    assert err < 1e-6
    cols = rng.uniform(0, 1, (200_000, 3)).astype(np.float32)
    ref = cols.astype(np.float64).sum(0)
    np.testing.assert_allclose(ember.from_numpy(cols).sum(0).numpy(), ref, rtol=1e-6)
    h = ember.ones(5000).half()
    assert h.sum().item() == 5000  # float16 accumulates in float32 (2048 would stop it)


def test_plan_shapes_and_fallback_copy():
    a = rng.uniform(size=(6, 7, 8))
    x = ember.tensor(a)
    # Column (middle and first dims), Inner (last), strided Inner, fallback copy
    np.testing.assert_allclose(x.sum(1).numpy(), a.sum(1))
    np.testing.assert_allclose(x.sum(0).numpy(), a.sum(0))
    np.testing.assert_allclose(x.permute(2, 0, 1).sum(0).numpy(), a.sum(2).T.T)
    np.testing.assert_allclose(x[:, :, ::2].sum().item(), a[:, :, ::2].sum())
    np.testing.assert_allclose(x[:, ::2, :].sum((0, 2)).numpy(), a[:, ::2, :].sum((0, 2)))
    np.testing.assert_allclose(x.transpose(0, 2).amax((1, 2)).numpy(), a.transpose(2, 1, 0).max((1, 2)))
    big = rng.uniform(size=(3, 300_000)).astype(np.float32)
    np.testing.assert_allclose(ember.from_numpy(big).sum(1).numpy(), big.astype(np.float64).sum(1),
                               rtol=1e-6)
    np.testing.assert_allclose(ember.from_numpy(big).t().sum(0).numpy(),
                               big.astype(np.float64).sum(1), rtol=1e-6)
    e = ember.tensor(rng.uniform(size=(1, 5))).expand(4, 5)
    np.testing.assert_allclose(e.sum(0).numpy(), e.numpy().sum(0))


def test_out_argument():
    x = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    out = ember.empty(2, dtype=ember.float64)
    assert ember.sum(x, 1, out=out) is out and out.tolist() == [3.0, 7.0]
    # torch sums in out's dtype (here int64, truncating each element first)
    y = ember.tensor([[1.5, 2.5], [3.5, 4.5]])
    r = ember.sum(y, 1, out=ember.empty(2, dtype=ember.int64))
    assert r.dtype == ember.int64 and r.tolist() == [3, 7]


@settings(max_examples=120, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=4).map(tuple), data=st.data())
def test_property_reductions(shape, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))  # reproducible draws
    dtype = data.draw(st.sampled_from([ember.float32, ember.float64, ember.int32, ember.int64,
                                       ember.float16]))
    a = sample(dtype, shape, rng, -5, 6)
    x = to_ember(a, dtype)
    af = to_np(x).astype(np.float64)
    if len(shape) >= 2 and data.draw(st.booleans()):
        x, af = x.transpose(0, -1), af.transpose(tuple([len(shape) - 1] + list(range(1, len(shape) - 1)) + [0]))
    nd = len(shape)
    dims = data.draw(st.lists(st.integers(-nd, nd - 1), unique_by=lambda d: d % nd, max_size=nd))
    keepdim = data.draw(st.booleans())
    axis = tuple(d % nd for d in dims) if dims else None
    op = data.draw(st.sampled_from(["sum", "amax", "amin", "mean"]))
    if op == "mean" and dtype not in FLOATS:
        op = "sum"
    r = getattr(x, op)(tuple(dims) if dims else None, keepdim)
    ref = {"sum": np.sum, "amax": np.max, "amin": np.min, "mean": np.mean}[op](
        af, axis=axis, keepdims=keepdim)
    assert r.shape == np.shape(ref)
    # sums cancel: the error bound is relative to the sum of magnitudes
    eps = {ember.float16: 2e-3, ember.float32: 2e-6}.get(dtype, 1e-12)
    assert_close(r, ref, rtol=eps, atol=eps * float(np.abs(af).sum()) + 1e-12)


def test_var_and_std_of_tiny_values_do_not_underflow_on_the_cpu():
    # the CPU accumulates var/std in double (as torch's Welford): squares of deviations
    # near 1e-39 underflow float32 but not the result
    v = np.array([-2.2958874039497803e-38, -1.0469246562010998e-38], np.float32)
    want = np.sqrt(((v.astype(np.float64) - v.astype(np.float64).mean()) ** 2).sum() / 1.5)
    got = ember.tensor(v).std(correction=0.5).item()
    assert got == pytest.approx(want, rel=1e-6)
    x = np.array([1e-30, 3e-30, -2e-30], np.float32)
    assert ember.tensor(x).var().item() == pytest.approx(np.var(x.astype(np.float64), ddof=1),
                                                          rel=1e-6)


def test_rare_reductions_of_narrow_dtypes():
    """prod of bool/uint8/int32 and prod/var/std/norm/logsumexp of float16/bfloat16:
    integer products wrap as int64 products, dtype=/out= round once, non-contiguous inputs."""
    a = rng.integers(1, 200, (7, 9)).astype(np.int64)
    for dt in (ember.uint8, ember.int32):
        x = to_ember(a.astype(NP[dt]), dt).t()  # non-contiguous
        r = x.prod(1)
        assert r.dtype == ember.int64
        np.testing.assert_array_equal(to_np(r), np.prod(a.T, axis=1))  # wraps as int64
        r8 = x.prod(0, dtype=dt)
        assert r8.dtype == dt
        np.testing.assert_array_equal(to_np(r8), np.prod(a.T, axis=0).astype(NP[dt]))
    b = rng.integers(0, 2, (5, 6)).astype(np.bool_)
    rb = to_ember(b, ember.bool).prod(0)
    assert rb.dtype == ember.int64
    np.testing.assert_array_equal(to_np(rb), np.prod(b, axis=0).astype(np.int64))
    v = rng.uniform(-2, 2, (6, 10, 4))
    for dt, tol in ((ember.float16, 4e-3), (ember.bfloat16, 3e-2)):
        x = to_ember(v, dt).permute(2, 0, 1)
        xf = to_np(x).astype(np.float64)
        for got, ref in ((x.var(2), np.var(xf, axis=2, ddof=1)),
                         (x.std((0, 2), keepdim=True),
                          np.std(xf, axis=(0, 2), keepdims=True, ddof=1)),
                         (x.norm(2, 1), np.sqrt((xf * xf).sum(1))),
                         (x.norm(1, None), np.abs(xf).sum()),
                         (x.logsumexp(1), logsumexp(xf, axis=1)),
                         (ember.abs(x).add(0.5).prod(2), np.prod(np.abs(xf) + 0.5, axis=2))):
            assert got.dtype == dt
            assert_close(got, ref, rtol=tol, atol=1e-3)
        out = ember.empty((4, 6), dtype=dt)
        assert ember.norm(x, 2, 2, out=out) is out
        assert_close(out, np.sqrt((xf * xf).sum(2)), rtol=tol, atol=1e-3)
