"""ember.stft / ember.istft (and the Tensor methods) on the CPU against a NumPy reference
(frames of the reflect-padded signal times the window, numpy.fft.rfft/fft), istft's
round trip, torch's argument errors, and gradients. GPU runs are in test_fft_gpu.py."""
import numpy as np
import pytest

import ember

RNG = np.random.default_rng()


def np_stft(x, n_fft, hop, win, window, center, onesided, normalized, pad_mode="reflect"):
    if center:
        pad = n_fft // 2
        mode = {"reflect": "reflect", "constant": "constant", "replicate": "edge",
                "circular": "wrap"}[pad_mode]
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(pad, pad)], mode=mode)
    w = np.ones(win) if window is None else window
    left = (n_fft - win) // 2
    w = np.concatenate([np.zeros(left), w, np.zeros(n_fft - win - left)])
    n_frames = 1 + (x.shape[-1] - n_fft) // hop
    frames = np.stack([x[..., f * hop:f * hop + n_fft] * w for f in range(n_frames)], -2)
    norm = "ortho" if normalized else None
    spec = np.fft.rfft(frames, axis=-1, norm=norm) if onesided else \
        np.fft.fft(frames, axis=-1, norm=norm)
    return np.swapaxes(spec, -1, -2)


@pytest.mark.parametrize("kw", [
    dict(n_fft=64),
    dict(n_fft=64, hop_length=16, win_length=32, window="hann"),
    dict(n_fft=32, hop_length=8, window="hann", center=False, normalized=True),
    dict(n_fft=33, hop_length=10, onesided=False, pad_mode="constant"),
    dict(n_fft=40, hop_length=7, win_length=31, window="hann", pad_mode="replicate"),
])
@pytest.mark.parametrize("shape", [(200,), (3, 201)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_stft_matches_numpy_and_round_trips(kw, shape, dtype):
    x = RNG.standard_normal(shape).astype(dtype)
    n_fft = kw["n_fft"]
    win = kw.get("win_length", n_fft)
    hop = kw.get("hop_length", n_fft // 4)
    window = None
    ew = None
    if kw.get("window") == "hann":
        window = (np.hanning(win) + 0.1).astype(dtype)
        ew = ember.from_numpy(window)
    args = {k: v for k, v in kw.items() if k not in ("window", "n_fft")}
    r = ember.stft(ember.from_numpy(x), n_fft, window=ew, return_complex=True, **args)
    ref = np_stft(x.astype(np.float64), n_fft, hop, win, window, kw.get("center", True),
                  kw.get("onesided", True), kw.get("normalized", False),
                  kw.get("pad_mode", "reflect"))
    assert r.dtype == (ember.complex64 if dtype == "float32" else ember.complex128)
    tol = 1e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(r.numpy(), ref, atol=tol * max(1, np.abs(ref).max()))
    rr = ember.from_numpy(x).stft(n_fft, window=ew, return_complex=False, **args)
    np.testing.assert_array_equal(rr.numpy(), ember.view_as_real(r).numpy())
    if kw.get("onesided", True) and kw.get("pad_mode", "reflect") == "reflect":
        ikw = {k: v for k, v in args.items() if k in ("hop_length", "win_length", "center",
                                                      "normalized")}
        y = ember.istft(r, n_fft, window=ew, length=shape[-1], **ikw)
        # samples past the last frame are not reconstructed: zeros (torch's padding)
        center = kw.get("center", True)
        padded = shape[-1] + (2 * (n_fft // 2) if center else 0)
        reach = n_fft + hop * ((padded - n_fft) // hop) - (n_fft // 2 if center else 0)
        k = min(reach, shape[-1])
        np.testing.assert_allclose(y.numpy()[..., :k], x[..., :k], atol=tol * 10)
        assert (y.numpy()[..., k:] == 0).all()
        y2 = r.istft(n_fft, window=ew, length=shape[-1], **ikw)
        np.testing.assert_array_equal(y2.numpy(), y.numpy())


def test_istft_lengths_and_two_sided():
    x = RNG.standard_normal(160)
    r = ember.stft(ember.from_numpy(x), 32, return_complex=True)
    assert ember.istft(r, 32).shape == (160,)
    y = ember.istft(r, 32, length=170)  # longer than the frames reach: zero-padded
    assert y.shape == (170,)
    np.testing.assert_allclose(y.numpy()[:160], x, atol=1e-10)
    full = ember.stft(ember.from_numpy(x), 32, onesided=False, return_complex=True)
    np.testing.assert_allclose(ember.istft(full, 32, onesided=False).numpy(), x, atol=1e-10)
    c = ember.from_numpy(x + 1j * RNG.standard_normal(160))
    rc = ember.stft(c, 32, return_complex=True)  # complex input: two-sided
    assert rc.shape == (32, 21)
    yc = ember.istft(rc, 32, return_complex=True)
    np.testing.assert_allclose(yc.numpy(), c.numpy(), atol=1e-10)


def test_errors():
    x = ember.randn(100)
    with pytest.raises(RuntimeError, match="stft requires the return_complex parameter"):
        ember.stft(x, 16)
    with pytest.raises(RuntimeError, match="expected a 1D or 2D tensor"):
        ember.stft(ember.randn(2, 2, 100), 16, return_complex=True, center=False)
    with pytest.raises(RuntimeError, match="expected 0 < n_fft < 100"):
        ember.stft(x, 200, return_complex=True, center=False)
    with pytest.raises(RuntimeError, match="expected 0 < win_length <= n_fft"):
        ember.stft(x, 16, win_length=20, return_complex=True)
    with pytest.raises(RuntimeError, match="expected a 1D window tensor of size equal to "
                                           "win_length=16"):
        ember.stft(x, 16, window=ember.ones(8), return_complex=True)
    with pytest.raises(RuntimeError, match="expected a tensor of floating point or complex"):
        ember.stft(ember.arange(100), 16, return_complex=True, center=False)
    with pytest.raises(RuntimeError, match="istft requires a complex-valued input tensor"):
        ember.istft(ember.randn(9, 10), 16)
    r = ember.stft(x, 16, return_complex=True)
    with pytest.raises(RuntimeError, match="expected the frequency dimension"):
        ember.istft(r, 20)
    with pytest.raises(RuntimeError, match="expected 0 < hop_length <= win_length"):
        ember.istft(r, 16, hop_length=0)
    with pytest.raises(RuntimeError, match="window overlap add min"):
        ember.istft(r, 16, window=ember.zeros(16))
    with pytest.raises(RuntimeError, match="Cannot have onesided output"):
        ember.stft(x.to(ember.complex64), 16, onesided=True, return_complex=True)


def test_gradients():
    x = ember.from_numpy(RNG.standard_normal(40)).requires_grad_()
    w = ember.from_numpy(np.hanning(16) + 0.5)
    assert ember.autograd.gradcheck(
        lambda t: ember.stft(t, 16, hop_length=4, window=w, return_complex=True), (x,))
    s = ember.stft(x.detach(), 16, hop_length=4, window=w, return_complex=True)
    s = s.detach().requires_grad_()
    assert ember.autograd.gradcheck(
        lambda t: ember.istft(t, 16, hop_length=4, window=w, length=40), (s,))
