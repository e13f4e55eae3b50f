"""Every script in examples/ runs (on the GPU where there is one, else on the CPU),
and the walkthrough notebook executes (with nbclient)."""
import pathlib
import re
import subprocess
import sys

import pytest

import ember

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
NOTEBOOKS = sorted((ROOT / "examples").glob("*.ipynb"))
GPU = ember.cuda.is_available()

# Small sizes on the CPU (2 cores, each script well under 20 s); the GPU runs the
# scripts at moderate sizes (the defaults are the guides' full-size benchmarks).
ARGS = {
    "heavy_compute_streams.py": ["--n", "4000000" if GPU else "200000", "--repeat", "3"],
    "matmul.py": ["--n", "2048" if GPU else "256"],
    "linear_model.py": ["--batch", "64", "--features", "784" if GPU else "128"],
    "training_loop.py": ["--samples", "4096" if GPU else "512", "--epochs", "3"],
    "two_branch_streams.py": ["--batch", "16" if GPU else "2", "--size", "128" if GPU else "16",
                              "--repeat", "3"],
    "mixed_precision.py": ["--samples", "2048" if GPU else "256", "--epochs", "3"],
    "data_loading_overlap.py": ["--batches", "4", "--mib", "16"],
    "memory_stats.py": [],
    "custom_kernel.py": ["--samples", "1024" if GPU else "256", "--epochs", "20"],
    "devices.py": [],
}


def run(script, *args):
    r = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "using " in r.stdout
    return r.stdout


def test_every_example_has_test_arguments():
    assert sorted(p.name for p in EXAMPLES) == sorted(ARGS)


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(script):
    out = run(script, *ARGS[script.name])
    assert f"using {'cuda' if GPU else 'cpu'}" in out


def test_heavy_compute_prints_both_times():
    out = run(ROOT / "examples" / "heavy_compute_streams.py", "--n", "1000", "--repeat", "1")
    m = re.search(r"one stream ([\d.]+) ms, two streams ([\d.]+) ms .*same results: True", out)
    assert m, out
    assert float(m.group(1)) > 0 and float(m.group(2)) > 0


@pytest.mark.parametrize("name", ["training_loop.py", "mixed_precision.py"])
def test_training_examples_report_a_falling_loss(name):
    out = run(ROOT / "examples" / name, *ARGS[name])
    first, last = map(float, re.search(r"loss fell from ([\d.]+) to ([\d.]+)", out).groups())
    assert last < first


def test_examples_reject_bad_arguments():
    r = subprocess.run([sys.executable, str(ROOT / "examples" / "matmul.py"), "--n", "x"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "invalid int value" in r.stderr


@pytest.mark.gpu
def test_memory_example_shows_the_oom_and_the_mismatch():
    out = run(ROOT / "examples" / "memory_stats.py")
    assert "OutOfMemoryError: CUDA out of memory" in out
    assert "out-of-memory errors counted by the allocator: " in out
    assert "RuntimeError: " in out and "after .to(device): [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]" in out


@pytest.mark.gpu
def test_two_streams_examples_agree_with_one_stream():
    out = run(ROOT / "examples" / "two_branch_streams.py", "--batch", "8", "--size", "64")
    assert "same output: True" in out
    out = run(ROOT / "examples" / "heavy_compute_streams.py", "--n", "1000000")
    assert "same results: True" in out


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(notebook):
    # The one reason to skip: no nbclient (the GPU machine may lack it). nbformat comes
    # with nbclient; a missing ipykernel fails (the test extras are incomplete).
    nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (pip install "
                                   "'.[test]'): the notebook cannot be executed")
    import nbformat
    nb = nbformat.read(notebook, as_version=4)
    # Stored without outputs: the repository holds the source only.
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, \
                f"{notebook.name} is stored with outputs: clear them before committing"
    client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                                     resources={"metadata": {"path": str(notebook.parent)}})
    client.execute()  # raises CellExecutionError, with the cell and traceback, on a failure
    text = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                     for o in c.outputs)
    assert f"using {'cuda' if GPU else 'cpu'}" in text
    assert "[1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0]" in text


def test_custom_kernel_matches_ember_ops_and_trains():
    out = run(ROOT / "examples" / "custom_kernel.py", *ARGS["custom_kernel.py"])
    assert "match: True" in out and "falling: True" in out, out
