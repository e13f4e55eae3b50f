"""Type stubs: ember ships py.typed, so python/ember/_C/*.pyi (written by
tools/gen_stubs.py) must describe the built extension.

- The stubs of the ember that runs (installed, or python/ember in a checkout) name
  every attribute of ember._C, of its submodules and of their classes: a binding
  added without a stub entry fails here (and, installed, this shows the wheel
  carries the .pyi files).
- mypy, strict (tests/typing/mypy.ini), accepts tests/typing/user_script.py, sees
  every name of ember.__all__, and reports exactly the marked lines of
  tests/typing/type_errors.py.
- The stubs pass mypy --strict themselves.
- user_script.py runs: what the stubs promise is what ember does.
"""
import ast
import os
import pathlib
import re
import site
import subprocess
import sys
import sysconfig
import types

import pytest

import ember
from ember import _C

ROOT = pathlib.Path(__file__).resolve().parents[1]
TYPING_DIR = ROOT / "tests" / "typing"
CONFIG = TYPING_DIR / "mypy.ini"
PKG_DIR = pathlib.Path(ember.__file__).resolve().parent  # the ember these tests import
SOURCE_STUBS = ROOT / "python" / "ember" / "_C"
REGENERATE = "run `PYTHONPATH=python python tools/gen_stubs.py` (signatures: tools/stubs/*.pyi)"

# Members that are not ember's API: object's and pybind11's own.
_NOT_API = {"__doc__", "__module__", "__dict__", "__weakref__", "_pybind11_conduit_v1_"}
_C_SLOTS = (type(object.__init__), type(object().__init__))  # wrapper_descriptor, method-wrapper


def _bound_names(stmt):
    if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return {stmt.target.id}
    if isinstance(stmt, ast.Assign):
        return {t.id for t in stmt.targets if isinstance(t, ast.Name)}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    return set()


def _stub_contents(path):
    """(top-level names, {class: member names}) of a stub file."""
    tree = ast.parse(path.read_text())
    names, classes = set(), {}
    for stmt in tree.body:
        names |= _bound_names(stmt)
        if isinstance(stmt, ast.ClassDef):
            classes[stmt.name] = set().union(*(_bound_names(s) for s in stmt.body))
    return names, classes


def _extension_modules():
    yield "ember._C", _C, "__init__.pyi"
    for name in dir(_C):
        value = getattr(_C, name)
        if isinstance(value, types.ModuleType):
            yield f"ember._C.{name}", value, f"{name}.pyi"


def test_stubs_name_every_attribute_of_the_extension():
    missing, checked = [], 0
    for label, mod, stub in _extension_modules():
        path = PKG_DIR / "_C" / stub
        if not path.exists():
            missing.append(f"{label}: no stub file {path}")
            continue
        names, classes = _stub_contents(path)
        for name in dir(mod):
            if name.startswith("__") and name.endswith("__") and name != "__version__":
                continue
            checked += 1
            if name not in names:
                missing.append(f"{label}.{name}")
            value = getattr(mod, name)
            if not isinstance(value, type) or name not in classes:
                continue
            for member, obj in vars(value).items():
                if member in _NOT_API or isinstance(obj, _C_SLOTS):
                    continue
                if member == "__new__" and isinstance(obj, types.BuiltinFunctionType):
                    continue
                checked += 1
                if member not in classes[name]:
                    missing.append(f"{label}.{name}.{member}")
    assert checked > 700, checked  # the walk saw the module (Tensor alone has ~400 members)
    assert not missing, f"not in the stubs ({REGENERATE}):\n  " + "\n  ".join(missing)


def test_tensor_stub_has_real_signatures():
    """The operators and the hot methods have parameters, not (*args, **kwargs)."""
    path = PKG_DIR / "_C" / "__init__.pyi"
    names, _ = _stub_contents(path)
    tree = ast.parse(path.read_text())
    tensor = next(s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == "Tensor")
    generic = {f.name for f in tensor.body if isinstance(f, ast.FunctionDef)
               and f.args.vararg is not None and f.args.kwarg is not None}
    for name in ("__add__", "__radd__", "__iadd__", "__lt__", "__eq__", "__getitem__",
                 "__setitem__", "__matmul__", "__neg__", "__len__", "__iter__", "to", "sum",
                 "view", "reshape", "backward", "exp", "add_", "max"):
        assert name not in generic
    assert {"zeros", "ones", "randn", "tensor", "from_numpy", "Tensor", "Size", "dtype",
            "device", "Generator", "cuda", "float32"} <= names


def _site_dirs():
    dirs = list(getattr(site, "getsitepackages", lambda: [])())
    dirs += [site.getusersitepackages(), sysconfig.get_paths()["purelib"],
             sysconfig.get_paths()["platlib"]]
    return {pathlib.Path(d).resolve() for d in dirs}


def _mypy(args, cache_dir, mypypath=None):
    """Runs mypy on args; {(file name, line): message} of its errors, and its output."""
    pytest.importorskip("mypy", reason="mypy is not installed (pip install '.[test]')")
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    if mypypath is not None:
        env["MYPYPATH"] = str(mypypath)
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(CONFIG), "--cache-dir",
         str(cache_dir), "--python-executable", sys.executable, "--show-error-codes",
         "--no-color-output", "--no-pretty", *map(str, args)],
        capture_output=True, text=True, env=env, cwd=cache_dir.parent, timeout=600)
    out = r.stdout + r.stderr
    errors = {}
    for m in re.finditer(r"^(.+?):(\d+): error: (.*)$", out, re.M):
        errors[(pathlib.Path(m.group(1)).name, int(m.group(2)))] = m.group(3)
    assert r.returncode in (0, 1), out  # 2: mypy itself failed (bad config, crash)
    assert (r.returncode == 1) == bool(errors), out
    return errors, out


@pytest.mark.slow
def test_mypy_types_a_user_script_and_rejects_mistakes(tmp_path):
    # mypy must find the ember these tests import: installed, it finds it (and its
    # py.typed) in site-packages; else (a checkout on PYTHONPATH) through MYPYPATH.
    parent = PKG_DIR.parent
    mypypath = None if parent in _site_dirs() else parent
    all_names = tmp_path / "all_names.py"
    all_names.write_text("import ember\n\n" + "".join(
        f"_{i} = ember.{name}\n" for i, name in enumerate(ember.__all__)))
    user, bad = TYPING_DIR / "user_script.py", TYPING_DIR / "type_errors.py"
    errors, out = _mypy([user, all_names, bad], tmp_path / "cache", mypypath)

    def where(name):
        return {line for (f, line) in errors if f == name}

    assert not where(user.name), f"mypy rejects {user.name}:\n{out}"
    unseen = [ember.__all__[i - 3] for i in sorted(where(all_names.name))]
    assert not unseen, (f"mypy does not see ember.{unseen} (in ember.__all__): declare them "
                        f"under `if TYPE_CHECKING:` in python/ember/__init__.py\n{out}")
    marked = {i for i, line in enumerate(bad.read_text().splitlines(), 1)
              if re.search(r"  # E: [a-z-]+$", line)}
    assert len(marked) >= 10
    assert where(bad.name) == marked, out
    assert {f for f, _ in errors} == {bad.name}, out


@pytest.mark.slow
@pytest.mark.skipif(not SOURCE_STUBS.is_dir(), reason="not run from a source checkout")
def test_stubs_pass_mypy_strict(tmp_path):
    errors, out = _mypy(["-p", "ember._C", "-m", "ember._exports"], tmp_path / "cache",
                        ROOT / "python")
    assert not errors, out


def test_user_script_runs(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(PKG_DIR.parent)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    r = subprocess.run([sys.executable, str(TYPING_DIR / "user_script.py")], capture_output=True,
                       text=True, env=env, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("loss ")
