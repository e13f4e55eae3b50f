"""conv2d and 2-D pooling on the CPU: forward against direct-loop NumPy references
(float64), gradients by gradcheck (stride, padding, dilation, groups, bias, 'same',
unbatched input, padding modes, pools), non-contiguous and empty inputs, the column
buffer's chunking, the modules (initialisation, repr) and torch's errors."""
import math

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from autograd_util import check, npy

RNG = np.random.default_rng(21)


def rand(*shape):
    return RNG.standard_normal(shape)


def t64(a, grad=False):
    t = ember.tensor(np.ascontiguousarray(a), dtype=ember.float64)
    return t.requires_grad_() if grad else t


# ---- NumPy references ------------------------------------------------------------------

def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def conv_ref(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """Cross-correlation by direct loops over the kernel taps; padding an int, a
    pair, or ((top, bottom), (left, right))."""
    sh, sw = _pair(stride)
    dh, dw = _pair(dilation)
    if isinstance(padding, (tuple, list)) and isinstance(padding[0], (tuple, list)):
        pads = padding
    else:
        ph, pw = _pair(padding)
        pads = ((ph, ph), (pw, pw))
    N, C, H, W = x.shape
    O, Cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), pads[0], pads[1]))
    Hp, Wp = xp.shape[2:]
    OH = (Hp - dh * (kh - 1) - 1) // sh + 1
    OW = (Wp - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((N, O, OH, OW))
    Og = O // groups
    for g in range(groups):
        xs = xp[:, g * Cg:(g + 1) * Cg]
        ws = w[g * Og:(g + 1) * Og]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * dh:i * dh + sh * (OH - 1) + 1:sh,
                           j * dw:j * dw + sw * (OW - 1) + 1:sw]
                out[:, g * Og:(g + 1) * Og] += np.einsum("nchw,oc->nohw", patch, ws[:, :, i, j])
    if b is not None:
        out += b[None, :, None, None]
    return out


def pool_out(n, k, p, s, d, ceil):
    span = n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)
    o = span // s + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def max_pool_ref(x, k, s=None, p=0, d=1, ceil=False):
    kh, kw = _pair(k)
    sh, sw = _pair(s if s is not None else k)
    ph, pw = _pair(p)
    dh, dw = _pair(d)
    N, C, H, W = x.shape
    OH, OW = pool_out(H, kh, ph, sh, dh, ceil), pool_out(W, kw, pw, sw, dw, ceil)
    out = np.full((N, C, OH, OW), -np.inf)
    idx = np.zeros((N, C, OH, OW), dtype=np.int64)
    for oh in range(OH):
        for ow in range(OW):
            best = np.full((N, C), -np.inf)
            bi = np.full((N, C), -1)
            for i in range(kh):
                h = oh * sh - ph + i * dh
                if not 0 <= h < H:
                    continue
                for j in range(kw):
                    w = ow * sw - pw + j * dw
                    if not 0 <= w < W:
                        continue
                    v = x[:, :, h, w]
                    take = (bi < 0) | (v > best)
                    best = np.where(take, v, best)
                    bi = np.where(take, h * W + w, bi)
            out[:, :, oh, ow] = best
            idx[:, :, oh, ow] = bi
    return out, idx


def avg_pool_ref(x, k, s=None, p=0, ceil=False, count_include_pad=True, divisor=None):
    kh, kw = _pair(k)
    sh, sw = _pair(s if s is not None else k)
    ph, pw = _pair(p)
    N, C, H, W = x.shape
    OH, OW = pool_out(H, kh, ph, sh, 1, ceil), pool_out(W, kw, pw, sw, 1, ceil)
    out = np.zeros((N, C, OH, OW))
    for oh in range(OH):
        for ow in range(OW):
            hs, ws = oh * sh - ph, ow * sw - pw
            he, we = min(hs + kh, H + ph), min(ws + kw, W + pw)
            size = (he - hs) * (we - ws)
            hs, ws, he, we = max(hs, 0), max(ws, 0), min(he, H), min(we, W)
            total = x[:, :, hs:he, ws:we].sum(axis=(2, 3))
            div = divisor if divisor else (size if count_include_pad else (he - hs) * (we - ws))
            out[:, :, oh, ow] = total / div
    return out


def adaptive_ref(x, oh, ow):
    N, C, H, W = x.shape
    out = np.zeros((N, C, oh, ow))
    for i in range(oh):
        for j in range(ow):
            hs, he = (i * H) // oh, -((-(i + 1) * H) // oh)
            ws, we = (j * W) // ow, -((-(j + 1) * W) // ow)
            out[:, :, i, j] = x[:, :, hs:he, ws:we].mean(axis=(2, 3))
    return out


# ---- conv2d forward ----------------------------------------------------------------------

CONFIGS = [
    # (N, C, H, W, O, kh, kw, stride, padding, dilation, groups, bias)
    (2, 3, 8, 9, 4, 3, 3, 1, 0, 1, 1, True),
    (2, 3, 8, 9, 4, 3, 3, 1, 1, 1, 1, False),
    (1, 4, 10, 7, 6, 3, 2, (2, 1), (1, 0), 1, 2, True),
    (3, 2, 9, 9, 2, 3, 3, 2, 2, 2, 1, True),
    (2, 6, 7, 8, 6, 1, 1, 1, 0, 1, 3, True),    # pointwise: the input is its own column
    (2, 4, 6, 6, 8, 1, 1, 2, 0, 1, 1, False),   # 1x1 with a stride: im2col
    (1, 6, 5, 6, 6, 3, 3, 1, 1, 1, 6, True),    # depthwise
    (2, 2, 5, 5, 3, 5, 5, 1, 2, 1, 1, True),
    (1, 1, 4, 4, 1, 4, 4, 1, 0, 1, 1, True),    # kernel = input
]


@pytest.mark.parametrize("cfg", CONFIGS)
def test_conv2d_forward_matches_reference(cfg):
    N, C, H, W, O, kh, kw, s, p, d, g, bias = cfg
    x, w = rand(N, C, H, W), rand(O, C // g, kh, kw)
    b = rand(O) if bias else None
    out = F.conv2d(t64(x), t64(w), t64(b) if bias else None, s, p, d, g)
    ref = conv_ref(x, w, b, s, p, d, g)
    assert tuple(out.shape) == ref.shape and out.dtype == ember.float64
    np.testing.assert_allclose(npy(out), ref, rtol=1e-12, atol=1e-12)
    out32 = F.conv2d(ember.tensor(x, dtype=ember.float32), ember.tensor(w, dtype=ember.float32),
                     ember.tensor(b, dtype=ember.float32) if bias else None, s, p, d, g)
    assert out32.dtype == ember.float32
    np.testing.assert_allclose(npy(out32), ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype,tol", [(ember.float16, 2e-2), (ember.bfloat16, 1e-1)])
def test_conv2d_half_types_on_cpu(dtype, tol):
    x, w, b = rand(2, 3, 6, 6), rand(4, 3, 3, 3), rand(4)
    xt, wt, bt = (ember.tensor(a, dtype=dtype) for a in (x, w, b))
    out = F.conv2d(xt, wt, bt, padding=1)
    assert out.dtype == dtype
    ref = conv_ref(npy(xt.double()), npy(wt.double()), npy(bt.double()), 1, 1)
    np.testing.assert_allclose(npy(out.double()), ref, rtol=tol, atol=tol)


def test_conv2d_same_and_valid_padding():
    x = rand(1, 2, 7, 6)
    for kh, kw, d in [(3, 3, 1), (4, 2, 1), (3, 2, 2), (1, 4, 1)]:
        w = rand(3, 2, kh, kw)
        out = F.conv2d(t64(x), t64(w), padding="same", dilation=d)
        assert tuple(out.shape) == (1, 3, 7, 6)
        th, tw = d * (kh - 1), d * (kw - 1)
        ref = conv_ref(x, w, None, 1, ((th // 2, th - th // 2), (tw // 2, tw - tw // 2)), d)
        np.testing.assert_allclose(npy(out), ref, rtol=1e-12, atol=1e-12)
    w = rand(3, 2, 3, 3)
    np.testing.assert_allclose(npy(F.conv2d(t64(x), t64(w), padding="valid")),
                               conv_ref(x, w), rtol=1e-12)


def test_conv2d_unbatched_input():
    x, w, b = rand(3, 6, 5), rand(2, 3, 3, 3), rand(2)
    out = F.conv2d(t64(x), t64(w), t64(b), padding=1)
    assert tuple(out.shape) == (2, 6, 5)
    np.testing.assert_allclose(npy(out), conv_ref(x[None], w, b, 1, 1)[0], rtol=1e-12)
    xt = t64(x, grad=True)
    wt = t64(w, grad=True)
    check(lambda a, b_: F.conv2d(a, b_, None, 1, 1), xt, wt)


def test_conv2d_non_contiguous_operands():
    x = rand(2, 7, 3, 6)          # stored as N, H, C, W: a permuted view
    w = rand(4, 2, 3, 3)          # O, kw, C, kh -> permuted to O, C, kh, kw
    xt = t64(x).permute(0, 2, 1, 3)
    wt = t64(w).permute(0, 2, 3, 1)
    assert not xt.is_contiguous() and not wt.is_contiguous()
    ref = conv_ref(x.transpose(0, 2, 1, 3), w.transpose(0, 2, 3, 1), None, 1, 1)
    np.testing.assert_allclose(npy(F.conv2d(xt, wt, padding=1)), ref, rtol=1e-12)
    xs = t64(rand(2, 3, 10, 10))[:, :, ::2, 1::2]  # strided slices
    ws = t64(rand(4, 3, 3, 3))
    np.testing.assert_allclose(npy(F.conv2d(xs, ws)), conv_ref(npy(xs), npy(ws)), rtol=1e-12)


def test_conv2d_chunked_column_buffer_matches_unchunked():
    x, w, b = rand(5, 3, 9, 8), rand(4, 3, 3, 3), rand(4)
    grads = []
    for limit in (None, 1, 3 * 9 * 9 * 8 * 8 * 2):  # whole batch, one image, two images
        old = ember._C._nn._set_conv_workspace_limit(limit if limit else 1 << 40)
        try:
            xt, wt, bt = t64(x, True), t64(w, True), t64(b, True)
            out = F.conv2d(xt, wt, bt, padding=1)
            (out * out).sum().backward()
            grads.append((npy(out), npy(xt.grad), npy(wt.grad), npy(bt.grad)))
        finally:
            ember._C._nn._set_conv_workspace_limit(old)
    np.testing.assert_allclose(grads[0][0], conv_ref(x, w, b, 1, 1), rtol=1e-12, atol=1e-12)
    for other in grads[1:]:
        for a, b_ in zip(grads[0], other):
            np.testing.assert_allclose(a, b_, rtol=1e-12, atol=1e-12)


def test_conv2d_empty_batch_and_channels():
    w = t64(rand(4, 3, 3, 3), grad=True)
    b = t64(rand(4), grad=True)
    x = ember.zeros((0, 3, 5, 5), dtype=ember.float64).requires_grad_()
    out = F.conv2d(x, w, b, padding=1)
    assert tuple(out.shape) == (0, 4, 5, 5)
    out.sum().backward()
    assert tuple(x.grad.shape) == (0, 3, 5, 5)
    np.testing.assert_array_equal(npy(w.grad), np.zeros((4, 3, 3, 3)))
    np.testing.assert_array_equal(npy(b.grad), np.zeros(4))
    w0 = ember.zeros((0, 3, 3, 3), dtype=ember.float64)
    assert tuple(F.conv2d(t64(rand(2, 3, 5, 5)), w0).shape) == (2, 0, 3, 3)


# ---- conv2d gradients ---------------------------------------------------------------------

GRAD_CONFIGS = [
    # (N, C, H, W, O, kh, kw, stride, padding, dilation, groups, bias)
    (2, 2, 5, 6, 3, 3, 3, 1, 1, 1, 1, True),
    (1, 4, 6, 5, 4, 3, 2, (2, 1), (1, 0), 1, 2, True),
    (2, 2, 7, 7, 2, 3, 3, 2, 2, 2, 1, False),
    (1, 3, 4, 4, 3, 1, 1, 1, 0, 1, 3, True),
    (1, 2, 5, 5, 2, 2, 2, 3, 1, 1, 1, True),   # stride > kernel: input elements no window reads
    (1, 2, 6, 5, 3, 3, 3, 1, "same", 1, 1, True),
    (1, 2, 6, 5, 3, 2, 4, 1, "same", 1, 1, False),
]


@pytest.mark.parametrize("cfg", GRAD_CONFIGS)
def test_conv2d_gradcheck(cfg):
    N, C, H, W, O, kh, kw, s, p, d, g, bias = cfg
    x = t64(rand(N, C, H, W), True)
    w = t64(rand(O, C // g, kh, kw), True)
    if bias:
        b = t64(rand(O), True)
        check(lambda a, b_, c: F.conv2d(a, b_, c, s, p, d, g), x, w, b)
    else:
        check(lambda a, b_: F.conv2d(a, b_, None, s, p, d, g), x, w)


def test_conv2d_grad_input_skipped_when_not_required():
    x = t64(rand(2, 3, 6, 6))
    w = t64(rand(4, 3, 3, 3), True)
    b = t64(rand(4), True)
    out = F.conv2d(x, w, b, padding=1)
    assert out.grad_fn.name() == "ConvolutionBackward0"
    g = rand(*out.shape)
    out.backward(t64(g))
    assert x.grad is None
    # grad_weight[o, c, i, j] = sum over images and pixels of g * the shifted input
    xp = np.pad(npy(x), ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((4, 3, 3, 3))
    for i in range(3):
        for j in range(3):
            ref[:, :, i, j] = np.einsum("nohw,nchw->oc", g, xp[:, :, i:i + 6, j:j + 6])
    np.testing.assert_allclose(npy(w.grad), ref, rtol=1e-10)
    np.testing.assert_allclose(npy(b.grad), g.sum(axis=(0, 2, 3)), rtol=1e-12)


def test_conv2d_create_graph_raises_clearly():
    x = t64(rand(1, 2, 4, 4), True)
    w = t64(rand(2, 2, 3, 3), True)
    out = F.conv2d(x, w).sum()
    with pytest.raises(RuntimeError, match="create_graph"):
        ember.autograd.grad(out, (x,), create_graph=True)
    out2 = F.conv2d(x, w).sum()  # still usable
    (gx,) = ember.autograd.grad(out2, (x,))
    assert tuple(gx.shape) == (1, 2, 4, 4)


# ---- conv2d errors ----------------------------------------------------------------------

def test_conv2d_errors_are_torchs():
    x = t64(rand(1, 4, 8, 8))
    w = t64(rand(6, 3, 3, 3))
    with pytest.raises(RuntimeError, match=r"Given groups=1, weight of size \[6, 3, 3, 3\], "
                       r"expected input\[1, 4, 8, 8\] to have 3 channels, but got 4 channels"):
        F.conv2d(x, w)
    with pytest.raises(RuntimeError, match="Kernel size can't be greater than actual input size"):
        F.conv2d(t64(rand(1, 3, 2, 2)), w)
    with pytest.raises(RuntimeError, match=r"Calculated padded input size per channel: \(4 x 4\)"):
        F.conv2d(t64(rand(1, 3, 2, 2)), t64(rand(6, 3, 5, 5)), padding=1)
    x3 = t64(rand(1, 3, 8, 8))
    with pytest.raises(RuntimeError, match="non-positive stride is not supported"):
        F.conv2d(x3, w, stride=0)
    with pytest.raises(RuntimeError, match="negative padding is not supported"):
        F.conv2d(x3, w, padding=-1)
    with pytest.raises(RuntimeError, match="dilation should be greater than zero"):
        F.conv2d(x3, w, dilation=(1, 0))
    with pytest.raises(RuntimeError, match="non-positive groups is not supported"):
        F.conv2d(x3, w, groups=0)
    with pytest.raises(RuntimeError, match="expected weight to be divisible by 4"):
        F.conv2d(t64(rand(1, 4, 8, 8)), t64(rand(6, 1, 3, 3)), groups=4)
    with pytest.raises(RuntimeError, match="expected bias to be 1-dimensional with 6 elements"):
        F.conv2d(x3, w, t64(rand(5)))
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input "
                       r"to conv2d, but got input of size: \[3, 8\]"):
        F.conv2d(t64(rand(3, 8)), w)
    with pytest.raises(RuntimeError, match="not supported for strided convolutions"):
        F.conv2d(x3, w, stride=2, padding="same")
    with pytest.raises(RuntimeError, match="Invalid padding string: 'full'"):
        F.conv2d(x3, w, padding="full")
    with pytest.raises(RuntimeError, match="expected stride to be a single integer value or a "
                       "list of 2 values"):
        F.conv2d(x3, w, stride=(1, 1, 1))
    with pytest.raises(RuntimeError, match=r"Input type \(Double\) and weight type \(Float\) "
                       "should be the same"):
        F.conv2d(x3, w.float())
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        F.conv2d(x3.long(), w.long())
    with pytest.raises(TypeError):
        F.conv2d(x3, "w")
    # the process keeps working
    np.testing.assert_allclose(npy(F.conv2d(x3, w)), conv_ref(npy(x3), npy(w)), rtol=1e-12)


# ---- Conv2d ---------------------------------------------------------------------------------

def test_conv2d_module_init_shapes_and_repr():
    ember.manual_seed(0)
    m = nn.Conv2d(4, 8, 3, padding=1, groups=2)
    assert tuple(m.weight.shape) == (8, 2, 3, 3) and tuple(m.bias.shape) == (8,)
    bound = 1 / math.sqrt(2 * 9)
    assert float(m.weight.abs().max()) <= bound and float(m.bias.abs().max()) <= bound
    assert float(m.weight.abs().max()) > bound / 2
    assert repr(m) == "Conv2d(4, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), groups=2)"
    m2 = nn.Conv2d(3, 5, (2, 4), stride=2, dilation=(2, 1), bias=False, padding_mode="circular",
                   padding=1)
    assert repr(m2) == ("Conv2d(3, 5, kernel_size=(2, 4), stride=(2, 2), padding=(1, 1), "
                        "dilation=(2, 1), bias=False, padding_mode=circular)")
    assert m2.bias is None and [n for n, _ in m2.named_parameters()] == ["weight"]
    assert repr(nn.Conv2d(1, 1, 3, padding="same")) == (
        "Conv2d(1, 1, kernel_size=(3, 3), stride=(1, 1), padding=same)")
    x = ember.randn(2, 4, 6, 6)
    out = m(x)
    ref = conv_ref(npy(x).astype(np.float64), npy(m.weight).astype(np.float64),
                   npy(m.bias).astype(np.float64), 1, 1, 1, 2)
    np.testing.assert_allclose(npy(out), ref, rtol=1e-4, atol=1e-5)
    m64 = nn.Conv2d(2, 2, 3, dtype=ember.float64)
    assert m64.weight.dtype == ember.float64


@pytest.mark.parametrize("mode,np_mode", [("reflect", "reflect"), ("replicate", "edge"),
                                          ("circular", "wrap")])
def test_conv2d_padding_modes(mode, np_mode):
    m = nn.Conv2d(2, 3, 3, padding=(2, 1), padding_mode=mode, dtype=ember.float64)
    x = rand(2, 2, 5, 6)
    out = m(t64(x))
    xp = np.pad(x, ((0, 0), (0, 0), (2, 2), (1, 1)), mode=np_mode)
    np.testing.assert_allclose(npy(out), conv_ref(xp, npy(m.weight), npy(m.bias)), rtol=1e-12)
    xt = t64(x, True)
    check(lambda a: m(a), xt)
    ms = nn.Conv2d(2, 3, (2, 3), padding="same", padding_mode=mode, dtype=ember.float64)
    assert tuple(ms(t64(x)).shape) == (2, 3, 5, 6)


def test_conv2d_module_errors():
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        nn.Conv2d(4, 3, 3, groups=2)
    with pytest.raises(ValueError, match="groups must be a positive integer"):
        nn.Conv2d(4, 4, 3, groups=0)
    with pytest.raises(ValueError, match="Invalid padding string 'full'"):
        nn.Conv2d(4, 4, 3, padding="full")
    with pytest.raises(ValueError, match="padding='same' is not supported for strided"):
        nn.Conv2d(4, 4, 3, padding="same", stride=2)
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2d(4, 4, 3, padding_mode="mirror")
    m = nn.Conv2d(4, 4, 3)
    with pytest.raises(RuntimeError, match="to have 4 channels, but got 3 channels"):
        m(ember.randn(1, 3, 5, 5))
    assert tuple(m(ember.randn(1, 4, 5, 5)).shape) == (1, 4, 3, 3)


def test_conv2d_module_trains():
    ember.manual_seed(1)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(4, 2, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten())
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    x = ember.randn(8, 1, 8, 8)
    y = ember.randn(8, 2)
    losses = []
    for _ in range(20):
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(float(loss))
    assert losses[-1] < losses[0]


# ---- pooling ------------------------------------------------------------------------------

MAX_CONFIGS = [
    # (shape, kernel, stride, padding, dilation, ceil_mode)
    ((2, 3, 8, 8), 2, None, 0, 1, False),
    ((1, 2, 7, 9), 3, 2, 1, 1, False),
    ((1, 2, 7, 9), 3, 2, 1, 1, True),
    ((2, 1, 9, 8), (3, 2), (2, 1), (1, 0), (2, 1), False),
    ((1, 2, 5, 5), 2, 2, 1, 1, True),
    ((1, 1, 6, 6), 3, 1, 1, 2, True),
]


@pytest.mark.parametrize("cfg", MAX_CONFIGS)
def test_max_pool2d_matches_reference_and_gradcheck(cfg):
    shape, k, s, p, d, ceil = cfg
    x = RNG.permutation(np.prod(shape)).reshape(shape).astype(np.float64)  # distinct values
    out, idx = F.max_pool2d(t64(x), k, s, p, d, ceil, return_indices=True)
    ref, ref_idx = max_pool_ref(x, k, s, p, d, ceil)
    np.testing.assert_array_equal(npy(out), ref)
    assert idx.dtype == ember.int64
    np.testing.assert_array_equal(npy(idx), ref_idx)
    xt = t64(x / 7.0, True)
    check(lambda a: F.max_pool2d(a, k, s, p, d, ceil), xt)


def test_max_pool2d_nan_unbatched_and_module():
    x = np.arange(16, dtype=np.float64).reshape(1, 4, 4)
    x[0, 0, 1] = np.nan
    out = F.max_pool2d(t64(x), 2)
    assert tuple(out.shape) == (1, 2, 2)
    assert math.isnan(float(out[0, 0, 0])) and float(out[0, 1, 1]) == 15.0
    m = nn.MaxPool2d(2, return_indices=True)
    assert repr(m) == ("MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, "
                       "ceil_mode=False)")
    o, i = m(t64(x))
    assert int(i[0, 0, 0]) == 1
    o2, i2 = F.max_pool2d_with_indices(t64(x), 2)
    np.testing.assert_array_equal(npy(i2), npy(i))
    xt = t64(np.arange(16.0).reshape(1, 4, 4), True)
    F.max_pool2d(xt, 2).sum().backward()
    expect = np.zeros((1, 4, 4))
    expect[0, 1::2, 1::2] = 1
    np.testing.assert_array_equal(npy(xt.grad), expect)


AVG_CONFIGS = [
    # (shape, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
    ((2, 3, 8, 8), 2, None, 0, False, True, None),
    ((1, 2, 7, 9), 3, 2, 1, False, True, None),
    ((1, 2, 7, 9), 3, 2, 1, False, False, None),
    ((1, 2, 7, 9), 3, 2, 1, True, True, None),
    ((1, 2, 7, 9), 3, 2, 1, True, False, None),
    ((2, 1, 9, 8), (3, 2), (2, 1), (1, 0), False, True, 5),
    ((1, 2, 5, 6), 4, 3, 2, True, False, None),
]


@pytest.mark.parametrize("cfg", AVG_CONFIGS)
def test_avg_pool2d_matches_reference_and_gradcheck(cfg):
    shape, k, s, p, ceil, cip, div = cfg
    x = rand(*shape)
    out = F.avg_pool2d(t64(x), k, s, p, ceil, cip, div)
    np.testing.assert_allclose(npy(out), avg_pool_ref(x, k, s, p, ceil, cip, div), rtol=1e-12)
    check(lambda a: F.avg_pool2d(a, k, s, p, ceil, cip, div), t64(x, True))


@pytest.mark.parametrize("shape,size", [((2, 3, 8, 8), 1), ((1, 2, 7, 9), (3, 4)),
                                        ((1, 2, 5, 7), (None, 3)), ((2, 5, 6), (4, None)),
                                        ((1, 1, 3, 4), (5, 7))])
def test_adaptive_avg_pool2d_matches_reference_and_gradcheck(shape, size):
    x = rand(*shape)
    out = F.adaptive_avg_pool2d(t64(x), size)
    xs = x if x.ndim == 4 else x[None]
    oh, ow = _pair(size)
    oh = xs.shape[2] if oh is None else oh
    ow = xs.shape[3] if ow is None else ow
    ref = adaptive_ref(xs, oh, ow)
    np.testing.assert_allclose(npy(out), ref if x.ndim == 4 else ref[0], rtol=1e-12)
    check(lambda a: F.adaptive_avg_pool2d(a, size), t64(x, True))


def test_pool_modules_float32_non_contiguous_and_empty_batch():
    x = rand(2, 3, 8, 10)
    xt = ember.tensor(x, dtype=ember.float32).transpose(2, 3)
    assert not xt.is_contiguous()
    xr = x.transpose(0, 1, 3, 2)
    np.testing.assert_allclose(npy(nn.AvgPool2d(3, 2, 1)(xt)), avg_pool_ref(xr, 3, 2, 1),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(npy(nn.MaxPool2d(3, 2, 1)(xt)), max_pool_ref(xr, 3, 2, 1)[0],
                               rtol=1e-6)
    np.testing.assert_allclose(npy(nn.AdaptiveAvgPool2d((2, 3))(xt)), adaptive_ref(xr, 2, 3),
                               rtol=1e-5, atol=1e-6)
    assert repr(nn.AvgPool2d(3, 2, 1)) == "AvgPool2d(kernel_size=3, stride=2, padding=1)"
    assert repr(nn.AdaptiveAvgPool2d((2, 3))) == "AdaptiveAvgPool2d(output_size=(2, 3))"
    e = ember.zeros((0, 3, 8, 8)).requires_grad_()
    for f in (lambda a: F.max_pool2d(a, 2), lambda a: F.avg_pool2d(a, 2),
              lambda a: F.adaptive_avg_pool2d(a, 3)):
        out = f(e)
        assert out.shape[0] == 0
        out.sum().backward()
        assert tuple(e.grad.shape) == (0, 3, 8, 8)
    h = ember.tensor(x, dtype=ember.float16)
    np.testing.assert_allclose(npy(F.avg_pool2d(h, 2).float()),
                               avg_pool_ref(npy(h.double()), 2), rtol=1e-2, atol=1e-2)


def test_pool_errors():
    x = t64(rand(1, 2, 4, 4))
    with pytest.raises(RuntimeError, match="pad should be at most half"):
        F.max_pool2d(x, 2, padding=2)
    with pytest.raises(RuntimeError, match="pad should be at most half"):
        F.avg_pool2d(x, 3, padding=2)
    with pytest.raises(RuntimeError, match="stride should be greater than zero"):
        F.max_pool2d(x, 2, 0)
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero"):
        F.avg_pool2d(x, 0)
    with pytest.raises(RuntimeError, match="dilation should be greater than zero"):
        F.max_pool2d(x, 2, dilation=0)
    with pytest.raises(RuntimeError, match=r"Given input size: \(2x4x4\). Calculated output "
                       r"size: \(2x0x0\). Output size is too small"):
        F.max_pool2d(x, 5)
    with pytest.raises(RuntimeError, match="Expected 3D or 4D"):
        F.max_pool2d(t64(rand(4, 4)), 2)
    with pytest.raises(RuntimeError, match="Expected 3D or 4D"):
        F.avg_pool2d(t64(rand(1, 1, 1, 4, 4)), 2)
    with pytest.raises(RuntimeError, match="kernel_size must either be a single int, or a "
                       "tuple of two ints"):
        F.max_pool2d(x, (2, 2, 2))
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool2d(x, 2, divisor_override=0)
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        F.max_pool2d(x.long(), 2)
    with pytest.raises(ValueError, match="output_size"):
        F.adaptive_avg_pool2d(x, (1, 2, 3))
    with pytest.raises(RuntimeError, match="Expected input to have non-zero size"):
        F.adaptive_avg_pool2d(t64(rand(1, 2, 0, 4)), 2)
    with pytest.raises(RuntimeError, match="create_graph"):
        xg = t64(rand(1, 1, 4, 4), True)
        ember.autograd.grad(F.avg_pool2d(xg, 2).sum(), (xg,), create_graph=True)
    np.testing.assert_allclose(npy(F.avg_pool2d(x, 2)), avg_pool_ref(npy(x), 2), rtol=1e-12)


def test_conv2d_runs_in_bfloat16_under_cpu_autocast():
    # torch's CPU autocast list puts conv2d in the lower precision; gradients reach the
    # float32 leaves in float32
    x = ember.tensor(rand(2, 3, 9, 8), dtype=ember.float32)
    conv = nn.Conv2d(3, 5, 3, padding=1)
    with ember.autocast("cpu", dtype=ember.bfloat16):
        y = conv(x)
    assert y.dtype == ember.bfloat16
    ref = conv_ref(npy(x), npy(conv.weight.detach()), npy(conv.bias.detach()), padding=1)
    np.testing.assert_allclose(npy(y.float()), ref, rtol=3e-2, atol=3e-2)
    y.float().sum().backward()
    assert conv.weight.grad.dtype == ember.float32 and conv.bias.grad.dtype == ember.float32
    with ember.autocast("cpu", dtype=ember.bfloat16, enabled=False):
        assert conv(x).dtype == ember.float32
