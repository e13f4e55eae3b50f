"""ember.optim on the CPU: SGD/Adam/AdamW against a NumPy transcription of torch's
update rules over several steps (every option), parameter groups, zero_grad, state dict
round trips, the fused step's checks, and the LR schedulers against their closed forms.
GPU runs against torch itself are in test_optim_gpu.py."""
import copy
import math

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.optim.lr_scheduler import (StepLR, CosineAnnealingLR, MultiStepLR, ExponentialLR,
                                      LambdaLR)

RNG = np.random.default_rng(11)


def params_and_grads(dtype=ember.float64, shapes=((3, 4), (4,), (2,))):
    ps = [nn.Parameter(ember.tensor(RNG.standard_normal(s), dtype=dtype)) for s in shapes]
    gs = [[RNG.standard_normal(s) for s in shapes] for _ in range(4)]  # 4 steps of grads
    return ps, gs


def sgd_ref(p, grads, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False,
            maximize=False):
    p = p.copy()
    buf = None
    for g in grads:
        d = -g if maximize else g.copy()
        if weight_decay:
            d = d + weight_decay * p
        if momentum:
            buf = d.copy() if buf is None else momentum * buf + (1 - dampening) * d
            d = d + momentum * buf if nesterov else buf
        p = p - lr * d
    return p


def adam_ref(p, grads, lr, b1, b2, eps, weight_decay=0, amsgrad=False, maximize=False,
             decoupled=False):
    p = p.copy()
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    vmax = np.zeros_like(p)
    for t, g in enumerate(grads, 1):
        g = -g if maximize else g
        if weight_decay:
            if decoupled:
                p = p * (1 - lr * weight_decay)
            else:
                g = g + weight_decay * p
        m = m + (1 - b1) * (g - m)
        v = b2 * v + (1 - b2) * g * g
        step_size = lr / (1 - b1 ** t)
        bc2 = math.sqrt(1 - b2 ** t)
        if amsgrad:
            vmax = np.maximum(vmax, v)
            denom = np.sqrt(vmax) / bc2 + eps
        else:
            denom = np.sqrt(v) / bc2 + eps
        p = p - step_size * (m / denom)
    return p


def run(opt, ps, gs):
    for step_grads in gs:
        opt.zero_grad()
        for p, g in zip(ps, step_grads):
            p.grad = ember.tensor(g, dtype=p.dtype)
        opt.step()


SGD_CASES = [
    dict(lr=0.1),
    dict(lr=0.1, momentum=0.9),
    dict(lr=0.05, momentum=0.9, dampening=0.1),
    dict(lr=0.05, momentum=0.9, nesterov=True),
    dict(lr=0.05, weight_decay=0.01),
    dict(lr=0.05, momentum=0.5, weight_decay=0.1, maximize=True),
]


@pytest.mark.parametrize("kw", SGD_CASES, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_sgd_matches_torch_rule(kw):
    ps, gs = params_and_grads()
    start = [p.detach().numpy().copy() for p in ps]
    run(ember.optim.SGD(ps, **kw), ps, gs)
    for i, p in enumerate(ps):
        np.testing.assert_allclose(p.detach().numpy(), sgd_ref(start[i], [g[i] for g in gs], **kw),
                                   rtol=1e-12, atol=1e-14)


ADAM_CASES = [
    dict(),
    dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6),
    dict(lr=0.01, weight_decay=0.1),
    dict(lr=0.01, amsgrad=True),
    dict(lr=0.01, maximize=True, weight_decay=0.05, amsgrad=True),
]


@pytest.mark.parametrize("decoupled", [False, True], ids=["Adam", "AdamW"])
@pytest.mark.parametrize("kw", ADAM_CASES, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()) or "default")
def test_adam_and_adamw_match_torch_rule(kw, decoupled):
    ps, gs = params_and_grads()
    start = [p.detach().numpy().copy() for p in ps]
    cls = ember.optim.AdamW if decoupled else ember.optim.Adam
    opt = cls(ps, **kw)
    run(opt, ps, gs)
    lr = kw.get("lr", 1e-3)
    b1, b2 = kw.get("betas", (0.9, 0.999))
    wd = kw.get("weight_decay", 1e-2 if decoupled else 0)
    for i, p in enumerate(ps):
        ref = adam_ref(start[i], [g[i] for g in gs], lr, b1, b2, kw.get("eps", 1e-8), wd,
                       kw.get("amsgrad", False), kw.get("maximize", False), decoupled)
        np.testing.assert_allclose(p.detach().numpy(), ref, rtol=1e-10, atol=1e-12)
    assert opt.state[ps[0]]["step"] == 4


@pytest.mark.parametrize("dtype", [ember.float32, ember.float16, ember.bfloat16])
def test_reduced_precision_steps(dtype):
    ps, gs = params_and_grads(dtype=ember.float64)
    low = [nn.Parameter(p.detach().to(dtype)) for p in ps]
    start = [p.detach().double().numpy() for p in low]
    run(ember.optim.Adam(low, lr=0.01), low, gs)
    tol = {ember.float32: 1e-5, ember.float16: 2e-2, ember.bfloat16: 6e-2}[dtype]
    for i, p in enumerate(low):
        ref = adam_ref(start[i], [g[i] for g in gs], 0.01, 0.9, 0.999, 1e-8)
        np.testing.assert_allclose(p.detach().double().numpy(), ref, rtol=tol, atol=tol)


def test_param_groups_and_missing_grads():
    a = nn.Parameter(ember.ones(2, dtype=ember.float64))
    b = nn.Parameter(ember.ones(2, dtype=ember.float64))
    c = nn.Parameter(ember.ones(2, dtype=ember.float64))
    opt = ember.optim.SGD([{"params": [a]}, {"params": [b, c], "lr": 1.0}], lr=0.1, momentum=0)
    assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[1]["lr"] == 1.0
    a.grad = ember.ones(2, dtype=ember.float64)
    b.grad = ember.ones(2, dtype=ember.float64)  # c has no grad: untouched
    opt.step()
    np.testing.assert_allclose(a.detach().numpy(), [0.9, 0.9])
    np.testing.assert_allclose(b.detach().numpy(), [0.0, 0.0])
    np.testing.assert_allclose(c.detach().numpy(), [1.0, 1.0])
    d = nn.Parameter(ember.ones(1))
    opt.add_param_group({"params": d, "lr": 0.5})
    assert opt.param_groups[2]["momentum"] == 0
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter "
                                         "group"):
        opt.add_param_group({"params": [a]})
    opt.zero_grad()
    assert a.grad is None and b.grad is None
    a.grad = ember.ones(2, dtype=ember.float64)
    opt.zero_grad(set_to_none=False)
    assert float(a.grad.sum()) == 0


def test_constructor_errors():
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        ember.optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate"):
        ember.optim.Adam([nn.Parameter(ember.ones(1))], lr=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero "
                                         "dampening"):
        ember.optim.SGD([nn.Parameter(ember.ones(1))], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        ember.optim.SGD([ember.ones(1, requires_grad=True) * 2], lr=0.1)
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors"):
        ember.optim.SGD([1.0], lr=0.1)


def test_state_dict_round_trip_continues_identically():
    ps, gs = params_and_grads()
    ps2 = [nn.Parameter(p.detach().clone()) for p in ps]
    opt = ember.optim.Adam(ps, lr=0.01, amsgrad=True)
    run(opt, ps, gs[:2])
    sd = opt.state_dict()
    assert set(sd) == {"state", "param_groups"}
    assert sd["param_groups"][0]["params"] == [0, 1, 2]
    assert float(sd["state"][0]["step"]) == 2.0
    assert set(sd["state"][0]) == {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}
    with ember.no_grad():
        for p2, p in zip(ps2, ps):
            p2.copy_(p)
    opt2 = ember.optim.Adam(ps2, lr=0.5, amsgrad=True)
    opt2.load_state_dict(copy.deepcopy(sd))  # (as torch, loading aliases the dict's tensors)
    assert opt2.param_groups[0]["lr"] == 0.01
    run(opt, ps, gs[2:])
    run(opt2, ps2, gs[2:])
    for p, p2 in zip(ps, ps2):
        np.testing.assert_array_equal(p.detach().numpy(), p2.detach().numpy())
    bad = ember.optim.Adam(ps2[:2])
    with pytest.raises(ValueError, match="loaded state dict contains a parameter group that "
                                         "doesn't match the size of optimizer's group"):
        bad.load_state_dict(sd)


def test_sgd_state_dict_keeps_momentum():
    ps, gs = params_and_grads()
    opt = ember.optim.SGD(ps, lr=0.1, momentum=0.9)
    run(opt, ps, gs[:1])
    sd = opt.state_dict()
    assert set(sd["state"][1]) == {"momentum_buffer"}
    np.testing.assert_allclose(sd["state"][1]["momentum_buffer"].numpy(), gs[0][1])


def test_fused_step_checks_and_versions():
    p = nn.Parameter(ember.ones(3))
    p.grad = ember.ones(3)
    v = p._version
    ember.optim.SGD([p], lr=0.1).step()
    assert p._version == v + 1  # the step is an in-place write
    with pytest.raises(RuntimeError, match="gradient or state has shape"):
        ember._C._sgd_step([p], [ember.ones(4)], [], [], 0.1, 0.0, 0.0, 0.0, False, False)
    with pytest.raises(RuntimeError, match="is float32 but its gradient or state is float64"):
        ember._C._sgd_step([p], [ember.ones(3, dtype=ember.float64)], [], [], 0.1, 0.0, 0.0, 0.0,
                           False, False)


def test_non_contiguous_parameter_is_updated():
    base = ember.ones(3, 2)
    p = nn.Parameter(base.t())  # a transposed view: not contiguous
    p.grad = ember.ones(2, 3)
    ember.optim.SGD([p], lr=0.5).step()
    np.testing.assert_allclose(p.detach().numpy(), np.full((2, 3), 0.5))


def test_closure():
    p = nn.Parameter(ember.tensor([2.0]))
    opt = ember.optim.SGD([p], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    assert float(opt.step(closure)) == 4.0
    np.testing.assert_allclose(p.detach().numpy(), [1.6])


# ---- schedulers --------------------------------------------------------------------------

def lrs(sched, opt, n):
    out = []
    for _ in range(n):
        out.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    return out


def test_step_lr():
    opt = ember.optim.SGD([nn.Parameter(ember.ones(1))], lr=1.0)
    s = StepLR(opt, step_size=3, gamma=0.5)
    np.testing.assert_allclose(lrs(s, opt, 8), [1, 1, 1, .5, .5, .5, .25, .25])
    assert s.get_last_lr() == [0.25]  # last_epoch 8: 0.5 ** (8 // 3)


def test_cosine_annealing_matches_closed_form():
    opt = ember.optim.SGD([nn.Parameter(ember.ones(1))], lr=0.1)
    s = CosineAnnealingLR(opt, T_max=10, eta_min=0.001)
    got = lrs(s, opt, 25)
    ref = [0.001 + (0.1 - 0.001) * (1 + math.cos(math.pi * t / 10)) / 2 for t in range(25)]
    np.testing.assert_allclose(got, ref, rtol=1e-9)


def test_other_schedulers_and_state_dict():
    opt = ember.optim.SGD([nn.Parameter(ember.ones(1))], lr=1.0)
    np.testing.assert_allclose(lrs(MultiStepLR(opt, [2, 4], 0.1), opt, 5),
                               [1, 1, .1, .1, .01])
    opt = ember.optim.SGD([nn.Parameter(ember.ones(1))], lr=1.0)
    np.testing.assert_allclose(lrs(ExponentialLR(opt, 0.5), opt, 3), [1, .5, .25])
    opt = ember.optim.SGD([nn.Parameter(ember.ones(1))], lr=1.0)
    s = LambdaLR(opt, lambda e: 1 / (e + 1))
    np.testing.assert_allclose(lrs(s, opt, 3), [1, .5, 1 / 3])
    opt = ember.optim.SGD([nn.Parameter(ember.ones(1))], lr=1.0)
    s = StepLR(opt, 2)
    lrs(s, opt, 3)
    sd = s.state_dict()
    assert sd["last_epoch"] == 3 and "optimizer" not in sd
