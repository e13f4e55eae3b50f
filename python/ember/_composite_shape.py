"""torch's shape functions that are compositions of ember's bound ops (views, cat,
advanced indexing, where, arange): flip/roll/rot90, diag*, tril/triu_indices, the
stacks and splits, atleast_*d, broadcasting, meshgrid, cartesian_prod, combinations,
block_diag, Tensor.unfold/repeat/tile and repeat_interleave.

They run on every device the composed ops run on and get autograd from them (cat,
narrow, index, where, expand, reshape, as_strided are differentiable). Names,
arguments, results (copy or view, as in torch), validation and messages are torch's.

Performance note: flip gathers through advanced indexing (one copy per flipped
dim) and roll concatenates two narrowed views per rolled dim; torch has dedicated
kernels for both. repeat_interleave with a tensor of repeats, tril_indices,
triu_indices and combinations select with a boolean mask (one host synchronisation
for the result's size, as torch's repeat_interleave without output_size).

Imports nothing but ember._C (so ``import ember`` stays cheap).
"""
from ember import _C

__all__ = ["flip", "fliplr", "flipud", "roll", "rot90", "diag", "diag_embed", "diagflat",
           "tril_indices", "triu_indices", "hstack", "vstack", "dstack", "column_stack",
           "row_stack", "tensor_split", "hsplit", "vsplit", "dsplit", "atleast_1d",
           "atleast_2d", "atleast_3d", "broadcast_to", "broadcast_tensors", "broadcast_shapes",
           "meshgrid", "cartesian_prod", "combinations", "block_diag", "moveaxis",
           "repeat_interleave", "tile", "tril", "triu", "ravel", "unflatten", "split_with_sizes",
           "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes"]

_Tensor = _C.Tensor

# torch's ScalarType names, as its "not implemented for 'Float'" messages print them.
_SCALAR_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short",
                 "int32": "Int", "int64": "Long", "float16": "Half", "bfloat16": "BFloat16",
                 "float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
                 "complex128": "ComplexDouble"}


def _scalar_name(dtype):
    name = str(dtype).rpartition(".")[2]
    return _SCALAR_NAMES.get(name, name)


def _wrap_dim(dim, ndim):
    """torch's maybe_wrap_dim: a 0-d tensor accepts dims 0 and -1."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _dims_tuple(dims):
    if isinstance(dims, int):
        return (dims,)
    return tuple(int(d) for d in dims)


def _check_unique(dims, ndim):
    seen = set()
    out = []
    for d in dims:
        w = _wrap_dim(d, ndim)
        if w in seen:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        seen.add(w)
        out.append(w)
    return out


def _index_dim(x, dim, index):
    """x's elements at index along dim (a copy, differentiable)."""
    return x[(slice(None),) * dim + (index,)]


def _out(name, result, out, *inputs):
    """torch's out=: result written into out (an empty out is resized; its dtype must be
    one the result casts to, as torch's can_cast), through the bound where's out= (no
    host sync)."""
    if out is None:
        return result
    if _C.is_grad_enabled() and any(isinstance(t, _Tensor) and t.requires_grad
                                    for t in inputs):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    r = result.detach()
    if r.dtype != out.dtype:
        if not _C.can_cast(r.dtype, out.dtype):
            raise RuntimeError(f"result type {_scalar_name(r.dtype)} can't be cast to the "
                               f"desired output type {_scalar_name(out.dtype)}")
        r = r.to(out.dtype)
    _C.where(_C.ones((), dtype=_C.bool, device=r.device), r, r, out=out)
    return out


def _slice_dim(x, dim, start=None, stop=None):
    return x[(slice(None),) * dim + (slice(start, stop),)]


# ---- flip, roll, rot90 --------------------------------------------------------------------

def flip(input, dims):
    """torch.flip: a copy with the order of the elements along each of dims reversed."""
    if isinstance(dims, int):
        raise TypeError(
            "flip(): argument 'dims' (position 2) must be tuple of ints, not "
            f"{type(dims).__name__}")
    wrapped = _check_unique(_dims_tuple(dims), input.dim())
    out = input
    for d in wrapped:
        n = input.shape[d] if input.dim() else 1
        if n > 1:
            out = _index_dim(out, d, _C.arange(n - 1, -1, -1, device=input.device))
    return out.clone() if out is input else out


def _flip_method(self, *dims):
    if len(dims) == 1 and not isinstance(dims[0], int):
        dims = dims[0]
    return flip(self, tuple(dims))


def fliplr(input):
    """torch.fliplr: flip along dim 1 (a copy)."""
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input):
    """torch.flipud: flip along dim 0 (a copy)."""
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


def _roll_dim(x, shift, dim):
    n = x.shape[dim]
    if n == 0:
        return x
    s = shift % n
    if s == 0:
        return x
    return _C.cat([x.narrow(dim, n - s, s), x.narrow(dim, 0, n - s)], dim)


def roll(input, shifts, dims=None):
    """torch.roll: elements shifted along dims (wrapping round); without dims, along
    the flattened tensor, then reshaped. A copy."""
    shifts = _dims_tuple(shifts)
    dims = () if dims is None else _dims_tuple(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if input.numel() == 0:  # torch checks no dims here
        return input.clone()
    if not dims and len(shifts) == 1:
        flat = input.reshape(-1)
        out = _roll_dim(flat, shifts[0], 0)
        return (out.clone() if out is flat else out).view(input.shape)
    if len(shifts) != len(dims):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    out = input
    for s, d in zip(shifts, dims):
        if input.dim() == 0:
            raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
        out = _roll_dim(out, s, _wrap_dim(d, input.dim()))
    return out.clone() if out is input else out


def rot90(input, k=1, dims=(0, 1)):
    """torch.rot90: rotation by 90 degrees k times in the plane of dims, from the first
    towards the second. A copy."""
    dims = _dims_tuple(dims)
    nd = input.dim()
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    if dims[0] == dims[1] or abs(dims[0] - dims[1]) == nd:
        raise RuntimeError(
            "expected rotation dims to be different, but got dim0 = "
            f"{dims[0]} and dim1 = {dims[1]}")
    if not -nd <= dims[0] < nd:
        raise RuntimeError(f"Rotation dim0 out of range, dim0 = {dims[0]}")
    if not -nd <= dims[1] < nd:
        raise RuntimeError(f"Rotation dim1 out of range, dim1 = {dims[1]}")
    k %= 4
    if k == 1:
        return flip(input, (dims[1],)).transpose(dims[0], dims[1])
    if k == 2:
        return flip(input, dims)
    if k == 3:
        return flip(input, (dims[0],)).transpose(dims[0], dims[1])
    return input.clone() if input.is_contiguous() else input.contiguous()


# ---- diagonals ----------------------------------------------------------------------------

def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """torch.diag_embed: a tensor whose diagonals (offset, in the planes of dim1 and dim2)
    are input's last dim; zeros elsewhere."""
    nd = input.dim() + 1
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    v = input.reshape(1) if input.dim() == 0 else input
    n = v.shape[-1]
    k = abs(offset)
    m = n + k
    if k:
        v = _C.cat([v, v.new_zeros(tuple(v.shape[:-1]) + (k,))], -1)
    r = _C.arange(m, device=input.device)
    mask = (r.unsqueeze(0) - r.unsqueeze(1)) == offset  # [i, j]: j - i == offset
    vals = v.unsqueeze(-1) if offset >= 0 else v.unsqueeze(-2)
    out = _C.where(mask, vals, v.new_zeros(()))
    if input.dim() == 0:
        out = out.reshape(m, m)
    return out.movedim((-2, -1), (d1, d2))


def diag(input, diagonal=0, *, out=None):
    """torch.diag: a 1-D input becomes a 2-D matrix with it on the given diagonal; a 2-D
    input gives a copy of its diagonal."""
    if input.dim() == 1:
        return _out("diag", diag_embed(input, diagonal), out, input)
    if input.dim() == 2:
        return _out("diag", input.diagonal(diagonal).clone(), out, input)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")


def diagflat(input, offset=0):
    """torch.diagflat: the flattened input on the offset diagonal of a square matrix."""
    return diag_embed(input.reshape(-1), offset)


def _tri_indices(name, row, col, offset, dtype, device, lower):
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    if dtype is None:
        dtype = _C.int64
    if dtype not in (_C.int64, _C.int32):
        raise NotImplementedError(f'"{name}" not implemented for \'{_scalar_name(dtype)}\'')
    device = "cpu" if device is None else device
    r = _C.arange(row, device=device).unsqueeze(1).expand(row, col)
    c = _C.arange(col, device=device).unsqueeze(0).expand(row, col)
    mask = (c - r) <= offset if lower else (c - r) >= offset
    return _C.stack([r[mask], c[mask]]).to(dtype)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """torch.tril_indices: the (2, N) row and column indices of the lower triangle of a
    row x col matrix (on and below the offset diagonal), in row-major order."""
    return _tri_indices("tril_indices", row, col, offset, dtype, device, True)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """torch.triu_indices: the (2, N) indices of the upper triangle (on and above the
    offset diagonal), in row-major order."""
    return _tri_indices("triu_indices", row, col, offset, dtype, device, False)


# ---- atleast, stacks, splits --------------------------------------------------------------

def _atleast(tensors, fn):
    if len(tensors) == 1:
        t = tensors[0]
        if isinstance(t, _Tensor):
            return fn(t)
        return tuple(fn(x) for x in t)
    return tuple(fn(x) for x in tensors)


def _1d(t):
    return t.reshape(1) if t.dim() == 0 else t


def _2d(t):
    if t.dim() == 0:
        return t.reshape(1, 1)
    return t.unsqueeze(0) if t.dim() == 1 else t


def _3d(t):
    if t.dim() == 0:
        return t.reshape(1, 1, 1)
    if t.dim() == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1) if t.dim() == 2 else t


def atleast_1d(*tensors):
    """torch.atleast_1d: 0-d tensors as 1-d views; one tensor in, one out, else a tuple."""
    return _atleast(tensors, _1d)


def atleast_2d(*tensors):
    """torch.atleast_2d: tensors of fewer dims as 2-d views (a 1-d (n) becomes (1, n))."""
    return _atleast(tensors, _2d)


def atleast_3d(*tensors):
    """torch.atleast_3d: (n) becomes (1, n, 1) and (m, n) becomes (m, n, 1) (views)."""
    return _atleast(tensors, _3d)


def _tensor_list(name, tensors):
    if isinstance(tensors, _Tensor):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        "not Tensor")
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors, *, out=None):
    """torch.hstack: concatenation along dim 1 (dim 0 for 1-d tensors)."""
    ts = [_1d(t) for t in _tensor_list("hstack", tensors)]
    return _out("hstack", _C.cat(ts, 0 if ts[0].dim() == 1 else 1), out, *ts)


def vstack(tensors, *, out=None):
    """torch.vstack: concatenation along dim 0 after atleast_2d."""
    ts = [_2d(t) for t in _tensor_list("vstack", tensors)]
    return _out("vstack", _C.cat(ts, 0), out, *ts)


def row_stack(tensors, *, out=None):
    """torch.row_stack: alias of vstack."""
    ts = [_2d(t) for t in _tensor_list("row_stack", tensors)]
    return _out("row_stack", _C.cat(ts, 0), out, *ts)


def dstack(tensors, *, out=None):
    """torch.dstack: concatenation along dim 2 after atleast_3d."""
    ts = [_3d(t) for t in _tensor_list("dstack", tensors)]
    return _out("dstack", _C.cat(ts, 2), out, *ts)


def column_stack(tensors, *, out=None):
    """torch.column_stack: 0-d and 1-d tensors as columns, then hstack."""
    ts = [t.reshape(t.numel(), 1) if t.dim() <= 1 else t
          for t in _tensor_list("column_stack", tensors)]
    return _out("column_stack", _C.cat(ts, 1), out, *ts)


def tensor_split(input, indices_or_sections=None, dim=0, *, sections=None, indices=None,
                 tensor_indices_or_sections=None):
    """torch.tensor_split: views of input along dim, into `sections` nearly equal parts
    (the first size % sections one longer) or cut at the given indices."""
    given = [v for v in (indices_or_sections, sections, indices, tensor_indices_or_sections)
             if v is not None]
    if len(given) != 1:
        raise TypeError("tensor_split() takes one of indices_or_sections, sections, indices "
                        f"and tensor_indices_or_sections, got {len(given)}")
    indices_or_sections = given[0]
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    if isinstance(indices_or_sections, _Tensor):
        t = indices_or_sections
        if t.device.type != "cpu":
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be on cpu, "
                               f"but it's on {t.device}")
        if t.dtype != _C.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of "
                               f"long, but got {_scalar_name(t.dtype)}")
        if t.dim() > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                               "zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {t.dim()} dims")
        indices_or_sections = t.item() if t.dim() == 0 else t.tolist()
    d = _wrap_dim(dim, input.dim())
    n = input.shape[d]
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        size, extra = divmod(n, sections)
        out, start = [], 0
        for i in range(sections):
            length = size + (1 if i < extra else 0)
            out.append(input.narrow(d, start, length))
            start += length
        return tuple(out)
    out, start = [], 0
    for end in indices_or_sections:
        end = int(end)
        out.append(_slice_dim(input, d, start, end))
        start = end
    out.append(_slice_dim(input, d, start, None))
    return tuple(out)


def _split_n(name, input, indices_or_sections, min_dims, dim):
    if input.dim() < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, "
                           f"but got a tensor with {input.dim()} dimensions!")
    if isinstance(indices_or_sections, int):
        s, n = indices_or_sections, input.shape[dim]
        if s == 0 or n % s != 0:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {n} is not divisible by the split_size "
                               f"{s}!")
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input, indices_or_sections):
    """torch.hsplit: tensor_split along dim 1 (dim 0 for 1-d); sections must divide."""
    return _split_n("hsplit", input, indices_or_sections, 1, 1 if input.dim() > 1 else 0)


def vsplit(input, indices_or_sections):
    """torch.vsplit: tensor_split along dim 0 of a tensor of >= 2 dims."""
    return _split_n("vsplit", input, indices_or_sections, 2, 0)


def dsplit(input, indices_or_sections):
    """torch.dsplit: tensor_split along dim 2 of a tensor of >= 3 dims."""
    return _split_n("dsplit", input, indices_or_sections, 3, 2)


# ---- broadcasting, meshgrid, products --------------------------------------------------------

def broadcast_shapes(*shapes):
    """torch.broadcast_shapes: the shape that tensors of these shapes broadcast to."""
    seqs = []
    for s in shapes:
        if s is None:
            continue
        if isinstance(s, int):
            s = (s,)
        if isinstance(s, _Tensor) or not hasattr(s, "__len__"):
            raise RuntimeError("Input shapes should be of type ints, a tuple of ints, or a list "
                               f"of ints, got {s}")
        seqs.append(tuple(s))
    if not seqs:
        return _C.Size([])
    common = [1] * max(len(s) for s in seqs)
    for arg, s in enumerate(seqs):
        for i in range(-1, -1 - len(s), -1):
            if s[i] == common[i]:
                continue
            if common[i] == 1:
                if s[i] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[i] = s[i]
            if s[i] == 1:
                continue
            if common[i] != s[i]:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {s[i]} at {i}! Mismatching "
                    f"argument at index {arg} had {s}; but expected shape should be "
                    f"broadcastable to {common}")
    return _C.Size(common)


def broadcast_to(input, size):
    """torch.broadcast_to: input expanded to size (a view; -1 keeps a size)."""
    return input.expand(tuple(size) if not isinstance(size, int) else (size,))


def _broadcast_tensors_shape(tensors):
    shape = []
    for t in tensors:
        s = list(t.shape)
        if len(s) > len(shape):
            shape = [1] * (len(s) - len(shape)) + shape
        for i in range(1, len(s) + 1):
            a, b = shape[-i], s[-i]
            if a == b or b == 1:
                continue
            if a == 1:
                shape[-i] = b
                continue
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) "
                               f"at non-singleton dimension {len(shape) - i}")
    return shape


def broadcast_tensors(*tensors):
    """torch.broadcast_tensors: views of the tensors expanded to their common shape."""
    if len(tensors) == 1 and not isinstance(tensors[0], _Tensor):
        tensors = tuple(tensors[0])
    shape = _broadcast_tensors_shape(tensors)
    return tuple(t.expand(shape) for t in tensors)


def meshgrid(*tensors, indexing=None):
    """torch.meshgrid: coordinate grids (expanded views) of 0-d/1-d tensors; indexing
    'ij' (matrix) or 'xy' (Cartesian: the first two dims swapped)."""
    if len(tensors) == 1 and not isinstance(tensors[0], _Tensor):
        tensors = tuple(tensors[0])
    if indexing is None:
        import warnings
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors[1:]:
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    if indexing not in ("ij", "xy"):
        raise RuntimeError('torch.meshgrid: indexing must be one of "xy" or "ij", but received: '
                           f"{indexing}")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t}")
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [t.numel() for t in ts]
    grids = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        grids.append(t.reshape(view).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def _check_1d(t):
    if t.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")


def cartesian_prod(*tensors):
    """torch.cartesian_prod: the rows of the Cartesian product of 1-d tensors."""
    for t in tensors:
        _check_1d(t)
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return _C.stack([g.reshape(-1) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """torch.combinations: the r-length combinations of a 1-d tensor's elements (as
    itertools.combinations / combinations_with_replacement), one per row."""
    _check_1d(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty((0,))
    n = input.shape[0]
    idx = meshgrid(*([_C.arange(n, device=input.device)] * r), indexing="ij")
    mask = None
    for a, b in zip(idx[:-1], idx[1:]):
        m = a <= b if with_replacement else a < b
        mask = m if mask is None else mask & m
    grids = meshgrid(*([input] * r), indexing="ij")
    if mask is None:
        return _C.stack([g.reshape(-1) for g in grids], 1)
    return _C.stack([g[mask] for g in grids], 1)


def block_diag(*tensors):
    """torch.block_diag: the 0-d, 1-d and 2-d tensors as blocks of a block-diagonal
    matrix (promoted to their common dtype; zeros elsewhere)."""
    blocks = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {i} has {t.dim()} dimensions")
        if t.device != tensors[0].device:
            raise RuntimeError("torch.block_diag: input tensors must all be on the same device. "
                               f"Input 0 is on device {tensors[0].device} and input {i} is on "
                               f"device {t.device}")
        blocks.append(t.reshape(1, -1) if t.dim() < 2 else t)
    if not blocks:
        return _C.empty((1, 0))
    dtype = blocks[0].dtype
    for b in blocks[1:]:
        dtype = _C.promote_types(dtype, b.dtype)
    cols = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b.shape
        parts = []
        if left:
            parts.append(_C.zeros((r, left), dtype=dtype, device=b.device))
        parts.append(b.to(dtype))
        if cols - left - c:
            parts.append(_C.zeros((r, cols - left - c), dtype=dtype, device=b.device))
        rows.append(_C.cat(parts, 1) if len(parts) > 1 else parts[0])
        left += c
    return _C.cat(rows, 0) if len(rows) > 1 else rows[0].clone()


def moveaxis(input, source, destination):
    """torch.moveaxis: alias of movedim."""
    return input.movedim(source, destination)


# ---- unfold, repeat, tile, repeat_interleave ----------------------------------------------

def _unfold(self, dimension, size, step):
    """Tensor.unfold: the windows of `size` elements every `step` along `dimension`, as a
    new last dim. A view (as_strided), except where autograd must go through windows
    that overlap (step < size on a tensor that requires grad): then a gathered copy."""
    nd = self.dim()
    d = _wrap_dim(dimension, nd)
    size_d = self.shape[d] if nd else 1
    if size > size_d:
        raise RuntimeError(
            f"maximum size for tensor at dimension {d} is {size_d} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if nd == 0:
        return self.reshape(1).narrow(0, 0, size)
    windows = (size_d - size) // step + 1
    if self.requires_grad and step < size and size > 1 and _C.is_grad_enabled():
        idx = (_C.arange(windows, device=self.device).unsqueeze(1) * step
               + _C.arange(size, device=self.device).unsqueeze(0))
        return _index_dim(self, d, idx).movedim(d + 1, -1)
    shape = list(self.shape)
    strides = list(self.stride())
    shape[d] = windows
    shape.append(size)
    strides.append(strides[d])
    strides[d] *= step
    return self.as_strided(shape, strides, self.storage_offset())


def _repeat(self, *sizes):
    """Tensor.repeat: the tensor tiled sizes[i] times along each dim (a copy)."""
    if len(sizes) == 1 and not isinstance(sizes[0], int):
        sizes = tuple(sizes[0])
    sizes = tuple(int(s) for s in sizes)
    if len(sizes) < self.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    shape = (1,) * (len(sizes) - self.dim()) + tuple(self.shape)
    target = [r * s for r, s in zip(sizes, shape)]
    for t in target:
        if t < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {t}: {target}")
    if all(r == 1 for r in sizes):
        return self.reshape(shape).clone()
    inter = [v for s in shape for v in (1, s)]
    expanded = [v for r, s in zip(sizes, shape) for v in (r, s)]
    return self.reshape(inter).expand(expanded).reshape(target)


def tile(input, dims):
    """torch.tile: repeat, with dims padded with leading 1s to input's dims."""
    dims = _dims_tuple(dims)
    if len(dims) < input.dim():
        dims = (1,) * (input.dim() - len(dims)) + dims
    return _repeat(input, dims)


def _tile_method(self, *dims):
    if len(dims) == 1 and not isinstance(dims[0], int):
        dims = tuple(dims[0])
    return tile(self, dims)


def _repeats_index(repeats, name):
    """arange(len(repeats)) with element i repeated repeats[i] times (one host sync)."""
    n = repeats.shape[0]
    if n == 0:
        return _C.zeros((0,), dtype=repeats.dtype, device=repeats.device)
    if bool((repeats < 0).any()):
        raise RuntimeError("repeats can not be negative")
    most = int(repeats.max().item())
    mask = _C.arange(most, device=repeats.device).unsqueeze(0) < repeats.unsqueeze(1)
    ids = _C.arange(n, dtype=repeats.dtype, device=repeats.device)
    return ids.unsqueeze(1).expand(n, most)[mask]


def _check_repeats_dtype(repeats):
    if repeats.dtype not in (_C.int64, _C.int32):
        kind = "cuda" if repeats.device.type == "cuda" else "cpu"
        raise NotImplementedError(f'"repeat_interleave_{kind}" not implemented for '
                                  f"'{_scalar_name(repeats.dtype)}'")


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """torch.repeat_interleave: each element (or slice along dim) repeated; repeats an
    int or a tensor of one count per element. Without dim, over the flattened input.
    repeat_interleave(repeats) gives the indices repeated."""
    if repeats is None:
        repeats = input
        if repeats.dim() != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        _check_repeats_dtype(repeats)
        return _repeats_index(repeats, "repeat_interleave")
    if dim is None:
        x, d = input.reshape(-1), 0
    else:
        x, d = input, _wrap_dim(dim, input.dim())
        if input.dim() == 0:  # torch unsqueezes at dim + 1 of the 0-d input
            raise IndexError(
                f"Dimension out of range (expected to be in range of [-1, 0], but got {d + 1})")
    if isinstance(repeats, _Tensor):
        if repeats.dim() > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        _check_repeats_dtype(repeats)
        if repeats.numel() == 1:
            repeats = int(repeats.item())
        else:
            if repeats.shape[0] != x.shape[d]:
                raise RuntimeError("repeats must have the same size as input along dim, but got "
                                   f"repeats.size(0) = {repeats.shape[0]} and input.size({d}) = "
                                   f"{x.shape[d]}")
            index = _repeats_index(repeats.to(device=x.device), "repeat_interleave")
            if output_size is not None and index.shape[0] != output_size:
                raise RuntimeError("allocated size does not match required size")
            return _index_dim(x, d, index)
    repeats = int(repeats)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = list(x.shape)
    expanded = shape[:d + 1] + [repeats] + shape[d + 1:]
    target = shape[:d] + [shape[d] * repeats] + shape[d + 1:]
    return x.unsqueeze(d + 1).expand(expanded).reshape(target)


# ---- tril, triu, ravel, unflatten, split_with_sizes ------------------------------------------

def _tri_mask(input, diagonal, lower):
    """The (rows, cols) bool mask of tril (lower) / triu: broadcast over the batch dims by
    where, so tril/triu are one fused elementwise pass over input (no loop)."""
    rows, cols = input.shape[-2], input.shape[-1]
    r = _C.arange(rows, device=input.device).unsqueeze(1)
    c = _C.arange(cols, device=input.device)
    d = c - r
    return d <= diagonal if lower else d >= diagonal


def _tri(name, input, diagonal, lower):
    if input.dim() < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    zero = _C.zeros((), dtype=input.dtype, device=input.device)
    return _C.where(_tri_mask(input, int(diagonal), lower), input, zero)


def tril(input, diagonal=0, *, out=None):
    """torch.tril: the lower triangle (j - i <= diagonal) of the last two dims, zeros
    elsewhere (a copy)."""
    return _out("tril", _tri("tril", input, diagonal, True), out, input)


def triu(input, diagonal=0, *, out=None):
    """torch.triu: the upper triangle (j - i >= diagonal) of the last two dims, zeros
    elsewhere (a copy)."""
    return _out("triu", _tri("triu", input, diagonal, False), out, input)


def _tri_(name, self, diagonal, lower):
    if self.dim() < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    mask = _tri_mask(self, int(diagonal), lower)
    zero = _C.zeros((), dtype=self.dtype, device=self.device)
    if _C.is_grad_enabled() and self.requires_grad:
        return self.copy_(_C.where(mask, self, zero))  # autograd records the copy
    _C.where(mask, self, zero, out=self)  # elementwise, same positions: aliasing is safe
    return self


def ravel(input):
    """torch.ravel: input flattened (a view where input is contiguous, else a copy)."""
    return input.reshape(-1)


def unflatten(input, dim, sizes):
    """torch.unflatten: dim split into sizes (one of them may be -1); a view."""
    if isinstance(sizes, int):
        raise TypeError("unflatten(): argument 'sizes' (position 2) must be tuple of ints, "
                        "not int")
    sizes = [int(s) for s in sizes]
    if input.dim() == 0:
        raise RuntimeError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, input.dim())
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n = input.shape[d]
    if sizes.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in sizes:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if -1 in sizes:
        if known == 0 or n % known:
            raise RuntimeError(f"shape '{list(sizes)}' is invalid for input of size {n}")
        sizes[sizes.index(-1)] = n // known
    elif known != n:
        raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size "
                           f"of dim {dim} ({n}) in the input tensor")
    shape = list(input.shape)
    return input.view(shape[:d] + sizes + shape[d + 1:])


def split_with_sizes(input, split_sizes, dim=0):
    """torch.split_with_sizes: views of input along dim, of split_sizes each (they must sum
    to the dim's size)."""
    sizes = [int(s) for s in split_sizes]
    if input.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, input.dim())
    n = input.shape[d]
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                           f"entries, but got split_sizes={sizes}")
    if sum(sizes) != n:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                           f"tensor's size at dimension {d}), but got split_sizes={sizes}")
    out, start = [], 0
    for s in sizes:
        out.append(input.narrow(d, start, s))
        start += s
    return tuple(out)


def unsafe_split(tensor, split_size_or_sections, dim=0):
    """torch.unsafe_split: split (the results are views; torch only drops their view
    tracking)."""
    if not isinstance(split_size_or_sections, int):
        raise TypeError("unsafe_split(): argument 'split_size' (position 1) must be int, not "
                        f"{type(split_size_or_sections).__name__}")
    return tuple(tensor.split(split_size_or_sections, dim))


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """torch.unsafe_split_with_sizes: split_with_sizes."""
    return split_with_sizes(input, split_sizes, dim)


def unsafe_chunk(input, chunks, dim=0):
    """torch.unsafe_chunk: chunk."""
    return tuple(input.chunk(chunks, dim))


# ---- Tensor methods (where torch has them) --------------------------------------------------

def _methods():
    def rot90_m(self, k=1, dims=(0, 1)):
        return rot90(self, k, dims)

    def roll_m(self, shifts, dims=None):
        return roll(self, shifts, dims)

    def split_m(fn):
        return lambda self, indices_or_sections, *args, **kw: fn(self, indices_or_sections,
                                                                   *args, **kw)

    def ri_m(self, repeats, dim=None, *, output_size=None):
        return repeat_interleave(self, repeats, dim, output_size=output_size)

    return {"flip": _flip_method, "fliplr": fliplr, "flipud": flipud, "roll": roll_m,
            "rot90": rot90_m, "diag": diag, "diag_embed": diag_embed, "diagflat": diagflat,
            "tensor_split": split_m(tensor_split), "hsplit": split_m(hsplit),
            "vsplit": split_m(vsplit), "dsplit": split_m(dsplit), "broadcast_to": broadcast_to,
            "moveaxis": moveaxis, "unfold": _unfold, "repeat": _repeat, "tile": _tile_method,
            "repeat_interleave": ri_m, "tril": tril, "triu": triu,
            "tril_": lambda self, diagonal=0: _tri_("tril", self, diagonal, True),
            "triu_": lambda self, diagonal=0: _tri_("triu", self, diagonal, False),
            "ravel": ravel, "unflatten": unflatten, "split_with_sizes": split_with_sizes,
            "unsafe_split": unsafe_split, "unsafe_split_with_sizes": unsafe_split_with_sizes,
            "unsafe_chunk": unsafe_chunk}


def _attach(methods):
    """Sets the methods the bound class lacks (a bound C++ method always wins)."""
    for name, fn in methods.items():
        if name not in vars(_Tensor):
            try:
                fn.__name__ = fn.__qualname__ = name
            except (AttributeError, TypeError):
                pass
            setattr(_Tensor, name, fn)


_attach(_methods())
