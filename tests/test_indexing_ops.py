"""torch's indexing functions on the CPU (python/ember/_composite_index.py over the
gather/scatter primitives of csrc/ops/index/scatter_gather.*): gather, scatter (+ add,
reduce), index_select/add/copy/fill/reduce/put, masked_fill/scatter/select, take,
take_along_dim, put, nonzero, argwhere. Values against NumPy references on fresh random
data (hypothesis over shapes, dims and dtypes), errors and gradients against torch where it
is importable."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from torch_util import assert_same_outcome, edge_outcome

RNG = np.random.default_rng(16)
DTYPES = ["float32", "float64", "int64", "int32", "int16", "int8", "uint8", "float16"]


def rand(shape, dtype="float32"):
    if dtype.startswith("float"):
        return RNG.standard_normal(shape).astype(dtype)
    if dtype == "bool":
        return RNG.random(shape) < 0.5
    hi = 100 if dtype != "uint8" else 200
    lo = 0 if dtype == "uint8" else -100
    return RNG.integers(lo, hi, size=shape).astype(dtype)


def E(a):
    return ember.tensor(a)


def N(t):
    return t.detach().cpu().numpy()


def idx(shape, high):
    return RNG.integers(0, high, size=shape).astype(np.int64)


# ---- NumPy references -----------------------------------------------------------------------

def np_scatter(a, dim, index, src, op=None):
    """a[... index ...] (op)= src over index's shape, in index order (the CPU's order)."""
    out = a.copy()
    for pos in np.ndindex(*index.shape):
        tgt = list(pos)
        tgt[dim] = index[pos]
        tgt = tuple(tgt)
        v = src[pos] if isinstance(src, np.ndarray) else src
        if op is None:
            out[tgt] = v
        elif op == "add":
            out[tgt] = out[tgt] + v
        elif op == "mul":
            out[tgt] = out[tgt] * v
        elif op == "max":
            out[tgt] = max(out[tgt], v)
        elif op == "min":
            out[tgt] = min(out[tgt], v)
    return out


shapes = st.lists(st.integers(1, 5), min_size=1, max_size=4)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(shape=shapes, data=st.data(), dtype=st.sampled_from(DTYPES))
def test_gather_matches_take_along_axis(shape, data, dtype):
    dim = data.draw(st.integers(0, len(shape) - 1))
    ishape = [data.draw(st.integers(0 if d == dim else 1, 6 if d == dim else n))
              for d, n in enumerate(shape)]
    a = rand(shape, dtype)
    i = idx(ishape, shape[dim])
    got = ember.gather(E(a), dim, E(i))
    ref = np.take_along_axis(a[tuple(slice(0, n) if d != dim else slice(None)
                                     for d, n in enumerate(ishape))], i, axis=dim)
    assert got.dtype == getattr(ember, dtype)
    np.testing.assert_array_equal(N(got), ref)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(shape=shapes, data=st.data(), dtype=st.sampled_from(DTYPES),
       op=st.sampled_from([None, "add"]))
def test_scatter_and_scatter_add_match_numpy(shape, data, dtype, op):
    dim = data.draw(st.integers(0, len(shape) - 1))
    ishape = [data.draw(st.integers(1, n)) for n in shape]
    sshape = [n + data.draw(st.integers(0, 1)) for n in ishape]   # src may be larger
    a, src = rand(shape, dtype), rand(sshape, dtype)
    if op is None:  # distinct targets: with duplicates the winner is unspecified on the GPU
        i = np.stack([RNG.permutation(shape[dim])[:ishape[dim]] for _ in
                      range(int(np.prod(ishape)) // ishape[dim])], 0)
        i = np.moveaxis(i.reshape([*ishape[:dim], *ishape[dim + 1:], ishape[dim]]), -1, dim)
        got = E(a).scatter(dim, E(np.ascontiguousarray(i)), E(src))
    else:
        i = idx(ishape, shape[dim])
        got = ember.scatter_add(E(a), dim, E(i), E(src))
    ref = np_scatter(a, dim, i, src[tuple(slice(0, n) for n in ishape)],
                     None if op is None else "add")
    np.testing.assert_array_equal(N(got), ref)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "float16", "int8"])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_vs_torch(torch, dtype, reduce, include_self):
    a = rand((4, 5), dtype)
    src = rand((3, 6), dtype)
    if dtype.startswith("int") and reduce == "prod":
        a, src = a % 4, src % 3
    i = idx((3, 4), 4)
    got = ember.scatter_reduce(E(a), 0, E(i), E(src), reduce, include_self=include_self)
    ref = torch.scatter_reduce(torch.tensor(a), 0, torch.tensor(i), torch.tensor(src), reduce,
                               include_self=include_self)
    tol = 1e-2 if dtype == "float16" else 1e-5
    np.testing.assert_allclose(N(got).astype(np.float64), ref.numpy().astype(np.float64),
                               rtol=tol, atol=tol)
    # the in-place form and the method agree
    e = E(a)
    assert e.scatter_reduce_(0, E(i), E(src), reduce, include_self=include_self) is e
    np.testing.assert_allclose(N(e).astype(np.float64), ref.numpy().astype(np.float64),
                               rtol=tol, atol=tol)


def test_scatter_value_and_reduce_argument():
    a, i = rand((3, 4)), idx((2, 4), 3)
    np.testing.assert_array_equal(N(E(a).scatter(0, E(i), 2.5)), np_scatter(a, 0, i, 2.5))
    np.testing.assert_array_equal(N(ember.scatter(E(a), 0, E(i), value=-1.0)),
                                  np_scatter(a, 0, i, -1.0))
    src = rand((2, 4))
    np.testing.assert_allclose(N(E(a).scatter(0, E(i), E(src), reduce="multiply")),
                               np_scatter(a, 0, i, src, "mul"), rtol=1e-6)
    np.testing.assert_allclose(N(E(a).scatter(0, E(i), 3.0, reduce="add")),
                               np_scatter(a, 0, i, 3.0, "add"), rtol=1e-6)
    b = ember.tensor([1, 2, 3])
    assert E([1, 2, 3]).scatter(0, ember.tensor([0]), 2.7).tolist() == [2, 2, 3]  # truncated
    e = E(a)
    assert e.scatter_(0, E(i), E(src)) is e
    assert b.dtype == ember.int64


@settings(max_examples=50, deadline=None, derandomize=True)
@given(shape=shapes, data=st.data(), dtype=st.sampled_from(DTYPES))
def test_index_family_matches_numpy(shape, data, dtype):
    dim = data.draw(st.integers(0, len(shape) - 1))
    k = data.draw(st.integers(0, 6))
    a = rand(shape, dtype)
    i = idx((k,), shape[dim])
    np.testing.assert_array_equal(N(E(a).index_select(dim, E(i))), np.take(a, i, axis=dim))
    sshape = list(shape)
    sshape[dim] = k
    src = rand(sshape, dtype)
    # index_add: duplicates summed (np.add.at), alpha scales the source
    ref = a.copy()
    np.add.at(ref, (slice(None),) * dim + (i,), src)
    np.testing.assert_array_equal(N(ember.index_add(E(a), dim, E(i), E(src))), ref)
    # index_copy with distinct indices
    u = RNG.permutation(shape[dim])[:min(k, shape[dim])].astype(np.int64)
    sshape[dim] = u.size
    src2 = rand(sshape, dtype)
    ref = a.copy()
    ref[(slice(None),) * dim + (u,)] = src2
    np.testing.assert_array_equal(N(E(a).index_copy(dim, E(u), E(src2))), ref)
    # index_fill, negative indices counting from the end
    ref = a.copy()
    ref[(slice(None),) * dim + (i,)] = 7
    np.testing.assert_array_equal(N(E(a).index_fill(dim, E(i - shape[dim]), 7)), ref)


def test_index_add_alpha_and_in_place():
    a, src, i = rand((4, 3)), rand((5, 3)), idx((5,), 4)
    ref = a.copy()
    np.add.at(ref, i, 2.0 * src)
    e = E(a)
    assert e.index_add_(0, E(i), E(src), alpha=2.0) is e
    np.testing.assert_allclose(N(e), ref, rtol=1e-6)
    np.testing.assert_allclose(N(ember.index_add(E(a), 0, E(i), E(src), alpha=2.0)), ref,
                               rtol=1e-6)
    # int32 indices are accepted
    np.testing.assert_allclose(N(E(a).index_add(0, E(i.astype(np.int32)), E(src))),
                               N(E(a).index_add(0, E(i), E(src))))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_index_reduce_vs_torch(torch, reduce, include_self, dtype):
    a, src, i = rand((5, 3), dtype), rand((6, 3), dtype), idx((6,), 5)
    if dtype == "int64" and reduce == "prod":
        a, src = a % 5, src % 5
    got = E(a).index_reduce(0, E(i), E(src), reduce, include_self=include_self)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = torch.tensor(a).index_reduce(0, torch.tensor(i), torch.tensor(src), reduce,
                                           include_self=include_self)
    np.testing.assert_allclose(N(got), ref.numpy(), rtol=1e-5)


def test_take_put_take_along_dim_match_numpy():
    a = rand((3, 4, 5))
    i = RNG.integers(-60, 60, size=(2, 7)).astype(np.int64)
    np.testing.assert_array_equal(N(E(a).take(E(i))), np.take(a, i))
    # non-contiguous input
    at = a.transpose(2, 0, 1)
    np.testing.assert_array_equal(N(ember.take(E(a).permute(2, 0, 1), E(i))), np.take(at, i))
    # put: the last write wins in order; accumulate adds duplicates
    j = np.array([0, 5, -1, 7], dtype=np.int64)
    v = rand((4,))
    ref = a.copy()
    np.put(ref, j, v)
    np.testing.assert_array_equal(N(E(a).put(E(j), E(v))), ref)
    ref = a.copy().reshape(-1)
    np.add.at(ref, j, v)
    np.testing.assert_allclose(N(ember.put(E(a), E(j), E(v), accumulate=True)).reshape(-1), ref,
                               rtol=1e-6)
    e = E(a).permute(1, 0, 2)  # put_ into a non-contiguous tensor
    e.put_(E(j), E(v))
    ref = a.transpose(1, 0, 2).copy()
    np.put(ref, j, v)
    np.testing.assert_array_equal(N(e), ref)
    # take_along_dim, with broadcasting over the other dims and with dim=None
    ti = idx((3, 2, 1), 4)
    np.testing.assert_array_equal(N(ember.take_along_dim(E(a), E(ti), 1)),
                                  np.take_along_axis(a, np.broadcast_to(ti, (3, 2, 5)), 1))
    ti2 = idx((1, 6, 5), 4)
    np.testing.assert_array_equal(N(E(a).take_along_dim(E(ti2), dim=-2)),
                                  np.take_along_axis(a, np.broadcast_to(ti2, (3, 6, 5)), 1))
    flat = idx((8,), 60)
    np.testing.assert_array_equal(N(ember.take_along_dim(E(a), E(flat))), a.reshape(-1)[flat])


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float16"])
def test_masked_ops_match_numpy(dtype):
    a = rand((4, 5), dtype)
    m = RNG.random((5,)) < 0.5   # broadcasts over the rows
    mb = np.broadcast_to(m, a.shape)
    val = True if dtype == "bool" else 3
    np.testing.assert_array_equal(N(E(a).masked_fill(E(m), val)), np.where(mb, val, a))
    np.testing.assert_array_equal(N(ember.masked_fill(E(a), E(m), ember.tensor(val))),
                                  np.where(mb, val, a))
    e = E(a)
    assert e.masked_fill_(E(m), val) is e
    np.testing.assert_array_equal(N(e), np.where(mb, val, a))
    np.testing.assert_array_equal(N(E(a).masked_select(E(m))), a[mb])
    np.testing.assert_array_equal(N(ember.masked_select(E(a), E(mb))), a[mb])
    src = rand((30,), dtype)
    ref = a.copy()
    ref[mb] = src[:mb.sum()]
    np.testing.assert_array_equal(N(E(a).masked_scatter(E(m), E(src))), ref)
    e = E(a)
    assert e.masked_scatter_(E(m), E(src)) is e
    np.testing.assert_array_equal(N(e), ref)


def test_masked_fill_value_dtypes_and_broadcast_result():
    x = ember.ones(3, dtype=ember.int64)
    assert x.masked_fill(ember.ones(3) > 0, 1.5).tolist() == [1, 1, 1]
    r = ember.ones(3).masked_fill(ember.ones(2, 3) > 0, 2.0)
    assert tuple(r.shape) == (2, 3)
    assert r.dtype == ember.float32
    assert ember.ones(3).masked_fill(ember.ones(3) > 0, ember.tensor(2, dtype=ember.float64)) \
        .dtype == ember.float32


def test_nonzero_and_argwhere_match_numpy():
    for a in (rand((3, 4)) > 0.3, rand((5,)), np.zeros((2, 0, 3)), rand((2, 3, 2), "int8")):
        ref = np.argwhere(a)
        got = ember.nonzero(E(a))
        assert got.dtype == ember.int64
        np.testing.assert_array_equal(N(got), ref)
        np.testing.assert_array_equal(N(E(a).argwhere()), ref)
        cols = E(a).nonzero(as_tuple=True)
        assert len(cols) == a.ndim
        for c, r in zip(cols, np.nonzero(a)):
            np.testing.assert_array_equal(N(c), r)
    assert tuple(ember.nonzero(ember.tensor(3.0)).shape) == (1, 0)
    assert tuple(ember.argwhere(ember.tensor(0.0)).shape) == (0, 0)
    assert [c.tolist() for c in ember.nonzero(ember.tensor(3.0), as_tuple=True)] == [[0]]


def test_index_put_matches_numpy():
    a = rand((4, 5))
    i, j = idx((3,), 4), idx((3,), 5)
    v = rand((3,))
    ref = a.copy()
    ref[i, j] = v
    np.testing.assert_array_equal(N(ember.index_put(E(a), (E(i), E(j)), E(v))), ref)
    ref = a.copy()
    np.add.at(ref, (i, j), v)
    e = E(a)
    assert e.index_put_((E(i), E(j)), E(v), accumulate=True) is e
    np.testing.assert_allclose(N(e), ref, rtol=1e-6)
    ref = a.copy()
    ref[:, j] = 0.5
    np.testing.assert_array_equal(N(E(a).index_put((None, E(j)), ember.tensor(0.5))), ref)


def test_non_contiguous_and_broadcast_operands():
    a = rand((6, 4))
    at = E(a).t()  # (4, 6), strides (1, 4)
    i = idx((4, 3), 6)
    np.testing.assert_array_equal(N(at.gather(1, E(i))), np.take_along_axis(a.T, i, 1))
    ie = ember.tensor(idx((1, 3), 6)).expand(4, 3)  # stride-0 index
    np.testing.assert_array_equal(N(at.gather(1, ie)), np.take_along_axis(a.T, N(ie), 1))
    t = E(a).t().contiguous().t()  # column-major copy: scatter into it
    src = rand((2, 4))
    ref = np_scatter(a, 0, idx((2, 4), 6) * 0 + np.array([[0, 1, 2, 3], [5, 4, 3, 2]]), src)
    t.scatter_(0, ember.tensor([[0, 1, 2, 3], [5, 4, 3, 2]]), E(src))
    np.testing.assert_array_equal(N(t), ref)
    # index_select of a sliced view
    v = E(a)[:, 1::2]
    np.testing.assert_array_equal(N(v.index_select(0, ember.tensor([5, 0]))), a[[5, 0], 1::2])


def test_zero_dim_and_empty():
    s = ember.tensor(3.0)
    assert s.gather(0, ember.tensor(0)).item() == 3.0
    assert s.gather(0, ember.tensor([0, 0])).tolist() == [3.0, 3.0]
    assert s.index_select(0, ember.tensor([0])).dim() == 0
    assert s.take(ember.tensor([0, -1])).tolist() == [3.0, 3.0]
    assert ember.tensor(1.0).scatter(0, ember.tensor(0), 5.0).item() == 5.0
    assert ember.tensor(1.0).index_fill(0, ember.tensor([0]), 4.0).item() == 4.0
    assert ember.tensor(2.0).masked_fill(ember.tensor(True), 0.0).item() == 0.0
    assert ember.tensor(2.0).masked_select(ember.tensor(True)).tolist() == [2.0]
    e = ember.zeros(0, 3)
    assert tuple(e.gather(0, ember.zeros(0, 3, dtype=ember.int64)).shape) == (0, 3)
    assert tuple(ember.ones(2, 3).index_select(1, ember.tensor([], dtype=ember.int64)).shape) \
        == (2, 0)
    x = ember.ones(2, 3)
    # an empty index writes nothing and checks nothing
    assert x.scatter_add(1, ember.zeros(2, 0, dtype=ember.int64), ember.ones(2, 0)).sum() == 6
    assert tuple(ember.take(ember.ones(2, 3), ember.zeros(0, 4, dtype=ember.int64)).shape) == (0, 4)
    assert ember.ones(0).masked_select(ember.zeros(0, dtype=ember.bool)).numel() == 0


def test_out_arguments():
    a, i = rand((3, 4)), idx((3, 2), 4)
    out = ember.empty(3, 2)
    assert ember.gather(E(a), 1, E(i), out=out) is out
    np.testing.assert_array_equal(N(out), np.take_along_axis(a, i, 1))
    out = ember.empty(3, 2)
    assert ember.index_select(E(a), 1, ember.tensor([3, 0]), out=out) is out
    np.testing.assert_array_equal(N(out), a[:, [3, 0]])
    out = ember.empty(3, 4)
    assert ember.scatter_add(E(a), 1, E(i), ember.ones(3, 2), out=out) is out
    out = ember.empty(3, 1)
    assert ember.take_along_dim(E(a), E(i[:, :1]), 1, out=out) is out
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got "
                                           "double instead"):
        ember.gather(E(a), 1, E(i), out=ember.empty(3, 2, dtype=ember.float64))


def test_cpu_errors_leave_self_untouched():
    a = rand((3, 4))
    e = E(a)
    # (torch's CPU take_along_dim reads out of bounds here; ember checks)
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 1 with size 4"):
        e.take_along_dim(ember.tensor([[5]]), 1)
    with pytest.raises(RuntimeError, match="index 4 is out of bounds for dimension 1 with size 4"):
        e.scatter_(1, ember.tensor([[0, 4]]), ember.ones(1, 2))
    with pytest.raises(IndexError, match="out of range: tried to access index 12"):
        e.put_(ember.tensor([0, 12]), ember.ones(2))
    with pytest.raises(RuntimeError, match="index 3 is out of bounds"):
        e.index_add_(0, ember.tensor([0, 3]), ember.ones(2, 4))
    np.testing.assert_array_equal(N(e), a)


# ---- errors and edge cases against torch ---------------------------------------------------

def _cases():
    def x(m):
        return m.arange(6.0).view(2, 3)

    def L(m, v):
        return m.tensor(v)
    return {
        "gather_oob": lambda m: x(m).gather(1, L(m, [[5]])),
        "gather_neg": lambda m: x(m).gather(1, L(m, [[-1]])),
        "gather_float_index": lambda m: x(m).gather(1, L(m, [[1.0]])),
        "gather_dims": lambda m: x(m).gather(1, L(m, [1])),
        "gather_size": lambda m: x(m).gather(1, m.zeros(3, 1, dtype=m.int64)),
        "gather_dim_range": lambda m: x(m).gather(2, m.zeros(1, 1, dtype=m.int64)),
        "gather_0d_1d": lambda m: m.tensor(3.0).gather(0, L(m, [0, 0])),
        "gather_int32": lambda m: x(m).gather(1, m.tensor([[2]], dtype=m.int32)),
        "scatter_oob": lambda m: x(m).scatter(1, L(m, [[5]]), 1.0),
        "scatter_dtype": lambda m: x(m).scatter(1, L(m, [[1]]), m.ones(1, 1, dtype=m.float64)),
        "scatter_size": lambda m: x(m).scatter(1, m.zeros(1, 4, dtype=m.int64), m.ones(1, 2)),
        "scatter_reduce_arg": lambda m: x(m).scatter_reduce(0, m.zeros(1, 1, dtype=m.int64),
                                                            m.ones(1, 5), reduce="add"),
        "scatter_add_dtype": lambda m: x(m).scatter_add(1, L(m, [[1]]), x(m).double()),
        "scatter_add_dup": lambda m: x(m).scatter_add(1, L(m, [[0, 0, 0]]), m.ones(1, 3)),
        "index_select_oob": lambda m: x(m).index_select(1, L(m, [5])),
        "index_select_2d": lambda m: x(m).index_select(1, L(m, [[1]])),
        "index_select_float": lambda m: x(m).index_select(1, L(m, [1.0])),
        "index_select_0d": lambda m: m.tensor(5.0).index_select(0, L(m, [0, 0])),
        "index_select_0d_idx": lambda m: x(m).index_select(0, L(m, 1)),
        "index_add_oob": lambda m: x(m).index_add(1, L(m, [5]), m.ones(2, 1)),
        "index_add_shape": lambda m: x(m).index_add(1, L(m, [1]), m.ones(2, 2)),
        "index_add_dtype": lambda m: x(m).index_add(1, L(m, [1]), m.ones(2, 1,
                                                                         dtype=m.float64)),
        "index_add_float_idx": lambda m: x(m).index_add(1, L(m, [1.0]), m.ones(2, 1)),
        "index_add_2d_idx": lambda m: x(m).index_add(1, L(m, [[1]]), m.ones(2, 1)),
        "index_add_src_shape": lambda m: x(m).index_add(1, L(m, [1]), m.ones(3, 1)),
        "index_copy_oob": lambda m: x(m).index_copy(1, L(m, [5]), m.ones(2, 1)),
        "index_copy_numel": lambda m: x(m).index_copy(1, L(m, [1]), m.ones(2, 2)),
        "index_copy_dtype": lambda m: x(m).index_copy(1, L(m, [1]), m.ones(2, 1).double()),
        "index_copy_int32": lambda m: x(m).index_copy(1, m.tensor([1], dtype=m.int32),
                                                      m.ones(2, 1)),
        "index_fill_oob": lambda m: x(m).index_fill(1, L(m, [5]), 2.0),
        "index_fill_neg": lambda m: x(m).index_fill(1, L(m, [-1]), 2.0),
        "index_fill_int32": lambda m: x(m).index_fill(1, m.tensor([1], dtype=m.int32), 1.0),
        "index_fill_1d_value": lambda m: x(m).index_fill(1, L(m, [1]), L(m, [1.0])),
        "index_reduce_oob": lambda m: x(m).index_reduce(1, L(m, [5]), m.ones(2, 1), "prod"),
        "index_reduce_sum": lambda m: x(m).index_reduce(1, L(m, [1]), m.ones(2, 1), "sum"),
        "index_reduce_numel": lambda m: x(m).index_reduce(1, L(m, [1]), m.ones(2, 2), "prod"),
        "take_oob": lambda m: x(m).take(L(m, [6])),
        "take_neg": lambda m: x(m).take(L(m, [-6])),
        "take_negbad": lambda m: x(m).take(L(m, [-7])),
        "take_int32": lambda m: x(m).take(m.tensor([1], dtype=m.int32)),
        "put_oob": lambda m: x(m).put(L(m, [6]), L(m, [1.0])),
        "put_neg": lambda m: x(m).put(L(m, [-1]), L(m, [1.0])),
        "put_numel": lambda m: x(m).put(L(m, [1, 2]), L(m, [1.0])),
        "put_dtype": lambda m: x(m).put(L(m, [1]), L(m, [1.0]).double()),
        "take_along_none_neg": lambda m: x(m).take_along_dim(L(m, [[-1]])),
        "take_along_int32": lambda m: x(m).take_along_dim(m.tensor([[1]], dtype=m.int32), 1),
        "take_along_dims": lambda m: x(m).take_along_dim(L(m, [1]), 1),
        "take_along_bcast": lambda m: x(m).take_along_dim(L(m, [[1], [0], [1]]), 1),
        "take_along_bcast2": lambda m: m.arange(3.0).view(3, 1).take_along_dim(L(m, [[0, 0]]),
                                                                               1),
        "masked_fill_1d_value": lambda m: x(m).masked_fill(L(m, [1, 0, 1]) > 0, L(m, [1.0, 2])),
        "masked_fill_u8": lambda m: x(m).masked_fill(m.tensor([1, 0, 1], dtype=m.uint8), 1.0),
        "masked_fill__bcast": lambda m: m.ones(3).masked_fill_(m.ones(2, 3) > 0, 1.0),
        "masked_fill_overflow": lambda m: m.ones(3, dtype=m.int8).masked_fill(m.ones(3) > 0,
                                                                              300),
        "masked_select_u8": lambda m: x(m).masked_select(L(m, [1, 0, 1])),
        "masked_scatter_few": lambda m: x(m).masked_scatter(m.ones(2, 3) > 0, m.ones(5)),
        "masked_scatter_dtype": lambda m: x(m).masked_scatter(m.ones(2, 3) > 0,
                                                              m.ones(6, dtype=m.float64)),
        "masked_scatter_u8": lambda m: x(m).masked_scatter(m.ones(2, 3, dtype=m.uint8),
                                                           m.ones(6)),
        "index_put_oob": lambda m: x(m).index_put((L(m, [5]),), L(m, 1.0)),
        "index_put_dtype": lambda m: x(m).index_put((L(m, [1]),), L(m, 1.0).double()),
        "nonzero_0d": lambda m: m.nonzero(L(m, 3.0)),
        "argwhere_0d": lambda m: m.argwhere(L(m, 0.0)),
        "scatter_int_mean": lambda m: L(m, [1, 2, 3]).scatter_reduce(0, L(m, [0, 0]),
                                                                     L(m, [4, 5]), "mean"),
        "scatter_int_mean_excl": lambda m: L(m, [1, 2, 3]).scatter_reduce(
            0, L(m, [0, 0]), L(m, [4, 5]), "mean", include_self=False),
        "scatter_amax_excl": lambda m: L(m, [1.0, 2, 3]).scatter_reduce(
            0, L(m, [0, 0]), L(m, [5.0, 7]), "amax", include_self=False),
        "scatter_bool_add": lambda m: L(m, [True, False]).scatter_add(0, L(m, [1, 1]),
                                                                      L(m, [True, True])),
        "scatter_bool_prod": lambda m: L(m, [True, True]).scatter_reduce(0, L(m, [0]),
                                                                         L(m, [False]), "prod"),
    }


CASES = _cases()


@pytest.mark.parametrize("name", sorted(CASES))
def test_edge_cases_match_torch(torch, name):
    fn = CASES[name]
    assert_same_outcome(edge_outcome(ember, fn), edge_outcome(torch, fn))


# ---- autograd against torch ------------------------------------------------------------------

def _grad_cases():
    i23 = idx((2, 3), 4)
    i_sel = idx((5,), 4)
    i42 = idx((4, 2), 3)
    m = RNG.random((4, 3)) < 0.5
    return {
        "gather": (lambda M, a, b: a.gather(0, M.tensor(i23)), (4, 3), None),
        "scatter": (lambda M, a, b: a.scatter(1, M.tensor([[0, 2], [1, 0]]), b), (2, 3), (2, 2)),
        "scatter_value": (lambda M, a, b: a.scatter(1, M.tensor([[0, 2]]), 3.0), (2, 3), None),
        "scatter_add": (lambda M, a, b: a.scatter_add(0, M.tensor(i23), b), (4, 3), (2, 3)),
        "index_select": (lambda M, a, b: a.index_select(0, M.tensor(i_sel)), (4, 3), None),
        "index_add": (lambda M, a, b: a.index_add(0, M.tensor(i_sel), b, alpha=1.5), (4, 3),
                      (5, 3)),
        "index_copy": (lambda M, a, b: a.index_copy(0, M.tensor([3, 0]), b), (4, 3), (2, 3)),
        "index_fill": (lambda M, a, b: a.index_fill(1, M.tensor([0, 2]), -1.0), (4, 3), None),
        "masked_fill": (lambda M, a, b: a.masked_fill(M.tensor(m), 0.5), (4, 3), None),
        "masked_fill_tensor_value": (lambda M, a, b: a.masked_fill(M.tensor(m), b.sum()),
                                     (4, 3), (2,)),
        "masked_select": (lambda M, a, b: a.masked_select(M.tensor(m)), (4, 3), None),
        "masked_scatter": (lambda M, a, b: a.masked_scatter(M.tensor(m), b), (4, 3), (12,)),
        "take": (lambda M, a, b: a.take(M.tensor([[0, -1], [5, 5]])), (4, 3), None),
        "take_along_dim": (lambda M, a, b: a.take_along_dim(M.tensor(i42), 1),
                           (4, 3), None),
        "put_accumulate": (lambda M, a, b: a.put(M.tensor([0, 0, 7]), b, accumulate=True),
                           (4, 3), (3,)),
        "index_put": (lambda M, a, b: a.index_put((M.tensor([1, 3]),), b), (4, 3), (2, 3)),
        "scatter_reduce_sum_excl": (lambda M, a, b: a.scatter_reduce(
            0, M.tensor(i23), b, "sum", include_self=False), (4, 3), (2, 3)),
        "scatter_reduce_mean": (lambda M, a, b: a.scatter_reduce(0, M.tensor(i23), b, "mean"),
                                (4, 3), (2, 3)),
        "scatter_reduce_amax": (lambda M, a, b: a.scatter_reduce(0, M.tensor(i23), b, "amax"),
                                (4, 3), (2, 3)),
        "scatter_reduce_amin_excl": (lambda M, a, b: a.scatter_reduce(
            0, M.tensor(i23), b, "amin", include_self=False), (4, 3), (2, 3)),
        "scatter_reduce_prod": (lambda M, a, b: a.scatter_reduce(0, M.tensor(i23), b, "prod"),
                                (4, 3), (2, 3)),
        "index_reduce_amax": (lambda M, a, b: a.index_reduce(0, M.tensor(i_sel), b, "amax"),
                              (4, 3), (5, 3)),
    }


GRAD_CASES = _grad_cases()


def test_scatter_add_gradient_of_a_larger_src():
    """torch raises here (its src gradient has index's shape); ember pads it with zeros."""
    a = ember.zeros(4, 3, dtype=ember.float64, requires_grad=True)
    b = ember.ones(3, 4, dtype=ember.float64, requires_grad=True)
    i = ember.tensor([[0, 1, 2], [3, 3, 3]])
    g = RNG.standard_normal((4, 3))
    a.scatter_add(0, i, b).backward(ember.tensor(g))
    ref = np.zeros((3, 4))
    ref[:2, :3] = np.take_along_axis(g, N(i), 0)
    np.testing.assert_array_equal(N(b.grad), ref)
    np.testing.assert_array_equal(N(a.grad), g)


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_match_torch(torch, name):
    fn, ashape, bshape = GRAD_CASES[name]
    a = RNG.standard_normal(ashape)
    if name == "scatter_reduce_prod":
        a[0, 0] = 0.0  # a zero factor in self
    b = RNG.standard_normal(bshape) if bshape else None
    ea = ember.tensor(a, requires_grad=True)
    ta = torch.tensor(a, requires_grad=True)
    eb = ember.tensor(b, requires_grad=True) if b is not None else None
    tb = torch.tensor(b, requires_grad=True) if b is not None else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tr = fn(torch, ta, tb)
    er = fn(ember, ea, eb)
    np.testing.assert_allclose(N(er), tr.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = RNG.standard_normal(tuple(tr.shape))
    er.backward(ember.tensor(g))
    tr.backward(torch.tensor(g))
    np.testing.assert_allclose(N(ea.grad), ta.grad.numpy(), rtol=1e-10, atol=1e-12)
    if b is not None:
        np.testing.assert_allclose(N(eb.grad), tb.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_in_place_forms_record_history():
    a = ember.tensor(rand((4, 3)).astype(np.float64), requires_grad=True)
    b = a * 1.0
    b.index_fill_(0, ember.tensor([1]), 0.0)
    b.scatter_add_(1, ember.tensor([[0], [0], [0], [0]]), ember.ones(4, 1, dtype=ember.float64))
    b.masked_fill_(b > 10, 0.0)
    (b * 2).sum().backward()
    ref = np.full((4, 3), 2.0)
    ref[1] = 0.0
    np.testing.assert_array_equal(N(a.grad), ref)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        ember.ones(3, requires_grad=True).index_fill_(0, ember.tensor([0]), 1.0)


def test_take_from_empty_input_raises():
    with pytest.raises(IndexError, match="tried to take from an empty tensor"):
        ember.take(ember.empty((0, 4), dtype=ember.int32), ember.tensor([[-1], [0]]))
    assert ember.take(ember.empty((0, 4)), ember.tensor([], dtype=ember.int64)).shape == (0,)


def test_index_select_of_an_empty_self_checks_like_torch():
    # torch's empty-self path (dim > 1, no element): a selected dim of size 0 is its own
    # RuntimeError; other indices must lie in [0, size) (no wrap), RuntimeError too
    z = ember.zeros((0, 6, 2, 2))
    with pytest.raises(RuntimeError, match="self indexing axis dim should be positive"):
        z.index_select(0, ember.tensor([0]))
    for bad in (-1, 2):
        with pytest.raises(RuntimeError, match="out of DATA bounds"):
            z.index_select(3, ember.tensor([bad]))
    assert tuple(z.index_select(3, ember.tensor([1])).shape) == (0, 6, 2, 1)
    assert tuple(z.index_select(0, ember.tensor([], dtype=ember.int64)).shape) == (0, 6, 2, 2)
    # a 1-d empty self takes the ordinary path: IndexError
    with pytest.raises(IndexError):
        ember.zeros(0).index_select(0, ember.tensor([0]))


def test_fill_values_are_checked_for_overflow_only_when_written():
    h = ember.zeros(3, dtype=ember.float16)
    m = ember.tensor([True, False, False])
    # a 0-d tensor value converts to self's dtype with torch's overflow check, floats too
    for v in (ember.tensor(1e5), ember.tensor(-2051589135, dtype=ember.int32)):
        with pytest.raises(RuntimeError, match="without overflow"):
            h.masked_fill(m, v)
        with pytest.raises(RuntimeError, match="without overflow"):
            h.masked_fill(ember.zeros(3, dtype=ember.bool), v)
    assert np.isinf(N(h.masked_fill(m, ember.tensor(float("inf")))))[0]
    # scatter with an empty index writes nothing and converts nothing
    u = ember.tensor([10, 1], dtype=ember.uint8)
    empty = ember.zeros(0, dtype=ember.int64)
    for v in (1000, -256, 2147483648, 1e38, float("inf")):
        np.testing.assert_array_equal(N(u.scatter(0, empty, v)), [10, 1])
        with pytest.raises(RuntimeError, match="without overflow"):
            u.scatter(0, ember.tensor([0]), v)


def test_index_reduce_with_an_empty_index_is_a_copy():
    # nothing is reduced, no kernel runs: a bool self (which has no 'mean') is fine
    x = ember.tensor([[True], [False]])
    empty = ember.zeros(0, dtype=ember.int64)
    src = ember.zeros((0, 1), dtype=ember.bool)
    for red in ("mean", "prod", "amax", "amin"):
        r = x.index_reduce(0, empty, src, red, include_self=False)
        np.testing.assert_array_equal(N(r), [[True], [False]])
        assert x.index_reduce_(0, empty, src, red) is x
