"""Hooks on tensors: Tensor.register_post_accumulate_grad_hook (runs on the leaf after
its .grad was accumulated, removable, leaves only, must return None), register_hook
and retain_grad on non-leaf tensors."""
import numpy as np
import pytest

import ember

RNG = np.random.default_rng()


def test_post_accumulate_grad_hook_sees_the_accumulated_grad():
    w = ember.tensor(RNG.standard_normal(4), requires_grad=True)
    seen = []

    def hook(t):
        assert t is w or t.data_ptr() == w.data_ptr()
        seen.append(t.grad.numpy().copy())

    h = w.register_post_accumulate_grad_hook(hook)
    (w * 2).sum().backward()
    (w * 3).sum().backward()
    np.testing.assert_array_equal(seen[0], np.full(4, 2.0))
    np.testing.assert_array_equal(seen[1], np.full(4, 5.0))  # accumulated
    h.remove()
    (w * 1).sum().backward()
    assert len(seen) == 2


def test_post_accumulate_grad_hook_as_an_optimizer_step():
    """torch's use: step each parameter as soon as its gradient is ready."""
    ps = [ember.tensor(RNG.standard_normal(3), requires_grad=True) for _ in range(3)]
    start = [p.detach().numpy().copy() for p in ps]

    def step(p):
        with ember.no_grad():
            p.sub_(0.1 * p.grad)
        p.grad = None

    for p in ps:
        p.register_post_accumulate_grad_hook(step)
    (ps[0] * ps[1] + ps[2] ** 2).sum().backward()
    np.testing.assert_allclose(ps[0].detach().numpy(), start[0] - 0.1 * start[1], rtol=1e-6)
    np.testing.assert_allclose(ps[2].detach().numpy(), start[2] - 0.2 * start[2], rtol=1e-6)
    assert all(p.grad is None for p in ps)


def test_post_accumulate_grad_hook_errors():
    w = ember.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="post accumulate grad hooks cannot be registered on "
                                           "non-leaf tensors"):
        (w * 2).register_post_accumulate_grad_hook(lambda t: None)
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't "
                                           "require gradient"):
        ember.ones(3).register_post_accumulate_grad_hook(lambda t: None)
    w.register_post_accumulate_grad_hook(lambda t: t)
    with pytest.raises(RuntimeError, match="Tensor post accumulate grad hooks should return "
                                           "None."):
        (w * 2).sum().backward()
    v = ember.ones(2, requires_grad=True)
    (v * 3).sum().backward()  # the process keeps working
    np.testing.assert_array_equal(v.grad.numpy(), [3.0, 3.0])


def test_register_hook_and_retain_grad_on_non_leaves():
    x = ember.tensor(RNG.standard_normal(5), requires_grad=True)
    h = x * 2
    h.retain_grad()
    seen = []
    handle = h.register_hook(lambda g: seen.append(g.numpy().copy()) or g * 10)
    y = (h.sin()).sum()
    y.backward()
    hn = 2 * x.detach().numpy()
    np.testing.assert_allclose(seen[0], np.cos(hn), rtol=1e-13)
    # the retained gradient is the one after the tensor's hooks (torch's retains_grad
    # hook runs last)
    assert h.retains_grad
    np.testing.assert_allclose(h.grad.numpy(), 10 * np.cos(hn), rtol=1e-13)
    np.testing.assert_allclose(x.grad.numpy(), 2 * 10 * np.cos(hn), rtol=1e-13)
    handle.remove()
    x.grad = None
    y2 = (x * 2).sin().sum()
    y2.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos(hn), rtol=1e-13)
