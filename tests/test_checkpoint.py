"""ember.utils.checkpoint: checkpointed gradients equal the plain ones (dropout included:
the RNG state is replayed), both variants (use_reentrant False/True), keyword arguments,
autograd.grad, nested checkpoints, checkpoint_sequential, the generator's state after
backward, the determinism check and torch's warnings and errors. The CUDA generator's
replay is in test_checkpoint_gpu.py."""
import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.utils.checkpoint import checkpoint, checkpoint_sequential, CheckpointError

RNG = np.random.default_rng()


def block():
    return nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Dropout(0.4), nn.Linear(8, 8),
                         nn.ReLU(), nn.Dropout(0.3), nn.Linear(8, 3)).double()


def grads_of(model, x, run, seed):
    """(output, d loss / d x, d loss / d parameters) with loss = sum(out * w)."""
    for p in model.parameters():
        p.grad = None
    x = x.detach().requires_grad_(True)
    ember.manual_seed(seed)
    out = run(model, x)
    w = ember.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))
    (out * w).sum().backward()
    return ([out.detach().numpy(), x.grad.numpy()]
            + [p.grad.numpy().copy() for p in model.parameters()])


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_gradients_equal_the_plain_ones_with_dropout(use_reentrant):
    model = block()
    x = ember.tensor(RNG.standard_normal((5, 6)))
    seed = int(RNG.integers(1 << 30))
    plain = grads_of(model, x, lambda m, a: m(a), seed)
    ck = grads_of(model, x, lambda m, a: checkpoint(m, a, use_reentrant=use_reentrant), seed)
    for p, c in zip(plain, ck):
        np.testing.assert_allclose(c, p, rtol=1e-13, atol=1e-15)
    # dropout did drop something (so the replayed mask matters)
    assert (plain[0] == ck[0]).all()
    # without the RNG state the re-computation draws another mask: other gradients
    other = grads_of(model, x, lambda m, a: checkpoint(m, a, use_reentrant=use_reentrant,
                                                       preserve_rng_state=False), seed)
    assert any(not np.allclose(o, p) for o, p in zip(other[1:], plain[1:]))


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_generator_state_after_backward_is_the_plain_one(use_reentrant):
    model = block()
    x = ember.tensor(RNG.standard_normal((4, 6)))
    grads_of(model, x, lambda m, a: m(a), 5)
    after_plain = ember.rand(4).numpy()
    grads_of(model, x, lambda m, a: checkpoint(m, a, use_reentrant=use_reentrant), 5)
    after_ck = ember.rand(4).numpy()
    np.testing.assert_array_equal(after_ck, after_plain)


def test_non_reentrant_keeps_no_intermediate_tensor():
    """The forward under checkpoint saves only handles: counted through an outer pair of
    saved-tensor hooks that sees nothing saved inside the checkpoint."""
    model = block()
    x = ember.tensor(RNG.standard_normal((3, 6)), requires_grad=True)
    seen = []
    with ember.autograd.graph.saved_tensors_hooks(lambda t: seen.append(t) or t, lambda t: t):
        out = checkpoint(model, x, use_reentrant=False)
        n_ck = len(seen)
        model(x)
        n_plain = len(seen) - n_ck
    assert n_ck == 0 and n_plain > 0
    out.sum().backward()
    assert x.grad is not None and x.grad.shape == x.shape


def test_kwargs_non_tensor_args_and_inputs_without_grad():
    w = ember.tensor(RNG.standard_normal((4, 4)), requires_grad=True)
    x = ember.tensor(RNG.standard_normal((2, 4)))  # needs no grad: gradients reach w only

    def fn(a, scale, *, bias):
        return ((a @ w) * scale + bias).sin()

    b = ember.tensor(RNG.standard_normal(4), requires_grad=True)
    out = checkpoint(fn, x, 1.5, bias=b, use_reentrant=False)
    out.sum().backward()
    gw, gb = w.grad.numpy().copy(), b.grad.numpy().copy()
    w.grad = b.grad = None
    fn(x, 1.5, bias=b).sum().backward()
    np.testing.assert_allclose(gw, w.grad.numpy(), rtol=1e-13)
    np.testing.assert_allclose(gb, b.grad.numpy(), rtol=1e-13)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: bias"):
        checkpoint(fn, x, 1.5, bias=b, use_reentrant=True)


def test_autograd_grad_and_double_backward_through_checkpoint():
    x = ember.tensor(RNG.standard_normal(5), requires_grad=True)

    def f(a):
        return (a.exp() * a.sin()).sum()

    out = checkpoint(f, x, use_reentrant=False)
    (g,) = ember.autograd.grad(out, x, create_graph=True)
    xn = x.detach().numpy()
    np.testing.assert_allclose(g.detach().numpy(), np.exp(xn) * (np.sin(xn) + np.cos(xn)),
                               rtol=1e-13)
    (gg,) = ember.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), 2 * np.exp(xn) * np.cos(xn), rtol=1e-12)
    # the reentrant variant works under autograd.grad too (torch's raises there)
    out = checkpoint(f, x, use_reentrant=True)
    (g,) = ember.autograd.grad(out, x)
    np.testing.assert_allclose(g.numpy(), np.exp(xn) * (np.sin(xn) + np.cos(xn)), rtol=1e-13)


def test_backward_twice_with_retain_graph_recomputes():
    x = ember.tensor(RNG.standard_normal(4), requires_grad=True)
    out = checkpoint(lambda a: (a * a * a).sum(), x, use_reentrant=False)
    out.backward(retain_graph=True)
    out.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * 3 * x.detach().numpy() ** 2, rtol=1e-13)


def test_nested_checkpoints():
    model = block()
    x = ember.tensor(RNG.standard_normal((3, 6)))

    def outer(m, a):
        def inner(h):
            return checkpoint(m[3:], h, use_reentrant=False)
        return checkpoint(lambda h: inner(m[:3](h)), a, use_reentrant=False)

    plain = grads_of(model, x, lambda m, a: m(a), 9)
    ck = grads_of(model, x, outer, 9)
    for p, c in zip(plain, ck):
        np.testing.assert_allclose(c, p, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_checkpoint_sequential(use_reentrant):
    model = nn.Sequential(*[nn.Sequential(nn.Linear(6, 6), nn.Tanh(), nn.Dropout(0.2))
                            for _ in range(5)]).double()
    x = ember.tensor(RNG.standard_normal((4, 6)))
    plain = grads_of(model, x, lambda m, a: m(a), 3)
    for segments in (1, 2, 3, 5):
        ck = grads_of(model, x, lambda m, a: checkpoint_sequential(
            m, segments, a, use_reentrant=use_reentrant), 3)
        for p, c in zip(plain, ck):
            np.testing.assert_allclose(c, p, rtol=1e-13, atol=1e-15)
    # a list of functions too
    fns = list(model.children())
    ck = grads_of(model, x, lambda m, a: checkpoint_sequential(fns, 2, a,
                                                               use_reentrant=use_reentrant), 3)
    np.testing.assert_allclose(ck[1], plain[1], rtol=1e-13)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        checkpoint_sequential(model, 2, x, use_reentrant=use_reentrant, foo=1)


def test_determinism_check():
    calls = []

    def changing(a):
        calls.append(1)
        return (a[: len(calls) + 1] ** 2).sum()  # saves a different shape when re-run

    x = ember.tensor(RNG.standard_normal(6), requires_grad=True)
    out = checkpoint(changing, x, use_reentrant=False)
    with pytest.raises(CheckpointError, match="Recomputed values for the following tensors have "
                                              "different metadata than during the forward pass"):
        out.backward()
    # determinism_check="none": a re-run whose saved tensors differ only in value passes
    scale = [1.0]

    def drifting(a):
        scale[0] += 1.0
        return (a * (a * scale[0])).sum()

    x.grad = None
    out = checkpoint(drifting, x, use_reentrant=False, determinism_check="none")
    out.backward()  # uses what the re-run saved: a and a * 3 instead of a * 2
    xn = x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), 3 * xn + 2 * xn, rtol=1e-13)
    with pytest.raises(ValueError, match="determinism_check should be one of"):
        checkpoint(changing, x, use_reentrant=False, determinism_check="strict")
    # the process keeps working
    y = ember.tensor([1.0, 2.0], requires_grad=True)
    checkpoint(lambda a: (a * a).sum(), y, use_reentrant=False).backward()
    np.testing.assert_array_equal(y.grad.numpy(), [2.0, 4.0])


def test_use_reentrant_must_be_passed_explicitly_warning_and_no_grad():
    x = ember.tensor(RNG.standard_normal(3), requires_grad=True)
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed "
                                         "explicitly"):
        out = checkpoint(lambda a: a.sin().sum(), x)
    out.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(x.detach().numpy()), rtol=1e-13)
    with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant parameter"):
        checkpoint_sequential([lambda a: a * 2, lambda a: a + 1], 2, x)
    with ember.no_grad():
        out = checkpoint(lambda a: a * 2, x, use_reentrant=False)
    assert not out.requires_grad
    with pytest.raises(ValueError, match="Passing `context_fn` or `debug` is only supported "
                                         "when use_reentrant=False."):
        checkpoint(lambda a: a, x, use_reentrant=True, debug=True)


def test_context_fn():
    entered = []

    class Mark:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            entered.append(self.name)

        def __exit__(self, *a):
            pass

    x = ember.tensor(RNG.standard_normal(3), requires_grad=True)
    out = checkpoint(lambda a: (a * a).sum(), x, use_reentrant=False,
                     context_fn=lambda: (Mark("forward"), Mark("recompute")))
    assert entered == ["forward"]
    out.backward()
    assert entered == ["forward", "recompute"]


def test_helpers():
    from ember.utils import checkpoint as C
    a = ember.tensor([1.0, 2.0], requires_grad=True)
    b = ember.tensor([3.0])
    da, db, n = C.detach_variable((a, b, 3))
    assert da.requires_grad and not db.requires_grad and da.grad_fn is None and n == 3
    with pytest.raises(RuntimeError, match="Only tuple of tensors is supported"):
        C.detach_variable([a])
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        C.check_backward_validity((b, 1))
    assert C.get_device_states(a, b) == ([], [])  # no CUDA tensors
    with C.set_checkpoint_early_stop(False):
        out = checkpoint(lambda t: (t * t).sum(), a, use_reentrant=False)
    out.backward()
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 4.0])
