"""BatchNorm, LayerNorm and Embedding on the GPU against torch: outputs,
gradients and running statistics for several shapes and dtypes (float16 and
bfloat16 with float32 statistics), modules with copied weights, and the
out-of-range index path of embedding (no crash, IndexError reported by the
next synchronising call, process still usable). Run on the H100 machine."""
import numpy as np
import pytest

import ember
import ember.nn as enn
import ember.nn.functional as EF
from torch_util import pair

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(33)


DTYPES = ["float32", "float64", "float16", "bfloat16"]
# (rtol, atol) of outputs and input gradients vs torch
TOL = {"float32": (1e-4, 1e-4), "float64": (1e-10, 1e-10), "float16": (1e-2, 2e-2),
       "bfloat16": (4e-2, 8e-2)}


def close(e, t, dtype, scale=1.0):
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(e.detach().double().cpu().numpy(),
                               t.detach().double().cpu().numpy(), rtol=rtol * scale,
                               atol=atol * scale)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(32, 16), (8, 5, 7), (4, 3, 17, 9), (64, 8, 32, 32),
                                   (2, 300, 3), (3, 2, 1)])
def test_batch_norm_training_vs_torch(torch, dtype, shape):
    c = shape[1]
    x = RNG.standard_normal(shape) * 2 + 0.5
    dy = RNG.standard_normal(shape)
    w, b = RNG.standard_normal(c), RNG.standard_normal(c)
    pdt = "float64" if dtype == "float64" else "float32"  # params/stats: float32 for 16-bit
    ex, tx = pair(torch, x, dtype, True)
    ew, tw = pair(torch, w, pdt, True)
    eb, tb = pair(torch, b, pdt, True)
    erm, trm = pair(torch, np.zeros(c), pdt)
    erv, trv = pair(torch, np.ones(c), pdt)
    ey = EF.batch_norm(ex, erm, erv, ew, eb, training=True, momentum=0.2, eps=1e-5)
    ty = torch.nn.functional.batch_norm(tx, trm, trv, tw, tb, training=True, momentum=0.2,
                                        eps=1e-5)
    assert ey.dtype == ex.dtype
    close(ey, ty, dtype)
    close(erm, trm, "float32" if dtype != "float64" else dtype)
    close(erv, trv, "float32" if dtype != "float64" else dtype)
    edy, tdy = pair(torch, dy, dtype)
    ey.backward(edy)
    ty.backward(tdy)
    close(ex.grad, tx.grad, dtype, scale=4)
    # the affine gradients are sums over N*H*W rounded to the parameters' dtype
    # (sums over N*H*W: in bfloat16 both sides round products differently, a bfloat16 tolerance)
    ptol, pscale = (dtype, 1) if dtype == "bfloat16" else (
        dtype if dtype == "float64" else "float32", 50)
    close(ew.grad, tw.grad, ptol, scale=pscale)
    close(eb.grad, tb.grad, ptol, scale=pscale)


@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_norm_eval_vs_torch(torch, dtype):
    shape = (6, 5, 4, 3)
    x, dy = RNG.standard_normal(shape), RNG.standard_normal(shape)
    pdt = "float64" if dtype == "float64" else "float32"
    rm, rv = RNG.standard_normal(5), RNG.uniform(0.5, 2, 5)
    ex, tx = pair(torch, x, dtype, True)
    ew, tw = pair(torch, RNG.standard_normal(5), pdt, True)
    erm, trm = pair(torch, rm, pdt)
    erv, trv = pair(torch, rv, pdt)
    ey = EF.batch_norm(ex, erm, erv, ew, None, training=False)
    ty = torch.nn.functional.batch_norm(tx, trm, trv, tw, None, training=False)
    close(ey, ty, dtype)
    ey.backward(pair(torch, dy, dtype)[0])
    ty.backward(pair(torch, dy, dtype)[1])
    close(ex.grad, tx.grad, dtype, scale=4)
    close(ew.grad, tw.grad, *(("bfloat16", 1) if dtype == "bfloat16" else (pdt, 50)))


@pytest.mark.parametrize("cls", ["BatchNorm1d", "BatchNorm2d"])
def test_batchnorm_modules_vs_torch(torch, cls):
    shape = (16, 6, 10) if cls == "BatchNorm1d" else (8, 6, 5, 7)
    for momentum in (0.1, None):
        em = getattr(enn, cls)(6, momentum=momentum).cuda()
        tm = getattr(torch.nn, cls)(6, momentum=momentum).cuda()
        with torch.no_grad():
            tm.weight.copy_(torch.tensor(RNG.standard_normal(6)))
            tm.bias.copy_(torch.tensor(RNG.standard_normal(6)))
        with ember.no_grad():
            em.weight.copy_(ember.tensor(tm.weight.detach().cpu().numpy()))
            em.bias.copy_(ember.tensor(tm.bias.detach().cpu().numpy()))
        for step in range(3):
            x = RNG.standard_normal(shape).astype(np.float32) * (step + 1)
            ex, tx = pair(torch, x, "float32", True)
            ey, ty = em(ex), tm(tx)
            close(ey, ty, "float32")
            ey.pow(2).sum().backward()
            ty.pow(2).sum().backward()
            close(ex.grad, tx.grad, "float32", scale=10)
        close(em.running_mean, tm.running_mean, "float32")
        close(em.running_var, tm.running_var, "float32")
        close(em.weight.grad, tm.weight.grad, "float32", scale=100)
        assert int(em.num_batches_tracked) == int(tm.num_batches_tracked) == 3
        em.eval()
        tm.eval()
        x = RNG.standard_normal(shape).astype(np.float32)
        close(em(pair(torch, x, "float32")[0]), tm(pair(torch, x, "float32")[1]), "float32")


def test_batch_norm_large_reduction_vs_torch(torch):
    # many blocks per channel, large mean: the shifted sums keep float32 precision
    x = RNG.standard_normal((64, 4, 64, 64)).astype(np.float32) * 0.5 + 100.0
    ex, tx = pair(torch, x, "float32")
    ey = EF.batch_norm(ex, None, None, training=True)
    ty = torch.nn.functional.batch_norm(tx, None, None, training=True)
    close(ey, ty, "float32", scale=20)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,ns", [((16, 64), (64,)), ((4, 7, 33), (33,)),
                                      ((3, 5, 8, 16), (8, 16)), ((8, 4096), (4096,)),
                                      ((2, 20000), (20000,)), ((5, 1), (1,))])
def test_layer_norm_vs_torch(torch, dtype, shape, ns):
    x = RNG.standard_normal(shape) * 3 + 1
    dy = RNG.standard_normal(shape)
    pdt = dtype  # torch's fused kernel wants weight in the input dtype
    ex, tx = pair(torch, x, dtype, True)
    ew, tw = pair(torch, RNG.standard_normal(ns), pdt, True)
    eb, tb = pair(torch, RNG.standard_normal(ns), pdt, True)
    ey = EF.layer_norm(ex, ns, ew, eb, eps=1e-5)
    ty = torch.nn.functional.layer_norm(tx, ns, tw, tb, eps=1e-5)
    assert ey.dtype == ex.dtype
    close(ey, ty, dtype)
    ey.backward(pair(torch, dy, dtype)[0])
    ty.backward(pair(torch, dy, dtype)[1])
    close(ex.grad, tx.grad, dtype, scale=4)
    close(ew.grad, tw.grad, dtype, scale=50)
    close(eb.grad, tb.grad, dtype, scale=50)


def test_layer_norm_many_rows_weight_grad_vs_torch(torch):
    # several row slices in the weight-gradient reduction
    x = RNG.standard_normal((4096, 256)).astype(np.float32)
    dy = RNG.standard_normal((4096, 256)).astype(np.float32)
    ex, tx = pair(torch, x, "float32", True)
    ew, tw = pair(torch, np.ones(256), "float32", True)
    eb, tb = pair(torch, np.zeros(256), "float32", True)
    EF.layer_norm(ex, (256,), ew, eb).backward(pair(torch, dy, "float32")[0])
    torch.nn.functional.layer_norm(tx, (256,), tw, tb).backward(pair(torch, dy, "float32")[1])
    close(ex.grad, tx.grad, "float32")
    close(ew.grad, tw.grad, "float32", scale=100)
    close(eb.grad, tb.grad, "float32", scale=100)


def test_layernorm_module_vs_torch(torch):
    em = enn.LayerNorm((4, 8)).cuda()
    tm = torch.nn.LayerNorm((4, 8)).cuda()
    w = RNG.standard_normal((4, 8)).astype(np.float32)
    with torch.no_grad():
        tm.weight.copy_(torch.tensor(w))
    with ember.no_grad():
        em.weight.copy_(ember.tensor(w))
    x = RNG.standard_normal((3, 4, 8)).astype(np.float32)
    ex, tx = pair(torch, x, "float32", True)
    ey, ty = em(ex), tm(tx)
    close(ey, ty, "float32")
    ey.sum().backward()
    ty.sum().backward()
    close(ex.grad, tx.grad, "float32")
    close(em.weight.grad, tm.weight.grad, "float32")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [1, 16, 300, 1024])
def test_embedding_vs_torch(torch, dtype, dim):
    w = RNG.standard_normal((50, dim))
    idx = RNG.integers(0, 50, size=(7, 13))
    ew, tw = pair(torch, w, dtype, True)
    ei = ember.tensor(idx, device="cuda")
    ti = torch.tensor(idx, device="cuda")
    ey = EF.embedding(ei, ew, padding_idx=3)
    ty = torch.nn.functional.embedding(ti, tw, padding_idx=3)
    close(ey, ty, dtype)
    dy = RNG.standard_normal((7, 13, dim))
    ey.backward(pair(torch, dy, dtype)[0])
    ty.backward(pair(torch, dy, dtype)[1])
    close(ew.grad, tw.grad, dtype, scale=4)
    assert ew.grad.dtype == ew.dtype


def test_embedding_scale_grad_by_freq_and_max_norm_vs_torch(torch):
    w = RNG.standard_normal((20, 8)).astype(np.float32) * 3
    idx = np.array([1, 1, 5, 7, 1, 19, 5])
    ew, tw = pair(torch, w, "float32", True)
    ei, ti = ember.tensor(idx, device="cuda"), torch.tensor(idx, device="cuda")
    EF.embedding(ei, ew, scale_grad_by_freq=True).pow(2).sum().backward()
    torch.nn.functional.embedding(ti, tw, scale_grad_by_freq=True).pow(2).sum().backward()
    close(ew.grad, tw.grad, "float32")
    for p in (2.0, 1.0, 3.0):
        # torch's documented renorm: rows looked up whose p-norm exceeds max_norm are
        # scaled in place by max_norm / (norm + 1e-7)
        ref = w.astype(np.float64).copy()
        for r in np.unique(idx):
            norm = (np.abs(ref[r]) ** p).sum() ** (1 / p)
            if norm > 1.0:
                ref[r] *= 1.0 / (norm + 1e-7)
        ew = ember.tensor(w, device="cuda")
        ey = EF.embedding(ei, ew, max_norm=1.0, norm_type=p)
        np.testing.assert_allclose(ey.cpu().numpy(), ref[idx], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(ew.cpu().numpy(), ref, rtol=1e-5, atol=1e-6)


def test_embedding_module_vs_torch(torch):
    tm = torch.nn.Embedding(30, 6, padding_idx=0).cuda()
    em = enn.Embedding.from_pretrained(ember.tensor(tm.weight.detach().cpu().numpy()).cuda(),
                                       freeze=False, padding_idx=0)
    idx = RNG.integers(0, 30, size=(4, 9))
    ey = em(ember.tensor(idx, device="cuda"))
    ty = tm(torch.tensor(idx, device="cuda"))
    close(ey, ty, "float32")
    ey.sum().backward()
    ty.sum().backward()
    close(em.weight.grad, tm.weight.grad, "float32")


def test_embedding_out_of_range_on_gpu_does_not_crash():
    w = ember.randn(10, 4, device="cuda")
    bad = ember.tensor([1, 10, 2], device="cuda")
    out = EF.embedding(bad, w)  # queued; no host wait
    # reported by the next synchronising call (runtime/device_error.hpp), once
    with pytest.raises(IndexError, match=r"embedding: index 10 is out of bounds for dimension 0 "
                                         r"with size 10"):
        ember.cuda.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy()[1], np.zeros(4))  # the bad row is zeros
    np.testing.assert_array_equal(out.cpu().numpy()[0], w.cpu().numpy()[1])
    # the process and the device keep working
    good = EF.embedding(ember.tensor([9, 0], device="cuda"), w)
    np.testing.assert_array_equal(good.cpu().numpy(), w.cpu().numpy()[[9, 0]])
    # negative index, reported by .cpu()'s wait as well
    o = EF.embedding(ember.tensor([-3], device="cuda"), w)
    with pytest.raises(IndexError, match="index -3"):
        o.cpu()
    ember._C._nn._embedding_check_errors("cuda")  # cleared
    # a bad index in backward gives no gradient and no memory error
    wg = ember.randn(10, 4, device="cuda", requires_grad=True)
    EF.embedding(ember.tensor([3, 3], device="cuda"), wg).sum().backward()
    ember.cuda.synchronize()
    assert float(wg.grad.sum()) == pytest.approx(8.0)


def test_norm_ops_on_a_side_stream_and_second_device(torch):
    s = ember.cuda.Stream()
    x = ember.randn(64, 128, device="cuda")
    s.wait_stream(ember.cuda.current_stream())
    with ember.cuda.stream(s):
        y = EF.layer_norm(x, (128,))
        z = EF.batch_norm(x, None, None, training=True)
    s.synchronize()
    tx = torch.tensor(x.cpu().numpy(), device="cuda")
    close(y, torch.nn.functional.layer_norm(tx, (128,)), "float32")
    close(z, torch.nn.functional.batch_norm(tx, None, None, training=True), "float32")
    if ember.cuda.device_count() > 1:
        x1 = x.to("cuda:1")
        close(EF.layer_norm(x1, (128,)), torch.nn.functional.layer_norm(tx, (128,)), "float32")


@pytest.mark.parametrize("op", ["layer_norm", "batch_norm"])
def test_norm_double_backward_vs_torch(torch, op):
    x = RNG.standard_normal((4, 3, 5))
    ex, tx = pair(torch, x, "float64", True)
    c = 5 if op == "layer_norm" else 3
    ew, tw = pair(torch, RNG.standard_normal(c), "float64", True)

    def run(mod, F, xx, ww):
        if op == "layer_norm":
            return F.layer_norm(xx, (5,), ww).pow(3).sum()
        return F.batch_norm(xx, None, None, ww, None, training=True).pow(3).sum()

    ey, ty = run(ember, EF, ex, ew), run(torch, torch.nn.functional, tx, tw)
    (egx,) = ember.autograd.grad(ey, ex, create_graph=True)
    (tgx,) = torch.autograd.grad(ty, tx, create_graph=True)
    close(egx, tgx, "float64", scale=100)
    egx.pow(2).sum().backward()
    tgx.pow(2).sum().backward()
    close(ex.grad, tx.grad, "float64", scale=1000)
    close(ew.grad, tw.grad, "float64", scale=1000)


def test_layer_norm_runs_in_float32_under_autocast(torch):
    x = np.random.default_rng(3).standard_normal((4, 16))
    ln = ember.nn.LayerNorm(16).to("cuda")
    ex = ember.tensor(x, dtype=ember.float16, device="cuda")
    tx = torch.tensor(x, dtype=torch.float16, device="cuda")
    with ember.autocast("cuda", dtype=ember.float16):
        ey = ln(ex)
    with torch.autocast("cuda", dtype=torch.float16):
        ty = torch.nn.functional.layer_norm(tx, (16,))
    assert ey.dtype == ember.float32 and ty.dtype == torch.float32
    np.testing.assert_allclose(ey.detach().cpu().numpy(), ty.detach().cpu().numpy(), rtol=1e-4,
                               atol=1e-4)
