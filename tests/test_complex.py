"""Complex dtypes (complex32 storage, complex64, complex128) on the CPU against NumPy:
dtypes and promotion, creation and Python numbers, conversions, views (real, imag,
view_as_real, view_as_complex), elementwise math on contiguous, strided, broadcast,
0-d and empty tensors with out= and in-place forms, reductions, matrix products,
NumPy/DLPack round trips, printing, autograd (gradcheck in torch's convention), and
torch's errors for the ops without complex kernels. tests/test_complex_gpu.py checks
the GPU against torch."""
import math
import warnings

import numpy as np
import pytest

import ember

rng = np.random.default_rng(1234)

CDTYPES = [ember.complex64, ember.complex128]
NPC = {ember.complex64: np.complex64, ember.complex128: np.complex128}
RTOL = {ember.complex64: 1e-5, ember.complex128: 1e-12}


def crandn(shape, dtype=np.complex128):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def E(a):
    """An ember CPU tensor holding a fresh copy of ndarray a."""
    return ember.from_numpy(np.array(a, copy=True))


def close(t, expected, rtol, atol=None):
    got = t.numpy()
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol if atol is None else atol)


# ---- dtypes ------------------------------------------------------------------------------

def test_dtype_objects():
    assert ember.cfloat is ember.complex64 and ember.cdouble is ember.complex128
    assert ember.chalf is ember.complex32
    for d, size, real in ((ember.complex32, 4, ember.float16), (ember.complex64, 8, ember.float32),
                          (ember.complex128, 16, ember.float64)):
        assert d.is_complex and not d.is_floating_point and d.is_signed
        assert d.itemsize == size
        assert d.to_real() is real and real.to_complex() is d
        assert repr(d) == "ember." + str(d).split(".")[1]
    assert ember.float32.is_complex is False and ember.float32.to_real() is ember.float32
    assert ember.bfloat16.to_complex() is ember.complex64
    assert ember.finfo(ember.complex64).eps == ember.finfo(ember.float32).eps
    assert ember.finfo(ember.complex128).dtype == "float64"


@pytest.mark.parametrize("a, b, expected", [
    ("complex64", "float32", "complex64"),
    ("complex64", "float64", "complex128"),
    ("complex32", "float32", "complex64"),
    ("complex32", "float16", "complex32"),
    ("complex32", "bfloat16", "complex64"),
    ("complex32", "int64", "complex32"),
    ("complex64", "int64", "complex64"),
    ("complex64", "bool", "complex64"),
    ("complex64", "complex128", "complex128"),
])
def test_promote_types(a, b, expected):
    a, b, expected = (getattr(ember, n) for n in (a, b, expected))
    assert ember.promote_types(a, b) is expected
    assert ember.promote_types(b, a) is expected


def test_result_type_categories():
    f32, f64 = ember.ones(2), ember.ones(2, dtype=ember.float64)
    c64 = ember.ones(2, dtype=ember.complex64)
    assert (f32 + c64).dtype is ember.complex64
    assert (f64 + c64).dtype is ember.complex128
    assert (ember.tensor(1.0, dtype=ember.float64) + c64).dtype is ember.complex64
    assert (ember.tensor(1 + 1j) + f64).dtype is ember.complex128
    assert (ember.ones(2, dtype=ember.int64) * 1j).dtype is ember.complex64
    assert (f64 * 1j).dtype is ember.complex128
    assert (ember.ones(2, dtype=ember.bfloat16) * 1j).dtype is ember.complex64
    assert (ember.ones(2, dtype=ember.int32) / 1j).dtype is ember.complex64
    assert ember.result_type(f32, 1j) is ember.complex64
    assert ember.can_cast(ember.float64, ember.complex64)
    assert not ember.can_cast(ember.complex64, ember.float64)
    assert ember.can_cast(ember.complex128, ember.complex64)


def test_default_complex_dtype_follows_default_dtype():
    before = ember.get_default_dtype()
    try:
        ember.set_default_dtype(ember.float64)
        assert ember.tensor([1j]).dtype is ember.complex128
        assert (ember.ones(2, dtype=ember.int64) * 1j).dtype is ember.complex128
    finally:
        ember.set_default_dtype(before)
    assert ember.tensor([1j]).dtype is ember.complex64


# ---- creation, Python numbers ------------------------------------------------------------

def test_creation():
    t = ember.tensor([1 + 2j, 3, 4.5])
    assert t.dtype is ember.complex64
    assert t.tolist() == [1 + 2j, 3 + 0j, 4.5 + 0j]
    assert ember.tensor(1 + 2j).item() == 1 + 2j
    assert ember.tensor([[1j]], dtype=ember.complex128).dtype is ember.complex128
    z = ember.zeros(2, 3, dtype=ember.complex64)
    assert z.tolist() == [[0j] * 3] * 2
    assert ember.ones(2, dtype=ember.cdouble).tolist() == [1 + 0j, 1 + 0j]
    f = ember.full((2,), 1 + 1j)
    assert f.dtype is ember.complex64 and f.tolist() == [1 + 1j, 1 + 1j]
    assert ember.full((2,), 1 - 3j, dtype=ember.complex128).tolist() == [1 - 3j] * 2
    assert ember.full((2,), 1 + 0j, dtype=ember.float32).tolist() == [1.0, 1.0]
    assert ember.empty(0, dtype=ember.complex64).numel() == 0
    assert ember.zeros_like(f).dtype is ember.complex64
    assert ember.tensor(np.complex64(2 - 1j)).dtype is ember.complex64
    assert ember.tensor([np.complex128(1j)]).dtype is ember.complex128


def test_creation_errors():
    with pytest.raises(TypeError, match="must be real number, not complex"):
        ember.tensor([1 + 1j], dtype=ember.float32)
    with pytest.raises(RuntimeError, match="value cannot be converted to type float without "
                                           "overflow"):
        ember.full((2,), 1 + 1j, dtype=ember.float32)
    with pytest.raises(RuntimeError, match="int64_t"):
        ember.zeros(2, dtype=ember.int64).fill_(1j)
    with pytest.raises(RuntimeError, match="only integral, floating-point and boolean"):
        ember.empty(2, dtype=ember.complex64).random_(0, 5)
    with pytest.raises(RuntimeError, match="arange_cpu"):
        ember.arange(3, dtype=ember.complex64)


def test_fill_setitem_and_python_protocols():
    z = ember.zeros(3, dtype=ember.complex64)
    z[0] = 1 + 2j
    z[1] = 3
    z[2:] = ember.tensor([5j])
    assert z.tolist() == [1 + 2j, 3 + 0j, 5j]
    z.fill_(2 - 1j)
    assert z.tolist() == [2 - 1j] * 3
    assert complex(ember.tensor(1 - 2j)) == 1 - 2j
    assert complex(ember.tensor(2.5)) == 2.5 + 0j
    assert bool(ember.tensor(1j)) and not bool(ember.tensor(0j))
    assert float(ember.tensor(2 + 0j)) == 2.0
    with pytest.raises(RuntimeError, match="double without overflow"):
        float(ember.tensor(1 + 2j))
    with pytest.raises(RuntimeError, match="int64_t without overflow"):
        int(ember.tensor(1 + 2j))


def test_randn_and_rand():
    ember.manual_seed(0)
    x = ember.randn(200_000, dtype=ember.complex64)
    a = x.numpy()
    assert x.dtype is ember.complex64
    # each part N(0, 1/2): E|z|^2 = 1
    assert abs(np.mean(np.abs(a) ** 2) - 1) < 0.02
    assert abs(np.var(a.real) - 0.5) < 0.01 and abs(np.var(a.imag) - 0.5) < 0.01
    assert abs(np.corrcoef(a.real, a.imag)[0, 1]) < 0.01
    u = ember.rand(10_000, dtype=ember.complex128).numpy()
    assert 0 <= u.real.min() and u.real.max() < 1 and 0 <= u.imag.min() and u.imag.max() < 1
    g = ember.Generator().manual_seed(3)
    a1 = ember.randn(4, dtype=ember.complex64, generator=g)
    g.manual_seed(3)
    assert ember.equal(a1, ember.randn(4, dtype=ember.complex64, generator=g)) \
        if hasattr(ember, "equal") else (a1 == ember.randn(4, dtype=ember.complex64,
                                                           generator=g.manual_seed(3))).all()


# ---- conversions ----------------------------------------------------------------------

def test_conversions():
    a = crandn((3, 4))
    t = E(a)
    assert t.dtype is ember.complex128
    close(t.to(ember.complex64), a.astype(np.complex64), 1e-6)
    close(t.cfloat(), a.astype(np.complex64), 1e-6)
    assert t.cfloat().cdouble().dtype is ember.complex128
    close(E(a.real).to(ember.complex64), a.real.astype(np.complex64), 1e-6)
    close(E(a.real.astype(np.int32)).to(ember.complex128), a.real.astype(np.int32) + 0j, 0)
    with pytest.warns(UserWarning, match="Casting complex values to real discards the "
                                         "imaginary part"):
        r = t.to(ember.float32)
    np.testing.assert_allclose(r.numpy(), a.real.astype(np.float32), rtol=1e-6)
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        r = t.float()
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        ember.empty(3, 4).copy_(t)
    b = ember.tensor([0j, 1j, 1 + 0j, 0 * 1j])
    with pytest.warns(UserWarning):
        assert b.bool().tolist() == [False, True, True, False]
    # a non-contiguous source and a broadcast one
    s = E(a).t()
    close(s.to(ember.complex64), a.T.astype(np.complex64), 1e-6)
    d = ember.empty(3, 4, dtype=ember.complex64)
    d.copy_(ember.tensor([1.5, 2.5, 3.5, 4.5]))
    assert d.tolist() == [[1.5 + 0j, 2.5 + 0j, 3.5 + 0j, 4.5 + 0j]] * 3


def test_complex32_storage():
    t = ember.tensor([1 + 2j, -0.5 + 0.25j]).to(ember.complex32)
    assert t.dtype is ember.complex32 and t.element_size() == 4
    assert t.tolist() == [1 + 2j, -0.5 + 0.25j]
    assert ember.view_as_real(t).dtype is ember.float16
    assert t.to(ember.complex128).tolist() == [1 + 2j, -0.5 + 0.25j]
    assert repr(t) == "tensor([ 1.0000+2.0000j, -0.5000+0.2500j], dtype=ember.complex32)"
    assert (t + t).tolist() == [2 + 4j, -1 + 0.5j]  # computed in complex64, stored as halves
    assert (t * t).dtype is ember.complex32
    with pytest.raises(RuntimeError, match="ComplexHalf"):
        t.sum()
    with pytest.raises(TypeError, match="ComplexHalf"):
        t.numpy()


# ---- views ------------------------------------------------------------------------------

def test_real_imag_views():
    a = crandn((3, 4))
    t = E(a)
    re, im = t.real, t.imag
    assert re.dtype is ember.float64 and re.shape == (3, 4) and re.stride() == (8, 2)
    assert im.storage_offset() == 1
    np.testing.assert_array_equal(re.numpy(), a.real)
    np.testing.assert_array_equal(im.numpy(), a.imag)
    re.mul_(2)  # writes the complex tensor
    im.fill_(0)
    np.testing.assert_array_equal(t.numpy(), 2 * a.real + 0j)
    t.imag = ember.ones(3, 4, dtype=ember.float64)
    t.real = 5
    assert t[0, 0].item() == 5 + 1j
    assert ember.real(t) .shape == (3, 4) and ember.imag(t).shape == (3, 4)
    f = ember.ones(2)
    assert f.real is f or f.real.data_ptr() == f.data_ptr()
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex "
                                           "dtypes."):
        f.imag


def test_view_as_real_and_complex():
    a = crandn((2, 3)).astype(np.complex64)
    t = E(a)
    r = ember.view_as_real(t)
    assert r.shape == (2, 3, 2) and r.dtype is ember.float32 and r.stride() == (6, 2, 1)
    np.testing.assert_array_equal(r.numpy(), np.stack([a.real, a.imag], -1))
    c = ember.view_as_complex(r)
    assert c.dtype is ember.complex64 and c.data_ptr() == t.data_ptr()
    np.testing.assert_array_equal(c.numpy(), a)
    x = ember.arange(12.0).view(6, 2)[::2]  # strides (4, 1): allowed
    np.testing.assert_array_equal(ember.view_as_complex(x).numpy(), [0 + 1j, 4 + 5j, 8 + 9j])
    assert ember.view_as_complex(ember.zeros(3, 2, dtype=ember.float16)).dtype is ember.complex32
    with pytest.raises(RuntimeError, match="view_as_real is only supported for complex tensors"):
        ember.view_as_real(ember.ones(2))
    with pytest.raises(RuntimeError, match="last dimension of size 2"):
        ember.view_as_complex(ember.ones(3))
    with pytest.raises(RuntimeError, match="last dimension with stride 1"):
        ember.view_as_complex(ember.ones(2, 3).t())
    with pytest.raises(RuntimeError, match="storage_offset divisible by 2"):
        ember.view_as_complex(ember.ones(5)[1:].view(2, 2))
    with pytest.raises(RuntimeError, match="only supported for half, float and double tensors, "
                                           "but got a tensor of scalar type: Long"):
        ember.view_as_complex(ember.ones(3, 2, dtype=ember.int64))


def test_strided_views_of_complex_tensors():
    a = crandn((4, 6))
    t = E(a)
    np.testing.assert_array_equal(t[:, 1::2].numpy(), a[:, 1::2])
    np.testing.assert_array_equal(t.t().contiguous().numpy(), a.T)
    np.testing.assert_array_equal(t[[0, 2]].numpy(), a[[0, 2]])
    np.testing.assert_array_equal(t[t.real > 0].numpy(), a[a.real > 0])
    np.testing.assert_array_equal(ember.cat([t, t]).numpy(), np.concatenate([a, a]))
    np.testing.assert_array_equal(ember.stack([t[0], t[1]]).numpy(), a[:2])
    u = t.clone()
    u[[1, 3]] = ember.zeros(2, 6, dtype=ember.complex128)
    b = a.copy()
    b[[1, 3]] = 0
    np.testing.assert_array_equal(u.numpy(), b)


# ---- elementwise math --------------------------------------------------------------------

BINARY = [
    ("add", lambda x, y: x + y, np.add),
    ("sub", lambda x, y: x - y, np.subtract),
    ("mul", lambda x, y: x * y, np.multiply),
    ("div", lambda x, y: x / y, np.divide),
]


@pytest.mark.parametrize("dt", CDTYPES)
@pytest.mark.parametrize("op", BINARY, ids=[b[0] for b in BINARY])
def test_binary_layouts(dt, op):
    _, f, ref = op
    npd = NPC[dt]
    for sa, sb in [((5, 7), (5, 7)), ((5, 7), (7,)), ((5, 1), (1, 7)), ((), (3,)), ((0, 3), (3,))]:
        a, b = crandn(sa, npd), crandn(sb, npd)
        close(f(E(a), E(b)), ref(a, b), RTOL[dt])
    a, b = crandn((6, 8), npd), crandn((8, 6), npd)
    close(f(E(a)[:, ::2], E(b).t()[:, 1::2]), ref(a[:, ::2], b.T[:, 1::2]), RTOL[dt])
    # scalars: Python complex, float, int; 0-d tensors
    for s in (2 - 3j, 0.5, 3):
        close(f(E(a), s), ref(a, npd(s)), RTOL[dt])
        close(f(s, E(a)), ref(npd(s), a), RTOL[dt])
    close(f(E(a), E(np.array(1 + 1j, dtype=npd))), ref(a, npd(1 + 1j)), RTOL[dt])


@pytest.mark.parametrize("dt", CDTYPES)
def test_binary_mixed_with_real(dt):
    npd = NPC[dt]
    a = crandn((4, 5), npd)
    r = rng.standard_normal((4, 5)).astype(np.float32)
    close(E(a) * E(r), a * r, RTOL[dt])
    close(E(r) - E(a), r - a, RTOL[dt])
    i = np.arange(5, dtype=np.int64)
    close(E(a) + E(i), (a + i).astype(npd), RTOL[dt])
    x = E(r) * 1j
    assert x.dtype is ember.complex64
    np.testing.assert_allclose(x.numpy(), r * 1j)


@pytest.mark.parametrize("dt", CDTYPES)
def test_out_and_inplace(dt):
    npd = NPC[dt]
    a, b = crandn((3, 4), npd), crandn((3, 4), npd)
    out = ember.empty(3, 4, dtype=dt)
    r = ember.mul(E(a), E(b), out=out)
    assert r is out
    close(out, a * b, RTOL[dt])
    x = E(a)
    x.add_(E(b), alpha=2 - 1j)
    close(x, a + (2 - 1j) * b, RTOL[dt])
    x.mul_(1j)
    close(x, (a + (2 - 1j) * b) * 1j, RTOL[dt])
    x.div_(E(b))
    x.sub_(1)
    y = E(a)
    y += 1
    y *= E(b)
    close(y, (a + 1) * b, RTOL[dt])
    # a real result written into a complex out=, a complex one into a real out= raises
    c = ember.empty(2, dtype=dt)
    ember.add(ember.ones(2), ember.ones(2), out=c)
    assert c.tolist() == [2 + 0j, 2 + 0j]
    with pytest.raises(RuntimeError, match="result type ComplexFloat can't be cast to the desired "
                                           "output type Float"):
        ember.ones(2).add_(1j)
    with pytest.raises(RuntimeError, match="can't be cast"):
        ember.add(ember.ones(2, dtype=ember.complex64), 1, out=ember.empty(2))


UNARY = [
    ("neg", lambda x: -x, np.negative),
    ("exp", ember.exp, np.exp),
    ("log", ember.log, np.log),
    ("sqrt", ember.sqrt, np.sqrt),
    ("rsqrt", ember.rsqrt, lambda a: 1 / np.sqrt(a)),
    ("sin", ember.sin, np.sin),
    ("cos", ember.cos, np.cos),
    ("tan", ember.tan, np.tan),
    ("sinh", ember.sinh, np.sinh),
    ("cosh", ember.cosh, np.cosh),
    ("tanh", ember.tanh, np.tanh),
    ("sigmoid", ember.sigmoid, lambda a: 1 / (1 + np.exp(-a))),
    ("reciprocal", ember.reciprocal, np.reciprocal),
    ("square", ember.square, np.square),
    ("log2", ember.log2, np.log2),
    ("log10", ember.log10, np.log10),
    ("sgn", ember.sgn, lambda a: np.where(a == 0, 0, a / np.where(a == 0, 1, np.abs(a)))),
    ("conj", ember.conj, np.conj),
    ("conj_physical", ember.conj_physical, np.conj),
]


@pytest.mark.parametrize("dt", CDTYPES)
@pytest.mark.parametrize("op", UNARY, ids=[u[0] for u in UNARY])
def test_unary(dt, op):
    _, f, ref = op
    npd = NPC[dt]
    a = crandn((7, 9), npd)
    a[0, 0] = 0 if op[0] in ("sgn", "conj", "neg", "square") else a[0, 0]
    close(f(E(a)), ref(a).astype(npd), RTOL[dt] * 10)
    close(f(E(a)[:, ::3]), ref(a[:, ::3]).astype(npd), RTOL[dt] * 10)  # strided
    close(f(E(a[0, 1])), ref(a[0, 1]).astype(npd), RTOL[dt] * 10)  # 0-d
    assert f(ember.empty(0, dtype=dt)).shape == (0,)


@pytest.mark.parametrize("dt", CDTYPES)
def test_real_valued_functions(dt):
    npd = NPC[dt]
    rdt = np.float32 if dt is ember.complex64 else np.float64
    a = crandn((5, 6), npd)
    close(ember.abs(E(a)), np.abs(a).astype(rdt), RTOL[dt])
    close(E(a).abs(), np.abs(a).astype(rdt), RTOL[dt])
    close(ember.angle(E(a)), np.angle(a).astype(rdt), RTOL[dt])
    close(E(a)[:, 1::2].abs(), np.abs(a[:, 1::2]).astype(rdt), RTOL[dt])
    out = ember.empty(5, 6, dtype=ember.float64)
    ember.abs(E(a), out=out)
    np.testing.assert_allclose(out.numpy(), np.abs(a), rtol=RTOL[dt])
    with pytest.raises(RuntimeError, match="In-place abs is not supported for complex tensors."):
        E(a).abs_()
    r = np.array([-1.5, 0.0, 2.0, np.nan], dtype=np.float32)
    np.testing.assert_allclose(ember.angle(E(r)).numpy(), [math.pi, 0, 0, np.nan], rtol=1e-6)
    assert ember.angle(ember.tensor([-1, 2])).dtype is ember.float32
    # torch.sgn of real values is torch.sign: NaN gives 0 (NumPy's sign gives NaN)
    np.testing.assert_array_equal(ember.sgn(E(r)).numpy(), [-1, 0, 1, 0])


@pytest.mark.parametrize("dt", CDTYPES)
def test_pow(dt):
    npd = NPC[dt]
    a, b = crandn((4, 5), npd), crandn((4, 5), npd)
    close(E(a) ** E(b), a ** b, RTOL[dt] * 100)
    for e in (2, 3, 0.5, -1, -2, 1.5, 2 + 1j):
        close(E(a) ** e, (a ** npd(e)).astype(npd), RTOL[dt] * 100)
    close(2 ** E(a), (npd(2) ** a).astype(npd), RTOL[dt] * 100)
    assert (E(a) ** 0).tolist() == [[1 + 0j] * 5] * 4


@pytest.mark.parametrize("dt", CDTYPES)
def test_predicates_and_equality(dt):
    inf, nan = float("inf"), float("nan")
    a = np.array([1 + 1j, complex(inf, 0), complex(0, -inf), complex(nan, 1), complex(1, nan),
                  0j], dtype=NPC[dt])
    t = E(a)
    np.testing.assert_array_equal(ember.isnan(t).numpy(), np.isnan(a))
    np.testing.assert_array_equal(ember.isinf(t).numpy(), np.isinf(a))
    np.testing.assert_array_equal(ember.isfinite(t).numpy(), np.isfinite(a))
    np.testing.assert_array_equal((t == t).numpy(), a == a)
    np.testing.assert_array_equal((t != 1 + 1j).numpy(), a != 1 + 1j)
    np.testing.assert_array_equal((t == 0).numpy(), a == 0)
    c = E(np.array([True, False, True, False, True, False]))
    np.testing.assert_array_equal(ember.where(c, t, 5j).numpy(), np.where([1, 0, 1, 0, 1, 0], a, 5j))


def test_complex_and_polar():
    re, im = rng.standard_normal((3, 4)), rng.standard_normal((4,))
    z = ember.complex(E(re), E(im))
    assert z.dtype is ember.complex128
    np.testing.assert_array_equal(z.numpy(), re + 1j * im)
    z32 = ember.complex(E(re.astype(np.float32)), E(re.astype(np.float32)))
    assert z32.dtype is ember.complex64
    assert ember.complex(ember.ones(2, dtype=ember.float16), ember.ones(2, dtype=ember.float16)) \
        .dtype is ember.complex32
    r, th = np.abs(re), im
    close(ember.polar(E(r), E(th)), r * np.exp(1j * th), 1e-12)
    out = ember.empty(3, 4, dtype=ember.complex128)
    assert ember.complex(E(re), E(im), out=out) is out
    with pytest.raises(RuntimeError, match="Expected both inputs to be Half, Float or Double "
                                           "tensors but got Long and Long"):
        ember.complex(ember.ones(2, dtype=ember.int64), ember.ones(2, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="Expected object of scalar type Float but got scalar "
                                           "type Double for second argument"):
        ember.complex(ember.ones(2), ember.ones(2, dtype=ember.float64))


def test_conj_is_materialised():
    t = ember.tensor([1 + 2j])
    c = t.conj()
    assert c.tolist() == [1 - 2j] and not c.is_conj() and not ember.is_conj(c)
    assert c.resolve_conj() is c and ember.resolve_conj(c) is c and not c.is_neg()
    assert c.data_ptr() != t.data_ptr()
    f = ember.ones(2)
    assert f.conj() is f and ember.conj_physical(f) is f
    x = ember.tensor([1 + 1j, 2 - 1j])
    x.conj_physical_()
    assert x.tolist() == [1 - 1j, 2 + 1j]
    assert ember.is_complex(x) and x.is_complex() and not ember.ones(1).is_complex()


# ---- reductions --------------------------------------------------------------------------

@pytest.mark.parametrize("dt", CDTYPES)
def test_reductions(dt):
    npd = NPC[dt]
    rdt = np.float32 if dt is ember.complex64 else np.float64
    a = crandn((5, 6, 7), npd)
    t = E(a)
    tol = RTOL[dt] * 10
    close(t.sum(), np.array(a.sum(), dtype=npd), tol)
    close(t.sum(1), a.sum(1), tol)
    close(t.sum((0, 2), keepdim=True), a.sum((0, 2), keepdims=True), tol)
    close(t.mean(-1), a.mean(-1), tol)
    close(t.mean(), np.array(a.mean(), dtype=npd), tol)
    close(t[:, ::2].sum(0), a[:, ::2].sum(0), tol)  # strided
    close(t.prod(1), a.prod(1), tol * 10)
    close(t[:2, :2, :3].prod(), np.array(a[:2, :2, :3].prod(), dtype=npd), tol * 10)
    close(t.norm(), np.array(np.linalg.norm(a.ravel()), dtype=rdt), tol)
    close(t.norm(p=1), np.array(np.abs(a).sum(), dtype=rdt), tol)
    close(t.var(1), a.var(1, ddof=1).astype(rdt), tol)
    close(t.std(), np.array(a.std(ddof=1), dtype=rdt), tol)
    close(t.cumsum(1), a.cumsum(1), tol)
    e = E(np.zeros((3, 0), dtype=npd))
    assert e.sum(1).tolist() == [0j] * 3 and e.prod(1).tolist() == [1 + 0j] * 3
    assert e.sum().item() == 0j
    z0 = E(np.array(1 + 2j, dtype=npd))
    assert z0.sum().item() == 1 + 2j and z0.mean().item() == 1 + 2j
    b = E(np.array([[0j, 1j], [0j, 0j]], dtype=npd))
    assert b.any(1).tolist() == [True, False] and b.all().item() is False
    assert ember.count_nonzero(b).item() == 1
    assert t.sum(dtype=ember.complex128).dtype is ember.complex128
    out = ember.empty(6, 7, dtype=dt)
    assert ember.sum(t, 0, out=out) is out
    np.testing.assert_allclose(out.numpy(), a.sum(0), rtol=RTOL[dt] * 10)


def test_reduction_errors():
    z = ember.tensor([1 + 2j, 3 - 4j])
    with pytest.raises(RuntimeError, match="\"max_values_cpu\" not implemented for 'ComplexFloat'"):
        z.amax()
    with pytest.raises(RuntimeError, match="argmax\\(\\): does not support complex input"):
        z.argmax()
    with pytest.raises(RuntimeError, match="not implemented for 'ComplexFloat'"):
        z.max()
    with pytest.raises(RuntimeError, match="not implemented for 'ComplexFloat'"):
        z.max(0)


# ---- errors of ops without complex kernels ----------------------------------------------

@pytest.mark.parametrize("f, message", [
    (lambda z: z < z, "\"lt_cpu\" not implemented for 'ComplexFloat'"),
    (lambda z: z > 0, "\"gt_cpu\" not implemented for 'ComplexFloat'"),
    (lambda z: z % 2, "\"remainder_cpu\" not implemented for 'ComplexFloat'"),
    (lambda z: z // 2, "\"div_floor_cpu\" not implemented for 'ComplexFloat'"),
    (lambda z: ember.atan2(z, z), "\"atan2_cpu\" not implemented for 'ComplexFloat'"),
    (lambda z: ember.maximum(z, z), "maximum not implemented for complex tensors."),
    (lambda z: z.floor(), "floor is not supported for complex inputs"),
    (lambda z: z.relu(), "clamp is not supported for complex types"),
    (lambda z: z.clamp(0, 1), "clamp is not supported for complex types"),
    (lambda z: z.sign(), "torch.sign is not intended to support complex numbers"),
    (lambda z: z.erf(), "\"erf_cpu\" not implemented for 'ComplexFloat'"),
    (lambda z: z & z, "not implemented for 'ComplexFloat'"),
    (lambda z: ember.softmax(z, 0), "not implemented for 'ComplexFloat'"),
    (lambda z: z.sort(), "Sort does not support complex dtypes on CPU"),
    (lambda z: z.topk(1), "topk does not support complex dtypes on CPU"),
    (lambda z: ember.unique(z), "\"unique\" not implemented for 'ComplexFloat'"),
    (lambda z: z.cummax(0), "\"cummax_cpu\" not implemented for 'ComplexFloat'"),
    (lambda z: ember.nansum(z), "nansum on CPU does not support complex inputs"),
    (lambda z: ember.xlogy(z, z), "\"xlogy_cpu\" not implemented for 'ComplexFloat'"),
])
def test_unsupported_ops_raise(f, message):
    z = ember.tensor([1 + 2j, 3 - 4j])
    with pytest.raises(RuntimeError, match=message.replace("(", "\\(").replace(")", "\\)")):
        f(z)


# ---- matrix products ----------------------------------------------------------------------

@pytest.mark.parametrize("dt", CDTYPES)
def test_products(dt):
    npd = NPC[dt]
    tol = RTOL[dt] * 100
    a, b = crandn((4, 5), npd), crandn((5, 3), npd)
    close(E(a) @ E(b), a @ b, tol)
    close(ember.mm(E(a), E(b)), a @ b, tol)
    close(ember.matmul(E(b).t(), E(a).t()), b.T @ a.T, tol)  # transposed operands
    x, y = crandn((2, 4, 5), npd), crandn((2, 5, 3), npd)
    close(ember.bmm(E(x), E(y)), x @ y, tol)
    close(E(x) @ E(b), x @ b, tol)
    c = crandn((4, 3), npd)
    close(ember.addmm(E(c), E(a), E(b)), c + a @ b, tol)
    close(ember.addmm(E(c), E(a), E(b), beta=2 - 1j, alpha=1j), (2 - 1j) * c + 1j * (a @ b), tol)
    v, w = crandn(5, npd), crandn(5, npd)
    close(ember.mv(E(a), E(v)), a @ v, tol)
    close(ember.dot(E(v), E(w)), np.array(np.dot(v, w), dtype=npd), tol)
    close(ember.vdot(E(v), E(w)), np.array(np.vdot(v, w), dtype=npd), tol)
    close(ember.outer(E(v), E(w)), np.outer(v, w), tol)
    close(ember.einsum("ij,jk->ik", E(a), E(b)), a @ b, tol)
    W = crandn((3, 5), npd)
    bias = crandn(3, npd)
    close(ember.nn.functional.linear(E(a), E(W), E(bias)), a @ W.T + bias, tol)
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype"):
        ember.mm(E(a), ember.ones(5, 3))


# ---- interop --------------------------------------------------------------------------

@pytest.mark.parametrize("dt", CDTYPES)
def test_numpy_round_trip_is_zero_copy(dt):
    a = crandn((3, 4), NPC[dt])
    t = ember.from_numpy(a)
    assert t.dtype is dt
    assert np.shares_memory(t.numpy(), a)
    t[0, 0] = 7 - 7j
    assert a[0, 0] == 7 - 7j
    np.testing.assert_array_equal(np.asarray(t), a)
    np.testing.assert_array_equal(ember.from_numpy(a[:, ::2]).numpy(), a[:, ::2])
    assert ember.tensor(a).dtype is dt and not np.shares_memory(ember.tensor(a).numpy(), a)


def test_numpy_misaligned_complex_raises():
    buf = np.zeros(9, dtype=np.float64)
    odd = buf[1:].view(np.complex128)  # 8-byte aligned, not 16
    if odd.ctypes.data % 16 == 0:
        pytest.skip("the allocation happened to align the view")
    with pytest.raises(ValueError, match="aligned"):
        ember.from_numpy(odd)


@pytest.mark.parametrize("dt", CDTYPES)
def test_dlpack_round_trip(dt):
    a = crandn((2, 3), NPC[dt])
    t = ember.from_numpy(a)
    back = ember.from_dlpack(t)
    assert back.dtype is dt and back.data_ptr() == t.data_ptr()
    np.testing.assert_array_equal(np.from_dlpack(t), a)
    u = ember.from_dlpack(np.ascontiguousarray(a))
    assert u.dtype is dt
    np.testing.assert_array_equal(u.numpy(), a)


# ---- printing ---------------------------------------------------------------------------

@pytest.mark.parametrize("make, expected", [
    (lambda: ember.tensor([1 + 2j, 3 - 4j]), "tensor([1.+2.j, 3.-4.j])"),
    (lambda: ember.tensor([1 + 2j, 3 - 4j], dtype=ember.complex128),
     "tensor([1.+2.j, 3.-4.j], dtype=ember.complex128)"),
    (lambda: ember.tensor(1 + 2j), "tensor(1.+2.j)"),
    (lambda: ember.tensor([[1.5 + 2j, -3 - 4.25j], [1e-5 + 1j, 0j]]),
     "tensor([[ 1.5000e+00+2.0000j, -3.0000e+00-4.2500j],\n"
     "        [ 1.0000e-05+1.0000j,  0.0000e+00+0.0000j]])"),
    (lambda: ember.tensor([complex(float("nan"), 1), complex(1, float("inf"))]),
     "tensor([nan+1.j, 1.+infj])"),
    (lambda: ember.tensor([1.0, 2.5, 1j]), "tensor([1.0000+0.j, 2.5000+0.j, 0.0000+1.j])"),
    (lambda: ember.zeros(0, dtype=ember.complex64), "tensor([], dtype=ember.complex64)"),
])
def test_repr(make, expected):
    assert repr(make()) == expected


# ---- autograd ---------------------------------------------------------------------------

def leaf(shape, seed=0):
    g = np.random.default_rng(seed)
    a = g.standard_normal(shape) + 1j * g.standard_normal(shape) + 0.5
    return ember.from_numpy(a).requires_grad_()


GRADCHECK = [
    ("add", lambda x, y: x + y * (2 - 1j)),
    ("sub", lambda x, y: x - y),
    ("mul", lambda x, y: x * y),
    ("div", lambda x, y: x / y),
    ("neg", lambda x, y: -x),
    ("conj", lambda x, y: x.conj() * y),
    ("real", lambda x, y: x.real * y.imag),
    ("imag", lambda x, y: x.imag),
    ("abs", lambda x, y: (x * y).abs()),
    ("angle", lambda x, y: x.angle()),
    ("sgn", lambda x, y: x.sgn()),
    ("sum", lambda x, y: (x * y).sum(0)),
    ("mean", lambda x, y: (x * y.conj()).mean()),
    ("matmul", lambda x, y: x @ y.t()),
    ("exp_log", lambda x, y: x.exp() + y.log()),
    ("sqrt_sin", lambda x, y: x.sqrt() * y.sin()),
    ("tanh_rec", lambda x, y: x.tanh() + y.reciprocal()),
    ("pow", lambda x, y: x ** 2 + x ** y),
    ("view_as_real", lambda x, y: ember.view_as_real(x * y)),
    ("view_as_complex", lambda x, y: ember.view_as_complex(ember.view_as_real(x) * 2) * y),
    ("complex", lambda x, y: ember.complex(x.real, y.imag)),
    ("polar", lambda x, y: ember.polar(x.abs(), y.real)),
    ("norm", lambda x, y: x.norm()),
    ("var", lambda x, y: x.var(0)),
    ("to_real", lambda x, y: x.real.to(ember.complex128) * y),
]


@pytest.mark.parametrize("case", GRADCHECK, ids=[c[0] for c in GRADCHECK])
def test_gradcheck_complex128(case):
    _, f = case
    x, y = leaf((2, 3), 1), leaf((2, 3), 2)
    assert ember.autograd.gradcheck(f, (x, y), eps=1e-6, atol=1e-6, rtol=1e-4)


def test_gradient_of_real_input_through_complex_ops():
    x = ember.tensor([1.0, 2.0], dtype=ember.float64, requires_grad=True)
    z = x * (1 + 2j)  # real -> complex
    (z.abs() ** 2).sum().backward()  # |x (1 + 2i)|^2 = 5 x^2
    np.testing.assert_allclose(x.grad.numpy(), [10.0, 20.0])
    assert x.grad.dtype is ember.float64
    c = ember.tensor([1 + 1j], dtype=ember.complex128, requires_grad=True)
    assert c.requires_grad
    (c * c.conj()).real.sum().backward()  # |c|^2: gradient 2c
    assert c.grad.tolist() == [2 + 2j]


def test_gradient_values_as_torch(torch):
    """ember's complex gradients equal torch's (the conjugate Wirtinger convention)."""
    a = np.array([[0.5 + 1j, -1 + 0.25j], [2 - 1j, 0.75 + 0.5j]])
    b = np.array([[1 - 1j, 0.5 + 2j], [-0.5 + 0.5j, 1 + 1j]])
    fs = [lambda x, y, m: (x * y).abs().sum(),
          lambda x, y, m: (m.view_as_real(x @ y) ** 2).sum(),
          lambda x, y, m: (x / y).exp().real.sum() + (x.conj() * y).angle().sum(),
          lambda x, y, m: (x.sqrt() * y.tanh()).imag.mean()]
    for f in fs:
        ex, ey = ember.tensor(a, requires_grad=True), ember.tensor(b, requires_grad=True)
        tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
        f(ex, ey, ember).backward()
        f(tx, ty, torch).backward()
        np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(ey.grad.numpy(), ty.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_unsupported_gradients_raise():
    x = leaf((3,))
    with pytest.raises(RuntimeError, match="prod"):
        x.prod()


def test_values_as_torch(torch):
    """Elementwise values, reprs and dtypes against torch on the CPU (where installed)."""
    a = crandn((3, 5), np.complex64)
    b = crandn((3, 5), np.complex64)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    ea, eb = E(a), E(b)
    for name in ("exp", "log", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "sigmoid",
                 "rsqrt", "reciprocal", "sgn", "abs", "angle", "log2", "log10"):
        got, want = getattr(ember, name)(ea), getattr(torch, name)(ta)
        assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1], name
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
    for f in (lambda x, y: x ** y, lambda x, y: x / y, lambda x, y: x * y):
        np.testing.assert_allclose(f(ea, eb).numpy(), f(ta, tb).numpy(), rtol=1e-5, atol=1e-6)
    for v in ([1 + 2j, 3 - 4j], [[1.5 + 2j, -3 - 4.25j], [1e-5 + 1j, 0j]], [1e10 + 1j],
              [0.001 - 1000j, 12j]):
        assert repr(ember.tensor(v)).replace("ember.", "torch.") == repr(torch.tensor(v))


# ---- the GPU against torch ---------------------------------------------------------------
# ember's CUDA kernels of add, sub, mul, div, neg, abs and conj are built ahead of time;
# the other complex functions are compiled at first use (NVRTC) from
# include/ember/device/complex.cuh. Every result is compared with torch's CUDA result.

GPU_TOL = {ember.complex64: (2e-5, 2e-5), ember.complex128: (1e-12, 1e-12)}


def _gpu_pair(torch, a):
    """ember and torch CUDA tensors holding ndarray a."""
    a = np.array(a, copy=True)
    return ember.from_numpy(a).to("cuda"), torch.from_numpy(a.copy()).to("cuda")


def _name(dtype):
    return str(dtype).split(".")[-1]


def _same(e, t, rtol=0.0, atol=0.0):
    assert e.device.type == "cuda", e.device
    assert _name(e.dtype) == _name(t.dtype), (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(e.cpu().numpy(), t.cpu().numpy(), rtol=rtol, atol=atol)


GPU_BINARY = [("add", lambda x, y: x + y), ("sub", lambda x, y: x - y),
              ("mul", lambda x, y: x * y), ("div", lambda x, y: x / y),
              ("add_alpha", lambda x, y: x.add(y, alpha=2 - 1j)),
              ("sub_alpha", lambda x, y: x.sub(y, alpha=0.5))]


@pytest.mark.gpu
@pytest.mark.parametrize("dt", CDTYPES)
@pytest.mark.parametrize("op", GPU_BINARY, ids=[b[0] for b in GPU_BINARY])
def test_gpu_binary_layouts(torch, dt, op):
    _, f = op
    rtol, atol = GPU_TOL[dt]
    a, b = crandn((67, 33), NPC[dt]), crandn((67, 33), NPC[dt])
    (ea, ta), (eb, tb) = _gpu_pair(torch, a), _gpu_pair(torch, b)
    _same(f(ea, eb), f(ta, tb), rtol, atol)                       # contiguous (flat kernel)
    _same(f(ea.t(), eb.t()), f(ta.t(), tb.t()), rtol, atol)       # transposed
    _same(f(ea[1::2, 1::3], eb[1::2, ::3]), f(ta[1::2, 1::3], tb[1::2, ::3]), rtol, atol)
    _same(f(ea, eb[:1]), f(ta, tb[:1]), rtol, atol)               # broadcast
    _same(f(ea[:, :1], eb), f(ta[:, :1], tb), rtol, atol)
    _same(f(ea, 1.5 - 2j), f(ta, 1.5 - 2j), rtol, atol)           # Python complex
    _same(f(ea, 3), f(ta, 3), rtol, atol)                         # Python int
    z = crandn((), NPC[dt])
    _same(f(ea, ember.from_numpy(np.array(z))), f(ta, torch.from_numpy(np.array(z))),
          rtol, atol)                                             # 0-d CPU tensor
    e0, t0 = _gpu_pair(torch, np.zeros((0, 3), NPC[dt]))
    _same(f(e0, e0), f(t0, t0))
    e1, t1 = _gpu_pair(torch, z)
    _same(f(e1, e1), f(t1, t1), rtol, atol)                       # 0-d on the GPU


@pytest.mark.gpu
@pytest.mark.parametrize("dt", CDTYPES)
def test_gpu_binary_promotion_out_and_inplace(torch, dt):
    rtol, atol = GPU_TOL[dt]
    a = crandn((5, 7), NPC[dt])
    r32 = rng.standard_normal((5, 7)).astype(np.float32)
    i64 = rng.integers(-5, 5, (7,))
    ea, ta = _gpu_pair(torch, a)
    er, tr = _gpu_pair(torch, r32)
    ei, ti = _gpu_pair(torch, i64)
    for f in (lambda x, y: x + y, lambda x, y: x * y, lambda x, y: y / x, lambda x, y: x - y):
        _same(f(ea, er), f(ta, tr), rtol, atol)
        _same(f(ea, ei), f(ta, ti), rtol, atol)
    _same(er * 1j, tr * 1j, 1e-6, 1e-6)                           # float32 * 1j: complex64
    _same(ei + 2j, ti + 2j)
    # out= of a wider complex dtype, in-place forms
    eo, to = _gpu_pair(torch, np.zeros((5, 7), np.complex128))
    ember.mul(ea, ea, out=eo)
    torch.mul(ta, ta, out=to)
    _same(eo, to, rtol, atol)
    ec, tc = ea.clone(), ta.clone()
    ec.mul_(ea).add_(er).div_(2 + 1j).sub_(ei)
    tc.mul_(ta).add_(tr).div_(2 + 1j).sub_(ti)
    _same(ec, tc, rtol, atol)
    with pytest.raises(RuntimeError):
        er.add_(ea)                                               # complex into float32
    with pytest.raises(RuntimeError):
        ember.add(ea, ea, out=ember.empty((5, 7), device="cuda"))


GPU_UNARY = ["exp", "log", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "sigmoid",
             "rsqrt", "reciprocal", "square", "log2", "log10", "sgn", "abs", "angle", "neg",
             "conj_physical", "isnan", "isinf", "isfinite"]


@pytest.mark.gpu
@pytest.mark.parametrize("dt", CDTYPES)
@pytest.mark.parametrize("name", GPU_UNARY)
def test_gpu_unary(torch, dt, name):
    rtol, atol = GPU_TOL[dt]
    a = crandn((41, 23), NPC[dt])
    if name not in ("log", "log2", "log10", "rsqrt", "reciprocal"):  # poles: inf vs NaN parts
        a[0, 0] = 0
    a[1, 1] = complex(np.inf, 1)
    a[2, 2] = complex(np.nan, 0)
    a[3, 3] = -2.5  # on the negative real axis
    finite = name not in ("isnan", "isinf", "isfinite", "abs", "neg", "conj_physical")
    if finite:
        a[1, 1] = a[2, 2] = 1 + 1j
    ea, ta = _gpu_pair(torch, a)
    fe, ft = getattr(ember, name), getattr(torch, name)
    _same(fe(ea), ft(ta), rtol, atol)
    _same(fe(ea.t()[::2]), ft(ta.t()[::2]), rtol, atol)           # strided
    _same(fe(ea[:0]), ft(ta[:0]))                                 # empty
    _same(fe(ea[4, 4]), ft(ta[4, 4]), rtol, atol)                 # 0-d


@pytest.mark.gpu
@pytest.mark.parametrize("dt", CDTYPES)
def test_gpu_unary_out_and_inplace(torch, dt):
    rtol, atol = GPU_TOL[dt]
    ea, ta = _gpu_pair(torch, crandn((6, 4), NPC[dt]))
    for name in ("exp", "sqrt", "tanh", "neg", "sgn", "conj_physical"):
        ec, tc = ea.clone(), ta.clone()
        getattr(ec, name + "_")()
        getattr(tc, name + "_")()
        _same(ec, tc, rtol, atol)
    eo, to = _gpu_pair(torch, np.zeros((6, 4), np.float64))
    ember.abs(ea, out=eo)
    torch.abs(ta, out=to)
    _same(eo, to, rtol, atol)
    with pytest.raises(RuntimeError):
        ea.clone().abs_()


@pytest.mark.gpu
@pytest.mark.parametrize("dt", CDTYPES)
def test_gpu_pow_eq_where(torch, dt):
    rtol, atol = GPU_TOL[dt]
    a, b = crandn((9, 8), NPC[dt]), crandn((9, 8), NPC[dt])
    b[0] = a[0]
    (ea, ta), (eb, tb) = _gpu_pair(torch, a), _gpu_pair(torch, b)
    _same(ea ** eb, ta ** tb, 10 * rtol, 10 * atol)
    for p in (2, 3, -1, 0.5, 1.5 + 0.5j):
        _same(ea ** p, ta ** p, 10 * rtol, 10 * atol)
    _same(ea == eb, ta == tb)
    _same(ea != eb, ta != tb)
    _same(ea == 1, ta == 1)
    m = rng.random((9, 8)) < 0.5
    em, tm = _gpu_pair(torch, m)
    _same(ember.where(em, ea, eb), torch.where(tm, ta, tb))
    _same(ember.where(em, ea, 0.5), torch.where(tm, ta, 0.5))
    r = rng.standard_normal((9, 8))
    er, tr = _gpu_pair(torch, r)
    _same(ember.where(em, ea, er), torch.where(tm, ta, tr), rtol, atol)


@pytest.mark.gpu
@pytest.mark.parametrize("dt", CDTYPES)
def test_gpu_reductions(torch, dt):
    rtol, atol = GPU_TOL[dt]
    a = crandn((33, 17, 5), NPC[dt])
    ea, ta = _gpu_pair(torch, a)
    red_tol = (1e-4, 1e-4) if dt == ember.complex64 else (1e-11, 1e-11)
    for f in (lambda x: x.sum(), lambda x: x.mean(), lambda x: x.sum(1),
              lambda x: x.mean((0, 2), keepdim=True), lambda x: x.transpose(0, 2).sum(-1),
              lambda x: x.var(1), lambda x: x.std(), lambda x: x.prod(2),
              lambda x: x.norm(), lambda x: x.cumsum(1), lambda x: (x != 0).all()):
        _same(f(ea), f(ta), *red_tol)
    e0, t0 = _gpu_pair(torch, np.zeros((0, 4), NPC[dt]))
    _same(e0.sum(0), t0.sum(0))
    _same(e0.sum(), t0.sum())
    _ = rtol, atol


@pytest.mark.gpu
@pytest.mark.parametrize("dt", CDTYPES)
def test_gpu_matmul(torch, dt):
    tol = (1e-4, 1e-4) if dt == ember.complex64 else (1e-11, 1e-11)
    a, b = crandn((37, 29), NPC[dt]), crandn((29, 19), NPC[dt])
    (ea, ta), (eb, tb) = _gpu_pair(torch, a), _gpu_pair(torch, b)
    _same(ea @ eb, ta @ tb, *tol)
    _same(ea.t().conj() @ ea, ta.t().conj().resolve_conj() @ ta, *tol)
    _same(eb.t() @ ea.t(), tb.t() @ ta.t(), *tol)
    v = crandn((29,), NPC[dt])
    ev, tv = _gpu_pair(torch, v)
    _same(ea @ ev, ta @ tv, *tol)
    bb = crandn((3, 29, 4), NPC[dt])
    ebb, tbb = _gpu_pair(torch, bb)
    _same(ember.matmul(ea, ebb), torch.matmul(ta, tbb), *tol)


@pytest.mark.gpu
def test_gpu_conversions_views_and_indexing(torch):
    a = crandn((8, 6), np.complex64)
    ea, ta = _gpu_pair(torch, a)
    _same(ea.to(ember.complex128), ta.to(torch.complex128), 1e-7, 0)
    _same(ea.to(ember.complex128).to(ember.complex64), ta)
    with warnings.catch_warnings():  # torch: "ComplexHalf support is experimental"
        warnings.simplefilter("ignore", UserWarning)
        t32 = ta.to(torch.complex32).to(torch.complex64)
    _same(ea.to(ember.complex32).to(ember.complex64), t32)
    r = rng.standard_normal((8, 6)).astype(np.float32)
    er, tr = _gpu_pair(torch, r)
    _same(er.to(ember.complex64), tr.to(torch.complex64))
    _same(er.to(ember.complex128), tr.to(torch.complex128))
    with pytest.warns(UserWarning):
        er2 = ea.to(ember.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(er2, ta.to(torch.float32))
        _same(ea.to(ember.bool), ta.to(torch.bool))
    _same(ember.view_as_real(ea), torch.view_as_real(ta))
    _same(ember.view_as_complex(ember.view_as_real(ea)), ta)
    _same(ea.real, ta.real)
    _same(ea.imag, ta.imag)
    _same(ea.t().real, ta.t().real)
    _same(ember.complex(er, er * 2), torch.complex(tr, tr * 2))
    _same(ember.polar(er.abs(), er), torch.polar(tr.abs(), tr), 1e-6, 1e-6)
    for dt in CDTYPES:
        eb, tb = ea.to(dt), ta.to(getattr(torch, _name(dt)))
        idx = np.array([5, 0, 3, 3])
        ei, ti = _gpu_pair(torch, idx)
        _same(eb[ei], tb[ti])
        _same(eb[:, ei], tb[:, ti])
        _same(eb[eb.real > 0], tb[tb.real > 0])
        ec, tc = eb.clone(), tb.clone()
        ec[ei] = 1 - 2j
        tc[ti] = 1 - 2j
        _same(ec, tc)
        ec[1:3, ::2] = eb[:2, 1::2]
        tc[1:3, ::2] = tb[:2, 1::2]
        _same(ec, tc)
        _same(eb.t().contiguous(), tb.t().contiguous())
        _same(ember.cat([eb, eb.t().t()]), torch.cat([tb, tb]))
        ez, tz = eb.clone(), tb.clone()
        ez.fill_(2 + 3j)
        tz.fill_(2 + 3j)
        _same(ez, tz)
        _same(ember.zeros(3, dtype=dt, device="cuda"), torch.zeros(3, dtype=tb.dtype, device="cuda"))
        assert eb.cpu().tolist() == tb.cpu().tolist()
        assert complex(eb[1, 2]) == complex(tb[1, 2])


@pytest.mark.gpu
@pytest.mark.parametrize("dt", CDTYPES)
def test_gpu_dlpack_round_trip(torch, dt):
    ea, ta = _gpu_pair(torch, crandn((4, 3), NPC[dt]))
    back = torch.from_dlpack(ea)
    assert back.dtype == ta.dtype and back.device.type == "cuda"
    assert torch.equal(back, ta)
    again = ember.from_dlpack(ta)
    assert again.dtype == dt and again.device.type == "cuda"
    _same(again, ta)


@pytest.mark.gpu
@pytest.mark.parametrize("f", [lambda x: x < x, lambda x: x > 1, lambda x: x.max(),
                               lambda x: x.min(), lambda x: x.amax(), lambda x: x.argmax(),
                               lambda x: x.sort(), lambda x: x.clamp(0, 1),
                               lambda x: x.floor(), lambda x: x.sign(), lambda x: x % 2,
                               lambda x: x.maximum(x), lambda x: x.topk(1),
                               lambda x: x.atan2(x)])
def test_gpu_unsupported_ops_raise(torch, f):
    ea, ta = _gpu_pair(torch, crandn((4,), np.complex64))
    with pytest.raises(RuntimeError):
        f(ta)  # torch raises too
    with pytest.raises(RuntimeError):
        f(ea)


@pytest.mark.gpu
def test_gpu_autograd_as_torch(torch):
    a = crandn((3, 4), np.complex128)
    b = crandn((3, 4), np.complex128)
    fs = [lambda x, y, m: (x * y).abs().sum(),
          lambda x, y, m: (m.view_as_real(x / y) ** 2).sum(),
          lambda x, y, m: ((x - y).conj() * x).real.sum() + (x + y).imag.mean(),
          lambda x, y, m: (x.exp() * y.sqrt()).abs().sum()]
    for f in fs:
        ex = ember.from_numpy(a.copy()).to("cuda").requires_grad_()
        ey = ember.from_numpy(b.copy()).to("cuda").requires_grad_()
        tx = torch.from_numpy(a.copy()).to("cuda").requires_grad_()
        ty = torch.from_numpy(b.copy()).to("cuda").requires_grad_()
        f(ex, ey, ember).backward()
        f(tx, ty, torch).backward()
        _same(ex.grad, tx.grad, 1e-10, 1e-12)
        _same(ey.grad, ty.grad, 1e-10, 1e-12)


@pytest.mark.gpu
def test_gpu_printing(torch):
    for v in ([1 + 2j, 3 - 4j], [[1.5 + 2j, -3 - 4.25j], [1e-5 + 1j, 0j]]):
        e = repr(ember.tensor(v, device="cuda")).replace("ember.", "torch.")
        assert e == repr(torch.tensor(v, device="cuda"))
