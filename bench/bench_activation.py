"""Issue 18's fused-activation rows: hardswish forward and forward+backward on 2^26
float32 values, mish forward+backward and leaky_relu forward in bfloat16, side by side
with torch (device time from events). Each is one elementwise pass (two for fwd+bwd), so
both libraries should sit at memory bandwidth: the target is >= 0.9x torch's speed."""

from harness import gpu_pair, gpu_seconds

N = 1 << 26


def run(table):
    pair = gpu_pair("the activation rows", need_torch=True)
    if pair is None:
        return
    import ember.nn.functional as EF
    ember, torch = pair.ember, pair.torch
    TF = torch.nn.functional

    def row(name, fe, ft, nbytes):
        e = gpu_seconds(fe, pair.E, pair.e_sync, repeat=15, warmup=3) * 1e3
        t = gpu_seconds(ft, pair.T, pair.t_sync, repeat=15, warmup=3) * 1e3
        table.add(f"{name} ({nbytes / e / 1e6:.0f} GB/s)", e, t, "ms",
                  target=">= 0.9x torch", met=e <= t / 0.9)

    x = ember.randn(N, device="cuda")
    g = ember.randn(N, device="cuda")
    tx, tg = torch.from_dlpack(x).clone(), torch.from_dlpack(g).clone()
    row("hardswish fwd 2^26 f32", lambda: EF.hardswish(x), lambda: TF.hardswish(tx), 8 * N)
    xr, txr = x.clone().requires_grad_(), tx.clone().requires_grad_()
    row("hardswish fwd+bwd 2^26 f32", lambda: EF.hardswish(xr).backward(g),
        lambda: TF.hardswish(txr).backward(tg), 20 * N)
    del xr, txr
    xb = x.bfloat16().requires_grad_()
    gb = g.bfloat16()
    txb = torch.from_dlpack(xb.detach()).clone().requires_grad_()
    tgb = torch.from_dlpack(gb).clone()
    row("mish fwd+bwd 2^26 bf16", lambda: EF.mish(xb).backward(gb),
        lambda: TF.mish(txb).backward(tgb), 10 * N)
    row("leaky_relu fwd 2^26 bf16", lambda: EF.leaky_relu(xb.detach(), 0.1),
        lambda: TF.leaky_relu(txb.detach(), 0.1), 4 * N)
