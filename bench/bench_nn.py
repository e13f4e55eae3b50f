"""Issue 18's nn rows: GroupNorm (32, 256, 64, 64) forward+backward and InstanceNorm2d
(the fused group_norm kernels), EmbeddingBag forward+backward, CTC loss forward+backward
(T=256, N=32, C=64), side by side with torch (device time from events). Target: ember at
least 0.9x torch's speed (time <= torch / 0.9)."""

from harness import gpu_pair, gpu_seconds


def _gpu_ms(fn, event_cls, sync, repeat=15, warmup=3):
    return gpu_seconds(fn, event_cls, sync, repeat=repeat, warmup=warmup) * 1e3


def _norm_rows(row, ember, torch, twin):
    import ember.nn as enn
    import ember.nn.functional as EF
    TF = torch.nn.functional
    x = ember.randn(32, 256, 64, 64, device="cuda").requires_grad_()
    w = ember.ones(256, device="cuda").requires_grad_()
    b = ember.zeros(256, device="cuda").requires_grad_()
    g = ember.randn(32, 256, 64, 64, device="cuda")
    tx, tw, tb, tg = twin(x, True), twin(w, True), twin(b, True), twin(g)
    row("group_norm fwd (32, 256, 64, 64) G=32 f32",
        lambda: EF.group_norm(x.detach(), 32, w.detach(), b.detach()),
        lambda: TF.group_norm(tx.detach(), 32, tw.detach(), tb.detach()))
    row("group_norm fwd+bwd (32, 256, 64, 64) G=32 f32",
        lambda: EF.group_norm(x, 32, w, b).backward(g),
        lambda: TF.group_norm(tx, 32, tw, tb).backward(tg))
    em = enn.InstanceNorm2d(256, affine=True).cuda()
    tm = torch.nn.InstanceNorm2d(256, affine=True).cuda()
    row("InstanceNorm2d fwd (32, 256, 64, 64) f32",
        lambda: em(x.detach()), lambda: tm(tx.detach()))
    row("InstanceNorm2d fwd+bwd (32, 256, 64, 64) f32",
        lambda: em(x).backward(g), lambda: tm(tx).backward(tg))


def _embedding_bag_rows(row, ember, torch, twin, rng):
    import ember.nn.functional as EF
    TF = torch.nn.functional
    # 4096 bags of 20 indices into (100000, 128)
    n, B, V, D = 4096 * 20, 4096, 100000, 128
    idx = ember.tensor(rng.integers(0, V, n), device="cuda")
    offs = ember.tensor([20 * i for i in range(B)], device="cuda")
    wt = ember.randn(V, D, device="cuda").requires_grad_()
    ti, to, twt = twin(idx), twin(offs), twin(wt, True)
    ge = ember.randn(B, D, device="cuda")
    tge = twin(ge)
    for mode in ("sum", "mean", "max"):
        row(f"embedding_bag {mode} fwd+bwd {B} bags x 20 of ({V}, {D}) f32",
            lambda: EF.embedding_bag(idx, wt, offs, mode=mode).backward(ge),
            lambda: TF.embedding_bag(ti, twt, to, mode=mode).backward(tge))


def _ctc_rows(row, ember, torch, twin, rng):
    import ember.nn.functional as EF
    TF = torch.nn.functional
    Tn, N, C = 256, 32, 64  # targets of 20-60 labels
    lp = ember.randn(Tn, N, C, device="cuda").log_softmax(2).detach().requires_grad_()
    tl = [int(v) for v in rng.integers(20, 61, N)]
    targets = ember.tensor(rng.integers(1, C, (N, 60)), device="cuda")
    il = [Tn] * N
    tlp, ttg = twin(lp, True), twin(targets)
    row("ctc_loss fwd (T=256, N=32, C=64) f32",
        lambda: EF.ctc_loss(lp.detach(), targets, il, tl),
        lambda: TF.ctc_loss(tlp.detach(), ttg, il, tl))
    row("ctc_loss fwd+bwd (T=256, N=32, C=64) f32",
        lambda: EF.ctc_loss(lp, targets, il, tl).backward(),
        lambda: TF.ctc_loss(tlp, ttg, il, tl).backward())


def run(table):
    pair = gpu_pair("the nn rows", need_torch=True)
    if pair is None:
        return
    import numpy as np
    ember, torch = pair.ember, pair.torch
    e_sync, t_sync, E, T = pair.e_sync, pair.t_sync, pair.E, pair.T

    def row(name, fe, ft):
        e = _gpu_ms(fe, E, e_sync)
        t = _gpu_ms(ft, T, t_sync)
        table.add(name, e, t, "ms", target="speed >= 0.9x torch", met=e <= t / 0.9)

    def twin(x, grad=False):
        t = torch.from_dlpack(x.detach()).clone()
        return t.requires_grad_() if grad else t

    rng = np.random.default_rng(0)
    _norm_rows(row, ember, torch, twin)
    _embedding_bag_rows(row, ember, torch, twin, rng)
    _ctc_rows(row, ember, torch, twin, rng)
