"""Mixed precision on the CPU: autocast's thread-local state (nesting, enabled=False
regions, threads, the decorator), CPU autocast's dtype choices (torch's CPU lists),
the cast cache, gradients reaching float32 leaves, GradScaler(device="cpu") and its
two C++ ops, and every error path."""
import pickle
import re
import threading
import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember import _C

RNG = np.random.default_rng(11)


def t(*shape, dtype=ember.float32, requires_grad=False):
    x = ember.tensor(RNG.standard_normal(shape).astype(np.float32)).to(dtype)
    return x.requires_grad_() if requires_grad else x


@pytest.fixture(autouse=True)
def _clean_state():
    """Every test starts and ends with autocast off and the defaults."""
    assert not ember.is_autocast_enabled("cpu") and not ember.is_autocast_enabled("cuda")
    yield
    assert _C._autocast_nesting() == 0
    assert not ember.is_autocast_enabled("cpu")
    assert ember.get_autocast_dtype("cpu") == ember.bfloat16
    assert ember.get_autocast_dtype("cuda") == ember.float16
    assert ember.is_autocast_cache_enabled()
    assert _C._autocast_cache_size() == 0


# ---- state -----------------------------------------------------------------------

def test_defaults():
    assert ember.is_autocast_enabled() is False
    assert ember.is_autocast_enabled("cpu") is False
    assert ember.get_autocast_dtype("cpu") == ember.bfloat16
    assert ember.get_autocast_dtype("cuda") == ember.float16
    assert ember.is_autocast_cache_enabled() is True
    assert ember.amp.autocast is ember.autocast
    assert ember.amp.is_autocast_available("cpu") and ember.amp.is_autocast_available("cuda")
    assert not ember.amp.is_autocast_available("xpu")


def test_region_sets_and_restores():
    with ember.autocast("cpu"):
        assert ember.is_autocast_enabled("cpu")
        assert not ember.is_autocast_enabled("cuda")
        assert ember.get_autocast_dtype("cpu") == ember.bfloat16
    assert not ember.is_autocast_enabled("cpu")
    with ember.autocast("cpu", dtype=ember.float16):
        assert ember.get_autocast_dtype("cpu") == ember.float16
    assert ember.get_autocast_dtype("cpu") == ember.bfloat16


def test_enter_returns_none_and_exit_does_not_swallow():
    cm = ember.autocast("cpu")
    assert cm.__enter__() is None
    assert cm.__exit__(None, None, None) is False
    with pytest.raises(KeyError):
        with ember.autocast("cpu"):
            raise KeyError("x")
    assert not ember.is_autocast_enabled("cpu")


def test_nesting_and_disabled_inner_region():
    a = t(4, 4)
    with ember.autocast("cpu"):
        assert _C._autocast_nesting() == 1
        assert ember.mm(a, a).dtype == ember.bfloat16
        with ember.autocast("cpu", enabled=False):
            assert _C._autocast_nesting() == 2
            assert not ember.is_autocast_enabled("cpu")
            assert ember.mm(a, a).dtype == ember.float32
            with ember.autocast("cpu", dtype=ember.float16):
                assert ember.mm(a, a).dtype == ember.float16
            assert ember.mm(a, a).dtype == ember.float32
        assert ember.is_autocast_enabled("cpu")
        assert ember.mm(a, a).dtype == ember.bfloat16
    assert ember.mm(a, a).dtype == ember.float32


def test_decorator():
    a = t(3, 3)

    @ember.autocast("cpu")
    def f(x):
        """doc"""
        assert ember.is_autocast_enabled("cpu")
        return ember.mm(x, x)

    assert f(a).dtype == ember.bfloat16
    assert f.__name__ == "f" and f.__doc__ == "doc"
    assert not ember.is_autocast_enabled("cpu")


def test_state_is_thread_local():
    seen = {}

    def worker():
        seen["enabled"] = ember.is_autocast_enabled("cpu")
        seen["dtype"] = ember.get_autocast_dtype("cpu")
        with ember.autocast("cpu", dtype=ember.float16):
            seen["inner"] = ember.mm(t(2, 2), t(2, 2)).dtype
        seen["after"] = ember.is_autocast_enabled("cpu")

    with ember.autocast("cpu"):
        th = threading.Thread(target=worker)
        th.start()
        th.join()
        assert ember.is_autocast_enabled("cpu")
        assert ember.get_autocast_dtype("cpu") == ember.bfloat16
    assert seen == {"enabled": False, "dtype": ember.bfloat16, "inner": ember.float16,
                    "after": False}


def test_state_functions():
    ember.set_autocast_enabled("cpu", True)
    try:
        assert ember.is_autocast_enabled("cpu")
        assert ember.mm(t(2, 2), t(2, 2)).dtype == ember.bfloat16
    finally:
        ember.set_autocast_enabled("cpu", False)
    ember.set_autocast_enabled(True)  # the old one-argument form: cuda
    try:
        assert ember.is_autocast_enabled() and ember.is_autocast_enabled("cuda")
    finally:
        ember.set_autocast_enabled(False)
    ember.set_autocast_dtype("cpu", ember.float16)
    assert ember.get_autocast_dtype("cpu") == ember.float16
    ember.set_autocast_dtype("cpu", ember.bfloat16)
    ember.set_autocast_cache_enabled(False)
    assert not ember.is_autocast_cache_enabled()
    ember.set_autocast_cache_enabled(True)
    assert ember.autocast_increment_nesting() == 1
    assert ember.autocast_decrement_nesting() == 0
    ember.clear_autocast_cache()
    assert ember.is_autocast_enabled("cuda:0") is False  # a device string's type


@pytest.mark.parametrize("name, args, new", [
    ("is_autocast_cpu_enabled", (), "is_autocast_enabled('cpu')"),
    ("get_autocast_cpu_dtype", (), "get_autocast_dtype('cpu')"),
    ("get_autocast_gpu_dtype", (), "get_autocast_dtype('cuda')"),
])
def test_deprecated_getters_warn(name, args, new):
    with pytest.warns(DeprecationWarning, match=re.escape(f"Please use torch.{new} instead.")):
        getattr(ember, name)(*args)


def test_deprecated_setters_warn_and_work():
    with pytest.warns(DeprecationWarning, match="set_autocast_cpu_dtype"):
        ember.set_autocast_cpu_dtype(ember.float16)
    assert ember.get_autocast_dtype("cpu") == ember.float16
    with pytest.warns(DeprecationWarning, match="set_autocast_cpu_dtype"):
        ember.set_autocast_cpu_dtype(ember.bfloat16)
    with pytest.warns(DeprecationWarning, match="set_autocast_gpu_dtype"):
        ember.set_autocast_gpu_dtype(ember.bfloat16)
    assert ember.get_autocast_dtype("cuda") == ember.bfloat16
    with pytest.warns(DeprecationWarning):
        ember.set_autocast_gpu_dtype(ember.float16)
    with pytest.warns(DeprecationWarning, match="set_autocast_cpu_enabled"):
        ember.set_autocast_cpu_enabled(True)
    assert ember.is_autocast_enabled("cpu")
    with pytest.warns(DeprecationWarning):
        ember.set_autocast_cpu_enabled(False)


# ---- errors ------------------------------------------------------------------------

def test_bad_arguments():
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        ember.autocast(0)
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'xpu'"):
        ember.autocast("xpu")
    with pytest.raises(TypeError, match="dtype must be an ember.dtype"):
        ember.autocast("cpu", dtype="bfloat16")
    with pytest.raises(RuntimeError, match="Invalid device"):
        ember.is_autocast_enabled("tpu")
    with pytest.raises(TypeError, match="device_type must be a str"):
        ember.get_autocast_dtype(1)
    with pytest.raises(ValueError, match="floating point"):
        ember.set_autocast_dtype("cpu", ember.int32)
    assert ember.get_autocast_dtype("cpu") == ember.bfloat16
    with ember.autocast("cpu"):  # still usable
        assert ember.mm(t(2, 2), t(2, 2)).dtype == ember.bfloat16


def test_cpu_unsupported_dtype_warns_and_disables():
    with pytest.warns(UserWarning, match="CPU Autocast only supports dtype of"):
        cm = ember.autocast("cpu", dtype=ember.float32)
    with cm:
        assert not ember.is_autocast_enabled("cpu")
        assert ember.mm(t(2, 2), t(2, 2)).dtype == ember.float32


@pytest.mark.skipif(ember.cuda.is_available(), reason="checks the no-CUDA path")
def test_cuda_autocast_without_cuda_warns_and_disables():
    with pytest.warns(UserWarning, match="User provided device_type of 'cuda', but CUDA is not "
                                         "available. Disabling"):
        cm = ember.autocast("cuda")
    with cm:
        assert not ember.is_autocast_enabled("cuda")
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        cm = ember.cuda.amp.autocast()
    assert [w.category for w in got] == [FutureWarning, UserWarning]
    assert str(got[0].message) == ("`torch.cuda.amp.autocast(args...)` is deprecated. "
                                   "Please use `torch.amp.autocast('cuda', args...)` instead.")
    assert got[0].filename == __file__  # points at the caller
    with cm:
        assert not ember.is_autocast_enabled("cuda")


# ---- CPU autocast's choices (torch's CPU lists) ------------------------------------

def test_cpu_lower_precision_list():
    a, b, v = t(4, 5), t(5, 3), t(5)
    x3, y3 = t(2, 4, 5), t(2, 5, 3)
    bias = t(3)
    with ember.autocast("cpu"):
        assert ember.mm(a, b).dtype == ember.bfloat16
        assert ember.matmul(a, b).dtype == ember.bfloat16
        assert (a @ b).dtype == ember.bfloat16
        assert a.mm(b).dtype == ember.bfloat16
        assert ember.bmm(x3, y3).dtype == ember.bfloat16
        assert ember.addmm(bias, a, b).dtype == ember.bfloat16
        assert ember.baddbmm(t(2, 4, 3), x3, y3).dtype == ember.bfloat16
        assert F.linear(a, b.t(), bias).dtype == ember.bfloat16
        # not on torch's CPU list: stay float32
        assert ember.mv(a, v).dtype == ember.float32
        assert ember.addmv(t(4), a, v).dtype == ember.float32
        assert ember.einsum("ij,jk->ik", a, b).dtype == ember.float32
        assert ember.dot(v, v).dtype == ember.float32
        assert ember.exp(a).dtype == ember.float32
        assert ember.softmax(a, 1).dtype == ember.float32
        # float64 and integer tensors are not cast
        assert ember.mm(a.double(), b.double()).dtype == ember.float64
        ai = ember.ones(2, 2, dtype=ember.int64)
        assert ember.mm(ai, ai).dtype == ember.int64


def test_cpu_float32_list():
    x = t(4, 5, dtype=ember.bfloat16)
    y = t(4, 5, dtype=ember.bfloat16)
    target = ember.tensor([0, 2, 4, 1])
    with ember.autocast("cpu"):
        assert F.mse_loss(x, y).dtype == ember.float32
        assert F.l1_loss(x, y).dtype == ember.float32
        assert F.cross_entropy(x, target).dtype == ember.float32
        assert F.nll_loss(F.log_softmax(x, 1), target).dtype == ember.float32
        assert F.binary_cross_entropy_with_logits(x, y.sigmoid()).dtype == ember.float32
        assert F.binary_cross_entropy(x.sigmoid(), y.sigmoid()).dtype == ember.float32
        assert x.prod().dtype == ember.float32
        # not on the CPU list: keep their dtype
        assert x.exp().dtype == ember.bfloat16
        assert x.sum().dtype == ember.bfloat16
        assert F.softmax(x, 1).dtype == ember.bfloat16


def test_cpu_promote_list():
    lo, hi = t(2, 3, dtype=ember.bfloat16), t(2, 3)
    with ember.autocast("cpu"):
        assert ember.cat([lo, hi]).dtype == ember.float32
        assert ember.stack([lo, lo]).dtype == ember.bfloat16
        assert ember.cat([lo, hi.double()]).dtype == ember.float64  # float64 ignored
        with pytest.raises(RuntimeError, match="widest input type"):
            ember.cat([lo, t(2, 3, dtype=ember.float16)])
        assert ember.cat([lo, lo]).dtype == ember.bfloat16


def test_cpu_values_close_to_float32():
    a, b = t(16, 32), t(32, 8)
    ref = ember.mm(a, b).numpy()
    with ember.autocast("cpu"):
        out = ember.mm(a, b)
    np.testing.assert_allclose(out.float().numpy(), ref, rtol=0.05, atol=0.1)


# ---- gradients and the cast cache --------------------------------------------------------

def test_gradients_reach_float32_leaves():
    x = t(8, 6)
    w = t(4, 6, requires_grad=True)
    b = t(4, requires_grad=True)
    with ember.autocast("cpu"):
        y = F.linear(x, w, b)
        assert y.dtype == ember.bfloat16
        loss = F.mse_loss(y, ember.zeros(8, 4))
        assert loss.dtype == ember.float32
    loss.backward()
    assert w.grad.dtype == ember.float32 and b.grad.dtype == ember.float32
    w2 = w.detach().clone().requires_grad_()
    b2 = b.detach().clone().requires_grad_()
    F.mse_loss(F.linear(x, w2, b2), ember.zeros(8, 4)).backward()
    np.testing.assert_allclose(w.grad.numpy(), w2.grad.numpy(), rtol=0.05, atol=0.02)
    np.testing.assert_allclose(b.grad.numpy(), b2.grad.numpy(), rtol=0.05, atol=0.02)


def test_cache_casts_a_weight_once_per_region():
    w = t(5, 5, requires_grad=True)
    x = t(3, 5)
    with ember.autocast("cpu"):
        y1 = ember.mm(x, w)
        assert _C._autocast_cache_size() == 1
        y2 = ember.mm(y1, w)
        assert _C._autocast_cache_size() == 1
        ember.mm(x, t(5, 5))  # not a leaf that requires grad: not cached
        ember.mm(x, ember.ones(5, 5).requires_grad_())  # another float32 leaf: cached
        assert _C._autocast_cache_size() == 2
        with ember.autocast("cpu"):  # inner regions share the cache
            ember.mm(x, w)
            assert _C._autocast_cache_size() == 2
        assert _C._autocast_cache_size() == 2
    assert _C._autocast_cache_size() == 0
    y2.float().sum().backward()  # both uses reach w through the one cached cast
    assert w.grad is not None and w.grad.dtype == ember.float32


def test_cache_disabled_and_views():
    w = t(4, 4, requires_grad=True)
    with ember.autocast("cpu", cache_enabled=False):
        assert not ember.is_autocast_cache_enabled()
        ember.mm(w, w)
        assert _C._autocast_cache_size() == 0
    with ember.autocast("cpu"):
        ember.mm(w[:2], w)  # the view is not cached, w is
        assert _C._autocast_cache_size() == 1


def test_cache_sees_in_place_writes():
    w = t(3, 3, requires_grad=True)
    x = ember.eye(3)
    with ember.autocast("cpu"):
        before = ember.mm(x, w).float().detach().numpy()
        with ember.no_grad():
            w.mul_(2.0)
        after = ember.mm(x, w).float().detach().numpy()
    np.testing.assert_allclose(after, 2 * before, rtol=1e-2)


def test_cache_in_no_grad_then_grad():
    w = t(3, 3, requires_grad=True)
    x = t(2, 3)
    with ember.autocast("cpu"):
        with ember.no_grad():
            assert not ember.mm(x, w).requires_grad
        y = ember.mm(x, w)  # the no-grad cast had no history: cast again
        assert y.requires_grad
    y.float().sum().backward()
    assert w.grad is not None


def test_float32_casts_are_autograd_aware():
    x = t(4, 5, dtype=ember.bfloat16).requires_grad_()
    with ember.autocast("cpu"):
        loss = F.mse_loss(x, ember.zeros(4, 5, dtype=ember.bfloat16))
    loss.backward()
    assert x.grad.dtype == ember.bfloat16
    np.testing.assert_allclose(x.grad.float().numpy(), (2 * x.float() / 20).detach().numpy(),
                               rtol=2e-2, atol=1e-3)


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


def test_custom_fwd_bwd():
    class Square(ember.autograd.Function):
        @staticmethod
        @ember.amp.custom_fwd(device_type="cpu", cast_inputs=ember.float32)
        def forward(ctx, x):
            ctx.save_for_backward(x)
            assert not ember.is_autocast_enabled("cpu")
            return x * x

        @staticmethod
        @ember.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = t(3, dtype=ember.bfloat16).requires_grad_()
    with ember.autocast("cpu"):
        y = Square.apply(x)
    assert y.dtype == ember.float32
    y.sum().backward()
    assert x.grad.dtype == ember.bfloat16
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        ember.amp.custom_fwd(device_type=None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Square.apply(x).dtype == ember.bfloat16  # outside autocast: a no-op
