"""The edges of the math that every op builds on: reductions of empty tensors,
in-place writes into tensors without elements, operands converted to the common
dtype before computing (0-d tensors, integers into float16/bfloat16), and the
accumulation type of the CPU scans. CPU tests check against NumPy or values
worked out by hand; the GPU tests against torch on the same inputs."""
import math
import warnings

import numpy as np
import pytest

import ember

# ---- reductions of empty tensors ----------------------------------------------

EMPTY_SHAPES = [(2, 0), (0,), (5, 0, 3), (16, 2, 8, 0)]


def _empties(device="cpu"):
    yield "plain", ember.zeros(2, 0, device=device)
    yield "transposed", ember.zeros(5, 0, device=device).t()
    yield "sliced", ember.zeros(4, 3, device=device)[2:2, 1:1]
    yield "4-d", ember.zeros(16, 2, 8, 0, device=device)
    yield "expanded", ember.zeros(1, 0, device=device).expand(5, 0)


@pytest.mark.parametrize("kind", ["plain", "transposed", "sliced", "4-d", "expanded"])
def test_full_reductions_of_empty_tensors_give_torchs_values(kind):
    x = dict(_empties())[kind]
    assert x.sum().item() == 0 and x.sum().dtype == ember.float32
    assert x.prod().item() == 1
    assert math.isnan(x.mean().item())
    assert math.isnan(x.std().item()) and math.isnan(x.var().item())
    assert x.all().item() is True and x.any().item() is False
    assert x.norm().item() == 0
    assert x.logsumexp(tuple(range(x.dim()))).item() == -math.inf
    assert x.to(ember.int32).sum().item() == 0 and x.to(ember.int32).sum().dtype == ember.int64


def test_reductions_over_an_empty_dim_keep_the_other_dims():
    x = ember.zeros(3, 0, 4)
    np.testing.assert_array_equal(x.sum(1).numpy(), np.zeros((3, 4), np.float32))
    np.testing.assert_array_equal(x.prod(1, keepdim=True).numpy(), np.ones((3, 1, 4), np.float32))
    assert np.isnan(x.mean(dim=(0, 1)).numpy()).all() and x.mean(dim=(0, 1)).shape == (4,)
    assert x.all(1).numpy().all() and not x.any(1).numpy().any()
    # an empty kept dim: no outputs at all
    assert ember.zeros(0, 3).amax(dim=(1,)).shape == (0,)
    assert ember.zeros(2, 0, 3).sum((0, 2)).shape == (0,)


def test_extremes_over_an_empty_dim_raise_torchs_errors():
    x = ember.zeros(2, 0)
    with pytest.raises(IndexError, match=r"amax\(\): Expected reduction dim 1 to have non-zero size"):
        x.amax((0, 1))
    with pytest.raises(IndexError, match=r"amin\(\): Expected reduction dim 1 to have non-zero size"):
        x.amin(dim=(0, 1))
    with pytest.raises(RuntimeError, match="Expected reduction dim to be specified"):
        x.amax()
    assert ember.zeros(3).sum().item() == 0  # the process goes on


# ---- in-place writes into tensors without elements -----------------------------------


def test_in_place_ops_on_empty_tensors_with_zero_strides():
    x = ember.zeros(1, 0).expand(5, 0)
    assert x.add_(1).shape == (5, 0)
    y = ember.from_numpy(np.zeros((3, 0)))  # NumPy gives empty arrays zero strides
    assert y.mul_(2).shape == (3, 0)
    assert y.neg_().shape == (3, 0) and y.sin_().shape == (3, 0)
    z = ember.zeros(1, 0).expand(4, 0)
    z.fill_(3)
    z.copy_(ember.ones(4, 0))
    ember.add(ember.ones(4, 0), 1, out=z)


def test_writing_into_an_expanded_tensor_still_raises():
    x = ember.zeros(1, 3).expand(2, 3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        x.add_(1)
    xi = ember.zeros(1, 3, dtype=ember.int64).expand(2, 3)
    for name in ("ceil_", "floor_", "round_", "trunc_"):  # a no-op for integers, checked as torch
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            getattr(xi, name)()


# ---- operands converted to the common dtype first ----------------------------------


def test_zero_dim_tensor_is_cast_to_the_result_dtype_before_comparing():
    u = ember.tensor([4, 245, 0], dtype=ember.uint8)
    # -4 wraps to 252 in uint8, as a Python -4 does
    assert (u > ember.tensor(-4)).tolist() == [False, False, False]
    assert (u > -4).tolist() == [False, False, False]
    assert (u < ember.tensor(-4)).tolist() == [True, True, True]
    i8 = ember.tensor([1, -5, 100], dtype=ember.int8)
    assert (i8 > ember.tensor(300)).tolist() == [False, False, True]   # 300 -> 44
    assert (i8 == ember.tensor(356)).tolist() == [False, False, True]  # 356 -> 100


def test_zero_dim_tensor_is_cast_in_arithmetic():
    assert ember.minimum(ember.tensor([5], dtype=ember.uint8),
                         ember.tensor(-4, dtype=ember.int16)).tolist() == [5]
    assert ember.maximum(ember.tensor([5], dtype=ember.uint8),
                         ember.tensor(-4, dtype=ember.int16)).tolist() == [252]
    q = ember.tensor([5, -5], dtype=ember.int8) // ember.tensor(130, dtype=ember.uint8)
    assert q.tolist() == [-1, 0] and q.dtype == ember.int8  # 130 -> -126
    r = ember.tensor([100], dtype=ember.int8) % ember.tensor(300, dtype=ember.int16)
    assert r.tolist() == [12]  # 300 -> 44
    u = ember.tensor([4, 245], dtype=ember.uint8)
    u.add_(ember.tensor(-4))  # in place: 4 + 252 wraps
    assert u.tolist() == [0, 241]


def test_integer_division_by_a_zero_that_the_cast_makes():
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        ember.tensor([5], dtype=ember.uint8) // ember.tensor(256, dtype=ember.int16)  # 256 -> 0
    assert ember.tensor([5], dtype=ember.uint8).add(1).tolist() == [6]  # the process goes on


def test_integer_division_by_zero_with_an_empty_result_is_empty():
    assert (ember.zeros(0, dtype=ember.int64) // ember.tensor(0)).shape == (0,)
    assert (ember.zeros(0, dtype=ember.int32) % ember.zeros(3, dtype=ember.int32)[:0]).shape == (0,)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        ember.zeros(2, dtype=ember.int64) // ember.tensor(0)


def test_integers_round_to_float16_and_bfloat16_before_computing():
    i = ember.tensor([2049], dtype=ember.int16)
    s = i + ember.tensor([0.5, 0.5], dtype=ember.float16)
    assert s.dtype == ember.float16 and s.tolist() == [2048.0, 2048.0]  # 2049 is 2048 in float16
    assert (i == ember.tensor([2048.0], dtype=ember.float16)).tolist() == [True]
    p = ember.tensor([-70000]) ** ember.tensor(-0.5, dtype=ember.float16)
    assert p.dtype == ember.float16 and p.tolist() == [0.0]  # -70000 is -inf in float16
    b = ember.tensor([257], dtype=ember.int32) * ember.tensor([1.0], dtype=ember.bfloat16)
    assert b.dtype == ember.bfloat16 and b.tolist() == [256.0]  # 257 is 256 in bfloat16


def test_wider_floats_round_to_the_common_float16():
    h = ember.tensor([1.0], dtype=ember.float16)
    # a 0-d float32 tensor does not promote a float16 tensor: 0.1 becomes float16's 0.1
    r = h + ember.tensor(1e-4)
    assert r.dtype == ember.float16
    assert r.float().item() == float(np.float16(np.float16(1.0) + np.float16(1e-4)))


def test_same_dtype_fast_paths_are_unchanged():
    a = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    np.testing.assert_array_equal((ember.from_numpy(a) * 3 + 1).numpy(), a * np.float32(3) + 1)
    ai = np.arange(-50, 50, dtype=np.int16)
    np.testing.assert_array_equal((ember.from_numpy(ai) * 3).numpy(), ai * np.int16(3))


# ---- accumulation of the CPU scans -----------------------------------------------


def test_cpu_cumsum_accumulates_float32_in_double():
    x = ember.full((1000,), 39.6956901550293)
    c = x.cumsum(0)
    exact = np.cumsum(np.full(1000, np.float32(39.6956901550293), np.float64))
    np.testing.assert_array_equal(c.numpy(), exact.astype(np.float32))  # one rounding per value
    assert abs(c[853].item() - 33900.12) < 0.01
    p = ember.full((30,), 1.1).cumprod(0)
    np.testing.assert_array_equal(
        p.numpy(), np.cumprod(np.full(30, np.float32(1.1), np.float64)).astype(np.float32))


def test_cpu_cumsum_of_float16_accumulates_in_float():
    x = ember.full((3000,), 0.1, dtype=ember.float16)
    c = x.cumsum(0)
    exact = np.cumsum(np.full(3000, np.float16(0.1), np.float32))
    np.testing.assert_array_equal(c.numpy(), exact.astype(np.float16))


# ---- the same on the GPU, against torch -------------------------------------------------


def _pair(torch, values, dtype, device="cuda"):
    a = np.asarray(values)
    return (ember.tensor(a.tolist(), dtype=getattr(ember, dtype), device=device),
            torch.tensor(a.tolist(), dtype=getattr(torch, dtype), device=device))


def _same(torch, e, t):
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(e.shape) == tuple(t.shape)
    low = (ember.float16, ember.bfloat16)
    ev = (e.float() if e.dtype in low else e).cpu().numpy()
    tv = (t.float() if t.dtype in (torch.float16, torch.bfloat16) else t).cpu().numpy()
    np.testing.assert_array_equal(ev, tv)


@pytest.mark.gpu
@pytest.mark.parametrize("op", ["sum", "prod", "mean", "std", "var", "all", "any", "norm"])
@pytest.mark.parametrize("shape", EMPTY_SHAPES)
def test_gpu_empty_reductions_match_torch(torch, op, shape):
    e = ember.zeros(*shape, device="cuda")
    t = torch.zeros(*shape, device="cuda")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns that std/var have no degrees of freedom
        _same(torch, getattr(e, op)(), getattr(t, op)())
        if len(shape) > 1:
            _same(torch, getattr(e, op)(dim=1), getattr(t, op)(dim=1))


@pytest.mark.gpu
def test_gpu_zero_dim_and_rounding_through_the_common_dtype_match_torch(torch):
    cases = [
        (([4, 245, 0], "uint8"), (-4, "int64"), "gt"),
        (([1, -5, 100], "int8"), (300, "int64"), "gt"),
        (([5], "uint8"), (-4, "int16"), "minimum"),
        (([5, -5], "int8"), (130, "uint8"), "floor_divide"),
        (([100], "int8"), (300, "int16"), "remainder"),
        (([2049], "int16"), ([0.5, 0.5], "float16"), "add"),
        (([2049], "int16"), ([2048.0], "float16"), "eq"),
        (([-70000], "int64"), (-0.5, "float16"), "pow"),
        (([257], "int32"), ([1.0], "bfloat16"), "mul"),
        (([1.0], "float16"), (1e-4, "float32"), "add"),
    ]
    for (av, ad), (bv, bd), op in cases:
        ea, ta = _pair(torch, av, ad)
        for dev in ("cuda", "cpu"):  # a 0-d CPU tensor beside a CUDA tensor too
            if dev == "cpu" and np.ndim(bv) != 0:
                continue
            eb, tb = _pair(torch, bv, bd, dev)
            _same(torch, getattr(ember, op)(ea, eb), getattr(torch, op)(ta, tb))


@pytest.mark.gpu
def test_gpu_in_place_on_empty_expanded_tensors(torch):
    e = ember.zeros(1, 0, device="cuda").expand(5, 0)
    assert e.add_(1).shape == (5, 0)
    t = torch.zeros(1, 0, device="cuda").expand(5, 0)
    assert t.add_(1).shape == (5, 0)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "floor_divide", "remainder", "fmod",
                                "pow", "atan2", "maximum", "eq", "lt"])
def test_gpu_python_floats_beside_low_precision_tensors_match_torch(torch, op, dtype):
    """Whether a Python float is rounded to the tensor's float16/bfloat16 before the op
    differs between torch's kernels (remainder rounds it; add keeps it at full
    precision): ember follows torch's CUDA kernels, and its CPU loops too."""
    vals = [3.0, 1.0, -2.5, 0.3, 7.75, -0.1, 1000.0, 0.0]
    for scalar in (0.1, 2.7, -1.3, 1e-3):
        for dev in ("cuda", "cpu"):
            e = ember.tensor(vals, dtype=getattr(ember, dtype), device=dev)
            t = torch.tensor(vals, dtype=getattr(torch, dtype), device=dev)
            if op in ("maximum", "atan2") :
                er = getattr(ember, op)(e, ember.tensor(scalar, dtype=getattr(ember, dtype), device=dev))
                tr = getattr(torch, op)(t, torch.tensor(scalar, dtype=getattr(torch, dtype), device=dev))
            else:
                er, tr = getattr(ember, op)(e, scalar), getattr(torch, op)(t, scalar)
            _same(torch, er, tr)


# ---- Python numbers out of the dtype's range ----------------------------------------
# torch converts the numbers of fill_, full, clamp, where, pow's exponent, alpha, lerp's
# weight, addcmul's value and __setitem__ checked (c10::checked_convert): RuntimeError
# "value cannot be converted to type int8_t without overflow". Each case runs on a module
# (ember or torch) and gives either that error's C++ type name or the values computed;
# test_number_range_checks_match_torch checks the table itself against torch.


def _setitem(x, index, value):
    x[index] = value
    return x


def _i8(m):
    return m.tensor([1, 2, -3], dtype=m.int8)


def _mask(m):
    return m.tensor([True, False, True])


RANGE_CASES = {
    # fill_ and full: integers, floats, NaN and inf into integer dtypes; uint8 takes
    # -255..-1 (they wrap), bool anything; a 0-d tensor's value is not checked.
    "fill_ int8 300": (lambda m: _i8(m).fill_(300), "int8_t"),
    "fill_ int8 127.5": (lambda m: _i8(m).fill_(127.5), "int8_t"),
    "fill_ int8 -128.5": (lambda m: _i8(m).fill_(-128.5), "int8_t"),
    "fill_ int8 -128": (lambda m: _i8(m).fill_(-128), [-128, -128, -128]),
    "fill_ uint8 -1": (lambda m: m.zeros(2, dtype=m.uint8).fill_(-1), [255, 255]),
    "fill_ uint8 -256": (lambda m: m.zeros(2, dtype=m.uint8).fill_(-256), "uint8_t"),
    "fill_ uint8 256": (lambda m: m.zeros(2, dtype=m.uint8).fill_(256), "uint8_t"),
    "fill_ int32 nan": (lambda m: m.zeros(2, dtype=m.int32).fill_(math.nan), "int"),
    "fill_ int16 -inf": (lambda m: m.zeros(2, dtype=m.int16).fill_(-math.inf), "int16_t"),
    "fill_ bool 300": (lambda m: m.zeros(2, dtype=m.bool).fill_(300), [True, True]),
    "fill_ float16 65505": (lambda m: m.zeros(2, dtype=m.float16).fill_(65505), "c10::Half"),
    "fill_ float16 65504": (lambda m: m.zeros(2, dtype=m.float16).fill_(65504), [65504.0] * 2),
    "fill_ float16 inf": (lambda m: m.zeros(2, dtype=m.float16).fill_(math.inf), [math.inf] * 2),
    "fill_ bfloat16 1e39": (lambda m: m.zeros(2, dtype=m.bfloat16).fill_(1e39), "c10::BFloat16"),
    "fill_ float32 1e39": (lambda m: m.zeros(2).fill_(1e39), "float"),
    "fill_ int8 0-d tensor": (lambda m: _i8(m).fill_(m.tensor(300)), [44, 44, 44]),
    "full int8": (lambda m: m.full((2,), 300, dtype=m.int8), "int8_t"),
    "full float16": (lambda m: m.full((2,), 1e5, dtype=m.float16), "c10::Half"),
    "full_like int8": (lambda m: m.full_like(_i8(m), -129), "int8_t"),
    # clamp: in every dtype, into the result dtype.
    "clamp int8 min": (lambda m: _i8(m).clamp(min=300), "int8_t"),
    "clamp int8 max": (lambda m: _i8(m).clamp(max=-300), "int8_t"),
    "clamp_ int8": (lambda m: _i8(m).clamp_(min=300), "int8_t"),
    "clamp_min int8": (lambda m: m.clamp_min(_i8(m), 128), "int8_t"),
    "clamp int8 float": (lambda m: _i8(m).clamp(min=1e39), "float"),
    "clamp float16": (lambda m: m.ones(2, dtype=m.float16).clamp(max=1e5), "c10::Half"),
    "clamp uint8 -1": (lambda m: m.tensor([1, 2], dtype=m.uint8).clamp(min=-1), [255, 255]),
    "clamp int8 fits": (lambda m: _i8(m).clamp(min=-2, max=127), [1, 2, -2]),
    # where: into the result dtype, except float16/bfloat16 (unchecked: inf).
    "where int8 other": (lambda m: m.where(_mask(m), _i8(m), 300), "int8_t"),
    "where int8 input": (lambda m: m.where(_mask(m), 300, _i8(m)), "int8_t"),
    "where method": (lambda m: _i8(m).where(_mask(m), -300), "int8_t"),
    "where float32": (lambda m: m.where(_mask(m), m.ones(3), 1e39), "float"),
    "where float16": (lambda m: m.where(_mask(m), m.ones(3, dtype=m.float16), 1e5),
                      [1.0, math.inf, 1.0]),
    "where two numbers": (lambda m: m.where(_mask(m), 300, 2), [300, 2, 300]),
    # pow: the exponent into integer dtypes, float16 and bfloat16; a number base wraps.
    "pow int8": (lambda m: _i8(m).pow(300), "int8_t"),
    "pow_ int8": (lambda m: _i8(m).pow_(300), "int8_t"),
    "** int8": (lambda m: _i8(m) ** 128, "int8_t"),
    "**= int8": (lambda m: _i8(m).__ipow__(300), "int8_t"),
    "pow uint8 256": (lambda m: m.tensor([1, 2], dtype=m.uint8).pow(256), "uint8_t"),
    "pow float16": (lambda m: m.ones(2, dtype=m.float16).pow(1e5), "c10::Half"),
    "pow float32 unchecked": (lambda m: m.tensor([1.0, 2.0]).pow(1e39), [1.0, math.inf]),
    "number ** int8": (lambda m: 3 ** _i8(m).abs(), [3, 9, 27]),
    # alpha (every dtype), lerp's weight and addcmul's value (float32 for float16).
    "add alpha int8": (lambda m: _i8(m).add(_i8(m), alpha=300), "int8_t"),
    "add alpha float16": (lambda m: m.ones(2, dtype=m.float16).sub(m.ones(2, dtype=m.float16),
                                                                  alpha=1e5), "c10::Half"),
    "lerp float32": (lambda m: m.zeros(2).lerp(m.ones(2), 1e39), "float"),
    "lerp float16": (lambda m: m.zeros(2, dtype=m.float16).lerp(m.zeros(2, dtype=m.float16),
                                                                1e5), [0.0, 0.0]),
    "addcmul int8": (lambda m: _i8(m).addcmul(_i8(m), _i8(m), value=300), "int8_t"),
    "addcdiv float32": (lambda m: m.ones(2).addcdiv(m.ones(2), m.ones(2), value=1e39), "float"),
    "addcmul float16": (lambda m: m.ones(2, dtype=m.float16).addcmul(
        m.ones(2, dtype=m.float16), m.ones(2, dtype=m.float16), value=1e5), [math.inf] * 2),
    # __setitem__: the number is checked before the index (float16/bfloat16 unchecked);
    # a bool mask with one value goes through masked_fill (checked).
    "setitem int8": (lambda m: _setitem(_i8(m), 0, 300), "int8_t"),
    "setitem int8 bad index": (lambda m: _setitem(_i8(m), 7, 300), "int8_t"),
    "setitem float32": (lambda m: _setitem(m.zeros(2), 0, 1e39), "float"),
    "setitem float16": (lambda m: _setitem(m.zeros(2, dtype=m.float16), 0, 1e5), [math.inf, 0.0]),
    "setitem bfloat16": (lambda m: _setitem(m.zeros(2, dtype=m.bfloat16), 1, -1e39),
                         [0.0, -math.inf]),
    "setitem mask": (lambda m: _setitem(_i8(m), _mask(m), 300), "int8_t"),
    "setitem mask 0-d tensor": (lambda m: _setitem(_i8(m), _mask(m), m.tensor(300)), "int8_t"),
    "setitem mask float tensor": (lambda m: _setitem(_i8(m), _mask(m), m.tensor([2.5])),
                                  [2, 2, 2]),
    "setitem list index": (lambda m: _setitem(_i8(m), [0, 2], -128), [-128, 2, -128]),
}


def _outcome(module, fn):
    try:
        r = fn(module)
    except RuntimeError as e:
        msg = str(e)
        prefix, suffix = "value cannot be converted to type ", " without overflow"
        assert msg.startswith(prefix) and msg.endswith(suffix), msg
        return msg[len(prefix):-len(suffix)]
    return r.tolist()


@pytest.mark.parametrize("case", list(RANGE_CASES))
def test_numbers_out_of_the_dtypes_range_raise_like_torch(case):
    fn, expected = RANGE_CASES[case]
    got = _outcome(ember, fn)
    assert got == expected


@pytest.mark.parametrize("case", list(RANGE_CASES))
def test_number_range_checks_match_torch(torch, case):
    fn, expected = RANGE_CASES[case]
    assert _outcome(torch, fn) == expected


def test_python_ints_beyond_int64_in_setitem_raise_value_error():
    x = ember.zeros(2, dtype=ember.int64)
    with pytest.raises(ValueError, match="Overflow when unpacking long"):
        x[0] = 2**70
    assert x.tolist() == [0, 0]


# ---- issue 14: the differential harness's findings, each against a hand-worked value ----


def _bf16(v):
    """float32 values rounded to bfloat16 (nearest even), as float32."""
    a = np.asarray(v, np.float32)
    b = a.view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)


def test_low_precision_trunc_division_by_a_tensor_rounds_the_quotient_first():
    # torch computes trunc(a / b) in the dtype: 382 / 2.5 = 152.8 is 153 in bfloat16
    a = ember.full((5,), 382.0, dtype=ember.bfloat16)
    b = ember.full((5,), 2.5, dtype=ember.bfloat16)
    assert ember.div(a, b, rounding_mode="trunc").float().tolist() == [153.0] * 5
    # by a number (or a tensor constant over the loop) in float: 152
    assert ember.div(a, 2.5, rounding_mode="trunc").float().tolist() == [152.0] * 5
    assert ember.div(a, b[:1], rounding_mode="trunc").float().tolist() == [152.0] * 5
    # float16: 1228.6 rounds to 1229 before the truncation
    h = ember.tensor([6144.0, -33184.0], dtype=ember.float16)
    q = ember.tensor([5.0, 5.41015625], dtype=ember.float16)
    expect = np.trunc((h.numpy().astype(np.float32) / q.numpy().astype(np.float32))
                      .astype(np.float16).astype(np.float32))
    np.testing.assert_array_equal(ember.div(h, q, rounding_mode="trunc").float().numpy(), expect)


def test_low_precision_floor_division_by_a_tensor_rounds_every_step():
    # torch's c10::div_floor_floating in bfloat16: fmod, a - mod, / b, -1 each rounded
    a = ember.tensor([54, 242, 176], dtype=ember.uint8)
    b = ember.tensor([-7.53125, -5.5625, -0.72265625], dtype=ember.bfloat16)
    r = ember.div(a, b, rounding_mode="floor")
    assert r.dtype == ember.bfloat16
    af, bf = a.numpy().astype(np.float32), b.float().numpy()
    mod = _bf16(np.fmod(af, bf))
    div = _bf16(_bf16(af - mod) / bf)
    div = np.where((mod != 0) & ((bf < 0) != (mod < 0)), _bf16(div - 1), div)
    fl = np.floor(div)
    fl = np.where(_bf16(div - fl) > 0.5, _bf16(fl + 1), fl)
    np.testing.assert_array_equal(r.float().numpy(), fl)
    assert r.float().tolist()[2] == -245.0  # -244 in float arithmetic
    assert ember.floor_divide(a.to(ember.bfloat16), b).float().tolist() == r.float().tolist()


def test_bool_add_converts_alpha_to_bool():
    x = ember.tensor([True, False, True])
    assert ember.add(x, ember.tensor(True), alpha=-1).tolist() == [True, True, True]
    assert ember.add(x, ember.tensor(True), alpha=0).tolist() == [True, False, True]


def test_lerp_and_addcmul_fuse_their_multiply_add():
    from fractions import Fraction
    # |w| >= 0.5: end + (w - 1) * (end - start), whose product alone overflows
    start, end, w = -8.0e307, 9.0e307, -0.5
    d = end - start  # 1.7e308: finite
    exact = float(Fraction(end) + (Fraction(w) - 1) * Fraction(d))  # one rounding
    assert math.isfinite(exact) and not math.isfinite((w - 1) * d)
    r = ember.lerp(ember.tensor([start], dtype=ember.float64),
                   ember.tensor([end], dtype=ember.float64), w)
    assert r.item() == exact
    # addcmul: inf + (1 * 3e38) * -2 is inf when fused (the product is finite exactly)
    x = ember.tensor([math.inf, 1.0])
    r = ember.addcmul(x, ember.tensor([3e38, 3.0]), ember.tensor([-2.0, 0.1]))
    assert r.tolist()[0] == math.inf
    assert r.tolist()[1] == float(np.float32(Fraction(1) + Fraction(float(np.float32(3.0)))
                                             * Fraction(float(np.float32(0.1)))))


def test_lerp_out_must_have_the_dtype_of_its_inputs_with_a_weight_tensor():
    x = ember.tensor([1.0, 2.0], dtype=ember.float64)
    with pytest.raises(RuntimeError, match="Found dtype Float but expected Double"):
        ember.lerp(x, x, ember.tensor([0.5, 0.5], dtype=ember.float64), out=ember.empty(2))
    r = ember.lerp(x, x * 3, 0.5, out=ember.empty(2))  # a number weight: out casts
    assert r.dtype == ember.float32 and r.tolist() == [2.0, 4.0]


def test_clamp_with_nan_number_bounds():
    x = ember.tensor([1.0, -2.0, math.nan])
    r = ember.clamp(x, min=math.nan, max=0.0)  # both bounds, one NaN: all NaN
    assert all(math.isnan(v) for v in r.tolist())
    r = ember.clamp(ember.tensor(4, dtype=ember.uint8), 1e300, math.nan)  # 1e300 never converted
    assert r.dtype == ember.float32 and math.isnan(r.item())
    # a single NaN bound is ignored (torch's max(x, nan) keeps x; NaN stays NaN)
    r = ember.clamp(ember.tensor(4), min=math.nan)
    assert r.dtype == ember.float32 and r.item() == 4.0
    r = x.clamp(max=math.nan).tolist()
    assert r[:2] == [1.0, -2.0] and math.isnan(r[2])


def test_logsumexp_of_low_precision_rounds_as_torchs_steps():
    # torch: max + log(sum(exp(x - max))), each step in bfloat16: log(11) rounds to 2.390625
    x = ember.tensor([-2.0], dtype=ember.bfloat16).expand(11)
    assert x.logsumexp(0).float().item() == 0.390625
    v = np.array([-2.359375, -0.81640625, -0.5, -5.09375], np.float32)
    m = v.max()
    e = _bf16(np.exp(_bf16(v - m)))
    expect = _bf16(_bf16(np.log(_bf16(np.float32(e.sum())))) + m)
    r = ember.tensor(v.tolist(), dtype=ember.bfloat16).logsumexp(-1)
    assert r.float().item() == float(expect[()] if expect.ndim else expect)
    # out= of another dtype: the sum, the log and the add in out's dtype
    r = ember.logsumexp(ember.tensor([0.0, 0.0]), 0, out=ember.tensor(7.0, dtype=ember.float64))
    assert r.item() == math.log(2.0)
    with pytest.raises(RuntimeError, match="Expected floating point type for result tensor"):
        ember.logsumexp(ember.tensor([0, 1], dtype=ember.int32), dim=5,
                        out=ember.tensor(7, dtype=ember.uint8))


def test_logaddexp_of_low_precision_computes_in_float():
    a = np.array([-0.005847930908203125, -1.046875, -3.669921875], np.float16)
    b = np.array([-5.8671875, -1.0, -0.0004067420959472656], np.float16)
    af, bf = a.astype(np.float32), b.astype(np.float32)
    m = np.maximum(af, bf)
    d = -np.abs(af - bf)
    exp2 = (m + np.log1p(np.exp2(d)) * np.float32(1 / math.log(2))).astype(np.float16)
    expe = (m + np.log1p(np.exp(d))).astype(np.float16)
    ea, eb = ember.from_numpy(a), ember.from_numpy(b)
    np.testing.assert_array_equal(ember.logaddexp2(ea, eb).numpy(), exp2)
    np.testing.assert_array_equal(ember.logaddexp(ea, eb).numpy(), expe)


def test_isclose_with_equal_nan_needs_other_to_broadcast_to_input():
    a, b = ember.tensor([[1.0]]), ember.tensor([[1.0, 2.0, 3.0]])
    with pytest.raises(RuntimeError, match=r"output with shape \[1, 1\] doesn't match the "
                                           r"broadcast shape \[1, 3\]"):
        ember.isclose(a, b, equal_nan=True)
    assert ember.isclose(a, b).tolist() == [[True, False, False]]
    assert ember.isclose(b, a, equal_nan=True).tolist() == [[True, False, False]]


def test_heaviside_out_must_have_the_input_dtype():
    x = ember.tensor([1.0, 0.0, -1.0])
    with pytest.raises(RuntimeError, match="heaviside is not yet implemented for tensors with "
                                           "different dtypes"):
        ember.heaviside(x, ember.tensor(0.5), out=ember.empty(3, dtype=ember.float64))
    assert ember.heaviside(x, ember.tensor(0.5), out=ember.empty(3)).tolist() == [1.0, 0.5, 0.0]


def test_norm_edges():
    x = ember.zeros(2, 3, 3)
    with pytest.raises(RuntimeError, match="linalg.matrix_norm: dim must be a 2-tuple. Got 1 0 2"):
        x.norm(dim=(1, 0, 2))
    assert x.norm(p=None, dim=(1, 0, 2)).item() == 0.0  # p=None: a vector norm
    # over dims of size 1 only: |x| (no underflow through x**p)
    assert ember.norm(ember.tensor([7.103235165004142e-39]), p=3).item() == 7.103235165004142e-39
    t = ember.tensor([[2.2250738585072014e-308]], dtype=ember.float64)
    assert ember.norm(t).item() == 2.2250738585072014e-308
    assert ember.tensor([[0.0, -3.0]]).norm(p=0, dim=0).tolist() == [0.0, 1.0]


def test_all_any_write_bool_or_uint8_out_whatever_the_input():
    x = ember.tensor([8], dtype=ember.uint8).expand(7)
    assert ember.all(x, dim=0, out=ember.tensor(False)).item() is True
    assert ember.any(x, out=ember.tensor(False)).item() is True
    assert ember.all(ember.tensor([8.0, 0.0]), out=ember.tensor(1, dtype=ember.uint8)).item() == 0


def test_mean_into_low_precision_on_the_cpu_sums_in_float32():
    v = np.array([0.1, 0.2, 0.7, 1e-3, 3.3, -2.2], np.float32)
    r = ember.mean(ember.from_numpy(v), 0, dtype=ember.bfloat16)
    assert r.float().item() == float(_bf16(np.float32(v.astype(np.float64).sum() / 6)))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got "
                                           "c10::BFloat16 instead"):
        ember.mean(ember.from_numpy(v), 0, dtype=ember.float32,
                   out=ember.tensor(7.0, dtype=ember.bfloat16))


def test_strided_sums_are_as_accurate_as_contiguous_ones():
    x = ember.tensor(-5.912344455718994).expand(4099)
    exact = float(np.float32(-5.912344455718994)) * 4099
    assert abs(x.sum(0).item() - exact) <= 4 * 2.0 ** -23 * abs(exact)
    assert abs(x.contiguous().sum(0).item() - exact) <= 4 * 2.0 ** -23 * abs(exact)


def test_scans_check_the_dim_before_the_dtypes():
    x = ember.tensor(True).expand()
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.cumprod_(1, dtype=ember.int64)
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.cumsum(ember.tensor([1, 2], dtype=ember.int8), 1, dtype=ember.bool,
                     out=ember.tensor(7.0))


def test_indexing_a_dim_of_size_zero_with_indices_raises():
    x = ember.zeros(0, 1)
    with pytest.raises(IndexError, match="index is out of bounds for dimension with size 0"):
        x[ember.tensor([[2, 0]]), -1:-1]  # empty result, still an IndexError (torch)
    y = ember.empty((2, 2, 0))
    with pytest.raises(IndexError, match="index is out of bounds for dimension with size 0"):
        y[0, 3:0:3, [0]] = 1.0
    assert ember.zeros(0, 3)[ember.tensor([], dtype=ember.int64)].shape == (0, 3)
    # setitem checks the value's dtype before the indices' bounds, as torch
    z = ember.zeros(3, dtype=ember.float64)
    with pytest.raises(RuntimeError, match="Index put requires the source and destination"):
        z[ember.tensor([14])] = ember.tensor(1.0, dtype=ember.float16)


def test_fill_of_an_expanded_tensor_writes_its_one_element():
    t = ember.zeros(1)
    t.expand(3).fill_(5)  # torch: a fill is idempotent, no overlap check
    assert t.tolist() == [5.0]
    t.expand(3).zero_()
    assert t.tolist() == [0.0]
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        t.expand(3).fill_(ember.tensor(2.0))  # a tensor on self's device: a copy
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        t.expand(3)[()] = 2  # setitem of a number on the CPU: a copy too
    assert t.tolist() == [0.0]


# the same against torch on the CPU


def test_issue14_repros_match_torch_on_the_cpu(torch):
    cases = [
        lambda L: L.div(L.tensor([54, 242, 176, 106, 37, 108], dtype=L.uint8).reshape(2, 3),
                        L.tensor([-7.53125, -5.5625, -0.72265625, 4.625, -2.421875, -1.953125],
                                 dtype=L.bfloat16).reshape(2, 3), rounding_mode="floor"),
        lambda L: L.tensor([-2.0], dtype=L.bfloat16).expand(11).logsumexp(0),
        lambda L: L.tensor([-2.359375, -0.81640625, -0.5, -5.09375],
                           dtype=L.bfloat16).logsumexp(dim=-1),
        lambda L: L.logaddexp2(L.tensor(-3.669921875, dtype=L.float16).expand(()),
                               L.tensor([-0.0004067420959472656, -9.609375], dtype=L.float16)),
        lambda L: L.add(L.tensor([False, True]), L.tensor(True), alpha=-1),
        lambda L: L.clamp(L.tensor(4, dtype=L.int64), min=float("nan")),
        lambda L: L.norm(L.tensor([2.2250738585072014e-308], dtype=L.float64).reshape(1, 1)),
        lambda L: L.tensor(-5.912344455718994).expand(4099).sum(0),
    ]
    for f in cases:
        e, t = f(ember), f(torch)
        assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_allclose(e.double().numpy(), t.double().numpy(), rtol=4 * 2.0 ** -23,
                                   atol=0)


@pytest.mark.gpu
def test_gpu_issue14_low_precision_scans_round_and_setitem_match_torch(torch):
    # (cumsum of float16/bfloat16: torch's GPU scans add in the dtype in a tree order of
    # their own; ember accumulates in float, so a running sum past 65504 differs. Values
    # within the dtype's precision are compared by test_math_gpu.py::test_scans_vs_torch.)
    # round(decimals=) of float16 scales in float16 on torch's GPU (10**5 is inf there)
    vals = [1.2345, -3.75, 100.125, 0.015625, 65000.0, -0.3333]
    for d in (-2, -1, 1, 2, 3, 5):
        e, t = _pair(torch, vals, "float16")
        _same(torch, e.round(decimals=d), t.round(decimals=d))
        e, t = _pair(torch, vals, "bfloat16")
        _same(torch, e.round(decimals=d), t.round(decimals=d))
    # setitem of a number into an expanded GPU view: a fill, written
    te, tt = ember.zeros(1, 2, device="cuda"), torch.zeros(1, 2, device="cuda")
    xe, xt = te.expand(3, 2), tt.expand(3, 2)
    xe[()] = 5
    xt[()] = 5
    _same(torch, te, tt)
    xe[...] = ember.tensor(7.0)
    xt[...] = torch.tensor(7.0)
    _same(torch, te, tt)
    # indices into a dim of size 0
    for L, x in ((ember, ember.zeros(0, 1, device="cuda")), (torch, torch.zeros(0, 1, device="cuda"))):
        with pytest.raises(IndexError, match="index is out of bounds for dimension with size 0"):
            x[L.tensor([[2, 0]], device="cuda"), -1:-1]
