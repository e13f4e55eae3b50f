"""GPU matrix products through cuBLAS: every layout cuBLAS reads in place (N/T flags,
slices with larger leading dims, broadcast and permuted batches), the layouts it cannot
(copied), all four float dtypes and TF32 against float64 references with relative-error
tolerances, torch as an oracle, the cuBLASLt bias epilogue, streams and threads, and the
errors."""
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import ember

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(99)

# Norm-wise relative error bounds (max |x - ref| / max |ref|) against a float64
# reference computed from the same (rounded) inputs.
TOL = {"float32": 1e-5, "float64": 1e-12, "float16": 3e-3, "bfloat16": 1e-2, "tf32": 3e-3}


@pytest.fixture
def precision():
    before = ember.get_float32_matmul_precision()
    yield
    ember.set_float32_matmul_precision(before)


def rel_err(x, ref):
    x = np.asarray(x, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    assert x.shape == ref.shape, (x.shape, ref.shape)
    if ref.size == 0:
        return 0.0
    scale = np.abs(ref).max()
    return float(np.abs(x - ref).max() / (scale if scale > 0 else 1.0))


def dev(a, dtype=ember.float32):
    return ember.tensor(np.ascontiguousarray(a), device="cuda").to(dtype)


def host(t):
    """float64 NumPy copy of a tensor of any float dtype."""
    return t.to(ember.float64).cpu().numpy()


def rand(*shape):
    return RNG.standard_normal(shape)


def check(result, a, b, dtype_name, op=np.matmul):
    ref = op(host(a), host(b))
    err = rel_err(host(result), ref)
    assert err < TOL[dtype_name], (dtype_name, err)
    return err


DTYPES = ["float32", "float64", "float16", "bfloat16"]


# ---- layouts ----------------------------------------------------------------------

def layout(t, kind):
    """The same values as t in another memory layout."""
    if kind == "N":
        return t
    if kind == "T":  # column-major storage
        return t.mT.contiguous().mT
    if kind == "slice":  # offset, leading dim larger than the row
        big = ember.zeros(*t.shape[:-2], t.shape[-2] + 3, t.shape[-1] + 5, dtype=t.dtype,
                          device="cuda")
        v = big[..., 2:2 + t.shape[-2], 1:1 + t.shape[-1]]
        v.copy_(t)
        return v
    if kind == "slice_T":
        big = ember.zeros(*t.shape[:-2], t.shape[-1] + 4, t.shape[-2] + 2, dtype=t.dtype,
                          device="cuda")
        v = big[..., 1:1 + t.shape[-1], 2:2 + t.shape[-2]]
        v.copy_(t.mT)
        return v.mT
    if kind == "strided":  # no unit stride: cuBLAS cannot read it, ember copies
        big = ember.zeros(*t.shape[:-2], 2 * t.shape[-2], 2 * t.shape[-1], dtype=t.dtype,
                          device="cuda")
        v = big[..., ::2, ::2]
        v.copy_(t)
        return v
    raise ValueError(kind)


KINDS = ["N", "T", "slice", "slice_T", "strided"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ka", KINDS)
@pytest.mark.parametrize("kb", KINDS)
def test_mm_every_layout(dtype, ka, kb):
    d = getattr(ember, dtype)
    a0, b0 = dev(rand(37, 53), d), dev(rand(53, 29), d)
    a, b = layout(a0, ka), layout(b0, kb)
    check(ember.mm(a, b), a0, b0, dtype)
    check(a @ b, a0, b0, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ka", ["N", "T", "slice"])
@pytest.mark.parametrize("kb", ["N", "T", "slice_T"])
def test_bmm_every_layout(dtype, ka, kb):
    d = getattr(ember, dtype)
    a0, b0 = dev(rand(6, 17, 33), d), dev(rand(6, 33, 9), d)
    a, b = layout(a0, ka), layout(b0, kb)
    check(ember.bmm(a, b), a0, b0, dtype)


@pytest.mark.parametrize("sa, sb", [
    ((5, 2, 3), (3, 4)), ((3,), (5, 3, 4)), ((5, 2, 3), (3,)), ((2, 3), (5, 3, 4)),
    ((5, 1, 2, 3), (4, 3, 2)), ((1, 2, 3), (5, 3, 4)), ((2, 1, 4, 2, 3), (3, 1, 3, 2)),
    ((3,), (3,)), ((4, 3), (3,)), ((3,), (3, 4)), ((7, 1, 8, 16), (1, 9, 16, 8)),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matmul_broadcasting(sa, sb, dtype):
    d = getattr(ember, dtype)
    a, b = dev(rand(*sa), d), dev(rand(*sb), d)
    r = a @ b
    ref = np.matmul(host(a), host(b))
    assert tuple(r.shape) == ref.shape
    assert r.device == a.device and r.dtype == d
    assert rel_err(host(r), ref) < TOL[dtype]


def test_batched_operand_with_permuted_batch_dims():
    a0 = dev(rand(4, 3, 8, 5), ember.float64)
    b = dev(rand(4, 3, 5, 6), ember.float64)
    a = a0.transpose(0, 1).contiguous().transpose(0, 1)  # batch dims do not merge
    check(a @ b, a0, b, "float64")
    big = dev(rand(40, 1, 8, 5), ember.float64)
    small = dev(rand(1, 40, 5, 6), ember.float64)  # > 8 cuBLAS calls: copied once instead
    check(big @ small, big, small, "float64")


@pytest.mark.parametrize("shape_a, shape_b", [((0, 3), (3, 4)), ((2, 0), (0, 4)),
                                              ((2, 3), (3, 0)), ((0, 2, 3), (0, 3, 4)),
                                              ((1, 1), (1, 1)), ((1, 5), (5, 1)),
                                              ((5, 1), (1, 5))])
@pytest.mark.parametrize("dtype", DTYPES)
def test_empty_and_one_sized_dims(shape_a, shape_b, dtype):
    d = getattr(ember, dtype)
    a, b = dev(rand(*shape_a), d), dev(rand(*shape_b), d)
    fn = ember.bmm if len(shape_a) == 3 else ember.mm
    r = fn(a, b)
    ref = np.matmul(host(a), host(b))
    assert tuple(r.shape) == ref.shape
    assert rel_err(host(r), ref) < TOL[dtype]


def test_empty_inner_dim_addmm_scales_input():
    s = dev(rand(3, 4), ember.float32)
    r = ember.addmm(s, dev(rand(3, 0)), dev(rand(0, 4)), beta=2.5)
    assert rel_err(host(r), 2.5 * host(s)) < 1e-6
    nan = ember.full((3, 4), float("nan"), device="cuda")
    z = ember.addmm(nan, dev(rand(3, 0)), dev(rand(0, 4)), beta=0)
    assert np.all(host(z) == 0)


# ---- precision --------------------------------------------------------------------

def test_tf32_switch_changes_float32_products(precision):
    a, b = dev(rand(512, 1024)), dev(rand(1024, 512))
    ember.set_float32_matmul_precision("highest")
    e_ieee = check(a @ b, a, b, "float32")
    ember.backends.cuda.matmul.allow_tf32 = True
    e_tf32 = check(a @ b, a, b, "tf32")
    assert e_tf32 > 1e-5 > e_ieee, (e_tf32, e_ieee)
    ember.set_float32_matmul_precision("medium")
    check(a @ b, a, b, "tf32")
    ember.set_float32_matmul_precision("highest")
    assert check(a @ b, a, b, "float32") < 1e-5


def test_reduced_precision_reduction_switches_keep_results_in_tolerance():
    m = ember.backends.cuda.matmul
    before = (m.allow_fp16_reduced_precision_reduction, m.allow_bf16_reduced_precision_reduction)
    try:
        for flag in (False, True):
            m.allow_fp16_reduced_precision_reduction = flag
            m.allow_bf16_reduced_precision_reduction = flag
            for dtype in ("float16", "bfloat16"):
                d = getattr(ember, dtype)
                a, b = dev(rand(64, 2048), d), dev(rand(2048, 64), d)
                check(a @ b, a, b, dtype)
    finally:
        m.allow_fp16_reduced_precision_reduction, m.allow_bf16_reduced_precision_reduction = before


# ---- every op against torch ---------------------------------------------------------

def to_torch(t, torch):
    return torch.from_dlpack(t)


@pytest.mark.parametrize("dtype", DTYPES)
def test_ops_match_torch(torch, dtype):
    d = getattr(ember, dtype)
    t = lambda x: to_torch(x, torch)  # noqa: E731
    a, b = dev(rand(33, 20), d), dev(rand(20, 17), d)
    s, v, w = dev(rand(17), d), dev(rand(20), d), dev(rand(20), d)
    s33 = dev(rand(33), d)
    a3, b3, s3 = dev(rand(4, 33, 20), d), dev(rand(4, 20, 17), d), dev(rand(4, 1, 17), d)
    tol = TOL[dtype] * 4
    pairs = [
        (a @ b, t(a) @ t(b)),
        (ember.mm(a, b), torch.mm(t(a), t(b))),
        (ember.bmm(a3, b3), torch.bmm(t(a3), t(b3))),
        (ember.matmul(a3, b), torch.matmul(t(a3), t(b))),
        (ember.mv(a, v), torch.mv(t(a), t(v))),
        (ember.dot(v, w), torch.dot(t(v), t(w))),
        (ember.vdot(v, w), torch.vdot(t(v), t(w))),
        (ember.outer(v, s), torch.outer(t(v), t(s))),
        (ember.addmm(s, a, b, beta=0.5, alpha=2), torch.addmm(t(s), t(a), t(b), beta=0.5, alpha=2)),
        (ember.addmm(s, a, b), torch.addmm(t(s), t(a), t(b))),
        (ember.addmv(s33, a, v, beta=2, alpha=-1), torch.addmv(t(s33), t(a), t(v), beta=2, alpha=-1)),
        (ember.baddbmm(s3, a3, b3, beta=0.25, alpha=3),
         torch.baddbmm(t(s3), t(a3), t(b3), beta=0.25, alpha=3)),
        (ember.nn.functional.linear(a, b.t(), s),
         torch.nn.functional.linear(t(a), t(b).t(), t(s))),
        (ember.nn.functional.linear(a3, b.t()), torch.nn.functional.linear(t(a3), t(b).t())),
        (ember.einsum("bij,bjk->bik", a3, b3), torch.einsum("bij,bjk->bik", t(a3), t(b3))),
        (ember.einsum("bij,kj->bik", a3, b.t()), torch.einsum("bij,kj->bik", t(a3), t(b).t())),
    ]
    for mine, theirs in pairs:
        assert mine.dtype == d and tuple(mine.shape) == tuple(theirs.shape)
        assert rel_err(host(mine), theirs.double().cpu().numpy()) < tol


def test_linear_bias_epilogue_and_fallbacks(torch):
    t = lambda x: to_torch(x, torch)  # noqa: E731
    for dtype in DTYPES:
        d = getattr(ember, dtype)
        x, w = dev(rand(8, 64, 96), d), dev(rand(80, 96), d)
        for bias in (dev(rand(80), d),                       # epilogue
                     dev(rand(81), d)[1:],                   # misaligned: fallback
                     dev(rand(160), d)[::2],                 # strided: fallback
                     dev(rand(64, 80), d)):                  # full bias: fallback
            mine = ember.nn.functional.linear(x, w, bias)
            ref = torch.nn.functional.linear(t(x).double(), t(w).double(), t(bias).double())
            assert rel_err(host(mine), ref.cpu().numpy()) < TOL[dtype] * 2, dtype


def test_integer_products_raise_like_torch():
    x = ember.ones(2, 2, dtype=ember.int64, device="cuda")
    with pytest.raises(RuntimeError, match="\"addmm_cuda\" not implemented for 'Long'"):
        x @ x
    with pytest.raises(RuntimeError, match="\"bmm_cuda\" not implemented for 'Int'"):
        ember.bmm(ember.ones(1, 2, 2, dtype=ember.int32, device="cuda"),
                  ember.ones(1, 2, 2, dtype=ember.int32, device="cuda"))
    # outer is elementwise: integers work
    o = ember.outer(ember.arange(3, device="cuda"), ember.arange(4, device="cuda"))
    np.testing.assert_array_equal(o.cpu().numpy(), np.outer(np.arange(3), np.arange(4)))
    assert (ember.ones(2, 2, device="cuda") @ ember.ones(2, 2, device="cuda")).cpu().tolist() == \
        [[2.0, 2.0], [2.0, 2.0]]


def test_degenerate_integer_products_like_torch():
    """torch's CUDA addmm/bmm return before their dtype dispatch when the product is empty
    or k == 0: integer operands then work (zeros, or beta * input)."""
    i16 = dict(dtype=ember.int16, device="cuda")
    r = ember.tensor([[1, 0, -2], [-1, -2, 2], [-5, 0, 4]], **i16).inner(
        ember.empty((0, 3), **i16))
    assert r.shape == (3, 0) and r.dtype == ember.int16
    z = ember.mm(ember.empty((2, 0), **i16), ember.empty((0, 3), **i16))
    assert z.cpu().tolist() == [[0, 0, 0]] * 2
    b = ember.bmm(ember.empty((2, 3, 0), dtype=ember.int32, device="cuda"),
                  ember.empty((2, 0, 4), dtype=ember.int32, device="cuda"))
    assert b.shape == (2, 3, 4) and not b.cpu().numpy().any()
    c = ember.tensor([[3, 4]], dtype=ember.int64, device="cuda")
    a = ember.addmm(c, ember.empty((1, 0), dtype=ember.int64, device="cuda"),
                    ember.empty((0, 2), dtype=ember.int64, device="cuda"), beta=2)
    assert a.cpu().tolist() == [[6, 8]]
    with pytest.raises(RuntimeError, match="not implemented for 'Short'"):
        ember.ones(2, 1, **i16) @ ember.ones(1, 2, **i16)


def test_mixed_devices_raise():
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        ember.ones(2, 2, device="cuda") @ ember.ones(2, 2)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        ember.addmm(ember.ones(2), ember.ones(2, 2, device="cuda"),
                    ember.ones(2, 2, device="cuda"))


def test_out_layouts_on_gpu():
    a, b = dev(rand(20, 30), ember.float64), dev(rand(30, 10), ember.float64)
    ref = host(a) @ host(b)
    col = ember.empty(10, 20, dtype=ember.float64, device="cuda").t()
    assert ember.mm(a, b, out=col) is col
    assert rel_err(host(col), ref) < 1e-12
    big = ember.zeros(40, 20, dtype=ember.float64, device="cuda")
    ember.matmul(a, b, out=big[::2, ::2])
    assert rel_err(host(big[::2, ::2]), ref) < 1e-12
    assert np.all(host(big[1::2]) == 0)
    sq = dev(rand(20, 20), ember.float64)
    before = host(sq)
    sq.addmm_(sq, sq, beta=1, alpha=1)  # out aliases both operands
    assert rel_err(host(sq), before + before @ before) < 1e-12


# ---- streams, threads, state --------------------------------------------------------

def test_products_run_on_the_current_stream(torch):
    a, b = dev(rand(256, 256)), dev(rand(256, 256))
    ref = host(a) @ host(b)
    s = ember.cuda.Stream()
    with ember.cuda.stream(s):
        a @ b  # warm up: the stream's workspace and cuBLAS's kernels are loaded
        ember.cuda._sleep(10)
    s.synchronize()
    with ember.cuda.stream(s):
        ember.cuda._sleep(2_000_000)  # ~1 ms: the product must queue behind it
        r = a @ b
        assert not s.query()
    s.synchronize()
    assert rel_err(host(r), ref) < 1e-5
    r2 = a @ b  # back on the default stream (rebinds the handle's workspace)
    assert rel_err(host(r2), ref) < 1e-5


def test_products_from_many_threads_and_streams():
    a, b = dev(rand(128, 64)), dev(rand(64, 96))
    ref = host(a) @ host(b)
    errors = []

    def work():
        try:
            s = ember.cuda.Stream()
            with ember.cuda.stream(s):
                for _ in range(20):
                    r = a @ b
                s.synchronize()
            errors.append(rel_err(host(r), ref))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(errors) == 6
    assert all(isinstance(x, float) and x < 1e-5 for x in errors), errors


def run_py(code):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=dict(os.environ), timeout=300)


def test_cublas_loads_on_first_gpu_product_and_exit_is_clean():
    r = run_py("""
        import threading, ember
        maps = lambda: open('/proc/self/maps').read()
        x = ember.ones(64, 64, device='cuda')
        assert 'libcublas' not in maps() and not ember._C._cublas_loaded()
        y = x @ x
        assert ember._C._cublas_loaded() and 'libcublasLt' in maps()
        def work():
            s = ember.cuda.Stream()
            with ember.cuda.stream(s):
                _ = x @ x
            s.synchronize()
        ts = [threading.Thread(target=work) for _ in range(4)]
        [t.start() for t in ts]; [t.join() for t in ts]
        print(y[0, 0].item())
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "64.0"
    assert r.stderr == ""


def test_bad_workspace_config_raises_clearly():
    r = run_py("""
        import ember
        x = ember.ones(4, 4, device='cuda')
        try:
            x @ x
        except ValueError as e:
            print('ValueError', 'CUBLAS_WORKSPACE_CONFIG' in str(e))
    """.replace("import ember", "import os; os.environ['CUBLAS_WORKSPACE_CONFIG'] = 'bad'\n"
                "        import ember"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ValueError True"


def test_cublas_workspace_is_allocated_once_per_stream():
    x = ember.ones(32, 32, device="cuda")
    x @ x
    ember.cuda.synchronize()
    before = ember.cuda.memory_allocated()
    for _ in range(10):
        y = x @ x
    del y
    assert ember.cuda.memory_allocated() == before


def test_inner_full_contraction_and_bool_degenerate_like_torch(torch):
    """inner/tensordot of a single-element result is torch's full contraction: dot when
    both operands are contiguous, else the products summed in the dtype (integers work on
    the GPU there); a degenerate bool product (empty result) works on the GPU."""
    cases = [
        (lambda L: L.tensor([-2], dtype=L.int32, device="cuda").expand(1, 2),
         lambda L: L.tensor([[736, 404]], dtype=L.int32, device="cuda")),
        (lambda L: L.tensor([10], dtype=L.uint8, device="cuda").expand(3),
         lambda L: L.tensor([[99], [79], [255]], dtype=L.uint8, device="cuda").permute(1, 0)),
        (lambda L: L.tensor([True], device="cuda").expand(3),
         lambda L: L.tensor([[True, False, True]], device="cuda")),
        (lambda L: L.tensor([[True, False, True]] * 5, device="cuda"),
         lambda L: L.zeros((0, 3), dtype=L.bool, device="cuda")),
        (lambda L: L.tensor([1.5, 2.0], device="cuda"), lambda L: L.tensor([2.0, 3.0], device="cuda")),
    ]
    for fa, fb in cases:
        rt = torch.inner(fa(torch), fb(torch))
        re = ember.inner(fa(ember), fb(ember))
        assert tuple(re.shape) == tuple(rt.shape)
        assert str(re.dtype).split(".")[-1] == str(rt.dtype).split(".")[-1]
        assert re.cpu().tolist() == rt.cpu().tolist()
    i16 = dict(dtype=ember.int16, device="cuda")
    with pytest.raises(RuntimeError, match="not implemented for 'Short'"):
        ember.inner(ember.ones(2, **i16), ember.ones(2, **i16))  # contiguous: dot
