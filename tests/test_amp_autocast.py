"""Autocast on the CPU: its thread-local state (nesting, enabled=False regions, threads,
the decorator), CPU autocast's dtype choices (torch's CPU lists), the cast cache,
gradients reaching float32 leaves, custom_fwd/custom_bwd, and every error path."""
import re
import threading
import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from amp_util import t
from ember import _C

pytestmark = pytest.mark.usefixtures("clean_autocast_state")


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


# ---- custom_fwd / custom_bwd -------------------------------------------------------------

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
