"""Creation functions against NumPy: shapes, strides, values, dtypes, memory sharing."""
import numpy as np
import pytest

import ember

ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
       "float64"]
NP = [n for n in ALL if n != "bfloat16"]


def npy(t):
    return np.asarray(t.numpy())


@pytest.fixture(autouse=True)
def _restore_default_dtype():
    before = ember.get_default_dtype()
    yield
    ember.set_default_dtype(before)


@pytest.mark.parametrize("data, dtype", [
    ([1, 2, 3], ember.int64),
    ([1.0, 2, 3], ember.float32),
    ([True, False], ember.bool),
    ([True, 2], ember.int64),
    ([[1, 2], [3, 4.5]], ember.float32),
    ((1, 2), ember.int64),
    (3, ember.int64),
    (2.5, ember.float32),
    (True, ember.bool),
    ([], ember.float32),
    ([[], []], ember.float32),
])
def test_tensor_infers_dtype_like_torch(data, dtype):
    t = ember.tensor(data)
    assert t.dtype is dtype
    ref = np.array(data)
    assert t.shape == ref.shape
    assert t.tolist() == ref.tolist()


def test_tensor_default_dtype_follows_set_default_dtype():
    ember.set_default_dtype(ember.float64)
    assert ember.tensor([1.5]).dtype is ember.float64
    assert ember.tensor([1]).dtype is ember.int64
    assert ember.zeros(2).dtype is ember.float64


@pytest.mark.parametrize("name", ALL)
def test_tensor_with_dtype(name):
    t = ember.tensor([[0, 1], [2, 3]], dtype=getattr(ember, name))
    assert t.dtype is getattr(ember, name)
    assert t.shape == (2, 2) and t.stride() == (2, 1)
    expected = [[False, True], [True, True]] if name == "bool" else [[0, 1], [2, 3]]
    assert t.tolist() == expected


def test_tensor_python_types_as_dtype():
    assert ember.tensor([1], dtype=float).dtype is ember.float64
    assert ember.tensor([1.7], dtype=int).dtype is ember.int64
    assert ember.tensor([1.7], dtype=int).tolist() == [1]
    assert ember.tensor([0, 2], dtype=bool).tolist() == [False, True]


@pytest.mark.parametrize("name", NP)
def test_tensor_from_numpy_array_copies(name):
    a = np.arange(6).reshape(2, 3).astype(name)
    t = ember.tensor(a)
    assert t.dtype is getattr(ember, name)
    np.testing.assert_array_equal(npy(t), a)
    assert not np.shares_memory(npy(t), a)


def test_tensor_from_numpy_with_negative_strides_and_scalars():
    a = np.arange(10.0)[::-2]
    np.testing.assert_array_equal(npy(ember.tensor(a)), a)
    assert ember.tensor(np.float32(1.5)).dtype is ember.float32
    assert ember.tensor(np.int16(3)).dtype is ember.int16
    assert ember.tensor([np.float64(1.5), 2]).tolist() == [1.5, 2.0]


def test_tensor_of_tensor_copies_and_list_of_tensors():
    a = ember.tensor([1.0, 2.0])
    b = ember.tensor(a)
    assert b.data_ptr() != a.data_ptr() and b.tolist() == [1.0, 2.0]
    c = ember.tensor([ember.tensor(1.0), ember.tensor(2.0)])
    assert c.tolist() == [1.0, 2.0]
    d = ember.tensor([ember.tensor([1, 2]), ember.tensor([3, 4])])
    assert d.shape == (2, 2) and d.tolist() == [[1, 2], [3, 4]]


def test_large_python_ints_and_floats():
    assert ember.tensor([2**62]).tolist() == [2**62]
    assert ember.tensor([-(2**63)]).tolist() == [-(2**63)]
    assert ember.tensor([1e300]).dtype is ember.float32
    assert ember.tensor([1e300], dtype=ember.float64).item() == 1e300


@pytest.mark.parametrize("fn, fill", [(ember.zeros, 0), (ember.ones, 1)])
@pytest.mark.parametrize("name", ALL)
def test_zeros_ones(fn, fill, name):
    dt = getattr(ember, name)
    for args in [(2, 3), ((2, 3),), ([2, 3],)]:
        t = fn(*args, dtype=dt)
        assert t.shape == (2, 3) and t.dtype is dt and t.is_contiguous()
        assert t.tolist() == [[bool(fill) if name == "bool" else fill] * 3] * 2


def test_empty_and_sizes():
    t = ember.empty(2, 3, 4)
    assert t.shape == (2, 3, 4) and t.stride() == (12, 4, 1) and t.dtype is ember.float32
    assert t.numel() == 24 and t.nbytes == 96 and t.element_size() == 4 and t.itemsize == 4
    assert t.storage_offset() == 0 and t.is_contiguous() and not t.is_cuda and t.is_cpu
    assert ember.empty(()).shape == () and ember.empty(()).numel() == 1
    assert ember.empty(0).numel() == 0 and ember.empty(0).data_ptr() == 0
    assert ember.empty(5).data_ptr() % 64 == 0  # 64-byte aligned host memory
    assert ember.empty(np.int64(3)).shape == (3,)


def test_size_type():
    s = ember.zeros(2, 3).shape
    assert isinstance(s, tuple) and isinstance(s, ember.Size)
    assert s == (2, 3) and repr(s) == "ember.Size([2, 3])" and s.numel() == 6
    assert ember.Size([4, 5]) == (4, 5)
    assert ember.zeros(2, 3).size() == s and ember.zeros(2, 3).size(1) == 3
    assert ember.zeros(2, 3).size(-1) == 3


@pytest.mark.parametrize("value, dtype", [(1, ember.int64), (1.5, ember.float32),
                                          (True, ember.bool)])
def test_full_infers_dtype(value, dtype):
    t = ember.full((2, 2), value)
    assert t.dtype is dtype and t.tolist() == [[value] * 2] * 2
    assert ember.full((3,), 7, dtype=ember.float16).tolist() == [7.0] * 3
    assert ember.full(3, 2.0).shape == (3,)


def test_like_functions_preserve_layout_and_override():
    base = ember.empty(3, 4, dtype=ember.float64).t()  # dense, transposed
    for fn in (ember.empty_like, ember.zeros_like, ember.ones_like):
        t = fn(base)
        assert t.shape == (4, 3) and t.dtype is ember.float64 and t.stride() == (1, 4)
    assert ember.zeros_like(base).tolist() == [[0.0] * 3] * 4
    assert ember.ones_like(base, dtype=ember.int32).dtype is ember.int32
    assert ember.full_like(base, 2.5).tolist() == [[2.5] * 3] * 4
    nondense = ember.empty(4, 6)[:, ::2]
    assert ember.empty_like(nondense).stride() == (3, 1)


@pytest.mark.parametrize("args, kwargs", [
    ((10,), {}), ((2, 10), {}), ((2, 10, 3), {}), ((10, 2, -3), {}), ((0, 1, 0.1), {}),
    ((-1.5, 2.5, 0.5), {}), ((5,), {"dtype": ember.float64}), ((1, 4), {"dtype": ember.int16}),
    ((0,), {}), ((3, 3), {}),
])
def test_arange_matches_numpy(args, kwargs):
    t = ember.arange(*args, **kwargs)
    ref = np.arange(*args)
    assert t.shape == ref.shape
    if "dtype" not in kwargs:
        expected = ember.int64 if ref.dtype.kind == "i" else ember.float32
        assert t.dtype is expected
    np.testing.assert_allclose(npy(t).astype(np.float64), ref.astype(np.float64), rtol=1e-6)


def test_arange_keywords_and_errors():
    assert ember.arange(start=2, end=5).tolist() == [2, 3, 4]
    assert ember.arange(1, 2, step=0.5).tolist() == [1.0, 1.5]
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        ember.arange(0, 5, 0)
    with pytest.raises(RuntimeError, match="inconsistent with step sign"):
        ember.arange(0, 5, -1)


@pytest.mark.parametrize("start, end, steps", [(0, 1, 5), (-3, 7, 11), (1, 0, 4), (2, 2, 3),
                                               (0, 1, 1), (0, 1, 0), (0, 10, 7)])
def test_linspace_matches_numpy(start, end, steps):
    t = ember.linspace(start, end, steps, dtype=ember.float64)
    ref = np.linspace(start, end, steps)
    assert t.shape == ref.shape
    np.testing.assert_allclose(npy(t), ref, rtol=1e-12, atol=1e-12)
    if steps > 1:
        assert t.tolist()[-1] == end and t.tolist()[0] == start
    assert ember.linspace(start, end, steps).dtype is ember.float32


def test_linspace_integer_dtype_and_errors():
    assert ember.linspace(0, 10, 5, dtype=ember.int64).tolist() == [0, 2, 5, 7, 10]
    with pytest.raises(RuntimeError, match="non-negative"):
        ember.linspace(0, 1, -1)


@pytest.mark.parametrize("n, m", [(3, None), (2, 4), (4, 2), (0, None), (1, 1)])
def test_eye_matches_numpy(n, m):
    t = ember.eye(n) if m is None else ember.eye(n, m)
    np.testing.assert_array_equal(npy(t), np.eye(n, m))
    assert ember.eye(2, dtype=ember.bool).tolist() == [[True, False], [False, True]]


def test_empty_strided():
    t = ember.empty_strided((2, 3), (1, 2))
    assert t.shape == (2, 3) and t.stride() == (1, 2) and not t.is_contiguous()
    t.fill_(1.0)
    assert t.tolist() == [[1.0] * 3] * 2


def test_from_numpy_shares_memory():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = ember.from_numpy(a)
    assert t.data_ptr() == a.ctypes.data
    assert t.stride() == (4, 1) and t.dtype is ember.float32
    a[0, 0] = 42
    assert t[0, 0].item() == 42
    t[1, 1] = -1
    assert a[1, 1] == -1
    # A strided NumPy view keeps its strides (in elements).
    v = ember.from_numpy(a[:, ::2])
    assert v.stride() == (4, 2) and v.tolist() == a[:, ::2].tolist()


def test_from_numpy_keeps_the_array_alive():
    import gc
    t = ember.from_numpy(np.arange(5, dtype=np.int32) * 3)
    gc.collect()
    assert t.tolist() == [0, 3, 6, 9, 12]
    n = t.numpy()
    del t
    gc.collect()
    assert n.tolist() == [0, 3, 6, 9, 12]


@pytest.mark.parametrize("name", NP)
def test_from_numpy_every_dtype(name):
    a = (np.arange(4) % 2 if name == "bool" else np.arange(4)).astype(name)
    t = ember.from_numpy(a)
    assert t.dtype is getattr(ember, name)
    assert np.shares_memory(t.numpy(), a)
    assert t.numpy().dtype == a.dtype


def test_as_tensor_shares_when_possible():
    a = np.arange(4, dtype=np.float64)
    t = ember.as_tensor(a)
    assert np.shares_memory(t.numpy(), a)
    c = ember.as_tensor(a, dtype=ember.float32)
    assert c.dtype is ember.float32 and not np.shares_memory(c.numpy(), a)
    x = ember.ones(3)
    assert ember.as_tensor(x) is not None and ember.as_tensor(x).data_ptr() == x.data_ptr()
    assert ember.as_tensor([1, 2]).tolist() == [1, 2]
    r = ember.as_tensor(a[::-1])  # negative strides: a copy
    assert r.tolist() == a[::-1].tolist()
    assert ember.asarray(a).data_ptr() == a.ctypes.data
    assert ember.asarray(a, copy=True).data_ptr() != a.ctypes.data


def test_legacy_tensor_constructor():
    assert ember.Tensor(2, 3).shape == (2, 3)
    assert ember.Tensor(2, 3).dtype is ember.float32
    assert ember.Tensor([1, 2]).tolist() == [1.0, 2.0]
    assert ember.Tensor().shape == (0,)
    assert isinstance(ember.zeros(1), ember.Tensor) and ember.is_tensor(ember.zeros(1))
    assert not ember.is_tensor([1])


def test_pin_memory_is_refused_or_needs_cuda():
    if ember.cuda.is_available():
        t = ember.empty(4, pin_memory=True)
        assert t.is_pinned()
    else:
        with pytest.raises(RuntimeError):
            ember.empty(4, pin_memory=True)
    assert not ember.empty(4).is_pinned()
    with pytest.raises(RuntimeError, match="pinned"):
        ember.empty(4, device="cuda", pin_memory=True)


def test_requires_grad_keyword():
    # Autograd (issue 8): floating tensors may require grad; integer ones may not.
    assert ember.zeros(2, requires_grad=True).requires_grad is True
    assert ember.zeros(2, requires_grad=False).requires_grad is False
    with pytest.raises(RuntimeError, match="floating point"):
        ember.zeros(2, dtype=ember.int64, requires_grad=True)


def test_cat_and_stack_match_numpy():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(6, 12, dtype=np.float32).reshape(2, 3)
    ea, eb = ember.from_numpy(a), ember.from_numpy(b)
    for dim in (0, 1, -1):
        np.testing.assert_array_equal(npy(ember.cat([ea, eb], dim)), np.concatenate([a, b], dim))
    for dim in (0, 1, 2, -1):
        np.testing.assert_array_equal(npy(ember.stack([ea, eb], dim)), np.stack([a, b], dim))
    np.testing.assert_array_equal(npy(ember.cat((ea, eb.t().t()), dim=1)),
                                  np.concatenate([a, b], 1))
    # Promotion and the legacy skip of empty 1-D tensors.
    mixed = ember.cat([ember.tensor([1, 2]), ember.tensor([0.5])])
    assert mixed.dtype is ember.float32 and mixed.tolist() == [1.0, 2.0, 0.5]
    assert ember.cat([ea, ember.tensor([])]).shape == (2, 3)
    assert ember.concat([ea, eb]).shape == (4, 3) and ember.concatenate([ea, eb], 1).shape == (2, 6)


def test_cat_and_stack_errors():
    with pytest.raises(RuntimeError, match="non-empty"):
        ember.cat([])
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 0"):
        ember.cat([ember.zeros(2, 3), ember.zeros(2, 4)])
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        ember.cat([ember.zeros(2, 3), ember.zeros(3)])
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        ember.stack([ember.zeros(2), ember.zeros(3)])
    with pytest.raises(TypeError, match="Tensors"):
        ember.cat([ember.zeros(2), [1, 2]])


def test_creation_keywords_and_argument_errors():
    t = ember.empty(2, 3, dtype=ember.int16, device="cpu", pin_memory=False, requires_grad=False,
                    layout=None, memory_format=None)
    assert t.shape == (2, 3) and t.dtype is ember.int16
    assert ember.zeros([2], device=ember.device("cpu")).tolist() == [0.0, 0.0]
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        ember.empty(2, foo=1)
    with pytest.raises(TypeError, match="must be tuple of ints, but found element of type float"):
        ember.zeros(2.0)
    with pytest.raises(TypeError, match="must be tuple of ints"):
        ember.ones((2, "3"))


def test_tensor_can_be_subclassed():
    class MyTensor(ember.Tensor):
        def double_shape(self):
            return tuple(2 * s for s in self.shape)

    t = MyTensor(2, 3)
    assert isinstance(t, ember.Tensor) and ember.is_tensor(t)
    assert t.double_shape() == (4, 6) and t.view(-1).shape == (6,)
    assert MyTensor([1.0, 2.0]).tolist() == [1.0, 2.0]


def test_new_functions_keep_dtype_and_device():
    base = ember.zeros(2, dtype=ember.int16)
    assert base.new_zeros(2, 3).dtype is ember.int16 and base.new_zeros((2, 3)).shape == (2, 3)
    assert base.new_ones(3).tolist() == [1, 1, 1]
    assert base.new_empty(4, dtype=ember.float64).dtype is ember.float64
    assert base.new_full((2,), 7).tolist() == [7, 7]
    t = base.new_tensor([1.7, 2.2])
    assert t.dtype is ember.int16 and t.tolist() == [1, 2]
    d = base.data
    assert d.data_ptr() == base.data_ptr() and d is not base
    assert base.detach().data_ptr() == base.data_ptr() and base.detach_() is base
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        base.new_zeros(2, foo=1)


@pytest.mark.parametrize("data, shape, dtype", [
    (np.float32(0.5), (), "float32"),
    (np.int16(3), (), "int16"),
    (np.float64(2.0), (), "float64"),
    ([np.float64(1.0), 2.0], (2,), "float64"),   # np.float64 is a float subclass
    ([np.int16(1), np.int16(2)], (2,), "int16"),
    ([np.float32(1), 2], (2,), "float32"),
    ([[np.uint8(1)], [2]], (2, 1), "int64"),     # uint8 with int64 promotes to int64
    ([1, 2.0], (2,), "float32"),
    ([True, 1], (2,), "int64"),
])
def test_dtype_inference_follows_torch_for_numpy_scalars(data, shape, dtype):
    for fn in (ember.tensor, ember.as_tensor):
        t = fn(data)
        assert tuple(t.shape) == shape and t.dtype == getattr(ember, dtype), (fn, data)
