"""ember.optim.swa_utils: AveragedModel (SWA running mean, EMA through avg_fn and
multi_avg_fn, use_buffers), update_bn, SWALR and the avg-fn factories, against
NumPy averages of the weights' snapshots."""
import math
import pickle

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.optim import swa_utils as S

RNG = np.random.default_rng()


def model():
    return nn.Sequential(nn.Linear(4, 5), nn.BatchNorm1d(5), nn.ReLU(), nn.Linear(5, 2)).double()


def perturb(m):
    """A training step's stand-in: new random weights and BatchNorm statistics."""
    with ember.no_grad():
        for p in m.parameters():
            p.copy_(ember.tensor(RNG.standard_normal(tuple(p.shape))))
        m[1].running_mean.copy_(ember.tensor(RNG.standard_normal(5)))
        m[1].running_var.copy_(ember.tensor(RNG.uniform(0.5, 2, 5)))


def snapshot(m, buffers=False):
    ts = list(m.parameters()) + (list(m.buffers()) if buffers else [])
    return [t.detach().numpy().astype(np.float64).copy() for t in ts]


def averaged(avg, buffers=False):
    return snapshot(avg.module, buffers)


def test_swa_running_mean_and_buffers_copied():
    m = model()
    avg = S.AveragedModel(m)
    assert int(avg.n_averaged) == 0
    snaps = []
    for _ in range(int(RNG.integers(3, 7))):
        perturb(m)
        snaps.append(snapshot(m))
        avg.update_parameters(m)
    for got, *hist in zip(averaged(avg), *snaps):
        np.testing.assert_allclose(got, np.mean(hist, axis=0), rtol=1e-12, atol=1e-14)
    assert int(avg.n_averaged) == len(snaps)
    # without use_buffers the buffers are the model's latest (not averaged)
    np.testing.assert_array_equal(avg.module[1].running_mean.numpy(), m[1].running_mean.numpy())
    x = ember.tensor(RNG.standard_normal((3, 4)))
    avg.eval()
    np.testing.assert_allclose(avg(x).detach().numpy(), avg.module(x).detach().numpy())


@pytest.mark.parametrize("how", ["multi_avg_fn", "avg_fn"])
def test_ema(how):
    decay = RNG.uniform(0.5, 0.99)
    m = model()
    kw = ({"multi_avg_fn": S.get_ema_multi_avg_fn(decay)} if how == "multi_avg_fn"
          else {"avg_fn": S.get_ema_avg_fn(decay)})
    avg = S.AveragedModel(m, use_buffers=True, **kw)
    ema = None
    for _ in range(5):
        perturb(m)
        snap = snapshot(m, buffers=True)
        avg.update_parameters(m)
        ema = ([s.copy() for s in snap] if ema is None
               else [decay * e + (1 - decay) * s for e, s in zip(ema, snap)])
    got = averaged(avg, buffers=True)
    for g, e in zip(got, ema):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-14)


def test_swa_with_buffers_and_integer_buffers():
    m = model()
    avg = S.AveragedModel(m, multi_avg_fn=S.get_swa_multi_avg_fn(), use_buffers=True)
    snaps, counts = [], np.cumsum(RNG.integers(1, 50, 4))
    for c in counts:
        perturb(m)
        with ember.no_grad():
            m[1].num_batches_tracked.fill_(int(c))
        snaps.append(snapshot(m, buffers=True))
        avg.update_parameters(m)
    got = averaged(avg, buffers=True)
    for g, *hist in zip(got[:-1], *[s[:-1] for s in snaps]):
        np.testing.assert_allclose(g, np.mean(hist, axis=0), rtol=1e-12, atol=1e-14)
    # the integer buffer: avg += (new - avg) / (n + 1), kept an integer (torch's result)
    acc = int(counts[0])
    for n, c in enumerate(counts[1:], 1):
        acc = int(acc + (int(c) - acc) / (n + 1))
    assert avg.module[1].num_batches_tracked.dtype == ember.int64
    assert int(avg.module[1].num_batches_tracked) == acc


def test_avg_fn_factories_are_the_formulas():
    a, b = RNG.standard_normal(6), RNG.standard_normal(6)
    ta, tb = ember.tensor(a), ember.tensor(b)
    d = RNG.uniform(0, 1)
    np.testing.assert_allclose(S.get_ema_avg_fn(d)(ta, tb, 3).numpy(), d * a + (1 - d) * b)
    np.testing.assert_allclose(S.get_swa_avg_fn()(ta, tb, ember.tensor(3)).numpy(),
                               a + (b - a) / 4)
    x, y = ember.tensor(a), ember.tensor(b)
    S.get_swa_multi_avg_fn()([x], [y], 2)
    np.testing.assert_allclose(x.numpy(), a + (b - a) / 3)
    x = ember.tensor(a)
    S.get_ema_multi_avg_fn(d)([x], [ember.tensor(b)], 7)
    np.testing.assert_allclose(x.numpy(), d * a + (1 - d) * b)
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match=f"Invalid decay value {bad} provided"):
            S.get_ema_avg_fn(bad)
        with pytest.raises(ValueError, match=f"Invalid decay value {bad} provided"):
            S.get_ema_multi_avg_fn(bad)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        S.AveragedModel(model(), avg_fn=S.get_swa_avg_fn(),
                        multi_avg_fn=S.get_swa_multi_avg_fn())


def test_update_bn_recomputes_statistics():
    m = model()
    perturb(m)
    m[1].momentum = 0.3
    batches = [ember.tensor(RNG.standard_normal((8, 4)) * 2 + 1) for _ in range(5)]
    loader = [(b, ember.zeros(8)) for b in batches]  # (input, target) pairs: input is used
    m.eval()
    S.update_bn(loader, m)
    assert not m.training and m[1].momentum == 0.3
    feats = [m[0](b).detach().numpy() for b in batches]
    # momentum None: the cumulative average of the batches' statistics
    np.testing.assert_allclose(m[1].running_mean.numpy(),
                               np.mean([f.mean(0) for f in feats], axis=0), rtol=1e-10)
    np.testing.assert_allclose(m[1].running_var.numpy(),
                               np.mean([f.var(0, ddof=1) for f in feats], axis=0), rtol=1e-10)
    assert int(m[1].num_batches_tracked) == 5
    lin = nn.Linear(2, 2)
    S.update_bn([ember.ones(1, 2)], lin)  # no BatchNorm: nothing to do


def test_swalr_closed_form_and_state_dict():
    swa_lr, E = RNG.uniform(0.01, 0.05), int(RNG.integers(2, 8))
    for strategy, anneal in (("cos", lambda t: (1 - math.cos(math.pi * t)) / 2),
                             ("linear", lambda t: t)):
        opt = ember.optim.SGD([nn.Parameter(ember.ones(2))], lr=0.1)
        s = S.SWALR(opt, swa_lr, anneal_epochs=E, anneal_strategy=strategy)
        got = []
        for _ in range(2 * E + 3):
            got.append(opt.param_groups[0]["lr"])
            opt.step()
            s.step()
        ref = [swa_lr * anneal(min(1, t / E)) + 0.1 * (1 - anneal(min(1, t / E)))
               for t in range(2 * E + 3)]
        np.testing.assert_allclose(got, ref, rtol=1e-9)
        sd = pickle.loads(pickle.dumps(s.state_dict()))
        assert "anneal_func" not in sd and sd["_anneal_strategy"] == strategy
        s2 = S.SWALR(ember.optim.SGD([nn.Parameter(ember.ones(2))], lr=0.1), 0.5)
        s2.load_state_dict(sd)
        assert s2.anneal_func(0.5) == anneal(0.5)
    with pytest.raises(ValueError, match="anneal_strategy must by one of 'cos' or 'linear'"):
        S.SWALR(opt, 0.1, anneal_strategy="exp")
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0"):
        S.SWALR(opt, 0.1, anneal_epochs=-1)


def test_swalr_zero_anneal_epochs_jumps_to_swa_lr():
    opt = ember.optim.SGD([nn.Parameter(ember.ones(2))], lr=0.1)
    s = S.SWALR(opt, 0.02, anneal_epochs=0)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.02)
    opt.step()
    s.step()
    assert s.get_last_lr() == [pytest.approx(0.02)]
