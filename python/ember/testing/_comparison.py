"""assert_close (torch.testing.assert_close): its default tolerances per dtype, its
checks (shape, device, dtype, stride), its recursion into sequences and mappings, and
its messages, written the way torch writes them."""
import collections.abc
import math

import ember

# torch's default (rtol, atol) per dtype; other dtypes (integers, bool) compare exactly.
_DEFAULT_TOLERANCES = {
    "float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
}
# Python numbers: int compares exactly, float as float64.
_NUMBER_DTYPES = {bool: "bool", int: "int64", float: "float64"}


def _dtype_name(dtype):
    return str(dtype).split(".")[-1]


def _tolerances(*dtype_names, rtol=None, atol=None):
    if (rtol is None) ^ (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {'rtol' if rtol is None else 'atol'}.")
    if rtol is not None:
        return rtol, atol
    pairs = [_DEFAULT_TOLERANCES.get(d, (0.0, 0.0)) for d in dtype_names]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _mismatch_msg(default_identifier, identifier, extra, abs_diff, abs_idx, atol, rel_diff,
                  rel_idx, rtol):
    equality = rtol == 0 and atol == 0

    def diff_msg(kind, diff, idx, tol):
        msg = (f"{kind.title()} difference: {diff}" if idx is None
               else f"Greatest {kind} difference: {diff} at index {idx}")
        if not equality:
            msg += f" (up to {tol} allowed)"
        return msg + "\n"

    if identifier is None:
        identifier = default_identifier
    elif callable(identifier):
        identifier = identifier(default_identifier)
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff_msg("absolute", abs_diff, abs_idx, atol)
    msg += diff_msg("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _scalar_mismatch_msg(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg("Scalars", None, f"Expected {expected} but got {actual}.", abs_diff, None,
                         atol, rel_diff, None, rtol)


def _unravel(flat, shape):
    out = []
    for size in reversed(shape):
        flat, mod = divmod(flat, size)
        out.append(mod)
    return tuple(reversed(out))


def _tensor_mismatch_msg(actual, expected, matches, rtol, atol):
    n = matches.numel()
    bad = n - int(matches.sum().item())
    extra = f"Mismatched elements: {bad} / {n} ({bad / n:.1%})"
    a, e, m = actual.flatten(), expected.flatten(), matches.flatten()
    if not actual.is_floating_point():
        a, e = a.to(ember.int64), e.to(ember.int64)
    abs_diff = (a - e).abs()
    abs_diff[m] = 0
    max_abs, abs_at = abs_diff.max(0)
    rel_diff = abs_diff / e.abs()
    rel_diff[m] = 0
    max_rel, rel_at = rel_diff.max(0)
    shape = tuple(matches.shape)
    return _mismatch_msg("Tensor-likes", None, extra, max_abs.item(), _unravel(int(abs_at), shape),
                         atol, max_rel.item(), _unravel(int(rel_at), shape), rtol)


class _Failure(Exception):
    def __init__(self, exc_type, msg):
        super().__init__(msg)
        self.exc_type = exc_type
        self.msg = msg


def _is_tensor_like(x):
    return isinstance(x, ember.Tensor) or type(x).__module__ == "numpy" and hasattr(x, "dtype") \
        and hasattr(x, "shape")


def _as_tensor(x):
    return x if isinstance(x, ember.Tensor) else ember.as_tensor(x)


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype,
                     check_stride):
    actual, expected = _as_tensor(actual), _as_tensor(expected)
    checks = [("shape", actual.shape, expected.shape)]
    if check_device:
        checks.append(("device", actual.device, expected.device))
    if check_dtype:
        checks.append(("dtype", actual.dtype, expected.dtype))
    if check_stride:
        checks.append(("stride()", actual.stride(), expected.stride()))
    for name, a, e in checks:
        if a != e:
            raise _Failure(AssertionError,
                           f"The values for attribute '{name}' do not match: {a} != {e}.")
    rtol, atol = _tolerances(_dtype_name(actual.dtype), _dtype_name(expected.dtype),
                             rtol=rtol, atol=atol)
    if actual.device != expected.device:
        actual, expected = actual.cpu(), expected.cpu()
    if actual.dtype != expected.dtype:
        common = ember.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(common), expected.to(common)
    actual, expected = actual.detach(), expected.detach()
    matches = ember.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if bool(matches.all().item()):
        return
    if actual.dim() == 0:
        msg = _scalar_mismatch_msg(actual.item(), expected.item(), rtol, atol)
    else:
        msg = _tensor_mismatch_msg(actual, expected, matches, rtol, atol)
    raise _Failure(AssertionError, msg)


def _compare_numbers(actual, expected, rtol, atol, equal_nan):
    rtol, atol = _tolerances(_NUMBER_DTYPES.get(type(actual), "float64"),
                             _NUMBER_DTYPES.get(type(expected), "float64"), rtol=rtol, atol=atol)
    if actual == expected:
        return
    if equal_nan and isinstance(actual, float) and isinstance(expected, float) \
            and math.isnan(actual) and math.isnan(expected):
        return
    diff = abs(actual - expected)
    if math.isfinite(diff) and diff <= atol + rtol * abs(expected):
        return
    raise _Failure(AssertionError, _scalar_mismatch_msg(actual, expected, rtol, atol))


def _compare(actual, expected, path, **kw):
    """Raises _Failure (with the item path) on the first mismatch."""
    number = (int, float)
    try:
        if _is_tensor_like(actual) and _is_tensor_like(expected):
            return _compare_tensors(actual, expected, kw["rtol"], kw["atol"], kw["equal_nan"],
                                    kw["check_device"], kw["check_dtype"], kw["check_stride"])
        if isinstance(actual, number) and isinstance(expected, number) \
                and not _is_tensor_like(actual) and not _is_tensor_like(expected):
            return _compare_numbers(actual, expected, kw["rtol"], kw["atol"], kw["equal_nan"])
    except _Failure as f:
        if path:
            f.msg += "\n\nThe failure occurred for item " + "".join(str([p]) for p in path)
        raise
    seq = collections.abc.Sequence
    if isinstance(actual, seq) and isinstance(expected, seq) \
            and not isinstance(actual, str) and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, f"The length of the sequences mismatch: "
                           f"{len(actual)} != {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, path + [i], **kw)
        return
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        ak, ek = set(actual.keys()), set(expected.keys())
        if ak != ek:
            raise _Failure(AssertionError,
                           f"The keys of the mappings do not match:\n"
                           f"Missing keys in the actual mapping: {sorted(map(repr, ek - ak))}\n"
                           f"Additional keys in the actual mapping: {sorted(map(repr, ak - ek))}")
        for k in expected:
            _compare(actual[k], expected[k], path + [k], **kw)
        return
    if actual is None and expected is None:
        return
    raise _Failure(TypeError, f"No comparison pair was able to handle inputs of type "
                   f"{type(actual)} and {type(expected)}.")


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Asserts that ``actual`` and ``expected`` are close: tensors (and NumPy arrays) of the
    same shape, device and dtype (unless check_device/check_dtype are False) whose values
    satisfy |actual - expected| <= atol + rtol * |expected| (torch's default tolerances for
    the dtype when none are given; exact for integers and bool), Python numbers, or
    sequences and mappings of them compared item by item. Raises AssertionError with
    torch's message (``msg``, a string or a function of the message, replaces it)."""
    try:
        _compare(actual, expected, [], rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=check_device, check_dtype=check_dtype, check_stride=check_stride)
    except _Failure as f:
        text = f.msg
        if msg is not None:
            text = msg(text) if callable(msg) else msg
        raise f.exc_type(text) from None
