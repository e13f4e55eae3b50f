"""Activation checkpointing on the GPU: the CUDA generator's state is stashed and replayed
(dropout on CUDA tensors gives the same gradients as without checkpoint), the generator
is left as the plain run leaves it, and ember's checkpointed gradients equal torch's.
Run on the H100 machine."""
import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.utils.checkpoint import checkpoint

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng()


def block():
    return nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.Dropout(0.5), nn.Linear(128, 64),
                         nn.Dropout(0.25)).cuda()


def run(model, x, ck, use_reentrant, seed):
    for p in model.parameters():
        p.grad = None
    x = x.detach().requires_grad_(True)
    ember.cuda.manual_seed(seed)
    out = checkpoint(model, x, use_reentrant=use_reentrant) if ck else model(x)
    (out * out).sum().backward()
    return [out.detach().cpu().numpy(), x.grad.cpu().numpy()] + [
        p.grad.cpu().numpy() for p in model.parameters()]


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_cuda_dropout_replays_identically(use_reentrant):
    model = block()
    x = ember.tensor(RNG.standard_normal((32, 64)), dtype=ember.float32, device="cuda")
    seed = int(RNG.integers(1 << 30))
    plain = run(model, x, False, use_reentrant, seed)
    after_plain = ember.rand(8, device="cuda").cpu().numpy()
    ck = run(model, x, True, use_reentrant, seed)
    after_ck = ember.rand(8, device="cuda").cpu().numpy()
    for p, c in zip(plain, ck):
        np.testing.assert_allclose(c, p, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(after_ck, after_plain)
    # without the state the mask differs
    for p in model.parameters():
        p.grad = None
    xx = x.detach().requires_grad_(True)
    ember.cuda.manual_seed(seed)
    out = checkpoint(model, xx, use_reentrant=use_reentrant, preserve_rng_state=False)
    (out * out).sum().backward()
    assert not np.array_equal(xx.grad.cpu().numpy(), plain[1])


def test_checkpointed_gradients_match_torch(torch_fp32):
    torch = torch_fp32
    from torch_util import copy_params
    model = nn.Sequential(nn.Linear(32, 64), nn.Tanh(), nn.Linear(64, 8)).cuda()
    tmodel = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.Tanh(),
                                 torch.nn.Linear(64, 8)).cuda()
    copy_params(torch, model.parameters(), tmodel.parameters())
    a = RNG.standard_normal((16, 32)).astype(np.float32)
    x = ember.tensor(a, device="cuda", requires_grad=True)
    tx = torch.tensor(a, device="cuda", requires_grad=True)
    checkpoint(model, x, use_reentrant=False).pow(2).sum().backward()
    torch.utils.checkpoint.checkpoint(tmodel, tx, use_reentrant=False).pow(2).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.cpu().numpy(), rtol=1e-4,
                               atol=1e-5)
    for p, tp in zip(model.parameters(), tmodel.parameters()):
        np.testing.assert_allclose(p.grad.cpu().numpy(), tp.grad.cpu().numpy(), rtol=1e-4,
                                   atol=1e-5)


def test_save_on_cpu_moves_saved_tensors_and_keeps_gradients():
    w = ember.randn(64, 64, device="cuda", requires_grad=True)
    x = ember.randn(16, 64, device="cuda")
    for pin in (False, True):
        hooks = ember.autograd.graph.save_on_cpu(pin_memory=pin)
        device, packed = hooks.pack_hook(x)
        assert packed.device.type == "cpu" and packed.is_pinned() == pin
        back = hooks.unpack_hook((device, packed))
        assert back.device == x.device
        np.testing.assert_array_equal(back.cpu().numpy(), x.cpu().numpy())
        with hooks:
            y = (x @ w).tanh().sum()
        y.backward()
        g = w.grad.cpu().numpy()
        w.grad = None
        (x @ w).tanh().sum().backward()
        np.testing.assert_allclose(g, w.grad.cpu().numpy(), rtol=1e-6, atol=1e-6)
        w.grad = None
