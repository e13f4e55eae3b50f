"""Issue 5's rows: tensor creation on the GPU, pinned and pageable transfers, and the
NumPy round trips, side by side with torch."""
import statistics
import time

import numpy as np

from harness import gpu_pair, per_call

MiB = 1 << 20
GiB = 1 << 30


def _timed(fn, sync, repeat=7, warmup=2):
    """Median seconds of fn() followed by sync()."""
    for _ in range(warmup):
        fn()
        sync()
    samples = []
    for _ in range(repeat):
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def run(table):
    pair = gpu_pair("the tensor rows")
    if pair is None:
        return
    ember, torch, e_sync, t_sync = pair.ember, pair.torch, pair.e_sync, pair.t_sync
    us = 1e6

    # Creation: allocation + free, and a small fill.
    n = MiB // 4
    e = per_call(lambda: ember.empty(n, device="cuda"), sync=e_sync) * us
    t = per_call(lambda: torch.empty(n, device="cuda"), sync=t_sync) * us if torch else None
    table.add("empty(1 MiB, cuda) + free", e, t, "us", target="<= 1.5 us", met=e <= 1.5)
    e = per_call(lambda: ember.zeros(1024, device="cuda"), sync=e_sync) * us
    t = per_call(lambda: torch.zeros(1024, device="cuda"), sync=t_sync) * us if torch else None
    table.add("zeros(1024, cuda)", e, t, "us", target="<= 6 us", met=e <= 6)
    e = per_call(lambda: ember.empty(256)) * us
    t = per_call(lambda: torch.empty(256)) * us if torch else None
    table.add("empty(256) cpu", e, t, "us")
    x = ember.zeros(64, 64, device="cuda")
    tx = torch.zeros(64, 64, device="cuda") if torch else None
    e = per_call(lambda: x[1:3, ::2]) * us
    t = per_call(lambda: tx[1:3, ::2]) * us if torch else None
    table.add("x[1:3, ::2] (view)", e, t, "us")

    # Pinned transfers of 1 GiB.
    nf = GiB // 4
    hp = ember.ones(nf, pin_memory=True)
    dv = ember.empty(nf, device="cuda")
    gbs = lambda s: GiB / s / 1e9  # noqa: E731
    e_h2d = gbs(_timed(lambda: dv.copy_(hp, non_blocking=True), e_sync))
    e_d2h = gbs(_timed(lambda: hp.copy_(dv, non_blocking=True), e_sync))
    t_h2d = t_d2h = None
    if torch:
        thp = torch.ones(nf, pin_memory=True)
        tdv = torch.empty(nf, device="cuda")
        t_h2d = gbs(_timed(lambda: tdv.copy_(thp, non_blocking=True), t_sync))
        t_d2h = gbs(_timed(lambda: thp.copy_(tdv, non_blocking=True), t_sync))
        del thp, tdv
    for name, ev, tv in (("pinned H2D 1 GiB", e_h2d, t_h2d), ("pinned D2H 1 GiB", e_d2h, t_d2h)):
        met = None if tv is None else ev >= 0.97 * tv
        table.add(name, ev, tv, "GB/s", higher_is_better=True, target=">= 0.97x torch", met=met)
    del hp

    # Pageable transfers of 1 GiB (the staging pipeline).
    a = np.ones(nf, dtype=np.float32)
    ea = ember.from_numpy(a)
    e_h2d = gbs(_timed(lambda: dv.copy_(ea), e_sync, repeat=5))
    e_d2h = gbs(_timed(lambda: ea.copy_(dv), e_sync, repeat=5))
    t_h2d = t_d2h = None
    if torch:
        ta = torch.from_numpy(a)
        tdv = torch.empty(nf, device="cuda")
        t_h2d = gbs(_timed(lambda: tdv.copy_(ta), t_sync, repeat=5))
        t_d2h = gbs(_timed(lambda: ta.copy_(tdv), t_sync, repeat=5))
        del tdv
    for name, ev, tv in (("pageable H2D 1 GiB", e_h2d, t_h2d),
                         ("pageable D2H 1 GiB", e_d2h, t_d2h)):
        met = None if tv is None else ev >= 3 * tv
        table.add(name, ev, tv, "GB/s", higher_is_better=True, target=">= 3x torch", met=met)
    del dv, ea, a

    # The NumPy round trips of 256 MiB.
    a = np.random.default_rng(0).standard_normal(64 * MiB, dtype=np.float32)
    ms = 1e3
    e = _timed(lambda: ember.from_numpy(a).cuda(), e_sync, repeat=5) * ms
    t = _timed(lambda: torch.from_numpy(a).to("cuda"), t_sync, repeat=5) * ms if torch else None
    table.add("from_numpy(a).cuda() 256 MiB", e, t, "ms", target=">= 3x faster",
              met=None if t is None else e * 3 <= t)
    x = ember.from_numpy(a).cuda()
    tx = torch.from_numpy(a).to("cuda") if torch else None
    e = _timed(lambda: x.cpu().numpy(), e_sync, repeat=5) * ms
    t = _timed(lambda: tx.cpu().numpy(), t_sync, repeat=5) * ms if torch else None
    table.add("x.cpu().numpy() 256 MiB", e, t, "ms", target=">= 3x faster",
              met=None if t is None else e * 3 <= t)
