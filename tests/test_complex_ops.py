"""Complex inputs of the ops whose complex forms are composites or kernels added after
tests/test_complex.py: the inverse trigonometric and hyperbolic functions, cumprod,
logsumexp, logcumsumexp, logaddexp, lerp, addcmul, addcdiv, scatter_add and index_add,
isreal; and torch's errors for nansum and xlogy of complex values. The CPU against
NumPy (fresh random data: contiguous, non-contiguous, broadcast, 0-d, empty); the GPU
against torch (marked gpu)."""
import cmath

import numpy as np
import pytest

import ember

rng = np.random.default_rng()

CDTYPES = [ember.complex64, ember.complex128]
NPC = {ember.complex64: np.complex64, ember.complex128: np.complex128}
TOL = {ember.complex64: (2e-5, 1e-6), ember.complex128: (1e-12, 1e-14)}


def crandn(shape, dtype=np.complex128, scale=1.0):
    return ((rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) * scale).astype(dtype)


def E(a):
    return ember.from_numpy(np.array(a, copy=True))


def close(t, ref, dt, factor=1.0):
    rtol, atol = TOL[dt]
    got = t.numpy()
    assert got.dtype == np.dtype(NPC[dt]) and got.shape == np.shape(ref)
    np.testing.assert_allclose(got, ref, rtol=rtol * factor, atol=atol * factor)


# ---- inverse trigonometric / hyperbolic ------------------------------------------------

INV = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh,
       "acosh": np.arccosh, "atanh": np.arctanh}


def _away_from_cuts(a):
    """Drops nothing, moves points within 1e-3 of the cuts' lines (re or im axis past 1)
    off them: near a cut the float32 rounding of the input decides the side."""
    near = (np.abs(a.real) < 1e-3) | (np.abs(a.imag) < 1e-3)
    return np.where(near, a + (0.01 + 0.01j), a).astype(a.dtype)


@pytest.mark.parametrize("dt", CDTYPES)
@pytest.mark.parametrize("name", sorted(INV))
def test_inverse_trig(dt, name):
    npd = NPC[dt]
    for scale in (0.05, 1.0, 30.0):
        a = _away_from_cuts(crandn((9, 11), npd, scale))
        ref = INV[name](a.astype(np.complex128))
        f = getattr(ember, name)
        close(f(E(a)), ref, dt, 4)
        close(getattr(E(a), name)(), ref, dt, 4)
        t = E(a).t()                                           # non-contiguous
        close(f(t), ref.T, dt, 4)
        close(f(E(a)[::2, 1::3]), ref[::2, 1::3], dt, 4)       # stepped
    z = crandn((), npd)
    close(f(E(z)), INV[name](np.complex128(z)), dt, 4)       # 0-d
    assert f(E(np.zeros((0, 3), npd))).shape == (0, 3)
    x = E(crandn((4, 5), npd))
    r = f(x)
    assert getattr(x, name + "_")() is x                      # in place
    close(x, r.numpy(), dt)
    o = ember.empty(4, 5, dtype=dt)
    assert f(E(r.numpy()), out=o) is o


@pytest.mark.parametrize("name", sorted(INV))
def test_inverse_trig_cut_sides(name):
    # points on the real axis past the branch points, both signed zeros: the sides of
    # the cuts (C99 Annex G, as NumPy and torch)
    xs = np.array([-3.0, -1.5, 1.5, 3.0])
    for im in (0.0, -0.0):
        a = (xs + 1j * im).astype(np.complex128)
        a.imag = im
        np.testing.assert_allclose(getattr(ember, name)(E(a)).numpy(), INV[name](a), rtol=1e-13,
                                   atol=1e-15)
        b = (1j * xs).astype(np.complex128)
        b.real = im
        np.testing.assert_allclose(getattr(ember, name)(E(b)).numpy(), INV[name](b), rtol=1e-13,
                                   atol=1e-15)


# ---- cumprod -----------------------------------------------------------------------------

@pytest.mark.parametrize("dt", CDTYPES)
def test_cumprod(dt):
    npd = NPC[dt]
    a = crandn((6, 37), npd)
    for d in (0, 1, -1):
        close(ember.cumprod(E(a), d), np.cumprod(a, axis=d), dt, 20)
        close(E(a).cumprod(d), np.cumprod(a, axis=d), dt, 20)
    close(ember.cumprod(E(a).t(), 0), np.cumprod(a.T, axis=0), dt, 20)
    close(ember.cumprod(E(a)[:, ::3], 1), np.cumprod(a[:, ::3], axis=1), dt, 20)
    z = crandn((), npd)
    close(ember.cumprod(E(z), 0), z, dt)
    assert ember.cumprod(E(np.zeros((3, 0), npd)), 1).shape == (3, 0)
    b = a.copy()
    b[2, 5] = 0                                                # exact zeros after a zero
    r = ember.cumprod(E(b), 1).numpy()
    assert np.all(r[2, 5:] == 0)
    close(ember.cumprod(E(a.real.copy()), 1, dtype=dt), np.cumprod(a.real, axis=1), dt, 20)


# ---- logsumexp / logcumsumexp / logaddexp ----------------------------------------------

def _np_logsumexp(a, axis, keepdims=False):
    m = np.max(a.real, axis=axis, keepdims=True)
    m = np.where(np.isinf(m), 0, m)
    s = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return s if keepdims else np.squeeze(s, axis=axis)


@pytest.mark.parametrize("dt", CDTYPES)
def test_logsumexp(dt):
    npd = NPC[dt]
    a = crandn((5, 8), npd, 3.0)
    a[1] += 500                                                # exp overflows unshifted
    for d in (0, 1, (0, 1)):
        close(ember.logsumexp(E(a), d), _np_logsumexp(a, d), dt, 10)
        close(ember.logsumexp(E(a), d, keepdim=True), _np_logsumexp(a, d, True), dt, 10)
    close(E(a).t().logsumexp(0), _np_logsumexp(a.T, 0), dt, 10)
    close(ember.logsumexp(E(a)[:, ::2], 1), _np_logsumexp(a[:, ::2], 1), dt, 10)
    assert ember.logsumexp(E(np.zeros((0, 3), npd)), 1).shape == (0,)
    r = ember.logsumexp(E(np.zeros((3, 0), npd)), 1).numpy()
    assert r.shape == (3,) and np.all(np.isneginf(r.real))
    z = crandn((), npd)
    close(ember.logsumexp(E(z), 0), z, dt)
    o = ember.empty(5, dtype=ember.complex128)                 # out= of another complex dtype
    assert ember.logsumexp(E(a), 1, out=o) is o
    np.testing.assert_allclose(o.numpy(), _np_logsumexp(a, 1), rtol=TOL[dt][0] * 10)
    o = ember.empty(5, dtype=ember.float64)                    # real out=: torch drops imag
    assert ember.logsumexp(E(a), 1, out=o) is o
    np.testing.assert_allclose(o.numpy(), _np_logsumexp(a, 1).real, rtol=TOL[dt][0] * 10)
    with pytest.raises(RuntimeError, match="Expected floating point type for result tensor"):
        ember.logsumexp(E(a), 1, out=ember.empty(5, dtype=ember.int64))


def _np_logaddexp(a, b):
    # torch's formula: ordered by the real parts, log1p(exp(min - max)) + max
    swap = a.real < b.real
    mx, mn = np.where(swap, b, a), np.where(swap, a, b)
    return np.log1p(np.exp(mn - mx)) + mx


@pytest.mark.parametrize("dt", CDTYPES)
def test_logaddexp(dt):
    npd = NPC[dt]
    a, b = crandn((7, 9), npd, 4.0), crandn((7, 9), npd, 4.0)
    a[0] += 800                                                # exp overflows unshifted
    close(ember.logaddexp(E(a), E(b)), _np_logaddexp(a, b), dt, 10)
    close(E(a).logaddexp(E(b)), _np_logaddexp(a, b), dt, 10)
    close(ember.logaddexp(E(a).t(), E(b).t()), _np_logaddexp(a.T, b.T), dt, 10)
    close(ember.logaddexp(E(a), E(b)[:1]), _np_logaddexp(a, b[:1]), dt, 10)   # broadcast
    close(ember.logaddexp(E(a.real.copy()), E(b)), _np_logaddexp(a.real, b), dt, 10)
    assert ember.logaddexp(E(np.zeros((0, 2), npd)), E(np.zeros((0, 2), npd))).shape == (0, 2)
    inf, nan = float("inf"), float("nan")
    x = np.array([complex(-inf, 0), complex(inf, 0), complex(nan, 1), 1 + 1j], npd)
    y = np.array([complex(-inf, 0), complex(inf, 1), 2 + 0j, complex(1, nan)], npd)
    r = ember.logaddexp(E(x), E(y)).numpy()
    assert r[0].real == -inf and r[0].imag == 0               # both -inf: min
    assert r[1].real == inf                                    # both +inf
    assert np.isnan(r[2].real) and np.isnan(r[2].imag)
    assert np.isnan(r[3].real) and np.isnan(r[3].imag)
    # an infinite real part keeps its partner's imaginary part (parts added separately)
    p = np.array([complex(inf, 1.25)], npd)
    q = crandn((1,), npd)
    for u, v in ((p, q), (q, p)):
        r = ember.logaddexp(E(u), E(v)).numpy()
        assert r[0].real == inf and r[0].imag == 1.25


@pytest.mark.parametrize("dt", CDTYPES)
def test_logcumsumexp(dt):
    npd = NPC[dt]
    a = crandn((4, 13), npd, 2.0)
    for d in (0, 1):
        ref = np.log(np.cumsum(np.exp(a.astype(np.complex128)), axis=d))
        got = ember.logcumsumexp(E(a), d).numpy()
        # compare the exponentials: log's imaginary part is defined modulo 2 pi
        np.testing.assert_allclose(np.exp(got), np.exp(ref), rtol=TOL[dt][0] * 50)
    ref = np.log(np.cumsum(np.exp(a[:, ::2].T.astype(np.complex128)), axis=0))
    np.testing.assert_allclose(np.exp(ember.logcumsumexp(E(a)[:, ::2].t(), 0).numpy()),
                               np.exp(ref), rtol=TOL[dt][0] * 50)
    assert ember.logcumsumexp(E(np.zeros((2, 0), npd)), 1).shape == (2, 0)
    # torch's scan starts from -inf: a NaN part makes both parts NaN from there on
    x = crandn((1, 5), npd)
    x[0, 2] = complex(float("nan"), 0)
    r = ember.logcumsumexp(E(x), 1).numpy()
    assert np.all(np.isnan(r[0, 2:].real) & np.isnan(r[0, 2:].imag))
    assert not np.any(np.isnan(r[0, :2]))


# ---- lerp / addcmul / addcdiv ------------------------------------------------------------

def _np_lerp(s, e, w):
    w = np.asarray(w)
    return np.where(np.abs(w) < 0.5, s + w * (e - s), e - (e - s) * (1 - w))


@pytest.mark.parametrize("dt", CDTYPES)
def test_lerp(dt):
    npd = NPC[dt]
    s, e, w = crandn((6, 5), npd), crandn((6, 5), npd), crandn((6, 5), npd, 0.6)
    close(ember.lerp(E(s), E(e), E(w)), _np_lerp(s, e, w), dt, 4)
    for num in (0.3, 0.8, 0.2 + 0.1j, 0.9 - 0.6j):
        close(ember.lerp(E(s), E(e), num), _np_lerp(s, e, npd(num)), dt, 4)
    close(ember.lerp(E(s).t(), E(e).t(), E(w).t()), _np_lerp(s.T, e.T, w.T), dt, 4)
    close(ember.lerp(E(s), E(e[:1]), 0.7), _np_lerp(s, e[:1], npd(0.7)), dt, 4)  # broadcast
    x = E(s)
    assert x.lerp_(E(e), E(w)) is x
    close(x, _np_lerp(s, e, w), dt, 4)
    o = ember.empty(6, 5, dtype=dt)
    assert ember.lerp(E(s), E(e), 0.25, out=o) is o
    close(o, _np_lerp(s, e, npd(0.25)), dt, 4)
    assert ember.lerp(E(s[:0]), E(e[:0]), 0.5).shape == (0, 5)
    with pytest.raises(RuntimeError, match="expected dtype"):
        ember.lerp(E(s), E(e), E(w.real.copy()))


@pytest.mark.parametrize("dt", CDTYPES)
@pytest.mark.parametrize("div", [False, True])
def test_addcmul_addcdiv(dt, div):
    npd = NPC[dt]
    f = ember.addcdiv if div else ember.addcmul
    op = np.divide if div else np.multiply
    x, a, b = crandn((5, 6), npd), crandn((5, 6), npd), crandn((5, 6), npd)
    for value in (1, 2.5, 0.5 - 1.5j):
        close(f(E(x), E(a), E(b), value=value), x + npd(value) * op(a, b), dt, 4)
    close(f(E(x), E(a).t().t(), E(b.T.copy()).t()), x + op(a, b), dt, 4)   # transposed
    close(f(E(x), E(a[:1]), E(b)), x + op(a[:1], b), dt, 4)                # broadcast
    close(f(E(x), E(a.real.copy()), E(b)), x + op(a.real, b), dt, 4)      # promotion
    y = E(x)
    assert getattr(y, ("addcdiv_" if div else "addcmul_"))(E(a), E(b), value=2j) is y
    close(y, x + 2j * op(a, b), dt, 4)
    o = ember.empty(5, 6, dtype=dt)
    assert f(E(x), E(a), E(b), out=o) is o
    close(o, x + op(a, b), dt, 4)
    assert f(E(x[:0]), E(a[:0]), E(b[:0])).shape == (0, 6)


# ---- scatter_add / index_add -----------------------------------------------------------

@pytest.mark.parametrize("dt", CDTYPES)
def test_scatter_add(dt):
    npd = NPC[dt]
    x, src = crandn((4, 6), npd), crandn((4, 5), npd)
    idx = rng.integers(0, 6, (4, 5))                          # repeated positions
    ref = x.copy()
    for i in range(4):
        for j in range(5):
            ref[i, idx[i, j]] += src[i, j]
    close(E(x).scatter_add(1, E(idx), E(src)), ref, dt, 4)
    close(ember.scatter_add(E(x), 1, E(idx), E(src)), ref, dt, 4)
    y = E(x)
    assert y.scatter_add_(1, E(idx), E(src)) is y
    close(y, ref, dt, 4)
    # along dim 0, non-contiguous self and src
    x0, src0 = crandn((6, 4), npd), crandn((5, 4), npd)
    idx0 = rng.integers(0, 6, (5, 4))
    ref0 = x0.copy()
    for i in range(5):
        for j in range(4):
            ref0[idx0[i, j], j] += src0[i, j]
    close(E(x0.T.copy()).t().scatter_add(0, E(idx0), E(src0.T.copy()).t()), ref0, dt, 4)
    z = crandn((), npd)
    close(E(z).scatter_add(0, E(np.array(0)), E(np.array(z))), 2 * z, dt)   # 0-d
    close(E(x).scatter_add(1, E(idx[:, :0]), E(src[:, :0])), x, dt)        # no indices


@pytest.mark.parametrize("dt", CDTYPES)
def test_index_add(dt):
    npd = NPC[dt]
    x, src = crandn((5, 7), npd), crandn((5, 3), npd)
    idx = np.array([6, 0, 6])
    ref = x.copy()
    for j, k in enumerate(idx):
        ref[:, k] += src[:, j]
    close(E(x).index_add(1, E(idx), E(src)), ref, dt, 4)
    close(ember.index_add(E(x), 1, E(idx), E(src)), ref, dt, 4)
    ref2 = x.copy()
    for j, k in enumerate(idx):
        ref2[:, k] += (2 - 1j) * src[:, j]
    close(E(x).index_add(1, E(idx), E(src), alpha=2 - 1j), ref2, dt, 4)
    y = E(x.T.copy()).t()                                      # non-contiguous self
    assert y.index_add_(1, E(idx), E(src)) is y
    close(y, ref, dt, 4)
    rows = crandn((2, 7), npd)
    ref3 = x.copy()
    ref3[4] += rows[0]
    ref3[4] += rows[1]
    close(E(x).index_add(0, E(np.array([4, 4])), E(rows)), ref3, dt, 4)


# ---- isreal, and torch's errors ----------------------------------------------------------

def test_isreal():
    nan, inf = float("nan"), float("inf")
    a = np.array([1 + 0j, 1 + 1j, -0.0 + 0j, complex(nan, 0), complex(0, nan), complex(inf, 0),
                  complex(0, -0.0), complex(0, inf)], np.complex64)
    for dt in (np.complex64, np.complex128):
        got = ember.isreal(E(a.astype(dt))).numpy()
        np.testing.assert_array_equal(got, np.isreal(a))
    x = crandn((3, 4), np.complex128)
    x[1, 2] = 5
    np.testing.assert_array_equal(ember.isreal(E(x).t()).numpy(), np.isreal(x.T))
    assert ember.isreal(E(np.array([1.5, nan]))).numpy().all()


def test_nansum_xlogy_complex_raise():
    z = E(crandn((3,), np.complex64))
    for f in (lambda: ember.nansum(z), lambda: ember.nansum(z, 0),
              lambda: z.nansum()):
        with pytest.raises(RuntimeError, match="^nansum on CPU does not support complex inputs$"):
            f()
    with pytest.raises(NotImplementedError,
                       match="^\"nansum_cpu\" not implemented for 'ComplexFloat'$"):
        ember.nansum(z.real, dtype=ember.complex64)
    for f in (lambda: ember.xlogy(z, z), lambda: ember.xlogy(z.real, z),
              lambda: ember.xlogy(z, 2.0), lambda: ember.xlogy(2.0, z),
              lambda: ember.special.xlogy(z, z)):
        with pytest.raises(NotImplementedError,
                           match="^\"xlogy_cpu\" not implemented for 'ComplexFloat'$"):
            f()
    assert ember.nansum(E(np.array([1.0, np.nan]))).item() == 1.0   # still usable


# ---- autograd: gradcheck in torch's convention (g times the conjugate derivative) -------

GRADCHECK = [
    ("asin", lambda x, y: x.asin()), ("acos", lambda x, y: x.acos()),
    ("atan", lambda x, y: x.atan()), ("asinh", lambda x, y: x.asinh()),
    ("acosh", lambda x, y: x.acosh()), ("atanh", lambda x, y: x.atanh()),
    ("cumprod", lambda x, y: x.cumprod(1)), ("logsumexp", lambda x, y: x.logsumexp(1)),
    ("logcumsumexp", lambda x, y: x.logcumsumexp(1)),
    ("logaddexp", lambda x, y: ember.logaddexp(x, y)),
    ("lerp_number", lambda x, y: ember.lerp(x, y, 0.3 - 0.2j)),
    ("lerp_tensor", lambda x, y: ember.lerp(x, y, y * 0.4)),
    ("addcmul", lambda x, y: ember.addcmul(x, x, y, value=2 - 1j)),
    ("addcdiv", lambda x, y: ember.addcdiv(x, y, x, value=0.5j)),
    ("scatter_add", lambda x, y: x.scatter_add(1, ember.tensor([[2, 0, 2]] * 2), y)),
    ("index_add", lambda x, y: x.index_add(1, ember.tensor([1, 1, 0]), y, alpha=1 + 1j)),
]


@pytest.mark.parametrize("case", GRADCHECK, ids=[c[0] for c in GRADCHECK])
def test_gradcheck(case):
    _, f = case
    a = crandn((2, 3), np.complex128) * 0.5 + (0.2 + 0.3j)  # off the cuts and the zeros
    x = ember.from_numpy(a).requires_grad_()
    y = ember.from_numpy(crandn((2, 3), np.complex128) * 0.5 + 0.1j).requires_grad_()
    assert ember.autograd.gradcheck(f, (x, y), eps=1e-6, atol=1e-6, rtol=1e-4)


@pytest.mark.skipif(not ember._C._compiled_with_cuda, reason="needs a CUDA build (NVRTC)")
def test_device_inverse_functions_compile_with_nvrtc(tmp_path):
    # the GPU's kernels are the jiterator's: complex.cuh's functions must compile in NVRTC
    code = ("#include <ember/device/complex.cuh>\n"
            "template <typename T> __global__ void k(ember::complex<T>* z) {\n"
            "  using namespace ember::cmath;\n"
            "  z[0] = asin(z[0]); z[1] = acos(z[1]); z[2] = atan(z[2]);\n"
            "  z[3] = asinh(z[3]); z[4] = acosh(z[4]); z[5] = atanh(z[5]);\n}\n")
    T = ember._C._jit_testing
    try:
        T.nvrtc_version()
    except RuntimeError as e:
        pytest.skip(f"NVRTC is not loadable here: {e}")
    r = T.compile(code, "inv.cu", [], ["k<float>", "k<double>"], sm=90, cache_dir=str(tmp_path))
    assert r["origin"] == "compiled" and len(dict(r["lowered"])) == 2


# ---- the GPU against torch -------------------------------------------------------------

def _pair(torch, a):
    return ember.from_numpy(np.array(a, copy=True)).cuda(), torch.from_numpy(
        np.array(a, copy=True)).cuda()


def _same_gpu(e, t, rtol, atol):
    np.testing.assert_allclose(e.cpu().numpy(), t.cpu().numpy(), rtol=rtol, atol=atol)


@pytest.mark.gpu
@pytest.mark.parametrize("dt", CDTYPES)
def test_gpu_inverse_trig(torch, dt):
    npd = NPC[dt]
    rtol, atol = TOL[dt][0] * 10, TOL[dt][1] * 10
    for scale in (0.05, 1.0, 30.0):
        a = _away_from_cuts(crandn((67, 33), npd, scale))
        ea, ta = _pair(torch, a)
        for name in sorted(INV):
            _same_gpu(getattr(ember, name)(ea), getattr(torch, name)(ta), rtol, atol)
            _same_gpu(getattr(ember, name)(ea.t()[::2]), getattr(torch, name)(ta.t()[::2]),
                      rtol, atol)


@pytest.mark.gpu
@pytest.mark.parametrize("dt", CDTYPES)
def test_gpu_reductions_and_scans(torch, dt):
    npd = NPC[dt]
    rtol, atol = TOL[dt][0] * 50, TOL[dt][1] * 50
    a = crandn((9, 40), npd)
    ea, ta = _pair(torch, a)
    for d in (0, 1):
        _same_gpu(ember.cumprod(ea, d), torch.cumprod(ta, d), rtol, atol)
        _same_gpu(ember.logsumexp(ea, d), torch.logsumexp(ta, d), rtol, atol)
        _same_gpu(ember.exp(ember.logcumsumexp(ea, d)), torch.exp(torch.logcumsumexp(ta, d)),
                  rtol, atol)
    _same_gpu(ember.cumprod(ea.t(), 1), torch.cumprod(ta.t(), 1), rtol, atol)
    b = crandn((9, 40), npd, 3.0)
    eb, tb = _pair(torch, b)
    _same_gpu(ember.logaddexp(ea, eb), torch.logaddexp(ta, tb), rtol, atol)


@pytest.mark.gpu
@pytest.mark.parametrize("dt", CDTYPES)
def test_gpu_ternary_and_scatter(torch, dt):
    npd = NPC[dt]
    rtol, atol = TOL[dt][0] * 10, TOL[dt][1] * 10
    (es, ts), (ee, te) = _pair(torch, crandn((33, 17), npd)), _pair(torch, crandn((33, 17), npd))
    ew, tw = _pair(torch, crandn((33, 17), npd, 0.6))
    _same_gpu(ember.lerp(es, ee, ew), torch.lerp(ts, te, tw), rtol, atol)
    _same_gpu(ember.lerp(es, ee, 0.7 + 0.1j), torch.lerp(ts, te, 0.7 + 0.1j), rtol, atol)
    _same_gpu(ember.addcmul(es, ee.t().t(), ew, value=2 - 1j),
              torch.addcmul(ts, te, tw, value=2 - 1j), rtol, atol)
    _same_gpu(ember.addcdiv(es, ee, ew, value=0.5j), torch.addcdiv(ts, te, tw, value=0.5j),
              rtol, atol)
    idx = rng.integers(0, 17, (33, 12))
    ei, ti = _pair(torch, idx)
    esrc, tsrc = _pair(torch, crandn((33, 12), npd))
    _same_gpu(es.scatter_add(1, ei, esrc), ts.scatter_add(1, ti, tsrc), rtol, atol)
    _same_gpu(es.t().scatter_add(0, ei.t(), esrc.t()), ts.t().scatter_add(0, ti.t(), tsrc.t()),
              rtol, atol)
    vi = rng.integers(0, 17, (12,))
    evi, tvi = _pair(torch, vi)
    _same_gpu(es.index_add(1, evi, esrc, alpha=1j), ts.index_add(1, tvi, tsrc, alpha=1j),
              rtol, atol)


@pytest.mark.gpu
def test_gpu_isreal_and_errors(torch):
    a = crandn((5, 6), np.complex64)
    a[2, 3] = 1.5
    ea, ta = _pair(torch, a)
    assert np.array_equal(ember.isreal(ea).cpu().numpy(), torch.isreal(ta).cpu().numpy())
    with pytest.raises(RuntimeError, match="^nansum on CUDA does not support complex inputs$"):
        ember.nansum(ea)
    with pytest.raises(NotImplementedError,
                       match="^\"xlogy_cuda\" not implemented for 'ComplexFloat'$"):
        ember.xlogy(ea, ea)
