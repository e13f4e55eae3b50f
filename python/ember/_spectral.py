"""torch.stft and torch.istft (and the Tensor methods), composed as ATen's SpectralOps.cpp
composes them: frames are a strided view of the (reflect-padded when center) signal times
the window, transformed by ember.fft's cores along the last dim; istft inverts each frame,
overlap-adds them (index_add over the frames' positions) and divides by the overlap-added
squared window. Differentiable through the cores' autograd."""
from ember import _C
from ember import fft as _fft
from ember._composite_shape import _attach

__all__ = ["stft", "istft"]

_Tensor = _C.Tensor


def _repr(name, x, n_fft, hop, win, window, extra):
    w = "None" if window is None else f"{_fft._name(window.dtype)}{{{list(window.shape)}}}"
    return (f"{name}({_fft._name(x.dtype)}{list(x.shape)}, n_fft={n_fft}, hop_length={hop}, "
            f"win_length={win}, window={w}{extra}) ")


def _padded_window(window, n_fft, win_length, like):
    if window is None:
        window = _C.ones(win_length, dtype=like.dtype if not like.dtype.is_complex else
                         _C.float64 if like.dtype == _C.complex128 else _C.float32,
                         device=like.device)
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = _C.cat([_C.zeros(left, dtype=window.dtype, device=window.device), window,
                         _C.zeros(n_fft - win_length - left, dtype=window.dtype,
                                  device=window.device)])
    return window


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None):
    """stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
    pad_mode='reflect', normalized=False, onesided=None, return_complex=None) -> Tensor

    The short-time Fourier transform (torch.stft): (*, n_freq, n_frames) complex, or its
    view_as_real with return_complex=False."""
    if not isinstance(input, _Tensor):
        raise TypeError(f"stft(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if center:
        from ember.nn import functional as F
        signal_dim = input.dim()
        extended = [1] * (3 - signal_dim) + list(input.shape)
        pad = int(n_fft // 2)
        input = F.pad(input.reshape(extended), [pad, pad], pad_mode)
        input = input.reshape(input.shape[-signal_dim:])
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    cplx = input.dtype.is_complex or (window is not None and window.dtype.is_complex)
    if return_complex is None:
        if not cplx:
            raise RuntimeError("stft requires the return_complex parameter be given for real "
                               "inputs, and will further require that return_complex=True in "
                               "a future PyTorch release.")
        return_complex = True
    extra = (f", normalized={int(normalized)}, onesided="
             f"{'None' if onesided is None else int(onesided)}, return_complex="
             f"{int(return_complex)}")
    here = _repr("stft", input, n_fft, hop, win, window, extra)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(here + ": expected a tensor of floating point or complex values")
    if input.dim() not in (1, 2):
        raise RuntimeError(here + ": expected a 1D or 2D tensor")
    x = input.unsqueeze(0) if input.dim() == 1 else input
    length = x.shape[1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(here + f": expected 0 < n_fft < {length}, but got n_fft={win}")
    if hop <= 0:
        raise RuntimeError(here + f": expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(here + f": expected 0 < win_length <= n_fft, but got "
                           f"win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(here + f": expected a 1D window tensor of size equal to "
                           f"win_length={win}, but got window with size {list(window.shape)}")
    if window is not None or win < n_fft:
        w = _padded_window(window, n_fft, win, x)
    else:
        w = None
    n_frames = 1 + (length - n_fft) // hop
    frames = x.unfold(1, n_fft, hop)[:, :n_frames]  # (batch, n_frames, n_fft), a view
    if w is not None:
        frames = frames * w
    complex_fft = frames.dtype.is_complex
    one = (not complex_fft) if onesided is None else onesided
    if frames.dtype not in (_C.float32, _C.float64, _C.complex64, _C.complex128) and \
            not (frames.is_cuda and frames.dtype in (_C.float16, _C.complex32)):
        raise RuntimeError(f"Unsupported dtype {_fft._name(frames.dtype)}")
    scale = n_fft ** -0.5 if normalized else 1.0
    last = [frames.dim() - 1]
    if complex_fft:
        if one:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = _fft._c2c(frames, last, scale, True)
    else:
        out = _fft._r2c(frames, last, scale, one)
    out = out.transpose(1, 2)
    if input.dim() == 1:
        out = out.squeeze(0)
    return out if return_complex else _C.view_as_real(out)


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
    normalized=False, onesided=None, length=None, return_complex=False) -> Tensor

    The inverse short-time Fourier transform (torch.istft): least-squares overlap-add of
    the inverse transforms of stft's frames."""
    if not isinstance(input, _Tensor):
        raise TypeError(f"istft(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if not input.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    extra = (f", center={int(center)}, normalized={int(normalized)}, onesided="
             f"{'None' if onesided is None else int(onesided)}, length="
             f"{'None' if length is None else length}, return_complex={int(return_complex)}")
    here = _repr("istft", input, n_fft, hop, win, window, extra)
    ndim = input.dim() + 1  # as view_as_real
    if input.numel() == 0:
        raise RuntimeError(here + ": input tensor cannot be empty.")
    if ndim not in (3, 4):
        raise RuntimeError(here + ": expected a tensor with 3 or 4 dimensions of real, or 2 or "
                           f"3 dimensions of complex, but got {ndim}")
    n_frames = input.shape[-1]
    fft_size = input.shape[-2]
    expected_len = n_fft + hop * (n_frames - 1)
    one = (fft_size != n_fft) if onesided is None else onesided
    if one:
        if n_fft // 2 + 1 != fft_size:
            raise RuntimeError(here + ": expected the frequency dimension (3rd to the last) of "
                               "the input tensor to match n_fft / 2 + 1 when onesided=True, "
                               f"but got {fft_size}")
    elif n_fft != fft_size:
        raise RuntimeError(here + ": expected the frequency dimension (3rd to the last) of the "
                           "input tensor to match n_fft when onesided=False, but got "
                           f"{fft_size}")
    if not (0 < hop <= win):
        raise RuntimeError(here + ": expected 0 < hop_length <= win_length")
    if not (0 < win <= n_fft):
        raise RuntimeError(here + ": expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(here + ": Invalid window shape. window has to be 1D and length of "
                           "`win_length`")
    real_dtype = _C.float64 if input.dtype == _C.complex128 else \
        _C.float16 if input.dtype == _C.complex32 else _C.float32
    w = window if window is not None else _C.ones(win, dtype=real_dtype, device=input.device)
    w = _padded_window(w, n_fft, win, input)
    x = input.unsqueeze(0) if ndim == 3 else input
    x = x.transpose(1, 2)  # (channel, n_frames, fft_size)
    scale = n_fft ** -0.5 if normalized else 1.0 / n_fft
    last = [2]
    if return_complex:
        if one:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = _fft._c2c(x, last, scale, False)
    else:
        if window is not None and window.dtype.is_complex:
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not one:
            x = x.narrow(-1, 0, n_fft // 2 + 1)
        frames = _fft._c2r(x, last, scale, n_fft)
    frames = frames * w.reshape(1, 1, n_fft)  # (channel, n_frames, n_fft)
    # overlap-add: frame f's sample k lands at f * hop + k
    pos = (_C.arange(n_frames, device=input.device).reshape(-1, 1) * hop +
           _C.arange(n_fft, device=input.device).reshape(1, -1)).reshape(-1)
    channels = frames.shape[0]
    flat = frames.reshape(channels, n_frames * n_fft)
    if flat.dtype.is_complex:  # index_add is real-only: add the (re, im) pairs
        flat = _C.view_as_real(flat)
        y = _C.zeros(channels, expected_len, 2, dtype=flat.dtype, device=input.device)
        y = _C.view_as_complex(y.index_add(1, pos, flat))
    else:
        y = _C.zeros(channels, expected_len, dtype=flat.dtype, device=input.device)
        y = y.index_add(1, pos, flat)
    w2 = (w * w.conj() if w.dtype.is_complex else w * w).expand(n_frames, n_fft)
    env = _C.zeros(expected_len, dtype=w2.dtype, device=input.device)
    env = env.index_add(0, pos, w2.reshape(-1))
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    elif center:
        end = expected_len - n_fft // 2
    else:
        end = expected_len
    stop = min(end, expected_len)
    y = y[:, start:stop]
    env = env[start:stop]
    if bool((env.abs() < 1e-11).any()):
        raise RuntimeError(f"istft(...): window overlap add min: {float(env.abs().min())}")
    y = y / env
    if ndim == 3:
        y = y.squeeze(0)
    if end > expected_len:
        pad = [0] * (y.dim() * 2)
        shape = list(y.shape)
        shape[-1] = end - expected_len
        y = _C.cat([y, _C.zeros(shape, dtype=y.dtype, device=y.device)], -1)
    return y


def _methods():
    def stft_m(self, n_fft, hop_length=None, win_length=None, window=None, center=True,
               pad_mode="reflect", normalized=False, onesided=None, return_complex=None):
        return stft(self, n_fft, hop_length, win_length, window, center, pad_mode, normalized,
                    onesided, return_complex)

    def istft_m(self, n_fft, hop_length=None, win_length=None, window=None, center=True,
                normalized=False, onesided=None, length=None, return_complex=False):
        return istft(self, n_fft, hop_length, win_length, window, center, normalized,
                     onesided, length, return_complex)

    return {"stft": stft_m, "istft": istft_m}


_attach(_methods())
