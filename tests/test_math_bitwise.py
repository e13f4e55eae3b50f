"""Bitwise ops against NumPy: and/or/xor/not on bool and integers, shifts
with torch's out-of-range rules, operators and in-place forms, errors for
floating tensors."""
import numpy as np
import pytest

import ember
from math_util import INTS, NP, name, to_ember

rng = np.random.default_rng(3)


@pytest.mark.parametrize("dtype", INTS + [ember.bool], ids=name)
def test_and_or_xor_not(dtype):
    info = np.iinfo(NP[dtype]) if dtype != ember.bool else None
    lo, hi = (0, 2) if dtype == ember.bool else (info.min, info.max)
    a = rng.integers(lo, hi, 50, endpoint=True).astype(NP[dtype])
    b = rng.integers(lo, hi, 50, endpoint=True).astype(NP[dtype])
    ta, tb = to_ember(a), to_ember(b)
    for op, fn, ref in [("&", ember.bitwise_and, np.bitwise_and), ("|", ember.bitwise_or, np.bitwise_or),
                        ("^", ember.bitwise_xor, np.bitwise_xor)]:
        r = eval("ta " + op + " tb")
        assert r.dtype == dtype
        np.testing.assert_array_equal(r.numpy(), ref(a, b))
        np.testing.assert_array_equal(fn(ta, tb).numpy(), ref(a, b))
    np.testing.assert_array_equal((~ta).numpy(), np.invert(a))
    np.testing.assert_array_equal(ember.bitwise_not(ta).numpy(), np.invert(a))
    c = ta.clone()
    assert c.bitwise_xor_(tb) is c
    np.testing.assert_array_equal(c.numpy(), a ^ b)
    c &= tb
    np.testing.assert_array_equal(c.numpy(), (a ^ b) & b)


@pytest.mark.parametrize("dtype", INTS, ids=name)
def test_shifts(dtype):
    bits = np.iinfo(NP[dtype]).bits
    a = rng.integers(np.iinfo(NP[dtype]).min, np.iinfo(NP[dtype]).max, 40).astype(NP[dtype])
    s = rng.integers(0, bits, 40).astype(NP[dtype])
    ta, ts = to_ember(a), to_ember(s)
    np.testing.assert_array_equal((ta << ts).numpy(), np.left_shift(a, s))
    np.testing.assert_array_equal((ta >> ts).numpy(), np.right_shift(a, s))
    np.testing.assert_array_equal(ember.bitwise_left_shift(ta, 1).numpy(), np.left_shift(a, 1))
    # torch: shifting by the width or more gives 0 (left) or the sign (right)
    big = ember.tensor([bits, bits + 5], dtype=dtype)
    v = ember.tensor([-3 if dtype != ember.uint8 else 3, 5], dtype=dtype)
    assert (v << big).tolist() == [0, 0]
    assert (v >> big).tolist() == [(-1 if dtype != ember.uint8 else 0), 0]
    x = ta.clone()
    x <<= 1
    np.testing.assert_array_equal(x.numpy(), np.left_shift(a, 1))
    x >>= 2
    np.testing.assert_array_equal(x.numpy(), np.right_shift(np.left_shift(a, 1), 2))
    assert (1 << ember.tensor([3])).tolist() == [8]  # reflected


def test_mixed_dtypes_and_numbers():
    a = ember.tensor([0x0F, 0xF0], dtype=ember.uint8)
    assert (a & 0x3C).tolist() == [0x0C, 0x30] and (a & 0x3C).dtype == ember.uint8
    assert (a | ember.tensor([256], dtype=ember.int32)).dtype == ember.int32
    b = ember.tensor([True, False])
    assert (b & True).tolist() == [True, False] and (b ^ True).tolist() == [False, True]
    assert (b | 2).dtype == ember.int64


def test_errors():
    f = ember.ones(2)
    with pytest.raises(RuntimeError, match=r"\"bitwise_and_cpu\" not implemented for 'Float'"):
        f & f
    with pytest.raises(RuntimeError, match=r"\"bitwise_or_cpu\" not implemented for 'Float'"):
        ember.tensor([1]) | 1.5
    # torch 2.11: ~ checks the dtype itself (TypeError); bitwise_not raises its kernel's error.
    for dtype in (ember.float64, ember.float32, ember.float16, ember.bfloat16):
        with pytest.raises(TypeError, match=r"^~ \(operator.invert\) is only implemented on "
                                            r"integer and Boolean-type tensors$"):
            ~ember.ones(2, dtype=dtype)
        with pytest.raises(TypeError, match=r"operator.invert"):
            ember.ones(2, dtype=dtype).__invert__()
    with pytest.raises(RuntimeError, match=r"\"bitwise_not_cpu\" not implemented for 'Double'"):
        ember.bitwise_not(ember.ones(2, dtype=ember.float64))
    assert (~ember.tensor([True, False])).tolist() == [False, True]
    assert (~ember.tensor([5], dtype=ember.uint8)).tolist() == [250]
    with pytest.raises(RuntimeError, match=r"\"lshift_cpu\" not implemented for 'Bool'"):
        ember.tensor([True]) << ember.tensor([True])
    assert (ember.tensor([True]) << 1).tolist() == [2]  # bool with an int number: int64
    with pytest.raises(RuntimeError, match="can't be cast"):
        b = ember.tensor([True])
        b &= 2
    assert (ember.tensor([6]) & 3).tolist() == [2]
