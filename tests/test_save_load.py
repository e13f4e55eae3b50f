"""ember.save / ember.load: round trips of tensors (every dtype, views, empty, 0-d),
state dicts of modules and optimisers, nested containers; map_location forms; the
archive is data only (no pickle); corrupt and foreign files raise clearly. Saving on one
GPU and loading on another device is in the gpu-marked tests."""
import io
import json
import math
import os
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import ember
import ember.nn as nn


def roundtrip(obj, **kw):
    buf = io.BytesIO()
    ember.save(obj, buf)
    buf.seek(0)
    return ember.load(buf, **kw)


DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]


@pytest.mark.parametrize("name", DTYPES)
def test_tensor_round_trip_every_dtype(name):
    dt = getattr(ember, name)
    t = ember.arange(12).reshape(3, 4).to(dt)
    r = roundtrip(t)
    assert r.dtype == dt and r.shape == (3, 4) and r.device.type == "cpu"
    assert r.to(ember.float64).tolist() == t.to(ember.float64).tolist()


def test_views_empty_and_scalar_tensors():
    base = ember.arange(20.0).reshape(4, 5)
    view = base.t()[1:3]
    r = roundtrip([view, ember.zeros(0, 3), ember.tensor(2.5)])
    np.testing.assert_array_equal(r[0].numpy(), view.numpy())
    assert r[1].shape == (0, 3) and r[2].shape == () and r[2].item() == 2.5


def test_nested_containers_and_scalars():
    obj = {"a": [1, 2.5, None, True, "s", (3, 4)], 0: {"x": float("inf"), "y": float("nan")},
           "od": OrderedDict([("k", 1)]), "size": ember.Size([2, 3]), "dtype": ember.float16,
           "dev": ember.device("cpu"), (1, 2): "tuple key"}
    r = roundtrip(obj)
    assert r["a"] == [1, 2.5, None, True, "s", (3, 4)]
    assert isinstance(r["a"][5], tuple) and isinstance(r["od"], OrderedDict)
    assert r[0]["x"] == math.inf and math.isnan(r[0]["y"])
    assert r["size"] == ember.Size([2, 3]) and isinstance(r["size"], ember.Size)
    assert r["dtype"] is ember.float16 and r["dev"] == ember.device("cpu")
    assert r[(1, 2)] == "tuple key"


def test_shared_tensor_is_stored_once():
    t = ember.ones(3)
    r = roundtrip({"a": t, "b": t})
    assert r["a"] is r["b"]


def test_module_and_optimizer_state_dicts(tmp_path):
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    opt = ember.optim.AdamW(model.parameters(), lr=0.01)
    model(ember.randn(5, 3)).sum().backward()
    opt.step()
    path = tmp_path / "ckpt.pt"
    ember.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 7}, path)
    ck = ember.load(path)
    assert ck["epoch"] == 7 and isinstance(ck["model"], OrderedDict)
    other = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    other.load_state_dict(ck["model"])
    for a, b in zip(model.parameters(), other.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    opt2 = ember.optim.AdamW(other.parameters(), lr=0.5)
    opt2.load_state_dict(ck["optimizer"])
    assert opt2.param_groups[0]["lr"] == 0.01 and opt2.state[other[0].weight]["step"] == 1
    np.testing.assert_array_equal(opt2.state[other[0].weight]["exp_avg"].numpy(),
                                  opt.state[model[0].weight]["exp_avg"].numpy())


def test_parameters_and_requires_grad_survive():
    p = nn.Parameter(ember.ones(2))
    q = ember.ones(2, requires_grad=True)
    r = roundtrip([p, q, ember.ones(1)])
    assert isinstance(r[0], nn.Parameter) and r[0].requires_grad
    assert r[1].requires_grad and not isinstance(r[1], nn.Parameter)
    assert not r[2].requires_grad


def test_map_location_forms_on_cpu():
    t = ember.arange(4.0)
    assert roundtrip(t, map_location="cpu").device.type == "cpu"
    assert roundtrip(t, map_location=ember.device("cpu")).device.type == "cpu"
    assert roundtrip(t, map_location={"cuda:0": "cpu"}).device.type == "cpu"
    seen = []

    def fn(tensor, location):
        seen.append(location)
        return tensor * 2

    np.testing.assert_array_equal(roundtrip(t, map_location=fn).numpy(), [0, 2, 4, 6])
    assert seen == ["cpu"]


def test_the_archive_is_json_and_raw_bytes():
    buf = io.BytesIO()
    ember.save({"w": ember.tensor([1.0, 2.0])}, buf)
    buf.seek(0)
    with zipfile.ZipFile(buf) as zf:
        names = sorted(zf.namelist())
        assert names == ["ember/data/0", "ember/manifest.json"]
        manifest = json.loads(zf.read("ember/manifest.json"))
        assert manifest["format"] == "ember" and manifest["version"] == 1
        assert np.frombuffer(zf.read("ember/data/0"), np.float32).tolist() == [1.0, 2.0]


def test_unsupported_objects_are_refused():
    class Thing:
        pass

    with pytest.raises(TypeError, match="ember.save cannot save an object of type Thing"):
        ember.save({"x": Thing()}, io.BytesIO())
    with pytest.raises(TypeError, match="cannot save an object of type Linear"):
        ember.save(nn.Linear(2, 2), io.BytesIO())
    cyc = []
    cyc.append(cyc)
    with pytest.raises(ValueError, match="nested too deeply"):
        ember.save(cyc, io.BytesIO())


def test_corrupt_and_foreign_files(tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"\x80\x02not a zip")  # a pickle header: never unpickled
    with pytest.raises(RuntimeError, match="not an ember archive"):
        ember.load(bad)
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as zf:
        zf.writestr("x.txt", "hi")
    with pytest.raises(RuntimeError, match="no ember/manifest.json"):
        ember.load(other)
    trunc = tmp_path / "trunc.pt"
    buf = io.BytesIO()
    ember.save(ember.ones(4), buf)
    buf.seek(0)
    with zipfile.ZipFile(buf) as src, zipfile.ZipFile(trunc, "w") as dst:
        dst.writestr("ember/manifest.json", src.read("ember/manifest.json"))
        dst.writestr("ember/data/0", src.read("ember/data/0")[:-4])
    with pytest.raises(RuntimeError, match="corrupt archive"):
        ember.load(trunc)
    evil = tmp_path / "evil.pt"
    with zipfile.ZipFile(evil, "w") as zf:
        zf.writestr("ember/manifest.json", json.dumps(
            {"format": "ember", "version": 1, "object": {"__reduce__": "os.system"}}))
    with pytest.raises(RuntimeError, match="unknown entry"):
        ember.load(evil)


@pytest.mark.skipif(ember.cuda.is_available(), reason="checks the CPU-only message")
def test_cuda_tensor_without_a_gpu_needs_map_location(tmp_path):
    buf = io.BytesIO()
    ember.save(ember.ones(2), buf)
    buf.seek(0)
    with zipfile.ZipFile(buf) as zf:
        manifest = json.loads(zf.read("ember/manifest.json"))
        data = zf.read("ember/data/0")
    manifest["object"]["__tensor__"]["device"] = "cuda:0"
    path = tmp_path / "gpu.pt"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("ember/manifest.json", json.dumps(manifest))
        zf.writestr("ember/data/0", data)
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device "
                                           "but ember.cuda.is_available\\(\\) is False"):
        ember.load(path)
    assert ember.load(path, map_location="cpu").tolist() == [1.0, 1.0]


@pytest.mark.gpu
def test_cuda_save_load_across_devices(tmp_path):
    t = ember.arange(6.0, device="cuda").reshape(2, 3)
    path = tmp_path / "g.pt"
    ember.save({"t": t}, path)
    back = ember.load(path)["t"]
    assert back.device == t.device
    cpu = ember.load(path, map_location="cpu")["t"]
    assert cpu.device.type == "cpu" and cpu.tolist() == t.cpu().tolist()
    n = ember.cuda.device_count()
    target = f"cuda:{n - 1}"
    moved = ember.load(path, map_location={str(t.device): target})["t"]
    assert str(moved.device) == target and moved.tolist() == t.cpu().tolist()
    cuda_again = ember.load(path, map_location=lambda x, loc: x.cuda(n - 1))["t"]
    assert cuda_again.device.index == n - 1
