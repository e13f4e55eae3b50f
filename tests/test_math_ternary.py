"""where, clamp/clip, lerp, addcmul, addcdiv against NumPy: numbers and
tensors as operands, broadcasting, NaN rules, promotion, in-place and out=."""
import math

import numpy as np
import pytest

import ember
from math_util import assert_close

rng = np.random.default_rng(4)


def test_where():
    c = rng.uniform(size=(3, 4)) > 0.5
    a, b = rng.uniform(size=(3, 4)), rng.uniform(size=(4,))
    tc, ta, tb = ember.tensor(c), ember.tensor(a), ember.tensor(b)
    np.testing.assert_array_equal(ember.where(tc, ta, tb).numpy(), np.where(c, a, b))
    np.testing.assert_array_equal(ember.where(tc, ta, 0.0).numpy(), np.where(c, a, 0.0))
    np.testing.assert_array_equal(ember.where(tc, 1.0, tb).numpy(), np.where(c, 1.0, b))
    np.testing.assert_array_equal(ta.where(tc, tb).numpy(), np.where(c, a, b))
    i = ember.tensor([1, 2, 3], dtype=ember.int32)
    m = ember.tensor([True, False, True])
    assert ember.where(m, i, 0).dtype == ember.int32  # the number does not promote
    assert ember.where(m, i, 0.5).dtype == ember.float32
    assert ember.where(m, i, ember.tensor([1.0, 2.0, 3.0], dtype=ember.float64)).dtype == ember.float64
    out = ember.empty(3, dtype=ember.float64)
    with pytest.raises(RuntimeError, match="Expected out type to be Int but got Double"):
        ember.where(m, i, ember.tensor(-1), out=out)  # torch checks out's dtype, no cast
    out = ember.empty(3, dtype=ember.int32)
    assert ember.where(m, i, -1, out=out) is out and out.tolist() == [1, -1, 3]
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor, but "
                                           "got a tensor with dtype Float"):
        ember.where(ember.ones(3), i, 0)


def test_clamp_numbers_and_tensors():
    a = np.array([-3.0, -0.5, 0.0, 0.7, 5.0, math.nan])
    x = ember.tensor(a)
    np.testing.assert_array_equal(ember.clamp(x, -1, 1).numpy(), np.clip(a, -1, 1))
    np.testing.assert_array_equal(ember.clip(x, min=0).numpy(), np.clip(a, 0, None))
    np.testing.assert_array_equal(x.clamp(max=0.5).numpy(), np.clip(a, None, 0.5))
    np.testing.assert_array_equal(ember.clamp_min(x, 0.0).numpy(), np.clip(a, 0, None))
    np.testing.assert_array_equal(x.clamp_max(0.0).numpy(), np.clip(a, None, 0))
    lo, hi = rng.uniform(-1, 0, 6), rng.uniform(0, 1, 6)
    np.testing.assert_array_equal(ember.clamp(x, ember.tensor(lo), ember.tensor(hi)).numpy(),
                                  np.clip(a, lo, hi))
    # NaN bounds propagate; min > max gives max (torch)
    assert math.isnan(ember.clamp(ember.tensor([1.0]), ember.tensor([math.nan])).item())
    assert ember.clamp(ember.tensor([0.0, 5.0]), 3, 1).tolist() == [1.0, 1.0]
    y = x.clone()
    assert y.clamp_(-1, 1) is y
    np.testing.assert_array_equal(y.numpy(), np.clip(a, -1, 1))
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        ember.clamp(x)


def test_clamp_promotion():
    i = ember.tensor([1, 5, 9])
    assert ember.clamp(i, 2, 6).dtype == ember.int64 and ember.clamp(i, 2, 6).tolist() == [2, 5, 6]
    r = ember.clamp(i, 2.5)
    assert r.dtype == ember.float32 and r.tolist() == [2.5, 5, 9]
    h = ember.tensor([1.0, 70000.0]).half()
    assert ember.clamp(h, max=100.0).dtype == ember.float16
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        i.clamp_(0.5)


def test_lerp():
    s, e = rng.uniform(size=10), rng.uniform(size=10)
    w = rng.uniform(-1, 2, 10)
    ts, te = ember.tensor(s), ember.tensor(e)
    assert_close(ember.lerp(ts, te, 0.3), s + 0.3 * (e - s), rtol=1e-12, atol=1e-15)
    assert_close(ember.lerp(ts, te, ember.tensor(w)), s + w * (e - s), rtol=1e-12, atol=1e-14)
    assert_close(ts.lerp(te, 0.75), s + 0.75 * (e - s), rtol=1e-12, atol=1e-15)
    x = ts.clone()
    assert x.lerp_(te, 1.0) is x
    np.testing.assert_array_equal(x.numpy(), e)  # weight 1 gives end exactly
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        ember.lerp(ember.tensor([1]), ember.tensor([2]), 1)


def test_addcmul_addcdiv():
    x, a, b = (rng.uniform(1, 2, (3, 4)) for _ in range(3))
    tx, ta, tb = ember.tensor(x), ember.tensor(a), ember.tensor(b)
    assert_close(ember.addcmul(tx, ta, tb, value=0.5), x + 0.5 * a * b, rtol=1e-12)
    assert_close(ember.addcdiv(tx, ta, tb, value=2), x + 2 * a / b, rtol=1e-12)
    assert_close(tx.addcmul(ta, tb), x + a * b, rtol=1e-12)
    y = tx.clone()
    assert y.addcdiv_(ta, tb, value=-1) is y
    assert_close(y, x - a / b, rtol=1e-12)
    i = ember.tensor([1, 2])
    assert ember.addcmul(i, i, i, value=3).tolist() == [4, 14]
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        ember.addcdiv(i, i, i)
    # torch 2.11 accepts a float value on integer tensors and truncates it to the dtype first
    assert ember.addcmul(i, i, i, value=0.5).tolist() == [1, 2]
    assert ember.addcmul(i, i, i, value=1.5).tolist() == [2, 6]


def test_clamp_min_max_with_nan_number_fill_nan():
    """torch's clamp_min_out/clamp_max_out fill NaN for a NaN number bound (the result
    dtype promoted: float32 for integers); clamp(x, min=nan) runs the kernel, keeping x."""
    x = ember.tensor([808, -946, 294], dtype=ember.int32)
    for r in (ember.clamp_max(x, float("nan")), x.clamp_min(float("nan")),
              ember.tensor([1.0, 2.0], dtype=ember.bfloat16).clamp_max(math.nan)):
        assert np.isnan(r.float().numpy()).all()
    assert ember.clamp_max(x, float("nan")).dtype == ember.float32
    assert ember.tensor([1.0, 2.0]).clamp(min=float("nan")).tolist() == [1.0, 2.0]
    y = ember.tensor([1.0, 2.0])
    assert y.clamp_min_(math.nan) is y and np.isnan(y.numpy()).all()
    with pytest.raises(RuntimeError, match="can't be cast"):
        ember.tensor([1, 2]).clamp_max_(math.nan)
