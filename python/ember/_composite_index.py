"""torch's indexing functions: gather, scatter (+ add / reduce), the index_* family,
masked_*, take, take_along_dim, put, nonzero, argwhere -- and their Tensor methods and
in-place forms.

Everything is built from two C++ primitives with autograd (``ember._C._index``, see
csrc/ops/index/scatter_gather.hpp): ``gather`` and ``scatter_`` along one dim. The
index_* ops pass their 1-D index viewed with zero strides over the other dims (one pass,
nothing materialised); take and put index the flattened tensor. The checks and their
messages are torch's; the index bounds are checked by the primitives (CPU: before
anything is written; GPU: without a host wait, reported at the next synchronising call,
see docs/design/ops_index.md). Nothing here synchronises with the GPU except nonzero,
argwhere and masked_select, whose result sizes depend on the data (as in torch).
"""
from ember import _C
from ember.autograd.function import Function

_ix = _C._index
_Tensor = _C.Tensor

__all__ = ["gather", "scatter", "scatter_add", "scatter_reduce", "index_select", "index_add",
           "index_copy", "index_fill", "index_put", "index_put_", "index_reduce", "masked_fill",
           "masked_scatter", "masked_select", "take", "take_along_dim", "put", "nonzero",
           "argwhere"]

# How a bad index is reported on the CPU (ops::IndexMessage).
_BOUNDS, _DATA, _IBOUNDS, _OPIBOUNDS, _SELF, _FLAT = range(6)
# ops::ScatterReduce
_NONE, _ADD, _MUL, _MAX, _MIN = range(5)

_SCALAR_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half",
                 "bfloat16": "BFloat16", "int64": "Long", "int32": "Int", "int16": "Short",
                 "int8": "Char", "uint8": "Byte", "bool": "Bool"}


_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
            "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int", "int16": "short int",
            "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def _cname(dtype):
    """torch's C++ type name of a dtype, as some of its messages write it."""
    return _C_NAMES.get(str(dtype).split(".")[-1], str(dtype))


def _sname(dtype):
    return _SCALAR_NAMES.get(str(dtype).split(".")[-1], str(dtype))


def _no_internal_overlap(self):
    """torch's check before an in-place write: no two elements share memory."""
    if self.numel() > 1 and any(st == 0 and n > 1 for n, st in zip(self.shape, self.stride())):
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")


def _scat(self, *args):
    """The scatter_ primitive, returning self (the Python object, not a new wrapper)."""
    _ix.scatter_(self, *args)
    return self


def _iput(self, *args):
    _ix.index_put_(self, *args)
    return self


def _is_tensor(x):
    return isinstance(x, _Tensor)


def _need_tensor(fn, name, x):
    if not _is_tensor(x):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(x).__name__}")


def _wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim + n if dim < 0 else dim


def _int_index(fn, index, msg=None):
    """index as int64 (int32 allowed); RuntimeError with torch's message otherwise."""
    _need_tensor(fn, "index", index)
    if index.dtype not in (_C.int64, _C.int32):
        raise RuntimeError(msg or f"{fn}(): Expected dtype int32/int64 for index")
    return index if index.dtype == _C.int64 else index.to(_C.int64)


def _long_index(fn, index, msg=None):
    _need_tensor(fn, "index", index)
    if index.dtype != _C.int64:
        raise RuntimeError(msg or f"{fn}(): Expected a long tensor for index, but got "
                           f"{_sname(index.dtype)}")
    return index


def _value_tensor(fn, self, value):
    """A number or a 0-d tensor as a 0-d tensor of self's dtype on self's device (no host
    sync: a number is written by a fill kernel)."""
    if _is_tensor(value):
        if value.dim() != 0:
            raise RuntimeError(f"{fn} only supports a 0-dimensional value tensor, but got tensor "
                               f"with {value.dim()} dimension(s).")
        if self.dtype != _C.bool:
            # torch's overflow check of the value (value.item() converted to self's dtype:
            # 1e5 does not fit float16; inf and nan do). torch reads a CUDA value on the
            # host too (one sync), so does ember.
            _C.full((), value.item(), dtype=self.dtype)
        return value.to(device=self.device, dtype=self.dtype)
    if self.dtype != _C.bool and isinstance(value, (int, float)) and not isinstance(value, bool):
        # torch's "value cannot be converted to type int8_t without overflow"
        _C.full((), value, dtype=self.dtype)
    return _C.full((), value, dtype=self.dtype, device=self.device)


def _write_out(fn, result, out):
    """Writes result into out= (torch's dtype rule, resized when empty), returns out."""
    if out is None:
        return result
    _need_tensor(fn, "out", out)
    if out.dtype != result.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {_cname(result.dtype)}, but got "
                           f"{_cname(out.dtype)} instead")
    if tuple(out.shape) != tuple(result.shape):
        if out.numel() != 0:
            raise RuntimeError(f"{fn}(): out has shape {list(out.shape)} but the result has "
                               f"shape {list(result.shape)}")
        # an empty out= takes the result's shape: the C++ out= path resizes empty outputs
        _C.where(_C.ones((), dtype=_C.bool, device=result.device), result, result, out=out)
        return out
    out.copy_(result)
    return out


def _along(index, ndim, dim, shape):
    """A 1-D (or 0-d) index viewed with zero strides over every dim but `dim`, as `shape`."""
    k = index.reshape(-1)
    if ndim == 0:
        return k
    view = [1] * ndim
    view[dim] = k.numel()
    return k.view(view).expand(shape)


# ---- gather / scatter ---------------------------------------------------------------------

def gather(input, dim, index, *, sparse_grad=False, out=None):
    """out[i][j][k] = input[i][index[i][j][k]][k] along dim (torch.gather)."""
    _need_tensor("gather", "input", input)
    index = _int_index("gather", index)
    if out is not None and not input.requires_grad and out.dtype == input.dtype and \
            tuple(out.shape) == tuple(index.shape) and out.device == input.device and \
            not _shares(out, input):
        return _ix.gather(input, dim, index, "gather", False, _BOUNDS, out)
    return _write_out("gather", _ix.gather(input, dim, index, "gather", False, _BOUNDS), out)


def _shares(a, b):
    try:
        return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    except AttributeError:
        return True


def _reduce_code(reduce, allowed, msg):
    if reduce is None:
        return _NONE
    if reduce not in allowed:
        raise RuntimeError(msg)
    return allowed[reduce]


def _scatter_(self, dim, index, src=None, value=None, *, reduce=None, fn="scatter"):
    _no_internal_overlap(self)
    index = _int_index("scatter", index)
    code = _reduce_code(reduce, {"add": _ADD, "multiply": _MUL},
                        "reduce argument must be either add or multiply.")
    if _is_tensor(src):
        if src.dtype != self.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        return _scat(self, dim, index, src, code, fn, False, _BOUNDS, False)
    v = value if src is None else src
    if v is None:
        raise TypeError("scatter() needs `src` (a tensor) or `value` (a number)")
    if _is_tensor(v):
        raise TypeError("scatter(): `value` must be a number")
    if index.numel() == 0:
        # torch returns before converting the value when nothing is written: no overflow
        # check (scatter(uint8 t, 0, empty index, 1000) is t)
        vt = _C.zeros((), dtype=self.dtype, device=self.device)
    else:
        vt = _value_tensor(fn, self, v)
    return _scat(self, dim, index, vt, code, fn, False, _BOUNDS, True)


def scatter(input, dim, index, src=None, value=None, *, reduce=None, out=None):
    """input with src (or value) written at index along dim (torch.scatter)."""
    _need_tensor("scatter", "input", input)
    r = _scatter_(input.clone(), dim, index, src, value, reduce=reduce)
    return _write_out("scatter", r, out)


def scatter_add(input, dim, index, src, *, out=None):
    """input with src added at index along dim, duplicates summed (torch.scatter_add)."""
    _need_tensor("scatter_add", "input", input)
    return _write_out("scatter_add", _scatter_add_(input.clone(), dim, index, src), out)


def _scatter_add_(self, dim, index, src):
    _no_internal_overlap(self)
    index = _int_index("scatter", index)
    _need_tensor("scatter_add", "src", src)
    if src.dtype != self.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    return _scat(self, dim, index, src, _ADD, "scatter_add", False, _BOUNDS, False)


_SCATTER_REDUCE = {"sum": _ADD, "prod": _MUL, "mean": -1, "amax": _MAX, "amin": _MIN}


def _identity(self, reduce):
    """The value include_self=False resets the targets to."""
    dt = self.dtype
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dt == _C.bool:
        return reduce == "amin"
    if dt.is_floating_point:
        return float("-inf") if reduce == "amax" else float("inf")
    info = _C.iinfo(dt)
    return info.min if reduce == "amax" else info.max


def _corner(src, shape):
    """src's leading corner of `shape` (src may be larger than index)."""
    if tuple(src.shape) == tuple(shape):
        return src
    return src[tuple(slice(0, n) for n in shape)] if len(shape) else src


def _reduce_into(r, dim, index, src, reduce, include_self, op, wrap, message):
    """r (a fresh tensor, modified in place) reduced with src at index; returns the result
    (a new tensor for mean). No autograd of its own for prod/amax/amin."""
    if not include_self:
        _scat(r, dim, index, _value_tensor(op, r, _identity(r, reduce)), _NONE, op, wrap,
                     message, True)
    if reduce == "mean":
        _scat(r, dim, index, src, _ADD, op, wrap, message, False)
        count = _C.full(r.shape, 1 if include_self else 0, dtype=r.dtype, device=r.device)
        ones = _C.full((), 1, dtype=r.dtype, device=r.device)
        _scat(count, dim, index, ones, _ADD, op, wrap, message, True)
        count = count.masked_fill(count == 0, 1) if count.numel() else count
        if r.dtype.is_floating_point:
            return r / count
        return r.div(count, rounding_mode="floor")
    _scat(r, dim, index, src, _SCATTER_REDUCE[reduce], op, wrap, message, False)
    return r


class _ScatterReduceFn(Function):
    """prod / amax / amin with torch's gradients (ties share the gradient evenly; prod
    divides by the factor, with the single-zero case handled)."""

    @staticmethod
    def forward(ctx, self, src, dim, index, reduce, include_self, op, wrap, message):
        src_c = _corner(src, index.shape)
        r = _reduce_into(self.clone(), dim, index, src_c, reduce, include_self, op, wrap, message)
        ctx.save_for_backward(self, src_c, r)
        ctx.args = (dim, index, reduce, include_self, op, wrap, message, tuple(src.shape))
        return r

    @staticmethod
    def backward(ctx, grad):
        self, src, result = ctx.saved_tensors
        dim, index, reduce, include_self, op, wrap, message, src_shape = ctx.args

        def g(t):
            return _ix.gather(t, dim, index, op, wrap, message)

        if reduce == "prod":
            masked_self = self.masked_fill(self == 0, 1)
            msr = _reduce_into(masked_self.clone(), dim, index, src, "prod", include_self, op,
                               wrap, message)
            grad_self = grad * msr / masked_self
            src_zero = src == 0
            zeros = _C.zeros(self.shape, dtype=self.dtype, device=self.device)
            nz = g(_scat(zeros, dim, index, src_zero.to(self.dtype), _ADD, op, wrap,
                                message, False))
            single = src_zero & (nz == 1)
            masked_src = src.masked_fill(single, 1)
            msrc = _reduce_into(self.clone(), dim, index, masked_src, "prod", include_self, op,
                                wrap, message)
            grad_src = _C.where(single, g(grad * msrc),
                                g(grad * result) / src.masked_fill(src_zero, 1))
        else:
            value = g(result)
            self_is = (self == result).to(grad.dtype)
            if not include_self:
                self_is = _scat(self_is, dim, index, _C.zeros((), dtype=grad.dtype,
                                                                      device=grad.device),
                                       _NONE, op, wrap, message, True)
            src_is = (src == value).to(grad.dtype)
            n = _scat(self_is.clone(), dim, index, src_is, _ADD, op, wrap, message, False)
            dist = grad / n.masked_fill(n == 0, 1)
            grad_self = self_is * dist
            grad_src = src_is * g(dist)
        if not include_self and reduce == "prod":
            grad_self = _scat(grad_self.clone(), dim, index,
                                     _C.zeros((), dtype=grad.dtype, device=grad.device), _NONE,
                                     op, wrap, message, True)
        if tuple(grad_src.shape) != src_shape:
            full = _C.zeros(src_shape, dtype=grad_src.dtype, device=grad_src.device)
            full[tuple(slice(0, n) for n in grad_src.shape)] = grad_src
            grad_src = full
        return grad_self, grad_src, None, None, None, None, None, None, None


def _scatter_reduce(input, dim, index, src, reduce, include_self, op, wrap, message):
    """The out-of-place reduction (new tensor), autograd-aware."""
    if reduce in ("prod", "amax", "amin") and (input.requires_grad or src.requires_grad) and \
            _C.is_grad_enabled():
        return _ScatterReduceFn.apply(input, src, dim, index, reduce, include_self, op, wrap,
                                      message)
    r = input.clone()
    src_c = _corner(src, index.shape) if reduce == "mean" else src
    return _reduce_into(r, dim, index, src_c, reduce, include_self, op, wrap, message)


def _check_scatter_reduce(fn, input, index, src, reduce):
    _need_tensor(fn, "input", input)
    _need_tensor(fn, "src", src)
    index = _int_index("scatter", index)
    if reduce not in _SCATTER_REDUCE:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if src.dtype != input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    return index


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """input with src reduced in at index along dim: sum, prod, mean, amax or amin, with or
    without input's own values (torch.scatter_reduce)."""
    index = _check_scatter_reduce("scatter_reduce", input, index, src, reduce)
    r = _scatter_reduce(input, dim, index, src, reduce, include_self, "scatter_reduce", False,
                        _BOUNDS)
    return _write_out("scatter_reduce", r, out)


def _inplace_result(self, r):
    """Writes an out-of-place result back into self (the in-place forms)."""
    if r is not self:
        self.copy_(r)
    return self


def _scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    _no_internal_overlap(self)
    index = _check_scatter_reduce("scatter_reduce_", self, index, src, reduce)
    if reduce in ("sum",) or (not self.requires_grad and not src.requires_grad and
                              reduce != "mean"):
        return _reduce_into(self, dim, index, src, reduce, include_self, "scatter_reduce", False,
                            _BOUNDS)
    return _inplace_result(self, _scatter_reduce(self, dim, index, src, reduce, include_self,
                                                 "scatter_reduce", False, _BOUNDS))


# ---- index_* ---------------------------------------------------------------------------

def _vector_index(fn, index, msg):
    if index.dim() > 1:
        raise IndexError(msg.format(dim=index.dim(), type=_sname(index.dtype),
                                    size=list(index.shape)))
    return index


def index_select(input, dim, index, *, out=None):
    """input's slices at index along dim (torch.index_select)."""
    _need_tensor("index_select", "input", input)
    _need_tensor("index_select", "index", index)
    if index.dtype not in (_C.int64, _C.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    dim = _wrap_dim(dim, input.dim())
    index = index.to(_C.int64) if index.dtype != _C.int64 else index
    if input.dim() == 0:
        if index.numel() != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                               f"{index.numel()} value(s)")
        r = _ix.gather(input, 0, index.reshape(()), "index_select", False, _SELF)
        return _write_out("index_select", r, out)
    shape = list(input.shape)
    shape[dim] = index.numel()
    # torch's CPU message: its dim-1 path says "INDICES element is out of DATA
    # bounds", the others "index out of range in self"
    msg = _DATA if dim == 1 else _SELF
    if input.is_cuda and 0 in shape:
        pass  # torch's CUDA path returns an empty result before looking at the indices
    elif index.numel() and input.dim() > 1 and input.numel() == 0:
        # torch's empty-self path (nothing is read, the indices are checked): a dim of
        # size 0 is an error of its own, the others say "out of DATA bounds" (RuntimeError)
        if input.shape[dim] == 0:
            raise RuntimeError("index_select(): self indexing axis dim should be positive")
        _ix.check_index_range(index, input.shape[dim], dim, None, "index_select", False, _DATA)
    elif index.numel() and 0 in shape:  # nothing is read, but torch checks the indices
        _ix.check_index_range(index, input.shape[dim], dim, None, "index_select", False, msg)
    r = _ix.gather(input, dim, _along(index, input.dim(), dim, shape), "index_select", False,
                   msg)
    return _write_out("index_select", r, out)


def _check_index_source(fn, self, dim, index, source, numel_err):
    """torch's index_add_/index_copy_/index_reduce_ checks; returns dim, the index viewed
    over source's shape."""
    _need_tensor(fn, "source", source)
    dim = _wrap_dim(dim, self.dim())
    if source.dim() != 0 and self.dim() != 0 and source.dim() != self.dim():
        if dim >= source.dim():
            raise RuntimeError(f"{fn}(): Indexing dim {dim} is out of bounds of the source "
                               f"tensor with dim {source.dim()}")
    n = index.numel()
    src_n = source.shape[dim] if source.dim() > 0 else 1
    if n != src_n:
        raise numel_err(n, src_n, dim)
    ss, rs = list(self.shape), list(source.shape)
    if len(ss) == len(rs) and any(a != b for d, (a, b) in enumerate(zip(ss, rs)) if d != dim):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {ss} source.shape = {rs}")
    if len(ss) != len(rs) and not (len(ss) <= 1 and len(rs) <= 1):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {ss} source.shape = {rs}")
    src = source.reshape(-1) if source.dim() == 0 and self.dim() == 1 else source
    if self.dim() == 0:
        return dim, index.reshape(()), source.reshape(())
    return dim, _along(index, self.dim(), dim, list(src.shape)), src


def _index_add_(self, dim, index, source, *, alpha=1):
    _no_internal_overlap(self)
    fn = "index_add_"
    _need_tensor(fn, "index", index)
    if index.dtype not in (_C.int64, _C.int32):
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: "
                           f"{_sname(index.dtype)}")
    _vector_index(fn, index, "index_add_(): Index is supposed to be a vector, but got dim: {dim} "
                  "with type: {type} and size: {size}")
    _need_tensor(fn, "source", source)
    if source.dtype != self.dtype:
        raise RuntimeError(f"index_add_(): self ({_sname(self.dtype)}) and source "
                           f"({_sname(source.dtype)}) must have the same scalar type")
    index = index.to(_C.int64) if index.dtype != _C.int64 else index

    def numel_err(n, s, d):
        return RuntimeError(f"index_add_(): Number of indices ({n}) should be equal to "
                            f"source.size(dim): ({s}), for dim: {d}")
    dim, idx, src = _check_index_source(fn, self, dim, index, source, numel_err)
    if self.dtype == _C.bool:
        src = src if alpha else _C.zeros_like(src)
    elif alpha != 1:
        src = (src * alpha).to(self.dtype)
    return _scat(self, dim, idx, src, _ADD, "index_add", False, _BOUNDS, False)


def index_add(input, dim, index, source, *, alpha=1, out=None):
    """input with alpha * source's slices added at index along dim (torch.index_add)."""
    _need_tensor("index_add", "input", input)
    return _write_out("index_add", _index_add_(input.clone(), dim, index, source, alpha=alpha),
                      out)


def _index_copy_(self, dim, index, source):
    _no_internal_overlap(self)
    fn = "index_copy_"
    _long_index(fn, index)
    _vector_index(fn, index, "index_copy_(): Index should have dimension 1 or 0 (got {dim})")
    _need_tensor(fn, "source", source)
    if source.dtype != self.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, "
                           f"but got (self) {_sname(self.dtype)} and (source) "
                           f"{_sname(source.dtype)}")

    def numel_err(n, s, d):
        return IndexError(f"index_copy_(): Number of indices ({n}) should be equal to "
                          f"source.size(dim) ({s})")
    dim, idx, src = _check_index_source(fn, self, dim, index, source, numel_err)
    return _scat(self, dim, idx, src, _NONE, "index_copy_", False, _OPIBOUNDS, False)


def index_copy(input, dim, index, source, *, out=None):
    """input with source's slices written at index along dim (torch.index_copy)."""
    _need_tensor("index_copy", "input", input)
    return _write_out("index_copy", _index_copy_(input.clone(), dim, index, source), out)


def _index_fill_(self, dim, index, value):
    fn = "index_fill_"
    _need_tensor(fn, "index", index)
    if index.dtype != _C.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.dim() > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    dim = _wrap_dim(dim, self.dim())
    v = _value_tensor("index_fill_", self, value)
    shape = list(self.shape)
    if self.dim() == 0:
        idx = index.reshape(-1)[:1].reshape(()) if index.numel() else index.reshape(-1)
        if index.numel() == 0:
            return self
        return _scat(self, 0, idx, v, _NONE, "index_fill_", True, _IBOUNDS, True)
    shape[dim] = index.numel()
    return _scat(self, dim, _along(index, self.dim(), dim, shape), v, _NONE, "index_fill_",
                        True, _IBOUNDS, True)


def index_fill(input, dim, index, value):
    """input with value written at index along dim (torch.index_fill)."""
    _need_tensor("index_fill", "input", input)
    return _index_fill_(input.clone(), dim, index, value)


_INDEX_REDUCE = ("prod", "mean", "amax", "amin")


def _index_reduce_prep(fn, self, dim, index, source, reduce):
    _need_tensor(fn, "index", index)
    if reduce not in _INDEX_REDUCE:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    if index.dtype not in (_C.int64, _C.int32):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{_sname(index.dtype)}")
    _vector_index(fn, index, "index_reduce_(): Index is supposed to be a vector, but got dim: "
                  "{dim} with type: {type} and size: {size}")
    _need_tensor(fn, "source", source)
    if source.dtype != self.dtype:
        raise RuntimeError(f"index_reduce_(): self ({_sname(self.dtype)}) and source "
                           f"({_sname(source.dtype)}) must have the same scalar type")
    index = index.to(_C.int64) if index.dtype != _C.int64 else index

    def numel_err(n, s, d):
        return RuntimeError(f"index_reduce_(): Number of indices ({n}) should be equal to "
                            f"source.size(dim): ({s}), for dim: {d}")
    return _check_index_source(fn, self, dim, index, source, numel_err)


def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """input with source's slices reduced in at index along dim: prod, mean, amax or amin
    (torch.index_reduce)."""
    _need_tensor("index_reduce", "input", input)
    dim, idx, src = _index_reduce_prep("index_reduce_", input, dim, index, source, reduce)
    if index.numel() == 0:  # torch: nothing reduced, no kernel (for any dtype, bool too)
        return _write_out("index_reduce", input.clone(), out)
    r = _scatter_reduce(input, dim, idx, src, reduce, include_self, "index_reduce", False, _SELF)
    return _write_out("index_reduce", r, out)


def _index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    _no_internal_overlap(self)
    dim, idx, src = _index_reduce_prep("index_reduce_", self, dim, index, source, reduce)
    if index.numel() == 0:
        return self
    return _inplace_result(self, _scatter_reduce(self, dim, idx, src, reduce, include_self,
                                                 "index_reduce", False, _SELF))


# ---- index_put ---------------------------------------------------------------------------

def _indices_list(fn, indices):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{fn}(): argument 'indices' must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    for t in indices:
        if t is not None and not _is_tensor(t):
            raise TypeError(f"{fn}(): argument 'indices' must be tuple of Tensors, not "
                            f"{type(t).__name__}")
    return list(indices)


def index_put_(input, indices, values, accumulate=False):
    """input[indices] = values (or += with accumulate), in place (torch.index_put_)."""
    _need_tensor("index_put_", "values", values)
    return _iput(input, _indices_list("index_put_", indices), values, bool(accumulate))


def index_put(input, indices, values, accumulate=False):
    """A copy of input with input[indices] = values (or +=) (torch.index_put)."""
    _need_tensor("index_put", "values", values)
    return _iput(input.clone(), _indices_list("index_put", indices), values,
                          bool(accumulate))


# ---- masked_* ------------------------------------------------------------------------------

def _bool_mask(fn, mask, msg, cname=False):
    _need_tensor(fn, "mask", mask)
    if mask.dtype != _C.bool:
        name = _cname(mask.dtype) if cname else _sname(mask.dtype)
        raise RuntimeError(msg.format(name) if "{}" in msg else msg)
    return mask


def masked_fill(input, mask, value):
    """input with value where mask is True (torch.masked_fill); mask broadcasts."""
    _need_tensor("masked_fill", "input", input)
    _bool_mask("masked_fill", mask, "masked_fill_ only supports boolean masks, but got mask with "
               "dtype {}", cname=True)
    v = _value_tensor("masked_fill_", input, value)
    if _fast_fill(input, mask, v):
        out = _C.empty(input.shape, dtype=input.dtype, device=input.device)
        if _ix.masked_fill_(out, input, mask, v):  # one pass (CUDA, contiguous)
            return out
    return _C.where(mask, v, input)


def _fast_fill(self, mask, v):
    """Whether masked_fill may try the one-pass GPU kernel: no autograd wanted, and the
    cheap part of its conditions (the kernel checks the rest and may decline)."""
    return self.is_cuda and self.is_contiguous() and mask.dim() <= self.dim() and \
        not (_C.is_grad_enabled() and (self.requires_grad or v.requires_grad))


def _masked_fill_(self, mask, value):
    _bool_mask("masked_fill_", mask, "masked_fill_ only supports boolean masks, but got mask "
               "with dtype {}", cname=True)
    shape = _broadcast(self.shape, mask.shape)
    if tuple(shape) != tuple(self.shape):
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(shape)}")
    v = _value_tensor("masked_fill_", self, value)
    if self.numel() > 1 and any(st == 0 and n > 1 for n, st in zip(self.shape, self.stride())):
        # self's elements share memory (torch allows this here): write through the mask
        m = mask.to(self.device).expand(self.shape)
        return _iput(self, [m], v, False)
    if _fast_fill(self, mask, v) and _ix.masked_fill_(self, self, mask, v):
        return self  # written in place, one pass
    return _inplace_result(self, _C.where(mask, v, self))


def masked_select(input, mask, *, out=None):
    """The elements of input where mask is True, as a 1-D tensor (both broadcast;
    torch.masked_select). The size depends on the data: one host read on the GPU."""
    _need_tensor("masked_select", "input", input)
    _bool_mask("masked_select", mask, "masked_select: expected BoolTensor for mask")
    shape = _broadcast(input.shape, mask.shape)
    a = input.expand(shape) if tuple(input.shape) != tuple(shape) else input
    m = mask.expand(shape) if tuple(mask.shape) != tuple(shape) else mask
    if m.device != a.device:
        m = m.to(a.device)
    if len(shape) == 0:
        r = _ix.index(a.reshape(1), [m.reshape(1)])
    else:
        r = _ix.index(a, [m])
    return _write_out("masked_select", r, out)


def _broadcast(a, b):
    a, b = list(a), list(b)
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) "
                               f"at non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    return out


def _masked_scatter(self, mask, source, shape):
    fn = "masked_scatter_"
    _bool_mask(fn, mask, "masked_scatter_ only supports boolean masks, but got mask with dtype {}")
    _need_tensor(fn, "source", source)
    if source.dtype != self.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{_sname(self.dtype)} and {_sname(source.dtype)}")
    if mask.device != self.device:
        mask = mask.to(self.device)
    n = 1
    for s in shape:
        n *= s
    a = self.expand(shape).reshape(-1)
    m = mask.expand(shape).reshape(-1)
    if n == 0:
        return a.reshape(shape)
    pos = m.to(_C.int64).cumsum(0) - 1
    pos = _C.where(m, pos, _C.full((), -1, dtype=_C.int64, device=pos.device))
    if self.is_cuda:
        # recorded without a host wait; reported at the next synchronising call (the one
        # record of a short source: the gather below reads clamped positions, never a bad one)
        _ix.check_index_range(pos, source.numel(), 0, -1, "masked_scatter", False, _BOUNDS)
    elif int(m.sum().item()) > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    flat = source.reshape(-1)
    if flat.numel() == 0:
        flat = _C.zeros(1, dtype=self.dtype, device=self.device)
    take = _ix.gather(flat, 0, pos.clamp(0, flat.numel() - 1), "masked_scatter", False, _BOUNDS)
    return _C.where(m, take, a).reshape(shape)


def masked_scatter(input, mask, source):
    """input with source's leading elements written, in order, where mask is True
    (torch.masked_scatter); input and mask broadcast."""
    _need_tensor("masked_scatter", "input", input)
    _need_tensor("masked_scatter", "mask", mask)
    return _masked_scatter(input, mask, source, _broadcast(input.shape, mask.shape))


def _masked_scatter_(self, mask, source):
    _no_internal_overlap(self)
    _need_tensor("masked_scatter_", "mask", mask)
    shape = _broadcast(self.shape, mask.shape)
    if tuple(shape) != tuple(self.shape):
        raise RuntimeError(f"expand(mask, size={list(self.shape)}): the mask of shape "
                           f"{list(mask.shape)} does not broadcast to self's shape")
    return _inplace_result(self, _masked_scatter(self, mask, source, list(self.shape)))


# ---- take / take_along_dim / put ---------------------------------------------------------

def take(input, index):
    """input, flattened, at index; negative indices count from the end (torch.take)."""
    _need_tensor("take", "input", input)
    _long_index("take", index)
    if input.numel() == 0 and index.numel() != 0:
        # torch's host-side check (no index is valid): on the GPU too, where the bounds of
        # the indices themselves are not checked on the host
        raise IndexError("take(): tried to take from an empty tensor")
    r = _ix.gather(input.reshape(-1), 0, index.reshape(-1), "take", True, _FLAT)
    return r.view(index.shape)


def take_along_dim(input, indices, dim=None, *, out=None):
    """input's values at indices along dim, input and indices broadcast over the other dims
    (torch.take_along_dim); with dim=None, of the flattened input."""
    _need_tensor("take_along_dim", "input", input)
    _need_tensor("take_along_dim", "indices", indices)
    if indices.dtype != _C.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_sname(indices.dtype)}")
    if dim is None:
        r = _ix.gather(input.view(-1), 0, indices.reshape(-1), "take_along_dim", False,
                       _BOUNDS)  # view, as torch's (a non-viewable input raises there too)
        return _write_out("take_along_dim", r, out)
    if input.dim() != indices.dim():
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.dim()} dimensions for input, "
                           f"and {indices.dim()} dimensions for indices")
    dim = _wrap_dim(dim, input.dim())
    if input.dim() == 0:
        r = _ix.gather(input, 0, indices, "take_along_dim", False, _BOUNDS)
        return _write_out("take_along_dim", r, out)
    s_in, s_ix = list(input.shape), list(indices.shape)
    s_in[dim] = s_ix[dim]
    b = _broadcast(s_in, s_ix)
    bi, bx = list(b), list(b)
    bi[dim] = input.shape[dim]
    bx[dim] = indices.shape[dim]
    a = input.expand(bi) if list(input.shape) != bi else input
    ix = indices.expand(bx) if list(indices.shape) != bx else indices
    r = _ix.gather(a, dim, ix, "take_along_dim", False, _BOUNDS)
    return _write_out("take_along_dim", r, out)


def _put_(self, index, source, accumulate=False):
    fn = "put_"
    _long_index(fn, index)
    _need_tensor(fn, "source", source)
    if source.dtype != self.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_sname(self.dtype)} and source.dtype = "
                           f"{_sname(source.dtype)}")
    if source.numel() != index.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.numel()}, index.numel() = "
                         f"{index.numel()}")
    if self.numel() == 0 and index.numel() != 0:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    _no_internal_overlap(self)  # torch's order: after the index checks
    if index.numel() == 0:
        return self
    code = _ADD if accumulate else _NONE
    if self.is_contiguous():
        _scat(self.view(-1), 0, index.reshape(-1), source.reshape(-1), code, "put_", True,
                     _FLAT, False)
        return self
    tmp = self.contiguous()
    _scat(tmp.view(-1), 0, index.reshape(-1), source.reshape(-1), code, "put_", True,
                 _FLAT, False)
    self.copy_(tmp)
    return self


def put(input, index, source, accumulate=False):
    """A copy of input with source written (or added) at the flat index (torch.put)."""
    _need_tensor("put", "input", input)
    return _put_(input.clone(), index, source, accumulate)


# ---- nonzero / argwhere ------------------------------------------------------------------

def nonzero(input, *, out=None, as_tuple=False):
    """The coordinates of input's nonzero elements: a (count, ndim) int64 tensor, or one 1-D
    tensor per dim with as_tuple=True (torch.nonzero). The size depends on the data: one
    host read on the GPU, as in torch."""
    _need_tensor("nonzero", "input", input)
    dev = input.device
    if as_tuple or input.dim() == 0:
        cols = _ix.nonzero_columns(input)
        if as_tuple:
            return tuple(c.to(dev) for c in cols)
        r = _C.zeros((cols[0].numel(), 0), dtype=_C.int64, device=dev)
    else:
        # one (count, ndim) result, written where CUB selects (no stacking copy)
        r = _ix.nonzero(input)
    return _write_out("nonzero", r, out)


def argwhere(input):
    """nonzero(input): the (count, ndim) coordinates of the nonzero elements."""
    return nonzero(input)


# ---- Tensor methods ------------------------------------------------------------------------

def _methods():
    def gather_m(self, dim, index, *, sparse_grad=False):
        return gather(self, dim, index)

    def scatter_m(self, dim, index, src=None, value=None, *, reduce=None):
        return scatter(self, dim, index, src, value, reduce=reduce)

    def scatter_m_(self, dim, index, src=None, value=None, *, reduce=None):
        return _scatter_(self, dim, index, src, value, reduce=reduce)

    def scatter_reduce_m(self, dim, index, src, reduce, *, include_self=True):
        return scatter_reduce(self, dim, index, src, reduce, include_self=include_self)

    def index_add_m(self, dim, index, source, *, alpha=1):
        return index_add(self, dim, index, source, alpha=alpha)

    def index_reduce_m(self, dim, index, source, reduce, *, include_self=True):
        return index_reduce(self, dim, index, source, reduce, include_self=include_self)

    def take_along_dim_m(self, indices, dim=None):
        return take_along_dim(self, indices, dim)

    def masked_select_m(self, mask):
        return masked_select(self, mask)

    def index_select_m(self, dim, index):
        return index_select(self, dim, index)

    def nonzero_m(self, *, as_tuple=False):
        return nonzero(self, as_tuple=as_tuple)

    return {"gather": gather_m, "scatter": scatter_m, "scatter_": scatter_m_,
            "scatter_add": scatter_add, "scatter_add_": _scatter_add_,
            "scatter_reduce": scatter_reduce_m, "scatter_reduce_": _scatter_reduce_,
            "index_select": index_select_m, "index_add": index_add_m, "index_add_": _index_add_,
            "index_copy": index_copy, "index_copy_": _index_copy_, "index_fill": index_fill,
            "index_fill_": _index_fill_, "index_put": index_put, "index_put_": index_put_,
            "index_reduce": index_reduce_m, "index_reduce_": _index_reduce_,
            "masked_fill": masked_fill, "masked_fill_": _masked_fill_,
            "masked_scatter": masked_scatter, "masked_scatter_": _masked_scatter_,
            "masked_select": masked_select_m, "take": take, "take_along_dim": take_along_dim_m,
            "put": put, "put_": _put_, "nonzero": nonzero_m, "argwhere": argwhere}


def _attach(methods):
    for name, fn in methods.items():
        if name not in vars(_Tensor):
            try:
                fn.__name__ = fn.__qualname__ = name
            except (AttributeError, TypeError):
                pass
            setattr(_Tensor, name, fn)


_attach(_methods())
