"""torch's sorting and search family: sort, argsort, msort, topk, kthvalue, median,
nanmedian, mode, quantile, nanquantile, unique, unique_consecutive, searchsorted,
bucketize, histc, histogram, bincount, cummax, cummin (and the Tensor methods torch has).

Four bound cores do the work on both devices (csrc/ops/sort/, ember._C._sort): a
stable sort (CUB radix sort on the GPU), a binary search, cummax/cummin, and a
counting pass; everything else is composed here from them and the bound ops, with
torch's names, arguments, results (named tuples as torch.return_types) and messages.

Autograd: the cores record no graph. Where the input requires grad, the values are
read again from the input through the indices (advanced indexing, which is
differentiable), so gradients flow back through the indices exactly as torch's
SortBackward/TopkBackward/... do (ties included: each value's gradient goes to the
element its index names). quantile interpolates those values with lerp.

unique, unique_consecutive, bincount and histc/histogram with data-dependent ranges
read sizes back from the device (one host synchronisation, as torch).

Imports nothing but ember._C and the shape composites.
"""
from collections import namedtuple

from ember import _C
from ember._composite_shape import _attach, _out, _scalar_name, _wrap_dim

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode",
           "quantile", "nanquantile", "unique", "unique_consecutive", "searchsorted",
           "bucketize", "histc", "histogram", "bincount", "cummax", "cummin"]

_Tensor = _C.Tensor
_core = _C._sort


# ---- named tuples (torch.return_types) ----------------------------------------------

def _return_type(name, fields):
    rt = _C.return_types
    cls = getattr(rt, name, None)
    if cls is not None:
        return cls
    base = namedtuple(name, fields)

    def __repr__(self):
        inner = ", ".join(f"{f}={getattr(self, f)!r}" for f in fields)
        return f"ember.return_types.{name}({inner})"

    cls = type(name, (base,), {"__slots__": (), "__repr__": __repr__,
                               "__doc__": f"{name}({', '.join(fields)}): what ember.{name} "
                                          "returns (torch.return_types')."})
    cls.__module__, cls.__qualname__ = "ember.return_types", name
    setattr(rt, name, cls)
    return cls


_VI = ("values", "indices")
_SortT = _return_type("sort", _VI)
_TopkT = _return_type("topk", _VI)
_KthT = _return_type("kthvalue", _VI)
_MedianT = _return_type("median", _VI)
_NanmedianT = _return_type("nanmedian", _VI)
_ModeT = _return_type("mode", _VI)
_CummaxT = _return_type("cummax", _VI)
_CumminT = _return_type("cummin", _VI)
_HistogramT = _return_type("histogram", ("hist", "bin_edges"))


# ---- helpers ------------------------------------------------------------------------

_COMPLEX_TORCH_NAMES = {"complex32": "ComplexHalf", "complex64": "ComplexFloat",
                        "complex128": "ComplexDouble"}


def _check_input(fn, value, name="input", pos=1):
    if not isinstance(value, _Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(value).__name__}")
    if value.is_complex():
        # complex values have no order: torch's errors
        where = "CUDA" if value.is_cuda else "CPU"
        if fn in ("sort", "argsort", "msort"):
            raise RuntimeError(f"Sort does not support complex dtypes on {where}")
        if fn == "topk":
            raise RuntimeError(f"topk does not support complex dtypes on {where}")
        kernel = fn if fn in ("unique", "unique_consecutive") else \
            f"{fn}_{'cuda' if value.is_cuda else 'cpu'}"
        tname = _COMPLEX_TORCH_NAMES[str(value.dtype).split(".")[-1]]
        raise NotImplementedError(f'"{kernel}" not implemented for \'{tname}\'')


def _needs_grad(x):
    return x.requires_grad and _C.is_grad_enabled()


def _arange(n, device):
    return _C.arange(n, dtype=_C.int64, device=device)


def _take_along(x, idx, dim):
    """x's elements at idx along dim (torch.take_along_dim for an idx of x's rank whose
    other sizes equal x's or 1): advanced indexing, so differentiable."""
    if x.dim() == 0:
        return x.clone() if idx.dim() == 0 else x.expand(idx.shape).clone()
    nd = x.dim()
    index = []
    for k in range(nd):
        if k == dim:
            index.append(idx)
        else:
            shape = [1] * nd
            shape[k] = x.shape[k]
            index.append(_arange(x.shape[k], x.device).view(shape))
    return x[tuple(index)]


def _with_grad(x, values, indices, dim):
    """values read again through indices where x requires grad (the graph)."""
    if _needs_grad(x) and x.dtype.is_floating_point:
        return _take_along(x, indices, dim)
    return values


def _pair_out(name, result, out, cls, *inputs):
    if out is None:
        return result
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors")
    _out(name, result[0], out[0], *inputs)
    _out(name, result[1], out[1], *inputs)
    return cls(out[0], out[1])


def _reduce_dim_check(fn, x, d):
    if x.dim() and x.shape[d] == 0:
        raise IndexError(f"{fn}(): Expected reduction dim {d} to have non-zero size.")


def _keep(t, d, keepdim, x):
    return t if keepdim or x.dim() == 0 else t.squeeze(d)


# ---- sort, argsort, msort, topk -----------------------------------------------------

def _sort(x, dim, descending):
    d = _wrap_dim(dim, x.dim())
    values, indices = _core.sort(x, d, bool(descending))
    return _with_grad(x, values, indices, d), indices


def sort(input, dim=-1, descending=False, stable=False, *, out=None):
    """torch.sort: (values, indices) along dim; stable (equal elements keep their order,
    whatever `stable` says); NaN sorts as the largest value."""
    _check_input("sort", input)
    if stable is not None and not isinstance(stable, bool):
        raise TypeError(f"sort(): argument 'stable' must be bool, not {type(stable).__name__}")
    return _pair_out("sort", _SortT(*_sort(input, dim, descending)), out, _SortT, input)


def argsort(input, dim=-1, descending=False, stable=False):
    """torch.argsort: the indices that sort input along dim (stable)."""
    _check_input("argsort", input)
    d = _wrap_dim(dim, input.dim())
    return _core.sort(input, d, bool(descending))[1]


def msort(input, *, out=None):
    """torch.msort: input sorted along dim 0."""
    _check_input("msort", input)
    return _out("msort", _sort(input, 0, False)[0], out, input)


_TOPK_SELECT_MIN = 1 << 16  # one CUDA line at least this long: radix select (topk.cu)


def _one_long_cuda_line(input, size):
    """Whether topk/kthvalue of input along a dim of `size` is one CUDA line (every other
    dim of size 1) long enough for the radix select."""
    return input.is_cuda and input.numel() == size and size >= _TOPK_SELECT_MIN


def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """torch.topk: the k largest (smallest) elements along dim, in order, and their indices."""
    _check_input("topk", input)
    d = _wrap_dim(dim, input.dim())  # torch's order: dim, k, then the dtype
    size = input.shape[d] if input.dim() else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if input.dtype == _C.bool:  # torch raises with this message on CUDA too
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if _one_long_cuda_line(input, size) and 1 <= k and k * 8 <= size:
        # One long line: radix select the k candidates (no full sort), then sort them.
        cand, cand_idx = _core.topk_candidates(input, k, bool(largest))
        values, order = _core.sort(cand, 0, bool(largest))
        shape = list(input.shape)
        shape[d] = k
        values, indices = values.reshape(shape), cand_idx.gather(0, order).reshape(shape)
    else:
        values, indices = _core.sort(input, d, bool(largest))
        if input.dim():
            values, indices = values.narrow(d, 0, k), indices.narrow(d, 0, k).contiguous()
            values = values.contiguous()
    values = _with_grad(input, values, indices, d)
    return _pair_out("topk", _TopkT(values, indices), out, _TopkT, input)


def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """torch.kthvalue: the k-th smallest element along dim (k from 1) and its index."""
    _check_input("kthvalue", input)
    d = _wrap_dim(dim, input.dim())
    _reduce_dim_check("kthvalue", input, d)
    size = input.shape[d] if input.dim() else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if _one_long_cuda_line(input, size) and min(k, size - k + 1) * 8 <= size:
        # Radix select the k smallest (or the size - k + 1 largest) and sort only those:
        # the k-th smallest is the last of them.
        small = k * 2 <= size
        m = k if small else size - k + 1
        cand, cand_idx = _core.topk_candidates(input, m, not small)
        values, order = _core.sort(cand, 0, not small)
        shape = list(input.shape)
        shape[d] = 1
        values = values.narrow(0, m - 1, 1).reshape(shape)
        indices = cand_idx.gather(0, order.narrow(0, m - 1, 1)).reshape(shape)
    else:
        values, indices = _core.sort(input, d, False)
        if input.dim():
            values, indices = values.narrow(d, k - 1, 1), indices.narrow(d, k - 1, 1)
    values = _with_grad(input, values, indices, d)
    r = _KthT(_keep(values, d, keepdim, input).contiguous(),
              _keep(indices, d, keepdim, input).contiguous())
    return _pair_out("kthvalue", r, out, _KthT, input)


# ---- median, nanmedian, mode --------------------------------------------------------

def _median_pos(sorted_values, d, n, ignore_nan):
    """The position in each sorted line of torch's median: the lower middle; with NaNs the
    first NaN (median) or the lower middle of the others (nanmedian; the first NaN when
    every element is NaN)."""
    if sorted_values.dtype.is_floating_point:
        nans = sorted_values.isnan().sum(d, keepdim=True)
        if ignore_nan:
            m = n - nans
            return _C.where(m > 0, (m - 1) // 2, 0)
        return _C.where(nans > 0, n - nans, (n - 1) // 2)
    shape = list(sorted_values.shape)
    shape[d] = 1
    return _C.full(shape, (n - 1) // 2, dtype=_C.int64, device=sorted_values.device)


def _median(fn, cls, input, dim, keepdim, out, ignore_nan):
    _check_input(fn, input)
    if dim is not None:
        _reduce_dim_check(fn, input, _wrap_dim(dim, input.dim()))
    if input.dtype == _C.bool and input.numel():
        # torch's CUDA median of the whole tensor sorts (bool included); its kernels along
        # a dim and every CPU kernel take no bool
        if not input.is_cuda:
            raise NotImplementedError(f"\"{fn}_cpu\" not implemented for 'Bool'")
        if dim is not None:
            raise NotImplementedError("\"median_out_impl\" not implemented for 'Bool'")
    if dim is None:
        if keepdim is not False or out is not None and isinstance(out, (tuple, list)):
            raise TypeError(f"{fn}() received an invalid combination of arguments")
        flat = input.reshape(-1)
        n = flat.numel()
        if n == 0:
            # NaN; for integers what torch's conversion of NaN gives on x86
            if input.dtype.is_floating_point:
                v = _C.full((), float("nan"), dtype=input.dtype, device=input.device)
            else:
                low = {_C.int32: -2 ** 31, _C.int64: -2 ** 63, _C.bool: True}.get(input.dtype, 0)
                v = _C.full((), low, dtype=input.dtype, device=input.device)
            return _out(fn, v, out, input)
        values, indices = _core.sort(flat, 0, False)
        pos = _median_pos(values, 0, n, ignore_nan)
        idx = _take_along(indices, pos, 0)
        v = _take_along(flat, idx, 0) if _needs_grad(input) else _take_along(values, pos, 0)
        return _out(fn, v.reshape(()), out, input)
    d = _wrap_dim(dim, input.dim())
    _reduce_dim_check(fn, input, d)
    if input.dim() == 0:
        r = cls(input.clone(), _C.zeros((), dtype=_C.int64, device=input.device))
        return _pair_out(fn, r, out, cls, input)
    n = input.shape[d]
    values, indices = _core.sort(input, d, False)
    pos = _median_pos(values, d, n, ignore_nan)
    idx = _take_along(indices, pos, d)
    v = _take_along(input, idx, d) if _needs_grad(input) else _take_along(values, pos, d)
    r = cls(_keep(v, d, keepdim, input).contiguous(), _keep(idx, d, keepdim, input).contiguous())
    return _pair_out(fn, r, out, cls, input)


def median(input, dim=None, keepdim=False, *, out=None):
    """torch.median: the lower of the two middle values (NaN where there is a NaN); with
    dim, (values, indices)."""
    return _median("median", _MedianT, input, dim, keepdim, out, False)


def nanmedian(input, dim=None, keepdim=False, *, out=None):
    """torch.nanmedian: median ignoring NaNs (NaN only where every element is NaN)."""
    return _median("nanmedian", _NanmedianT, input, dim, keepdim, out, True)


def mode(input, dim=-1, keepdim=False, *, out=None):
    """torch.mode: the most frequent value along dim (the smallest of equally frequent
    ones; NaNs never equal) and the index of its last occurrence."""
    _check_input("mode", input)
    d = _wrap_dim(dim, input.dim())
    _reduce_dim_check("mode", input, d)
    if input.dim() == 0:
        r = _ModeT(input.clone(), _C.zeros((), dtype=_C.int64, device=input.device))
        return _pair_out("mode", r, out, _ModeT, input)
    n = input.shape[d]
    values, indices = _core.sort(input, d, False)
    shape = [1] * input.dim()
    shape[d] = n
    pos = _arange(n, input.device).view(shape)
    # Where each run of equal sorted values starts; the run length so far at each position.
    starts = _C.ones(shape, dtype=_C.bool, device=input.device).expand(values.shape)
    if n > 1:
        differs = values.narrow(d, 1, n - 1) != values.narrow(d, 0, n - 1)
        first = _C.ones_like(values.narrow(d, 0, 1), dtype=_C.bool)
        starts = _C.cat([first, differs], d)
    start_at = _core.cum_extreme(True, _C.where(starts, pos, 0), d)[0]
    run = pos - start_at
    best = run.argmax(d, keepdim=True)  # the first longest run's end: the smallest value
    idx = _take_along(indices, best, d)
    v = _take_along(input, idx, d) if _needs_grad(input) else _take_along(values, best, d)
    r = _ModeT(_keep(v, d, keepdim, input).contiguous(), _keep(idx, d, keepdim, input).contiguous())
    return _pair_out("mode", r, out, _ModeT, input)


# ---- quantile, nanquantile ----------------------------------------------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(fn, input, q, dim, keepdim, interpolation, out, ignore_nan):
    _check_input(fn, input)
    if input.dtype not in (_C.float32, _C.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if isinstance(q, _Tensor):
        if q.dim() > 1:
            raise RuntimeError("quantile() q must be a scalar or 1D tensor")
        if q.dtype != input.dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
        if q.device != input.device:
            raise RuntimeError("quantile() q tensor must be on the same device as the input "
                               f"tensor, but got q on {q.device} and input on {input.device}")
        q_scalar = q.dim() == 0
        qt = q.reshape(-1)
    else:
        qf = float(q)
        if not 0 <= qf <= 1:
            raise RuntimeError("quantile() q must be in the range [0, 1] but got {q}")
        q_scalar = True
        qt = _C.full((1,), qf, dtype=input.dtype, device=input.device)
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if out is not None and out.dtype != input.dtype:
        raise RuntimeError("quantile() out tensor must be same dtype as the input tensor")
    if isinstance(q, _Tensor) and qt.numel() and not bool(((qt >= 0) & (qt <= 1)).all()):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    # Lines along the last dim: flattened (dim=None) or dim moved last.
    if dim is None:
        x = input.reshape(-1)
        out_shape = [1] * input.dim() if keepdim else []
    else:
        d = _wrap_dim(dim, input.dim())
        x = input.movedim(d, -1) if input.dim() else input.reshape(1)
        out_shape = list(input.shape)
        if out_shape:
            if keepdim:
                out_shape[d] = 1
            else:
                del out_shape[d]
    values, indices = _core.sort(x, -1, False)
    if _needs_grad(input):
        values = _take_along(x, indices, x.dim() - 1)
    n = x.shape[-1]
    lead = list(x.shape[:-1])
    qv = qt.view([-1] + [1] * len(lead))              # [Q, 1...]
    if ignore_nan:
        count = values.isnan().logical_not().sum(-1).to(input.dtype)  # [*lead]
        ranks = qv * (count - 1)
        ranks = _C.where(ranks < 0, 0.0, ranks)
    else:
        ranks = qv * float(n - 1)
        has_nan = values.isnan().any(-1)
        ranks = _C.where(has_nan, float(n - 1), ranks)
    ranks = ranks.expand([qt.numel()] + lead)
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    below = ranks.to(_C.int64)
    vexp = values.unsqueeze(0).expand([qt.numel()] + lead + [n])
    last = len(lead) + 1
    result = _take_along(vexp, below.unsqueeze(-1), last).squeeze(-1)
    if interpolation in ("linear", "midpoint"):
        weights = (_C.full_like(ranks, 0.5) if interpolation == "midpoint"
                   else ranks - below.to(input.dtype))
        above = ranks.ceil().to(_C.int64)
        upper = _take_along(vexp, above.unsqueeze(-1), last).squeeze(-1)
        result = result.lerp(upper, weights)
    result = result.reshape(([] if q_scalar else [qt.numel()]) + out_shape)
    return _out(fn, result, out, input)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """torch.quantile: the q-th quantiles along dim (all elements when dim is None), q a
    number or a 0-d/1-D tensor (its values first in the result's shape); NaN where a
    line has a NaN."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, out, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """torch.nanquantile: quantile ignoring NaNs (NaN where a line is all NaN)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, out, True)


# ---- unique, unique_consecutive -----------------------------------------------------

def _runs(flags, n, device):
    """Run ids (inclusive count of starts - 1) and the number of runs (one host read)."""
    ids = flags.cumsum(0) - 1
    count = int(ids[-1].item()) + 1 if n else 0
    return ids, count


def _unique_result(values, inverse, counts, return_inverse, return_counts):
    if not return_inverse and not return_counts:
        return values
    r = [values]
    if return_inverse:
        r.append(inverse)
    if return_counts:
        r.append(counts)
    return tuple(r) if len(r) > 2 or return_counts else (values, inverse)


def _unique_flat(x, consecutive, return_inverse, return_counts):
    flat = x.reshape(-1)
    n = flat.numel()
    dev = x.device
    if x.is_cuda and 0 < n < 2 ** 31:
        # One core (csrc/ops/sort/sort.cu): radix sort (keys only for integers without
        # inverse), run flags, a scan and one host read of the number of runs.
        values, inverse, counts = _core.unique_flat(flat, not consecutive, bool(return_inverse),
                                                    bool(return_counts))
        if return_inverse:
            inverse = inverse.reshape(x.shape)
        return _unique_result(values, inverse, counts, return_inverse, return_counts)
    if consecutive:
        s, perm = flat, None
    else:
        s, perm = _core.sort(flat, 0, False)
    if n == 0:
        empty = _C.empty((0,), dtype=_C.int64, device=dev)
        return _unique_result(s, empty.reshape(x.shape), empty, return_inverse, return_counts)
    flags = _C.ones((n,), dtype=_C.bool, device=dev)
    if n > 1:
        flags[1:] = s[1:] != s[:-1]
    values = s[flags]
    inverse = counts = None
    if return_inverse or return_counts:
        ids = flags.cumsum(0) - 1
        if return_inverse:
            if perm is None:
                inverse = ids
            else:
                inverse = _C.empty((n,), dtype=_C.int64, device=dev)
                inverse[perm] = ids
            inverse = inverse.reshape(x.shape)
        if return_counts:
            counts = _core.bincount(ids, None, values.shape[0])
    return _unique_result(values, inverse, counts, return_inverse, return_counts)


def _unique_dim(x, d, consecutive, return_inverse, return_counts):
    moved = x.movedim(d, 0)
    n = moved.shape[0]
    rows = moved.reshape(n, -1)
    m = rows.shape[1]
    dev = x.device
    perm = _arange(n, dev)
    if not consecutive and n > 1:
        # Lexicographic order of the rows: stable sorts from the last column to the first.
        for c in range(m - 1, -1, -1):
            _, o = _core.sort(rows[:, c][perm], 0, False)
            perm = perm[o]
    srt = rows[perm]
    flags = _C.ones((n,), dtype=_C.bool, device=dev)
    if n > 1 and m:
        flags[1:] = (srt[1:] != srt[:-1]).any(1)
    elif n > 1:
        flags[1:] = False
    values = srt[flags].reshape([-1] + list(moved.shape[1:])).movedim(0, d)
    ids = flags.cumsum(0) - 1
    inverse = _C.empty((n,), dtype=_C.int64, device=dev)
    if n:
        inverse[perm] = ids
    counts = _core.bincount(ids, None, values.shape[d])
    return _unique_result(values, inverse, counts, return_inverse, return_counts)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """torch.unique: the distinct elements (slices along dim) in ascending order (always
    sorted: a valid result of sorted=False too), with the inverse indices and counts on
    request. NaNs are never equal to each other."""
    _check_input("unique", input)
    if dim is None:
        return _unique_flat(input, False, return_inverse, return_counts)
    return _unique_dim(input, _wrap_dim(dim, input.dim()), False, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """torch.unique_consecutive: one element of each run of equal neighbours."""
    _check_input("unique_consecutive", input)
    if dim is None:
        return _unique_flat(input, True, return_inverse, return_counts)
    return _unique_dim(input, _wrap_dim(dim, input.dim()), True, return_inverse, return_counts)


# ---- searchsorted, bucketize --------------------------------------------------------

def _search(fn, seq, values, out_int32, right, out):
    if seq.dtype == _C.bool or values.dtype == _C.bool:
        raise NotImplementedError(f"\"{fn}_out_{seq.device.type}\" not implemented for 'Bool'")
    common = _C.promote_types(seq.dtype, values.dtype)
    r = _core.searchsorted(seq.to(common), values.to(common), bool(right), bool(out_int32))
    if out is not None:
        want = _C.int32 if out_int32 else _C.int64
        if out.dtype != want:
            raise RuntimeError(
                "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) "
                "or Long(int64) depending on whether out_int32 flag is True, but we got output "
                f"tensor's dtype {_scalar_name(out.dtype)} and out_int32 flag is "
                f"{bool(out_int32)}")
        return _out(fn, r, out)
    return r


def _as_value_tensor(values, like):
    if isinstance(values, _Tensor):
        return values, False
    if isinstance(values, bool) or not isinstance(values, (int, float)):
        raise TypeError(f"searchsorted(): argument 'input' must be Tensor or Number, not "
                        f"{type(values).__name__}")
    dt = _C.result_type(like, values)
    return _C.full((), values, dtype=dt, device=like.device), True


def _shape_str(t):
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None, out=None):
    """torch.searchsorted: for each value of input (a tensor or a number), the index where
    it would be inserted into sorted_sequence (1-D, or each row of its last dim for the
    rows of input) to keep it sorted: the first such place (right/side='right': the last);
    sorter: the indices that sort sorted_sequence along its last dim."""
    _check_input("searchsorted", sorted_sequence, "sorted_sequence")
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites,"
                               " got side of left while right was True")
        right = side == "right"
    values, scalar = _as_value_tensor(input, sorted_sequence)
    if sorted_sequence.device != values.device:
        raise RuntimeError(
            "torch.searchsorted(): boundaries and input value tensors should have same device "
            f"type, but got boundaries tensor device type {sorted_sequence.device.type} and "
            f"input value tensor device type {values.device.type}")
    if sorted_sequence.dim() == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension")
    if scalar and sorted_sequence.dim() != 1:
        raise RuntimeError(
            "torch.searchsorted(): input value can be a scalar only when boundaries tensor "
            f"dimension is 1, but we got boundaries tensor dim({sorted_sequence.dim()}) and "
            "input value's dim(0) numel(1)")
    if sorted_sequence.dim() != 1 and (
            sorted_sequence.dim() != values.dim()
            or sorted_sequence.shape[:-1] != values.shape[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {_shape_str(sorted_sequence)} and input value tensor "
            f"{_shape_str(values)}")
    seq = sorted_sequence
    if sorter is not None:
        if sorter.dtype != _C.int64:
            raise RuntimeError("torch.searchsorted(): sorter must be a tensor of long dtype but "
                               f"got dtype {_scalar_name(sorter.dtype)}")
        if sorter.shape != seq.shape:
            raise RuntimeError(
                "torch.searchsorted(): boundary and sorter must have the same size, but got "
                f"boundary tensor {_shape_str(seq)}and got sorter tensor {_shape_str(sorter)}")
        if sorter.device != seq.device:
            raise RuntimeError("torch.searchsorted(): sorter and boundary tensors should have "
                               "same device type")
        seq = _take_along(seq.detach(), sorter, seq.dim() - 1)
    return _search("searchsorted", seq.detach(), values.detach(), out_int32, right, out)


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """torch.bucketize: the bucket of each element of input (a tensor or a number) among the
    1-D sorted boundaries (searchsorted with the arguments swapped)."""
    _check_input("bucketize", boundaries, "boundaries", 2)
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    values, _ = _as_value_tensor(input, boundaries)
    if values.device != boundaries.device:
        raise RuntimeError(
            "torch.searchsorted(): boundaries and input value tensors should have same device "
            f"type, but got boundaries tensor device type {boundaries.device.type} and "
            f"input value tensor device type {values.device.type}")
    return _search("bucketize", boundaries.detach(), values.detach(), out_int32, right, out)


# ---- bincount, histc, histogram -----------------------------------------------------

def _is_integral(dtype):
    return dtype in (_C.uint8, _C.int8, _C.int16, _C.int32, _C.int64)


def bincount(input, weights=None, minlength=0):
    """torch.bincount: how often each value 0..max(input) occurs in the 1-D non-negative
    integral input (the summed weights instead when given; at least minlength bins)."""
    _check_input("bincount", input)
    dev = "cuda" if input.is_cuda else "cpu"
    if not _is_integral(input.dtype):
        raise NotImplementedError(f"\"bincount_{dev}\" not implemented for "
                                  f"'{_scalar_name(input.dtype)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.dim() != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.dim() != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    n = input.numel()
    if n:
        lo, hi = int(input.min().item()), int(input.max().item())
        if lo < 0:
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
        nbins = max(hi + 1, minlength)
    else:
        nbins = minlength
    w = None
    if weights is not None:
        if weights.device != input.device:
            raise RuntimeError("bincount: weights must be on the input's device")
        w = weights.detach().to(_C.float32 if weights.dtype == _C.float32 else _C.float64)
        w = w.contiguous()
    return _core.bincount(input.to(_C.int64).contiguous(), w, nbins)


def _finite_range(fn, lo, hi):
    import math
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"{fn}: range of [{lo}, {hi}] is not finite")


def _histc_cuda(x, bins, min, max):
    """torch's CUDA histc exactly (SummaryOps.cu, getBin): min and max converted to the
    input's dtype (the data's range when equal, widened by 1 when still equal), then
    bin = (int)((x - min) * bins / (max - min)) computed in the input's dtype (integer
    arithmetic for integral inputs), bins == nbins moved to the last bin, elements
    outside [min, max] (and NaNs) dropped."""
    dt, dev = x.dtype, x.device
    integral = _is_integral(dt)
    conv = int if integral else float
    if integral:
        lo, hi = int(min), int(max)  # Scalar.to<integer>(): truncation
    else:  # rounded to the dtype (on the host: no synchronisation)
        lo = _C.full((), float(min), dtype=dt).item()
        hi = _C.full((), float(max), dtype=dt).item()
    if lo == hi and x.numel():
        lo, hi = conv(x.min().item()), conv(x.max().item())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
        if not integral:
            lo, hi = _C.full((), lo, dtype=dt).item(), _C.full((), hi, dtype=dt).item()
    if not integral:
        _finite_range("torch.histc", lo, hi)
    if not lo < hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if integral:
        xi = x.to(_C.int64)
        inside = (xi >= lo) & (xi <= hi)
        pos = (_C.where(inside, xi, lo) - lo) * bins // (hi - lo)
    else:
        lo_t = _C.full((), lo, dtype=dt, device=dev)
        hi_t = _C.full((), hi, dtype=dt, device=dev)
        nb_t = _C.full((), bins, dtype=dt, device=dev)
        inside = (x >= lo_t) & (x <= hi_t)
        pos = ((_C.where(inside, x, lo_t) - lo_t) * nb_t / (hi_t - lo_t)).to(_C.int64)
    pos = _C.where(pos == bins, bins - 1, pos)
    pos = _C.where(inside, pos, -1)
    return _core.bincount(pos.contiguous(), None, bins).to(dt)


def histc(input, bins=100, min=0, max=0, *, out=None):
    """torch.histc: counts of the elements in `bins` equal-width bins over [min, max] (the
    data's range when min == max); elements outside (and NaNs) are ignored."""
    _check_input("histc", input)
    if not input.is_cuda and not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for "
                                  f"'{_scalar_name(input.dtype)}'")
    if input.dtype == _C.bool:
        raise NotImplementedError("\"histc\" not implemented for 'Bool'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if input.is_cuda:
        counts = _histc_cuda(input.detach().reshape(-1), bins, min, max)
        return _out("histc", counts, out, input)
    lo, hi = float(min), float(max)
    if lo == hi and input.numel():
        lo, hi = float(input.min().item()), float(input.max().item())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    _finite_range("torch.histc", lo, hi)
    x = input.detach().reshape(-1)
    if not x.dtype.is_floating_point:
        x = x.to(_C.get_default_dtype())
    inside = (x >= lo) & (x <= hi)
    xs = _C.where(inside, x, lo)
    pos = ((xs - lo) * bins / (hi - lo)).to(_C.int64)
    pos = _C.where(pos >= bins, bins - 1, pos)
    pos = _C.where(inside, pos, -1)
    counts = _core.bincount(pos.contiguous(), None, bins).to(input.dtype)
    return _out("histc", counts, out, input)


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """torch.histogram (CPU, as torch): (hist, bin_edges) of the elements in `bins`
    equal-width bins over range (the data's by default), or between the given 1-D
    increasing bin_edges tensor; weight sums per bin; density normalises."""
    _check_input("histogram", input)
    if input.is_cuda:
        raise NotImplementedError("Could not run 'aten::histogram.bin_ct' with arguments from "
                                  "the 'CUDA' backend (torch.histogram runs on the CPU only)")
    if input.dtype not in (_C.float32, _C.float64):
        raise NotImplementedError(f"\"histogramdd\" not implemented for "
                                  f"'{_scalar_name(input.dtype)}'")
    x = input.detach().reshape(-1)
    if isinstance(bins, _Tensor):
        if bins.dim() != 1:
            raise RuntimeError("torch.histogram(): bins tensor should have one dimension, but "
                               f"got {bins.dim()} dimensions")
        if bins.numel() == 0:
            raise RuntimeError("torch.histogram(): bins tensor should have at least 1 element "
                               "for dimension 0")
        edges = bins.detach().to(input.dtype).contiguous()
        if range is not None:
            raise TypeError("histogram() received an invalid combination of arguments - got "
                            "(Tensor, bins=Tensor, range=tuple)")
    else:
        nb = int(bins)
        if nb <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {nb} for "
                               "dimension 0")
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif x.numel():
            lo, hi = float(x.min().item()), float(x.max().item())
        else:
            lo, hi = 0.0, 0.0
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                               f"{range[0]} max {range[1]} for dimension 0")
        _finite_range("torch.histogramdd", lo, hi)
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = _C.linspace(lo, hi, nb + 1, dtype=input.dtype)
    nbins = edges.numel() - 1
    w = None
    if weight is not None:
        if weight.shape != input.shape:
            raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have "
                               "the same shape as the input tensor excluding its innermost "
                               "dimension")
        w = weight.detach().reshape(-1).to(input.dtype).contiguous()
    if nbins > 0 and x.numel():
        first, last = edges[0], edges[-1]
        inside = (x >= first) & (x <= last)
        pos = _core.searchsorted(edges, x.contiguous(), True, False) - 1
        pos = _C.where(pos >= nbins, nbins - 1, pos)
        pos = _C.where(inside, pos, -1).contiguous()
        hist = _core.bincount(pos, w, nbins).to(input.dtype)
    else:
        hist = _C.zeros((nbins if nbins > 0 else 0,), dtype=input.dtype)
    if density:
        widths = edges[1:] - edges[:-1]
        hist = hist / (hist.sum() * widths)
    r = _HistogramT(hist, edges.clone() if isinstance(bins, _Tensor) else edges)
    if out is not None:
        return _pair_out("histogram", r, out, _HistogramT, input)
    return r


# ---- cummax, cummin -----------------------------------------------------------------

def _cum(fn, cls, is_max, input, dim, out):
    _check_input(fn, input)
    if input.numel() == 0:  # torch checks no dim then
        r = cls(input.detach().clone(), _C.empty(input.shape, dtype=_C.int64, device=input.device))
        return _pair_out(fn, r, out, cls, input)
    d = _wrap_dim(dim, input.dim())
    values, indices = _core.cum_extreme(is_max, input, d)
    values = _with_grad(input, values, indices, d)
    return _pair_out(fn, cls(values, indices), out, cls, input)


def cummax(input, dim, *, out=None):
    """torch.cummax: running maximum along dim (NaN propagates) and where it was taken
    (the last of equal values)."""
    return _cum("cummax", _CummaxT, True, input, dim, out)


def cummin(input, dim, *, out=None):
    """torch.cummin: running minimum along dim (NaN propagates) and where it was taken."""
    return _cum("cummin", _CumminT, False, input, dim, out)


# ---- Tensor methods -----------------------------------------------------------------

def _methods():
    def sort_m(self, dim=-1, descending=False, stable=False):
        return sort(self, dim, descending, stable)

    def argsort_m(self, dim=-1, descending=False, stable=False):
        return argsort(self, dim, descending, stable)

    def msort_m(self):
        return msort(self)

    def topk_m(self, k, dim=-1, largest=True, sorted=True):
        return topk(self, k, dim, largest, sorted)

    def kthvalue_m(self, k, dim=-1, keepdim=False):
        return kthvalue(self, k, dim, keepdim)

    def median_m(self, dim=None, keepdim=False):
        return median(self, dim, keepdim)

    def nanmedian_m(self, dim=None, keepdim=False):
        return nanmedian(self, dim, keepdim)

    def mode_m(self, dim=-1, keepdim=False):
        return mode(self, dim, keepdim)

    def quantile_m(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        return quantile(self, q, dim, keepdim, interpolation=interpolation)

    def nanquantile_m(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        return nanquantile(self, q, dim, keepdim, interpolation=interpolation)

    def unique_m(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        return unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive_m(self, return_inverse=False, return_counts=False, dim=None):
        return unique_consecutive(self, return_inverse, return_counts, dim)

    def histc_m(self, bins=100, min=0, max=0):
        return histc(self, bins, min, max)

    def histogram_m(self, bins=100, *, range=None, weight=None, density=False):
        return histogram(self, bins, range=range, weight=weight, density=density)

    def bincount_m(self, weights=None, minlength=0):
        return bincount(self, weights, minlength)

    def cummax_m(self, dim):
        return cummax(self, dim)

    def cummin_m(self, dim):
        return cummin(self, dim)

    return {"sort": sort_m, "argsort": argsort_m, "msort": msort_m, "topk": topk_m,
            "kthvalue": kthvalue_m, "median": median_m, "nanmedian": nanmedian_m,
            "mode": mode_m, "quantile": quantile_m, "nanquantile": nanquantile_m,
            "unique": unique_m, "unique_consecutive": unique_consecutive_m, "histc": histc_m,
            "histogram": histogram_m, "bincount": bincount_m, "cummax": cummax_m,
            "cummin": cummin_m}


_attach(_methods())
