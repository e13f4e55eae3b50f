"""Moving and converting on the CPU: dtype conversion between every pair against
NumPy, to(), copy_(), fill_(), tolist(), item(), numpy(), Python number protocols."""
import math

import numpy as np
import pytest

import ember

NP = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
ALL = NP + ["bfloat16"]


def values_for(src):
    """Values every destination can hold exactly (so NumPy and torch agree)."""
    if src == "bool":
        return np.array([True, False, True, True])
    if src == "uint8":
        return np.array([0, 1, 7, 100, 127], dtype=src)
    return np.array([0, 1, -3, 7, 100, -128, 127], dtype=src)


@pytest.mark.parametrize("src", NP)
@pytest.mark.parametrize("dst", NP)
def test_dtype_conversion_matrix_matches_numpy(src, dst):
    a = values_for(src)
    t = ember.from_numpy(a)
    got = t.to(getattr(ember, dst))
    assert got.dtype is getattr(ember, dst)
    ref = a.astype(dst)
    if src in ("int8", "int16", "int32", "int64", "float16", "float32", "float64") and dst in (
            "uint8",):
        ref = a.astype(np.int64).astype(np.uint8)  # negative -> uint8 wraps (via int64, as torch)
    np.testing.assert_array_equal(got.numpy(), ref)
    # Non-contiguous source: same values.
    g2 = ember.from_numpy(np.repeat(a, 2)[::2]).to(getattr(ember, dst))
    np.testing.assert_array_equal(g2.numpy(), ref)


def test_float_special_values():
    a = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-8, 65504.0, 65520.0, 1e5],
                 dtype=np.float32)
    t = ember.from_numpy(a)
    with np.errstate(over="ignore"):
        ref = a.astype(np.float16).astype(np.float32)
    np.testing.assert_array_equal(t.half().float().numpy(), ref)
    assert t.bool().tolist() == [False, False, True, True, True, True, True, True, True]
    assert math.copysign(1.0, t.double().tolist()[1]) == -1.0


def test_float16_rounding_matches_numpy_bit_for_bit():
    rng = np.random.default_rng(0)
    a = np.concatenate([
        rng.standard_normal(5000).astype(np.float32) * 10.0 ** rng.integers(-8, 6, 5000),
        np.array([6.1035156e-05, 5.9604645e-08, 2.9802322e-08, 65504, 65519.99, 1 + 2**-11,
                  1 + 3 * 2**-11], dtype=np.float32)]).astype(np.float32)
    got = ember.from_numpy(a).half().numpy()
    with np.errstate(over="ignore"):
        ref = a.astype(np.float16)
    np.testing.assert_array_equal(got.view(np.uint16), ref.view(np.uint16))
    back = ember.from_numpy(got).float().numpy()
    np.testing.assert_array_equal(back, got.astype(np.float32))


def test_bfloat16_round_trip_and_rounding():
    a = np.array([1.0, 1.00390625, 1.005859375, -2.5, 3.0e38, 1e-40, np.inf, np.nan],
                 dtype=np.float32)
    b = ember.from_numpy(a).bfloat16()
    assert b.dtype is ember.bfloat16 and b.element_size() == 2
    out = b.float().numpy()
    # Round to nearest even on the top 16 bits.
    bits = a.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    expected = rounded.astype(np.uint32).view(np.float32)
    np.testing.assert_array_equal(out[:-1], expected[:-1])
    assert math.isnan(out[-1])
    assert b.tolist()[:4] == [1.0, 1.0, 1.0078125, -2.5]


def test_to_forms_and_identity():
    t = ember.arange(6).view(2, 3)
    assert t.to(ember.int64) is t
    assert t.to("cpu") is t
    assert t.to(device="cpu", dtype=ember.int64) is t
    c = t.to(ember.int64, copy=True)
    assert c is not t and c.data_ptr() != t.data_ptr() and c.tolist() == t.tolist()
    f = t.to(ember.float64)
    assert f.dtype is ember.float64 and f.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert t.to(ember.zeros(1, dtype=ember.float16)).dtype is ember.float16
    assert t.to("cpu", ember.int8).dtype is ember.int8
    assert t.to(ember.device("cpu"), ember.float32, False, True).dtype is ember.float32
    assert t.cpu() is t
    for name, dt in [("float", ember.float32), ("half", ember.float16),
                     ("bfloat16", ember.bfloat16), ("double", ember.float64),
                     ("long", ember.int64), ("int", ember.int32), ("short", ember.int16),
                     ("char", ember.int8), ("byte", ember.uint8), ("bool", ember.bool)]:
        assert getattr(t, name)().dtype is dt
    assert t.long() is t
    assert t.t().float().stride() == (1, 3)  # dense layout kept, like torch
    with pytest.raises(TypeError, match="unexpected keyword"):
        t.to(ember.float32, blocking=True)


def test_copy_broadcasts_converts_and_returns_self():
    dst = ember.zeros(2, 3)
    src = ember.tensor([1, 2, 3])
    assert dst.copy_(src) is dst
    assert dst.tolist() == [[1.0, 2.0, 3.0]] * 2
    dst.t().copy_(ember.arange(6).view(3, 2))
    assert dst.tolist() == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]
    dst.copy_(ember.tensor(7.5))
    assert dst.tolist() == [[7.5] * 3] * 2
    with pytest.raises(RuntimeError, match="must match|doesn't match"):
        dst.copy_(ember.zeros(4))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ember.zeros(3).expand(2, 3).copy_(ember.ones(2, 3))
    with pytest.raises(TypeError, match="ember.Tensor"):
        dst.copy_([1, 2, 3])
    assert dst.tolist() == [[7.5] * 3] * 2


def test_copy_between_overlapping_views_reads_first():
    x = ember.arange(8)
    x[2:].copy_(x[:-2])
    assert x.tolist() == [0, 1, 0, 1, 2, 3, 4, 5]
    y = ember.arange(4)
    y.copy_(y)
    assert y.tolist() == [0, 1, 2, 3]
    z = ember.arange(6).view(2, 3)
    z[:, :2].copy_(z[:, 1:])  # partial overlap through a 2-D view
    assert z.tolist() == [[1, 2, 2], [4, 5, 5]]


def test_fill_and_zero():
    t = ember.empty(2, 3, dtype=ember.int16)
    assert t.fill_(3) is t and t.tolist() == [[3] * 3] * 2
    t[:, 1].fill_(-1)
    assert t.tolist() == [[3, -1, 3]] * 2
    assert t.zero_() is t and t.tolist() == [[0] * 3] * 2
    t.fill_(ember.tensor(2.9))
    assert t.tolist() == [[2] * 3] * 2
    # as torch: filling a number is idempotent, so an expanded tensor takes it (no overlap
    # check); filling from a tensor on the same device is a copy, which refuses
    base = ember.zeros(3)
    base.expand(2, 3).fill_(1)
    assert base.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(RuntimeError, match="more than one element"):
        base.expand(2, 3).fill_(ember.tensor(2.0))


def test_tolist_and_item():
    assert ember.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert ember.tensor(2.5).tolist() == 2.5
    assert ember.tensor([True]).tolist() == [True]
    assert isinstance(ember.tensor([1]).tolist()[0], int)
    assert isinstance(ember.tensor([1.0]).half().tolist()[0], float)
    assert ember.tensor([3]).item() == 3 and isinstance(ember.tensor([3]).item(), int)
    assert ember.tensor([[1.5]]).item() == 1.5
    assert ember.tensor(True).item() is True
    assert ember.zeros(2, 0).tolist() == [[], []]
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        ember.zeros(2).item()


def test_number_protocols():
    assert float(ember.tensor([2.5])) == 2.5
    assert int(ember.tensor(3.7)) == 3
    assert [10, 20, 30][ember.tensor(1)] == 20
    assert bool(ember.tensor([1])) and not bool(ember.tensor(0.0))
    with pytest.raises(RuntimeError, match="more than one value is ambiguous"):
        bool(ember.zeros(2))
    with pytest.raises(RuntimeError, match="no values is ambiguous"):
        bool(ember.zeros(0))
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        [1, 2][ember.tensor(1.0)]
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
        float(ember.zeros(3))


@pytest.mark.parametrize("name", NP)
def test_numpy_shares_memory(name):
    t = ember.arange(6).to(getattr(ember, name)).view(2, 3)
    n = t.numpy()
    assert n.dtype == np.dtype(name) and n.shape == (2, 3)
    assert n.ctypes.data == t.data_ptr()
    n2 = t.t().numpy()
    assert n2.strides == (n.itemsize, 3 * n.itemsize)
    assert np.shares_memory(n, n2)
    np.testing.assert_array_equal(np.asarray(t), n)
    assert np.asarray(t, dtype=np.float64).dtype == np.float64


def test_numpy_refuses_bfloat16():
    with pytest.raises(TypeError, match="BFloat16"):
        ember.zeros(2, dtype=ember.bfloat16).numpy()


def test_attributes():
    t = ember.zeros(2, 3, dtype=ember.float64)
    assert t.ndim == 2 == t.dim() == t.ndimension()
    assert t.nelement() == 6 == ember.numel(t)
    assert t.get_device() == -1
    assert t.device == ember.device("cpu") and t.device.type == "cpu"
    assert t.is_floating_point() and not t.is_complex() and ember.is_floating_point(t)
    assert t.requires_grad is False and t.grad is None and t.is_leaf
    assert t[1:].storage_offset() == 3 and t[:, 1].storage_offset() == 1
    with pytest.raises(RuntimeError, match="CUDA tensor"):
        t.record_stream(None)


# ---- property-based: strided copies with broadcasting and conversion vs NumPy --

from hypothesis import given, settings, strategies as st  # noqa: E402


@st.composite
def strided_view(draw, shape):
    """A random view (slices with steps, transposes) of a bigger array, as an index."""
    big = tuple(s * draw(st.integers(1, 2)) + draw(st.integers(0, 1)) for s in shape)
    index = []
    for s, b in zip(shape, big):
        step = draw(st.integers(1, 2)) if b >= 2 * s else 1
        start = draw(st.integers(0, b - s * step)) if b - s * step > 0 else 0
        index.append(slice(start, start + s * step, step))
    perm = draw(st.permutations(range(len(shape))))
    return big, tuple(index), perm


@settings(max_examples=150, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=0, max_size=4).map(tuple), data=st.data())
def test_random_strided_copies_match_numpy(shape, data):
    src_dtype = data.draw(st.sampled_from(NP))
    dst_dtype = data.draw(st.sampled_from(NP))
    big, index, perm = data.draw(strided_view(shape))
    np_index = index + (Ellipsis,)  # NumPy returns a 0-d view, not a scalar
    dst_np = np.zeros(big, dtype=dst_dtype)
    dst_view_np = dst_np[np_index].transpose(perm)
    # The source broadcasts: drop some leading dims and set some sizes to 1.
    target = dst_view_np.shape
    k = data.draw(st.integers(0, len(target)))
    src_shape = tuple(1 if data.draw(st.booleans()) else s for s in target[k:])
    src_np = (np.arange(int(np.prod(src_shape)) or 1)[: int(np.prod(src_shape))] % 100).astype(
        src_dtype).reshape(src_shape)
    src_big = np.zeros(tuple(s * 2 for s in src_shape), dtype=src_dtype)
    src_big[tuple(slice(0, None, 2) for _ in src_shape)] = src_np
    src_view_np = src_big[tuple(slice(0, None, 2) for _ in src_shape)]
    dst = ember.from_numpy(dst_np)[index].permute(*perm)
    src = ember.from_numpy(src_big)[tuple(slice(0, None, 2) for _ in src_shape)]
    dst.copy_(src)
    expected = np.zeros(big, dtype=dst_dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        expected[np_index].transpose(perm)[...] = np.broadcast_to(src_view_np, target).astype(
            dst_dtype)
    np.testing.assert_array_equal(dst_np, expected)
