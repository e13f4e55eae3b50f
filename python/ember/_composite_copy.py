"""torch's view-copy functions (``*_copy``: the view op, then a contiguous copy of it) and
the view-scatter functions (``slice_scatter``, ``select_scatter``, ``diagonal_scatter``,
``as_strided_scatter``: a copy of input with src written into the view).

Compositions of ember's bound ops: a ``*_copy`` is the view followed by ``contiguous``
(or ``clone`` where the view already is contiguous), so it never aliases input; a scatter
clones input and copies src into the view of the clone (``copy_`` into a view is
differentiable, so gradients flow to input outside the view and to src inside it).
Names, arguments, results (contiguous, as torch's), out= and messages are torch's.

Imports nothing but ember._C and the shape composites.
"""
from ember import _C
from ember._composite_shape import _out, _wrap_dim

__all__ = ["alias_copy", "as_strided_copy", "detach_copy", "diagonal_copy", "expand_copy",
           "permute_copy", "select_copy", "slice_copy", "split_copy", "split_with_sizes_copy",
           "squeeze_copy", "t_copy", "transpose_copy", "unbind_copy", "unfold_copy",
           "unsqueeze_copy", "view_copy", "narrow_copy", "slice_scatter", "select_scatter",
           "diagonal_scatter", "as_strided_scatter"]


def _copy(view):
    """A contiguous tensor of its own with view's values (differentiable)."""
    return view.clone() if view.is_contiguous() else view.contiguous()


def _one(name, view_fn):
    def fn(input, *args, out=None, **kwargs):
        return _out(name, _copy(view_fn(input, *args, **kwargs)), out, input)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.{name}: like the view op, but the result is a contiguous copy."
    return fn


def _many(name, views_fn):
    def fn(input, *args, out=None, **kwargs):
        results = [_copy(v) for v in views_fn(input, *args, **kwargs)]
        if out is None:
            return results if name != "unbind_copy" else tuple(results)
        if len(out) != len(results):
            raise RuntimeError(f"{name}: expected out to have {len(results)} tensors, but got "
                               f"{len(out)}")
        for r, o in zip(results, out):
            _out(name, r, o, input)
        return None
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.{name}: like the view op, but each result is a contiguous copy."
    return fn


def _slice(input, dim=0, start=None, end=None, step=1):
    if input.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input.dim())
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return input[(slice(None),) * d + (slice(start, end, step),)]


def _split_with_sizes(input, split_sizes, dim=0):
    from ember._composite_shape import split_with_sizes
    return split_with_sizes(input, split_sizes, dim)


def _squeeze(input, dim=None):
    return input.squeeze() if dim is None else input.squeeze(dim)


def _view(input, *size):
    # torch's view_copy copies, so it accepts the strides view refuses: reshape's result
    if len(size) == 1 and not isinstance(size[0], int):
        size = size[0]
    if len(size) == 1 and hasattr(size[0], "is_floating_point"):  # view_copy(dtype)
        return input.view(size[0])
    return input.reshape(size)


def _expand(input, size, *, implicit=False):
    return input.expand(size)


alias_copy = _one("alias_copy", lambda x: x)
as_strided_copy = _one("as_strided_copy", lambda x, size, stride, storage_offset=None:
                       x.as_strided(size, stride, storage_offset)
                       if storage_offset is not None else x.as_strided(size, stride))
detach_copy = _one("detach_copy", lambda x: x.detach())
diagonal_copy = _one("diagonal_copy", lambda x, offset=0, dim1=0, dim2=1:
                     x.diagonal(offset, dim1, dim2))
expand_copy = _one("expand_copy", _expand)
permute_copy = _one("permute_copy", lambda x, dims: x.permute(dims))
select_copy = _one("select_copy", lambda x, dim, index: x.select(dim, index))
slice_copy = _one("slice_copy", _slice)
squeeze_copy = _one("squeeze_copy", _squeeze)
t_copy = _one("t_copy", lambda x: x.t())
transpose_copy = _one("transpose_copy", lambda x, dim0, dim1: x.transpose(dim0, dim1))
unfold_copy = _one("unfold_copy", lambda x, dimension, size, step: x.unfold(dimension, size, step))
unsqueeze_copy = _one("unsqueeze_copy", lambda x, dim: x.unsqueeze(dim))
view_copy = _one("view_copy", _view)
narrow_copy = _one("narrow_copy", lambda x, dim, start, length: x.narrow(dim, start, length))
split_copy = _many("split_copy", lambda x, split_size, dim=0: x.split(split_size, dim))
split_with_sizes_copy = _many("split_with_sizes_copy", _split_with_sizes)
unbind_copy = _many("unbind_copy", lambda x, dim=0: x.unbind(dim))


# ---- scatters: input with src written into one of its views -------------------------------

def _scatter(input, src, view_fn):
    if not isinstance(src, _C.Tensor):
        raise TypeError(f"argument 'src' must be Tensor, not {type(src).__name__}")
    out = input.clone()
    view = view_fn(out)
    if tuple(view.shape) != tuple(src.shape):
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(view.shape)}")
    view.copy_(src)
    return out


def slice_scatter(input, src, dim=0, start=None, end=None, step=1, *, out=None):
    """torch.slice_scatter: a copy of input with src in input[..., start:end:step, ...]."""
    return _out("slice_scatter", _scatter(input, src, lambda x: _slice(x, dim, start, end, step)),
                out, input, src)


def select_scatter(input, src, dim, index, *, out=None):
    """torch.select_scatter: a copy of input with src at index along dim."""
    return _out("select_scatter", _scatter(input, src, lambda x: x.select(dim, index)),
                out, input, src)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1, *, out=None):
    """torch.diagonal_scatter: a copy of input with src on its diagonal."""
    return _out("diagonal_scatter",
                _scatter(input, src, lambda x: x.diagonal(offset, dim1, dim2)), out, input, src)


def as_strided_scatter(input, src, size, stride, storage_offset=None, *, out=None):
    """torch.as_strided_scatter: a copy of input (input's strides) with src written through
    as_strided(size, stride, storage_offset) of the copy."""
    def view(x):
        return x.as_strided(size, stride, storage_offset or 0)
    # the clone keeps input's strides (as torch's), and as_strided reads its memory order
    return _out("as_strided_scatter", _scatter(input, src, view), out, input, src)


def _methods():
    def ss(self, src, dim=0, start=None, end=None, step=1):
        return slice_scatter(self, src, dim, start, end, step)

    def sel(self, src, dim, index):
        return select_scatter(self, src, dim, index)

    def ds(self, src, offset=0, dim1=0, dim2=1):
        return diagonal_scatter(self, src, offset, dim1, dim2)

    def asc(self, src, size, stride, storage_offset=None):
        return as_strided_scatter(self, src, size, stride, storage_offset)

    def nc(self, dim, start, length):
        return narrow_copy(self, dim, start, length)
    return {"slice_scatter": ss, "select_scatter": sel, "diagonal_scatter": ds,
            "as_strided_scatter": asc, "narrow_copy": nc}


from ember._composite_shape import _attach  # noqa: E402

_attach(_methods())
