"""The losses of torch.nn on the CPU against NumPy float64 references: SmoothL1, Huber,
SoftMargin, MultiLabelSoftMargin, MultiMargin, MultiLabelMargin, GaussianNLL,
TripletMarginWithDistance, CTC (a C++ kernel: values against a NumPy alpha recursion,
gradients by gradcheck), NLLLoss2d, AdaptiveLogSoftmaxWithLoss; every reduction,
out-of-range class targets (IndexError / RuntimeError as torch), reprs and messages."""
import math

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

RNG = np.random.default_rng()
REDUCTIONS = ["none", "mean", "sum"]


def t64(a, rg=False):
    return ember.tensor(np.asarray(a, dtype=np.float64), dtype=ember.float64, requires_grad=rg)


def npy(t):
    return t.detach().cpu().numpy()


def reduce_np(v, reduction):
    return {"none": v, "mean": np.mean(v), "sum": np.sum(v)}[reduction]


def check(out, ref, reduction, atol=1e-10):
    np.testing.assert_allclose(npy(out), reduce_np(np.asarray(ref), reduction), rtol=1e-9,
                               atol=atol)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0, 2.5])
def test_smooth_l1_loss(reduction, beta):
    x, t = RNG.standard_normal((4, 5)) * 2, RNG.standard_normal((4, 5))
    z = np.abs(x - t)
    ref = z if beta == 0 else np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta)
    check(F.smooth_l1_loss(t64(x), t64(t), reduction=reduction, beta=beta), ref, reduction)
    check(nn.SmoothL1Loss(reduction=reduction, beta=beta)(t64(x), t64(t)), ref, reduction)
    xt = t64(x, True)
    assert ember.autograd.gradcheck(lambda x: F.smooth_l1_loss(x, t64(t), beta=beta or 1.0),
                                    (xt,))
    with pytest.raises(RuntimeError, match="smooth_l1_loss does not support negative values "
                                           "for beta."):
        F.smooth_l1_loss(t64(x), t64(t), beta=-1)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("delta", [0.3, 1.0, 3.0])
def test_huber_loss(reduction, delta):
    x, t = RNG.standard_normal(7) * 2, RNG.standard_normal(7)
    w = RNG.uniform(0.5, 2, 7)
    z = np.abs(x - t)
    ref = np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))
    check(F.huber_loss(t64(x), t64(t), reduction=reduction, delta=delta), ref, reduction)
    check(F.huber_loss(t64(x), t64(t), reduction, delta, weight=t64(w)), ref * w, reduction)
    assert repr(nn.HuberLoss(delta=delta)) == "HuberLoss()"
    with pytest.raises(RuntimeError, match="huber_loss does not support non-positive values "
                                           "for delta."):
        F.huber_loss(t64(x), t64(t), delta=0)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin_losses(reduction):
    x = RNG.standard_normal((3, 6)) * 5
    y = RNG.choice([-1.0, 1.0], (3, 6))
    check(F.soft_margin_loss(t64(x), t64(y), reduction=reduction), np.log1p(np.exp(-y * x)),
          reduction)
    t = RNG.integers(0, 2, (3, 6)).astype(np.float64)
    w = RNG.uniform(0.5, 2, 6)
    sig = 1 / (1 + np.exp(-x))
    per = -(t * np.log(sig) + (1 - t) * np.log(1 - sig)) * w
    check(F.multilabel_soft_margin_loss(t64(x), t64(t), t64(w), reduction=reduction),
          per.mean(1), reduction, atol=1e-9)
    check(nn.MultiLabelSoftMarginLoss(t64(w), reduction=reduction)(t64(x), t64(t)), per.mean(1),
          reduction, atol=1e-9)
    xt = t64(x, True)
    assert ember.autograd.gradcheck(lambda x: F.soft_margin_loss(x, t64(y)), (xt,))
    assert ember.autograd.gradcheck(lambda x: F.multilabel_soft_margin_loss(x, t64(t)), (xt,))
    with pytest.raises(ValueError, match="bad is not valid"):
        F.multilabel_soft_margin_loss(t64(x), t64(t), reduction="bad")


def ref_multi_margin(x, y, p, margin, w):
    n, c = x.shape
    out = np.zeros(n)
    for i in range(n):
        for j in range(c):
            if j == y[i]:
                continue
            z = max(0.0, margin - x[i, y[i]] + x[i, j]) ** p
            out[i] += z * (w[y[i]] if w is not None else 1.0)
    return out / c


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_multi_margin_loss(reduction, p, weighted):
    x = RNG.standard_normal((5, 4))
    y = RNG.integers(0, 4, 5)
    w = RNG.uniform(0.5, 2, 4) if weighted else None
    out = F.multi_margin_loss(t64(x), ember.tensor(y), p=p, margin=0.7,
                              weight=t64(w) if weighted else None, reduction=reduction)
    check(out, ref_multi_margin(x, y, p, 0.7, w), reduction)
    # 1-D input, 0-d target
    one = F.multi_margin_loss(t64(x[0]), ember.tensor(int(y[0])), p=p, reduction=reduction)
    np.testing.assert_allclose(npy(one), ref_multi_margin(x[:1], y[:1], p, 1.0, None)[0],
                               atol=1e-12)
    xt = t64(x, True)
    assert ember.autograd.gradcheck(lambda x: F.multi_margin_loss(x, ember.tensor(y), p=p),
                                    (xt,))


def test_multi_margin_errors():
    x = ember.randn(3, 4)
    with pytest.raises(RuntimeError, match="target out of range"):
        F.multi_margin_loss(x, ember.tensor([0, 5, 1]))
    with pytest.raises(RuntimeError, match=r"inconsistent target size, expected 3 but got \[2\]"):
        F.multi_margin_loss(x, ember.tensor([0, 1]))
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        F.multi_margin_loss(x, ember.tensor([0, 1, 2]), p=3)
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        nn.MultiMarginLoss(p=3)
    assert repr(nn.MultiMarginLoss()) == "MultiMarginLoss()"


def ref_multilabel_margin(x, y):
    n, c = x.shape
    out = np.zeros(n)
    for i in range(n):
        targets = []
        for v in y[i]:
            if v < 0:
                break
            targets.append(v)
        for j in targets:
            for k in range(c):
                if k in targets:
                    continue
                out[i] += max(0.0, 1 - (x[i, j] - x[i, k]))
    return out / c


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_loss(reduction):
    x = RNG.standard_normal((4, 5))
    y = np.array([[3, 0, -1, 1, 2], [1, -1, 0, 0, 0], [0, 1, 2, 3, 4], [-1, 2, 2, 2, 2]])
    out = F.multilabel_margin_loss(t64(x), ember.tensor(y), reduction=reduction)
    check(out, ref_multilabel_margin(x, y), reduction)
    check(nn.MultiLabelMarginLoss(reduction=reduction)(t64(x), ember.tensor(y)),
          ref_multilabel_margin(x, y), reduction)
    xt = t64(x, True)
    assert ember.autograd.gradcheck(lambda x: F.multilabel_margin_loss(x, ember.tensor(y)), (xt,))
    with pytest.raises(RuntimeError, match="argument #2 'target' is out of range"):
        F.multilabel_margin_loss(t64(x), ember.tensor([[0, 7, -1, 0, 0]] * 4))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("full", [False, True])
def test_gaussian_nll_loss(reduction, full):
    x, t = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
    var = RNG.uniform(0, 2, (4, 3))
    var[0, 0] = 1e-9  # clamped to eps
    v = np.maximum(var, 1e-6)
    ref = 0.5 * (np.log(v) + (x - t) ** 2 / v) + (0.5 * math.log(2 * math.pi) if full else 0)
    check(F.gaussian_nll_loss(t64(x), t64(t), t64(var), full=full, reduction=reduction), ref,
          reduction, atol=1e-8)
    # homoscedastic: var one dim short, or one broadcast dim
    v1 = RNG.uniform(0.5, 2, 4)
    ref1 = 0.5 * (np.log(v1[:, None]) + (x - t) ** 2 / v1[:, None])
    check(nn.GaussianNLLLoss(reduction=reduction)(t64(x), t64(t), t64(v1)), ref1, reduction)
    check(F.gaussian_nll_loss(t64(x), t64(t), t64(v1[:, None]), reduction=reduction), ref1,
          reduction)
    xt, vt = t64(x, True), t64(v1[:, None] + 0.5, True)
    assert ember.autograd.gradcheck(lambda x, v: F.gaussian_nll_loss(x, t64(t), v), (xt, vt))
    with pytest.raises(ValueError, match="var has negative entry/entries"):
        F.gaussian_nll_loss(t64(x), t64(t), t64(-var))
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(t64(x), t64(t), t64(np.ones((2, 3))))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_with_distance_loss(reduction, swap):
    a, p, n = (RNG.standard_normal((5, 4)) for _ in range(3))

    def d(u, v):
        return np.sqrt(((u - v + 1e-6) ** 2).sum(-1))
    dn = np.minimum(d(a, n), d(p, n)) if swap else d(a, n)
    ref = np.maximum(0.0, 1.0 + d(a, p) - dn)
    m = nn.TripletMarginWithDistanceLoss(swap=swap, reduction=reduction)
    assert repr(m) == "TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()\n)"
    check(m(t64(a), t64(p), t64(n)), ref, reduction, atol=1e-9)

    def l1(u, v):
        return (u - v).abs().sum(-1)
    refl1 = np.maximum(0.0, 0.5 + np.abs(a - p).sum(-1) - np.abs(a - n).sum(-1))
    check(F.triplet_margin_with_distance_loss(t64(a), t64(p), t64(n), distance_function=l1,
                                              margin=0.5, reduction=reduction), refl1, reduction)
    with pytest.raises(ValueError, match="expected margin to be greater than 0, got 0 instead"):
        nn.TripletMarginWithDistanceLoss(margin=0)


# ---- CTC ---------------------------------------------------------------------------------

def ref_ctc(lp, targets, il, tl, blank=0):
    """-log p(target | lp) per sample by the alpha recursion in probability space."""
    out = []
    for b, (T, L) in enumerate(zip(il, tl)):
        tg = targets[b][:L]
        ext = [blank]
        for c in tg:
            ext += [c, blank]
        S = len(ext)
        p = np.exp(lp[:, b, :])
        alpha = np.zeros(S)
        if T == 0:
            out.append(0.0 if L == 0 else np.inf)
            continue
        alpha[0] = p[0, blank]
        if S > 1:
            alpha[1] = p[0, ext[1]]
        for t in range(1, T):
            new = np.zeros(S)
            for s in range(S):
                v = alpha[s] + (alpha[s - 1] if s > 0 else 0)
                if s > 1 and ext[s] != ext[s - 2]:
                    v += alpha[s - 2]
                new[s] = v * p[t, ext[s]]
            alpha = new
        prob = alpha[-1] + (alpha[-2] if S > 1 else 0)
        out.append(-np.log(prob) if prob > 0 else np.inf)
    return np.array(out)


def ctc_case(T=12, N=4, C=5, maxL=4):
    lp = RNG.standard_normal((T, N, C))
    lp = lp - np.log(np.exp(lp).sum(-1, keepdims=True))
    il = RNG.integers(T // 2 + maxL, T + 1, N)
    tl = RNG.integers(0, maxL + 1, N)
    targets = RNG.integers(1, C, (N, maxL))
    targets[0, :2] = 2  # a repeated label (needs a blank between)
    return lp, targets, il, tl


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_ctc_loss_padded_and_concatenated(reduction):
    lp, targets, il, tl = ctc_case()
    ref = ref_ctc(lp, targets, il, tl)
    out = F.ctc_loss(t64(lp), ember.tensor(targets), ember.tensor(il), ember.tensor(tl),
                     reduction=reduction)
    want = ref / np.maximum(tl, 1) if reduction == "mean" else ref
    np.testing.assert_allclose(npy(out), reduce_np(want, reduction), rtol=1e-9)
    concat = np.concatenate([targets[b, :tl[b]] for b in range(len(tl))])
    out2 = F.ctc_loss(t64(lp), ember.tensor(concat), list(il), tuple(tl), reduction=reduction)
    np.testing.assert_allclose(npy(out2), npy(out), rtol=1e-12)
    # float32 (int32 targets)
    out32 = F.ctc_loss(ember.tensor(lp, dtype=ember.float32), ember.tensor(targets).int(),
                       list(il), list(tl), reduction=reduction)
    np.testing.assert_allclose(npy(out32), reduce_np(want, reduction), rtol=1e-4)


def test_ctc_loss_gradients():
    lp, targets, il, tl = ctc_case(T=7, N=3, C=4, maxL=2)
    logits = t64(lp, True)

    def fn(z):
        return F.ctc_loss(z.log_softmax(2), ember.tensor(targets), list(il), list(tl),
                          reduction="sum")
    assert ember.autograd.gradcheck(fn, (logits,))
    y = F.ctc_loss(t64(lp, True), ember.tensor(targets), list(il), list(tl))
    assert y.grad_fn is not None
    # blank other than 0
    ref = ref_ctc(lp, targets - 1, il, tl, blank=3)
    out = F.ctc_loss(t64(lp), ember.tensor(targets - 1), list(il), list(tl), blank=3,
                     reduction="none")
    np.testing.assert_allclose(npy(out), ref, rtol=1e-9)


def test_ctc_loss_zero_infinity_and_unbatched():
    T, C = 3, 4
    lp = np.log(np.full((T, 2, C), 1.0 / C))
    targets = np.array([[1, 1, 2], [1, 2, 3]])  # sample 0 needs 4 steps: impossible
    il, tl = [3, 3], [3, 3]
    out = F.ctc_loss(t64(lp), ember.tensor(targets), il, tl, reduction="none")
    assert np.isinf(npy(out)[0]) and np.isfinite(npy(out)[1])
    x = t64(lp, True)
    z = F.ctc_loss(x, ember.tensor(targets), il, tl, reduction="none", zero_infinity=True)
    assert npy(z)[0] == 0 and npy(z)[1] == pytest.approx(npy(out)[1])
    z.sum().backward()
    assert np.all(npy(x.grad)[:, 0] == 0) and np.all(np.isfinite(npy(x.grad)))
    # unbatched: (T, C), 1-D target, 0-d lengths
    u = F.ctc_loss(t64(lp[:, 1]), ember.tensor(targets[1]), ember.tensor(3), ember.tensor(3),
                   reduction="none")
    assert u.dim() == 0
    np.testing.assert_allclose(npy(u), npy(out)[1], rtol=1e-12)
    m = nn.CTCLoss(blank=0, zero_infinity=True)
    assert repr(m) == "CTCLoss()"
    np.testing.assert_allclose(npy(m(t64(lp), ember.tensor(targets), il, tl)),
                               npy(out)[1] / 3 / 2, rtol=1e-12)


def test_ctc_loss_errors():
    lp = t64(np.log(np.full((5, 2, 4), 0.25)))
    with pytest.raises(RuntimeError, match="Expected input_lengths to have value at most 5, but "
                                           "got value 6"):
        F.ctc_loss(lp, ember.tensor([[1, 2], [1, 1]]), [6, 5], [2, 2])
    with pytest.raises(RuntimeError, match="Expected tensor to have size at least 3 at "
                                           "dimension 1, but got size 2"):
        F.ctc_loss(lp, ember.tensor([[1, 2], [1, 1]]), [5, 5], [3, 2])
    with pytest.raises(RuntimeError, match="input_lengths must be of size batch_size"):
        F.ctc_loss(lp, ember.tensor([[1, 2], [1, 1]]), [5], [2, 2])
    with pytest.raises(RuntimeError, match="blank must be in label range"):
        F.ctc_loss(lp, ember.tensor([[1, 2], [1, 1]]), [5, 5], [2, 2], blank=4)
    with pytest.raises(IndexError, match="target 7 is out of bounds"):
        F.ctc_loss(lp, ember.tensor([[1, 7], [1, 1]]), [5, 5], [2, 2])
    with pytest.raises(ValueError, match="bad is not a valid value for reduction"):
        F.ctc_loss(lp, ember.tensor([[1, 2], [1, 1]]), [5, 5], [2, 2], reduction="bad")
    assert npy(F.ctc_loss(lp, ember.tensor([[1, 2], [1, 1]]), [5, 5], [2, 2])) > 0


# ---- class targets ---------------------------------------------------------------------------

def test_out_of_range_class_targets_raise_on_cpu():
    x = ember.randn(4, 3)
    with pytest.raises(IndexError, match="Target 9 is out of bounds."):
        F.cross_entropy(x, ember.tensor([0, 9, 1, 2]))
    with pytest.raises(IndexError, match="Target -2 is out of bounds."):
        F.nll_loss(x.log_softmax(1), ember.tensor([0, 1, -2, 2]))
    # ignore_index is not out of range; the process keeps working
    v = F.cross_entropy(x, ember.tensor([0, -100, 1, 2]))
    assert np.isfinite(float(v))


def test_nll_loss2d():
    x = RNG.standard_normal((2, 3, 4, 5))
    t = RNG.integers(0, 3, (2, 4, 5))
    t[0, 0, 0] = -100
    w = RNG.uniform(0.5, 2, 3)
    m = nn.NLLLoss2d(weight=t64(w))
    assert repr(m) == "NLLLoss2d()"
    out = m(t64(x), ember.tensor(t))
    mask = t != -100
    tc = np.where(mask, t, 0)
    picked = np.take_along_axis(x, tc[:, None], 1)[:, 0]
    ref = -(picked * w[tc] * mask).sum() / (w[tc] * mask).sum()
    np.testing.assert_allclose(npy(out), ref, rtol=1e-10)


def test_adaptive_log_softmax_with_loss():
    ember.manual_seed(3)
    m = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 6], div_value=2.0).double()
    assert repr(m).startswith("AdaptiveLogSoftmaxWithLoss(\n  (head): Linear(in_features=8, "
                              "out_features=6, bias=False)")
    x = t64(RNG.standard_normal((7, 8)), True)
    y = ember.tensor([0, 3, 4, 5, 6, 9, 2])
    out, loss = m(x, y)
    full = m.log_prob(x)
    assert tuple(full.shape) == (7, 10)
    np.testing.assert_allclose(np.exp(npy(full)).sum(1), np.ones(7), rtol=1e-10)
    np.testing.assert_allclose(npy(out), npy(full)[np.arange(7), npy(y)], rtol=1e-10)
    np.testing.assert_allclose(npy(loss), -npy(out).mean(), rtol=1e-12)
    loss.backward()
    assert m.head.weight.grad is not None and m.tail[1][1].weight.grad is not None
    np.testing.assert_array_equal(npy(m.predict(x)), npy(full).argmax(1))
    o1, l1 = m(x[0], y[0])
    assert o1.dim() == 0
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 9\]"):
        m(x, ember.tensor([0, 1, 2, 3, 4, 5, 10]))
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique"):
        nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 4])


def test_losses_run_in_float32_under_cpu_autocast():
    x = ember.randn(4, 5).to(ember.bfloat16)
    t = ember.randn(4, 5).to(ember.bfloat16)
    y = ember.tensor([0, 1, 2, 3])
    with ember.autocast("cpu", dtype=ember.bfloat16):
        assert F.smooth_l1_loss(x, t).dtype == ember.float32
        assert F.huber_loss(x, t).dtype == ember.float32
        assert F.soft_margin_loss(x, t).dtype == ember.float32
        assert F.multi_margin_loss(x, y).dtype == ember.float32
        assert F.multilabel_margin_loss(x, ember.zeros((4, 5), dtype=ember.long)).dtype == \
            ember.float32
        lp = x.reshape(4, 1, 5).float().log_softmax(2).to(ember.bfloat16)
        assert F.ctc_loss(lp, ember.tensor([[1]]), [4], [1]).dtype == ember.float32
        # not on torch's lists: computed in the input's dtype
        assert F.multilabel_soft_margin_loss(x, t).dtype == ember.bfloat16


def test_top_level_ctc_loss_is_unreduced_by_default():
    lp, targets, il, tl = ctc_case(T=8, N=3, C=4, maxL=2)
    out = ember.ctc_loss(t64(lp), ember.tensor(targets), list(il), list(tl))
    np.testing.assert_allclose(npy(out), ref_ctc(lp, targets, il, tl), rtol=1e-9)
    s = ember.ctc_loss(t64(lp), ember.tensor(targets), list(il), list(tl), 0, 2)
    np.testing.assert_allclose(npy(s), ref_ctc(lp, targets, il, tl).sum(), rtol=1e-9)
