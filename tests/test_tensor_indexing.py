"""__getitem__ / __setitem__ against NumPy: basic indexing gives views, advanced
indexing (integer tensors, lists, boolean masks) gives copies."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember
from torch_util import assert_same_outcome, edge_outcome


def pair(shape=(3, 4, 5), dtype=np.float32):
    a = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    return a, ember.from_numpy(a)


BASIC = [
    0, -1, 2, slice(None), slice(1, None), slice(None, -1), slice(None, None, 2),
    slice(-2, None), slice(10, 20), slice(-10, 2), (0, 1), (0, 1, 2), (-1, -1, -1),
    (slice(None), 1), (Ellipsis, 1), (1, Ellipsis), (None,), (None, 0), (0, None, 1),
    (Ellipsis, None), (slice(None), None, slice(1, 3)), (slice(None, None, 3), slice(1, None, 2)),
    Ellipsis, (), (1, slice(0, 0)), (None, None, Ellipsis, None),
]


@pytest.mark.parametrize("index", BASIC, ids=repr)
def test_basic_indexing_is_a_view_like_numpy(index):
    a, t = pair()
    np_index = index if isinstance(index, tuple) else (index,)
    if not any(i is Ellipsis for i in np_index):
        np_index += (Ellipsis,)  # NumPy then returns a 0-d view instead of a scalar
    got, ref = t[index], a[np_index]
    assert got.shape == ref.shape
    np.testing.assert_array_equal(got.numpy(), ref)
    if ref.size:
        assert np.shares_memory(got.numpy(), a)
        assert got.data_ptr() == ref.ctypes.data


def test_bool_scalar_indices():
    a, t = pair((2, 3))
    assert t[True].shape == (1, 2, 3)
    assert t[False].shape == (0, 2, 3)
    assert t[None, True].shape == (1, 1, 2, 3)


def test_zero_d_integer_tensor_index_selects():
    a, t = pair()
    np.testing.assert_array_equal(t[ember.tensor(1)].numpy(), a[1])
    np.testing.assert_array_equal(t[np.int64(2), np.int32(1)].numpy(), a[2, 1])


ADVANCED = [
    [0, 2], [[0, 1], [2, 0]], [-1, 0, -3], ([0, 2], [1, 3]), ([0, 2], slice(None), [1, 3]),
    (slice(None), [0, 3]), (slice(1, None), [2, 0], slice(None, None, 2)), (Ellipsis, [4, 0]),
    ([[0], [2]], [1, 3]), (0, [1, 2], [0, 4]), ([1], 0, [2]), ([0, 1], None, [2, 3]),
    (None, [0, 1]), [],
]


@pytest.mark.parametrize("index", ADVANCED, ids=repr)
def test_advanced_indexing_copies_like_numpy(index):
    a, t = pair()
    np_index = tuple(np.array(i, dtype=np.int64) if isinstance(i, list) else i
                     for i in index) if isinstance(index, tuple) else np.array(index, np.int64)
    got, ref = t[index], a[np_index]
    assert got.shape == ref.shape
    np.testing.assert_array_equal(got.numpy(), ref)
    if ref.size:
        assert not np.shares_memory(got.numpy(), a)


def test_index_tensors_of_every_integer_dtype():
    a, t = pair((5,))
    for dt in (ember.int8, ember.int16, ember.int32, ember.int64):
        idx = ember.tensor([4, 0, 2], dtype=dt)
        assert t[idx].tolist() == [4.0, 0.0, 2.0]


def test_boolean_masks():
    a, t = pair((3, 4))
    mask = a % 3 == 0
    m = ember.from_numpy(mask)
    np.testing.assert_array_equal(t[m].numpy(), a[mask])
    rows = np.array([True, False, True])
    np.testing.assert_array_equal(t[ember.from_numpy(rows)].numpy(), a[rows])
    np.testing.assert_array_equal(t[:, ember.from_numpy(mask[0])].numpy(), a[:, mask[0]])
    np.testing.assert_array_equal(t[rows.tolist()].numpy(), a[rows])  # a list of bools
    np.testing.assert_array_equal(t[ember.from_numpy(mask.astype(np.uint8))].numpy(), a[mask])
    assert t[ember.zeros(3, 4, dtype=ember.bool)].shape == (0,)
    with pytest.raises(IndexError, match=r"The shape of the mask \[2\] at index 0 does not match"):
        t[ember.tensor([True, False])]


def test_setitem_basic_scalars_and_broadcast():
    a, t = pair()
    ref = a.copy()
    t[0] = 7
    ref[0] = 7
    t[1, :, 2] = -1.5
    ref[1, :, 2] = -1.5
    t[2] = ember.arange(5, dtype=ember.float32)  # broadcast over dim 1
    ref[2] = np.arange(5)
    t[..., 0] = ember.tensor([[10.0], [20.0], [30.0]])
    ref[..., 0] = np.array([[10.0], [20.0], [30.0]])
    t[:, 1:3, ::2] = [1, 2, 3]
    ref[:, 1:3, ::2] = [1, 2, 3]
    np.testing.assert_array_equal(a, ref)  # all written through to the NumPy memory
    t[0, 0] = ember.tensor(5, dtype=ember.int64)  # converted to float32
    assert a[0, 0, 0] == 5


def test_setitem_advanced():
    a, t = pair((4, 3))
    ref = a.copy()
    t[[0, 2]] = 0
    ref[[0, 2]] = 0
    t[[1, 3], [2, 0]] = ember.tensor([8.0, 9.0])
    ref[[1, 3], [2, 0]] = [8.0, 9.0]
    mask = ref > 6
    t[ember.from_numpy(mask)] = -1
    ref[mask] = -1
    t[:, [0]] = ember.tensor([[1.0], [2.0], [3.0], [4.0]])
    ref[:, [0]] = [[1.0], [2.0], [3.0], [4.0]]
    np.testing.assert_array_equal(a, ref)


def test_setitem_with_overlapping_source():
    a, t = pair((6,))
    t[1:] = t[:-1]
    ref = np.arange(6, dtype=np.float32)
    ref[1:] = ref[:-1].copy()
    np.testing.assert_array_equal(a, ref)


def test_index_errors_leave_the_tensor_untouched():
    a, t = pair((3, 4))
    before = a.copy()
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        t[5]
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 0 with size 3"):
        t[-4]
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 1 with size 4"):
        t[0, 4]
    with pytest.raises(IndexError, match="index 7 is out of bounds for dimension 0 with size 3"):
        t[[0, 7]]
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        t[[0, 1], [0, 9]] = 100
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        t[0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        t[..., ...]
    with pytest.raises(IndexError, match="tensors used as indices must be long"):
        t[ember.tensor([0.0, 1.0])]
    with pytest.raises(IndexError, match="only integers, slices"):
        t["a"]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        t[::-1]
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        ember.tensor(1.0)[0]
    with pytest.raises(RuntimeError, match="shape mismatch"):
        t[[0, 1]] = ember.zeros(3)
    # torch: expand(torch.FloatTensor{[2, 4]}, size=[4]): the number of sizes provided ...
    with pytest.raises(RuntimeError, match=r"expand\(.*size=\[4\]\): the number of sizes"):
        t[0] = ember.zeros(2, 4)
    np.testing.assert_array_equal(a, before)
    t[0, 0] = 1  # still usable
    assert a[0, 0] == 1


# ---- property-based: random basic + advanced indices against NumPy ----------

@st.composite
def index_for(draw, shape):
    items = []
    dims = list(shape)
    while dims and len(items) < 4:
        kind = draw(st.sampled_from(["int", "slice", "none", "list", "stop"]))
        if kind == "stop":
            break
        if kind == "none":
            items.append(None)
            continue
        n = dims.pop(0)
        if kind == "int" and n:
            items.append(draw(st.integers(-n, n - 1)))
        elif kind == "list" and n:
            items.append(draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=3)))
        else:
            items.append(slice(draw(st.integers(-n - 2, n + 2)) if draw(st.booleans()) else None,
                               draw(st.integers(-n - 2, n + 2)) if draw(st.booleans()) else None,
                               draw(st.integers(1, 3))))
    return tuple(items)


@settings(max_examples=200, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple), data=st.data())
def test_random_indices_match_numpy(shape, data):
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    t = ember.from_numpy(a)
    index = data.draw(index_for(shape))
    lists = [i for i in index if isinstance(i, list)]
    if len({len(x) for x in lists}) > 1:
        return  # index arrays that do not broadcast: NumPy and ember both raise
    if lists and any(isinstance(i, int) for i in index):
        # torch (and ember) apply integers as select() before the advanced indices;
        # NumPy counts them as advanced, which moves the broadcast dims differently.
        return
    np_index = tuple(np.array(i) if isinstance(i, list) else i for i in index)
    ref = a[np_index]
    got = t[index]
    assert got.shape == ref.shape
    np.testing.assert_array_equal(got.numpy(), ref)
    # __setitem__ through the same index writes the same elements.
    b = a.copy()
    tb = ember.from_numpy(b)
    b2 = a.copy()
    tb[index] = -7
    b2[np_index] = -7
    np.testing.assert_array_equal(b, b2)


# ---- the edges of indexing, as torch 2.11 ---------------------------------------------
# Each case runs on a module (ember or torch): (exception type, message start) or the
# result's shape and values; test_indexing_edges_match_torch checks the table against torch.


def _set(x, index, value):
    x[index] = value
    return x


INDEXING_EDGE_CASES = {
    # A 0-d bool (or uint8) tensor index acts as a Python bool: a new dim of size 1 (or 0).
    "0-d bool true": (lambda m: m.arange(3)[m.tensor(True)], ((1, 3), [[0, 1, 2]])),
    "0-d bool false": (lambda m: m.arange(3)[m.tensor(False)], ((0, 3), [])),
    "0-d bool of 0-d": (lambda m: m.tensor(5)[m.tensor(True)], ((1,), [5])),
    "0-d uint8": (lambda m: m.arange(3)[m.tensor(1, dtype=m.uint8)], ((1, 3), [[0, 1, 2]])),
    "0-d bool with slice": (lambda m: m.arange(6).view(2, 3)[m.tensor(True), 1:],
                            ((1, 1, 3), [[[3, 4, 5]]])),
    "setitem 0-d bool true": (lambda m: _set(m.arange(3), m.tensor(True), 7), ((3,), [7, 7, 7])),
    "setitem 0-d bool false": (lambda m: _set(m.arange(3), m.tensor(False), 7),
                               ((3,), [0, 1, 2])),
    # Indexing 0-d tensors.
    "0-d int": (lambda m: m.tensor(1.0)[0],
                (IndexError, "invalid index of a 0-dim tensor. Use `tensor.item()`")),
    "0-d slice": (lambda m: m.tensor(1.0)[0:1],
                  (IndexError, "slice() cannot be applied to a 0-dim tensor.")),
    "0-d slice in a tuple": (lambda m: m.tensor(1.0)[(slice(0, 1),)],
                             (IndexError, "too many indices for tensor of dimension 0")),
    "0-d setitem slice": (lambda m: _set(m.tensor(1.0), slice(0, 1), 2.0),
                          (IndexError, "slice() cannot be applied to a 0-dim tensor.")),
    "int out of range": (lambda m: m.zeros(2, 3)[:, 3],
                         (IndexError, "index 3 is out of bounds for dimension 1 with size 3")),
    # An empty result reads nothing: its indices are not checked.
    "empty result, bad index": (lambda m: m.zeros(2, 2)[[5], 2:2], ((1, 0), [[]])),
    # setitem drops the value's leading dims of size 1 before broadcasting.
    "setitem leading ones basic": (lambda m: _set(m.zeros(2, 3), 0, m.ones(1, 1, 3)),
                                   ((2, 3), [[1.0] * 3, [0.0] * 3])),
    "setitem leading ones advanced": (lambda m: _set(m.zeros(3, 2), [0, 1], m.ones(1, 1, 2, 2)),
                                      ((3, 2), [[1.0] * 2, [1.0] * 2, [0.0] * 2])),
    "setitem too many dims": (lambda m: _set(m.zeros(3, 2), 0, m.ones(2, 2)),
                              (RuntimeError, "expand(")),
    # Advanced setitem: no dtype conversion (index_put_), except through masked_fill.
    "setitem list, long into float": (
        lambda m: _set(m.zeros(3), [0, 1], m.tensor([1, 2])),
        (RuntimeError, "Index put requires the source and destination dtypes match, got Float "
                       "for the destination and Long for the source.")),
    "setitem tensor index, float into int": (
        lambda m: _set(m.zeros(3, dtype=m.int32), m.tensor([0]), m.tensor([1.5])),
        (RuntimeError, "Index put requires the source and destination dtypes match, got Int "
                       "for the destination and Float for the source.")),
    "setitem mask, two values of another dtype": (
        lambda m: _set(m.zeros(3), m.tensor([True, False, True]), m.tensor([1, 2])),
        (RuntimeError, "Index put requires the source and destination dtypes match")),
    "setitem mask, one value of another dtype": (
        lambda m: _set(m.zeros(3, dtype=m.int8), m.tensor([True, False, True]), m.tensor([2.5])),
        ((3,), [2, 0, 2])),
    "setitem mask, two values": (
        lambda m: _set(m.zeros(3), m.tensor([True, False, True]), m.tensor([1.0, 2.0])),
        ((3,), [1.0, 0.0, 2.0])),
    "setitem uint8 mask, one value": (
        lambda m: _set(m.zeros(3), m.tensor([1, 0, 1], dtype=m.uint8), 2.0),
        (RuntimeError, "masked_fill_ only supports boolean masks, but got mask with dtype "
                       "unsigned char")),
    "setitem basic, long into float": (lambda m: _set(m.zeros(3), slice(None), m.tensor([1, 2, 3])),
                                       ((3,), [1.0, 2.0, 3.0])),
}


@pytest.mark.parametrize("case", list(INDEXING_EDGE_CASES))
def test_indexing_edges_raise_and_give_what_torch_does(case):
    fn, expected = INDEXING_EDGE_CASES[case]
    assert_same_outcome(edge_outcome(ember, fn), expected)


@pytest.mark.parametrize("case", list(INDEXING_EDGE_CASES))
def test_indexing_edges_match_torch(torch, case):
    fn, expected = INDEXING_EDGE_CASES[case]
    assert_same_outcome(edge_outcome(torch, fn), expected)


def test_failed_setitem_leaves_the_tensor_untouched():
    x = ember.arange(6).view(2, 3)
    with pytest.raises(RuntimeError, match="Index put requires the source and destination"):
        x[[0, 1]] = ember.ones(3)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64_t"):
        x[0] = 2.0**64
    assert x.tolist() == [[0, 1, 2], [3, 4, 5]]


def test_range_and_sequences_as_indices():
    """x[range(n), target] (the cross-entropy idiom) and ranges anywhere a list of ints goes."""
    x = ember.arange(12.0).reshape(3, 4)
    assert x[range(3), [0, 1, 2]].tolist() == [0.0, 5.0, 10.0]
    assert x[range(2)].tolist() == x[[0, 1]].tolist()
    assert x[range(0)].shape == (0, 4)
    assert x[:, range(1, 3)].tolist() == [[1.0, 2.0], [5.0, 6.0], [9.0, 10.0]]
    assert x[(0, 1)].item() == 1.0
    assert x[[0, 1], [1, 2]].tolist() == [1.0, 6.0]
    y = x.clone()
    y[range(3), [0, 1, 2]] = 7.0
    assert y.diagonal().tolist() == [7.0, 7.0, 7.0]
    with pytest.raises(IndexError, match="out of bounds"):
        x[range(4)]
