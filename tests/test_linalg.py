"""ember.linalg's factorizations and solvers (LAPACK on the CPU, cuSOLVER on the GPU):
results against NumPy (CPU, fresh random data) and torch CUDA (GPU tests), reconstructions
(QR = A, U S Vh = A, L L^T = A, P L U = A), dtypes, batches, empty and 0x0 inputs,
ill-conditioned inputs, torch's errors (LinAlgError with the batch element), the _ex
variants' info, and gradcheck in float64 on the CPU."""
import numpy as np
import pytest

import ember
from ember import linalg as LA

DTYPES = [ember.float32, ember.float64]
TOL = {ember.float32: 2e-4, ember.float64: 1e-10}


def rng():
    return np.random.default_rng()


def rand(*shape, dtype=ember.float64, r=None):
    r = r or rng()
    return ember.tensor(r.standard_normal(shape)).to(dtype)


def spd(*shape, dtype=ember.float64):
    n = shape[-1]
    a = rng().standard_normal(shape)
    s = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
    return ember.tensor(s).to(dtype)


def well(*shape, dtype=ember.float64):
    """Well-conditioned square matrices: random + n I."""
    n = shape[-1]
    return ember.tensor(rng().standard_normal(shape) + 2 * n ** 0.5 * np.eye(n)).to(dtype)


def close(x, ref, dtype, scale=1.0):
    x = x.detach().double().numpy() if isinstance(x, ember.Tensor) else np.asarray(x)
    ref = np.asarray(ref, dtype=np.float64)
    assert x.shape == ref.shape, (x.shape, ref.shape)
    if ref.size == 0:
        return
    err = np.abs(x - ref).max() / max(1.0, np.abs(ref).max())
    assert err < TOL[dtype] * scale, err


# ---- the library ------------------------------------------------------------------------------

def test_lapack_is_numpys_openblas_opened_directly():
    ember.ones(2, 2) @ ember.ones(2, 2)
    assert ember._C._linalg.lapack_loaded()
    path = ember._C._linalg.lapack_library()
    assert "openblas" in path.lower() or "lapack" in path.lower()


def test_cpu_matmul_matches_numpy_large():
    a, b = rand(257, 130, dtype=ember.float32), rand(130, 65, dtype=ember.float32)
    close(a @ b, a.double().numpy() @ b.double().numpy(), ember.float32, 10)


# ---- solve / inv / det ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,bshape", [((4, 4), (4, 3)), ((2, 3, 5, 5), (2, 3, 5, 2)),
                                          ((3, 6, 6), (6, 1)), ((6, 6), (2, 6, 3)),
                                          ((3, 4, 4), (3, 4)), ((4, 4), (4,))])
def test_solve(dtype, shape, bshape):
    A, B = well(*shape, dtype=dtype), rand(*bshape, dtype=dtype)
    X = LA.solve(A, B)
    An, Bn = A.double().numpy(), B.double().numpy()
    if B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1])):
        ref = np.linalg.solve(An, Bn[..., None])[..., 0]
    else:
        ref = np.linalg.solve(An, Bn)
    close(X, ref, dtype, 10)
    assert X.dtype == dtype


def test_solve_left_false():
    A, B = well(3, 5, 5), rand(3, 2, 5)
    X = LA.solve(A, B, left=False)
    close(X @ A, B.numpy(), ember.float64)


def test_solve_ex_info_and_singular_error():
    A = well(3, 4, 4)
    A[1] = 0
    X, info = LA.solve_ex(A, rand(3, 4, 2))
    assert info.tolist() == [0, 1, 0]
    with pytest.raises(LA.LinAlgError, match="singular"):
        LA.solve(A, rand(3, 4, 2))
    with pytest.raises(RuntimeError, match="singular"):  # LinAlgError is a RuntimeError
        LA.solve_ex(A, rand(3, 4, 2), check_errors=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 5), (3, 7, 7), (2, 2, 3, 3), (64, 4, 4), (1, 1)])
def test_inv(dtype, shape):
    A = well(*shape, dtype=dtype)
    close(LA.inv(A), np.linalg.inv(A.double().numpy()), dtype, 10)
    Ai, info = LA.inv_ex(A)
    assert tuple(info.shape) == tuple(shape[:-2]) and int(info.abs().sum()) == 0
    close(ember.inverse(A), np.linalg.inv(A.double().numpy()), dtype, 10)


def test_inv_errors_like_torch():
    A = ember.zeros(2, 2, 2)
    with pytest.raises(LA.LinAlgError, match=r"\(Batch element 0\): The diagonal element 1 is "
                                             "zero"):
        LA.inv(A)
    with pytest.raises(RuntimeError, match="must be batches of square matrices, but they are 2 "
                                           "by 3 matrices"):
        LA.inv(ember.ones(2, 3))
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions"):
        LA.inv(ember.ones(3))
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as "
                                           "input. Got Long"):
        LA.inv(ember.ones(2, 2, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="Low precision dtypes not supported. Got Half"):
        LA.inv(ember.ones(2, 2, dtype=ember.float16))
    with pytest.raises(RuntimeError, match="same dtype"):
        LA.solve(ember.eye(3), ember.ones(3, dtype=ember.float64))


@pytest.mark.parametrize("dtype", DTYPES)
def test_det_slogdet_logdet(dtype):
    A = rand(4, 5, 5, dtype=dtype)
    An = A.double().numpy()
    close(LA.det(A), np.linalg.det(An), dtype, 10)
    sign, la = LA.slogdet(A)
    sn, ln = np.linalg.slogdet(An)
    close(sign, sn, dtype)
    close(la, ln, dtype, 10)
    ld = ember.logdet(A)
    ref = np.where(sn < 0, np.nan, ln)
    np.testing.assert_allclose(ld.double().numpy(), ref, rtol=1e-3, atol=1e-3)
    # singular: det 0, slogdet (0, -inf)
    Z = ember.ones(3, 3, dtype=dtype)
    assert float(LA.det(Z)) == 0.0
    s, l = LA.slogdet(Z)
    assert float(s) == 0.0 and float(l) == float("-inf")
    assert float(LA.det(ember.empty(0, 0))) == 1.0


def test_empty_inputs():
    assert tuple(LA.inv(ember.empty(0, 0)).shape) == (0, 0)
    assert tuple(LA.inv(ember.empty(3, 0, 0)).shape) == (3, 0, 0)
    assert tuple(LA.solve(ember.empty(0, 4, 4), ember.empty(0, 4, 2)).shape) == (0, 4, 2)
    assert tuple(LA.cholesky(ember.empty(0, 0)).shape) == (0, 0)
    Q, R = LA.qr(ember.empty(0, 3))
    assert tuple(Q.shape) == (0, 0) and tuple(R.shape) == (0, 3)
    w, V = LA.eigh(ember.empty(2, 0, 0))
    assert tuple(w.shape) == (2, 0) and tuple(V.shape) == (2, 0, 0)
    U, S, Vh = LA.svd(ember.empty(3, 0))
    assert tuple(U.shape) == (3, 3) and tuple(S.shape) == (0,) and tuple(Vh.shape) == (0, 0)
    assert tuple(LA.svdvals(ember.empty(4, 0, 2)).shape) == (4, 0)


# ---- Cholesky ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(6, 6), (3, 5, 5), (2, 2, 4, 4)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(dtype, shape, upper):
    A = spd(*shape, dtype=dtype)
    L = LA.cholesky(A, upper=upper)
    ref = np.linalg.cholesky(A.double().numpy())
    close(L, np.swapaxes(ref, -1, -2) if upper else ref, dtype, 10)
    rec = L.mT @ L if upper else L @ L.mT
    close(rec, A.double().numpy(), dtype, 10)


def test_cholesky_errors_and_ex():
    A = spd(3, 4, 4)
    A[2] = -ember.eye(4, dtype=ember.float64)
    L, info = LA.cholesky_ex(A)
    assert info.tolist() == [0, 0, 1]
    with pytest.raises(LA.LinAlgError, match=r"linalg.cholesky: \(Batch element 2\): The "
                                             "factorization could not be completed because the "
                                             "input is not positive-definite \\(the leading "
                                             "minor of order 1"):
        LA.cholesky(A)
    with pytest.raises(LA.LinAlgError, match=r"^linalg.cholesky: The factorization"):
        LA.cholesky(-ember.eye(3))


def test_cholesky_solve_inverse():
    A = spd(2, 5, 5)
    L = LA.cholesky(A)
    B = rand(2, 5, 3)
    close(ember.cholesky_solve(B, L), np.linalg.solve(A.numpy(), B.numpy()), ember.float64, 10)
    close(ember.cholesky_inverse(L), np.linalg.inv(A.numpy()), ember.float64, 10)


# ---- triangular -------------------------------------------------------------------------------

@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [False, True])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular(upper, left, unit):
    A = well(3, 5, 5)
    T = A.triu() if upper else A.tril()
    if unit:
        T = T - ember.diag_embed(T.diagonal(0, -2, -1)) + ember.eye(5, dtype=ember.float64)
    B = rand(3, 5, 4) if left else rand(3, 4, 5)
    X = LA.solve_triangular(A if not unit else T, B, upper=upper, left=left, unitriangular=unit)
    close(T @ X if left else X @ T, B.numpy(), ember.float64, 100)


# ---- QR ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5), (3, 7, 3), (2, 3, 4)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(dtype, shape, mode):
    A = rand(*shape, dtype=dtype)
    Q, R = LA.qr(A, mode=mode)
    Rn = np.linalg.qr(A.double().numpy(), mode="r" if mode == "r" else mode)
    Rn = Rn if mode == "r" else Rn[1]
    # R is unique up to the signs of its rows
    close(R.abs(), np.abs(Rn), dtype, 10)
    if mode == "r":
        assert Q.numel() == 0
        return
    close(Q @ R, A.double().numpy(), dtype, 10)
    k = Q.shape[-1]
    close(Q.mT @ Q, np.broadcast_to(np.eye(k), Q.shape[:-2] + (k, k)), dtype, 10)
    np.testing.assert_array_equal(np.tril(R.double().numpy(), -1), 0)


def test_geqrf_householder_ormqr():
    A = rand(2, 6, 4)
    a, tau = ember.geqrf(A)
    Q = LA.householder_product(a, tau)
    Qr, _ = LA.qr(A)
    close(Q, Qr.numpy(), ember.float64)
    C = rand(2, 6, 3)
    Qf, _ = LA.qr(A, mode="complete")
    close(ember.ormqr(a, tau, C), (Qf @ C).numpy(), ember.float64, 10)
    close(ember.ormqr(a, tau, C, transpose=True), (Qf.mT @ C).numpy(), ember.float64, 10)


# ---- eigh -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(6, 6), (4, 3, 3), (2, 40, 40)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(dtype, shape, uplo):
    A = rand(*shape, dtype=dtype)
    A = A + A.mT
    w, V = LA.eigh(A, UPLO=uplo)
    close(w, np.linalg.eigvalsh(A.double().numpy()), dtype, 10)
    close((V * w.unsqueeze(-2)) @ V.mT, A.double().numpy(), dtype, 10)
    close(LA.eigvalsh(A, UPLO=uplo), np.linalg.eigvalsh(A.double().numpy()), dtype, 10)


def test_eigh_reads_one_triangle_and_errors():
    A = rand(5, 5)
    S = A.tril() + A.tril(-1).mT
    close(LA.eigvalsh(A), np.linalg.eigvalsh(S.numpy()), ember.float64)
    with pytest.raises(RuntimeError, match="Expected UPLO argument to be 'L' or 'U', but got x"):
        LA.eigh(A, UPLO="x")
    with pytest.raises(LA.LinAlgError, match="failed to converge"):
        LA.eigh(ember.full((3, 3), float("nan")))


# ---- SVD --------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5), (3, 7, 3), (2, 2, 3, 5)])
@pytest.mark.parametrize("full", [False, True])
def test_svd(dtype, shape, full):
    A = rand(*shape, dtype=dtype)
    U, S, Vh = LA.svd(A, full_matrices=full)
    close(S, np.linalg.svd(A.double().numpy(), compute_uv=False), dtype, 10)
    m, n = shape[-2:]
    k = min(m, n)
    assert U.shape[-1] == (m if full else k) and Vh.shape[-2] == (n if full else k)
    rec = (U[..., :, :k] * S.unsqueeze(-2)) @ Vh[..., :k, :]
    close(rec, A.double().numpy(), dtype, 10)
    close(U.mT @ U, np.broadcast_to(np.eye(U.shape[-1]), U.shape[:-2] + (U.shape[-1],) * 2),
          dtype, 10)
    close(LA.svdvals(A), np.linalg.svd(A.double().numpy(), compute_uv=False), dtype, 10)


def test_svd_toplevel_returns_v():
    A = rand(5, 3)
    U, S, V = ember.svd(A)
    assert tuple(U.shape) == (5, 3) and tuple(V.shape) == (3, 3)
    close((U * S) @ V.mT, A.numpy(), ember.float64)


def test_ill_conditioned():
    # Hilbert matrix: cond ~ 1e13 at n = 10; SVD/eigh stay accurate in float64.
    n = 10
    H = ember.tensor(1.0 / (np.arange(n)[:, None] + np.arange(n)[None, :] + 1))
    close(LA.svdvals(H), np.linalg.svd(H.numpy(), compute_uv=False), ember.float64)
    close(LA.eigvalsh(H), np.linalg.eigvalsh(H.numpy()), ember.float64)
    rank = LA.matrix_rank(H)
    assert int(rank) == np.linalg.matrix_rank(H.numpy())
    c = float(LA.cond(H))
    assert abs(c / np.linalg.cond(H.numpy()) - 1) < 1e-2


# ---- lstsq / pinv / rank ----------------------------------------------------------------------

@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("shape", [(7, 4), (3, 7, 4)])
def test_lstsq(driver, shape):
    A, B = rand(*shape), rand(*shape[:-1], 2)
    r = LA.lstsq(A, B, driver=driver)
    ref = np.linalg.lstsq(A.numpy(), B.numpy(), rcond=None)[0] if len(shape) == 2 else \
        np.stack([np.linalg.lstsq(a, b, rcond=None)[0] for a, b in zip(A.numpy(), B.numpy())])
    close(r.solution, ref, ember.float64, 100)
    if driver in ("gelsd", "gelss"):
        close(r.singular_values, np.linalg.svd(A.numpy(), compute_uv=False), ember.float64)
    if driver not in (None, "gels", "gelsy"):
        assert r.rank.tolist() == (4 if len(shape) == 2 else [4] * 3)


def test_lstsq_underdetermined_min_norm():
    A, B = rand(3, 6), rand(3, 2)
    X = LA.lstsq(A, B, driver="gelsd").solution
    close(X, np.linalg.pinv(A.numpy()) @ B.numpy(), ember.float64, 100)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_pinv_and_rank(shape):
    A = rand(*shape)
    close(LA.pinv(A), np.linalg.pinv(A.numpy()), ember.float64, 100)
    assert LA.matrix_rank(A).tolist() == np.linalg.matrix_rank(A.numpy()).tolist()
    S = A @ A.mT
    close(LA.pinv(S, hermitian=True), np.linalg.pinv(S.numpy(), hermitian=True), ember.float64,
          1e4)


# ---- LU / LDL ---------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(5, 5), (3, 4, 4), (6, 4), (4, 6)])
def test_lu_and_lu_factor(shape):
    A = rand(*shape)
    P, L, U = LA.lu(A)
    close(P @ L @ U, A.numpy(), ember.float64, 10)
    if shape[-1] == shape[-2]:
        LU, piv = LA.lu_factor(A)
        B = rand(*shape[:-1], 2)
        close(LA.lu_solve(LU, piv, B), np.linalg.solve(A.numpy(), B.numpy()), ember.float64,
              1e3)
        close(LA.lu_solve(LU, piv, B, adjoint=True),
              np.linalg.solve(np.swapaxes(A.numpy(), -1, -2), B.numpy()), ember.float64, 1e3)
        assert piv.dtype == ember.int32


def test_lu_factor_singular():
    LU, piv, info = LA.lu_factor_ex(ember.zeros(2, 2))
    assert int(info) == 1 and piv.tolist() == [1, 2]
    with pytest.raises(LA.LinAlgError, match=r"U\[1,1\] is zero"):
        LA.lu_factor(ember.zeros(2, 2))


def test_ldl():
    A = rand(5, 5)
    A = A + A.mT
    LD, piv = LA.ldl_factor(A)
    B = rand(5, 2)
    close(LA.ldl_solve(LD, piv, B), np.linalg.solve(A.numpy(), B.numpy()), ember.float64, 1e3)


# ---- norms and the rest -----------------------------------------------------------------------

@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf")])
def test_matrix_norm(ord):
    A = rand(3, 4, 5)
    close(LA.matrix_norm(A, ord), np.linalg.norm(A.numpy(), ord, axis=(-2, -1)), ember.float64)
    close(LA.norm(A[0], ord), np.linalg.norm(A.numpy()[0], ord), ember.float64)


@pytest.mark.parametrize("ord", [1, 2, 3, 0.5, float("inf"), float("-inf"), 0])
def test_vector_norm(ord):
    x = rand(4, 6)
    close(LA.vector_norm(x, ord, dim=-1), np.linalg.norm(x.numpy(), ord, axis=-1), ember.float64)
    close(LA.vector_norm(x, ord), np.linalg.norm(x.numpy().reshape(-1), ord), ember.float64)


def test_cond():
    A = well(3, 4, 4)
    for p in (None, 2, -2, "fro", "nuc", 1, float("inf")):
        close(LA.cond(A, p), np.linalg.cond(A.numpy(), p), ember.float64, 100)


def test_products_and_helpers():
    a, b, c = rand(3, 40), rand(40, 2), rand(2, 30)
    close(LA.multi_dot([a, b, c]), a.numpy() @ b.numpy() @ c.numpy(), ember.float64)
    v = rand(3)
    close(LA.multi_dot([v, a, b]), v.numpy() @ a.numpy() @ b.numpy(), ember.float64)
    x, y = rand(4, 5), rand(5)
    close(LA.vecdot(x, y), x.numpy() @ y.numpy(), ember.float64)
    A = well(4, 4)
    close(LA.matrix_power(A, -2), np.linalg.matrix_power(A.numpy(), -2), ember.float64, 100)
    close(LA.vander(ember.tensor([1.0, 2.0, 3.0])), np.vander([1.0, 2.0, 3.0], increasing=True),
          ember.float64)
    T = well(6, 6).reshape(2, 3, 6)
    close(LA.tensorinv(T, ind=2), np.linalg.tensorinv(T.numpy(), ind=2), ember.float64, 100)
    B = rand(2, 3)
    close(LA.tensorsolve(T, B), np.linalg.tensorsolve(T.numpy(), B.numpy()), ember.float64, 100)


def test_diagonal():
    x = rand(2, 3, 4)
    close(LA.diagonal(x), np.diagonal(x.numpy(), 0, -2, -1), ember.float64)
    close(LA.diagonal(x, offset=1), np.diagonal(x.numpy(), 1, -2, -1), ember.float64)


def test_matrix_exp():
    A = rand(3, 4, 4) * 0.7
    torch = pytest.importorskip("torch")
    ref = torch.linalg.matrix_exp(torch.from_numpy(A.numpy())).numpy()
    close(LA.matrix_exp(A), ref, ember.float64, 100)
    big = rand(5, 5) * 20
    ref = torch.linalg.matrix_exp(torch.from_numpy(big.numpy())).numpy()
    np.testing.assert_allclose(LA.matrix_exp(big).numpy(), ref, rtol=1e-6)


# ---- autograd (CPU, float64) ------------------------------------------------------------------

def leaf(t):
    return t.detach().requires_grad_(True)


def gc(fn, *inputs):
    assert ember.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)


def test_grad_solve_inv_det():
    A, B = leaf(well(2, 4, 4)), leaf(rand(2, 4, 3))
    gc(lambda a, b: LA.solve(a, b), A, B)
    gc(lambda a, b: LA.solve(a, b, left=False), A, leaf(rand(2, 3, 4)))
    gc(lambda a, b: LA.solve(a, b), A, leaf(rand(2, 4)))
    gc(LA.inv, A)
    gc(LA.det, A)
    gc(lambda a: LA.slogdet(a).logabsdet, A)
    LU, piv = LA.lu_factor(A.detach())
    gc(lambda b: LA.lu_solve(LU, piv, b), B)
    gc(lambda b: LA.lu_solve(LU, piv, b, adjoint=True, left=False), leaf(rand(2, 3, 4)))


def test_grad_cholesky_triangular():
    A = leaf(spd(2, 4, 4))
    gc(lambda a: LA.cholesky(a + a.mT), A)
    gc(lambda a: LA.cholesky(a + a.mT, upper=True), A)
    T, B = leaf(well(4, 4)), leaf(rand(4, 2))
    gc(lambda t, b: LA.solve_triangular(t, b, upper=True), T, B)
    gc(lambda t, b: LA.solve_triangular(t, b, upper=False, left=False), T, leaf(rand(2, 4)))
    gc(lambda t, b: LA.solve_triangular(t, b, upper=False, unitriangular=True), T, B)


@pytest.mark.parametrize("shape", [(5, 3), (4, 4), (3, 5)])
def test_grad_qr(shape):
    gc(lambda a: LA.qr(a), leaf(rand(*shape)))


def test_grad_eigh_svd():
    A = leaf(rand(4, 4))
    gc(lambda a: LA.eigvalsh(a + a.mT), A)
    # eigenvectors up to sign: differentiate a sign-invariant function of them
    gc(lambda a: (lambda w, v: (w, v * v))(*LA.eigh(a + a.mT)), A)
    for shape in [(5, 3), (3, 5), (4, 4)]:
        X = leaf(rand(*shape))
        gc(LA.svdvals, X)
        gc(lambda x: (lambda u, s, vh: ((u * s) @ vh, s))(*LA.svd(x, full_matrices=False)), X)
        gc(lambda x: (lambda u, s, vh: (u * u, vh * vh))(*LA.svd(x, full_matrices=False)), X)


def test_grad_composites():
    A = leaf(rand(4, 3))
    gc(LA.pinv, A)
    gc(lambda a: LA.matrix_norm(a, "nuc"), A)
    gc(lambda a: LA.matrix_norm(a, 2), A)
    gc(lambda a: LA.matrix_norm(a, "fro"), A)
    gc(lambda a: LA.vector_norm(a, 3), A)
    gc(lambda a, b: LA.lstsq(a, b).solution, A, leaf(rand(4, 2)))
    gc(lambda a: LA.matrix_exp(a), leaf(rand(3, 3)))
    gc(lambda a: LA.cond(a), A)


# ---- GPU: against torch CUDA ------------------------------------------------------------------

gpu = pytest.mark.gpu


def _cuda_pair(*shape, kind="rand", dtype="float32"):
    torch = pytest.importorskip("torch")
    r = rng()
    a = r.standard_normal(shape)
    if kind == "spd":
        a = a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
    elif kind == "well":
        a = a + 2 * shape[-1] ** 0.5 * np.eye(shape[-1])
    elif kind == "sym":
        a = a + np.swapaxes(a, -1, -2)
    a = a.astype(dtype)
    return ember.tensor(a).cuda(), torch.from_numpy(a).cuda()


def _close_t(x, t, rtol):
    xn = x.detach().cpu().double().numpy()
    tn = t.detach().cpu().double().numpy()
    assert xn.shape == tn.shape, (xn.shape, tn.shape)
    if tn.size:
        assert np.abs(xn - tn).max() / max(1.0, np.abs(tn).max()) < rtol


@gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch", [(), (1,), (5,), (200,)])
@pytest.mark.parametrize("n", [1, 16, 100, 300])
def test_gpu_solve_inv_det(dtype, batch, n):
    A, tA = _cuda_pair(*batch, n, n, kind="well", dtype=dtype)
    B, tB = _cuda_pair(*batch, n, 3, dtype=dtype)
    tol = 1e-3 if dtype == "float32" else 1e-9
    torch = pytest.importorskip("torch")
    _close_t(LA.solve(A, B), torch.linalg.solve(tA, tB), tol)
    _close_t(LA.inv(A), torch.linalg.inv(tA), tol)
    _close_t(LA.slogdet(A).logabsdet, torch.linalg.slogdet(tA).logabsdet, tol)
    LU, piv, info = LA.lu_factor_ex(A)
    assert LU.device.type == "cuda" and info.device.type == "cuda"
    _close_t(LA.lu_solve(LU, piv, B), torch.linalg.solve(tA, tB), tol)
    _close_t(LA.lu_solve(LU, piv, B, adjoint=True), torch.linalg.solve(tA.mT, tB), tol)


@gpu
def test_gpu_singular_and_info_stay_on_device():
    A, _ = _cuda_pair(4, 8, 8, kind="well")
    A[2] = 0
    X, info = LA.inv_ex(A)
    assert info.device.type == "cuda" and info.cpu().tolist() == [0, 0, 1, 0]
    with pytest.raises(LA.LinAlgError, match=r"\(Batch element 2\)"):
        LA.inv(A)
    B, _ = _cuda_pair(8, 8, kind="well")
    B[3] = 0
    with pytest.raises(LA.LinAlgError, match="singular"):
        LA.solve(B, ember.ones(8, device="cuda"))
    S, _ = _cuda_pair(3, 6, 6, kind="spd")
    S[1] = -S[1]
    L, info = LA.cholesky_ex(S)
    assert info.cpu().tolist()[1] > 0 and info.cpu().tolist()[0] == 0
    with pytest.raises(LA.LinAlgError, match=r"\(Batch element 1\)"):
        LA.cholesky(S)


@gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch", [(), (7,), (300,)])
@pytest.mark.parametrize("n", [5, 64, 200])
def test_gpu_cholesky_eigh(dtype, batch, n):
    torch = pytest.importorskip("torch")
    tol = 2e-3 if dtype == "float32" else 1e-9
    S, tS = _cuda_pair(*batch, n, n, kind="spd", dtype=dtype)
    for upper in (False, True):
        _close_t(LA.cholesky(S, upper=upper), torch.linalg.cholesky(tS, upper=upper), tol)
    H, tH = _cuda_pair(*batch, n, n, kind="sym", dtype=dtype)
    w, V = LA.eigh(H)
    _close_t(w, torch.linalg.eigvalsh(tH), tol)
    rec = (V * w.unsqueeze(-2)) @ V.mT
    _close_t(rec, tH, tol * 10)
    _close_t(LA.eigvalsh(H, UPLO="U"), torch.linalg.eigvalsh(tH, UPLO="U"), tol)


@gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(9, 6), (6, 9), (4, 20, 20), (50, 8, 5), (50, 5, 8),
                                   (3, 300, 200), (2, 100, 150)])
def test_gpu_qr_svd(dtype, shape):
    torch = pytest.importorskip("torch")
    tol = 2e-3 if dtype == "float32" else 1e-9
    A, tA = _cuda_pair(*shape, dtype=dtype)
    for mode in ("reduced", "complete"):
        Q, R = LA.qr(A, mode=mode)
        tQ, tR = torch.linalg.qr(tA, mode=mode)
        assert tuple(Q.shape) == tuple(tQ.shape) and tuple(R.shape) == tuple(tR.shape)
        k = min(shape[-2], shape[-1])
        _close_t(Q[..., :, :k] @ R[..., :k, :], tA, tol)
        _close_t(R.abs(), tR.abs(), tol * 10)
    for full in (False, True):
        U, S, Vh = LA.svd(A, full_matrices=full)
        tU, tS, tVh = torch.linalg.svd(tA, full_matrices=full)
        assert tuple(U.shape) == tuple(tU.shape) and tuple(Vh.shape) == tuple(tVh.shape)
        _close_t(S, tS, tol)
        k = S.shape[-1]
        _close_t((U[..., :, :k] * S.unsqueeze(-2)) @ Vh[..., :k, :], tA, tol * 10)
    _close_t(LA.svdvals(A), torch.linalg.svdvals(tA), tol)


@gpu
def test_gpu_triangular_lstsq_householder():
    torch = pytest.importorskip("torch")
    A, tA = _cuda_pair(3, 30, 30, kind="well")
    B, tB = _cuda_pair(3, 30, 4)
    for upper in (False, True):
        for left in (False, True):
            b, tb = (B, tB) if left else (B.mT.contiguous(), tB.mT.contiguous())
            _close_t(LA.solve_triangular(A, b, upper=upper, left=left),
                     torch.linalg.solve_triangular(tA, tb, upper=upper, left=left), 1e-3)
    M, tM = _cuda_pair(4, 40, 10)
    C, tC = _cuda_pair(4, 40, 3)
    _close_t(LA.lstsq(M, C).solution, torch.linalg.lstsq(tM, tC).solution, 1e-3)
    a, tau = ember.geqrf(M)
    ta, ttau = torch.geqrf(tM)
    _close_t(LA.householder_product(a, tau), torch.linalg.householder_product(ta, ttau), 1e-3)
    _close_t(LA.pinv(M), torch.linalg.pinv(tM), 1e-2)
    _close_t(LA.det(A), torch.linalg.det(tA), 1e-3)


@gpu
def test_gpu_cusolver_loaded_lazily():
    import subprocess
    import sys
    code = ("import ember; assert not ember._C._linalg.cusolver_loaded();"
            "a = ember.eye(3, device='cuda'); ember.linalg.cholesky(a);"
            "assert ember._C._linalg.cusolver_loaded(); print('ok')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


@gpu
def test_gpu_grad_matches_cpu():
    A = well(3, 6, 6)
    B = rand(3, 6, 2)
    outs = []
    for dev in ("cpu", "cuda"):
        a, b = leaf(A.to(dev)), leaf(B.to(dev))
        (LA.solve(a, b).sum() + LA.slogdet(a).logabsdet.sum() +
         LA.eigvalsh(a + a.mT).sum() + LA.svdvals(a).sum() +
         LA.cholesky(a @ a.mT).sum()).backward()
        outs.append((a.grad.cpu().numpy(), b.grad.cpu().numpy()))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-6, atol=1e-8)
