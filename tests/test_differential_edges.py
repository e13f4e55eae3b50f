"""Edges found by the differential harness (issue 14): the real-input angle in float64
and its out=, ldexp with an integer or bool exponent, a Python number dividing a
float16 tensor on CUDA, masked_fill's overflow check of a CUDA value, index_select
with no result elements on CUDA, put_'s check order (topk of bool on CUDA:
test_sort_gpu.py). The CPU tests check against NumPy or values worked out by hand,
the GPU tests against torch."""
import math

import numpy as np
import pytest

import ember

gpu = pytest.mark.gpu


def tt(e, torch):
    return torch.from_dlpack(e).clone()


def same(e, t, torch):
    """Identical values (NaN where torch has NaN), dtype and shape."""
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(e.shape) == tuple(t.shape)
    a, b = tt(e, torch).cpu().double().numpy(), t.cpu().double().numpy()
    np.testing.assert_array_equal(a, b)


@gpu
@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "int64"])
def test_angle_of_real_values_is_torchs(torch, dtype):
    g = np.random.default_rng(1)
    a = g.uniform(-9, 9, (7, 5)).astype(np.float64)
    a[0, :3] = [np.nan, -0.0, 0.0]
    if dtype.startswith("int"):
        a = np.round(a)
        a[0, :3] = [-3, 0, 4]
    x = ember.tensor(a.tolist(), dtype=getattr(ember, dtype), device="cuda")
    same(ember.angle(x), torch.angle(tt(x, torch)), torch)
    # the float64 pi is pi itself, not float32's pi widened
    if dtype == "float64":
        assert ember.angle(x)[1, 0].item() in (0.0, np.pi)


@gpu
def test_angle_out_resizes_an_empty_out_and_refuses_a_wrong_one(torch):
    x = ember.tensor([[-1.5, 2.0, -3.0]], dtype=ember.float64, device="cuda")
    out = ember.empty(0, dtype=ember.float64, device="cuda")
    r = ember.angle(x, out=out)
    assert r is out and tuple(out.shape) == (1, 3)
    same(out, torch.angle(tt(x, torch)), torch)
    with pytest.raises(RuntimeError, match="out= has shape"):
        ember.angle(x, out=ember.empty(5, dtype=ember.float64, device="cuda"))


@gpu
@pytest.mark.parametrize("xdt", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("edt", ["int8", "int32", "int64", "bool"])
def test_ldexp_with_an_integer_exponent_is_exact_as_torchs(torch, xdt, edt):
    g = np.random.default_rng(2)
    x = ember.tensor((g.uniform(-1, 1, 64) * 10.0 ** g.integers(-8, 9, 64)).tolist(),
                     dtype=getattr(ember, xdt), device="cuda")
    if edt == "bool":
        n = ember.tensor((g.integers(0, 2, 64) == 1).tolist(), device="cuda")
    else:
        n = ember.tensor(g.integers(-70, 71, 64).tolist(), dtype=getattr(ember, edt),
                         device="cuda")
    same(ember.ldexp(x, n), torch.ldexp(tt(x, torch), tt(n, torch)), torch)
    y = x.clone()
    y.ldexp_(n)
    same(y, torch.ldexp(tt(x, torch), tt(n, torch)), torch)


def test_ldexp_of_a_bool_exponent_raises_on_the_cpu_as_torchs(torch):
    x, n = torch.ones(3), torch.tensor([True, False, True])
    with pytest.raises(NotImplementedError, match="ldexp_cpu_exp"):
        torch.ldexp(x, n)
    with pytest.raises(NotImplementedError, match="ldexp_cpu_exp"):
        ember.ldexp(ember.ones(3), ember.tensor([True, False, True]))


@gpu
@pytest.mark.parametrize("fn", ["divide", "floor", "trunc", "floor_divide"])
@pytest.mark.parametrize("num", [9223372036854775807, 1e10, 65536, -2147483647, 2.5, 1e-9])
def test_a_number_dividing_a_half_tensor_is_rounded_to_half_first(torch, fn, num):
    g = np.random.default_rng(3)
    a = g.uniform(-5, 5, 12)
    a[:4] = [np.inf, -np.inf, 0.0, -2.5]
    x = ember.tensor(a.tolist(), dtype=ember.float16, device="cuda")
    t = tt(x, torch)

    def call(m, v):
        if fn == "divide":
            return m.divide(num, v)
        if fn == "floor_divide":
            return m.floor_divide(num, v)
        return m.div(num, v, rounding_mode=fn)
    same(call(ember, x), call(torch, t), torch)
    # and a number as the divisor keeps its precision (torch reads it in float)
    same(ember.div(x, 3.3), torch.div(t, 3.3), torch)


@gpu
@pytest.mark.parametrize("dtype,value", [("uint8", -3.9140625), ("int8", 300.0),
                                         ("float16", 3.19e38), ("int32", 2.0 ** 40)])
def test_masked_fill_checks_a_cuda_value_for_overflow(torch, dtype, value):
    x = ember.zeros(4, 3, dtype=getattr(ember, dtype), device="cuda")
    m = ember.tensor([True, False, True], device="cuda")
    v = ember.tensor(value, dtype=ember.float32, device="cuda")
    with pytest.raises(RuntimeError, match="without overflow"):
        torch.zeros(4, 3, dtype=getattr(torch, dtype), device="cuda").masked_fill(
            tt(m, torch), tt(v, torch))
    with pytest.raises(RuntimeError, match="without overflow"):
        x.masked_fill(m, v)
    with pytest.raises(RuntimeError, match="without overflow"):
        x.masked_fill_(m, v)
    # a value that fits still fills, and the device is usable
    ok = ember.tensor(7, dtype=ember.float32, device="cuda")
    assert x.masked_fill(m, ok)[:, 0].tolist() == [7, 7, 7, 7]


@gpu
@pytest.mark.parametrize("shape,dim,idx", [((0, 0, 1), -2, [0, 0, 0]), ((0, 0, 4), 0, [0, 0]),
                                           ((1, 0, 0, 3), 2, [0, 0, 0]), ((0, 5), 1, [7])])
def test_index_select_with_an_empty_result_returns_it_as_torchs(torch, shape, dim, idx):
    x = ember.zeros(shape, device="cuda")
    i = ember.tensor(idx, device="cuda")
    r, t = ember.index_select(x, dim, i), torch.index_select(tt(x, torch), dim, tt(i, torch))
    assert tuple(r.shape) == tuple(t.shape) and r.numel() == 0


# ---- on the CPU ----------------------------------------------------------------

def test_angle_of_negative_float64_is_pi_itself():
    x = ember.tensor([-2.5, 3.0, float("nan"), -0.0, -1e-300], dtype=ember.float64)
    r = ember.angle(x).tolist()
    assert r[0] == math.pi and r[1] == 0.0 and math.isnan(r[2]) and r[3] == 0.0
    assert r[4] == math.pi
    assert ember.angle(x.float())[0].item() == float(np.float32(math.pi))


def test_angle_out_takes_an_empty_out_and_refuses_a_wrong_shape():
    x = ember.tensor([[-1.0, 2.0]], dtype=ember.float64)
    out = ember.empty(0, dtype=ember.float64)
    assert ember.angle(x, out=out) is out and out.tolist() == [[math.pi, 0.0]]
    with pytest.raises(RuntimeError, match="out= has shape"):
        ember.angle(x, out=ember.empty(3, dtype=ember.float64))


@pytest.mark.parametrize("xdt", ["float64", "float32", "float16"])
def test_ldexp_with_an_integer_exponent_rounds_once(xdt):
    g = np.random.default_rng(5)
    span = 4 if xdt == "float16" else 30
    a = (g.uniform(-1, 1, 200) * 10.0 ** g.integers(-span, span, 200)).astype(xdt)
    a[:4] = [0.0, np.inf, -np.inf, np.nan]
    n = g.integers(-1100, 1100, 200)
    n[:8] = [5, -678, 678, 3, -1075, 1074, 2000, -2000]
    x = ember.from_numpy(a)
    with np.errstate(over="ignore", under="ignore"):
        ref = np.ldexp(a.astype(np.float64), n).astype(xdt)
    r = ember.ldexp(x, ember.from_numpy(n)).numpy()
    np.testing.assert_array_equal(r, ref)


def test_put_checks_the_counts_before_the_overlap_as_torch():
    x = ember.tensor([[10], [6]], dtype=ember.uint8).expand(2, 2)
    with pytest.raises(IndexError, match="same number of elements"):
        x.put_(ember.zeros(0, dtype=ember.int64), ember.tensor([7], dtype=ember.uint8),
               accumulate=True)
    with pytest.raises(IndexError, match="Tried to put elements into an empty tensor"):
        ember.empty(0).put_(ember.tensor([0]), ember.tensor([1.0]))
    with pytest.raises(RuntimeError, match="more than one element"):
        x.put_(ember.tensor([0]), ember.tensor([7], dtype=ember.uint8))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_zeta_of_a_large_negative_q_is_quick_and_the_sum_it_stands_for(dtype):
    """zeta(x, q) for q < 0 (x an integer) is sum_k (q + k)^-x; for q < -64 ember does not
    step through the |q| terms (q = -8e8 ran for minutes on CUDA)."""
    import time
    dt = getattr(ember, dtype)
    for x, q in [(4.0, -100.3), (5.0, -1000.7), (2.0, -64.5), (3.0, -65.25)]:
        q = float(np.dtype(dtype).type(q))  # the q the tensor holds
        n = math.ceil(-q) + 20
        head = sum((q + k) ** -x for k in range(n))
        tail = ember.special.zeta(ember.tensor([x], dtype=ember.float64),
                                  ember.tensor([q + n], dtype=ember.float64)).item()
        z = ember.special.zeta(ember.tensor([x], dtype=dt), ember.tensor([q], dtype=dt)).item()
        assert z == pytest.approx(head + tail, rel=1e-12 if dtype == "float64" else 1e-5)
    t0 = time.perf_counter()
    z = ember.special.zeta(ember.tensor([6.0, 5.0], dtype=ember.float64),
                           ember.tensor([-8.3e8 + 0.5, -2.5e6 + 0.25], dtype=ember.float64))
    assert time.perf_counter() - t0 < 5 and bool(ember.isfinite(z).all())
