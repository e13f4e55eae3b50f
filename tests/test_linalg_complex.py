"""ember.linalg on complex64/complex128 (LAPACK's c/z routines): results against NumPy and
reconstructions (L L^H = A, Q R = A, U S V^H = A, V diag(w) V^H = A, P L U = A), batches,
empty inputs, errors, gradcheck in complex128 (torch's formulas with adjoints), mH/adjoint,
and on the GPU (complex operands are factored on the host) against torch CUDA."""
import math

import numpy as np
import pytest

import ember
from ember import linalg as LA

COMPLEX = [ember.complex64, ember.complex128]
REAL_OF = {ember.complex64: ember.float32, ember.complex128: ember.float64}
TOL = {ember.complex64: 3e-4, ember.complex128: 1e-10}


def rng():
    return np.random.default_rng()


def crand(*shape):
    r = rng()
    return r.standard_normal(shape) + 1j * r.standard_normal(shape)


def t(a, dtype=ember.complex128):
    return ember.tensor(np.asarray(a)).to(dtype)


def well(*shape, dtype=ember.complex128):
    n = shape[-1]
    return t(crand(*shape) + 2 * n ** 0.5 * np.eye(n), dtype)


def hpd(*shape, dtype=ember.complex128):
    a = crand(*shape)
    return t(a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1]), dtype)


def herm(*shape, dtype=ember.complex128):
    a = crand(*shape)
    return t(a + np.conj(np.swapaxes(a, -1, -2)), dtype)


def H(a):
    return np.conj(np.swapaxes(a, -1, -2))


def close(x, ref, dtype, scale=1.0):
    x = x.detach().numpy() if isinstance(x, ember.Tensor) else np.asarray(x)
    ref = np.asarray(ref)
    assert x.shape == ref.shape, (x.shape, ref.shape)
    if ref.size == 0:
        return
    err = np.abs(x - ref).max() / max(1.0, np.abs(ref).max())
    assert err < TOL[dtype] * scale, err


# ---- mH and adjoint conjugate -------------------------------------------------------------------

def test_mH_H_adjoint_conjugate():
    a = crand(3, 4, 5)
    A = t(a)
    np.testing.assert_array_equal(A.mH.numpy(), H(a))
    np.testing.assert_array_equal(A[0].H.numpy(), H(a[0]))
    np.testing.assert_array_equal(ember.adjoint(A).numpy(), H(a))
    r = ember.tensor(rng().standard_normal((3, 4)))
    np.testing.assert_array_equal(r.mH.numpy(), r.numpy().T)
    assert r.mH.data_ptr() == r.data_ptr()  # real: still a view


# ---- solvers and determinants -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("batch", [(), (3,), (2, 2)])
@pytest.mark.parametrize("n", [1, 4, 17])
def test_solve_inv_det(dtype, batch, n):
    A = well(*batch, n, n, dtype=dtype)
    B = t(crand(*batch, n, 3), dtype)
    a, b = A.numpy().astype(np.complex128), B.numpy().astype(np.complex128)
    X = LA.solve(A, B)
    assert X.dtype == dtype
    close(X, np.linalg.solve(a, b), dtype, 10)
    Xr = LA.solve(A, B.mT, left=False)
    close(Xr, np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), b), -1, -2), dtype, 10)
    close(LA.solve(A, B[..., 0]), np.linalg.solve(a, b[..., :1])[..., 0], dtype, 10)
    Xe, info = LA.solve_ex(A, B)
    assert not info.any()
    close(LA.inv(A), np.linalg.inv(a), dtype, 10)
    close(LA.inv_ex(A).inverse, np.linalg.inv(a), dtype, 10)
    d = LA.det(A)
    assert d.dtype == dtype
    close(d, np.linalg.det(a), dtype, 10 * n)
    sign, la = LA.slogdet(A)
    rs, rl = np.linalg.slogdet(a)
    assert sign.dtype == dtype and la.dtype == REAL_OF[dtype]
    close(sign, rs, dtype, 10)
    close(la, rl, dtype, 10)
    close(ember.logdet(A), np.log(rs) + rl, dtype, 10)
    LU, piv = LA.lu_factor(A)
    close(LA.lu_solve(LU, piv, B), np.linalg.solve(a, b), dtype, 10)
    close(LA.lu_solve(LU, piv, B, adjoint=True), np.linalg.solve(H(a), b), dtype, 10)
    close(LA.lu_solve(LU, piv, B.mT, left=False),
          np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), b), -1, -2), dtype, 10)


def test_singular_complex():
    A = well(3, 4, 4)
    A[1] = 0
    assert LA.inv_ex(A).info.tolist() == [0, 1, 0]
    with pytest.raises(LA.LinAlgError, match=r"\(Batch element 1\)"):
        LA.inv(A)
    assert LA.det(A)[1].item() == 0
    with pytest.raises(RuntimeError, match="same dtype"):
        LA.solve(well(3, 3, dtype=ember.complex64), t(crand(3)))
    with pytest.raises(RuntimeError, match="Low precision|floating point or complex"):
        LA.inv(ember.ones(2, 2, dtype=ember.int32))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_lu_and_triangular(dtype):
    a = crand(2, 5, 4)
    A = t(a, dtype)
    P, L, U = LA.lu(A)
    close(P @ L @ U, a, dtype, 10)
    T = t(np.triu(crand(3, 4, 4)) + 4 * np.eye(4), dtype)
    B = t(crand(3, 4, 2), dtype)
    tn, bn = T.numpy().astype(np.complex128), B.numpy().astype(np.complex128)
    close(LA.solve_triangular(T, B, upper=True), np.linalg.solve(tn, bn), dtype, 10)
    close(LA.solve_triangular(T.mH, B, upper=False), np.linalg.solve(H(tn), bn), dtype, 10)
    X = LA.solve_triangular(T, B.mT, upper=True, left=False)
    close(X @ T, B.mT.numpy(), dtype, 10)
    tu = np.triu(tn, 1) + np.eye(4)
    close(LA.solve_triangular(T, B, upper=True, unitriangular=True), np.linalg.solve(tu, bn),
          dtype, 10)


# ---- Cholesky, QR, Householder -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("shape", [(1, 1), (6, 6), (3, 8, 8)])
def test_cholesky(dtype, shape):
    A = hpd(*shape, dtype=dtype)
    a = A.numpy()
    L = LA.cholesky(A)
    close(L, np.linalg.cholesky(a), dtype, 10)
    close(L @ L.mH, a, dtype, 10)
    U = LA.cholesky(A, upper=True)
    close(U.mH @ U, a, dtype, 10)
    close(U, H(np.linalg.cholesky(a)), dtype, 10)
    B = t(crand(*shape[:-1], 2), dtype)
    close(ember.cholesky_solve(B, L), np.linalg.solve(a, B.numpy()), dtype, 100)
    close(ember.cholesky_inverse(L), np.linalg.inv(a), dtype, 100)


def test_cholesky_not_pd_complex():
    A = hpd(3, 5, 5)
    A[2] = -A[2]
    L, info = LA.cholesky_ex(A)
    assert info.tolist()[:2] == [0, 0] and info.tolist()[2] > 0
    with pytest.raises(LA.LinAlgError, match=r"\(Batch element 2\).*positive-definite"):
        LA.cholesky(A)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 6, 4), (0, 3), (3, 0)])
def test_qr(dtype, shape):
    a = crand(*shape)
    A = t(a, dtype)
    m, n = shape[-2], shape[-1]
    k = min(m, n)
    Q, R = LA.qr(A)
    assert tuple(Q.shape) == shape[:-2] + (m, k) and tuple(R.shape) == shape[:-2] + (k, n)
    close(Q @ R, a, dtype, 10)
    close(Q.mH @ Q, np.broadcast_to(np.eye(k), shape[:-2] + (k, k)), dtype, 10)
    np.testing.assert_array_equal(np.tril(R.numpy(), -1), 0)
    Qc, Rc = LA.qr(A, mode="complete")
    close(Qc @ Rc, a, dtype, 10)
    close(Qc.mH @ Qc, np.broadcast_to(np.eye(m), shape[:-2] + (m, m)), dtype, 10)
    close(LA.qr(A, mode="r").R, R.numpy(), dtype)
    # R agrees with NumPy's up to a unit-modulus factor per row
    if k:
        rn = np.linalg.qr(a.astype(np.complex128), mode="r")
        close(np.abs(R.numpy()), np.abs(rn), dtype, 10)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_geqrf_householder_ormqr(dtype):
    a = crand(2, 6, 4)
    A = t(a, dtype)
    QR, tau = ember.geqrf(A)
    Q = LA.householder_product(QR, tau)
    Qr, R = LA.qr(A)
    close(Q, Qr.numpy(), dtype, 10)
    C = t(crand(2, 6, 3), dtype)
    c = C.numpy()
    q_full = LA.householder_product(
        ember.cat([QR, ember.zeros(2, 6, 2, dtype=dtype)], -1), tau).numpy()
    close(ember.ormqr(QR, tau, C), q_full @ c, dtype, 10)
    close(ember.ormqr(QR, tau, C, transpose=True), H(q_full) @ c, dtype, 10)
    close(ember.ormqr(QR, tau, C.mT, left=False), np.swapaxes(c, -1, -2) @ q_full, dtype, 10)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("hermitian", [False, True])
def test_ldl(dtype, hermitian):
    a = crand(3, 5, 5)
    a = a + (H(a) if hermitian else np.swapaxes(a, -1, -2))   # Hermitian or complex symmetric
    A = t(a, dtype)
    b = crand(3, 5, 2)
    LD, piv = LA.ldl_factor(A, hermitian=hermitian)
    assert LD.dtype == dtype and piv.dtype == ember.int32
    np.testing.assert_array_equal(np.triu(LD.numpy(), 1), 0)
    X = LA.ldl_solve(LD, piv, t(b, dtype), hermitian=hermitian)
    close(X, np.linalg.solve(a, b), dtype, 1e3)
    LDe, pive, info = LA.ldl_factor_ex(A, hermitian=hermitian)
    assert not info.any()
    np.testing.assert_array_equal(LDe.numpy(), LD.numpy())
    if hermitian:
        # the Hermitian factorization is not the symmetric one on a non-real matrix
        LDs, _ = LA.ldl_factor(A, hermitian=False)
        assert np.abs(LDs.numpy() - LD.numpy()).max() > 1e-3


# ---- eigh, SVD and what they make ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("shape", [(1, 1), (7, 7), (3, 5, 5), (0, 0), (2, 0, 0)])
def test_eigh(dtype, shape):
    A = herm(*shape, dtype=dtype)
    a = A.numpy()
    for uplo in ("L", "U"):
        w, V = LA.eigh(A, UPLO=uplo)
        assert w.dtype == REAL_OF[dtype] and V.dtype == dtype
        close(w, np.linalg.eigvalsh(a, UPLO=uplo), dtype, 10)
        close((V * w.unsqueeze(-2).to(dtype)) @ V.mH, a, dtype, 10)
        close(LA.eigvalsh(A, UPLO=uplo), np.linalg.eigvalsh(a, UPLO=uplo), dtype, 10)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 6, 4), (0, 3), (2, 0, 0)])
def test_svd(dtype, shape):
    a = crand(*shape)
    A = t(a, dtype)
    U, S, Vh = LA.svd(A, full_matrices=False)
    assert S.dtype == REAL_OF[dtype] and U.dtype == dtype
    close(S, np.linalg.svd(a, compute_uv=False) if a.size else np.zeros(shape[:-2] + (0,)),
          dtype, 10)
    close((U * S.unsqueeze(-2).to(dtype)) @ Vh, a, dtype, 10)
    Uf, Sf, Vhf = LA.svd(A)
    m, n = shape[-2], shape[-1]
    assert tuple(Uf.shape[-2:]) == (m, m) and tuple(Vhf.shape[-2:]) == (n, n)
    close(Uf.mH @ Uf, np.broadcast_to(np.eye(m), shape[:-2] + (m, m)), dtype, 10)
    close(LA.svdvals(A), S.numpy(), dtype, 10)
    Uo, So, V = ember.svd(A)
    close((Uo * So.unsqueeze(-2).to(dtype)) @ V.mH, a, dtype, 10)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_pinv_rank_norms_cond_exp(dtype):
    a = crand(3, 6, 4)
    A = t(a, dtype)
    close(LA.pinv(A), np.linalg.pinv(a), dtype, 100)
    hm = herm(5, 5, dtype=dtype)
    close(LA.pinv(hm, hermitian=True), np.linalg.pinv(hm.numpy()), dtype, 1000)
    low = t(crand(6, 2) @ crand(2, 5), dtype)
    assert LA.matrix_rank(low).item() == 2
    assert LA.matrix_rank(A).tolist() == [4, 4, 4]
    for ord in ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf):
        r = LA.matrix_norm(A, ord)
        assert r.dtype == REAL_OF[dtype]
        close(r, np.linalg.norm(a, ord, axis=(-2, -1)), dtype, 10)
    close(LA.norm(A[0]), np.linalg.norm(a[0]), dtype, 10)
    close(LA.vector_norm(A, 3), (np.abs(a) ** 3).sum() ** (1 / 3), dtype, 10)
    sq = well(2, 4, 4, dtype=dtype)
    close(LA.cond(sq), np.linalg.cond(sq.numpy()), dtype, 100)
    close(LA.cond(sq, 1), np.linalg.cond(sq.numpy(), 1), dtype, 100)
    # exp(A) = V exp(D) V^-1
    m = crand(2, 5, 5) * 0.7
    w, v = np.linalg.eig(m)
    ref = (v * np.exp(w)[..., None, :]) @ np.linalg.inv(v)
    close(LA.matrix_exp(t(m, dtype)), ref, dtype, 100)


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
def test_lstsq(driver):
    a, b = crand(2, 7, 4), crand(2, 7, 3)
    r = LA.lstsq(t(a), t(b), driver=driver)
    ref = np.stack([np.linalg.lstsq(a[i], b[i], rcond=None)[0] for i in range(2)])
    close(r.solution, ref, ember.complex128, 10)
    if driver in ("gelsd", "gelss"):
        close(r.singular_values, np.linalg.svd(a, compute_uv=False), ember.complex128, 10)
        res = (np.abs(a @ ref - b) ** 2).sum(-2)
        close(r.residuals, res, ember.complex128, 10)
    if driver != "gels":
        assert r.rank.tolist() == [4, 4]
    # rank-deficient: the minimum-norm solution (gelsy/gelsd/gelss)
    low = crand(6, 2) @ crand(2, 4)
    rhs = crand(6, 2)
    if driver not in (None, "gels"):
        r = LA.lstsq(t(low), t(rhs), driver=driver)
        close(r.solution, np.linalg.pinv(low) @ rhs, ember.complex128, 1e4)
        assert r.rank.item() == 2


# ---- autograd (complex128) -------------------------------------------------------------------------

def leaf(x):
    return x.detach().requires_grad_(True)


def gc(fn, *inputs):
    assert ember.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)


def test_grad_solve_inv_det():
    A, B = leaf(well(2, 4, 4)), leaf(t(crand(2, 4, 3)))
    gc(lambda a, b: LA.solve(a, b), A, B)
    gc(lambda a, b: LA.solve(a, b, left=False), A, leaf(t(crand(2, 3, 4))))
    gc(LA.inv, A)
    gc(LA.det, A)
    gc(lambda a: LA.slogdet(a).logabsdet, A)
    gc(ember.logdet, A)
    T = leaf(t(np.triu(crand(4, 4)) + 4 * np.eye(4)))
    gc(lambda a, b: LA.solve_triangular(a, b, upper=True), T, B[0].detach().requires_grad_())


def test_grad_cholesky():
    X = leaf(t(crand(3, 3)))

    def fn(x):
        a = x @ x.mH + 3 * ember.eye(3, dtype=ember.complex128)
        return LA.cholesky(a), LA.cholesky(a, upper=True)
    gc(fn, X)


@pytest.mark.parametrize("shape", [(5, 3), (4, 4), (3, 5)])
def test_grad_qr(shape):
    gc(lambda a: LA.qr(a), leaf(t(crand(*shape))))


def test_grad_eigh():
    X = leaf(t(crand(4, 4)))

    def fn(x):
        w, V = LA.eigh(x + x.mH)
        # gauge-invariant: the eigenvalues, |V| and V diag(w) V^H
        return w, V.abs(), (V * w.unsqueeze(-2).to(V.dtype)) @ V.mH
    gc(fn, X)
    gc(lambda x: LA.eigvalsh(x + x.mH), X)


@pytest.mark.parametrize("shape", [(5, 3), (4, 4), (3, 5)])
def test_grad_svd(shape):
    X = leaf(t(crand(*shape)))

    def fn(x):
        U, S, Vh = LA.svd(x, full_matrices=False)
        # gauge-invariant: S, U Vh (phases cancel), |U|, |Vh|
        return S, U @ Vh, U.abs(), Vh.abs()
    gc(fn, X)
    gc(LA.svdvals, X)
    gc(LA.pinv, X)


# ---- GPU: complex operands factored on the host, against torch CUDA --------------------------------

gpu = pytest.mark.gpu


@gpu
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("batch", [(), (4,)])
def test_gpu_complex_against_torch(dtype, batch):
    torch = pytest.importorskip("torch")
    tol = 1e-3 if dtype == "complex64" else 1e-9
    n = 6

    def pair(a):
        a = a.astype(dtype)
        return ember.tensor(a).cuda(), torch.from_numpy(a).cuda()

    def cmp(x, y):
        assert x.device.type == "cuda"
        xn, yn = x.detach().cpu().numpy(), y.detach().cpu().numpy()
        assert xn.shape == yn.shape and str(x.dtype).split(".")[-1] == str(y.dtype).split(".")[-1]
        assert np.abs(xn - yn).max() / max(1.0, np.abs(yn).max()) < tol

    a = crand(*batch, n, n) + 2 * n ** 0.5 * np.eye(n)
    A, tA = pair(a)
    B, tB = pair(crand(*batch, n, 2))
    cmp(LA.solve(A, B), torch.linalg.solve(tA, tB))
    cmp(LA.inv(A), torch.linalg.inv(tA))
    cmp(LA.det(A), torch.linalg.det(tA))
    cmp(LA.slogdet(A).logabsdet, torch.linalg.slogdet(tA).logabsdet)
    hp = a @ H(a) + n * np.eye(n)
    P, tP = pair(hp)
    cmp(LA.cholesky(P), torch.linalg.cholesky(tP))
    cmp(LA.eigvalsh(P), torch.linalg.eigvalsh(tP))
    w, V = LA.eigh(P)
    cmp((V * w.unsqueeze(-2).to(V.dtype)) @ V.mH, tP)
    cmp(LA.svdvals(A), torch.linalg.svdvals(tA))
    U, S, Vh = LA.svd(A)
    cmp((U * S.unsqueeze(-2).to(U.dtype)) @ Vh, tA)
    Q, R = LA.qr(A)
    tQ, tR = torch.linalg.qr(tA)
    cmp(Q @ R, tA)
    cmp(R.abs(), tR.abs())
    _, info = LA.inv_ex(A)
    assert info.device.type == "cuda"
    X = leaf(A)
    LA.det(X).abs().sum().backward()
    tX = tA.detach().requires_grad_(True)
    torch.linalg.det(tX).abs().sum().backward()
    cmp(X.grad, tX.grad)


# ---- edges: empty, non-contiguous, mixed dtypes ------------------------------------------------------

@pytest.mark.parametrize("dtype", COMPLEX)
def test_empty_complex(dtype):
    for shape in [(0, 0), (3, 0, 0), (0, 4, 4)]:
        A = ember.zeros(shape, dtype=dtype)
        assert tuple(LA.inv(A).shape) == shape and LA.inv(A).dtype == dtype
        assert tuple(LA.solve(A, A).shape) == shape
        d = LA.det(A)
        assert d.dtype == dtype and tuple(d.shape) == shape[:-2]
        if shape[-1] == 0:
            np.testing.assert_array_equal(d.numpy(), np.ones(shape[:-2]))
            np.testing.assert_array_equal(LA.slogdet(A).logabsdet.numpy(), np.zeros(shape[:-2]))
        assert tuple(LA.cholesky(A).shape) == shape
        w, V = LA.eigh(A)
        assert w.dtype == REAL_OF[dtype] and tuple(V.shape) == shape
        Q, R = LA.qr(A)
        assert Q.dtype == dtype and tuple(R.shape) == shape
        assert LA.svdvals(A).dtype == REAL_OF[dtype]


def test_non_contiguous_complex():
    base = crand(8, 12)
    A = t(base)[:, ::3][:4]                      # strided, not contiguous
    a = base[:, ::3][:4]
    assert not A.is_contiguous()
    close(LA.inv(A), np.linalg.inv(a), ember.complex128, 1e3)
    close(LA.det(A.mT), np.linalg.det(a.T), ember.complex128, 1e3)
    B = t(crand(4, 6))[:, ::2]
    close(LA.solve(A, B), np.linalg.solve(a, B.numpy()), ember.complex128, 1e3)
    close(LA.svdvals(A.mT), np.linalg.svd(a.T, compute_uv=False), ember.complex128, 10)
    Ab = t(crand(4, 4)).expand(3, 4, 4)
    close(LA.inv(Ab), np.linalg.inv(Ab.numpy()), ember.complex128, 1e3)


def test_mixed_and_bad_dtypes_raise():
    A = well(3, 3)
    with pytest.raises(RuntimeError, match="Expected A and B to have the same dtype, but found "
                       "A of type ComplexDouble and B of type Double"):
        LA.solve(A, ember.ones(3, 2, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="Expected A and B to have the same dtype"):
        LA.solve_triangular(A.to(ember.complex64), A, upper=True)
    # the process keeps working
    close(LA.inv(A) @ A, np.eye(3), ember.complex128, 100)


def test_grad_matrix_exp_lstsq_cond():
    X = leaf(t(crand(3, 3) * 0.5))
    gc(LA.matrix_exp, X)
    gc(lambda a: LA.matrix_norm(a, "nuc"), X)
    gc(lambda a: LA.cond(a), X)
    gc(lambda a, b: LA.lstsq(a, b).solution, leaf(t(crand(5, 3))), leaf(t(crand(5, 2))))
