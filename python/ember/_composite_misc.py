"""torch's small top-level functions and Tensor methods that need no kernel of their own:
predicates (is_nonzero, is_same_size, is_signed, is_inference,
is_distributed), identities (positive), rsub,
creation (scalar_tensor, range, logspace, empty_permuted, frombuffer, new_empty_strided),
isin, unravel_index, detach/detach_, fill_diagonal_, sum_to_size, dim_order, the in-place
draws geometric_/log_normal_/cauchy_, and the process-wide switches torch has
(deterministic algorithms, warn_always, interop threads, flush_denormal).

The switches are recorded and reported as torch's are; ember's kernels do not consult the
deterministic-algorithms flag (see docs/design/python.md). The draws transform uniform_ /
normal_ samples of ember's generators (same generator and seed semantics as uniform_).

Imports nothing but ember._C and the shape composites (NumPy only inside frombuffer).
"""
import math
import warnings

from ember import _C
from ember._composite_shape import _attach, _out, _scalar_name

__all__ = ["is_nonzero", "is_same_size", "is_signed", "is_inference",
           "is_distributed", "positive", "rsub", "scalar_tensor",
           "range", "logspace", "empty_permuted", "frombuffer", "isin", "unravel_index",
           "detach", "detach_", "get_device", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
           "get_deterministic_debug_mode", "set_deterministic_debug_mode", "set_warn_always",
           "is_warn_always_enabled", "get_num_interop_threads", "set_num_interop_threads",
           "init_num_threads", "set_flush_denormal"]

_Tensor = _C.Tensor
_builtin_range = range


# ---- predicates and identities ---------------------------------------------------------------

def is_nonzero(input):
    """torch.is_nonzero: whether a one-element tensor is not zero."""
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item() != 0)


def is_same_size(input, other):
    """torch.is_same_size: whether the shapes are equal."""
    return tuple(input.shape) == tuple(other.shape)


def is_signed(input):
    """torch.is_signed: whether the dtype is signed."""
    return input.is_signed()


def is_inference(input):
    """torch.is_inference: whether input was made in inference mode."""
    return input.is_inference()


def is_distributed(input):
    """torch.is_distributed: False (ember has no distributed tensors)."""
    return False


def get_device(input):
    """torch.get_device: the CUDA device index, -1 on the CPU."""
    return input.get_device()


def positive(input):
    """torch.positive: input itself (an error for bool, as torch)."""
    if input.dtype == _C.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def rsub(input, other, alpha=1):
    """torch.rsub: other - alpha * input."""
    if not input.dtype.is_floating_point and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    if isinstance(other, _Tensor):
        return _C.sub(other, input, alpha=alpha)
    scaled = input if alpha == 1 else input * alpha
    return scaled.__rsub__(other)


def detach(input):
    """torch.detach: input.detach()."""
    return input.detach()


def detach_(input):
    """torch.detach_: input.detach_()."""
    return input.detach_()


# ---- creation --------------------------------------------------------------------------------

def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    """torch.scalar_tensor: a 0-d tensor of s (the default float dtype unless dtype)."""
    t = _C.full((), s, dtype=dtype or _C.get_default_dtype(), device=device)
    return t.requires_grad_() if requires_grad else t


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
          requires_grad=False):
    """torch.range (deprecated, as in torch: it warns): start, start + step, ... up to end
    *inclusive*, in the default float dtype unless dtype."""
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    vals = [float(v.item()) if isinstance(v, _Tensor) else float(v) for v in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    n = int(math.floor((end - start) / step)) + 1
    dt = dtype or _C.get_default_dtype()
    r = _C.arange(n, dtype=_C.float64, device=device) * step + start
    r = r.to(dt)
    if requires_grad:
        r.requires_grad_()
    return _out("range", r, out)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """torch.logspace: base ** linspace(start, end, steps) (computed in float64, then cast to
    dtype: the default float dtype unless given)."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = dtype or _C.get_default_dtype()
    if isinstance(start, _Tensor):
        start = start.item()
    if isinstance(end, _Tensor):
        end = end.item()
    e = _C.linspace(float(start), float(end), steps, dtype=_C.float64, device=device)
    r = _C.pow(float(base), e).to(dt)
    if requires_grad:
        r.requires_grad_()
    return _out("logspace", r, out)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """torch.empty_permuted: an uninitialised tensor of size whose memory is laid out in
    the order physical_layout (outermost first)."""
    size, perm = [int(s) for s in size], [int(p) for p in physical_layout]
    if len(perm) != len(size):
        raise RuntimeError("Number of dimensions in size does not match the length of the "
                           "physical_layout; i.e. len(size) = "
                           f"{len(size)} is not equal to len(physical_layout) = {len(perm)}")
    if sorted(perm) != list(_builtin_range(len(size))):
        raise RuntimeError("Duplicate dim not allowed" if len(set(perm)) != len(perm)
                           else f"Dimension out of range in physical_layout {perm}")
    phys = _C.empty([size[p] for p in perm], dtype=dtype, device=device, pin_memory=pin_memory)
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    r = phys.permute(inv)
    return r.requires_grad_() if requires_grad else r


_NP_NAMES = {"bool": "bool_", "uint8": "uint8", "int8": "int8", "int16": "int16",
             "int32": "int32", "int64": "int64", "float16": "float16", "float32": "float32",
             "float64": "float64", "bfloat16": "uint16"}


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """torch.frombuffer: a 1-D CPU tensor sharing the memory of an object that implements
    the buffer protocol (bytes, bytearray, array.array, memoryview...)."""
    import numpy as np
    mv = memoryview(buffer)
    length = mv.nbytes
    elsize = dtype.itemsize
    if not (length > 0 and count != 0):
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0 and (length - offset) % elsize:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                         f"bytes) must be a multiple of element size ({elsize})")
    if count > 0 and length - offset < count * elsize:
        raise ValueError(f"requested buffer length ({count} * {elsize} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    name = str(dtype).rpartition(".")[2]
    arr = np.frombuffer(mv.cast("B"), dtype=getattr(np, _NP_NAMES[name]), count=count,
                        offset=offset)
    if not arr.flags.writeable:
        warnings.warn("The given buffer is not writable, and PyTorch does not support "
                      "non-writable tensors. This means you can write to the underlying "
                      "(supposedly non-writable) buffer using the tensor. You may want to copy "
                      "the buffer to protect its data or make it writable before converting it "
                      "to a tensor.", UserWarning, stacklevel=2)
    t = _from_numpy_any(arr)
    if name == "bfloat16":
        t = t.view(_C.bfloat16)
    return t.requires_grad_() if requires_grad else t


def _from_numpy_any(arr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _C.from_numpy(arr)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """torch.isin: whether each element of elements is in test_elements (either may be a
    scalar); the comparison promotes as ==."""
    if not isinstance(elements, _Tensor) and not isinstance(test_elements, _Tensor):
        raise TypeError("isin() received an invalid combination of arguments: expected "
                        "elements or test_elements to be a Tensor")
    if not isinstance(elements, _Tensor):
        r = _C.any(test_elements.reshape(-1) == elements) if test_elements.numel() else \
            _C.zeros((), dtype=_C.bool, device=test_elements.device)
    elif not isinstance(test_elements, _Tensor):
        r = elements == test_elements
    else:
        test = test_elements.reshape(-1).to(elements.device)
        if test.numel() == 0:
            r = _C.zeros(elements.shape, dtype=_C.bool, device=elements.device)
        else:
            r = _C.any(elements.unsqueeze(-1) == test, -1)
    return _C.logical_not(r) if invert else r


def unravel_index(indices, shape):
    """torch.unravel_index: the coordinates in shape of flat indices (a tuple of int64
    tensors; negative indices count from the end)."""
    if isinstance(indices, bool) or not isinstance(indices, (int, _Tensor)):
        raise TypeError(f"expected 'indices' to be integer dtype, but got {type(indices)}")
    if isinstance(indices, int):
        indices = _C.tensor(indices)
    if indices.dtype.is_floating_point or indices.dtype == _C.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got "
                        f"{str(indices.dtype).replace('ember.', 'torch.')}")
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    numel = 1
    for s in shape:
        numel *= s
    idx = indices.to(_C.int64)
    if idx.numel() and numel and bool(((idx >= numel) | (idx < -numel)).any().item()):
        raise RuntimeError(f"index out of bounds for a tensor of {numel} elements")
    if numel:
        idx = _C.remainder(idx, numel)
    coords = []
    for s in reversed(shape):
        if s == 0:
            coords.append(idx)
            continue
        coords.append(_C.remainder(idx, s))
        idx = _C.floor_divide(idx, s)
    return tuple(reversed(coords))


# ---- process-wide switches --------------------------------------------------------------------

_state = {"deterministic": False, "warn_only": False, "warn_always": False,
          "interop_threads": None}


def use_deterministic_algorithms(mode, *, warn_only=False):
    """torch.use_deterministic_algorithms: records the mode (ember's ops do not consult it)."""
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' (position 1) must be "
                        f"bool, not {type(mode).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled():
    """torch.are_deterministic_algorithms_enabled."""
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    """torch.is_deterministic_algorithms_warn_only_enabled."""
    return _state["warn_only"]


def set_deterministic_debug_mode(debug_mode):
    """torch.set_deterministic_debug_mode: "default"/0, "warn"/1 or "error"/2."""
    if isinstance(debug_mode, str):
        modes = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in modes:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = modes[debug_mode]
    if not isinstance(debug_mode, int) or isinstance(debug_mode, bool):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode == 0:
        use_deterministic_algorithms(False)
    elif debug_mode == 1:
        use_deterministic_algorithms(True, warn_only=True)
    elif debug_mode == 2:
        use_deterministic_algorithms(True)
    else:
        raise RuntimeError("invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")


def get_deterministic_debug_mode():
    """torch.get_deterministic_debug_mode: 0, 1 (warn) or 2 (error)."""
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def set_warn_always(b):
    """torch.set_warn_always: records the flag."""
    _state["warn_always"] = bool(b)


def is_warn_always_enabled():
    """torch.is_warn_always_enabled."""
    return _state["warn_always"]


def get_num_interop_threads():
    """torch.get_num_interop_threads: ember runs no inter-op pool; reports the number set, or
    the intra-op thread count."""
    n = _state["interop_threads"]
    return n if n is not None else _C.get_num_threads()


def set_num_interop_threads(num):
    """torch.set_num_interop_threads: records num (must be positive)."""
    if not isinstance(num, int) or isinstance(num, bool):
        raise TypeError(f"set_num_interop_threads(): argument 'num' must be int, not "
                        f"{type(num).__name__}")
    if num <= 0:
        raise RuntimeError("Expected num_threads to be positive, but got " + str(num))
    _state["interop_threads"] = num


def init_num_threads():
    """torch.init_num_threads: nothing to do (ember's CPU pool starts on first use)."""
    return None


def set_flush_denormal(mode):
    """torch.set_flush_denormal: returns False (ember does not change the CPU's denormal
    mode), which torch returns where flushing is unsupported."""
    return False


# ---- Tensor methods ----------------------------------------------------------------------------

def _fill_diagonal_(self, fill_value, wrap=False):
    nd = self.dim()
    if nd < 2:
        raise RuntimeError("dimensions must larger than 1")
    h = self.shape[0]
    if nd > 2 and any(s != h for s in self.shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    size = min(self.shape)
    stride = sum(self.stride())
    if size and nd == 2:
        self.diagonal().fill_(fill_value)  # a view autograd follows for any strides
    elif size:
        self.as_strided((size,), (stride,), self.storage_offset()).fill_(fill_value)
    if wrap and nd == 2 and h > self.shape[1] + 1:
        w = self.shape[1]
        step = w + 1
        wrap_size = (self.numel() + step - 1) // step - size
        if wrap_size > 0:
            off = self.storage_offset() + self.stride(0) * (w + 1)
            self.as_strided((wrap_size,), (stride,), off).fill_(fill_value)
    return self


def _sum_to_size(self, *size):
    if len(size) == 1 and not isinstance(size[0], int):
        size = tuple(size[0])
    size = tuple(int(s) for s in size)
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    ok = lead >= 0 and all(t == s or t == 1 for t, s in zip(size, shape[lead:]))
    if not ok:
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    if size == shape:
        return self
    r = self
    if lead:
        r = r.sum(tuple(_builtin_range(lead)))
    dims = tuple(i for i, (t, s) in enumerate(zip(size, shape[lead:])) if t == 1 and s != 1)
    if dims:
        r = r.sum(dims, keepdim=True)
    return r


def _new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None,
                       pin_memory=False, requires_grad=False):
    return _C.empty_strided(size, stride, dtype=dtype or self.dtype,
                            device=device or self.device, pin_memory=pin_memory,
                            requires_grad=requires_grad)


def _dim_order(self, *, ambiguity_check=False):
    strides = self.stride()
    # stable: equal strides (size-1 dims) keep their logical order
    return tuple(sorted(_builtin_range(self.dim()), key=lambda d: -strides[d]))


def _is_shared(self):
    # ember's DataLoader workers are threads, so every tensor is shared with them; a CUDA
    # tensor is shared as torch's are
    return self.is_cuda


def _share_memory_(self):
    return self


def _check_floating(self, name):
    if not self.dtype.is_floating_point:
        kind = "cuda" if self.is_cuda else "cpu"
        raise NotImplementedError(f'"{name}_{kind}" not implemented for '
                                  f"'{_scalar_name(self.dtype)}'")


def _uniform_open(self, generator):
    """Uniform draws in (0, 1] of the tensor's shape, in float64 on the CPU, float32 else
    (the draw's dtype follows self's where floating)."""
    dt = self.dtype if self.dtype.is_floating_point else _C.float64
    u = _C.empty(self.shape, dtype=dt, device=self.device)
    u.uniform_(0.0, 1.0, generator=generator)
    return 1.0 - u  # uniform_ draws [0, 1)


def _geometric_(self, p, *, generator=None):
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    u = _uniform_open(self, generator)
    return self.copy_(_C.clamp_min(_C.ceil(_C.log(u) / math.log1p(-p)), 1.0))


def _log_normal_(self, mean=1, std=2, *, generator=None):
    if std <= 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    _check_floating(self, "log_normal")
    r = _C.empty(self.shape, dtype=self.dtype, device=self.device)
    return self.copy_(r.normal_(mean, std, generator=generator).exp_())


def _cauchy_(self, median=0, sigma=1, *, generator=None):
    if sigma <= 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    if not self.dtype.is_floating_point:
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype "
                           "must be a floating point but you specified "
                           f"{_scalar_name(self.dtype)}")
    r = _C.empty(self.shape, dtype=self.dtype, device=self.device)
    r.uniform_(0.0, 1.0, generator=generator)
    return self.copy_(r.sub_(0.5).mul_(math.pi).tan_().mul_(sigma).add_(median))


def _swap_(self, dim0, dim1):
    return self.transpose_(dim0, dim1)


def _methods():
    # (is_conj, is_neg, resolve_conj, resolve_neg: bound in C++, bindings/complex.cpp)
    return {"is_nonzero": is_nonzero, "is_same_size": is_same_size,
            "is_distributed": is_distributed, "positive": positive,
            "fill_diagonal_": _fill_diagonal_, "sum_to_size": _sum_to_size,
            "new_empty_strided": _new_empty_strided, "dim_order": _dim_order,
            "is_shared": _is_shared, "share_memory_": _share_memory_,
            "geometric_": _geometric_, "log_normal_": _log_normal_, "cauchy_": _cauchy_,
            "swapaxes_": _swap_, "swapdims_": _swap_}


_attach(_methods())
