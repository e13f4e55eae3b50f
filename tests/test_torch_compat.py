"""Code written for torch runs on ember with the imports changed.

tests/guides/*.py are the guides' examples written for torch (``import torch``),
deterministic (NumPy data and weights, fixed seeds) and printing ``name = value``
lines. Each is rewritten to ember (``import torch`` -> ``import ember as torch``,
``import torch.nn as nn`` -> ``import ember.nn as nn``, ``from torch.utils.data
import ...`` -> ``from ember.utils.data import ...``) and run:
- everywhere, against references computed here with NumPy;
- where torch is installed (the GPU machine), against the unchanged script run
  with torch, on the same device.
"""
import math
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import ember

GUIDES_DIR = pathlib.Path(__file__).resolve().parent / "guides"
DEVICE = "cuda" if ember.cuda.is_available() else "cpu"

_RULES = [
    (re.compile(r"^(\s*)import torch\s*$", re.M), r"\1import ember as torch"),
    (re.compile(r"^(\s*)import torch\.([\w.]+) as (\w+)\s*$", re.M), r"\1import ember.\2 as \3"),
    (re.compile(r"^(\s*)from torch(\.[\w.]+)? import ", re.M), r"\1from ember\2 import "),
]


def to_ember(source):
    """torch's imports rewritten to ember's; the rest of the code is unchanged."""
    for pattern, repl in _RULES:
        source = pattern.sub(repl, source)
    left = re.findall(r"^\s*(?:import|from)\s+torch\b.*$", source, re.M)
    if left:
        raise ValueError(f"imports of torch the rewrite does not handle: {left}")
    return source


def test_rewrite_of_the_imports():
    src = ("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
           "from torch.utils.data import DataLoader, TensorDataset\nfrom torch import nn, optim\n"
           "    import torch\nx = torch.zeros(3)  # torch stays the name\n")
    assert to_ember(src) == (
        "import ember as torch\nimport ember.nn as nn\nimport ember.nn.functional as F\n"
        "from ember.utils.data import DataLoader, TensorDataset\nfrom ember import nn, optim\n"
        "    import ember as torch\nx = torch.zeros(3)  # torch stays the name\n")
    with pytest.raises(ValueError, match="does not handle"):
        to_ember("import torch.nn\n")


def parse(stdout):
    out = {}
    for line in stdout.splitlines():
        m = re.fullmatch(r"(\w+) = (\S+)", line.strip())
        if m:
            key, text = m.groups()
            for conv in (int, float, str):
                try:
                    out[key] = conv(text)
                    break
                except ValueError:
                    pass
    return out


def run_script(path, args):
    r = subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True,
                       timeout=300, cwd=path.parent)
    assert r.returncode == 0, f"{path.name} failed:\n{r.stdout}\n{r.stderr}"
    return parse(r.stdout)


def run_on_ember(name, args, tmp_path):
    script = tmp_path / f"{name}.py"
    script.write_text(to_ember((GUIDES_DIR / f"{name}.py").read_text()))
    return run_script(script, args)


def assert_close(got, want, rtol, atol, what):
    assert set(got) == set(want), f"{what}: printed {sorted(got)}, expected {sorted(want)}"
    for key, w in want.items():
        g = got[key]
        if isinstance(w, float) or isinstance(g, float):
            assert math.isfinite(g) and abs(g - w) <= atol + rtol * abs(w), \
                f"{what}: {key} = {g!r}, expected {w!r} (rtol {rtol}, atol {atol})"
        else:
            assert g == w, f"{what}: {key} = {g!r}, expected {w!r}"


# ---- NumPy references (float64 from the same float32 inputs) ----------------------

def ref_heavy_compute(n):
    x = np.random.default_rng(0).random(n, dtype=np.float32).astype(np.float64)
    y = x**2 + x ** (3.0 ** (np.sin(x) ** np.cos(x))) + np.tan(x)
    return {"sum": y.sum(), "max": y.max(), "first": y[0], "two_streams_sum": y.sum(),
            "streams_equal": 1}


def ref_matmul(n):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((n, n), dtype=np.float32).astype(np.float64)
    b = rng.standard_normal((n, n), dtype=np.float32).astype(np.float64)
    c = a @ b
    return {"device_ok": 1, "sum": c.sum(), "abs_sum": np.abs(c).sum(), "c00": c[0, 0],
            "c_last": c[-1, -1]}


def ref_linear(batch, features, classes):
    rng = np.random.default_rng(2)
    w = (rng.standard_normal((classes, features), dtype=np.float32) * 0.05).astype(np.float64)
    b = rng.standard_normal(classes, dtype=np.float32).astype(np.float64)
    x = rng.standard_normal((batch, features), dtype=np.float32).astype(np.float64)
    out = x @ w.T + b
    return {"on_device": 1, "requires_grad": 1, "sum": out.sum(), "abs_sum": np.abs(out).sum(),
            "out00": out[0, 0], "argmax_sum": int(out.argmax(axis=1).sum())}


def mlp_sgd(x, y, params, lr, batches, steps_per_batch=1):
    """Linear-ReLU-Linear, MSELoss (mean), plain SGD; yields the loss of each step."""
    w1, b1, w2, b2 = params
    for xb, yb in batches:
        pre = xb @ w1.T + b1
        h = np.maximum(pre, 0.0)
        pred = h @ w2.T + b2
        yield ((pred - yb) ** 2).mean()
        d = 2.0 * (pred - yb) / pred.size
        gw2, gb2 = d.T @ h, d.sum(0)
        dh = (d @ w2) * (pre > 0)
        gw1, gb1 = dh.T @ xb, dh.sum(0)
        for p, g in zip(params, (gw1, gb1, gw2, gb2)):
            p -= lr * g


def ref_training(samples, epochs, batch_size, lr):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((samples, 16), dtype=np.float32)
    y = (x @ rng.standard_normal((16, 4), dtype=np.float32)).astype(np.float32)
    params = [rng.standard_normal((32, 16), dtype=np.float32) * 0.25,
              rng.standard_normal(32, dtype=np.float32) * 0.1,
              rng.standard_normal((4, 32), dtype=np.float32) * 0.25,
              rng.standard_normal(4, dtype=np.float32) * 0.1]
    params = [p.astype(np.float64) for p in params]
    x, y = x.astype(np.float64), y.astype(np.float64)
    out = {}
    for epoch in range(epochs):
        batches = [(x[i:i + batch_size], y[i:i + batch_size])
                   for i in range(0, samples, batch_size)]
        losses = list(mlp_sgd(x, y, params, lr, batches))
        out[f"loss_{epoch}"] = sum(losses) / len(losses)
    out["w_sum"] = sum(p.sum() for p in params)
    return out


def ref_two_branch(batch, size):
    rng = np.random.default_rng(4)
    convs = []
    for _ in range(2):
        w = (rng.standard_normal((64, 3, 3, 3), dtype=np.float32) * 0.2).astype(np.float64)
        b = (rng.standard_normal(64, dtype=np.float32) * 0.1).astype(np.float64)
        convs.append((w, b))
    x = rng.standard_normal((batch, 3, size, size), dtype=np.float32).astype(np.float64)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))  # n c h w i j
    out = sum(np.maximum(np.einsum("nchwij,ocij->nohw", win, w) + b[:, None, None], 0.0)
              for w, b in convs)
    return {"shape": f"{batch}x64x{size}x{size}", "sum": out.sum(), "abs_max": np.abs(out).max(),
            "out0": out[0, 0, 0, 0], "out_last": out[-1, -1, -1, -1]}


def ref_mixed_precision(samples, steps):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((samples, 16), dtype=np.float32).astype(np.float64)
    y = rng.standard_normal((samples, 4), dtype=np.float32).astype(np.float64)
    params = [(rng.standard_normal(s, dtype=np.float32) * 0.2).astype(np.float64)
              for s in ((32, 16), (32,), (4, 32), (4,))]
    losses = list(mlp_sgd(x, y, params, 0.05, [(x, y)] * steps))
    out = {f"loss_{i}": v for i, v in enumerate(losses)}
    out.update(out_is_amp=1, params_fp32=1, w_sum=sum(p.sum() for p in params))
    return out


def ref_data_loading(rows, batch_size):
    data = np.random.default_rng(6).standard_normal((rows, 128), dtype=np.float32)
    return {"sum_sq": (data.astype(np.float64) ** 2).sum(), "batches": -(-rows // batch_size),
            "all_pinned": 1}


def ref_memory():
    if DEVICE == "cpu":
        return {"gpu": 0}
    return {"allocated_delta": 1 << 20, "reserved_covers": 1, "freed_delta": 0, "peak_covers": 1,
            "stats_has_keys": 1, "oom": 1, "recovered": 1, "mismatch": 1, "fixed": 6.0}


# name: (command-line arguments, NumPy reference, rtol, atol). Sizes are small: CPU-cheap.
GUIDES = {
    "heavy_compute": (["--n", "65536"], lambda: ref_heavy_compute(65536), 1e-5, 1e-6),
    "matmul": (["--n", "128"], lambda: ref_matmul(128), 1e-4, 1e-3),
    "linear": (["--batch", "16", "--features", "64", "--classes", "10"],
               lambda: ref_linear(16, 64, 10), 1e-4, 1e-4),
    "training": (["--samples", "256", "--epochs", "3", "--batch-size", "32"],
                 lambda: ref_training(256, 3, 32, 0.05), 1e-4, 1e-5),
    "two_branch": (["--batch", "2", "--size", "12"], lambda: ref_two_branch(2, 12), 5e-3, 5e-3),
    # bfloat16 on the CPU, float16 on the GPU, against float64: loose
    "mixed_precision": (["--samples", "64", "--steps", "6"], lambda: ref_mixed_precision(64, 6),
                        3e-2, 1e-3),
    "data_loading": (["--rows", "300", "--batch-size", "64"], lambda: ref_data_loading(300, 64),
                     1e-5, 1e-6),
    "memory": ([], ref_memory, 0.0, 0.0),
}
# ember against torch on the same device: what differs is only the order of sums and,
# for convolutions, torch's TF32 default; autocast's float16/bfloat16 rounding.
TORCH_RTOL = {"two_branch": 5e-3, "mixed_precision": 1e-2}


def test_every_guide_is_checked():
    assert sorted(p.stem for p in GUIDES_DIR.glob("*.py")) == sorted(GUIDES)


@pytest.mark.parametrize("name", sorted(GUIDES))
def test_guide_on_ember_matches_numpy(name, tmp_path):
    args, ref, rtol, atol = GUIDES[name]
    got = run_on_ember(name, args, tmp_path)
    assert_close(got, ref(), rtol, atol, f"{name} on ember ({DEVICE}) vs NumPy")


@pytest.mark.parametrize("name", sorted(GUIDES))
def test_guide_on_ember_matches_torch(torch, name, tmp_path):
    if (DEVICE == "cuda") != torch.cuda.is_available():
        pytest.skip(f"ember runs on {DEVICE}, torch on another device: nothing to compare")
    args = GUIDES[name][0]
    want = run_script(GUIDES_DIR / f"{name}.py", args)
    got = run_on_ember(name, args, tmp_path)
    rtol, atol = TORCH_RTOL.get(name, 1e-4), GUIDES[name][3]
    assert_close(got, want, rtol, atol, f"{name} on ember vs torch ({DEVICE})")
