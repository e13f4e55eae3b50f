"""ember.nn on the GPU against torch (same weights copied across, same inputs): every layer's
output and gradients, every loss and its gradient, the errors of the issue (wrong feature
size, mixed devices), Module.to moving parameters/buffers/grads, and the training-loop
parity: same initial weights and data, the loss after 100 SGD steps matches torch's within
float32 tolerance. Run on the H100 machine."""
import numpy as np
import pytest

import ember
import ember.nn as enn
import ember.nn.functional as EF

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(21)


@pytest.fixture
def torch(torch_fp32):
    """The oracle with TF32 off (conftest.py's torch_fp32)."""
    return torch_fp32


def arr(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, size=shape).astype(np.float32)


def e(a, grad=False):
    return ember.tensor(a, device="cuda", requires_grad=grad)


def t(torch, a, grad=False):
    return torch.tensor(a, device="cuda", requires_grad=grad)


def host(x):
    return x.detach().cpu().float().numpy()


def copy_weights(torch, emod, tmod):
    with torch.no_grad():
        for (en, ep), (tn, tp) in zip(emod.named_parameters(), tmod.named_parameters()):
            assert en == tn
            tp.copy_(torch.from_numpy(host(ep)))


LAYERS = [
    ("Linear", lambda nn: nn.Linear(7, 5)),
    ("Linear_nobias", lambda nn: nn.Linear(7, 5, bias=False)),
    ("ReLU", lambda nn: nn.ReLU()),
    ("GELU", lambda nn: nn.GELU()),
    ("GELU_tanh", lambda nn: nn.GELU(approximate="tanh")),
    ("SiLU", lambda nn: nn.SiLU()),
    ("Sigmoid", lambda nn: nn.Sigmoid()),
    ("Tanh", lambda nn: nn.Tanh()),
    ("Softmax", lambda nn: nn.Softmax(dim=1)),
    ("LogSoftmax", lambda nn: nn.LogSoftmax(dim=-1)),
    ("Flatten", lambda nn: nn.Flatten(0)),
    ("Identity", lambda nn: nn.Identity()),
    ("Sequential", lambda nn: nn.Sequential(nn.Linear(7, 16), nn.ReLU(), nn.Linear(16, 3),
                                            nn.Tanh())),
]


@pytest.mark.parametrize("name,make", LAYERS, ids=[n for n, _ in LAYERS])
def test_layers_match_torch(torch, name, make):
    em, tm = make(enn).cuda(), make(torch.nn).cuda()
    copy_weights(torch, em, tm)
    x = arr(6, 7)
    ex, tx = e(x, True), t(torch, x, True)
    ey, ty = em(ex), tm(tx)
    np.testing.assert_allclose(host(ey), host(ty), rtol=1e-5, atol=1e-6)
    g = arr(*ty.shape)
    ey.backward(e(g))
    ty.backward(t(torch, g))
    np.testing.assert_allclose(host(ex.grad), host(tx.grad), rtol=1e-5, atol=1e-6)
    for (n, ep), (_, tp) in zip(em.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(host(ep.grad), host(tp.grad), rtol=1e-5, atol=1e-5,
                                   err_msg=n)


LOSSES = [
    ("MSELoss", lambda nn: nn.MSELoss(), "float"),
    ("MSELoss_sum", lambda nn: nn.MSELoss(reduction="sum"), "float"),
    ("L1Loss", lambda nn: nn.L1Loss(), "float"),
    ("L1Loss_none", lambda nn: nn.L1Loss(reduction="none"), "float"),
    ("CrossEntropyLoss", lambda nn: nn.CrossEntropyLoss(), "index"),
    ("CrossEntropyLoss_ignore", lambda nn: nn.CrossEntropyLoss(ignore_index=2), "index"),
    ("CrossEntropyLoss_smooth", lambda nn: nn.CrossEntropyLoss(label_smoothing=0.2), "index"),
    ("CrossEntropyLoss_probs", lambda nn: nn.CrossEntropyLoss(), "probs"),
    ("CrossEntropyLoss_none", lambda nn: nn.CrossEntropyLoss(reduction="none"), "index"),
    ("NLLLoss", lambda nn: nn.NLLLoss(), "index"),
    ("BCEWithLogitsLoss", lambda nn: nn.BCEWithLogitsLoss(), "unit"),
]


@pytest.mark.parametrize("name,make,kind", LOSSES, ids=[n for n, _, _ in LOSSES])
def test_losses_match_torch(torch, name, make, kind):
    x = arr(8, 5, low=-2, high=2)
    if kind == "index":
        y = RNG.integers(0, 5, size=8)
        ey, ty = ember.tensor(y, device="cuda"), torch.tensor(y, device="cuda")
    elif kind == "probs":
        p = np.exp(arr(8, 5))
        p = (p / p.sum(1, keepdims=True)).astype(np.float32)
        ey, ty = e(p), t(torch, p)
    elif kind == "unit":
        p = arr(8, 5, low=0, high=1)
        ey, ty = e(p), t(torch, p)
    else:
        p = arr(8, 5)
        ey, ty = e(p), t(torch, p)
    ex, tx = e(x, True), t(torch, x, True)
    if name == "NLLLoss":
        el, tl = make(enn)(EF.log_softmax(ex, 1), ey), make(torch.nn)(
            torch.log_softmax(tx, 1), ty)
    else:
        el, tl = make(enn)(ex, ey), make(torch.nn)(tx, ty)
    np.testing.assert_allclose(host(el), host(tl), rtol=1e-5, atol=1e-6)
    g = np.ones(tuple(tl.shape), np.float32)
    el.backward(e(g))
    tl.backward(t(torch, g))
    np.testing.assert_allclose(host(ex.grad), host(tx.grad), rtol=1e-5, atol=1e-6)


def test_weighted_losses_match_torch(torch):
    x = arr(8, 4, low=-2, high=2)
    y = RNG.integers(0, 4, size=8)
    w = arr(4, low=0.5, high=2)
    el = enn.CrossEntropyLoss(weight=e(w), label_smoothing=0.1)(e(x), ember.tensor(y, device="cuda"))
    tl = torch.nn.CrossEntropyLoss(weight=t(torch, w), label_smoothing=0.1)(
        t(torch, x), torch.tensor(y, device="cuda"))
    np.testing.assert_allclose(host(el), host(tl), rtol=1e-5)
    pw = arr(4, low=0.5, high=2)
    z = arr(8, 4, low=0, high=1)
    el = enn.BCEWithLogitsLoss(pos_weight=e(pw))(e(x), e(z))
    tl = torch.nn.BCEWithLogitsLoss(pos_weight=t(torch, pw))(t(torch, x), t(torch, z))
    np.testing.assert_allclose(host(el), host(tl), rtol=1e-5)


def test_dropout_on_the_gpu(torch):
    ember.manual_seed(0)
    x = ember.ones(1000, 100, device="cuda", requires_grad=True)
    y = enn.Dropout(0.3)(x)
    kept = host(y) != 0
    assert abs(kept.mean() - 0.7) < 0.01
    y.sum().backward()
    np.testing.assert_allclose(host(x.grad), host(y), rtol=1e-6)


def test_linear_errors_on_the_gpu():
    lin = enn.Linear(784, 256).cuda()
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied "
                                           r"\(64x10 and 784x256\)"):
        lin(ember.zeros(64, 10, device="cuda"))
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        lin(ember.zeros(64, 784))  # model on the GPU, input on the CPU
    assert lin(ember.zeros(2, 784, device="cuda")).shape == (2, 256)


def test_module_to_moves_parameters_buffers_and_grads():
    m = enn.Sequential(enn.Linear(3, 4), enn.Identity())
    m.register_buffer("count", ember.zeros(()))
    w = m[0].weight
    m(ember.ones(2, 3)).sum().backward()
    m.cuda()
    assert m[0].weight is w and w.is_cuda and w.grad.is_cuda and m.count.is_cuda
    m.to("cpu", ember.float64)
    assert w.device.type == "cpu" and w.dtype == ember.float64 and w.grad.dtype == ember.float64
    m.to(ember.device("cuda", 0))
    y = m(ember.ones(2, 3, dtype=ember.float64, device="cuda"))
    assert y.is_cuda


def _mlp_parity(torch, steps, lr):
    import ember.nn as nn
    ember.manual_seed(0)
    em = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10)).cuda()
    tm = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                             torch.nn.Linear(256, 10)).cuda()
    copy_weights(torch, em, tm)
    x, y = arr(64, 784), arr(64, 10)
    ex, ey, tx, ty = e(x), e(y), t(torch, x), t(torch, y)
    eopt = ember.optim.SGD(em.parameters(), lr=lr)
    topt = torch.optim.SGD(tm.parameters(), lr=lr)
    ecrit, tcrit = nn.MSELoss(), torch.nn.MSELoss()
    for _ in range(steps):
        eopt.zero_grad()
        el = ecrit(em(ex), ey)
        el.backward()
        eopt.step()
        topt.zero_grad()
        tl = tcrit(tm(tx), ty)
        tl.backward()
        topt.step()
    return em, tm, el.item(), tl.item()


def test_loss_after_100_steps_matches_torch(torch):
    em, tm, el, tl = _mlp_parity(torch, 100, 0.01)
    assert abs(el - tl) <= 1e-4 * abs(tl) + 1e-6, (el, tl)
    for (n, ep), (_, tp) in zip(em.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(host(ep), host(tp), rtol=1e-4, atol=1e-5, err_msg=n)
