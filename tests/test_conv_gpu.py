"""conv2d and 2-D pooling on the GPU against torch (cuDNN / torch's CUDA kernels):
outputs and gradients (input, weight, bias) for many configurations and the four
floating dtypes, both GPU methods (the direct kernels for small C/groups*kH*kW and
im2col + cuBLAS), chunked column buffers, streams, and the modules with copied weights."""
import numpy as np
import pytest

import ember
import ember.nn as enn
import ember.nn.functional as F
from torch_util import copy_params, dtype_name, pair

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("torch_fp32")]  # TF32 off in torch

RNG = np.random.default_rng(5)

DTYPES = {  # ember dtype, torch dtype, rtol/atol relative to the output's scale
    "float32": (ember.float32, "float32", 2e-4),
    "float64": (ember.float64, "float64", 1e-10),
    "float16": (ember.float16, "float16", 1e-2),
    "bfloat16": (ember.bfloat16, "bfloat16", 6e-2),
}


def as_np(x):
    """float64 NumPy copy of an ember or torch tensor (through float32)."""
    return x.detach().float().cpu().numpy().astype(np.float64)


def close(e, t, tol):
    a, b = as_np(e), as_np(t)
    assert a.shape == b.shape
    scale = max(1.0, float(np.abs(b).max()) if b.size else 1.0)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol * scale)


CONV_CONFIGS = [
    # (N, C, H, W, O, kh, kw, stride, padding, dilation, groups, bias)
    (2, 3, 16, 17, 8, 3, 3, 1, 1, 1, 1, True),      # direct kernels (K = 27)
    (2, 3, 16, 17, 20, 3, 3, 2, 0, 1, 1, False),    # direct, O not a multiple of 16
    (2, 4, 12, 12, 6, 3, 3, 1, 1, 1, 2, True),      # direct, grouped
    (1, 8, 9, 9, 8, 3, 3, 1, 1, 1, 8, True),        # direct, depthwise
    (2, 2, 11, 10, 5, 5, 5, (1, 2), 2, (2, 1), 1, True),  # direct, dilation
    (2, 16, 12, 12, 24, 3, 3, 1, 1, 1, 1, True),    # im2col (K = 144)
    (2, 16, 12, 12, 24, 3, 3, 2, (1, 2), (1, 2), 2, False),
    (3, 32, 8, 8, 16, 1, 1, 1, 0, 1, 1, True),      # pointwise, K = 32: direct
    (3, 64, 8, 8, 16, 1, 1, 1, 0, 1, 1, True),      # pointwise, K = 64: GEMM on the input
    (2, 40, 7, 7, 40, 3, 3, 1, "same", 1, 4, True),
    (2, 6, 10, 9, 4, 4, 2, 1, "same", 1, 1, True),
]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("cfg", CONV_CONFIGS)
def test_conv2d_forward_backward_vs_torch(torch, cfg, dtype):
    N, C, H, W, O, kh, kw, s, p, d, g, bias = cfg
    tol = DTYPES[dtype][2]
    ex, tx = pair(torch, RNG.standard_normal((N, C, H, W)), dtype, True)
    ew, tw = pair(torch, RNG.standard_normal((O, C // g, kh, kw)) / np.sqrt(C // g * kh * kw),
                  dtype, True)
    eb, tb = pair(torch, RNG.standard_normal(O), dtype, True) if bias else (None, None)
    eo = F.conv2d(ex, ew, eb, s, p, d, g)
    to = torch.nn.functional.conv2d(tx, tw, tb, s, p, d, g)
    assert eo.dtype == ex.dtype and eo.is_cuda
    close(eo, to, tol)
    gy = RNG.standard_normal(tuple(to.shape))
    egy, tgy = pair(torch, gy, dtype)
    eo.backward(egy)
    to.backward(tgy)
    close(ex.grad, tx.grad, tol * 4)
    close(ew.grad, tw.grad, tol * 4)
    if bias:
        close(eb.grad, tb.grad, tol * 4)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_conv2d_weight_only_gradient_and_unbatched(torch, dtype):
    tol = DTYPES[dtype][2]
    ex, tx = pair(torch, RNG.standard_normal((3, 20, 21)), dtype)      # unbatched, no grad
    ew, tw = pair(torch, RNG.standard_normal((16, 3, 3, 3)) / 5, dtype, True)
    eb, tb = pair(torch, RNG.standard_normal(16), dtype, True)
    eo = F.conv2d(ex, ew, eb, padding=1)
    to = torch.nn.functional.conv2d(tx, tw, tb, padding=1)
    close(eo, to, tol)
    eo.mean().backward()
    to.mean().backward()
    assert ex.grad is None
    close(ew.grad, tw.grad, tol * 4)
    close(eb.grad, tb.grad, tol * 4)


def test_conv2d_chunked_column_buffer_vs_torch(torch):
    old = ember._C._nn._set_conv_workspace_limit(1 << 16)  # one image per chunk
    try:
        ex, tx = pair(torch, RNG.standard_normal((5, 16, 14, 14)), "float32", True)
        ew, tw = pair(torch, RNG.standard_normal((8, 16, 3, 3)) / 12, "float32", True)
        eo = F.conv2d(ex, ew, None, 1, 1)
        to = torch.nn.functional.conv2d(tx, tw, None, 1, 1)
        close(eo, to, 2e-4)
        (eo * eo).sum().backward()
        (to * to).sum().backward()
        close(ex.grad, tx.grad, 1e-3)
        close(ew.grad, tw.grad, 1e-3)
    finally:
        ember._C._nn._set_conv_workspace_limit(old)


def test_conv2d_non_contiguous_and_empty_on_gpu(torch):
    a = RNG.standard_normal((2, 9, 4, 11))
    ex, tx = pair(torch, a, "float32")
    ex, tx = ex.permute(0, 2, 1, 3), tx.permute(0, 2, 1, 3)
    ew, tw = pair(torch, RNG.standard_normal((6, 4, 3, 3)), "float32")
    close(F.conv2d(ex, ew, padding=1), torch.nn.functional.conv2d(tx, tw, padding=1), 2e-4)
    e0 = ember.zeros((0, 4, 9, 11), device="cuda").requires_grad_()
    ew.requires_grad_()
    out = F.conv2d(e0, ew, padding=1)
    assert tuple(out.shape) == (0, 6, 9, 11)
    out.sum().backward()
    assert float(ew.grad.abs().sum()) == 0.0


def test_conv2d_errors_on_gpu_keep_the_process_usable():
    ex = ember.randn(1, 3, 8, 8, device="cuda")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        F.conv2d(ex, ember.randn(4, 3, 3, 3))
    with pytest.raises(RuntimeError, match="to have 4 channels, but got 3 channels"):
        F.conv2d(ex, ember.randn(4, 4, 3, 3, device="cuda"))
    assert tuple(F.conv2d(ex, ember.randn(4, 3, 3, 3, device="cuda")).shape) == (1, 4, 6, 6)


def test_conv2d_on_a_side_stream_matches(torch):
    s = ember.cuda.Stream()
    ex, tx = pair(torch, RNG.standard_normal((4, 3, 32, 32)), "float32", True)
    ew, tw = pair(torch, RNG.standard_normal((16, 3, 3, 3)) / 5, "float32", True)
    s.wait_stream(ember.cuda.current_stream())
    with ember.cuda.stream(s):
        eo = F.relu(F.conv2d(ex, ew, None, 1, 1))
        eo.sum().backward()
    ember.cuda.current_stream().wait_stream(s)
    to = torch.relu(torch.nn.functional.conv2d(tx, tw, None, 1, 1))
    to.sum().backward()
    close(eo, to, 2e-4)
    close(ew.grad, tw.grad, 1e-3)
    close(ex.grad, tx.grad, 1e-3)


def test_modules_with_copied_weights_vs_torch(torch):
    ember.manual_seed(0)
    em = enn.Sequential(enn.Conv2d(3, 16, 3, padding=1), enn.ReLU(), enn.MaxPool2d(2),
                        enn.Conv2d(16, 32, 3, stride=2, padding=1, groups=2), enn.ReLU(),
                        enn.AvgPool2d(3, 2, 1), enn.Conv2d(32, 8, 1), enn.AdaptiveAvgPool2d(1),
                        enn.Flatten()).to("cuda")
    tm = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(),
                             torch.nn.MaxPool2d(2),
                             torch.nn.Conv2d(16, 32, 3, stride=2, padding=1, groups=2),
                             torch.nn.ReLU(), torch.nn.AvgPool2d(3, 2, 1),
                             torch.nn.Conv2d(32, 8, 1), torch.nn.AdaptiveAvgPool2d(1),
                             torch.nn.Flatten()).cuda()
    copy_params(torch, em.parameters(), tm.parameters())
    assert repr(em[0]) == repr(tm[0]) and repr(em[3]) == repr(tm[3])
    assert repr(em[2]) == repr(tm[2]) and repr(em[5]) == repr(tm[5])
    assert repr(em[7]) == repr(tm[7])
    ex, tx = pair(torch, RNG.standard_normal((4, 3, 32, 32)), "float32")
    eo, to = em(ex), tm(tx)
    close(eo, to, 2e-4)
    eo.square().sum().backward()
    to.square().sum().backward()
    for ep, tp in zip(em.parameters(), tm.parameters()):
        close(ep.grad, tp.grad, 1e-3)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_conv2d_padding_modes_vs_torch(torch, mode):
    em = enn.Conv2d(3, 4, 3, padding=(1, 2), padding_mode=mode).to("cuda")
    tm = torch.nn.Conv2d(3, 4, 3, padding=(1, 2), padding_mode=mode).cuda()
    copy_params(torch, em.parameters(), tm.parameters())
    ex, tx = pair(torch, RNG.standard_normal((2, 3, 7, 8)), "float32", True)
    eo, to = em(ex), tm(tx)
    close(eo, to, 2e-4)
    eo.sum().backward()
    to.sum().backward()
    close(ex.grad, tx.grad, 1e-3)
    close(em.weight.grad, tm.weight.grad, 1e-3)


POOL_CONFIGS = [
    # (kernel, stride, padding, dilation, ceil_mode)
    (2, None, 0, 1, False),
    (3, 2, 1, 1, False),
    (3, 2, 1, 1, True),
    ((3, 2), (2, 1), (1, 0), (2, 1), False),
    (2, 2, 1, 1, True),
]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("cfg", POOL_CONFIGS)
def test_max_pool2d_vs_torch(torch, cfg, dtype):
    k, s, p, d, ceil = cfg
    # distinct integers (exact in bfloat16 too), so the argmax is unique
    a = RNG.permutation(240).reshape(1, 2, 10, 12) - 120.0
    ex, tx = pair(torch, a, dtype, True)
    eo, ei = F.max_pool2d(ex, k, s, p, d, ceil, return_indices=True)
    to, ti = torch.nn.functional.max_pool2d(tx, k, s, p, d, ceil, return_indices=True)
    close(eo, to, 0)
    np.testing.assert_array_equal(ei.cpu().numpy(), ti.cpu().numpy())
    gy = RNG.standard_normal(tuple(to.shape))
    eo.backward(pair(torch, gy, dtype)[0])
    to.backward(pair(torch, gy, dtype)[1])
    close(ex.grad, tx.grad, DTYPES[dtype][2])


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("cfg", [(2, None, 0, False, True, None), (3, 2, 1, False, False, None),
                                 (3, 2, 1, True, True, None), (3, 2, 1, True, False, None),
                                 ((3, 2), (2, 1), (1, 0), False, True, 5)])
def test_avg_pool2d_vs_torch(torch, cfg, dtype):
    k, s, p, ceil, cip, div = cfg
    tol = DTYPES[dtype][2]
    ex, tx = pair(torch, RNG.standard_normal((2, 3, 11, 12)), dtype, True)
    eo = F.avg_pool2d(ex, k, s, p, ceil, cip, div)
    to = torch.nn.functional.avg_pool2d(tx, k, s, p, ceil, cip, div)
    close(eo, to, tol)
    gy = RNG.standard_normal(tuple(to.shape))
    eo.backward(pair(torch, gy, dtype)[0])
    to.backward(pair(torch, gy, dtype)[1])
    close(ex.grad, tx.grad, tol)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("size", [1, (3, 5), (None, 4), (7, 7), (13, 2)])
def test_adaptive_avg_pool2d_vs_torch(torch, size, dtype):
    tol = DTYPES[dtype][2]
    ex, tx = pair(torch, RNG.standard_normal((2, 3, 11, 12)), dtype, True)
    eo = F.adaptive_avg_pool2d(ex, size)
    to = torch.nn.functional.adaptive_avg_pool2d(tx, size)
    close(eo, to, tol)
    gy = RNG.standard_normal(tuple(to.shape))
    eo.backward(pair(torch, gy, dtype)[0])
    to.backward(pair(torch, gy, dtype)[1])
    close(ex.grad, tx.grad, tol)


def test_two_branch_model_step_matches_torch(torch):
    """The bench's model (smaller): two conv branches on two streams, joined."""
    ember.manual_seed(0)
    ea = enn.Conv2d(3, 64, 3, padding=1).to("cuda")
    eb = enn.Conv2d(3, 64, 3, padding=1).to("cuda")
    ta = torch.nn.Conv2d(3, 64, 3, padding=1).cuda()
    tb = torch.nn.Conv2d(3, 64, 3, padding=1).cuda()
    copy_params(torch, [*ea.parameters(), *eb.parameters()],
                [*ta.parameters(), *tb.parameters()])
    ex, tx = pair(torch, RNG.standard_normal((4, 3, 64, 64)), "float32")
    sa, sb = ember.cuda.Stream(), ember.cuda.Stream()
    cur = ember.cuda.current_stream()
    sa.wait_stream(cur)
    sb.wait_stream(cur)
    with ember.cuda.stream(sa):
        a = F.relu(ea(ex))
    with ember.cuda.stream(sb):
        b = F.relu(eb(ex))
    cur.wait_stream(sa)
    cur.wait_stream(sb)
    loss = (a + b).mean()
    loss.backward()
    tloss = (torch.relu(ta(tx)) + torch.relu(tb(tx))).mean()
    tloss.backward()
    ember.cuda.synchronize()
    assert abs(float(loss.detach()) - float(tloss.detach())) < 1e-5
    for ep, tp in zip([*ea.parameters(), *eb.parameters()], [*ta.parameters(), *tb.parameters()]):
        close(ep.grad, tp.grad, 1e-3)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_conv2d_autocast_dtype_matches_torch(torch, dtype):
    x = RNG.standard_normal((2, 3, 12, 12))
    conv = enn.Conv2d(3, 8, 3, padding=1).to("cuda")
    tconv = torch.nn.Conv2d(3, 8, 3, padding=1).to("cuda")
    with torch.no_grad():
        tconv.weight.copy_(torch.from_numpy(conv.weight.detach().cpu().numpy()))
        tconv.bias.copy_(torch.from_numpy(conv.bias.detach().cpu().numpy()))
    ex = ember.tensor(x, dtype=ember.float32, device="cuda")
    tx = torch.tensor(x, dtype=torch.float32, device="cuda")
    with ember.autocast("cuda", dtype=getattr(ember, dtype)):
        ey = conv(ex)
    with torch.autocast("cuda", dtype=getattr(torch, dtype)):
        ty = tconv(tx)
    assert dtype_name(ey.dtype) == dtype_name(ty.dtype) == dtype
    np.testing.assert_allclose(ey.detach().float().cpu().numpy(),
                               ty.detach().float().cpu().numpy(), rtol=3e-2, atol=3e-2)
    ey.float().sum().backward()
    ty.float().sum().backward()
    assert conv.weight.grad.dtype == ember.float32
    np.testing.assert_allclose(conv.weight.grad.cpu().numpy(), tconv.weight.grad.cpu().numpy(),
                               rtol=5e-2, atol=5e-1)
