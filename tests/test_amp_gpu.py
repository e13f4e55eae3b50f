"""Mixed precision on the GPU against torch: autocast's output dtype for every op ember
hooks (torch's CUDA lists: lower precision, float32, widest type), for float16 and
bfloat16 regions and float32/float16/mixed inputs; values; gradients reaching float32
leaves; GradScaler over several steps with injected inf/NaN gradients (skips, backoff,
growth) giving the same scale sequence as torch's; an fp16 training loop following
torch's loss curve. Run on the H100 machine."""
import numpy as np
import pytest

import ember
import ember.nn.functional as EF
from torch_util import dtype_name

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(7)


def pair(torch, shape, dtype="float32", positive=False, lo=None):
    a = RNG.standard_normal(shape).astype(np.float32)
    if positive:
        a = np.abs(a) + 0.5
    if lo is not None:
        a = np.clip(a, lo[0], lo[1])
    e = ember.tensor(a, device="cuda").to(getattr(ember, dtype))
    t = torch.tensor(a, device="cuda").to(getattr(torch, dtype))
    return e, t


def close(e, t, rtol, atol):
    np.testing.assert_allclose(e.float().cpu().numpy(), t.float().cpu().numpy(), rtol=rtol,
                               atol=atol)


# Each case: (label, builder(m, F, xs) -> output, input specs). m is ember or torch, F its
# nn.functional; xs the inputs made by pair() from the specs (shape, positive, clip).
M, K, N = 8, 16, 4
LOWER = [
    ("mm", lambda m, F, x: m.mm(x[0], x[1]), [(M, K), (K, N)]),
    ("matmul", lambda m, F, x: m.matmul(x[0], x[1]), [(2, M, K), (K, N)]),
    ("@", lambda m, F, x: x[0] @ x[1], [(M, K), (K, N)]),
    ("bmm", lambda m, F, x: m.bmm(x[0], x[1]), [(2, M, K), (2, K, N)]),
    ("mv", lambda m, F, x: m.mv(x[0], x[1]), [(M, K), (K,)]),
    ("addmm", lambda m, F, x: m.addmm(x[0], x[1], x[2]), [(N,), (M, K), (K, N)]),
    ("addmv", lambda m, F, x: m.addmv(x[0], x[1], x[2]), [(M,), (M, K), (K,)]),
    ("baddbmm", lambda m, F, x: m.baddbmm(x[0], x[1], x[2]), [(2, M, N), (2, M, K), (2, K, N)]),
    ("linear", lambda m, F, x: F.linear(x[0], x[1], x[2]), [(M, K), (N, K), (N,)]),
    ("linear3d", lambda m, F, x: F.linear(x[0], x[1]), [(2, M, K), (N, K)]),
    ("einsum", lambda m, F, x: m.einsum("ij,jk->ik", x[0], x[1]), [(M, K), (K, N)]),
]
P = dict(positive=True)
FP32 = [
    ("exp", lambda m, F, x: m.exp(x[0]), [(M, K)]),
    ("expm1", lambda m, F, x: m.expm1(x[0]), [(M, K)]),
    ("log", lambda m, F, x: m.log(x[0]), [((M, K), P)]),
    ("log10", lambda m, F, x: m.log10(x[0]), [((M, K), P)]),
    ("log2", lambda m, F, x: m.log2(x[0]), [((M, K), P)]),
    ("log1p", lambda m, F, x: m.log1p(x[0]), [((M, K), P)]),
    ("reciprocal", lambda m, F, x: m.reciprocal(x[0]), [((M, K), P)]),
    ("rsqrt", lambda m, F, x: m.rsqrt(x[0]), [((M, K), P)]),
    ("tan", lambda m, F, x: m.tan(x[0]), [((M, K), dict(lo=(-1, 1)))]),
    ("acos", lambda m, F, x: m.acos(x[0]), [((M, K), dict(lo=(-0.9, 0.9)))]),
    ("asin", lambda m, F, x: m.asin(x[0]), [((M, K), dict(lo=(-0.9, 0.9)))]),
    ("cosh", lambda m, F, x: m.cosh(x[0]), [(M, K)]),
    ("sinh", lambda m, F, x: m.sinh(x[0]), [(M, K)]),
    ("method exp", lambda m, F, x: x[0].exp(), [(M, K)]),
    ("pow scalar", lambda m, F, x: x[0] ** 2, [(M, K)]),
    ("rpow", lambda m, F, x: 2 ** x[0], [(M, K)]),
    ("pow tensor", lambda m, F, x: m.pow(x[0], x[1]), [((M, K), P), (M, K)]),
    ("rtruediv", lambda m, F, x: 2 / x[0], [((M, K), P)]),
    ("sum", lambda m, F, x: x[0].sum(), [(M, K)]),
    ("sum dim", lambda m, F, x: m.sum(x[0], 1), [(M, K)]),
    ("prod", lambda m, F, x: m.prod(x[0], 1), [((M, 4), P)]),
    ("cumsum", lambda m, F, x: m.cumsum(x[0], 1), [(M, K)]),
    ("cumprod", lambda m, F, x: m.cumprod(x[0], 1), [((M, 4), P)]),
    ("softmax", lambda m, F, x: F.softmax(x[0], 1), [(M, K)]),
    ("log_softmax", lambda m, F, x: F.log_softmax(x[0], 1), [(M, K)]),
    ("softmax dtype", lambda m, F, x: m.softmax(x[0], 1, dtype=m.float16), [(M, K)]),
    ("norm", lambda m, F, x: m.norm(x[0]), [(M, K)]),
    ("norm dim", lambda m, F, x: x[0].norm(dim=1), [(M, K)]),
    ("logsumexp", lambda m, F, x: m.logsumexp(x[0], 1), [(M, K)]),
    ("mse_loss", lambda m, F, x: F.mse_loss(x[0], x[1]), [(M, K), (M, K)]),
    ("l1_loss", lambda m, F, x: F.l1_loss(x[0], x[1]), [(M, K), (M, K)]),
    ("bce_with_logits", lambda m, F, x: F.binary_cross_entropy_with_logits(x[0], x[1].sigmoid()),
     [(M, K), (M, K)]),
    ("softplus", lambda m, F, x: F.softplus(x[0]), [(M, K)]),
    ("cross_entropy", lambda m, F, x: F.cross_entropy(
        x[0], m.arange(M, device="cuda") % K), [(M, K)]),
    ("nll_loss", lambda m, F, x: F.nll_loss(x[0], m.arange(M, device="cuda") % K), [(M, K)]),
    # not on the list: keep their dtype
    ("mean", lambda m, F, x: x[0].mean(), [(M, K)]),
    ("sin", lambda m, F, x: m.sin(x[0]), [(M, K)]),
    ("mul", lambda m, F, x: x[0] * x[1], [(M, K), (M, K)]),
    ("relu", lambda m, F, x: F.relu(x[0]), [(M, K)]),
]
PROMOTE = [
    ("addcmul", lambda m, F, x: m.addcmul(x[0], x[1], x[2]), [(M, K)] * 3),
    ("addcdiv", lambda m, F, x: m.addcdiv(x[0], x[1], x[2]), [(M, K), (M, K), ((M, K), P)]),
    ("atan2", lambda m, F, x: m.atan2(x[0], x[1]), [(M, K), (M, K)]),
    ("dot", lambda m, F, x: m.dot(x[0], x[1]), [(K,), (K,)]),
    ("vdot", lambda m, F, x: m.vdot(x[0], x[1]), [(K,), (K,)]),
    ("cat", lambda m, F, x: m.cat([x[0], x[1]]), [(M, K), (M, K)]),
    ("stack", lambda m, F, x: m.stack([x[0], x[1]]), [(M, K), (M, K)]),
]

# input dtype patterns: all float32, all float16, mixed (first float16, rest float32)
PATTERNS = ["float32", "float16", "mixed"]


def make_inputs(torch, specs, pattern, region):
    es, ts = [], []
    for i, spec in enumerate(specs):
        shape, kw = (spec if isinstance(spec[-1], dict) else (spec, {}))
        dt = {"float32": "float32", "float16": region, "mixed": region if i == 0 else "float32"}
        e, t = pair(torch, shape, dt[pattern], **kw)
        es.append(e)
        ts.append(t)
    return es, ts


@pytest.mark.parametrize("region", ["float16", "bfloat16"])
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("case", LOWER + FP32 + PROMOTE, ids=lambda c: c[0])
def test_output_dtype_matches_torch(torch, case, pattern, region):
    label, fn, specs = case
    es, ts = make_inputs(torch, specs, pattern, region)
    with torch.autocast("cuda", dtype=getattr(torch, region)):
        tout = fn(torch, torch.nn.functional, ts)
    with ember.autocast("cuda", dtype=getattr(ember, region)):
        eout = fn(ember, EF, es)
    assert dtype_name(eout.dtype) == dtype_name(tout.dtype), label
    tol = 2e-2 if dtype_name(tout.dtype) != "float32" else 2e-3
    if region == "bfloat16" or pattern != "float32":
        tol = 6e-2
    close(eout, tout, rtol=tol, atol=tol)


def test_float64_and_int_not_cast(torch):
    a = ember.ones(4, 4, device="cuda", dtype=ember.float64)
    with ember.autocast("cuda"):
        assert ember.mm(a, a).dtype == ember.float64
        assert ember.exp(a).dtype == ember.float64
        i = ember.ones(4, dtype=ember.int64, device="cuda")
        assert (i.sum()).dtype == ember.int64
        # cpu tensors follow the cpu state (off here)
        c = ember.ones(2, 2)
        assert ember.mm(c, c).dtype == ember.float32


def test_bce_banned_like_torch(torch):
    e, t = pair(torch, (4,), positive=True)
    e, t = e.sigmoid(), t.sigmoid()
    with torch.autocast("cuda"):
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            torch.nn.functional.binary_cross_entropy(t, t)
    with ember.autocast("cuda"):
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            EF.binary_cross_entropy(e, e)
    assert EF.binary_cross_entropy(e, e).dtype == ember.float32  # usable afterwards


def test_gradients_reach_float32_leaves_like_torch(torch):
    x_e, x_t = pair(torch, (32, 64))
    w_e, w_t = pair(torch, (16, 64))
    b_e, b_t = pair(torch, (16,))
    w2_e, w2_t = pair(torch, (4, 16))
    for p in (w_e, b_e, w2_e):
        p.requires_grad_()
    for p in (w_t, b_t, w2_t):
        p.requires_grad_()
    tgt = np.arange(32) % 4
    with ember.autocast("cuda"):
        h = EF.relu(EF.linear(x_e, w_e, b_e))
        out = EF.linear(h, w2_e)
        loss_e = EF.cross_entropy(out, ember.tensor(tgt, device="cuda"))
    with torch.autocast("cuda"):
        h = torch.nn.functional.relu(torch.nn.functional.linear(x_t, w_t, b_t))
        out_t = torch.nn.functional.linear(h, w2_t)
        loss_t = torch.nn.functional.cross_entropy(out_t, torch.tensor(tgt, device="cuda"))
    assert dtype_name(out.dtype) == dtype_name(out_t.dtype) == "float16"
    assert dtype_name(loss_e.dtype) == dtype_name(loss_t.dtype) == "float32"
    loss_e.backward()
    loss_t.backward()
    for pe, pt in ((w_e, w_t), (b_e, b_t), (w2_e, w2_t)):
        assert pe.grad.dtype == ember.float32
        close(pe.grad, pt.grad, rtol=2e-2, atol=2e-3)


def test_weight_cast_once_per_forward(torch):
    w = ember.randn(64, 64, device="cuda").requires_grad_()
    x = ember.randn(8, 64, device="cuda")
    with ember.autocast("cuda"):
        y = EF.linear(EF.linear(x, w), w)
        assert ember._C._autocast_cache_size() == 1
    assert ember._C._autocast_cache_size() == 0
    y.float().sum().backward()
    assert w.grad.dtype == ember.float32


# ---- GradScaler vs torch ------------------------------------------------------------------

def make_mlp(torch, sizes, seed=0):
    rng = np.random.default_rng(seed)
    ep, tp = [], []
    for i in range(len(sizes) - 1):
        w = (rng.standard_normal((sizes[i + 1], sizes[i])) / np.sqrt(sizes[i])).astype(np.float32)
        b = np.zeros(sizes[i + 1], np.float32)
        for a in (w, b):
            ep.append(ember.tensor(a, device="cuda").requires_grad_())
            tp.append(torch.tensor(a, device="cuda").requires_grad_())
    return ep, tp


def mlp(m, F, ps, x):
    for i in range(0, len(ps), 2):
        x = F.linear(x, ps[i], ps[i + 1])
        if i + 2 < len(ps):
            x = F.relu(x)
    return x


@pytest.mark.parametrize("device", ["cuda", "cpu"])
def test_scaler_scale_sequence_matches_torch(torch, device):
    dev = device
    ep, tp = make_mlp(torch, [16, 32, 4])
    if dev == "cpu":
        ep = [p.detach().cpu().requires_grad_() for p in ep]
        tp = [p.detach().cpu().requires_grad_() for p in tp]
    eo = ember.optim.SGD(ep, lr=0.05)
    to = torch.optim.SGD(tp, lr=0.05)
    es = ember.amp.GradScaler(dev, init_scale=2.0**10, growth_interval=3, backoff_factor=0.25)
    ts = torch.amp.GradScaler(dev, init_scale=2.0**10, growth_interval=3, backoff_factor=0.25)
    rng = np.random.default_rng(3)
    e_scales, t_scales, e_ret, t_ret = [], [], [], []
    for it in range(16):
        xa = rng.standard_normal((8, 16)).astype(np.float32)
        ya = rng.standard_normal((8, 4)).astype(np.float32)
        for m, F, ps, opt, sc, scales, rets in (
                (ember, EF, ep, eo, es, e_scales, e_ret),
                (torch, torch.nn.functional, tp, to, ts, t_scales, t_ret)):
            opt.zero_grad()
            x, y = m.tensor(xa, device=dev), m.tensor(ya, device=dev)
            loss = F.mse_loss(mlp(m, F, ps, x), y)
            sc.scale(loss).backward()
            if it in (2, 7):
                with m.no_grad():
                    ps[0].grad[0, 0] = float("inf")
            if it == 11:
                with m.no_grad():
                    ps[3].grad[1] = float("nan")
            if it == 5:  # an explicit unscale_ (gradient clipping's pattern)
                sc.unscale_(opt)
            rets.append(sc.step(opt))
            sc.update()
            scales.append(sc.get_scale())
    assert e_scales == t_scales
    assert e_ret == t_ret
    assert es.state_dict() == ts.state_dict()
    for pe, pt in zip(ep, tp):
        close(pe.detach(), pt.detach(), rtol=1e-4, atol=1e-5)


def test_unscale_many_grads_matches_torch(torch):
    # more tensors than one launch holds (110) and tensors larger than a chunk
    shapes = [(3,)] * 150 + [(70000,), (300, 700)]
    for dt in ("float32", "float16", "bfloat16"):
        es, ts = [], []
        for s in shapes:
            e, t = pair(torch, s, dt)
            es.append(e)
            # torch's kernel has no bfloat16 case: its reference runs on float32 copies (the
            # scale is a power of two, so the unscaled values are exact in bfloat16 too)
            ts.append(t.float() if dt == "bfloat16" else t)
        ef, tf = ember.zeros((), device="cuda"), torch.zeros((), device="cuda")
        ei, ti = ember.tensor(1 / 512, device="cuda"), torch.tensor(1 / 512, device="cuda")
        ember._amp_foreach_non_finite_check_and_unscale_(es, ef, ei)
        torch._amp_foreach_non_finite_check_and_unscale_(ts, tf, ti)
        assert ef.item() == tf.item() == 0.0
        for e, t in zip(es, ts):
            close(e.float() if dt == "bfloat16" else e, t, rtol=0, atol=0)
        es[151][299, 5] = float("inf")
        ts[151][299, 5] = float("inf")
        ember._amp_foreach_non_finite_check_and_unscale_(es, ef, ei)
        torch._amp_foreach_non_finite_check_and_unscale_(ts, tf, ti)
        assert ef.item() == tf.item() == 1.0


def test_update_scale_matches_torch(torch):
    es, et = ember.tensor(4.0, device="cuda"), ember.zeros((), dtype=ember.int32, device="cuda")
    ts, tt = torch.tensor(4.0, device="cuda"), torch.zeros((), dtype=torch.int32, device="cuda")
    for f in [0, 0, 1, 0, 0, 0, 0, 1, 1, 0]:
        ember._amp_update_scale_(es, et, ember.tensor(float(f), device="cuda"), 2.0, 0.5, 2)
        torch._amp_update_scale_(ts, tt, torch.tensor(float(f), device="cuda"), 2.0, 0.5, 2)
        assert (es.item(), et.item()) == (ts.item(), tt.item())


def test_scaler_errors_leave_process_usable(torch):
    ep, _ = make_mlp(torch, [4, 2])
    opt = ember.optim.SGD(ep, lr=0.1)
    s = ember.amp.GradScaler()
    with pytest.raises(RuntimeError, match="found_inf and inv_scale must be on the same device|"
                                           "on cpu"):
        ember._amp_foreach_non_finite_check_and_unscale_([ember.ones(2, device="cuda")],
                                                         ember.zeros(()), ember.tensor(1.0))
    s.scale(EF.mse_loss(mlp(ember, EF, ep, ember.ones(3, 4, device="cuda")),
                        ember.zeros(3, 2, device="cuda"))).backward()
    assert s.step(opt) is None
    s.update()


# ---- an fp16 training loop against torch's ------------------------------------------------

def test_fp16_training_loop_matches_torch(torch):
    ep, tp = make_mlp(torch, [64, 256, 256, 10], seed=1)
    eo = ember.optim.Adam(ep, lr=1e-3)
    to = torch.optim.Adam(tp, lr=1e-3)
    es, ts = ember.amp.GradScaler("cuda"), torch.amp.GradScaler("cuda")
    rng = np.random.default_rng(4)
    xa = rng.standard_normal((512, 64)).astype(np.float32)
    ya = (np.abs(xa[:, :10]).argmax(1)).astype(np.int64)
    e_losses, t_losses = [], []
    for _ in range(60):
        for m, F, ps, opt, sc, losses in ((ember, EF, ep, eo, es, e_losses),
                                          (torch, torch.nn.functional, tp, to, ts, t_losses)):
            opt.zero_grad()
            x, y = m.tensor(xa, device="cuda"), m.tensor(ya, device="cuda")
            with m.autocast("cuda", dtype=m.float16):
                loss = F.cross_entropy(mlp(m, F, ps, x), y)
            sc.scale(loss).backward()
            sc.step(opt)
            sc.update()
            losses.append(loss.item())
    assert e_losses[-1] < 0.5 * e_losses[0]
    np.testing.assert_allclose(e_losses, t_losses, rtol=3e-2, atol=3e-3)
    assert es.get_scale() == ts.get_scale()


def test_cuda_amp_aliases_warn(torch):
    with pytest.warns(FutureWarning, match="torch.cuda.amp.autocast"):
        cm = ember.cuda.amp.autocast()
    with cm:
        assert ember.is_autocast_enabled("cuda")
        assert ember.get_autocast_dtype("cuda") == ember.float16
    with pytest.warns(FutureWarning, match="torch.cuda.amp.GradScaler"):
        s = ember.cuda.amp.GradScaler(init_scale=4.0)
    assert s.is_enabled() and s.get_scale() == 4.0
