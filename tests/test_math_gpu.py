"""Math on CUDA tensors against torch on the GPU machine: result dtypes identical
to torch's over every dtype pair (tensor-tensor, tensor-0d, tensor-number),
values within tolerances, non-contiguous and broadcast operands, out= and
in-place forms that never make the host wait, the current stream, errors."""
import math
import time

import numpy as np
import pytest

import ember
from torch_util import dtype_name

pytestmark = pytest.mark.gpu

ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
       "float64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
TOL = {"float16": (2e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2), "float32": (2e-6, 1e-6),
       "float64": (1e-12, 1e-12)}


def tt(e, torch):
    """A torch copy of an ember tensor."""
    return torch.from_dlpack(e).clone()


def make(name, shape, seed=0, low=-5, high=6):
    """An ember CUDA tensor of dtype name with small values valid for it."""
    g = np.random.default_rng(seed)
    if name == "bool":
        a = g.integers(0, 2, shape).astype(np.float32)
    elif name in FLOATS:
        a = g.uniform(low, high, shape).astype(np.float32)
    else:  # integers inside [low, high), at least one value (atanh's domain holds only 0)
        lo = max(math.ceil(low), 0) if name == "uint8" else math.ceil(low)
        hi = max(math.ceil(high), lo + 1)
        a = g.integers(lo, hi, shape).astype(np.float32)
    return ember.from_numpy(a).cuda().to(getattr(ember, name))


def same(e, t, torch, rtol=None, atol=None):
    """ember result e equals torch result t: dtype, shape, values."""
    assert dtype_name(e.dtype) == dtype_name(t.dtype), (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    got = torch.from_dlpack(e)
    if t.dtype.is_floating_point:
        r, a = TOL[dtype_name(t.dtype)]
        torch.testing.assert_close(got, t, rtol=rtol or r, atol=a if atol is None else atol,
                                   equal_nan=True)
    else:
        assert torch.equal(got, t)


def warm(torch):
    x = ember.ones(4, device="cuda")
    (x + x).sum() if hasattr(x, "sum") else x + x
    torch.cuda._sleep(10)
    torch.ones(4, device="cuda").mul_(2)
    torch.cuda.synchronize()


# ---- dtype pairs -------------------------------------------------------------------

BIN = ["add", "mul", "div", "eq", "lt", "ge", "ne"]


@pytest.mark.parametrize("op", BIN)
@pytest.mark.parametrize("da", ALL)
@pytest.mark.parametrize("db", ALL)
def test_tensor_tensor_pairs(torch, op, da, db):
    a, b = make(da, (3, 4), 1, 1), make(db, (4,), 2, 1)
    ta, tb = tt(a, torch), tt(b, torch)
    same(getattr(ember, op)(a, b), getattr(torch, op)(ta, tb), torch)
    # 0-d CUDA tensors and 0-d CPU tensors beside CUDA tensors
    z = make(db, (), 3, 1)
    same(getattr(ember, op)(a, z), getattr(torch, op)(ta, tt(z, torch)), torch)
    zc = z.cpu()
    same(getattr(ember, op)(a, zc), getattr(torch, op)(ta, tt(z, torch).cpu()), torch)


@pytest.mark.parametrize("op", BIN + ["sub", "remainder", "floor_divide", "pow"])
@pytest.mark.parametrize("da", ALL)
@pytest.mark.parametrize("number", [2, -3, 2.5, True, 0.1])
def test_tensor_number_pairs(torch, op, da, number):
    a = make(da, (5, 3), 4, 1)
    ta = tt(a, torch)
    try:
        expected = getattr(torch, op)(ta, number)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            getattr(ember, op)(a, number)
        return
    same(getattr(ember, op)(a, number), expected, torch, atol=1e-2 if da == "bfloat16" else None)
    # and the number on the left (reflected operators)
    if op in ("add", "mul", "sub", "div", "pow"):
        pyop = {"add": "__radd__", "mul": "__rmul__", "sub": "__rsub__", "div": "__rtruediv__",
                "pow": "__rpow__"}[op]
        try:
            expected = getattr(ta, pyop)(number)
        except RuntimeError:
            with pytest.raises(RuntimeError):
                getattr(a, pyop)(number)
            return
        same(getattr(a, pyop)(number), expected, torch, atol=1e-2)


@pytest.mark.parametrize("da", ALL)
@pytest.mark.parametrize("db", ALL)
def test_inplace_castability_matches_torch(torch, da, db):
    a, b = make(da, (4,), 5, 1), make(db, (4,), 6, 1)
    ta, tb = tt(a, torch), tt(b, torch)
    try:
        ta.mul_(tb)
    except RuntimeError as exc:
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
            a.mul_(b)
        assert "can't be cast" in str(exc)
        return
    a.mul_(b)
    same(a, ta, torch)


@pytest.mark.parametrize("name", ["int8", "int32", "int64", "float16", "bfloat16", "float32",
                                  "float64"])
def test_division_family(torch, name):
    a, b = make(name, (64,), 7, -40, 40), make(name, (64,), 8, 1, 9)
    ta, tb = tt(a, torch), tt(b, torch)
    tol = 1.01 if name in ("float16", "bfloat16") else None  # rounding of a/b in the type
    for mode in (None, "trunc", "floor"):
        same(ember.div(a, b, rounding_mode=mode), torch.div(ta, tb, rounding_mode=mode), torch,
             atol=tol)
    same(a % b, ta % tb, torch, atol=1e-2 if name in FLOATS else None)
    same(ember.fmod(a, b), torch.fmod(ta, tb), torch, atol=1e-2 if name in FLOATS else None)
    same(-a // -b, -ta // -tb, torch, atol=tol)


@pytest.mark.parametrize("name", FLOATS)
def test_pow_atan2_hypot_max_min(torch, name):
    a, b = make(name, (100,), 9, 0, 3), make(name, (100,), 10, -2, 2)
    ta, tb = tt(a, torch), tt(b, torch)
    same(a ** b, ta ** tb, torch, rtol=1e-5 if name == "float32" else None)
    for s in (2, 3, 0.5, -1, -0.5, -2, 1.3):
        same(a ** s, ta ** s, torch, rtol=1e-5 if name == "float32" else None)
    same(2 ** b, 2 ** tb, torch, rtol=1e-5 if name == "float32" else None)
    for op in ("atan2", "hypot", "maximum", "minimum", "fmax", "fmin"):
        same(getattr(ember, op)(a, b), getattr(torch, op)(ta, tb), torch,
             rtol=1e-5 if name == "float32" else None)


def test_edge_values(torch):
    v = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 3.0]
    a = ember.tensor(v, device="cuda")
    b = ember.tensor(list(reversed(v)), device="cuda")
    ta, tb = tt(a, torch), tt(b, torch)
    for op in ("add", "sub", "mul", "div", "maximum", "minimum", "fmax", "fmin", "remainder",
               "fmod", "atan2", "pow", "eq", "lt"):
        same(getattr(ember, op)(a, b), getattr(torch, op)(ta, tb), torch)


# ---- layouts -----------------------------------------------------------------------

def test_non_contiguous_and_broadcast(torch):
    base = make("float32", (64, 48), 11)
    tb = tt(base, torch)
    same(base.t() + base.t().contiguous(), tb.t() + tb.t().contiguous(), torch)
    same(base[::2, ::3] * base[1::2, ::3], tb[::2, ::3] * tb[1::2, ::3], torch)
    same(base[:, :1] - base[:1, :], tb[:, :1] - tb[:1, :], torch)
    e = base[:1].expand(64, 48)
    same(e * base, tb[:1].expand(64, 48) * tb, torch)
    h = base.to(ember.float16)
    same(h.t() * 0.5, tt(h, torch).t() * 0.5, torch)
    out = ember.zeros(48, 128, device="cuda")[:, ::2]
    ember.add(base.t(), 1, out=out)
    same(out, tb.t() + 1, torch)
    r = base.t() + 1
    assert r.stride() == (base.t() + 0).stride() == torch.add(tb.t(), 1).stride()


def test_misaligned_and_odd_sizes(torch):
    # views that start off a 16-byte boundary and sizes with vector tails
    for n in (1, 3, 5, 17, 1023, 4099):
        x = make("float32", (n + 3,), n)
        tx = tt(x, torch)
        same(x[1:n + 1] + x[2:n + 2], tx[1:n + 1] + tx[2:n + 2], torch)
        h = x.to(ember.float16)
        same(h[3:] * h[3:], tt(h, torch)[3:] * tt(h, torch)[3:], torch)


def test_zero_size_and_zero_d(torch):
    e = ember.empty(0, 5, device="cuda")
    assert (e + 1).shape == (0, 5) and (e < 1).dtype == ember.bool
    z = ember.tensor(2.5, device="cuda")
    assert (z * z).item() == 6.25 and (z * z).shape == ()


def test_large_index_path(torch):
    # more elements than 2**31: 64-bit indexing in the strided kernel
    n = (1 << 31) + 7
    x = ember.ones(n, dtype=ember.uint8, device="cuda")
    y = x + x  # flat kernel, 64-bit element index
    assert y.dtype == ember.uint8
    assert y[-1].item() == 2 and y[0].item() == 2
    del y
    v = x.as_strided((2, n // 2), (n // 2, 1))
    w = v.t() * 3  # strided: offsets past 2**31 bytes
    assert w[-1, -1].item() == 3 and w[0, 0].item() == 3


# ---- streams and the host --------------------------------------------------------

def test_out_and_inplace_do_not_wait_for_the_gpu(torch):
    warm(torch)
    a = ember.ones(1 << 20, device="cuda")
    b = ember.ones(1 << 20, device="cuda")
    out = ember.empty(1 << 20, device="cuda")
    ember.add(a, b, out=out)
    a.add_(b)
    torch.cuda.synchronize()
    torch.cuda._sleep(100_000_000)  # ~50 ms on the legacy default stream (ember's current)
    t0 = time.perf_counter()
    ember.add(a, b, out=out)
    ember.mul(a, 2, out=out)
    a.add_(b)
    a += 1
    c = a / b
    queued = time.perf_counter() - t0
    t0 = time.perf_counter()
    ember.cuda.synchronize()
    assert queued < 0.02 < time.perf_counter() - t0
    assert out[0].item() == 4.0 and a[0].item() == 4.0 and c[0].item() == 4.0


def test_ops_run_on_the_current_stream(torch):
    warm(torch)
    s = ember.cuda.Stream()
    a = ember.ones(1 << 20, device="cuda")
    ember.cuda.synchronize()
    with ember.cuda.stream(s):
        ember.cuda._sleep(100_000_000)
        b = a * 3
        assert not s.query()
    s.synchronize()
    assert b[0].item() == 3.0


def test_errors_on_the_gpu(torch):
    a = ember.ones(3, device="cuda")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        a + ember.ones(3)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        ember.add(ember.ones(3), ember.ones(3), out=a)
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        a + ember.ones(4, device="cuda")
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        ember.ones(3, dtype=ember.int64, device="cuda").add_(1.5)
    # integer division by zero: no error and no wait on the GPU (values unspecified)
    r = ember.tensor([1, 2], device="cuda") // 0
    assert r.shape == (2,)
    assert (a + 1).sum().item() == 6.0 if hasattr(a, "sum") else (a + 1)[0].item() == 2.0


# ---- unary, bitwise, ternary -------------------------------------------------------

UNARY = {
    # name: (low, high) of inputs inside the domain
    "sqrt": (0, 10), "rsqrt": (0.1, 10), "exp": (-5, 5), "exp2": (-5, 5), "expm1": (-2, 2),
    "log": (0.1, 10), "log2": (0.1, 10), "log10": (0.1, 10), "log1p": (-0.5, 5),
    "sin": (-6, 6), "cos": (-6, 6), "tan": (-1.4, 1.4), "asin": (-1, 1), "acos": (-1, 1),
    "atan": (-5, 5), "sinh": (-3, 3), "cosh": (-3, 3), "tanh": (-3, 3), "asinh": (-5, 5),
    "acosh": (1, 5), "atanh": (-0.9, 0.9), "sigmoid": (-6, 6), "erf": (-3, 3), "erfc": (-3, 3),
    "reciprocal": (0.5, 4), "neg": (-5, 5), "abs": (-5, 5), "sign": (-5, 5), "square": (-5, 5),
    "relu": (-5, 5), "floor": (-5, 5), "ceil": (-5, 5), "round": (-5, 5), "trunc": (-5, 5),
    "frac": (-5, 5), "isnan": (-5, 5), "isinf": (-5, 5), "isfinite": (-5, 5),
    "logical_not": (-2, 2), "nan_to_num": (-5, 5),
}


@pytest.mark.parametrize("fn", list(UNARY))
@pytest.mark.parametrize("name", ALL)
def test_unary_vs_torch(torch, fn, name):
    lo, hi = UNARY[fn]
    x = make(name, (37, 5), 12, lo, hi)
    tx = tt(x, torch)
    try:
        expected = getattr(torch, fn)(tx)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            getattr(ember, fn)(x)
        return
    rtol = 1e-5 if name == "float32" else None
    same(getattr(ember, fn)(x), expected, torch, rtol=rtol)
    same(getattr(ember, fn)(x.t()), getattr(torch, fn)(tx.t()), torch, rtol=rtol)


RARE_UNARY = ["exp2", "expm1", "log2", "log10", "log1p", "tan", "asin", "acos", "atan", "sinh",
              "cosh", "asinh", "acosh", "atanh", "erfc", "frac"]


@pytest.mark.parametrize("fn", RARE_UNARY)
@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64", "int32"])
def test_rare_unary_compiled_at_first_use_vs_torch(torch, fn, name):
    # These are compiled by NVRTC at first use (ops/pointwise/unary_jit.cpp): contiguous,
    # strided, broadcast-free views, in-place, and an out= of a wider dtype, where torch
    # rounds the result to the op's dtype before converting (float16 -> float32 out=).
    lo, hi = UNARY[fn]
    x = make(name, (129, 7), 21, lo, hi)
    tx = tt(x, torch)
    if fn == "frac" and name == "int32":
        with pytest.raises(RuntimeError):
            ember.frac(x)
        return
    f, tf = getattr(ember, fn), getattr(torch, fn)
    rtol = 1e-5 if name == "float32" else None
    same(f(x), tf(tx), torch, rtol=rtol)
    same(f(x[:, 1::2]), tf(tx[:, 1::2]), torch, rtol=rtol)
    same(f(x.t()), tf(tx.t()), torch, rtol=rtol)
    if name in FLOATS:
        y, ty = x.clone(), tx.clone()
        getattr(y, fn + "_")()
        getattr(ty, fn + "_")()
        same(y, ty, torch, rtol=rtol)
        wide = "float64" if name != "float64" else "float32"
        out = ember.empty((7, 129), device="cuda", dtype=getattr(ember, wide)).t()
        tout = torch.empty((7, 129), device="cuda", dtype=getattr(torch, wide)).t()
        if fn == "frac":  # an out= of its input's dtype only, as torch's frac_out
            with pytest.raises(RuntimeError, match="Found dtype"):
                f(x, out=out)
            with pytest.raises(RuntimeError):
                tf(tx, out=tout)
            return
        f(x, out=out)
        tf(tx, out=tout)
        # Rounded through x's dtype first, as torch: the values of f(x) converted.
        assert torch.equal(torch.from_dlpack(out), torch.from_dlpack(f(x)).to(tout.dtype))
        same(out, tout, torch, rtol=rtol)
    # A second call reuses the compiled variant (and its result is the same).
    assert torch.equal(torch.from_dlpack(f(x)), torch.from_dlpack(f(x)))


@pytest.mark.parametrize("name", FLOATS)
def test_activations_vs_torch(torch, name):
    x = make(name, (1000,), 13, -6, 6)
    tx = tt(x, torch)
    F = torch.nn.functional
    rtol = 1e-5 if name == "float32" else None
    same(ember.gelu(x), F.gelu(tx), torch, rtol=rtol)
    same(ember.gelu(x, approximate="tanh"), F.gelu(tx, approximate="tanh"), torch, rtol=rtol)
    same(ember.silu(x), F.silu(tx), torch, rtol=rtol)
    same(ember.nan_to_num(x / 0), torch.nan_to_num(tx / 0), torch)
    same(ember.round(x, decimals=1), torch.round(tx, decimals=1), torch, atol=0.11)


@pytest.mark.parametrize("name", ["bool", "uint8", "int8", "int16", "int32", "int64"])
def test_bitwise_vs_torch(torch, name):
    a, b = make(name, (64,), 14, -100, 100), make(name, (64,), 15, 0, 7)
    ta, tb = tt(a, torch), tt(b, torch)
    for op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        same(getattr(ember, op)(a, b), getattr(torch, op)(ta, tb), torch)
    same(~a, ~ta, torch)
    if name != "bool":
        same(a << b, ta << tb, torch)
        same(a >> b, ta >> tb, torch)
        same(a << 3, ta << 3, torch)


@pytest.mark.parametrize("name", ["int32", "int64", "float16", "bfloat16", "float32", "float64"])
def test_ternary_vs_torch(torch, name):
    x, lo, hi = make(name, (8, 16), 16), make(name, (16,), 17, -3, 0), make(name, (8, 1), 18, 0, 3)
    tx, tlo, thi = tt(x, torch), tt(lo, torch), tt(hi, torch)
    same(ember.clamp(x, lo, hi), torch.clamp(tx, tlo, thi), torch)
    same(ember.clamp(x, -1, 2), torch.clamp(tx, -1, 2), torch)
    same(ember.clamp(x, min=0.5), torch.clamp(tx, min=0.5), torch)
    c = x > 0
    same(ember.where(c, x, lo), torch.where(tt(c, torch), tx, tlo), torch)
    same(ember.where(c, x, 0), torch.where(tt(c, torch), tx, 0), torch)
    same(ember.addcmul(x, lo, hi, value=2), torch.addcmul(tx, tlo, thi, value=2), torch,
         rtol=1e-5 if name == "float32" else None)
    if name in FLOATS:
        same(ember.addcdiv(x, lo, hi + 4, value=0.5), torch.addcdiv(tx, tlo, thi + 4, value=0.5),
             torch, rtol=1e-5 if name == "float32" else None)
        same(ember.lerp(x, lo, 0.3), torch.lerp(tx, tlo, 0.3), torch,
             rtol=1e-5 if name == "float32" else None)
        w = make(name, (8, 16), 19, 0, 1)
        same(ember.lerp(x, lo, w), torch.lerp(tx, tlo, tt(w, torch)), torch,
             rtol=1e-5 if name == "float32" else None)


def test_guide_expression_vs_torch(torch):
    x = make("float32", (1 << 20,), 20, 0.1, 2)
    tx = tt(x, torch)
    same(x**2 + x**3**x.sin()**x.cos() + x.tan(), tx**2 + tx**3**tx.sin()**tx.cos() + tx.tan(),
         torch, rtol=1e-5)


# ---- reductions ----------------------------------------------------------------------

RED_DIMS = [None, 0, 1, -1, (0, 2), (1, 2)]


@pytest.mark.parametrize("op", ["sum", "mean", "prod", "amax", "amin", "var", "std", "norm",
                                "logsumexp", "all", "any"])
@pytest.mark.parametrize("name", ALL)
def test_reductions_vs_torch(torch, op, name):
    x = make(name, (6, 33, 20), 21, -3, 4)
    if op == "prod":
        x = make(name, (6, 33, 20), 21, 1, 2) if name not in FLOATS else \
            (make("float32", (6, 33, 20), 21, 0.9, 1.1).to(getattr(ember, name)))
    tx = tt(x, torch)
    for dims in RED_DIMS:
        for keepdim in (False, True):
            kwargs = {"keepdim": keepdim}
            if op == "prod" and isinstance(dims, tuple):
                continue  # torch.prod takes one dim (ember also takes several)
            if op == "logsumexp" and dims is None:
                dims_t = (0, 1, 2)
            else:
                dims_t = dims
            try:
                if op == "norm":
                    expected = torch.linalg.vector_norm(tx, 2, dims_t, keepdim)
                elif dims_t is None:
                    expected = getattr(torch, op)(tx) if not keepdim else None
                else:
                    expected = getattr(torch, op)(tx, dims_t, **kwargs)
            except (RuntimeError, TypeError):
                with pytest.raises((RuntimeError, TypeError)):
                    getattr(ember, op)(x, dims, keepdim=keepdim)
                continue
            if expected is None:
                continue
            got = getattr(ember, op)(x, dims_t, keepdim=keepdim) if op != "norm" else \
                ember.norm(x, 2, dims, keepdim)
            rtol = {"float16": 5e-3, "bfloat16": 3e-2, "float32": 1e-5}.get(name)
            same(got, expected, torch, rtol=rtol, atol=1e-3 if name in FLOATS else None)


@pytest.mark.parametrize("name", ["uint8", "int32", "int64", "float16", "bfloat16", "float32",
                                  "float64"])
def test_arg_reductions_vs_torch(torch, name):
    x = make(name, (17, 300), 22, -100, 100)
    tx = tt(x, torch)
    same(x.argmax(), tx.argmax(), torch)
    same(x.argmin(), tx.argmin(), torch)
    for d in (0, 1):
        v, i = x.max(d)
        tv, ti = tx.max(d)
        same(v, tv, torch)
        same(i, ti, torch)
        v, i = x.min(d, keepdim=True)
        tv, ti = tx.min(d, keepdim=True)
        same(v, tv, torch)
        same(i, ti, torch)
    same(x.t().argmax(), tx.t().argmax(), torch)


@pytest.mark.parametrize("shape, dims", [
    ((1 << 24,), None), ((3, 1 << 22), 1), ((1 << 20, 7), 0), ((64, 4096, 8), 1),
    ((4096, 4096), 0), ((2, 3, 100_000), (0, 2)), ((100_000, 3), -1),
])
@pytest.mark.parametrize("name", ["float32", "float16", "bfloat16"])
def test_large_reductions_accuracy(torch, shape, dims, name):
    x = make(name, shape, 23, -1, 1)
    tx = tt(x, torch)
    ref = tx.double().sum(dims) if dims is not None else tx.double().sum()
    got = x.sum(dims) if dims is not None else x.sum()
    scale = tx.double().abs().sum(dims) if dims is not None else tx.double().abs().sum()
    err = (torch.from_dlpack(got).double() - ref).abs()
    tol = {"float32": 1e-6, "float16": 2e-3, "bfloat16": 1e-2}[name]
    assert bool((err <= tol * scale + 1e-3).all())
    same(x.amax(dims) if dims is not None else x.amax(),
         tx.amax(dims) if dims is not None else tx.amax(), torch)


def test_reductions_of_non_contiguous_and_empty(torch):
    x = make("float32", (40, 50, 6), 24)
    tx = tt(x, torch)
    same(x.transpose(0, 2).sum(1), tx.transpose(0, 2).sum(1), torch, rtol=1e-5)
    same(x[:, ::3].mean((0, 2)), tx[:, ::3].mean((0, 2)), torch, rtol=1e-5)
    same(x.permute(1, 2, 0).amax((0, 1)), tx.permute(1, 2, 0).amax((0, 1)), torch)
    same(x.expand(2, 40, 50, 6).sum(0), tx.expand(2, 40, 50, 6).sum(0), torch, rtol=1e-5)
    e = ember.empty(0, 4, device="cuda")
    same(e.sum(0), torch.empty(0, 4, device="cuda").sum(0), torch)
    same(e.logsumexp(0), torch.empty(0, 4, device="cuda").logsumexp(0), torch)
    assert e.sum().item() == 0


def test_reductions_do_not_wait(torch):
    warm(torch)
    x = ember.ones(1 << 24, device="cuda")
    x.sum()
    x.sum(0)
    torch.cuda.synchronize()
    torch.cuda._sleep(100_000_000)
    t0 = time.perf_counter()
    s = x.sum()
    m = x.view(1 << 12, 1 << 12).amax(0)
    v = x.view(1 << 12, 1 << 12).var(1)
    queued = time.perf_counter() - t0
    t0 = time.perf_counter()
    ember.cuda.synchronize()
    assert queued < 0.02 < time.perf_counter() - t0
    assert s.item() == float(1 << 24) and m[0].item() == 1.0 and v[0].item() == 0.0


@pytest.mark.slow
def test_sum_of_more_than_2_31_elements(torch):
    # 2**31 + 5 bytes (2 GiB): 64-bit indexing in the reduction and in the
    # elementwise kernels; the result is exact (int64 accumulation).
    n = (1 << 31) + 5
    x = ember.ones(n, dtype=ember.uint8, device="cuda")
    assert x.sum().item() == n
    b = x.view(ember.bool)
    assert b.sum().item() == n and b.all().item() is True
    x[-1] = 7
    assert x.amax().item() == 7 and x.argmax().item() == n - 1
    assert (x == 7).sum().item() == 1
    c = x.view(1, n).sum(1)
    assert c.tolist() == [n + 6]


# ---- scans and softmax -------------------------------------------------------------

@pytest.mark.parametrize("name", ["bool", "uint8", "int32", "int64", "float16", "bfloat16",
                                  "float32", "float64"])
@pytest.mark.parametrize("shape, dim", [((7, 33), 1), ((7, 33), 0), ((3, 5000), 1),
                                        ((1, 100_000), 1), ((100, 3, 2), 0), ((1 << 18, 4), 1),
                                        # scan.cu's paths: CUB per line (1-D past 2^24, a few
                                        # long lines, strided long lines), a block per line
                                        # (a tail chunk; odd rows unaligned: element loads),
                                        # a warp per line (vector chunks and a tail)
                                        (((1 << 24) + 3,), 0), ((4, (1 << 20) + 5), 1),
                                        (((1 << 20) + 5, 3), 0), ((16, 20_000), 1),
                                        ((5, 4099), 1), ((5000, 1000), 1), ((3, 0), 1),
                                        ((0, 5), 1), ((0,), 0)])
def test_scans_vs_torch(torch, name, shape, dim):
    # float16/bfloat16 scans accumulate in float32 (torch's CUDA scan rounds every partial
    # sum to the input dtype), so floating results are checked against float64 sums with
    # an error bound that grows with the running sum of magnitudes; dtypes against torch's.
    # long lines: mean-zero values, so float16 running sums stay finite
    lo, hi = (0, 2) if name == "bool" else (-2, 3) if math.prod(shape) < 1 << 20 else (-2, 2)
    x = make(name, shape, 25, lo, hi)
    tx = tt(x, torch)

    def check(got, tx, dim):
        exp = tx.cumsum(dim)
        assert dtype_name(got.dtype) == dtype_name(exp.dtype)
        if not exp.dtype.is_floating_point:
            same(got, exp, torch)
            return
        scale = tx.double().abs().cumsum(dim)
        tol = {"float16": 2e-3, "bfloat16": 8e-3, "float32": 1e-5, "float64": 1e-12}[name]
        err = (torch.from_dlpack(got).double() - tx.double().cumsum(dim)).abs()
        assert bool((err <= tol * scale + tol).all()), float((err - tol * scale).max())

    check(x.cumsum(dim), tx, dim)
    small = make(name, shape, 26, 0, 2) if name != "bool" else x
    ref = tt(small, torch)
    if ref.dtype in (torch.float16, torch.bfloat16):
        ref = ref.float().cumprod(dim).to(ref.dtype)   # correctly rounded float32 products
    else:
        ref = ref.cumprod(dim)
    same(small.cumprod(dim), ref, torch, rtol=1e-2, atol=1e-2)
    if len(shape) == 2:
        check(x.t().cumsum(0), tx.t(), 0)
    else:
        check(x.cumsum(-1), tx, -1)


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("shape, dim", [((64, 1000), 1), ((1000, 64), 0), ((8, 3, 50), 1),
                                        ((4, 100_000), -1)])
def test_softmax_vs_torch(torch, name, shape, dim):
    x = make(name, shape, 27, -8, 8)
    tx = tt(x, torch)
    rtol = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-5}.get(name)
    same(x.softmax(dim), tx.softmax(dim), torch, rtol=rtol, atol=1e-6)
    same(ember.log_softmax(x, dim), torch.log_softmax(tx, dim), torch, rtol=rtol, atol=1e-3)
    # ember's logsumexp runs in float32 and rounds once; torch's runs in the input dtype for
    # float16/bfloat16, so the reference is torch's float32 result rounded to the dtype
    ref = torch.logsumexp(tx.float(), dim).to(tx.dtype) if name in ("float16", "bfloat16") \
        else torch.logsumexp(tx, dim)
    same(ember.logsumexp(x, dim), ref, torch, rtol=rtol, atol=1e-3)


# ---- issue 14's CUDA run: CUDA-only differences (branch diffcuda) ----------------------

def test_addcmul_addcdiv_order_like_torch_cuda(torch):
    """torch's CUDA kernels compute self + value * (t1 op t2) (fma(value, t1 op t2, self));
    its CPU ones (value * t1) op t2 first: value = 0 with t1 * t2 = inf is nan on CUDA."""
    def pair(vals, dt):
        return (ember.tensor(vals, dtype=getattr(ember, dt), device="cuda"),
                torch.tensor(vals, dtype=getattr(torch, dt), device="cuda"))
    for dt in ("float32", "bfloat16", "float64"):
        xe, xt = pair([18346018.0, -768.0, 0.5, 2.0], dt)
        ae, at = pair([4.5, 3.3e38, -2.5e38, 1.5], dt)
        be, bt = pair([3.4e38, 0.0, 5.25, 3.0], dt)
        for value in (0, 1, 2, -2.5, 0.5):
            for name in ("addcmul", "addcdiv"):
                e = getattr(ember, name)(xe, ae, be, value=value)
                t = getattr(torch, name)(xt, at, bt, value=value)
                np.testing.assert_allclose(e.float().cpu().numpy(), t.float().cpu().numpy(),
                                           rtol=1e-2 if dt == "bfloat16" else 1e-6)
    # integer inputs: value converted into int64 on CUDA (torch's CPU raises for -2.5)
    xe, xt = pair([9, 200, 3], "uint8")
    ae, at = pair([1, 3, 250], "uint8")
    be, bt = pair([8, 2, 7], "uint8")
    e = ember.addcmul(xe, ae, be, value=-2.5)
    t = torch.addcmul(xt, at, bt, value=-2.5)
    assert e.cpu().tolist() == t.cpu().tolist()


def test_add_alpha_in_opmath_on_cuda(torch):
    """torch's CUDA add/sub convert alpha into the opmath type (float32 for float16):
    alpha=65520.0 works there (its CPU raises: it does not fit float16)."""
    e = ember.tensor([-8.6015625, 1.0], dtype=ember.float16, device="cuda")
    t = torch.tensor([-8.6015625, 1.0], dtype=torch.float16, device="cuda")
    e.add_(-0.5, alpha=65520.0)
    t.add_(-0.5, alpha=65520.0)
    assert e.float().cpu().tolist() == t.float().cpu().tolist()
    re = ember.sub(ember.tensor([0.5], dtype=ember.bfloat16, device="cuda"), 1e-30, alpha=1e38)
    rt = torch.sub(torch.tensor([0.5], dtype=torch.bfloat16, device="cuda"), 1e-30, alpha=1e38)
    assert re.float().cpu().tolist() == rt.float().cpu().tolist()


def test_clamp_min_max_nan_number_fills_nan(torch):
    """clamp_min/clamp_max with a NaN number fill the result with NaN (torch's
    clamp_min_out/clamp_max_out), on both devices; clamp(x, min=nan) keeps x."""
    for dev in ("cuda", "cpu"):
        for dt in ("int32", "uint8", "bfloat16", "float32", "bool"):
            e = ember.tensor([1, 0, 5], device=dev).to(getattr(ember, dt))
            t = torch.tensor([1, 0, 5], device=dev).to(getattr(torch, dt))
            for name in ("clamp_min", "clamp_max"):
                re, rt = getattr(ember, name)(e, float("nan")), getattr(torch, name)(t, float("nan"))
                assert dtype_name(re.dtype) == dtype_name(rt.dtype)
                assert np.isnan(re.float().cpu().numpy()).all()
                assert np.isnan(rt.float().cpu().numpy()).all()
                me = getattr(e.float(), name)(float("nan"))
                assert np.isnan(me.cpu().numpy()).all()
        x = ember.tensor([1.0, 2.0], device=dev)
        assert x.clamp(min=float("nan")).cpu().tolist() == [1.0, 2.0]
        o = ember.empty(3, device=dev)
        ember.clamp_max(ember.tensor([808, -946, 294], dtype=ember.int32, device=dev),
                        float("nan"), out=o)
        assert np.isnan(o.cpu().numpy()).all()


def test_cumsum_of_expanded_line_keeps_accuracy(torch):
    """A long line strided along the scanned dim (expanded here) is scanned from a
    contiguous copy in a tree, as torch's, with a double carry between chunks: not one
    element after another (which was 160 float32 ulps off after 3586 elements)."""
    for dt, n in (("float32", 40000), ("float64", 4099)):
        v = 0.36902478337287903 if dt == "float32" else 7.759176056376582
        e = ember.tensor([v], dtype=getattr(ember, dt), device="cuda").expand(n).cumsum(-1)
        exact = np.float64(np.asarray(v, dtype=dt)) * np.arange(1, n + 1)
        err = np.abs(e.cpu().numpy().astype(np.float64) - exact).max()
        eps = np.finfo(dt).eps
        assert err <= 4 * eps * abs(v) * n, (dt, err)
        t = torch.tensor([v], dtype=getattr(torch, dt), device="cuda").expand(n).cumsum(-1)
        np.testing.assert_allclose(e.cpu().numpy(), t.cpu().numpy(), rtol=128 * eps)
    # float16: accumulated in float (torch's CUDA rounds every partial to float16: worse)
    e = ember.tensor([5.48828125], dtype=ember.float16, device="cuda").expand(1000).cumsum(-1)
    exact = 5.48828125 * np.arange(1, 1001)
    assert np.abs(e.float().cpu().numpy() - exact).max() <= 4  # an ulp at 4096..5488
