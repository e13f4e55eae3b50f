"""Autograd core: leaves and history, backward and ember.autograd.grad,
accumulation, retain_graph, version counters, grad modes, hooks, retain_grad,
detach/.data, in-place writes (CopySlices), custom Functions, and the errors
with torch's messages."""
import gc
import sys
import threading

import numpy as np
import pytest

import ember
from autograd_util import leaf, const, npy


def ones(*s):
    return ember.ones(*s, dtype=ember.float64)


# ---- leaves and history ---------------------------------------------------------------

def test_leaf_flags():
    x = ember.zeros(3)
    assert x.requires_grad is False and x.is_leaf and x.grad_fn is None and x.grad is None
    x.requires_grad_()
    assert x.requires_grad and x.is_leaf and x.grad_fn is None
    x.requires_grad = False
    assert not x.requires_grad
    y = ember.tensor([1.0, 2.0], requires_grad=True)
    assert y.requires_grad and y.is_leaf
    for f in (ember.zeros, ember.ones, ember.empty):
        assert f(2, requires_grad=True).requires_grad
    assert ember.full((2,), 3.0, requires_grad=True).requires_grad
    assert ember.zeros_like(y, requires_grad=True).requires_grad
    assert ember.arange(3.0, requires_grad=True).requires_grad
    assert y.new_zeros(2, requires_grad=True).requires_grad


def test_requires_grad_errors():
    with pytest.raises(RuntimeError, match="floating point"):
        ember.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="floating point"):
        ember.arange(3).requires_grad_()
    x = leaf(2)
    y = x.view(2)
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf "
                                           "variables"):
        y.requires_grad_(False)
    y.requires_grad_(True)  # already requires grad: allowed
    assert ember.zeros(1).requires_grad is False  # the process still works


def test_grad_fn_names_and_next_functions():
    x = leaf(2, 3)
    y = x.t()
    assert y.grad_fn.name() == "TBackward0"
    assert not y.is_leaf
    (fn, nr), = y.grad_fn.next_functions
    assert fn.name() == "AccumulateGrad" and nr == 0
    assert fn.variable.data_ptr() == x.data_ptr() and fn.variable.requires_grad
    z = y.unsqueeze(0).permute(0, 2, 1).reshape(6).narrow(0, 1, 3)
    names = []
    f = z.grad_fn
    while f is not None and f.name() != "AccumulateGrad":
        names.append(f.name())
        f = f.next_functions[0][0]
    assert names == ["SliceBackward0", "ViewBackward0", "PermuteBackward0",
                     "UnsqueezeBackward0", "TBackward0"]
    assert y.grad_fn is y.grad_fn  # the same Python object while it lives
    assert "TBackward0" in repr(y.grad_fn)
    assert "grad_fn=<TBackward0>" in repr(y)
    assert "requires_grad=True" in repr(x)


def test_no_history_without_requires_grad():
    x = const(2, 3)
    assert x.t().grad_fn is None and not x.t().requires_grad
    assert ember.cat([x, x]).grad_fn is None


# ---- backward --------------------------------------------------------------------------

def test_backward_accumulates_into_leaves():
    x = leaf(2, 3)
    g = const(3, 2)
    x.t().backward(g)
    np.testing.assert_allclose(npy(x.grad), npy(g).T)
    first = x.grad
    x.t().backward(g)  # second pass adds (in place: the same tensor)
    np.testing.assert_allclose(npy(x.grad), 2 * npy(g).T)
    assert ember.is_tensor(first)
    np.testing.assert_allclose(npy(first), 2 * npy(g).T)


def test_grad_of_scalar_output_is_implicit():
    x = leaf(1)
    x.view(()).backward()
    np.testing.assert_allclose(npy(x.grad), [1.0])


def test_grad_setter_and_zeroing():
    x = leaf(3)
    x.grad = ember.ones(3, dtype=ember.float64)
    np.testing.assert_allclose(npy(x.grad), np.ones(3))
    x.grad = None
    assert x.grad is None
    with pytest.raises(RuntimeError, match="different size"):
        x.grad = ember.ones(4, dtype=ember.float64)
    with pytest.raises(RuntimeError, match="different type"):
        x.grad = ember.ones(3)


def test_backward_errors():
    x = leaf(3)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar "
                                           "outputs"):
        x.view(3).backward()
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does "
                                           "not have a grad_fn"):
        const(1).backward()
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of "):
        x.view(3).backward(ones(4))
    x.view(3).backward(ones(3))  # still works afterwards
    np.testing.assert_allclose(npy(x.grad), np.ones(3))


def test_backward_twice_without_retain_graph_raises_torch_message():
    x = leaf(2, 2)
    y = x.clone()
    z = y.mm(y)
    z.backward(ones(2, 2), retain_graph=True)
    z.backward(ones(2, 2))
    with pytest.raises(RuntimeError, match=r"Trying to backward through the graph a second time "
                                           r"\(or directly access saved tensors after they have "
                                           r"already been freed\).*retain_graph=True"):
        z.backward(ones(2, 2))
    # a fresh graph works
    x.grad = None
    x.clone().mm(x).backward(ones(2, 2))
    assert x.grad is not None


def test_inplace_modification_of_saved_tensor_raises_torch_message():
    x = leaf(2, 2)
    y = x.clone()
    z = y.mm(y)
    y.fill_(1.0)
    with pytest.raises(RuntimeError) as e:
        z.backward(ones(2, 2))
    msg = str(e.value)
    assert msg.startswith("one of the variables needed for gradient computation has been "
                          "modified by an inplace operation: [ember.DoubleTensor [2, 2]], which "
                          "is output 0 of FillBackward0, is at version 1; expected version 0 "
                          "instead.")
    # saved leaves are checked too
    w = leaf(2, 2)
    a = const(2, 2)
    out = a.mm(w)
    a.zero_()
    with pytest.raises(RuntimeError, match=r"\[ember.DoubleTensor \[2, 2\]\] is at version 1; "
                                           r"expected version 0 instead"):
        out.backward(ones(2, 2))


def test_version_counter_shared_by_views_and_bumped_by_writes():
    x = const(4)
    v = x[1:3]
    assert x._version == 0
    v.fill_(2.0)
    assert x._version == 1 and v._version == 1
    x[0] = 5.0
    assert v._version == 2
    x.copy_(const(4))
    assert x._version == 3
    x.zero_()
    assert x.detach()._version == 4


def test_inplace_on_leaf_that_requires_grad():
    x = leaf(3)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in "
                                           "an in-place operation."):
        x.fill_(1.0)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is "
                                           "being used in an in-place operation."):
        x[0:2].fill_(1.0)
    with pytest.raises(RuntimeError, match="a leaf Variable"):
        x[0] = 3.0
    with ember.no_grad():  # how optimisers update parameters
        x.fill_(1.0)
        x[0] = 2.0
    np.testing.assert_allclose(npy(x), [2.0, 1.0, 1.0])


# ---- autograd.grad ---------------------------------------------------------------------

def test_autograd_grad_returns_without_accumulating():
    x, w = leaf(2, 3), leaf(3, 4)
    y = x.mm(w)
    gx, gw = ember.autograd.grad(y, (x, w), ones(2, 4))
    np.testing.assert_allclose(npy(gx), np.ones((2, 4)) @ npy(w).T)
    np.testing.assert_allclose(npy(gw), npy(x).T @ np.ones((2, 4)))
    assert x.grad is None and w.grad is None


def test_autograd_grad_only_inputs_and_unused():
    x, w, u = leaf(2, 3), leaf(3, 4), leaf(2)
    y = x.mm(w)
    (gw,) = ember.autograd.grad(y, w, ones(2, 4), retain_graph=True)
    np.testing.assert_allclose(npy(gw), npy(x).T @ np.ones((2, 4)))
    with pytest.raises(RuntimeError, match="One of the differentiated Tensors appears to not "
                                           "have been used in the graph. Set allow_unused=True"):
        ember.autograd.grad(y, [w, u], ones(2, 4), retain_graph=True)
    gw2, gu = ember.autograd.grad(y, [w, u], ones(2, 4), retain_graph=True, allow_unused=True)
    assert gu is None
    gw3, gu3 = ember.autograd.grad(y, [w, u], ones(2, 4), materialize_grads=True)
    np.testing.assert_allclose(npy(gu3), np.zeros(2))
    with pytest.raises(RuntimeError, match="One of the differentiated Tensors does not require "
                                           "grad"):
        ember.autograd.grad(x.mm(w), [const(2)], ones(2, 4))


def test_autograd_grad_of_intermediate():
    x = leaf(3, 3)
    y = x.t()
    z = y.mm(y)
    (gy,) = ember.autograd.grad(z, y, ones(3, 3))
    yy = npy(y)
    np.testing.assert_allclose(npy(gy), np.ones((3, 3)) @ yy.T + yy.T @ np.ones((3, 3)))


def test_backward_with_inputs_accumulates_only_those():
    x, w = leaf(2, 3), leaf(3, 4)
    x.mm(w).backward(ones(2, 4), inputs=[w])
    assert x.grad is None and w.grad is not None
    with pytest.raises(RuntimeError, match="cannot be empty"):
        x.mm(w).backward(ones(2, 4), inputs=[])


def test_autograd_backward_function_with_several_roots():
    x = leaf(3)
    a, b = x.view(3), x.view(1, 3)
    ember.autograd.backward([a, b], [ones(3), ones(1, 3)])
    np.testing.assert_allclose(npy(x.grad), 2 * np.ones(3))


def test_create_graph_gives_differentiable_gradients():
    x = leaf(3, 3)
    w = leaf(3, 3)
    y = x.mm(w)
    (gx,) = ember.autograd.grad(y, x, ones(3, 3), create_graph=True)
    assert gx.requires_grad and gx.grad_fn is not None
    # d/dw of sum(gx * c) with gx = 1 @ w^T
    c = const(3, 3)
    (gw,) = ember.autograd.grad(gx, w, c)
    np.testing.assert_allclose(npy(gw), (np.ones((3, 3)).T @ npy(c)).T)


# ---- grad modes ------------------------------------------------------------------------

def test_no_grad_and_enable_grad():
    x = leaf(2)
    with ember.no_grad():
        assert not ember.is_grad_enabled()
        y = x.view(2)
        with ember.enable_grad():
            z = x.view(2)
    assert ember.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None
    assert z.requires_grad


def test_grad_modes_as_decorators():
    x = leaf(2)

    @ember.no_grad()
    def f():
        return x.view(2)

    @ember.no_grad
    def g():
        return x.view(2)

    @ember.inference_mode()
    def h():
        assert ember.is_inference_mode_enabled()
        return x.view(2)

    @ember.enable_grad()
    def k():
        return x.view(2)

    assert not f().requires_grad and not g().requires_grad and not h().requires_grad
    with ember.no_grad():
        assert k().requires_grad
    assert not ember.is_inference_mode_enabled()
    assert f.__name__ == "f"

    @ember.no_grad()
    def gen():
        yield ember.is_grad_enabled()
        yield ember.is_grad_enabled()

    assert list(gen()) == [False, False]
    assert ember.is_grad_enabled()


def test_set_grad_enabled_as_function_and_context():
    ember.set_grad_enabled(False)
    try:
        assert not ember.is_grad_enabled()
    finally:
        ember.set_grad_enabled(True)
    assert ember.is_grad_enabled()
    with ember.set_grad_enabled(False):
        assert not ember.is_grad_enabled()
    assert ember.is_grad_enabled()
    with ember.no_grad():
        with ember.set_grad_enabled(True):
            assert ember.is_grad_enabled()
        assert not ember.is_grad_enabled()


def test_grad_mode_is_thread_local_and_restored_after_errors():
    seen = []
    with ember.no_grad():
        t = threading.Thread(target=lambda: seen.append(ember.is_grad_enabled()))
        t.start()
        t.join()
    assert seen == [True]
    with pytest.raises(ValueError):
        with ember.no_grad():
            raise ValueError
    assert ember.is_grad_enabled()


def test_inference_mode():
    x = leaf(2)
    with ember.inference_mode():
        assert ember.is_inference_mode_enabled() and not ember.is_grad_enabled()
        y = x.view(2)
    assert not y.requires_grad
    with ember.inference_mode(False):
        assert ember.is_grad_enabled()


# ---- retain_grad, hooks, detach, data ----------------------------------------------------

def test_retain_grad():
    x = leaf(2, 2)
    y = x.t()
    y.retain_grad()
    assert y.retains_grad
    z = y.mm(y)
    z.backward(ones(2, 2))
    yy = npy(y)
    np.testing.assert_allclose(npy(y.grad), np.ones((2, 2)) @ yy.T + yy.T @ np.ones((2, 2)))
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has "
                                           "requires_grad=False"):
        const(2).retain_grad()


def test_hooks_see_and_replace_gradients():
    x = leaf(3)
    seen = []
    h = x.register_hook(lambda g: seen.append(npy(g)))
    y = x.view(3)
    y.register_hook(lambda g: ember.zeros_like(g))  # replaces the gradient flowing on
    y.backward(ones(3))
    assert len(seen) == 1
    np.testing.assert_allclose(seen[0], np.zeros(3))
    np.testing.assert_allclose(npy(x.grad), np.zeros(3))
    h.remove()
    x.view(3).backward(ones(3))
    assert len(seen) == 1
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        const(2).register_hook(lambda g: g)


def test_detach_and_data():
    x = leaf(3)
    d = x.detach()
    assert not d.requires_grad and d.is_leaf
    d[0] = 7.0  # shares memory and the version counter
    assert x[0].item() == 7.0 and x._version == 1
    y = x.clone()
    y.detach_()
    assert not y.requires_grad and y.grad_fn is None
    with pytest.raises(RuntimeError, match=r"Can't detach views in-place. Use detach\(\) instead"):
        x.view(3).detach_()
    data = x.data
    assert not data.requires_grad
    x.data = ember.zeros(5, dtype=ember.float64)
    assert x.shape == (5,) and x.requires_grad and x.is_leaf
    x.view(5).backward(ones(5))
    np.testing.assert_allclose(npy(x.grad), np.ones(5))


def test_to_and_type_conversions():
    x = leaf(3)
    y = x.to(ember.float32)
    assert y.grad_fn.name() == "ToCopyBackward0"
    y.backward(ember.ones(3))
    assert x.grad.dtype == ember.float64
    assert not x.to(ember.int64).requires_grad
    assert x.to(ember.float64) is x
    assert x.float().requires_grad and x.double() is x


# ---- in-place writes through views (CopySlices) -------------------------------------------

def test_setitem_of_a_value_that_requires_grad():
    v = leaf(3)
    buf = ember.zeros(2, 3, dtype=ember.float64)
    buf[1] = v
    assert buf.requires_grad and buf.grad_fn.name() == "CopySlices"
    g = const(2, 3)
    buf.backward(g)
    np.testing.assert_allclose(npy(v.grad), npy(g)[1])


def test_inplace_through_view_of_nonleaf():
    x = leaf(2, 3)
    y = x.clone()
    row = y[0]
    row.fill_(0.0)  # y's first row no longer depends on x
    g = const(2, 3)
    y.backward(g)
    expected = npy(g).copy()
    expected[0] = 0
    np.testing.assert_allclose(npy(x.grad), expected)


def test_view_regenerated_after_base_written():
    x = leaf(4)
    y = x.clone()
    v = y[1:3]
    w = leaf(4)
    y.copy_(w)  # v now depends on w, not x
    v.backward(ones(2))
    np.testing.assert_allclose(npy(w.grad), [0, 1, 1, 0])
    assert x.grad is None or np.allclose(npy(x.grad), 0)


def test_advanced_setitem_gradients():
    x = leaf(5)
    y = x.clone()
    v = leaf(2)
    y[ember.tensor([0, 3])] = v
    g = const(5)
    y.backward(g)
    gg = npy(g)
    np.testing.assert_allclose(npy(x.grad), [0, gg[1], gg[2], 0, gg[4]])
    np.testing.assert_allclose(npy(v.grad), [gg[0], gg[3]])


def test_indexing_gradient_accumulates_duplicates():
    x = leaf(4)
    y = x[ember.tensor([0, 0, 2])]
    y.backward(ember.tensor([1.0, 2.0, 3.0], dtype=ember.float64))
    np.testing.assert_allclose(npy(x.grad), [3.0, 0, 3.0, 0])
    m = leaf(2, 3)
    sel = m[ember.tensor([[True, False, True], [False, True, False]])]
    sel.backward(ones(3))
    np.testing.assert_allclose(npy(m.grad), [[1, 0, 1], [0, 1, 0]])


def test_metadata_inplace_views():
    x = leaf(2, 3)
    y = x.clone()
    y.t_()
    assert y.shape == (3, 2)
    y.unsqueeze_(0)
    y.backward(const(1, 3, 2))
    assert x.grad.shape == (2, 3)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.t_()


# ---- graph lifetime ----------------------------------------------------------------------

def test_deep_graph_is_released_without_recursion():
    x = leaf(1)
    y = x
    for _ in range(200_000):
        y = y.view(1)
    del y
    gc.collect()
    assert x.requires_grad  # no crash (a recursive release would overflow the C stack)


def test_node_outlives_its_output_while_referenced():
    x = leaf(3)
    y = x.view(3)
    fn = y.grad_fn
    del y
    gc.collect()
    assert fn.name() == "ViewBackward0"
    assert fn.next_functions[0][0].name() == "AccumulateGrad"


# ---- custom Functions ----------------------------------------------------------------------

class WrongSquare(ember.autograd.Function):
    """x * x with a deliberately wrong backward (g * x instead of 2 g x)."""

    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return ember.einsum("i,i->i", x, x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return ember.einsum("i,i->i", g, x), None


class Square(ember.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return ember.einsum("i,i->i", x, x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        two = ember.full((1,), 2.0, dtype=x.dtype)
        return ember.einsum("i,i,j->i", g, x, two)


def test_custom_function():
    x = leaf(3)
    y = Square.apply(x)
    assert y.grad_fn.name() == "SquareBackward"
    y.backward(ones(3))
    np.testing.assert_allclose(npy(x.grad), 2 * npy(x))
    assert not Square.apply(const(3)).requires_grad
    assert ember.autograd.gradcheck(Square.apply, (leaf(3),))
    y = Square.apply(leaf(3))
    y.backward(ones(3))
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward(ones(3))


def test_gradcheck_catches_a_wrong_formula():
    with pytest.raises(ember.autograd.GradcheckError, match="Jacobian mismatch"):
        ember.autograd.gradcheck(lambda t: WrongSquare.apply(t, 2), (leaf(3),))
    assert ember.autograd.gradcheck(lambda t: WrongSquare.apply(t, 2), (leaf(3),),
                                    raise_exception=False) is False


def test_custom_function_saved_tensor_version_check():
    x = leaf(3)
    y = x.clone()
    z = Square.apply(y)
    y.zero_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward(ones(3))


def test_gradgradcheck_of_mm():
    a, b = leaf(2, 3), leaf(3, 2)
    assert ember.autograd.gradgradcheck(lambda x, y: x.mm(y), (a, b))


def test_concurrent_backward_passes_into_one_leaf():
    w = ember.ones(10_000, dtype=ember.float64, requires_grad=True)

    def work():
        for _ in range(25):
            (w * 2).sum().backward()  # the engine runs without the GIL

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_array_equal(npy(w.grad), np.full(10_000, 200.0))
