"""The losses on the GPU against torch (values and gradients), CTC loss (the CUDA
alpha/beta kernels) against torch's CUDA ctc_loss, and out-of-range class targets:
raised by the next synchronising call, the process usable afterwards. Run on the H100
machine."""
import numpy as np
import pytest

import ember
import ember.nn.functional as EF
from torch_util import pair

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng()


def close(e, t, rtol=1e-4, atol=1e-5):
    np.testing.assert_allclose(e.detach().double().cpu().numpy(),
                               t.detach().double().cpu().numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_pointwise_losses_vs_torch(torch, reduction):
    x, t = RNG.standard_normal((6, 5)) * 2, RNG.standard_normal((6, 5))
    ex, tx = pair(torch, x, "float32", True)
    et, tt = pair(torch, t, "float32")
    ey, ty = pair(torch, RNG.choice([-1.0, 1.0], (6, 5)), "float32")
    eb, tb = pair(torch, RNG.integers(0, 2, (6, 5)).astype(np.float64), "float32")
    ev, tv = pair(torch, RNG.uniform(0.1, 2, (6, 5)), "float32")
    cases = [
        (lambda F, x, t, y, b, v: F.smooth_l1_loss(x, t, reduction=reduction, beta=0.7)),
        (lambda F, x, t, y, b, v: F.huber_loss(x, t, reduction=reduction, delta=0.5)),
        (lambda F, x, t, y, b, v: F.soft_margin_loss(x, y, reduction=reduction)),
        (lambda F, x, t, y, b, v: F.multilabel_soft_margin_loss(x, b, reduction=reduction)),
        (lambda F, x, t, y, b, v: F.gaussian_nll_loss(x, t, v, full=True, reduction=reduction)),
        (lambda F, x, t, y, b, v: F.kl_div(x.log_softmax(1), t.softmax(1), reduction="batchmean")),
        (lambda F, x, t, y, b, v: F.binary_cross_entropy_with_logits(
            x, b, pos_weight=v[0], reduction=reduction)),
        (lambda F, x, t, y, b, v: F.triplet_margin_loss(x, t, v, swap=True, reduction=reduction)),
    ]
    for fn in cases:
        e = fn(EF, ex, et, ey, eb, ev)
        tr = fn(torch.nn.functional, tx, tt, ty, tb, tv)
        close(e, tr)
        ex.grad = None
        tx.grad = None
        e.sum().backward()
        tr.sum().backward()
        close(ex.grad, tx.grad)


@pytest.mark.parametrize("p", [1, 2])
def test_margin_losses_vs_torch(torch, p):
    x = RNG.standard_normal((7, 5))
    y = RNG.integers(0, 5, 7)
    ex, tx = pair(torch, x, "float32", True)
    ew, tw = pair(torch, RNG.uniform(0.5, 2, 5), "float32")
    e = EF.multi_margin_loss(ex, ember.tensor(y, device="cuda"), p=p, margin=0.5, weight=ew)
    t = torch.nn.functional.multi_margin_loss(tx, torch.tensor(y, device="cuda"), p=p,
                                              margin=0.5, weight=tw)
    close(e, t)
    e.backward()
    t.backward()
    close(ex.grad, tx.grad)
    ml = np.array([[3, 0, -1, 1, 2]] * 7)
    close(EF.multilabel_margin_loss(ex, ember.tensor(ml, device="cuda")),
          torch.nn.functional.multilabel_margin_loss(tx, torch.tensor(ml, device="cuda")))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["padded", "concat"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_ctc_loss_vs_torch(torch, dtype, layout, reduction):
    T, N, C, L = 50, 8, 20, 12
    logits = RNG.standard_normal((T, N, C))
    il = RNG.integers(35, T + 1, N)
    tl = RNG.integers(1, L + 1, N)
    tl[0] = 0
    targets = RNG.integers(1, C, (N, L))
    if layout == "concat":
        targets = np.concatenate([targets[b, :tl[b]] for b in range(N)])
    ez, tz = pair(torch, logits, dtype, True)
    e = EF.ctc_loss(ez.log_softmax(2), ember.tensor(targets, device="cuda"),
                    ember.tensor(il), ember.tensor(tl), reduction=reduction)
    t = torch.nn.functional.ctc_loss(tz.log_softmax(2), torch.tensor(targets, device="cuda"),
                                     torch.tensor(il), torch.tensor(tl), reduction=reduction)
    tol = 1e-4 if dtype == "float32" else 1e-9
    close(e, t, rtol=tol, atol=tol)
    e.sum().backward()
    t.sum().backward()
    close(ez.grad, tz.grad, rtol=tol * 10, atol=tol * 10)


def test_ctc_loss_zero_infinity_vs_torch(torch):
    T, N, C = 4, 3, 5
    logits = RNG.standard_normal((T, N, C))
    targets = np.array([[1, 1, 1], [1, 2, 3], [2, 3, 0]])
    il, tl = [4, 4, 2], [3, 3, 2]
    ez, tz = pair(torch, logits, "float64", True)
    e = EF.ctc_loss(ez.log_softmax(2), ember.tensor(targets, device="cuda"), il, tl,
                    reduction="none", zero_infinity=True)
    t = torch.nn.functional.ctc_loss(tz.log_softmax(2), torch.tensor(targets, device="cuda"),
                                     il, tl, reduction="none", zero_infinity=True)
    close(e, t, rtol=1e-9, atol=1e-9)
    e.sum().backward()
    t.sum().backward()
    close(ez.grad, tz.grad, rtol=1e-9, atol=1e-9)


def test_out_of_range_target_on_gpu_raises_at_sync_then_works():
    x = ember.randn(4, 3, device="cuda")
    bad = ember.tensor([0, 9, 1, 2], device="cuda")
    loss = EF.cross_entropy(x, bad)  # queued; no host wait
    with pytest.raises(IndexError, match="9"):
        ember.cuda.synchronize()
    del loss
    # the process and the device keep working
    good = EF.cross_entropy(x, ember.tensor([0, 1, 2, 2], device="cuda"))
    assert np.isfinite(float(good))
    v = EF.nll_loss(x.log_softmax(1), ember.tensor([0, -5, 1, 2], device="cuda"))
    with pytest.raises(IndexError, match="-5"):
        float(v)
    # ignore_index is not out of range
    assert np.isfinite(float(EF.cross_entropy(x, ember.tensor([0, -100, 1, 2], device="cuda"))))
    m = EF.multi_margin_loss(x, ember.tensor([0, 7, 1, 2], device="cuda"))
    with pytest.raises(IndexError, match="7"):
        m.cpu()
    assert float((x * 2).sum()) == pytest.approx(2 * float(x.sum()), rel=1e-5)


def test_one_hot_out_of_range_on_gpu_raises_at_sync(torch):
    t = ember.tensor([0, 2, 1], device="cuda")
    np.testing.assert_array_equal(EF.one_hot(t, 4).cpu().numpy(),
                                  torch.nn.functional.one_hot(torch.tensor([0, 2, 1]), 4).numpy())
    EF.one_hot(ember.tensor([0, 5], device="cuda"), 3)
    with pytest.raises(IndexError, match="5"):
        ember.cuda.synchronize()
    assert EF.one_hot(t).shape == (3, 3)
