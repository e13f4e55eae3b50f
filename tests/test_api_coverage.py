"""bench/api_coverage.py: the counting, on fake namespaces (no torch needed), and, where
torch is installed, that docs/compat.md is what the tool writes today."""
import importlib.util
import pathlib
import sys
import types

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def coverage_module():
    if "bench_api_coverage" not in sys.modules:
        spec = importlib.util.spec_from_file_location("bench_api_coverage",
                                                      ROOT / "bench" / "api_coverage.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["bench_api_coverage"] = module
        spec.loader.exec_module(module)
    return sys.modules["bench_api_coverage"]


def _fn(name, module, body=None):
    def f(*args):
        if body:
            return body(*args)
        return sum(args) if args else 0
    f.__name__ = name
    f.__module__ = module
    return f


def fake_libs():
    """A fake torch (functions, a class, an excluded family, a re-export) and a fake ember
    with one working function, one stub, one that raises, one that returns another value."""
    torch = types.ModuleType("torch")
    torch.__all__ = ["add", "mul", "sub", "div", "quantize_per_tensor", "Thing", "neg"]
    for n in ("add", "mul", "sub", "div", "quantize_per_tensor", "neg"):
        setattr(torch, n, _fn(n, "torch"))
    torch.Thing = type("Thing", (), {"__module__": "torch"})
    torch.Optional = types.SimpleNamespace(__module__="typing")  # not torch's own: not counted
    torch._private = _fn("_private", "torch")
    torch.Tensor = type("Tensor", (), {"__module__": "torch"})
    ember = types.ModuleType("ember")
    ember.add = _fn("add", "ember")

    def stub(*a):
        raise NotImplementedError("not yet")
    ember.mul = stub

    def raises(*a):
        raise ValueError("bad")
    ember.sub = raises
    ember.div = _fn("div", "ember", lambda *a: 42)
    ember.Thing = type("Thing", (), {})
    ember.Tensor = torch.Tensor
    return torch, ember


def simple_probe(name, tobj, eobj, tlib, elib, method=None):
    """Calls both with (1, 2) and compares, like api_probes.probe without tensors."""
    cov = coverage_module()
    try:
        expected = tobj(1, 2)
    except Exception:
        return "unprobed", ""
    try:
        got = eobj(1, 2)
    except Exception as e:
        return cov.api_probes._classify_exc(e), type(e).__name__
    return ("works", "") if got == expected else ("differs", "values differ")


def test_count_on_a_fake_namespace():
    cov = coverage_module()
    torch, ember = fake_libs()
    results, excl = cov.count(torch, ember, [("torch", "torch", "functions")], probe=simple_probe)
    rows = {n: v for n, v, _ in results["torch"]}
    assert rows == {"add": "works", "mul": "stub", "sub": "error", "div": "differs",
                    "neg": "missing"}
    assert excl["torch"] == [("quantize_per_tensor", "quantization")]
    (label, covered, total, unprobed, present), = cov.summary(results)
    assert (label, covered, total, unprobed, present) == ("torch", 1, 5, 0, 4)
    table = cov.table(results)
    assert "| `torch` | 1 | 5 | 20.0% | 4 | 0 | 3 |" in table


def test_count_classes_and_exclusions():
    cov = coverage_module()
    torch, ember = fake_libs()
    results, _ = cov.count(torch, ember, [("torch (classes)", "torch", "classes")],
                           probe=lambda *a, **k: ("works", ""))
    assert [(n, v) for n, v, _ in results["torch (classes)"]] == [("Tensor", "works"),
                                                                 ("Thing", "works")]
    assert cov.excluded("sparse_coo_tensor")[0] == "sparse layouts"
    assert cov.excluded("cudnn_convolution")[0] == "backend internals"
    assert cov.excluded("add") is None


def test_generated_probe_judges_against_the_reference():
    """api_probes.probe with a fake 'library': a stub is a stub, a wrong value differs."""
    cov = coverage_module()
    probes = cov.api_probes

    class Lib:
        Tensor = list

        @staticmethod
        def manual_seed(s):
            pass

        @staticmethod
        def tensor(x):
            return x

        class nn:
            class Module:
                pass

    def ref(*a):
        return 3

    def stub(*a):
        raise NotImplementedError

    assert probes.probe("torch.f", lambda: 3, lambda: 3, Lib, Lib)[0] == "works"
    assert probes.probe("torch.f", lambda: 3, lambda: 4, Lib, Lib)[0] == "differs"
    assert probes.probe("torch.f", lambda: 3, stub, Lib, Lib)[0] == "stub"
    assert probes.probe("torch.set_x", ref, ref, Lib, Lib)[0] == "unprobed"  # side effect


def test_compat_docs_are_current(torch, tmp_path):
    """docs/compat.md is what `bench/api_coverage.py --write-docs` writes now."""
    import ember
    if ember.cuda.is_available():
        pytest.skip("docs/compat.md is written where no GPU is present (a GPU probes torch.cuda too)")
    doc = (ROOT / "docs" / "compat.md").read_text()
    if f"against torch {torch.__version__.split('+')[0]};" not in doc:
        pytest.skip(f"docs/compat.md was written against another torch than {torch.__version__}")
    cov = coverage_module()
    out = tmp_path / "compat.md"
    assert cov.main(["--write-docs", "--docs-path", str(out)]) == 0
    assert out.read_text() == doc, (
        "docs/compat.md is stale: run `python3 bench/api_coverage.py --write-docs` with torch "
        "installed and commit the result")
