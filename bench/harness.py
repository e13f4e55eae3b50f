"""Side-by-side timing of ember and a reference (torch, CuPy) in one process.

Each ``bench_<concept>.py`` beside this file defines ``run(table)`` and adds
rows with ``table.add(...)``. ``run.py`` collects them and prints one table of
ember/reference ratios. Times are medians over repeats after warm-up; host
per-call costs use a perf_counter around a batch of calls (synchronising first
when the call queues GPU work); GPU work is timed with device events.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional


def per_call(fn, *, calls=2000, repeat=15, warmup=200, sync=None):
    """Median seconds per call of ``fn()`` over ``repeat`` batches of ``calls``."""
    for _ in range(warmup):
        fn()
    if sync:
        sync()
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        if sync:
            sync()
        samples.append((time.perf_counter() - t0) / calls)
    return statistics.median(samples)


def gpu_seconds(fn, event_cls, sync, *, iters=1, repeat=7, warmup=3):
    """Median seconds per call of fn(): device events (event_cls, the library's Event)
    around `iters` calls, `repeat` samples after `warmup` calls and sync()."""
    for _ in range(warmup):
        fn()
    sync()
    samples = []
    for _ in range(repeat):
        start, end = event_cls(enable_timing=True), event_cls(enable_timing=True)
        start.record()
        for _ in range(iters):
            fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) / iters / 1e3)
    return statistics.median(samples)


def wall_seconds(step, sync, *, repeat=10, warmup=3):
    """Median wall-clock seconds of step() followed by sync() (a whole training step)."""
    for _ in range(warmup):
        step()
    sync()
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        step()
        sync()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def import_seconds(module, runs=7):
    """(median seconds inside a fresh interpreter for ``import module``,
    median seconds of the whole ``python -c 'import module'`` process)."""
    code = f"import time; t=time.perf_counter(); import {module}; print(time.perf_counter()-t)"
    inner, whole = [], []
    env = dict(os.environ)
    for _ in range(runs):
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=env, check=True)
        whole.append(time.perf_counter() - t0)
        inner.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(inner), statistics.median(whole)


def have(module):
    try:
        __import__(module)
        return True
    except Exception:
        return False


def reference_torch(cuda=True):
    """torch, the reference, where it is installed (and, with cuda, can use the GPU);
    else None: the rows then show ember's figures alone."""
    if not have("torch"):
        return None
    import torch
    if cuda and not torch.cuda.is_available():
        return None
    return torch


@dataclass
class Pair:
    """ember on the GPU and torch, the reference, with each side's Event class and
    synchronize. torch, T and t_sync are None where torch is missing or has no CUDA."""
    ember: Any
    torch: Any
    E: Any                 # ember.cuda.Event
    T: Any                 # torch.cuda.Event
    e_sync: Callable[[], None]
    t_sync: Optional[Callable[[], None]]


def gpu_pair(what, *, need_torch=False) -> Optional[Pair]:
    """The preamble of a bench's GPU rows: a Pair, or None after printing why ``what``
    ("the linalg rows") is skipped: no GPU for ember or, with need_torch, no torch with
    CUDA to compare with."""
    import ember
    if not ember.cuda.is_available():
        print(f"  no GPU: skipping {what}")
        return None
    torch = reference_torch()
    if torch is None and need_torch:
        why = "torch has no CUDA" if have("torch") else "torch not installed"
        print(f"  {why}: skipping {what}")
        return None
    return Pair(ember, torch, ember.cuda.Event, torch.cuda.Event if torch else None,
                ember.cuda.synchronize, torch.cuda.synchronize if torch else None)


@dataclass
class Row:
    name: str
    ember: float
    ref: float | None
    unit: str              # "us", "ms", "s", "GB/s", "TFLOP/s"
    higher_is_better: bool = False
    target: str = ""       # e.g. "<= 1.5 us" or ">= 0.97x"
    met: bool | None = None
    ref_name: str = "torch"  # what ref was measured on: "torch", or "numpy" for the CPU rows

    @property
    def ratio(self):
        if self.ref in (None, 0):
            return None
        return self.ember / self.ref


@dataclass
class Table:
    ref_name: str = "torch"
    rows: list = field(default_factory=list)

    def add(self, name, ember, ref, unit, *, higher_is_better=False, target="", met=None):
        row = Row(name, ember, ref, unit, higher_is_better, target, met, self.ref_name)
        self.rows.append(row)
        print(f"  {name}: ember {ember:.4g} {unit}" +
              (f", {self.ref_name} {ref:.4g} {unit}" if ref is not None else ""), flush=True)
        return row

    def render(self):
        head = ["what", "ember", self.ref_name, "ember/" + self.ref_name, "target", "met"]
        lines = []
        for r in self.rows:
            ratio = f"{r.ratio:.3f}" if r.ratio is not None else "-"
            ref = f"{r.ref:.4g} {r.unit}" if r.ref is not None else "-"
            met = {True: "yes", False: "NO", None: ""}[r.met]
            lines.append([r.name, f"{r.ember:.4g} {r.unit}", ref, ratio, r.target, met])
        widths = [max(len(str(x)) for x in col) for col in zip(head, *lines)]
        fmt = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
        out = [fmt(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
        out += [fmt(cells) for cells in lines]
        return "\n".join(out)


# ---- the record of a run (bench/run.py --json) ---------------------------------------

def _git(*args):
    """git's output in the checkout holding this file, or None outside one."""
    try:
        out = subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(__file__)), *args],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def run_metadata(benches=()):
    """What makes a run comparable with later ones: the GPU ("cpu" without one), ember's
    commit (this checkout's HEAD, dirty when tracked files differ from it; $EMBER_COMMIT
    which wins, for a copy whose .git is absent or stale), version and
    path, torch's version (None where it is not installed), Python's, the date (UTC)."""
    import datetime
    import importlib.metadata
    import platform

    import ember
    gpu = ember.cuda.get_device_name() if ember.cuda.is_available() else "cpu"
    if "torch" in sys.modules:
        torch_version = sys.modules["torch"].__version__
    else:
        try:
            torch_version = importlib.metadata.version("torch")
        except importlib.metadata.PackageNotFoundError:
            torch_version = None
    if os.environ.get("EMBER_COMMIT"):
        # A copy of the tree whose .git is absent or stale (the GPU machine): the
        # caller says which commit it is.
        commit, status = os.environ["EMBER_COMMIT"], ""
    else:
        commit = _git("rev-parse", "HEAD")
        status = _git("status", "--porcelain", "--untracked-files=no") if commit else None
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "gpu": gpu,
        "ember_commit": commit,
        "ember_dirty": bool(status) if commit else None,
        "ember_version": ember.__version__,
        "ember_path": os.path.dirname(os.path.abspath(ember.__file__)),
        "torch_version": torch_version,
        "python": platform.python_version(),
        "benches": list(benches),
    }


def _number(x):
    """x as JSON has it: non-finite floats (and None) become null."""
    if x is None:
        return None
    x = float(x)
    return x if x == x and x not in (float("inf"), float("-inf")) else None


def record(table, meta):
    """{"meta": meta, "rows": [one object per row]}: name, ember, torch (the reference's
    value, measured on "reference": torch, or numpy for CPU rows), unit, ratio
    (ember/reference), higher_is_better, target, met (true, false or null: no target)."""
    rows = [{"name": r.name, "ember": _number(r.ember), "torch": _number(r.ref),
             "reference": r.ref_name, "unit": r.unit, "ratio": _number(r.ratio),
             "higher_is_better": bool(r.higher_is_better), "target": r.target,
             "met": None if r.met is None else bool(r.met)}
            for r in table.rows]
    return {"meta": meta, "rows": rows}


def record_name(meta):
    """YYYY-MM-DD-<gpu>-<commit>.json, bench/results/'s naming: the GPU's name in lower
    case with dashes, the commit's first 7 hex digits ("nogit" outside a checkout, and
    "-dirty" after them when tracked files were changed)."""
    gpu = "-".join("".join(c if c.isalnum() else " " for c in meta["gpu"].lower()).split())
    commit = (meta["ember_commit"] or "nogit")[:7] + ("-dirty" if meta["ember_dirty"] else "")
    return f"{meta['date'][:10]}-{gpu}-{commit}.json"


def write_record(table, path, meta):
    """Writes record(table, meta) to path (a directory: a file named by record_name in
    it); returns the file's path."""
    import json
    if os.path.isdir(path) or path.endswith(os.sep):
        os.makedirs(path, exist_ok=True)
        path = os.path.join(path, record_name(meta))
    with open(path, "w") as f:
        json.dump(record(table, meta), f, indent=1, allow_nan=False)
        f.write("\n")
    return path
