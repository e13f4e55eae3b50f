"""The sorting and search family on the CPU (python/ember/_sorting.py over
csrc/ops/sort/): sort/argsort/msort/topk/kthvalue, median/nanmedian/mode,
quantile/nanquantile, unique/unique_consecutive, searchsorted/bucketize,
histc/histogram/bincount, cummax/cummin. NumPy references on fresh random data (every
dtype, NaN, -0.0, ties, non-contiguous, 0-d, empty), torch as the oracle where it is
installed (values, indices, gradients, exception types and messages)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember

ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
       "float64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]


def rng(seed=0):
    return np.random.default_rng(seed)


def data(name, shape, seed=0, nan=False, ties=True):
    """float32 NumPy values valid for dtype name (exact in it), with ties and, for the
    floating dtypes, -0.0/+0.0, infinities and NaN where asked."""
    g = rng(seed)
    if name == "bool":
        a = g.integers(0, 2, shape)
    elif name == "uint8":
        a = g.integers(0, 256 if not ties else 6, shape)
    elif name in FLOATS:
        a = g.integers(-8, 8, shape) * 0.5 if ties else g.standard_normal(shape)
        a = np.asarray(a, dtype=np.float32)
        flat = a.reshape(-1)
        if flat.size >= 6:
            flat[g.integers(0, flat.size)] = -0.0
            flat[g.integers(0, flat.size)] = np.inf
            flat[g.integers(0, flat.size)] = -np.inf
            if nan:
                flat[g.integers(0, flat.size, 2)] = np.nan
    else:
        a = g.integers(-100 if ties is False else -4, 100 if ties is False else 4, shape)
    return np.asarray(a, dtype=np.float32)


def et(a, name):
    return ember.tensor(a).to(getattr(ember, name))


def npv(t):
    """NumPy values of an ember tensor (float64 for the floating dtypes)."""
    if t.dtype in (ember.float16, ember.bfloat16):
        t = t.float()
    return t.numpy()


def ref_order(a, descending):
    """Indices of the stable sort of a 1-D float array, NaN largest (torch's order;
    Python's sort stays stable with reverse=True)."""
    key = [(1, 0.0) if math.isnan(v) else (0, float(v)) for v in a]
    return sorted(range(len(a)), key=lambda i: key[i], reverse=descending)


# ---- sort / argsort / msort ---------------------------------------------------------

@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_stable_reference_every_dtype(name, descending):
    a = data(name, (5, 37), seed=ALL.index(name), nan=True)
    x = et(a, name)
    v, i = ember.sort(x, dim=1, descending=descending, stable=True)
    assert v.dtype == x.dtype and i.dtype == ember.int64 and tuple(v.shape) == a.shape
    xv = npv(x)  # the values as the dtype holds them
    for r in range(a.shape[0]):
        order = ref_order(xv[r], descending)
        np.testing.assert_array_equal(i.numpy()[r], order)
        np.testing.assert_array_equal(npv(v)[r], xv[r][order])


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_sort_along_each_dim_and_non_contiguous(dim):
    a = rng(1).standard_normal((4, 6, 5)).astype(np.float32)
    x = ember.tensor(a).transpose(0, 2)  # non-contiguous
    v, i = x.sort(dim)
    ref = np.sort(a.transpose(2, 1, 0), axis=dim, kind="stable")
    np.testing.assert_array_equal(v.numpy(), ref)
    np.testing.assert_array_equal(i.numpy(), np.argsort(a.transpose(2, 1, 0), axis=dim,
                                                         kind="stable"))
    np.testing.assert_array_equal(ember.argsort(x, dim).numpy(), i.numpy())


def test_sort_zero_dim_empty_and_one_element():
    v, i = ember.sort(ember.tensor(3.5))
    assert v.shape == () and float(v) == 3.5 and int(i) == 0
    v, i = ember.sort(ember.empty((3, 0)), 1)
    assert tuple(v.shape) == (3, 0) and tuple(i.shape) == (3, 0) and i.dtype == ember.int64
    v, i = ember.sort(ember.tensor([[2], [1]]), 1)
    assert v.tolist() == [[2], [1]] and i.tolist() == [[0], [0]]


def test_sort_named_tuple_and_out():
    x = ember.tensor([3.0, 1.0, 2.0])
    r = ember.sort(x)
    assert type(r).__name__ == "sort" and r.values.tolist() == [1, 2, 3]
    assert r.indices.tolist() == [1, 2, 0]
    v, i = ember.empty(0), ember.empty(0, dtype=ember.int64)
    r2 = ember.sort(x, descending=True, out=(v, i))
    assert r2.values is v and v.tolist() == [3, 2, 1] and i.tolist() == [0, 2, 1]
    assert "values=" in repr(r)


def test_msort_and_argsort_descending():
    a = data("int32", (6, 4), seed=3)
    x = et(a, "int32")
    np.testing.assert_array_equal(ember.msort(x).numpy(), np.sort(a, 0).astype(np.int32))
    np.testing.assert_array_equal(x.msort().numpy(), np.sort(a, 0).astype(np.int32))
    idx = x.argsort(dim=0, descending=True, stable=True).numpy()
    for c in range(4):
        col = a[:, c]
        np.testing.assert_array_equal(idx[:, c], sorted(range(6), key=lambda k: -col[k]))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=0, max_size=60), st.booleans())
def test_sort_is_stable_hypothesis(values, descending):
    x = ember.tensor(values, dtype=ember.int64)
    v, i = ember.sort(x, descending=descending, stable=True)
    expected = sorted(range(len(values)), key=lambda k: -values[k] if descending else values[k])
    assert i.tolist() == expected
    assert v.tolist() == [values[k] for k in expected]


# ---- topk / kthvalue ----------------------------------------------------------------

@pytest.mark.parametrize("name", ["int64", "float32", "float16", "uint8"])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_values_and_indices(name, largest):
    a = data(name, (7, 20), seed=5, ties=False)
    x = et(a, name)
    v, i = ember.topk(x, 5, dim=1, largest=largest)
    xv = npv(x)
    ref = np.sort(xv, 1)[:, ::-1][:, :5] if largest else np.sort(xv, 1)[:, :5]
    np.testing.assert_array_equal(npv(v), ref)
    np.testing.assert_array_equal(np.take_along_axis(xv, i.numpy(), 1), ref)
    v0, i0 = x.topk(0, 0)
    assert tuple(v0.shape) == (0, 20)


def test_kthvalue_every_k_keepdim_and_dim0():
    a = rng(6).standard_normal((9, 4)).astype(np.float32)
    x = ember.tensor(a)
    for k in range(1, 10):
        v, i = ember.kthvalue(x, k, 0)
        np.testing.assert_array_equal(v.numpy(), np.sort(a, 0)[k - 1])
        np.testing.assert_array_equal(a[i.numpy(), np.arange(4)], v.numpy())
    v, i = x.kthvalue(2, 1, keepdim=True)
    assert tuple(v.shape) == (9, 1) and tuple(i.shape) == (9, 1)
    np.testing.assert_array_equal(v.numpy()[:, 0], np.sort(a, 1)[:, 1])


# ---- median / nanmedian / mode -------------------------------------------------------

def test_median_lower_middle_and_nan():
    a = rng(7).standard_normal((6, 8)).astype(np.float32)
    x = ember.tensor(a)
    lower = np.sort(a.reshape(-1))[(a.size - 1) // 2]
    assert float(ember.median(x)) == lower
    v, i = ember.median(x, 1)
    np.testing.assert_array_equal(v.numpy(), np.sort(a, 1)[:, 3])
    np.testing.assert_array_equal(a[np.arange(6), i.numpy()], v.numpy())
    a[2, 5] = np.nan
    a[2, 1] = np.nan
    x = ember.tensor(a)
    assert math.isnan(float(x.median()))
    v, i = x.median(1)
    assert math.isnan(v.numpy()[2]) and i.numpy()[2] == 1  # the first NaN
    vn, ix = x.nanmedian(1)
    row = np.sort(a[2][~np.isnan(a[2])])
    assert vn.numpy()[2] == row[(row.size - 1) // 2]
    assert float(ember.nanmedian(x)) == np.sort(a[~np.isnan(a)])[(a.size - 2 - 1) // 2]
    allnan = ember.tensor([math.nan, math.nan])
    assert math.isnan(float(allnan.nanmedian())) and int(allnan.nanmedian(0).indices) == 0


def test_median_integers_and_empty():
    a = data("int16", (5, 6), seed=8, ties=False)
    x = et(a, "int16")
    v, i = x.median(0, keepdim=True)
    assert v.dtype == ember.int16 and tuple(v.shape) == (1, 6)
    np.testing.assert_array_equal(v.numpy()[0], np.sort(a, 0)[2])
    assert math.isnan(float(ember.median(ember.empty(0))))


def test_mode_most_frequent_smallest_last_index():
    x = ember.tensor([[3, 1, 1, 3, 2, 2], [5, 5, 4, 4, 4, 0]])
    v, i = ember.mode(x)
    assert v.tolist() == [1, 4] and i.tolist() == [2, 4]
    g = rng(9)
    a = g.integers(0, 4, (10, 30))
    v, i = ember.tensor(a).mode(1)
    for r in range(10):
        counts = np.bincount(a[r], minlength=4)
        assert v.numpy()[r] == np.argmax(counts)
        assert i.numpy()[r] == np.nonzero(a[r] == v.numpy()[r])[0][-1]
    v, i = ember.tensor([True, False, True]).mode()
    assert bool(v) and int(i) == 2


# ---- quantile / nanquantile -----------------------------------------------------------

@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_matches_numpy(interpolation):
    a = rng(10).standard_normal((5, 13))
    x = ember.tensor(a)
    q = ember.tensor([0.0, 0.1, 0.5, 0.77, 1.0], dtype=ember.float64)
    got = ember.quantile(x, q, dim=1, interpolation=interpolation).numpy()
    ref = np.quantile(a, q.numpy(), axis=1, method=interpolation)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    got = x.quantile(0.3, interpolation=interpolation).numpy()
    np.testing.assert_allclose(got, np.quantile(a, 0.3, method=interpolation), rtol=1e-12)
    kd = ember.quantile(x, 0.5, dim=0, keepdim=True)
    assert tuple(kd.shape) == (1, 13)
    assert tuple(ember.quantile(x, q, keepdim=True).shape) == (5, 1, 1)


def test_nanquantile_and_nan_lines():
    a = rng(11).standard_normal((4, 9)).astype(np.float32)
    a[1, 3] = np.nan
    a[3, :] = np.nan
    x = ember.tensor(a)
    got = ember.nanquantile(x, 0.25, dim=1).numpy()
    ref = np.nanquantile(a, 0.25, axis=1) if False else np.array(
        [np.quantile(r[~np.isnan(r)], 0.25) if (~np.isnan(r)).any() else np.nan for r in a])
    np.testing.assert_allclose(got, ref.astype(np.float32), rtol=1e-6, equal_nan=True)
    plain = ember.quantile(x, 0.25, dim=1).numpy()
    assert math.isnan(plain[1]) and math.isnan(plain[3]) and not math.isnan(plain[0])


# ---- unique / unique_consecutive -------------------------------------------------------

@pytest.mark.parametrize("name", ["int64", "uint8", "float32", "bool", "bfloat16"])
def test_unique_inverse_counts(name):
    a = data(name, (6, 7), seed=12)
    x = et(a, name)
    u, inv, cnt = ember.unique(x, return_inverse=True, return_counts=True)
    ru, rinv, rcnt = np.unique(npv(x), return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(npv(u), ru)
    np.testing.assert_array_equal(inv.numpy(), rinv.reshape(a.shape))
    np.testing.assert_array_equal(cnt.numpy(), rcnt)
    assert tuple(inv.shape) == a.shape
    np.testing.assert_array_equal(npv(x.unique()), ru)


def test_unique_nan_never_merged_and_empty():
    u = ember.unique(ember.tensor([3.0, math.nan, 1.0, math.nan]))
    assert u.tolist()[:2] == [1.0, 3.0] and all(math.isnan(v) for v in u.tolist()[2:])
    assert u.numel() == 4
    u, inv, cnt = ember.unique(ember.empty((0, 3)), return_inverse=True, return_counts=True)
    assert u.numel() == 0 and tuple(inv.shape) == (0, 3) and cnt.numel() == 0


def test_unique_dim():
    a = rng(13).integers(0, 2, (8, 3))
    x = ember.tensor(a)
    u, inv, cnt = ember.unique(x, dim=0, return_inverse=True, return_counts=True)
    ru, rinv, rcnt = np.unique(a, axis=0, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(u.numpy(), ru)
    np.testing.assert_array_equal(inv.numpy(), rinv.reshape(-1))
    np.testing.assert_array_equal(cnt.numpy(), rcnt)
    u1 = ember.unique(x.t(), dim=1)
    np.testing.assert_array_equal(u1.numpy(), ru.T)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=0, max_size=50))
def test_unique_hypothesis(values):
    x = ember.tensor(values, dtype=ember.int64)
    u, inv, cnt = ember.unique(x, return_inverse=True, return_counts=True)
    assert u.tolist() == sorted(set(values))
    assert [u.tolist()[k] for k in inv.tolist()] == values
    assert cnt.tolist() == [values.count(v) for v in sorted(set(values))]
    uc, ic, cc = ember.unique_consecutive(x, return_inverse=True, return_counts=True)
    runs = [v for k, v in enumerate(values) if k == 0 or values[k - 1] != v]
    assert uc.tolist() == runs and sum(cc.tolist()) == len(values)
    assert [uc.tolist()[k] for k in ic.tolist()] == values


def test_unique_consecutive_dim():
    x = ember.tensor([[1, 1, 2, 2, 1], [0, 0, 3, 3, 0]])
    u, cnt = ember.unique_consecutive(x, dim=1, return_counts=True)
    assert u.tolist() == [[1, 2, 1], [0, 3, 0]] and cnt.tolist() == [2, 2, 1]


# ---- searchsorted / bucketize -----------------------------------------------------------

@pytest.mark.parametrize("name", ["int32", "float32", "float64", "float16", "int64", "uint8"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_1d_matches_numpy(name, side):
    g = rng(14)
    seq = np.sort(data(name, (40,), seed=15))
    vals = data(name, (3, 11), seed=16)
    s, v = et(seq, name), et(vals, name)
    got = ember.searchsorted(s, v, side=side)
    np.testing.assert_array_equal(got.numpy(), np.searchsorted(npv(s), npv(v), side=side))
    got32 = ember.searchsorted(s, v, right=side == "right", out_int32=True)
    assert got32.dtype == ember.int32
    np.testing.assert_array_equal(got32.numpy(), got.numpy())
    del g


def test_searchsorted_rows_sorter_scalar_nan():
    g = rng(17)
    seq = np.sort(g.standard_normal((3, 10)), 1)
    vals = g.standard_normal((3, 5))
    got = ember.searchsorted(ember.tensor(seq), ember.tensor(vals)).numpy()
    for r in range(3):
        np.testing.assert_array_equal(got[r], np.searchsorted(seq[r], vals[r]))
    unsorted = g.permutation(10).astype(np.float64)
    sorter = np.argsort(unsorted)
    got = ember.searchsorted(ember.tensor(unsorted), ember.tensor([2.5, 7.0]),
                             sorter=ember.tensor(sorter))
    assert got.tolist() == np.searchsorted(unsorted, [2.5, 7.0], sorter=sorter).tolist()
    r = ember.searchsorted(ember.tensor([1.0, 2.0, 3.0]), 2.0)
    assert r.shape == () and int(r) == 1
    nan = ember.searchsorted(ember.tensor([1.0, 2.0]), ember.tensor([math.nan]))
    assert nan.tolist() == [2]
    mixed = ember.searchsorted(ember.tensor([1, 2, 3]), ember.tensor([1.5, 2.0]))
    assert mixed.tolist() == [1, 1]


def test_bucketize():
    b = ember.tensor([1, 3, 5, 7])
    x = ember.tensor([[0, 1, 6], [7, 8, 3]])
    assert ember.bucketize(x, b).tolist() == np.searchsorted([1, 3, 5, 7], x.numpy()).tolist()
    assert ember.bucketize(x, b, right=True).tolist() == \
        np.searchsorted([1, 3, 5, 7], x.numpy(), side="right").tolist()
    assert int(ember.bucketize(4, b)) == 2


# ---- bincount / histc / histogram ----------------------------------------------------------

@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_bincount_matches_numpy(name):
    a = rng(18).integers(0, 20, 100)
    x = et(a, name)
    np.testing.assert_array_equal(ember.bincount(x).numpy(), np.bincount(a))
    np.testing.assert_array_equal(x.bincount(minlength=30).numpy(), np.bincount(a, minlength=30))
    w = rng(19).standard_normal(100)
    got = ember.bincount(x, ember.tensor(w, dtype=ember.float32))
    assert got.dtype == ember.float32
    np.testing.assert_allclose(got.numpy(), np.bincount(a, w), rtol=1e-5, atol=1e-5)
    got = ember.bincount(x, ember.tensor(w).to(ember.float16))
    assert got.dtype == ember.float64
    assert ember.bincount(ember.tensor([], dtype=ember.int64), minlength=3).tolist() == [0, 0, 0]


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_histc_matches_numpy(name):
    a = rng(20).standard_normal(500)
    x = ember.tensor(a).to(getattr(ember, name))
    got = ember.histc(x, bins=7, min=-1.5, max=2.0)
    ref, _ = np.histogram(npv(x), bins=7, range=(-1.5, 2.0))
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got.numpy(), ref)
    xv = npv(x)
    ref, _ = np.histogram(xv, bins=10, range=(xv.min(), xv.max()))
    np.testing.assert_array_equal(x.histc(10).numpy(), ref)
    assert ember.histc(ember.tensor([2.0, 2.0]), bins=4).tolist() == [0, 0, 2, 0]
    nan = ember.histc(ember.tensor([1.0, math.nan, 9.0, 0.0]), bins=3, min=0, max=3)
    assert nan.tolist() == [1, 1, 0]


def test_histogram_bins_int_tensor_weight_density():
    a = rng(21).standard_normal(300)
    x = ember.tensor(a)
    h, e = ember.histogram(x, 9)
    rh, re = np.histogram(a, 9)
    np.testing.assert_array_equal(h.numpy(), rh)
    np.testing.assert_allclose(e.numpy(), re, rtol=1e-12)
    edges = np.array([-3.0, -1.0, 0.0, 0.5, 4.0])
    w = rng(22).random(300)
    h, e = x.histogram(ember.tensor(edges), weight=ember.tensor(w), density=True)
    rh, _ = np.histogram(a, edges, weights=w, density=True)
    np.testing.assert_allclose(h.numpy(), rh, rtol=1e-12)
    h, e = ember.histogram(x, 4, range=(0.0, 1.0))
    rh, re = np.histogram(a, 4, range=(0.0, 1.0))
    np.testing.assert_array_equal(h.numpy(), rh)
    assert type(ember.histogram(x, 2)).__name__ == "histogram"


# ---- cummax / cummin -------------------------------------------------------------------

@pytest.mark.parametrize("name", ALL)
def test_cummax_cummin_every_dtype(name):
    a = data(name, (4, 15), seed=23 + ALL.index(name), nan=True)
    x = et(a, name)
    xv = npv(x)
    for fn, is_max in ((ember.cummax, True), (ember.cummin, False)):
        v, i = fn(x, 1)
        assert v.dtype == x.dtype and i.dtype == ember.int64
        for r in range(4):
            best, at = xv[r, 0], 0
            for j, val in enumerate(xv[r]):
                if math.isnan(val) or (not math.isnan(best) and
                                       (val >= best if is_max else val <= best)):
                    best, at = val, j
                got = npv(v)[r, j]
                assert (math.isnan(got) and math.isnan(best)) or got == best
                assert i.numpy()[r, j] == at


def test_cummax_dim0_noncontiguous_zero_dim():
    a = rng(24).standard_normal((6, 5)).astype(np.float32)
    x = ember.tensor(a).t()
    v, _ = x.cummax(1)
    np.testing.assert_array_equal(v.numpy(), np.maximum.accumulate(a.T, axis=1))
    v, i = ember.cummin(ember.tensor(2.0), 0)
    assert float(v) == 2.0 and int(i) == 0
    v, i = ember.cummax(ember.empty((2, 0)), 1)
    assert tuple(v.shape) == (2, 0)


# ---- autograd --------------------------------------------------------------------------

def test_gradients_flow_through_indices():
    a = rng(25).standard_normal((4, 6))
    g = rng(26).standard_normal((4, 6))
    x = ember.tensor(a, requires_grad=True)
    v, i = x.sort(1, descending=True)
    (v * ember.tensor(g)).sum().backward()
    ref = np.zeros_like(a)
    np.put_along_axis(ref, i.numpy(), g, 1)
    np.testing.assert_allclose(x.grad.numpy(), ref)
    x.grad = None
    v, i = ember.topk(x, 2)
    v.sum().backward()
    ref = np.zeros_like(a)
    np.put_along_axis(ref, i.numpy(), 1.0, 1)
    np.testing.assert_allclose(x.grad.numpy(), ref)
    x.grad = None
    ember.cummax(x, 1).values.sum().backward()
    _, i = ember.cummax(x.detach(), 1)
    ref = np.zeros_like(a)
    for r in range(4):
        for j in i.numpy()[r]:
            ref[r, j] += 1
    np.testing.assert_allclose(x.grad.numpy(), ref)
    x.grad = None
    ember.median(x).backward()
    assert x.grad.numpy().sum() == 1.0 and x.grad.numpy()[x.grad.numpy() != 0].size == 1


def test_quantile_gradient_is_interpolation_weights():
    a = np.array([[4.0, 1.0, 3.0, 2.0]])
    x = ember.tensor(a, requires_grad=True)
    ember.quantile(x, 0.25, dim=1).sum().backward()  # rank 0.75: 0.25 * 1.0 + 0.75 * 2.0
    np.testing.assert_allclose(x.grad.numpy(), [[0.0, 0.25, 0.0, 0.75]])


# ---- errors -------------------------------------------------------------------------------

def test_errors_numpy_free():
    x = ember.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        ember.topk(x, 3)
    with pytest.raises(RuntimeError, match="selected number k out of range"):
        ember.kthvalue(x, 0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.sort(x, 2)
    with pytest.raises(RuntimeError, match="bincount only supports 1-d"):
        ember.bincount(ember.tensor([[1]]))
    with pytest.raises(RuntimeError, match="bincount only supports 1-d non-negative"):
        ember.bincount(ember.tensor([1, -2]))
    with pytest.raises(NotImplementedError, match="bincount_cpu"):
        ember.bincount(x)
    with pytest.raises(RuntimeError, match=r"q must be in the range \[0, 1\]"):
        ember.quantile(x, 1.5)
    with pytest.raises(RuntimeError, match="input tensor must be either float or double"):
        ember.quantile(ember.tensor([1, 2]), 0.5)
    with pytest.raises(IndexError, match="Expected reduction dim 1 to have non-zero size"):
        ember.mode(ember.empty((2, 0)), 1)
    # topk checks the dim, then k, then the dtype (a bool tensor on the CPU)
    b = ember.tensor([[True], [False]])
    with pytest.raises(IndexError, match="Dimension out of range"):
        b.topk(0, dim=2)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        b.topk(3, dim=0)
    with pytest.raises(RuntimeError, match="topk does not support bool"):
        b.topk(1, dim=0)


ERROR_CASES = [
    lambda t: t.topk(t.tensor([1.0, 2.0]), 3),
    lambda t: t.topk(t.tensor([1.0, 2.0]), -1),
    lambda t: t.kthvalue(t.tensor([3.0, 1.0]), 4),
    lambda t: t.kthvalue(t.zeros(2, 0), 1, 1),
    lambda t: t.median(t.zeros(2, 0), 1),
    lambda t: t.median(t.tensor([True, False])),
    lambda t: t.mode(t.zeros(2, 0), 1),
    lambda t: t.sort(t.tensor([1.0]), 3),
    lambda t: t.bincount(t.tensor([1, -2])),
    lambda t: t.bincount(t.tensor([[1, 2]])),
    lambda t: t.bincount(t.tensor([1.0])),
    lambda t: t.bincount(t.tensor([True])),
    lambda t: t.bincount(t.tensor([1]), minlength=-1),
    lambda t: t.bincount(t.tensor([1]), weights=t.tensor([1.0, 2.0])),
    lambda t: t.quantile(t.tensor([1.0, 2.0]), 1.5),
    lambda t: t.quantile(t.tensor([1, 2]), 0.5),
    lambda t: t.quantile(t.tensor([1.0, 2.0]), t.tensor([0.5], dtype=t.float64)),
    lambda t: t.quantile(t.tensor([1.0, 2.0]), t.tensor([[0.5]])),
    lambda t: t.quantile(t.tensor([1.0, 2.0]), 0.5, interpolation="foo"),
    lambda t: t.quantile(t.tensor([]), 0.5),
    lambda t: t.quantile(t.tensor([1.0, 2.0]), t.tensor([1.5])),
    lambda t: t.nanquantile(t.tensor([1.0, 2.0]).half(), 0.5),
    lambda t: t.searchsorted(t.tensor([[1.0, 2, 3]]), t.tensor([1.5, 2.0])),
    lambda t: t.searchsorted(t.tensor(1), t.tensor([1])),
    lambda t: t.searchsorted(t.tensor([[1, 2]]), 1),
    lambda t: t.searchsorted(t.tensor([True, False]), t.tensor([True])),
    lambda t: t.searchsorted(t.tensor([1, 2]), t.tensor([1]), sorter=t.tensor([0, 1],
                                                                             dtype=t.int32)),
    lambda t: t.searchsorted(t.tensor([1, 2]), t.tensor([1]), sorter=t.tensor([0])),
    lambda t: t.searchsorted(t.tensor([1, 2]), t.tensor([1]), side="foo"),
    lambda t: t.searchsorted(t.tensor([1.0, 2]), t.tensor([1.5]), side="left", right=True),
    lambda t: t.searchsorted(t.tensor([1, 2]), t.tensor([1]), out=t.empty(1, dtype=t.int32)),
    lambda t: t.bucketize(t.tensor([1]), t.tensor([[1]])),
    lambda t: t.histc(t.tensor([2.0, 2.0]), bins=0),
    lambda t: t.histc(t.tensor([2.0, 2.0]), bins=4, min=3, max=1),
    lambda t: t.histc(t.tensor([1, 2]), bins=4),
    lambda t: t.histogram(t.tensor([2.0, 2.0]), bins=0),
    lambda t: t.histogram(t.tensor([2.0, 2.0]), bins=4, range=(3.0, 1.0)),
    lambda t: t.histogram(t.tensor([2.0, 2.0]).half(), bins=4),
    lambda t: t.unique(t.tensor([1, 2]), dim=2),
]


@pytest.mark.parametrize("case", range(len(ERROR_CASES)))
def test_errors_match_torch(case, torch):
    fn = ERROR_CASES[case]

    def outcome(mod):
        try:
            r = fn(mod)
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            return type(e).__name__, str(e)
        return "ok", repr(r)

    got, want = outcome(ember), outcome(torch)
    assert got[0] == want[0], (got, want)
    assert got[1].startswith(want[1][:40]), (got, want)


# ---- torch as the oracle -----------------------------------------------------------------

def to_t(torch, e):
    return torch.from_dlpack(e.contiguous()).clone() if e.dtype != ember.bool else \
        torch.from_numpy(e.numpy().copy())


def assert_same(torch, e, t, exact=True):
    tt = to_t(torch, e)
    assert tt.dtype == t.dtype and tuple(tt.shape) == tuple(t.shape), (tt, t)
    if exact:
        torch.testing.assert_close(tt, t, rtol=0, atol=0, equal_nan=True)
    else:
        torch.testing.assert_close(tt, t, equal_nan=True)


@pytest.mark.parametrize("name", ALL)
def test_oracle_sort_topk_kthvalue_cummax(name, torch):
    a = data(name, (3, 4, 9), seed=40 + ALL.index(name), nan=True)
    x = et(a, name)
    tx = to_t(torch, x)
    for dim in (0, 1, 2):
        for desc in (False, True):
            e, t = ember.sort(x, dim, desc, stable=True), torch.sort(tx, dim=dim,
                                                                    descending=desc, stable=True)
            assert_same(torch, e.values, t.values)
            assert_same(torch, e.indices, t.indices)
        for fn in ("cummax", "cummin"):
            e, t = getattr(ember, fn)(x, dim), getattr(torch, fn)(tx, dim)
            assert_same(torch, e.values, t.values)
            assert_same(torch, e.indices, t.indices)
    if name != "bool":
        e, t = ember.topk(x, 3, 2), torch.topk(tx, 3, 2)
        assert_same(torch, e.values, t.values)
        e, t = ember.kthvalue(x, 4, 1, True), torch.kthvalue(tx, 4, 1, True)
        assert_same(torch, e.values, t.values)
    # mode: torch's CPU index is wherever its unstable std::sort left the run's last
    # element, and NaNs break its comparator: values on NaN-free data, indices that name them
    a = data(name, (3, 4, 9), seed=45, nan=False)
    x = et(a, name)
    tx = to_t(torch, x)
    e, t = ember.mode(x, 2), torch.mode(tx, 2)
    assert_same(torch, e.values, t.values)
    assert_same(torch, ember.tensor(np.take_along_axis(x.numpy() if name != "bfloat16" else
                                                       x.float().numpy(),
                                                       e.indices.numpy()[..., None], 2)[..., 0]
                                    ).to(x.dtype), t.values)


@pytest.mark.parametrize("name", ["float32", "float64", "int32", "float16"])
def test_oracle_median_quantile_unique(name, torch):
    a = data(name, (5, 8), seed=50, nan=name.startswith("float"))
    x = et(a, name)
    tx = to_t(torch, x)
    for fn in ("median", "nanmedian"):
        if name == "int32" and fn == "nanmedian":
            continue
        assert_same(torch, getattr(ember, fn)(x), getattr(torch, fn)(tx))
        e, t = getattr(ember, fn)(x, 1), getattr(torch, fn)(tx, 1)
        assert_same(torch, e.values, t.values)
        assert_same(torch, e.indices, t.indices)
    if name in ("float32", "float64"):
        q = [0.0, 0.3, 0.5, 1.0]
        for fn in ("quantile", "nanquantile"):
            for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
                e = getattr(ember, fn)(x, ember.tensor(q, dtype=x.dtype), 1, True,
                                       interpolation=interp)
                t = getattr(torch, fn)(tx, torch.tensor(q, dtype=tx.dtype), 1, True,
                                       interpolation=interp)
                assert_same(torch, e, t, exact=False)
    eu = ember.unique(x, return_inverse=True, return_counts=True)
    tu = torch.unique(tx, return_inverse=True, return_counts=True)
    for e, t in zip(eu, tu):
        assert_same(torch, e, t)


def test_oracle_histc_histogram_bincount_searchsorted(torch):
    a = rng(60).standard_normal(400).astype(np.float32)
    x = ember.tensor(a)
    tx = torch.from_numpy(a)
    assert_same(torch, ember.histc(x, 13, -1, 1), torch.histc(tx, 13, -1, 1))
    assert_same(torch, ember.histc(x, 13), torch.histc(tx, 13))
    e, t = ember.histogram(x, 11), torch.histogram(tx, 11)
    assert_same(torch, e.hist, t.hist)
    # the edges are ember.linspace's (torch's vectorised linspace may differ by an ulp)
    assert_same(torch, e.bin_edges, t.bin_edges, exact=False)
    i = rng(61).integers(0, 9, 50)
    w = rng(62).random(50).astype(np.float32)
    assert_same(torch, ember.bincount(ember.tensor(i), ember.tensor(w)),
                torch.bincount(torch.from_numpy(i), torch.from_numpy(w)), exact=False)
    s = np.sort(a[:50])
    for right in (False, True):
        assert_same(torch, ember.searchsorted(ember.tensor(s), x, right=right),
                    torch.searchsorted(torch.from_numpy(s), tx, right=right))


def test_oracle_gradients(torch):
    a = rng(70).standard_normal((4, 7))
    g = rng(71).standard_normal((4, 3))
    cases = [
        lambda m, x: m.topk(x, 3, 1).values,
        lambda m, x: m.kthvalue(x, 2, 1, True).values.expand(4, 3),
        lambda m, x: m.median(x, 1, True).values.expand(4, 3),
        lambda m, x: m.cummin(x, 1).values[:, :3],
        lambda m, x: m.sort(x, 0).values[:, :3],
        lambda m, x: m.quantile(x, m.tensor([0.2, 0.5, 0.9], dtype=m.float64), 1).t(),
        lambda m, x: m.nanquantile(x, 0.4, 1, True, interpolation="midpoint").expand(4, 3),
    ]
    for fn in cases:
        xe = ember.tensor(a, requires_grad=True)
        xt = torch.tensor(a, requires_grad=True)
        (fn(ember, xe) * ember.tensor(g)).sum().backward()
        (fn(torch, xt) * torch.tensor(g)).sum().backward()
        np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-12)
