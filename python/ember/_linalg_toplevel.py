"""torch's top-level factorization names (torch.det, torch.svd, torch.qr, torch.lu, ...) and
their Tensor methods, over ember.linalg (LAPACK on the CPU, cuSOLVER on the GPU)."""
from ember import _C
from ember import linalg as _la

__all__ = ["det", "logdet", "slogdet", "inverse", "cholesky", "cholesky_solve",
           "cholesky_inverse", "qr", "svd", "pinverse", "lu_solve", "lu_unpack", "lu", "geqrf",
           "ormqr", "orgqr", "triangular_solve", "chain_matmul", "matrix_exp"]


def det(input):
    """torch.det: ember.linalg.det."""
    return _la.det(input)


def logdet(input):
    """torch.logdet: log(det) (nan for a negative determinant)."""
    return _la.logdet(input)


def slogdet(input, *, out=None):
    """torch.slogdet: (sign, logabsdet)."""
    sign, la = _la.slogdet(input)
    return _la._rt("slogdet", ["sign", "logabsdet"])(sign, la)


def inverse(input, *, out=None):
    """torch.inverse: ember.linalg.inv."""
    return _la.inv(input, out=out)


def cholesky(input, upper=False, *, out=None):
    """torch.cholesky (deprecated in torch): ember.linalg.cholesky."""
    return _la.cholesky(input, upper=upper, out=out)


def cholesky_solve(input, input2, upper=False, *, out=None):
    """torch.cholesky_solve(B, L): X with L L^T X = B."""
    return _la.cholesky_solve(input, input2, upper, out=out)


def cholesky_inverse(input, upper=False, *, out=None):
    """torch.cholesky_inverse: (L L^T)^{-1}."""
    return _la.cholesky_inverse(input, upper, out=out)


def qr(input, some=True, *, out=None):
    """torch.qr: (Q, R), reduced when some."""
    Q, R = _la.qr(input, "reduced" if some else "complete")
    return _la._rt("qr", ["Q", "R"])(Q, R)


def svd(input, some=True, compute_uv=True, *, out=None):
    """torch.svd: (U, S, V) -- V, not Vh; compute_uv=False gives zero U and V."""
    rt = _la._rt("svd", ["U", "S", "V"])
    if compute_uv:
        U, S, Vh = _la.svd(input, full_matrices=not some)
        return rt(U, S, Vh.mH)
    S = _la.svdvals(input)
    m, n = input.shape[-2], input.shape[-1]
    batch = tuple(input.shape[:-2])
    return rt(_C.zeros(batch + (m, m), dtype=input.dtype, device=input.device), S,
              _C.zeros(batch + (n, n), dtype=input.dtype, device=input.device))


def pinverse(input, rcond=1e-15):
    """torch.pinverse: pinv with rtol=rcond."""
    return _la.pinv(input, rtol=rcond)


def lu_solve(input, LU_data, LU_pivots, *, out=None):
    """torch.lu_solve(b, LU_data, LU_pivots)."""
    return _la.lu_solve(LU_data, LU_pivots, input, out=out)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """torch.lu_unpack: (P, L, U)."""
    return _la.lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)


def lu(A, pivot=True, get_infos=False, out=None):
    """torch.lu: (LU, pivots[, infos])."""
    LU, piv, info = _la.lu_factor_ex(A, pivot=pivot)
    return (LU, piv, info) if get_infos else (LU, piv)


def geqrf(input, *, out=None):
    """torch.geqrf: (a, tau), LAPACK's Householder form."""
    return _la.geqrf(input)


def ormqr(input, input2, input3, left=True, transpose=False, *, out=None):
    """torch.ormqr: op(Q) @ input3 with Q from geqrf's (input, input2)."""
    return _la.ormqr(input, input2, input3, left, transpose, out=out)


def orgqr(input, input2):
    """torch.orgqr: ember.linalg.householder_product."""
    return _la.householder_product(input, input2)


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """torch.triangular_solve(b, A): (solution, cloned_coefficient)."""
    Aop = A.mT if transpose else A
    X = _la.solve_triangular(Aop, input, upper=(upper != transpose),
                             unitriangular=unitriangular)
    return _la._rt("triangular_solve", ["solution", "cloned_coefficient"])(X, A.clone())


def chain_matmul(*matrices, out=None):
    """torch.chain_matmul: multi_dot of matrices."""
    return _la.chain_matmul(*matrices, out=out)


def matrix_exp(A):
    """torch.matrix_exp: ember.linalg.matrix_exp."""
    return _la.matrix_exp(A)


def _methods():
    T = _C.Tensor
    g = globals()
    for name in ("det", "logdet", "slogdet", "inverse", "cholesky", "cholesky_solve",
                 "cholesky_inverse", "qr", "svd", "pinverse", "lu_solve", "geqrf", "ormqr",
                 "orgqr", "triangular_solve", "matrix_exp", "lu"):
        if not hasattr(T, name):
            setattr(T, name, g[name])


_methods()
