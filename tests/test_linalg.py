"""Matrix products on the CPU (through NumPy's BLAS) against float64 NumPy references:
every op, torch's matmul shape rules (1-D operands, batch broadcasting), transposed and
sliced operands, empty and 1-sized dims, dtypes, out=, einsum, nn.functional.linear,
the precision switches, the cuBLAS loader, and the errors."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember

RNG = np.random.default_rng(1234)


def arr(*shape, dtype=np.float64):
    a = RNG.standard_normal(shape) if shape else np.array(RNG.standard_normal())
    return np.asarray(a).astype(dtype)


def rel_err(x, ref):
    """Norm-wise relative error of x against a float64 reference."""
    x = np.asarray(x, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    assert x.shape == ref.shape, (x.shape, ref.shape)
    scale = np.abs(ref).max() if ref.size else 0.0
    if ref.size == 0:
        return 0.0
    return float(np.abs(x - ref).max() / (scale if scale > 0 else 1.0))


def e(a, dtype=None):
    t = ember.tensor(a)  # a copy: in-place ops must not change the NumPy reference
    return t if dtype is None else t.to(dtype)


def npy(t):
    if t.dtype in (ember.bfloat16, ember.float16):
        t = t.float()
    return t.numpy()


# ---- matmul's shape rules against numpy.matmul --------------------------------------

MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3,)),
    ((3,), (5, 3, 4)),
    ((5, 2, 3), (3, 4)),
    ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)),
    ((5, 1, 2, 3), (4, 3, 2)),
    ((1, 2, 3), (5, 3, 4)),
    ((2, 1, 4, 2, 3), (3, 1, 3, 2)),
    ((1, 3), (3, 1)),
    ((1,), (1,)),
    ((0, 3), (3, 4)),
    ((2, 0), (0, 4)),
    ((2, 3), (3, 0)),
    ((5, 0, 2, 3), (3, 4)),
    ((0,), (0,)),
    ((4, 0), (0,)),
    ((5, 2, 0), (0, 3)),
]


@pytest.mark.parametrize("sa, sb", MATMUL_SHAPES)
def test_matmul_shapes_match_numpy(sa, sb):
    a, b = arr(*sa), arr(*sb)
    ref = np.matmul(a, b)
    for r in (ember.matmul(e(a), e(b)), e(a) @ e(b), e(a).matmul(e(b))):
        assert tuple(r.shape) == ref.shape
        assert r.dtype == ember.float64
        assert rel_err(r.numpy(), ref) < 1e-12


def test_matmul_results_are_contiguous_and_new():
    a, b = e(arr(4, 3)), e(arr(3, 5))
    r = a @ b
    assert r.is_contiguous()
    assert r.data_ptr() not in (a.data_ptr(), b.data_ptr())


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("sliced", [False, True])
def test_mm_layouts(ta, tb, sliced):
    m, k, n = 7, 5, 6
    a = arr(k, m).T if ta else arr(m, k)
    b = arr(n, k).T if tb else arr(k, n)
    ea = e(a.T).t() if ta else e(a)
    eb = e(b.T).t() if tb else e(b)
    if sliced:  # offsets and leading dims larger than the matrix
        big_a = e(arr(m + 3, k + 4))
        big_a[1:m + 1, 2:k + 2] = ea
        ea = big_a[1:m + 1, 2:k + 2]
        big_b = e(arr(k + 2, n + 5))
        big_b[2:k + 2, 3:n + 3] = eb
        eb = big_b[2:k + 2, 3:n + 3]
        assert not ea.is_contiguous() and not eb.is_contiguous()
    assert rel_err(ember.mm(ea, eb).numpy(), a @ b) < 1e-12


def test_mm_on_strided_operands_no_unit_stride():
    full_a, full_b = arr(8, 10), arr(10, 12)
    r = ember.mm(e(full_a)[::2, ::2], e(full_b)[::2, ::3])
    assert rel_err(r.numpy(), full_a[::2, ::2] @ full_b[::2, ::3]) < 1e-12


def test_batched_broadcast_and_permuted_batches():
    a = arr(3, 4, 2, 5)
    b = arr(4, 5, 6)
    ea = e(a)
    eb = e(b)
    assert rel_err((ea @ eb).numpy(), a @ b) < 1e-12
    # permuted batch dims (non-mergeable strides)
    ap = e(np.ascontiguousarray(a.transpose(1, 0, 2, 3))).permute(1, 0, 2, 3)
    assert rel_err((ap @ eb).numpy(), a @ b) < 1e-12
    # expanded (stride 0) batch operand
    ex = e(arr(1, 2, 5)).expand(4, 2, 5)
    assert rel_err((ex @ eb).numpy(), ex.numpy() @ b) < 1e-12


@pytest.mark.parametrize("dtype, tol", [(ember.float32, 1e-5), (ember.float64, 1e-12),
                                        (ember.float16, 2e-3), (ember.bfloat16, 1e-2)])
def test_float_dtypes(dtype, tol):
    a, b = arr(6, 40), arr(40, 5)
    ea, eb = e(a, dtype), e(b, dtype)
    r = ea @ eb
    assert r.dtype == dtype
    # reference from the rounded inputs, in float64
    ref = npy(ea).astype(np.float64) @ npy(eb).astype(np.float64)
    assert rel_err(npy(r), ref) < tol


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8"])
def test_integer_matmul_on_cpu(dtype):
    a = RNG.integers(0, 5, (3, 4, 5)).astype(dtype)
    b = RNG.integers(0, 5, (5, 2)).astype(dtype)
    r = e(a) @ e(b)
    assert r.dtype == getattr(ember, dtype)
    np.testing.assert_array_equal(r.numpy(), a @ b)
    np.testing.assert_array_equal(ember.dot(e(a[0, 0]), e(a[0, 1])).numpy(), a[0, 0] @ a[0, 1])


# ---- the other products -------------------------------------------------------------

def test_mv_dot_vdot_outer():
    m, v, w = arr(4, 3), arr(3), arr(3)
    assert rel_err(ember.mv(e(m), e(v)).numpy(), m @ v) < 1e-12
    assert rel_err(e(m).mv(e(v)).numpy(), m @ v) < 1e-12
    d = ember.dot(e(v), e(w))
    assert d.shape == () and rel_err(d.numpy(), v @ w) < 1e-12
    assert rel_err(ember.vdot(e(v), e(w)).numpy(), v @ w) < 1e-12
    assert rel_err(e(v).dot(e(w)).numpy(), v @ w) < 1e-12
    o = ember.outer(e(v), e(arr(5)))
    assert o.shape == (3, 5)
    x = arr(5)
    assert rel_err(ember.outer(e(v), e(x)).numpy(), np.outer(v, x)) < 1e-15
    assert rel_err(e(v).ger(e(x)).numpy(), np.outer(v, x)) < 1e-15


def test_outer_promotes_like_torch_and_handles_bool():
    r = ember.outer(ember.arange(3), ember.tensor([0.5, 1.5]))
    assert r.dtype == ember.float32
    np.testing.assert_allclose(r.numpy(), np.outer(np.arange(3), [0.5, 1.5]))
    b = ember.outer(ember.tensor([True, False]), ember.tensor([True, True]))
    assert b.dtype == ember.bool
    np.testing.assert_array_equal(b.numpy(), [[True, True], [False, False]])


def test_dot_of_strided_vectors():
    x, y = arr(10), arr(5)
    r = ember.dot(e(x)[::2], e(y))
    assert rel_err(r.numpy(), x[::2] @ y) < 1e-12


@pytest.mark.parametrize("self_shape", [(4, 5), (5,), (1, 5), (4, 1), ()])
def test_addmm(self_shape):
    s, a, b = arr(*self_shape), arr(4, 3), arr(3, 5)
    r = ember.addmm(e(s), e(a), e(b), beta=0.5, alpha=2.0)
    assert rel_err(r.numpy(), 0.5 * s + 2.0 * (a @ b)) < 1e-12
    r = e(s).addmm(e(a), e(b))
    assert rel_err(r.numpy(), s + a @ b) < 1e-12


def test_addmm_beta_zero_ignores_nan_and_inplace_forms():
    s = np.full((2, 2), np.nan)
    a, b = arr(2, 3), arr(3, 2)
    r = ember.addmm(e(s), e(a), e(b), beta=0)
    assert rel_err(r.numpy(), a @ b) < 1e-12
    c = arr(2, 2)
    ec = e(c)
    out = ec.addmm_(e(a), e(b), beta=3, alpha=-1)
    assert out is ec
    assert rel_err(ec.numpy(), 3 * c - a @ b) < 1e-12
    # self aliasing an operand
    x = arr(3, 3)
    ex = e(x)
    ex.addmm_(ex, e(np.eye(3)))
    assert rel_err(ex.numpy(), 2 * x) < 1e-12


def test_addmv_and_baddbmm():
    s, m, v = arr(4), arr(4, 3), arr(3)
    assert rel_err(ember.addmv(e(s), e(m), e(v), beta=2, alpha=3).numpy(),
                   2 * s + 3 * (m @ v)) < 1e-12
    assert rel_err(e(s).addmv(e(m), e(v)).numpy(), s + m @ v) < 1e-12
    assert rel_err(ember.addmv(e(np.ones(1)), e(m), e(v)).numpy(), 1 + m @ v) < 1e-12
    s3, a3, b3 = arr(2, 1, 5), arr(2, 4, 3), arr(2, 3, 5)
    r = ember.baddbmm(e(s3), e(a3), e(b3), beta=0.25, alpha=4)
    assert rel_err(r.numpy(), 0.25 * s3 + 4 * (a3 @ b3)) < 1e-12
    c3 = arr(2, 4, 5)
    ec3 = e(c3)
    assert ec3.baddbmm_(e(a3), e(b3), beta=0) is ec3
    assert rel_err(ec3.numpy(), a3 @ b3) < 1e-12
    assert rel_err(e(c3).baddbmm(e(a3), e(b3)).numpy(), c3 + a3 @ b3) < 1e-12


def test_bmm():
    a, b = arr(3, 4, 2), arr(3, 2, 5)
    assert rel_err(ember.bmm(e(a), e(b)).numpy(), a @ b) < 1e-12
    assert rel_err(e(a).bmm(e(b)).numpy(), a @ b) < 1e-12
    # transposed batches
    bt = e(np.ascontiguousarray(b.transpose(0, 2, 1))).transpose(1, 2)
    assert rel_err(ember.bmm(e(a), bt).numpy(), a @ b) < 1e-12
    # empty batch and empty inner dim
    assert ember.bmm(e(arr(0, 4, 2)), e(arr(0, 2, 5))).shape == (0, 4, 5)
    z = ember.bmm(e(arr(3, 4, 0)), e(arr(3, 0, 5)))
    np.testing.assert_array_equal(z.numpy(), np.zeros((3, 4, 5)))


def test_out_forms():
    a, b = arr(4, 3), arr(3, 5)
    out = ember.empty(4, 5, dtype=ember.float64)
    assert ember.mm(e(a), e(b), out=out) is out
    assert rel_err(out.numpy(), a @ b) < 1e-12
    out_t = ember.empty(5, 4, dtype=ember.float64).t()  # column-major out
    assert ember.matmul(e(a), e(b), out=out_t) is out_t
    assert rel_err(out_t.numpy(), a @ b) < 1e-12
    big = ember.zeros(8, 10, dtype=ember.float64)
    strided = big[::2, ::2]
    ember.matmul(e(a), e(b), out=strided)
    assert rel_err(strided.numpy(), a @ b) < 1e-12
    assert np.all(big.numpy()[1::2] == 0)
    o3 = ember.empty(2, 4, 5, dtype=ember.float64)
    a3, b3 = arr(2, 4, 3), arr(2, 3, 5)
    assert ember.bmm(e(a3), e(b3), out=o3) is o3
    assert rel_err(o3.numpy(), a3 @ b3) < 1e-12
    ov = ember.empty(4, dtype=ember.float64)
    ember.matmul(e(a), e(arr(3)), out=ov)
    s = arr(5)
    o = ember.empty(4, 5, dtype=ember.float64)
    ember.addmm(e(s), e(a), e(b), out=o, beta=2)
    assert rel_err(o.numpy(), 2 * s + a @ b) < 1e-12


# ---- einsum ---------------------------------------------------------------------------

EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("i,i->", [(7,), (7,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("ij->j", [(3, 4)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ij,ij->i", [(3, 4), (3, 4)]),
    ("ij,kj->ik", [(3, 4), (5, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,jk", [(6, 2, 3, 4), (4, 5)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("ijk,jil->kl", [(2, 3, 4), (3, 2, 5)]),
    ("abc,c->ab", [(2, 3, 4), (4,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("Ab,bC->AC", [(2, 3), (3, 4)]),
]


@pytest.mark.parametrize("eq, shapes", EINSUM_CASES)
def test_einsum_matches_numpy(eq, shapes):
    ops = [arr(*s) for s in shapes]
    ref = np.einsum(eq, *ops)
    r = ember.einsum(eq, *[e(o) for o in ops])
    assert tuple(r.shape) == np.shape(ref)
    assert rel_err(r.numpy(), ref) < 1e-12
    r2 = ember.einsum(eq, [e(o) for o in ops])
    assert rel_err(r2.numpy(), ref) < 1e-12


def test_einsum_is_a_view_for_pure_permutation():
    x = e(arr(3, 4))
    assert ember.einsum("ij->ji", x)._is_view_of(x)


def test_einsum_errors():
    a = e(arr(3, 4))
    with pytest.raises(RuntimeError, match="does not match the number of dimensions"):
        ember.einsum("ijk", a)
    with pytest.raises(RuntimeError, match="more operands were provided"):
        ember.einsum("ij", a, a)
    with pytest.raises(RuntimeError, match="fewer operands were provided"):
        ember.einsum("ij,jk", a)
    with pytest.raises(RuntimeError, match="subscript z does not appear"):
        ember.einsum("ij->z", a)
    with pytest.raises(RuntimeError, match="invalid subscript"):
        ember.einsum("i1", a)
    with pytest.raises(RuntimeError, match="subscript i is repeated for operand 0 but the sizes"):
        ember.einsum("ii", a)
    with pytest.raises(RuntimeError, match="do not broadcast"):
        ember.einsum("ij,ij->i", a, e(arr(3, 5)))
    assert ember.einsum("ij", a).shape == (3, 4)


# ---- nn.functional.linear -------------------------------------------------------------

@pytest.mark.parametrize("xshape", [(5,), (4, 5), (2, 3, 5), (0, 5)])
@pytest.mark.parametrize("bias", [False, True])
def test_linear(xshape, bias):
    x, w, b = arr(*xshape), arr(6, 5), arr(6)
    r = ember.nn.functional.linear(e(x), e(w), e(b) if bias else None)
    ref = x @ w.T + (b if bias else 0)
    assert tuple(r.shape) == ref.shape
    assert rel_err(r.numpy(), ref) < 1e-12


def test_linear_noncontiguous_input_and_1d_weight():
    x = arr(3, 4, 5)
    ex = e(np.ascontiguousarray(x.transpose(1, 0, 2))).transpose(0, 1)
    w = arr(6, 5)
    assert rel_err(ember.nn.functional.linear(ex, e(w)).numpy(), x @ w.T) < 1e-12
    v = arr(5)
    r = ember.nn.functional.linear(e(x), e(v), e(np.array(2.0)))
    assert rel_err(r.numpy(), x @ v + 2.0) < 1e-12
    with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied"):
        ember.nn.functional.linear(e(arr(2, 4)), e(w))


# ---- errors ---------------------------------------------------------------------------

def test_shape_errors_name_both_shapes():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        ember.mm(e(arr(2, 3)), e(arr(4, 5)))
    with pytest.raises(RuntimeError, match=r"\(2x3 and 4x5\)"):
        e(arr(2, 3)) @ e(arr(4, 5))
    with pytest.raises(RuntimeError, match=r"\(1x3 and 4x5\)"):
        e(arr(3)) @ e(arr(4, 5))
    with pytest.raises(RuntimeError, match=r"\[2, 3, 4\] and \[2, 5, 6\]"):
        e(arr(2, 3, 4)) @ e(arr(2, 5, 6))
    with pytest.raises(RuntimeError, match=r"\(6x4 and 5x6\)"):
        e(arr(2, 3, 4)) @ e(arr(5, 6))
    with pytest.raises(RuntimeError, match=r"size mismatch, got input \(2\), mat \(2x3\), vec \(4\)"):
        ember.mv(e(arr(2, 3)), e(arr(4)))
    with pytest.raises(RuntimeError, match="inconsistent tensor size"):
        ember.dot(e(arr(3)), e(arr(4)))
    with pytest.raises(RuntimeError, match="1D tensors expected"):
        ember.dot(e(arr(3, 1)), e(arr(3)))
    with pytest.raises(RuntimeError, match="batch1 and batch2 must have same number of batches"):
        ember.bmm(e(arr(2, 3, 4)), e(arr(3, 4, 5)))
    with pytest.raises(RuntimeError, match=r"\[2, 3, 4\] and \[2, 5, 6\]"):
        ember.bmm(e(arr(2, 3, 4)), e(arr(2, 5, 6)))
    with pytest.raises(RuntimeError, match="batch1 must be a 3D tensor"):
        ember.bmm(e(arr(3, 4)), e(arr(2, 4, 5)))
    with pytest.raises(RuntimeError, match="self must be a matrix"):
        ember.mm(e(arr(2, 3, 4)), e(arr(4, 5)))
    with pytest.raises(RuntimeError, match="The size of tensor a"):
        e(arr(2, 3, 4)) @ e(arr(3, 4, 5))
    with pytest.raises(RuntimeError, match="at least 1D"):
        ember.matmul(ember.tensor(1.0, dtype=ember.float64), e(arr(3)))
    with pytest.raises(RuntimeError, match="expanded size"):
        ember.addmm(e(arr(3)), e(arr(2, 4)), e(arr(4, 5)))


def test_dtype_errors_like_torch():
    with pytest.raises(RuntimeError,
                       match="expected m1 and m2 to have the same dtype, but got: float != double"):
        ember.mm(e(arr(2, 3), ember.float32), e(arr(3, 2)))
    with pytest.raises(RuntimeError, match="float != long int"):
        e(arr(2, 3), ember.float32) @ ember.ones(3, 2, dtype=ember.int64)
    with pytest.raises(RuntimeError, match="expected batch1 and batch2 to have the same dtype"):
        ember.bmm(e(arr(1, 2, 3), ember.float32), e(arr(1, 3, 2)))
    with pytest.raises(RuntimeError, match="dot : expected both vectors to have same dtype, "
                                           "but found Float and Double"):
        ember.dot(e(arr(3), ember.float32), e(arr(3)))
    with pytest.raises(RuntimeError, match="\"addmm_impl_cpu_\" not implemented for 'Bool'"):
        ember.ones(2, 2, dtype=ember.bool) @ ember.ones(2, 2, dtype=ember.bool)
    with pytest.raises(RuntimeError, match="must not be a floating point number"):
        ember.addmm(ember.ones(2, 2, dtype=ember.int64), ember.ones(2, 2, dtype=ember.int64),
                    ember.ones(2, 2, dtype=ember.int64), alpha=0.5)
    with pytest.raises(RuntimeError, match="self and mat2 must have the same dtype"):
        ember.addmm(e(arr(2, 2), ember.float32), e(arr(2, 2)), e(arr(2, 2)))


def test_type_and_out_errors():
    with pytest.raises(TypeError):
        e(arr(2, 2)) @ 2
    with pytest.raises(TypeError):
        ember.matmul(e(arr(2, 2)), [[1.0, 2.0]])
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        ember.matmul(e(arr(2, 2)), e(arr(2, 2)), foo=1)
    with pytest.raises(TypeError, match="missing required argument 'mat2'"):
        ember.mm(e(arr(2, 2)))
    with pytest.raises(RuntimeError, match=r"expected out= to have shape \[2, 2\]"):
        ember.mm(e(arr(2, 2)), e(arr(2, 2)), out=ember.empty(3, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="dtype float64"):
        ember.mm(e(arr(2, 2)), e(arr(2, 2)), out=ember.empty(2, 2))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ember.mm(e(arr(2, 2)), e(arr(2, 2)), out=ember.empty(2, 1, dtype=ember.float64).expand(2, 2))
    # still usable afterwards
    assert rel_err((e(np.eye(2)) @ e(np.eye(2))).numpy(), np.eye(2)) == 0


def test_keyword_forms():
    a, b = arr(2, 3), arr(3, 4)
    assert rel_err(ember.matmul(input=e(a), other=e(b)).numpy(), a @ b) < 1e-12
    assert rel_err(ember.mm(e(a), mat2=e(b)).numpy(), a @ b) < 1e-12
    s, v = arr(4), arr(3)
    assert rel_err(ember.addmm(input=e(s), mat1=e(a), mat2=e(b)).numpy(), s + a @ b) < 1e-12
    assert rel_err(ember.mv(input=e(a), vec=e(v)).numpy(), a @ v) < 1e-12


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
        print((a @ ember.ones(4, 2)).tolist())
        assert 'libcublas' not in maps(), 'a CPU product loaded cuBLAS'
        assert 'numpy' in sys.modules
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
