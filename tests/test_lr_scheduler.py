"""ember.optim.lr_scheduler: every scheduler over many steps against its closed form
(written here from the schedules' definitions, not from the schedulers' code), with
random hyperparameters and two parameter groups; momentum/beta1 cycling; state dict
round trips (a resumed schedule continues as an uninterrupted one); the deprecated
step(epoch) (closed form, warning); torch 2.11's warnings and errors."""
import bisect
import math
import pickle
import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.optim import lr_scheduler as L

RNG = np.random.default_rng()


def make_opt(kind="sgd", lrs=(0.1, 0.03)):
    groups = [{"params": [nn.Parameter(ember.ones(2))], "lr": lr} for lr in lrs]
    if kind == "sgd":
        return ember.optim.SGD(groups, lr=lrs[0], momentum=0.9)
    return ember.optim.Adam(groups, lr=lrs[0], betas=(0.9, 0.999))


def run(opt, sched, n, key="lr"):
    """The value of `key` of each group before each of n (optimizer, scheduler) steps."""
    out = []
    for _ in range(n):
        out.append([g[key] if key != "beta1" else g["betas"][0] for g in opt.param_groups])
        opt.step()
        sched.step()
    return np.array(out, dtype=np.float64)


def expect(fn, n, bases):
    return np.array([[fn(t, b) for b in bases] for t in range(n)], dtype=np.float64)


BASES = (0.1, 0.03)


def check(make_sched, closed_form, n=60, rtol=1e-10):
    opt = make_opt()
    got = run(opt, make_sched(opt), n)
    np.testing.assert_allclose(got, expect(closed_form, n, BASES), rtol=rtol, atol=1e-15)


# ---- each scheduler against its closed form ---------------------------------------

def test_lambda_lr_per_group_lambdas():
    a, b = RNG.uniform(0.5, 0.99, 2)
    opt = make_opt()
    s = L.LambdaLR(opt, [lambda e: a ** e, lambda e: 1 / (1 + b * e)])
    got = run(opt, s, 40)
    ref = np.array([[0.1 * a ** t, 0.03 / (1 + b * t)] for t in range(40)])
    np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_multiplicative_lr():
    f = RNG.uniform(0.8, 0.99)
    check(lambda o: L.MultiplicativeLR(o, lambda e: f + 0.001 * (e % 3)),
          lambda t, b: b * math.prod(f + 0.001 * (k % 3) for k in range(1, t + 1)))


def test_step_lr():
    step, gamma = int(RNG.integers(2, 7)), RNG.uniform(0.1, 0.9)
    check(lambda o: L.StepLR(o, step, gamma), lambda t, b: b * gamma ** (t // step))


def test_multistep_lr_with_repeated_milestones():
    ms = sorted(RNG.choice(np.arange(1, 50), 4, replace=False).tolist())
    ms = ms + [ms[1]]  # a milestone given twice: gamma**2 there
    gamma = RNG.uniform(0.2, 0.9)
    check(lambda o: L.MultiStepLR(o, ms, gamma),
          lambda t, b: b * gamma ** bisect.bisect_right(sorted(ms), t))


def test_constant_lr():
    factor, total = RNG.uniform(0.1, 0.9), int(RNG.integers(2, 20))
    check(lambda o: L.ConstantLR(o, factor, total),
          lambda t, b: b * (factor if t < total else 1.0))


def test_linear_lr():
    sf, ef, total = RNG.uniform(0.05, 0.5), RNG.uniform(0.5, 1.0), int(RNG.integers(3, 30))
    check(lambda o: L.LinearLR(o, sf, ef, total),
          lambda t, b: b * (sf + (ef - sf) * min(t, total) / total), rtol=1e-9)


def test_exponential_lr():
    gamma = RNG.uniform(0.8, 0.99)
    check(lambda o: L.ExponentialLR(o, gamma), lambda t, b: b * gamma ** t, rtol=1e-9)


def test_polynomial_lr():
    total, power = int(RNG.integers(5, 40)), RNG.uniform(0.5, 3.0)
    check(lambda o: L.PolynomialLR(o, total, power),
          lambda t, b: b * (1 - min(t, total) / total) ** power, rtol=1e-8)


def test_cosine_annealing_lr_past_t_max():
    T, eta = int(RNG.integers(5, 15)), RNG.uniform(0, 0.01)
    check(lambda o: L.CosineAnnealingLR(o, T, eta),
          lambda t, b: eta + (b - eta) * (1 + math.cos(math.pi * t / T)) / 2, n=4 * T + 3,
          rtol=1e-8)


def warm_restarts_ref(t, T0, mult):
    Ti, tcur = T0, t
    while tcur >= Ti:
        tcur -= Ti
        Ti *= mult
    return tcur, Ti


@pytest.mark.parametrize("mult", [1, 2, 3])
def test_cosine_annealing_warm_restarts(mult):
    T0, eta = int(RNG.integers(2, 6)), RNG.uniform(0, 0.005)

    def ref(t, b):
        tcur, Ti = warm_restarts_ref(t, T0, mult)
        return eta + (b - eta) * (1 + math.cos(math.pi * tcur / Ti)) / 2

    check(lambda o: L.CosineAnnealingWarmRestarts(o, T0, mult, eta), ref, n=50)


def test_cosine_annealing_warm_restarts_fractional_epochs():
    opt = make_opt()
    T0, mult = 3, 2
    s = L.CosineAnnealingWarmRestarts(opt, T0, mult)
    for epoch in np.linspace(0, 20, 41)[1:]:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # its own step: fractional epochs are its use
            s.step(epoch)
        n = int(math.log(epoch / T0 * (mult - 1) + 1, mult)) if epoch >= T0 else 0
        start = T0 * (mult ** n - 1) / (mult - 1)
        Ti = T0 * mult ** n
        ref = [b * (1 + math.cos(math.pi * (epoch - start) / Ti)) / 2 for b in BASES]
        np.testing.assert_allclose(s.get_last_lr(), ref, rtol=1e-9, atol=1e-15)


def cyclic_ref(t, base, mx, up, down, mode, gamma):
    total = up + down
    p = t % total
    frac = p / up if p < up else 1 - (p - up) / down
    cycle = t // total + 1
    scale = {"triangular": 1.0, "triangular2": 1 / 2 ** (cycle - 1),
             "exp_range": gamma ** t}[mode]
    return base + (mx - base) * frac * scale, frac * scale


@pytest.mark.parametrize("mode", ["triangular", "triangular2", "exp_range"])
@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_cyclic_lr_and_momentum(mode, kind):
    up, down = int(RNG.integers(2, 6)), int(RNG.integers(2, 8))
    gamma = RNG.uniform(0.9, 0.99)
    base_lrs, max_lrs = (0.01, 0.002), (0.1, 0.05)
    bm, mm = 0.8, 0.95
    opt = make_opt(kind)
    s = L.CyclicLR(opt, list(base_lrs), list(max_lrs), step_size_up=up, step_size_down=down,
                   mode=mode, gamma=gamma, base_momentum=bm, max_momentum=mm)
    n = 5 * (up + down)
    key = "momentum" if kind == "sgd" else "beta1"
    lrs, moms = [], []
    for _ in range(n):
        lrs.append([g["lr"] for g in opt.param_groups])
        moms.append([g["momentum"] if kind == "sgd" else g["betas"][0]
                     for g in opt.param_groups])
        opt.step()
        s.step()
    ref_lr = [[cyclic_ref(t, b, m, up, down, mode, gamma)[0] for b, m in zip(base_lrs, max_lrs)]
              for t in range(n)]
    ref_m = [[mm - (mm - bm) * cyclic_ref(t, 0, 1, up, down, mode, gamma)[1]] * 2
             for t in range(n)]
    np.testing.assert_allclose(lrs, ref_lr, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(moms, ref_m, rtol=1e-9, atol=1e-15)
    if kind == "adam":
        assert all(g["betas"][1] == 0.999 for g in opt.param_groups), key


def test_cyclic_lr_custom_scale_fn_and_no_momentum_cycling():
    opt = make_opt()
    s = L.CyclicLR(opt, 0.01, 0.1, step_size_up=4, scale_fn=lambda x: 0.5 ** x,
                   scale_mode="iterations", cycle_momentum=False)
    got = run(opt, s, 24)
    ref = [[0.01 + (0.1 - 0.01) * cyclic_ref(t, 0, 1, 4, 4, "triangular", 1)[1] * 0.5 ** t] * 2
           for t in range(24)]
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-15)
    assert all(g["momentum"] == 0.9 for g in opt.param_groups)


def one_cycle_ref(t, total, max_lr, pct, div, final_div, strategy, three_phase, bm, mm):
    def anneal(a, b, x):
        if strategy == "cos":
            return b + (a - b) / 2 * (1 + math.cos(math.pi * x))
        return a + (b - a) * x
    init = max_lr / div
    low = init / final_div
    e1 = pct * total - 1
    if three_phase:
        e2 = 2 * pct * total - 2
        if t <= e1:
            x = t / e1
            return anneal(init, max_lr, x), anneal(mm, bm, x)
        if t <= e2:
            x = (t - e1) / (e2 - e1)
            return anneal(max_lr, init, x), anneal(bm, mm, x)
        x = (t - e2) / (total - 1 - e2)
        return anneal(init, low, x), mm
    if t <= e1:
        x = t / e1
        return anneal(init, max_lr, x), anneal(mm, bm, x)
    x = (t - e1) / (total - 1 - e1)
    return anneal(max_lr, low, x), anneal(bm, mm, x)


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("three_phase", [False, True])
@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_one_cycle_lr(strategy, three_phase, kind):
    total = int(RNG.integers(30, 80))
    pct, div, fdiv = 0.3, RNG.uniform(10, 30), RNG.uniform(1e2, 1e4)
    max_lrs = (0.5, 0.2)
    opt = make_opt(kind)
    s = L.OneCycleLR(opt, list(max_lrs), total_steps=total, pct_start=pct,
                     anneal_strategy=strategy, div_factor=div, final_div_factor=fdiv,
                     three_phase=three_phase, base_momentum=0.85, max_momentum=0.95)
    lrs, moms = [], []
    for _ in range(total):
        lrs.append([g["lr"] for g in opt.param_groups])
        moms.append([g["momentum"] if kind == "sgd" else g["betas"][0]
                     for g in opt.param_groups])
        opt.step()
        s.step() if len(lrs) < total else None
    refs = [[one_cycle_ref(t, total, m, pct, div, fdiv, strategy, three_phase, 0.85, 0.95)
             for m in max_lrs] for t in range(total)]
    np.testing.assert_allclose(lrs, [[r[0] for r in row] for row in refs], rtol=1e-9)
    np.testing.assert_allclose(moms, [[r[1] for r in row] for row in refs], rtol=1e-9)
    s.step()  # step `total`: allowed; one more is not
    with pytest.raises(ValueError, match=f"Tried to step {total + 1} times. The specified "
                                         f"number of total steps is {total}"):
        s.step()


def test_one_cycle_epochs_and_steps_per_epoch():
    opt = make_opt()
    s = L.OneCycleLR(opt, 0.1, epochs=3, steps_per_epoch=7)
    assert s.total_steps == 21
    with pytest.raises(ValueError, match="You must define either total_steps OR"):
        L.OneCycleLR(make_opt(), 0.1)
    with pytest.raises(ValueError, match="Expected float between 0 and 1 pct_start"):
        L.OneCycleLR(make_opt(), 0.1, total_steps=10, pct_start=1.5)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear'"):
        L.OneCycleLR(make_opt(), 0.1, total_steps=10, anneal_strategy="exp")


def plateau_ref(metrics, lr0, mode, factor, patience, threshold, threshold_mode, cooldown,
                min_lr, eps):
    """The lr after each step, from ReduceLROnPlateau's documented rule."""
    best = math.inf if mode == "min" else -math.inf
    bad, cool, lr, out = 0, 0, lr0, []
    for m in metrics:
        if mode == "min":
            better = m < (best * (1 - threshold) if threshold_mode == "rel" else best - threshold)
        else:
            better = m > (best * (1 + threshold) if threshold_mode == "rel" else best + threshold)
        if better:
            best, bad = m, 0
        else:
            bad += 1
        if cool > 0:
            cool -= 1
            bad = 0
        if bad > patience:
            new = max(lr * factor, min_lr)
            if lr - new > eps:
                lr = new
            cool, bad = cooldown, 0
        out.append(lr)
    return out


@pytest.mark.parametrize("mode", ["min", "max"])
@pytest.mark.parametrize("threshold_mode", ["rel", "abs"])
def test_reduce_lr_on_plateau(mode, threshold_mode):
    # A noisy plateau: some epochs improve, most do not.
    sign = 1 if mode == "min" else -1
    metrics = (sign * (10 - np.minimum.accumulate(RNG.uniform(0, 1, 80)) * 5)
               + RNG.normal(0, 0.05, 80)).tolist()
    kw = dict(mode=mode, factor=0.5, patience=int(RNG.integers(1, 4)), threshold=1e-3,
              threshold_mode=threshold_mode, cooldown=int(RNG.integers(0, 3)), min_lr=0.01,
              eps=1e-8)
    opt = make_opt(lrs=(0.1,))
    s = L.ReduceLROnPlateau(opt, **kw)
    got = []
    for m in metrics:
        s.step(ember.tensor(m) if len(got) % 2 else m)  # numbers and 0-d tensors
        got.append(opt.param_groups[0]["lr"])
        assert s.get_last_lr() == [got[-1]]
    ref = plateau_ref(metrics, 0.1, kw["mode"], kw["factor"], kw["patience"], kw["threshold"],
                      threshold_mode, kw["cooldown"], kw["min_lr"], kw["eps"])
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    assert min(got) >= 0.01


def test_reduce_lr_on_plateau_min_lrs_eps_and_errors():
    opt = make_opt()
    s = L.ReduceLROnPlateau(opt, patience=0, min_lr=[0.05, 0.0], factor=0.1, eps=1e-3)
    for _ in range(4):
        s.step(1.0)
    # group 0 stops at its min_lr; group 1 stops once a change would be below eps
    assert opt.param_groups[0]["lr"] == 0.05
    assert opt.param_groups[1]["lr"] == pytest.approx(0.03 * 0.1 ** 2)
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        L.ReduceLROnPlateau(make_opt(), factor=1.0)
    with pytest.raises(ValueError, match="expected 2 min_lrs, got 1"):
        L.ReduceLROnPlateau(make_opt(), min_lr=[0.1])
    with pytest.raises(ValueError, match="mode avg is unknown!"):
        L.ReduceLROnPlateau(make_opt(), mode="avg")
    with pytest.raises(ValueError, match="threshold mode pct is unknown!"):
        L.ReduceLROnPlateau(make_opt(), threshold_mode="pct")
    sd = s.state_dict()
    s2 = L.ReduceLROnPlateau(make_opt(), mode="max")
    s2.load_state_dict(sd)
    assert s2.mode == "min" and s2.best == 1.0 and s2.min_lrs == [0.05, 0.0]


def test_sequential_lr_warmup_then_decay():
    sf, total, gamma, m = RNG.uniform(0.1, 0.5), 7, RNG.uniform(0.8, 0.95), 5
    opt = make_opt()
    s = L.SequentialLR(opt, [L.LinearLR(opt, sf, 1.0, total), L.ExponentialLR(opt, gamma)], [m])
    got = run(opt, s, 30)
    ref = expect(lambda t, b: b * (sf + (1 - sf) * min(t, total) / total) if t < m
                 else b * gamma ** (t - m), 30, BASES)
    np.testing.assert_allclose(got, ref, rtol=1e-9)


def test_chained_scheduler():
    factor, total, gamma = RNG.uniform(0.2, 0.8), 4, RNG.uniform(0.8, 0.95)
    opt = make_opt()
    s = L.ChainedScheduler([L.ConstantLR(opt, factor, total), L.ExponentialLR(opt, gamma)])
    got = run(opt, s, 20)
    ref = expect(lambda t, b: b * gamma ** t * (factor if t < total else 1), 20, BASES)
    np.testing.assert_allclose(got, ref, rtol=1e-9)


def test_composed_scheduler_errors():
    opt = make_opt()
    with pytest.raises(ValueError, match="expects at least one scheduler"):
        L.SequentialLR(opt, [], [])
    with pytest.raises(ValueError, match="number of milestones to be equal to 2"):
        L.SequentialLR(opt, [L.StepLR(opt, 2), L.StepLR(opt, 3)], [1, 2])
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        L.ChainedScheduler([L.ReduceLROnPlateau(opt)])
    other = make_opt()
    with pytest.raises(ValueError, match="expects all schedulers to belong to the same optimizer"):
        L.SequentialLR(opt, [L.StepLR(opt, 2), L.StepLR(other, 2)], [3])


# ---- state dicts, step(epoch), warnings, errors -----------------------------------

RESUMABLE = [
    lambda o: L.StepLR(o, 3, 0.5),
    lambda o: L.MultiStepLR(o, [3, 7, 7], 0.3),
    lambda o: L.LinearLR(o, 0.2, 1.0, 9),
    lambda o: L.CosineAnnealingLR(o, 8, 0.001),
    lambda o: L.CosineAnnealingWarmRestarts(o, 3, 2),
    lambda o: L.CyclicLR(o, 0.01, 0.1, step_size_up=3, mode="triangular2"),
    lambda o: L.OneCycleLR(o, 0.3, total_steps=40, three_phase=True),
    lambda o: L.PolynomialLR(o, 12, 2.0),
    lambda o: L.ChainedScheduler([L.ConstantLR(o, 0.5, 4), L.ExponentialLR(o, 0.9)]),
    lambda o: L.SequentialLR(o, [L.ConstantLR(o, 0.5, 10), L.StepLR(o, 2)], [4]),
]


@pytest.mark.parametrize("make", RESUMABLE)
def test_state_dict_resume_continues_the_schedule(make):
    opt = make_opt()
    whole = run(opt, make(opt), 30)
    opt1 = make_opt()
    s1 = make(opt1)
    first = run(opt1, s1, 13)
    sd, osd = pickle.loads(pickle.dumps(s1.state_dict())), opt1.state_dict()
    assert "optimizer" not in sd
    opt2 = make_opt()
    s2 = make(opt2)
    opt2.load_state_dict(osd)
    s2.load_state_dict(sd)
    rest = run(opt2, s2, 17)
    np.testing.assert_allclose(np.concatenate([first, rest]), whole, rtol=1e-12)


def test_lambda_state_dict_keeps_callable_objects_only():
    class Decay:
        def __init__(self, r):
            self.r = r

        def __call__(self, e):
            return self.r ** e

    opt = make_opt()
    s = L.LambdaLR(opt, [Decay(0.5), lambda e: 1.0])
    sd = s.state_dict()
    assert sd["lr_lambdas"] == [{"r": 0.5}, None]
    s2 = L.LambdaLR(make_opt(), [Decay(0.9), lambda e: 1.0])
    s2.load_state_dict(sd)
    assert s2.lr_lambdas[0].r == 0.5


@pytest.mark.parametrize("make,closed", [
    (lambda o: L.StepLR(o, 3, 0.5), lambda e, b: b * 0.5 ** (e // 3)),
    (lambda o: L.MultiStepLR(o, [2, 5], 0.1), lambda e, b: b * 0.1 ** bisect.bisect_right([2, 5], e)),
    (lambda o: L.ExponentialLR(o, 0.9), lambda e, b: b * 0.9 ** e),
    (lambda o: L.ConstantLR(o, 0.5, 4), lambda e, b: b * (0.5 if e < 4 else 1)),
    (lambda o: L.LinearLR(o, 0.25, 1.0, 8), lambda e, b: b * (0.25 + 0.75 * min(e, 8) / 8)),
    (lambda o: L.PolynomialLR(o, 10, 2.0), lambda e, b: b * (1 - min(e, 10) / 10) ** 2),
    (lambda o: L.CosineAnnealingLR(o, 10, 0.0),
     lambda e, b: b * (1 + math.cos(math.pi * e / 10)) / 2),
])
def test_step_with_epoch_uses_the_closed_form_and_warns(make, closed):
    opt = make_opt()
    s = make(opt)
    opt.step()
    for epoch in RNG.permutation(20)[:8].tolist():
        with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was "
                                             "not necessary"):
            s.step(epoch)
        np.testing.assert_allclose(s.get_last_lr(), [closed(epoch, b) for b in BASES],
                                   rtol=1e-12, atol=1e-15)
        assert s.last_epoch == epoch


def test_verbose_is_gone_as_in_torch_2_11():
    with pytest.raises(TypeError, match="verbose"):
        L.StepLR(make_opt(), 2, verbose=True)
    with pytest.raises(TypeError, match="verbose"):
        L.ReduceLROnPlateau(make_opt(), verbose=False)


def test_scheduler_before_optimizer_step_warns():
    opt = make_opt()
    s = L.StepLR(opt, 2)
    with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before "
                                         "`optimizer.step\\(\\)`"):
        s.step()
    opt = make_opt()
    s = L.StepLR(opt, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        s.step()


def test_get_lr_outside_step_warns_and_initial_lr():
    opt = make_opt()
    s = L.ExponentialLR(opt, 0.5)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        s.get_lr()
    assert [g["initial_lr"] for g in opt.param_groups] == list(BASES)
    assert s.base_lrs == list(BASES)
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in "
                                       "param_groups\\[0\\] when resuming"):
        L.StepLR(make_opt(), 2, last_epoch=3)


def test_lr_scheduler_base_and_alias():
    assert issubclass(L._LRScheduler, L.LRScheduler)

    class Halving(L._LRScheduler):
        def get_lr(self):
            return [b * 0.5 ** self.last_epoch for b in self.base_lrs]

    opt = make_opt()
    got = run(opt, Halving(opt), 6)
    np.testing.assert_allclose(got, expect(lambda t, b: b * 0.5 ** t, 6, BASES))
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        L.StepLR([], 2)
    with pytest.raises(NotImplementedError):
        L.LRScheduler(make_opt())


def test_argument_errors():
    with pytest.raises(ValueError, match="Constant multiplicative factor expected to be between"):
        L.ConstantLR(make_opt(), factor=1.5)
    with pytest.raises(ValueError, match="Starting multiplicative factor expected to be greater"):
        L.LinearLR(make_opt(), start_factor=0)
    with pytest.raises(ValueError, match="Ending multiplicative factor expected to be between"):
        L.LinearLR(make_opt(), end_factor=1.5)
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 3"):
        L.LambdaLR(make_opt(), [lambda e: 1] * 3)
    with pytest.raises(TypeError, match="lr_lambda should be a function, but got int"):
        L.MultiplicativeLR(make_opt(), 3)
    with pytest.raises(ValueError, match="Expected positive integer T_0, but got 0"):
        L.CosineAnnealingWarmRestarts(make_opt(), 0)
    with pytest.raises(ValueError, match="Expected integer T_mult >= 1, but got 0"):
        L.CosineAnnealingWarmRestarts(make_opt(), 2, 0)
    with pytest.raises(ValueError, match="max_lr must have the same length as "
                                         "optimizer.param_groups"):
        L.CyclicLR(make_opt(), 0.01, [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="mode is invalid and scale_fn is None"):
        L.CyclicLR(make_opt(), 0.01, 0.1, mode="sine")

    class Plain(ember.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, dict(lr=0.1))

    with pytest.raises(ValueError, match="optimizer must support momentum or beta1 with "
                                         "`cycle_momentum` option enabled"):
        L.CyclicLR(Plain([nn.Parameter(ember.ones(1))]), 0.01, 0.1)
    with pytest.raises(ValueError, match="optimizer must support momentum"):
        L.OneCycleLR(Plain([nn.Parameter(ember.ones(1))]), 0.1, total_steps=10)
