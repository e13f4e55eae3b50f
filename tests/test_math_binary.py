"""Arithmetic binary ops against NumPy on the CPU: add, sub, mul, div (all
rounding modes), floor_divide, remainder, fmod, pow, atan2, hypot, maximum,
minimum, fmax, fmin; every spelling (functions, methods, in-place, operators,
reflected operators, out=); torch's type promotion; broadcasting, strides,
0-d and empty tensors; edge values; errors."""
import math
import operator

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember
from math_util import ALL, FLOATS, INTS, NP, assert_close, name, sample, to_ember, to_np

rng = np.random.default_rng(0)


# ---- type promotion: torch's documented results ------------------------------------

def t(dtype, shape=(2,)):
    return ember.ones(shape, dtype=dtype)


def z(dtype):
    return ember.ones((), dtype=dtype)


PROMOTION_CASES = [
    # (a, b, expected) -- from torch's type promotion documentation and behaviour
    (lambda: t(ember.int32), lambda: 5, ember.int32),
    (lambda: t(ember.int32), lambda: z(ember.int64), ember.int32),
    (lambda: t(ember.int64), lambda: t(ember.int32), ember.int64),
    (lambda: t(ember.bool), lambda: t(ember.int64), ember.int64),
    (lambda: t(ember.bool), lambda: t(ember.uint8), ember.uint8),
    (lambda: t(ember.float32), lambda: t(ember.float64), ember.float64),
    (lambda: t(ember.bool), lambda: t(ember.int32), ember.int32),
    (lambda: t(ember.int64), lambda: t(ember.float32), ember.float32),
    (lambda: t(ember.float16), lambda: 2.5, ember.float16),
    (lambda: t(ember.int32), lambda: 2.5, ember.float32),
    (lambda: t(ember.bool), lambda: True, ember.bool),
    (lambda: t(ember.bool), lambda: 1, ember.int64),
    (lambda: t(ember.bool), lambda: 1.5, ember.float32),
    (lambda: t(ember.uint8), lambda: t(ember.int8), ember.int16),
    (lambda: t(ember.float16), lambda: t(ember.bfloat16), ember.float32),
    (lambda: t(ember.int64), lambda: t(ember.float16), ember.float16),
    (lambda: t(ember.int32), lambda: z(ember.float64), ember.float64),
    (lambda: t(ember.float16), lambda: z(ember.float64), ember.float16),
    (lambda: t(ember.uint8), lambda: z(ember.int64), ember.uint8),
    (lambda: t(ember.uint8), lambda: 1000, ember.uint8),
    (lambda: z(ember.int32), lambda: z(ember.int64), ember.int64),
    (lambda: z(ember.int32), lambda: 2.5, ember.float32),
    (lambda: z(ember.float16), lambda: t(ember.int32), ember.float16),
    (lambda: 3, lambda: t(ember.int8), ember.int8),
]


@pytest.mark.parametrize("case", range(len(PROMOTION_CASES)))
def test_result_type_as_torch(case):
    fa, fb, expected = PROMOTION_CASES[case]
    a, b = fa(), fb()
    assert (a + b).dtype == expected if isinstance(a, ember.Tensor) else (b + a).dtype == expected
    assert ember.add(a, b).dtype == expected
    assert ember.mul(a, b).dtype == expected
    assert ember.result_type(a, b) == expected


def test_default_dtype_drives_python_floats_and_true_division():
    x = ember.arange(4)
    assert (x / 2).dtype == ember.float32 and (x * 0.5).dtype == ember.float32
    ember.set_default_dtype(ember.float64)
    try:
        assert (x / 2).dtype == ember.float64 and (x * 0.5).dtype == ember.float64
        assert (ember.ones(2, dtype=ember.float32) * 0.5).dtype == ember.float32
    finally:
        ember.set_default_dtype(ember.float32)


def test_two_numbers_give_a_zero_d_tensor():
    r = ember.add(5, 5)
    assert r.dtype == ember.int64 and r.shape == () and r.item() == 10
    assert ember.mul(2, 2.5).dtype == ember.float32


def test_can_cast_as_torch():
    assert ember.can_cast(ember.float64, ember.float32)
    assert ember.can_cast(ember.int64, ember.int8)
    assert not ember.can_cast(ember.float32, ember.int32)
    assert not ember.can_cast(ember.int32, ember.bool)
    assert ember.can_cast(ember.bool, ember.bool) and ember.can_cast(ember.bool, ember.float16)


# ---- values against NumPy ----------------------------------------------------------

ARITH = {
    "add": (ember.add, np.add),
    "sub": (ember.sub, np.subtract),
    "mul": (ember.mul, np.multiply),
}


@pytest.mark.parametrize("op", list(ARITH))
@pytest.mark.parametrize("dtype", ALL, ids=name)
def test_arith_same_dtype(op, dtype):
    if op == "sub" and dtype == ember.bool:
        pytest.skip("bool subtraction raises (tested below)")
    fe, fn = ARITH[op]
    a, b = sample(dtype, (3, 5), rng), sample(dtype, (3, 5), rng)
    ta, tb = to_ember(a, dtype), to_ember(b, dtype)
    r = fe(ta, tb)
    assert r.dtype == dtype
    if dtype in FLOATS:
        assert_close(r, fn(to_np(ta).astype(np.float64), to_np(tb).astype(np.float64)))
    else:
        assert_close(r, fn(a, b))


@pytest.mark.parametrize("dtype", INTS, ids=name)
def test_integer_wraparound(dtype):
    info = np.iinfo(NP[dtype])
    a = np.array([info.max, info.min, info.max, 7], dtype=NP[dtype])
    b = np.array([1, -1 if info.min < 0 else 1, info.max, 3], dtype=NP[dtype])
    with np.errstate(over="ignore"):
        assert_close(ember.add(to_ember(a), to_ember(b)), a + b)
        assert_close(ember.mul(to_ember(a), to_ember(b)), a * b)
        assert_close(ember.sub(to_ember(a), to_ember(b)), a - b)


def test_python_int_scalar_wraps_in_the_tensor_dtype():
    x = ember.tensor([1, 200], dtype=ember.uint8)
    assert (x + 300).tolist() == [45, 244]  # 300 wraps to 44 first, as torch
    assert (x * 2).dtype == ember.uint8 and (x * 2).tolist() == [2, 144]


@pytest.mark.parametrize("da", ALL, ids=name)
@pytest.mark.parametrize("db", ALL, ids=name)
def test_mixed_dtype_pairs_add_mul(da, db):
    a, b = sample(da, (4,), rng, 0, 5), sample(db, (4,), rng, 0, 5)
    ta, tb = to_ember(a, da), to_ember(b, db)
    r = ta + tb
    rt = ember.promote_types(da, db)
    assert r.dtype == rt and (ta * tb).dtype == rt
    ref_a, ref_b = to_np(ta).astype(np.float64), to_np(tb).astype(np.float64)
    if rt == ember.bool:
        assert_close(r, np.logical_or(a, b))
        assert_close(ta * tb, np.logical_and(a, b))
    else:
        assert_close(r, ref_a + ref_b)
        assert_close(ta * tb, ref_a * ref_b)


@pytest.mark.parametrize("dtype", ALL, ids=name)
def test_true_division(dtype):
    a = sample(dtype, (20,), rng, 1, 9)
    b = sample(dtype, (20,), rng, 1, 9)
    if dtype == ember.bool:
        b = np.ones(20, np.bool_)
    ta, tb = to_ember(a, dtype), to_ember(b, dtype)
    r = ta / tb
    expected = dtype if dtype in FLOATS else ember.float32
    assert r.dtype == expected and ember.true_divide(ta, tb).dtype == expected
    ref = to_np(ta).astype(np.float64) / to_np(tb).astype(np.float64)
    assert_close(r, ref)


def test_division_by_zero_floats_as_ieee():
    a = ember.tensor([1.0, -1.0, 0.0, 5.0])
    r = a / 0.0
    assert r.tolist()[:2] == [math.inf, -math.inf] and math.isnan(r.tolist()[2])
    assert (ember.tensor([1, 0]) / 0).tolist()[0] == math.inf
    f = ember.floor_divide(a, 0.0).tolist()
    assert f[0] == math.inf and f[1] == -math.inf and math.isnan(f[2])
    assert all(math.isnan(v) for v in ember.remainder(a, 0.0).tolist())
    assert all(math.isnan(v) for v in ember.fmod(a, 0.0).tolist())


@pytest.mark.parametrize("fn", [
    lambda a, b: a // b, lambda a, b: a % b, lambda a, b: ember.fmod(a, b),
    lambda a, b: ember.div(a, b, rounding_mode="trunc"),
    lambda a, b: ember.div(a, b, rounding_mode="floor"),
])
def test_integer_division_by_zero_raises_on_the_cpu(fn):
    a = ember.tensor([5, 6, 7])
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(a, ember.tensor([1, 0, 2]))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn(a, 0)
    assert a.tolist() == [5, 6, 7]
    assert fn(a, 2).dtype == ember.int64  # still usable


@pytest.mark.parametrize("dtype", [ember.int8, ember.int32, ember.int64, ember.float32,
                                   ember.float64, ember.float16], ids=name)
def test_rounding_modes_and_python_modulo(dtype):
    a = sample(dtype, (40,), rng, -50, 50)
    b = sample(dtype, (40,), rng, -7, 8)
    b[b == 0] = 3
    ta, tb = to_ember(a, dtype), to_ember(b, dtype)
    fa, fb = to_np(ta).astype(np.float64), to_np(tb).astype(np.float64)
    if dtype in INTS:
        assert_close(ember.div(ta, tb, rounding_mode="trunc"), np.trunc(fa / fb).astype(np.int64))
        assert_close(ember.div(ta, tb, rounding_mode="floor"), np.floor_divide(a, b))
        assert_close(ta // tb, np.floor_divide(a, b))
        assert_close(ta % tb, np.remainder(a, b))
        assert_close(ember.fmod(ta, tb), np.fmod(a, b))
        assert (ta // tb).dtype == dtype
    else:
        q = np.floor_divide(fa, fb)
        assert_close(ember.div(ta, tb, rounding_mode="floor"), q, atol=1)
        assert_close(ta // tb, q, atol=1)
        assert_close(ember.div(ta, tb, rounding_mode="trunc"), np.trunc(fa / fb), atol=1)
        assert_close(ta % tb, np.remainder(fa, fb), atol=1e-2 if dtype == ember.float16 else 1e-5)
        assert_close(ember.fmod(ta, tb), np.fmod(fa, fb), atol=1e-5)


def test_number_divisor_wraps_before_the_zero_check():
    u = ember.tensor([5, 7], dtype=ember.uint8)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        u // 256  # 256 is 0 in uint8 (torch converts the number first)
    assert (u % 258).tolist() == [1, 1]


def test_integer_division_extremes():
    a = ember.tensor([-2**63, -7, 7, -2**63], dtype=ember.int64)
    b = ember.tensor([-1, 2, -2, 1], dtype=ember.int64)
    assert (a // b).tolist() == [-2**63, -4, -4, -2**63]  # wraps, never traps
    assert (a % b).tolist() == [0, 1, -1, 0]
    assert ember.div(a, b, rounding_mode="trunc").tolist() == [-2**63, -3, -3, -2**63]


def test_pow_values_and_rules():
    x = ember.arange(6, dtype=ember.int32)
    assert (x ** 2).tolist() == [0, 1, 4, 9, 16, 25] and (x ** 2).dtype == ember.int32
    assert (2 ** x).tolist() == [1, 2, 4, 8, 16, 32] and (2 ** x).dtype == ember.int32
    assert (x ** 2.0).dtype == ember.float32
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        x ** -1
    assert (ember.tensor([1, -1, 2]) ** ember.tensor([-1, -3, -1])).tolist() == [1, -1, 0]
    with np.errstate(over="ignore"):
        big = np.array([3], np.int64) ** np.array([50], np.int64)
    assert (ember.tensor([3]) ** 50).tolist() == big.tolist()  # wraps like numpy
    f = rng.uniform(0.1, 3, 30)
    e = rng.uniform(-2, 2, 30)
    assert_close(ember.tensor(f) ** ember.tensor(e), f ** e)
    for s in [2, 3, 0.5, -0.5, -1, -2, 1.7]:
        assert_close(ember.tensor(f) ** s, f ** s)
    # Python's ** is right-associative: x ** 3 ** y is x ** (3 ** y).
    y = ember.tensor([0.5, 1.0])
    xs = ember.tensor([1.5, 2.0])
    assert_close(xs ** 3 ** y, np.array([1.5, 2.0]) ** (3 ** np.array([0.5, 1.0])))
    # With a number exponent torch takes sqrt for 0.5: (-inf) ** 0.5 is nan there.
    assert math.isnan((ember.tensor([-math.inf]) ** 0.5).item())
    assert (ember.tensor([-math.inf]) ** ember.tensor([0.5])).item() == math.inf
    assert ember.pow(2, ember.tensor([3.0])).tolist() == [8.0]
    assert ember.float_power(ember.tensor([2]), 3).dtype == ember.float64


def test_pow_bool_base_promotes():
    b = ember.tensor([True, False])
    assert (b ** 2).dtype == ember.int64 and (b ** 2).tolist() == [1, 0]


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16], ids=name)
def test_atan2_hypot(dtype):
    a, b = sample(dtype, (30,), rng), sample(dtype, (30,), rng)
    ta, tb = to_ember(a, dtype), to_ember(b, dtype)
    fa, fb = to_np(ta).astype(np.float64), to_np(tb).astype(np.float64)
    assert_close(ember.atan2(ta, tb), np.arctan2(fa, fb))
    assert_close(ember.arctan2(ta, tb), np.arctan2(fa, fb))
    assert_close(ember.hypot(ta, tb), np.hypot(fa, fb))
    assert ember.atan2(ember.tensor([1, 2]), ember.tensor([3, 4])).dtype == ember.float32
    with pytest.raises(RuntimeError, match=r"\"hypot_cpu\" not implemented for 'Long'"):
        ember.hypot(ember.tensor([1]), ember.tensor([2]))


def test_max_min_nan_rules():
    nan, inf = math.nan, math.inf
    a = np.array([1.0, nan, 3.0, -inf, nan, -0.0])
    b = np.array([2.0, 1.0, nan, 5.0, nan, 0.0])
    ta, tb = ember.tensor(a), ember.tensor(b)
    for fe, fn in [(ember.maximum, np.maximum), (ember.minimum, np.minimum),
                   (ember.fmax, np.fmax), (ember.fmin, np.fmin)]:
        np.testing.assert_array_equal(fe(ta, tb).numpy(), fn(a, b))
    i = ember.tensor([1, 5, -3])
    assert ember.maximum(i, ember.tensor([2, 2, 2])).tolist() == [2, 5, 2]
    assert ember.maximum(ember.tensor([True, False]), ember.tensor([False, False])).dtype == ember.bool


def test_edge_values_add_mul():
    nan, inf = math.nan, math.inf
    a = np.array([0.0, -0.0, inf, -inf, nan, inf, 1e308])
    b = np.array([-0.0, -0.0, -inf, inf, 1.0, 0.0, 1e308])
    with np.errstate(invalid="ignore", over="ignore"):
        np.testing.assert_array_equal((ember.tensor(a) + ember.tensor(b)).numpy(), a + b)
        np.testing.assert_array_equal((ember.tensor(a) * ember.tensor(b)).numpy(), a * b)
    assert math.copysign(1, (ember.tensor([-0.0]) + ember.tensor([-0.0])).item()) == -1


# ---- spellings -----------------------------------------------------------------------

def test_every_spelling_of_add():
    a_np, b_np = rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, (4,))
    a, b = ember.tensor(a_np), ember.tensor(b_np)
    ref = a_np + 2 * b_np
    assert_close(ember.add(a, b, alpha=2), ref)
    assert_close(a.add(b, alpha=2), ref)
    assert_close(ember.sub(a, b, alpha=-2), ref)
    assert_close(ember.subtract(a, b, alpha=-2), ref)
    out = ember.empty(3, 4, dtype=ember.float64)
    assert ember.add(a, b, alpha=2, out=out) is out
    assert_close(out, ref)
    c = a.clone()
    assert c.add_(b, alpha=2) is c
    assert_close(c, ref)
    c = a.clone()
    c += b
    assert_close(c, a_np + b_np)
    assert_close(a + b, a_np + b_np)
    assert_close(b + a, a_np + b_np)
    assert_close(a.__add__(b), a_np + b_np)
    assert_close(a.__radd__(b), a_np + b_np)


@pytest.mark.parametrize("op, fn", [
    (operator.add, np.add), (operator.sub, np.subtract), (operator.mul, np.multiply),
    (operator.truediv, np.true_divide), (operator.floordiv, np.floor_divide),
    (operator.mod, np.remainder), (operator.pow, np.power),
])
def test_operators_and_reflected_with_numbers(op, fn):
    x_np = rng.uniform(0.5, 4, (5,))
    x = ember.tensor(x_np)
    assert_close(op(x, 2.5), fn(x_np, 2.5), rtol=1e-12)
    assert_close(op(2.5, x), fn(2.5, x_np), rtol=1e-12)
    assert_close(op(x, x), fn(x_np, x_np), rtol=1e-12)
    y = x.clone()
    iop = getattr(operator, "i" + op.__name__.strip("_"))
    y2 = iop(y, 3)
    assert y2 is y
    assert_close(y, fn(x_np, 3), rtol=1e-12)


def test_inplace_methods_return_self():
    x = ember.tensor([6.0, 8.0])
    for m, arg, expect in [("sub_", 1, [5, 7]), ("mul_", 2, [10, 14]), ("div_", 2, [5, 7]),
                           ("floor_divide_", 2, [2, 3]), ("remainder_", 2, [0, 1]),
                           ("pow_", 2, [0, 1]), ("fmod_", 5, [0, 1]), ("true_divide_", 1, [0, 1])]:
        assert getattr(x, m)(arg) is x
        assert x.tolist() == expect


def test_div_rounding_mode_errors():
    with pytest.raises(ValueError, match="rounding_mode to be one of None, 'trunc', or 'floor'"):
        ember.div(ember.ones(2), 2, rounding_mode="round")
    x = ember.tensor([7.0, -7.0])
    assert x.div(2, rounding_mode="floor").tolist() == [3, -4]
    assert x.div_(2, rounding_mode="trunc").tolist() == [3, -3]


# ---- shapes and strides ----------------------------------------------------------------

def test_broadcasting_and_zero_d():
    a = ember.tensor(rng.uniform(size=(2, 1, 3)))
    b = ember.tensor(rng.uniform(size=(4, 1)))
    r = a * b
    assert r.shape == (2, 4, 3)
    np.testing.assert_allclose(r.numpy(), a.numpy() * b.numpy())
    s = ember.tensor(2.0)
    assert (s * s).shape == () and (s * s).item() == 4.0
    assert (a + s).shape == (2, 1, 3)


def test_empty_tensors():
    e = ember.empty(0, 3)
    assert (e + 1).shape == (0, 3)
    assert (e + ember.ones(3)).shape == (0, 3)
    assert (ember.ones(1, 0) * ember.ones(5, 1)).shape == (5, 0)
    assert ember.add(e, e, out=ember.empty(0)).shape == (0, 3)  # empty out= takes the shape


def test_non_contiguous_inputs_and_outputs():
    base = rng.uniform(size=(6, 8))
    t = ember.tensor(base)
    a = t.t()  # (8, 6), transposed
    b = t[::2, ::3]  # strided
    np.testing.assert_allclose((a + 1).numpy(), base.T + 1)
    np.testing.assert_allclose((b * b).numpy(), base[::2, ::3] ** 2)
    r = a + t.t().contiguous()
    np.testing.assert_allclose(r.numpy(), 2 * base.T)
    assert r.stride() == (1, 8)  # the output follows the inputs' dimension order
    out = ember.zeros(8, 12)[:, ::2]
    ember.mul(a, 3, out=out)
    np.testing.assert_allclose(out.numpy(), 3 * base.T)
    c = t.clone()
    c[:, 1:4] += 1  # in-place through a view
    expect = base.copy()
    expect[:, 1:4] += 1
    np.testing.assert_allclose(c.numpy(), expect)
    ex = ember.tensor(rng.uniform(size=(1, 8))).expand(6, 8)
    np.testing.assert_allclose((ex + t).numpy(), ex.numpy() + base)


dtypes_st = st.sampled_from(ALL)


@settings(max_examples=120, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=0, max_size=4).map(tuple), data=st.data())
def test_property_strided_broadcast_binary(shape, data):
    """Random shapes, broadcasting, transposes, slices and dtypes vs NumPy."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))  # reproducible draws
    da, db = data.draw(dtypes_st), data.draw(dtypes_st)
    a_np = sample(da, shape, rng, 0, 6)
    # b broadcasts: drop leading dims and set some to 1.
    nb = data.draw(st.integers(0, len(shape)))
    bshape = tuple(1 if data.draw(st.booleans()) else s for s in shape[len(shape) - nb:])
    b_np = sample(db, bshape, rng, 1, 6)
    ta, tb = to_ember(a_np, da), to_ember(b_np, db)
    if len(shape) >= 2 and data.draw(st.booleans()):
        ta = to_ember(np.ascontiguousarray(np.swapaxes(a_np, 0, -1)), da).transpose(0, -1)
    if len(shape) >= 1 and shape[0] > 1 and data.draw(st.booleans()):
        big = np.concatenate([a_np, a_np], axis=0)
        ta = to_ember(big, da)[::2]
        a_np = big[::2]
    fa, fb = to_np(ta).astype(np.float64), to_np(tb).astype(np.float64)
    rt = ember.result_type(ta, tb)
    if ta.dim() > 0 and tb.dim() > 0 or ta.dim() == tb.dim() == 0:
        assert rt == ember.promote_types(da, db)
    op = data.draw(st.sampled_from(["add", "mul", "lt", "eq", "maximum"]))
    if op == "add":
        r, ref = ta + tb, (np.logical_or(fa, fb) if rt == ember.bool else fa + fb)
    elif op == "mul":
        r, ref = ta * tb, fa * fb
    elif op == "lt":
        r, ref = ta < tb, fa < fb
    elif op == "eq":
        r, ref = ta == tb, fa == fb
    else:
        r, ref = ember.maximum(ta, tb), np.maximum(fa, fb)
    assert r.shape == np.broadcast_shapes(a_np.shape, b_np.shape)
    assert r.dtype == (ember.bool if op in ("lt", "eq") else rt)
    assert_close(r, ref)


# ---- errors --------------------------------------------------------------------------------

def test_shape_mismatch_names_both_sizes():
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of "
                                           r"tensor b \(4\) at non-singleton dimension 1"):
        ember.ones(2, 3) + ember.ones(2, 4)


def test_inplace_cannot_grow_or_change_kind():
    x = ember.ones(3, dtype=ember.int64)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output "
                                           "type Long"):
        x += 1.5
    with pytest.raises(RuntimeError, match="result type Float can't be cast"):
        x.mul_(ember.ones(3))
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output "
                                           "type Bool"):
        ember.ones(2, dtype=ember.bool).add_(ember.ones(2, dtype=ember.int64))
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast "
                                           r"shape \[2, 3\]"):
        x.add_(ember.ones(2, 3, dtype=ember.int64))
    assert x.tolist() == [1, 1, 1]
    f = ember.ones(2, dtype=ember.float16)
    f += ember.ones(2, dtype=ember.float64)  # float64 -> float16 is a legal cast
    assert f.dtype == ember.float16 and f.tolist() == [2, 2]


def test_out_errors():
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Int"):
        ember.div(ember.ones(2), 2, out=ember.empty(2, dtype=ember.int32))
    with pytest.raises(RuntimeError, match="out= has shape"):
        ember.add(ember.ones(2), 1, out=ember.empty(3))
    with pytest.raises(TypeError, match="argument 'out' must be Tensor"):
        ember.add(ember.ones(2), 1, out=[1, 2])
    x = ember.arange(6.0)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        ember.add(x[1:], 1, out=x[:-1])
    with pytest.raises(RuntimeError, match="single memory location"):
        ember.add(ember.ones(3), 1, out=ember.ones(1).expand(3))


def test_bool_subtraction_and_alpha_rules():
    b = ember.tensor([True, False])
    with pytest.raises(RuntimeError, match="two bool tensors is not supported"):
        b - b
    with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
        b - 1
    with pytest.raises(RuntimeError, match="alpha must not be a floating point number"):
        ember.add(ember.ones(2, dtype=ember.int32), 1, alpha=0.5)
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results"):
        ember.add(ember.ones(2), 1, alpha=True)
    with pytest.raises(RuntimeError, match=r"\"remainder_cpu\" not implemented for 'Bool'"):
        b % b


def test_unknown_operand_types_return_not_implemented():
    x = ember.ones(2)

    class Other:
        def __radd__(self, other):
            return "radd"

        def __rmul__(self, other):
            return "rmul"

    assert x + Other() == "radd" and x * Other() == "rmul"
    with pytest.raises(TypeError):
        x + object()
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError, match=r"add\(\): argument 'other' must be a Tensor or a Number"):
        ember.add(x, "a")
    with pytest.raises(TypeError, match="unexpected keyword argument 'beta'"):
        ember.add(x, 1, beta=2)
    assert x.add(1).tolist() == [2, 2]  # still usable
    assert (x == None) is False  # noqa: E711  (identity fallback, as torch)
    assert hash(x) == hash(x)


def test_huge_python_int_is_an_error():
    with pytest.raises(RuntimeError, match="Overflow"):
        ember.ones(2, dtype=ember.int64) + 2**70


def test_pow_by_zero_and_one_short_circuits_like_torch():
    b = ember.tensor([True, False])
    assert (b ** True).tolist() == [True, False] and (b ** True).dtype == ember.bool
    assert (b ** False).tolist() == [True, True]
    i = ember.tensor([3, -2, 0])
    assert ember.pow(i, 0).tolist() == [1, 1, 1] and ember.pow(i, 1).tolist() == [3, -2, 0]
    f = ember.tensor([2.0, float("nan")])
    assert ember.pow(f, 0).tolist() == [1.0, 1.0]  # nan ** 0 is 1, as in torch
    x = ember.tensor([5, 6])
    x.pow_(1)
    assert x.tolist() == [5, 6]
    assert (b ** 2).dtype == ember.int64 and (b ** 2).tolist() == [1, 0]  # int promotes bool


def test_remainder_rounds_numbers_to_half_like_torch():
    x = ember.tensor([0.35, 1.0, 2.5], dtype=ember.float16)
    got = ember.remainder(x, 0.1).float().tolist()
    h = np.float16(0.1).astype(np.float32)
    want = [float(np.float32(v) - np.floor(np.float32(v) / h) * h) for v in x.float().tolist()]
    assert np.allclose(got, np.array(want, dtype=np.float16).astype(np.float32), atol=1e-3)


def _bf16(v):
    """v rounded to bfloat16 (round to nearest even), as a Python float."""
    b = np.array([v], np.float32).view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    return float(r.view(np.float32)[0])


def test_a_number_first_is_rounded_to_the_half_dtype_where_torchs_cpu_kernel_does():
    t = ember.tensor([2.84375] * 3, dtype=ember.bfloat16)
    # torch.mul(number, t) on the CPU: the number is cast to bfloat16 first
    want = _bf16(_bf16(1e38) * 2.84375)
    assert ember.mul(1e38, t).float().tolist() == [want] * 3
    # the operator is t.__rmul__(number), mul(t, number): the number kept
    kept = _bf16(1e38 * 2.84375)
    assert (1e38 * t).float().tolist() == [kept] * 3 and ember.mul(t, 1e38).float()[0] == kept
    # number / t is t.reciprocal() * number (torch's __rtruediv__)
    x = ember.tensor([3.0, 7.0], dtype=ember.bfloat16)
    want = [_bf16(_bf16(1 / v) * 0.1) for v in (3.0, 7.0)]
    assert (0.1 / x).float().tolist() == want
    # 65536 // t in float16: 65536 is inf in float16, and inf // finite is nan (Python's)
    h = ember.tensor([-5.0, -2.5, 3.5, 0.0], dtype=ember.float16)
    r = ember.floor_divide(65536, h).float().tolist()
    assert all(math.isnan(v) for v in r[:3]) and r[3] == math.inf
    assert math.isnan(float("inf") // -5.0)


def test_sub_alpha_is_checked_negated_and_alpha_products_are_fused():
    a = ember.tensor([4, 3], dtype=ember.int8)
    b = ember.tensor([1, 2], dtype=ember.int8)
    # sub is add with -alpha: 128 fits once negated, -128 does not
    assert ember.sub(a, b, alpha=128).tolist() == [(4 - 128 + 128) % 256 - 128,
                                                   (3 - 256 + 128) % 256 - 128]
    with pytest.raises(RuntimeError, match="without overflow"):
        ember.sub(a, b, alpha=-128)
    # a + alpha * b rounded once: alpha * b may exceed float32's range on the way
    x = ember.tensor([-math.inf, 1e38])
    y = ember.tensor([-3.4e38, 3e38])
    assert ember.sub(x, y, alpha=2.25).tolist() == [-math.inf, -math.inf]
    p = ember.add(ember.tensor([1.0]), ember.tensor([3.0]), alpha=0.1).item()
    assert p == float(np.float32(np.float64(1.0) + np.float64(np.float32(0.1)) * 3.0))
    # float16 on the CPU takes alpha in float16: 1e-45 is 0 there, and 0 * -inf is nan
    h = ember.sub(ember.tensor([math.inf], dtype=ember.float16),
                  ember.tensor([-math.inf], dtype=ember.float16), alpha=1e-45)
    assert math.isnan(h.item())


def test_float16_pow_by_a_number_is_cs_pow_on_the_cpu():
    # torch's CPU float16 pow by a number is std::pow, no sqrt/reciprocal shortcuts:
    # (-inf) ** 0.5 is inf and (-0.0) ** 0.5 is 0.0 there (C's pow), while float32 takes
    # sqrt (nan, -0.0)
    x = [-math.inf, -0.0, 4.0]
    h = ember.pow(ember.tensor(x, dtype=ember.float16), 0.5).float().tolist()
    assert h == [math.pow(-math.inf, 0.5), 0.0, 2.0] and math.copysign(1, h[1]) == 1
    f = ember.pow(ember.tensor(x), 0.5).tolist()
    assert math.isnan(f[0]) and math.copysign(1, f[1]) == -1 and f[2] == 2.0
