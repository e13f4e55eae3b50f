"""GroupNorm, InstanceNorm1d/2d/3d, RMSNorm, LocalResponseNorm, CrossMapLRN2d, BatchNorm3d,
SyncBatchNorm and the lazy norms on the CPU against NumPy float64 references: outputs,
gradients (gradcheck in float64, double backward), running statistics, reprs (checked
against torch's), state-dict keys and error messages."""
import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

RNG = np.random.default_rng()


def t64(a, rg=False):
    return ember.tensor(np.asarray(a, dtype=np.float64), dtype=ember.float64, requires_grad=rg)


def npy(t):
    return t.detach().cpu().numpy()


def ref_group_norm(x, g, w=None, b=None, eps=1e-5):
    n, c = x.shape[:2]
    xr = x.reshape(n, g, -1)
    mu = xr.mean(-1, keepdims=True)
    var = xr.var(-1, keepdims=True)
    y = ((xr - mu) / np.sqrt(var + eps)).reshape(x.shape)
    shape = [1, c] + [1] * (x.ndim - 2)
    if w is not None:
        y = y * w.reshape(shape)
    if b is not None:
        y = y + b.reshape(shape)
    return y


@pytest.mark.parametrize("shape,g", [((4, 6, 5), 3), ((2, 8, 3, 4), 2), ((3, 4), 2),
                                     ((2, 6, 2, 3, 2), 6), ((5, 3, 7), 1), ((1, 4, 16, 8), 4)])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm_matches_numpy(shape, g, affine):
    x = RNG.standard_normal(shape) * 3 + 1.5
    c = shape[1]
    w = RNG.standard_normal(c) if affine else None
    b = RNG.standard_normal(c) if affine else None
    y = F.group_norm(t64(x), g, t64(w) if affine else None, t64(b) if affine else None, 1e-5)
    np.testing.assert_allclose(npy(y), ref_group_norm(x, g, w, b), rtol=1e-10, atol=1e-10)
    y32 = F.group_norm(ember.tensor(x.astype(np.float32)), g,
                       ember.tensor(w.astype(np.float32)) if affine else None,
                       ember.tensor(b.astype(np.float32)) if affine else None)
    assert y32.dtype == ember.float32
    np.testing.assert_allclose(npy(y32), ref_group_norm(x, g, w, b), rtol=1e-4, atol=1e-4)


def test_group_norm_gradients_and_node():
    x = t64(RNG.standard_normal((3, 6, 4, 2)), True)
    w, b = t64(RNG.standard_normal(6), True), t64(RNG.standard_normal(6), True)
    y = F.group_norm(x, 3, w, b, 1e-5)
    assert y.grad_fn.name() == "NativeGroupNormBackward0"
    assert ember.autograd.gradcheck(lambda x, w, b: F.group_norm(x, 3, w, b, 1e-5), (x, w, b))
    assert ember.autograd.gradcheck(lambda x: F.group_norm(x, 2), (x,))
    assert ember.autograd.gradgradcheck(lambda x, w, b: F.group_norm(x, 3, w, b), (x, w, b))


def test_group_norm_float32_gradients_match_float64():
    x = RNG.standard_normal((4, 8, 5, 5))
    w, b, dy = RNG.standard_normal(8), RNG.standard_normal(8), RNG.standard_normal(x.shape)
    grads = []
    for dt in (ember.float32, ember.float64):
        xt = ember.tensor(x, dtype=dt, requires_grad=True)
        wt = ember.tensor(w, dtype=dt, requires_grad=True)
        bt = ember.tensor(b, dtype=dt, requires_grad=True)
        F.group_norm(xt, 4, wt, bt).backward(ember.tensor(dy, dtype=dt))
        grads.append([npy(t.grad).astype(np.float64) for t in (xt, wt, bt)])
    for a, r in zip(*grads):
        np.testing.assert_allclose(a, r, rtol=1e-4, atol=1e-4)


def test_group_norm_non_contiguous_empty_and_half():
    base = RNG.standard_normal((2, 5, 6))
    x = t64(base).transpose(1, 2)  # (2, 6, 5), non-contiguous
    assert not x.is_contiguous()
    np.testing.assert_allclose(npy(F.group_norm(x, 3)),
                               ref_group_norm(base.transpose(0, 2, 1), 3), atol=1e-10)
    e = F.group_norm(ember.zeros((0, 4, 3)), 2)
    assert tuple(e.shape) == (0, 4, 3)
    xb = RNG.standard_normal((2, 4, 8))
    yb = F.group_norm(ember.tensor(xb).to(ember.bfloat16), 2)
    assert yb.dtype == ember.bfloat16
    np.testing.assert_allclose(npy(yb.float()), ref_group_norm(xb, 2), atol=5e-2, rtol=2e-2)


def test_group_norm_errors():
    with pytest.raises(RuntimeError, match=r"Expected number of channels in input to be "
                                           r"divisible by num_groups, but got input of shape "
                                           r"\[2, 5, 3\] and num_groups=2"):
        F.group_norm(ember.randn(2, 5, 3), 2)
    with pytest.raises(RuntimeError, match=r"Expected weight to be a vector of size equal to "
                                           r"the number of channels in input, but got weight of "
                                           r"shape \[4\] and input of shape \[2, 6, 3\]"):
        F.group_norm(ember.randn(2, 6, 3), 2, ember.ones(4))
    with pytest.raises(RuntimeError, match="Expected at least 2 dimensions for input tensor "
                                           "but received 1"):
        F.group_norm(ember.randn(6), 2)
    with pytest.raises(ValueError, match="num_channels must be divisible by num_groups"):
        nn.GroupNorm(4, 6)
    # the process is fine afterwards
    assert tuple(F.group_norm(ember.randn(2, 6, 3), 2).shape) == (2, 6, 3)


def test_groupnorm_module():
    m = nn.GroupNorm(2, 6, eps=1e-3).double()
    assert repr(m) == "GroupNorm(2, 6, eps=0.001, affine=True)"
    assert list(m.state_dict()) == ["weight", "bias"]
    x = RNG.standard_normal((3, 6, 4))
    with ember.no_grad():
        m.weight.copy_(t64(RNG.standard_normal(6)))
    np.testing.assert_allclose(npy(m(t64(x))), ref_group_norm(x, 2, npy(m.weight), npy(m.bias),
                                                              1e-3), atol=1e-10)


def ref_instance_norm(x, eps=1e-5):
    axes = tuple(range(2, x.ndim))
    mu = x.mean(axes, keepdims=True)
    return (x - mu) / np.sqrt(x.var(axes, keepdims=True) + eps)


@pytest.mark.parametrize("shape", [(2, 3, 7), (3, 4, 5, 6), (2, 2, 3, 4, 5)])
def test_instance_norm_matches_numpy(shape):
    x = RNG.standard_normal(shape) * 2 - 1
    c = shape[1]
    w, b = RNG.standard_normal(c), RNG.standard_normal(c)
    y = F.instance_norm(t64(x), weight=t64(w), bias=t64(b))
    bshape = [1, c] + [1] * (len(shape) - 2)
    np.testing.assert_allclose(npy(y), ref_instance_norm(x) * w.reshape(bshape) +
                               b.reshape(bshape), atol=1e-10)
    assert y.grad_fn is None
    xt = t64(x, True)
    assert F.instance_norm(xt).grad_fn.name() == "NativeGroupNormBackward0"
    assert ember.autograd.gradcheck(lambda x: F.instance_norm(x, weight=t64(w)), (xt,))


def test_instance_norm_running_stats():
    x = RNG.standard_normal((4, 3, 10)) + 2
    rm, rv = t64(np.zeros(3)), t64(np.ones(3))
    y = F.instance_norm(t64(x), rm, rv, use_input_stats=True, momentum=0.25)
    np.testing.assert_allclose(npy(y), ref_instance_norm(x), atol=1e-10)
    mean = x.mean(2).mean(0)
    var = x.var(2, ddof=1).mean(0)
    np.testing.assert_allclose(npy(rm), 0.25 * mean, atol=1e-12)
    np.testing.assert_allclose(npy(rv), 0.75 + 0.25 * var, atol=1e-12)
    # evaluation: the running statistics
    y2 = F.instance_norm(t64(x), rm, rv, use_input_stats=False)
    np.testing.assert_allclose(npy(y2), (x - npy(rm)[None, :, None]) /
                               np.sqrt(npy(rv)[None, :, None] + 1e-5), atol=1e-10)
    with pytest.raises(ValueError, match=r"Expected more than 1 spatial element when training, "
                                         r"got input size ember.Size\(\[3, 2, 1\]\)"):
        F.instance_norm(ember.randn(3, 2, 1))


@pytest.mark.parametrize("cls,shape", [(nn.InstanceNorm1d, (2, 3, 5)),
                                       (nn.InstanceNorm2d, (2, 3, 4, 5)),
                                       (nn.InstanceNorm3d, (2, 3, 2, 3, 4))])
def test_instance_norm_modules(cls, shape):
    name = cls.__name__
    assert repr(cls(3)) == (f"{name}(3, eps=1e-05, momentum=0.1, affine=False, "
                            f"track_running_stats=False)")
    assert list(cls(3).state_dict()) == []
    m = cls(3, affine=True, track_running_stats=True).double()
    assert list(m.state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                    "num_batches_tracked"]
    x = RNG.standard_normal(shape)
    np.testing.assert_allclose(npy(m(t64(x))), ref_instance_norm(x), atol=1e-10)
    # unbatched input
    np.testing.assert_allclose(npy(m(t64(x[0]))), ref_instance_norm(x[:1])[0], atol=1e-10)
    with pytest.raises(ValueError, match=r"expected input's size at dim=1 to match num_features "
                                         r"\(4\), but got: 3."):
        cls(4, affine=True)(t64(x))
    with pytest.raises(ValueError, match=f"expected {len(shape) - 1}D or {len(shape)}D input"):
        m(t64(np.zeros([2] * (len(shape) + 1))))


def test_rms_norm():
    x = RNG.standard_normal((3, 4, 5))
    w = RNG.standard_normal((4, 5))
    y = F.rms_norm(t64(x), (4, 5), t64(w))
    ref = x / np.sqrt((x ** 2).mean((1, 2), keepdims=True) + np.finfo(np.float64).eps) * w
    np.testing.assert_allclose(npy(y), ref, atol=1e-12)
    y32 = F.rms_norm(ember.tensor(x, dtype=ember.float32), 5, eps=1e-3)
    np.testing.assert_allclose(npy(y32), x / np.sqrt((x ** 2).mean(2, keepdims=True) + 1e-3),
                               rtol=1e-5)
    xt = t64(x, True)
    assert ember.autograd.gradcheck(lambda x, w: F.rms_norm(x, (5,), w), (xt, t64(w[0], True)))
    m = nn.RMSNorm([4, 5])
    assert repr(m) == "RMSNorm((4, 5), eps=None, elementwise_affine=True)"
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[3\], expected input with "
                                           r"shape \[\*, 3\], but got input of size\[3, 4, 5\]"):
        F.rms_norm(t64(x), [3])


def ref_lrn(x, size, alpha, beta, k):
    c = x.shape[1]
    sq = x ** 2
    div = np.zeros_like(x)
    for ci in range(c):
        lo, hi = ci - size // 2, ci + (size - 1) // 2
        for j in range(max(lo, 0), min(hi, c - 1) + 1):
            div[:, ci] += sq[:, j]
    return x / (k + alpha * div / size) ** beta


@pytest.mark.parametrize("shape", [(2, 7, 5), (2, 6, 3, 4), (1, 5, 2, 2, 3)])
@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_local_response_norm(shape, size):
    x = RNG.standard_normal(shape)
    y = F.local_response_norm(t64(x), size, alpha=0.3, beta=0.6, k=1.5)
    np.testing.assert_allclose(npy(y), ref_lrn(x, size, 0.3, 0.6, 1.5), atol=1e-12)
    m = nn.LocalResponseNorm(size)
    assert repr(m) == f"LocalResponseNorm({size}, alpha=0.0001, beta=0.75, k=1.0)"
    np.testing.assert_allclose(npy(m(t64(x))), ref_lrn(x, size, 1e-4, 0.75, 1.0), atol=1e-12)
    xt = t64(x, True)
    assert ember.autograd.gradcheck(lambda x: F.local_response_norm(x, size, 0.3, 0.6, 1.5),
                                    (xt,))
    with pytest.raises(ValueError, match=r"Expected 3D or higher dimensionality input \(got 2 "
                                         r"dimensions\)"):
        F.local_response_norm(t64(np.zeros((2, 3))), 2)


def ref_cross_map_lrn(x, size, alpha, beta, k):
    """torch's legacy running-window loop, literally."""
    c = x.shape[1]
    sq = x ** 2
    scale = np.zeros_like(x)
    pre_pad = int((size - 1) / 2 + 1)
    for ci in range(min(pre_pad, c)):
        scale[:, 0] += sq[:, ci]
    for ci in range(1, c):
        scale[:, ci] = scale[:, ci - 1]
        if ci < c - pre_pad + 1:
            scale[:, ci] += sq[:, ci + pre_pad - 1]
        if ci > pre_pad:
            scale[:, ci] -= sq[:, ci - pre_pad]
    scale = scale * (alpha / size) + k
    return x * scale ** (-beta)


@pytest.mark.parametrize("size,c", [(3, 7), (5, 9), (2, 4), (4, 3)])
def test_cross_map_lrn2d(size, c):
    x = RNG.standard_normal((2, c, 3, 2))
    m = nn.CrossMapLRN2d(size, 1e-2, 0.75, 1.5)
    assert repr(m) == f"CrossMapLRN2d({size}, alpha=0.01, beta=0.75, k=1.5)"
    np.testing.assert_allclose(npy(m(t64(x))), ref_cross_map_lrn(x, size, 1e-2, 0.75, 1.5),
                               atol=1e-12)
    with pytest.raises(ValueError, match="CrossMapLRN2d: Expected input to be 4D, got 3D"):
        m(t64(x[0]))


def test_batchnorm3d():
    m = nn.BatchNorm3d(3).double()
    assert repr(m) == "BatchNorm3d(3, eps=1e-05, momentum=0.1, affine=True, " \
                      "track_running_stats=True)"
    x = RNG.standard_normal((2, 3, 2, 3, 4)) + 1
    y = m(t64(x))
    axes = (0, 2, 3, 4)
    ref = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + 1e-5)
    np.testing.assert_allclose(npy(y), ref, atol=1e-10)
    np.testing.assert_allclose(npy(m.running_mean), 0.1 * x.mean(axes), atol=1e-12)
    assert int(m.num_batches_tracked) == 1
    with pytest.raises(ValueError, match=r"expected 5D input \(got 4D input\)"):
        m(t64(x[0]))


def test_sync_batchnorm_and_convert():
    m = nn.SyncBatchNorm(4)
    assert repr(m) == "SyncBatchNorm(4, eps=1e-05, momentum=0.1, affine=True, " \
                      "track_running_stats=True)"
    x = ember.randn(5, 4, 3)
    ref = nn.BatchNorm1d(4)
    np.testing.assert_allclose(npy(m(x)), npy(ref(x)), atol=1e-6)
    np.testing.assert_allclose(npy(m.running_var), npy(ref.running_var), atol=1e-6)
    net = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Sequential(nn.BatchNorm2d(2)))
    bn = net[1]
    conv = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert type(conv[1]) is nn.SyncBatchNorm and type(conv[2][0]) is nn.SyncBatchNorm
    assert conv[1].weight is bn.weight and conv[1].running_mean is bn.running_mean
    with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"):
        m(ember.randn(4))


@pytest.mark.parametrize("lazy,cls,shape", [
    (nn.LazyBatchNorm1d, nn.BatchNorm1d, (4, 3)),
    (nn.LazyBatchNorm2d, nn.BatchNorm2d, (2, 3, 4, 4)),
    (nn.LazyBatchNorm3d, nn.BatchNorm3d, (2, 3, 2, 2, 2)),
    (nn.LazyInstanceNorm1d, nn.InstanceNorm1d, (2, 3, 5)),
    (nn.LazyInstanceNorm2d, nn.InstanceNorm2d, (2, 3, 4, 4)),
    (nn.LazyInstanceNorm3d, nn.InstanceNorm3d, (2, 3, 2, 2, 3))])
def test_lazy_norms(lazy, cls, shape):
    m = lazy()
    assert repr(m) == (f"{lazy.__name__}(0, eps=1e-05, momentum=0.1, affine=True, "
                       f"track_running_stats=True)")
    assert m.has_uninitialized_params()
    x = ember.randn(*shape)
    y = m(x)
    assert type(m) is cls and m.num_features == 3
    assert tuple(m.weight.shape) == (3,) and tuple(m.running_mean.shape) == (3,)
    ref = cls(3, affine=True, track_running_stats=True)
    np.testing.assert_allclose(npy(y), npy(ref(x)), atol=1e-5)
    np.testing.assert_allclose(npy(m.running_var), npy(ref.running_var), atol=1e-5)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_rms_norm_default_eps_of_half_inputs_is_float32s(dtype):
    # torch: eps=None means the epsilon of the compute type (float32), not of the input's
    # (bfloat16's 2^-7 would dominate small rows: 0.47 here instead of 0.87)
    x = np.array([[0.05, -0.08, 0.03], [3.0, -1.0, 2.0]])
    xe = ember.tensor(x).to(getattr(ember, dtype))
    xr = xe.float().double().numpy()
    ref = xr / np.sqrt((xr * xr).mean(-1, keepdims=True) + float(np.finfo(np.float32).eps))
    for got in (ember.nn.functional.rms_norm(xe, (3,)), ember.nn.RMSNorm(3).to(xe.dtype)(xe)):
        assert got.dtype == xe.dtype
        np.testing.assert_allclose(got.float().double().detach().numpy(), ref, rtol=1e-2)
