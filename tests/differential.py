"""Differential testing of ember against torch, the oracle (NumPy where torch is missing).

One engine, three drivers:
  * tests/test_differential.py: a short seeded run per device (pytest; the CI run), plus
    hypothesis-driven runs (derandomized) that shrink a failing case to a small one;
  * the command line, for the long run on the GPU machine (exit status 1 on mismatches):
        python tests/differential.py --cases 1000000 --device cuda --jobs 16 \
            --seconds 480 --report out.json
    --jobs N runs N worker processes (spawned; --isolate does it with one): a worker that
    dies on a case (a segfault, a lost CUDA context) is reported with the case's
    reproducing line, and restarted after it. --summarize out.json groups a report's
    mismatches by cause; --replay I re-runs case I of the seed; --ops / --skip-ops choose
    ops (names or kinds); EMBER_DIFF_SELF=1 puts torch in ember's place (the harness must
    then find nothing: a check of the harness itself);
  * check_case(), for a single case.

A *case* is data: an op of the registry (OPS), a calling form (fn, method, operator,
in-place, out=...), arguments in which tensors are TensorSpecs (a NumPy base array of
values, a dtype name and the view steps that make it non-contiguous: permute, a stepped
slice, expand with stride 0, narrow), Python scalars, dtype names and index objects.
Case i of a seed is drawn from random.Random(seed * 2**32 + i): any case can be
regenerated from (seed, i). The case is materialized the same way in both libraries
(from_numpy of a copy, bfloat16 viewed from its bits, .to(device), the same view steps),
run in both, and the results compared:

  * torch raises -> ember must raise an exception of the same category (IndexError,
    TypeError, ValueError, RuntimeError; messages are recorded, not compared). Where
    torch's error is "... not implemented for '<dtype>'" (a kernel torch lacks), ember
    may raise or succeed: counted as `torch_unsupported`, not as a mismatch.
  * torch succeeds -> ember must succeed, with the same result structure, shape, dtype
    name, strides (view ops only, dims of size > 1: a view's strides are part of torch's
    contract), the same values (TOLERANCES below), and, for in-place / out= / setitem
    forms, the same Python object returned (self / out) and the same mutated tensor *and
    its base* (a write outside the view is a mismatch). For the other forms, ember's
    inputs must be unchanged.
  * DEVIATIONS lists the deliberate differences (counted apart, never mismatches): calls
    torch's argument parser rejects with TypeError but ember accepts (fmax(t, 2.0)), and
    out= of a wrong non-empty shape (torch resizes it, ember raises).

Values are compared in float64: integers and bool exactly; floats with NaN == NaN (any
payload), +0 == -0, infinities exactly, finite values within the tolerance class of the
op (TOLERANCES: `ulps` of the result's dtype relative to the larger magnitude, plus
`abs_k` * eps(accumulation dtype) * a scale derived from the inputs for reductions).

Integer overflow: torch wraps (two's complement) on add/sub/mul/neg/abs/pow/casts between
integer types and ember must too; compared exactly. Not compared (masked element-wise,
the ops' `mask` functions): float -> integer conversions of NaN, +-inf and out-of-range
values (undefined behaviour in C++; torch's CPU and CUDA results differ), integer
division by zero on CUDA (garbage in torch; the CPU raises, and that is compared), and
three places where torch's own vectorized kernels are wrong (mask_divmod,
mask_sinh_cosh; median of expanded inputs is not generated). Never generated:
INT32_MIN / INT64_MIN divided by -1 with rounding_mode='trunc' (torch dies with SIGFPE),
out-of-range index tensors on CUDA (device-side asserts end the context), repeated
indices in setitem (torch leaves the winner unspecified).

Without torch (CI), the oracle is NumPy, for the subset where NumPy's semantics are
torch's: the ops with an `np` reference (elementwise arithmetic, comparisons, logical and
bitwise ops, a few float unary functions on float32/float64; sum/mean/amax/amin/prod/all/
any/cumsum/cumprod on the dtypes in their `np_dtypes`; t, basic getitem), all operands
tensors of one dtype drawn from the op's `np_dtypes`, the fn/method/operator forms; cases
NumPy rejects are not compared.
"""
from __future__ import annotations

import argparse
import bisect
import itertools
import json
import math
import operator
import os
import random
import re
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field

import numpy as np

# ----------------------------------------------------------------------------------------
# dtypes
# ----------------------------------------------------------------------------------------

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64",
          "float16", "bfloat16", "float32", "float64")
INTS = ("uint8", "int8", "int16", "int32", "int64")
FLOATS = ("float16", "bfloat16", "float32", "float64")
NUMERIC = INTS + FLOATS
INTEGRAL = ("bool",) + INTS
SIGNED = ("int8", "int16", "int32", "int64") + FLOATS
STORAGE = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16,
           "int32": np.int32, "int64": np.int64, "float16": np.float16,
           "bfloat16": np.float32, "float32": np.float32, "float64": np.float64}
# eps (2**-mantissa bits), smallest subnormal, largest finite
EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23, "float64": 2.0 ** -52}
DENORM = {"float16": 2.0 ** -24, "bfloat16": 2.0 ** -133, "float32": 2.0 ** -149,
          "float64": 5e-324}
FMAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38,
        "float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}
FTINY = {"float16": 2.0 ** -14, "bfloat16": 2.0 ** -126, "float32": 2.0 ** -126,
         "float64": 2.0 ** -1022}
# the dtype torch accumulates in (CPU reductions of float16/bfloat16 go through float32)
ACC = {"float16": "float32", "bfloat16": "float32", "float32": "float32", "float64": "float64"}


def iinfo(dt):
    return np.iinfo(STORAGE[dt])


def dtype_name(dt):
    """'float32' for ember.float32, torch.float32 and np.float32."""
    if isinstance(dt, np.dtype) or isinstance(dt, type):
        return np.dtype(dt).name
    return str(dt).split(".")[-1]


def to_bf16(a):
    """float32 array rounded to bfloat16 (round-to-nearest-even), returned as float32."""
    a = np.asarray(a, np.float32)
    bits = a.view(np.uint32).astype(np.uint64)
    r = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    out = r.view(np.float32)
    return np.where(np.isnan(a), np.float32(np.nan), out).astype(np.float32)


def cast_values(a, dt):
    """float64/int values -> the storage array of dtype dt (bfloat16: float32 holding
    bfloat16 values), as torch/ember's own conversion would round them."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dt == "bfloat16":
            return to_bf16(np.asarray(a, np.float64).astype(np.float32))
        if dt == "bool":
            return np.asarray(a) != 0
        return np.asarray(a).astype(STORAGE[dt])


# ----------------------------------------------------------------------------------------
# value pools: per (dtype, profile) a deterministic array; a tensor takes a random window
# ----------------------------------------------------------------------------------------

POOL_SIZE = 1 << 16
INT_PROFILES = (("small", 45), ("medium", 20), ("full", 10), ("special", 25))
FLOAT_PROFILES = (("smallint", 20), ("uniform", 33), ("wide", 15), ("special", 25),
                  ("extreme", 7))


def float_specials(dt):
    m, tiny, den, eps = FMAX[dt], FTINY[dt], DENORM[dt], EPS[dt]
    return [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0,
            2.5, -2.5, 0.1, -7.25, 1e4, -1e4, m, -m, tiny, -tiny, den, -den, eps, 1 + eps,
            1 - eps / 2, 88.75, -104.0, 710.0, 11.5, 2.0 ** 24 + 1, 2.0 ** 31, -2.0 ** 31,
            2.0 ** 63, 1e20, -1e20, math.pi, 127.5, 255.5, -128.5, 0.49999997]


def int_specials(dt):
    ii = iinfo(dt)
    vals = [0, 1, -1, 2, -2, 3, 7, ii.min, ii.min + 1, ii.max, ii.max - 1, 100, -100,
            ii.max // 2, ii.min // 2]
    if dt == "int64":
        vals += [2 ** 53 + 1, -(2 ** 53) - 1, 2 ** 31, -(2 ** 31), 2 ** 32 + 5]
    return [v for v in vals if ii.min <= v <= ii.max]


def _pool(rng, dt, profile, n=POOL_SIZE):
    if dt == "bool":
        return rng.integers(0, 2, n).astype(np.bool_)
    if dt in INTS:
        ii = iinfo(dt)
        if profile == "small":
            lo, hi = (0, 10) if dt == "uint8" else (-5, 5)
            v = rng.integers(lo, hi, n, endpoint=True)
        elif profile == "medium":
            v = rng.integers(max(ii.min, -1000), min(ii.max, 1000), n, endpoint=True)
        elif profile == "full":
            v = rng.integers(ii.min, ii.max, n, endpoint=True, dtype=np.int64)
        else:
            lo, hi = (0, 10) if dt == "uint8" else (-5, 5)
            v = rng.integers(lo, hi, n, endpoint=True)
            sp = np.array(int_specials(dt), dtype=np.int64)
            pick = rng.random(n) < 0.3
            v = np.where(pick, sp[rng.integers(0, len(sp), n)], v)
        return np.asarray(v).astype(STORAGE[dt])
    if profile == "smallint":
        v = rng.integers(-12, 12, n, endpoint=True) / 2.0
    elif profile == "uniform":
        v = rng.uniform(-10, 10, n)
    elif profile == "wide":
        v = np.sign(rng.uniform(-1, 1, n)) * 2.0 ** rng.uniform(-30, 30, n)
    elif profile == "special":
        sp = np.array(float_specials(dt))
        v = np.where(rng.random(n) < 0.4, sp[rng.integers(0, len(sp), n)],
                     rng.uniform(-10, 10, n))
    else:  # extreme: near the dtype's limits
        m, tiny = FMAX[dt], FTINY[dt]
        choices = np.stack([m * rng.uniform(0.5, 1, n), tiny * rng.uniform(0, 4, n),
                            np.full(n, np.inf), np.full(n, np.nan),
                            rng.uniform(-3, 3, n)])
        v = choices[rng.integers(0, len(choices), n), np.arange(n)]
        v = v * np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return cast_values(v, dt)


class Pools:
    def __init__(self, seed=0):
        rng = np.random.default_rng(seed)
        self.p = {}
        for dt in DTYPES:
            profs = [("bool", 1)] if dt == "bool" else (INT_PROFILES if dt in INTS else
                                                         FLOAT_PROFILES)
            for prof, _ in profs:
                self.p[dt, prof] = _pool(rng, dt, prof)
        self.specials = {dt: cast_values(np.array(float_specials(dt)), dt) for dt in FLOATS}


_POOLS = None


def pools():
    global _POOLS
    if _POOLS is None:
        _POOLS = Pools(0)
    return _POOLS


# ----------------------------------------------------------------------------------------
# random sources: plain seeded (bulk runs) and hypothesis (shrinking); one interface
# ----------------------------------------------------------------------------------------

class RandomSource:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def int(self, lo, hi):  # inclusive
        return self.r.randint(lo, hi)

    def choice(self, seq):
        return seq[self.r.randrange(len(seq))]

    def prob(self, p):
        return self.r.random() < p

    def weighted(self, pairs):
        total = sum(w for _, w in pairs)
        x = self.r.random() * total
        for v, w in pairs:
            x -= w
            if x < 0:
                return v
        return pairs[-1][0]

    def shuffle(self, seq):
        seq = list(seq)
        self.r.shuffle(seq)
        return seq

    def pick(self, table):
        """A name from an OpTable (weighted)."""
        x = self.r.random() * table.total
        return table.names[min(bisect.bisect_right(table.cum, x), len(table.names) - 1)]

    def values(self, dt, n):
        if dt == "bool":
            prof = "bool"
        else:
            prof = self.weighted(INT_PROFILES if dt in INTS else FLOAT_PROFILES)
        pool = pools().p[dt, prof]
        if n == 0:
            return pool[:0].copy()
        start = self.r.randrange(POOL_SIZE - n + 1) if n <= POOL_SIZE else 0
        if n > POOL_SIZE:
            return np.resize(pool, n)
        return pool[start:start + n].copy()


class HypothesisSource:
    """The same interface on hypothesis's data object: every decision is one draw, so a
    failing case shrinks towards small shapes, contiguous layouts, the first choices."""

    def __init__(self, data):
        from hypothesis import strategies as st
        self.st = st
        self.data = data

    def int(self, lo, hi):
        return self.data.draw(self.st.integers(lo, hi))

    def choice(self, seq):
        return self.data.draw(self.st.sampled_from(list(seq)))

    def prob(self, p):
        return self.data.draw(self.st.integers(0, 999)) >= 1000 * (1 - p)

    def weighted(self, pairs):
        ints = [max(1, int(round(w * 10))) for _, w in pairs if w > 0]
        pairs = [p for p in pairs if p[1] > 0]
        x = self.data.draw(self.st.integers(0, sum(ints) - 1))
        for (v, _), w in zip(pairs, ints):
            x -= w
            if x < 0:
                return v
        return pairs[-1][0]

    def pick(self, table):
        return self.data.draw(self.st.sampled_from(table.names))

    def shuffle(self, seq):
        return self.data.draw(self.st.permutations(list(seq)))

    def values(self, dt, n):
        if n <= 12:
            if dt == "bool":
                simple = [False, True]
            elif dt in INTS:
                simple = int_specials(dt)
            else:
                simple = list(pools().specials[dt].astype(np.float64))
                simple = simple[3:] + simple[:3]  # shrink towards 0, not NaN
            idx = self.data.draw(self.st.lists(self.st.integers(0, len(simple) - 1),
                                               min_size=n, max_size=n))
            return cast_values(np.array([simple[i] for i in idx], dtype=object)
                               .astype(np.float64 if dt in FLOATS else np.int64), dt)
        prof = "bool" if dt == "bool" else self.weighted(
            INT_PROFILES if dt in INTS else FLOAT_PROFILES)
        start = self.int(0, max(0, POOL_SIZE - n))
        pool = pools().p[dt, prof]
        return pool[start:start + n].copy() if n <= POOL_SIZE else np.resize(pool, n)


# ----------------------------------------------------------------------------------------
# case data
# ----------------------------------------------------------------------------------------

@dataclass
class TensorSpec:
    dtype: str
    base: np.ndarray          # values (storage dtype), the base tensor's shape
    steps: tuple = ()         # view steps applied to the base
    fresh: bool = False       # the library's own tensor (out=, resizable; an empty one with
    #                           torch's strides), not from_numpy's (zero strides when empty)

    @property
    def shape(self):
        return tuple(np_view(self).shape)


@dataclass(frozen=True)
class DType:
    name: str


@dataclass
class Case:
    op: str
    form: str
    args: tuple
    kwargs: dict
    device: str = "cpu"
    index: int = -1
    seed: int = 0


def np_view(spec):
    """The spec's values as NumPy sees them after its view steps (bfloat16: float32)."""
    a = spec.base
    for st in spec.steps:
        a = _np_step(a, st)
    return a


def _np_step(a, st):
    k = st[0]
    if k == "permute":
        return a.transpose(st[1])
    if k == "step":
        return a[(slice(None),) * st[1] + (slice(None, None, st[2]),)]
    if k == "expand":
        return np.broadcast_to(a, st[1])
    if k == "narrow":
        return a[(slice(None),) * st[1] + (slice(st[2], st[2] + st[3]),)]
    raise ValueError(k)


def _lib_step(x, st):
    k = st[0]
    if k == "permute":
        return x.permute(*st[1])
    if k == "step":
        return x[(slice(None),) * st[1] + (slice(None, None, st[2]),)]
    if k == "expand":
        return x.expand(tuple(st[1]))
    if k == "narrow":
        return x.narrow(st[1], st[2], st[3])
    raise ValueError(k)


# ----------------------------------------------------------------------------------------
# libraries
# ----------------------------------------------------------------------------------------

class Lib:
    def __init__(self, mod):
        self.mod = mod
        self.name = mod.__name__
        self.Tensor = mod.Tensor

    def resolve(self, path):
        obj = self.mod
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj

    def has(self, path):
        try:
            self.resolve(path)
            return True
        except (AttributeError, ImportError):
            return False

    def tensor(self, spec, device, bases):
        if spec.fresh and spec.base.size == 0:
            x = self.mod.empty(spec.base.shape, dtype=getattr(self.mod, spec.dtype))
            if device != "cpu":
                x = x.to(device)
            bases.append(x)
            for st in spec.steps:
                x = _lib_step(x, st)
            return x
        if spec.dtype == "bfloat16":
            # the bits of the bfloat16 values (the base holds them exactly, NaN as 0x7FC0),
            # viewed: torch's float32 -> bfloat16 conversion gives NaN a sign that depends
            # on its path (0xFFFF from the vectorized loop), which would make the two
            # libraries' inputs differ (copysign(x, nan), signbit(nan))
            bits = np.asarray(np.array(spec.base, np.float32).view(np.uint32) >> 16)
            x = self.mod.from_numpy(bits.astype(np.uint16).view(np.int16)).view(
                self.mod.bfloat16)
        else:
            x = self.mod.from_numpy(np.array(spec.base, copy=True))
        if spec.fresh:
            x = x.clone()
        if device != "cpu":
            x = x.to(device)
        bases.append(x)
        for st in spec.steps:
            x = _lib_step(x, st)
        return x

    def materialize(self, obj, device, bases, tensors):
        if isinstance(obj, TensorSpec):
            t = self.tensor(obj, device, bases)
            tensors.append((obj, t))
            return t
        if isinstance(obj, DType):
            return getattr(self.mod, obj.name)
        if isinstance(obj, tuple):
            return tuple(self.materialize(o, device, bases, tensors) for o in obj)
        if isinstance(obj, list):
            return [self.materialize(o, device, bases, tensors) for o in obj]
        if isinstance(obj, dict):
            return {k: self.materialize(v, device, bases, tensors) for k, v in obj.items()}
        return obj


def numpy_materialize(obj):
    if isinstance(obj, TensorSpec):
        return np.array(np_view(obj), copy=True)
    if isinstance(obj, DType):
        return np.dtype(STORAGE[obj.name])
    if isinstance(obj, tuple):
        return tuple(numpy_materialize(o) for o in obj)
    if isinstance(obj, list):
        return [numpy_materialize(o) for o in obj]
    if isinstance(obj, dict):
        return {k: numpy_materialize(v) for k, v in obj.items()}
    return obj


# ----------------------------------------------------------------------------------------
# the op registry
# ----------------------------------------------------------------------------------------

BINOPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
          "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
          "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
          ">": operator.gt, ">=": operator.ge, "&": operator.and_, "|": operator.or_,
          "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift}
IOPS = {"+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv,
        "//": operator.ifloordiv, "%": operator.imod, "**": operator.ipow,
        "&": operator.iand, "|": operator.ior, "^": operator.ixor, "<<": operator.ilshift,
        ">>": operator.irshift}
UNOPS = {"-": operator.neg, "~": operator.invert, "abs": abs}

# forms: fn L.name(*args, **kw) | method args[0].name(...) | inplace args[0].name_(...) |
# out L.name(..., out=o) | op a <sym> b (or <sym> a) | rop: Python scalar <sym> tensor |
# iop a <sym>= b | getitem a[i] | setitem a[i] = v | attr a.name
MUTATING = ("inplace", "out", "iop", "setitem")


@dataclass
class Op:
    name: str
    kind: str                    # unary binary ternary reduction scan softmax view index convert
    arity: int
    gen: object                  # gen(src, op, ctx) -> (form, args, kwargs)
    dtypes: tuple = DTYPES       # the dtypes torch accepts (generation prefers them)
    tol: str = "exact"
    fn: str | None = None        # functional name (a path from the module: nn.functional.gelu)
    method: str | None = None
    inplace: str | None = None
    symbol: str | None = None
    out: bool = False
    np: object = None            # NumPy reference: np(args, kwargs) -> ndarray
    np_dtypes: tuple = ()
    mask: object = None          # mask(case, np_args, device) -> bool array (compare where True)
    weight: float = 1.0
    view: bool = False           # compare strides too
    forms: tuple = ()            # filled by finalize()
    extra: dict = field(default_factory=dict)


OPS = {}
SKIPPED = {}  # op or form -> why


def register(op):
    OPS[op.name] = op
    return op


# ---- generation helpers -----------------------------------------------------------------

def gen_shape(src, max_ndim=4, allow_empty=True, big_p=0.03):
    if src.prob(big_p):
        nd = src.choice((1, 1, 2))
        if nd == 1:
            return (src.choice((100, 257, 1000, 4099, 40000)),)
        return (src.int(2, 8), src.choice((64, 255, 1000)))
    nd = src.weighted(((0, 12), (1, 28), (2, 32), (3, 18), (4, 10)))
    nd = min(nd, max_ndim)
    shape = []
    for _ in range(nd):
        shape.append(src.weighted(((0, 4 if allow_empty else 0), (1, 20), (2, 20), (3, 18),
                                   (4, 10), (5, 8), (src.int(6, 13), 20))))
    while math.prod(shape) > 512:
        i = shape.index(max(shape))
        shape[i] //= 2
    return tuple(shape)


def gen_layout(src, shape):
    """View steps taking some base shape to `shape`, and that base shape."""
    nd = len(shape)
    r = src.int(0, 99)
    kinds = []
    if r < 55:
        pass
    elif r < 70:
        kinds = ["permute"] if nd >= 2 else ["expand"]
    elif r < 82:
        kinds = ["step"] if nd >= 1 else []
    elif r < 92:
        kinds = ["expand"]
    elif r < 96:
        kinds = ["narrow"] if nd >= 1 else []
    else:
        kinds = [src.choice(("permute", "step", "narrow")), src.choice(("step", "expand"))]
        if nd < 2:
            kinds = [k for k in kinds if k != "permute"]
        if nd < 1:
            kinds = [k for k in kinds if k not in ("step", "narrow")]
    out = list(shape)
    steps = []
    for k in reversed(kinds):  # build backwards: the last step applied first
        nd = len(out)
        if (k == "permute" and nd < 2) or (k in ("step", "narrow") and nd < 1):
            continue
        if k == "permute":
            perm = src.shuffle(range(nd))
            inp = [0] * nd
            for i, p in enumerate(perm):
                inp[p] = out[i]
            steps.append(("permute", tuple(perm)))
        elif k == "step":
            d = src.int(0, nd - 1)
            s = src.choice((2, 3))
            inp = list(out)
            inp[d] = out[d] * s - src.int(0, s - 1) if out[d] > 0 else src.int(0, 1)
            steps.append(("step", d, s))
        elif k == "expand":
            drop = src.int(0, nd) if src.prob(0.3) else 0
            inp = [1 if src.prob(0.5) else n for n in out[drop:]]
            if inp == out[drop:] and inp and drop == 0:
                inp[src.int(0, len(inp) - 1)] = 1
            steps.append(("expand", tuple(out)))
        else:
            d = src.int(0, nd - 1)
            a, b = src.int(0, 2), src.int(0, 2)
            inp = list(out)
            inp[d] = out[d] + a + b
            steps.append(("narrow", d, a, out[d]))
        out = inp
    steps.reverse()
    return tuple(steps), tuple(out)


def gen_tensor(src, dt, shape, layout=True, values=None):
    if layout:
        steps, base_shape = gen_layout(src, shape)
    else:
        steps, base_shape = (), tuple(shape)
    n = math.prod(base_shape)
    v = src.values(dt, n) if values is None else cast_values(values(n), dt)
    # an empty array from NumPy has all-zero strides; half the empty tensors are made by
    # the library instead (its own strides)
    return TensorSpec(dt, np.asarray(v).reshape(base_shape), steps,
                      fresh=n == 0 and src.prob(0.5))


PY_INTS = (0, 1, -1, 2, 3, -3, 5, 7, 100, 127, 128, 255, 256, -128, -129, 1000, 32767, 65536,
           2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 53 + 1, 2 ** 63 - 1, -(2 ** 63))
PY_FLOATS = (0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, 2.5, -2.5, 0.1, 1 / 3, 1e-3, 1e3, 1e10,
             3.0, -7.25, 1e38, 3.5e38, 1e300, 1e-45, 1e-310, 65504.0, 65520.0, 1e5,
             math.nan, math.inf, -math.inf)


def gen_scalar(src, kind=None):
    kind = kind or src.weighted((("bool", 15), ("int", 40), ("float", 45)))
    if kind == "bool":
        return src.prob(0.5)
    if kind == "int":
        return src.choice(PY_INTS) if src.prob(0.7) else src.int(-10, 10)
    if src.prob(0.5):
        return src.choice(PY_FLOATS)
    return src.int(-40, 40) / 4.0


def gen_dtype(src, op, ctx):
    if ctx.numpy:
        return src.choice(op.np_dtypes)
    if src.prob(0.9):
        return src.choice(op.dtypes)
    return src.choice(DTYPES)


def bcast_shape(src, shape):
    r = src.int(0, 99)
    if r < 55 or not shape:
        return tuple(shape)
    if r < 97:
        drop = src.int(0, len(shape)) if src.prob(0.5) else 0
        return tuple(1 if src.prob(0.35) else n for n in shape[drop:])
    s = list(shape)  # incompatible: a dimension that does not broadcast
    i = src.int(0, len(s) - 1)
    s[i] = s[i] + 2 if s[i] != 1 else 3
    return tuple(s)


def gen_operand(src, op, ctx, dt, shape, scalar_p=0.15, zerod_p=0.15):
    if ctx.numpy:
        return gen_tensor(src, dt, shape)
    r = src.int(0, 999)
    if r < 1000 * scalar_p:
        if src.prob(0.7):  # a Python scalar of the operand dtype's kind
            return gen_scalar(src, "bool" if dt == "bool" else "int" if dt in INTS else "float")
        return gen_scalar(src)
    if r < 1000 * (scalar_p + zerod_p):
        shape = ()
    return gen_tensor(src, dt, shape)


def choose_form(src, op, ctx, weights=None):
    forms = op.forms
    if ctx.numpy:
        forms = tuple(f for f in forms if f in ("fn", "method", "op"))
    w = weights or {"fn": 30, "method": 20, "op": 20, "rop": 8, "inplace": 14, "iop": 6,
                    "out": 10, "getitem": 1, "setitem": 1, "attr": 10}
    return src.weighted(tuple((f, w.get(f, 10)) for f in forms))


class Ctx:
    def __init__(self, device="cpu", numpy=False):
        self.device = device
        self.numpy = numpy


def _first_tensor_form_fix(form, args):
    """fn/method/inplace forms need a tensor first; a scalar first goes through the
    reflected operator (rop) where the op has one."""
    return form


# ---- unary -------------------------------------------------------------------------------

def gen_unary(src, op, ctx):
    dt = gen_dtype(src, op, ctx)
    x = gen_tensor(src, dt, gen_shape(src))
    form = choose_form(src, op, ctx)
    kw = op.extra["kw"](src, dt) if "kw" in op.extra and not ctx.numpy else {}
    return form, (x,), kw


def kw_round(src, dt):
    return {"decimals": src.choice((0, 1, 2, -1, 3))} if src.prob(0.3) else {}


def kw_nan_to_num(src, dt):
    kw = {}
    for k in ("nan", "posinf", "neginf"):
        if src.prob(0.4):
            kw[k] = src.choice((0.0, 1.5, -2.0, 1e30, 100.0, -5.0))
    return kw


def kw_gelu(src, dt):
    return {"approximate": src.choice(("none", "tanh"))} if src.prob(0.4) else {}


UNARY_FLOAT = ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "erf", "erfc",
               "exp", "exp2", "expm1", "log", "log10", "log1p", "log2", "rsqrt", "sigmoid",
               "sin", "sinh", "tan", "tanh")
ALIASES = {"arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh",
           "arctan": "atan", "arctanh": "atanh", "absolute": "abs", "negative": "neg",
           "fix": "trunc", "clip": "clamp", "arctan2": "atan2", "multiply": "mul",
           "divide": "div", "subtract": "sub", "true_divide": "div", "greater": "gt",
           "greater_equal": "ge", "less": "lt", "less_equal": "le", "not_equal": "ne"}

NP_UNARY = {"abs": np.abs, "neg": np.negative, "sqrt": np.sqrt, "exp": np.exp, "log": np.log,
            "sin": np.sin, "cos": np.cos, "tanh": np.tanh, "floor": np.floor, "ceil": np.ceil,
            "trunc": np.trunc, "square": np.square, "isnan": np.isnan, "isinf": np.isinf,
            "isfinite": np.isfinite, "expm1": np.expm1, "log1p": np.log1p,
            "atan": np.arctan, "sinh": np.sinh}


def _np_unary(f):
    def ref(args, kwargs):
        with np.errstate(all="ignore"):
            return f(args[0])
    return ref


def _unary(name, dtypes=DTYPES, tol="exact", method=True, inplace=True, out=True, symbol=None,
           fn=None, weight=1.0, **extra):
    ref = NP_UNARY.get(ALIASES.get(name, name))
    register(Op(name, "unary", 1, gen_unary, dtypes=dtypes, tol=tol, fn=fn or name,
                method=name if method else None, inplace=name + "_" if inplace else None,
                symbol=symbol, out=out, weight=weight, extra=extra,
                np=_np_unary(ref) if ref else None,
                np_dtypes=("float32", "float64") if ref else ()))


MATH_ABS = ("erf", "sin", "cos", "tanh", "sigmoid", "asin", "acos", "atan", "atan2")
for _n in UNARY_FLOAT:
    _unary(_n, tol="math_abs" if _n in MATH_ABS else "math")
for _a, _n in ALIASES.items():
    if _n in UNARY_FLOAT:
        _unary(_a, tol="math_abs" if _n in MATH_ABS else "math", weight=0.2)
_unary("sqrt", tol="math")
_unary("reciprocal", tol="exact")
_unary("abs", symbol="abs")
_unary("absolute", weight=0.2)
_unary("neg", symbol="-")
_unary("negative", weight=0.2)
_unary("sign")
_unary("square")
_unary("ceil")
_unary("floor")
_unary("trunc")
_unary("fix", weight=0.3)
_unary("frac")
_unary("round", kw=kw_round)
_unary("isnan", inplace=False, out=False)
_unary("isinf", inplace=False, out=False)
_unary("isfinite", inplace=False, out=False)
_unary("logical_not")
_unary("bitwise_not", dtypes=INTEGRAL, symbol="~")
_unary("relu", out=False)
_unary("nan_to_num", kw=kw_nan_to_num)
_unary("gelu", fn="nn.functional.gelu", dtypes=FLOATS, tol="math_x", method=False, inplace=False,
       out=False, kw=kw_gelu)
_unary("silu", fn="nn.functional.silu", dtypes=FLOATS, tol="math_x", method=False, inplace=False,
       out=False)
_unary("F.relu", fn="nn.functional.relu", method=False, inplace=False, out=False, weight=0.3)
_unary("F.sigmoid", fn="nn.functional.sigmoid", tol="math_abs", method=False, inplace=False,
       out=False, weight=0.3)
_unary("F.tanh", fn="nn.functional.tanh", tol="math_abs", method=False, inplace=False, out=False,
       weight=0.3)
_unary("F.elu", fn="nn.functional.elu", dtypes=FLOATS, tol="math", method=False,
       inplace=False, out=False, weight=0.3)
_unary("F.leaky_relu", fn="nn.functional.leaky_relu", dtypes=FLOATS, method=False,
       inplace=False, out=False, weight=0.3)
_unary("F.softplus", fn="nn.functional.softplus", dtypes=FLOATS, tol="math_x", method=False,
       inplace=False, out=False, weight=0.3)


# ---- binary ------------------------------------------------------------------------------

def gen_binary(src, op, ctx):
    da = gen_dtype(src, op, ctx)
    db = da if (ctx.numpy or src.prob(0.5)) else gen_dtype(src, op, ctx)
    shape = gen_shape(src)
    sa, sb = (shape, bcast_shape(src, shape)) if src.prob(0.5) else \
        (bcast_shape(src, shape), shape)
    if ctx.numpy:
        sa = sb = shape if src.prob(0.5) else sa
        if len(sa) != len(sb) or any(x != y and 1 not in (x, y) for x, y in zip(sa, sb)):
            sb = sa
    form = choose_form(src, op, ctx)
    a_scalar_p = 0.5 if form == "rop" else 0.08
    a = gen_operand(src, op, ctx, da, sa, scalar_p=a_scalar_p, zerod_p=0.12)
    b = gen_operand(src, op, ctx, db, sb, scalar_p=0.25, zerod_p=0.2)
    if form in ("inplace", "iop") and not isinstance(a, TensorSpec):
        form = "fn"
    if form == "rop" and isinstance(a, TensorSpec):
        form = "op"
    kw = op.extra["kw"](src, a, b) if "kw" in op.extra and not ctx.numpy else {}
    if op.extra.get("trunc_guard") and (op.name != "div"
                                        or kw.get("rounding_mode") in ("trunc", "floor")):
        a = _no_int_min(a)
    if op.name == "lcm":
        # torch's lcm divides by gcd, which is -1 for a minimum integer (abs wraps):
        # SIGFPE in torch; never generated
        a, b = _no_int_min(a, lcm=True), _no_int_min(b, lcm=True)
    return form, (a, b), kw


def _no_int_min(a, lcm=False):
    """INT32_MIN / INT64_MIN (and int64 values that truncate to INT32_MIN) / -1 with
    truncation traps (SIGFPE) in torch: never generated (lcm: INT64_MIN, and the int8 /
    int16 minimums, too)."""
    def bad(v):
        v = int(v)
        return ((v & 0xFFFFFFFF) == 0x80000000 or v == -(2 ** 63)
                or (lcm and v in (-128, -32768)))
    if isinstance(a, TensorSpec):
        if a.dtype in (("int8", "int16", "int32", "int64") if lcm else ("int32", "int64")):
            b = a.base.copy()
            flat = b.reshape(-1)
            for i, v in enumerate(flat):
                if bad(v):
                    flat[i] = v + 1
            return TensorSpec(a.dtype, b, a.steps)
        return a
    if isinstance(a, int) and not isinstance(a, bool) and bad(a):
        return a + 1
    return a


def kw_alpha(src, a, b):
    if src.prob(0.25):
        return {"alpha": gen_scalar(src) if src.prob(0.5) else src.choice((2, -1, 0.5, True))}
    return {}


def kw_alpha_sub(src, a, b):
    """kw_alpha without alpha=INT64_MIN: torch's sub is add with -alpha, and -INT64_MIN
    wraps to INT64_MIN in its Scalar (sub(-10, 2.75, alpha=INT64_MIN) comes out negative)."""
    kw = kw_alpha(src, a, b)
    if kw.get("alpha") == -2 ** 63 and not isinstance(kw["alpha"], bool):
        kw["alpha"] = -2 ** 63 + 1
    return kw


def kw_div(src, a, b):
    if src.prob(0.6):
        return {"rounding_mode": src.choice(("trunc", "floor", None))}
    return {}


NP_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
             "maximum": np.maximum, "minimum": np.minimum, "fmax": np.fmax, "fmin": np.fmin,
             "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
             "gt": np.greater, "ge": np.greater_equal, "logical_and": np.logical_and,
             "logical_or": np.logical_or, "logical_xor": np.logical_xor,
             "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
             "bitwise_xor": np.bitwise_xor, "atan2": np.arctan2, "hypot": np.hypot}
NP_BINARY_DTYPES = {"bitwise_and": INTEGRAL, "bitwise_or": INTEGRAL, "bitwise_xor": INTEGRAL,
                    "add": ("int16", "int32", "int64", "float32", "float64"),
                    "sub": ("int16", "int32", "int64", "float32", "float64"),
                    "mul": ("int16", "int32", "int64", "float32", "float64")}


def _np_binary(f):
    def ref(args, kwargs):
        with np.errstate(all="ignore"):
            return f(args[0], args[1])
    return ref


def _binary(name, dtypes=DTYPES, tol="exact", symbol=None, inplace=True, out=True, kw=None,
            weight=1.0, method=True, **extra):
    base = ALIASES.get(name, name)
    ref = NP_BINARY.get(base)
    if kw:
        extra["kw"] = kw
    register(Op(name, "binary", 2, gen_binary, dtypes=dtypes, tol=tol, fn=name,
                method=name if method else None, inplace=name + "_" if inplace else None,
                symbol=symbol, out=out, weight=weight, extra=extra,
                np=_np_binary(ref) if ref else None,
                np_dtypes=NP_BINARY_DTYPES.get(base, ("float32", "float64")) if ref else ()))


_binary("add", symbol="+", kw=kw_alpha, weight=2)
_binary("sub", symbol="-", kw=kw_alpha_sub, weight=2)
_binary("mul", symbol="*", weight=2)
_binary("div", symbol="/", kw=kw_div, weight=2, trunc_guard=True)
for _a in ("true_divide", "divide", "multiply", "subtract"):
    _binary(_a, weight=0.2, kw=kw_alpha_sub if _a == "subtract" else None)
_binary("floor_divide", symbol="//", tol="floordiv")
_binary("remainder", symbol="%", tol="divmod")
_binary("fmod", tol="divmod")
_binary("pow", symbol="**", tol="math")
_binary("float_power", tol="math")
_binary("atan2", tol="math_abs")
_binary("arctan2", tol="math_abs", weight=0.2)
_binary("hypot", tol="math")
for _n in ("maximum", "minimum", "fmax", "fmin"):
    _binary(_n, inplace=False)
for _n, _s in (("eq", "=="), ("ne", "!="), ("lt", "<"), ("le", "<="), ("gt", ">"),
               ("ge", ">=")):
    _binary(_n, symbol=_s)
for _a in ("greater", "greater_equal", "less", "less_equal", "not_equal"):
    _binary(_a, weight=0.2)
for _n in ("logical_and", "logical_or", "logical_xor"):
    _binary(_n)
for _n, _s in (("bitwise_and", "&"), ("bitwise_or", "|"), ("bitwise_xor", "^"),
               ("bitwise_left_shift", "<<"), ("bitwise_right_shift", ">>")):
    _binary(_n, symbol=_s, dtypes=INTEGRAL)


def gen_binary_maxmin(src, op, ctx):
    form, (a, b), kw = gen_binary(src, op, ctx)
    if not isinstance(a, TensorSpec):
        a = gen_tensor(src, gen_dtype(src, op, ctx), ())
    if not isinstance(b, TensorSpec):
        b = gen_tensor(src, gen_dtype(src, op, ctx), ())
    return ("fn" if form not in ("fn", "method", "out") else form), (a, b), kw


for _n in ("max", "min"):
    register(Op(_n + "(a,b)", "binary", 2, gen_binary_maxmin, fn=_n, method=_n, out=True,
                weight=0.5))


# ---- ternary -----------------------------------------------------------------------------

def gen_where(src, op, ctx):
    shape = gen_shape(src)
    cdt = "bool" if src.prob(0.95) else src.choice(DTYPES)
    c = gen_tensor(src, cdt, bcast_shape(src, shape))
    da = gen_dtype(src, op, ctx)
    db = da if ctx.numpy or src.prob(0.5) else gen_dtype(src, op, ctx)
    a = gen_operand(src, op, ctx, da, bcast_shape(src, shape), scalar_p=0.15)
    b = gen_operand(src, op, ctx, db, bcast_shape(src, shape), scalar_p=0.25)
    if ctx.numpy:
        a, b = gen_tensor(src, da, shape), gen_tensor(src, da, shape)
        c = gen_tensor(src, "bool", shape)
    form = "fn" if not isinstance(c, TensorSpec) or ctx.numpy else \
        src.weighted((("fn", 60), ("method", 25), ("out", 15)))
    if form == "method":  # cond.where? no: x.where(cond, y)
        if not isinstance(a, TensorSpec):
            form = "fn"
        else:
            return "method", (a, c, b), {}
    return form, (c, a, b), {}


register(Op("where", "ternary", 3, gen_where, fn="where", method="where", out=True,
            np=lambda a, k: np.where(a[0], a[1], a[2]), np_dtypes=("float32", "float64"),
            weight=2, forms=("fn", "method", "out")))


def gen_clamp(src, op, ctx):
    dt = gen_dtype(src, op, ctx)
    shape = gen_shape(src)
    x = gen_tensor(src, dt, shape)

    def bound():
        r = src.int(0, 99)
        if r < 20:
            return None
        if r < 60:
            return gen_scalar(src)
        return gen_operand(src, op, ctx, gen_dtype(src, op, ctx), bcast_shape(src, shape),
                           scalar_p=0, zerod_p=0.3)
    form = choose_form(src, op, ctx)
    if op.name in ("clamp_min", "clamp_max"):
        b = bound()
        while b is None:
            b = bound()
        return form, (x, b), {}
    lo, hi = bound(), bound()
    if src.prob(0.3):
        kw = {}
        if lo is not None:
            kw["min"] = lo
        if hi is not None:
            kw["max"] = hi
        return form, (x,), kw
    return form, (x, lo, hi), {}


for _n in ("clamp", "clip", "clamp_min", "clamp_max"):
    register(Op(_n, "ternary", 3, gen_clamp, fn=_n, method=_n, inplace=_n + "_", out=True,
                weight=0.3 if _n == "clip" else 1.0))


def gen_lerp(src, op, ctx):
    dt = gen_dtype(src, op, ctx)
    shape = gen_shape(src)
    s = gen_tensor(src, dt, shape)
    e = gen_operand(src, op, ctx, dt if src.prob(0.8) else gen_dtype(src, op, ctx),
                    bcast_shape(src, shape), scalar_p=0.05)
    if src.prob(0.5):
        w = src.choice((0.0, 0.25, 0.5, 0.75, 1.0, -0.5, 1.5, 0.3, 2.0, math.nan))
    else:
        w = gen_operand(src, op, ctx, dt if src.prob(0.8) else gen_dtype(src, op, ctx),
                        bcast_shape(src, shape), scalar_p=0, zerod_p=0.3)
    return choose_form(src, op, ctx), (s, e, w), {}


register(Op("lerp", "ternary", 3, gen_lerp, dtypes=FLOATS, tol="lerp", fn="lerp",
            method="lerp", inplace="lerp_", out=True))


def gen_addc(src, op, ctx):
    dt = gen_dtype(src, op, ctx)
    shape = gen_shape(src)
    x = gen_tensor(src, dt, shape)
    t1 = gen_operand(src, op, ctx, dt if src.prob(0.7) else gen_dtype(src, op, ctx),
                     bcast_shape(src, shape), scalar_p=0.03)
    t2 = gen_operand(src, op, ctx, dt if src.prob(0.7) else gen_dtype(src, op, ctx),
                     bcast_shape(src, shape), scalar_p=0.03)
    kw = {"value": src.choice((1, 2, -1, 0.5, -2.5, 0, True, 1e-3))} if src.prob(0.5) else {}
    return choose_form(src, op, ctx), (x, t1, t2), kw


for _n in ("addcmul", "addcdiv"):
    register(Op(_n, "ternary", 3, gen_addc, tol="addc", fn=_n, method=_n, inplace=_n + "_",
                out=True))


# ---- reductions --------------------------------------------------------------------------

def gen_dims(src, nd, tuple_ok=True, none_ok=True):
    n = max(nd, 1)
    r = src.int(0, 99)
    if r < 22 and none_ok:
        return "none"
    if r < 72:
        return src.int(-n, n - 1)
    if r < 92 and tuple_ok:
        k = src.int(1, n)
        dims = src.shuffle(range(n))[:k]
        return tuple(d - n if src.prob(0.3) else d for d in dims)
    if r < 95 and tuple_ok:
        return ()
    return src.choice((n, -n - 1, 5))  # out of range


def gen_reduction(src, op, ctx):
    dt = gen_dtype(src, op, ctx)
    x = gen_tensor(src, dt, gen_shape(src, big_p=0.08))
    ex = op.extra
    if ex.get("no_expand") and any(st[0] == "expand" for st in x.steps):
        x = TensorSpec(x.dtype, np.ascontiguousarray(np_view(x)), ())
    nd = len(x.shape)
    dim = gen_dims(src, nd, tuple_ok=ex.get("tuple", True) and not ctx.numpy,
                   none_ok=ex.get("none", True))
    args, kw = [x], {}
    if dim != "none":
        if src.prob(0.5) or ctx.numpy:
            kw["dim"] = dim
        else:
            args.append(dim)
        if src.prob(0.5):
            kw["keepdim"] = src.prob(0.5)
    if "kw" in ex and not ctx.numpy:
        kw.update(ex["kw"](src, dt, dim))
    form = choose_form(src, op, ctx) if dim != "none" else \
        src.choice(tuple(f for f in op.forms if f in ("fn", "method")))
    return form, tuple(args), kw


def kw_dtype(src, dt, dim):
    return {"dtype": DType(src.choice(DTYPES))} if src.prob(0.2) else {}


def kw_std(src, dt, dim):
    r = src.int(0, 9)
    if r < 4:
        return {"correction": src.choice((0, 1, 2, 0.5))}
    if r < 7:
        return {"unbiased": src.prob(0.5)}
    return {}


def kw_norm(src, dt, dim):
    return {"p": src.choice((2, 1, math.inf, -math.inf, 0, 3, 0.5, "fro"))} if src.prob(0.7) \
        else {}


def _np_reduce(f):
    def ref(args, kwargs):
        ax = kwargs.get("dim", None)
        with np.errstate(all="ignore"):
            return np.asarray(f(args[0], axis=ax, keepdims=kwargs.get("keepdim", False)))
    return ref


def _reduction(name, dtypes=DTYPES, tol="exact", kw=None, np_ref=None, np_dtypes=(),
               weight=1.0, out=True, **extra):
    if kw:
        extra["kw"] = kw
    register(Op(name, "reduction", 1, gen_reduction, dtypes=dtypes, tol=tol, fn=name,
                method=name, out=out, weight=weight, extra=extra,
                np=_np_reduce(np_ref) if np_ref else None, np_dtypes=np_dtypes))


_reduction("sum", tol="sum", kw=kw_dtype, np_ref=np.sum, np_dtypes=("float64", "int64"),
           weight=2)
_reduction("prod", tol="prod", kw=kw_dtype, tuple=False, np_ref=np.prod, np_dtypes=("int64",))
_reduction("mean", dtypes=FLOATS, tol="sum", kw=kw_dtype, np_ref=np.mean,
           np_dtypes=("float64",))
_reduction("std", dtypes=FLOATS, tol="std", kw=kw_std)
_reduction("var", dtypes=FLOATS, tol="var", kw=kw_std)
_reduction("amax", np_ref=np.amax, np_dtypes=("float32", "float64", "int32", "uint8"))
_reduction("amin", np_ref=np.amin, np_dtypes=("float32", "float64", "int32", "int8"))
_reduction("argmax", tuple=False)
_reduction("argmin", tuple=False)
_reduction("all", np_ref=np.all, np_dtypes=("bool",))
_reduction("any", np_ref=np.any, np_dtypes=("bool",))
_reduction("norm", dtypes=FLOATS, tol="norm", kw=kw_norm, out=False)
_reduction("logsumexp", dtypes=DTYPES, tol="sum", none=False)
_reduction("max", tuple=False, out=False)
_reduction("min", tuple=False, out=False)
_reduction("count_nonzero", out=False)


def gen_scan(src, op, ctx):
    dt = gen_dtype(src, op, ctx)
    x = gen_tensor(src, dt, gen_shape(src, big_p=0.12))
    nd = len(x.shape)
    n = max(nd, 1)
    dim = src.int(-n, n - 1) if src.prob(0.97) else n
    kw = {}
    if src.prob(0.2) and not ctx.numpy:
        kw["dtype"] = DType(src.choice(DTYPES if op.kind == "scan" else FLOATS))
    form = choose_form(src, op, ctx)
    if src.prob(0.5):
        kw["dim"] = dim
        return form, (x,), kw
    return form, (x, dim), kw


for _n in ("cumsum", "cumprod"):
    register(Op(_n, "scan", 1, gen_scan, tol="scan", fn=_n, method=_n, inplace=_n + "_",
                out=True,
                np=(lambda f: lambda a, k: f(a[0], axis=a[1] if len(a) > 1 else k["dim"])
                    .reshape(a[0].shape))(np.cumsum if _n == "cumsum" else np.cumprod),
                np_dtypes=("int64",)))
for _n, _f in (("softmax", "softmax"), ("log_softmax", "log_softmax"),
               ("F.softmax", "nn.functional.softmax"),
               ("F.log_softmax", "nn.functional.log_softmax")):
    register(Op(_n, "softmax", 1, gen_scan, dtypes=FLOATS, tol="softmax", fn=_f,
                method=None if "." in _f else _n, out=False,
                weight=0.4 if _n.startswith("F.") else 1.0))


# ---- views -------------------------------------------------------------------------------

def _factor_shape(src, n):
    """A random shape with numel n (occasionally with -1, occasionally invalid)."""
    dims = []
    rest = n
    for _ in range(src.int(0, 3)):
        divs = [d for d in range(1, min(rest, 12) + 1) if rest % d == 0] if rest else [0, 1, 2]
        d = src.choice(divs)
        dims.append(d)
        rest = rest // d if d else rest
    if rest != 1 or not dims or src.prob(0.3):
        dims.append(rest)
    if n == 0 and src.prob(0.3):
        dims = [0] + dims
    if src.prob(0.2) and dims:
        i = src.int(0, len(dims) - 1)
        if dims[i] != 0:
            dims[i] = -1
    if src.prob(0.03):
        dims.append(src.choice((2, 3)))  # wrong numel (error)
    return tuple(dims)


def gen_view(src, op, ctx):
    dt = gen_dtype(src, op, ctx)
    shape = gen_shape(src)
    x = gen_tensor(src, dt, shape)
    nd = len(shape)
    n = max(nd, 1)
    name = op.name

    def d():
        return src.int(-n, n - 1) if src.prob(0.97) else src.choice((n, -n - 1))
    args, kw, form = (), {}, "method"
    if name in ("reshape", "view"):
        s = _factor_shape(src, math.prod(shape))
        args = (s,) if src.prob(0.5) else s
    elif name in ("transpose", "swapaxes", "swapdims"):
        args = (d(), d())
    elif name == "permute":
        p = src.shuffle(range(nd))
        if src.prob(0.3):
            p = [q - nd if src.prob(0.5) else q for q in p]
        if src.prob(0.03):
            p = p + [0]
        args = (tuple(p),) if src.prob(0.5) else tuple(p)
    elif name == "expand":
        new = [src.int(1, 3) for _ in range(src.choice((0, 0, 1, 2)))]
        tgt = [(src.int(0, 4) if (k == 1 and src.prob(0.6)) else
                (-1 if src.prob(0.3) else k)) for k in shape]
        args = tuple(new + tgt)
        if src.prob(0.4):
            args = (args,)
    elif name == "narrow":
        dim = d()
        size = shape[dim % n] if nd else 1
        start = src.int(-size, size) if src.prob(0.9) else size + 1
        length = src.int(0, max(0, size - (start % size if size and start < 0 else start)))
        args = (dim, start, length)
    elif name == "select":
        dim = d()
        size = shape[dim % n] if nd else 1
        args = (dim, src.int(-size, size - 1) if size and src.prob(0.95) else size)
    elif name == "squeeze":
        r = src.int(0, 9)
        args = () if r < 3 else (d(),) if r < 8 else (tuple({d() for _ in range(2)}),)
    elif name == "unsqueeze":
        args = (src.int(-nd - 1, nd) if src.prob(0.97) else nd + 2,)
    elif name == "flatten":
        if src.prob(0.7):
            a = d()
            args = (a, d()) if src.prob(0.7) else (a,)
    elif name == "movedim":
        args = (d(), d())
    elif name == "diagonal":
        r = src.int(0, 2)
        args = (src.int(-3, 3),) if r == 0 else () if r == 1 else (src.int(-2, 2), d(), d())
    elif name == "unbind":
        args = (d(),) if src.prob(0.7) else ()
    elif name in ("split", "chunk"):
        dim = d()
        size = shape[dim % n] if nd else 0
        # at most ~512 pieces: comparing tens of thousands of CUDA results one by one
        # (chunk(31428) of 40000 elements) ran past the case timeout in the harness
        lo = 1 if name == "chunk" else max(1, -(-size // 512))
        hi = min(size, 512) if name == "chunk" else size
        k = src.int(lo, max(lo, hi + 1)) if src.prob(0.95) else 0
        if name == "split" and src.prob(0.2) and size:
            parts = []
            rest = size
            while rest > 0:
                p = src.int(1, rest)
                parts.append(p)
                rest -= p
            k = parts
        args = (k, dim)
    elif name in ("t", "contiguous", "clone", "detach"):
        args = ()
    elif name in ("T", "mT", "H"):
        form = "attr"
    elif name in ("view_as", "reshape_as", "expand_as"):
        tgt = list(shape)
        if name == "expand_as":
            tgt = [src.int(1, 3)] * src.int(0, 1) + [src.int(1, 3) if k == 1 else k
                                                     for k in tgt]
        else:
            tgt = list(_factor_shape(src, math.prod(shape)))
            tgt = [k if k != -1 else 1 for k in tgt]
        args = (TensorSpec(src.choice(DTYPES), cast_values(np.zeros(tgt), "float32"), ()),)
        args = (TensorSpec(args[0].dtype, cast_values(np.zeros(tgt), args[0].dtype), ()),)
    if op.fn and form == "method" and src.prob(0.3):
        form = "fn"
    return form, (x,) + tuple(args), kw


def _np_t(a, k):
    if a[0].ndim > 2:
        raise ValueError("t() of more than 2 dimensions")  # torch raises too
    return a[0].T


VIEW_NAMES = ("reshape", "view", "transpose", "permute", "expand", "narrow", "select", "squeeze",
              "unsqueeze", "flatten", "t", "contiguous", "movedim", "swapaxes", "swapdims",
              "diagonal", "unbind", "split", "chunk", "T", "mT", "clone", "detach", "view_as",
              "reshape_as", "expand_as")
FUNCTIONAL_VIEWS = ("reshape", "transpose", "permute", "narrow", "select", "squeeze",
                    "unsqueeze", "flatten", "t", "movedim", "swapaxes", "swapdims", "diagonal",
                    "unbind", "split", "chunk", "clone")
for _n in VIEW_NAMES:
    register(Op(_n, "view", 1, gen_view, fn=_n if _n in FUNCTIONAL_VIEWS else None,
                method=_n, view=_n not in ("contiguous", "clone", "reshape", "flatten",
                                           "reshape_as"),
                weight=0.5 if _n in ("swapaxes", "swapdims", "T", "mT", "detach") else 1.0,
                np=_np_t if _n == "t" else None,
                np_dtypes=("float32", "int64") if _n == "t" else ()))


# ---- indexing ----------------------------------------------------------------------------

def gen_index(src, x_shape, adv=True, safe=False):
    """An index for a tensor of x_shape: a tuple of ints, slices, None, Ellipsis, int64
    index tensors, bool masks, lists. safe (CUDA): index tensors and lists stay in range
    (out-of-range ones are device-side asserts there, which end the CUDA context)."""
    comps = []
    d = 0
    nd = len(x_shape)
    used_ellipsis = False
    k = src.int(0, nd + 1)
    while len(comps) < k:
        r = src.int(0, 99)
        size = x_shape[d] if d < nd else 1
        if r < 28 and d < nd:  # int
            comps.append(src.int(-size, size - 1) if size and src.prob(0.95) else size)
            d += 1
        elif r < 55 and d < nd:  # slice
            def b():
                return None if src.prob(0.4) else src.int(-size - 2, size + 2)
            step = None if src.prob(0.5) else src.choice((1, 2, 3, 5))
            if src.prob(0.01):
                step = src.choice((0, -1))
            comps.append(slice(b(), b(), step))
            d += 1
        elif r < 62:
            comps.append(None)
        elif r < 67 and not used_ellipsis:
            comps.append(Ellipsis)
            used_ellipsis = True
            d = nd - max(0, k - len(comps))  # roughly
        elif r < 82 and d < nd and adv:  # int64 index tensor
            ishape = gen_shape(src, max_ndim=2, big_p=0)
            lo, hi = -size, size - 1
            if safe and not size:
                ishape = (0,)
            elif not size or src.prob(0.03):
                lo, hi = -size - 2, size + 2
            vals = [src.int(lo, hi) if hi >= lo else 0 for _ in range(math.prod(ishape))]
            comps.append(TensorSpec("int64", np.array(vals, np.int64).reshape(ishape), ()))
            d += 1
        elif r < 92 and d < nd and adv:  # bool mask over one or more dims
            m = src.int(1, min(2, nd - d))
            mshape = tuple(x_shape[d:d + m])
            if src.prob(0.03):
                mshape = tuple(s + 1 for s in mshape)
            comps.append(gen_tensor(src, "bool", mshape, layout=src.prob(0.2)))
            d += m
        elif d < nd and adv and (size or not safe):  # a list of ints
            comps.append([src.int(-size, size - 1) if size else 0
                          for _ in range(src.int(1, 3))])
            d += 1
        else:
            comps.append(None)
    if len(comps) == 1 and src.prob(0.5):
        return comps[0]
    return tuple(comps)


def gen_getitem(src, op, ctx):
    dt = gen_dtype(src, op, ctx)
    shape = gen_shape(src)
    x = gen_tensor(src, dt, shape)
    return "getitem", (x, gen_index(src, shape, adv=not ctx.numpy,
                                    safe=ctx.device != "cpu")), {}


def _dedupe_index(idx):
    """Advanced-index tensors with repeated (or aliasing) positions make setitem
    nondeterministic in torch: keep one index tensor with unique values."""
    comps = idx if isinstance(idx, tuple) else (idx,)
    out = []
    n_adv = 0
    for c in comps:
        if isinstance(c, (TensorSpec, list)):
            n_adv += 1
            if n_adv > 1:
                c = 0
            elif isinstance(c, list):
                c = sorted(set(c))
                c = [v for v in c if -v - 1 not in c and v >= 0] or c[:1]
            elif c.dtype == "int64":
                vals = c.base.reshape(-1)
                seen, keep = set(), []
                for v in vals:
                    if int(v) not in seen:
                        keep.append(int(v))
                    seen.add(int(v))
                keep = [v for v in keep if v >= 0] or [0]
                c = TensorSpec("int64", np.array(keep, np.int64), ())
        out.append(c)
    return tuple(out) if isinstance(idx, tuple) else out[0]


def gen_setitem(src, op, ctx):
    dt = gen_dtype(src, op, ctx)
    shape = gen_shape(src)
    x = gen_tensor(src, dt, shape)
    if x.steps and any(s[0] == "expand" for s in x.steps) and src.prob(0.7):
        x = TensorSpec(x.dtype, np.array(np_view(x)), ())
    idx = _dedupe_index(gen_index(src, shape, safe=ctx.device != "cpu"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tshape = np.empty(shape)[numpy_index(idx)].shape
    except Exception:
        tshape = ()
    r = src.int(0, 99)
    if r < 45:
        v = gen_scalar(src, "bool" if dt == "bool" else "int" if dt in INTS else "float")
        if dt in INTS and isinstance(v, float) or dt in INTS and abs(v) > 2 ** 31:
            v = 3
    else:
        vdt = dt if src.prob(0.6) else src.choice(DTYPES)
        if vdt in FLOATS and dt in INTEGRAL:
            vdt = dt
        vs = bcast_shape(src, tshape) if r < 95 else gen_shape(src)
        v = gen_tensor(src, vdt, vs)
        if vdt in FLOATS:
            pass
    return "setitem", (x, idx, v), {}


def numpy_index(idx):
    if isinstance(idx, tuple):
        return tuple(numpy_index(i) for i in idx)
    if isinstance(idx, TensorSpec):
        return np_view(idx)
    return idx


register(Op("getitem", "index", 2, gen_getitem, forms=("getitem",), weight=4, view=False,
            np=lambda a, k: np.asarray(a[0][numpy_index(a[1])]),
            np_dtypes=("float32", "int32")))
register(Op("setitem", "index", 3, gen_setitem, forms=("setitem",), weight=4))


# ---- ops of torch that ember lacks today: registered, skipped (SKIPPED says so) until
# ember has them; they join the run by themselves then --------------------------------------

for _n, _t in (("sgn", "exact"), ("signbit", "exact"), ("positive", "exact"),
               ("deg2rad", "math"), ("rad2deg", "math"), ("sinc", "math_abs"),
               ("erfinv", "math"), ("lgamma", "math"), ("digamma", "math"), ("i0", "math"),
               ("logit", "math"), ("isposinf", "exact"), ("isneginf", "exact"),
               ("isreal", "exact"), ("angle", "exact")):
    _unary(_n, tol=_t, weight=0.3)
# torch.special's functions (ops/pointwise/special.hpp): no Tensor methods
for _n in ("i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "erfcx", "entr", "bessel_j0",
           "bessel_j1"):
    _unary("special." + _n, fn="special." + _n,
           tol="bessel" if _n.startswith("bessel") else "special", method=False,
           inplace=False, weight=0.2)
for _n, _f, _t in (("F.logsigmoid", "nn.functional.logsigmoid", "math_x"),
                   ("F.hardtanh", "nn.functional.hardtanh", "exact"),
                   ("F.relu6", "nn.functional.relu6", "exact"),
                   ("F.selu", "nn.functional.selu", "math"),
                   ("F.celu", "nn.functional.celu", "math"),
                   ("F.mish", "nn.functional.mish", "math_x"),
                   ("F.hardsigmoid", "nn.functional.hardsigmoid", "exact"),
                   ("F.hardswish", "nn.functional.hardswish", "math_x"),
                   ("F.softsign", "nn.functional.softsign", "math"),
                   ("F.tanhshrink", "nn.functional.tanhshrink", "math_x")):
    _unary(_n, fn=_f, dtypes=FLOATS, tol=_t, method=False, inplace=False, out=False,
           weight=0.2)


# Ill-conditioned functions: |x f'(x)|, the change of f(x) under a relative change of x.
# A result that is f(x (1 + d)) with |d| of a couple of ulps (what torch's and ember's
# algorithms guarantee near f's zeros and poles: digamma's reflection near its poles and
# zeros, erfinv near +-1, logit near 1/2 where the quotient x / (1 - x) is rounded) is
# accepted: COND_ULPS ulps of the dtype times |x f'(x)|, beside the op's class.
COND_ULPS = 2


def _trigamma(x):
    """psi'(x) for float64 x (finite; an absolute accuracy of ~1e-6 is plenty here)."""
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        refl = x < 0.5
        y = np.where(refl, 1.0 - x, x)
        acc = np.zeros_like(y)
        for _ in range(8):
            small = y < 8.0
            acc = acc + np.where(small, 1.0 / (y * y), 0.0)
            y = np.where(small, y + 1.0, y)
        y2 = 1.0 / (y * y)
        asym = 1.0 / y + y2 / 2 + y2 / y * (1 / 6 - y2 * (1 / 30 - y2 * (1 / 42 - y2 / 30)))
        t = acc + asym
        s = np.sin(np.pi * x)
        return np.where(refl, np.pi ** 2 / (s * s) - t, t)


def _xdf_digamma(x, t):
    return np.abs(x) * np.abs(_trigamma(x))


def _xdf_erfinv(x, t):
    with np.errstate(all="ignore"):
        return np.abs(x) * (math.sqrt(math.pi) / 2) * np.exp(np.where(np.isfinite(t), t * t, 0))


def _xdf_logit(x, t):
    with np.errstate(all="ignore"):
        return np.abs(1.0 / (1.0 - x))


def _xdf_bessel(x, t):
    # |x J0'(x)| = |x J1(x)| and |x J1'(x)| <= |x J0(x)| + |J1(x)|: at most |x| near 0 and
    # about sqrt(2 |x| / pi) + 1 beyond (the envelope of J is sqrt(2 / (pi |x|))). Torch's
    # float32 Cephes reduces the argument (x - pi/4) in float32: an error of ~|x| eps in
    # the phase, i.e. exactly this conditioning (it loses every digit from |x| ~ 2**20).
    ax = np.abs(x)
    return np.minimum(ax, np.sqrt(2 * ax / math.pi) + 1)


for _n, _f in (("digamma", _xdf_digamma), ("erfinv", _xdf_erfinv), ("logit", _xdf_logit),
               ("special.bessel_j0", _xdf_bessel), ("special.bessel_j1", _xdf_bessel)):
    OPS[_n].extra["xdf"] = _f


def _tol_ndtr(case):
    """ndtr: torch computes 0.5 * (1 + erf(x / sqrt 2)), which cancels in the left tail --
    on the CPU in float (its vectorized kernel), on CUDA in the tensor's own dtype (a
    jitted kernel whose float16/bfloat16 intermediates are each rounded to the dtype:
    ndtr(-3.64) in bfloat16 is 0, not 1.4e-4): an absolute accuracy of a few eps of the
    dtype, as the bounded functions of "math_abs". ember computes in float."""
    return "special_abs"


OPS["special.ndtr"].extra["tol_fn"] = _tol_ndtr

OPS["special.i0e"].tol = "i0e"


for _n, _t, _d in (("copysign", "exact", DTYPES), ("nextafter", "exact", FLOATS),
                   ("logaddexp", "math_x", FLOATS), ("logaddexp2", "math_x", FLOATS),
                   ("xlogy", "math", DTYPES), ("heaviside", "exact", DTYPES),
                   ("gcd", "exact", INTS), ("lcm", "exact", INTS), ("ldexp", "exact", DTYPES),
                   ("igamma", "special", FLOATS), ("igammac", "special", FLOATS)):
    _binary(_n, tol=_t, dtypes=_d, weight=0.3)
for _n in ("special.zeta", "special.xlog1py"):
    _binary(_n, tol="special", dtypes=FLOATS, weight=0.2, method=False, inplace=False)


def kw_isclose(src, a, b):
    kw = {}
    if src.prob(0.5):
        kw["rtol"] = src.choice((0.0, 1e-5, 0.1))
        kw["atol"] = src.choice((0.0, 1e-8, 1.0))
    if src.prob(0.3):
        kw["equal_nan"] = src.prob(0.5)
    return kw


_binary("isclose", kw=kw_isclose, inplace=False, out=False, weight=0.3)


def mask_igamma(case, np_args, device):
    """igamma/igammac(a, x): not compared where torch's Cephes port fails outright (ember's
    series and continued fractions in double agree with mpmath there): a within 1/100 of
    the largest float (torch's nan: igamma(3e38, 5.0) in float32), and subnormal a (torch
    flushes it: igamma(1e-40, 0.5) is 0 in float32, 1 as a -> 0)."""
    if len(np_args) < 2:
        return None
    try:
        a = np.asarray(np_args[0], np.float64)
        shape = np.broadcast_shapes(a.shape, np.shape(np_args[1]))
    except (ValueError, TypeError):
        return None
    # the computation's dtype: 0-d tensors count only beside no floating tensor with dims
    specs = [sp for sp in case.args[:2] if isinstance(sp, TensorSpec) and sp.dtype in FLOATS]
    dts = [sp.dtype for sp in specs if np_view(sp).ndim > 0] or [sp.dtype for sp in specs]
    acc = "float64" if "float64" in dts else "float32"
    with np.errstate(invalid="ignore"):
        bad = (np.abs(a) > FMAX[acc] / 100) | ((a != 0) & (np.abs(a) < FTINY[acc]))
    return np.broadcast_to(~bad, shape)


def _atol_igamma(np_args, at, dt):
    """torch's float64 igamma/igammac take Temme's uniform asymptotic series for
    20 < a < 200, |x - a| < 0.3 a (and a >= 200, |x - a| < 4.5 sqrt(a)): about 1e-10
    absolute there (Q(88.75, 82.086) is 1.5e-10 off mpmath; ember's 5e-15): 2**-30."""
    if dt != "float64" or len(np_args) < 2:
        return 0.0
    with np.errstate(all="ignore"):
        a = np.broadcast_to(np.asarray(np_args[0], np.float64), at.shape)
        x = np.broadcast_to(np.asarray(np_args[1], np.float64), at.shape)
        r = np.abs(x - a) / a
        temme = ((a > 20) & (a < 200) & (r < 0.3)) | ((a >= 200) & (r < 4.5 / np.sqrt(a)))
    return np.where(temme, 2.0 ** -30, 0.0)


for _n in ("igamma", "igammac"):
    OPS[_n].tol = "igamma"
    OPS[_n].mask = mask_igamma
    OPS[_n].extra["atol_fn"] = _atol_igamma
for _n, _t, _d in (("nansum", "nansum", DTYPES), ("nanmean", "nanmean", FLOATS),
                   ("aminmax", "exact", DTYPES), ("std_mean", "std", FLOATS),
                   ("var_mean", "var", FLOATS), ("median", "exact", DTYPES),
                   ("nanmedian", "exact", DTYPES)):
    _reduction(_n, dtypes=_d, tol=_t, tuple=_n not in ("aminmax", "median", "nanmedian"),
               weight=0.3, out=False, values_only=_n in ("median", "nanmedian"),
               # torch's median(dim) of a stride-0 (expanded) input reads garbage
               no_expand=_n in ("median", "nanmedian"))
for _n, _t in (("logcumsumexp", "softmax"), ("cummax", "exact"), ("cummin", "exact")):
    register(Op(_n, "scan", 1, gen_scan, tol=_t, fn=_n, method=_n, out=True, weight=0.3,
                dtypes=FLOATS if _n == "logcumsumexp" else DTYPES))


def gen_sort(src, op, ctx):
    """sort / argsort (stable: indices compared too), msort, topk, kthvalue (values only:
    the index among equal values is unspecified), quantile / nanquantile. Not mode:
    torch's CPU mode sorts with an unstable std::sort whose comparator NaN breaks, so its
    values are unspecified where there are NaNs (tests/test_sort_ops.py checks it)."""
    dt = gen_dtype(src, op, ctx)
    x = gen_tensor(src, dt, gen_shape(src, big_p=0.08))
    if any(st[0] == "expand" for st in x.steps):  # torch's mode/kthvalue read stride 0 badly
        x = TensorSpec(x.dtype, np.ascontiguousarray(np_view(x)), ())
    nd = len(x.shape)
    n = max(nd, 1)
    dim = src.int(-n, n - 1) if src.prob(0.97) else n
    size = x.shape[dim % n] if nd and -n <= dim < n else 1
    name = op.name
    args, kw = [x], {}
    if name in ("sort", "argsort"):
        kw["dim"] = dim
        if src.prob(0.6):
            kw["descending"] = src.prob(0.5)
        kw["stable"] = True
    elif name == "topk":
        args.append(src.int(0, size) if src.prob(0.95) else size + 1)
        kw["dim"] = dim
        if src.prob(0.5):
            kw["largest"] = src.prob(0.5)
    elif name == "kthvalue":
        args.append(src.int(1, max(size, 1)) if src.prob(0.95) else size + 1)
        kw["dim"] = dim
        if src.prob(0.5):
            kw["keepdim"] = src.prob(0.5)
    elif name in ("quantile", "nanquantile"):
        args.append(src.choice((0.0, 0.25, 0.5, 0.9, 1.0)))
        if src.prob(0.7):
            kw["dim"] = dim
            kw["keepdim"] = src.prob(0.5)
        kw["interpolation"] = src.choice(("linear", "lower", "higher", "midpoint", "nearest"))
    return choose_form(src, op, ctx), tuple(args), kw


for _n, _d, _vo in (("sort", DTYPES, False), ("argsort", DTYPES, False),
                    ("msort", DTYPES, False), ("topk", NUMERIC, True),
                    ("kthvalue", NUMERIC, True),
                    ("quantile", ("float32", "float64"), False),
                    ("nanquantile", ("float32", "float64"), False)):
    register(Op(_n, "sort", 1, gen_sort, dtypes=_d, tol="exact" if "quantile" not in _n
                else "lerp", fn=_n, method=_n, weight=0.3, forms=("fn", "method"),
                extra={"values_only": _vo}))


def gen_shape_op(src, op, ctx):
    """flip / roll / tril / triu / repeat / tile / rot90 / ravel / unflatten."""
    dt = gen_dtype(src, op, ctx)
    shape = gen_shape(src)
    x = gen_tensor(src, dt, shape)
    nd = len(shape)
    n = max(nd, 1)

    def d():
        return src.int(-n, n - 1)
    name = op.name
    if name == "flip":
        args = (tuple({d() for _ in range(src.int(0, n))}),)
    elif name in ("fliplr", "flipud", "ravel"):
        args = ()
    elif name == "roll":
        args = (src.int(-7, 7), d()) if src.prob(0.7) else (src.int(-7, 7),)
    elif name in ("tril", "triu"):
        args = (src.int(-3, 3),) if src.prob(0.5) else ()
    elif name in ("repeat", "tile"):
        reps = tuple(src.int(0, 3) for _ in range(src.int(max(nd, 1) if name == "repeat"
                                                              else 1, nd + 2)))
        args = (reps,)
    elif name == "rot90":
        args = (src.int(-2, 5), (0, 1) if nd >= 2 else (0, 0))
    else:  # unflatten
        dim = d()
        size = shape[dim % n] if nd else 1
        args = (dim, _factor_shape(src, size))
    form = "method" if src.prob(0.5) else "fn"
    return form, (x,) + args, {}


for _n in ("flip", "fliplr", "flipud", "roll", "tril", "triu", "repeat", "tile", "rot90",
           "ravel", "unflatten"):
    register(Op(_n, "view", 1, gen_shape_op, fn=None if _n == "repeat" else _n,
                method=None if _n in ("fliplr", "flipud") and False else _n, weight=0.3,
                forms=("fn", "method")))


def gen_product_op(src, op, ctx):
    """kron / trace / inner / vander: composites of issue 16's breadth pass."""
    dt = gen_dtype(src, op, ctx)
    name = op.name
    if name == "kron":  # contiguous: torch's kron raises a view error on some strided inputs
        a = gen_tensor(src, dt, gen_shape(src, 3), layout=False)
        b = gen_tensor(src, dt if src.prob(0.7) else gen_dtype(src, op, ctx), gen_shape(src, 3),
                       layout=False)
        return src.choice(("fn", "method")), (a, b), {}
    if name == "trace":
        return src.choice(("fn", "method")), (gen_tensor(src, dt, gen_shape(src, 2)),), {}
    if name == "vander":
        x = gen_tensor(src, dt, (src.int(0, 5),))
        return "fn", (x,) + ((src.int(0, 5),) if src.prob(0.5) else ()), {}
    k = src.int(0, 4)
    a = gen_tensor(src, dt, gen_shape(src, 2)[:1] + (k,))
    b = gen_tensor(src, dt, (src.int(0, 3), k))
    return src.choice(("fn", "method")), (a, b), {}  # inner


for _n, _d in (("kron", DTYPES), ("trace", DTYPES), ("inner", NUMERIC), ("vander", NUMERIC)):
    register(Op(_n, "view", 2, gen_product_op, fn=_n, method=None if _n == "vander" else _n,
                dtypes=_d, tol="sum" if _n in ("trace", "inner") else "exact", weight=0.3,
                forms=("fn",) if _n == "vander" else ("fn", "method")))


def gen_index_op(src, op, ctx):
    """index_select / gather / take / masked_fill / masked_select / nonzero / index_add..."""
    dt = gen_dtype(src, op, ctx)
    shape = gen_shape(src)
    x = gen_tensor(src, dt, shape)
    nd = len(shape)
    n = max(nd, 1)
    dim = src.int(-n, n - 1)
    size = shape[dim % n] if nd else 1
    name = op.name

    def idx(ishape, hi):
        lo, h = (-hi, hi - 1) if src.prob(0.97) or ctx.device != "cpu" else (-hi - 2, hi + 1)
        if ctx.device != "cpu" and name != "take":
            lo = 0  # negative gather / index_select indices: a device assert in torch
        vals = [src.int(lo, h) if h >= lo else 0 for _ in range(math.prod(ishape))]
        return TensorSpec("int64", np.array(vals, np.int64).reshape(ishape), ())
    if name == "index_select":
        return "fn", (x, dim, idx((src.int(0, 4),) if src.prob(0.9) else (), max(size, 1))), {}
    if name == "gather":
        ishape = tuple(src.int(0, s) if s else 0 for s in shape)
        vals = idx(ishape, max(size, 1))
        return src.choice(("fn", "method")), (x, dim, vals), {}
    if name == "take":
        return "fn", (x, idx(gen_shape(src, 2, big_p=0), max(math.prod(shape), 1))), {}
    if name == "masked_fill":
        m = gen_tensor(src, "bool", bcast_shape(src, shape))
        v = gen_scalar(src) if src.prob(0.6) else gen_tensor(src, gen_dtype(src, op, ctx), ())
        return src.choice(("fn", "method", "inplace")), (x, m, v), {}
    if name == "masked_select":
        return "fn", (x, gen_tensor(src, "bool", bcast_shape(src, shape))), {}
    return src.choice(("fn", "method")), (x,), {}


for _n in ("index_select", "gather", "take", "masked_fill", "masked_select", "nonzero"):
    register(Op(_n, "index", 2, gen_index_op, fn=_n, method=_n,
                inplace="masked_fill_" if _n == "masked_fill" else None, weight=0.4,
                forms=("fn", "method", "inplace") if _n == "masked_fill" else ("fn", "method")))


def gen_scatter_op(src, op, ctx):
    """scatter / scatter_add / scatter_reduce / index_add / index_copy / index_fill /
    index_reduce / take_along_dim / put / masked_scatter / argwhere. Indices are in range
    and, where they write, distinct along the written dim (duplicates leave the winner or
    the summation order unspecified on the GPU), so every result is exact."""
    dt = gen_dtype(src, op, ctx)
    shape = gen_shape(src, 3)
    nd = len(shape)
    n = max(nd, 1)
    dim = src.int(-n, n - 1)
    d = dim % n
    size = shape[d] if nd else 1
    name = op.name
    x = gen_tensor(src, dt, shape)

    def perm(k, hi):
        pool = list(range(hi))
        out = []
        for _ in range(k):
            out.append(pool.pop(src.int(0, len(pool) - 1)))
        return out

    def distinct(ishape):
        """int64 index of ishape, distinct along d, values in [0, size)."""
        if not ishape:
            return TensorSpec("int64", np.zeros((), np.int64), ())
        a = np.zeros(ishape, np.int64)
        rest = [s for j, s in enumerate(ishape) if j != d]
        for pos in itertools.product(*[range(s) for s in rest]):
            vals = perm(ishape[d], size)
            for k, v in enumerate(vals):
                full = list(pos)
                full.insert(d, k)
                a[tuple(full)] = v
        return TensorSpec("int64", a, ())

    def corner():
        return tuple(src.int(0, s) if j != d else src.int(0, s) for j, s in enumerate(shape))

    def vec(k):
        return TensorSpec("int64", np.array(perm(k, size), np.int64), ())

    def slices(k):
        s2 = list(shape)
        if nd:
            s2[d] = k
        return tuple(s2)
    form3 = src.choice(("fn", "method", "inplace"))
    if name in ("scatter", "scatter_add", "scatter_reduce"):
        ishape = corner() if nd else ()
        idx = distinct(ishape)
        if name == "scatter" and src.prob(0.3):
            return form3, (x, dim, idx, gen_scalar(src)), {}
        sv = gen_tensor(src, dt, ishape)
        if name == "scatter_reduce":
            kw = {"include_self": src.prob(0.5)}
            return form3, (x, dim, idx, sv, src.choice(("sum", "prod", "mean", "amax",
                                                        "amin"))), kw
        return form3, (x, dim, idx, sv), {}
    if name in ("index_add", "index_copy", "index_fill", "index_reduce"):
        k = src.int(0, size)
        idx = vec(k) if nd else TensorSpec("int64", np.zeros((1,), np.int64), ())
        if name == "index_fill":
            return form3, (x, dim, idx, gen_scalar(src)), {}
        sv = gen_tensor(src, dt, slices(k) if nd else ())
        if name == "index_reduce":
            return form3, (x, dim, idx, sv, src.choice(("prod", "mean", "amax", "amin"))), \
                {"include_self": src.prob(0.5)}
        return form3, (x, dim, idx, sv), ({"alpha": 2} if name == "index_add" and
                                          src.prob(0.3) else {})
    if name == "take_along_dim":
        if not nd or src.prob(0.2):
            k = src.int(0, 5)
            hi = max(math.prod(shape), 1)
            vals = [src.int(0, hi - 1) for _ in range(k)] if math.prod(shape) else []
            return src.choice(("fn", "method")), (x, TensorSpec("int64", np.array(
                vals, np.int64), ())), {}
        ishape = tuple(src.choice((1, s)) if j != d else src.int(0, 4)
                       for j, s in enumerate(shape))
        vals = [src.int(0, size - 1) if size else 0 for _ in range(math.prod(ishape))]
        if not size and math.prod(ishape):
            ishape = tuple(0 if j == d else s for j, s in enumerate(ishape))
            vals = []
        return src.choice(("fn", "method")), (x, TensorSpec(
            "int64", np.array(vals, np.int64).reshape(ishape), ()), dim), {}
    if name == "put":
        total = math.prod(shape)
        k = src.int(0, min(total, 6))
        idx = TensorSpec("int64", np.array([v - total if src.prob(0.3) else v
                                            for v in perm(k, total)], np.int64), ())
        kw = {"accumulate": src.prob(0.5)}
        return src.choice(("fn", "method", "inplace")), (x, idx, gen_tensor(src, dt, (k,))), kw
    if name == "masked_scatter":
        m = gen_tensor(src, "bool", bcast_shape(src, shape))
        total = max(math.prod(shape), 1) * 2
        return src.choice(("fn", "method")), (x, m, gen_tensor(src, dt, (total,))), {}
    return src.choice(("fn", "method")), (x,), {}


for _n, _ip in (("scatter", "scatter_"), ("scatter_add", "scatter_add_"),
                ("scatter_reduce", "scatter_reduce_"), ("index_add", "index_add_"),
                ("index_copy", "index_copy_"), ("index_fill", "index_fill_"),
                ("index_reduce", "index_reduce_"), ("take_along_dim", None), ("put", "put_"),
                ("masked_scatter", None), ("argwhere", None)):
    register(Op(_n, "index", 2, gen_scatter_op, fn=_n, method=_n, inplace=_ip, weight=0.3,
                forms=("fn", "method", "inplace") if _ip else ("fn", "method")))


# ---- conversions -------------------------------------------------------------------------

CONVERT_METHODS = {"float": "float32", "double": "float64", "half": "float16",
                   "bfloat16": "bfloat16", "int": "int32", "long": "int64", "short": "int16",
                   "char": "int8", "byte": "uint8", "bool": "bool"}


def gen_convert(src, op, ctx):
    dt = gen_dtype(src, op, ctx)
    x = gen_tensor(src, dt, gen_shape(src))
    if op.name == "to":
        return "method", (x, DType(src.choice(DTYPES))), {}
    if op.name == "type":
        return "method", (x, DType(src.choice(DTYPES))), {}
    return "method", (x,), {}


def mask_convert(case, np_args, device):
    """float -> integer conversions of NaN, inf and out-of-range values are undefined."""
    x = np_args[0]
    src_dt = case.args[0].dtype
    op = OPS[case.op]
    if op.name in ("to", "type"):
        tgt = case.args[1].name
    else:
        tgt = CONVERT_METHODS[op.name]
    if src_dt not in FLOATS or tgt not in INTS:
        return None
    xf = x.astype(np.float64)
    if tgt == "uint8":  # torch goes through int64 for uint8
        lo, hi = -2.0 ** 63, 2.0 ** 63
    else:
        ii = iinfo(tgt)
        lo, hi = float(ii.min) - 1, float(ii.max) + 1
    with np.errstate(invalid="ignore"):
        return np.isfinite(xf) & (xf > lo) & (xf < hi)


register(Op("to", "convert", 1, gen_convert, method="to", forms=("method",), weight=3,
            mask=mask_convert))
register(Op("type", "convert", 1, gen_convert, method="type", forms=("method",), weight=0.5,
            mask=mask_convert))
for _n in CONVERT_METHODS:
    register(Op(_n, "convert", 1, gen_convert, method=_n, forms=("method",), weight=0.2,
                mask=mask_convert))


# ---- masks for ops whose torch result is undefined in places ----------------------------

def mask_int_div_by_zero(case, np_args, device):
    """CUDA: integer division by zero gives garbage in torch (the CPU raises)."""
    if device == "cpu" or len(np_args) < 2:
        return None
    b = np_args[1]
    if isinstance(b, np.ndarray) and b.dtype.kind in "iub":
        return np.broadcast_to(b != 0, np.broadcast_shapes(np.shape(np_args[0]), b.shape))
    return None


def mask_divmod(case, np_args, device):
    """floor_divide/remainder/fmod: integer division by zero on CUDA (see above), and where
    |a / b| >= 2**24 with a floating operand: torch's vectorized kernels (contiguous
    inputs) go through a / b there and lose the remainder (fmod(6.85, 1.4e-45) is NaN in
    float32, fmod(-3.4e38, 0.0217) in bfloat16; its scalar path and ember are exact)."""
    m = mask_int_div_by_zero(case, np_args, device)
    floating = any(isinstance(a, TensorSpec) and a.dtype in FLOATS for a in case.args) or \
        any(isinstance(a, float) for a in case.args)
    if not floating or len(np_args) < 2:
        return m
    try:
        a = np.asarray(np_args[0], np.float64)
        b = np.asarray(np_args[1], np.float64)
        with np.errstate(all="ignore"):
            ok = ~(np.abs(a / b) >= 2.0 ** 24)
        shape = np.broadcast_shapes(a.shape, b.shape)
        ok = np.broadcast_to(ok, shape)
        return ok if m is None else ok & np.broadcast_to(m, shape)
    except Exception:
        return m


def mask_sinh_cosh(case, np_args, device):
    """sinh/cosh where exp(|x|) overflows the result dtype but sinh/cosh does not (|x|
    between log(max) and log(2 max)): torch's vectorized kernels compute through exp(x)
    and give inf there (sinh(89.0) in float32); ember gives the finite value."""
    x = np_args[0]
    if not isinstance(x, np.ndarray) or x.dtype.kind not in "fiub":
        return None
    lim = {"float16": 11.08, "bfloat16": 88.72, "float32": 88.72, "float64": 709.78}.get(
        case.args[0].dtype, 88.72)
    with np.errstate(invalid="ignore"):
        return ~((np.abs(x.astype(np.float64)) > lim - 0.01) &
                 (np.abs(x.astype(np.float64)) < lim + 0.71))


for _n in ("sinh", "cosh", "arcsinh"):
    if _n in OPS and _n != "arcsinh":
        OPS[_n].mask = mask_sinh_cosh
for _n in ("div", "divide", "true_divide"):
    OPS[_n].mask = mask_int_div_by_zero
for _n in ("floor_divide", "remainder", "fmod"):
    OPS[_n].mask = mask_divmod


def _tol_alpha_rdiv(case):
    if "alpha" in case.kwargs:
        return "alpha"
    if case.kwargs.get("rounding_mode") in ("floor", "trunc"):
        # torch's float16/bfloat16 div_floor/div_trunc: its vector loop computes in float,
        # its scalar loop rounds every step to the dtype (as floor_divide)
        return "floordiv"
    if case.form == "rop" or (
            case.op in ("div", "divide", "true_divide") and not isinstance(case.args[0],
                                                                             TensorSpec)):
        return "one_ulp"
    return None


for _n in ("add", "sub", "subtract", "div", "divide", "true_divide"):
    OPS[_n].extra["tol_fn"] = _tol_alpha_rdiv


def _tol_ldexp(case):
    """ldexp with a floating exponent y is x * 2**y, 2**y a pow in y's dtype (or a wider
    one): pow's error in that dtype ("math_in_<dtype>"), then the product rounded once;
    with an integer exponent it is exact."""
    e = case.args[1] if len(case.args) > 1 else None
    if isinstance(e, TensorSpec) and e.dtype in FLOATS:
        return "math_in_" + e.dtype
    return None


OPS["ldexp"].extra["tol_fn"] = _tol_ldexp


# ----------------------------------------------------------------------------------------
# tolerances
# ----------------------------------------------------------------------------------------

# class -> {dtype: (ulps, abs_k, scale)}: finite values e (ember) and t (torch) of a result
# of dtype dt agree when
#     |e - t| <= ulps * eps(dt) * max(|e|, |t|) + ulps * denorm(dt) + abs_k * eps(A) * scale
# eps(dt) = 2**-mantissa bits (float16 2**-10, bfloat16 2**-7, float32 2**-23, float64
# 2**-52); A is the accumulation dtype ACC[dt] (float32 for float16/bfloat16) except for the
# "one_dt" scale (A = dt); scale: "none" 0, "one" 1, "max" max |finite input|, "max2"
# 4 m**2 + m (m = max |input|), "sum" m * (elements of the first input), "sumsq" m**2 * n,
# "sqrt_sumsq": the absolute term is sqrt(abs_k * eps(A) * m**2 * n) (std near 0);
# "units": the absolute term is abs_k itself; "sqrt_n_dt": sqrt(elements of the first
# input), with A = dt.
# Infinities must be equal; NaN equals NaN; +0 equals -0. Integers and bool: exact.
TOLERANCES = {
    # add/sub/mul/div/reciprocal, comparisons, min/max, rounding, casts, views, indexing,
    # clamp/where, fmod/remainder: one correctly rounded result (float16/bfloat16 computed
    # in float32 and rounded once, as torch does): bit-equal
    "exact": {dt: (0, 0, "none") for dt in FLOATS},
    # exp/log/pow/sqrt...: libm, SLEEF and torch's vectorized code differ by an ulp or two
    # (torch's float32 sqrt is not always correctly rounded); float16/bfloat16: one
    # rounding apart
    "math": {"float16": (1, 0, "none"), "bfloat16": (1, 0, "none"),
             "float32": (4, 0, "none"), "float64": (4, 0, "none")},
    # special functions (igamma, zeta, erfcx, the Bessel functions...) where ember's
    # algorithm is not torch's (series and continued fractions in double, CUDA's libm):
    # agreement to the algorithms' accuracy, not to the last bits
    "special": {"float16": (2, 0, "none"), "bfloat16": (2, 0, "none"),
                "float32": (256, 0, "none"), "float64": (1 << 16, 0, "none")},
    # special functions bounded by 1 that torch computes to an absolute accuracy (its
    # CPU ndtr is 0.5 * (1 + erf(x / sqrt 2)) in the tails): "special" plus a few eps
    "special_abs": {"float16": (2, 4, "one_dt"), "bfloat16": (2, 4, "one_dt"),
                    "float32": (256, 4, "one"), "float64": (1 << 16, 4, "one")},
    # i0e: torch's scalar loop (strided inputs, the tail of contiguous ones) evaluates its
    # Chebyshev series in float16/bfloat16 itself, its vector loop in float: the two are
    # up to 6 ulps (float16) and 4 ulps (bfloat16) apart over every input of the dtype
    "i0e": {"float16": (7, 0, "none"), "bfloat16": (5, 0, "none"),
            "float32": (256, 0, "none"), "float64": (1 << 16, 0, "none")},
    # igamma/igammac: in [0, 1], and torch computes one as 1 minus the other (igammac(1e-8,
    # 0.5) in float32 is 3.7e-8, the exact 1.8e-8): "special" plus a few eps absolute
    "igamma": {"float16": (2, 4, "one_dt"), "bfloat16": (2, 4, "one_dt"),
               "float32": (256, 4, "one"), "float64": (1 << 16, 4, "one")},
    # bessel_j0/j1: bounded by 1; ember calls the C library's (and CUDA's) j0/j1, torch its
    # Cephes port, which is off by up to ~2e-7 absolute in float64 near J0's zeros
    # (j0(5.325043422813609): glibc -0.0671366446470869 = mpmath; torch -0.0671368692)
    "bessel": {"float16": (2, 0, "none"), "bfloat16": (2, 0, "none"),
               "float32": (256, 8, "one"), "float64": (1 << 16, 1 << 31, "one")},
    # functions bounded by ~1 that torch computes to an absolute accuracy (its vectorized
    # erf/tanh/sin are polynomials: erf(1e-8) is 0 in torch's bfloat16)
    # (its bfloat16 erf is 3e-7 off near 0: erf(-1.98e-6) is -1.97e-6 there)
    "math_abs": {"float16": (1, 4, "one"), "bfloat16": (1, 4, "one"),
                 "float32": (4, 2, "one"), "float64": (4, 2, "one")},
    # gelu/silu/softplus: x * f(x), f with absolute accuracy (torch's gelu(-3) in float32 is
    # 4e-5 relative off): absolute error scales with |x|; logaddexp/logaddexp2 are
    # max(a, b) + log1p(...), which cancel near 0 (an ulp of the inputs, not the result)
    "math_x": {"float16": (1, 4, "max"), "bfloat16": (1, 4, "max"),
               "float32": (4, 4, "max"), "float64": (4, 4, "max")},
    # floor_divide / remainder / fmod: exact, except that torch's vectorized float16 /
    # bfloat16 kernels (contiguous inputs) round differently from its own scalar path
    # (4 // 0.0147 in bfloat16: 270 vectorized, 272 scalar and ember): one ulp there
    "divmod": {"float16": (1, 0, "none"), "bfloat16": (1, 0, "none"),
               "float32": (0, 0, "none"), "float64": (0, 0, "none")},
    # floor_divide: the same, and torch's vectorized float16/bfloat16 floor division is off
    # by one now and then (-3040 // 3 is -1015 there): one unit
    "floordiv": {"float16": (1, 1, "units"), "bfloat16": (1, 1, "units"),
                 "float32": (0, 0, "none"), "float64": (0, 0, "none")},
    # add/sub with alpha: torch's float16/bfloat16 kernels round alpha*b to the dtype first,
    # float32/float64 may fuse (FMA); a Python number divided by a tensor is
    # reciprocal(t) * number in torch (Tensor.__rtruediv__): one ulp
    "one_ulp": {"float16": (1, 2, "max2"), "bfloat16": (1, 2, "max2"),
                "float32": (1, 2, "max2"), "float64": (1, 2, "max2")},
    # add/sub with alpha: as one_ulp; torch's float16/bfloat16 scalar loop (short or
    # strided inputs) rounds alpha * b to the dtype first, its vector loop fuses (9.125 -
    # 2.25 * 4.28125 in bfloat16: -0.5 for 3 elements, -0.5078125 for 40): half an ulp
    # of alpha * b ("max2_dt": |alpha| * max |b|, in the dtype's eps)
    "alpha": {"float16": (1, 1, "max2_dt"), "bfloat16": (1, 1, "max2_dt"),
              "float32": (1, 2, "max2"), "float64": (1, 2, "max2")},
    # norm: p-norms as pow(sum |x|**p, 1/p): pow's error, plus the summation
    "norm": {"float16": (2, 4, "sum"), "bfloat16": (2, 4, "sum"),
             "float32": (16, 4, "sum"), "float64": (16, 4, "sum")},
    # lerp: torch's formula (a + w*(b-a), or b - (b-a)*(1-w) for |w| >= 0.5); fused or not
    "lerp": {"float16": (1, 1, "max"), "bfloat16": (1, 1, "max"),
             "float32": (2, 2, "max"), "float64": (2, 2, "max")},
    # addcmul / addcdiv: x + value * t1 * t2 (FMA or not)
    "addc": {"float16": (1, 1, "max2"), "bfloat16": (1, 1, "max2"),
             "float32": (2, 2, "max2"), "float64": (2, 2, "max2")},
    # sum/mean/norm/logsumexp: summation order differs (pairwise, vectorized, threads)
    "sum": {"float16": (1, 4, "sum"), "bfloat16": (1, 4, "sum"),
            "float32": (4, 4, "sum"), "float64": (4, 4, "sum")},
    # nansum/nanmean of float16/bfloat16: torch's CPU nansum of a strided input adds in the
    # dtype itself (each partial sum rounded: the "sum" bound with the dtype's eps), and its
    # nanmean is that sum rounded to the dtype, then divided (the rounded sum is an ulp off,
    # up to 2 ulps of a mean at the top of its binade, and the quotient rounds again)
    "nansum": {"float16": (1, 4, "sum_dt"), "bfloat16": (1, 4, "sum_dt"),
               "float32": (4, 4, "sum"), "float64": (4, 4, "sum")},
    "nanmean": {"float16": (3, 4, "sum_dt"), "bfloat16": (3, 4, "sum_dt"),
                "float32": (4, 4, "sum"), "float64": (4, 4, "sum")},
    # prod: float16/bfloat16 on the CPU multiply in the dtype in torch (every partial
    # product rounded): an ulp per factor (tolerance() counts the reduction's length)
    "prod": {"float16": (2, 0, "none"), "bfloat16": (2, 0, "none"),
             "float32": (64, 0, "none"), "float64": (64, 0, "none")},
    "var": {"float16": (2, 8, "sumsq"), "bfloat16": (2, 8, "sumsq"),
            "float32": (16, 8, "sumsq"), "float64": (16, 8, "sumsq")},
    # std = sqrt(var): an absolute error d of var is sqrt(d) in std near 0
    "std": {"float16": (2, 8, "sqrt_sumsq"), "bfloat16": (2, 8, "sqrt_sumsq"),
            "float32": (16, 8, "sqrt_sumsq"), "float64": (16, 8, "sqrt_sumsq")},
    # cumsum on the CPU: torch accumulates in double (float32 too) and rounds each prefix
    # once: tight. On CUDA float32 scans accumulate in float32 in a tree: the "sum" bound
    "scan": {"float16": (1, 0, "none"), "bfloat16": (1, 0, "none"),
             "float32": (2, 0, "none"), "float64": (4, 4, "sum")},
    "scan_cuda": {"float16": (1, 4, "sum"), "bfloat16": (1, 4, "sum"),
                  "float32": (4, 4, "sum"), "float64": (4, 4, "sum")},
    # softmax/log_softmax: torch rounds the float16/bfloat16 log-sum-exp to the dtype
    # before subtracting (an absolute error of eps(dtype)); its CPU exp-sum runs in order
    # along vector lanes, off by ~sqrt(n) eps (log_softmax of 40000 float64 values: 7e-14
    # from the exact value, ember's pairwise sum 0): an absolute error of eps(dtype) *
    # sqrt(n), n the input's elements
    "softmax": {"float16": (2, 2, "sqrt_n_dt"), "bfloat16": (2, 2, "sqrt_n_dt"),
                "float32": (8, 8, "sqrt_n_dt"), "float64": (8, 8, "sqrt_n_dt")},
}

# "math" computed in dtype c (2**y of ldexp in the exponent's dtype), held by a result of
# dtype dt: c's ulps counted in dt's, and dt's own rounding
for _c in FLOATS:
    TOLERANCES["math_in_" + _c] = {
        _dt: (TOLERANCES["math"][_c][0] * EPS[_c] / EPS[_dt] + 1 if EPS[_c] > EPS[_dt]
              else TOLERANCES["math"][_dt][0], 0, "none") for _dt in FLOATS}


def tolerance(op, case, dt, np_args, device, out_size=None):
    """(ulps, atol) of op's result of dtype dt for this case (see TOLERANCES); out_size:
    the result's number of elements (prod's reduction length)."""
    cls = op.tol
    if "tol_fn" in op.extra:
        cls = op.extra["tol_fn"](case) or cls
    if cls == "prod" and op.name == "prod" and device == "cpu" and \
            dt in ("float16", "bfloat16"):
        arrs = [a for a in np_args if isinstance(a, np.ndarray)]
        n = arrs[0].size // max(1, out_size or 1) if arrs else 1
        return max(2, n), 0.0
    if cls == "scan" and (device != "cpu" or op.name == "cumprod"):
        cls = "scan_cuda" if op.name == "cumsum" else "prod"
        if device != "cpu" and op.name == "cumsum" and dt in ("float16", "bfloat16"):
            # torch's CUDA cumsum adds in the dtype (std::plus<scalar_t>: each partial sum
            # rounded to float16/bfloat16) through CUB's scan: a thread adds its items one
            # after another, then tree levels, then a carry per tile; ember accumulates in
            # float. Each rounding is up to half an ulp of a partial sum (at most m * n), and
            # the chains of roundings are up to ~8 + n / 128 long (issue 14's CUDA run:
            # cumsum of 1000 copies of 5.488 in float16 is 7 ulps off in torch). CUB takes
            # up to ~24 items a thread one after another for 2-byte types: 257 copies of
            # -9.5625 in bfloat16: torch -2496 at the 238th, where the sum is -2275.875)
            arrs = [a for a in np_args if isinstance(a, np.ndarray) and a.size]
            n = arrs[0].size if arrs else 1
            fin = np.abs(arrs[0].astype(np.float64)) if arrs else np.zeros(1)
            fin = fin[np.isfinite(fin)]
            m = float(fin.max()) if fin.size else 0.0
            return 1, EPS[dt] * m * n * (32 + n / 128)
        if device != "cpu" and op.name == "cumprod" and dt in ("float16", "bfloat16"):
            # torch's CUDA scans run in the dtype itself (each partial product rounded to
            # bfloat16, in a tree): the error grows with the length, an ulp per step
            arrs = [a for a in np_args if isinstance(a, np.ndarray) and a.size]
            return max(2, arrs[0].size if arrs else 2), 0.0
    if device != "cpu" and (op.name == "vander" and dt in ("float16", "bfloat16", "float32",
                                                          "float64")
                            or op.name == "logcumsumexp" and dt in ("float16", "bfloat16")):
        arrs = [a for a in np_args if isinstance(a, np.ndarray) and a.size]
        n = arrs[0].size if arrs else 1
        if op.name == "vander":
            # torch's vander is a cumprod of the powers, on CUDA a scan in the dtype (each
            # partial product rounded, in a tree: x**4 = x**2 * x**2; ember's scan takes
            # a thread's 4 neighbours one after another: ((x * x) * x) * x): up to an ulp
            # per factor, as cumprod's (N factors: vander's N, else len(x))
            if len(case.args) > 1 and isinstance(case.args[1], int):
                n = case.args[1]
            return max(2, n), 0.0
        # logcumsumexp: torch's CUDA scan rounds every partial log-sum-exp to the dtype,
        # in CUB's order (chains of ~8 + n / 128 roundings, as cumsum's), each up to half
        # an ulp of a partial result, at most max |x| + log(n)
        fin = np.abs(arrs[0].astype(np.float64)) if arrs else np.zeros(1)
        fin = fin[np.isfinite(fin)]
        m = (float(fin.max()) if fin.size else 0.0) + math.log(max(n, 1))
        return 2, EPS[dt] * m * (8 + n / 128)
    tab = TOLERANCES[cls]
    if dt not in tab:
        return None
    ulps, abs_k, scale = tab[dt]
    if op.name == "logcumsumexp":
        # each step of the scan rounds a running log-sum at the result's magnitude: torch
        # takes the line's n steps in order (a walk of ~sqrt(n) half-ulps), ember log2(n)
        # pairwise ones (40000 copies of -287965.02 in float64: 8 ulps apart)
        arrs = [a for a in np_args if isinstance(a, np.ndarray) and a.size]
        n = arrs[0].size if arrs else 1
        ulps = ulps + math.sqrt(n) / 2 + math.log2(max(n, 1)) / 2
    if cls == "norm" and case.args and isinstance(case.args[0], TensorSpec) and any(
            st[0] == "expand" for st in case.args[0].steps):
        # torch's CPU norm of an expanded (stride 0) input sums |x|**p one by one: the sum
        # is off by up to ~n/8 ulps (40000 copies: 3e-4), and pow(., 1/p) scales that by 1/p
        pv = case.kwargs.get("p", 2)
        pv = float(pv) if isinstance(pv, (int, float)) and pv else 2.0
        arrs = [a for a in np_args if isinstance(a, np.ndarray) and a.size]
        n = arrs[0].size if arrs else 1
        ulps = ulps + max(1.0, 1.0 / abs(pv)) * n / 8 * (EPS[ACC.get(dt, dt)] / EPS[dt])
    s = 0.0
    if abs_k and scale == "units":  # an absolute error of abs_k
        return ulps, float(abs_k)
    if abs_k and scale in ("one", "one_dt"):
        s = 1.0
    elif abs_k and scale == "sqrt_n_dt":
        arrs = [a for a in np_args if isinstance(a, np.ndarray) and a.size]
        s = math.sqrt(max(1, arrs[0].size if arrs else 1))
    elif abs_k and scale != "none":
        arrs = [a for a in np_args if isinstance(a, np.ndarray) and a.dtype.kind in "fiub"
                and a.size]
        m = 0.0
        for a in arrs:
            af = np.abs(a.astype(np.float64))
            fin = af[np.isfinite(af)]
            if fin.size:
                m = max(m, float(fin.max()))
        for a in np_args:
            if isinstance(a, (int, float)) and math.isfinite(a):
                m = max(m, abs(float(a)))
        if scale == "max":
            s = m
        elif scale == "max2":
            s = m * m * 4 + m
        elif scale == "max2_dt":
            alpha = case.kwargs.get("alpha", 1)
            s = m * max(m, abs(float(alpha)) if isinstance(alpha, (int, float)) else m)
        else:  # sum / sumsq: |x| bounded by m, times the number of elements
            n = max(1, arrs[0].size if arrs else 1)
            s = m * n if scale in ("sum", "sum_dt") else m * m * n
    acc = dt if scale in ("one_dt", "sqrt_n_dt", "max2_dt", "sum_dt") else ACC.get(dt, dt)
    if scale == "sqrt_sumsq" and abs_k:
        n = max(1, arrs[0].size if arrs else 1)
        return ulps, math.sqrt(abs_k * EPS[acc] * m * m * n)
    return ulps, abs_k * EPS[acc] * s


# ----------------------------------------------------------------------------------------
# finalize: the ops and forms present in both libraries
# ----------------------------------------------------------------------------------------

def form_available(L, op, f):
    """Whether library L offers op in form f."""
    if f in ("fn", "out"):
        return op.fn is not None and L.has(op.fn) and (f != "out" or op.out)
    if f in ("method", "attr"):
        return op.method is not None and hasattr(L.Tensor, op.method)
    if f == "inplace":
        return op.inplace is not None and hasattr(L.Tensor, op.inplace)
    if f == "op":
        return op.symbol is not None
    if f in ("rop", "iop"):
        return op.symbol is not None and op.kind == "binary" and (f == "rop" or op.symbol in IOPS)
    return True  # getitem, setitem


def finalize(libs):
    """Fills each op's forms with those available in every lib of libs (the ones the oracle
    has and ember lacks are recorded in SKIPPED) and returns the ops with a form left."""
    ops = {}
    for name, op in OPS.items():
        declared = op.extra.setdefault("_declared", op.forms)
        wanted = declared or ("fn", "method", "inplace", "out", "op", "rop", "iop")
        if op.kind == "view" and op.name in ("T", "mT", "H"):
            wanted = ("attr",)
        forms, missing = [], []
        for f in wanted:
            have = [form_available(L, op, f) for L in libs]
            if all(have):
                forms.append(f)
            elif len(libs) > 1 and not have[0] and all(have[1:]):
                missing.append(f)
        if missing:
            SKIPPED[name] = "ember lacks: " + ", ".join(missing)
        if forms:
            op.forms = tuple(forms)
            ops[name] = op
        elif name not in SKIPPED:
            SKIPPED[name] = "not in every library"
    return ops


# ----------------------------------------------------------------------------------------
# running a case
# ----------------------------------------------------------------------------------------

EXC_CATEGORIES = (IndexError, TypeError, ValueError, ZeroDivisionError, OverflowError,
                  RuntimeError)


def exc_category(e):
    for c in EXC_CATEGORIES:
        if isinstance(e, c):
            return c.__name__
    return type(e).__name__


def invoke(L, op, form, args, kwargs):
    if form in ("fn", "out"):
        return L.resolve(op.fn)(*args, **kwargs)
    if form == "method":
        return getattr(args[0], op.method)(*args[1:], **kwargs)
    if form == "inplace":
        return getattr(args[0], op.inplace)(*args[1:], **kwargs)
    if form in ("op", "rop"):
        if op.arity == 1:
            return UNOPS[op.symbol](args[0])
        return BINOPS[op.symbol](args[0], args[1])
    if form == "iop":
        return IOPS[op.symbol](args[0], args[1])
    if form == "getitem":
        return args[0][args[1]]
    if form == "setitem":
        args[0][args[1]] = args[2]
        return args[0]
    if form == "attr":
        return getattr(args[0], op.method)
    raise ValueError(form)


class Outcome:
    __slots__ = ("result", "exc", "args", "bases", "tensors", "out")

    def __init__(self):
        self.result = self.exc = self.out = None
        self.args = self.bases = self.tensors = None


def run_lib(L, op, case, out_spec=None):
    o = Outcome()
    bases, tensors = [], []
    try:
        args = L.materialize(case.args, case.device, bases, tensors)
        kwargs = L.materialize(case.kwargs, case.device, bases, tensors)
        if out_spec is not None:
            kwargs = dict(kwargs)
            kwargs["out"] = o.out = L.materialize(out_spec, case.device, bases, tensors)
    except Exception as e:  # materialization must not fail
        raise RuntimeError(f"{L.name}: materializing the case failed: {e!r}") from e
    o.args, o.bases, o.tensors = args, bases, tensors
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            o.result = invoke(L, op, case.form, args, kwargs)
    except Exception as e:
        o.exc = e
    return o


def to_numpy(L, t):
    """(dtype name, shape, strides, float64/int/bool array) of a tensor."""
    dt = dtype_name(t.dtype)
    t2 = t.detach()
    if t2.device.type != "cpu":
        t2 = t2.cpu()
    if dt == "bfloat16":
        t2 = t2.float()
    a = np.array(t2.numpy(), copy=True)
    return dt, tuple(t.shape), tuple(t.stride()), a


def normalize(L, r):
    if isinstance(r, L.Tensor):
        return ("tensor",) + to_numpy(L, r)
    if isinstance(r, (tuple, list)):
        fields = None
        if hasattr(r, "values") and hasattr(r, "indices") and not isinstance(r, list):
            fields = ("values", "indices")
        return ("seq", type(r).__name__ if fields is None else "namedtuple",
                [normalize(L, x) for x in r], fields)
    if isinstance(r, (bool, int, float)):
        return ("py", type(r).__name__, r)
    return ("other", type(r).__name__, repr(r)[:100])


def values_mismatch(a, b, dt, tol, mask=None):
    """Indices (count, first) where arrays a (ember) and b (torch) disagree; None if equal."""
    if a.shape != b.shape:
        return "shape of the values"
    if mask is not None:
        try:
            mask = np.broadcast_to(mask, a.shape)
        except ValueError:
            mask = None
    if dt in FLOATS or a.dtype.kind == "f":
        af = a.astype(np.float64)
        bf = b.astype(np.float64)
        na, nb = np.isnan(af), np.isnan(bf)
        bad = na != nb
        both = ~(na | nb)
        with np.errstate(all="ignore"):
            if tol is None or (tol[0] == 0 and tol[1] == 0):
                bad |= both & (af != bf)
            else:
                ulps, atol = tol
                eps = EPS.get(dt, 2.0 ** -52)
                den = DENORM.get(dt, 0.0)
                fin = both & np.isfinite(af) & np.isfinite(bf)
                inf = both & ~(np.isfinite(af) & np.isfinite(bf))
                bad |= inf & (af != bf)
                lim = ulps * eps * np.maximum(np.abs(af), np.abs(bf)) + ulps * den + atol
                bad |= fin & (np.abs(af - bf) > lim)
    else:
        bad = a != b
    if mask is not None:
        bad = bad & mask
    if bad.any():
        idx = np.argwhere(bad)
        first = tuple(int(i) for i in idx[0]) if idx.size else ()
        return f"{int(bad.sum())} of {bad.size} values differ; first at {first}: " \
               f"ember {a[first]!r} torch {b[first]!r}"
    return None


def _inputs_at(op, np_args, ae, at, dt, tol, mask):
    """For elementwise ops: the inputs at the first differing element."""
    if op.kind not in ("unary", "binary", "ternary") or ae.ndim == 0 and not np_args:
        return ""
    try:
        bad = np.argwhere(~_equal_mask(ae, at, dt, tol))
        first = tuple(int(i) for i in bad[0]) if bad.size else ()
        vals = []
        for a in np_args:
            if isinstance(a, np.ndarray):
                v = np.broadcast_to(a, ae.shape)[first] if a.ndim or ae.ndim else a[()]
                vals.append(repr(v.item()))
            elif a is not None:
                vals.append(repr(a))
        return "; inputs there: (" + ", ".join(vals) + ")"
    except Exception:
        return ""


def _equal_mask(a, b, dt, tol):
    with np.errstate(all="ignore"):
        if a.dtype.kind != "f" and dt not in FLOATS:
            return a == b
        af, bf = a.astype(np.float64), b.astype(np.float64)
        eq = (af == bf) | (np.isnan(af) & np.isnan(bf))
        if tol is not None and (tol[0] or tol[1]):
            eps, den = EPS.get(dt, 2.0 ** -52), DENORM.get(dt, 0.0)
            lim = tol[0] * eps * np.maximum(np.abs(af), np.abs(bf)) + tol[0] * den + tol[1]
            eq |= np.isfinite(af) & np.isfinite(bf) & (np.abs(af - bf) <= lim)
        return eq


@dataclass
class Mismatch:
    op: str
    form: str
    kind: str
    detail: str
    case: Case
    ember: str = ""
    torch: str = ""


# Known, deliberate differences: counted apart (status "deviation:<name>"), reported in the
# summary, never mismatches. Each: name -> (predicate(case, torch outcome, ember outcome),
# why). Remove an entry to make the harness strict about it.
TORCH_ARG_PARSE = ("must be Tensor, not", "received an invalid combination of arguments",
                   "positional argument", "must be tuple of ints, not",
                   "missing 1 required positional")


def _torch_arg_parse_error(e):
    return isinstance(e, TypeError) and any(p in str(e) for p in TORCH_ARG_PARSE)


_REDUCTIONS = ("std", "var", "mean", "prod", "sum", "nansum", "nanmean", "std_mean",
               "var_mean", "logsumexp", "norm", "cumsum", "cumprod")
_BIG = {"float16": 256.0, "bfloat16": 1.8e19, "float32": 1.8e19, "float64": 1.3e154}


def _input_arrays(case):
    for a in list(case.args) + [v for k, v in case.kwargs.items() if k != "__out__"]:
        for x in (a if isinstance(a, (list, tuple)) else (a,)):
            if isinstance(x, TensorSpec):
                yield x.dtype, np.asarray(np_view(x))


def _as_float_list(r):
    """The result's values as float64 (a tuple's results one after the other)."""
    try:
        if isinstance(r, (tuple, list)):
            parts = [_as_float_list(x) for x in r]
            if any(p is None for p in parts):
                return None
            return np.concatenate([p.ravel() for p in parts]) if parts else None
        return np.asarray(r.double().cpu().tolist(), dtype=np.float64)
    except Exception:
        return None


def _overflow_order(case, to, eo):
    """A reduction over inputs holding +-inf/nan, or magnitudes whose squares or products
    overflow the dtype: where a partial result overflows (inf, then inf - inf = nan)
    depends on the order of summation, which torch's and ember's kernels do not share
    (inner and trace sum products: the same)."""
    if case.op.split("[")[0] not in _REDUCTIONS + ("inner", "trace") or \
            to.exc is not None or eo.exc is not None:
        return False
    a, b = _as_float_list(to.result), _as_float_list(eo.result)
    if a is None or b is None or (np.isfinite(a).all() and np.isfinite(b).all()):
        return False
    for dt, x in _input_arrays(case):
        if dt in _BIG and x.size:
            xf = x.astype(np.float64)
            if (~np.isfinite(xf)).any() or (np.abs(xf[np.isfinite(xf)]) >= _BIG[dt]).any():
                return True
    return False


def _product_range_order(case, to, eo):
    """A product whose partial products leave the range of the dtype it accumulates in in
    some order: the factors above 1 multiply past its largest finite value, or those below
    1 past its smallest normal one. Which partial product overflows to inf, is rounded to a
    subnormal's few bits or underflows to 0 (and then inf * 0 = nan) depends on the order
    of multiplication."""
    if case.op.split("[")[0] not in ("prod", "cumprod") or to.exc is not None or \
            eo.exc is not None:
        return False
    want = case.kwargs.get("dtype")
    want = getattr(want, "name", want) if want is not None else None
    if want is None and case.form == "out" and hasattr(to.result, "dtype"):
        want = dtype_name(to.result.dtype)  # torch multiplies in the out= dtype
    for dt, x in _input_arrays(case):
        acc = want if isinstance(want, str) else dt
        if acc not in FLOATS or not x.size:
            continue
        # torch's CPU prod of float16/bfloat16 multiplies in the dtype itself (scalar_t)
        acc = acc if acc in FLOATS else "float64"
        a = np.abs(x.astype(np.float64))
        a = a[np.isfinite(a) & (a > 0)]
        with np.errstate(divide="ignore"):
            lg = np.log2(a)
        if lg[lg > 0].sum() > math.log2(FMAX[acc]) or lg[lg < 0].sum() < math.log2(FTINY[acc]):
            return True
    return False


def _nonfinite_to_int(case, to, eo):
    """inf or nan converted to an integer dtype (sum(..., dtype=int32) of inf): undefined
    in C++; torch's x86 build gives INT_MIN, ember 0."""
    if to.exc is not None or eo.exc is not None or not hasattr(to.result, "dtype"):
        return False
    if to.result.dtype.is_floating_point or to.result.dtype == _torch_bool():
        return False
    # out of the integer dtype's range is undefined too (uint8 converts through int64)
    tgt = str(to.result.dtype).split(".")[-1]
    if tgt == "uint8" or tgt not in INTS:
        lo, hi = -2.0 ** 63, 2.0 ** 63
    else:
        lo, hi = float(iinfo(tgt).min) - 1, float(iinfo(tgt).max) + 1
    for dt, x in _input_arrays(case):
        if dt in FLOATS and x.size:
            xf = x.astype(np.float64)
            with np.errstate(invalid="ignore"):
                if (~np.isfinite(xf)).any() or (xf <= lo).any() or (xf >= hi).any():
                    return True
    return False


# ---- helpers of the CUDA-only deviations (branch diffcuda) --------------------------------

# torch's CUDA kernels that dispatch on iter.dtype(), the output's dtype (TensorIterator
# casts to the output on the CPU only): MaxMinElementwiseKernel.cu (maximum/minimum, fmax/
# fmin of integers; clamp_min/clamp_max with a tensor bound call them),
# BinaryBitwiseOpsKernels.cu, BinaryShiftOpsKernels.cu, LogAddExpKernel.cu.
_CUDA_OUT_DTYPE_OPS = ("maximum", "minimum", "fmax", "fmin", "max(a,b)", "min(a,b)", "clamp",
                       "clip", "clamp_min", "clamp_max", "bitwise_and", "bitwise_or",
                       "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
                       "logaddexp", "logaddexp2")


def _fake_torch(obj):
    """A case's arguments as small CPU torch objects of the same dtypes and dims (0-d or
    not): enough for torch's type promotion."""
    import torch
    if isinstance(obj, TensorSpec):
        shape = () if obj.shape == () else (1,) * len(obj.shape)
        return torch.zeros(shape, dtype=getattr(torch, obj.dtype))
    if isinstance(obj, DType):
        return getattr(torch, obj.name)
    if isinstance(obj, (tuple, list)):
        return type(obj)(_fake_torch(o) for o in obj)
    return obj


def _cuda_out_dtype_compute(case, to, eo):
    import torch
    base = case.op.split("[")[0]
    if case.device != "cuda" or base not in _CUDA_OUT_DTYPE_OPS or to.exc is not None or \
            case.form not in ("out", "inplace", "iop"):
        return False
    target = to.out if case.form == "out" else (to.args[0] if to.args else None)
    if target is None or not hasattr(target, "dtype"):
        return False
    kw = {k: _fake_torch(v) for k, v in case.kwargs.items() if k != "__out__"}
    try:
        fn = OPS[case.op].fn
        obj = torch
        for part in fn.split("."):
            obj = getattr(obj, part)
        common = obj(*_fake_torch(case.args), **kw).dtype
    except Exception:  # the common dtype has no kernel: the out dtype made it compute
        return True
    return common != target.dtype


def _cuda_div_by_number(case, to, eo):
    base = case.op.split("[")[0]
    if case.device != "cuda" or base not in ("div", "divide", "true_divide", "floor_divide") \
            or to.exc is not None or eo.exc is not None:
        return False
    if case.form == "rop" or len(case.args) < 2:
        return False
    return isinstance(case.args[0], TensorSpec) and isinstance(case.args[1], (int, float)) \
        and not isinstance(case.args[1], bool)


def _rdiv_reciprocal_overflow(case, to, eo):
    # number / tensor: the rop form, or the op form with the number first
    if case.form not in ("rop", "op") or case.op.split("[")[0] not in (
            "div", "divide", "true_divide") or len(case.args) < 2 or \
            isinstance(case.args[0], TensorSpec) or not isinstance(case.args[1], TensorSpec):
        return False
    t = case.args[1]
    if t.dtype not in FLOATS:
        return False
    x = np.abs(np.asarray(np_view(t), np.float64))
    with np.errstate(all="ignore"):
        return bool(((x > 0) & np.isfinite(x) & (x * FMAX[t.dtype] < 1)).any())


def _cuda_overlapping_write(case, to, eo):
    if case.device != "cuda" or to.exc is not None or not to.args:
        return False
    if not (case.form == "setitem" or (case.form == "inplace" and
                                       case.op.split("[")[0] == "masked_fill")):
        return False
    x = to.args[0]
    return any(st == 0 and n > 1 for st, n in zip(x.stride(), x.shape))


def _cuda_scan_overflow(case, to, eo):
    if case.device != "cuda" or case.op.split("[")[0] != "cumsum" or to.exc is not None or \
            eo.exc is not None or not hasattr(to.result, "dtype"):
        return False
    dt = _dt_name(to.result.dtype)
    if dt not in ("float16", "bfloat16"):
        return False
    a, b = _as_float_list(to.result), _as_float_list(eo.result)
    if a is None or b is None or (np.isfinite(a).all() and np.isfinite(b).all()):
        return False
    for _, x in _input_arrays(case):
        xf = np.abs(x.astype(np.float64))
        if xf.size and xf[np.isfinite(xf)].sum() >= FMAX[dt] * 0.9:
            return True
    return False


_ATOMIC_ADDS = ("index_add", "index_add_", "scatter_add", "scatter_add_", "index_put",
                "index_put_", "put", "put_", "index_reduce", "scatter_reduce")


def _cuda_atomic_ftz(case, to, eo):
    """torch's CUDA adds through atomics (index_add, scatter_add, put/index_put with
    accumulate): the GPU's floating atomic add flushes a subnormal result to zero. Where
    every differing element is subnormal in ember's result and zero in torch's."""
    if case.device != "cuda" or case.op.split("[")[0] not in _ATOMIC_ADDS:
        return False
    return _flushed_subnormals(to, eo)


def _flushed_subnormals(to, eo):
    """Every element that differs is a subnormal in ember's result and zero in torch's."""
    if to.exc is not None or eo.exc is not None or not hasattr(to.result, "dtype"):
        return False
    dt = _dt_name(to.result.dtype)
    if dt not in FTINY:
        return False
    a, b = _as_float_list(to.result), _as_float_list(eo.result)
    if a is None or b is None or a.shape != b.shape:
        return False
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    with np.errstate(invalid="ignore"):
        differ = ~((a == b) | (np.isnan(a) & np.isnan(b)))
    if not differ.any():
        return False
    d_a, d_b = a[differ], b[differ]
    return bool(((d_a == 0) & (np.abs(d_b) < FTINY[dt]) & (d_b != 0)).all())


def _gelu_ftz(case, to, eo):
    """gelu on the CPU: torch's vectorized kernel gives 0 where x * Phi(x) is subnormal
    (bfloat16 2.19e-38 gives 1.09e-38 exactly; torch 0)."""
    return case.device == "cpu" and case.op.split("[")[0] == "gelu" and \
        _flushed_subnormals(to, eo)


def _norm_closer(case, to, eo):
    """A full p-norm (no dim) whose value ember computes closer to the float64 value of
    (sum |x|^p)^(1/p) than torch: torch's CPU float32 norm with p = 0.5 over 4099
    elements is 4e-5 off (45244304 for 45246231.3; ember 45246236)."""
    if case.op.split("[")[0] != "norm" or to.exc is not None or eo.exc is not None:
        return False
    p = case.kwargs.get("p", case.args[1] if len(case.args) > 1 else 2)
    if not isinstance(p, (int, float)) or isinstance(p, bool) or p <= 0 or \
            math.isinf(p) or case.kwargs.get("dim") is not None or len(case.args) > 2:
        return False
    arrs = [x for _, x in _input_arrays(case)]
    a, b = _as_float_list(to.result), _as_float_list(eo.result)
    if len(arrs) != 1 or a is None or b is None or a.size != 1 or b.size != 1:
        return False
    x = np.abs(arrs[0].astype(np.float64)).ravel()
    if not np.isfinite(x).all():
        return False
    exact = float((x ** p).sum() ** (1.0 / p))
    return abs(float(b.ravel()[0]) - exact) <= abs(float(a.ravel()[0]) - exact)


def _dt_name(dt):
    return str(dt).split(".")[-1]


_SORTING = ("sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode",
            "quantile", "nanquantile")


def _cuda_sort_negative_nan(case, to, eo):
    import torch
    if case.device != "cuda" or case.op.split("[")[0] not in _SORTING or not to.args:
        return False
    x = to.args[0]
    if not isinstance(x, torch.Tensor) or not x.dtype.is_floating_point:
        return False
    return bool((torch.isnan(x) & torch.signbit(x)).any())


def _uint8_cast_loses(dt, x):
    """Whether some non-zero value of x is 0 (or undefined) once cast to uint8."""
    xf = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        if dt in FLOATS:
            t = np.trunc(xf)
            return bool(((xf != 0) & (~np.isfinite(xf) | (np.mod(t, 256) == 0))).any())
        return bool(((x != 0) & (np.mod(x.astype(np.int64), 256) == 0)).any())


def _alpha_product_overflows(case, to, eo):
    """float16/bfloat16 add/sub with alpha on the CPU where alpha * other overflows the
    dtype: torch's scalar loop (short, strided inputs) rounds alpha * b to the dtype (inf,
    then inf - inf = nan), its vector loop fuses a + alpha * b in float (finite or inf),
    so the result depends on the element's position; ember fuses everywhere."""
    if case.device != "cpu" or case.op.split("[")[0] not in ("add", "sub", "subtract") or \
            "alpha" not in case.kwargs or to.exc is not None or eo.exc is not None or \
            not hasattr(to.result, "dtype"):
        return False
    dt = dtype_name(to.result.dtype)
    alpha = case.kwargs["alpha"]
    if dt not in ("float16", "bfloat16") or isinstance(alpha, bool) or \
            not isinstance(alpha, (int, float)):
        return False
    b = case.args[1] if len(case.args) > 1 else None
    bv = np.asarray(np_view(b), np.float64) if isinstance(b, TensorSpec) else \
        np.asarray([b], np.float64) if isinstance(b, (int, float)) else None
    if bv is None or not bv.size:
        return False
    with np.errstate(all="ignore"):
        p = np.abs(bv[np.isfinite(bv)]) * abs(float(alpha))
    return bool((p > FMAX[dt]).any())


def _torch_bool():
    import torch
    return torch.bool


DEVIATIONS = {
    "overflow-order": (_overflow_order, "a reduction whose partial results overflow (or meet "
                       "+-inf/nan) gives inf or nan depending on the summation order"),
    "nonfinite-to-int": (_nonfinite_to_int, "inf/nan or an out-of-range float converted to "
                         "an integer dtype is undefined (torch: INT_MIN on x86, ember: 0)"),
    "product-range-order": (_product_range_order, "a product whose partial products overflow "
                            "or underflow in some order gives inf, 0 or nan depending on the "
                            "order of multiplication"),
    # clamp with one number bound that is NaN: torch's CPU kernel keeps x in its scalar loop
    # (max(x, nan) is x) and gives NaN in its vectorized blocks, so the result depends on
    # the length and the CPU; its CUDA kernel keeps x everywhere, as ember does. (Not
    # clamp_min/clamp_max: their NaN number fills the result with NaN, as ember's.)
    # ldexp(x, n) with an int64 n beyond int32: torch hands n to std::ldexp(double, int)
    # as a C int (it wraps: 2**32 + 5 is 5), ember scales by 2**n (0 or inf, as math says)
    "ldexp-huge-exponent": (
        lambda case, to, eo: case.op.split("[")[0] == "ldexp" and len(case.args) > 1
        and any(not -2 ** 31 <= int(v) < 2 ** 31 for v in np.asarray(
            case.args[1].base if isinstance(case.args[1], TensorSpec) else [case.args[1]]
        ).reshape(-1) if isinstance(v, (int, np.integer)) and not isinstance(v, bool)),
        "ldexp with an int64 exponent beyond int32: torch's std::ldexp takes it as a C int "
        "(wraps); ember gives 0 or inf"),
    # gelu(+inf): x * Phi(x) is inf; torch's AVX-512 CPU kernel (the GPU machine's) gives
    # nan there, its AVX2 one (this machine's) inf, as ember does on every CPU. Finite x
    # above half the largest float: torch's 0.5 * x * (1 + erf(x / sqrt 2)) overflows in
    # x * (1 + erf) (inf), ember's x * Phi(x) is x.
    "gelu-inf": (
        lambda case, to, eo: case.device == "cpu" and case.op.split("[")[0] == "gelu"
        and to.exc is None and eo.exc is None
        and any(x.size and (np.isposinf(x.astype(np.float64)).any() or (
            x.astype(np.float64) > FMAX[ACC.get(dt, dt)] / 2).any())
                for dt, x in _input_arrays(case)),
        "gelu of +inf or of x > max/2 on the CPU: torch's kernels give nan (AVX-512) or inf "
        "(x * (1 + erf) overflows), ember inf or x (x * Phi(x))"),
    "clamp-nan-bound": (
        lambda case, to, eo: case.device == "cpu" and case.op.split("[")[0] in (
            "clamp", "clip") and to.exc is None and eo.exc is None
        and sum(1 for v in list(case.args[1:]) + [case.kwargs.get("min"),
                                                    case.kwargs.get("max")]
                if isinstance(v, float) and math.isnan(v)) == 1
        and sum(1 for v in list(case.args[1:]) + [case.kwargs.get("min"),
                                                    case.kwargs.get("max")]
                if v is not None) == 1,
        "clamp with a single NaN number bound: torch's CPU result depends on its vectorization"),
    # torch's argument parser rejects Python numbers where its schema says Tensor (fmax(t,
    # 2.0), logical_and(t, 1), ge(2, t)) and varargs in functional spellings
    # (torch.reshape(t, 2, 3)): code written for torch never does that; ember accepts more.
    "lenient-arguments": (
        lambda case, to, eo: to.exc is not None and _torch_arg_parse_error(to.exc),
        "torch's argument parser raises TypeError; ember accepts the call (or raises "
        "another error)"),
    # out= of a wrong, non-empty shape: torch resizes it (with a UserWarning); ember raises
    # and asks for an output of the result's shape or an empty one.
    "out-resize": (
        lambda case, to, eo: case.form == "out" and to.exc is None and eo.exc is not None
        and "out= has shape" in str(eo.exc),
        "torch resizes a non-empty out= of the wrong shape (UserWarning); ember raises"),
    # An integer result stored into a narrower integer out= on the GPU: torch's CUDA cast
    # of out-of-range values saturates at times (maximum(int16 19418) into uint8 gives 255),
    # its CPU one wraps (218); ember wraps on both devices, as C++'s conversion does.
    # torch failing its own internal consistency check (ldexp's integer-exponent kernel
    # with an out= of another floating dtype, index_reduce of bfloat16 'prod' / of an
    # empty bool index 'mean'): a bug in torch ("please report a bug to PyTorch"), not
    # a rejected call; ember computes the result.
    "torch-internal-assert": (
        lambda case, to, eo: to.exc is not None and eo.exc is None
        and "INTERNAL ASSERT FAILED" in str(to.exc),
        "torch fails an INTERNAL ASSERT (a torch bug); ember gives the result"),
    # x ** e with a Python number e that float32 does not hold exactly, and rounds to 0
    # (1e-310) or to another parity (2147483647 -> 2**31): torch's CPU kernel (float32 and
    # bfloat16 tensors, integers converted to float32) takes e as a double in its scalar
    # tail (-5 ** 1e-310 is nan, -6 ** 2147483647 -inf) and as float32 in its vector loop
    # (1, +inf), so the result depends on the element's position; ember takes e in float32.
    "pow-float32-exponent": (
        lambda case, to, eo: case.device == "cpu" and case.op.split("[")[0] == "pow"
        and len(case.args) == 2 and isinstance(case.args[0], TensorSpec)
        and case.args[0].dtype not in ("float64", "float16")
        and isinstance(case.args[1], (int, float)) and not isinstance(case.args[1], bool)
        and case.args[1] != 0 and (np.float32(case.args[1]) == 0 or (
            float(case.args[1]).is_integer() and float(np.float32(case.args[1])) != case.args[1]
            and float(np.float32(case.args[1])) % 2 != case.args[1] % 2)),
        "x ** e with a number e that float32 rounds to 0 or to an integer of the other "
        "parity: torch's CPU result depends on the element's position (vector loop e in "
        "float32, scalar tail e as a double)"),
    # all/any of a non-uint8 input into a uint8 out=: torch's reduction runs in uint8 and
    # casts the input to it first (0.5 and 256 become 0: all([1.5, 0.3]) is 0), ember tests
    # x != 0 as the bool result (and NumPy) do
    "all-any-uint8-cast": (
        lambda case, to, eo: case.op.split("[")[0] in ("all", "any") and case.form == "out"
        and to.exc is None and eo.exc is None and str(to.result.dtype) == "torch.uint8"
        and any(dt not in ("uint8", "bool") and x.size and _uint8_cast_loses(dt, x)
                for dt, x in _input_arrays(case)),
        "all/any into a uint8 out=: torch casts the input to uint8 first (0.3 and 256 are "
        "0), ember tests x != 0"),
    "half-alpha-product-overflow": (
        _alpha_product_overflows,
        "float16/bfloat16 add/sub whose alpha * other overflows the dtype: torch's CPU scalar "
        "loop rounds the product (nan), its vector loop fuses it (as ember)"),
    # sum/nansum/mean(x, dims, dtype=) narrower than x's floating dtype over several dims:
    # torch casts x to dtype first in some layouts and not in others (sum of a float32
    # (3, 1, 2, 2) tensor over (3, 0) with dtype=bfloat16 adds the float32 values; over
    # (3,) or (0, 1) of others the bfloat16 ones); ember casts first (torch's documented
    # semantics, and its result for one dim)
    "narrow-dtype-reduction": (
        lambda case, to, eo: case.op.split("[")[0] in ("sum", "nansum", "mean")
        and to.exc is None and eo.exc is None
        and dtype_name(getattr(case.kwargs.get("dtype"), "name", case.kwargs.get("dtype") or
                                "")) in FLOATS
        and isinstance(case.kwargs.get("dim", case.args[1] if len(case.args) > 1 else None),
                       (tuple, list))
        and len(case.kwargs.get("dim", case.args[1] if len(case.args) > 1 else ())) >= 2
        and any(dt in FLOATS and EPS[dt] < EPS[dtype_name(getattr(case.kwargs["dtype"], "name",
                                                                  case.kwargs["dtype"]))]
                for dt, _ in _input_arrays(case)),
        "a reduction over several dims with a narrower float dtype=: torch casts the input "
        "first only in some layouts; ember always does"),
    "cuda-narrowing-out-cast": (
        lambda case, to, eo: case.device == "cuda" and case.form == "out" and to.exc is None
        and eo.exc is None and str(to.result.dtype) in ("torch.uint8", "torch.int8",
                                                        "torch.int16", "torch.int32")
        and any(getattr(a, "dtype", None) is not None and getattr(a, "dtype").itemsize
                > to.result.dtype.itemsize for a in (to.args or ())),
        "torch's CUDA integer narrowing of an out-of-range value on out= differs from its "
        "CPU wrap-around; ember wraps"),
    # ---- CUDA-only differences of issue 14's 671,534-case CUDA run (branch diffcuda) ----
    # (each predicate: case.device == "cuda" and exactly that family; see the helpers above
    # DEVIATIONS for the torch code each one follows)
    "cuda-out-dtype-compute": (
        _cuda_out_dtype_compute,
        "torch's CUDA kernels of max/min/fmax/fmin, clamp's tensor bounds, the bitwise "
        "ops and shifts and logaddexp dispatch on the output's dtype: with out= (or self) of "
        "another dtype than the inputs' common one they compute in it (its CPU computes in "
        "the common dtype and casts, as ember on both devices)"),
    "cuda-mean-int-out": (
        lambda case, to, eo: case.device == "cuda" and case.op.split("[")[0] == "mean"
        and case.form == "out" and to.exc is None and eo.exc is not None
        and not to.result.dtype.is_floating_point,
        "mean into an integer out= on CUDA: torch converts the input to that integer dtype "
        "and averages there (truncating); its CPU raises, as ember on both devices"),
    "cuda-topk-0d-k0": (
        lambda case, to, eo: case.device == "cuda" and case.op.split("[")[0] == "topk"
        and isinstance(case.args[0], TensorSpec) and case.args[0].shape == ()
        and len(case.args) > 1 and case.args[1] == 0,
        "topk(k=0) of a 0-d tensor on CUDA: torch returns an uninitialized value (its CPU, "
        "and ember, the input)"),
    "cuda-int-alpha-float-out": (
        lambda case, to, eo: case.device == "cuda" and case.form == "out"
        and to.exc is None and eo.exc is not None
        and isinstance(case.kwargs.get("alpha"), float)
        and case.op.split("[")[0] in ("add", "sub", "subtract")
        and to.result.dtype.is_floating_point
        and ("alpha must not be a floating point number" in str(eo.exc)
             or "without overflow" in str(eo.exc)),
        "add/sub with a floating alpha, integer inputs and a floating out= on CUDA: torch "
        "checks alpha against out's dtype there (and truncates it to the integer dtype); its "
        "CPU raises, as ember on both devices"),
    "cuda-bool-alpha-out": (
        lambda case, to, eo: case.device == "cuda" and case.form == "out"
        and to.exc is not None and eo.exc is None
        and isinstance(case.kwargs.get("alpha"), bool)
        and case.op.split("[")[0] in ("add", "sub", "subtract")
        and "Boolean alpha only supported for Boolean results" in str(to.exc),
        "add with a bool alpha, bool inputs and a non-bool out= on CUDA: torch checks alpha "
        "against out's dtype there and raises; its CPU checks it against the inputs' (bool) "
        "and computes, as ember on both devices"),
    "cuda-two-numbers": (
        lambda case, to, eo: case.device == "cuda" and to.exc is not None and eo.exc is None
        and "Trying to pass too many CPU scalars to non-CPU kernel" in str(to.exc),
        "two Python numbers with a CUDA out=: torch's TensorIterator refuses them (its CPU "
        "computes); ember computes on both devices"),
    "cuda-div-by-number": (
        _cuda_div_by_number,
        "division of a CUDA tensor by a Python number: torch multiplies by the number's "
        "reciprocal (one bit lost, documented in its kernels; floor/trunc may then land on "
        "the neighbouring integer; 1/subnormal overflows to inf, 0 * inf = nan); ember "
        "divides, as torch's CPU"),
    "rdiv-reciprocal-overflow": (
        _rdiv_reciprocal_overflow,
        "number / tensor: torch's Tensor.__rtruediv__ is reciprocal(t) * number, inf (or 0 * "
        "inf = nan) where 1/t overflows the dtype (|t| subnormal); ember divides (both "
        "devices)"),
    "cuda-overlapping-write": (
        _cuda_overlapping_write,
        "setitem / masked_fill_ into an expanded (stride 0, internally overlapping) CUDA "
        "tensor: which of the aliased writes lands is unspecified (torch warns the use is "
        "deprecated; its kernels also write back unmasked elements, racing)"),
    "cuda-sort-negative-nan": (
        _cuda_sort_negative_nan,
        "sort-based ops on CUDA with negative-sign NaNs in torch's input (its float -> "
        "bfloat16 conversion makes NaN 0xFFFF): torch's radix sort puts them first "
        "(pytorch#190781); NaN sorts last in ember, as in torch's CPU"),
    "gelu-ftz": (
        _gelu_ftz,
        "gelu on the CPU where x * Phi(x) is subnormal: torch's kernel gives 0, ember the "
        "subnormal value"),
    "norm-closer": (
        _norm_closer,
        "a full p-norm that ember computes closer to the exact value than torch (torch's "
        "CPU float32 norm with p = 0.5 loses ~4e-5 over a few thousand elements)"),
    "cuda-atomic-ftz": (
        _cuda_atomic_ftz,
        "adds through atomics on CUDA (index_add, scatter_add, put/index_put with "
        "accumulate): torch's floating atomic add flushes a subnormal result to zero; "
        "ember's kernels (shared-memory sums, plain adds) keep it"),
    "cuda-scan-overflow": (
        _cuda_scan_overflow,
        "cumsum in float16/bfloat16 on CUDA whose partial sums reach the dtype's largest "
        "value: torch's partial sums, rounded to the dtype one by one, overflow to inf at "
        "another element than ember's (accumulated in float)"),
    "cuda-logcumsumexp-trivial-int": (
        lambda case, to, eo: case.device == "cuda" and case.op.split("[")[0] == "logcumsumexp"
        and to.exc is None and eo.exc is not None and isinstance(case.args[0], TensorSpec)
        and case.args[0].dtype not in FLOATS
        and (case.args[0].shape == () or 0 in case.args[0].shape),
        "logcumsumexp of a 0-d or empty non-floating tensor on CUDA: torch returns (the "
        "value, or nothing) before its dtype check; its CPU raises, as ember on both "
        "devices"),
}


def _torch_unsupported(msg):
    """A kernel torch lacks for a dtype: ember may do more."""
    return "not implemented for '" in msg or "Unsupported dtype" in msg


def deviation(case, to, eo):
    for name, (pred, _) in DEVIATIONS.items():
        try:
            if pred(case, to, eo):
                return name
        except Exception:  # pragma: no cover
            pass
    return None


CUDA_FATAL = ("device-side assert", "illegal memory access", "unspecified launch failure",
              "misaligned address", "an illegal instruction")


class CudaFatal(Exception):
    """A sticky CUDA error: this process's CUDA context is lost (a worker exits and is
    restarted; the case is reported as a crash). `torch_assert`: it is a device-side
    assert, which only torch's kernels raise (torch's answer to an index out of range on
    the GPU; ember has no device asserts): counted apart, not as ember's mismatch."""

    def __init__(self, msg, torch_assert=False):
        super().__init__(msg)
        self.torch_assert = torch_assert


def _fatal(msg):
    return any(p in msg for p in CUDA_FATAL) or "cudaErrorAssert" in msg


def _is_assert(msg):
    return "device-side assert" in msg or "cudaErrorAssert" in msg


def _torch_too_slow(case):
    """torch's zeta(x, q) steps through the |q| terms before q for q < 0 (Cephes's
    summation): q = -7.6e7 runs past the case timeout on CUDA. ember shifts such q
    (special_functors.hpp) and runs alone on these cases (it must finish)."""
    if case.op.split("[")[0] != "special.zeta" or len(case.args) < 2:
        return False
    q = case.args[1]
    if isinstance(q, TensorSpec):
        v = np.asarray(np_view(q))
    elif isinstance(q, (int, float)) and not isinstance(q, bool):
        v = np.asarray(q)
    else:
        return False
    with np.errstate(invalid="ignore"):
        return bool((v.astype(np.float64) < -1e5).any())


def check_case(case, E, T, ops, numpy_mode=False):
    """Runs one case in ember (E) and the oracle (T: a Lib, or None for NumPy).
    Returns (status, mismatch or None): status ok | both_raised | torch_unsupported |
    mismatch."""
    op = ops[case.op]
    if numpy_mode:
        return _check_numpy(case, E, op)
    out_spec = None
    if case.form == "out":
        out_spec = case.kwargs.get("__out__")
    kw_clean = {k: v for k, v in case.kwargs.items() if k != "__out__"}
    c2 = Case(case.op, case.form, case.args, kw_clean, case.device, case.index, case.seed)
    if _torch_too_slow(case):
        eo = run_lib(E, op, c2, out_spec)
        if case.device != "cpu" and eo.exc is not None and _fatal(str(eo.exc)):
            raise CudaFatal(f"ember: {_short(str(eo.exc), 300)}", torch_assert=False)
        return "torch_too_slow", None
    try:
        to = run_lib(T, op, c2, out_spec)
        eo = run_lib(E, op, c2, out_spec)
    except RuntimeError as e:  # the context was lost before this case (a late report)
        if case.device != "cpu" and _fatal(str(e)):
            raise CudaFatal(_short(str(e), 300), torch_assert=_is_assert(str(e))) from e
        raise
    if case.device != "cpu":
        for who, o in (("torch", to), ("ember", eo)):
            if o.exc is not None and _fatal(str(o.exc)):
                raise CudaFatal(f"{who}: {_short(str(o.exc), 300)}",
                                torch_assert=_is_assert(str(o.exc)))

    def mm(kind, detail):
        dev = deviation(case, to, eo)
        if dev:
            return "deviation:" + dev, None
        return "mismatch", Mismatch(op.name, case.form, kind, detail, case,
                                    _describe(eo), _describe(to))
    if to.exc is not None:
        msg = str(to.exc)
        if eo.exc is None:
            if _torch_unsupported(msg):
                return "torch_unsupported", None
            return mm("ember-no-raise", f"torch raised {type(to.exc).__name__}: "
                                        f"{_short(msg)}")
        if exc_category(eo.exc) != exc_category(to.exc):
            if _torch_unsupported(msg) and isinstance(eo.exc, RuntimeError):
                return "torch_unsupported", None
            return mm("exception-type", f"ember {type(eo.exc).__name__} vs torch "
                                        f"{type(to.exc).__name__}")
        return "both_raised", None
    if eo.exc is not None:
        return mm("ember-raised", f"{type(eo.exc).__name__}: {_short(str(eo.exc))}")
    np_args = tuple(numpy_materialize(a) for a in c2.args)
    mask = op.mask(c2, np_args, case.device) if op.mask else None
    try:
        rn_e = normalize(E, eo.result)
        rn_t = normalize(T, to.result)
    except Exception as e:
        return mm("result-unreadable", f"{type(e).__name__}: {_short(str(e))}")
    why = compare_results(rn_e, rn_t, op, c2, np_args, mask, strides=op.view)
    if why:
        return mm(why[0], why[1])
    if case.form in MUTATING:
        target_e = eo.out if case.form == "out" else eo.args[0]
        target_t = to.out if case.form == "out" else to.args[0]
        if (eo.result is target_e) != (to.result is target_t):
            return mm("identity", f"ember returns self/out: {eo.result is target_e}, "
                                  f"torch: {to.result is target_t}")
        merged = False
        if hasattr(target_e, "shape") and hasattr(target_t, "shape"):
            # The written view matched torch's (within the op's tolerance, its mask): give
            # ember's view torch's values, so that the bases then show exactly whether
            # anything outside the view was written (the tolerance and the mask are in the
            # view's coordinates, not the base's)
            try:
                _, _, _, at = to_numpy(T, target_t)
                src = E.mod.from_numpy(np.ascontiguousarray(at))
                if src.dtype != target_e.dtype:
                    src = src.to(target_e.dtype)
                target_e.copy_(src.to(target_e.device))
                merged = True
            except Exception:
                merged = False
        for be, bt in zip(eo.bases, to.bases):  # the bases: nothing written outside views
            bm = mask if mask is not None and tuple(be.shape) == np.shape(mask) else None
            if merged:
                why = values_mismatch(to_numpy(E, be)[3], to_numpy(T, bt)[3],
                                      dtype_name(be.dtype), None)
                why = ("values", why) if why else None
            else:
                why = compare_results(normalize(E, be), normalize(T, bt), op, c2, np_args, bm,
                                      strides=False)
            if why:
                return mm("mutated-" + why[0], why[1])
    else:
        for (spec, te) in eo.tensors:  # ember's inputs are unchanged
            if not isinstance(spec, TensorSpec):
                continue
            dt, _, _, a = to_numpy(E, te)
            why = values_mismatch(a, np.asarray(np_view(spec)), spec.dtype, None)
            if why:
                return mm("input-modified", why)
    return "ok", None


def _computed_in(case, dt):
    """The dtype whose ulps measure a result of dtype dt: an out= of a wider dtype than
    the inputs' holds a value computed in theirs (float32 for integers; bfloat16 input,
    float32 out=), which torch and ember may compute a few ulps of *that* dtype apart; an
    out= narrower than the computation (float16 out= of a bfloat16 computation) holds a
    value rounded twice. The coarser of the two measures it."""
    if case.form != "out" or dt not in FLOATS:
        return dt
    specs = []
    for a in list(case.args) + [v for k, v in case.kwargs.items() if k != "__out__"]:
        if isinstance(a, TensorSpec):
            specs.append(a)
        elif isinstance(a, (list, tuple)):
            specs.extend(x for x in a if isinstance(x, TensorSpec))
    rank = {"float16": 0, "bfloat16": 0, "float32": 1, "float64": 2}
    # torch's promotion: 0-d tensors count only where no tensor with dims is floating
    floats = [sp.dtype for sp in specs if sp.dtype in rank and np_view(sp).ndim > 0]
    floats = floats or [sp.dtype for sp in specs if sp.dtype in rank]
    if not floats:
        c = "float32"
    else:
        c = max(floats, key=rank.get)
        if rank[c] == 0 and {"float16", "bfloat16"} <= set(floats):
            c = "float32"  # float16 with bfloat16 promotes to float32
    return c if EPS[c] > EPS[dt] else dt


def compare_results(re, rt, op, case, np_args, mask, strides):
    if re[0] != rt[0]:
        return "structure", f"ember {re[0]} vs torch {rt[0]}"
    if re[0] == "tensor":
        _, dte, she, ste, ae = re
        _, dtt, sht, stt, at = rt
        if dte != dtt:
            return "dtype", f"ember {dte} vs torch {dtt}"
        if she != sht:
            return "shape", f"ember {list(she)} vs torch {list(sht)}"
        if strides and math.prod(she) > 1 and any(
                a != b for a, b, n in zip(ste, stt, she) if n > 1):
            return "strides", f"ember {ste} vs torch {stt}"
        dtc = _computed_in(case, dtt)
        tol = tolerance(op, case, dtc, np_args, case.device, at.size) if dtt in FLOATS \
            else None
        if tol is not None and "xdf" in op.extra and np_args and \
                isinstance(np_args[0], np.ndarray):
            with np.errstate(all="ignore"):
                x = np.broadcast_to(np_args[0].astype(np.float64), at.shape)
                c = op.extra["xdf"](x, at.astype(np.float64))
                c = np.where(np.isfinite(c), c, np.inf)
            tol = (tol[0], tol[1] + COND_ULPS * EPS[dtc] * c)
        if tol is not None and "atol_fn" in op.extra:
            tol = (tol[0], tol[1] + op.extra["atol_fn"](np_args, at, dtc))
        if tol is not None and dtc != dtt and dtt in DENORM:
            # measured in the computation's ulps, stored in dtt: its subnormals' spacing
            # (a bfloat16 result of 1.5e-6 in a float16 out= is rounded to 6e-8 steps)
            tol = (tol[0], tol[1] + tol[0] * DENORM[dtt])
        why = values_mismatch(ae, at, dtc, tol, mask)
        if why:
            return "values", why + _inputs_at(op, np_args, ae, at, dtt, tol, mask)
        return None
    if re[0] == "seq":
        if len(re[2]) != len(rt[2]):
            return "structure", f"ember {len(re[2])} results vs torch {len(rt[2])}"
        if rt[3] and re[3] != rt[3]:
            return "structure", f"ember result has no fields {rt[3]}"
        pairs = list(zip(re[2], rt[2]))
        if op.extra.get("values_only"):  # median's index among equal values is unspecified
            pairs = pairs[:1]
        for x, y in pairs:
            why = compare_results(x, y, op, case, np_args, mask, strides)
            if why:
                return why
        return None
    if re[0] == "py":
        if re[1] != rt[1]:
            return "structure", f"ember {re[1]} vs torch {rt[1]}"
        if re[2] != rt[2] and not (isinstance(re[2], float) and math.isnan(re[2])
                                   and math.isnan(rt[2])):
            return "values", f"ember {re[2]!r} vs torch {rt[2]!r}"
        return None
    return None


def _check_numpy(case, E, op):
    eo = run_lib(E, op, case)
    np_args = tuple(numpy_materialize(a) for a in case.args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ref = op.np(np_args, numpy_materialize(case.kwargs))
        except Exception:
            return "both_raised", None  # outside NumPy's subset: not compared
    if eo.exc is not None:
        return "mismatch", Mismatch(op.name, case.form, "ember-raised",
                                    f"{type(eo.exc).__name__}: {_short(str(eo.exc))}", case,
                                    _describe(eo), "numpy ok")
    ref = np.asarray(ref)
    rt = ("tensor", ref.dtype.name, ref.shape, None, ref)
    re = normalize(E, eo.result)
    why = compare_results(re, rt, op, case, np_args, None, strides=False)
    if why:
        return "mismatch", Mismatch(op.name, case.form, why[0], why[1], case, _describe(eo),
                                    "numpy")
    return "ok", None


def _short(s, n=160):
    s = s.strip().splitlines()[0] if s.strip() else s
    return s[:n]


def _describe(o):
    if o.exc is not None:
        return f"{type(o.exc).__name__}: {_short(str(o.exc), 300)}"
    try:
        r = o.result
        if hasattr(r, "shape") and hasattr(r, "dtype"):
            a = r.detach()
            if a.device.type != "cpu":
                a = a.cpu()
            if dtype_name(r.dtype) == "bfloat16":
                a = a.float()
            vals = np.array(a.numpy()).reshape(-1)[:16].tolist()
            return f"{dtype_name(r.dtype)}{list(r.shape)} {vals}"
        return repr(r)[:300]
    except Exception as e:  # pragma: no cover
        return f"<unprintable: {e!r}>"


# ----------------------------------------------------------------------------------------
# case generation
# ----------------------------------------------------------------------------------------

class OpTable:
    """Op names and cumulative weights, to draw an op in O(log n)."""

    def __init__(self, pairs):
        self.pairs = tuple(pairs)
        self.names = tuple(n for n, _ in self.pairs)
        self.cum = list(itertools.accumulate(w for _, w in self.pairs))
        self.total = self.cum[-1] if self.cum else 0.0

    def without(self, skip):
        return OpTable((n, w) for n, w in self.pairs if n not in skip)

    def only(self, keep):
        return OpTable((n, w) for n, w in self.pairs if n in keep)


def op_table(ops, numpy_mode):
    names = sorted(n for n, o in ops.items() if not numpy_mode or o.np is not None)
    return OpTable((n, ops[n].weight) for n in names)


def gen_case(src, ops, table, ctx, oracle=None, index=-1, seed=0, op_name=None):
    name = op_name or src.pick(table)
    op = ops[name]
    form, args, kw = op.gen(src, op, ctx)
    if form not in op.forms:
        form = op.forms[0] if "fn" not in op.forms else "fn"
    if form in ("inplace", "iop", "setitem") and not isinstance(args[0], TensorSpec):
        form = "fn" if "fn" in op.forms else op.forms[0]
    if form in ("fn", "out") and not isinstance(args[0], TensorSpec) and \
            op.kind == "binary" and src.prob(0.7):
        form = "rop" if "rop" in op.forms else form
    if form == "rop" and (isinstance(args[0], TensorSpec) or op.arity != 2):
        form = "op" if "op" in op.forms else "fn"
    if form in ("op", "rop") and not any(isinstance(a, TensorSpec) for a in args):
        form = "fn" if "fn" in op.forms else "method"  # two Python numbers: not an op
    if form == "method" and not isinstance(args[0], TensorSpec):
        form = "fn" if "fn" in op.forms else op.forms[0]
    case = Case(name, form, args, kw, ctx.device, index, seed)
    if form == "out":
        case.kwargs = dict(kw)
        case.kwargs["__out__"] = gen_out_spec(src, op, case, oracle)
    return case


def gen_out_spec(src, op, case, oracle):
    """An out= tensor: usually the result's shape and dtype (learned from the oracle),
    sometimes empty (resized), another dtype (cast or error), or a wrong shape."""
    shape, dt = (), "float32"
    if oracle is not None:
        try:
            r = run_lib(oracle, op, Case(case.op, "fn", case.args, case.kwargs, "cpu"))
            if r.exc is None and isinstance(r.result, oracle.Tensor):
                shape, dt = tuple(r.result.shape), dtype_name(r.result.dtype)
        except Exception:
            pass
    r = src.int(0, 99)
    if r < 15:
        shape = (0,)
    elif r < 20:
        shape = tuple(shape) + (2,)
    if src.prob(0.3):
        dt = src.choice(DTYPES)
    steps = ()
    n = math.prod(shape)
    base = cast_values(np.full(n, 7), dt).reshape(shape)
    if len(shape) >= 2 and src.prob(0.15):  # a non-contiguous out
        base = np.ascontiguousarray(base.T)
        steps = (("permute", tuple(reversed(range(len(shape))))),)
        base = base.reshape(tuple(reversed(shape)))
    return TensorSpec(dt, base, steps, fresh=True)


# ----------------------------------------------------------------------------------------
# the engine
# ----------------------------------------------------------------------------------------

def load_libs(oracle="auto"):
    """(ember, oracle) as Libs; the oracle is None without torch (NumPy then).
    EMBER_DIFF_SELF=1 puts torch in ember's place: the harness checks itself (its generators
    and comparisons must find no mismatch of torch against torch)."""
    if os.environ.get("EMBER_DIFF_SELF"):
        import torch
        return Lib(torch), Lib(torch)
    import ember
    E = Lib(ember)
    T = None
    if oracle in ("auto", "torch"):
        try:
            import torch
            T = Lib(torch)
        except ImportError:
            if oracle == "torch":
                raise
    return E, T


class Stats:
    def __init__(self):
        self.cases = 0
        self.status = {}
        self.by_op = {}
        self.mismatches = []
        self.crashes = []
        self.elapsed = 0.0

    def add(self, status, m, keep=200):
        self.cases += 1
        self.status[status] = self.status.get(status, 0) + 1
        if m is not None:
            key = f"{m.op}[{m.form}]"
            self.by_op[key] = self.by_op.get(key, 0) + 1
            if len(self.mismatches) < keep or self.by_op[key] <= 3:
                self.mismatches.append(m)

    def merge(self, other):
        self.cases += other.cases
        for k, v in other.status.items():
            self.status[k] = self.status.get(k, 0) + v
        for k, v in other.by_op.items():
            self.by_op[k] = self.by_op.get(k, 0) + v
        self.mismatches += other.mismatches
        self.crashes += other.crashes

    @property
    def n_mismatches(self):
        return sum(self.by_op.values()) + len(self.crashes)

    def summary(self, device="cpu", oracle="torch"):
        by = ", ".join(f"{k}={v}" for k, v in sorted(self.by_op.items(),
                                                     key=lambda kv: (-kv[1], kv[0])))
        extra = ", ".join(f"{k}={v}" for k, v in sorted(self.status.items()))
        rate = self.cases / self.elapsed if self.elapsed else 0.0
        crash = f", {len(self.crashes)} crashes" if self.crashes else ""
        return (f"differential: {self.cases} cases, {self.n_mismatches} mismatches"
                f" (by op: {by or '-'}){crash} [{device} vs {oracle}; {extra}; "
                f"{rate:.0f} cases/s]")


TRACE = bool(os.environ.get("EMBER_DIFF_TRACE"))


def case_seed(seed, index):
    return (seed & 0xFFFFFFFF) * 0x1_0000_0000 + index


def run_cases(device="cpu", cases=2000, seed=0, seconds=None, start=0, stride=1,
              oracle="auto", progress=None, ops_filter=None, keep=200, flush=None,
              skip_ops=(), skip_indices=frozenset()):
    """Runs cases start, start+stride, ... < cases (time-boxed); returns Stats. flush(stats),
    if given, receives the stats so far every 0.5 s (a fresh Stats goes on): a worker
    that dies on a case has reported the cases before it. Ops in skip_ops are not drawn; the
    cases in skip_indices are not run (a worker's crashes)."""
    E, T = load_libs(oracle)
    numpy_mode = T is None
    ops = finalize([E] if numpy_mode else [E, T])
    if ops_filter:
        ops = {k: v for k, v in ops.items() if k in ops_filter or v.kind in ops_filter}
    table = op_table(ops, numpy_mode)
    if skip_ops:
        table = table.without(skip_ops)
    ctx = Ctx(device, numpy_mode)
    stats = Stats()
    t0 = last = time.perf_counter()
    src = RandomSource(0)
    for i in range(start, cases, stride):
        if (i - start) % (64 * stride) == 0:
            now = time.perf_counter()
            if seconds is not None and now - t0 > seconds:
                break
            if flush is not None and now - last > 0.5:
                stats.elapsed = now - last
                flush(stats, i)
                stats, last = Stats(), now
        if i in skip_indices:
            continue
        if progress is not None:
            progress(i)
        src.r.seed(case_seed(seed, i))
        case = gen_case(src, ops, table, ctx, None if numpy_mode else T, i, seed)
        if TRACE:
            print(f"case {i}: {repro(case, ops)[:2000]}", file=sys.stderr, flush=True)
        try:
            status, m = check_case(case, E, T, ops, numpy_mode)
        except CudaFatal as e:
            if e.torch_assert:
                stats.add("torch_device_assert", None, keep)
            else:
                stats.add("mismatch", Mismatch(case.op, case.form, "cuda-fatal", str(e), case,
                                               "", ""), keep)
            if flush is not None:  # a worker: report, then die; it is restarted after it
                stats.elapsed = time.perf_counter() - last
                flush(stats, i + stride)
                os._exit(70)
            break  # one process: the CUDA context is gone, so is the run
        except Exception as e:  # a harness failure is reported as a mismatch, not hidden
            status, m = "mismatch", Mismatch(case.op, case.form, "harness",
                                             f"{type(e).__name__}: {e}", case,
                                             traceback.format_exc()[-400:], "")
        stats.add(status, m, keep)
    stats.elapsed = time.perf_counter() - t0
    return stats


def regen_case(seed, index, device="cpu", oracle="auto"):
    """The case number `index` of a run with `seed` (to replay a reported mismatch)."""
    E, T = load_libs(oracle)
    numpy_mode = T is None
    ops = finalize([E] if numpy_mode else [E, T])
    src = RandomSource(case_seed(seed, index))
    return gen_case(src, ops, op_table(ops, numpy_mode), Ctx(device, numpy_mode),
                    None if numpy_mode else T, index, seed), E, T, ops


# ----------------------------------------------------------------------------------------
# reports: JSON and a reproducing line of Python
# ----------------------------------------------------------------------------------------

def _jsonable(o):
    if isinstance(o, TensorSpec):
        return {"tensor": o.dtype, "base": _jsonable(o.base.astype(np.float64).tolist()
                                                      if o.dtype in FLOATS else
                                                      o.base.tolist()),
                "base_shape": list(o.base.shape), "steps": [list(map(_jsonable, s))
                                                            for s in o.steps]}
    if isinstance(o, DType):
        return {"dtype": o.name}
    if isinstance(o, slice):
        return {"slice": [o.start, o.stop, o.step]}
    if o is Ellipsis:
        return {"ellipsis": True}
    if isinstance(o, (tuple, list)):
        return [_jsonable(x) for x in o]
    if isinstance(o, dict):
        return {k: _jsonable(v) for k, v in o.items()}
    if isinstance(o, float) and not math.isfinite(o):
        return repr(o)
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return _jsonable(float(o))
    return o


def _lit(v):
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    return repr(v)


def render(o, L="L", device="cpu"):
    """o as Python source; tensors moved to `device` before their view steps (as the
    harness materializes them: .to(device), then the steps)."""
    if isinstance(o, TensorSpec):
        base = o.base
        vals = base.reshape(-1).tolist()
        if o.dtype in FLOATS:
            vals = [float(v) for v in vals]
        body = "[" + ", ".join(_lit(v) for v in vals) + "]"
        shape = tuple(base.shape)
        if not vals and o.fresh:
            s = f"{L}.empty({shape}, dtype={L}.{o.dtype})"
        elif not vals:  # from_numpy: an empty array's strides are all 0
            sd = "float32" if o.dtype == "bfloat16" else o.dtype
            s = f"{L}.from_numpy(np.zeros({shape}, '{sd}'))"
            if o.dtype == "bfloat16":
                s += f".to({L}.bfloat16)"
        elif shape == ():
            s = f"{L}.tensor({_lit(vals[0])}, dtype={L}.{o.dtype})"
        else:
            s = f"{L}.tensor({body}, dtype={L}.{o.dtype})"
            if len(shape) != 1:
                s += f".reshape{shape}"
        if device != "cpu":
            s += f".to('{device}')"
        for st in o.steps:
            if st[0] == "permute":
                s += f".permute{tuple(st[1])}"
            elif st[0] == "step":
                s += "[" + ":, " * st[1] + f"::{st[2]}]"
            elif st[0] == "expand":
                s += f".expand{tuple(st[1])}"
            elif st[0] == "narrow":
                s += f".narrow({st[1]}, {st[2]}, {st[3]})"
        return s
    if isinstance(o, DType):
        return f"{L}.{o.name}"
    if isinstance(o, slice):
        parts = ["" if o.start is None else str(o.start), "" if o.stop is None else str(o.stop)]
        if o.step is not None:
            parts.append(str(o.step))
        return ":".join(parts)
    if o is Ellipsis:
        return "..."
    if isinstance(o, tuple):
        return "(" + ", ".join(render(x, L, device) for x in o) + ("," if len(o) == 1 else "") \
            + ")"
    if isinstance(o, list):
        return "[" + ", ".join(render(x, L, device) for x in o) + "]"
    if isinstance(o, float):
        return f"float('{_lit(o)}')" if not math.isfinite(o) else repr(o)
    return repr(o)


def _render_index(idx, L, device="cpu"):
    if isinstance(idx, tuple):
        if not idx:
            return "()"
        return ", ".join(render(i, L, device) for i in idx) + ("," if len(idx) == 1 else "")
    return render(idx, L, device)


def repro(case, ops=None, L="L"):
    """One line of Python reproducing the case with `import ember as L` (or torch),
    `import numpy as np`, `from math import nan, inf`."""
    op = (ops or OPS)[case.op]
    dev = case.device
    a = [render(x, L, dev) for x in case.args]
    kws = {k: v for k, v in case.kwargs.items() if k != "__out__"}
    kw = [f"{k}={render(v, L, dev)}" for k, v in kws.items()]
    if case.form == "out":
        kw.append(f"out={render(case.kwargs['__out__'], L, dev)}")
    allargs = ", ".join(a + kw)
    f = case.form
    if f in ("fn", "out"):
        return f"{L}.{op.fn}({allargs})"
    if f == "method":
        return f"{a[0]}.{op.method}({', '.join(a[1:] + kw)})"
    if f == "inplace":
        return f"{a[0]}.{op.inplace}({', '.join(a[1:] + kw)})"
    if f in ("op", "rop"):
        if op.arity == 1:
            return f"abs({a[0]})" if op.symbol == "abs" else f"{op.symbol}({a[0]})"
        return f"({a[0]}) {op.symbol} ({a[1]})"
    if f == "iop":
        return f"x = {a[0]}; x {op.symbol}= {a[1]}"
    if f == "getitem":
        return f"({a[0]})[{_render_index(case.args[1], L, dev)}]"
    if f == "setitem":
        return f"x = {a[0]}; x[{_render_index(case.args[1], L, dev)}] = {a[2]}"
    if f == "attr":
        return f"({a[0]}).{op.method}"
    return f"{case.op} {f} {allargs}"


def mismatch_record(m, ops=None):
    c = m.case
    return {"op": m.op, "form": m.form, "kind": m.kind, "detail": m.detail,
            "device": c.device, "seed": c.seed, "index": c.index,
            "ember": m.ember, "torch": m.torch, "repro": repro(c, ops),
            "args": _jsonable(list(c.args)),
            "kwargs": _jsonable({k: v for k, v in c.kwargs.items()})}


def write_report(path, stats, device, seed, oracle, ops=None):
    rec = {"summary": stats.summary(device, oracle), "cases": stats.cases,
           "mismatches_total": stats.n_mismatches, "by_op": stats.by_op,
           "status": stats.status, "device": device, "seed": seed, "oracle": oracle,
           "skipped_ops": SKIPPED, "crashes": stats.crashes,
           "mismatches": [mismatch_record(m, ops) for m in stats.mismatches]}
    with open(path, "w") as f:
        json.dump(rec, f, indent=1, default=str)


_DTYPE_WORDS = re.compile(
    r"\b(c10::)?(BFloat16|Half|Float|Double|Bool|Byte|Char|Short|Int|Long|bfloat16|float16|"
    r"float32|float64|int8|int16|int32|int64|uint8|bool|unsigned char|signed char|short int|"
    r"long int|int|float|double)\b")


def group_key(m):
    """(op family, kind, message pattern): mismatches of one cause share it."""
    d = m["detail"]
    d = d.split("; first at")[0]
    d = _DTYPE_WORDS.sub("<dt>", d)
    d = re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "#", d)
    return m["op"].split("[")[0].split("(")[0], m["kind"], d[:100]


def summarize(path, top=80):
    """Groups a report's mismatches (most frequent cause first), one shortest repro each."""
    with open(path) as f:
        rec = json.load(f)
    lines = [rec["summary"]]
    groups = {}
    for m in rec["mismatches"]:
        groups.setdefault(group_key(m), []).append(m)
    for (opn, kind, d), ms in sorted(groups.items(), key=lambda kv: -len(kv[1]))[:top]:
        best = min(ms, key=lambda m: len(m["repro"]))
        forms = sorted({m["form"] for m in ms})
        lines.append(f"{len(ms):5d}  {opn} {forms} {kind}: {d}")
        lines.append(f"       {best['repro'][:300]}")
        lines.append(f"       ember: {best['ember'][:140]} | torch: {best['torch'][:140]}")
    for c in rec.get("crashes", []):
        lines.append(f"CRASH {c}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------
# the command line (the long run): worker processes, a crashed worker is a mismatch
# ----------------------------------------------------------------------------------------

def _worker(wid, jobs, args, conn, cur):
    """A worker process: runs its share of the cases and sends its stats to the parent
    through its own pipe, synchronously from this thread (a crash inside a case can then
    never leave half a message in the pipe)."""
    try:
        import ember
        if jobs > 1:
            ember.set_num_threads(1)
            try:
                import torch
                torch.set_num_threads(1)
            except ImportError:
                pass
        start = args["start"]

        def progress(i):
            cur.value = i

        def flush(st, i):
            st.mismatches = [mismatch_record(m) for m in st.mismatches]
            conn.send((wid, "partial", (st, i)))
        st = run_cases(args["device"], args["cases"], args["seed"], args["seconds_left"],
                       start, jobs, args["oracle"], progress, args["ops"], keep=args["keep"],
                       flush=flush, skip_indices=args["skip"], skip_ops=args["skip_ops"])
        st.mismatches = [mismatch_record(m) for m in st.mismatches]
        conn.send((wid, "done", st))
    except BaseException as e:  # pragma: no cover
        conn.send((wid, "error", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))
    finally:
        conn.close()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cases", type=int, default=int(os.environ.get("EMBER_DIFF_CASES", 2000)))
    p.add_argument("--seed", type=int, default=int(os.environ.get("EMBER_DIFF_SEED", 0)))
    p.add_argument("--seconds", type=float,
                   default=float(os.environ.get("EMBER_DIFF_SECONDS", 0)) or None)
    p.add_argument("--device", default="cpu")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--report", default=os.environ.get("EMBER_DIFF_REPORT"))
    p.add_argument("--oracle", default="auto", choices=("auto", "torch", "numpy"))
    p.add_argument("--ops", default=None, help="comma-separated op names or kinds")
    p.add_argument("--skip-ops", default="", help="comma-separated op names not to draw")
    p.add_argument("--replay", type=int, default=None, help="print and check case INDEX")
    p.add_argument("--summarize", default=None, metavar="REPORT",
                   help="print a report's mismatches grouped by cause, and exit")
    p.add_argument("--isolate", action="store_true",
                   help="run in worker processes even with --jobs 1 (a crash is recorded, "
                        "the run goes on after it)")
    p.add_argument("--case-timeout", type=float, default=60.0,
                   help="seconds a case may run in a worker before it counts as a hang")
    p.add_argument("--keep", type=int, default=200, help="mismatches kept per worker")
    a = p.parse_args(argv)
    if a.summarize:
        print(summarize(a.summarize))
        return 0
    ops_filter = set(a.ops.split(",")) if a.ops else None
    skip_ops = frozenset(x for x in a.skip_ops.split(",") if x)
    if a.replay is not None:
        case, E, T, ops = regen_case(a.seed, a.replay, a.device, a.oracle)
        print(repro(case, ops))
        status, m = check_case(case, E, T, ops, T is None)
        print(status, m and (m.kind, m.detail, m.ember, m.torch))
        return 0 if status != "mismatch" else 1
    t0 = time.perf_counter()
    oracle_name = "numpy" if a.oracle == "numpy" else "torch"
    if a.oracle == "auto":
        try:
            import torch  # noqa: F401
        except ImportError:
            oracle_name = "numpy"
    if a.jobs <= 1 and not a.isolate:
        stats = run_cases(a.device, a.cases, a.seed, a.seconds, 0, 1,
                          a.oracle if a.oracle != "numpy" else "none", None, ops_filter,
                          keep=a.keep, skip_ops=skip_ops)
        recs = [mismatch_record(m) for m in stats.mismatches]
    else:
        stats, recs = _run_jobs(a, ops_filter, t0, skip_ops)
    stats.elapsed = time.perf_counter() - t0
    line = stats.summary(a.device, oracle_name)
    print(line)
    if a.report:
        stats.mismatches = []
        write_report(a.report, stats, a.device, a.seed, oracle_name)
        with open(a.report) as f:
            rec = json.load(f)
        rec["mismatches"] = recs
        with open(a.report, "w") as f:
            json.dump(rec, f, indent=1, default=str)
    for r in recs[:20]:
        print(f"  {r['op']}[{r['form']}] {r['kind']}: {r['detail']}\n    {r['repro'][:300]}")
    return 1 if stats.n_mismatches else 0


def _run_jobs(a, ops_filter, t0, skip_ops=frozenset()):
    import multiprocessing as mp
    from multiprocessing.connection import wait
    ctx = mp.get_context("spawn")
    total = Stats()
    recs = []
    procs = {}    # worker -> (process, its progress value, the parent's end of its pipe)
    resume = {}   # worker -> the first case it has not reported
    crashed = {}  # worker -> indices of its cases that crashed
    done = set()

    def spawn(wid, start):
        resume[wid] = start
        cur = ctx.Value("q", start)
        left = None if a.seconds is None else max(0.0, a.seconds - (time.perf_counter() - t0))
        args = {"device": a.device, "cases": a.cases, "seed": a.seed, "seconds_left": left,
                "start": start, "oracle": a.oracle if a.oracle != "numpy" else "none",
                "ops": ops_filter, "keep": a.keep, "skip": frozenset(crashed.get(wid, ())),
                "skip_ops": skip_ops}
        r, w = ctx.Pipe(duplex=False)
        pr = ctx.Process(target=_worker, args=(wid, a.jobs, args, w, cur), daemon=True)
        pr.start()
        w.close()  # the child holds the write end: EOF on r once it is gone
        procs[wid] = (pr, cur, r)

    def handle(msg):
        wid, kind, payload = msg
        if kind == "partial":
            payload, resume[wid] = payload
            total.merge(payload)
            recs.extend(payload.mismatches)
            return
        if kind == "done":
            total.merge(payload)
            recs.extend(payload.mismatches)
        else:
            total.crashes.append({"worker": wid, "error": payload})
        done.add(wid)

    def read(wid):
        """Everything worker wid has sent; False once its pipe is closed."""
        r = procs[wid][2]
        try:
            while r.poll():
                handle(r.recv())
        except (EOFError, OSError):
            return False
        return True

    for w in range(a.jobs):
        spawn(w, w)
    seen = {}  # worker -> (its case, since when): a case running past --case-timeout hangs
    while len(done) < a.jobs:
        live = {procs[w][2]: w for w in procs if w not in done}
        for r in wait(list(live), timeout=0.5):
            read(live[r])
        now = time.perf_counter()
        for wid, (pr, cur, r) in list(procs.items()):
            if wid in done:
                continue
            if pr.is_alive():
                v = cur.value
                if seen.get(wid, (None,))[0] != v:
                    seen[wid] = (v, now)
                    continue
                if now - seen[wid][1] > a.case_timeout:
                    print(f"  worker {wid}: case {v} runs past {a.case_timeout:.0f} s: "
                          "killed", file=sys.stderr)
                    pr.kill()
                    pr.join()
                else:
                    continue
            seen.pop(wid, None)
            read(wid)  # what it sent before it ended counts
            if wid in done:
                pr.join()
                continue
            idx = cur.value  # died on a case (or exited without a word): record, go on
            crash = {"worker": wid, "index": idx, "seed": a.seed, "exitcode": pr.exitcode}
            try:
                case, _, _, ops = regen_case(a.seed, idx, a.device)
                crash["repro"] = repro(case, ops)
                crash["op"] = f"{case.op}[{case.form}]"
            except Exception as e:  # pragma: no cover
                crash["repro"] = repr(e)
            if pr.exitcode != 70:  # 70: a CUDA-fatal case, counted (and reported) by the worker
                total.crashes.append(crash)
                total.cases += 1
            print(f"  worker {wid} died (exit {pr.exitcode}) on case {idx}: "
                  f"{crash.get('repro', '')[:300]}", file=sys.stderr)
            crashed.setdefault(wid, set()).add(idx)
            r.close()
            spawn(wid, resume[wid])  # again from its last report, without the crash
    return total, recs


if __name__ == "__main__":
    sys.exit(main())
