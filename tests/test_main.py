"""`python -m ember`: the report and the end-to-end demo."""
import subprocess
import sys

import pytest

import ember


def test_python_m_ember_reports_and_runs_the_demo():
    r = subprocess.run([sys.executable, "-m", "ember"], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert f"ember {ember.__version__}" in out
    assert "CUDA:" in out and "GPUs:" in out
    n = ember.cuda.device_count()
    assert f"GPUs: {n}" in out
    if n:
        assert "driver: " in out and "supports CUDA" in out
        name = ember.cuda.get_device_name(0)
        assert f"cuda:0  {name}" in out
        assert "demo on cuda:0" in out
    else:
        assert "demo on cpu" in out
    assert out.rstrip().endswith("-> OK")


def test_saxpy_demo_checks_its_result():
    r = ember._C._saxpy_demo(-1, 1000)
    assert r["device"] == "cpu" and r["n"] == 1000 and r["max_abs_error"] < 1e-6
    with pytest.raises(ValueError, match="n must be in"):
        ember._C._saxpy_demo(-1, 0)


@pytest.mark.gpu
def test_saxpy_demo_on_the_gpu():
    r = ember._C._saxpy_demo(0, (1 << 20) + 3)
    assert r["device"] == "cuda:0" and r["max_abs_error"] < 1e-5 and r["kernel_ms"] > 0
