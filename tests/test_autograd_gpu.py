"""Autograd on the GPU: backward runs on the streams the forward used (hooks observe the
forward's stream as current; the caller's stream waits for the gradients), gradients and
errors on CUDA tensors, torch as the oracle for a mixed graph, and many backward passes
without growing memory. Run on the H100 machine."""
import numpy as np
import pytest

import ember

pytestmark = pytest.mark.gpu


def test_backward_runs_on_the_forward_stream():
    x = ember.randn(256, 256, device="cuda", requires_grad=True)
    s = ember.cuda.Stream()
    s.wait_stream(ember.cuda.current_stream())
    seen = []
    with ember.cuda.stream(s):
        h = x @ x
        h.register_hook(lambda g: seen.append(ember.cuda.current_stream().cuda_stream))
        y = h.relu().sum()
    # backward from the default stream: the nodes run on s, the caller waits for them
    y.backward()
    assert seen == [s.cuda_stream]
    grad = x.grad.cpu().numpy()  # ordered after backward by the engine's final wait
    xn = x.detach().cpu().numpy()
    hn = xn @ xn
    g = (hn > 0).astype(np.float32)
    ref = g @ xn.T + xn.T @ g
    np.testing.assert_allclose(grad, ref, rtol=1e-3, atol=1e-3)


def test_gradients_accumulate_on_the_gpu():
    w = ember.ones(1000, device="cuda", requires_grad=True)
    for _ in range(3):
        (w * 2).sum().backward()
    np.testing.assert_allclose(w.grad.cpu().numpy(), np.full(1000, 6.0))


def test_errors_on_cuda_tensors():
    x = ember.ones(3, device="cuda", requires_grad=True)
    y = x.clone()
    z = y * y
    y.add_(1)
    with pytest.raises(RuntimeError, match=r"\[ember.cuda.FloatTensor \[3\]\], which is output 0 "
                                           r"of AddBackward0, is at version 1; expected version 0"):
        z.sum().backward()
    a = (x * x).sum()
    a.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        a.backward()
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        x * ember.ones(3)


def test_mixed_graph_matches_torch(torch):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((8, 5)).astype(np.float32)
    b = rng.standard_normal((5, 3)).astype(np.float32)
    ea = ember.tensor(a, device="cuda", requires_grad=True)
    eb = ember.tensor(b, device="cuda", requires_grad=True)
    ta = torch.tensor(a, device="cuda", requires_grad=True)
    tb = torch.tensor(b, device="cuda", requires_grad=True)

    def f(lib, x, w):
        h = lib.tanh(x @ w)
        return (lib.softmax(h, 1) * h.exp()).sum() + (x[:, 1:3] ** 2).mean() - h.amax()

    f(ember, ea, eb).backward()
    f(torch, ta, tb).backward()
    np.testing.assert_allclose(ea.grad.cpu().numpy(), ta.grad.cpu().numpy(), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(eb.grad.cpu().numpy(), tb.grad.cpu().numpy(), rtol=1e-5,
                               atol=1e-6)


def test_repeated_training_steps_do_not_grow_memory():
    import ember.nn as nn
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1)).cuda()
    opt = ember.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = ember.randn(32, 64, device="cuda")

    def step():
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()

    for _ in range(5):
        step()
    ember.cuda.synchronize()
    before = ember.cuda.memory_allocated()
    for _ in range(50):
        step()
    ember.cuda.synchronize()
    assert ember.cuda.memory_allocated() == before
