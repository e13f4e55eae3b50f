"""cumsum, cumprod, softmax and log_softmax against NumPy: dims, dtypes and
result dtypes, strided inputs, empty and 0-d tensors, extreme values, errors."""
import math

import numpy as np
import pytest

import ember
from math_util import ALL, FLOATS, INTS, assert_close, name, sample, to_ember, to_np

rng = np.random.default_rng(6)


@pytest.mark.parametrize("dtype", ALL, ids=name)
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_cumsum_cumprod(dtype, dim):
    a = sample(dtype, (3, 4, 5), rng, -3, 4)
    if dtype in FLOATS:
        a = rng.uniform(0.5, 1.5, (3, 4, 5))
    x = to_ember(a, dtype)
    af = to_np(x).astype(np.float64) if dtype in FLOATS else a.astype(np.int64)
    s, p = ember.cumsum(x, dim), x.cumprod(dim)
    expected = dtype if dtype in FLOATS else ember.int64
    assert s.dtype == expected and p.dtype == expected and s.shape == x.shape
    tol = {ember.float16: 5e-3, ember.bfloat16: 3e-2}.get(dtype)
    with np.errstate(over="ignore"):
        assert_close(s, np.cumsum(af, dim), rtol=tol, atol=1e-6)
        assert_close(p, np.cumprod(af, dim), rtol=tol, atol=1e-6)


def test_scan_layouts_and_lengths():
    for n in (1, 31, 32, 33, 255, 256, 257, 513, 4097, 100_000):
        a = rng.uniform(-1, 1, n)
        np.testing.assert_allclose(ember.tensor(a).cumsum(0).numpy(), np.cumsum(a), atol=1e-9)
    b = rng.uniform(-1, 1, (50, 70))
    t = ember.tensor(b)
    np.testing.assert_allclose(t.t().cumsum(1).numpy(), np.cumsum(b.T, 1), atol=1e-12)
    np.testing.assert_allclose(t[::2, 1::3].cumsum(0).numpy(), np.cumsum(b[::2, 1::3], 0))
    np.testing.assert_allclose(t.cumsum(0, dtype=ember.float32).numpy(), np.cumsum(b, 0), atol=1e-5)
    i = ember.tensor([[1, 2], [3, 4]], dtype=ember.int32)
    assert i.cumsum(1, dtype=ember.float64).dtype == ember.float64
    assert ember.tensor([2**62, 2**62]).cumsum(0).tolist() == [2**62, -2**63]  # wraps
    assert ember.tensor(5.0).cumsum(0).item() == 5.0
    assert ember.empty(0, 3).cumsum(0).shape == (0, 3)
    c = ember.tensor([1.0, 2.0, 3.0])
    assert c.cumsum_(0) is c and c.tolist() == [1.0, 3.0, 6.0]
    out = ember.empty(3, dtype=ember.float64)
    assert ember.cumprod(ember.tensor([1.0, 2.0, 3.0]), 0, out=out) is out
    assert out.tolist() == [1.0, 2.0, 6.0]
    with pytest.raises(IndexError, match="Dimension out of range"):
        c.cumsum(1)


def softmax_ref(a, axis):
    e = np.exp(a - np.max(a, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_log_softmax(dtype, dim):
    x = to_ember(rng.uniform(-5, 5, (6, 9)), dtype)
    af = to_np(x).astype(np.float64)
    s, ls = ember.softmax(x, dim), x.log_softmax(dim)
    assert s.dtype == dtype and ls.dtype == dtype
    tol = {ember.float16: 2e-3, ember.bfloat16: 1.6e-2, ember.float32: 1e-5}.get(dtype)
    assert_close(s, softmax_ref(af, dim), rtol=tol, atol=1e-7)
    assert_close(ls, np.log(softmax_ref(af, dim)), rtol=tol, atol=tol or 1e-12)


def test_softmax_extremes_and_dtype():
    x = ember.tensor([[1000.0, 0.0, -1000.0], [-math.inf, 0.0, 0.0]])
    s = x.softmax(1).tolist()
    assert s[0] == [1.0, 0.0, 0.0] and s[1] == [0.0, 0.5, 0.5]
    assert x.log_softmax(1).tolist()[0][0] == 0.0
    assert math.isnan(ember.softmax(ember.tensor([math.nan, 1.0]), 0).tolist()[1])
    i = ember.tensor([1, 2, 3])
    r = ember.softmax(i, 0, dtype=ember.float64)
    assert r.dtype == ember.float64
    np.testing.assert_allclose(r.numpy(), softmax_ref(np.array([1.0, 2, 3]), 0))
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        ember.softmax(i, 0)
    assert ember.softmax(ember.tensor(2.0), 0).item() == 1.0
    assert ember.softmax(ember.empty(0, 4), 1).shape == (0, 4)
    t = ember.tensor(rng.uniform(size=(5, 7)))
    np.testing.assert_allclose(t.t().softmax(0).numpy(), softmax_ref(t.numpy().T, 0))
    with pytest.raises(TypeError, match="missing required argument 'dim'"):
        ember.softmax(t)


def test_logcumsumexp_of_half_dtypes_accumulates_in_float32():
    # each result rounded once from float32 (torch's accumulation type): 4099 copies of
    # 192.125 give 192.125 + log(k + 1), not a drift of the float16 steps
    import math as _m
    x = ember.tensor(192.125, dtype=ember.float16).expand(4099)
    got = ember.logcumsumexp(x, 0).float().numpy()
    k = np.arange(4099, dtype=np.float64)
    want = (np.float32(192.125) + np.log1p(k)).astype(np.float16).astype(np.float32)
    assert np.abs(got - want).max() <= 0.125  # an ulp of float16 at 128..256
    assert got[1023] == float(np.float16(192.125 + _m.log(1024)))
