"""The sorting and search family on CUDA tensors against torch on the GPU: sort (CUB
radix sort: one long row of 2^20+ elements, many short rows, every dtype, NaN, -0.0,
stability, descending, non-contiguous), argsort, topk, kthvalue, median, mode,
quantile, unique (inverse, counts, dim), unique_consecutive, searchsorted, bucketize,
histc, bincount, cummax/cummin; gradients; the current stream; empty tensors."""
import math

import numpy as np
import pytest

import ember
from torch_util import dtype_name

pytestmark = pytest.mark.gpu

ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
       "float64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]


def make(name, shape, seed=0, ties=True, nan=True):
    """An ember CUDA tensor of dtype name (values exact in it) and its torch twin."""
    g = np.random.default_rng(seed)
    if name == "bool":
        a = g.integers(0, 2, shape).astype(np.float32)
    elif name in FLOATS:
        a = (g.integers(-50, 50, shape) * 0.25 if ties else g.standard_normal(shape))
        a = np.asarray(a, dtype=np.float32)
        flat = a.reshape(-1)
        if nan and flat.size > 8:
            flat[g.integers(0, flat.size, 3)] = np.nan
            flat[g.integers(0, flat.size, 2)] = -0.0
            flat[g.integers(0, flat.size)] = np.inf
            flat[g.integers(0, flat.size)] = -np.inf
    else:
        lo = 0 if name == "uint8" else -100
        a = g.integers(lo, 100, shape).astype(np.float32)
    return ember.from_numpy(a).cuda().to(getattr(ember, name))


def tt(e, torch):
    return torch.from_dlpack(e.contiguous()).clone()


def same(e, t, torch, exact=True):
    assert dtype_name(e.dtype) == dtype_name(t.dtype), (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    got = torch.from_dlpack(e.contiguous())
    if exact:
        torch.testing.assert_close(got, t, rtol=0, atol=0, equal_nan=True)
    else:
        torch.testing.assert_close(got, t, equal_nan=True)


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_long_row_every_dtype(name, descending, torch):
    x = make(name, ((1 << 20) + 3,), seed=ALL.index(name))
    tx = tt(x, torch)
    v, i = ember.sort(x, descending=descending, stable=True)
    tv, ti = torch.sort(tx, descending=descending, stable=True)
    same(v, tv, torch)
    same(i, ti, torch)


@pytest.mark.parametrize("name", ["float32", "int8", "float64", "int64", "bfloat16"])
@pytest.mark.parametrize("shape,dim", [((4096, 37), 1), ((37, 4096), 0), ((3, 500, 7), 1),
                                       ((70000, 2), 1), ((5, 9, 11), -1)])
def test_sort_many_rows_and_dims(name, shape, dim, torch):
    x = make(name, shape, seed=11)
    tx = tt(x, torch)
    for desc in (False, True):
        v, i = x.sort(dim, desc, stable=True)
        tv, ti = tx.sort(dim=dim, descending=desc, stable=True)
        same(v, tv, torch)
        same(i, ti, torch)


def test_sort_non_contiguous_zero_dim_empty(torch):
    x = make("float32", (64, 48), seed=3).t()[::2]
    tx = tt(x, torch)
    # torch's stable= overload takes dim only as a keyword (ember also accepts it
    # positionally: see docs/design/ops_sort.md)
    v, i = x.sort(dim=0, stable=True)
    tv, ti = tx.sort(dim=0, stable=True)
    same(v, tv, torch)
    same(i, ti, torch)
    v, i = ember.sort(ember.tensor(2.0, device="cuda"))
    assert float(v) == 2.0 and int(i) == 0
    v, i = ember.sort(ember.empty((0, 5), device="cuda"), 0)
    assert tuple(v.shape) == (0, 5) and v.device.type == "cuda"


def test_sort_runs_on_the_current_stream_without_host_sync(torch):
    x = make("float32", (1 << 18,), seed=4)
    s = ember.cuda.Stream()
    s.wait_stream(ember.cuda.current_stream())
    with ember.cuda.stream(s):
        ember.cuda._sleep(5_000_000)
        v, i = x.sort()
        done = ember.cuda.Event()
        done.record()
    assert not done.query()  # nothing waited for the sleep
    done.synchronize()
    same(v, tt(x, torch).sort().values, torch)


@pytest.mark.parametrize("name", ["float32", "float16", "int32", "uint8"])
def test_topk_kthvalue_median_mode(name, torch):
    x = make(name, (33, 517), seed=5, ties=False, nan=False)
    tx = tt(x, torch)
    for largest in (True, False):
        e, t = ember.topk(x, 17, 1, largest), torch.topk(tx, 17, 1, largest)
        same(e.values, t.values, torch)
        # the indices name the values (which of equal values is unspecified)
        torch.testing.assert_close(tx.gather(1, tt(e.indices, torch)), t.values, rtol=0, atol=0)
    e, t = ember.kthvalue(x, 100, 1), torch.kthvalue(tx, 100, 1)
    same(e.values, t.values, torch)
    e, t = ember.median(x, 1), torch.median(tx, 1)
    same(e.values, t.values, torch)
    same(ember.median(x), torch.median(tx), torch)
    xm = make(name, (20, 300), seed=6)
    xm = (xm.abs() if name != "uint8" else xm) // 20 if name in ("int32", "uint8") else xm
    txm = tt(xm, torch)
    e, t = ember.mode(xm, 1), torch.mode(txm, 1)
    # Which of equally frequent values torch's CUDA kernel returns depends on its block
    # reduction order (its CPU returns the smallest, as ember does on both devices): the
    # value must be as frequent as torch's, and the index must name it.
    ev = torch.from_dlpack(e.values.contiguous())
    count = lambda v: (txm == v.unsqueeze(1)).sum(1)  # noqa: E731
    torch.testing.assert_close(count(ev), count(t.values), rtol=0, atol=0)
    torch.testing.assert_close(txm.gather(1, tt(e.indices, torch).unsqueeze(1)).squeeze(1), ev,
                               rtol=0, atol=0, equal_nan=True)
    same(e.values, tt(xm, torch).cpu().mode(1).values.to(txm.device), torch)  # torch's CPU choice


def test_median_nanmedian_nan(torch):
    x = make("float32", (40, 101), seed=7)
    tx = tt(x, torch)
    for fn in ("median", "nanmedian"):
        e, t = getattr(ember, fn)(x, 1), getattr(torch, fn)(tx, 1)
        same(e.values, t.values, torch)
        same(getattr(ember, fn)(x), getattr(torch, fn)(tx), torch)


def test_median_of_bool_like_torch(torch):
    """torch's CUDA median of a whole bool tensor sorts (works); along a dim it raises, as
    every CPU bool median does."""
    x = make("bool", (7, 5), seed=3)
    tx = tt(x, torch)
    for fn in ("median", "nanmedian"):
        same(getattr(ember, fn)(x), getattr(torch, fn)(tx), torch)
        with pytest.raises(NotImplementedError):
            getattr(ember, fn)(x, 1)
        with pytest.raises(NotImplementedError):
            getattr(torch, fn)(tx, 1)
        with pytest.raises(NotImplementedError):
            getattr(ember, fn)(x.cpu())


def test_quantile(torch):
    x = make("float64", (30, 77), seed=8, ties=False, nan=False)
    tx = tt(x, torch)
    q = ember.tensor([0.0, 0.1, 0.5, 0.99, 1.0], dtype=ember.float64, device="cuda")
    tq = tt(q, torch)
    for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
        same(ember.quantile(x, q, 1, interpolation=interp),
             torch.quantile(tx, tq, 1, interpolation=interp), torch, exact=False)
        same(ember.nanquantile(x, 0.3, interpolation=interp),
             torch.nanquantile(tx, 0.3, interpolation=interp), torch, exact=False)


@pytest.mark.parametrize("name", ["int64", "float32", "uint8", "bool", "float16"])
def test_unique_and_consecutive(name, torch):
    x = make(name, (1 << 20,), seed=9, nan=False)
    x = x // 1000 if name in ("int64",) else x
    tx = tt(x, torch)
    e = ember.unique(x, return_inverse=True, return_counts=True)
    t = torch.unique(tx, return_inverse=True, return_counts=True)
    for a, b in zip(e, t):
        same(a, b, torch)
    e = ember.unique_consecutive(x, return_inverse=True, return_counts=True)
    t = torch.unique_consecutive(tx, return_inverse=True, return_counts=True)
    for a, b in zip(e, t):
        same(a, b, torch)
    r = make("int32", (500, 3), seed=10) // 60
    e = ember.unique(r, dim=0, return_inverse=True, return_counts=True)
    t = torch.unique(tt(r, torch), dim=0, return_inverse=True, return_counts=True)
    for a, b in zip(e, t):
        same(a, b, torch)


@pytest.mark.parametrize("name", ["float32", "int64", "float16", "int16", "float64"])
def test_searchsorted_bucketize(name, torch):
    seq = make(name, (3, 1000), seed=12, nan=False).sort(1).values
    vals = make(name, (3, 257), seed=13, nan=False)
    ts, tv = tt(seq, torch), tt(vals, torch)
    for right in (False, True):
        same(ember.searchsorted(seq, vals, right=right),
             torch.searchsorted(ts, tv, right=right), torch)
        same(ember.searchsorted(seq[0], vals, right=right, out_int32=True),
             torch.searchsorted(ts[0], tv, right=right, out_int32=True), torch)
        same(ember.bucketize(vals, seq[1], right=right),
             torch.bucketize(tv, ts[1], right=right), torch)


def test_histc_bincount(torch):
    x = make("float32", (1 << 20,), seed=14, ties=False, nan=False)
    tx = tt(x, torch)
    same(ember.histc(x, 100, -2, 2), torch.histc(tx, 100, -2, 2), torch)
    same(ember.histc(x, 37), torch.histc(tx, 37), torch)
    i = ember.randint(0, 1000, (1 << 20,), device="cuda")
    ti = tt(i, torch)
    same(ember.bincount(i), torch.bincount(ti), torch)
    w = make("float64", (1 << 20,), seed=15, nan=False)
    same(ember.bincount(i, w, minlength=2000), torch.bincount(ti, tt(w, torch), minlength=2000),
         torch, exact=False)
    with pytest.raises(NotImplementedError):
        ember.histogram(x, 10)


@pytest.mark.parametrize("name", ALL)
def test_cummax_cummin(name, torch):
    x = make(name, (50, 300), seed=16)
    tx = tt(x, torch)
    for dim in (0, 1):
        for fn in ("cummax", "cummin"):
            e, t = getattr(ember, fn)(x, dim), getattr(torch, fn)(tx, dim)
            same(e.values, t.values, torch)
            same(e.indices, t.indices, torch)
    x = make(name, (600, 40), seed=41).t()
    tx = tt(x, torch)
    for fn in ("cummax", "cummin"):
        e, t = getattr(ember, fn)(x, 1), getattr(torch, fn)(tx, 1)
        same(e.values, t.values, torch)
        same(e.indices, t.indices, torch)


def test_gradients(torch):
    a = np.random.default_rng(17).standard_normal((16, 40))
    g = np.random.default_rng(18).standard_normal((16, 5))
    cases = [lambda m, x: m.topk(x, 5, 1).values,
             lambda m, x: m.sort(x, 1, descending=True).values[:, :5],
             lambda m, x: m.cummax(x, 1).values[:, -5:],
             lambda m, x: m.median(x, 1, True).values.expand(16, 5),
             lambda m, x: m.quantile(x, 0.3, 1, True).expand(16, 5)]
    for fn in cases:
        xe = ember.tensor(a, device="cuda", requires_grad=True)
        xt = torch.tensor(a, device="cuda", requires_grad=True)
        (fn(ember, xe) * ember.tensor(g, device="cuda")).sum().backward()
        (fn(torch, xt) * torch.tensor(g, device="cuda")).sum().backward()
        same(xe.grad, xt.grad, torch, exact=False)


def test_sort_nan_payloads_and_signed_zero_order(torch):
    x = ember.tensor([0.0, -0.0, math.nan, -math.nan, 1.0, -0.0], device="cuda")
    v, i = x.sort(stable=True)
    assert i.tolist() == [0, 1, 5, 4, 2, 3]
    v, i = x.sort(descending=True, stable=True)
    assert i.tolist() == [2, 3, 4, 0, 1, 5]


@pytest.mark.parametrize("name", ALL)
def test_sort_short_rows_block_sort(name, torch):
    # one block per row (rows of 1 to 4096 elements: every block shape of 32- and
    # 64-bit keys, its padding, stability with ties, NaN and -0.0, both orders, strided rows),
    # and 4097 (the radix paths again)
    for n in (1, 2, 33, 128, 129, 512, 513, 1024, 1025, 2048, 2049, 4095, 4096, 4097):
        x = make(name, (7, n), seed=n)
        tx = tt(x, torch)
        for dim, xs, txs in ((1, x, tx), (0, x.t(), tx.t())):
            for desc in (False, True):
                v, i = xs.sort(dim, desc, stable=True)
                tv, ti = txs.sort(dim=dim, descending=desc, stable=True)
                same(v, tv, torch)
                same(i, ti, torch)
    for shape in ((1 << 12, 1000), (1 << 14, 20)):  # many rows: grids of 4096 and 16384 blocks
        x = make(name, shape, seed=1)
        v, i = x.sort(1, True, stable=True)
        tv, ti = tt(x, torch).sort(dim=1, descending=True, stable=True)
        same(v, tv, torch)
        same(i, ti, torch)


@pytest.mark.parametrize("name", ["float32", "int64", "float16", "uint8", "bfloat16", "float64",
                                  "int32", "int8"])
def test_topk_radix_select_one_long_line(name, torch):
    n = (1 << 17) + 5
    for ties in (False, True):
        x = make(name, (n,), seed=21, ties=ties)
        tx = tt(x, torch)
        for k in (1, 7, 1000, n // 8):
            for largest in (True, False):
                e, t = ember.topk(x, k, 0, largest), torch.topk(tx, k, 0, largest)
                same(e.values, t.values, torch)
                ti = tt(e.indices, torch)
                assert ti.unique().numel() == k  # distinct elements
                torch.testing.assert_close(tx[ti], t.values, rtol=0, atol=0, equal_nan=True)
    x = make("float32", (1, n), seed=22)  # a line with other dims of size 1
    tx = tt(x, torch)
    e, t = ember.topk(x, 100, 1), torch.topk(tx, 100, 1)
    same(e.values, t.values, torch)
    assert tuple(e.indices.shape) == (1, 100)
    z = ember.zeros((n,), device="cuda")  # every element equal: the first k, in order
    e = ember.topk(z, 50)
    assert e.indices.tolist() == list(range(50))
    s = ember.cuda.Stream()  # no host synchronisation
    s.wait_stream(ember.cuda.current_stream())
    with ember.cuda.stream(s):
        ember.cuda._sleep(5_000_000)
        e = ember.topk(x, 100, 1)
        done = ember.cuda.Event()
        done.record()
    assert not done.query()
    done.synchronize()
    same(e.values, torch.topk(tx, 100, 1).values, torch)


@pytest.mark.parametrize("name", ["int64", "int32"])
def test_unique_integers_narrow_keys(name, torch):
    g = np.random.default_rng(23)
    cases = [g.integers(-(1 << 19), 1 << 19, 1 << 18),           # ~20 bits, negative
             g.integers(1 << 40, (1 << 40) + 1000, 1 << 17),     # huge offset, 10 bits
             g.integers(-(1 << 62), 1 << 62, 1 << 17),           # full 64 bits
             np.full(1 << 17, -7)]                               # one value (0 bits)
    for a in cases:
        if name == "int32":
            a = (a % (1 << 31)) - (1 << 30)
        x = ember.from_numpy(a).cuda().to(getattr(ember, name))
        tx = tt(x, torch)
        same(ember.unique(x), torch.unique(tx), torch)
        e = ember.unique(x, return_inverse=True, return_counts=True)
        t = torch.unique(tx, return_inverse=True, return_counts=True)
        for p, q in zip(e, t):
            same(p, q, torch)


@pytest.mark.parametrize("name", ["float32", "int64", "float16", "uint8"])
def test_kthvalue_radix_select_one_long_line(name, torch):
    n = (1 << 17) + 5
    x = make(name, (n,), seed=24)
    tx = tt(x, torch)
    for k in (1, 2, 100, n // 8, n // 2, n - n // 8 + 1, n - 99, n):  # both sides, and a sort
        e, t = ember.kthvalue(x, k), torch.kthvalue(tx, k)
        same(e.values, t.values, torch)
        assert tuple(e.indices.shape) == ()
        torch.testing.assert_close(tx[int(e.indices)], t.values, rtol=0, atol=0, equal_nan=True)
    x2 = make(name, (1, n), seed=25)
    e, t = ember.kthvalue(x2, 7, 1, keepdim=True), torch.kthvalue(tt(x2, torch), 7, 1, keepdim=True)
    same(e.values, t.values, torch)
    assert tuple(e.indices.shape) == (1, 1)


@pytest.mark.parametrize("name", ["int64", "int32", "float32", "float16", "uint8", "bool"])
def test_unique_without_inverse_selects_run_starts(name, torch):
    # without return_inverse, sort.cu selects the run starts (DeviceSelect::Flagged)
    # instead of scanning run ids: values, counts, NaNs (each its own run), -0.0/+0.0
    x = make(name, ((1 << 18) + 3,), seed=31)
    tx = tt(x, torch)
    same(ember.unique(x), torch.unique(tx), torch)
    e = ember.unique(x, return_counts=True)
    t = torch.unique(tx, return_counts=True)
    for a, b in zip(e, t):
        same(a, b, torch)
    for a, b in zip(ember.unique_consecutive(x, return_counts=True),
                    torch.unique_consecutive(tx, return_counts=True)):
        same(a, b, torch)
    same(ember.unique_consecutive(x), torch.unique_consecutive(tx), torch)
    small = make(name, (5,), seed=32)  # below the narrow-key threshold, a few runs
    same(ember.unique(small), torch.unique(tt(small, torch)), torch)
    one = make(name, (1,), seed=33)
    for a, b in zip(ember.unique(one, return_counts=True),
                    torch.unique(tt(one, torch), return_counts=True)):
        same(a, b, torch)


@pytest.mark.parametrize("name", ["float32", "float16", "bfloat16", "int64", "int8", "uint8",
                                  "bool", "float64"])
def test_cummax_cummin_innermost_warp_per_line(name, torch):
    # along the innermost dim a warp scans each line in chunks of 256 with a carry
    # (cum_extreme.cu): long lines, a line not a multiple of the chunk, one line, 3-D,
    # ties (the last equal value wins) and NaNs (taken, then only a later NaN moves)
    # (33, 4096) and (64, 512): every chunk loaded and stored as vectors; (4, 1027): odd
    # rows start unaligned (element loads)
    # (1, 70001) and ((1 << 20) + 7,): few long lines, CUB's scan (cum_extreme_long_lines)
    for shape in ((3, 5000), (1, 70001), (8, 70001), (4, 2, 257), (700, 1), (2, 0, 5),
                  (33, 4096), (64, 512), (4, 1027), ((1 << 20) + 7,)):
        x = make(name, shape, seed=40)
        tx = tt(x, torch)
        for fn in ("cummax", "cummin"):
            e, t = getattr(ember, fn)(x, -1), getattr(torch, fn)(tx, -1)
            same(e.values, t.values, torch)
            same(e.indices, t.indices, torch)
    # a few long strided lines (along dim 0): CUB's scan with a stride
    x = make(name, ((1 << 17) + 3, 2), seed=42)
    tx = tt(x, torch)
    for fn in ("cummax", "cummin"):
        e, t = getattr(ember, fn)(x, 0), getattr(torch, fn)(tx, 0)
        same(e.values, t.values, torch)
        same(e.indices, t.indices, torch)


def test_topk_of_bool_raises_on_cuda_too(torch):
    """torch's topk takes no bool on CUDA either (its message names the CPU)."""
    with pytest.raises(RuntimeError, match="topk does not support bool"):
        torch.tensor([True, False], device="cuda").topk(1)
    with pytest.raises(RuntimeError, match="topk does not support bool"):
        ember.tensor([True, False], device="cuda").topk(1)
