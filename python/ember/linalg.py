"""ember.linalg: torch.linalg's factorizations, solvers and norms on a real LAPACK (the CPU:
the OpenBLAS NumPy bundles, called from C++) and cuSOLVER (the GPU, loaded at first use).

Each function prepares its operands here (checks with torch's messages, batch
broadcasting, a column-major clone, LAPACK's layout) and calls one of the cores of
``ember._C._linalg`` (csrc/ops/linalg/linalg.hpp), which loop over the batch on the CPU or
call cuSOLVER/cuBLAS (batched where that is faster) on the GPU. The ``_ex`` variants return
LAPACK's ``info`` without a host sync; the others check it (one sync, as torch) and raise
``LinAlgError`` naming the failing batch element.

Autograd: every differentiable result is an ``ember.autograd.Function`` whose backward is
torch's formula in ember ops (so gradients of gradients work too), or a composition of
differentiable functions (det, pinv, norms, matrix_exp, ...).

Dtypes: float32, float64, complex64 and complex128 (LAPACK's and cuSOLVER's s/d/c/z routines;
the formulas use adjoints, ``.mH``). ``eig``/``eigvals`` on the GPU use cuSOLVER's Xgeev, or
LAPACK on the host when the loaded cuSOLVER predates it (CUDA < 12.6); ``ldl_factor``/
``ldl_solve`` run on the host (copies both ways).
"""
import math
from collections import namedtuple

from ember import _C
from ember._composite_math import linalg_cross as cross
from ember._composite_shape import diag_embed as _diag_embed
from ember.autograd.function import Function

_Tensor = _C.Tensor

_L = _C._linalg

__all__ = ["LinAlgError", "cross", "solve", "solve_ex", "solve_triangular", "inv", "inv_ex",
           "det", "slogdet", "cholesky", "cholesky_ex", "qr", "lu", "lu_factor", "lu_factor_ex",
           "lu_solve", "ldl_factor", "ldl_factor_ex", "ldl_solve", "eigh", "eigvalsh", "svd",
           "svdvals", "lstsq", "pinv", "matrix_rank", "matrix_power", "matrix_exp",
           "matrix_norm", "vector_norm", "norm", "cond", "multi_dot", "householder_product",
           "tensorinv", "tensorsolve", "vander", "vecdot", "diagonal", "matmul", "cholesky_inverse",
           "eig", "eigvals"]


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a factorization or solve failed (a singular or
    non-positive-definite matrix, or an algorithm that did not converge)."""


LinAlgError.__module__ = "ember.linalg"


# ---- return types ---------------------------------------------------------------------------

def _rt(name, fields):
    rt = _C.return_types
    cls = getattr(rt, name, None)
    if cls is None:
        base = namedtuple(name, fields)

        def __repr__(self):
            inner = ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields)
            return f"ember.return_types.{name}(\n{inner})"

        cls = type(name, (base,), {"__slots__": (), "__repr__": __repr__,
                                   "__doc__": f"{name}({', '.join(fields)}): torch.return_types'"})
        cls.__module__, cls.__qualname__ = "ember.return_types", name
        setattr(rt, name, cls)
    return cls


_SolveEx = _rt("linalg_solve_ex", ["result", "info"])
_InvEx = _rt("linalg_inv_ex", ["inverse", "info"])
_Slogdet = _rt("linalg_slogdet", ["sign", "logabsdet"])
_CholeskyEx = _rt("linalg_cholesky_ex", ["L", "info"])
_QR = _rt("linalg_qr", ["Q", "R"])
_LU = _rt("linalg_lu", ["P", "L", "U"])
_LUFactor = _rt("linalg_lu_factor", ["LU", "pivots"])
_LUFactorEx = _rt("linalg_lu_factor_ex", ["LU", "pivots", "info"])
_LDLFactor = _rt("linalg_ldl_factor", ["LD", "pivots"])
_LDLFactorEx = _rt("linalg_ldl_factor_ex", ["LD", "pivots", "info"])
_Eigh = _rt("linalg_eigh", ["eigenvalues", "eigenvectors"])
_Eig = _rt("linalg_eig", ["eigenvalues", "eigenvectors"])
_SVD = _rt("linalg_svd", ["U", "S", "Vh"])
_Lstsq = _rt("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])


# ---- checks ---------------------------------------------------------------------------------

_TORCH_NAMES = {"float16": "Half", "bfloat16": "BFloat16", "int64": "Long", "int32": "Int",
                "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
                "float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
                "complex128": "ComplexDouble", "complex32": "ComplexHalf"}


def _tname(dtype):
    return _TORCH_NAMES.get(str(dtype).replace("ember.", ""), str(dtype))


def _check_float(A, fn, what="input"):
    if not isinstance(A, _Tensor):
        raise TypeError(f"{fn}(): argument '{what}' must be Tensor, not {type(A).__name__}")
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. "
                           f"Got {_tname(A.dtype)}")
    if A.dtype not in (_C.float32, _C.float64, _C.complex64, _C.complex128):
        raise RuntimeError(f"{fn}: Low precision dtypes not supported. Got {_tname(A.dtype)}")


def _check_matrix(A, fn, square=False, what="A"):
    if A.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor {what} must have at least 2 dimensions.")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{fn}: {what} must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


def _check_same(A, B, fn, na="A", nb="B"):
    if A.dtype != B.dtype:
        raise RuntimeError(f"{fn}: Expected {na} and {nb} to have the same dtype, but found "
                           f"{na} of type {_tname(A.dtype)} and {nb} of type {_tname(B.dtype)} "
                           "instead")
    if A.device != B.device:
        raise RuntimeError(f"{fn}: Expected all tensors to be on the same device, but found at "
                           f"least two devices, {A.device} and {B.device}!")


def _batch_str(info, i):
    return f"(Batch element {i}): " if info.dim() > 0 else ""


def _first_failure(info):
    """(flat index, value) of the first nonzero info, or None: one host sync."""
    flat = info.reshape(-1)
    if flat.numel() == 0:
        return None
    nz = (flat != 0)
    if not bool(nz.any()):
        return None
    i = int(nz.to(_C.int64).argmax())
    return i, int(flat[i])


def _raise_singular(fn, info, msg):
    f = _first_failure(info)
    if f is not None:
        i, v = f
        raise LinAlgError(f"{fn}: {_batch_str(info, i)}{msg(v)}")


def _singular_msg(v):
    return (f"The diagonal element {v} is zero, the inversion could not be completed because "
            "the input matrix is singular.")


def _pd_msg(v):
    return ("The factorization could not be completed because the input is not "
            f"positive-definite (the leading minor of order {v} is not positive-definite).")


# ---- layout helpers -------------------------------------------------------------------------

def _fclone(A, batch=None):
    """A fresh batch of column-major copies of A (broadcast to `batch` dims): its .mT is
    contiguous, as LAPACK wants. Never aliases A."""
    batch = tuple(A.shape[:-2]) if batch is None else tuple(batch)
    m, n = A.shape[-2], A.shape[-1]
    X = _C.empty(batch + (n, m), dtype=A.dtype, device=A.device)
    X.copy_(A.mT.expand(batch + (n, m)))
    return X.mT


def _eye_like(n, A, batch=()):
    e = _C.eye(n, dtype=A.dtype, device=A.device)
    return e.expand(tuple(batch) + (n, n)) if batch else e


def _cbatch(*shapes):
    from ember._composite_shape import broadcast_shapes
    return tuple(broadcast_shapes(*[tuple(s) for s in shapes]))


def _detached(t):
    return t.detach() if isinstance(t, _Tensor) else t


# ---- LU: lu_factor, lu_solve, solve, inv ----------------------------------------------------

def _lu_factor_core(A):
    LU = _fclone(A)
    piv, info = _L.lu_factor_(LU)
    return LU, piv, info


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """torch.linalg.lu_factor_ex: (LU, pivots, info), no host sync unless check_errors."""
    fn = "torch.linalg.lu_factor_ex"
    _check_float(A, fn, "A")
    _check_matrix(A, fn)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    LU, piv, info = _lu_factor_core(_detached(A))
    if check_errors:
        _raise_singular(fn, info, lambda v: f"U[{v},{v}] is zero")
    return _LUFactorEx(LU, piv, info)


def lu_factor(A, *, pivot=True, out=None):
    """torch.linalg.lu_factor: (LU, pivots); LinAlgError when U has a zero on its diagonal."""
    LU, piv, info = lu_factor_ex(A, pivot=pivot)
    f = _first_failure(info)
    if f is not None:
        i, v = f
        raise LinAlgError(
            f"torch.linalg.lu_factor: {_batch_str(info, i)}U[{v},{v}] is zero and using it on "
            "lu_solve would result in a division by zero. If you still want to perform the "
            "factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return _LUFactor(LU, piv)


def _lu_solve_core(LU, piv, B, left=True, adjoint=False):
    """X with op(A) X = B (left) or X op(A) = B, from lu_factor's LU and pivots; batches
    broadcast."""
    n = LU.shape[-1]
    if left:
        batch = _cbatch(LU.shape[:-2], B.shape[:-2])
        X = _fclone(B, batch)
        LUb = LU if tuple(LU.shape[:-2]) == batch and LU.mT.is_contiguous() else _fclone(LU, batch)
        pivb = piv.expand(batch + (n,)).contiguous()
        _L.lu_solve_(LUb, pivb, X, adjoint)
        return X
    # X op(A) = B  <=>  op(A)^H X^H = B^H
    return _lu_solve_core(LU, piv, B.mH, True, not adjoint).mH


class _LinalgSolve(Function):
    """X = A^{-1} B (left) with gradients: gB = A^{-H} gX, gA = -gB X^H."""

    @staticmethod
    def forward(ctx, A, B, left):
        LU, piv, info = _lu_factor_core(A)
        X = _lu_solve_core(LU, piv, B, left)
        ctx.left = left
        ctx.save_for_backward(LU, piv, X)
        ctx.mark_non_differentiable(info)
        return X, info

    @staticmethod
    def backward(ctx, gX, _ginfo):
        LU, piv, X = ctx.saved_tensors
        if ctx.left:
            gB = _lu_solve_core(LU, piv, gX, True, adjoint=True)
            gA = -_C.matmul(gB, X.mH)
        else:
            gB = _lu_solve_core(LU, piv, gX, False, adjoint=True)
            gA = -_C.matmul(X.mH, gB)
        return gA, gB, None


def _solve_impl(A, B, left, fn):
    _check_float(A, fn, "A")
    _check_same(A, B, fn)
    _check_matrix(A, fn, square=True)
    # torch's rule: B is a batch of vectors when B.dim() == 1 or B.dim() == A.dim() - 1 and
    # its shape is A's batch shape plus n.
    n = A.shape[-1]
    vector = B.dim() == 1 or (left and B.dim() == A.dim() - 1 and
                              tuple(B.shape) == tuple(A.shape[:-1]))
    if vector:
        if B.shape[-1] != n:
            raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                               f"AX = B ({A.shape[-2]}x{n} and {B.shape[-1]}x1)")
        Bm = B.unsqueeze(-1)
    else:
        Bm = B
        if Bm.dim() < 2 or (left and Bm.shape[-2] != n) or (not left and Bm.shape[-1] != n):
            shp = "x".join(str(s) for s in Bm.shape[-2:])
            eq = "AX = B" if left else "XA = B"
            raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                               f"{eq} ({A.shape[-2]}x{n} and {shp})")
    X, info = _LinalgSolve.apply(A, Bm, left)
    if vector:
        X = X.squeeze(-1)
    return X, info


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """torch.linalg.solve_ex: (result, info) without a host sync."""
    X, info = _solve_impl(A, B, left, "linalg.solve_ex")
    if check_errors:
        _raise_singular("torch.linalg.solve_ex", info, _singular_msg)
    return _SolveEx(X, info)


def solve(A, B, *, left=True, out=None):
    """torch.linalg.solve: X with AX = B (left) or XA = B; LinAlgError for singular A."""
    X, info = _solve_impl(A, B, left, "linalg.solve")
    if _first_failure(info) is not None:
        raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix is "
                          "singular.")
    return _copy_out(X, out)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """torch.linalg.lu_solve from lu_factor's (LU, pivots). Differentiable in B."""
    fn = "linalg.lu_solve"
    _check_float(LU, fn, "LU")
    _check_same(LU, B, fn, "LU", "B")
    _check_matrix(LU, fn, square=True, what="LU")
    n = LU.shape[-1]
    if B.dim() < 2 or (left and B.shape[-2] != n) or (not left and B.shape[-1] != n):
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and "
                           f"{'x'.join(str(s) for s in B.shape[-2:])})")
    return _copy_out(_LuSolveB.apply(_detached(LU), pivots, B, left, adjoint), out)


class _LuSolveB(Function):
    @staticmethod
    def forward(ctx, LU, piv, B, left, adjoint):
        ctx.save_for_backward(LU, piv)
        ctx.left, ctx.adjoint = left, adjoint
        return _lu_solve_core(LU, piv, B, left, adjoint)

    @staticmethod
    def backward(ctx, g):
        LU, piv = ctx.saved_tensors
        return None, None, _lu_solve_core(LU, piv, g, ctx.left, not ctx.adjoint), None, None


class _LinalgInv(Function):
    @staticmethod
    def forward(ctx, A):
        n = A.shape[-1]
        LU, piv, info = _lu_factor_core(A)
        X = _fclone(_eye_like(n, A), A.shape[:-2])
        _L.lu_solve_(LU, piv, X, False)
        ctx.save_for_backward(X)
        ctx.mark_non_differentiable(info)
        return X, info

    @staticmethod
    def backward(ctx, g, _ginfo):
        X, = ctx.saved_tensors
        return -_C.matmul(X.mH, _C.matmul(g, X.mH))


def inv_ex(A, *, check_errors=False, out=None):
    """torch.linalg.inv_ex: (inverse, info) without a host sync."""
    fn = "linalg.inv_ex"
    _check_float(A, fn, "A")
    _check_matrix(A, fn, square=True)
    X, info = _LinalgInv.apply(A)
    if check_errors:
        _raise_singular(fn, info, _singular_msg)
    return _InvEx(X, info)


def inv(A, *, out=None):
    """torch.linalg.inv; LinAlgError naming the batch element of a singular matrix."""
    fn = "linalg.inv"
    _check_float(A, fn, "A")
    _check_matrix(A, fn, square=True)
    X, info = _LinalgInv.apply(A)
    _raise_singular(fn, info, _singular_msg)
    return _copy_out(X, out)


def _copy_out(r, out):
    if out is None:
        return r
    if tuple(out.shape) != tuple(r.shape):
        out.resize_(r.shape)
    out.copy_(r.detach())
    return out


# ---- determinants ---------------------------------------------------------------------------

def _lu_det_parts(A):
    """(sign of the permutation * sign of prod(diag U), log|prod diag U|, diag U) of A."""
    LU, piv, _ = _lu_factor_core(A)
    n = A.shape[-1]
    d = LU.diagonal(0, -2, -1)
    ar = _C.arange(1, n + 1, dtype=_C.int32, device=A.device)
    swaps = (piv != ar).to(_C.int64).sum(-1)
    psign = 1 - 2 * (swaps % 2).to(A.dtype)
    return psign, d


class _Det(Function):
    """det with torch's gradient g * conj(det) * A^{-H} (through a solve; at a singular A the
    gradient comes from the adjugate through an SVD, as torch's)."""

    @staticmethod
    def forward(ctx, A):
        if A.shape[-1] == 0:
            r = _C.ones(A.shape[:-2], dtype=A.dtype, device=A.device)
        else:
            psign, d = _lu_det_parts(A)
            r = psign * d.prod(-1)
        ctx.save_for_backward(A, r)
        return r

    @staticmethod
    def backward(ctx, g):
        A, d = ctx.saved_tensors
        if A.shape[-1] == 0:
            return _C.zeros_like(A)
        return _adjugate_t(A, d) * g.unsqueeze(-1).unsqueeze(-1)


def _adjugate_t(A, d):
    """adj(A)^H = conj(det(A)) * A^{-H}, also where A is singular (through the SVD:
    adj(A)^H = U diag(prod_{j != i} s_j) V^H * conj(det(U) det(V^H)))."""
    n = A.shape[-1]
    ok = d != 0
    if bool(ok.all()):
        return d.conj().unsqueeze(-1).unsqueeze(-1) * inv(A).mH
    U, S, Vh = svd(A)
    # prod_{j != i} s_j without dividing by zero
    Sx = S.unsqueeze(-2).expand(tuple(S.shape[:-1]) + (n, n))
    eye = _C.eye(n, dtype=_C.bool, device=A.device)
    prods = _C.where(eye, _C.ones_like(Sx), Sx).prod(-1)
    sgn = (det(U) * det(Vh)).conj()
    return (U * prods.unsqueeze(-2).to(U.dtype)) @ Vh * sgn.unsqueeze(-1).unsqueeze(-1)


def det(A, *, out=None):
    """torch.linalg.det: through the LU factorization (0 for a singular matrix)."""
    fn = "linalg.det"
    _check_float(A, fn, "A")
    _check_matrix(A, fn, square=True)
    return _copy_out(_Det.apply(A), out)


class _Logabsdet(Function):
    @staticmethod
    def forward(ctx, A):
        real = _real_dtype(A.dtype)
        if A.shape[-1] == 0:
            sign = _C.ones(A.shape[:-2], dtype=A.dtype, device=A.device)
            la = _C.zeros(A.shape[:-2], dtype=real, device=A.device)
        else:
            psign, d = _lu_det_parts(A)
            sign = psign * _C.sgn(d).prod(-1)
            la = d.abs().log().sum(-1)
        ctx.save_for_backward(A)
        ctx.mark_non_differentiable(sign)
        return sign, la

    @staticmethod
    def backward(ctx, _gsign, g):
        A, = ctx.saved_tensors
        if A.shape[-1] == 0:
            return _C.zeros_like(A)
        return g.unsqueeze(-1).unsqueeze(-1) * inv(A).mH


class _LogdetComplex(Function):
    """log(det(A)) = log(sign) + log|det| for complex A; log det is holomorphic, so the
    gradient is g * A^{-H} (torch's convention)."""

    @staticmethod
    def forward(ctx, A):
        sign, la = _Logabsdet.forward(ctx, A)
        return la.to(A.dtype) + _C.log(sign)

    @staticmethod
    def backward(ctx, g):
        A, = ctx.saved_tensors
        if A.shape[-1] == 0:
            return _C.zeros_like(A)
        return g.unsqueeze(-1).unsqueeze(-1) * inv(A).mH


def slogdet(A, *, out=None):
    """torch.linalg.slogdet: (sign, log|det|), through the LU factorization."""
    fn = "linalg.slogdet"
    _check_float(A, fn, "A")
    _check_matrix(A, fn, square=True)
    return _Slogdet(*_Logabsdet.apply(A))


def logdet(A):
    """torch.logdet: log(det(A)) (nan for a negative determinant, -inf for zero)."""
    _check_float(A, "logdet", "A")
    _check_matrix(A, "logdet", square=True)
    if A.dtype.is_complex:
        return _LogdetComplex.apply(A)
    sign, la = _Logabsdet.apply(A)
    nan = _C.full((), float("nan"), dtype=A.dtype, device=A.device)
    return _C.where(sign < 0, nan, la)


# ---- Cholesky -------------------------------------------------------------------------------

def _phi(X):
    """tril(X) with its diagonal halved."""
    return X.tril() - 0.5 * _diag_embed(X.diagonal(0, -2, -1))


class _Cholesky(Function):
    @staticmethod
    def forward(ctx, A, upper):
        X = _fclone(A)
        info = _L.cholesky_(X, upper)
        X = X.triu() if upper else X.tril()
        ctx.upper = upper
        ctx.save_for_backward(X)
        ctx.mark_non_differentiable(info)
        return X, info

    @staticmethod
    def backward(ctx, gL, _ginfo):
        L, = ctx.saved_tensors
        if ctx.upper:
            L, gL = L.mH, gL.mH
        # gA = L^{-H} phi(L^H gL) L^{-1}, made Hermitian (torch's cholesky_backward)
        P = _phi(_C.matmul(L.mH, gL))
        S = solve_triangular(L.mH, P, upper=True)           # L^{-H} P
        S = solve_triangular(L, S, upper=False, left=False)  # ... L^{-1}
        return 0.5 * (S + S.mH), None


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """torch.linalg.cholesky_ex: (L, info) without a host sync."""
    fn = "linalg.cholesky_ex"
    _check_float(A, fn, "A")
    _check_matrix(A, fn, square=True)
    L, info = _Cholesky.apply(A, bool(upper))
    if check_errors:
        _raise_singular(fn, info, _pd_msg)
    return _CholeskyEx(L, info)


def cholesky(A, *, upper=False, out=None):
    """torch.linalg.cholesky; LinAlgError when A is not positive-definite."""
    fn = "linalg.cholesky"
    _check_float(A, fn, "A")
    _check_matrix(A, fn, square=True)
    L, info = _Cholesky.apply(A, bool(upper))
    _raise_singular(fn, info, _pd_msg)
    return _copy_out(L, out)


def cholesky_solve(B, L, upper=False, *, out=None):
    """torch.cholesky_solve: X with A X = B, A = L L^H (or U^H U); differentiable (as the
    composition of two triangular solves)."""
    fn = "cholesky_solve"
    _check_float(B, fn, "B")
    _check_same(L, B, fn, "L", "B")
    if upper:
        Y = solve_triangular(L.mH, B, upper=False)
        return _copy_out(solve_triangular(L, Y, upper=True), out)
    Y = solve_triangular(L, B, upper=False)
    return _copy_out(solve_triangular(L.mH, Y, upper=True), out)


def cholesky_inverse(L, upper=False, *, out=None):
    """torch.cholesky_inverse: (L L^H)^{-1} from the factor."""
    n = L.shape[-1]
    return _copy_out(cholesky_solve(_eye_like(n, L, L.shape[:-2]), L, upper), out)


# ---- triangular solves ----------------------------------------------------------------------

def _trsm(A, B, upper, left, trans, unit):
    batch = _cbatch(A.shape[:-2], B.shape[:-2])
    X = _fclone(B, batch)
    Ab = _fclone(A, batch)
    _L.triangular_solve_(Ab, X, upper, left, trans, unit)
    return X


class _SolveTriangular(Function):
    @staticmethod
    def forward(ctx, A, B, upper, left, unit):
        X = _trsm(A, B, upper, left, False, unit)
        ctx.save_for_backward(A, X)
        ctx.flags = (upper, left, unit)
        return X

    @staticmethod
    def backward(ctx, g):
        A, X = ctx.saved_tensors
        upper, left, unit = ctx.flags
        gB = _SolveTriangular.apply(A.mH, g, not upper, left, unit)
        gA = None
        if ctx.needs_input_grad[0]:
            gA = -_C.matmul(gB, X.mH) if left else -_C.matmul(X.mH, gB)
            gA = gA.triu(1 if unit else 0) if upper else gA.tril(-1 if unit else 0)
        return gA, gB, None, None, None


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """torch.linalg.solve_triangular: X with AX = B (left) or XA = B, A triangular (only
    the `upper` or lower triangle is read)."""
    fn = "linalg.solve_triangular"
    _check_float(A, fn, "A")
    _check_same(A, B, fn)
    _check_matrix(A, fn, square=True)
    if B.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    n = A.shape[-1]
    if (left and B.shape[-2] != n) or (not left and B.shape[-1] != n):
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and "
                           f"{B.shape[-2]}x{B.shape[-1]})")
    return _copy_out(_SolveTriangular.apply(A, B, bool(upper), bool(left), bool(unitriangular)),
                     out)


# ---- QR -------------------------------------------------------------------------------------

def _qr_core(A, mode):
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    X = _fclone(A)
    tau = _L.geqrf_(X)
    R = X[..., :k, :] if mode != "complete" else X
    R = R.triu()
    if mode == "r":
        return None, R
    if mode == "complete" and m > n:
        Q = _C.zeros(tuple(A.shape[:-2]) + (m, m), dtype=A.dtype, device=A.device)
        Q[..., :, :n] = X
        Q = _fclone(Q)
        _L.orgqr_(Q, tau)
        return Q, R
    Q = _fclone(X[..., :, :k])
    _L.orgqr_(Q, tau)
    return Q, R


class _QRFn(Function):
    @staticmethod
    def forward(ctx, A, mode):
        Q, R = _qr_core(A, mode)
        ctx.mode = mode
        if Q is None:
            Q = _C.empty((0,), dtype=A.dtype, device=A.device)
        ctx.save_for_backward(Q, R)
        return Q, R

    @staticmethod
    def backward(ctx, gQ, gR):
        Q, R = ctx.saved_tensors
        m, n = Q.shape[-2], R.shape[-1]
        if ctx.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                               "when mode='r'. Please use linalg.qr(A, mode='reduced') if you "
                               "are going to differentiate through linalg.qr.")
        if ctx.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                               "and nrows > ncols.")
        if m >= n:
            return _qr_back_tall(Q, R, gQ, gR), None
        # m < n: A = Q [X | Y] with X square: Y = Q V contributes to gQ.
        X, V = R[..., :, :m], R[..., :, m:]
        gX, gV = gR[..., :, :m], gR[..., :, m:]
        gA_x = _qr_back_tall(Q, X, gQ + _C.matmul(_C.matmul(Q, V), gV.mH), gX)
        gA_y = _C.matmul(Q, gV)
        return _C.cat([gA_x, gA_y], -1), None


def _qr_back_tall(Q, R, gQ, gR):
    """torch's linalg_qr_backward for m >= n (reduced): gA = [gQ + Q sym(triu(M))] R^{-H},
    M = gR R^H - Q^H gQ, sym(X) = X + X^H with the diagonal once (its real part)."""
    M = _C.matmul(gR, R.mH) - _C.matmul(Q.mH, gQ)
    M = M.triu()
    d = M.diagonal(0, -2, -1)
    if M.dtype.is_complex:
        d = d.real.to(M.dtype)
    S = M.triu(1) + M.triu(1).mH + _diag_embed(d)
    gA = _C.matmul(Q, S) + gQ
    return solve_triangular(R.mH, gA, upper=False, left=False)


def qr(A, mode="reduced", *, out=None):
    """torch.linalg.qr: (Q, R) by Householder QR (geqrf + orgqr); mode 'reduced',
    'complete' or 'r' (Q empty)."""
    fn = "linalg.qr"
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    _check_float(A, fn, "A")
    _check_matrix(A, fn)
    Q, R = _QRFn.apply(A, mode)
    return _QR(Q, R)


def geqrf(input, *, out=None):
    """torch.geqrf: (a, tau), LAPACK's Householder representation (not differentiable)."""
    _check_float(input, "geqrf", "input")
    _check_matrix(input, "geqrf", what="input")
    X = _fclone(_detached(input))
    tau = _L.geqrf_(X)
    return _rt("geqrf", ["a", "tau"])(X, tau)


def householder_product(A, tau, *, out=None):
    """torch.linalg.householder_product (orgqr): the first n columns of H_1 ... H_k."""
    fn = "torch.linalg.householder_product"
    _check_float(A, fn, "A")
    _check_same(A, tau, fn, "input", "tau")
    if A.dim() < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{fn}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if tau.shape[-1] > A.shape[-1]:
        raise RuntimeError(f"{fn}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    X = _fclone(_detached(A))
    _L.orgqr_(X, _detached(tau).contiguous())
    return _copy_out(X, out)


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """torch.ormqr: op(Q) @ other (left) or other @ op(Q), Q from geqrf's (input, tau)."""
    fn = "torch.ormqr"
    _check_float(input, fn, "input")
    _check_same(input, other, fn, "input", "other")
    batch = _cbatch(input.shape[:-2], other.shape[:-2])
    C = _fclone(_detached(other), batch)
    Ab = _fclone(_detached(input), batch)
    taub = _detached(tau).expand(batch + (tau.shape[-1],)).contiguous()
    _L.ormqr_(Ab, taub, C, bool(left), bool(transpose))
    return _copy_out(C, out)


# ---- symmetric eigenproblem -----------------------------------------------------------------

def _check_uplo(UPLO):
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO in ("U", "u")


class _EighFn(Function):
    @staticmethod
    def forward(ctx, A, upper, vectors):
        X = _fclone(A)
        w, info = _L.syevd_(X, upper, vectors)
        ctx.save_for_backward(w, X if vectors else w)
        ctx.mark_non_differentiable(info)
        return w, (X if vectors else w), info

    @staticmethod
    def backward(ctx, gw, gV, _ginfo):
        w, V = ctx.saved_tensors
        # torch's eigh backward: gA = V (diag(gw) + (V^H gV) / E) V^H, E_ij = w_j - w_i.
        inner = _diag_embed(gw) if gw is not None else None
        if gV is not None and V.dim() == w.dim() + 1:
            E = w.unsqueeze(-2) - w.unsqueeze(-1)
            n = w.shape[-1]
            eye = _C.eye(n, dtype=_C.bool, device=w.device)
            VtgV = _C.matmul(V.mH, gV)
            off = _C.where(eye, _C.zeros_like(VtgV), VtgV / _C.where(eye, _C.ones_like(E), E))
            inner = off if inner is None else inner + off
        if inner is None:
            return None, None, None
        return _C.matmul(V, _C.matmul(inner.to(V.dtype), V.mH)), None, None


def _eigh_impl(A, UPLO, vectors, fn):
    upper = _check_uplo(UPLO)
    _check_float(A, fn, "A")
    _check_matrix(A, fn, square=True)
    w, V, info = _EighFn.apply(A, upper, vectors)
    f = _first_failure(info)
    if f is not None:
        raise LinAlgError(f"{fn}: {_batch_str(info, f[0])}The algorithm failed to converge "
                          "because the input matrix is ill-conditioned or has too many repeated "
                          f"eigenvalues (error code: {f[1]}).")
    return w, V


def eigh(A, UPLO="L", *, out=None):
    """torch.linalg.eigh: (eigenvalues ascending, eigenvectors) of a symmetric matrix,
    read from its UPLO triangle (syevd; syevjBatched for batches of small matrices on the GPU)."""
    w, V = _eigh_impl(A, UPLO, True, "linalg.eigh")
    return _Eigh(w, V)


def eigvalsh(A, UPLO="L", *, out=None):
    """torch.linalg.eigvalsh: the eigenvalues (eigenvectors computed only for autograd)."""
    need = _C.is_grad_enabled() and isinstance(A, _Tensor) and A.requires_grad
    w, _ = _eigh_impl(A, UPLO, need, "linalg.eigvalsh")
    return _copy_out(w, out)


# ---- nonsymmetric eigenproblem --------------------------------------------------------------

def _geev(A, vectors):
    """(w, V or None, info) of A by geev: LAPACK on the CPU, cuSOLVER's Xgeev on the GPU (the
    core falls back to LAPACK on the host when the loaded cuSOLVER lacks it)."""
    return _L.geev_(_fclone(A), vectors)


class _EigFn(Function):
    @staticmethod
    def forward(ctx, A, vectors):
        w, V, info = _geev(A, vectors)
        ctx.real_input = not A.dtype.is_complex
        ctx.vectors = vectors
        ctx.save_for_backward(w, V if vectors else w)
        ctx.mark_non_differentiable(info)
        return w, (V if vectors else w), info

    @staticmethod
    def backward(ctx, gw, gV, _ginfo):
        # torch's linalg_eig_backward: gA = V^{-H} (diag(gw) + (V^H gV - V^H V diag(re(V^H gV)))
        # / conj(E)) V^H, E_ij = w_j - w_i.
        w, V = ctx.saved_tensors
        if not ctx.vectors:
            raise RuntimeError("linalg.eigvals: the eigenvectors were not computed; call "
                               "linalg.eig to differentiate")
        if gw is None and gV is None:
            return None, None
        Vh = V.mH
        n = w.shape[-1]
        if gV is not None:
            VhgV = _C.matmul(Vh, gV)
            d = VhgV.diagonal(0, -2, -1)
            if n and bool((d.imag.abs() > 1e-2 * (1 + d.abs())).any()):
                raise RuntimeError(
                    "linalg_eig_backward: The eigenvectors in the complex case are specified up "
                    "to multiplication by e^{i phi}. The specified loss function depends on this "
                    "quantity, so it is ill-defined.")
            inner = VhgV - _C.matmul(Vh, V * d.real.unsqueeze(-2).to(V.dtype))
            E = (w.unsqueeze(-2) - w.unsqueeze(-1)).conj()
            eye = _C.eye(n, dtype=_C.bool, device=w.device)
            inner = _C.where(eye, _C.zeros_like(inner), inner / _C.where(eye, _C.ones_like(E), E))
            if gw is not None:
                inner = inner + _diag_embed(gw)
        else:
            inner = _diag_embed(gw)
        gA = solve(Vh, _C.matmul(inner, Vh))
        return (gA.real if ctx.real_input else gA), None


def _eig_impl(A, vectors, fn):
    _check_float(A, fn, "A")
    _check_matrix(A, fn, square=True)
    bad = None
    if A.numel() and not bool(_C.isfinite(A.detach()).all()):
        if vectors:
            raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
        # eigvals: NaN eigenvalues for those matrices, as torch's (LAPACK would reject them)
        bad = ~_C.isfinite(A.detach()).all(-1).all(-1)
        A = _C.where(bad.unsqueeze(-1).unsqueeze(-1), _C.zeros_like(A), A)
    w, V, info = _EigFn.apply(A, vectors)
    if bad is not None:
        w = _C.where(bad.unsqueeze(-1), w * float("nan"), w)
    f = _first_failure(info)
    if f is not None:
        raise LinAlgError(f"{fn}: {_batch_str(info, f[0])}The algorithm failed to converge "
                          "because the input matrix is ill-conditioned or has too many repeated "
                          f"eigenvalues (error code: {f[1]}).")
    return w, V


def eig(A, *, out=None):
    """torch.linalg.eig: (eigenvalues, eigenvectors), complex (complex64 for float32 and
    complex64 input, complex128 otherwise), by geev (LAPACK's, cuSOLVER's Xgeev on the GPU):
    the eigenvectors have unit 2-norm and their largest component real, as torch's."""
    w, V = _eig_impl(A, True, "linalg.eig")
    if out is not None:
        _copy_out(w, out[0])
        _copy_out(V, out[1])
        return _Eig(out[0], out[1])
    return _Eig(w, V)


def eigvals(A, *, out=None):
    """torch.linalg.eigvals: the complex eigenvalues (the eigenvectors are computed only
    for autograd)."""
    need = _C.is_grad_enabled() and isinstance(A, _Tensor) and A.requires_grad
    w, _ = _eig_impl(A, need, "linalg.eigvals")
    return _copy_out(w, out)


# ---- SVD ------------------------------------------------------------------------------------

class _SVDFn(Function):
    @staticmethod
    def forward(ctx, A, full, vectors):
        m, n = A.shape[-2], A.shape[-1]
        k = min(m, n)
        batch = tuple(A.shape[:-2])
        if k == 0:
            S = _C.empty(batch + (0,), dtype=_real_dtype(A.dtype), device=A.device)
            info = _C.zeros(batch, dtype=_C.int32, device=A.device)
            if not vectors:
                U = Vh = _C.empty((0,), dtype=A.dtype, device=A.device)
            elif full:
                U = _eye_like(m, A, batch).contiguous()
                Vh = _eye_like(n, A, batch).contiguous()
            else:
                U = _C.empty(batch + (m, 0), dtype=A.dtype, device=A.device)
                Vh = _C.empty(batch + (0, n), dtype=A.dtype, device=A.device)
        elif A.is_cuda and A.is_complex():
            # cuSOLVER's complex gesvdj path gave vectors that do not reconstruct A on the
            # H100 (not found yet): complex SVDs of CUDA tensors run LAPACK on the host
            U, S, Vh, info = (None if t is None else t.to(A.device)
                               for t in _L.svd_(_fclone(A.cpu()), full, vectors))
            if not vectors:
                U = Vh = _C.empty((0,), dtype=A.dtype, device=A.device)
        else:
            U, S, Vh, info = _L.svd_(_fclone(A), full, vectors)
            if not vectors:
                U = Vh = _C.empty((0,), dtype=A.dtype, device=A.device)
        ctx.vectors, ctx.full = vectors, full
        ctx.save_for_backward(U, S, Vh)
        ctx.mark_non_differentiable(info)
        return U, S, Vh, info

    @staticmethod
    def backward(ctx, gU, gS, gVh, _ginfo):
        U, S, Vh = ctx.saved_tensors
        if not ctx.vectors:
            raise RuntimeError("linalg.svd: the singular vectors were not computed; call "
                               "linalg.svd to differentiate through them")
        return _svd_backward(U, S, Vh, gU, gS, gVh), None, None


def _svd_backward(U, S, Vh, gU, gS, gVh):
    """torch's svd_backward: reduced U, S, Vh; full ones are narrowed first. Complex: the
    adjoints, and i Im(diag(U^H gU)) / S on the diagonal (the phase of the vectors)."""
    m, n = U.shape[-2], Vh.shape[-1]
    k = S.shape[-1]
    U, Vh = U[..., :, :k], Vh[..., :k, :]
    gU = gU[..., :, :k] if gU is not None else None
    gVh = gVh[..., :k, :] if gVh is not None else None
    V = Vh.mH
    cplx = U.dtype.is_complex
    if gU is None and gVh is None:
        return _C.matmul(U * gS.unsqueeze(-2).to(U.dtype), Vh)
    eye = _C.eye(k, dtype=_C.bool, device=S.device)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1)
    E = _C.where(eye, _C.ones_like(E), E)
    inner = _C.zeros(tuple(S.shape) + (k,), dtype=U.dtype, device=S.device)
    J = None
    if gU is not None:
        J = _C.matmul(U.mH, gU)
        inner = inner + (J - J.mH) * S.unsqueeze(-2)
    if gVh is not None:
        gV = gVh.mH
        K = _C.matmul(V.mH, gV)
        inner = inner + S.unsqueeze(-1) * (K - K.mH)
    inner = _C.where(eye, _C.zeros_like(inner), inner / E)
    if gS is not None:
        inner = inner + _diag_embed(gS).to(U.dtype)
    if cplx and J is not None:
        imd = J.diagonal(0, -2, -1).imag / S
        inner = inner + _diag_embed(_C.complex(_C.zeros_like(imd), imd))
    gA = _C.matmul(U, _C.matmul(inner, Vh))
    if m > k and gU is not None:
        proj = gU - _C.matmul(U, _C.matmul(U.mH, gU))
        gA = gA + _C.matmul(proj / S.unsqueeze(-2), Vh)
    if n > k and gVh is not None:
        gV = gVh.mH
        proj = gV - _C.matmul(V, _C.matmul(V.mH, gV))
        gA = gA + _C.matmul(U / S.unsqueeze(-2), proj.mH)
    return gA


def _svd_impl(A, full, vectors, fn):
    _check_float(A, fn, "A")
    _check_matrix(A, fn)
    U, S, Vh, info = _SVDFn.apply(A, bool(full), vectors)
    f = _first_failure(info)
    if f is not None:
        raise LinAlgError(f"{fn}: {_batch_str(info, f[0])}The algorithm failed to converge "
                          "because the input matrix is ill-conditioned or has too many repeated "
                          f"singular values (error code: {f[1]}).")
    return U, S, Vh


def svd(A, full_matrices=True, *, driver=None, out=None):
    """torch.linalg.svd: (U, S, Vh), gesdd on the CPU, gesvdj on the GPU."""
    U, S, Vh = _svd_impl(A, full_matrices, True, "linalg.svd")
    return _SVD(U, S, Vh)


def svdvals(A, *, driver=None, out=None):
    """torch.linalg.svdvals (the vectors are computed only for autograd)."""
    need = _C.is_grad_enabled() and isinstance(A, _Tensor) and A.requires_grad
    _, S, _ = _svd_impl(A, False, need, "linalg.svdvals")
    return _copy_out(S, out)


# ---- least squares, pinv, rank --------------------------------------------------------------

def _eps(dtype):
    return 1.1920928955078125e-07 if dtype in (_C.float32, _C.complex64) \
        else 2.220446049250313e-16


def _real_dtype(dtype):
    return {_C.complex64: _C.float32, _C.complex128: _C.float64}.get(dtype, dtype)


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """torch.linalg.pinv through the SVD (eigh when hermitian); singular values below
    max(atol, rtol * s_max) are dropped. Differentiable as the composition."""
    fn = "linalg.pinv"
    _check_float(A, fn, "input")
    _check_matrix(A, fn, what="input")
    m, n = A.shape[-2], A.shape[-1]
    if A.numel() == 0:
        return _C.zeros(tuple(A.shape[:-2]) + (n, m), dtype=A.dtype, device=A.device)
    if hermitian:
        w, V = eigh(A)
        s = w.abs()
    else:
        U, s, Vh = svd(A, full_matrices=False)
    smax = s.amax(-1, keepdim=True)
    tol = _tolerance(A, smax, atol, rtol)
    keep = s > tol
    sinv = _C.where(keep, 1.0 / _C.where(keep, s, _C.ones_like(s)), _C.zeros_like(s))
    if hermitian:
        winv = _C.where(keep, 1.0 / _C.where(keep, w, _C.ones_like(w)), _C.zeros_like(w))
        return _copy_out(_C.matmul(V * winv.unsqueeze(-2).to(V.dtype), V.mH), out)
    return _copy_out(_C.matmul(Vh.mH * sinv.unsqueeze(-2).to(Vh.dtype), U.mH), out)


def _tolerance(A, smax, atol, rtol):
    if rtol is None:
        rtol = 0.0 if (atol is not None and (not isinstance(atol, (int, float)) or atol > 0)) \
            else _eps(A.dtype) * max(A.shape[-2], A.shape[-1])
    at = 0.0 if atol is None else atol
    if isinstance(at, _Tensor):
        at = at.unsqueeze(-1) if at.dim() > 0 else at
    if isinstance(rtol, _Tensor):
        rtol = rtol.unsqueeze(-1) if rtol.dim() > 0 else rtol
    return _C.maximum(rtol * smax, at * _C.ones_like(smax)) if isinstance(at, _Tensor) \
        else _C.clamp(rtol * smax, min=at)


def pinverse(input, rcond=1e-15):
    """torch.pinverse: pinv with rtol=rcond."""
    return pinv(input, rtol=rcond)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None, out=None):
    """torch.linalg.matrix_rank: singular values above max(atol, rtol * s_max)."""
    fn = "linalg.matrix_rank"
    _check_float(A, fn, "input")
    _check_matrix(A, fn, what="input")
    if tol is not None:
        atol, rtol = tol, 0.0
    s = eigvalsh(A).abs() if hermitian else svdvals(A)
    if s.shape[-1] == 0:
        return _C.zeros(tuple(A.shape[:-2]), dtype=_C.int64, device=A.device)
    tolv = _tolerance(A, s.amax(-1, keepdim=True), atol, rtol)
    return (s > tolv).to(_C.int64).sum(-1)


def lstsq(A, B, rcond=None, *, driver=None):
    """torch.linalg.lstsq: (solution, residuals, rank, singular_values). CPU drivers gelsy
    (default), gels, gelsd, gelss; the GPU's is gels (QR, full-rank A with m >= n), as
    torch's. Differentiable through pinv(A) @ B."""
    fn = "torch.linalg.lstsq"
    _check_float(A, fn, "A")
    _check_same(A, B, fn, "self", "b")
    _check_matrix(A, fn)
    vector = B.dim() == A.dim() - 1
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.dim() < 2 or Bm.shape[-2] != A.shape[-2]:
        raise RuntimeError(f"{fn}: input.size(-2) should match other.size(-2)")
    m, n = A.shape[-2], A.shape[-1]
    cuda = A.device.type == "cuda"
    if driver is None:
        driver = "gels" if cuda else "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"{fn}: parameter `driver` should be one of (gels, gelsy, gelsd, "
                           f"gelss)")
    if cuda and driver != "gels":
        raise RuntimeError(f"{fn}: `driver` other than `gels` is not supported on CUDA")
    if A.dtype.is_complex and driver != "gels":
        return _lstsq_svd(A, Bm, rcond, driver, vector)
    batch = _cbatch(A.shape[:-2], Bm.shape[:-2])
    nrhs = Bm.shape[-1]
    Ad, Bd = _detached(A), _detached(Bm)
    rank = sv = None
    if cuda:
        if m < n:
            raise RuntimeError(f"{fn}: only overdetermined systems (input.size(-2) >= "
                               "input.size(-1)) are allowed on CUDA")
        X = _gels_qr(Ad.expand(batch + (m, n)), Bd.expand(batch + (m, nrhs)))
    else:
        rc = -1.0 if rcond is None else float(rcond)
        if rcond is None and driver in ("gelsy", "gelsd", "gelss"):
            rc = _eps(A.dtype) * max(m, n)
        Af = _fclone(Ad, batch)
        Bp = _C.zeros(batch + (max(m, n), nrhs), dtype=A.dtype, device=A.device)
        Bp[..., :m, :] = Bd.expand(batch + (m, nrhs))
        Bf = _fclone(Bp)
        rank, sv, info = _L.lstsq_(Af, Bf, driver, rc)
        if driver == "gels":
            _raise_singular(fn, info, lambda v: "The least squares solution could not be "
                            "computed because the input matrix does not have full rank "
                            f"(error code: {v}).")
        X = Bf[..., :n, :]
    if _C.is_grad_enabled() and (A.requires_grad or B.requires_grad):
        X = _C.matmul(pinv(A), Bm)
    residuals = _C.empty((0,), dtype=_real_dtype(A.dtype), device=A.device)
    if m > n and driver != "gelsy":
        full = rank is None or bool((rank == n).all())
        if full:
            r = _C.matmul(A, X) - Bm
            residuals = (r.abs() ** 2 if r.dtype.is_complex else r * r).sum(-2)
    if vector:
        X = X.squeeze(-1)
        if residuals.numel():
            residuals = residuals.squeeze(-1)
    if rank is None:
        rank = _C.empty((0,), dtype=_C.int64, device=A.device)
    if sv is None:
        sv = _C.empty((0,), dtype=_real_dtype(A.dtype), device=A.device)
    return _Lstsq(X, residuals, rank, sv)


def _lstsq_svd(A, Bm, rcond, driver, vector):
    """Complex gelsy/gelsd/gelss (the LAPACK wrappers have complex gels only): the
    minimum-norm solution through the SVD, singular values below rcond * s_max dropped, as
    those drivers compute it; rank for all three, the singular values for gelsd/gelss."""
    m, n = A.shape[-2], A.shape[-1]
    rc = _eps(A.dtype) * max(m, n) if rcond is None or rcond < 0 else float(rcond)
    U, s, Vh = svd(A, full_matrices=False)
    if s.shape[-1] == 0:
        rank = _C.zeros(tuple(A.shape[:-2]), dtype=_C.int64, device=A.device)
        batch = _cbatch(A.shape[:-2], Bm.shape[:-2])
        X = _C.zeros(batch + (n, Bm.shape[-1]), dtype=A.dtype, device=A.device)
    else:
        keep = s > rc * s.amax(-1, keepdim=True)
        sinv = _C.where(keep, 1.0 / _C.where(keep, s, _C.ones_like(s)), _C.zeros_like(s))
        X = _C.matmul(Vh.mH * sinv.unsqueeze(-2).to(A.dtype), _C.matmul(U.mH, Bm))
        rank = keep.to(_C.int64).sum(-1)
    residuals = _C.empty((0,), dtype=_real_dtype(A.dtype), device=A.device)
    if m > n and driver != "gelsy" and bool((rank == n).all()):
        r = _C.matmul(A, X) - Bm
        residuals = (r.abs() ** 2).sum(-2)
    if vector:
        X = X.squeeze(-1)
        if residuals.numel():
            residuals = residuals.squeeze(-1)
    sv = s if driver in ("gelsd", "gelss") else \
        _C.empty((0,), dtype=_real_dtype(A.dtype), device=A.device)
    return _Lstsq(X, residuals, rank, sv)


def _gels_qr(A, B):
    """min ||AX - B|| for full-rank A (m >= n): R^{-1} (Q^T B)[:n] (geqrf, ormqr, trsm)."""
    n = A.shape[-1]
    X = _fclone(A)
    tau = _L.geqrf_(X)
    C = _fclone(B)
    _L.ormqr_(X, tau, C, True, True)
    R = _fclone(X[..., :n, :])
    Y = _fclone(C[..., :n, :])
    _L.triangular_solve_(R, Y, True, True, False, False)
    return Y


# ---- LU with P, L, U and LDL ----------------------------------------------------------------

def _pivots_to_perm(piv, m):
    """LAPACK's row swaps -> the permutation matrix P with A = P L U."""
    k = piv.shape[-1]
    batch = tuple(piv.shape[:-1])
    perm = _C.arange(m, device="cpu").expand(batch + (m,)).contiguous()
    p = piv.to(_C.int64).cpu() - 1
    pl = perm.reshape(-1, m).tolist()
    sw = p.reshape(-1, k).tolist() if k else [[] for _ in pl]
    for row, s in zip(pl, sw):
        for i, j in enumerate(s):
            row[i], row[j] = row[j], row[i]
    perm = _C.tensor(pl, dtype=_C.int64).reshape(batch + (m,)).to(piv.device)
    # P[..., perm[i], i] = 1
    eye = _C.eye(m, dtype=_C.float64, device=piv.device)
    return eye[perm].mT


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """torch.lu_unpack: (P, L, U) from lu_factor's (LU, pivots)."""
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    P = L = U = _C.empty((0,), dtype=LU_data.dtype, device=LU_data.device)
    if unpack_data:
        L = LU_data[..., :, :k].tril(-1) + _C.eye(m, k, dtype=LU_data.dtype,
                                                  device=LU_data.device)
        U = LU_data[..., :k, :].triu()
    if unpack_pivots:
        P = _pivots_to_perm(LU_pivots, m).to(LU_data.dtype)
    return _rt("lu_unpack", ["P", "L", "U"])(P, L, U)


def lu(A, *, pivot=True, out=None):
    """torch.linalg.lu: (P, L, U) with A = P L U (not differentiable in ember yet)."""
    fn = "linalg.lu"
    _check_float(A, fn, "A")
    _check_matrix(A, fn)
    LU, piv, _ = lu_factor_ex(A, pivot=pivot)
    P, L, U = lu_unpack(LU, piv)
    return _LU(P, L, U)


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """torch.linalg.ldl_factor_ex (LAPACK sytrf, lower triangle); on the GPU the factor is
    computed on the CPU and copied back."""
    fn = "torch.linalg.ldl_factor_ex"
    _check_float(A, fn, "A")
    _check_matrix(A, fn, square=True)
    dev = A.device
    X = _fclone(_detached(A).cpu())
    piv, info = _L.ldl_factor_(X, False, bool(hermitian))
    if check_errors:
        _raise_singular(fn, info, lambda v: f"The factorization could not be completed "
                        f"(error code: {v}).")
    # torch zeroes the upper triangle (LAPACK leaves A's there)
    return _LDLFactorEx(X.tril().to(dev), piv.to(dev), info.to(dev))


def ldl_factor(A, *, hermitian=False, out=None):
    """torch.linalg.ldl_factor."""
    LD, piv, info = ldl_factor_ex(A, hermitian=hermitian)
    _raise_singular("torch.linalg.ldl_factor", info, lambda v: "The factorization could not be "
                    f"completed because the input is not invertible (error code: {v}).")
    return _LDLFactor(LD, piv)


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """torch.linalg.ldl_solve from ldl_factor's (LD, pivots) (sytrs, on the CPU)."""
    fn = "torch.linalg.ldl_solve"
    _check_float(LD, fn, "LD")
    _check_same(LD, B, fn, "LD", "B")
    dev = B.device
    batch = _cbatch(LD.shape[:-2], B.shape[:-2])
    n = LD.shape[-1]
    X = _fclone(_detached(B).cpu(), batch)
    LDb = _fclone(_detached(LD).cpu(), batch)
    _L.ldl_solve_(LDb, pivots.cpu().expand(batch + (n,)).contiguous(), X, False,
                  bool(hermitian))
    return _copy_out(X.to(dev), out)


# ---- norms ----------------------------------------------------------------------------------

def _dims(dim, nd):
    if dim is None:
        return None
    if isinstance(dim, int):
        dim = (dim,)
    return tuple(d % nd if nd else d for d in dim)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """torch.linalg.vector_norm: sum(|x|^ord)^(1/ord) over dim (all dims by default);
    inf/-inf: max/min |x|, 0: the count of nonzeros."""
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_tname(x.dtype)}")
    if dtype is not None:
        x = x.to(dtype)
    a = x.abs()
    kw = {} if dim is None else {"dim": _dims(dim, x.dim()), "keepdim": keepdim}
    if dim is None and keepdim:
        kw = {"dim": tuple(range(x.dim())), "keepdim": True}
    if ord == math.inf:
        r = a.amax(**kw) if kw else a.amax()
    elif ord == -math.inf:
        r = a.amin(**kw) if kw else a.amin()
    elif ord == 0:
        r = (a != 0).to(a.dtype).sum(**kw)
    elif ord == 1:
        r = a.sum(**kw)
    elif ord == 2:
        r = _C.norm(x, 2, **({"dim": kw["dim"], "keepdim": keepdim} if kw else {}))
    else:
        r = (a ** ord).sum(**kw) ** (1.0 / ord)
    return _copy_out(r, out)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """torch.linalg.matrix_norm: 'fro', 'nuc', inf, -inf, 1, -1, 2, -2."""
    fn = "linalg.matrix_norm"
    _check_float(A, fn, "A")
    if A.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if dtype is not None:
        A = A.to(dtype)
    d0, d1 = (d % A.dim() for d in dim)
    if ord == "fro":
        r = vector_norm(A, 2, (d0, d1), keepdim)
    elif ord in ("nuc", 2, -2):
        M = A.movedim((d0, d1), (-2, -1))
        s = svdvals(M)
        r = s.sum(-1) if ord == "nuc" else (s.amax(-1) if ord == 2 else s.amin(-1))
        if keepdim:
            r = r.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
    elif ord in (1, -1, math.inf, -math.inf):
        sum_dim, red_dim = (d0, d1) if ord in (1, -1) else (d1, d0)
        s = A.abs().sum(sum_dim, keepdim=True)
        r = s.amax(red_dim, keepdim=True) if ord > 0 else s.amin(red_dim, keepdim=True)
        if not keepdim:
            r = r.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    return _copy_out(r, out)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """torch.linalg.norm: vector_norm or matrix_norm by ord and dim, as torch's."""
    if dim is not None and isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        if dim is None:
            return vector_norm(A.reshape(-1) if not keepdim else A, 2, None, keepdim,
                               dtype=dtype, out=out)
        return vector_norm(A, 2, dim, keepdim, dtype=dtype, out=out)
    if isinstance(ord, str) or (dim is not None and len(dim) == 2) or \
            (dim is None and A.dim() == 2):
        return matrix_norm(A, ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype,
                           out=out)
    return vector_norm(A, ord, dim, keepdim, dtype=dtype, out=out)


def cond(A, p=None, *, out=None):
    """torch.linalg.cond: ||A|| ||A^{-1}|| (p None/2/-2 through the singular values)."""
    fn = "linalg.cond"
    _check_float(A, fn, "A")
    _check_matrix(A, fn)
    if p in (None, 2, -2):
        s = svdvals(A)
        r = s.amax(-1) / s.amin(-1) if p in (None, 2) else s.amin(-1) / s.amax(-1)
        return _copy_out(r, out)
    _check_matrix(A, fn, square=True)
    Ainv, info = inv_ex(A)
    r = matrix_norm(A, p) * matrix_norm(Ainv, p)
    inf = _C.full((), float("inf"), dtype=A.dtype, device=A.device)
    return _copy_out(_C.where(info.reshape(r.shape) != 0, inf, r), out)


# ---- products and helpers -------------------------------------------------------------------

def matmul(input, other, *, out=None):
    """torch.linalg.matmul: the same as ember.matmul."""
    return _C.matmul(input, other, out=out)


def vecdot(x, y, *, dim=-1, out=None):
    """torch.linalg.vecdot: sum(x * y, dim) with broadcasting."""
    return _copy_out((x * y).sum(dim), out)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """torch.linalg.diagonal: A.diagonal with matrix dims last by default."""
    return A.diagonal(offset, dim1, dim2)


def multi_dot(tensors, *, out=None):
    """torch.linalg.multi_dot: the chain product in the cheapest order (1-D ends are
    vectors)."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    ts = list(tensors)
    first_1d, last_1d = ts[0].dim() == 1, ts[-1].dim() == 1
    if first_1d:
        ts[0] = ts[0].unsqueeze(0)
    if last_1d:
        ts[-1] = ts[-1].unsqueeze(-1)
    for i, t in enumerate(ts):
        if t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    dims = [ts[0].shape[0]] + [t.shape[1] for t in ts]
    # classic matrix-chain dynamic programming
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def prod(i, j):
        if i == j:
            return ts[i]
        k = split[i][j]
        return _C.matmul(prod(i, k), prod(k + 1, j))

    r = prod(0, n - 1)
    if first_1d:
        r = r.squeeze(0)
    if last_1d:
        r = r.squeeze(-1)
    return _copy_out(r, out)


def chain_matmul(*matrices, out=None):
    """torch.chain_matmul (deprecated alias of multi_dot on matrices)."""
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(matrices, out=out)


def matrix_power(A, n, *, out=None):
    """torch.linalg.matrix_power; negative n through the inverse."""
    from ember._composite_linalg import matrix_power as _mp
    if int(n) < 0:
        _check_float(A, "linalg.matrix_power", "A")
        _check_matrix(A, "linalg.matrix_power", square=True)
        return _mp(inv(A), -int(n), out=out)
    return _mp(A, n, out=out)


def matrix_exp(A):
    """torch.linalg.matrix_exp: scaling and squaring with a degree-13 Pade approximant
    (Higham 2005), differentiable as the composition (solve, matmul)."""
    fn = "linalg.matrix_exp"
    _check_float(A, fn, "A")
    _check_matrix(A, fn, square=True)
    n = A.shape[-1]
    if n == 0:
        return A.clone()
    b = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
         129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
         40840800., 960960., 16380., 182., 1.)
    norm1 = A.detach().abs().sum(-2).amax(-1)
    theta = 5.371920351148152
    s = int(max(0, math.ceil(math.log2(max(float(norm1.amax()), 1e-300) / theta)))) \
        if A.numel() else 0
    X = A / (2.0 ** s) if s else A
    eye = _eye_like(n, A)
    X2 = _C.matmul(X, X)
    X4 = _C.matmul(X2, X2)
    X6 = _C.matmul(X4, X2)
    U = _C.matmul(X, _C.matmul(X6, b[13] * X6 + b[11] * X4 + b[9] * X2) +
                  b[7] * X6 + b[5] * X4 + b[3] * X2 + b[1] * eye)
    V = _C.matmul(X6, b[12] * X6 + b[10] * X4 + b[8] * X2) + b[6] * X6 + b[4] * X4 + \
        b[2] * X2 + b[0] * eye
    R = solve(V - U, V + U)
    for _ in range(s):
        R = _C.matmul(R, R)
    return R


def tensorinv(A, ind=2, *, out=None):
    """torch.linalg.tensorinv: the inverse of A seen as a prod(shape[:ind]) square matrix."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    out_shape = tuple(A.shape[ind:]) + tuple(A.shape[:ind])
    rows = math.prod(A.shape[:ind])
    cols = math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           "prod(self.shape[:ind]), but got "
                           f"{cols} != {rows}")
    return _copy_out(inv(A.reshape(rows, cols)).reshape(out_shape), out)


def tensorsolve(A, B, dims=None, *, out=None):
    """torch.linalg.tensorsolve: X with tensordot(A, X, X.dim()) = B."""
    if dims is not None:
        nd = A.dim()
        dims = [d % nd for d in dims]
        rest = [d for d in range(nd) if d not in dims]
        A = A.permute(rest + dims)
    xshape = tuple(A.shape[B.dim():])
    rows = B.numel()
    cols = math.prod(xshape)
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:"
                           "]) == prod(self.shape[:other.ndim]), but got "
                           f"{cols} != {rows}")
    return _copy_out(solve(A.reshape(rows, cols), B.reshape(rows)).reshape(xshape), out)


def vander(x, *, N=None):
    """torch.linalg.vander: columns x^0, x^1, ..., x^(N-1) (increasing powers)."""
    if x.dim() < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension")
    n = x.shape[-1] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if n == 0:
        return _C.empty(tuple(x.shape) + (0,), dtype=x.dtype, device=x.device)
    p = _C.arange(n, device=x.device)
    return x.unsqueeze(-1) ** p.to(x.dtype if x.dtype.is_floating_point else _C.int64)


# torch.return_types' tuples that the functions above make on first use, made at import so
# that ember._C.return_types (and its stubs) hold them from the start.
for _name, _fields in (("geqrf", ["a", "tau"]), ("lu_unpack", ["P", "L", "U"]),
                       ("svd", ["U", "S", "V"])):
    _rt(_name, _fields)
del _name, _fields
