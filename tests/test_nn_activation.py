"""torch.nn's activations (modules and functional forms, in-place ones too) on the CPU
against float64 NumPy references: values, gradients (gradcheck in float64), the fused
ops' reduced-precision rounding, integer inputs, non-contiguous/empty/0-d inputs,
torch's error messages and reprs (the strings checked against torch 2.11). The GPU
tests at the end compare with torch on CUDA."""
import math

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(1801)
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(x * beta > threshold, x, np.log1p(np.exp(np.minimum(x * beta, threshold))) / beta)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


# name -> (ember call, float64 NumPy reference)
REFS = {
    "hardswish": (F.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "hardsigmoid": (F.hardsigmoid, lambda x: np.clip(x + 3, 0, 6) / 6),
    "elu": (F.elu, lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))),
    "elu_alpha": (lambda x: F.elu(x, 0.7), lambda x: np.where(x > 0, x, 0.7 * np.expm1(np.minimum(x, 0)))),
    "selu": (F.selu, lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(np.minimum(x, 0)))),
    "celu": (lambda x: F.celu(x, 1.5),
             lambda x: np.maximum(x, 0) + np.minimum(0, 1.5 * np.expm1(np.minimum(x, 0) / 1.5))),
    "softplus": (F.softplus, _softplus),
    "softplus_beta": (lambda x: F.softplus(x, beta=2.0, threshold=3.0), lambda x: _softplus(x, 2.0, 3.0)),
    "mish": (F.mish, lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    "leaky_relu": (F.leaky_relu, lambda x: np.where(x > 0, x, 0.01 * x)),
    "leaky_relu_02": (lambda x: F.leaky_relu(x, 0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    "hardtanh": (F.hardtanh, lambda x: np.clip(x, -1, 1)),
    "hardtanh_args": (lambda x: F.hardtanh(x, -0.5, 2.0), lambda x: np.clip(x, -0.5, 2.0)),
    "relu6": (F.relu6, lambda x: np.clip(x, 0, 6)),
    "softshrink": (F.softshrink, lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0))),
    "hardshrink": (lambda x: F.hardshrink(x, 0.3), lambda x: np.where(np.abs(x) > 0.3, x, 0)),
    "logsigmoid": (F.logsigmoid, lambda x: -np.logaddexp(0, -x)),
    "threshold": (lambda x: F.threshold(x, 0.25, -2.0), lambda x: np.where(x > 0.25, x, -2.0)),
    "softsign": (F.softsign, lambda x: x / (1 + np.abs(x))),
    "tanhshrink": (F.tanhshrink, lambda x: x - np.tanh(x)),
    "silu": (F.silu, lambda x: x * _sigmoid(x)),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"),
                  lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    "rrelu_eval": (lambda x: F.rrelu(x, 0.1, 0.3), lambda x: np.where(x >= 0, x, 0.2 * x)),
}
FUSED = ["hardswish", "hardsigmoid", "elu", "selu", "celu", "softplus", "mish", "leaky_relu",
         "hardtanh", "relu6", "softshrink", "hardshrink", "logsigmoid", "threshold"]


def data(*shape, scale=4.0):
    x = RNG.uniform(-scale, scale, size=shape)
    flat = x.reshape(-1)
    # the kinks and thresholds of the functions above, where they exist
    special = [-3.0, 3.0, 0.0, -0.5, 0.5, 0.25, -1.0, 1.0, 6.0, 20.0, 25.0, -30.0]
    flat[:min(len(special), flat.size)] = special[:flat.size]
    return x


@pytest.mark.parametrize("name", sorted(REFS))
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_values_against_numpy(name, dtype):
    fn, ref = REFS[name]
    x = data(7, 33)
    got = fn(ember.tensor(x, dtype=dtype))
    assert got.dtype == dtype and tuple(got.shape) == (7, 33)
    tol = 1e-6 if dtype == ember.float32 else 1e-12
    np.testing.assert_allclose(got.numpy(), ref(x), rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(REFS))
def test_gradcheck_float64(name):
    fn, _ = REFS[name]
    # away from the kinks, where the derivative is one-sided
    x = RNG.uniform(-4, 4, size=(3, 5))
    for k in (-3.0, 3.0, 0.0, 0.5, -0.5, 0.25, 0.3, -0.3, 1.0, -1.0, 6.0, 2.0):
        x[np.abs(x - k) < 1e-3] += 3e-3
    xt = ember.tensor(x, dtype=ember.float64, requires_grad=True)
    assert gradcheck(fn, (xt,))


# torch's one-sided choices at the kinks: (function, points, derivative there)
KINKS = [
    (F.hardswish, [-3.0, 3.0], [0.0, 1.0]),
    (F.hardsigmoid, [-3.0, 3.0], [0.0, 0.0]),
    (lambda t: F.hardtanh(t, -1.0, 2.0), [-1.0, 2.0], [0.0, 0.0]),
    (F.relu6, [0.0, 6.0], [0.0, 0.0]),
    (lambda t: F.leaky_relu(t, 0.2), [0.0], [0.2]),
    (lambda t: F.elu(t, 0.7), [0.0], [0.7]),
    (F.softshrink, [-0.5, 0.5], [0.0, 0.0]),
    (F.hardshrink, [-0.5, 0.5], [0.0, 0.0]),
    (lambda t: F.threshold(t, 0.25, 3.0), [0.25], [0.0]),
    (lambda t: F.softplus(t, 2.0, 3.0), [1.5], [1 / (1 + math.exp(-3.0))]),
]


@pytest.mark.parametrize("fn,points,want", KINKS)
@pytest.mark.parametrize("create_graph", [False, True])
def test_derivative_at_the_kinks_is_torchs(fn, points, want, create_graph):
    x = ember.tensor(points, dtype=ember.float64, requires_grad=True)
    (g,) = ember.autograd.grad(fn(x).sum(), x, create_graph=create_graph)
    np.testing.assert_allclose(g.detach().numpy(), want, rtol=1e-15)


@pytest.mark.parametrize("name", FUSED)
def test_fused_ops_are_one_node(name):
    x = ember.randn(4, 5, requires_grad=True)
    y = REFS[name][0](x)
    assert y.grad_fn is not None
    nxt = [f for f, _ in y.grad_fn.next_functions if f is not None]
    assert len(nxt) == 1 and nxt[0].name() == "AccumulateGrad"  # no composed kernels


@pytest.mark.parametrize("name", FUSED)
@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16])
def test_reduced_precision_rounds_once(name, dtype):
    """float16/bfloat16 compute in float32 and round once (torch's opmath)."""
    fn, _ = REFS[name]
    x = ember.tensor(data(5, 17, scale=3.0), dtype=dtype)
    got = fn(x)
    assert got.dtype == dtype
    want = fn(x.float()).to(dtype)
    np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
    g = ember.tensor(RNG.uniform(-1, 1, size=(5, 17)), dtype=dtype)
    xr = x.clone().requires_grad_(True)
    fn(xr).backward(g)
    xf = x.float().requires_grad_(True)
    fn(xf).backward(g.float())
    np.testing.assert_array_equal(xr.grad.float().numpy(), xf.grad.to(dtype).float().numpy())


def test_nan_propagation_is_torchs():
    x = ember.tensor([float("nan"), -4.0, -0.5, 0.0, 0.5, 4.0])
    for fn in (F.hardswish, F.hardsigmoid, F.softshrink, F.hardshrink, F.logsigmoid, F.mish,
               F.softplus, F.elu, F.selu, F.leaky_relu, F.hardtanh, F.relu6):
        assert math.isnan(fn(x)[0].item()), fn.__name__
    assert math.isnan(F.threshold(x, 0.0, -1.0)[0].item())
    # softshrink keeps the sign of a zero result: -0.5 -> -0.0 (torch's x * 0)
    assert math.copysign(1.0, F.softshrink(x)[2].item()) == -1.0


@pytest.mark.parametrize("name,inplace_fn", [
    ("hardswish", lambda x: F.hardswish(x, inplace=True)),
    ("hardsigmoid", lambda x: F.hardsigmoid(x, True)),
    ("elu", F.elu_),
    ("selu", F.selu_),
    ("celu", lambda x: F.celu_(x, 1.5)),
    ("mish", lambda x: F.mish(x, inplace=True)),
    ("leaky_relu", F.leaky_relu_),
    ("leaky_relu_02", lambda x: F.leaky_relu_(x, 0.2)),
    ("hardtanh", F.hardtanh_),
    ("relu6", lambda x: F.relu6(x, inplace=True)),
    ("threshold", lambda x: F.threshold_(x, 0.25, -2.0)),
    ("rrelu_eval", lambda x: F.rrelu_(x, 0.1, 0.3)),
])
def test_inplace_forms(name, inplace_fn):
    fn, ref = REFS[name]
    x = RNG.uniform(-4, 4, size=(6, 7))
    for k in (-3.0, 3.0, 0.0, 0.25, 1.0, -1.0, 6.0):
        x[np.abs(x - k) < 1e-3] += 3e-3
    leaf = ember.tensor(x, dtype=ember.float64, requires_grad=True)
    y = leaf * 1.0
    version = y._version
    out = inplace_fn(y)
    assert out is y and y._version > version
    np.testing.assert_allclose(y.detach().numpy(), ref(x), rtol=1e-12, atol=1e-12)
    g = RNG.uniform(-1, 1, size=x.shape)
    y.backward(ember.tensor(g))
    leaf2 = ember.tensor(x, dtype=ember.float64, requires_grad=True)
    fn(leaf2).backward(ember.tensor(g))
    np.testing.assert_allclose(leaf.grad.numpy(), leaf2.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_inplace_on_leaf_requiring_grad_raises():
    x = ember.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        F.hardswish(x, inplace=True)
    assert F.hardswish(x.detach() + 1).shape == (3,)  # still usable


def test_noncontiguous_empty_and_0d():
    base = ember.tensor(data(6, 8))
    x = base.t()[::2]
    assert not x.is_contiguous()
    for name in FUSED:
        fn, ref = REFS[name]
        np.testing.assert_allclose(fn(x).numpy(), ref(x.numpy().astype(np.float64)),
                                   rtol=1e-6, atol=1e-6)
        e = fn(ember.empty(0, 3))
        assert tuple(e.shape) == (0, 3)
        s = fn(ember.tensor(-0.75))
        assert s.dim() == 0
        np.testing.assert_allclose(s.item(), ref(np.float64(-0.75)), rtol=1e-6, atol=1e-7)


def test_integer_inputs():
    i = ember.tensor([-3, 1, 8])
    assert F.hardtanh(i, -1.5, 2.5).tolist() == [-1, 1, 2]
    assert F.relu6(i).tolist() == [0, 1, 6]
    assert F.threshold(i, 0.5, 2.5).tolist() == [2, 1, 8]
    assert F.relu6(i).dtype == ember.int64
    j = ember.tensor([-3, 1, 8])
    assert F.hardtanh_(j, -1.5, 2.5) is j and j.tolist() == [-1, 1, 2]
    assert F.relu6(ember.tensor([-3, 1, 8]), inplace=True).tolist() == [0, 1, 6]
    assert F.threshold_(ember.tensor([-3, 1, 8]), 0.5, 2).tolist() == [2, 1, 8]
    u = ember.tensor([253, 1, 8], dtype=ember.uint8)
    assert F.hardtanh(u, 0.5, 2.5).tolist() == [2, 1, 2]
    assert F.hardtanh(u, 0.0, 9.0).dtype == ember.uint8
    with pytest.raises(RuntimeError, match="unsigned type with negative limits"):
        F.hardtanh(u)  # torch's: the default min_val is -1
    for fn, name in ((F.leaky_relu, "leaky_relu"), (F.elu, "elu"), (F.hardswish, "hardswish"),
                     (F.hardshrink, "hardshrink"), (F.mish, "mish")):
        with pytest.raises(NotImplementedError, match=f'"{name}_cpu" not implemented for \'Long\''):
            fn(i)


def test_error_messages():
    x = ember.randn(4)
    with pytest.raises(RuntimeError, match=r"lambda must be in range \[0, 3.40282e\+38\] for "
                                           r"input dtype Float, but found -1"):
        F.softshrink(x, -1.0)
    with pytest.raises(RuntimeError, match=r"lambda must be in range \[0, 1.79769e\+308\] for "
                                           r"input dtype Double, but found -1"):
        F.softshrink(x.double(), -1.0)
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 0 is "
                                           "size 3"):
        F.glu(ember.randn(3))
    with pytest.raises(RuntimeError, match="glu does not support scalars"):
        F.glu(ember.tensor(1.0))
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(x, 2.0, 1.0)
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got 1D"):
        nn.Softmax2d()(x)
    with pytest.raises(RuntimeError, match="ZeroDivisionError: alpha cannot be 0 for CELU"):
        F.celu(x, 0.0)
    with pytest.raises(ValueError, match="approximate argument must be either none or tanh"):
        F.gelu(x, approximate="fast")
    assert F.hardswish(x).shape == (4,)


@pytest.mark.parametrize("name", FUSED)
def test_gradgradcheck_float64(name):
    """create_graph=True through a fused activation: its backward is then torch's formula
    from differentiable ops, so second derivatives are right (e.g. a gradient penalty
    through leaky_relu)."""
    fn, _ = REFS[name]
    x = RNG.uniform(-4, 4, size=(3, 4))
    for k in (-3.0, 3.0, 0.0, 0.5, -0.5, 0.25, 0.3, -0.3, 1.0, -1.0, 6.0, 2.0):
        x[np.abs(x - k) < 1e-3] += 3e-3
    xt = ember.tensor(x, requires_grad=True)
    assert gradgradcheck(fn, (xt,))


@pytest.mark.parametrize("inplace_fn", [F.elu_, F.selu_, lambda t: F.leaky_relu_(t, 0.2),
                                        F.hardtanh_, lambda t: F.hardswish(t, inplace=True)])
def test_double_backward_through_inplace_forms(inplace_fn):
    x = ember.tensor(RNG.uniform(-2, 2, size=(5,)), requires_grad=True)
    assert gradgradcheck(lambda t: inplace_fn(t * 1.0), (x,))


def test_gradient_penalty_through_leaky_relu():
    """d/dw of ||d out / d x||^2 with out = sum(leaky_relu(x w)): NumPy's closed form."""
    x_np = RNG.uniform(-1, 1, size=(4, 3))
    w_np = RNG.uniform(-1, 1, size=(3, 2))
    x = ember.tensor(x_np, requires_grad=True)
    w = ember.tensor(w_np, requires_grad=True)
    out = F.leaky_relu(x @ w, 0.2).sum()
    (gx,) = ember.autograd.grad(out, x, create_graph=True)
    (gx * gx).sum().backward()
    slope = np.where(x_np @ w_np > 0, 1.0, 0.2)  # (4, 2)
    # gx = slope @ w.T; d/dw sum(gx^2) = 2 * slope.T-weighted: sum_n slope[n, :] * gx[n, i]
    gx_np = slope @ w_np.T
    want = 2 * gx_np.T @ slope
    np.testing.assert_allclose(w.grad.numpy(), want, rtol=1e-12)


def test_glu_softmin_softmax2d_prelu():
    x = data(4, 6, 3)
    got = F.glu(ember.tensor(x), dim=1).numpy()
    np.testing.assert_allclose(got, x[:, :3] * _sigmoid(x[:, 3:]), rtol=1e-6, atol=1e-6)
    e = np.exp(-x - (-x).max(axis=1, keepdims=True))
    np.testing.assert_allclose(F.softmin(ember.tensor(x), 1).numpy(), e / e.sum(1, keepdims=True),
                               rtol=1e-6, atol=1e-7)
    s = nn.Softmax2d()(ember.tensor(x[None]))
    e = np.exp(x - x.max(axis=0, keepdims=True))
    np.testing.assert_allclose(s.numpy()[0], e / e.sum(0, keepdims=True), rtol=1e-6, atol=1e-7)
    m = nn.PReLU(6, init=0.3)
    np.testing.assert_allclose(m(ember.tensor(x)).detach().numpy(), np.where(x > 0, x, 0.3 * x),
                               rtol=1e-6, atol=1e-7)
    assert list(m.state_dict()) == ["weight"]
    w = ember.tensor(RNG.uniform(0, 1, size=6), dtype=ember.float64, requires_grad=True)
    xt = ember.tensor(x[:2, :, :2], dtype=ember.float64, requires_grad=True)
    assert gradcheck(F.prelu, (xt, w))
    assert gradcheck(lambda a: F.glu(a, 0), (ember.tensor(x[:, :2, 0], dtype=ember.float64,
                                                           requires_grad=True),))


def test_rrelu_training_reproducible_and_bounded():
    x = -ember.rand(1000) - 0.1
    ember.manual_seed(5)
    a = F.rrelu(x, 0.1, 0.3, training=True)
    ember.manual_seed(5)
    b = F.rrelu(x, 0.1, 0.3, training=True)
    assert ember.equal(a, b)
    slopes = (a / x).numpy()
    assert slopes.min() >= 0.1 - 1e-6 and slopes.max() <= 0.3 + 1e-6
    assert slopes.std() > 0.03  # random, not one value
    pos = ember.rand(10)
    assert ember.equal(F.rrelu(pos, training=True), pos)
    m = nn.RReLU(0.1, 0.3)
    m.eval()
    np.testing.assert_allclose(m(x).numpy(), 0.2 * x.numpy(), rtol=1e-6)
    # gradient is the slope drawn
    xg = x.clone().requires_grad_(True)
    ember.manual_seed(9)
    y = F.rrelu(xg, 0.1, 0.3, training=True)
    y.sum().backward()
    np.testing.assert_allclose(xg.grad.numpy(), (y / x).detach().numpy(), rtol=1e-5)


def test_gumbel_softmax():
    logits = ember.randn(8, 5)
    ember.manual_seed(3)
    y = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(y.sum(-1).numpy(), np.ones(8), rtol=1e-5)
    h = F.gumbel_softmax(logits, hard=True)
    assert set(np.unique(h.numpy())) <= {0.0, 1.0} and ember.equal(h.sum(-1), ember.ones(8))


# Strings printed by torch 2.11 for the same modules.
REPRS = [
    (lambda: nn.SiLU(True), "SiLU(inplace=True)"),
    (lambda: nn.Mish(True), "Mish(inplace=True)"),
    (lambda: nn.Mish(), "Mish()"),
    (lambda: nn.Hardswish(True), "Hardswish()"),
    (lambda: nn.Hardsigmoid(True), "Hardsigmoid()"),
    (lambda: nn.SELU(True), "SELU(inplace=True)"),
    (lambda: nn.CELU(2.0, True), "CELU(alpha=2.0, inplace=True)"),
    (lambda: nn.CELU(), "CELU(alpha=1.0)"),
    (lambda: nn.ELU(), "ELU(alpha=1.0)"),
    (lambda: nn.ELU(inplace=True), "ELU(alpha=1.0, inplace=True)"),
    (lambda: nn.LeakyReLU(0.2, True), "LeakyReLU(negative_slope=0.2, inplace=True)"),
    (lambda: nn.LeakyReLU(), "LeakyReLU(negative_slope=0.01)"),
    (lambda: nn.Threshold(1, 2, True), "Threshold(threshold=1, value=2, inplace=True)"),
    (lambda: nn.Threshold(0.1, 20), "Threshold(threshold=0.1, value=20)"),
    (lambda: nn.RReLU(0.1, 0.3, True), "RReLU(lower=0.1, upper=0.3, inplace=True)"),
    (lambda: nn.RReLU(), "RReLU(lower=0.125, upper=0.3333333333333333)"),
    (lambda: nn.ReLU(True), "ReLU(inplace=True)"),
    (lambda: nn.ReLU6(), "ReLU6()"),
    (lambda: nn.ReLU6(True), "ReLU6(inplace=True)"),
    (lambda: nn.Hardtanh(-1, 1), "Hardtanh(min_val=-1, max_val=1)"),
    (lambda: nn.Hardtanh(), "Hardtanh(min_val=-1.0, max_val=1.0)"),
    (lambda: nn.Hardtanh(-2, 3, True), "Hardtanh(min_val=-2, max_val=3, inplace=True)"),
    (lambda: nn.Softshrink(1), "Softshrink(1)"),
    (lambda: nn.Softshrink(), "Softshrink(0.5)"),
    (lambda: nn.Hardshrink(), "Hardshrink(0.5)"),
    (lambda: nn.PReLU(3, 0.1), "PReLU(num_parameters=3)"),
    (lambda: nn.Softplus(2, 10), "Softplus(beta=2, threshold=10)"),
    (lambda: nn.Softplus(), "Softplus(beta=1.0, threshold=20.0)"),
    (lambda: nn.GLU(1), "GLU(dim=1)"),
    (lambda: nn.GLU(), "GLU(dim=-1)"),
    (lambda: nn.Softmin(1), "Softmin(dim=1)"),
    (lambda: nn.Softmax2d(), "Softmax2d()"),
    (lambda: nn.LogSoftmax(1), "LogSoftmax(dim=1)"),
    (lambda: nn.Softmax(), "Softmax(dim=None)"),
    (lambda: nn.GELU("tanh"), "GELU(approximate='tanh')"),
    (lambda: nn.Softsign(), "Softsign()"),
    (lambda: nn.Tanhshrink(), "Tanhshrink()"),
    (lambda: nn.LogSigmoid(), "LogSigmoid()"),
    (lambda: nn.Sigmoid(), "Sigmoid()"),
]


@pytest.mark.parametrize("make,want", REPRS, ids=[w for _, w in REPRS])
def test_module_reprs_are_torchs(make, want):
    m = make()
    assert repr(m) == want
    assert isinstance(m, nn.Module)


@pytest.mark.parametrize("cls,fn", [
    (nn.Hardswish, F.hardswish), (nn.Hardsigmoid, F.hardsigmoid), (nn.Mish, F.mish),
    (nn.ELU, F.elu), (nn.CELU, F.celu), (nn.SELU, F.selu), (nn.LeakyReLU, F.leaky_relu),
    (nn.Softplus, F.softplus), (nn.Softshrink, F.softshrink), (nn.Hardshrink, F.hardshrink),
    (nn.Hardtanh, F.hardtanh), (nn.ReLU6, F.relu6), (nn.LogSigmoid, F.logsigmoid),
    (nn.Softsign, F.softsign), (nn.Tanhshrink, F.tanhshrink), (nn.GLU, F.glu),
])
def test_modules_match_functional(cls, fn):
    x = ember.tensor(data(3, 8))
    assert ember.equal(cls()(x), fn(x))
    if "inplace" in cls.__init__.__code__.co_varnames:
        y = x.clone()
        out = cls(inplace=True)(y)
        assert ember.equal(out, fn(x))
        if cls not in (nn.Hardswish, nn.Hardsigmoid, nn.Mish) or True:
            assert ember.equal(y, fn(x))  # written in place


def test_hardtanh_deprecated_names():
    with pytest.warns(FutureWarning, match="min_value` is deprecated"):
        m = nn.Hardtanh(min_value=-2.0)
    assert m.min_val == -2.0


# ---- GPU: against torch on CUDA ----------------------------------------------------------

GPU_FUNCS = ["hardswish", "hardsigmoid", "elu", "selu", "celu", "softplus", "mish",
             "leaky_relu", "hardtanh", "relu6", "softshrink", "hardshrink", "logsigmoid",
             "threshold", "glu", "softsign", "tanhshrink", "softmin"]


def _call(mod, name, x):
    if name == "celu":
        return mod.celu(x, 1.5)
    if name == "threshold":
        return mod.threshold(x, 0.25, -2.0)
    if name == "softmin":
        return mod.softmin(x, 1)
    if name == "glu":
        return mod.glu(x, -1)
    return getattr(mod, name)(x)


@pytest.mark.gpu
@pytest.mark.parametrize("name", GPU_FUNCS)
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
def test_gpu_against_torch(torch, name, dtype):
    tF = torch.nn.functional
    x = data(64, 130, scale=5.0).astype(np.float32)
    ex = ember.tensor(x, device="cuda").to(getattr(ember, dtype)).requires_grad_(True)
    tx = torch.tensor(x, device="cuda").to(getattr(torch, dtype)).requires_grad_(True)
    ey, ty = _call(F, name, ex), _call(tF, name, tx)
    g = RNG.uniform(-1, 1, size=tuple(ty.shape)).astype(np.float32)
    ey.backward(ember.tensor(g, device="cuda").to(ey.dtype))
    ty.backward(torch.tensor(g, device="cuda").to(ty.dtype))
    tol = {"float32": 1e-6, "float64": 1e-12, "float16": 1e-3, "bfloat16": 8e-3}[dtype]
    if dtype == "float64" and name in ("hardswish", "hardsigmoid"):
        tol = 3e-7  # ember's kernels use torch's CPU float32 1/6; its CUDA ones differ by an ulp
    if dtype in ("float16", "bfloat16") and name == "glu":
        tol *= 4  # a composition rounding its intermediates (torch's kernel computes in float)
    np.testing.assert_allclose(ey.detach().float().cpu().numpy(), ty.detach().float().cpu().numpy(),
                               rtol=tol, atol=tol)
    np.testing.assert_allclose(ex.grad.float().cpu().numpy(), tx.grad.float().cpu().numpy(),
                               rtol=tol, atol=tol)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["hardswish", "elu", "selu", "leaky_relu", "hardtanh", "mish",
                                  "hardsigmoid", "threshold"])
def test_gpu_inplace_and_noncontiguous(torch, name):
    tF = torch.nn.functional
    x = data(40, 70).astype(np.float32)
    ex = ember.tensor(x, device="cuda").t()
    tx = torch.tensor(x, device="cuda").t()
    np.testing.assert_allclose(_call(F, name, ex).cpu().numpy(), _call(tF, name, tx).cpu().numpy(),
                               rtol=1e-6, atol=1e-6)
    kw = {"threshold": (0.25, -2.0)}.get(name)
    ea = ember.tensor(x, device="cuda", requires_grad=True)
    ta = torch.tensor(x, device="cuda", requires_grad=True)
    eb, tb = ea * 1, ta * 1
    if kw:
        F.threshold_(eb, *kw)
        tF.threshold_(tb, *kw)
    else:
        getattr(F, name)(eb, inplace=True)
        getattr(tF, name)(tb, inplace=True)
    eb.sum().backward()
    tb.sum().backward()
    np.testing.assert_allclose(eb.detach().cpu().numpy(), tb.detach().cpu().numpy(), rtol=1e-6,
                               atol=1e-6)
    np.testing.assert_allclose(ea.grad.cpu().numpy(), ta.grad.cpu().numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.gpu
def test_gpu_softplus_autocasts_to_float32(torch):
    x = ember.randn(8, 8, device="cuda", dtype=ember.float16)
    with ember.autocast("cuda"):
        y = F.softplus(x)
        z = F.hardswish(x)
    assert y.dtype == ember.float32 and z.dtype == ember.float16
    tx = torch.tensor(x.cpu().float().numpy(), device="cuda").half()
    with torch.autocast("cuda"):
        ty = torch.nn.functional.softplus(tx)
    assert str(ty.dtype).endswith("float32")


@pytest.mark.gpu
def test_gpu_rrelu_reproducible():
    x = -ember.rand(4096, device="cuda") - 0.1
    ember.manual_seed(11)
    a = F.rrelu(x, training=True)
    ember.manual_seed(11)
    b = F.rrelu(x, training=True)
    assert ember.equal(a, b)
    s = (a / x).cpu().numpy()
    assert s.min() >= 0.125 - 1e-6 and s.max() <= 1 / 3 + 1e-6
