"""Complex dtypes on the GPU against torch: ember's CUDA kernels of add, sub, mul, div,
neg, abs and conj (built ahead of time) and the other complex functions (compiled at
first use through NVRTC from include/ember/device/complex.cuh), their dtypes, shapes,
promotion, out= and in-place forms, reductions and errors. Every result is compared
with torch's CUDA result. tests/test_complex.py checks the CPU against NumPy."""
import warnings

import numpy as np
import pytest

import ember

rng = np.random.default_rng(4321)

CDTYPES = [ember.complex64, ember.complex128]
NPC = {ember.complex64: np.complex64, ember.complex128: np.complex128}


def crandn(shape, dtype=np.complex128):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


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
