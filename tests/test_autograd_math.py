"""Backward formulas of the math ops (issue 6) against finite differences, float64, on
the CPU and (marked gpu) on CUDA: every binary op with broadcasting and with Python
numbers on either side, their in-place forms, and the unary ops and reductions."""
import numpy as np
import pytest

import ember
from autograd_util import leaf, const, npy

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]

# Inputs away from the ops' kinks: a in [0.5, 1.5), b in [1.7, 2.6) (so a/b, a%b, ties...
# stay smooth).
BINARY = {
    "add": lambda a, b: a + b,
    "add_alpha": lambda a, b: ember.add(a, b, alpha=-2.5),
    "sub": lambda a, b: a - b,
    "sub_alpha": lambda a, b: ember.sub(a, b, alpha=3),
    "rsub": lambda a, b: 2.0 - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "rdiv": lambda a, b: 3.0 / b,
    "pow": lambda a, b: a ** b,
    "pow_scalar_exponent": lambda a, b: a ** 3,
    "pow_fractional_exponent": lambda a, b: a ** 0.5,
    "pow_scalar_base": lambda a, b: 2.0 ** b,
    "remainder": lambda a, b: ember.remainder(b, a),
    "fmod": lambda a, b: ember.fmod(b, a),
    "atan2": lambda a, b: ember.atan2(a, b),
    "hypot": lambda a, b: ember.hypot(a, b),
    "maximum": lambda a, b: ember.maximum(a, b),
    "minimum": lambda a, b: ember.minimum(a, b),
    "fmax": lambda a, b: ember.fmax(a, b),
    "fmin": lambda a, b: ember.fmin(a, b),
    "float_power": lambda a, b: ember.float_power(a, b),
    "chain": lambda a, b: (a * b + a / b - b) * a,
}


def pair(device, shapes=((2, 3), (3,))):
    a = leaf(*shapes[0], device=device, low=0.5, high=1.5)
    b = leaf(*shapes[1], device=device, low=1.7, high=2.6)
    return a, b


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_broadcasting(name, device):
    a, b = pair(device)
    assert ember.autograd.gradcheck(BINARY[name], (a, b))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["add", "mul", "div", "pow", "maximum", "atan2"])
def test_binary_0d_and_column_operands(name, device):
    a, b = pair(device, ((2, 1), ()))
    assert ember.autograd.gradcheck(BINARY[name], (a, b))


def test_maximum_splits_ties():
    a = ember.tensor([1.0, 2.0, 3.0], dtype=ember.float64, requires_grad=True)
    b = ember.tensor([1.0, 5.0, 0.0], dtype=ember.float64, requires_grad=True)
    ember.maximum(a, b).backward(ember.ones(3, dtype=ember.float64))
    np.testing.assert_allclose(npy(a.grad), [0.5, 0, 1])
    np.testing.assert_allclose(npy(b.grad), [0.5, 1, 0])


def test_pow_gradient_at_zero_is_finite():
    a = ember.tensor([0.0, 1.0], dtype=ember.float64, requires_grad=True)
    b = ember.tensor([2.0, 0.0], dtype=ember.float64, requires_grad=True)
    (a ** b).backward(ember.ones(2, dtype=ember.float64))
    np.testing.assert_allclose(npy(a.grad), [0.0, 0.0])
    np.testing.assert_allclose(npy(b.grad), [0.0, 0.0])


def test_integer_division_has_zero_gradient():
    a, b = pair("cpu")
    y = ember.floor_divide(a, b)
    y.backward(ember.ones(2, 3, dtype=ember.float64))
    np.testing.assert_allclose(npy(a.grad), np.zeros((2, 3)))


def test_comparisons_do_not_require_grad():
    a, b = pair("cpu")
    assert not (a < b).requires_grad and not ember.eq(a, b).requires_grad


def test_grad_of_mixed_dtypes_comes_back_in_each_input_dtype():
    a = ember.ones(3, dtype=ember.float32, requires_grad=True)
    b = ember.ones((), dtype=ember.float64, requires_grad=True)
    y = a * b
    assert y.dtype == ember.float32
    y.backward(ember.ones(3))
    assert a.grad.dtype == ember.float32 and b.grad.dtype == ember.float64
    assert b.grad.shape == ()
    assert float(b.grad) == 3.0


INPLACE = {
    "add_": lambda x, y: x.add_(y),
    "add_alpha_": lambda x, y: x.add_(y, alpha=2),
    "sub_": lambda x, y: x.sub_(y),
    "mul_": lambda x, y: x.mul_(y),
    "div_": lambda x, y: x.div_(y),
    "pow_": lambda x, y: x.pow_(y),
    "iadd": lambda x, y: x.__iadd__(y),
    "imul": lambda x, y: x.__imul__(y),
    "mul_scalar_": lambda x, y: x.mul_(3.0),
    "atan2_": lambda x, y: x.atan2_(y),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_binary(name, device):
    op = INPLACE[name]

    def f(a, b):
        x = a.clone()  # a non-leaf: in-place is allowed
        return op(x, b)

    a, b = pair(device)
    assert ember.autograd.gradcheck(f, (a, b))


@pytest.mark.parametrize("device", DEVICES)
def test_inplace_binary_through_a_view(device):
    def f(a, b):
        x = a.clone()
        x[0].mul_(b)
        x[:, 1:].add_(b[1:])
        return x

    a, b = pair(device)
    assert ember.autograd.gradcheck(f, (a, b))


def test_inplace_binary_on_leaf_and_out_errors():
    a, b = pair("cpu")
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in "
                                           "an in-place operation"):
        a.mul_(2)
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic "
                                           "differentiation"):
        ember.add(a, b, out=ember.empty(2, 3, dtype=ember.float64))
    with ember.no_grad():
        a.mul_(2)  # optimiser-style update
    assert a._version == 1


def test_inplace_op_saves_the_value_before_the_write():
    a, b = pair("cpu")
    x = a.clone()
    x.mul_(b)  # d x / d b is a's old value
    x.backward(ember.ones(2, 3, dtype=ember.float64))
    np.testing.assert_allclose(npy(b.grad), npy(a).sum(0))
    np.testing.assert_allclose(npy(a.grad), np.broadcast_to(npy(b), (2, 3)))


def test_modifying_an_input_saved_by_mul_is_detected():
    a, b = pair("cpu")
    x = a.clone()
    y = x * b
    x.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward(ember.ones(2, 3, dtype=ember.float64))


# ---- unary ops ---------------------------------------------------------------------------

# name -> (function, low, high): inputs drawn from [low, high), inside the op's domain.
UNARY = {
    "sqrt": (ember.sqrt, 0.5, 2.0),
    "rsqrt": (ember.rsqrt, 0.5, 2.0),
    "exp": (ember.exp, -1.0, 1.0),
    "exp2": (ember.exp2, -1.0, 1.0),
    "expm1": (ember.expm1, -1.0, 1.0),
    "log": (ember.log, 0.5, 2.0),
    "log2": (ember.log2, 0.5, 2.0),
    "log10": (ember.log10, 0.5, 2.0),
    "log1p": (ember.log1p, -0.5, 1.0),
    "sin": (ember.sin, -2.0, 2.0),
    "cos": (ember.cos, -2.0, 2.0),
    "tan": (ember.tan, -1.0, 1.0),
    "asin": (ember.asin, -0.8, 0.8),
    "acos": (ember.acos, -0.8, 0.8),
    "atan": (ember.atan, -2.0, 2.0),
    "sinh": (ember.sinh, -1.0, 1.0),
    "cosh": (ember.cosh, -1.0, 1.0),
    "tanh": (ember.tanh, -2.0, 2.0),
    "asinh": (ember.asinh, -2.0, 2.0),
    "acosh": (ember.acosh, 1.2, 3.0),
    "atanh": (ember.atanh, -0.8, 0.8),
    "sigmoid": (ember.sigmoid, -3.0, 3.0),
    "erf": (ember.erf, -2.0, 2.0),
    "erfc": (ember.erfc, -2.0, 2.0),
    "reciprocal": (ember.reciprocal, 0.5, 2.0),
    "neg": (ember.neg, -1.0, 1.0),
    "abs": (ember.abs, 0.1, 1.0),
    "abs_negative": (ember.abs, -1.0, -0.1),
    "square": (ember.square, -1.0, 1.0),
    "relu": (ember.relu, -1.0, 1.0),
    "frac": (ember.frac, 0.1, 0.9),
    "gelu": (ember.gelu, -2.0, 2.0),
    "gelu_tanh": (lambda x: ember.gelu(x, approximate="tanh"), -2.0, 2.0),
    "silu": (ember.silu, -2.0, 2.0),
    "nan_to_num": (ember.nan_to_num, -1.0, 1.0),
    "floor": (ember.floor, 0.1, 0.9),
    "sign": (ember.sign, 0.1, 0.9),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name, device):
    fn, low, high = UNARY[name]
    x = leaf(2, 3, device=device, low=low, high=high)
    if name == "relu":  # stay away from the kink
        with ember.no_grad():
            x[x.detach().abs() < 0.05] = 0.5
    assert ember.autograd.gradcheck(fn, (x,))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["exp", "sigmoid", "tanh", "relu", "sqrt", "sin", "neg"])
def test_unary_inplace(name, device):
    _, low, high = UNARY[name]

    def f(a):
        return getattr(a.clone(), name + "_")()

    assert ember.autograd.gradcheck(f, (leaf(2, 3, device=device, low=low, high=high),))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid", "log", "sin"])
def test_unary_second_derivatives(name, device):
    fn, low, high = UNARY[name]
    assert ember.autograd.gradgradcheck(fn, (leaf(4, device=device, low=low, high=high),))


def test_predicates_have_no_gradient():
    x = leaf(3)
    assert not ember.isnan(x).requires_grad and not ember.isfinite(x).requires_grad


# ---- where, clamp, lerp, addcmul, addcdiv ----------------------------------------------------

TERNARY = {
    "where": (lambda a, b: ember.where(a.detach() > 1.0, a, b), [(2, 3), (3,)]),
    "where_scalar": (lambda a, b: ember.where(a.detach() > 1.0, a, 0.0), [(2, 3), (3,)]),
    "clamp": (lambda a, b: ember.clamp(a, 0.8, 1.25), [(2, 3), (3,)]),
    "clamp_min": (lambda a, b: ember.clamp_min(a, 0.97), [(2, 3), (3,)]),
    "clamp_tensor_bounds": (lambda a, b: ember.clamp(a, min=b - 1.0, max=b - 0.6), [(2, 3), (3,)]),
    "clamp_inplace": (lambda a, b: a.clone().clamp_(max=1.15), [(2, 3), (3,)]),
    "lerp": (lambda a, b: ember.lerp(a, b, 0.3), [(2, 3), (3,)]),
    "lerp_tensor_weight": (lambda a, b: ember.lerp(a, b, a * 0.5), [(2, 3), (3,)]),
    "addcmul": (lambda a, b: ember.addcmul(a, a, b, value=0.5), [(2, 3), (3,)]),
    "addcdiv": (lambda a, b: ember.addcdiv(a, a, b, value=-2), [(2, 3), (3,)]),
    "addcmul_": (lambda a, b: a.clone().addcmul_(b, b), [(2, 3), (3,)]),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(TERNARY))
def test_ternary(name, device):
    fn, shapes = TERNARY[name]
    a, b = pair(device, shapes)
    if name.startswith("clamp"):  # keep inputs off the bounds
        with ember.no_grad():
            a.copy_(ember.tensor([[0.7, 0.95, 1.2], [1.1, 1.3, 1.5]], dtype=ember.float64))
            b.copy_(ember.tensor([1.75, 2.0, 2.4], dtype=ember.float64))
    assert ember.autograd.gradcheck(fn, (a, b))


# ---- reductions, scans, softmax ---------------------------------------------------------------

REDUCE = {
    "sum_all": lambda x: x.sum(),
    "sum_dim": lambda x: x.sum(1),
    "sum_dims_keepdim": lambda x: x.sum((0, 2), keepdim=True),
    "mean_all": lambda x: x.mean(),
    "mean_dim": lambda x: x.mean(-1),
    "mean_keepdim": lambda x: ember.mean(x, 0, keepdim=True),
    "prod_all": lambda x: x.prod(),
    "prod_dim": lambda x: x.prod(1),
    "amax": lambda x: x.amax(1),
    "amin_all": lambda x: x.amin(),
    "max_all": lambda x: x.max(),
    "max_dim_values": lambda x: x.max(1).values,
    "min_dim_keepdim": lambda x: ember.min(x, 2, keepdim=True)[0],
    "var": lambda x: x.var(1),
    "var_correction0": lambda x: x.var(correction=0),
    "std": lambda x: x.std(2),
    "norm": lambda x: x.norm(),
    "norm_p1_dim": lambda x: ember.norm(x, p=1, dim=1),
    "norm_p3": lambda x: ember.norm(x, p=3),
    "norm_inf": lambda x: ember.norm(x, p=float("inf"), dim=0),
    "logsumexp": lambda x: ember.logsumexp(x, 1),
    "cumsum": lambda x: x.cumsum(1),
    "cumprod": lambda x: x.cumprod(2),
    "softmax": lambda x: ember.softmax(x, 1),
    "softmax_last": lambda x: ember.softmax(x, -1),
    "log_softmax": lambda x: ember.log_softmax(x, 0),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(REDUCE))
def test_reductions(name, device):
    x = leaf(2, 3, 4, device=device, low=0.5, high=1.5)  # distinct values: no ties
    assert ember.autograd.gradcheck(REDUCE[name], (x,))


def test_sum_with_dtype_gives_the_input_dtype_back():
    x = ember.ones(2, 3, requires_grad=True)
    y = x.sum(1, dtype=ember.float64)
    assert y.dtype == ember.float64
    y.backward(ember.ones(2, dtype=ember.float64))
    assert x.grad.dtype == ember.float32
    np.testing.assert_allclose(npy(x.grad), np.ones((2, 3)))


@pytest.mark.parametrize("device", DEVICES)
def test_prod_gradient_with_zeros(device):
    x = ember.tensor([[2.0, 0.0, 3.0], [0.0, 0.0, 1.5]], dtype=ember.float64, device=device,
                     requires_grad=True)
    x.prod(1).backward(ember.ones(2, dtype=ember.float64, device=device))
    np.testing.assert_allclose(npy(x.grad), [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0]])
    x.grad = None
    x.prod().backward()
    np.testing.assert_allclose(npy(x.grad), np.zeros((2, 3)))


def test_amax_splits_ties_like_torch():
    x = ember.tensor([1.0, 3.0, 3.0], dtype=ember.float64, requires_grad=True)
    x.amax().backward()
    np.testing.assert_allclose(npy(x.grad), [0.0, 0.5, 0.5])
    y = ember.tensor([1.0, 3.0, 3.0], dtype=ember.float64, requires_grad=True)
    y.max(0).values.backward()  # max(dim) picks one index
    assert npy(y.grad).sum() == 1.0


@pytest.mark.parametrize("device", DEVICES)
def test_second_derivatives_of_softmax_and_sum(device):
    assert ember.autograd.gradgradcheck(lambda t: ember.softmax(t, 1),
                                        (leaf(2, 3, device=device),))
    assert ember.autograd.gradgradcheck(lambda t: (t * t).sum(), (leaf(2, 3, device=device),))


def test_argmax_and_all_have_no_gradient():
    x = leaf(2, 3)
    assert not x.argmax().requires_grad and not (x > 0).all().requires_grad


def test_broadcasting_gradient_is_summed_on_the_device():
    a = leaf(4, 1, 3)
    b = leaf(2, 1)
    (a * b).sum().backward()
    np.testing.assert_allclose(npy(a.grad), np.broadcast_to(npy(b).sum(), (4, 1, 3)))
    np.testing.assert_allclose(npy(b.grad), np.full((2, 1), npy(a).sum()))


def test_inplace_op_with_itself_as_operand():
    def f(a):
        x = a.clone()
        x.mul_(x)  # d(x^2)/dx = 2x: the operand's old value is saved too
        return x

    def g(a):
        x = a.clone()
        x[:2].mul_(x[2:])  # another view of the same memory
        return x

    assert ember.autograd.gradcheck(f, (leaf(4),))
    assert ember.autograd.gradcheck(g, (leaf(4),))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_backward_is_torchs_threshold_backward(dtype):
    # y <= 0 -> 0, else g: zero at exactly 0, and g passes where the output is NaN
    x = ember.tensor([-1.0, 0.0, 2.0, float("nan"), 3.5, -0.0], dtype=getattr(ember, dtype),
                     requires_grad=True)
    y = ember.relu(x)
    g = ember.tensor([1.5, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=getattr(ember, dtype))
    y.backward(g)
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 3.0, 4.0, 5.0, 0.0])
    # and twice differentiable in g (create_graph)
    x2 = ember.tensor([-1.0, 2.0], dtype=getattr(ember, dtype), requires_grad=True)
    g2 = ember.tensor([3.0, 4.0], dtype=getattr(ember, dtype), requires_grad=True)
    (gx,) = ember.autograd.grad(ember.relu(x2), x2, g2, create_graph=True)
    gx.sum().backward()
    np.testing.assert_array_equal(g2.grad.numpy(), [0.0, 1.0])
