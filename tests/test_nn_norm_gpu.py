"""GroupNorm, InstanceNorm, RMSNorm and LocalResponseNorm on the GPU against torch:
outputs and gradients (input, weight, bias) for several shapes and dtypes, including
the fused group_norm kernels' vectorised and scalar paths. Run on the H100 machine."""
import numpy as np
import pytest

import ember
import ember.nn as enn
import ember.nn.functional as EF
from torch_util import pair

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng()
DTYPES = ["float32", "float64", "float16", "bfloat16"]
TOL = {"float32": (1e-4, 1e-4), "float64": (1e-10, 1e-10), "float16": (1e-2, 2e-2),
       "bfloat16": (4e-2, 8e-2)}


def close(e, t, dtype, scale=1.0):
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(e.detach().double().cpu().numpy(),
                               t.detach().double().cpu().numpy(), rtol=rtol * scale,
                               atol=atol * scale)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,g", [((32, 64, 16, 16), 32), ((4, 6, 5), 3), ((3, 8, 7, 3), 4),
                                     ((2, 12), 3), ((5, 16, 9), 16), ((2, 4, 1), 2)])
def test_group_norm_vs_torch(torch, dtype, shape, g):
    c = shape[1]
    pdt = "float64" if dtype == "float64" else "float32"
    x = RNG.standard_normal(shape) * 3 + 2
    ex, tx = pair(torch, x, dtype, True)
    ew, tw = pair(torch, RNG.standard_normal(c), pdt, True)
    eb, tb = pair(torch, RNG.standard_normal(c), pdt, True)
    if dtype in ("float16", "bfloat16"):  # torch needs matching parameter dtypes there
        ew, tw = pair(torch, RNG.standard_normal(c), dtype, True)
        eb, tb = pair(torch, RNG.standard_normal(c), dtype, True)
    ey = EF.group_norm(ex, g, ew, eb, 1e-5)
    ty = torch.nn.functional.group_norm(tx, g, tw, tb, 1e-5)
    assert ey.dtype == ex.dtype
    close(ey, ty, dtype)
    edy, tdy = pair(torch, RNG.standard_normal(shape), dtype)
    ey.backward(edy)
    ty.backward(tdy)
    if not (dtype in ("float16", "bfloat16") and shape[1] // g * int(np.prod(shape[2:])) <= 2):
        # (groups of 2 values: xhat is +-1 and dx is eps's effect alone, the difference of
        # two half-precision inputs' rounding noise; compared in float32/64 above)
        close(ex.grad, tx.grad, dtype, scale=4)
    close(ew.grad, tw.grad, dtype if dtype != "float32" else "float32", scale=50)
    close(eb.grad, tb.grad, dtype if dtype != "float32" else "float32", scale=50)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("affine", [True, False])
def test_instance_norm2d_vs_torch(torch, dtype, affine):
    shape = (8, 16, 32, 32)
    em = enn.InstanceNorm2d(16, affine=affine).cuda()
    tm = torch.nn.InstanceNorm2d(16, affine=affine).cuda()
    if affine:
        with torch.no_grad():
            w = RNG.standard_normal(16)
            tm.weight.copy_(torch.tensor(w))
        with ember.no_grad():
            em.weight.copy_(ember.tensor(w))
    if dtype == "float16":
        em, tm = em.half(), tm.half()
    ex, tx = pair(torch, RNG.standard_normal(shape) + 1, dtype, True)
    ey, ty = em(ex), tm(tx)
    close(ey, ty, dtype)
    ey.sum().backward()
    ty.sum().backward()
    close(ex.grad, tx.grad, dtype, scale=4)


def test_instance_norm_running_stats_vs_torch(torch):
    em = enn.InstanceNorm1d(5, track_running_stats=True, affine=True).cuda()
    tm = torch.nn.InstanceNorm1d(5, track_running_stats=True, affine=True).cuda()
    ex, tx = pair(torch, RNG.standard_normal((4, 5, 30)) + 3, "float32")
    close(em(ex), tm(tx), "float32")
    close(em.running_mean, tm.running_mean, "float32")
    close(em.running_var, tm.running_var, "float32")
    em.eval()
    tm.eval()
    close(em(ex), tm(tx), "float32")


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_rms_norm_and_lrn_vs_torch(torch, dtype):
    x = RNG.standard_normal((4, 6, 5, 3))
    ex, tx = pair(torch, x, dtype, True)
    ew, tw = pair(torch, RNG.standard_normal(3), dtype, True)
    close(EF.rms_norm(ex, (3,), ew), torch.nn.functional.rms_norm(tx, (3,), tw), dtype)
    close(EF.local_response_norm(ex, 3, 1e-2, 0.75, 2.0),
          torch.nn.functional.local_response_norm(tx, 3, 1e-2, 0.75, 2.0), dtype)


def test_norms_under_cuda_autocast_vs_torch(torch):
    x = RNG.standard_normal((2, 4, 8, 8))
    ex, tx = pair(torch, x, "float16")
    with ember.autocast("cuda", dtype=ember.float16), torch.autocast("cuda", dtype=torch.float16):
        eg, tg = EF.group_norm(ex, 2), torch.nn.functional.group_norm(tx, 2)
        ei, ti = EF.instance_norm(ex), torch.nn.functional.instance_norm(tx)
    assert str(eg.dtype).split(".")[-1] == str(tg.dtype).split(".")[-1]
    assert str(ei.dtype).split(".")[-1] == str(ti.dtype).split(".")[-1]
    close(eg, tg, "float16")
    close(ei, ti, "float16")
