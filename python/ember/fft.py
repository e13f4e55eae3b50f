"""ember.fft: torch.fft's discrete Fourier transforms, on cuFFT (the GPU) and NumPy's
pocketfft (the CPU).

Every transform is composed here, as torch's ``aten/src/ATen/native/SpectralOps.cpp`` does,
from three cores that mirror torch's ``_fft_c2c`` / ``_fft_r2c`` / ``_fft_c2r``:

- on the GPU they are ``ember._C._fft.c2c/r2c/c2r`` (csrc/ops/fft/): cuFFT, opened with
  dlopen at first use, plans from a per-device LRU cache
  (``ember.backends.cuda.cufft_plan_cache``), work on the current stream, workspace from
  the caching allocator;
- on the CPU each core is one call into NumPy's ``numpy.fft`` (pocketfft, C++, float32
  and float64 natively since NumPy 2) on a zero-copy NumPy view of the tensor, and the
  result is wrapped without a copy (``from_numpy``). pocketfft is what torch's CPU build
  uses too, it is maintained with NumPy, and NumPy is already ember's CPU BLAS provider.

Arguments are checked here with torch's messages (``n``/``s``, ``dim``, ``norm``, dtypes,
``out=``), inputs are zero-padded or trimmed, integers promoted to the default dtype,
float16 allowed on CUDA only (powers of two, checked by the core), bfloat16 refused.

Autograd: each core is an ``ember.autograd.Function`` whose backward is another core
(torch's formulas: c2c <-> c2c in the other direction, r2c's backward pads the one-sided
gradient and takes the real part of an inverse c2c, c2r's backward is an r2c that doubles
the frequencies whose mirror image was dropped), so gradients of gradients work too.
"""
import math

from ember import _C
from ember._composite_shape import roll as _roll
from ember.autograd.function import Function

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2",
           "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn",
           "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_Tensor = _C.Tensor
Tensor = _C.Tensor  # torch.fft.Tensor
_F = _C._fft

# torch's ScalarType names, as its messages print them.
_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
          "int64": "Long", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
          "float64": "Double", "complex32": "ComplexHalf", "complex64": "ComplexFloat",
          "complex128": "ComplexDouble"}
_COMPLEX_OF = {_C.float16: _C.complex32, _C.float32: _C.complex64, _C.float64: _C.complex128}

_np_fft = None


def _numpy_fft():
    global _np_fft
    if _np_fft is None:
        import numpy.fft  # noqa: PLC0415 -- the CPU path only: `import ember` stays light
        _np_fft = numpy.fft
    return _np_fft


def _name(dtype):
    n = str(dtype).rpartition(".")[2]
    return _NAMES.get(n, n)


# ---- the three cores, with autograd -------------------------------------------------------

def _cpu_array(x, fn):
    if x.dtype not in (_C.float32, _C.float64, _C.complex64, _C.complex128):
        raise RuntimeError(f"Unsupported dtype {_name(x.dtype)}")
    if x.device.type != "cpu":
        raise RuntimeError(f"{fn}: ember.fft supports CPU and CUDA tensors, got "
                           f"{x.device.type}")
    return x.detach().numpy()


_np_want = {}


def _from_numpy(r, scale, single, complex_):
    # NumPy >= 2 computes float32 in float32; NumPy 1.x returns double: cast back.
    want = _np_want.get((single, complex_))
    if want is None:
        import numpy  # noqa: PLC0415
        want = _np_want[(single, complex_)] = numpy.dtype(
            ("complex64" if complex_ else "float32") if single else
            ("complex128" if complex_ else "float64"))
    if r.dtype is not want and r.dtype != want:
        r = r.astype(want)
    if scale != 1.0:
        r *= scale  # r is NumPy's fresh result: scaled in place, in its own dtype
    return _C.from_numpy(r)


def _single(x):
    return x.dtype in (_C.float32, _C.complex64)


def _raw_c2c(x, dims, scale, forward):
    if x.is_cuda:
        return _F.c2c(x, dims, scale, forward)
    a = _cpu_array(x, "fft_c2c")
    f = _numpy_fft()
    if len(dims) == 1:  # the 1-D entry points skip fftn's argument handling
        r = f.fft(a, axis=dims[0]) if forward else f.ifft(a, axis=dims[0], norm="forward")
    else:
        r = f.fftn(a, axes=dims) if forward else f.ifftn(a, axes=dims, norm="forward")
    return _from_numpy(r, scale, _single(x), True)


def _raw_r2c(x, dims, scale, onesided):
    if x.is_cuda:
        return _F.r2c(x, dims, scale, onesided)
    a = _cpu_array(x, "fft_r2c")
    f = _numpy_fft()
    if len(dims) == 1:
        r = f.rfft(a, axis=dims[0]) if onesided else f.fft(a, axis=dims[0])
    else:
        r = f.rfftn(a, axes=dims) if onesided else f.fftn(a, axes=dims)
    return _from_numpy(r, scale, _single(x), True)


def _raw_c2r(x, dims, scale, last_dim_size):
    if x.is_cuda:
        return _F.c2r(x, dims, scale, last_dim_size)
    a = _cpu_array(x, "fft_c2r")
    s = [a.shape[d] for d in dims]
    s[-1] = last_dim_size
    r = _numpy_fft().irfftn(a, s=s, axes=dims, norm="forward")
    return _from_numpy(r, scale, _single(x), False)


def _needs_grad(x):
    return x.requires_grad and _C.is_grad_enabled()


class _C2C(Function):
    @staticmethod
    def forward(ctx, x, dims, scale, forward):
        ctx.args = (dims, scale, forward)
        return _raw_c2c(x, dims, scale, forward)

    @staticmethod
    def backward(ctx, g):
        dims, scale, forward = ctx.args
        return _c2c(g, dims, scale, not forward), None, None, None


class _R2C(Function):
    @staticmethod
    def forward(ctx, x, dims, scale, onesided):
        ctx.args = (dims, scale, onesided, x.shape[dims[-1]])
        return _raw_r2c(x, dims, scale, onesided)

    @staticmethod
    def backward(ctx, g):
        dims, scale, onesided, n = ctx.args
        if onesided:
            last = dims[-1]
            short = n - g.shape[last]
            if short > 0:  # the dropped half of the spectrum: zeros
                shape = list(g.shape)
                shape[last] = short
                g = _C.cat([g, _C.zeros(shape, dtype=g.dtype, device=g.device)], last)
        return _c2c(g, dims, scale, False).real, None, None, None


class _C2R(Function):
    @staticmethod
    def forward(ctx, x, dims, scale, last_dim_size):
        ctx.args = (dims, scale)
        return _raw_c2r(x, dims, scale, last_dim_size)

    @staticmethod
    def backward(ctx, g):
        dims, scale = ctx.args
        gi = _r2c(g, dims, scale, True)
        last = dims[-1]
        double = g.shape[last] - gi.shape[last]
        if double > 0:
            # frequencies 1 .. double stand for themselves and their mirror image
            m = gi.shape[last]
            w = _C.ones(m, dtype=g.dtype, device=g.device)
            w[1:1 + double] = 2
            gi = gi * w.reshape([m] + [1] * (gi.dim() - 1 - last))
        return gi, None, None, None


def _c2c(x, dims, scale, forward):
    if _needs_grad(x):
        return _C2C.apply(x, dims, scale, forward)
    return _raw_c2c(x, dims, scale, forward)


def _r2c(x, dims, scale, onesided):
    if _needs_grad(x):
        return _R2C.apply(x, dims, scale, onesided)
    return _raw_r2c(x, dims, scale, onesided)


def _c2r(x, dims, scale, last_dim_size):
    if _needs_grad(x):
        return _C2R.apply(x, dims, scale, last_dim_size)
    return _raw_c2r(x, dims, scale, last_dim_size)


# ---- argument handling (torch's SpectralOps.cpp) ------------------------------------------

def _wrap(dim, ndim):
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"dim must be an int, not {type(dim).__name__}")
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-ndim}, {ndim - 1}], but got {dim})")
    return dim + ndim if dim < 0 else dim


def _scale(norm, n, forward):
    """torch's norm_from_string, as the factor the unnormalised transform is multiplied by."""
    if norm is None or norm == "backward":
        return 1.0 if forward else 1.0 / n
    if norm == "forward":
        return 1.0 / n if forward else 1.0
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _check_tensor(fn, input):
    if not isinstance(input, _Tensor):
        raise TypeError(f"fft_{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _check_n(fn, n):
    if n is not None and (not isinstance(n, int) or isinstance(n, bool)):
        raise TypeError(f"fft_{fn}(): argument 'n' must be int, not {type(n).__name__}")


def _check_dim1(fn, dim):
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"fft_{fn}(): argument 'dim' must be int, not {type(dim).__name__}")


def _promote(x, require_complex):
    """torch's promote_tensor_fft: integers to the default dtype; float16 on CUDA only."""
    dt = x.dtype
    if dt.is_complex:
        return x
    if not dt.is_floating_point:
        dt = _C.get_default_dtype()
    allowed = (_C.float32, _C.float64, _C.float16) if x.is_cuda else (_C.float32, _C.float64)
    if dt not in allowed:
        raise RuntimeError(f"Unsupported dtype {_name(dt)}")
    if require_complex:
        dt = _COMPLEX_OF[dt]
    return x if dt == x.dtype else x.to(dt)


def _resize(x, dims, sizes):
    """x zero-padded or trimmed (from index 0) to sizes[i] along dims[i]."""
    for d, n in zip(dims, sizes):
        have = x.shape[d]
        if have > n:
            x = x.narrow(d, 0, n)
        elif have < n:
            shape = list(x.shape)
            shape[d] = n - have
            x = _C.cat([x, _C.zeros(shape, dtype=x.dtype, device=x.device)], d)
    return x


def _conj(x):
    return x.conj()


def _write_out(fn, result, out):
    if out is None:
        return result
    if not isinstance(out, _Tensor):
        raise TypeError(f"fft_{fn}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if result.dtype.is_complex:
        if not out.dtype.is_complex:
            raise RuntimeError(f"{fn} expects a complex output tensor, but got "
                               f"{_name(out.dtype)}")
    elif not out.dtype.is_floating_point:
        raise RuntimeError(f"{fn} expects a floating point output tensor, but got "
                           f"{_name(out.dtype)}")
    if _C.is_grad_enabled() and result.requires_grad:
        raise RuntimeError(f"fft_{fn}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    r = result.detach()
    if tuple(out.shape) != tuple(r.shape):
        if out.numel() != 0:
            raise RuntimeError(f"fft_{fn}(): out has shape {list(out.shape)} but the result has "
                               f"shape {list(r.shape)}; pass an empty out to have it resized")
        if r.dtype != out.dtype:
            r = r.to(out.dtype)
        # an empty out= takes the result's shape: the C++ out= path resizes empty outputs
        _C.where(_C.ones((), dtype=_C.bool, device=r.device), r, r, out=out)
        return out
    out.copy_(r)
    return out


def _fft_c2c(fn, input, n, dim, norm, forward):
    if not input.dtype.is_complex:
        raise RuntimeError(f"{fn} expects a complex input tensor, but got {_name(input.dtype)}")
    d = _wrap(dim, input.dim())
    size = input.shape[d] if n is None else n
    if size < 1:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")
    if n is not None:
        input = _resize(input, (d,), (n,))
    return _c2c(input, [d], _scale(norm, size, forward), forward)


def _fft_r2c(fn, input, n, dim, norm, forward, onesided):
    if input.dtype.is_complex:
        raise RuntimeError(f"{fn} expects a real input tensor, but got {_name(input.dtype)}")
    input = _promote(input, False)
    d = _wrap(dim, input.dim())
    size = input.shape[d] if n is None else n
    if size < 1:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")
    if n is not None:
        input = _resize(input, (d,), (n,))
    r = _r2c(input, [d], _scale(norm, size, forward), onesided)
    return r if forward else _conj(r)


def _fft_c2r(fn, input, n, dim, norm, forward):
    input = _promote(input, True)
    d = _wrap(dim, input.dim())
    size = 2 * (input.shape[d] - 1) if n is None else n
    if size < 1:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")
    if n is not None:
        input = _resize(input, (d,), (size // 2 + 1,))
    scale = _scale(norm, size, forward)
    if forward:
        input = _conj(input)
    return _c2r(input, [d], scale, size)


def _shape_and_dims(input, s, dim):
    """torch's canonicalize_fft_shape_and_dim_args: (signal sizes, wrapped dims)."""
    ndim = input.dim()
    sizes = input.shape
    dims = None
    if dim is not None:
        if isinstance(dim, int) and not isinstance(dim, bool):
            dim = (dim,)
        dims = [_wrap(d, ndim) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if isinstance(s, int) and not isinstance(s, bool):
            s = (s,)
        s = list(s)
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                               f"{ndim} dimensions.")
        if dims is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [sizes[d] if v == -1 else int(v) for v, d in zip(s, dims)]
    elif dims is None:
        dims = list(range(ndim))
        shape = list(sizes)
    else:
        shape = [sizes[d] for d in dims]
    for v in shape:
        if v <= 0:
            raise RuntimeError(f"Invalid number of data points ({v}) specified")
    return shape, dims


def _prod(xs):
    p = 1
    for v in xs:
        p *= v
    return p


def _fftn_c2c(fn, input, s, dim, norm, forward):
    shape, dims = _shape_and_dims(input, s, dim)
    x = _promote(input, True)
    x = _resize(x, dims, shape)
    scale = _scale(norm, _prod(shape), forward)
    if not dims:
        return x.clone() if x is input else x
    return _c2c(x, dims, scale, forward)


def _c2r_shape_and_dims(fn, input, s, dim):
    shape, dims = _shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError(f"{fn} must transform at least one axis")
    if s is None or (not isinstance(s, int) and list(s)[-1] == -1):
        last = 2 * (input.shape[dims[-1]] - 1)
    else:
        last = shape[-1]
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    shape[-1] = last // 2 + 1
    return shape, dims, last


# ---- the public functions -----------------------------------------------------------------

def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """fft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor

    The one-dimensional discrete Fourier transform of input along dim (torch.fft.fft)."""
    _check_tensor("fft", input)
    _check_n("fft", n)
    _check_dim1("fft", dim)
    if input.dtype.is_complex:
        r = _fft_c2c("fft", input, n, dim, norm, True)
    else:
        r = _fft_r2c("fft", input, n, dim, norm, True, False)
    return _write_out("fft", r, out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """ifft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor

    The one-dimensional inverse discrete Fourier transform of input (torch.fft.ifft)."""
    _check_tensor("ifft", input)
    _check_n("ifft", n)
    _check_dim1("ifft", dim)
    if input.dtype.is_complex:
        r = _fft_c2c("ifft", input, n, dim, norm, False)
    else:
        r = _fft_r2c("ifft", input, n, dim, norm, False, False)
    return _write_out("ifft", r, out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """rfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor

    The one-sided (n // 2 + 1 frequencies) Fourier transform of real input (torch.fft.rfft)."""
    _check_tensor("rfft", input)
    _check_n("rfft", n)
    _check_dim1("rfft", dim)
    if out is not None and isinstance(out, _Tensor) and not out.dtype.is_complex:
        raise RuntimeError(f"rfft expects a complex output tensor, but got {_name(out.dtype)}")
    return _write_out("rfft", _fft_r2c("rfft", input, n, dim, norm, True, True), out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """irfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor

    The inverse of rfft: a real signal of n (default 2 * (input.size(dim) - 1)) points
    (torch.fft.irfft)."""
    _check_tensor("irfft", input)
    _check_n("irfft", n)
    _check_dim1("irfft", dim)
    if out is not None and isinstance(out, _Tensor) and not out.dtype.is_floating_point:
        raise RuntimeError(f"irfft expects a floating point output tensor, but got "
                           f"{_name(out.dtype)}")
    return _write_out("irfft", _fft_c2r("irfft", input, n, dim, norm, False), out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """hfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor

    The Fourier transform of a Hermitian-symmetric signal given by its one-sided half: a
    real result of n points (torch.fft.hfft)."""
    _check_tensor("hfft", input)
    _check_n("hfft", n)
    _check_dim1("hfft", dim)
    return _write_out("hfft", _fft_c2r("hfft", input, n, dim, norm, True), out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """ihfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor

    The inverse of hfft: the one-sided inverse transform of real input (torch.fft.ihfft)."""
    _check_tensor("ihfft", input)
    _check_n("ihfft", n)
    _check_dim1("ihfft", dim)
    return _write_out("ihfft", _fft_r2c("ihfft", input, n, dim, norm, False, True), out)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """fftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor

    The N-dimensional discrete Fourier transform over dim (all dims by default)."""
    _check_tensor("fftn", input)
    return _write_out("fftn", _fftn_c2c("fftn", input, s, dim, norm, True), out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """ifftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor

    The N-dimensional inverse discrete Fourier transform."""
    _check_tensor("ifftn", input)
    return _write_out("ifftn", _fftn_c2c("ifftn", input, s, dim, norm, False), out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor

    The two-dimensional discrete Fourier transform (fftn over the last two dims)."""
    _check_tensor("fft2", input)
    return _write_out("fft2", _fftn_c2c("fft2", input, s, dim, norm, True), out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor

    The two-dimensional inverse discrete Fourier transform."""
    _check_tensor("ifft2", input)
    return _write_out("ifft2", _fftn_c2c("ifft2", input, s, dim, norm, False), out)


def _rfftn(input, s, dim, norm):
    if input.dtype.is_complex:
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got "
                           f"{_name(input.dtype)}")
    shape, dims = _shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError("rfftn must transform at least one axis")
    x = _resize(_promote(input, False), dims, shape)
    return _r2c(x, dims, _scale(norm, _prod(shape), True), True)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """rfftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor

    The N-dimensional Fourier transform of real input, one-sided along the last dim."""
    _check_tensor("rfftn", input)
    return _write_out("rfftn", _rfftn(input, s, dim, norm), out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor

    The two-dimensional Fourier transform of real input, one-sided along the last dim."""
    _check_tensor("rfft2", input)
    return _write_out("rfft2", _rfftn(input, s, dim, norm), out)


def _irfftn(fn, input, s, dim, norm):
    shape, dims, last = _c2r_shape_and_dims(fn, input, s, dim)
    x = _resize(_promote(input, True), dims, shape)
    return _c2r(x, dims, _scale(norm, _prod(shape[:-1]) * last, False), last)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """irfftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor

    The inverse of rfftn: a real signal (the last dim's size 2 * (input.size(dim[-1]) - 1)
    unless s says otherwise)."""
    _check_tensor("irfftn", input)
    return _write_out("irfftn", _irfftn("irfftn", input, s, dim, norm), out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor

    The inverse of rfft2."""
    _check_tensor("irfft2", input)
    return _write_out("irfft2", _irfftn("irfftn", input, s, dim, norm), out)


def _hfftn(fn, input, s, dim, norm):
    shape, dims, last = _c2r_shape_and_dims(fn, input, s, dim)
    x = _resize(_promote(input, True), dims, shape)
    if len(dims) > 1:
        x = _c2c(x, dims[:-1], _scale(norm, _prod(shape[:-1]), True), True)
    return _c2r(_conj(x), dims[-1:], _scale(norm, last, True), last)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """hfftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor

    The N-dimensional Fourier transform of a Hermitian-symmetric signal given by its
    one-sided half (along the last dim): a real result."""
    _check_tensor("hfftn", input)
    return _write_out("hfftn", _hfftn("hfftn", input, s, dim, norm), out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor

    The two-dimensional hfftn."""
    _check_tensor("hfft2", input)
    return _write_out("hfft2", _hfftn("hfftn", input, s, dim, norm), out)


def _ihfftn(fn, input, s, dim, norm):
    shape, dims = _shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError("ihfftn must transform at least one axis")
    if input.dtype.is_complex:
        raise RuntimeError(f"Only supports floating-point dtypes, but found: "
                           f"{_name(input.dtype)}")
    x = _resize(_promote(input, False), dims, shape)
    t = _r2c(x, dims[-1:], _scale(norm, shape[-1], False), True)
    if len(dims) == 1:
        return _conj(t)
    return _c2c(_conj(t), dims[:-1], _scale(norm, _prod(shape[:-1]), False), False)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """ihfftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor

    The inverse of hfftn: the one-sided N-dimensional inverse transform of real input."""
    _check_tensor("ihfftn", input)
    return _write_out("ihfftn", _ihfftn("ihfftn", input, s, dim, norm), out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor

    The two-dimensional ihfftn."""
    _check_tensor("ihfft2", input)
    return _write_out("ihfft2", _ihfftn("ihfftn", input, s, dim, norm), out)


# ---- frequencies and shifts ---------------------------------------------------------------

def _freq_dtype(fn, dtype):
    dt = _C.get_default_dtype() if dtype is None else dtype
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"{fn} requires a floating point or complex dtype")
    return dt


def _inv(v):
    return 1.0 / v if v != 0 else math.inf


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, pin_memory=False,
            requires_grad=False):
    """fftfreq(n, d=1.0, *, out=None, dtype=None, layout=torch.strided, device=None,
    requires_grad=False) -> Tensor

    The sample frequencies of a length-n signal with sample spacing d:
    [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n)."""
    if out is not None and dtype is None:
        dtype = out.dtype
    dt = _freq_dtype("fftfreq", dtype)
    r = _C.arange(n, dtype=dt, device=device)
    if n > 0:
        r[(n + 1) // 2:] = _C.arange(-(n // 2), 0, dtype=dt, device=device)
    r = r * _inv(n * d)
    if out is not None:
        return _write_out("fftfreq", r, out)
    if requires_grad:
        r.requires_grad_(True)
    return r


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, pin_memory=False,
             requires_grad=False):
    """rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=torch.strided, device=None,
    requires_grad=False) -> Tensor

    The sample frequencies of rfft's output: [0, 1, ..., n // 2] / (d * n)."""
    if out is not None and dtype is None:
        dtype = out.dtype
    dt = _freq_dtype("rfftfreq", dtype)
    r = _C.arange(n // 2 + 1, dtype=dt, device=device)
    r = r * _inv(n * d)  # n = 0: torch's [nan] (0 * inf)
    if out is not None:
        return _write_out("rfftfreq", r, out)
    if requires_grad:
        r.requires_grad_(True)
    return r


def _shift_dims(input, dim):
    if dim is None:
        return list(range(input.dim()))
    if isinstance(dim, int) and not isinstance(dim, bool):
        dim = [dim]
    return [_wrap(d, input.dim()) for d in dim]


def fftshift(input, dim=None):
    """fftshift(input, dim=None) -> Tensor

    Reorders fftn's output so that the zero frequency is in the middle (torch.roll by
    size // 2 along each dim, all dims by default)."""
    _check_tensor("fftshift", input)
    dims = _shift_dims(input, dim)
    if not dims:
        raise RuntimeError("`shifts` required")
    return _roll(input, [input.shape[d] // 2 for d in dims], dims)


def ifftshift(input, dim=None):
    """ifftshift(input, dim=None) -> Tensor

    The inverse of fftshift (torch.roll by (size + 1) // 2 along each dim)."""
    _check_tensor("ifftshift", input)
    dims = _shift_dims(input, dim)
    if not dims:
        raise RuntimeError("`shifts` required")
    return _roll(input, [(input.shape[d] + 1) // 2 for d in dims], dims)
