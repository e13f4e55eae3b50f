"""The differential harness (tests/differential.py): ember against torch, the oracle, on
random dtypes, shapes, layouts, values and ops; against NumPy where torch is missing.

Budget (environment): EMBER_DIFF_CASES (seeded cases of the bulk run, default 2000; the
hypothesis tests draw CASES // 40 examples per op kind), EMBER_DIFF_SEED (default 0),
EMBER_DIFF_SECONDS (time box of the whole file, default 40), EMBER_DIFF_REPORT (a path:
the bulk run writes its mismatches there as JSON). The long run is the command line:
    python tests/differential.py --cases 1000000 --device cuda --jobs 16 --report out.json
"""
import json
import math
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, seed, settings, strategies as st

import differential as D
import ember

# hypothesis's pytest plugin imports its patch writer (libcst) when a test fails; libcst
# imports mypy_extensions, which warns (an error under filterwarnings=error, an
# INTERNALERROR instead of the failure): import it now, its warnings silenced.
with __import__("warnings").catch_warnings():
    __import__("warnings").simplefilter("ignore")
    try:
        import hypothesis.extra._patching  # noqa: F401
    except ImportError:
        pass

CASES = int(os.environ.get("EMBER_DIFF_CASES", 2000))
SEED = int(os.environ.get("EMBER_DIFF_SEED", 0))
SECONDS = float(os.environ.get("EMBER_DIFF_SECONDS", 40))
REPORT = os.environ.get("EMBER_DIFF_REPORT")
HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = ("unary", "binary", "ternary", "reduction", "scan", "softmax", "view", "index",
         "convert")

try:
    import torch as _torch
    HAS_TORCH = True
except ImportError:  # CI: NumPy is the oracle
    _torch = None
    HAS_TORCH = False

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]
_T0 = None  # the time box starts at this file's first test, not at collection: in the
            # whole suite, collection comes long before these tests run
_CRASHED_OPS = set()  # ops that killed a bulk-run worker: the in-process tests avoid them


def _device_ok(device):
    if device == "cuda" and HAS_TORCH and not _torch.cuda.is_available():
        pytest.skip("needs torch with CUDA, the oracle on the GPU: torch has no CUDA here")


def _left(share):
    """Seconds left to a test that may use `share` of the file's time box (at least a few
    seconds, so that every test runs some cases however the box was spent)."""
    global _T0
    if _T0 is None:
        _T0 = time.monotonic()
    return max(min(5.0, SECONDS * share), min(SECONDS * share, SECONDS - (time.monotonic() - _T0)))


def _spent():
    _left(0)
    return time.monotonic() - _T0 > SECONDS


# ---- the registry --------------------------------------------------------------------

REQUIRED = {
    "unary": {"abs", "neg", "exp", "log", "sin", "sqrt", "rsqrt", "sigmoid", "tanh", "erf",
              "floor", "ceil", "trunc", "round", "frac", "sign", "reciprocal", "isnan",
              "logical_not", "bitwise_not", "nan_to_num", "expm1", "log1p"},
    "binary": {"add", "sub", "mul", "div", "floor_divide", "remainder", "fmod", "pow",
               "atan2", "maximum", "minimum", "fmax", "fmin", "hypot", "eq", "ne", "lt",
               "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "bitwise_and",
               "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"},
    "ternary": {"where", "clamp", "lerp", "addcmul", "addcdiv"},
    "reduction": {"sum", "prod", "mean", "std", "var", "amax", "amin", "argmax", "argmin",
                  "all", "any", "norm", "logsumexp", "max", "min"},
    "scan": {"cumsum", "cumprod"},
    "softmax": {"softmax", "log_softmax"},
    "view": {"reshape", "view", "transpose", "permute", "expand", "narrow", "select",
             "squeeze", "unsqueeze", "flatten", "t", "contiguous"},
    "index": {"getitem", "setitem"},
    "convert": {"to"},
}


def test_registry_covers_the_issue_list_and_every_op_of_ember():
    for kind, names in REQUIRED.items():
        missing = {n for n in names if n not in D.OPS or D.OPS[n].kind != kind}
        assert not missing, f"{kind}: not registered: {sorted(missing)}"
    # every math function ember binds is registered (under its name, or max/min twice)
    # A module-level in-place form (torch.sqrt_) is its op's in-place form, which the
    # harness draws as x.sqrt_(); polygamma(n, x) takes an order n the harness does not
    # draw (tests/test_math_special.py compares it with torch).
    unregistered = [n for n in ember._C._math_functions
                    if n not in D.OPS and not (n.endswith("_") and n[:-1] in D.OPS)
                    and n != "polygamma"]
    assert not unregistered, f"ember's math functions missing from the registry: {unregistered}"


def test_registry_forms_exist_in_both_libraries():
    E, T = D.load_libs()
    libs = [E] if T is None else [E, T]
    D.SKIPPED.clear()
    ops = D.finalize(libs)
    assert len(ops) > 150
    for name, op in ops.items():
        assert op.forms, name
        if "inplace" in op.forms:
            assert all(hasattr(L.Tensor, op.inplace) for L in libs), name
        if "fn" in op.forms:
            assert all(L.has(op.fn) for L in libs), name
    print(f"registry: {len(ops)} ops; skipped: {D.SKIPPED or 'none'}")


# ---- the comparison itself -----------------------------------------------------------

def test_values_mismatch_rules():
    f = np.float32
    same = D.values_mismatch
    assert same(np.array([np.nan, 0.0, -np.inf], f), np.array([-np.nan, -0.0, -np.inf], f),
                "float32", None) is None
    assert same(np.array([1.0], f), np.array([np.nextafter(f(1), f(2))], f), "float32",
                None) is not None
    assert same(np.array([1.0], f), np.array([np.nextafter(f(1), f(2))], f), "float32",
                (4, 0.0)) is None
    assert same(np.array([np.inf], f), np.array([f(3e38)], f), "float32", (4, 1e30)) \
        is not None
    assert same(np.array([np.nan], f), np.array([1.0], f), "float32", (4, 1.0)) is not None
    assert same(np.array([3, 4], np.int8), np.array([3, 5], np.int8), "int8", None)
    assert same(np.array([1, 2]), np.array([9, 2]), "int64", None, mask=np.array([False, True])) \
        is None


class _Sabotaged(D.Lib):
    """ember with one op wrong: the harness must notice."""

    def __init__(self, mod, how):
        super().__init__(mod)
        self.how = how

    def resolve(self, path):
        f = super().resolve(path)
        if path != "add":
            return f
        if self.how == "value":
            return lambda *a, **k: f(*a, **k) * 2
        if self.how == "dtype":
            return lambda *a, **k: f(*a, **k).to(self.mod.float64)
        if self.how == "raise":
            def g(*a, **k):
                raise ValueError("sabotaged")
            return g
        return f


@pytest.mark.parametrize("how", ["value", "dtype", "raise"])
def test_the_harness_catches_a_wrong_op(how):
    E, T = D.load_libs()
    bad = _Sabotaged(ember, how)
    ops = D.finalize([E] if T is None else [E, T])
    a = D.TensorSpec("float32", np.array([1.5, -2.0, 3.0], np.float32))
    b = D.TensorSpec("float32", np.array([0.5, 4.0, -1.0], np.float32))
    case = D.Case("add", "fn", (a, b), {})
    status, m = D.check_case(case, bad, T, ops, numpy_mode=T is None)
    assert status == "mismatch", status
    assert m.kind == {"value": "values", "dtype": "dtype", "raise": "ember-raised"}[how]
    status, m = D.check_case(case, E, T, ops, numpy_mode=T is None)
    assert status == "ok", m and (m.kind, m.detail)


def test_repro_line_runs_in_both_libraries():
    E, T = D.load_libs()
    ops = D.finalize([E] if T is None else [E, T])
    x = D.TensorSpec("bfloat16", D.to_bf16(np.arange(6, dtype=np.float32)).reshape(2, 3),
                     (("permute", (1, 0)), ("step", 0, 2)))
    case = D.Case("add", "out", (x, 2.5), {"__out__": D.TensorSpec(
        "float32", np.zeros((0,), np.float32), fresh=True)})
    line = D.repro(case, ops)
    for L in [ember] + ([_torch] if HAS_TORCH else []):
        r = eval(line, {"L": L, "np": np, "nan": math.nan, "inf": math.inf})
        assert tuple(r.shape) == (2, 2) and str(r.dtype).endswith("float32")


# ---- the bulk run (seeded; a worker process, so that a crash is a reported mismatch) ---

@pytest.mark.parametrize("device", DEVICES)
def test_differential_bulk(device, tmp_path):
    _device_ok(device)
    report = REPORT if device == "cpu" and REPORT else str(tmp_path / "report.json")
    if device != "cpu" and REPORT:
        report = REPORT + f".{device}.json"
    cmd = [sys.executable, os.path.join(HERE, "differential.py"), "--cases", str(CASES),
           "--seed", str(SEED), "--device", device, "--seconds", str(_left(0.5)),
           "--report", report, "--isolate"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    with open(report) as f:
        rec = json.load(f)
    for c in rec["crashes"]:
        if "op" in c:
            _CRASHED_OPS.add(c["op"].split("[")[0])
    print(rec["summary"])
    if rec["skipped_ops"]:
        print("skipped (ember lacks them):", rec["skipped_ops"])
    assert rec["cases"] > 0
    lines = [rec["summary"]] + [f"CRASH {c}" for c in rec["crashes"]]
    lines += [f"{m['op']}[{m['form']}] {m['kind']}: {m['detail']}\n    ember: {m['ember'][:200]}"
              f"\n    torch: {m['torch'][:200]}\n    {m['repro'][:400]}"
              for m in rec["mismatches"][:40]]
    assert r.returncode == 0 and rec["mismatches_total"] == 0, "\n".join(lines) + r.stderr[-2000:]


@pytest.mark.skipif(not HAS_TORCH, reason="needs torch, the oracle: it is not installed here")
def test_the_harness_finds_torch_equal_to_itself(monkeypatch):
    """torch in ember's place: every registered op (those ember lacks too) is generated and
    compared; no mismatch may come out of the harness itself."""
    monkeypatch.setenv("EMBER_DIFF_SELF", "1")
    st_ = D.run_cases("cpu", min(CASES, 1500), SEED + 1, _left(0.1))
    bad = [f"{m.op}[{m.form}] {m.kind}: {m.detail}\n    {D.repro(m.case)[:300]}"
           for m in st_.mismatches[:20]]
    assert not st_.n_mismatches, st_.summary() + "\n" + "\n".join(bad)


def test_numpy_fallback_engine():
    """The engine of the CI (no torch): NumPy references for NUMPY_SUBSET. Run here too,
    so that the path stays exercised where torch is installed."""
    st_ = D.run_cases("cpu", min(CASES, 600), SEED, _left(0.1), oracle="none",
                      skip_ops=_CRASHED_OPS)
    print(st_.summary("cpu", "numpy"))
    assert st_.cases > 0 and st_.status.get("ok", 0) > 0
    bad = [f"{m.op}[{m.form}] {m.kind}: {m.detail}\n    {D.repro(m.case)[:300]}"
           for m in st_.mismatches[:20]]
    assert not st_.n_mismatches, st_.summary("cpu", "numpy") + "\n" + "\n".join(bad)


# ---- hypothesis: the same generator, drawn from hypothesis (shrinks a failure) ---------

_HYP = {}
_FAILING = set()  # (kind, device) of the hypothesis tests that have found a mismatch


def _hyp_env(device):
    if device not in _HYP:
        E, T = D.load_libs()
        numpy_mode = T is None
        ops = D.finalize([E] if numpy_mode else [E, T])
        _HYP[device] = (E, T, ops, numpy_mode)
    return _HYP[device]


def _seeded(f):
    if "EMBER_DIFF_SEED" in os.environ:
        return seed(SEED)(settings(derandomize=False)(f))
    return f


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kind", KINDS)
@_seeded
@settings(max_examples=max(10, CASES // 40), derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck), print_blob=False)
@given(data=st.data())
def test_differential_hypothesis(kind, device, data):
    _device_ok(device)
    if _spent() and (kind, device) not in _FAILING:
        return  # the time box is spent: the remaining examples pass untried (but a failing
        # example is replayed while hypothesis shrinks it: the draws must not change)
    E, T, ops, numpy_mode = _hyp_env(device)
    names = tuple(n for n, o in ops.items() if o.kind == kind and n not in _CRASHED_OPS
                  and (not numpy_mode or o.np is not None))
    if not names:
        return
    src = D.HypothesisSource(data)
    table = D.op_table(ops, numpy_mode).only(names)
    case = D.gen_case(src, ops, table, D.Ctx(device, numpy_mode), T)
    status, m = D.check_case(case, E, T, ops, numpy_mode)
    if status == "mismatch":
        _FAILING.add((kind, device))
    assert status != "mismatch", (f"{m.op}[{m.form}] {m.kind}: {m.detail}\n"
                                  f"  ember: {m.ember}\n  torch: {m.torch}\n"
                                  f"  repro: {D.repro(case, ops)}")
