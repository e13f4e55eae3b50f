"""ember.optim on the GPU against torch.optim for several steps (SGD with every option,
Adam/AdamW with amsgrad, maximize, weight decay), float32 and float64, many parameters (so
the multi-tensor launches split tensors across launches), and state dicts moved between
devices. Run on the H100 machine."""
import numpy as np
import pytest

import ember
import ember.nn as nn
from torch_util import dtype_name

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(5)


# shapes: small ones, one bigger than a chunk (65536), one that spans launches
SHAPES = [(3, 4), (5,), (300, 700), (1,), (70000,)]


def pair(torch, dtype, shapes=SHAPES):
    ep, tp = [], []
    for s in shapes:
        a = RNG.standard_normal(s).astype(np.float64)
        ep.append(nn.Parameter(ember.tensor(a, dtype=dtype, device="cuda")))
        tp.append(torch.nn.Parameter(torch.tensor(a, dtype=getattr(torch, dtype_name(dtype)),
                                                  device="cuda")))
    return ep, tp


def drive(torch, eopt, topt, ep, tp, steps=5):
    for _ in range(steps):
        eopt.zero_grad()
        topt.zero_grad()
        for e_, t_ in zip(ep, tp):
            g = RNG.standard_normal(tuple(t_.shape))
            e_.grad = ember.tensor(g, dtype=e_.dtype, device="cuda")
            t_.grad = torch.tensor(g, dtype=t_.dtype, device="cuda")
        eopt.step()
        topt.step()


def compare(ep, tp, tol):
    for i, (e_, t_) in enumerate(zip(ep, tp)):
        np.testing.assert_allclose(e_.detach().cpu().double().numpy(),
                                   t_.detach().cpu().double().numpy(), rtol=tol, atol=tol,
                                   err_msg=f"parameter {i}")


SGD_CASES = [dict(lr=0.1), dict(lr=0.1, momentum=0.9), dict(lr=0.05, momentum=0.9, nesterov=True),
             dict(lr=0.05, momentum=0.5, dampening=0.2, weight_decay=0.01),
             dict(lr=0.05, momentum=0.9, maximize=True)]


@pytest.mark.parametrize("kw", SGD_CASES, ids=str)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=str)
def test_sgd_matches_torch(torch, kw, dtype):
    ep, tp = pair(torch, dtype)
    drive(torch, ember.optim.SGD(ep, **kw), torch.optim.SGD(tp, **kw), ep, tp)
    compare(ep, tp, 1e-5 if dtype == ember.float32 else 1e-12)


ADAM_CASES = [dict(), dict(lr=0.01, amsgrad=True), dict(lr=0.01, weight_decay=0.1),
              dict(lr=0.01, betas=(0.8, 0.9), eps=1e-6, maximize=True)]


@pytest.mark.parametrize("cls", ["Adam", "AdamW"])
@pytest.mark.parametrize("kw", ADAM_CASES, ids=str)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=str)
def test_adam_matches_torch(torch, cls, kw, dtype):
    ep, tp = pair(torch, dtype)
    drive(torch, getattr(ember.optim, cls)(ep, **kw), getattr(torch.optim, cls)(tp, **kw), ep, tp)
    compare(ep, tp, 2e-5 if dtype == ember.float32 else 1e-11)


def test_many_parameters_split_across_launches(torch):
    shapes = [(17,)] * 150 + [(70000,)] * 3  # > 64 tensors and > 320 chunks in all
    ep, tp = pair(torch, ember.float32, shapes)
    drive(torch, ember.optim.Adam(ep, lr=0.01), torch.optim.Adam(tp, lr=0.01), ep, tp, steps=2)
    compare(ep, tp, 2e-5)


def test_state_dict_moves_from_gpu_to_cpu(torch, tmp_path):
    ep, tp = pair(torch, ember.float32, [(4, 4)])
    opt = ember.optim.Adam(ep, lr=0.01)
    drive(torch, opt, torch.optim.Adam(tp, lr=0.01), ep, tp, steps=2)
    path = tmp_path / "opt.pt"
    ember.save(opt.state_dict(), path)
    cpu_param = nn.Parameter(ep[0].detach().cpu())
    opt_cpu = ember.optim.Adam([cpu_param], lr=0.01)
    opt_cpu.load_state_dict(ember.load(path, map_location="cpu"))
    st = opt_cpu.state[cpu_param]
    assert st["exp_avg"].device.type == "cpu" and st["step"] == 2
    cpu_param.grad = ember.ones(4, 4)
    opt_cpu.step()


def test_optimizer_step_runs_on_the_current_stream(torch):
    ep, _ = pair(torch, ember.float32, [(1000,)])
    opt = ember.optim.SGD(ep, lr=0.1)
    ep[0].grad = ember.ones(1000, device="cuda")
    s = ember.cuda.Stream()
    before = ep[0].detach().clone()
    s.wait_stream(ember.cuda.current_stream())
    with ember.cuda.stream(s):
        opt.step()
    s.synchronize()
    np.testing.assert_allclose((before - ep[0].detach()).cpu().numpy(), np.full(1000, 0.1),
                               rtol=1e-6)
