"""ember.fft on the CPU against numpy.fft (pocketfft, float64 references computed from the
same values): every transform with n/s/dim/norm combinations, batched and non-contiguous
inputs, real, integer and complex inputs and torch's output dtypes, out=, fftfreq/rfftfreq,
fftshift/ifftshift, torch's errors for bad arguments, and gradients (gradcheck in float64 /
complex128). The GPU side (cuFFT, the plan cache) is in test_fft_gpu.py."""
import numpy as np
import pytest

import ember

RNG = np.random.default_rng()

NORMS = [None, "backward", "forward", "ortho"]
TOL = {ember.complex64: 2e-5, ember.float32: 2e-5, ember.complex128: 1e-12,
       ember.float64: 1e-12}


def rand(shape, dtype="float64"):
    if dtype.startswith("complex"):
        a = RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)
    elif dtype.startswith("int"):
        a = RNG.integers(-9, 10, size=shape)
    else:
        a = RNG.standard_normal(shape)
    return a.astype(dtype)


def close(result, ref, dtype):
    """result (an ember tensor) equals ref (NumPy, float64/complex128) to dtype's precision,
    relative to the largest magnitude of ref."""
    assert result.dtype == dtype, (result.dtype, dtype)
    got = result.detach().numpy()
    assert got.shape == ref.shape, (got.shape, ref.shape)
    if ref.size == 0:
        return
    scale = max(np.abs(ref).max(), 1.0)
    err = np.abs(got.astype(np.complex128) - ref).max() / scale
    assert err < TOL[dtype], err


def np_norm_inv(norm):
    """NumPy's norm for the inverse transform that undoes no scaling where norm does."""
    return {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]


# ---- 1-D transforms --------------------------------------------------------------------------

@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype,out_dtype", [("float32", ember.complex64),
                                             ("float64", ember.complex128),
                                             ("complex64", ember.complex64),
                                             ("complex128", ember.complex128),
                                             ("int64", ember.complex64)])
@pytest.mark.parametrize("name", ["fft", "ifft"])
def test_fft_ifft(name, dtype, out_dtype, norm):
    a = rand((3, 4, 10), dtype)
    x = ember.from_numpy(a)
    ref_a = a.astype(np.complex128)
    for n, dim in [(None, -1), (None, 0), (7, 1), (16, -1), (1, 2)]:
        r = getattr(ember.fft, name)(x, n=n, dim=dim, norm=norm)
        close(r, getattr(np.fft, name)(ref_a, n=n, axis=dim, norm=norm), out_dtype)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype,out_dtype", [("float32", ember.complex64),
                                             ("float64", ember.complex128),
                                             ("int32", ember.complex64)])
def test_rfft_ihfft(dtype, out_dtype, norm):
    a = rand((5, 9, 4), dtype)
    x = ember.from_numpy(a)
    for n, dim in [(None, -1), (None, 1), (12, 1), (3, 0), (1, -1)]:
        close(ember.fft.rfft(x, n=n, dim=dim, norm=norm),
              np.fft.rfft(a.astype(np.float64), n=n, axis=dim, norm=norm), out_dtype)
        close(ember.fft.ihfft(x, n=n, dim=dim, norm=norm),
              np.fft.ihfft(a.astype(np.float64), n=n, axis=dim, norm=norm), out_dtype)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype,out_dtype", [("complex64", ember.float32),
                                             ("complex128", ember.float64),
                                             ("float64", ember.float64),
                                             ("int64", ember.float32)])
def test_irfft_hfft(dtype, out_dtype, norm):
    a = rand((4, 7, 6), dtype)
    x = ember.from_numpy(a)
    ref_a = a.astype(np.complex128)
    for n, dim in [(None, -1), (None, 0), (11, 1), (4, -1), (2, 2), (13, 2)]:
        close(ember.fft.irfft(x, n=n, dim=dim, norm=norm),
              np.fft.irfft(ref_a, n=n, axis=dim, norm=norm), out_dtype)
        close(ember.fft.hfft(x, n=n, dim=dim, norm=norm),
              np.fft.hfft(ref_a, n=n, axis=dim, norm=norm), out_dtype)


def test_round_trips():
    a = rand((6, 8), "float64")
    x = ember.from_numpy(a)
    np.testing.assert_allclose(ember.fft.irfft(ember.fft.rfft(x), n=8).numpy(), a, atol=1e-12)
    np.testing.assert_allclose(ember.fft.ifft(ember.fft.fft(x)).numpy(), a, atol=1e-12)
    np.testing.assert_allclose(ember.fft.hfft(ember.fft.ihfft(x), n=8).numpy(), a, atol=1e-12)
    np.testing.assert_allclose(ember.fft.irfftn(ember.fft.rfftn(x), s=(6, 8)).numpy(), a,
                               atol=1e-12)


# ---- N-D transforms --------------------------------------------------------------------------

SD = [(None, None), ((5, 3), None), (None, (0, 2)), ((4, -1), (2, 0)), ((3,), None),
      (None, (1,)), ((2, 6, 8), (0, 1, 2)), (None, (-1, -3))]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("s,dim", SD)
@pytest.mark.parametrize("name", ["fftn", "ifftn"])
def test_fftn_ifftn(name, s, dim, norm):
    for dtype, out_dtype in [("complex128", ember.complex128), ("float32", ember.complex64)]:
        a = rand((4, 5, 6), dtype)
        axes = list(dim) if dim is not None else list(range(3 - (len(s) if s else 3), 3))
        ref_s = None if s is None else [a.shape[d] if v == -1 else v for v, d in zip(s, axes)]
        ref = getattr(np.fft, name)(a.astype(np.complex128), s=ref_s, axes=axes, norm=norm)
        close(getattr(ember.fft, name)(ember.from_numpy(a), s=s, dim=dim, norm=norm), ref,
              out_dtype)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("s,dim", SD)
def test_rfftn_irfftn(s, dim, norm):
    a = rand((4, 5, 6), "float64")
    axes = list(dim) if dim is not None else list(range(3 - (len(s) if s else 3), 3))
    ref_s = None if s is None else [a.shape[d] if v == -1 else v for v, d in zip(s, axes)]
    close(ember.fft.rfftn(ember.from_numpy(a), s=s, dim=dim, norm=norm),
          np.fft.rfftn(a, s=ref_s, axes=axes, norm=norm), ember.complex128)
    c = rand((4, 5, 6), "complex64")
    # irfftn: the default last size is 2 * (n - 1); s's -1 keeps it
    axes = list(dim) if dim is not None else list(range(3 - (len(s) if s else 3), 3))
    ref_s = [c.shape[d] for d in axes]
    ref_s[-1] = 2 * (c.shape[axes[-1]] - 1)
    if s is not None:
        ref_s = [r if v == -1 else v for v, r in zip(s, ref_s)]
    close(ember.fft.irfftn(ember.from_numpy(c), s=s, dim=dim, norm=norm),
          np.fft.irfftn(c.astype(np.complex128), s=ref_s, axes=axes, norm=norm), ember.float32)


def hfftn_ref(c, s, axes, norm):
    """torch's definition: hfftn(x) = irfftn(conj(x)) with the forward's normalisation."""
    return np.fft.irfftn(np.conj(c), s=s, axes=axes, norm=np_norm_inv(norm))


def ihfftn_ref(a, s, axes, norm):
    return np.conj(np.fft.rfftn(a, s=s, axes=axes, norm=np_norm_inv(norm)))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("s,dim", [(None, None), ((5, 4), None), (None, (0, 2)),
                                   ((3, 4, 7), (1, 0, 2)), ((6,), (1,))])
def test_hfftn_ihfftn(s, dim, norm):
    c = rand((4, 5, 6), "complex128")
    axes = list(dim) if dim is not None else list(range(3 - (len(s) if s else 3), 3))
    ref_s = [c.shape[d] for d in axes]
    ref_s[-1] = 2 * (ref_s[-1] - 1)
    if s is not None:
        ref_s = list(s)
    close(ember.fft.hfftn(ember.from_numpy(c), s=s, dim=dim, norm=norm),
          hfftn_ref(c, ref_s, axes, norm), ember.float64)
    a = rand((4, 5, 6), "float32")
    ref_s = [a.shape[d] for d in axes] if s is None else list(s)
    close(ember.fft.ihfftn(ember.from_numpy(a), s=s, dim=dim, norm=norm),
          ihfftn_ref(a.astype(np.float64), ref_s, axes, norm), ember.complex64)


@pytest.mark.parametrize("norm", NORMS)
def test_two_dimensional_variants(norm):
    c = rand((3, 6, 5), "complex128")
    a = rand((3, 6, 5), "float64")
    x, y = ember.from_numpy(c), ember.from_numpy(a)
    close(ember.fft.fft2(x, norm=norm), np.fft.fft2(c, norm=norm), ember.complex128)
    close(ember.fft.ifft2(x, s=(4, 7), norm=norm), np.fft.ifft2(c, s=(4, 7), norm=norm),
          ember.complex128)
    close(ember.fft.rfft2(y, dim=(0, 2), norm=norm), np.fft.rfft2(a, axes=(0, 2), norm=norm),
          ember.complex128)
    close(ember.fft.irfft2(x, norm=norm), np.fft.irfft2(c, norm=norm), ember.float64)
    close(ember.fft.hfft2(x, norm=norm), hfftn_ref(c, [6, 8], [1, 2], norm), ember.float64)
    close(ember.fft.ihfft2(y, norm=norm), ihfftn_ref(a, [6, 5], [1, 2], norm),
          ember.complex128)


def test_more_than_three_dims_and_batches():
    c = rand((2, 3, 4, 5, 3), "complex64")
    x = ember.from_numpy(c)
    close(ember.fft.fftn(x), np.fft.fftn(c.astype(np.complex128)), ember.complex64)
    close(ember.fft.fftn(x, dim=(0, 1, 3, 4)),
          np.fft.fftn(c.astype(np.complex128), axes=(0, 1, 3, 4)), ember.complex64)
    a = rand((2, 3, 4, 5), "float64")
    close(ember.fft.rfftn(ember.from_numpy(a)), np.fft.rfftn(a), ember.complex128)
    close(ember.fft.irfftn(x, dim=(0, 1, 2, 3)),
          np.fft.irfftn(c.astype(np.complex128), axes=(0, 1, 2, 3)), ember.float32)


def test_non_contiguous_inputs():
    base = rand((8, 10, 6), "complex128")
    x = ember.from_numpy(base)
    views = [(x.transpose(0, 2), base.swapaxes(0, 2)), (x[::2, 1:, ::3], base[::2, 1:, ::3]),
             (x.permute(1, 2, 0), base.transpose(1, 2, 0))]
    for v, ref in views:
        assert not v.is_contiguous()
        close(ember.fft.fft(v, dim=1), np.fft.fft(ref, axis=1), ember.complex128)
        close(ember.fft.fftn(v, dim=(0, 2)), np.fft.fftn(ref, axes=(0, 2)), ember.complex128)
        close(ember.fft.irfft(v, dim=0), np.fft.irfft(ref, axis=0), ember.float64)
        close(ember.fft.rfft(v.real, dim=2), np.fft.rfft(ref.real, axis=2), ember.complex128)
    # the input is left untouched (c2r engines may overwrite theirs)
    np.testing.assert_array_equal(x.numpy(), base)


def test_zero_dim_and_empty():
    x = ember.tensor(2.5)
    with pytest.raises(IndexError, match="Dimension specified as -1 but tensor has no "
                                         "dimensions"):
        ember.fft.fft(x)
    with pytest.raises(IndexError, match="Dimension specified as -2 but tensor has no "
                                         "dimensions"):
        ember.fft.fft2(x)
    # fftn of a 0-d tensor transforms no dim: a complex copy, as torch
    r = ember.fft.fftn(x)
    assert r.dtype == ember.complex64 and r.shape == () and r.item() == 2.5
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\) specified"):
        ember.fft.fft(ember.zeros(3, 0))
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\) specified"):
        ember.fft.rfftn(ember.zeros(0, 4))
    # an empty batch dim is fine
    r = ember.fft.fft(ember.zeros(0, 4, dtype=ember.complex64))
    assert r.shape == (0, 4) and r.dtype == ember.complex64
    r = ember.fft.irfft(ember.zeros(0, 4, dtype=ember.complex128))
    assert r.shape == (0, 6) and r.dtype == ember.float64
    ember.fft.fft(ember.randn(4))  # usable afterwards


ERRORS = [
    (lambda F, x, c: F.fft(x, n=0), RuntimeError, r"Invalid number of data points \(0\) specified"),
    (lambda F, x, c: F.fft(x, dim=2), IndexError,
     r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"),
    (lambda F, x, c: F.fft(x, norm="foo"), RuntimeError, 'Invalid normalization mode: "foo"'),
    (lambda F, x, c: F.fft(x.half()), RuntimeError, "Unsupported dtype Half"),
    (lambda F, x, c: F.rfft(x.to(ember.bfloat16)), RuntimeError, "Unsupported dtype BFloat16"),
    (lambda F, x, c: F.rfft(c), RuntimeError,
     "rfft expects a real input tensor, but got ComplexFloat"),
    (lambda F, x, c: F.ihfft(c), RuntimeError,
     "ihfft expects a real input tensor, but got ComplexFloat"),
    (lambda F, x, c: F.rfftn(c), RuntimeError,
     "rfftn expects a real-valued input tensor, but got ComplexFloat"),
    (lambda F, x, c: F.rfft2(c), RuntimeError,
     "rfftn expects a real-valued input tensor, but got ComplexFloat"),
    (lambda F, x, c: F.ihfftn(c), RuntimeError,
     "Only supports floating-point dtypes, but found: ComplexFloat"),
    (lambda F, x, c: F.irfft(c, n=0), RuntimeError, r"Invalid number of data points \(0\)"),
    (lambda F, x, c: F.irfft(c[:, :1]), RuntimeError, r"Invalid number of data points \(0\)"),
    (lambda F, x, c: F.hfft(c, n=-3), RuntimeError, r"Invalid number of data points \(-3\)"),
    (lambda F, x, c: F.fftn(x, dim=(0, 0)), RuntimeError, "FFT dims must be unique"),
    (lambda F, x, c: F.fftn(x, dim=(0, -2)), RuntimeError, "FFT dims must be unique"),
    (lambda F, x, c: F.fftn(x, s=(2, 3), dim=(0,)), RuntimeError,
     "When given, dim and shape arguments must have the same length"),
    (lambda F, x, c: F.fftn(x, s=(2, 3, 4)), RuntimeError,
     "Got shape with 3 values but input tensor only has 2 dimensions."),
    (lambda F, x, c: F.fftn(x, s=(0, 3)), RuntimeError, r"Invalid number of data points \(0\)"),
    (lambda F, x, c: F.fftn(x, s=(-2, 3)), RuntimeError,
     r"Invalid number of data points \(-2\)"),
    (lambda F, x, c: F.fftn(x, dim=(0, 5)), IndexError,
     r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 5\)"),
    (lambda F, x, c: F.irfftn(c, dim=()), RuntimeError, "irfftn must transform at least one axis"),
    (lambda F, x, c: F.hfftn(c, dim=()), RuntimeError, "hfftn must transform at least one axis"),
    (lambda F, x, c: F.ihfftn(x, dim=()), RuntimeError, "ihfftn must transform at least one axis"),
    (lambda F, x, c: F.rfftn(x, dim=()), RuntimeError, "rfftn must transform at least one axis"),
    (lambda F, x, c: F.fft(x, out=ember.empty(4, 6)), RuntimeError,
     "fft expects a complex output tensor, but got Float"),
    (lambda F, x, c: F.rfft(x, out=ember.empty(0)), RuntimeError,
     "rfft expects a complex output tensor, but got Float"),
    (lambda F, x, c: F.irfft(c, out=ember.empty(0, dtype=ember.complex64)), RuntimeError,
     "irfft expects a floating point output tensor, but got ComplexFloat"),
    (lambda F, x, c: F.fft(x, n=2.0), TypeError, "argument 'n' must be int, not float"),
    (lambda F, x, c: F.fft(x, dim=(0, 1)), TypeError, "argument 'dim' must be int, not tuple"),
    (lambda F, x, c: F.fftfreq(5, dtype=ember.int64), RuntimeError,
     "fftfreq requires a floating point or complex dtype"),
    (lambda F, x, c: F.fftshift(ember.tensor(1.0)), RuntimeError, "`shifts` required"),
    (lambda F, x, c: F.fftshift(x, dim=5), IndexError, "Dimension out of range"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    fn, exc, msg = ERRORS[i]
    x = ember.randn(4, 6)
    c = ember.randn(4, 5, dtype=ember.complex64)
    with pytest.raises(exc, match=msg):
        fn(ember.fft, x, c)
    close(ember.fft.fft(x), np.fft.fft(x.numpy().astype(np.float64)), ember.complex64)


# ---- out=, frequencies, shifts ----------------------------------------------------------------

def test_out():
    a = rand((4, 6), "float32")
    x = ember.from_numpy(a)
    out = ember.empty(0, dtype=ember.complex64)
    r = ember.fft.fft(x, out=out)
    assert r is out and out.shape == (4, 6)
    close(out, np.fft.fft(a.astype(np.float64)), ember.complex64)
    out = ember.empty(4, 6, dtype=ember.complex128)  # a wider complex out is accepted
    ember.fft.fftn(x, out=out)
    close(out.to(ember.complex64), np.fft.fftn(a.astype(np.float64)), ember.complex64)
    out = ember.empty(4, 6)
    ember.fft.irfft(ember.fft.rfft(x), n=6, out=out)
    close(out, a.astype(np.float64), ember.float32)
    with pytest.raises(RuntimeError, match="out has shape"):
        ember.fft.ifft(x, out=ember.empty(3, dtype=ember.complex64))
    w = ember.randn(4, 6, requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        ember.fft.fft(w, out=ember.empty(0, dtype=ember.complex64))


@pytest.mark.parametrize("n", [0, 1, 2, 7, 8, 33])
@pytest.mark.parametrize("d", [1.0, 0.25, 3])
def test_fftfreq_rfftfreq(n, d):
    r = ember.fft.fftfreq(n, d)
    assert r.dtype == ember.float32
    if n == 0:  # NumPy divides by zero; torch gives an empty tensor
        assert r.shape == (0,) and np.isnan(ember.fft.rfftfreq(0, d).numpy()).all()
        return
    np.testing.assert_allclose(r.numpy(), np.fft.fftfreq(n, d), rtol=1e-6)
    r = ember.fft.fftfreq(n, d, dtype=ember.float64)
    np.testing.assert_allclose(r.numpy(), np.fft.fftfreq(n, d), rtol=1e-15)
    if n > 0:
        r = ember.fft.rfftfreq(n, d, dtype=ember.float64, requires_grad=True)
        assert r.requires_grad
        np.testing.assert_allclose(r.detach().numpy(), np.fft.rfftfreq(n, d), rtol=1e-15)
    out = ember.empty(0, dtype=ember.float64)
    assert ember.fft.fftfreq(n, d, out=out) is out
    np.testing.assert_allclose(out.numpy(), np.fft.fftfreq(n, d), rtol=1e-15)


@pytest.mark.parametrize("dim", [None, 0, -1, (0, 2), [1]])
def test_fftshift_ifftshift(dim):
    a = rand((5, 4, 7), "float64")
    x = ember.from_numpy(a)
    np.testing.assert_array_equal(ember.fft.fftshift(x, dim).numpy(), np.fft.fftshift(a, dim))
    np.testing.assert_array_equal(ember.fft.ifftshift(x, dim).numpy(),
                                  np.fft.ifftshift(a, dim))
    np.testing.assert_array_equal(
        ember.fft.ifftshift(ember.fft.fftshift(x, dim), dim).numpy(), a)


def test_namespace():
    import ember.fft as F
    assert ember.fft is F
    for name in F.__all__:
        assert callable(getattr(F, name)), name
    assert len(F.__all__) == 22


# ---- autograd -------------------------------------------------------------------------------

def g64(shape, complex_=False):
    dt = ember.complex128 if complex_ else ember.float64
    return ember.from_numpy(rand(shape, "complex128" if complex_ else "float64")).to(dt) \
        .requires_grad_()


GRAD_CASES = [
    ("fft", True, {}), ("fft", False, {"n": 7}), ("ifft", True, {"dim": 0, "norm": "ortho"}),
    ("ifft", False, {"norm": "forward"}), ("rfft", False, {}), ("rfft", False, {"n": 9}),
    ("rfft", False, {"dim": 0, "norm": "forward"}), ("irfft", True, {}),
    ("irfft", True, {"n": 7, "norm": "ortho"}), ("irfft", True, {"n": 9, "dim": 0}),
    ("hfft", True, {}), ("hfft", True, {"n": 5, "norm": "forward"}), ("ihfft", False, {}),
    ("ihfft", False, {"n": 3, "norm": "ortho"}), ("fft2", True, {}), ("ifft2", False, {}),
    ("fftn", True, {"s": (3, 5)}), ("ifftn", True, {"dim": (0,), "norm": "ortho"}),
    ("rfft2", False, {}), ("rfftn", False, {"s": (5, 5), "norm": "ortho"}),
    ("irfft2", True, {}), ("irfftn", True, {"s": (4, 7)}), ("hfft2", True, {}),
    ("hfftn", True, {"s": (3, 6), "norm": "ortho"}), ("ihfft2", False, {}),
    ("ihfftn", False, {"norm": "forward"}),
]


@pytest.mark.parametrize("name,complex_,kw", GRAD_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(GRAD_CASES)])
def test_gradcheck(name, complex_, kw):
    x = g64((4, 6), complex_)
    fn = getattr(ember.fft, name)
    assert ember.autograd.gradcheck(lambda t: fn(t, **kw), (x,))


def test_gradcheck_strided_and_batched():
    x = g64((3, 8, 5), True)
    assert ember.autograd.gradcheck(lambda t: ember.fft.fftn(t.transpose(0, 2), dim=(0, 1)),
                                    (x,))
    y = g64((3, 4, 5), False)
    assert ember.autograd.gradcheck(lambda t: ember.fft.rfftn(t[:, ::2], dim=(0, 2)), (y,))


def test_backward_matches_adjoint():
    """<fft(x), g> == <x, fft^H(g)>: the gradient of Re<fft(x), g> is the adjoint."""
    a = rand((5, 8), "complex128")
    x = ember.from_numpy(a).requires_grad_()
    g = rand((5, 8), "complex128")
    y = ember.fft.fft(x, norm="ortho")
    y.backward(ember.from_numpy(g))
    # torch's convention: x.grad = conj(dL/dx*)... for L = Re<y, g>, grad = fft^H(g)
    ref = np.fft.ifft(g, norm="ortho")
    np.testing.assert_allclose(x.grad.numpy(), ref, atol=1e-12)


@pytest.mark.parametrize("fn", [
    lambda t: ember.fft.rfft(t, norm="ortho"),
    lambda t: ember.fft.irfft(ember.fft.rfft(t) * ember.fft.rfft(t), n=6),
    lambda t: ember.fft.fftn(t).abs(),
    lambda t: ember.fft.ihfft2(t),
], ids=["rfft", "irfft-of-square", "abs-fftn", "ihfft2"])
def test_gradgradcheck(fn):
    """The backward is made of the differentiable cores: second derivatives work."""
    assert ember.autograd.gradgradcheck(fn, (g64((4, 6)),))
