"""One-operand math against NumPy on the CPU: every op of the issue for every
dtype it supports, torch's result dtypes (integers give the default float
dtype for floating functions), edge values (+-0, +-inf, NaN, domain errors),
the function/method/in-place/out= spellings, strided inputs and errors."""
import math

import numpy as np
import pytest

import ember
from math_util import ALL, FLOATS, INTS, assert_close, name, sample, to_ember, to_np

rng = np.random.default_rng(2)

erf = np.vectorize(math.erf, otypes=[np.float64])
erfc = np.vectorize(math.erfc, otypes=[np.float64])


def gelu(x):
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


# name -> (numpy reference, (low, high) of the test inputs)
FLOAT_FNS = {
    "sqrt": (np.sqrt, (0, 10)), "rsqrt": (lambda x: 1 / np.sqrt(x), (0.1, 10)),
    "exp": (np.exp, (-5, 5)), "exp2": (np.exp2, (-5, 5)), "expm1": (np.expm1, (-2, 2)),
    "log": (np.log, (0.1, 10)), "log2": (np.log2, (0.1, 10)), "log10": (np.log10, (0.1, 10)),
    "log1p": (np.log1p, (-0.5, 5)), "sin": (np.sin, (-6, 6)), "cos": (np.cos, (-6, 6)),
    "tan": (np.tan, (-1.4, 1.4)), "asin": (np.arcsin, (-1, 1)), "acos": (np.arccos, (-1, 1)),
    "atan": (np.arctan, (-5, 5)), "sinh": (np.sinh, (-3, 3)), "cosh": (np.cosh, (-3, 3)),
    "tanh": (np.tanh, (-3, 3)), "asinh": (np.arcsinh, (-5, 5)), "acosh": (np.arccosh, (1, 5)),
    "atanh": (np.arctanh, (-0.9, 0.9)), "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), (-6, 6)),
    "erf": (erf, (-3, 3)), "erfc": (erfc, (-3, 3)), "reciprocal": (lambda x: 1 / x, (0.5, 4)),
    "arcsin": (np.arcsin, (-1, 1)), "arctanh": (np.arctanh, (-0.9, 0.9)),
}


@pytest.mark.parametrize("fn", list(FLOAT_FNS))
@pytest.mark.parametrize("dtype", FLOATS, ids=name)
def test_floating_functions(fn, dtype):
    ref, (lo, hi) = FLOAT_FNS[fn]
    x = to_ember(rng.uniform(lo, hi, 64), dtype)
    xf = to_np(x).astype(np.float64)
    r = getattr(ember, fn)(x)
    assert r.dtype == dtype
    atol = {ember.float16: 2e-3, ember.bfloat16: 1e-2}.get(dtype, 1e-6)
    assert_close(r, ref(xf), rtol={ember.float32: 1e-5}.get(dtype), atol=atol)
    assert_close(getattr(x, fn)(), ref(xf), rtol={ember.float32: 1e-5}.get(dtype), atol=atol)


@pytest.mark.parametrize("fn", ["sqrt", "exp", "sin", "log1p", "sigmoid", "reciprocal", "erf"])
@pytest.mark.parametrize("dtype", INTS + [ember.bool], ids=name)
def test_floating_functions_promote_integers(fn, dtype):
    ref = FLOAT_FNS[fn][0]
    a = sample(dtype, (10,), rng, 1, 9)
    x = to_ember(a, dtype)
    r = getattr(ember, fn)(x)
    assert r.dtype == ember.float32
    with np.errstate(divide="ignore"):
        assert_close(r, ref(a.astype(np.float64)), rtol=1e-5)
    ember.set_default_dtype(ember.float64)
    try:
        assert getattr(ember, fn)(x).dtype == ember.float64
    finally:
        ember.set_default_dtype(ember.float32)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        getattr(x, fn + "_")()


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16],
                         ids=name)
def test_activations(dtype):
    x = to_ember(rng.uniform(-5, 5, 100), dtype)
    xf = to_np(x).astype(np.float64)
    tol = {ember.float16: 2e-3, ember.bfloat16: 2e-2}.get(dtype, 1e-5)
    assert_close(ember.gelu(x), gelu(xf), rtol=tol, atol=tol)
    assert_close(ember.gelu(x, approximate="tanh"), gelu_tanh(xf), rtol=tol, atol=tol)
    assert_close(ember.silu(x), xf / (1 + np.exp(-xf)), rtol=tol, atol=tol)
    assert_close(ember.relu(x), np.maximum(xf, 0), rtol=tol)
    assert_close(x.relu(), np.maximum(xf, 0), rtol=tol)
    assert_close(ember.frac(x), xf - np.trunc(xf), atol=tol)


def test_activation_dtype_rules():
    i = ember.tensor([-2, 3])
    assert ember.relu(i).tolist() == [0, 3] and ember.relu(i).dtype == ember.int64
    for fn in (ember.gelu, ember.silu, ember.frac):
        with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
            fn(i)
    with pytest.raises(ValueError, match="approximate argument must be either none or tanh"):
        ember.gelu(ember.ones(2), approximate="fast")
    with pytest.raises(RuntimeError, match="not implemented for 'Bool'"):
        ember.relu(ember.tensor([True]))


@pytest.mark.parametrize("dtype", ALL, ids=name)
def test_same_dtype_ops(dtype):
    a = sample(dtype, (30,), rng, -20, 20)
    x = to_ember(a, dtype)
    xf = to_np(x).astype(np.float64)
    if dtype != ember.bool:
        assert_close(-x, -xf) if dtype in FLOATS else assert_close(-x, -a)
        assert (-x).dtype == dtype and ember.neg(x).dtype == dtype
    assert_close(abs(x), np.abs(xf) if dtype in FLOATS else np.abs(a))
    assert_close(ember.sign(x), np.sign(xf) if dtype in FLOATS else
                 (a if dtype == ember.bool else np.sign(a)))
    assert ember.sign(x).dtype == dtype
    sq = ember.square(x)
    assert sq.dtype == (ember.int64 if dtype == ember.bool else dtype)
    if dtype in FLOATS:
        assert_close(sq, xf * xf)
    else:
        with np.errstate(over="ignore"):
            assert_close(sq, a.astype(np.int64) * a if dtype == ember.bool else a * a)


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
def test_rounding(dtype):
    a = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7, -2.7, 0.0, -0.0, math.inf, -math.inf,
                  math.nan])
    x = to_ember(a, dtype)
    xf = to_np(x).astype(np.float64)
    for fn, ref in [("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc),
                    ("round", np.round), ("fix", np.trunc)]:
        r = getattr(ember, fn)(x)
        assert r.dtype == dtype
        np.testing.assert_array_equal(to_np(r).astype(np.float64), ref(xf))
    y = to_ember(np.array([1.2345, -12.5, 1250.0, 0.125]), ember.float64)
    np.testing.assert_allclose(ember.round(y, decimals=2).numpy(), [1.23, -12.5, 1250.0, 0.12])
    np.testing.assert_allclose(y.round(decimals=-2).numpy(), [0.0, -0.0, 1200.0, 0.0])


def test_rounding_integers_is_a_copy():
    i = ember.tensor([1, -2, 3], dtype=ember.int32)
    r = ember.floor(i)
    assert r.tolist() == [1, -2, 3] and r.dtype == ember.int32
    assert r.data_ptr() != i.data_ptr()
    assert i.round_() is i
    out = ember.empty(3, dtype=ember.int32)
    assert ember.ceil(i, out=out) is out and out.tolist() == [1, -2, 3]
    with pytest.raises(RuntimeError, match="Found dtype Float but expected Int"):
        ember.ceil(i, out=ember.empty(3, dtype=ember.float32))  # torch: out keeps the dtype
    with pytest.raises(RuntimeError, match="not implemented for 'Bool'"):
        ember.floor(ember.tensor([True]))


def test_nan_to_num():
    a = np.array([math.nan, math.inf, -math.inf, 1.5, -0.0])
    np.testing.assert_array_equal(ember.nan_to_num(ember.tensor(a)).numpy(), np.nan_to_num(a))
    np.testing.assert_array_equal(
        ember.nan_to_num(ember.tensor(a), nan=2.0, posinf=10.0, neginf=-10.0).numpy(),
        np.nan_to_num(a, nan=2.0, posinf=10.0, neginf=-10.0))
    h = ember.tensor(a).half()
    assert ember.nan_to_num(h).tolist()[1:3] == [65504.0, -65504.0]
    f = ember.tensor(a, dtype=ember.float32)
    assert f.nan_to_num(0.5).tolist()[1] == np.finfo(np.float32).max
    x = f.clone()
    assert x.nan_to_num_(nan=7.0) is x and x.tolist()[0] == 7.0
    i = ember.tensor([1, 2])
    assert ember.nan_to_num(i).tolist() == [1, 2]


def test_predicates():
    a = np.array([math.nan, math.inf, -math.inf, 0.0, -1.5])
    x = ember.tensor(a)
    for fn, ref in [("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite)]:
        r = getattr(ember, fn)(x)
        assert r.dtype == ember.bool
        np.testing.assert_array_equal(r.numpy(), ref(a))
        np.testing.assert_array_equal(getattr(x.half(), fn)().numpy(), ref(a))
    i = ember.tensor([1, 0])
    assert ember.isnan(i).tolist() == [False, False] and ember.isfinite(i).tolist() == [True, True]
    assert ember.isinf(i).tolist() == [False, False]
    assert ember.logical_not(x).tolist() == [False, False, False, True, False]
    assert ember.logical_not(i).tolist() == [False, True]
    y = ember.tensor([0.0, 2.0])
    assert y.logical_not_() is y and y.tolist() == [1.0, 0.0]


def test_edge_values_of_functions():
    a = np.array([0.0, -0.0, math.inf, -math.inf, math.nan, -1.0])
    x = ember.tensor(a)
    with np.errstate(all="ignore"):
        for fn, ref in [("sqrt", np.sqrt), ("log", np.log), ("exp", np.exp),
                        ("reciprocal", lambda v: 1 / v), ("tanh", np.tanh), ("sin", np.sin)]:
            np.testing.assert_array_equal(getattr(ember, fn)(x).numpy(), ref(a))
    assert math.copysign(1, ember.sqrt(ember.tensor([-0.0])).item()) == -1
    assert ember.sign(ember.tensor([math.nan])).item() == 0.0  # torch's sign(NaN)
    assert math.isnan(ember.relu(ember.tensor([math.nan])).item())
    assert ember.abs(ember.tensor([-2**63])).item() == -2**63  # wraps, as torch and numpy


def test_spellings_out_and_inplace():
    a = rng.uniform(0.5, 2, (3, 4))
    x = ember.tensor(a)
    out = ember.empty(3, 4, dtype=ember.float64)
    assert ember.exp(x, out=out) is out
    np.testing.assert_allclose(out.numpy(), np.exp(a))
    y = x.clone()
    assert y.log_() is y
    np.testing.assert_allclose(y.numpy(), np.log(a))
    z = x.clone()
    assert z.neg_() is z and z.abs_() is z and z.sqrt_() is z
    np.testing.assert_allclose(z.numpy(), np.sqrt(a))
    np.testing.assert_allclose((-x).numpy(), -a)
    np.testing.assert_allclose(abs(-x).numpy(), a)
    assert (+x) is x
    with pytest.raises(RuntimeError, match="on a bool tensor is not supported"):
        -ember.tensor([True])
    with pytest.raises(RuntimeError, match=r"`\+` operator, on a bool tensor"):
        +ember.tensor([True])
    f32 = ember.empty(3, 4, dtype=ember.float32)
    ember.sin(x, out=f32)  # float64 -> float32 out is a legal cast
    np.testing.assert_allclose(f32.numpy(), np.sin(a), rtol=1e-6)
    with pytest.raises(RuntimeError, match="result type Double can't be cast to the desired "
                                           "output type Long"):
        ember.sin(x, out=ember.empty(3, 4, dtype=ember.int64))


def test_strided_inputs_and_big_tensors():
    a = rng.uniform(-3, 3, (300, 500))
    x = ember.tensor(a)
    np.testing.assert_allclose(ember.sin(x.t()).numpy(), np.sin(a.T))
    np.testing.assert_allclose(ember.exp(x[::3, 1::2]).numpy(), np.exp(a[::3, 1::2]))
    big = rng.uniform(-3, 3, 1 << 20).astype(np.float32)
    np.testing.assert_allclose(ember.tanh(ember.from_numpy(big)).numpy(), np.tanh(big),
                               rtol=1e-5, atol=1e-6)
    e = ember.empty(0, 3)
    assert ember.sin(e).shape == (0, 3) and ember.sin(ember.tensor(0.5)).shape == ()


def test_unary_argument_errors():
    with pytest.raises(TypeError, match="expected an ember.Tensor as 'input'"):
        ember.sin([1.0])
    with pytest.raises(TypeError, match="unexpected keyword argument 'dim'"):
        ember.exp(ember.ones(2), dim=0)
    with pytest.raises(TypeError, match="takes at most 1 positional argument"):
        ember.exp(ember.ones(2), ember.ones(2))
