"""Issue 16's rows: the indexing ops on the GPU at about 1 GiB (gather, scatter_add with
atomics, index_select, masked_fill, take_along_dim, x[idx], flip, roll, cumsum, cumprod,
cummax, nonzero and x[mask]), effective
bandwidth side by side with
torch (bytes read + written once each: the floor these one-pass kernels aim at)."""
from bench_math import _interleaved_ms
from harness import gpu_pair

GiB = 1 << 30


def run(table):
    pair = gpu_pair("the indexing rows", need_torch=True)
    if pair is None:
        return
    ember, torch = pair.ember, pair.torch
    e_sync, t_sync, E, T = pair.e_sync, pair.t_sync, pair.E, pair.T

    def row(name, fe, ft, nbytes, target=0.9):
        e_ms, t_ms = _interleaved_ms(fe, ft, E, T, e_sync, t_sync)
        e_gbs = nbytes / (e_ms * 1e-3) / 1e9
        t_gbs = nbytes / (t_ms * 1e-3) / 1e9
        table.add(name, e_gbs, t_gbs, "GB/s", higher_is_better=True,
                  target=f">= {target}x torch", met=e_gbs >= target * t_gbs)

    rows, cols = 1 << 14, 1 << 14  # 256 Mi float32 = 1 GiB
    x = ember.rand(rows, cols, device="cuda")
    tx = torch.rand(rows, cols, device="cuda")
    # gather along the rows with a random int64 index of x's shape: reads x's bytes at
    # random columns, the index (2x), writes the result
    i = ember.randint(0, cols, (rows, cols), device="cuda")
    ti = torch.randint(0, cols, (rows, cols), device="cuda")
    row("gather 1 GiB f32 (dim 1)", lambda: x.gather(1, i), lambda: tx.gather(1, ti), 4 * GiB)
    # scatter_add with duplicates (atomics) into a 1 GiB target
    dst, tdst = ember.zeros(rows, cols, device="cuda"), torch.zeros(rows, cols, device="cuda")
    row("scatter_add_ 1 GiB f32 (dim 1)", lambda: dst.scatter_add_(1, i, x),
        lambda: tdst.scatter_add_(1, ti, tx), 5 * GiB)
    del i, ti
    # index_select of half the rows, in random order: reads and writes 0.5 GiB
    sel = ember.randint(0, rows, (rows // 2,), device="cuda")
    tsel = torch.randint(0, rows, (rows // 2,), device="cuda")
    row("index_select 0.5 GiB f32 (dim 0)", lambda: x.index_select(0, sel),
        lambda: tx.index_select(0, tsel), GiB)
    # masked_fill with a row-broadcast mask
    m = ember.rand(cols, device="cuda") < 0.5
    tm = torch.rand(cols, device="cuda") < 0.5
    row("masked_fill 1 GiB f32", lambda: x.masked_fill(m, 0.0), lambda: tx.masked_fill(tm, 0.0),
        2 * GiB)
    # take_along_dim with an index broadcast over the rows (argsort-style use)
    j = ember.randint(0, cols, (1, cols), device="cuda")
    tj = torch.randint(0, cols, (1, cols), device="cuda")
    row("take_along_dim 1 GiB f32 (bcast index)", lambda: ember.take_along_dim(x, j, 1),
        lambda: torch.take_along_dim(tx, tj, 1), 2 * GiB)
    # advanced indexing by a row index: queued, no host check of the indices
    row("x[idx] 0.5 GiB f32 (rows)", lambda: x[sel], lambda: tx[tsel], GiB)
    # flip and roll: one read and one write of 1 GiB (flip over both dims in one pass)
    row("flip 1 GiB f32 (dim 0)", lambda: x.flip(0), lambda: tx.flip(0), 2 * GiB)
    row("flip 1 GiB f32 (dims 0, 1)", lambda: x.flip(0, 1), lambda: tx.flip(0, 1), 2 * GiB)
    row("roll 1 GiB f32 (dim 1)", lambda: x.roll(1000, 1), lambda: tx.roll(1000, 1), 2 * GiB)
    # cumulative ops along the rows (16384 lines of 16384), and one line of 256 Mi
    row("cumsum 1 GiB f32 (dim 1)", lambda: x.cumsum(1), lambda: tx.cumsum(1), 2 * GiB)
    row("cumprod 1 GiB f32 (dim 1)", lambda: x.cumprod(1), lambda: tx.cumprod(1), 2 * GiB)
    # cummax writes int64 indices beside the values
    row("cummax 1 GiB f32 (dim 1)", lambda: x.cummax(1), lambda: tx.cummax(1), 4 * GiB)
    xf, txf = x.view(-1), tx.view(-1)
    row("cumsum 1 GiB f32 (1-D)", lambda: xf.cumsum(0), lambda: txf.cumsum(0), 2 * GiB)
    del x, tx, xf, txf
    # nonzero / boolean masks: counted on the device, one host read of the count, then the
    # coordinates written on the device (bytes: the mask read, the coordinates written)
    n = 1 << 26
    mk, tmk = ember.rand(n, device="cuda") < 0.5, torch.rand(n, device="cuda") < 0.5
    row("nonzero 64 Mi bool (1-D, half set)", lambda: ember.nonzero(mk),
        lambda: torch.nonzero(tmk), n + 8 * (n // 2), target=0.8)
    mk2, tmk2 = mk.view(8192, 8192), tmk.view(8192, 8192)
    row("nonzero 64 Mi bool (2-D, half set)", lambda: ember.nonzero(mk2),
        lambda: torch.nonzero(tmk2), n + 16 * (n // 2), target=0.8)
    v, tv = ember.rand(n, device="cuda"), torch.rand(n, device="cuda")
    # x[mask]: the mask and the values read, half of them written
    row("x[mask] 64 Mi f32 (half set)", lambda: v[mk], lambda: tv[tmk], n + 4 * n + 2 * n,
        target=0.8)
