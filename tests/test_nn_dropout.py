"""Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout (modules and functional forms): the
structure of the masks (whole channels; the two values alpha dropout produces), their
statistics, reproducibility with ember.manual_seed, gradients equal to the mask,
eval/p=0/p=1/in-place behaviour, torch's errors, warnings and reprs. The GPU tests check
the same on CUDA."""
import math
import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

ALPHA_P = 1.7580993408473766  # SELU's scale * alpha


def _channel_mask(y, x, p):
    """(N*C,) bool kept-channel mask; asserts each channel is wholly kept (x/(1-p)) or 0."""
    yn, xn = y.detach().numpy(), x.detach().numpy()
    n, c = xn.shape[:2]
    yr, xr = yn.reshape(n * c, -1), xn.reshape(n * c, -1)
    kept = np.all(np.isclose(yr, xr / (1 - p), rtol=1e-6), axis=1)
    dropped = np.all(yr == 0, axis=1)
    assert np.all(kept | dropped)
    return kept


@pytest.mark.parametrize("fn,shape", [(F.dropout1d, (40, 50, 6)), (F.dropout2d, (40, 50, 3, 4)),
                                      (F.dropout3d, (40, 50, 2, 3, 2))])
def test_channel_dropouts_drop_whole_channels(fn, shape):
    x = ember.rand(*shape) + 0.5
    p = 0.3
    kept = _channel_mask(fn(x, p, training=True), x, p)
    # 2000 channels: the dropped fraction within 5 sigma of p
    sigma = math.sqrt(p * (1 - p) / kept.size)
    assert abs((1 - kept.mean()) - p) < 5 * sigma


@pytest.mark.parametrize("fn,shape", [(F.dropout1d, (6, 9)), (F.dropout3d, (6, 2, 3, 2))])
def test_unbatched_inputs(fn, shape):
    x = ember.rand(*shape) + 0.5
    y = fn(x, 0.5, training=True)
    assert tuple(y.shape) == shape
    _channel_mask(y.unsqueeze(0), x.unsqueeze(0), 0.5)


@pytest.mark.parametrize("fn", [F.dropout1d, F.dropout2d, F.dropout3d, F.alpha_dropout,
                                F.feature_alpha_dropout])
def test_reproducible_with_manual_seed(fn):
    x = ember.randn(8, 16, 4, 4, 3)[:, :, 0, 0] if fn is F.dropout1d else ember.randn(8, 16, 4, 4, 3)
    if fn is F.dropout2d:
        x = x[..., 0]
    ember.manual_seed(7)
    a = fn(x, 0.4, training=True)
    ember.manual_seed(7)
    b = fn(x, 0.4, training=True)
    ember.manual_seed(8)
    c = fn(x, 0.4, training=True)
    assert ember.equal(a, b) and not ember.equal(a, c)


def test_alpha_dropout_values_and_statistics():
    p = 0.2
    a = 1.0 / math.sqrt((ALPHA_P ** 2 * p + 1) * (1 - p))
    x = ember.randn(200000)
    y = F.alpha_dropout(x, p, training=True).numpy()
    xn = x.numpy()
    dropped_value = ALPHA_P * a * (p - 1)
    kept = np.isclose(y, xn * a + ALPHA_P * a * p, rtol=1e-5, atol=1e-6)
    dropped = np.isclose(y, dropped_value, rtol=1e-5)
    assert np.all(kept | dropped)
    assert abs(dropped.mean() - p) < 5 * math.sqrt(p * (1 - p) / y.size)
    # keeps zero mean and unit variance (of a standard normal input)
    assert abs(y.mean()) < 0.02 and abs(y.var() - 1) < 0.03


def test_feature_alpha_dropout_whole_channels():
    p = 0.5
    a = 1.0 / math.sqrt((ALPHA_P ** 2 * p + 1) * (1 - p))
    x = ember.randn(30, 20, 5)
    y = F.feature_alpha_dropout(x, p, training=True).numpy().reshape(600, 5)
    xn = x.numpy().reshape(600, 5)
    kept = np.all(np.isclose(y, xn * a + ALPHA_P * a * p, rtol=1e-5, atol=1e-6), axis=1)
    dropped = np.all(np.isclose(y, ALPHA_P * a * (p - 1), rtol=1e-5), axis=1)
    assert np.all(kept | dropped) and 0.3 < dropped.mean() < 0.7


@pytest.mark.parametrize("fn", [F.dropout1d, F.dropout2d, F.dropout3d, F.alpha_dropout,
                                F.feature_alpha_dropout])
def test_gradient_is_the_mask(fn):
    shape = {F.dropout1d: (4, 6, 5), F.dropout2d: (4, 6, 5, 2)}.get(fn, (4, 6, 5, 2, 2))
    x = (ember.rand(*shape) + 0.5).requires_grad_(True)
    ember.manual_seed(3)
    y = fn(x, 0.4, training=True)
    g = ember.randn(*shape)
    y.backward(g)
    ember.manual_seed(3)
    ones = fn(ember.ones(*shape), 0.4, training=True)
    if fn in (F.alpha_dropout, F.feature_alpha_dropout):
        ember.manual_seed(3)
        zeros = fn(ember.zeros(*shape), 0.4, training=True)
        scale = ones - zeros  # the multiplicative part
    else:
        scale = ones
    np.testing.assert_allclose(x.grad.numpy(), (g * scale).numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("cls", [nn.Dropout1d, nn.Dropout2d, nn.Dropout3d, nn.AlphaDropout,
                                 nn.FeatureAlphaDropout])
def test_modules_eval_p0_p1_inplace_empty(cls):
    x = ember.randn(4, 3, 5, 2, 2) if cls is not nn.Dropout1d else ember.randn(4, 3, 5)
    if cls is nn.Dropout2d:
        x = x[..., 0]
    m = cls(0.5)
    m.eval()
    assert m(x) is x
    m.train()
    assert cls(0.0)(x) is x
    assert float(cls(1.0)(x).abs().sum()) == 0.0
    y = x.clone()
    out = cls(0.5, inplace=True)(y)
    assert out.data_ptr() == y.data_ptr() and not ember.equal(y, x)
    empty = x[:0]
    assert tuple(m(empty).shape) == tuple(empty.shape)
    assert repr(cls(0.2, True)) == f"{cls.__name__}(p=0.2, inplace=True)"
    assert repr(cls()) == f"{cls.__name__}(p=0.5, inplace=False)"


def test_errors_and_warnings():
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got "
                                         "1.5"):
        F.dropout2d(ember.ones(2, 3, 4), 1.5)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got "
                                         "-0.1"):
        nn.AlphaDropout(-0.1)
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D "
                                           "input"):
        F.dropout1d(ember.ones(2, 3, 4, 5))
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in the "
                                           "input"):
        F.feature_alpha_dropout(ember.ones(3), 0.3, training=True)
    x3 = ember.rand(6, 7, 4) + 0.5
    with pytest.warns(UserWarning, match="dropout2d: Received a 3D input to dropout2d and "
                                         "assuming that channel-wise 1D dropout"):
        y3 = F.dropout2d(x3, 0.5)
    _channel_mask(y3, x3, 0.5)  # (N, C, L): whole (n, c) rows, as torch
    with pytest.warns(UserWarning, match="dropout2d: Received a 5-D input to dropout2d, which is "
                                         "deprecated"):
        F.dropout2d(ember.ones(2, 3, 4, 5, 6), 0.5)
    with pytest.warns(UserWarning, match="dropout3d: Received a 3-D input to dropout3d"):
        F.dropout3d(ember.ones(2, 3, 4), 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.dropout2d(ember.ones(2, 3, 4, 5), 0.5)  # no warning for 4-D
    assert tuple(F.dropout1d(ember.ones(2, 3), 0.5).shape) == (2, 3)


# ---- GPU ------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("fn,shape", [(F.dropout1d, (64, 64, 8)), (F.dropout2d, (64, 64, 4, 4)),
                                      (F.dropout3d, (64, 64, 2, 2, 2))])
def test_gpu_channel_dropout(fn, shape):
    x = ember.rand(*shape, device="cuda") + 0.5
    ember.manual_seed(21)
    y = fn(x, 0.25, training=True)
    ember.manual_seed(21)
    assert ember.equal(y, fn(x, 0.25, training=True))
    kept = _channel_mask(y.cpu(), x.cpu(), 0.25)
    assert abs((1 - kept.mean()) - 0.25) < 5 * math.sqrt(0.25 * 0.75 / kept.size)


@pytest.mark.gpu
def test_gpu_alpha_dropout_statistics(torch):
    x = ember.randn(1 << 20, device="cuda")
    y = F.alpha_dropout(x, 0.1, training=True).cpu().numpy()
    tx = torch.randn(1 << 20, device="cuda")
    ty = torch.nn.functional.alpha_dropout(tx, 0.1, training=True).cpu().numpy()
    assert abs(y.mean() - ty.mean()) < 0.01 and abs(y.var() - ty.var()) < 0.02

    def dropped_value(v):  # the value every dropped element gets: by far the most frequent
        values, counts = np.unique(v, return_counts=True)
        assert counts.max() > 0.05 * v.size
        return values[counts.argmax()]

    assert abs(dropped_value(y) - dropped_value(ty)) < 1e-6
