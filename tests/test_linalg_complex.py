"""ember.linalg on complex64/complex128 (LAPACK's c/z routines): results against NumPy and
reconstructions (L L^H = A, Q R = A, U S V^H = A, V diag(w) V^H = A, P L U = A), batches,
empty inputs, errors, gradcheck in complex128 (torch's formulas with adjoints), mH/adjoint,
and on the GPU (cuSOLVER's c/z routines, cuBLAS's complex trsm and batched LU/QR) against
torch CUDA: values, reconstructions, both the batched and the looped paths, empty inputs,
info of the _ex variants on the device without a host sync, LinAlgError naming the batch
element."""
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
    # residuals are real, and empty when m <= n (as torch's)
    sq = LA.lstsq(t(crand(4, 4)), t(crand(4, 2)), driver=driver)
    assert sq.residuals.dtype == ember.float64 and tuple(sq.residuals.shape) == (0,)


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


# ---- GPU: cuSOLVER's c/z routines, against torch CUDA ------------------------------------------------

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


CDT = ["complex64", "complex128"]
GTOL = {"complex64": 1e-3, "complex128": 1e-9}


def gpair(torch, a, dtype):
    """The same values as an ember and a torch CUDA tensor of dtype (a name)."""
    a = np.ascontiguousarray(np.asarray(a).astype(dtype))
    return ember.tensor(a).cuda(), torch.from_numpy(a).cuda()


def gnp(x):
    """A CUDA tensor (ember or torch) as NumPy (torch's lazy conjugate/negative bits resolved)."""
    assert x.device.type == "cuda"
    x = x.detach().cpu()
    if hasattr(x, "resolve_conj"):
        x = x.resolve_neg().resolve_conj()
    return x.numpy()


def gclose(x, ref, dtype, scale=1.0):
    """x (an ember CUDA tensor) equals ref (a torch CUDA tensor or NumPy) to dtype's tolerance,
    with the same dtype when ref is a torch tensor."""
    xn = gnp(x)
    if not isinstance(ref, np.ndarray):
        assert str(x.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1], (x.dtype, ref.dtype)
        ref = gnp(ref)
    assert xn.shape == ref.shape, (xn.shape, ref.shape)
    if ref.size:
        err = np.abs(xn - ref).max() / max(1.0, np.abs(ref).max())
        assert err < GTOL[dtype] * scale, err


def geye(n, batch=()):
    return np.broadcast_to(np.eye(n), tuple(batch) + (n, n))


# (batch, n): one matrix; a batch of small ones (cuBLAS's batched getrf/getrs); a batch of
# large ones (cuSOLVER's getrf/getrs in a loop).
LU_CASES = [((), 6), ((3,), 6), ((2,), 130)]


@gpu
@pytest.mark.parametrize("dtype", CDT)
@pytest.mark.parametrize("batch,n", LU_CASES)
def test_gpu_complex_solve_inv_lu(torch, dtype, batch, n):
    a = crand(*batch, n, n) + 2 * n ** 0.5 * np.eye(n)
    A, tA = gpair(torch, a, dtype)
    B, tB = gpair(torch, crand(*batch, n, 3), dtype)
    Bt, tBt = gpair(torch, crand(*batch, 3, n), dtype)
    gclose(LA.solve(A, B), torch.linalg.solve(tA, tB), dtype)
    gclose(LA.solve(A, Bt, left=False), torch.linalg.solve(tA, tBt, left=False), dtype)
    X, info = LA.solve_ex(A, B)
    gclose(X, torch.linalg.solve(tA, tB), dtype)
    assert info.device.type == "cuda" and info.dtype == ember.int32
    assert gnp(info).tolist() == np.zeros(batch, dtype=np.int32).tolist()
    gclose(LA.inv(A), torch.linalg.inv(tA), dtype)
    Ai, info = LA.inv_ex(A)
    gclose(Ai, torch.linalg.inv(tA), dtype)
    assert info.device.type == "cuda" and gnp(info).tolist() == np.zeros(batch, np.int32).tolist()
    sign, logabs = LA.slogdet(A)
    tsign, tlogabs = torch.linalg.slogdet(tA)
    gclose(sign, tsign, dtype)
    gclose(logabs, tlogabs, dtype, scale=10)
    gclose(ember.logdet(A), torch.logdet(tA), dtype, scale=10)
    if n <= 8:  # det itself overflows complex64 for large n
        gclose(LA.det(A), torch.linalg.det(tA), dtype)
    LU, piv = LA.lu_factor(A)
    assert piv.device.type == "cuda" and piv.dtype == ember.int32
    gclose(LA.lu_solve(LU, piv, B), torch.linalg.solve(tA, tB), dtype)
    gclose(LA.lu_solve(LU, piv, B, adjoint=True), torch.linalg.solve(tA.mH, tB), dtype)
    gclose(LA.lu_solve(LU, piv, Bt, left=False), torch.linalg.solve(tA, tBt, left=False), dtype)
    LU2, piv2, info = LA.lu_factor_ex(A)
    assert info.device.type == "cuda" and gnp(info).tolist() == np.zeros(batch, np.int32).tolist()
    P, L, U = LA.lu(A)
    gclose(P.to(A.dtype) @ L @ U, a.astype(dtype), dtype, scale=10)
    assert np.abs(np.triu(gnp(L), 1)).max(initial=0) == 0
    assert np.abs(np.tril(gnp(U), -1)).max(initial=0) == 0


# (batch, n): one matrix; potrfBatched (n <= 256); potrf in a loop (n > 256).
CHOL_CASES = [((), 6), ((3,), 6), ((2,), 260)]


@gpu
@pytest.mark.parametrize("dtype", CDT)
@pytest.mark.parametrize("batch,n", CHOL_CASES)
def test_gpu_complex_cholesky(torch, dtype, batch, n):
    a = crand(*batch, n, n)
    hp = a @ H(a) + n * np.eye(n)
    A, tA = gpair(torch, hp, dtype)
    B, tB = gpair(torch, crand(*batch, n, 2), dtype)
    L = LA.cholesky(A)
    gclose(L, torch.linalg.cholesky(tA), dtype, scale=10)
    gclose(L @ L.mH, hp, dtype, scale=10)
    U = LA.cholesky(A, upper=True)
    gclose(U, torch.linalg.cholesky(tA, upper=True), dtype, scale=10)
    L2, info = LA.cholesky_ex(A)
    gclose(L2, L, dtype)
    assert info.device.type == "cuda" and gnp(info).tolist() == np.zeros(batch, np.int32).tolist()
    tL = torch.linalg.cholesky(tA)
    gclose(ember.cholesky_solve(B, L), torch.cholesky_solve(tB, tL), dtype, scale=10)
    gclose(ember.cholesky_solve(B, U, upper=True), torch.cholesky_solve(tB, tL.mH, upper=True),
           dtype, scale=10)
    gclose(ember.cholesky_inverse(L), torch.cholesky_inverse(tL), dtype, scale=10)


# geqrf: one matrix; cuBLAS's geqrfBatched (many small); cuSOLVER's geqrf in a loop (tall).
QR_SHAPES = [(6, 4), (4, 6), (5, 5), (3, 6, 6), (4, 40, 30), (2, 300, 20)]


@gpu
@pytest.mark.parametrize("dtype", CDT)
@pytest.mark.parametrize("shape", QR_SHAPES)
def test_gpu_complex_qr_householder_ormqr(torch, dtype, shape):
    a = crand(*shape)
    A, tA = gpair(torch, a, dtype)
    m, n = shape[-2:]
    k = min(m, n)
    batch = shape[:-2]
    for mode in ("reduced", "complete"):
        Q, R = LA.qr(A, mode=mode)
        tQ, tR = torch.linalg.qr(tA, mode=mode)
        assert Q.shape == tQ.shape and R.shape == tR.shape
        gclose(Q @ R, a.astype(dtype), dtype, scale=10)
        gclose(Q.mH @ Q, geye(Q.shape[-1], batch), dtype, scale=10)
        assert np.abs(np.tril(gnp(R), -1)).max(initial=0) == 0
        gclose(R.abs(), tR.abs(), dtype, scale=10)  # R is unique up to the phases of its rows
    QR, tau = ember.geqrf(A)
    assert tau.device.type == "cuda" and tuple(tau.shape) == batch + (k,)
    if m >= n:
        Qh = LA.householder_product(QR, tau)
        gclose(Qh @ QR.triu()[..., :n, :], a.astype(dtype), dtype, scale=10)
        C, tC = gpair(torch, crand(*batch, m, 3), dtype)
        tQR, ttau = torch.geqrf(tA)
        gclose(ember.ormqr(QR, tau, C), torch.ormqr(tQR, ttau, tC), dtype, scale=10)
        gclose(ember.ormqr(QR, tau, C, transpose=True), torch.ormqr(tQR, ttau, tC, transpose=True),
               dtype, scale=10)
        D, tD = gpair(torch, crand(*batch, 3, m), dtype)
        gclose(ember.ormqr(QR, tau, D, left=False), torch.ormqr(tQR, ttau, tD, left=False),
               dtype, scale=10)


# (batch, n): one matrix (heevd); heevjBatched (n <= 32); heevd in a loop (n > 32).
EIGH_CASES = [((), 6), ((3,), 6), ((2,), 40)]


@gpu
@pytest.mark.parametrize("dtype", CDT)
@pytest.mark.parametrize("batch,n", EIGH_CASES)
def test_gpu_complex_eigh(torch, dtype, batch, n):
    a = crand(*batch, n, n)
    h = a + H(a)
    A, tA = gpair(torch, h, dtype)
    for uplo in ("L", "U"):
        w = LA.eigvalsh(A, UPLO=uplo)
        assert w.dtype == REAL_OF[getattr(ember, dtype)]
        gclose(w, torch.linalg.eigvalsh(tA, UPLO=uplo), dtype, scale=10)
        w, V = LA.eigh(A, UPLO=uplo)
        gclose(w, torch.linalg.eigvalsh(tA, UPLO=uplo), dtype, scale=10)
        gclose((V * w.unsqueeze(-2).to(V.dtype)) @ V.mH, h.astype(dtype), dtype, scale=10)
        gclose(V.mH @ V, geye(n, batch), dtype, scale=10)


# gesvdj: one matrix; gesvdjBatched (m, n <= 32); gesvdj in a loop (larger).
SVD_SHAPES = [(6, 4), (4, 6), (3, 5, 5), (3, 8, 5), (3, 5, 8), (2, 40, 30), (2, 30, 40)]


@gpu
@pytest.mark.parametrize("dtype", CDT)
@pytest.mark.parametrize("shape", SVD_SHAPES)
def test_gpu_complex_svd(torch, dtype, shape):
    a = crand(*shape)
    A, tA = gpair(torch, a, dtype)
    m, n = shape[-2:]
    batch = shape[:-2]
    s = LA.svdvals(A)
    assert s.dtype == REAL_OF[getattr(ember, dtype)]
    gclose(s, torch.linalg.svdvals(tA), dtype, scale=10)
    for full in (False, True):
        U, S, Vh = LA.svd(A, full_matrices=full)
        tU, tS, tVh = torch.linalg.svd(tA, full_matrices=full)
        assert U.shape == tU.shape and S.shape == tS.shape and Vh.shape == tVh.shape
        gclose(S, tS, dtype, scale=10)
        k = min(m, n)
        gclose((U[..., :, :k] * S.unsqueeze(-2).to(U.dtype)) @ Vh[..., :k, :], a.astype(dtype),
               dtype, scale=10)
        gclose(U.mH @ U, geye(U.shape[-1], batch), dtype, scale=10)
        gclose(Vh @ Vh.mH, geye(Vh.shape[-2], batch), dtype, scale=10)


@gpu
@pytest.mark.parametrize("dtype", CDT)
@pytest.mark.parametrize("batch", [(), (3,)])
def test_gpu_complex_triangular_lstsq_pinv_rank_exp(torch, dtype, batch):
    n = 6
    tri = crand(*batch, n, n) + 3 * np.eye(n)
    T, tT = gpair(torch, tri, dtype)
    B, tB = gpair(torch, crand(*batch, n, 2), dtype)
    Bt, tBt = gpair(torch, crand(*batch, 2, n), dtype)
    for upper in (True, False):
        Tu, tTu = (T.triu(), tT.triu()) if upper else (T.tril(), tT.tril())
        for unit in (False, True):
            gclose(LA.solve_triangular(Tu, B, upper=upper, unitriangular=unit),
                   torch.linalg.solve_triangular(tTu, tB, upper=upper, unitriangular=unit),
                   dtype, scale=10)
            gclose(LA.solve_triangular(Tu, Bt, upper=upper, left=False, unitriangular=unit),
                   torch.linalg.solve_triangular(tTu, tBt, upper=upper, left=False,
                                                 unitriangular=unit), dtype, scale=10)
        gclose(LA.solve_triangular(Tu.mH, B, upper=not upper),
               torch.linalg.solve_triangular(tTu.mH, tB, upper=not upper), dtype, scale=10)
    # least squares (gels: QR, the GPU's driver), tall full-rank A
    M, tM = gpair(torch, crand(*batch, 10, 4), dtype)
    C, tC = gpair(torch, crand(*batch, 10, 3), dtype)
    r, tr = LA.lstsq(M, C), torch.linalg.lstsq(tM, tC)
    gclose(r.solution, tr.solution, dtype, scale=10)
    gclose(r.residuals, tr.residuals, dtype, scale=100)
    # pinv, matrix_rank (through the SVD and, hermitian, eigh), matrix_exp (through solve)
    gclose(LA.pinv(M), torch.linalg.pinv(tM), dtype, scale=10)
    # rank 3: singular values (3, 2, 1, 0, 0, 0), far from the tolerance rtol = 1e-3
    Uo = np.linalg.qr(crand(*batch, n, 3))[0]
    Vo = np.linalg.qr(crand(*batch, n, 3))[0]
    sv = np.array([3.0, 2.0, 1.0])
    low = (Uo * sv) @ H(Vo)
    Lr, tLr = gpair(torch, low, dtype)
    rank = gnp(LA.matrix_rank(Lr, rtol=1e-3))
    assert rank.tolist() == gnp(torch.linalg.matrix_rank(tLr, rtol=1e-3)).tolist()
    assert (rank == 3).all()
    gclose(LA.pinv(Lr, rtol=1e-3), torch.linalg.pinv(tLr, rtol=1e-3), dtype, scale=10)
    hl = (Uo * sv) @ H(Uo)  # Hermitian, eigenvalues (3, 2, 1, 0, 0, 0)
    Hl, tHl = gpair(torch, hl, dtype)
    assert (gnp(LA.matrix_rank(Hl, rtol=1e-3, hermitian=True)) == 3).all()
    gclose(LA.pinv(Hl, rtol=1e-3, hermitian=True),
           torch.linalg.pinv(tHl, rtol=1e-3, hermitian=True), dtype, scale=10)
    E, tE = gpair(torch, 0.5 * crand(*batch, n, n), dtype)
    gclose(LA.matrix_exp(E), torch.linalg.matrix_exp(tE), dtype, scale=10)


@gpu
@pytest.mark.parametrize("dtype", CDT)
@pytest.mark.parametrize("n", [6, 130])
def test_gpu_complex_singular_info_and_errors(torch, dtype, n):
    a = crand(3, n, n) + 2 * n ** 0.5 * np.eye(n)
    a[1, :, 2] = 0  # column 3 of element 1 is zero: U[3, 3] == 0, info 3
    A, tA = gpair(torch, a, dtype)
    _, info = LA.inv_ex(A)
    assert info.device.type == "cuda" and gnp(info).tolist() == [0, 3, 0]
    _, info = LA.solve_ex(A, A)
    assert gnp(info).tolist() == [0, 3, 0]
    _, _, info = LA.lu_factor_ex(A)
    assert gnp(info).tolist() == [0, 3, 0]
    with pytest.raises(LA.LinAlgError, match=r"\(Batch element 1\).*singular"):
        LA.inv(A)
    with pytest.raises(LA.LinAlgError, match=r"singular"):
        LA.solve(A, A)
    with pytest.raises(LA.LinAlgError, match=r"\(Batch element 1\): U\[3,3\] is zero"):
        LA.lu_factor(A)
    # Cholesky: the leading minor of order 4 of element 2 is not positive-definite
    c = crand(3, n, n)
    hp = c @ H(c) + n * np.eye(n)
    hp[2, 3, 3] = -1e3 * n
    P, tP = gpair(torch, hp, dtype)
    _, info = LA.cholesky_ex(P)
    assert info.device.type == "cuda" and gnp(info).tolist() == [0, 0, 4]
    assert gnp(info).tolist() == gnp(torch.linalg.cholesky_ex(tP).info).tolist()
    with pytest.raises(LA.LinAlgError, match=r"\(Batch element 2\).*order 4 is not "
                                             r"positive-definite"):
        LA.cholesky(P)
    # the process keeps working
    gclose(LA.inv(A[0]) @ A[0], np.eye(n), dtype, scale=100)


@gpu
@pytest.mark.parametrize("dtype", CDT)
def test_gpu_complex_empty(torch, dtype):
    edt = getattr(ember, dtype)
    for shape in [(0, 0), (3, 0, 0), (0, 4, 4)]:
        A = ember.zeros(shape, dtype=edt, device="cuda")
        tA = torch.zeros(shape, dtype=getattr(torch, dtype), device="cuda")
        gclose(LA.inv(A), torch.linalg.inv(tA), dtype)
        gclose(LA.solve(A, A), torch.linalg.solve(tA, tA), dtype)
        gclose(LA.det(A), torch.linalg.det(tA), dtype)
        gclose(LA.cholesky(A), torch.linalg.cholesky(tA), dtype)
        _, info = LA.inv_ex(A)
        assert info.device.type == "cuda" and tuple(info.shape) == shape[:-2]
        w, V = LA.eigh(A)
        assert w.dtype == REAL_OF[edt] and tuple(V.shape) == shape and V.device.type == "cuda"
        Q, R = LA.qr(A)
        assert tuple(Q.shape) == shape and tuple(R.shape) == shape
        assert LA.svdvals(A).dtype == REAL_OF[edt]
    for shape in [(5, 0), (0, 5), (2, 4, 0)]:
        A = ember.zeros(shape, dtype=edt, device="cuda")
        tA = torch.zeros(shape, dtype=getattr(torch, dtype), device="cuda")
        Q, R = LA.qr(A)
        tQ, tR = torch.linalg.qr(tA)
        assert Q.shape == tQ.shape and R.shape == tR.shape
        U, S, Vh = LA.svd(A, full_matrices=False)
        tU, tS, tVh = torch.linalg.svd(tA, full_matrices=False)
        assert U.shape == tU.shape and S.shape == tS.shape and Vh.shape == tVh.shape


@gpu
@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float64"])
def test_gpu_ex_variants_do_not_sync(dtype):
    """solve_ex, inv_ex, cholesky_ex and lu_factor_ex queue their work and leave info on the
    device: no synchronising call (set_sync_debug_mode("error") would raise at one)."""
    n = 8
    r = rng()
    a = r.standard_normal((n, n)) + 2 * n ** 0.5 * np.eye(n)
    if dtype.startswith("complex"):
        a = a + 1j * r.standard_normal((n, n))
    A = ember.tensor(a.astype(dtype)).cuda()
    P = A @ A.mH + n * ember.eye(n, dtype=A.dtype, device="cuda")
    B = A[:, :3].contiguous()

    def run():
        return (LA.solve_ex(A, B), LA.inv_ex(A), LA.cholesky_ex(P), LA.lu_factor_ex(A))

    run()  # first use: cuSOLVER/cuBLAS loaded, handles and workspaces made
    ember.cuda.set_sync_debug_mode("error")
    try:
        (X, i1), (Ai, i2), (L, i3), (_, _, i4) = run()
    finally:
        ember.cuda.set_sync_debug_mode("default")
    for info in (i1, i2, i3, i4):
        assert info.device.type == "cuda" and info.item() == 0
    an = a.astype(dtype)
    tol = 1e-3 if dtype == "complex64" else 1e-9
    assert np.abs(X.cpu().numpy() - np.linalg.solve(an, an[:, :3])).max() < tol
    assert np.abs(Ai.cpu().numpy() @ an - np.eye(n)).max() < tol * 10
    Ln = L.cpu().numpy()
    assert np.abs(Ln @ np.conj(Ln.T) - P.cpu().numpy()).max() < tol * 100


@gpu
@pytest.mark.parametrize("batch", [(), (3,)])
def test_gpu_complex_grads_match_cpu(batch):
    """The formulas are dtype- and device-generic: complex128 gradients on the GPU (cuSOLVER
    forward and backward) equal the CPU's, which gradcheck verifies above."""
    n = 5
    a = crand(*batch, n, n) + 2 * n ** 0.5 * np.eye(n)
    b = crand(*batch, n, 2)
    grads = []
    for dev in ("cpu", "cuda"):
        A = ember.tensor(a).to(dev).requires_grad_(True)
        B = ember.tensor(b).to(dev).requires_grad_(True)
        P = A @ A.mH + n * ember.eye(n, dtype=A.dtype, device=dev)
        loss = (LA.solve(A, B).abs().sum() + LA.inv(A).real.sum() +
                LA.slogdet(A).logabsdet.sum() + LA.det(A).abs().sum() +
                LA.cholesky(P).abs().sum() + LA.eigvalsh(P).sum() + LA.svdvals(A).sum() +
                LA.qr(A).R.abs().sum() + LA.solve_triangular(P.triu(), B, upper=True).abs().sum()
                + LA.pinv(A).abs().sum() + LA.matrix_exp(0.1 * A).abs().sum())
        loss.backward()
        assert A.grad.device.type == dev and A.grad.dtype == ember.complex128
        grads.append((A.grad.cpu().numpy(), B.grad.cpu().numpy()))
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-7, atol=1e-9)


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
