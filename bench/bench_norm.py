"""Issue 9's normalisation rows: layer_norm forward+backward on (4096, 4096)
float32/bfloat16, batch_norm (training) forward+backward on (64, 64, 128, 128)
float32, embedding forward+backward, side by side with torch (device time from
events), plus the Python-to-kernel cost of a small layer_norm call."""

from harness import gpu_pair, gpu_seconds, per_call


def _gpu_ms(fn, event_cls, sync, repeat=15, warmup=3):
    """Median device milliseconds of fn(), from events recorded on the current stream."""
    return gpu_seconds(fn, event_cls, sync, repeat=repeat, warmup=warmup) * 1e3


def run(table):
    pair = gpu_pair("the normalisation rows", need_torch=True)
    if pair is None:
        return
    import ember.nn.functional as EF
    ember, torch = pair.ember, pair.torch
    TF = torch.nn.functional
    e_sync, t_sync, E, T = pair.e_sync, pair.t_sync, pair.E, pair.T

    def row(name, fe, ft, target=1.2):
        e = _gpu_ms(fe, E, e_sync)
        t = _gpu_ms(ft, T, t_sync)
        table.add(name, e, t, "ms", target=f"<= {target}x torch", met=e <= target * t)

    for dt in ("float32", "bfloat16"):
        x = ember.randn(4096, 4096, device="cuda").to(getattr(ember, dt)).requires_grad_()
        w = ember.ones(4096, device="cuda", dtype=getattr(ember, dt)).requires_grad_()
        b = ember.zeros(4096, device="cuda", dtype=getattr(ember, dt)).requires_grad_()
        g = ember.randn(4096, 4096, device="cuda").to(getattr(ember, dt))
        tx = torch.from_dlpack(x.detach()).clone().requires_grad_()
        tw = torch.from_dlpack(w.detach()).clone().requires_grad_()
        tb = torch.from_dlpack(b.detach()).clone().requires_grad_()
        tg = torch.from_dlpack(g).clone()
        row(f"layer_norm fwd (4096, 4096) {dt}",
            lambda: EF.layer_norm(x.detach(), (4096,), w.detach(), b.detach()),
            lambda: TF.layer_norm(tx.detach(), (4096,), tw.detach(), tb.detach()))
        row(f"layer_norm fwd+bwd (4096, 4096) {dt}",
            lambda: EF.layer_norm(x, (4096,), w, b).backward(g),
            lambda: TF.layer_norm(tx, (4096,), tw, tb).backward(tg))
        del x, w, b, g, tx, tw, tb, tg

    x = ember.randn(64, 64, 128, 128, device="cuda").requires_grad_()
    w = ember.ones(64, device="cuda").requires_grad_()
    b = ember.zeros(64, device="cuda").requires_grad_()
    rm, rv = ember.zeros(64, device="cuda"), ember.ones(64, device="cuda")
    g = ember.randn(64, 64, 128, 128, device="cuda")
    tx = torch.from_dlpack(x.detach()).clone().requires_grad_()
    tw = torch.ones(64, device="cuda", requires_grad=True)
    tb = torch.zeros(64, device="cuda", requires_grad=True)
    trm, trv = torch.zeros(64, device="cuda"), torch.ones(64, device="cuda")
    tg = torch.from_dlpack(g).clone()
    row("batch_norm2d train fwd (64, 64, 128, 128) f32",
        lambda: EF.batch_norm(x.detach(), rm, rv, w.detach(), b.detach(), training=True),
        lambda: TF.batch_norm(tx.detach(), trm, trv, tw.detach(), tb.detach(), training=True))
    row("batch_norm2d train fwd+bwd (64, 64, 128, 128) f32",
        lambda: EF.batch_norm(x, rm, rv, w, b, training=True).backward(g),
        lambda: TF.batch_norm(tx, trm, trv, tw, tb, training=True).backward(tg))
    del x, g, tx, tg

    wt = ember.randn(50000, 1024, device="cuda").requires_grad_()
    twt = torch.from_dlpack(wt.detach()).clone().requires_grad_()
    idx = ember.randint(0, 50000, (8192,), device="cuda")
    tidx = torch.from_dlpack(idx).clone()
    ge = ember.randn(8192, 1024, device="cuda")
    gt = torch.from_dlpack(ge).clone()
    row("embedding fwd+bwd 8192 x (50000, 1024) f32",
        lambda: EF.embedding(idx, wt).backward(ge),
        lambda: TF.embedding(tidx, twt).backward(gt), target=1.5)

    xs = ember.randn(8, 256, device="cuda")
    txs = torch.from_dlpack(xs).clone()
    e = per_call(lambda: EF.layer_norm(xs, (256,)), sync=e_sync) * 1e6
    t = per_call(lambda: TF.layer_norm(txs, (256,)), sync=t_sync) * 1e6
    table.add("layer_norm (8, 256) f32, per call", e, t, "us", target="<= torch", met=e <= t)
