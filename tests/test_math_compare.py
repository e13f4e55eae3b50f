"""Comparisons and logical ops against NumPy: every dtype pair, numbers on
either side, NaN and infinities, out= of other dtypes, in-place forms."""
import math
import operator

import numpy as np
import pytest

import ember
from math_util import ALL, name, sample, to_ember, to_np

rng = np.random.default_rng(1)

OPS = {
    "eq": (operator.eq, np.equal), "ne": (operator.ne, np.not_equal),
    "lt": (operator.lt, np.less), "le": (operator.le, np.less_equal),
    "gt": (operator.gt, np.greater), "ge": (operator.ge, np.greater_equal),
}


@pytest.mark.parametrize("da", ALL, ids=name)
@pytest.mark.parametrize("db", ALL, ids=name)
def test_comparisons_all_dtype_pairs(da, db):
    a, b = sample(da, (3, 4), rng, 0, 4), sample(db, (4,), rng, 0, 4)
    ta, tb = to_ember(a, da), to_ember(b, db)
    fa, fb = to_np(ta).astype(np.float64), to_np(tb).astype(np.float64)
    for key, (op, fn) in OPS.items():
        r = op(ta, tb)
        assert r.dtype == ember.bool and r.shape == (3, 4)
        np.testing.assert_array_equal(r.numpy(), fn(fa, fb), err_msg=key)
        np.testing.assert_array_equal(getattr(ember, key)(ta, tb).numpy(), fn(fa, fb))
        np.testing.assert_array_equal(getattr(ta, key)(tb).numpy(), fn(fa, fb))


def test_numbers_on_either_side_and_promotion():
    x = ember.tensor([1, 2, 3], dtype=ember.int8)
    assert (x < 2.5).tolist() == [True, True, False]  # compared as float, not as int8
    assert (2.5 > x).tolist() == [True, True, False]
    assert (x == 2).tolist() == [False, True, False]
    assert (x != 2).tolist() == [True, False, True]
    # 1000 would wrap in int8 if it were converted to x's dtype first: torch
    # keeps the comparison in the tensor's dtype (wrapped numbers do not promote).
    u = ember.tensor([44], dtype=ember.uint8)
    assert (u == 300).tolist() == [True]
    h = ember.tensor([0.1], dtype=ember.float16)
    assert (h == 0.1).tolist() == [True]  # 0.1 rounds to float16 first, as in torch


def test_nan_and_infinities():
    nan, inf = math.nan, math.inf
    a = np.array([nan, nan, inf, -inf, 0.0, -0.0])
    b = np.array([nan, 1.0, inf, inf, -0.0, 0.0])
    ta, tb = ember.tensor(a), ember.tensor(b)
    for op, fn in OPS.values():
        np.testing.assert_array_equal(op(ta, tb).numpy(), fn(a, b))


def test_logical_ops():
    a = np.array([0.0, 1.5, -2.0, math.nan, 0.0])
    b = np.array([0, 0, 3, 0, 7], dtype=np.int32)
    ta, tb = ember.tensor(a), ember.tensor(b)
    for key, fn in [("logical_and", np.logical_and), ("logical_or", np.logical_or),
                    ("logical_xor", np.logical_xor)]:
        r = getattr(ember, key)(ta, tb)
        assert r.dtype == ember.bool
        np.testing.assert_array_equal(r.numpy(), fn(a, b))
        np.testing.assert_array_equal(getattr(ta, key)(tb).numpy(), fn(a, b))
    out = ember.empty(5, dtype=ember.float32)
    ember.logical_and(ta, tb, out=out)
    assert out.tolist() == [0, 0, 1, 0, 0]


def test_out_and_inplace_of_other_dtypes():
    x = ember.tensor([1.0, 5.0, 3.0])
    out = ember.empty(3, dtype=ember.int64)
    assert ember.gt(x, 2, out=out) is out
    assert out.tolist() == [0, 1, 1]
    y = x.clone()
    assert y.lt_(3) is y and y.tolist() == [1.0, 0.0, 0.0] and y.dtype == ember.float32
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        x.eq_(ember.ones(2, 3))


def test_strided_and_broadcast():
    base = rng.uniform(size=(5, 6))
    t = ember.tensor(base)
    np.testing.assert_array_equal((t.t() > 0.5).numpy(), base.T > 0.5)
    np.testing.assert_array_equal((t[:, ::2] < t[0, ::2]).numpy(), base[:, ::2] < base[0, ::2])
    assert (ember.empty(0, 2) == 1).shape == (0, 2)
    assert (ember.tensor(1.0) == ember.tensor(1.0)).item() is True


def test_unknown_operands():
    x = ember.ones(2)
    assert (x == "a") is False and (x != "a") is True
    with pytest.raises(TypeError):
        x < "a"
    with pytest.raises(RuntimeError, match="must match the size"):
        x == ember.ones(3)
