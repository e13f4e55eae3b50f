"""F.pad (constant, reflect, replicate, circular) and the padding modules against NumPy's
np.pad on the CPU: 1, 2 and 3 padded dims, batched and unbatched, negative pads (crops),
dtypes, non-contiguous inputs, gradients (gradcheck in float64), torch's error messages
and reprs (checked against torch 2.11); the GPU tests compare with torch on CUDA."""
import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck

RNG = np.random.default_rng(1802)
NP_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def np_pad(a, pad, mode, value=0.0):
    """torch's pad tuple (last dim first) as np.pad's widths; negative pads crop."""
    k = len(pad) // 2
    widths = [(0, 0)] * (a.ndim - k) + [(pad[2 * i], pad[2 * i + 1]) for i in reversed(range(k))]
    crop = tuple(slice(max(-lo, 0), a.shape[d] - max(-hi, 0)) for d, (lo, hi) in enumerate(widths))
    a = a[crop]
    widths = [(max(lo, 0), max(hi, 0)) for lo, hi in widths]
    if mode == "constant":
        return np.pad(a, widths, mode="constant", constant_values=value)
    return np.pad(a, widths, mode=NP_MODE[mode])


CASES = [
    ((3, 6), (2, 1)), ((2, 3, 6), (0, 3)), ((3, 5, 6), (1, 2, 3, 1)),
    ((2, 3, 5, 6), (2, 2, 0, 4)), ((2, 4, 5, 6), (1, 2, 3, 1, 2, 0)),
    ((2, 2, 4, 5, 6), (3, 1, 1, 4, 2, 2)),
]


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", CASES)
def test_pad_against_numpy(mode, shape, pad):
    a = RNG.standard_normal(shape)
    got = F.pad(ember.tensor(a), pad, mode=mode)
    np.testing.assert_array_equal(got.numpy(), np_pad(a, pad, mode))


@pytest.mark.parametrize("mode,pad", [("constant", (-1, 2, 0, -2)), ("reflect", (-2, 1)),
                                      ("replicate", (-2, 3, 1, -1)), ("circular", (-1, 2)),
                                      ("circular", (3, -2, 1, 0))])
def test_negative_pads_crop(mode, pad):
    a = RNG.standard_normal((2, 4, 5))
    got = F.pad(ember.tensor(a), pad, mode=mode)
    np.testing.assert_array_equal(got.numpy(), np_pad(a, pad, mode))


def test_constant_any_number_of_dims_values_and_dtypes():
    a = RNG.integers(-5, 5, size=(2, 3, 2, 3, 2))
    got = F.pad(ember.tensor(a), (1, 1, 0, 2, 1, 0, 2, 2, 1, 0), value=7)
    np.testing.assert_array_equal(got.numpy(), np_pad(a, (1, 1, 0, 2, 1, 0, 2, 2, 1, 0),
                                                      "constant", 7))
    assert got.dtype == ember.int64
    h = F.pad(ember.tensor(RNG.standard_normal((3, 4)), dtype=ember.float16), (1, 2), value=1.5)
    assert h.dtype == ember.float16 and float(h[0, 0]) == 1.5
    b = F.pad(ember.tensor([True, False]), (1, 0), value=True)
    assert b.tolist() == [True, True, False]


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_noncontiguous_and_unbatched_modules(mode):
    a = RNG.standard_normal((4, 6, 5))
    x = ember.tensor(a).transpose(1, 2)
    assert not x.is_contiguous()
    np.testing.assert_array_equal(F.pad(x, (1, 2, 2, 1), mode=mode).numpy(),
                                  np_pad(a.transpose(0, 2, 1), (1, 2, 2, 1), mode))


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", [((2, 5), (2, 3)), ((1, 4, 3), (1, 2, 2, 0)),
                                       ((1, 1, 3, 3, 4), (1, 1, 2, 1, 0, 2))])
def test_pad_gradcheck(mode, shape, pad):
    x = ember.tensor(RNG.standard_normal(shape), requires_grad=True)
    assert gradcheck(lambda t: F.pad(t, pad, mode=mode, value=None), (x,))


def test_pad_errors():
    x = ember.randn(2, 3, 5)
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        F.pad(x, (1, 1, 1))
    with pytest.raises(RuntimeError, match="Padding length should be less than or equal to two "
                                           "times the input dimension but got padding length 8 "
                                           "and input of dimension 3"):
        F.pad(x, (1,) * 8)
    with pytest.raises(RuntimeError, match="Argument #4: Padding size should be less than the "
                                           "corresponding input dimension, but got: padding "
                                           r"\(5, 0\) at dimension 2 of input \[2, 3, 5\]"):
        F.pad(x, (5, 0), mode="reflect")
    with pytest.raises(RuntimeError, match=r"Argument #6: Padding size should be less than the "
                                           r"corresponding input dimension, but got: padding "
                                           r"\(3, 0\) at dimension 1"):
        F.pad(x, (1, 1, 3, 0), mode="reflect")
    with pytest.raises(RuntimeError, match="Padding value causes wrapping around more than once"):
        F.pad(x, (6, 0), mode="circular")
    with pytest.raises(RuntimeError, match="Negative padding value is resulting in an empty "
                                           "dimension"):
        F.pad(x, (-4, -2), mode="circular")
    with pytest.raises(NotImplementedError, match="Padding size 2 is not supported for 4D input "
                                                  "tensor."):
        F.pad(ember.randn(1, 2, 3, 4), (1, 1), mode="replicate")
    with pytest.raises(NotImplementedError, match="Padding size 6 is not supported for 3D input "
                                                  "tensor."):
        F.pad(x, (1,) * 6, mode="reflect")
    with pytest.raises(RuntimeError, match=r"Expected 2D or 3D \(batch mode\) tensor with "
                                           r"possibly 0 batch size and other non-zero dimensions "
                                           r"for input, but got: \[3, 0, 4\]"):
        F.pad(ember.randn(3, 0, 4), (1, 2), mode="reflect")
    assert tuple(F.pad(ember.randn(0, 3, 4), (1, 2), mode="replicate").shape) == (0, 3, 7)
    assert tuple(F.pad(ember.randn(3, 0, 4), (1, 2), mode="circular").shape) == (3, 0, 7)
    with pytest.raises(RuntimeError, match='Padding mode "reflect" doesn\'t take in value '
                                           'argument'):
        F.pad(x, (1, 1), mode="reflect", value=1.0)
    with pytest.raises(NotImplementedError, match="Unrecognised padding mode bogus"):
        F.pad(x, (1, 1), mode="bogus")
    with pytest.raises(RuntimeError, match="resulted in a negative output size"):
        F.pad(x, (-4, -2))
    assert tuple(F.pad(x, (1, 1)).shape) == (2, 3, 7)  # still usable


# Strings printed by torch 2.11.
MODULE_REPRS = [
    (lambda: nn.ZeroPad1d(1), "ZeroPad1d((1, 1))"),
    (lambda: nn.ZeroPad2d((1, 2, 3, 4)), "ZeroPad2d((1, 2, 3, 4))"),
    (lambda: nn.ConstantPad1d((1, 2), 2.5), "ConstantPad1d(padding=(1, 2), value=2.5)"),
    (lambda: nn.ConstantPad3d(1, 2.5),
     "ConstantPad3d(padding=(1, 1, 1, 1, 1, 1), value=2.5)"),
    (lambda: nn.ReflectionPad2d(1), "ReflectionPad2d((1, 1, 1, 1))"),
    (lambda: nn.ReplicationPad3d((1, 2, 3, 4, 5, 6)), "ReplicationPad3d((1, 2, 3, 4, 5, 6))"),
    (lambda: nn.CircularPad1d(2), "CircularPad1d((2, 2))"),
]


@pytest.mark.parametrize("make,want", MODULE_REPRS, ids=[w for _, w in MODULE_REPRS])
def test_module_reprs(make, want):
    assert repr(make()) == want


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("kind,mode", [("Zero", "constant"), ("Constant", "constant"),
                                       ("Reflection", "reflect"), ("Replication", "replicate"),
                                       ("Circular", "circular")])
def test_modules_batched_and_unbatched(n, kind, mode):
    padding = tuple(range(1, 2 * n + 1))
    args = (padding, -3.0) if kind == "Constant" else (padding,)
    m = getattr(nn, f"{kind}Pad{n}d")(*args)
    assert m.padding == padding
    a = RNG.standard_normal((2, 3) + (7,) * n)
    value = -3.0 if kind == "Constant" else 0.0
    np.testing.assert_array_equal(m(ember.tensor(a)).numpy(), np_pad(a, padding, mode, value))
    np.testing.assert_array_equal(m(ember.tensor(a[0])).numpy(), np_pad(a[0], padding, mode,
                                                                        value))
    with pytest.raises(TypeError, match=f"{kind}Pad{n}d.__init__\\(\\) missing "):
        getattr(nn, f"{kind}Pad{n}d")()


# ---- GPU: against torch on CUDA ----------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", CASES + [((2, 4, 5), (-1, 2, 1, -2))])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_gpu_pad_against_torch(torch, mode, shape, pad, dtype):
    if mode == "reflect" and min(pad) < 0:
        pytest.skip("covered on the CPU")
    a = RNG.standard_normal(shape).astype(np.float32)
    ex = ember.tensor(a, device="cuda").to(getattr(ember, dtype)).requires_grad_(True)
    tx = torch.tensor(a, device="cuda").to(getattr(torch, dtype)).requires_grad_(True)
    ey = F.pad(ex, pad, mode=mode)
    ty = torch.nn.functional.pad(tx, pad, mode=mode)
    np.testing.assert_array_equal(ey.detach().float().cpu().numpy(),
                                  ty.detach().float().cpu().numpy())
    g = RNG.standard_normal(tuple(ty.shape)).astype(np.float32)
    ey.backward(ember.tensor(g, device="cuda").to(ey.dtype))
    ty.backward(torch.tensor(g, device="cuda").to(ty.dtype))
    tol = 1e-6 if dtype == "float32" else 4e-3
    np.testing.assert_allclose(ex.grad.float().cpu().numpy(), tx.grad.float().cpu().numpy(),
                               rtol=tol, atol=tol)
