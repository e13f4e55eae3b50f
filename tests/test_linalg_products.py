"""Matrix products on the CPU (OpenBLAS's gemm, called from C++) against float64 NumPy references:
every op, torch's matmul shape rules (1-D operands, batch broadcasting), transposed and
sliced operands, empty and 1-sized dims, dtypes, out=, einsum, nn.functional.linear, and
the errors."""
import numpy as np
import pytest

import ember
from linalg_util import RNG, arr, e, npy, rel_err


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


def test_degenerate_bool_products_and_full_contractions():
    """torch's degenerate products (an empty result, k == 0) take bool too; a single-
    element tensordot/inner is its full contraction: dot of contiguous operands, else the
    products summed in the dtype (int8 wraps the same either way; bool dot raises)."""
    b = ember.bool
    assert ember.mm(ember.zeros(2, 0, dtype=b), ember.zeros(0, 3, dtype=b)).tolist() == \
        [[False] * 3] * 2
    assert ember.mm(ember.zeros(2, 3, dtype=b), ember.zeros(3, 0, dtype=b)).shape == (2, 0)
    assert ember.bmm(ember.zeros(1, 0, 3, dtype=b), ember.zeros(1, 3, 2, dtype=b)).shape == \
        (1, 0, 2)
    assert ember.inner(ember.tensor([[True, False]]), ember.zeros(0, 2, dtype=b)).shape == (1, 0)
    i8 = ember.int8
    assert ember.inner(ember.tensor([1, 2], dtype=i8), ember.tensor([100, 100], dtype=i8)).item() == 44
    assert ember.inner(ember.tensor([1], dtype=i8).expand(2),
                       ember.tensor([100, 100], dtype=i8)).item() == -56
    assert ember.inner(ember.tensor([True]).expand(2), ember.tensor([True, True])).item() is True
    with pytest.raises(RuntimeError, match="\"dot\" not implemented for 'Bool'"):
        ember.inner(ember.tensor([True, False]), ember.tensor([True, True]))
    assert ember.tensordot(ember.ones(2, 3), ember.ones(3, 2), dims=([0, 1], [1, 0])).item() == 6


def test_bool_products_with_an_empty_result_or_k_zero_are_false():
    # no kernel runs (torch's CPU): an empty result, or k == 0 (all False)
    B = ember.bool
    assert tuple(ember.mm(ember.zeros((0, 3), dtype=B), ember.zeros((3, 2), dtype=B)).shape) \
        == (0, 2)
    r = ember.matmul(ember.zeros((2, 0), dtype=B), ember.zeros((0, 3), dtype=B))
    assert r.dtype == B and r.tolist() == [[False] * 3] * 2
    assert tuple(ember.inner(ember.zeros((0, 3), dtype=B), ember.zeros((0, 3), dtype=B)).shape) \
        == (0, 0)
    with pytest.raises(RuntimeError, match="not implemented for 'Bool'"):
        ember.mm(ember.zeros((2, 3), dtype=B), ember.zeros((3, 2), dtype=B))
