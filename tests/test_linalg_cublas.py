"""The GPU product engine's parts checked without a GPU: the precision switches
(torch's semantics), the cuBLAS loader (nothing loaded at import, every entry point
resolved), and the cuBLAS call plan emulated on the CPU with NumPy."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember
from linalg_util import arr, e, rel_err


# ---- precision switches -------------------------------------------------------------

@pytest.fixture
def restore_precision():
    before = ember.get_float32_matmul_precision()
    f16 = ember.backends.cuda.matmul.allow_fp16_reduced_precision_reduction
    bf16 = ember.backends.cuda.matmul.allow_bf16_reduced_precision_reduction
    yield
    ember.set_float32_matmul_precision(before)
    ember.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = f16
    ember.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = bf16


def test_precision_switches_follow_torch(restore_precision):
    assert ember.get_float32_matmul_precision() == "highest"
    assert ember.backends.cuda.matmul.allow_tf32 is False
    ember.set_float32_matmul_precision("high")
    assert ember.backends.cuda.matmul.allow_tf32 is True
    ember.set_float32_matmul_precision("medium")
    assert ember.backends.cuda.matmul.allow_tf32 is True
    ember.backends.cuda.matmul.allow_tf32 = False
    assert ember.get_float32_matmul_precision() == "highest"
    ember.backends.cuda.matmul.allow_tf32 = True
    assert ember.get_float32_matmul_precision() == "high"
    ember.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    assert ember.backends.cuda.matmul.allow_fp16_reduced_precision_reduction is False
    ember.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    assert ember.backends.cuda.matmul.allow_bf16_reduced_precision_reduction is False
    with pytest.raises(ValueError, match="'highest', 'high' or 'medium'"):
        ember.set_float32_matmul_precision("low")
    with pytest.raises(AttributeError, match="Unknown attribute"):
        ember.backends.cuda.matmul.allow_fp8
    with pytest.raises(AttributeError, match="Unknown attribute"):
        ember.backends.cuda.matmul.allow_fp8 = True
    with pytest.raises(TypeError, match="must be a bool"):
        ember.backends.cuda.matmul.allow_tf32 = 1
    # CPU products are IEEE whatever the switch says
    a, b = arr(8, 300).astype(np.float32), arr(300, 8).astype(np.float32)
    assert rel_err((e(a) @ e(b)).numpy(), a.astype(np.float64) @ b) < 1e-5


# ---- the cuBLAS loader ----------------------------------------------------------------

def run_py(code):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=dict(os.environ), timeout=120)


def test_cpu_products_load_neither_cublas_nor_numpy_at_import():
    r = run_py("""
        import sys, ember
        maps = lambda: open('/proc/self/maps').read()
        assert 'libcublas' not in maps() and 'numpy' not in sys.modules
        a = ember.ones(3, 4)
        assert ember._C._cublas_loaded() is False
        assert not ember._C._linalg.lapack_loaded() and 'openblas' not in maps()
        print((a @ ember.ones(4, 2)).tolist())
        assert 'libcublas' not in maps(), 'a CPU product loaded cuBLAS'
        # The CPU BLAS is opened directly (NumPy's bundled OpenBLAS), NumPy is not imported.
        assert 'numpy' not in sys.modules
        assert ember._C._linalg.lapack_loaded() and 'openblas' in maps()
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str([[4.0, 4.0]] * 3)


@pytest.mark.skipif(not ember._C._compiled_with_cuda, reason="CPU-only build has no cuBLAS")
def test_cublas_loader_resolves_every_entry_point():
    # dlopen + dlsym only: runs without a GPU wherever the toolkit's cuBLAS is installed.
    r = run_py("""
        import ember
        try:
            path = ember._C._cublas_load()
        except RuntimeError as exc:
            assert 'could not open cuBLAS' in str(exc), exc
            print('missing')
        else:
            assert 'libcublas.so' in path and ember._C._cublas_loaded()
            assert 'libcublasLt' in open('/proc/self/maps').read()
            print('ok')
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() in ("ok", "missing")


# ---- the cuBLAS call plan, emulated on the CPU ------------------------------------------
# The GPU engine maps strided tensors to column-major cuBLAS calls (transpose flags,
# leading dims, batch strides, loops, copies). _C._cublas_plan returns the calls it would
# make; emulating them with NumPy over the tensors' memory checks that mapping here,
# without a GPU, including cuBLAS's argument rules.

needs_cuda_build = pytest.mark.skipif(not ember._C._compiled_with_cuda,
                                      reason="the cuBLAS planner is part of CUDA builds")


def _memory(tensors, ptr, count):
    """A writable NumPy view of `count` elements at address `ptr`, inside one of `tensors`."""
    best = None
    for t in tensors:
        base = t.untyped_storage_ptr()
        if base <= ptr and (best is None or base > best.untyped_storage_ptr()):
            best = t
    item = best.element_size()
    start = (ptr - best.untyped_storage_ptr()) // item
    assert (ptr - best.untyped_storage_ptr()) % item == 0
    flat = ember.as_strided(best, (start + count,), (1,), 0)  # bounds-checked by ember
    return flat.numpy()[start:]


def _stored(tensors, ptr, rows, cols, ld, batch, stride):
    assert ld >= max(1, rows), (ld, rows)
    extent = (rows - 1) + (cols - 1) * ld + (batch - 1) * stride + 1
    mem = _memory(tensors, ptr, extent)
    i, j = np.arange(rows)[:, None], np.arange(cols)[None, :]
    return mem, [i + j * ld + q * stride for q in range(batch)]


def emulate_plan(out, a, b):
    plan = ember._C._cublas_plan(out, a, b)
    if plan["temporary_out"]:
        return plan
    sources = [plan["a"], plan["b"]]
    for c in plan["calls"]:
        m, n, k, batch = c["m"], c["n"], c["k"], c["batch"]
        assert min(m, n, k, batch) >= 1
        ra, ca = (k, m) if c["transa"] else (m, k)
        rb, cb = (n, k) if c["transb"] else (k, n)
        mem_a, idx_a = _stored(sources, c["a"], ra, ca, c["lda"], batch, c["stride_a"])
        mem_b, idx_b = _stored(sources, c["b"], rb, cb, c["ldb"], batch, c["stride_b"])
        mem_c, idx_c = _stored([out], c["c"], m, n, c["ldc"], batch, c["stride_c"])
        for q in range(batch):
            opa = mem_a[idx_a[q]].T if c["transa"] else mem_a[idx_a[q]]
            opb = mem_b[idx_b[q]].T if c["transb"] else mem_b[idx_b[q]]
            mem_c[idx_c[q]] = opa @ opb
    return plan


def _layout(t, kind):
    if kind == "N":
        return t
    if kind == "T":
        return t.mT.contiguous().mT
    if kind == "slice":
        big = ember.zeros(*t.shape[:-2], t.shape[-2] + 3, t.shape[-1] + 5, dtype=t.dtype)
        v = big[..., 2:2 + t.shape[-2], 1:1 + t.shape[-1]]
        v.copy_(t)
        return v
    if kind == "slice_T":
        big = ember.zeros(*t.shape[:-2], t.shape[-1] + 4, t.shape[-2] + 2, dtype=t.dtype)
        v = big[..., 1:1 + t.shape[-1], 2:2 + t.shape[-2]]
        v.copy_(t.mT)
        return v.mT
    if kind == "strided":
        big = ember.zeros(*t.shape[:-2], 2 * t.shape[-2], 2 * t.shape[-1], dtype=t.dtype)
        v = big[..., ::2, ::2]
        v.copy_(t)
        return v
    raise ValueError(kind)


def _out(shape, kind):
    if kind == "row":
        return ember.full(shape, float("nan"), dtype=ember.float64)
    if kind == "col":
        return ember.full(shape, float("nan"), dtype=ember.float64).mT.contiguous().mT
    big = ember.full((*shape[:-2], shape[-2] + 2, shape[-1] + 3), float("nan"),
                     dtype=ember.float64)
    return big[..., 1:1 + shape[-2], 2:2 + shape[-1]]  # row-major with a larger ld


@needs_cuda_build
@pytest.mark.parametrize("ka", ["N", "T", "slice", "slice_T", "strided"])
@pytest.mark.parametrize("kb", ["N", "T", "slice", "slice_T", "strided"])
@pytest.mark.parametrize("ko", ["row", "col", "row_ld"])
@pytest.mark.parametrize("mnk", [(7, 5, 6), (1, 5, 6), (7, 1, 6), (7, 5, 1), (1, 1, 1)])
def test_cublas_plan_2d_layouts(ka, kb, ko, mnk):
    m, n, k = mnk
    a0, b0 = e(arr(m, k)), e(arr(k, n))
    a, b = _layout(a0, ka), _layout(b0, kb)
    out = _out((m, n), ko)
    plan = emulate_plan(out, a, b)
    assert not plan["temporary_out"]
    assert len(plan["calls"]) == 1
    # only operands without a unit stride are copied
    if ka != "strided" or min(m, k) == 1:
        assert plan["a"].data_ptr() == a.data_ptr()
    if kb != "strided" or min(k, n) == 1:
        assert plan["b"].data_ptr() == b.data_ptr()
    assert rel_err(out.numpy(), a0.numpy() @ b0.numpy()) < 1e-12


@needs_cuda_build
@pytest.mark.parametrize("sa, sb", [
    ((5, 2, 3), (5, 3, 4)), ((5, 1, 2, 3), (4, 3, 2)), ((1, 2, 3), (5, 3, 4)),
    ((2, 1, 4, 2, 3), (3, 1, 3, 2)), ((3, 2, 3), (1, 3, 4)), ((20, 1, 2, 3), (1, 20, 3, 4)),
    ((6, 1, 1), (6, 1, 1)),
])
@pytest.mark.parametrize("ka", ["N", "T", "slice", "strided"])
@pytest.mark.parametrize("kb", ["N", "T", "slice_T"])
def test_cublas_plan_batched(sa, sb, ka, kb):
    a0, b0 = e(arr(*sa)), e(arr(*sb))
    batch = np.broadcast_shapes(sa[:-2], sb[:-2])
    m, k, n = sa[-2], sa[-1], sb[-1]
    a = _layout(a0, ka).expand(*batch, m, k)
    b = _layout(b0, kb).expand(*batch, k, n)
    out = ember.full((*batch, m, n), float("nan"), dtype=ember.float64)
    plan = emulate_plan(out, a, b)
    assert 1 <= len(plan["calls"]) <= 8
    assert rel_err(out.numpy(), np.matmul(a0.numpy(), b0.numpy())) < 1e-12


@needs_cuda_build
def test_cublas_plan_merges_batches_and_keeps_views():
    a = e(arr(4, 3, 5, 6))
    b = e(arr(6, 7))
    out = ember.empty(4, 3, 5, 7, dtype=ember.float64)
    plan = emulate_plan(out, a, b.expand(4, 3, 6, 7))
    assert len(plan["calls"]) == 1 and plan["calls"][0]["batch"] == 12
    assert plan["calls"][0]["stride_a"] == 0  # b (the first cuBLAS operand) broadcast
    assert plan["a"].data_ptr() == a.data_ptr() and plan["b"].data_ptr() == b.data_ptr()
    # permuted batch dims: one call per outer index, no copy
    ap = e(arr(3, 4, 5, 6)).transpose(0, 1)
    out2 = ember.empty(4, 3, 5, 7, dtype=ember.float64)
    plan2 = emulate_plan(out2, ap, b.expand(4, 3, 6, 7))
    assert len(plan2["calls"]) in (3, 4) and plan2["a"].data_ptr() == ap.data_ptr()
    assert rel_err(out2.numpy(), ap.numpy() @ b.numpy()) < 1e-12
    # outputs that cuBLAS cannot write, or that alias an operand, use a temporary
    assert ember._C._cublas_plan(ember.empty(4, 8, dtype=ember.float64)[:, ::2],
                                 e(arr(4, 3)), e(arr(3, 4)))["temporary_out"]
    x = e(arr(3, 3))
    assert ember._C._cublas_plan(x, x, e(arr(3, 3)))["temporary_out"]
