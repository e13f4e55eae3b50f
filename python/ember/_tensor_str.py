"""Tensor.__repr__ with torch's layout rules (torch/_tensor_str.py's behaviour,
written for ember): values are summarised past ``threshold`` elements with
``edgeitems`` at each end, floats share one format per tensor (integer-valued
floats print as ``1.``, scientific notation when the magnitudes span more than
1000x or leave [1e-4, 1e8]), and ``device=`` / ``dtype=`` are shown when they
are not the defaults. Complex values format their real and imaginary parts with
one formatter each (``1.+2.j``, as torch). Not a hot path: plain Python over
``tolist()``.
"""
import contextlib
import math

import ember


class _PrintOptions:
    __slots__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self):
        self.precision = 4
        self.threshold = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode = None


PRINT_OPTS = _PrintOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """torch.set_printoptions: profile is "default", "short" or "full"."""
    if profile == "default":
        PRINT_OPTS.precision, PRINT_OPTS.threshold = 4, 1000
        PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 3, 80
    elif profile == "short":
        PRINT_OPTS.precision, PRINT_OPTS.threshold = 2, 1000
        PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 2, 80
    elif profile == "full":
        PRINT_OPTS.precision, PRINT_OPTS.threshold = 4, math.inf
        PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 3, 80
    elif profile is not None:
        raise ValueError(f"profile must be 'default', 'short' or 'full', got {profile!r}")
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    return {name: getattr(PRINT_OPTS, name) for name in _PrintOptions.__slots__}


@contextlib.contextmanager
def printoptions(**kwargs):
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


def _flatten(values):
    if isinstance(values, list):
        for v in values:
            yield from _flatten(v)
    else:
        yield values


class _Formatter:
    """One width and one style (int, fixed or scientific) for every element."""

    def __init__(self, tensor):
        self.floating = tensor.dtype.is_floating_point
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        values = list(_flatten(tensor.tolist()))
        if not self.floating:
            for v in values:
                self.max_width = max(self.max_width, len(str(v)))
            return
        finite = [abs(v) for v in values if math.isfinite(v) and v != 0]
        if not finite:
            return  # only zeros, infs and nans: "0.", "inf", "nan"
        lo, hi = min(finite), max(finite)
        p = PRINT_OPTS.precision
        self.int_mode = all(v == math.ceil(v) for v in finite)
        if self.int_mode:
            if hi / lo > 1000.0 or hi > 1.0e8:
                self.sci_mode = True
                fmt = f"{{:.{p}e}}"
                widths = [len(fmt.format(v)) for v in values if math.isfinite(v) and v != 0]
            else:
                widths = [len(f"{v:.0f}") + 1 for v in values if math.isfinite(v) and v != 0]
        else:
            if hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4:
                self.sci_mode = True
                fmt = f"{{:.{p}e}}"
            else:
                fmt = f"{{:.{p}f}}"
            widths = [len(fmt.format(v)) for v in values if math.isfinite(v) and v != 0]
        self.max_width = max([self.max_width] + widths)
        if PRINT_OPTS.sci_mode is not None:
            self.sci_mode = PRINT_OPTS.sci_mode

    def width(self):
        return self.max_width

    def format(self, value):
        p = PRINT_OPTS.precision
        if self.floating:
            if self.sci_mode:
                ret = f"{{:{self.max_width}.{p}e}}".format(value)
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{{:.{p}f}}".format(value)
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _summarized_data(t):
    e = PRINT_OPTS.edgeitems
    if t.dim() == 0:
        return t
    if t.dim() == 1:
        return ember.cat((t[:e], t[-e:])) if t.size(0) > 2 * e else t
    if not e:
        return ember.empty([0] * t.dim(), dtype=t.dtype, device=t.device)
    if t.size(0) > 2 * e:
        rows = [t[i] for i in range(e)] + [t[i] for i in range(len(t) - e, len(t))]
    else:
        rows = list(t)
    return ember.stack([_summarized_data(r) for r in rows])


def _value_str(v, fmt, fmt2):
    """One element: fmt alone for real values; for complex ones the real part with fmt,
    the imaginary part with fmt2 and its sign (``1.+2.j``, ``-0.5000-1.0000j``)."""
    if fmt2 is None:
        return fmt.format(v)
    real = fmt.format(v.real)
    imag = (fmt2.format(v.imag) + "j").lstrip()
    return real + imag if imag[0] in "+-" else real + "+" + imag


def _vector_str(t, indent, summarize, fmt, fmt2=None):
    element_length = fmt.width() + 2
    if fmt2 is not None:
        element_length += fmt2.width() + 1  # the imaginary part and its j
    per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / element_length)))
    e = PRINT_OPTS.edgeitems
    if summarize and not e:
        data = ["..."]
    elif summarize and t.size(0) > 2 * e:
        data = ([_value_str(v, fmt, fmt2) for v in t[:e].tolist()] + [" ..."]
                + [_value_str(v, fmt, fmt2) for v in t[-e:].tolist()])
    else:
        data = [_value_str(v, fmt, fmt2) for v in t.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(t, indent, summarize, fmt, fmt2=None):
    dim = t.dim()
    if dim == 0:
        return _value_str(t.item(), fmt, fmt2)
    if dim == 1:
        return _vector_str(t, indent, summarize, fmt, fmt2)
    e = PRINT_OPTS.edgeitems
    if summarize and t.size(0) > 2 * e:
        slices = ([_tensor_str_with_formatter(t[i], indent + 1, summarize, fmt, fmt2)
                   for i in range(e)]
                  + ["..."]
                  + [_tensor_str_with_formatter(t[i], indent + 1, summarize, fmt, fmt2)
                     for i in range(len(t) - e, len(t))])
    else:
        slices = [_tensor_str_with_formatter(t[i], indent + 1, summarize, fmt, fmt2)
                  for i in range(t.size(0))]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _tensor_str(t, indent):
    if t.numel() == 0:
        return "[]"
    summarize = t.numel() > PRINT_OPTS.threshold
    if not summarize and t.is_cuda:
        t = t.cpu()  # one transfer instead of one per row
    if t.dtype is ember.float16 or t.dtype is ember.bfloat16:
        t = t.float()
    if t.dtype is ember.complex32:
        t = t.to(ember.complex64)
    if t.dtype.is_complex:
        fmt = _Formatter(_summarized_data(t.real) if summarize else t.real)
        fmt2 = _Formatter(_summarized_data(t.imag) if summarize else t.imag)
        return _tensor_str_with_formatter(t, indent, summarize, fmt, fmt2)
    fmt = _Formatter(_summarized_data(t) if summarize else t)
    return _tensor_str_with_formatter(t, indent, summarize, fmt)


def _add_suffixes(text, suffixes, indent):
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _str(t):
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    grad_fn = t.grad_fn
    requires_grad = t.requires_grad
    t = t.detach()  # printing records nothing
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    default = ember.get_default_dtype()
    default_complex = ember.complex128 if default is ember.float64 else ember.complex64
    if t.numel() == 0:
        if t.dim() != 1:
            suffixes.append("size=" + str(tuple(t.shape)))
        if t.dtype is not default:
            suffixes.append("dtype=" + repr(t.dtype))
        text = "[]"
    else:
        if t.dtype not in (default, default_complex, ember.int64, ember.bool):
            suffixes.append("dtype=" + repr(t.dtype))
        text = _tensor_str(t, indent)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn.name()}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + text, suffixes, indent)
