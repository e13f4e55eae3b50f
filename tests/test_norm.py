"""BatchNorm1d/2d, LayerNorm and Embedding on the CPU against NumPy float64
references: outputs, gradients (gradcheck in float64), running statistics,
train/eval, momentum=None, errors (type, message, process still usable),
non-contiguous inputs, empty batches, state_dict and repr."""
import math

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

RNG = np.random.default_rng(5)


def t64(a, requires_grad=False):
    t = ember.tensor(np.asarray(a, dtype=np.float64))
    return t.requires_grad_() if requires_grad else t


def npy(t):
    return t.detach().cpu().numpy()


# ---- NumPy references ---------------------------------------------------------------


def ref_batch_norm(x, w, b, eps):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = [1, x.shape[1]] + [1] * (x.ndim - 2)
    mean = x.mean(axis=axes)
    var = x.var(axis=axes)
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    if w is not None:
        y = y * w.reshape(shape)
    if b is not None:
        y = y + b.reshape(shape)
    n = x.size // x.shape[1]
    return y, mean, var * n / (n - 1)


def ref_batch_norm_grads(x, w, dy, eps):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = [1, x.shape[1]] + [1] * (x.ndim - 2)
    mean = x.mean(axis=axes).reshape(shape)
    invstd = 1.0 / np.sqrt(x.var(axis=axes).reshape(shape) + eps)
    xhat = (x - mean) * invstd
    wv = np.ones(shape) if w is None else w.reshape(shape)
    dx = wv * invstd * (dy - dy.mean(axis=axes, keepdims=True)
                        - xhat * (dy * xhat).mean(axis=axes, keepdims=True))
    return dx, (dy * xhat).sum(axis=axes), dy.sum(axis=axes)


def ref_layer_norm(x, k, w, b, eps):
    axes = tuple(range(x.ndim - k, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps)
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y


# ---- batch_norm -------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(8, 3), (4, 3, 5), (2, 3, 4, 5), (1, 2, 3, 1)])
def test_batch_norm_training_matches_numpy(shape):
    x = RNG.standard_normal(shape) * 2 + 3
    w = RNG.standard_normal(shape[1])
    b = RNG.standard_normal(shape[1])
    rm = RNG.standard_normal(shape[1])
    rv = RNG.uniform(0.5, 2, shape[1])
    rm_t, rv_t = t64(rm), t64(rv)
    y = F.batch_norm(t64(x), rm_t, rv_t, t64(w), t64(b), training=True, momentum=0.3, eps=1e-3)
    ry, mean, uvar = ref_batch_norm(x, w, b, 1e-3)
    np.testing.assert_allclose(npy(y), ry, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(npy(rm_t), 0.7 * rm + 0.3 * mean, rtol=1e-12)
    np.testing.assert_allclose(npy(rv_t), 0.7 * rv + 0.3 * uvar, rtol=1e-12)


def test_batch_norm_eval_uses_running_stats():
    x = RNG.standard_normal((5, 4, 3))
    rm, rv = RNG.standard_normal(4), RNG.uniform(0.5, 2, 4)
    w, b = RNG.standard_normal(4), RNG.standard_normal(4)
    rm_t, rv_t = t64(rm), t64(rv)
    y = F.batch_norm(t64(x), rm_t, rv_t, t64(w), t64(b), training=False, eps=1e-5)
    s = (1, 4, 1)
    ref = (x - rm.reshape(s)) / np.sqrt(rv.reshape(s) + 1e-5) * w.reshape(s) + b.reshape(s)
    np.testing.assert_allclose(npy(y), ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(npy(rm_t), rm)  # untouched in eval
    np.testing.assert_array_equal(npy(rv_t), rv)


def test_batch_norm_without_affine_or_running_stats():
    x = RNG.standard_normal((6, 3, 2))
    y = F.batch_norm(t64(x), None, None, training=True)
    np.testing.assert_allclose(npy(y), ref_batch_norm(x, None, None, 1e-5)[0], atol=1e-10)


@pytest.mark.parametrize("shape", [(6, 3), (3, 2, 4), (2, 3, 2, 3)])
def test_batch_norm_gradients_match_numpy(shape):
    x = RNG.standard_normal(shape)
    w, b = RNG.standard_normal(shape[1]), RNG.standard_normal(shape[1])
    dy = RNG.standard_normal(shape)
    xt, wt, bt = t64(x, True), t64(w, True), t64(b, True)
    y = F.batch_norm(xt, None, None, wt, bt, training=True)
    y.backward(t64(dy))
    dx, dw, db = ref_batch_norm_grads(x, w, dy, 1e-5)
    np.testing.assert_allclose(npy(xt.grad), dx, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(npy(wt.grad), dw, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(npy(bt.grad), db, rtol=1e-8, atol=1e-10)
    assert y.grad_fn.name() == "NativeBatchNormBackward0"


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_gradcheck(training):
    x = t64(RNG.standard_normal((4, 3, 5)), True)
    w = t64(RNG.standard_normal(3), True)
    b = t64(RNG.standard_normal(3), True)
    rm, rv = RNG.standard_normal(3), RNG.uniform(0.5, 2, 3)

    def fn(x, w, b):
        # fresh running stats each call: gradcheck calls fn many times
        return F.batch_norm(x, t64(rm), t64(rv), w, b, training=training, momentum=0.1)

    assert ember.autograd.gradcheck(fn, (x, w, b))


def test_batch_norm_gradcheck_no_affine():
    x = t64(RNG.standard_normal((5, 2)), True)
    assert ember.autograd.gradcheck(lambda x: F.batch_norm(x, None, None, training=True), (x,))


def test_batch_norm_non_contiguous_input():
    base = RNG.standard_normal((3, 5, 4))
    xt = t64(base).permute(0, 2, 1)  # (3, 4, 5), non-contiguous
    assert not xt.is_contiguous()
    w = RNG.standard_normal(4)
    y = F.batch_norm(xt, None, None, t64(w), None, training=True)
    ref = ref_batch_norm(base.transpose(0, 2, 1), w, None, 1e-5)[0]
    np.testing.assert_allclose(npy(y), ref, atol=1e-10)


def test_batch_norm_float32_and_large_mean():
    x = (RNG.standard_normal((16, 3, 64)) * 0.1 + 1000.0).astype(np.float32)
    y = F.batch_norm(ember.tensor(x), None, None, training=True)
    ref = ref_batch_norm(x.astype(np.float64), None, None, 1e-5)[0]
    np.testing.assert_allclose(npy(y), ref, atol=2e-3)
    assert y.dtype == ember.float32


def test_batch_norm_empty_batch():
    rm, rv = t64(np.zeros(3)), t64(np.ones(3))
    x = ember.zeros((0, 3, 4), dtype=ember.float64, requires_grad=True)
    y = F.batch_norm(x, rm, rv, training=True)
    assert tuple(y.shape) == (0, 3, 4)
    np.testing.assert_array_equal(npy(rm), np.zeros(3))  # unchanged, as torch
    y.sum().backward()
    assert tuple(x.grad.shape) == (0, 3, 4)


def test_batch_norm_errors_and_recovery():
    with pytest.raises(ValueError, match=r"Expected more than 1 value per channel when training, "
                                         r"got input size .*\[1, 3\]"):
        F.batch_norm(t64(np.ones((1, 3))), None, None, training=True)
    # eval with one value per channel is fine
    F.batch_norm(t64(np.ones((1, 3))), t64(np.zeros(3)), t64(np.ones(3)), training=False)
    with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 4"):
        F.batch_norm(t64(np.ones((2, 3))), t64(np.zeros(4)), t64(np.ones(4)), training=True)
    with pytest.raises(RuntimeError, match="weight should contain 3 elements not 2"):
        F.batch_norm(t64(np.ones((2, 3))), None, None, t64(np.ones(2)), training=True)
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        F.batch_norm(t64(np.ones((2, 3))), None, None, training=False)
    with pytest.raises(RuntimeError, match="batch_norm"):
        F.batch_norm(ember.ones(2, dtype=ember.float64), None, None, training=True)
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        F.batch_norm(ember.ones((2, 3), dtype=ember.int64), None, None, training=True)
    bn = nn.BatchNorm1d(3)
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        bn(ember.ones((2, 3, 4, 5)))
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 1D input\)"):
        bn(ember.ones(3))
    with pytest.raises(ValueError, match=r"expected 4D input \(got 3D input\)"):
        nn.BatchNorm2d(3)(ember.ones((2, 3, 4)))
    assert bn(ember.ones((2, 3))).shape == (2, 3)  # still usable


# ---- BatchNorm modules ----------------------------------------------------------------


def test_batchnorm_module_parameters_buffers_and_state_dict():
    bn = nn.BatchNorm2d(4)
    assert [n for n, _ in bn.named_parameters()] == ["weight", "bias"]
    assert list(bn.state_dict().keys()) == ["weight", "bias", "running_mean", "running_var",
                                            "num_batches_tracked"]
    assert bn.num_batches_tracked.dtype == ember.int64
    assert bn.num_batches_tracked.dim() == 0
    np.testing.assert_array_equal(npy(bn.weight), np.ones(4))
    np.testing.assert_array_equal(npy(bn.bias), np.zeros(4))
    np.testing.assert_array_equal(npy(bn.running_var), np.ones(4))
    assert repr(bn) == ("BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=True, "
                        "track_running_stats=True)")
    assert repr(nn.BatchNorm1d(3, eps=1e-3, momentum=None, affine=False,
                               track_running_stats=False)) == (
        "BatchNorm1d(3, eps=0.001, momentum=None, affine=False, track_running_stats=False)")
    plain = nn.BatchNorm1d(3, affine=False, track_running_stats=False)
    assert list(plain.state_dict().keys()) == []
    assert plain.weight is None and plain.running_mean is None


def test_batchnorm_module_train_eval_and_running_stats():
    bn = nn.BatchNorm1d(3, momentum=0.25).double()
    xs = [RNG.standard_normal((8, 3, 4)) * (i + 1) for i in range(3)]
    rm, rv = np.zeros(3), np.ones(3)
    for x in xs:
        y = bn(t64(x))
        ry, mean, uvar = ref_batch_norm(x, None, None, bn.eps)
        np.testing.assert_allclose(npy(y), ry, atol=1e-10)
        rm = 0.75 * rm + 0.25 * mean
        rv = 0.75 * rv + 0.25 * uvar
    np.testing.assert_allclose(npy(bn.running_mean), rm, rtol=1e-12)
    np.testing.assert_allclose(npy(bn.running_var), rv, rtol=1e-12)
    assert int(bn.num_batches_tracked) == 3
    bn.eval()
    x = RNG.standard_normal((2, 3, 4))
    y = bn(t64(x))
    s = (1, 3, 1)
    np.testing.assert_allclose(npy(y), (x - rm.reshape(s)) / np.sqrt(rv.reshape(s) + bn.eps),
                               atol=1e-10)
    assert int(bn.num_batches_tracked) == 3
    bn.reset_running_stats()
    np.testing.assert_array_equal(npy(bn.running_mean), np.zeros(3))
    np.testing.assert_array_equal(npy(bn.running_var), np.ones(3))
    assert int(bn.num_batches_tracked) == 0


def test_batchnorm_momentum_none_is_cumulative_average():
    bn = nn.BatchNorm2d(2, momentum=None).double()
    xs = [RNG.standard_normal((3, 2, 2, 2)) + i for i in range(4)]
    for x in xs:
        bn(t64(x))
    means = [ref_batch_norm(x, None, None, 1e-5)[1] for x in xs]
    uvars = [ref_batch_norm(x, None, None, 1e-5)[2] for x in xs]
    # cumulative average, starting from the initial (0, 1) with factor 1 on the first batch
    np.testing.assert_allclose(npy(bn.running_mean), np.mean(means, axis=0), rtol=1e-10)
    np.testing.assert_allclose(npy(bn.running_var), np.mean(uvars, axis=0), rtol=1e-10)


def test_batchnorm_without_tracking_uses_batch_stats_in_eval():
    bn = nn.BatchNorm1d(3, track_running_stats=False).double().eval()
    x = RNG.standard_normal((5, 3))
    np.testing.assert_allclose(npy(bn(t64(x))), ref_batch_norm(x, None, None, 1e-5)[0],
                               atol=1e-10)


def test_batchnorm_load_state_dict_without_num_batches_tracked():
    src = nn.BatchNorm1d(2)
    src.running_mean.fill_(0.5)
    sd = src.state_dict()
    del sd["num_batches_tracked"]
    # a state dict of this version must have it (torch's Missing key error) ...
    with pytest.raises(RuntimeError, match='Missing key.*"num_batches_tracked"'):
        nn.BatchNorm1d(2).load_state_dict(sd)
    # ... one without version metadata (a checkpoint from before it existed) need not
    old = dict(sd)
    dst = nn.BatchNorm1d(2)
    dst.load_state_dict(old)
    np.testing.assert_array_equal(npy(dst.running_mean), [0.5, 0.5])
    assert dst.num_batches_tracked.item() == 0


def test_batchnorm_module_backward_and_grad_of_affine():
    bn = nn.BatchNorm2d(3).double()
    x = t64(RNG.standard_normal((2, 3, 2, 2)), True)
    bn(x).pow(2).sum().backward()
    assert bn.weight.grad is not None and bn.bias.grad is not None
    assert x.grad.shape == x.shape
    # gradient of sum(y^2) w.r.t. bias is 2*sum(y) = 0 per channel (y has zero mean)
    np.testing.assert_allclose(npy(bn.bias.grad), np.zeros(3), atol=1e-10)


def test_batch_norm_float32_params_with_float64_running_stats():
    x = RNG.standard_normal((6, 2)).astype(np.float32)
    rm, rv = ember.zeros(2, dtype=ember.float64), ember.ones(2, dtype=ember.float64)
    F.batch_norm(ember.tensor(x), rm, rv, training=True, momentum=1.0)
    np.testing.assert_allclose(npy(rm), x.astype(np.float64).mean(0), rtol=1e-5)


# ---- layer_norm -------------------------------------------------------------------------


@pytest.mark.parametrize("shape,ns", [((4, 6), (6,)), ((2, 3, 5), (3, 5)), ((7,), 7),
                                      ((2, 1, 4), [4])])
def test_layer_norm_matches_numpy(shape, ns):
    x = RNG.standard_normal(shape) * 3 + 2
    nshape = (ns,) if isinstance(ns, int) else tuple(ns)
    w, b = RNG.standard_normal(nshape), RNG.standard_normal(nshape)
    y = F.layer_norm(t64(x), ns, t64(w), t64(b), eps=1e-4)
    np.testing.assert_allclose(npy(y), ref_layer_norm(x, len(nshape), w, b, 1e-4), atol=1e-10)
    y = F.layer_norm(t64(x), ns)
    np.testing.assert_allclose(npy(y), ref_layer_norm(x, len(nshape), None, None, 1e-5),
                               atol=1e-10)


def test_layer_norm_gradcheck():
    x = t64(RNG.standard_normal((3, 2, 4)), True)
    w = t64(RNG.standard_normal((2, 4)), True)
    b = t64(RNG.standard_normal((2, 4)), True)
    assert ember.autograd.gradcheck(lambda x, w, b: F.layer_norm(x, (2, 4), w, b), (x, w, b))
    assert ember.autograd.gradcheck(lambda x: F.layer_norm(x, (4,)), (x,))
    assert ember.autograd.gradcheck(lambda x, w: F.layer_norm(x, (4,), w[0]), (x, w))


def test_layer_norm_float32_float16_bfloat16_on_cpu():
    x = RNG.standard_normal((5, 33)).astype(np.float32)
    ref = ref_layer_norm(x.astype(np.float64), 1, None, None, 1e-5)
    for dt, tol in [(ember.float32, 1e-5), (ember.float16, 1e-2), (ember.bfloat16, 5e-2)]:
        y = F.layer_norm(ember.tensor(x).to(dt), (33,))
        assert y.dtype == dt
        np.testing.assert_allclose(npy(y.float()), ref, atol=tol * 4)


def test_layer_norm_non_contiguous_and_empty():
    base = RNG.standard_normal((4, 3))
    xt = t64(base).t()  # (3, 4)
    np.testing.assert_allclose(npy(F.layer_norm(xt, (4,))),
                               ref_layer_norm(base.T, 1, None, None, 1e-5), atol=1e-10)
    x = ember.zeros((0, 4), dtype=ember.float64, requires_grad=True)
    w = t64(np.ones(4), True)
    y = F.layer_norm(x, (4,), w)
    assert tuple(y.shape) == (0, 4)
    y.sum().backward()
    np.testing.assert_array_equal(npy(w.grad), np.zeros(4))


def test_layer_norm_errors():
    x = ember.ones((2, 3))
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[4\], expected input with "
                                           r"shape \[\*, 4\], but got input of size\[2, 3\]"):
        F.layer_norm(x, (4,))
    with pytest.raises(RuntimeError, match=r"Expected weight to be of same shape as "
                                           r"normalized_shape, but got weight of shape \[2\] "
                                           r"and normalized_shape = \[3\]"):
        F.layer_norm(x, (3,), ember.ones(2))
    with pytest.raises(RuntimeError, match="Expected bias to be of same shape"):
        F.layer_norm(x, (3,), None, ember.ones(4))
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        F.layer_norm(ember.ones((2, 3), dtype=ember.int64), (3,))
    with pytest.raises(TypeError):
        F.layer_norm(x, "abc")
    assert F.layer_norm(x, 3).shape == (2, 3)


def test_layer_norm_double_backward():
    x = t64(RNG.standard_normal((3, 2, 4)), True)
    w = t64(RNG.standard_normal((2, 4)), True)
    b = t64(RNG.standard_normal((2, 4)), True)
    assert ember.autograd.gradgradcheck(lambda x, w, b: F.layer_norm(x, (2, 4), w, b), (x, w, b))
    assert ember.autograd.gradgradcheck(lambda x: F.layer_norm(x, (4,)), (x,))
    # without create_graph the fused kernels run: same first derivative
    y = F.layer_norm(x, (4,), w[0], b[0]).pow(3).sum()
    g1 = ember.autograd.grad(y, (x, w), retain_graph=True)
    g2 = ember.autograd.grad(y, (x, w), create_graph=True)
    for a, c in zip(g1, g2):
        np.testing.assert_allclose(npy(a), npy(c), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_double_backward(training):
    x = t64(RNG.standard_normal((4, 3, 2)), True)
    w = t64(RNG.standard_normal(3), True)
    b = t64(RNG.standard_normal(3), True)
    rm, rv = RNG.standard_normal(3), RNG.uniform(0.5, 2, 3)

    def fn(x, w, b):
        return F.batch_norm(x, t64(rm), t64(rv), w, b, training=training)

    assert ember.autograd.gradgradcheck(fn, (x, w, b))
    y = fn(x, w, b).pow(3).sum()
    g1 = ember.autograd.grad(y, (x, w, b), retain_graph=True)
    g2 = ember.autograd.grad(y, (x, w, b), create_graph=True)
    for a, c in zip(g1, g2):
        np.testing.assert_allclose(npy(a), npy(c), rtol=1e-9, atol=1e-11)


def test_layernorm_module():
    ln = nn.LayerNorm((2, 3), eps=1e-6).double()
    assert repr(ln) == "LayerNorm((2, 3), eps=1e-06, elementwise_affine=True)"
    assert list(ln.state_dict().keys()) == ["weight", "bias"]
    np.testing.assert_array_equal(npy(ln.weight), np.ones((2, 3)))
    with ember.no_grad():
        ln.weight.copy_(t64(RNG.standard_normal((2, 3))))
        ln.bias.copy_(t64(RNG.standard_normal((2, 3))))
    x = RNG.standard_normal((4, 2, 3))
    np.testing.assert_allclose(npy(ln(t64(x))),
                               ref_layer_norm(x, 2, npy(ln.weight), npy(ln.bias), 1e-6),
                               atol=1e-10)
    assert nn.LayerNorm(5, bias=False).bias is None
    plain = nn.LayerNorm(5, elementwise_affine=False)
    assert plain.weight is None and list(plain.parameters()) == []
    assert plain.normalized_shape == (5,)


# ---- embedding ------------------------------------------------------------------------


def test_embedding_forward_backward_match_numpy():
    w = RNG.standard_normal((10, 4))
    idx = np.array([[1, 3, 3], [0, 9, 1]])
    wt = t64(w, True)
    out = F.embedding(ember.tensor(idx), wt)
    np.testing.assert_array_equal(npy(out), w[idx])
    g = RNG.standard_normal((2, 3, 4))
    out.backward(t64(g))
    ref = np.zeros_like(w)
    np.add.at(ref, idx.reshape(-1), g.reshape(-1, 4))
    np.testing.assert_allclose(npy(wt.grad), ref, atol=1e-12)
    assert out.grad_fn.name() == "EmbeddingBackward0"


def test_embedding_int32_indices_and_0d_index():
    w = t64(RNG.standard_normal((5, 3)))
    idx = ember.tensor([4, 0], dtype=ember.int32)
    np.testing.assert_array_equal(npy(F.embedding(idx, w)), npy(w)[[4, 0]])
    assert F.embedding(ember.tensor(2), w).shape == (3,)


def test_embedding_padding_idx_and_scale_grad_by_freq():
    w = RNG.standard_normal((6, 2))
    idx = np.array([2, 2, 5, 1, 2])
    wt = t64(w, True)
    F.embedding(ember.tensor(idx), wt, padding_idx=-1, scale_grad_by_freq=True).sum().backward()
    ref = np.zeros_like(w)
    counts = np.bincount(idx, minlength=6)
    for i in idx:
        if i != 5:
            ref[i] += 1.0 / counts[i]
    np.testing.assert_allclose(npy(wt.grad), ref, atol=1e-12)


def test_embedding_gradcheck():
    w = t64(RNG.standard_normal((7, 3)), True)
    idx = ember.tensor([[0, 6], [3, 0]])
    assert ember.autograd.gradcheck(lambda w: F.embedding(idx, w), (w,))
    # padding_idx and scale_grad_by_freq are not checked here: by design (torch's) their
    # gradients are not the derivative (test_embedding_padding_idx_and_scale_grad_by_freq)


def test_embedding_max_norm_renormalises_rows_in_place():
    w = RNG.standard_normal((5, 3)) * 4
    wt = t64(w)
    idx = ember.tensor([0, 0, 2])
    out = F.embedding(idx, wt, max_norm=1.5)
    expect = w.copy()
    for r in (0, 2):
        n = np.linalg.norm(w[r])
        if n > 1.5:
            expect[r] = w[r] * 1.5 / (n + 1e-7)
    np.testing.assert_allclose(npy(wt), expect, rtol=1e-12)
    np.testing.assert_allclose(npy(out), expect[[0, 0, 2]], rtol=1e-12)
    for p in (1.0, 3.0, math.inf):
        wt = t64(w)
        F.embedding(ember.tensor([1]), wt, max_norm=0.5, norm_type=p)
        n = np.linalg.norm(w[1], ord=p)
        np.testing.assert_allclose(npy(wt)[1], w[1] * 0.5 / (n + 1e-7), rtol=1e-12)
        np.testing.assert_array_equal(npy(wt)[0], w[0])


def test_embedding_errors_and_recovery():
    w = t64(RNG.standard_normal((4, 2)))
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(ember.tensor([0, 4]), w)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(ember.tensor([-1]), w)
    with pytest.raises(TypeError, match="Expected tensor for argument #1 'indices' to have one "
                                        "of the following scalar types: Long, Int"):
        F.embedding(ember.tensor([0.0]), w)
    with pytest.raises(RuntimeError, match="'weight' must be 2-D"):
        F.embedding(ember.tensor([0]), ember.ones(3))
    with pytest.raises(NotImplementedError, match="dense gradients"):
        F.embedding(ember.tensor([0]), w, sparse=True)
    with pytest.raises(NotImplementedError, match="dense gradients"):
        nn.Embedding(3, 2, sparse=True)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(ember.tensor([0]), w, padding_idx=4)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(3, 2, padding_idx=-4)
    np.testing.assert_array_equal(npy(F.embedding(ember.tensor([3]), w)), npy(w)[[3]])


def test_embedding_module():
    emb = nn.Embedding(10, 3, padding_idx=2)
    assert repr(emb) == "Embedding(10, 3, padding_idx=2)"
    assert repr(nn.Embedding(4, 2, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True)) == (
        "Embedding(4, 2, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True)")
    assert list(emb.state_dict().keys()) == ["weight"]
    np.testing.assert_array_equal(npy(emb.weight)[2], np.zeros(3))
    out = emb(ember.tensor([[2, 1], [0, 2]]))
    assert out.shape == (2, 2, 3)
    out.sum().backward()
    np.testing.assert_array_equal(npy(emb.weight.grad)[2], np.zeros(3))
    np.testing.assert_array_equal(npy(emb.weight.grad)[1], np.ones(3))
    assert nn.Embedding(5, 2, padding_idx=-1).padding_idx == 4


def test_embedding_from_pretrained():
    w = ember.tensor(RNG.standard_normal((3, 2)))
    emb = nn.Embedding.from_pretrained(w)
    assert not emb.weight.requires_grad
    assert emb.num_embeddings == 3 and emb.embedding_dim == 2
    np.testing.assert_array_equal(npy(emb(ember.tensor([1]))), npy(w)[[1]])
    emb = nn.Embedding.from_pretrained(w, freeze=False, padding_idx=0)
    assert emb.weight.requires_grad
    emb(ember.tensor([0, 1])).sum().backward()
    np.testing.assert_array_equal(npy(emb.weight.grad), [[0, 0], [1, 1], [0, 0]])
    with pytest.raises(AssertionError, match="2-dimensional"):
        nn.Embedding.from_pretrained(ember.ones(3))


def test_embedding_double_backward_raises_clearly():
    w = t64(RNG.standard_normal((3, 2)), True)
    y = F.embedding(ember.tensor([0, 1]), w).pow(2).sum()
    with pytest.raises(RuntimeError, match="double backward"):
        ember.autograd.grad(y, w, create_graph=True)
