"""GradScaler(device="cpu"): scale and unscale, inf/NaN steps skipped with backoff and
growth, update and state dicts, errors, the disabled scaler; its two C++ ops
(unscale, update_scale); a small bfloat16 training loop with a scaler."""
import pickle
import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from amp_util import t

pytestmark = pytest.mark.usefixtures("clean_autocast_state")


# ---- GradScaler on the CPU -----------------------------------------------------------------

class _Model:
    def __init__(self):
        self.w = t(4, 3, requires_grad=True)
        self.b = t(4, requires_grad=True)
        self.opt = ember.optim.SGD([self.w, self.b], lr=0.1)

    def loss(self, x):
        return F.mse_loss(F.linear(x, self.w, self.b), ember.zeros(x.shape[0], 4))


def test_scaler_scale_and_unscale():
    m = _Model()
    s = ember.amp.GradScaler("cpu", init_scale=1024.0)
    assert s.is_enabled() and s.get_scale() == 1024.0
    x = t(6, 3)
    loss = m.loss(x)
    scaled = s.scale(loss)
    assert scaled.item() == pytest.approx(loss.item() * 1024, rel=1e-6)
    scaled.backward()
    g_scaled = m.w.grad.clone()
    s.unscale_(m.opt)
    np.testing.assert_allclose(m.w.grad.numpy(), g_scaled.numpy() / 1024, rtol=1e-6)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        s.unscale_(m.opt)
    assert s.step(m.opt) is None  # SGD.step returns None
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        s.step(m.opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step\\(\\)"):
        s.unscale_(m.opt)
    s.update()
    assert s.get_scale() == 1024.0 and s._get_growth_tracker() == 1


def test_scaler_scales_nested_outputs():
    s = ember.amp.GradScaler("cpu", init_scale=4.0)
    a, b, c = t(2), t(3), t(1)
    out = s.scale([a, (b, [c])])
    assert isinstance(out, list) and isinstance(out[1], tuple) and isinstance(out[1][1], list)
    np.testing.assert_allclose(out[1][1][0].numpy(), c.numpy() * 4)
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable"):
        s.scale([a, 3])


def test_scaler_skips_inf_steps_backs_off_and_grows():
    m = _Model()
    s = ember.amp.GradScaler("cpu", init_scale=256.0, growth_factor=2.0, backoff_factor=0.25,
                             growth_interval=3)
    scales, skipped = [], []
    for it in range(9):
        m.opt.zero_grad()
        s.scale(m.loss(t(5, 3))).backward()
        if it in (1, 5):
            m.w.grad[0, 0] = float("inf") if it == 1 else float("nan")
        before = m.w.detach().clone()
        ret, found = s.step(m.opt, return_found_inf=True)
        assert ret is None
        skipped.append(bool(found))
        if found:
            np.testing.assert_array_equal(m.w.detach().numpy(), before.numpy())
        s.update()
        scales.append(s.get_scale())
    assert skipped == [False, True, False, False, False, True, False, False, False]
    assert scales == [256.0, 64.0, 64.0, 64.0, 128.0, 32.0, 32.0, 32.0, 64.0]


def test_scaler_update_new_scale_and_state_dict():
    m = _Model()
    s = ember.amp.GradScaler("cpu", init_scale=8.0, growth_interval=7)
    s.scale(m.loss(t(2, 3))).backward()
    s.step(m.opt)
    s.update(new_scale=32.0)
    assert s.get_scale() == 32.0
    s.update(new_scale=ember.tensor(16.0))
    assert s.get_scale() == 16.0
    sd = s.state_dict()
    assert sd == {"scale": 16.0, "growth_factor": 2.0, "backoff_factor": 0.5,
                  "growth_interval": 7, "_growth_tracker": 0}  # new_scale leaves the tracker
    s2 = ember.amp.GradScaler("cpu")
    s2.load_state_dict(sd)
    assert s2.get_scale() == 16.0 and s2.get_growth_interval() == 7
    assert s2._get_growth_tracker() == 0
    s3 = pickle.loads(pickle.dumps(s))
    assert s3.get_scale() == 16.0 and s3._get_growth_tracker() == 0
    s2.set_growth_factor(3.0)
    s2.set_backoff_factor(0.1)
    s2.set_growth_interval(5)
    assert (s2.get_growth_factor(), s2.get_backoff_factor(), s2.get_growth_interval()) == (3.0, 0.1, 5)
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        s2.load_state_dict({})


def test_scaler_errors():
    m = _Model()
    s = ember.amp.GradScaler("cpu")
    with pytest.raises(AssertionError, match="did not use scaler.scale"):
        s.step(m.opt)
    with pytest.raises(AssertionError, match="did not use scaler.scale"):
        s.update()
    s.scale(m.loss(t(2, 3))).backward()
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        s.step(m.opt, closure=lambda: None)
    w16 = t(3, dtype=ember.float16).requires_grad_()
    w16.grad = ember.ones(3, dtype=ember.float16)
    opt16 = ember.optim.SGD([w16], lr=0.1)
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients."):
        s.unscale_(opt16)
    with pytest.raises(AssertionError, match="growth factor must be > 1.0"):
        ember.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(AssertionError, match="backoff factor must be < 1.0"):
        ember.amp.GradScaler("cpu", backoff_factor=1.0)


def test_scaler_disabled_passes_through():
    m = _Model()
    s = ember.amp.GradScaler("cpu", enabled=False)
    loss = m.loss(t(2, 3))
    assert s.scale(loss) is loss
    loss.backward()
    before = m.w.detach().clone()
    s.unscale_(m.opt)
    assert s.step(m.opt) is None
    assert not np.array_equal(m.w.detach().numpy(), before.numpy())
    s.update()
    assert s.get_scale() == 1.0 and s.state_dict() == {} and not s.is_enabled()
    assert s.step(m.opt, return_found_inf=True) == (None, False)


@pytest.mark.skipif(ember.cuda.is_available(), reason="checks the no-CUDA path")
def test_cuda_scaler_without_cuda_warns_and_disables():
    with pytest.warns(UserWarning, match="GradScaler is enabled, but CUDA is not available.  "
                                         "Disabling."):
        s = ember.amp.GradScaler()
    assert not s.is_enabled()
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        s = ember.cuda.amp.GradScaler(init_scale=8.0)
    assert [w.category for w in got] == [FutureWarning, UserWarning]
    assert str(got[0].message) == ("`torch.cuda.amp.GradScaler(args...)` is deprecated. "
                                   "Please use `torch.amp.GradScaler('cuda', args...)` instead.")
    assert not s.is_enabled()


# ---- the two C++ ops ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16])
def test_unscale_op(dtype):
    gs = [t(5, dtype=dtype), t(3, 4, dtype=dtype), t(0, dtype=dtype)]
    ref = [g.float().numpy().copy() for g in gs]
    found = ember.zeros(())
    inv = ember.tensor(0.5)
    ember._amp_foreach_non_finite_check_and_unscale_(gs, found, inv)
    assert found.item() == 0.0
    for g, r in zip(gs, ref):
        assert g.dtype == dtype
        np.testing.assert_allclose(g.float().numpy(), r * 0.5, rtol=1e-2)
    gs[1][2, 1] = float("nan")
    ember._amp_foreach_non_finite_check_and_unscale_(gs, found, ember.tensor(1.0))
    assert found.item() == 1.0
    ember._amp_foreach_non_finite_check_and_unscale_([gs[0]], found, inv)
    assert found.item() == 1.0  # never cleared


def test_unscale_op_mixed_dtypes_and_non_contiguous():
    a = t(4, 6)
    view = a.t()  # not contiguous
    h = t(8, dtype=ember.float16)
    h[3] = float("-inf")
    ref_a = a.numpy().copy()
    found = ember.zeros(())
    ember._amp_foreach_non_finite_check_and_unscale_([view, h], found, ember.tensor(0.25))
    assert found.item() == 1.0
    np.testing.assert_allclose(a.numpy(), ref_a * 0.25, rtol=1e-6)


def test_unscale_op_errors():
    g = [t(3)]
    with pytest.raises(RuntimeError, match="found_inf must be a 1-element tensor."):
        ember._amp_foreach_non_finite_check_and_unscale_(g, ember.zeros(2), ember.tensor(1.0))
    with pytest.raises(RuntimeError, match="found_inf must be a float tensor."):
        ember._amp_foreach_non_finite_check_and_unscale_(g, ember.zeros((), dtype=ember.float64),
                                                         ember.tensor(1.0))
    with pytest.raises(RuntimeError, match="inv_scale must be a float tensor."):
        ember._amp_foreach_non_finite_check_and_unscale_(g, ember.zeros(()), ember.tensor(1))
    with pytest.raises(TypeError, match="floating point"):
        ember._amp_foreach_non_finite_check_and_unscale_([ember.ones(2, dtype=ember.int32)],
                                                         ember.zeros(()), ember.tensor(1.0))
    found = ember.zeros(())
    ember._amp_foreach_non_finite_check_and_unscale_(g, found, ember.tensor(1.0))
    assert found.item() == 0.0


def test_update_scale_op():
    scale = ember.tensor(8.0)
    tracker = ember.tensor(0, dtype=ember.int32)
    clean, bad = ember.tensor(0.0), ember.tensor(1.0)
    seq = []
    for f in [clean, clean, bad, clean, clean, clean]:
        out = ember._amp_update_scale_(scale, tracker, f, 2.0, 0.5, 3)
        assert out is scale  # torch returns self
        seq.append((scale.item(), tracker.item()))
    assert seq == [(8.0, 1), (8.0, 2), (4.0, 0), (4.0, 1), (4.0, 2), (8.0, 0)]
    big = ember.tensor(3e38)
    tr = ember.tensor(0, dtype=ember.int32)
    ember._amp_update_scale_(big, tr, clean, 2.0, 0.5, 1)  # growth to inf is refused
    assert big.item() == pytest.approx(3e38, rel=1e-6) and tr.item() == 0


def test_update_scale_op_errors():
    s, tr, f = ember.tensor(1.0), ember.tensor(0, dtype=ember.int32), ember.tensor(0.0)
    with pytest.raises(RuntimeError, match="growth_tracker must be an int tensor."):
        ember._amp_update_scale_(s, ember.tensor(0.0), f, 2.0, 0.5, 3)
    with pytest.raises(RuntimeError, match="current_scale must be a float tensor."):
        ember._amp_update_scale_(s.double(), tr, f, 2.0, 0.5, 3)
    with pytest.raises(RuntimeError, match="current_scale must be a 1-element tensor."):
        ember._amp_update_scale_(ember.ones(2), tr, f, 2.0, 0.5, 3)
    with pytest.raises(RuntimeError, match="found_inf must be a float tensor."):
        ember._amp_update_scale_(s, tr, ember.tensor(0), 2.0, 0.5, 3)
    ember._amp_update_scale_(s, tr, f, 2.0, 0.5, 3)
    assert tr.item() == 1


# ---- a small CPU loop -------------------------------------------------------------------------

def test_cpu_bf16_training_loop_with_scaler():
    ember.manual_seed(0)
    model = ember.nn.Sequential(ember.nn.Linear(8, 16), ember.nn.ReLU(), ember.nn.Linear(16, 1))
    opt = ember.optim.SGD(model.parameters(), lr=0.05)
    scaler = ember.amp.GradScaler("cpu", init_scale=2.0**8)
    x = t(64, 8)
    y = (x.sum(1, keepdim=True) * 0.3)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        with ember.autocast("cpu"):
            out = model(x)
            assert out.dtype == ember.bfloat16
            loss = F.mse_loss(out, y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    assert all(p.dtype == ember.float32 for p in model.parameters())
    assert losses[-1] < 0.5 * losses[0]
