"""ember.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp against central
finite differences in float64 (single and tuple inputs/outputs, create_graph,
vectorize), strict mode and torch's argument errors."""
import numpy as np
import pytest

import ember
from ember.autograd import functional as F

RNG = np.random.default_rng()
H = 1e-6


def t(a, requires_grad=False):
    return ember.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def fd_jacobian(f, xs):
    """d f_i / d x_j by central differences: f takes and returns tuples of NumPy arrays."""
    outs = f(*xs)
    jac = [[np.zeros(o.shape + x.shape) for x in xs] for o in outs]
    for j, x in enumerate(xs):
        for idx in np.ndindex(x.shape):
            plus = [a.copy() for a in xs]
            minus = [a.copy() for a in xs]
            plus[j][idx] += H
            minus[j][idx] -= H
            for i, (p, m) in enumerate(zip(f(*plus), f(*minus))):
                jac[i][j][(Ellipsis,) + idx] = (p - m) / (2 * H)
    return jac


# f(x, y) = (sin(x) * y.sum(), x @ W + y[:3] ** 2): two inputs, two outputs
W = RNG.standard_normal((3, 3))


def f_ember(x, y):
    return ember.sin(x) * y.sum(), x @ t(W) + y[:3] ** 2


def f_np(x, y):
    return np.sin(x) * y.sum(), x @ W + y[:3] ** 2


def inputs():
    return RNG.standard_normal(3), RNG.standard_normal(4)


@pytest.mark.parametrize("vectorize", [False, True])
def test_jacobian_tuple_inputs_outputs(vectorize):
    x, y = inputs()
    jac = F.jacobian(f_ember, (t(x), t(y)), vectorize=vectorize)
    ref = fd_jacobian(f_np, [x, y])
    assert isinstance(jac, tuple) and len(jac) == 2 and len(jac[0]) == 2
    for i in range(2):
        for j in range(2):
            assert tuple(jac[i][j].shape) == ref[i][j].shape
            np.testing.assert_allclose(jac[i][j].numpy(), ref[i][j], rtol=1e-6, atol=1e-8)
            assert not jac[i][j].requires_grad


def test_jacobian_single_tensor_and_matrix_shapes():
    x = RNG.standard_normal((2, 3))
    jac = F.jacobian(lambda a: ember.exp(a).sum(1), t(x))
    ref = fd_jacobian(lambda a: (np.exp(a).sum(1),), [x])[0][0]
    assert tuple(jac.shape) == (2, 2, 3)
    np.testing.assert_allclose(jac.numpy(), ref, rtol=1e-6, atol=1e-8)
    # an output independent of an input: zeros (strict=False)
    jac = F.jacobian(lambda a, b: a * 2, (t(x), t([1.0])))
    np.testing.assert_array_equal(jac[1].numpy(), np.zeros((2, 3, 1)))


def test_jacobian_create_graph_is_differentiable():
    x = RNG.standard_normal(3)
    xt = t(x, requires_grad=True)
    jac = F.jacobian(lambda a: a ** 3, xt, create_graph=True)
    assert jac.requires_grad
    (g,) = ember.autograd.grad(jac.sum(), xt)
    np.testing.assert_allclose(g.numpy(), 6 * x, rtol=1e-12)   # d/dx sum(diag(3x^2)) = 6x


def scalar_np(x, y):
    return np.sum(np.sin(x) * np.exp(0.3 * y[:3])) + np.sum(y ** 3) * x[0]


def scalar_ember(x, y):
    return (ember.sin(x) * ember.exp(0.3 * y[:3])).sum() + (y ** 3).sum() * x[0]


def fd_hessian(f, xs):
    def grad(*a):
        return tuple(g for g in fd_grad(f, list(a)))
    return fd_jacobian(grad, xs)


def fd_grad(f, xs):
    out = []
    for j, x in enumerate(xs):
        g = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            plus = [a.copy() for a in xs]
            minus = [a.copy() for a in xs]
            plus[j][idx] += 1e-4
            minus[j][idx] -= 1e-4
            g[idx] = (f(*plus) - f(*minus)) / 2e-4
        out.append(g)
    return out


def test_hessian_tuple_and_single():
    x, y = inputs()
    hes = F.hessian(scalar_ember, (t(x), t(y)))
    ref = fd_hessian(scalar_np, [x, y])
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(hes[i][j].numpy(), ref[i][j], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(hes[0][1].numpy(), hes[1][0].numpy().T, rtol=1e-12)
    a = RNG.standard_normal(4)
    h = F.hessian(lambda v: (v ** 4).sum(), t(a))
    np.testing.assert_allclose(h.numpy(), np.diag(12 * a ** 2), rtol=1e-12)


def test_vjp_and_vhp():
    x, y = inputs()
    v0, v1 = RNG.standard_normal(3), RNG.standard_normal(3)
    outs, vjp = F.vjp(f_ember, (t(x), t(y)), (t(v0), t(v1)))
    ref_j = fd_jacobian(f_np, [x, y])
    for o, r in zip(outs, f_np(x, y)):
        np.testing.assert_allclose(o.numpy(), r, rtol=1e-12)
    for j in range(2):
        ref = np.tensordot(v0, ref_j[0][j], 1) + np.tensordot(v1, ref_j[1][j], 1)
        np.testing.assert_allclose(vjp[j].numpy(), ref, rtol=1e-6, atol=1e-8)
    # scalar output: v may be omitted
    out, g = F.vjp(lambda a: (a ** 2).sum(), t(x))
    np.testing.assert_allclose(g.numpy(), 2 * x, rtol=1e-12)
    # vhp = v^T H, hvp = H v
    u0, u1 = RNG.standard_normal(3), RNG.standard_normal(4)
    H_ = fd_hessian(scalar_np, [x, y])
    full = np.block([[H_[0][0], H_[0][1]], [H_[1][0], H_[1][1]]])
    u = np.concatenate([u0, u1])
    val, vhp = F.vhp(scalar_ember, (t(x), t(y)), (t(u0), t(u1)))
    val2, hvp = F.hvp(scalar_ember, (t(x), t(y)), (t(u0), t(u1)))
    np.testing.assert_allclose(val.numpy(), scalar_np(x, y), rtol=1e-12)
    np.testing.assert_allclose(np.concatenate([g.numpy() for g in vhp]), u @ full, rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(np.concatenate([g.numpy() for g in hvp]), full @ u, rtol=1e-4,
                               atol=1e-5)


def test_jvp_double_backward_trick():
    x, y = inputs()
    u0, u1 = RNG.standard_normal(3), RNG.standard_normal(4)
    outs, jvp = F.jvp(f_ember, (t(x), t(y)), (t(u0), t(u1)))
    ref_j = fd_jacobian(f_np, [x, y])
    for i in range(2):
        ref = np.tensordot(ref_j[i][0], u0, 1) + np.tensordot(ref_j[i][1], u1, 1)
        np.testing.assert_allclose(jvp[i].numpy(), ref, rtol=1e-6, atol=1e-8)
    out, j = F.jvp(lambda a: a.exp(), t([0.7]))
    np.testing.assert_allclose(j.numpy(), np.exp([0.7]), rtol=1e-12)


def test_create_graph_results_require_grad():
    x = t(RNG.standard_normal(3), requires_grad=True)
    v = t(RNG.standard_normal(3))
    for fn in (F.vjp, F.jvp, F.hvp, F.vhp):
        f = (lambda a: (a ** 3).sum()) if fn in (F.hvp, F.vhp) else (lambda a: a ** 3)
        out, res = fn(f, x, v, create_graph=True)
        assert res.requires_grad, fn.__name__
        out, res = fn(f, x, v)
        assert not res.requires_grad, fn.__name__
    # vhp with create_graph: differentiate v^T H = 6 x v once more
    out, res = F.vhp(lambda a: (a ** 3).sum(), x, v, create_graph=True)
    (g,) = ember.autograd.grad(res.sum(), x)
    np.testing.assert_allclose(g.numpy(), 6 * v.numpy(), rtol=1e-12)


def test_strict_mode_errors():
    x = t(RNG.standard_normal(3))
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not "
                                           "require gradients"):
        F.jacobian(lambda a: ember.ones(3), x, strict=True)
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function is "
                                           "independent of input 1"):
        F.jacobian(lambda a, b: a * 2, (x, t([1.0])), strict=True)
    with pytest.raises(RuntimeError, match="The output of the user-provided function is "
                                           "independent of input 1"):
        F.vjp(lambda a, b: (a * 2).sum(), (x, t([1.0])), strict=True)
    with pytest.raises(RuntimeError, match="jacobian of the user-provided function with respect "
                                           "to input"):
        F.hessian(lambda a: (a * 2).sum(), x, strict=True)
    with pytest.raises(RuntimeError, match="`strict=True` and `vectorized=True` are not "
                                           "supported together"):
        F.jacobian(lambda a: a * 2, x, strict=True, vectorize=True)
    # not strict: zeros
    _, g = F.vjp(lambda a, b: (a * 2).sum(), (x, t([1.0])))
    np.testing.assert_array_equal(g[1].numpy(), [0.0])


def test_argument_errors():
    x = t(RNG.standard_normal(3))
    with pytest.raises(TypeError, match="The inputs given to jacobian must be either a Tensor or "
                                        "a tuple of Tensors but the value at index 1 has type"):
        F.jacobian(lambda a, b: a, (x, 3.0))
    with pytest.raises(TypeError, match="The outputs of the user-provided function given to vjp "
                                        "must be either a Tensor or a tuple of Tensors"):
        F.vjp(lambda a: 3.0, x, x)
    with pytest.raises(RuntimeError, match="v has invalid size: should be ember.Size\\(\\[3\\]\\) "
                                           "but got ember.Size\\(\\[2\\]\\)"):
        F.vjp(lambda a: a * 2, x, t([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="v is a tuple of invalid length: should be 2 but got 1"):
        F.jvp(lambda a, b: a, (x, x), (x,))
    with pytest.raises(RuntimeError, match="The vector v can only be None if the user-provided "
                                           "function returns a single Tensor with a single "
                                           "element."):
        F.vjp(lambda a: a * 2, x)
    with pytest.raises(RuntimeError, match="The function given to hessian should return a single "
                                           "Tensor"):
        F.hessian(lambda a: (a.sum(), a.sum()), x)
    with pytest.raises(RuntimeError, match="The Tensor returned by the function given to hvp "
                                           "should contain a single element"):
        F.hvp(lambda a: a * 2, x, x)
    with pytest.raises(NotImplementedError, match="forward-mode"):
        F.jacobian(lambda a: a, x, strategy="forward-mode")
    # the process keeps working
    np.testing.assert_allclose(F.jacobian(lambda a: 2 * a, x).numpy(), 2 * np.eye(3))
