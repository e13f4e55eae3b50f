"""ember.fft on CUDA tensors (cuFFT) against torch.fft on the GPU: every transform with
n/s/dim/norm combinations, float32/float64/complex inputs, float16 (powers of two) and
torch's error otherwise, batched, strided and more-than-3-dim transforms, the current
stream, autograd against torch's gradients, the plan cache (size, max_size, clear, LRU
eviction, per device) and the memory statistics (cuFFT's workspace comes from the caching
allocator and is returned)."""
import numpy as np
import pytest

import ember

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng()

NORMS = [None, "forward", "ortho"]


def pair(torch, shape, dtype):
    """An ember CUDA tensor of dtype (a name) with fresh random values and its torch twin."""
    a = RNG.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * RNG.standard_normal(shape)
    a = a.astype(dtype if dtype != "float16" else "float32")
    e = ember.tensor(a, device="cuda")
    t = torch.tensor(a, device="cuda")
    if dtype == "float16":
        e, t = e.half(), t.half()
    return e, t


def same(e, t, torch, rtol=None, atol=None):
    if e.dtype == ember.complex32:  # through its (re, im) float16 view
        got = torch.from_dlpack(ember.view_as_real(e.detach().contiguous()))
        got = got.view(torch.complex32).squeeze(-1)
    else:
        got = torch.from_dlpack(e.detach().contiguous())
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    if t.dtype in (torch.complex32, torch.float16):
        got = got.to(torch.complex64 if t.is_complex() else torch.float32)
        t = t.to(got.dtype)
        rtol, atol = 1e-2, 1e-2 * max(1.0, float(t.abs().max()))
    elif t.dtype in (torch.complex64, torch.float32):
        rtol, atol = 1e-4, 1e-4 * max(1.0, float(t.abs().max()))
    else:
        rtol, atol = 1e-10, 1e-10 * max(1.0, float(t.abs().max()))
    torch.testing.assert_close(got, t.detach(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_one_dimensional(dtype, norm, torch):
    e, t = pair(torch, (6, 40, 9), dtype)
    for name in ["fft", "ifft", "rfft", "ihfft", "irfft", "hfft"]:
        if name in ("rfft", "ihfft") and dtype.startswith("complex"):
            continue
        for n, dim in [(None, -1), (None, 0), (17, 1), (64, 1), (2, -1)]:
            same(getattr(ember.fft, name)(e, n=n, dim=dim, norm=norm),
                 getattr(torch.fft, name)(t, n=n, dim=dim, norm=norm), torch)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("s,dim", [(None, None), ((5, 3), None), (None, (0, 2)),
                                   ((4, -1), (2, 0)), ((8, 6, 10), (0, 1, 2)), (None, (1,))])
def test_n_dimensional(s, dim, norm, torch):
    ec, tc = pair(torch, (6, 7, 8), "complex64")
    er, tr = pair(torch, (6, 7, 8), "float64")
    for name in ["fftn", "ifftn", "irfftn", "hfftn"]:
        same(getattr(ember.fft, name)(ec, s=s, dim=dim, norm=norm),
             getattr(torch.fft, name)(tc, s=s, dim=dim, norm=norm), torch)
    for name in ["fftn", "rfftn", "ihfftn"]:
        same(getattr(ember.fft, name)(er, s=s, dim=dim, norm=norm),
             getattr(torch.fft, name)(tr, s=s, dim=dim, norm=norm), torch)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"])
def test_two_dimensional(name, torch):
    dtype = "float32" if name in ("rfft2", "ihfft2") else "complex128"
    e, t = pair(torch, (3, 16, 10), dtype)
    same(getattr(ember.fft, name)(e), getattr(torch.fft, name)(t), torch)
    same(getattr(ember.fft, name)(e, s=(8, 12), dim=(0, 2), norm="ortho"),
         getattr(torch.fft, name)(t, s=(8, 12), dim=(0, 2), norm="ortho"), torch)


def test_more_than_three_dims(torch):
    e, t = pair(torch, (3, 4, 5, 6, 7), "complex64")
    same(ember.fft.fftn(e), torch.fft.fftn(t), torch)
    same(ember.fft.ifftn(e, dim=(0, 1, 3, 4)), torch.fft.ifftn(t, dim=(0, 1, 3, 4)), torch)
    same(ember.fft.irfftn(e), torch.fft.irfftn(t), torch)
    same(ember.fft.hfftn(e, dim=(0, 1, 2, 3)), torch.fft.hfftn(t, dim=(0, 1, 2, 3)), torch)
    er, tr = pair(torch, (3, 4, 5, 6, 7), "float64")
    same(ember.fft.rfftn(er), torch.fft.rfftn(tr), torch)
    same(ember.fft.ihfftn(er, dim=(4, 0, 2, 1)), torch.fft.ihfftn(tr, dim=(4, 0, 2, 1)), torch)


def test_strided_and_batched(torch):
    e, t = pair(torch, (12, 16, 10), "complex64")
    views = [lambda x: x.transpose(0, 2), lambda x: x[::2, 1:, ::3],
             lambda x: x.permute(1, 2, 0), lambda x: x[:, 3], lambda x: x[1:, :, 1:]]
    for v in views:
        for dim in (0, -1):
            same(ember.fft.fft(v(e), dim=dim), torch.fft.fft(v(t), dim=dim), torch)
            same(ember.fft.irfft(v(e), dim=dim), torch.fft.irfft(v(t), dim=dim), torch)
            same(ember.fft.rfft(v(e).real, dim=dim), torch.fft.rfft(v(t).real, dim=dim), torch)
        same(ember.fft.fft2(v(e)), torch.fft.fft2(v(t)), torch)
    before = torch.from_dlpack(e).clone()
    ember.fft.irfftn(e)  # cuFFT's c2r overwrites its input: ember's input is left alone
    torch.testing.assert_close(torch.from_dlpack(e), before, rtol=0, atol=0)
    # results keep torch's strides (the transformed dims innermost)
    assert ember.fft.fft(e, dim=0).stride() == torch.fft.fft(t, dim=0).stride()
    assert ember.fft.rfft(e.real, dim=0).stride() == torch.fft.rfft(t.real, dim=0).stride()
    # multi-dim r2c: a 1-D r2c, then c2c along the other dims read in cuFFT's strided
    # layout where it can (values; the strides of multi-dim results are not torch's in
    # every case)
    for dims in ((0, 1), (1, 2), (0, 2), (0, 1, 2)):
        same(ember.fft.rfftn(e.real, dim=dims), torch.fft.rfftn(t.real, dim=dims), torch)


def test_empty_batch_and_integer_input(torch):
    # torch's cuFFT plan refuses an empty batch (CUFFT_INVALID_SIZE); ember returns the
    # empty result, of torch's shape and dtype (its CPU's)
    e, t = pair(torch, (0, 8), "complex64")
    with pytest.raises(RuntimeError, match="CUFFT_INVALID_SIZE"):
        torch.fft.fft(t)
    r = ember.fft.fft(e)
    assert tuple(r.shape) == (0, 8) and r.dtype == ember.complex64 and r.is_cuda
    r = ember.fft.irfft(e)
    assert tuple(r.shape) == (0, 14) and r.dtype == ember.float32
    ei = ember.arange(10, device="cuda")
    ti = torch.arange(10, device="cuda")
    same(ember.fft.fft(ei), torch.fft.fft(ti), torch)
    same(ember.fft.rfft(ei), torch.fft.rfft(ti), torch)


@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
def test_half_precision(torch):
    e, t = pair(torch, (4, 64), "float16")
    same(ember.fft.fft(e), torch.fft.fft(t), torch)
    same(ember.fft.rfft(e), torch.fft.rfft(t), torch)
    same(ember.fft.irfft(ember.fft.rfft(e)), torch.fft.irfft(torch.fft.rfft(t)), torch)
    same(ember.fft.fft2(e, norm="ortho"), torch.fft.fft2(t, norm="ortho"), torch)
    e, t = pair(torch, (4, 60), "float16")
    with pytest.raises(RuntimeError) as ee:
        ember.fft.fft(e)
    with pytest.raises(RuntimeError) as te:
        torch.fft.fft(t)
    assert "powers of two" in str(ee.value) and "powers of two" in str(te.value)
    assert "[60]" in str(ee.value)
    with pytest.raises(RuntimeError, match="Unsupported dtype BFloat16"):
        ember.fft.fft(e.to(ember.bfloat16))
    same(ember.fft.fft(ember.ones(8, device="cuda")), torch.fft.fft(torch.ones(8, device="cuda")),
         torch)


def test_current_stream(torch):
    e, t = pair(torch, (64, 1024), "complex64")
    s = ember.cuda.Stream()
    s.wait_stream(ember.cuda.current_stream())
    with ember.cuda.stream(s):
        ember.cuda._sleep(5_000_000)  # the transform must queue behind this
        r = ember.fft.fft(e)
    ember.cuda.current_stream().wait_stream(s)
    same(r, torch.fft.fft(t), torch)


@pytest.mark.parametrize("name,dtype,kw", [
    ("fft", "complex128", {}), ("ifft", "float64", {"norm": "ortho"}),
    ("rfft", "float64", {"n": 9}), ("irfft", "complex128", {"n": 7}),
    ("hfft", "complex128", {"norm": "forward"}), ("ihfft", "float64", {}),
    ("fftn", "complex128", {"s": (3, 5)}), ("rfftn", "float64", {}),
    ("irfftn", "complex128", {}), ("hfftn", "complex128", {}), ("ihfftn", "float64", {}),
])
def test_gradients_match_torch(name, dtype, kw, torch):
    e, t = pair(torch, (4, 6), dtype)
    e.requires_grad_()
    t.requires_grad_()
    ye = getattr(ember.fft, name)(e, **kw)
    yt = getattr(torch.fft, name)(t, **kw)
    ge, gt = pair(torch, tuple(yt.shape), str(yt.dtype).split(".")[-1])
    ye.backward(ge)
    yt.backward(gt)
    same(e.grad, t.grad, torch)
    assert ember.autograd.gradcheck(lambda x: getattr(ember.fft, name)(x, **kw),
                                    (e.detach().requires_grad_(),))


def test_plan_cache_controls(torch):
    cache = ember.backends.cuda.cufft_plan_cache
    assert cache.max_size == torch.backends.cuda.cufft_plan_cache.max_size == 4096
    cache.clear()
    assert cache.size == 0
    x = ember.randn(16, 100, device="cuda", dtype=ember.complex64)
    ember.fft.fft(x)
    assert cache.size == 1
    ember.fft.fft(x)  # a hit: no new plan
    assert cache.size == 1
    ember.fft.fft(x, n=50)
    ember.fft.rfft(x.real)
    ember.fft.fft(x.to(ember.complex128))
    assert cache.size == 4
    assert cache[0].size == cache.size and cache["cuda:0"].size == cache.size
    assert cache[ember.device("cuda", 0)].max_size == 4096
    cache.max_size = 2  # shrinking evicts the least recently used
    assert cache.size == 2 and cache.max_size == 2
    for n in range(10, 20):
        ember.fft.fft(x, n=n)
        assert cache.size <= 2
    cache.max_size = 0  # no caching: still correct
    same(ember.fft.fft(x), torch.fft.fft(torch.from_dlpack(x)), torch)
    assert cache.size == 0
    cache.max_size = 4096
    ember.fft.fft(x)
    cache.clear()
    assert cache.size == 0
    with pytest.raises(RuntimeError, match="read-only"):
        cache.size = 3
    with pytest.raises(RuntimeError, match="must be non-negative"):
        cache.max_size = -1
    assert cache.max_size == 4096
    with pytest.raises(RuntimeError, match="expected 0 <= device index"):
        cache[ember.cuda.device_count()]


def test_plan_cache_lru_order(torch):
    cache = ember.backends.cuda.cufft_plan_cache
    cache.clear()
    cache.max_size = 2
    try:
        x = ember.randn(4, 64, device="cuda", dtype=ember.complex64)
        ember.fft.fft(x, n=32)   # A
        ember.fft.fft(x, n=48)   # B
        ember.fft.fft(x, n=32)   # A again: most recent
        ember.fft.fft(x, n=40)   # C evicts B, not A
        assert cache.size == 2
        cache.max_size = 1       # keeps C
        assert cache.size == 1
        same(ember.fft.fft(x, n=40), torch.fft.fft(torch.from_dlpack(x), n=40), torch)
    finally:
        cache.max_size = 4096
        cache.clear()


def test_memory_stats_see_the_workspace(torch):
    ember.cuda.synchronize()
    x = ember.randn(1 << 22, device="cuda", dtype=ember.complex64)
    ember.backends.cuda.cufft_plan_cache.clear()
    ember.cuda.synchronize()
    base = ember.cuda.memory_allocated()
    ember.cuda.reset_peak_memory_stats()
    y = ember.fft.fft(x)
    ember.cuda.synchronize()
    # the output stays allocated; the workspace was allocated and given back
    assert ember.cuda.memory_allocated() == base + y.numel() * 8
    assert ember.cuda.max_memory_allocated() >= base + y.numel() * 8
    del y
    ember.cuda.synchronize()
    assert ember.cuda.memory_allocated() == base


def test_library_loaded_lazily():
    import subprocess
    import sys
    code = ("import ember, sys; assert not ember._C._fft.cufft_loaded(); "
            "x = ember.randn(8, device='cuda'); assert not ember._C._fft.cufft_loaded(); "
            "ember.fft.fft(x); assert ember._C._fft.cufft_loaded(); "
            "print(open('/proc/self/maps').read().count('libcufft') > 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


@pytest.mark.filterwarnings("ignore:A window was not provided")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_stft_istft(dtype, torch):
    e, t = pair(torch, (3, 1000), dtype)
    ew, tw = pair(torch, (64,), dtype)
    ew, tw = ew.abs() + 0.5, tw.abs() + 0.5
    for kw in [dict(n_fft=128), dict(n_fft=128, hop_length=16, win_length=64),
               dict(n_fft=100, hop_length=25, center=False, normalized=True)]:
        we = ew if kw.get("win_length") == 64 else None
        wt = tw if kw.get("win_length") == 64 else None
        se = ember.stft(e, window=we, return_complex=True, **kw)
        st = torch.stft(t, window=wt, return_complex=True, **kw)
        same(se, st, torch)
        same(ember.istft(se, window=we, length=1000, **kw),
             torch.istft(st, window=wt, length=1000, **kw), torch)
