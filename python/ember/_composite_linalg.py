"""torch's products and distances that are compositions of ember's bound ops: trace, inner,
kron, tensordot, addr, addbmm, addmv_, adjoint, matrix_power, vander, dist, cdist, pdist,
renorm, cosine_similarity, pairwise_distance.

Products reduce to matmul/mm/bmm (cuBLAS on the GPU) after views and reshapes; distances
to the bound norm (whose gradient at a zero difference is 0, as torch's cdist/pdist).
Autograd comes from the composed ops. Names, arguments, promotion, out= and messages are
torch's.

Imports nothing but ember._C and the shape composites.
"""
from ember import _C
from ember._composite_shape import _attach, _out, _scalar_name, _wrap_dim

__all__ = ["trace", "inner", "kron", "tensordot", "addr", "addbmm", "addmv_", "adjoint",
           "matrix_power", "vander", "dist", "cdist", "pdist", "renorm", "cosine_similarity",
           "pairwise_distance"]

_Tensor = _C.Tensor


def _check_alpha(input, alpha, name="alpha"):
    if (not input.dtype.is_floating_point and isinstance(alpha, float)):
        raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating "
                           "point number.")


def _scaled(x, s):
    return x if s == 1 else x * s


def _ignored(input, like):
    """Zeros of like's shape and dtype that keep input in the graph (its gradient is zero,
    as torch's for an operand a beta of 0 drops; NaNs in input stay out of the values)."""
    z = _C.zeros(like.shape, dtype=like.dtype, device=like.device)
    if input.requires_grad and _C.is_grad_enabled():
        return _C.where(_C.zeros((), dtype=_C.bool, device=like.device), input.to(like.dtype), z)
    return z


# ---- products ------------------------------------------------------------------------------

def trace(input):
    """torch.trace: the sum of a matrix's diagonal (integers sum in int64)."""
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    return input.diagonal().sum()


def tensordot(a, b, dims=2, out=None):
    """torch.tensordot: the contraction of a's dims_a with b's dims_b (dims an int n: a's
    last n with b's first n; or a pair of lists), as one matrix product."""
    if isinstance(dims, _Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.dim() or dims > b.dim():
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    da = [_wrap_dim(d, a.dim()) for d in da]
    db = [_wrap_dim(d, b.dim()) for d in db]
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[x]} in dim {x} and second has size {b.shape[y]} in dim "
                               f"{y}")
    fa = [d for d in range(a.dim()) if d not in da]
    fb = [d for d in range(b.dim()) if d not in db]
    k = 1
    for d in da:
        k *= a.shape[d]
    ma = 1
    for d in fa:
        ma *= a.shape[d]
    nb = 1
    for d in fb:
        nb *= b.shape[d]
    if k == 0:  # an empty contraction: zeros (any dtype, as torch's)
        shape = [a.shape[d] for d in fa] + [b.shape[d] for d in fb]
        z = _C.zeros(shape, dtype=a.dtype, device=a.device)
        if (a.requires_grad or b.requires_grad) and _C.is_grad_enabled():
            z = z + (a.sum() + b.sum()).to(a.dtype) * 0  # finite: the operands are empty
        return _out("tensordot", z, out, a, b)
    rshape = [a.shape[d] for d in fa] + [b.shape[d] for d in fb]
    if ma == 1 and nb == 1:
        # a full contraction, as torch's: a dot product of the permuted operands when both
        # are contiguous, else the elementwise products summed (in the operands' dtype:
        # integers and bool too, also on the GPU, where the matrix product takes floats only)
        pa, pb = a.permute(fa + da), b.permute(db + fb)
        if pa.is_contiguous() and pb.is_contiguous():
            r = _C.dot(pa.flatten(), pb.flatten())
        else:
            r = (pa.squeeze() * pb.squeeze()).sum(dtype=a.dtype)
        return _out("tensordot", r.reshape(rshape), out, a, b)
    am = a.permute(fa + da).reshape(ma, k)
    bm = b.permute(db + fb).reshape(k, nb)
    if a.dtype == _C.bool and ma * nb:
        # bool: any of the products (torch's tensordot of an expanded bool operand sums
        # it that way; its matrix product of bools has no kernel): counted in int64
        r = _C.mm(am.to(_C.int64), bm.to(_C.int64)) != 0
    else:
        r = _C.mm(am, bm)
    r = r.reshape(rshape)
    return _out("tensordot", r, out, a, b)


def inner(input, other, *, out=None):
    """torch.inner: the sum of products over the last dims (a scalar operand multiplies)."""
    if input.dim() == 0 or other.dim() == 0:
        return _out("inner", input * other, out, input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]), out=out)


def kron(input, other, *, out=None):
    """torch.kron: the Kronecker product (the shorter shape padded with leading ones)."""
    nd = max(input.dim(), other.dim())
    sa = [1] * (nd - input.dim()) + list(input.shape)
    sb = [1] * (nd - other.dim()) + list(other.shape)
    a = input.reshape([v for s in sa for v in (s, 1)])
    b = other.reshape([v for s in sb for v in (1, s)])
    r = (a * b).reshape([x * y for x, y in zip(sa, sb)])
    return _out("kron", r, out, input, other)


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """torch.addr: beta * input + alpha * outer(vec1, vec2) (input broadcast; beta = 0
    ignores input, NaNs included)."""
    if vec1.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.dim()}-D"
                           if vec1.dim() != 1 else
                           f"addr: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    dt = _C.promote_types(_C.result_type(input, vec1), vec2.dtype)
    if dt == _C.bool:
        prod = _C.logical_and(vec1.unsqueeze(1), vec2) if alpha else \
            _C.zeros((vec1.shape[0], vec2.shape[0]), dtype=_C.bool, device=vec1.device)
        r = _C.logical_or(input, prod) if beta else prod
        r = r.expand(prod.shape) if tuple(r.shape) != tuple(prod.shape) else r
        return _out("addr", r, out, input, vec1, vec2)
    _check_alpha(input, alpha)
    _check_alpha(input, beta, "beta")
    prod = _scaled(vec1.unsqueeze(1) * vec2, alpha)
    if beta == 0:
        prod = prod.to(dt)
        r = prod + _ignored(input, _C.empty(input.shape, dtype=dt, device=input.device))
    else:
        r = _scaled(input, beta) + prod
    return _out("addr", r, out, input, vec1, vec2)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """torch.addbmm: beta * input + alpha * (the sum over the batch of batch1 @ batch2)."""
    if batch1.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                           f"{batch1.shape[0]} and {batch2.shape[0]}")
    _check_alpha(input, alpha)
    _check_alpha(input, beta, "beta")
    b, n, k = batch1.shape
    m = batch2.shape[2]
    if batch2.shape[1] != k:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{k} and "
                           f"{batch2.shape[1]}x{m})")
    # sum_b A_b @ B_b is one (n, b*k) @ (b*k, m) product
    a = batch1.permute(1, 0, 2).reshape(n, b * k)
    prod = _scaled(_C.mm(a, batch2.reshape(b * k, m)), alpha)
    if beta == 0:
        r = prod + _ignored(input, _C.empty(input.shape, dtype=prod.dtype, device=prod.device))
    else:
        r = _scaled(input, beta) + prod
    return _out("addbmm", r, out, input, batch1, batch2)


def _into(self, result):
    if not _C.can_cast(result.dtype, self.dtype):
        raise RuntimeError(f"result type {_scalar_name(result.dtype)} can't be cast to the "
                           f"desired output type {_scalar_name(self.dtype)}")
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(result.shape)}")
    return self.copy_(result)


def addmv_(input, mat, vec, *, beta=1, alpha=1):
    """torch.addmv_: addmv written into input."""
    src = input.clone() if input.requires_grad and _C.is_grad_enabled() else input
    return _into(input, _C.addmv(src, mat, vec, beta=beta, alpha=alpha))


def adjoint(input):
    """torch.adjoint: the conjugate transpose of the last two dims (a view for real dtypes;
    complex ones are conjugated into a new tensor: ember has no conjugate bit)."""
    if input.dim() < 2:
        raise RuntimeError("tensor.adjoint() is only supported on matrices or batches of "
                           f"matrices. Got {input.dim()}-D tensor.")
    return input.mH


def matrix_power(input, n, *, out=None):
    """torch.matrix_power: input @ input @ ... (n times, by repeated squaring); n = 0 gives
    the identity. A negative n needs the inverse, which ember does not have yet."""
    if input.dim() < 2 or input.shape[-1] != input.shape[-2]:
        if input.dim() < 2:
            raise RuntimeError(f"linalg.matrix_power: The input tensor A must have at least 2 "
                               f"dimensions.")
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but "
                           f"they are {input.shape[-2]} by {input.shape[-1]} matrices")
    n = int(n)
    if n < 0:
        raise NotImplementedError("matrix_power with a negative exponent needs the matrix "
                                  "inverse, which ember does not implement yet")
    if n == 0:
        eye = _C.eye(input.shape[-1], dtype=input.dtype, device=input.device)
        r = eye.expand(input.shape) + _ignored(input, input)
    elif n == 1:
        r = input.clone()
    else:
        r, z = None, input
        while True:
            if n & 1:
                r = z if r is None else _C.matmul(r, z)
            n >>= 1
            if not n:
                break
            z = _C.matmul(z, z)
    return _out("matrix_power", r, out, input)


def vander(x, N=None, increasing=False):
    """torch.vander: the Vandermonde matrix of a 1-D x (columns x**(N-1) ... x**0, or
    increasing); integer and bool inputs give int64."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = _C.promote_types(x.dtype, _C.int64)
    if n == 0:
        return _C.empty((x.shape[0], 0), dtype=dt, device=x.device)
    ones = _C.ones((x.shape[0], 1), dtype=dt, device=x.device)
    if n == 1:
        r = ones
    else:
        r = _C.cumprod(_C.cat([ones, x.to(dt).unsqueeze(1).expand(x.shape[0], n - 1)], 1), 1)
    if not increasing:
        from ember._composite_shape import flip
        r = flip(r, (1,))
    return r


# ---- distances -----------------------------------------------------------------------------

def _norm_p(x, p, dim, keepdim=False):
    p = float(p)
    return _C.norm(x, p=p, dim=dim, keepdim=keepdim)


def dist(input, other, p=2):
    """torch.dist: the p-norm of input - other (broadcast)."""
    d = input - other
    if not d.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_scalar_name(d.dtype)}")
    return _C.norm(d, p=float(p))


def _check_float(name, x):
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"{name} only supports floating-point dtypes, X1 got: "
                           f"{_scalar_name(x.dtype)}")


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """torch.cdist: the p-norm distances between each row of x1 (..., P, M) and each row of
    x2 (..., R, M): (..., P, R), batch dims broadcast."""
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"X1 and X2 must have the same dtype, but got {x1.dtype} and "
                           f"{x2.dtype}")
    _check_float("cdist", x1)
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if compute_mode not in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                            "donot_use_mm_for_euclid_dist", None):
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return _norm_p(diff, p, -1)


def pdist(input, p=2):
    """torch.pdist: the p-norm distances between the rows of a 2-D input, pairs (i < j) in
    row order."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    from ember._composite_shape import triu_indices
    n = input.shape[0]
    ij = triu_indices(n, n, 1, device=input.device)
    return _norm_p(input[ij[0]] - input[ij[1]], p, -1)


def renorm(input, p, dim, maxnorm, *, out=None):
    """torch.renorm: each slice along dim whose p-norm exceeds maxnorm scaled down to it
    (by maxnorm / (norm + 1e-7), as torch)."""
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_scalar_name(input.dtype)}")
    if input.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} "
                           "dimensions")
    d = _wrap_dim(dim, input.dim())
    others = [i for i in range(input.dim()) if i != d]
    norm = _C.norm(input, p=float(p), dim=others, keepdim=True)
    one = _C.ones((), dtype=norm.dtype, device=norm.device)
    factor = _C.where(norm > maxnorm, maxnorm / (norm + 1e-7), one)
    return _out("renorm", input * factor.to(input.dtype), out, input)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """torch.cosine_similarity: sum(x1 * x2) / (max(|x1|, eps) * max(|x2|, eps)) along dim,
    after broadcasting (each operand divided by its clamped norm first, as torch)."""
    from ember._composite_shape import broadcast_shapes
    shape = broadcast_shapes(x1.shape, x2.shape)
    if len(shape) == 0:
        d = 0
    else:
        d = _wrap_dim(dim, len(shape))
    a, b = x1.expand(shape), x2.expand(shape)
    if len(shape) == 0:
        a, b = a.reshape(1), b.reshape(1)
    na = _C.clamp_min(_C.norm(a, p=2.0, dim=d, keepdim=True), eps)
    nb = _C.clamp_min(_C.norm(b, p=2.0, dim=d, keepdim=True), eps)
    r = ((a / na) * (b / nb)).sum(d)
    return r


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """torch.pairwise_distance: the p-norm of x1 - x2 + eps over the last dim (broadcast)."""
    nd = max(x1.dim(), x2.dim())
    diff = x1 - x2 + eps
    if nd == 0:
        return _C.abs(diff) if p != 0 else (diff != 0).to(diff.dtype)
    return _norm_p(diff, p, nd - 1, keepdim)


# ---- Tensor methods -------------------------------------------------------------------------

def _methods():
    def tensor_inplace(fn):
        def m(self, *args, **kwargs):
            # the result's graph must not save self, which the copy then overwrites
            src = self.clone() if self.requires_grad and _C.is_grad_enabled() else self
            return _into(self, fn(src, *args, **kwargs))
        return m

    def mp(self, n):
        return matrix_power(self, n)

    def rn(self, p, dim, maxnorm):
        return renorm(self, p, dim, maxnorm)

    return {"trace": trace, "inner": inner, "kron": kron, "addr": addr,
            "addr_": tensor_inplace(addr), "addbmm": addbmm, "addbmm_": tensor_inplace(addbmm),
            "addmv_": addmv_, "adjoint": adjoint, "matrix_power": mp, "dist": dist,
            "renorm": rn, "renorm_": tensor_inplace(rn)}


_attach(_methods())
