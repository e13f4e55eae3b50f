"""ember.autograd.Function in torch 2's form (forward without ctx, setup_context),
once_differentiable, mark_non_differentiable and set_materialize_grads; gradients by hand
and against torch."""
import pytest

import ember
from ember.autograd.function import Function, FunctionCtx, once_differentiable


def make_classes(L):
    class Square(L.autograd.Function):
        @staticmethod
        def forward(x):
            return x * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    class SortLike(L.autograd.Function):
        """Two outputs: values (differentiable) and an int index (marked not)."""
        @staticmethod
        def forward(x, scale):
            return x * scale, (x > 0).to(L.int64)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.scale = inputs[1]
            ctx.mark_non_differentiable(output[1])

        @staticmethod
        def backward(ctx, g, g_idx):
            return g * ctx.scale, None

    class TwoOut(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            ctx_seen.append((ga is None, gb is None))
            ga = L.zeros_like(gb) if ga is None else ga
            gb = L.zeros_like(ga) if gb is None else gb
            return ga * 2 + gb * 3

    class NoMaterialize(TwoOut):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

    class Once(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.exp()

        @staticmethod
        @(L.autograd.function.once_differentiable)
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.exp()

    ctx_seen = []
    return Square, SortLike, TwoOut, NoMaterialize, Once, ctx_seen


def test_new_style_forward_and_setup_context():
    Square, SortLike, *_ = make_classes(ember)
    x = ember.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = Square.apply(x)
    assert y.tolist() == [1.0, 4.0, 9.0]
    y.sum().backward()
    assert x.grad.tolist() == [2.0, -4.0, 6.0]
    x.grad = None
    v, idx = SortLike.apply(x, 3.0)
    assert idx.tolist() == [1, 0, 1] and not idx.requires_grad and v.requires_grad
    v.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]


def test_materialize_grads():
    _, _, TwoOut, NoMaterialize, _, seen = make_classes(ember)
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    a, b = TwoOut.apply(x)
    b.sum().backward()                      # a's gradient never arrives: zeros
    assert seen == [(False, False)] and x.grad.tolist() == [3.0, 3.0]
    x.grad = None
    a, b = NoMaterialize.apply(x)
    b.sum().backward()                      # with materialize off: None
    assert seen[-1] == (True, False) and x.grad.tolist() == [3.0, 3.0]


def test_once_differentiable():
    *_, Once, _ = make_classes(ember)
    x = ember.tensor([0.0, 1.0], requires_grad=True)
    (g,) = ember.autograd.grad(Once.apply(x).sum(), x, create_graph=True)
    assert ember.allclose(g, x.detach().exp())
    assert not g.requires_grad              # the backward recorded nothing
    # incoming gradients that require grad: the result gets a node that refuses a 2nd backward
    go = ember.ones(2, requires_grad=True)
    (g,) = ember.autograd.grad(Once.apply(x), x, grad_outputs=go, create_graph=True)
    assert g.requires_grad and ember.allclose(g.detach(), x.detach().exp())
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was "
                                           "marked with @once_differentiable"):
        g.sum().backward()
    assert once_differentiable.__module__ == "ember.autograd.function"
    assert Function is ember.autograd.Function and FunctionCtx is ember.autograd.FunctionCtx


def test_once_differentiable_against_torch(torch):
    for L in (ember, torch):
        *_, Once, _ = make_classes(L)
        x = L.tensor([0.5, 1.5], requires_grad=True)
        (g,) = L.autograd.grad(Once.apply(x).sum(), x, create_graph=True)
        assert not g.requires_grad
        go = L.ones(2, requires_grad=True)
        (g,) = L.autograd.grad(Once.apply(x), x, grad_outputs=go, create_graph=True)
        assert g.requires_grad
        with pytest.raises(RuntimeError, match="trying to differentiate twice"):
            g.sum().backward()


def test_against_torch(torch):
    for L in (ember, torch):
        Square, SortLike, TwoOut, _, Once, _ = make_classes(L)
    results = {}
    for L in (ember, torch):
        Square, SortLike, TwoOut, _, Once, _ = make_classes(L)
        x = L.tensor([0.5, -1.5, 2.0], requires_grad=True)
        v, _ = SortLike.apply(Square.apply(x), 2.0)
        a, b = TwoOut.apply(v)
        (b.sum() + Once.apply(x).sum()).backward()
        results[L.__name__] = x.grad.tolist()
    assert results["ember"] == pytest.approx(results["torch"], rel=1e-6)
