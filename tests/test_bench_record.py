"""bench/run.py --json: the record of a run (every row with the GPU, ember's commit and
version, torch's version, the date) in the format bench/results/README.md describes; on
the CPU, with the rows that need no GPU and rows made up here."""
import importlib.util
import json
import math
import os
import pathlib
import subprocess
import sys

import ember

ROOT = pathlib.Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
META_KEYS = {"date", "gpu", "ember_commit", "ember_dirty", "ember_version", "ember_path",
             "torch_version", "python", "benches"}
ROW_KEYS = {"name", "ember", "torch", "reference", "unit", "ratio", "higher_is_better",
            "target", "met"}


def harness():
    """bench/harness.py, loaded under another name (bench/ is not put on sys.path)."""
    if "bench_harness" not in sys.modules:
        spec = importlib.util.spec_from_file_location("bench_harness", BENCH / "harness.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["bench_harness"] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
    return sys.modules["bench_harness"]


def check_record(rec, benches):
    assert set(rec) == {"meta", "rows"}
    meta = rec["meta"]
    assert set(meta) == META_KEYS
    assert meta["gpu"] == (ember.cuda.get_device_name() if ember.cuda.is_available() else "cpu")
    assert meta["ember_version"] == ember.__version__
    assert meta["benches"] == benches
    assert meta["date"][:4].isdigit() and meta["date"][4] == "-" and "T" in meta["date"]
    if meta["ember_commit"] is not None:
        assert len(meta["ember_commit"]) == 40 and int(meta["ember_commit"], 16) >= 0
        assert isinstance(meta["ember_dirty"], bool)
    assert meta["torch_version"] is None or isinstance(meta["torch_version"], str)
    for row in rec["rows"]:
        assert set(row) == ROW_KEYS, row
        assert isinstance(row["name"], str) and isinstance(row["unit"], str)
        assert isinstance(row["ember"], float) and math.isfinite(row["ember"])
        assert row["torch"] is None or isinstance(row["torch"], float)
        assert row["reference"] in ("torch", "numpy")
        assert isinstance(row["higher_is_better"], bool) and isinstance(row["target"], str)
        assert row["met"] in (True, False, None)
        if row["torch"] in (None, 0.0):
            assert row["ratio"] is None
        else:
            assert row["ratio"] == row["ember"] / row["torch"]


def test_run_py_writes_every_row_and_the_metadata(tmp_path):
    # bench_runtime's import rows need no GPU (its CUDA rows run where there is one)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(pathlib.Path(ember.__file__).resolve().parent.parent)]
        + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    out = tmp_path / "run.json"
    r = subprocess.run([sys.executable, str(BENCH / "run.py"), "runtime", "--json", str(out)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"record: {out}" in r.stdout
    rec = json.loads(out.read_text())
    check_record(rec, ["runtime"])
    names = [row["name"] for row in rec["rows"]]
    assert names[:2] == ["import (inside process)", "python -c 'import X' (whole)"]
    printed = r.stdout[r.stdout.index("| what"):]
    assert all(f"| {name} " in printed for name in names)  # the table's rows, all of them
    assert rec["rows"][0]["target"] == "<= 0.15 s" and isinstance(rec["rows"][0]["met"], bool)


def test_record_of_made_up_rows(tmp_path):
    h = harness()
    table = h.Table()
    table.add("a", 2.0, 4.0, "us", target="<= 1.5 us", met=False)
    table.add("b", 300.0, None, "GB/s", higher_is_better=True)
    table.add("c", float("inf"), 0.0, "ms", met=True)
    table.ref_name = "numpy"
    table.add("d [ref numpy]", 1.0, 2.0, "ms", target=">= 0.8x numpy speed", met=True)
    meta = h.run_metadata(["fake"])
    path = h.write_record(table, str(tmp_path / "r.json"), meta)
    rec = json.loads(pathlib.Path(path).read_text())
    a, b, c, d = rec["rows"]
    assert a == {"name": "a", "ember": 2.0, "torch": 4.0, "reference": "torch", "unit": "us",
                 "ratio": 0.5, "higher_is_better": False, "target": "<= 1.5 us", "met": False}
    assert b["torch"] is None and b["ratio"] is None and b["higher_is_better"] is True
    assert b["met"] is None and b["target"] == ""
    assert c["ember"] is None and c["ratio"] is None and c["met"] is True  # inf: null, valid JSON
    assert d["reference"] == "numpy" and d["ratio"] == 0.5
    rec["rows"] = [a, b, d]
    check_record(rec, ["fake"])


def test_a_directory_gets_the_results_name(tmp_path):
    h = harness()
    table = h.Table()
    table.add("a", 1.0, 1.0, "us")
    meta = dict(h.run_metadata([]), date="2025-03-04T05:06:07+00:00",
                gpu="NVIDIA H100 80GB HBM3", ember_commit="0123456789abcdef" * 2 + "01234567",
                ember_dirty=False)
    assert h.record_name(meta) == "2025-03-04-nvidia-h100-80gb-hbm3-0123456.json"
    path = h.write_record(table, str(tmp_path) + os.sep, meta)
    assert path == str(tmp_path / "2025-03-04-nvidia-h100-80gb-hbm3-0123456.json")
    assert json.loads(pathlib.Path(path).read_text())["meta"] == meta
    dirty = dict(meta, gpu="cpu", ember_dirty=True)
    assert h.record_name(dirty) == "2025-03-04-cpu-0123456-dirty.json"
    assert h.record_name(dict(meta, ember_commit=None, ember_dirty=None)).endswith("-nogit.json")
