"""torch's indexing functions on the GPU against torch on cuda (gather, scatter and its
reductions with duplicate indices, the index_* family, masked_*, take, take_along_dim, put,
nonzero), gradients, and the out-of-range path: a bad index never asserts on the device; it
is recorded (runtime/device_error.hpp) and raised as IndexError by the next synchronising
call, after which the process and the device keep working. Run on the H100 machine."""
import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as EF

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(160)
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8"]


def rand(shape, dtype):
    if dtype in ("float32", "float64", "float16", "bfloat16"):
        return RNG.standard_normal(shape)
    lo = 0 if dtype == "uint8" else -50
    return RNG.integers(lo, 50, size=shape)


def both(torch, a, dtype, requires_grad=False):
    e = ember.tensor(a, device="cuda").to(getattr(ember, dtype))
    t = torch.tensor(a, device="cuda").to(getattr(torch, dtype))
    if requires_grad:
        e.requires_grad_()
        t.requires_grad_()
    return e, t


def ints(torch, a):
    return ember.tensor(np.asarray(a, np.int64), device="cuda"), \
        torch.tensor(np.asarray(a, np.int64), device="cuda")


def same(e, t, tol=0.0):
    # compared as float64 (bool as bool): NumPy has no bfloat16, so torch's .numpy() would
    # refuse a bfloat16 tensor; every dtype here converts to float64 exactly
    a = e.detach().cpu().double().numpy() if e.dtype != ember.bool else e.cpu().numpy()
    b = t.detach().cpu().double().numpy() if str(t.dtype) != "torch.bool" else \
        t.detach().cpu().numpy()
    assert tuple(e.shape) == tuple(t.shape)
    if tol:
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(a, b)


def tol_of(dtype):
    return {"float16": 2e-2, "bfloat16": 1e-1, "float32": 1e-5, "float64": 1e-12}.get(dtype, 0.0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_index_select_take_vs_torch(torch, dtype):
    a = rand((7, 9, 5), dtype)
    e, t = both(torch, a, dtype)
    ei, ti = ints(torch, RNG.integers(0, 9, size=(7, 4, 5)))
    same(e.gather(1, ei), t.gather(1, ti))
    same(e.permute(2, 0, 1).gather(2, ei.permute(2, 0, 1)),
         t.permute(2, 0, 1).gather(2, ti.permute(2, 0, 1)))  # non-contiguous
    ev, tv = ints(torch, RNG.integers(0, 9, size=(13,)))
    same(e.index_select(1, ev), t.index_select(1, tv))
    ek, tk = ints(torch, RNG.integers(-315, 315, size=(4, 6)))
    same(e.take(ek), t.take(tk))
    el, tl = ints(torch, RNG.integers(0, 9, size=(1, 3, 5)))
    same(ember.take_along_dim(e, el, 1), torch.take_along_dim(t, tl, 1))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64",
                                   "int32", "int16", "int8", "uint8"])
def test_scatter_add_and_index_add_with_duplicates_vs_torch(torch, dtype):
    a, s = rand((6, 5), dtype), rand((40, 5), dtype)
    e, t = both(torch, a, dtype)
    es, ts = both(torch, s, dtype)
    ei, ti = ints(torch, RNG.integers(0, 6, size=(40, 5)))  # many duplicates
    same(e.scatter_add(0, ei, es), t.scatter_add(0, ti, ts), tol_of(dtype) * 10)
    ev, tv = ints(torch, RNG.integers(0, 6, size=(40,)))
    same(e.index_add(0, ev, es), t.index_add(0, tv, ts), tol_of(dtype) * 10)
    e2 = e.clone()
    e2.index_add_(0, ev, es, alpha=2)
    same(e2, t.index_add(0, tv, ts, alpha=2), tol_of(dtype) * 10)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "float16"])
@pytest.mark.parametrize("shape,n", [((37, 1000), 1000), ((5, 300), 80), ((3, 4096), 5000),
                                     ((64, 12288), 12288), ((4, 2), 1)])
def test_scatter_add_along_long_last_dim_rows_vs_torch(torch, dtype, shape, n):
    """Index rows of at least a quarter of self's row: summed in shared memory, then added
    to self's row once (float32/64, int32/64); self's untouched elements keep their bits
    (-0.0 included); out-of-range indices still surface at the next sync."""
    a = rand(shape, dtype)
    if dtype.startswith("float"):
        a[0, :4] = [-0.0, 0.0, -0.0, np.inf][:shape[1]]
    e, t = both(torch, a, dtype)
    es, ts = both(torch, rand((shape[0], n), dtype), dtype)
    ei, ti = ints(torch, RNG.integers(0, shape[1], size=(shape[0], n)))
    tol = tol_of(dtype) * 10  # floating sums in another order than torch's atomics
    same(e.scatter_add(1, ei, es), t.scatter_add(1, ti, ts), tol)
    e2, t2 = e.clone(), t.clone()
    e2.scatter_add_(-1, ei, es)
    t2.scatter_add_(-1, ti, ts)
    same(e2, t2, tol)
    # the signs of the zeros nobody added to
    untouched = ~(ember.zeros(shape, device="cuda", dtype=ember.bool).scatter_(
        1, ei, ember.ones(ei.shape, dtype=ember.bool, device="cuda")))
    assert np.array_equal(np.signbit(e2[untouched].double().cpu().numpy()),
                          np.signbit(e[untouched].double().cpu().numpy()))
    bad = ei.clone()
    bad[-1, -1] = shape[1]
    e.clone().scatter_add_(1, bad, es)
    with pytest.raises(IndexError, match="out of bounds"):
        ember.cuda.synchronize()
    ember.cuda.synchronize()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "int8"])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_and_index_reduce_vs_torch(torch, dtype, reduce, include_self):
    a, s = rand((5, 4), dtype), rand((12, 4), dtype)
    if reduce == "prod":
        a, s = np.sign(a) + (a > 0), np.sign(s) + (s > 0)  # small factors: exact products
    e, t = both(torch, a, dtype)
    es, ts = both(torch, s, dtype)
    ei, ti = ints(torch, RNG.integers(0, 5, size=(12, 4)))
    same(e.scatter_reduce(0, ei, es, reduce, include_self=include_self),
         t.scatter_reduce(0, ti, ts, reduce, include_self=include_self), tol_of(dtype) * 10)
    if reduce != "sum":
        ev, tv = ints(torch, RNG.integers(0, 5, size=(12,)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = t.index_reduce(0, tv, ts, reduce, include_self=include_self)
        same(e.index_reduce(0, ev, es, reduce, include_self=include_self), ref,
             tol_of(dtype) * 10)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "bfloat16"])
def test_masked_ops_put_copy_fill_nonzero_vs_torch(torch, dtype):
    a = rand((6, 7), dtype) if dtype != "bool" else RNG.random((6, 7)) < 0.5
    e, t = both(torch, a, dtype)
    m = RNG.random((7,)) < 0.5
    em, tm = ember.tensor(m, device="cuda"), torch.tensor(m, device="cuda")
    same(e.masked_fill(em, 1), t.masked_fill(tm, 1))
    same(e.masked_select(em), t.masked_select(tm))
    s = rand((42,), dtype) if dtype != "bool" else RNG.random(42) < 0.5
    es, ts = both(torch, s, dtype)
    same(e.masked_scatter(em, es), t.masked_scatter(tm, ts))
    ep, tp = ints(torch, RNG.permutation(42)[:10] - 21)
    same(e.put(ep, es[:10]), t.put(tp, ts[:10]))
    ev, tv = ints(torch, RNG.permutation(7)[:3])
    same(e.index_copy(1, ev, es[:18].view(6, 3)), t.index_copy(1, tv, ts[:18].view(6, 3)))
    same(e.index_fill(1, ev - 7, 0), t.index_fill(1, tv - 7, 0))
    same(ember.nonzero(e), torch.nonzero(t))
    for c, r in zip(ember.nonzero(e, as_tuple=True), torch.nonzero(t, as_tuple=True)):
        same(c, r)


def test_gradients_vs_torch(torch):
    a, s = RNG.standard_normal((5, 4)), RNG.standard_normal((8, 4))
    i = RNG.integers(0, 5, size=(8, 4))
    v = RNG.integers(0, 5, size=(8,))
    g = RNG.standard_normal((5, 4))
    for name, fn in {
        "gather": lambda M, x, y, ii, vv: x.gather(0, ii).sum() + y.sum() * 0,
        "scatter_add": lambda M, x, y, ii, vv: (x.scatter_add(0, ii, y) * M.tensor(
            g, device="cuda")).sum(),
        "index_add": lambda M, x, y, ii, vv: (x.index_add(0, vv, y) ** 2).sum(),
        "index_select": lambda M, x, y, ii, vv: (x.index_select(0, vv) * y).sum(),
        "masked_fill": lambda M, x, y, ii, vv: (x.masked_fill(x > 0, 0.0) ** 2).sum() + y.sum(),
        "take_along_dim": lambda M, x, y, ii, vv: (M.take_along_dim(x, ii[:5], 0) ** 2).sum()
        + y.sum(),
        "amax": lambda M, x, y, ii, vv: (x.scatter_reduce(0, ii, y, "amax") ** 2).sum(),
    }.items():
        ex, tx = both(torch, a, "float64", True)
        ey, ty = both(torch, s, "float64", True)
        ei, ti = ints(torch, i)
        ev, tv = ints(torch, v)
        fn(ember, ex, ey, ei, ev).backward()
        fn(torch, tx, ty, ti, tv).backward()
        same(ex.grad, tx.grad, 1e-12), name
        same(ey.grad, ty.grad, 1e-12), name


def test_out_of_range_surfaces_at_the_next_sync_and_the_device_stays_usable():
    x = ember.arange(12.0, device="cuda").view(3, 4)
    bad = ember.tensor([[0, 7]], device="cuda")
    y = x.gather(1, bad)  # queued, no host wait
    with pytest.raises(IndexError, match=r"gather: index 7 is out of bounds for dimension 1 "
                                         r"with size 4"):
        ember.cuda.synchronize()
    assert y.tolist() == [[0.0, 0.0]]  # the bad element read as zero; reported once
    # every synchronising call reports it: .item(), .cpu(), Stream/Event.synchronize
    for op, sync in [
        (lambda: x.index_select(0, ember.tensor([5], device="cuda")), lambda r: r.sum().item()),
        (lambda: ember.zeros(3, device="cuda").scatter_add_(
            0, ember.tensor([3], device="cuda"), ember.ones(1, device="cuda")), lambda r: r.cpu()),
        (lambda: x.take(ember.tensor([-13], device="cuda")),
         lambda r: ember.cuda.current_stream().synchronize()),
        (lambda: x.index_add(1, ember.tensor([4], device="cuda"), ember.ones(3, 1, device="cuda")),
         lambda r: r.tolist()),
        (lambda: x.clone().put_(ember.tensor([12], device="cuda"),
                                ember.ones(1, device="cuda")), lambda r: _event_sync()),
        (lambda: x.index_fill(0, ember.tensor([3], device="cuda"), 1.0), lambda r: r.cpu()),
        (lambda: x.index_copy(0, ember.tensor([-1], device="cuda"), ember.ones(1, 4,
                                                                                device="cuda")),
         lambda r: r.cpu()),
        (lambda: ember.take_along_dim(x, ember.tensor([[9]], device="cuda"), 1),
         lambda r: r.cpu()),
        (lambda: x.masked_scatter(x > 0, ember.ones(3, device="cuda")), lambda r: r.cpu()),
        (lambda: EF.embedding(ember.tensor([4], device="cuda"), x), lambda r: r.cpu()),
        (lambda: EF.nll_loss(x, ember.tensor([0, 4, 1], device="cuda")), lambda r: r.item()),
        (lambda: EF.cross_entropy(x, ember.tensor([0, -2, 1], device="cuda")),
         lambda r: r.item()),
    ]:
        r = op()
        with pytest.raises(IndexError, match="out of bounds"):
            sync(r)
        ember.cuda.synchronize()  # cleared: nothing pending any more
    # ignore_index is not an error, and the device keeps working
    loss = EF.nll_loss(x.log_softmax(1), ember.tensor([0, -100, 1], device="cuda"))
    assert np.isfinite(loss.item())
    z = ember.arange(10, device="cuda") * 2
    assert z.gather(0, ember.tensor([9, 0], device="cuda")).tolist() == [18, 0]


def _event_sync():
    ev = ember.cuda.Event()
    ev.record()
    ev.synchronize()


def test_error_on_a_side_stream_is_reported(torch):
    s = ember.cuda.Stream()
    x = ember.ones(4, device="cuda")
    s.wait_stream(ember.cuda.current_stream())
    with ember.cuda.stream(s):
        x.gather(0, ember.tensor([8], device="cuda"))
    with pytest.raises(IndexError, match="index 8"):
        s.synchronize()
    ember.cuda.synchronize()


def test_error_is_raised_at_the_sync_not_by_a_later_launch():
    x = ember.arange(12.0, device="cuda").view(3, 4)
    x.gather(1, ember.tensor([[0, 9]], device="cuda"))
    ev = ember.cuda.Event()
    ev.record()
    while not ev.query():  # the GPU has written the record; query() does not report it
        pass
    # later indexing ops (and masked_scatter's own second kernel) do not raise it
    good = x.gather(1, ember.tensor([[3, 0]], device="cuda"))
    ms = x.masked_scatter(x > 5, ember.arange(6.0, device="cuda"))
    with pytest.raises(IndexError, match=r"gather: index 9 is out of bounds"):
        ember.cuda.synchronize()
    assert good.tolist() == [[3.0, 0.0]]
    assert ms.tolist() == [[0, 1, 2, 3], [4, 5, 0, 1], [2, 3, 4, 5]]
    ember.cuda.synchronize()  # reported once


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "uint8", "bool"])
def test_contiguous_fast_paths_vs_torch(torch, dtype):
    """index_select's row copy (every unit width: row bytes and base pointers from 1 to 16
    bytes aligned), gather / take / scatter along the last dim (vector and scalar forms),
    one-pass masked_fill (full, row-broadcast and odd masks, in place) and the fallbacks."""
    def mk(shape):
        a = RNG.standard_normal(shape) if dtype != "bool" else RNG.random(shape) < 0.5
        if dtype == "uint8":
            a = RNG.integers(0, 255, size=shape)
        return both(torch, a, dtype)

    for shape in [(37, 64), (37, 5), (37, 3, 7), (300,)]:
        e, t = mk(shape)
        for dim in range(len(shape)):
            iv = RNG.integers(-0, shape[dim], size=(11,))
            ei, ti = ints(torch, iv)
            same(e.index_select(dim, ei), t.index_select(dim, ti))
            same(e[1:].index_select(dim, ei.clamp(0, e[1:].shape[dim] - 1)),
                 t[1:].index_select(dim, ti.clamp(0, t[1:].shape[dim] - 1)))  # offset base
            same(e.index_select(dim, ei[::2]), t.index_select(dim, ti[::2]))  # strided index
        n = shape[-1]
        for m in (8, 7, 1):  # vector (n % 4 == 0) and scalar forms
            gi = RNG.integers(0, n, size=shape[:-1] + (m,))
            ei, ti = ints(torch, gi)
            same(e.gather(-1, ei), t.gather(-1, ti))
        ek, tk = ints(torch, RNG.integers(-e.numel(), e.numel(), size=(3, 8)))
        same(e.take(ek), t.take(tk))
        if dtype != "bool":
            gi = RNG.integers(0, n, size=shape)
            ei, ti = ints(torch, gi)
            es, ts = mk(shape)
            tol = tol_of(dtype) * 10
            same(e.scatter_add(-1, ei, es), t.scatter_add(-1, ti, ts), tol)
            same(e.scatter_reduce(-1, ei, es, "amax"), t.scatter_reduce(-1, ti, ts, "amax"))
            perm = np.stack([RNG.permutation(n) for _ in range(int(np.prod(shape[:-1])))])
            ei, ti = ints(torch, perm.reshape(shape))  # no duplicates: plain scatter is exact
            same(e.scatter(-1, ei, es), t.scatter(-1, ti, ts))
        for mshape in [shape, shape[-1:], (1,) + shape, shape[:1] + (1,) * (len(shape) - 1)]:
            if len(mshape) > len(shape) + 1:
                continue
            mk_ = RNG.random(mshape) < 0.5
            em, tm = ember.tensor(mk_, device="cuda"), torch.tensor(mk_, device="cuda")
            same(e.masked_fill(em, 1), t.masked_fill(tm, 1))
            e2, t2 = e.clone(), t.clone()
            if len(mshape) <= len(shape):
                e2.masked_fill_(em, 0)
                t2.masked_fill_(tm, 0)
                same(e2, t2)
        mk_ = RNG.random(shape) < 0.5
        em, tm = ember.tensor(mk_, device="cuda"), torch.tensor(mk_, device="cuda")
        same(e[1:].masked_fill(em[1:], 1), t[1:].masked_fill(tm[1:], 1))  # offset base
        if e.dim() == 2:
            same(e.t().masked_fill(em.t(), 1), t.t().masked_fill(tm.t(), 1))  # not contiguous
            same(e.masked_fill(em.t().contiguous().t(), 1),
                 t.masked_fill(tm.t().contiguous().t(), 1))  # mask not contiguous


def test_fast_paths_record_bad_indices():
    x = ember.arange(20.0, device="cuda").view(4, 5)
    y = x.index_select(0, ember.tensor([1, 4, 0], device="cuda"))  # row copy
    with pytest.raises(IndexError, match="index_select: index 4 is out of bounds for "
                                         "dimension 0 with size 4"):
        ember.cuda.synchronize()
    assert y.tolist() == [[5, 6, 7, 8, 9], [0] * 5, [0, 1, 2, 3, 4]]
    z = x.gather(1, ember.tensor([[0, 5, 1, 2]] * 4, device="cuda"))  # last dim, vectors
    with pytest.raises(IndexError, match="gather: index 5 is out of bounds"):
        z.cpu()
    assert z[:, 1].tolist() == [0.0] * 4
    s = ember.zeros(4, 5, device="cuda").scatter_add_(1, ember.tensor([[0, -1, 1, 2]] * 4,
                                                                      device="cuda"),
                                                      ember.ones(4, 4, device="cuda"))
    with pytest.raises(IndexError, match="index -1 is out of bounds"):
        s.cpu()
    assert s.sum().item() == 12.0
    ember.cuda.synchronize()


def test_masked_fill_past_two_to_the_31_elements():
    n = (1 << 31) + 64
    x = ember.zeros(n, dtype=ember.uint8, device="cuda").view(-1, 64)
    m = ember.arange(64, device="cuda") % 3 == 0
    r = x.masked_fill(m, 7)
    want = [7 if i % 3 == 0 else 0 for i in range(64)]
    assert r[0].tolist() == want and r[-1].tolist() == want
    assert r[(1 << 25) - 1].tolist() == want
    del x, r


# ---- nonzero and boolean masks on the device (ops/index/nonzero.cu) ------------------------

@pytest.mark.parametrize("shape", [(), (1,), (0,), (17,), (3, 5), (4, 0, 3), (2, 3, 4, 5),
                                   (1000003,), (7, 1, 33, 2)])
@pytest.mark.parametrize("density", [0.0, 0.3, 1.0])
def test_nonzero_and_masks_on_the_device_vs_torch(torch, shape, density):
    m = np.asarray(RNG.random(shape) < density)
    em, tm = ember.tensor(m, device="cuda"), torch.tensor(m, device="cuda")
    same(ember.nonzero(em), torch.nonzero(tm))
    same(ember.argwhere(em), torch.argwhere(tm))
    for c, r in zip(ember.nonzero(em, as_tuple=True), torch.nonzero(tm, as_tuple=True)):
        assert c.device.type == "cuda"
        same(c, r)
    a = np.asarray(RNG.standard_normal(shape))
    e, t = both(torch, a, "float32")
    same(e.masked_select(em), t.masked_select(tm))
    if len(shape):
        same(e[em], t[tm])
        v = RNG.standard_normal(int(m.sum()))
        e[em] = ember.tensor(v, device="cuda").float()
        t[tm] = torch.tensor(v, device="cuda").float()
        same(e, t)
        e[em] = -2.0
        t[tm] = -2.0
        same(e, t)


@pytest.mark.parametrize("dtype", ["uint8", "float32", "int64", "float16", "bool"])
def test_nonzero_of_other_dtypes_views_and_offsets_vs_torch(torch, dtype):
    a = RNG.integers(0, 3, size=(6, 37)).astype(np.float64)
    a[1, 2] = np.nan if dtype in ("float32", "float16") else a[1, 2]
    e, t = both(torch, a, dtype)
    same(ember.nonzero(e), torch.nonzero(t))
    same(ember.nonzero(e.t()), torch.nonzero(t.t()))          # not contiguous
    same(ember.nonzero(e[:, 3:]), torch.nonzero(t[:, 3:]))    # unaligned start
    same(ember.nonzero(e.reshape(-1)[5:]), torch.nonzero(t.reshape(-1)[5:]))
    if dtype == "bool":
        x = RNG.standard_normal((6, 37))
        ex, tx = both(torch, x, "float64")
        same(ex[e], tx[t])
        same(ex[:, 3:][e[:, 3:]], tx[:, 3:][t[:, 3:]])


def test_mask_beside_an_index_and_on_later_dims_vs_torch(torch):
    a = RNG.standard_normal((4, 5, 6))
    e, t = both(torch, a, "float32")
    m = RNG.random((5, 6)) < 0.5
    em, tm = ember.tensor(m, device="cuda"), torch.tensor(m, device="cuda")
    same(e[:, em], t[:, tm])
    same(e[1:3, em], t[1:3, tm])
    m1 = np.array([True, False, True, True])
    em1, tm1 = ember.tensor(m1, device="cuda"), torch.tensor(m1, device="cuda")
    same(e[em1, 2], t[tm1, 2])
    same(e[em1, :, [1, 3, 0]], t[tm1, :, [1, 3, 0]])


def test_nonzero_past_two_to_the_31_elements():
    m = ember.zeros(2**31 + 100, dtype=ember.bool, device="cuda")
    m[ember.tensor([0, 2**31 - 1, 2**31, 2**31 + 99], device="cuda")] = True
    assert ember.nonzero(m).reshape(-1).tolist() == [0, 2**31 - 1, 2**31, 2**31 + 99]
    del m


def test_nonzero_reads_the_count_once_and_reports_a_pending_index_error():
    x = ember.arange(6.0, device="cuda")
    r = x[ember.tensor([2, 6], device="cuda")]
    with pytest.raises(IndexError, match="index: index 6 is out of bounds"):
        x[x > 2]  # the count's host read is a synchronising call
    assert r.tolist() == [2.0, 0.0]
    assert x[x > 2].tolist() == [3.0, 4.0, 5.0]


# ---- advanced indexing without a host check (ops/index/index.cu) --------------------------

def test_advanced_indexing_queues_and_surfaces_bad_indices_at_the_sync(torch):
    x = ember.arange(12.0, device="cuda").reshape(3, 4)
    i05, i11, im52 = (ember.tensor(v, device="cuda") for v in ([0, 5], [1, 1], [-5, 2]))
    ember.cuda.set_sync_debug_mode("error")
    try:  # nothing here waits for the GPU
        r = x[i05, 1]
        s = x[:, x.long()[0, 1:3]]
        x[i11, im52] = x[0, :2]
        lst = x[[2, 0], [3, -4]]  # a list goes up without waiting for the GPU
    finally:
        ember.cuda.set_sync_debug_mode("default")
    with pytest.raises(IndexError, match=r"index: index 5 is out of bounds for dimension 0 "
                                         r"with size 3"):
        ember.cuda.synchronize()
    ember.cuda.synchronize()  # reported once (the setitem's bad index was not recorded again)
    assert r.tolist() == [1.0, 0.0]  # the bad index read zero
    assert s.tolist() == [[1.0, 2.0], [5.0, 6.0], [9.0, 10.0]]
    assert lst.tolist() == [11.0, 0.0]
    # the setitem skipped (1, -5) and wrote (1, 2)
    assert x[1].tolist() == [4.0, 5.0, 1.0, 7.0]
    x[ember.tensor([1], device="cuda"), ember.tensor([-5], device="cuda")] = x[0, :1]
    with pytest.raises(IndexError, match=r"index_put_: index -5 is out of bounds for "
                                         r"dimension 1 with size 4"):
        x.cpu()
    assert x[1].tolist() == [4.0, 5.0, 1.0, 7.0]
    g = ember.zeros(3, device="cuda").index_put_((ember.tensor([0, 7, 0], device="cuda"),),
                                                ember.ones(3, device="cuda"), accumulate=True)
    with pytest.raises(IndexError, match="index 7 is out of bounds"):
        ember.cuda.synchronize()
    assert g.tolist() == [2.0, 0.0, 0.0]
    assert ember.ones(2, device="cuda").tolist() == [1.0, 1.0]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int64", "bool"])
def test_one_index_tensor_takes_the_row_copy_vs_torch(torch, dtype):
    # x[idx] with one integer tensor after whole dims: index_select's row copy
    # (ops/index/index.cpp index_fast_cuda); negative indices wrap, any index shape
    a = rand((7, 6, 5), "float32" if dtype == "bool" else dtype)
    if dtype == "bool":
        a = a > 0
    e, t = both(torch, a, dtype)
    for idx in ([3, -1, 0, 0, 6], [[1, -7], [2, 2]], 4, [], [[]]):
        i = np.asarray(idx, np.int64)
        ei, ti = ints(torch, i)
        same(e[ei], t[ti])
        same(e[:, ei % 6], t[:, ti % 6])
        same(e[:, :, ei % 5 - 5], t[:, :, ti % 5 - 5])
    # int32 and CPU indices, a list, a view with an offset
    same(e[ember.tensor([2, 0], dtype=ember.int32, device="cuda")],
         t[torch.tensor([2, 0], dtype=torch.int32, device="cuda")])
    same(e[ember.tensor([2, -3])], t[torch.tensor([2, -3])])
    same(e[[1, 2, 1]], t[[1, 2, 1]])
    same(e[1:][ints(torch, [0, 5])[0]], t[1:][ints(torch, [0, 5])[1]])
    # empty dims: an empty result reads no index; an index into a dim of size 0 raises
    z, tz = both(torch, np.zeros((0, 3)), dtype)
    same(z[ints(torch, [])[0]], tz[ints(torch, [])[1]])
    with pytest.raises(IndexError):
        z[ints(torch, [0])[0]]


def test_one_index_tensor_records_a_bad_index():
    x = ember.arange(20.0, device="cuda").view(4, 5)
    y = x[ember.tensor([1, 4, -1], device="cuda")]
    with pytest.raises(IndexError, match="index: index 4 is out of bounds for dimension 0 "
                                         "with size 4"):
        ember.cuda.synchronize()
    assert y.tolist() == [[5, 6, 7, 8, 9], [0] * 5, [15, 16, 17, 18, 19]]
    z = x[:, ember.tensor([-6, 0], device="cuda")]
    with pytest.raises(IndexError, match="index -6 is out of bounds for dimension 1"):
        ember.cuda.synchronize()
    assert z.tolist() == [[0, 0], [0, 5], [0, 10], [0, 15]]
    assert x[ember.tensor([3], device="cuda")].tolist() == [[15, 16, 17, 18, 19]]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int8", "int64",
                                   "bool"])
def test_full_mask_selects_the_values_vs_torch(torch, dtype):
    # x[mask] with a mask of x's shape: one CUB selection of the values (element sizes
    # 1 to 8 bytes), and masks over leading or middle dims: flat indices, a row copy
    shape = (9, 33, 7)
    a = RNG.standard_normal(shape) * 20
    if dtype == "bool":
        a = a > 0
    e, t = both(torch, a, dtype)
    m = RNG.random(shape) < 0.4
    em, tm = ember.tensor(m, device="cuda"), torch.tensor(m, device="cuda")
    eq = same

    eq(e[em], t[tm])
    eq(e.masked_select(em), t.masked_select(tm))
    eq(e[em.to(ember.uint8)], t[tm])
    eq(e[1:][em[1:]], t[1:][tm[1:]])                     # offset views
    eq(e[~em], t[~tm])
    eq(e[em & False], t[tm & False])                     # nothing selected
    eq(e[em[:, :, 0]], t[tm[:, :, 0]])                   # leading dims: rows of 7
    eq(e[em[:, 0, 0]], t[tm[:, 0, 0]])                   # the first dim only: rows
    eq(e[:, em[0, :, 0]], t[:, tm[0, :, 0]])             # a middle dim
    eq(e[:, em[0]], t[:, tm[0]])                         # the trailing dims


@pytest.mark.parametrize("shape", [(1 << 16,), (300, 257), (5, 6, 7), (3, 1, 4, 1, 5),
                                   (2,) * 9, (70000, 3)])
def test_nonzero_layout_and_values_vs_torch(torch, shape):
    # coordinates written as CUB selects them: an (ndim, count) block, returned
    # transposed as torch's CUDA nonzero (the same strides); > 8 dims: flat, then coords
    m = RNG.random(shape) < 0.3
    em, tm = ember.tensor(m, device="cuda"), torch.tensor(m, device="cuda")
    e, t = ember.nonzero(em), torch.nonzero(tm)
    same(e, t)
    assert tuple(e.stride()) == tuple(t.stride())
    same(ember.argwhere(em), torch.argwhere(tm))
    same(e.contiguous(), t.contiguous())
    for c, r in zip(ember.nonzero(em, as_tuple=True), torch.nonzero(tm, as_tuple=True)):
        same(c, r)
    out = ember.empty(0, dtype=ember.int64, device="cuda")
    ember.nonzero(em, out=out)
    same(out, t)
    z = ember.zeros(shape, dtype=ember.bool, device="cuda")
    assert tuple(ember.nonzero(z).shape) == (0, len(shape))


# ---- issue 14's CUDA run (branch diffcuda) ------------------------------------------------

def test_take_from_empty_raises_like_torch(torch):
    """take of an empty input with indices: torch's host-side IndexError, on CUDA too."""
    x = ember.empty((0, 4), dtype=ember.int32, device="cuda")
    i = ember.tensor([[-1], [0]], device="cuda")
    with pytest.raises(IndexError, match="tried to take from an empty tensor"):
        ember.take(x, i)
    with pytest.raises(IndexError, match="tried to take from an empty tensor"):
        torch.take(torch.empty((0, 4), dtype=torch.int32, device="cuda"),
                   torch.tensor([[-1], [0]], device="cuda"))
    assert ember.take(x, ember.tensor([], dtype=ember.int64, device="cuda")).shape == (0,)


def test_zero_dim_cuda_index_tensor_is_an_int(torch):
    """A 0-d integer index tensor on the GPU indexes like the int it holds (torch reads it
    with item()): a select, not an advanced index (result layout, host-side bounds)."""
    a = np.arange(5 * 1 * 11, dtype=np.float32).reshape(5, 1, 11)
    e, t = ember.tensor(a, device="cuda"), torch.tensor(a, device="cuda")
    ie = [3, -5, 8, 3, -1, 0]
    re = e[ember.tensor(-5, device="cuda"), ..., ember.tensor([ie, ie], device="cuda")]
    rt = t[torch.tensor(-5, device="cuda"), ..., torch.tensor([ie, ie], device="cuda")]
    assert tuple(re.shape) == tuple(rt.shape) == (1, 2, 6)
    assert re.cpu().tolist() == rt.cpu().tolist()
    x = ember.tensor([[-4, 0, -1, 1, -2]], dtype=ember.int8, device="cuda")
    with pytest.raises(IndexError):
        x[ember.tensor(2, device="cuda"), ]
    with pytest.raises(IndexError):
        torch.tensor([[-4, 0, -1, 1, -2]], device="cuda")[torch.tensor(2, device="cuda"), ]
    assert x[ember.tensor(0, device="cuda"), 1].item() == 0
