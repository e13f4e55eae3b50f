"""ember.autograd.graph.saved_tensors_hooks and save_on_cpu: every tensor a node saves
goes through pack when saved and unpack when backward reads it (built-in nodes and
Python Functions), gradients are unchanged, double backward keeps working, nesting
(innermost wins), per-thread scope, and torch's error for an unpack that returns no
tensor."""
import threading

import numpy as np
import pytest

import ember
from ember.autograd.graph import saved_tensors_hooks, save_on_cpu

RNG = np.random.default_rng()


def f(x, w):
    return ((x @ w).tanh() * x.sum()).exp().sum()


def data():
    return (ember.tensor(RNG.standard_normal((3, 4)), requires_grad=True),
            ember.tensor(RNG.standard_normal((4, 2)) * 0.3, requires_grad=True))


def plain_grads(x, w):
    return [g.numpy() for g in ember.autograd.grad(f(x, w), (x, w))]


def test_pack_unpack_called_and_gradients_unchanged():
    x, w = data()
    ref = plain_grads(x, w)
    packed, unpacked = [], []

    def pack(t):
        packed.append(tuple(t.shape))
        return ("box", t.detach().clone())  # anything: the node keeps only this

    def unpack(box):
        unpacked.append(box[0])
        return box[1]

    with saved_tensors_hooks(pack, unpack):
        loss = f(x, w)
    assert len(packed) > 0 and unpacked == []
    got = ember.autograd.grad(loss, (x, w))
    assert len(unpacked) == len(packed)
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g.numpy(), r, rtol=1e-13)
    # outside the context nothing is packed
    n = len(packed)
    f(x, w)
    assert len(packed) == n


def test_double_backward_through_unpacked_tensors():
    x = ember.tensor(RNG.standard_normal(5), requires_grad=True)
    with saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
        y = (x.sin() * x * x).sum()
    (g,) = ember.autograd.grad(y, x, create_graph=True)
    (gg,) = ember.autograd.grad(g.sum(), x)
    xn = x.detach().numpy()
    ref_g = np.cos(xn) * xn ** 2 + 2 * xn * np.sin(xn)
    ref_gg = -np.sin(xn) * xn ** 2 + 4 * xn * np.cos(xn) + 2 * np.sin(xn)
    np.testing.assert_allclose(g.detach().numpy(), ref_g, rtol=1e-12)
    np.testing.assert_allclose(gg.numpy(), ref_gg, rtol=1e-12)


def test_python_function_saved_tensors_go_through_the_hooks():
    class Cube(ember.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a, None)
            return a ** 3

        @staticmethod
        def backward(ctx, g):
            a, none = ctx.saved_tensors
            assert none is None
            return 3 * a * a * g

    seen = []
    x = ember.tensor(RNG.standard_normal(4), requires_grad=True)
    with saved_tensors_hooks(lambda t: seen.append("pack") or t * 2, lambda t: t / 2):
        y = Cube.apply(x).sum()
    y.backward()
    assert seen == ["pack"]
    np.testing.assert_allclose(x.grad.numpy(), 3 * x.detach().numpy() ** 2, rtol=1e-13)


def test_nesting_innermost_wins_and_per_thread():
    outer, inner = [], []
    x = ember.tensor(RNG.standard_normal(3), requires_grad=True)
    with saved_tensors_hooks(lambda t: outer.append(1) or t, lambda t: t):
        with saved_tensors_hooks(lambda t: inner.append(1) or t, lambda t: t):
            (x * x).sum()
        n_inner = len(inner)
        (x * x).sum()
        other = []

        def work():
            (x * x).sum()  # another thread: no hooks there
            other.append(len(outer))

        th = threading.Thread(target=work)
        th.start()
        th.join()
    assert n_inner == 2 and len(outer) == 2 and other == [2]


def test_unpack_must_return_a_tensor():
    x = ember.tensor(RNG.standard_normal(3), requires_grad=True)
    with saved_tensors_hooks(lambda t: t, lambda t: "not a tensor"):
        y = (x * x).sum()
    with pytest.raises(TypeError, match="Output of saved tensor unpack_hook expected to be a "
                                        "Tensor but got result of type str"):
        y.backward()
    with pytest.raises(RuntimeError, match="no saved tensor hooks to pop"):
        ember._C._pop_saved_tensors_hooks()
    # a pack hook that raises leaves the process usable
    with pytest.raises(ZeroDivisionError):
        with saved_tensors_hooks(lambda t: 1 / 0, lambda t: t):
            (x * x).sum()
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy(), rtol=1e-13)


def test_freed_after_backward_and_retain_graph():
    x = ember.tensor(RNG.standard_normal(3), requires_grad=True)
    with saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
        y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 4 * x.detach().numpy(), rtol=1e-13)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_save_on_cpu_gradients():
    x, w = data()
    ref = plain_grads(x, w)
    with save_on_cpu():
        loss = f(x, w)
    got = ember.autograd.grad(loss, (x, w))
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g.numpy(), r, rtol=1e-13)


def test_disable_saved_tensors_hooks_and_increment_version():
    from ember.autograd.graph import disable_saved_tensors_hooks, increment_version
    with disable_saved_tensors_hooks("hooks are off here"):
        with pytest.raises(RuntimeError, match="hooks are off here"):
            with saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
        with pytest.raises(RuntimeError, match="hooks are off here"):
            with save_on_cpu():
                pass
    with saved_tensors_hooks(lambda t: t, lambda t: t):  # allowed again
        pass
    x = ember.tensor(RNG.standard_normal(3), requires_grad=True)
    y = x * 1.5
    z = (y * y).sum()  # saves y
    v = y._version
    increment_version(y)
    assert y._version == v + 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()
