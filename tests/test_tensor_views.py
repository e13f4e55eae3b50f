"""Views against NumPy: shapes, strides, offsets, values, and that they share memory."""
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember
from torch_util import assert_same_outcome, edge_outcome


def base(shape=(2, 3, 4), dtype=np.float32):
    a = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    return a, ember.from_numpy(a)


def same(t, ref, a=None):
    """t has ref's shape, strides (in elements) and values, and views a's memory."""
    item = ref.itemsize
    assert t.shape == ref.shape
    if ref.size > 1:
        strides = tuple(s // item for s, n in zip(ref.strides, ref.shape) if n > 1)
        mine = tuple(s for s, n in zip(t.stride(), t.shape) if n > 1)
        assert mine == strides
    np.testing.assert_array_equal(t.numpy(), ref)
    if a is not None and ref.size:
        assert np.shares_memory(t.numpy(), a)
        assert t.data_ptr() == ref.ctypes.data


def test_view_and_reshape():
    a, t = base()
    same(t.view(6, 4), a.reshape(6, 4), a)
    same(t.view((4, -1)), a.reshape(4, -1), a)
    same(t.view(-1), a.reshape(-1), a)
    same(t.reshape(3, 8), a.reshape(3, 8), a)
    same(t.view_as(ember.empty(24)), a.reshape(24), a)
    # A transposed tensor cannot be viewed flat: reshape copies.
    tt = t.transpose(0, 2)
    with pytest.raises(RuntimeError, match=r"view size is not compatible.*Use \.reshape"):
        tt.view(-1)
    r = tt.reshape(-1)
    np.testing.assert_array_equal(r.numpy(), a.transpose(2, 1, 0).reshape(-1))
    assert not np.shares_memory(r.numpy(), a)
    # ... but a reshape that only splits a dim stays a view.
    same(tt.reshape(2, 2, 3, 2), a.transpose(2, 1, 0).reshape(2, 2, 3, 2), a)


def test_view_of_zero_d_and_empty():
    t = ember.tensor(5.0)
    assert t.view(1).shape == (1,) and t.view(1, 1).shape == (1, 1) and t.view(()).shape == ()
    e = ember.empty(0, 3)
    assert e.view(3, 0).shape == (3, 0) and e.view(-1, 3).shape == (0, 3)
    with pytest.raises(RuntimeError, match="ambiguous"):
        e.view(0, -1)


def test_view_dtype_same_size():
    a = np.array([1.0, -2.0], dtype=np.float32)
    t = ember.from_numpy(a).view(ember.int32)
    np.testing.assert_array_equal(t.numpy(), a.view(np.int32))
    with pytest.raises(RuntimeError, match="different size"):
        ember.from_numpy(a).view(ember.int64)


def test_flatten():
    a, t = base()
    same(t.flatten(), a.reshape(-1), a)
    same(t.flatten(1), a.reshape(2, 12), a)
    same(t.flatten(0, 1), a.reshape(6, 4), a)
    assert ember.tensor(3.0).flatten().shape == (1,)
    assert ember.flatten(t, start_dim=1, end_dim=-1).shape == (2, 12)
    with pytest.raises(RuntimeError, match="start_dim cannot come after end_dim"):
        t.flatten(2, 0)


def test_squeeze_unsqueeze():
    a = np.arange(6.0).reshape(1, 2, 1, 3)
    t = ember.from_numpy(a)
    same(t.squeeze(), a.squeeze(), a)
    same(t.squeeze(0), a.squeeze(0), a)
    same(t.squeeze(1), a, a)  # size 2: unchanged
    same(t.squeeze((0, 2)), a.squeeze((0, 2)), a)
    same(t.unsqueeze(0), a[None], a)
    same(t.unsqueeze(-1), a[..., None], a)
    same(t.unsqueeze(2), np.expand_dims(a, 2), a)
    u = ember.zeros(2, 3)
    u.unsqueeze_(1)
    assert u.shape == (2, 1, 3)
    u.squeeze_()
    assert u.shape == (2, 3)


def test_permute_transpose_t():
    a, t = base()
    same(t.permute(2, 0, 1), a.transpose(2, 0, 1), a)
    same(t.permute((1, 2, 0)), a.transpose(1, 2, 0), a)
    same(t.permute(-1, 0, 1), a.transpose(2, 0, 1), a)
    same(t.transpose(0, 2), a.swapaxes(0, 2), a)
    same(t.swapaxes(1, 2), a.swapaxes(1, 2), a)
    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other than 2"):
        same(t.T, a.T, a)  # deprecated in torch 2.11 beyond 2 dims
    same(t.mT, a.swapaxes(-1, -2), a)
    m, mt = base((3, 5))
    same(mt.t(), m.T, m)
    same(ember.t(mt), m.T, m)
    same(ember.tensor([1, 2, 3]).t(), np.array([1, 2, 3]))
    x = ember.zeros(2, 3)
    x.t_()
    assert x.shape == (3, 2)
    x.transpose_(0, 1)
    assert x.shape == (2, 3)
    with pytest.raises(RuntimeError, match="duplicate dims"):
        t.permute(0, 0, 1)
    with pytest.raises(RuntimeError, match="does not match the length"):
        t.permute(0, 1)
    with pytest.raises(RuntimeError, match="expects a tensor with <= 2 dimensions"):
        t.t()
    with pytest.raises(RuntimeError, match="mT is only supported"):
        ember.zeros(3).mT


def test_movedim():
    a, t = base()
    same(t.movedim(0, -1), np.moveaxis(a, 0, -1), a)
    same(t.movedim((0, 1), (2, 0)), np.moveaxis(a, (0, 1), (2, 0)), a)


def test_expand():
    a = np.arange(3.0)
    t = ember.from_numpy(a)
    e = t.expand(2, 3)
    assert e.shape == (2, 3) and e.stride() == (0, 1)
    np.testing.assert_array_equal(e.numpy(), np.broadcast_to(a, (2, 3)))
    assert t.view(3, 1).expand(-1, 4).stride() == (1, 0)
    assert t.expand_as(ember.empty(5, 3)).shape == (5, 3)
    assert t.expand(2, 0, 3).shape == (2, 0, 3)
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(4\) must match the "
                                           r"existing size \(3\) at non-singleton dimension 1"):
        t.expand(2, 4)


def test_narrow_select_split_chunk_unbind():
    a, t = base()
    same(t.narrow(2, 1, 2), a[:, :, 1:3], a)
    same(t.narrow(1, -2, 2), a[:, 1:3], a)
    same(t.select(1, 2), a[:, 2], a)
    same(t.select(0, -1), a[-1], a)
    for got, ref in zip(t.split(3, dim=2), np.split(a, [3], axis=2)):
        same(got, ref, a)
    for got, ref in zip(t.split([1, 3], dim=2), np.split(a, [1], axis=2)):
        same(got, ref, a)
    parts = t.chunk(3, 1)
    assert [p.shape[1] for p in parts] == [1, 1, 1]
    assert [p.shape[2] for p in ember.arange(10).view(1, 1, 10).chunk(4, 2)] == [3, 3, 3, 1]
    assert [p.shape[0] for p in ember.arange(5).chunk(2)] == [3, 2]
    for i, u in enumerate(t.unbind(1)):
        same(u, a[:, i], a)
    assert isinstance(t.unbind(), tuple) and len(t.unbind()) == 2
    with pytest.raises(RuntimeError, match="exceeds dimension size"):
        t.narrow(2, 3, 2)
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes to sum"):
        t.split([1, 1], 2)


def test_diagonal_and_as_strided():
    a = np.arange(12.0).reshape(3, 4)
    t = ember.from_numpy(a)
    for off in (-2, -1, 0, 1, 3, 5):
        same(t.diagonal(off), np.diagonal(a, off), a)
    s = t.as_strided((2, 2), (1, 4), 1)
    np.testing.assert_array_equal(s.numpy(), np.lib.stride_tricks.as_strided(
        a[0, 1:], (2, 2), (8, 32)))
    with pytest.raises(RuntimeError, match="out of bounds for storage of size"):
        t.as_strided((4, 4), (4, 1))


def test_contiguous_and_clone():
    a, t = base()
    assert t.contiguous() is t
    tt = t.transpose(0, 1)
    c = tt.contiguous()
    assert c.is_contiguous() and not np.shares_memory(c.numpy(), a)
    np.testing.assert_array_equal(c.numpy(), a.transpose(1, 0, 2))
    k = t.clone()
    assert k.data_ptr() != t.data_ptr() and k.tolist() == t.tolist()
    kt = tt.clone()  # dense: keeps the transposed layout
    assert kt.stride() == tt.stride() and kt.tolist() == tt.tolist()
    ks = t[:, ::2].clone()  # not dense: contiguous
    assert ks.is_contiguous() and ks.tolist() == a[:, ::2].tolist()


def test_deepcopy_clones():
    import copy
    t = ember.arange(6).view(2, 3).t()
    c = copy.deepcopy(t)
    assert c.data_ptr() != t.data_ptr() and c.tolist() == t.tolist() and c.stride() == t.stride()


def test_is_contiguous_rules():
    assert ember.empty(2, 1, 3).transpose(0, 1).is_contiguous()  # size-1 dims don't count
    assert ember.empty(0, 3).t().is_contiguous()
    assert not ember.empty(2, 3).t().is_contiguous()
    assert ember.empty(3, 1)[:, :1].is_contiguous()


def test_iteration_len_and_functional_aliases():
    a, t = base((3, 2))
    rows = list(t)
    assert len(rows) == 3 == len(t) and rows[1].tolist() == a[1].tolist()
    assert ember.reshape(t, (2, 3)).shape == (2, 3)
    assert ember.squeeze(ember.zeros(1, 2)).shape == (2,)
    assert ember.transpose(t, 0, 1).shape == (2, 3)
    with pytest.raises(TypeError, match="0-d"):
        len(ember.tensor(1.0))
    with pytest.raises(TypeError, match="0-d"):
        iter(ember.tensor(1.0))


# ---- property-based: random shapes and view chains against NumPy -------------

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


@settings(max_examples=150, deadline=None)
@given(shape=shapes, data=st.data())
def test_random_view_chains_match_numpy(shape, data):
    a = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    t = ember.from_numpy(a)
    ref = a
    for _ in range(data.draw(st.integers(1, 4))):
        nd = ref.ndim
        op = data.draw(st.sampled_from(["T", "permute", "unsqueeze", "squeeze", "slice", "select",
                                        "reshape", "expand"]))
        if op == "T":
            with warnings.catch_warnings():  # x.T of other than 2 dims warns, as torch
                warnings.simplefilter("ignore", UserWarning)
                t, ref = t.T, ref.T
        elif op == "permute" and nd:
            p = data.draw(st.permutations(range(nd)))
            t, ref = t.permute(*p), ref.transpose(p)
        elif op == "unsqueeze":
            d = data.draw(st.integers(-nd - 1, nd))
            t, ref = t.unsqueeze(d), np.expand_dims(ref, d)
        elif op == "squeeze":
            t, ref = t.squeeze(), ref.squeeze()
        elif op == "slice" and nd:
            d = data.draw(st.integers(0, nd - 1))
            n = ref.shape[d]
            lo = data.draw(st.integers(-n - 1, n + 1))
            hi = data.draw(st.integers(-n - 1, n + 1))
            step = data.draw(st.integers(1, 3))
            idx = (slice(None),) * d + (slice(lo, hi, step),)
            t, ref = t[idx], ref[idx]
        elif op == "select" and nd and ref.shape[0]:
            i = data.draw(st.integers(-ref.shape[0], ref.shape[0] - 1))
            t, ref = t[i], ref[i]
        elif op == "reshape":
            t, ref = t.reshape(-1), ref.reshape(-1)
        elif op == "expand" and nd:
            if 1 in ref.shape:
                new = tuple(3 if s == 1 else s for s in ref.shape)
                t, ref = t.expand(*new), np.broadcast_to(ref, new)
        assert t.shape == ref.shape
        np.testing.assert_array_equal(t.numpy(), ref)
        # NumPy's rule is torch's: size-1 dims do not count, empty arrays are contiguous.
        assert t.is_contiguous() == ref.flags.c_contiguous


def test_iteration_layout_merges_dimensions():
    layout = ember._C._iter_layout
    a = ember.empty(4, 5, 6)
    assert layout(a, ember.empty(4, 5, 6)) == ((120,), (4,), (4,))
    # Both transposed the same way: still one contiguous walk.
    assert layout(a.transpose(0, 2), ember.empty(4, 5, 6).transpose(0, 2)) == ((120,), (4,), (4,))
    # A broadcast input: the inner dims merge, the broadcast dim stays (stride 0).
    assert layout(a, ember.empty(5, 6, dtype=ember.float64)) == ((30, 4), (4, 120), (8, 0))
    # The output's order decides the walk: innermost is out's stride-1 dim.
    shape, so, si = layout(a.transpose(1, 2), ember.empty(4, 6, 5))
    assert shape == (6, 5, 4) and so == (4, 24, 120) and si == (20, 4, 120)
    # A 0-d tensor is one element.
    assert layout(ember.empty(()), ember.empty(())) == ((1,), (0,), (0,))
    # A uniformly strided input merges; a sliced one splits where rows do not line up.
    assert layout(ember.empty(4, 3), ember.empty(4, 6)[:, ::2]) == ((12,), (4,), (8,))
    assert layout(ember.empty(4, 4), ember.empty(4, 7)[:, ::2]) == ((4, 4), (4, 16), (8, 28))


# ---- the edges of the views, as torch 2.11 --------------------------------------------
# Each case runs on a module (ember or torch): (exception type, message start) or the
# result's shape and values; test_view_edges_match_torch checks the table against torch.

VIEW_EDGE_CASES = {
    "movedim 0-d": (lambda m: m.tensor(1.5).movedim(0, -1), ((), 1.5)),
    "movedim 0-d list": (lambda m: m.movedim(m.tensor(1.5), [0], [0]), ((), 1.5)),
    "movedim 0-d bad dim": (lambda m: m.tensor(1.5).movedim(1, 0),
                            (IndexError, "Dimension out of range (expected to be in range of "
                                         "[-1, 0], but got 1)")),
    "view not compatible": (lambda m: m.zeros(2, 3).t().view(6),
                            (RuntimeError, "view size is not compatible with input tensor's size "
                                           "and stride")),
    "view bad numel": (lambda m: m.zeros(2, 3).view(7),
                       (RuntimeError, "shape '[7]' is invalid for input of size 6")),
    "reshape bad numel": (lambda m: m.zeros(2, 3).reshape(7, -1),
                          (RuntimeError, "shape '[7, -1]' is invalid for input of size 6")),
    "view two -1": (lambda m: m.zeros(2, 3).view(-1, -1),
                    (RuntimeError, "only one dimension can be inferred")),
    "view negative": (lambda m: m.zeros(2, 3).view(-2, 3),
                      (RuntimeError, "invalid shape dimension -2 at index 0 of shape [-2, 3]")),
    "reshape negative": (lambda m: m.zeros(2, 3).reshape(3, -3),
                         (RuntimeError, "invalid shape dimension -3 at index 1 of shape [3, -3]")),
    "mT 1-D": (lambda m: m.zeros(3).mT,
               (RuntimeError, "tensor.mT is only supported on matrices or batches of matrices. "
                              "Got 1-D tensor.")),
    "mH 1-D": (lambda m: m.zeros(3).mH,
               (RuntimeError, "tensor.mH is only supported on matrices or batches of matrices. "
                              "Got 1-D tensor.")),
    "H 3-D": (lambda m: m.zeros(1, 2, 3).H,
              (RuntimeError, "tensor.H is only supported on matrices (2-D tensors). Got 3-D "
                             "tensor. For batches of matrices, consider using tensor.mH")),
    "H 1-D": (lambda m: m.zeros(3).H,
              (RuntimeError, "tensor.H is only supported on matrices (2-D tensors). Got 1-D "
                             "tensor.")),
    "mT 3-D": (lambda m: m.arange(6.0).view(1, 2, 3).mT, ((1, 3, 2), [[[0., 3.], [1., 4.],
                                                                       [2., 5.]]])),
    "split 0-d": (lambda m: m.tensor(1.0).split(1),
                  (RuntimeError, "split expects at least a 1-dimensional tensor")),
    "split sizes 0-d": (lambda m: m.tensor(1.0).split([1]),
                        (RuntimeError, "split expects at least a 1-dimensional tensor")),
    "chunk 0-d": (lambda m: m.tensor(1.0).chunk(1),
                  (RuntimeError, "chunk expects at least a 1-dimensional tensor")),
    "chunk 0": (lambda m: m.zeros(3).chunk(0),
                (RuntimeError, "chunk expects `chunks` to be greater than 0, got: 0")),
    "split negative": (lambda m: m.zeros(3).split(-1),
                       (RuntimeError, "split expects split_size be non-negative, but got "
                                      "split_size=-1")),
    "unbind 0-d": (lambda m: m.tensor(1.0).unbind(),
                   (IndexError, "Dimension specified as 0 but tensor has no dimensions")),
    "unbind 0-d dim -1": (lambda m: m.tensor(1.0).unbind(-1),
                          (IndexError, "Dimension specified as 0 but tensor has no dimensions")),
    "select 0-d": (lambda m: m.tensor(1.0).select(0, 0),
                   (IndexError, "select() cannot be applied to a 0-dim tensor.")),
    "select out of range": (lambda m: m.zeros(3).select(0, 5),
                            (IndexError, "select(): index 5 out of range for tensor of size [3] "
                                         "at dimension 0")),
    "squeeze repeated dim": (lambda m: m.zeros(1, 2).squeeze((0, 0)),
                             (RuntimeError, "dim 0 appears multiple times in the list of dims")),
    "squeeze 0-d repeated": (lambda m: m.tensor(1.0).squeeze((0, -1)),
                             (RuntimeError, "dim 0 appears multiple times in the list of dims")),
    "squeeze 0-d": (lambda m: m.tensor(2.0).squeeze((-1,)), ((), 2.0)),
    "flatten 0-d bad dim": (lambda m: m.tensor(1.0).flatten(1),
                            (IndexError, "Dimension out of range (expected to be in range of "
                                         "[-1, 0], but got 1)")),
    "flatten 0-d": (lambda m: m.tensor(1.0).flatten(-1, 0), ((1,), [1.0])),
    "diagonal 1-D": (lambda m: m.zeros(3).diagonal(),
                     (IndexError, "Dimension out of range (expected to be in range of [-1, 0], "
                                  "but got 1)")),
}


@pytest.mark.parametrize("case", list(VIEW_EDGE_CASES))
def test_view_edges_raise_and_give_what_torch_does(case):
    fn, expected = VIEW_EDGE_CASES[case]
    assert_same_outcome(edge_outcome(ember, fn), expected)


@pytest.mark.parametrize("case", list(VIEW_EDGE_CASES))
def test_view_edges_match_torch(torch, case):
    fn, expected = VIEW_EDGE_CASES[case]
    assert_same_outcome(edge_outcome(torch, fn), expected)


@pytest.mark.parametrize("attr", ["T", "mT", "H", "mH"])
def test_transposes_of_a_0d_tensor_are_the_tensor_itself_with_a_deprecation_warning(attr):
    x = ember.tensor(2.5, requires_grad=True)
    advice = "Consider using x.conj()." if attr.endswith("H") else \
        "This function is the identity in these cases."
    with pytest.warns(UserWarning, match=re.escape(f"Tensor.{attr} is deprecated on 0-D tensors. "
                                                   f"{advice}")):
        y = getattr(x, attr)
    assert y.shape == () and y.item() == 2.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning):
            getattr(x, attr)
    (y * 3).backward()
    assert x.grad.item() == 3.0


def test_T_of_other_than_2_dims_reverses_them_with_a_deprecation_warning():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t = ember.from_numpy(a)
    with pytest.warns(UserWarning, match=r"The use of `x.T` on tensors of dimension other than 2"):
        got = t.T
    np.testing.assert_array_equal(got.numpy(), a.T)
    assert got.data_ptr() == t.data_ptr()  # a view
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(t[0].T.numpy(), a[0].T)  # 2-D: no warning
        np.testing.assert_array_equal(t.mT.numpy(), np.swapaxes(a, -1, -2))
        np.testing.assert_array_equal(t[0].H.numpy(), a[0].T)
        np.testing.assert_array_equal(t.mH.numpy(), np.swapaxes(a, -1, -2))


def test_split_chunk_unbind_of_0d_with_grad_raise_before_recording():
    x = ember.tensor(1.0, requires_grad=True)
    for fn in (lambda: x.split(1), lambda: x.chunk(2), lambda: x.split([1])):
        with pytest.raises(RuntimeError, match="expects at least a 1-dimensional tensor"):
            fn()
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        x.unbind()
