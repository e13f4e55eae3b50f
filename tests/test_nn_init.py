"""ember.nn.init against torch's definitions: the calculate_gain table, kaiming/xavier
bounds and standard deviations in both fan modes, trunc_normal_, orthogonal_, sparse_,
dirac_, eye_, the deprecated aliases, reproducibility with manual_seed, errors. The
distributions are checked by their statistics on large tensors (bounds exactly)."""
import math

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.nn import init


@pytest.mark.parametrize("name,param,want", [
    ("linear", None, 1), ("conv1d", None, 1), ("conv2d", None, 1), ("conv3d", None, 1),
    ("conv_transpose1d", None, 1), ("conv_transpose2d", None, 1), ("conv_transpose3d", None, 1),
    ("sigmoid", None, 1), ("tanh", None, 5.0 / 3), ("relu", None, math.sqrt(2.0)),
    ("leaky_relu", None, math.sqrt(2.0 / (1 + 0.01 ** 2))),
    ("leaky_relu", 0.2, math.sqrt(2.0 / (1 + 0.2 ** 2))), ("leaky_relu", 3, math.sqrt(2.0 / 10)),
    ("selu", None, 0.75)])
def test_calculate_gain_table(name, param, want):
    assert init.calculate_gain(name, param) == pytest.approx(want, rel=1e-15)


def test_calculate_gain_errors():
    with pytest.raises(ValueError, match="Unsupported nonlinearity gelu"):
        init.calculate_gain("gelu")
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)


@pytest.mark.parametrize("mode", ["fan_in", "fan_out"])
@pytest.mark.parametrize("nonlinearity,a", [("relu", 0), ("leaky_relu", 0.1), ("tanh", 0)])
def test_kaiming(mode, nonlinearity, a):
    w = ember.empty(400, 300, 2, 2)
    fan = 300 * 4 if mode == "fan_in" else 400 * 4
    gain = init.calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    init.kaiming_uniform_(w, a=a, mode=mode, nonlinearity=nonlinearity)
    bound = math.sqrt(3.0) * std
    v = w.numpy()
    assert v.max() <= bound and v.min() >= -bound and v.max() > 0.99 * bound
    init.kaiming_normal_(w, a=a, mode=mode, nonlinearity=nonlinearity)
    assert abs(w.numpy().std() / std - 1) < 0.01


def test_xavier_and_errors():
    w = ember.empty(500, 700)
    init.xavier_uniform_(w, gain=2.0)
    bound = 2.0 * math.sqrt(6.0 / 1200)
    assert w.numpy().max() <= bound and w.numpy().max() > 0.99 * bound
    init.xavier_normal_(w)
    assert abs(w.numpy().std() / math.sqrt(2.0 / 1200) - 1) < 0.01
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed for tensor with "
                                         "fewer than 2 dimensions"):
        init.xavier_uniform_(ember.empty(5))
    with pytest.raises(ValueError, match=r"Mode fan_avg not supported, please use one of "
                                         r"\['fan_in', 'fan_out'\]"):
        init.kaiming_uniform_(w, mode="fan_avg")
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(ember.empty(0, 3))


def test_trunc_normal():
    w = ember.empty(200000)
    init.trunc_normal_(w, mean=0.5, std=2.0, a=-1.0, b=3.0)
    v = w.numpy().astype(np.float64)
    assert v.min() >= -1.0 and v.max() <= 3.0
    # moments of the normal(0.5, 2) truncated to [-1, 3]
    alpha, beta = (-1 - 0.5) / 2, (3 - 0.5) / 2
    pdf = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2)))  # noqa: E731
    z = cdf(beta) - cdf(alpha)
    mean = 0.5 + 2 * (pdf(alpha) - pdf(beta)) / z
    var = 4 * (1 + (alpha * pdf(alpha) - beta * pdf(beta)) / z - ((pdf(alpha) - pdf(beta)) / z) ** 2)
    assert abs(v.mean() - mean) < 0.01 and abs(v.var() / var - 1) < 0.02
    with pytest.warns(UserWarning, match="mean is more than 2 std from \\[a, b\\]"):
        init.trunc_normal_(ember.empty(3), mean=10.0)


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 2, 3), (7, 7)])
def test_orthogonal(shape):
    w = ember.empty(*shape, dtype=ember.float64)
    init.orthogonal_(w, gain=1.5)
    m = w.numpy().reshape(shape[0], -1) / 1.5
    gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    np.testing.assert_allclose(gram, np.eye(min(m.shape)), atol=1e-12)
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
        init.orthogonal_(ember.empty(3))


def test_sparse():
    w = ember.empty(10, 50)
    init.sparse_(w, 0.25, std=0.5)
    zeros = (w.numpy() == 0).sum(axis=0)
    assert (zeros >= 3).all()  # ceil(0.25 * 10) per column (a normal draw is never 0)
    assert abs(w.numpy()[w.numpy() != 0].std() / 0.5 - 1) < 0.15
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.sparse_(ember.empty(2, 3, 4), 0.1)


@pytest.mark.parametrize("shape,groups", [((4, 4, 3), 1), ((6, 3, 3, 3), 2), ((4, 2, 3, 3, 3), 2),
                                          ((3, 5, 5), 1)])
def test_dirac(shape, groups):
    w = ember.empty(*shape)
    init.dirac_(w, groups)
    v = w.numpy()
    out_per = shape[0] // groups
    want = np.zeros(shape)
    centre = tuple(s // 2 for s in shape[2:])
    for g in range(groups):
        for d in range(min(out_per, shape[1])):
            want[(g * out_per + d, d) + centre] = 1
    np.testing.assert_array_equal(v, want)
    # the identity convolution (groups=1, equal channels)
    if shape == (4, 4, 3):
        x = ember.randn(2, 4, 9)
        np.testing.assert_allclose(nn.functional.conv1d(x, w, padding=1).numpy(), x.numpy(),
                                   rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
        init.dirac_(ember.empty(5, 2, 3), 2)
    with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions are supported"):
        init.dirac_(ember.empty(3, 3))


def test_eye_constant_and_reproducibility():
    w = init.eye_(ember.empty(3, 5))
    np.testing.assert_array_equal(w.numpy(), np.eye(3, 5))
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(ember.empty(3))
    p = nn.Parameter(ember.empty(4, 4))
    init.constant_(p, 0.3)
    assert p.requires_grad and p.grad_fn is None and float(p.sum()) == pytest.approx(4.8)
    a, b = ember.empty(20, 20), ember.empty(20, 20)
    ember.manual_seed(4)
    init.orthogonal_(a)
    init.trunc_normal_(a[0])
    ember.manual_seed(4)
    init.orthogonal_(b)
    init.trunc_normal_(b[0])
    assert ember.equal(a, b)


def test_deprecated_aliases():
    w = ember.empty(3, 3)
    with pytest.warns(FutureWarning, match="`nn.init.xavier_uniform` is now deprecated in favor "
                                           "of `nn.init.xavier_uniform_`"):
        init.xavier_uniform(w)
    with pytest.warns(FutureWarning, match="nn.init.constant_"):
        init.constant(w, 2.0)
    assert float(w.sum()) == 18.0
