"""Issue 8's rows: one training step (zero_grad, forward, MSELoss, backward, SGD step) of
  - an MLP 784-256-10 (ReLU), batch 64: host-bound; target <= 0.4x torch's time;
  - an MLP 4096-4096-4096, batch 4096, float32: GPU-bound; target <= 1.03x torch's time;
  - the same MLP under autocast(device_type="cuda", dtype=bfloat16) (float32 weights and
    optimiser, bfloat16 matmuls): target <= 1.05x torch's time;
  - and under autocast float16 with a GradScaler (scale, unscale + inf check, step, update):
    target <= 1.05x torch's time;
side by side with torch in one process (same weights and data).

``python bench/bench_train.py --profile`` prints a cProfile of ember's small step (on the
GPU when there is one, else on the CPU): where the host time goes, per Python->C++ call.
"""
import sys
import time

from harness import gpu_pair, per_call, wall_seconds


def _models(lib, sizes, device, dtype):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(lib.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(lib.nn.ReLU())
    return lib.nn.Sequential(*layers).to(device=device, dtype=dtype)


def _copy_weights(torch, em, tm):
    with torch.no_grad():
        for ep, tp in zip(em.parameters(), tm.parameters()):
            tp.copy_(torch.from_numpy(ep.detach().cpu().numpy()))


def make_step(lib, model, x, y, lr=0.01):
    crit = lib.nn.MSELoss()
    opt = lib.optim.SGD(model.parameters(), lr=lr)

    def step():
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def make_amp_step(lib, model, x, y, dtype, scaler=None, lr=0.01):
    """A mixed-precision step: forward and loss under autocast, backward outside; with a
    scaler the loss is scaled and the step goes through scaler.step/update."""
    crit = lib.nn.MSELoss()
    opt = lib.optim.SGD(model.parameters(), lr=lr)

    def step():
        opt.zero_grad()
        with lib.autocast(device_type="cuda", dtype=dtype):
            loss = crit(model(x), y)
        if scaler is None:
            loss.backward()
            opt.step()
        else:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        return loss

    return step


def _setup(lib, sizes, batch, device, torch=None, ember_model=None, amp=None):
    import numpy as np
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    ys = rng.standard_normal((batch, sizes[-1])).astype(np.float32)
    model = _models(lib, sizes, device, lib.float32)
    if ember_model is not None:
        _copy_weights(lib, ember_model, model)
    x = lib.tensor(xs, device=device)
    y = lib.tensor(ys, device=device)
    if amp == "bf16":
        return model, make_amp_step(lib, model, x, y, lib.bfloat16)
    if amp == "fp16+scaler":
        scaler = lib.amp.GradScaler("cuda")
        return model, make_amp_step(lib, model, x, y, lib.float16, scaler)
    return model, make_step(lib, model, x, y)


def _timed(step, sync):
    return wall_seconds(step, sync, repeat=15, warmup=5)


def run(table):
    pair = gpu_pair("the training rows (python bench/bench_train.py --profile profiles the "
                    "CPU step)")
    if pair is None:
        return
    ember, torch, e_sync, t_sync = pair.ember, pair.torch, pair.e_sync, pair.t_sync
    if torch is not None:
        torch.backends.cuda.matmul.allow_tf32 = False

    # Host-bound: throughput of back-to-back steps (the GPU keeps up).
    sizes = [784, 256, 10]
    em, e_step = _setup(ember, sizes, 64, "cuda")
    e = per_call(e_step, calls=200, repeat=15, warmup=50, sync=e_sync) * 1e6
    t = None
    if torch:
        _, t_step = _setup(torch, sizes, 64, "cuda", ember_model=em)
        t = per_call(t_step, calls=200, repeat=15, warmup=50, sync=t_sync) * 1e6
    table.add("MLP 784-256-10 b64 SGD+MSE step", e, t, "us", target="<= 0.4x torch",
              met=(e <= 0.4 * t) if t else None)

    # GPU-bound: one step, synchronised.
    sizes = [4096, 4096, 4096]
    em, e_step = _setup(ember, sizes, 4096, "cuda")
    e = _timed(e_step, e_sync) * 1e3
    t = None
    if torch:
        _, t_step = _setup(torch, sizes, 4096, "cuda", ember_model=em)
        t = _timed(t_step, t_sync) * 1e3
    table.add("MLP 4096^3 b4096 fp32 SGD+MSE step", e, t, "ms", target="<= 1.03x torch",
              met=(e <= 1.03 * t) if t else None)

    # Mixed precision: autocast bfloat16; autocast float16 + GradScaler.
    for amp, label in (("bf16", "autocast bf16"), ("fp16+scaler", "autocast fp16+GradScaler")):
        em, e_step = _setup(ember, sizes, 4096, "cuda", amp=amp)
        e = _timed(e_step, e_sync) * 1e3
        t = None
        if torch:
            _, t_step = _setup(torch, sizes, 4096, "cuda", ember_model=em, amp=amp)
            t = _timed(t_step, t_sync) * 1e3
        table.add(f"MLP 4096^3 b4096 {label} SGD+MSE step", e, t, "ms",
                  target="<= 1.05x torch", met=(e <= 1.05 * t) if t else None)


def profile():
    import cProfile
    import pstats

    import ember
    device = "cuda" if ember.cuda.is_available() else "cpu"
    sync = ember.cuda.synchronize if device == "cuda" else (lambda: None)
    _, step = _setup(ember, [784, 256, 10], 64, device)
    for _ in range(50):
        step()
    sync()
    n = 500
    t0 = time.perf_counter()
    for _ in range(n):
        step()
    sync()
    print(f"ember step on {device}: {(time.perf_counter() - t0) / n * 1e6:.1f} us")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        step()
    sync()
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    if "--profile" in sys.argv:
        profile()
    else:
        from harness import Table
        table = Table()
        run(table)
        print(table.render())
