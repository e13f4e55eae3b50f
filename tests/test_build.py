"""The build: without CUDA it still succeeds, as a CPU-only ember that says so."""
import os
import pathlib
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_cpu_only_build_succeeds_and_says_so(tmp_path):
    pytest.importorskip("scikit_build_core")
    pytest.importorskip("pybind11")
    if not (ROOT / "pyproject.toml").exists():
        pytest.skip("not run from a source checkout")
    wheel_dir, target = tmp_path / "wheel", tmp_path / "site"
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-v", "--no-build-isolation", "--no-deps",
         "-Ccmake.define.EMBER_ENABLE_CUDA=OFF", f"-Cbuild-dir={tmp_path / 'build'}",
         "-w", str(wheel_dir), str(ROOT)],
        capture_output=True, text=True, timeout=900)
    log = r.stdout + r.stderr
    assert r.returncode == 0, log[-4000:]
    assert "building a CPU-only ember" in " ".join(log.split())
    wheel = next(wheel_dir.glob("ember-*.whl"))
    with zipfile.ZipFile(wheel) as zf:  # the type stubs ship with the package (py.typed)
        assert {"ember/py.typed", "ember/_exports.pyi", "ember/_C/__init__.pyi",
                "ember/_C/cuda.pyi"} <= set(zf.namelist())
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                    str(target), str(wheel)], check=True, timeout=300)
    env = dict(os.environ, PYTHONPATH=str(target))
    code = ("import ember, pytest\n"
            "assert not ember._C._compiled_with_cuda and ember.version.cuda is None\n"
            "assert not ember.cuda.is_available() and ember.cuda.device_count() == 0\n"
            "with pytest.raises(RuntimeError, match='built without CUDA'): ember.cuda.init()\n"
            "print(ember._C._saxpy_demo(-1, 100)['max_abs_error'] < 1e-6)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
