"""ember.save / ember.load: tensors, state dicts and nested containers in a safe
format -- a zip archive holding a JSON manifest and the raw bytes of each tensor.
Loading never runs code: only numbers, strings, None, bools, lists, tuples, dicts
(any hashable keys of those types), dtypes, devices, sizes and tensors come back.

Layout (all little-endian, members stored uncompressed):
    ember/manifest.json   {"format": "ember", "version": 1, "object": <encoded>}
    ember/data/<k>         the bytes of tensor k, contiguous, in its dtype

A tensor saved twice (the same Python object) is stored once and comes back as
one tensor; distinct views of one storage are stored separately.
"""
import io
import json
import math
import os
import sys
import zipfile
from collections import OrderedDict

import ember
from ember._C import Tensor

__all__ = ["save", "load"]

_FORMAT = "ember"
_VERSION = 1

# dtype name -> (numpy dtype name of the same size, ember dtype)
_NP = {
    "bool": "bool", "uint8": "uint8", "int8": "int8", "int16": "int16", "int32": "int32",
    "int64": "int64", "float16": "float16", "bfloat16": "int16", "float32": "float32",
    "float64": "float64", "complex32": "int32", "complex64": "complex64",
    "complex128": "complex128",
}
# dtypes NumPy lacks: their bytes travel as a NumPy integer type of the same size
_BITS = {"bfloat16": "int16", "complex32": "int32"}


def _dtype_name(dt):
    return str(dt).split(".")[-1]


class _Writer:
    def __init__(self, zf):
        self.zf = zf
        self.memo = {}
        self.count = 0

    def tensor(self, t):
        key = id(t)
        if key in self.memo:
            entry = dict(self.memo[key][1])
            return {"__tensor__": entry}
        name = f"ember/data/{self.count}"
        self.count += 1
        cpu = t.detach().to("cpu").contiguous()
        dtype = _dtype_name(cpu.dtype)
        if dtype in _BITS:
            cpu = cpu.view(getattr(ember, _BITS[dtype]))
        raw = cpu.numpy().tobytes() if cpu.numel() else b""
        self.zf.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), raw)
        entry = {"data": name, "dtype": dtype, "shape": list(t.shape), "device": str(t.device),
                 "requires_grad": bool(t.requires_grad),
                 "parameter": isinstance(t, ember.nn.Parameter)}
        self.memo[key] = (t, entry)  # keeps t alive so that its id stays unique
        return {"__tensor__": entry}

    def encode(self, obj, depth=0):
        if depth > 200:
            raise ValueError("ember.save: the object is nested too deeply (or contains itself)")
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, int):
            return obj
        if isinstance(obj, float):
            if math.isfinite(obj):
                return obj
            return {"__float__": repr(obj)}
        if isinstance(obj, Tensor):
            return self.tensor(obj)
        if isinstance(obj, ember.dtype):
            return {"__dtype__": _dtype_name(obj)}
        if isinstance(obj, ember.device):
            return {"__device__": str(obj)}
        if isinstance(obj, ember.Size):
            return {"__size__": list(obj)}
        if isinstance(obj, dict):
            kind = "OrderedDict" if isinstance(obj, OrderedDict) else "dict"
            return {"__dict__": [[self.encode(k, depth + 1), self.encode(v, depth + 1)]
                                 for k, v in obj.items()], "kind": kind}
        if isinstance(obj, list):
            return {"__list__": [self.encode(v, depth + 1) for v in obj]}
        if isinstance(obj, tuple):
            return {"__tuple__": [self.encode(v, depth + 1) for v in obj]}
        raise TypeError(f"ember.save cannot save an object of type {type(obj).__name__}: it saves "
                        f"tensors, numbers, strings, None, dtypes, devices and lists, tuples and "
                        f"dicts of them (no pickling). Save model.state_dict() rather than the "
                        f"model.")


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Saves ``obj`` (tensors, state dicts, nested lists/tuples/dicts of them and of
    numbers/strings/None) to ``f``, a path or a writable binary file object."""
    if sys.byteorder != "little":
        raise RuntimeError("ember.save writes little-endian data and runs on little-endian "
                           "machines only")
    own = isinstance(f, (str, os.PathLike))
    fh = open(f, "wb") if own else f
    try:
        with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED) as zf:
            writer = _Writer(zf)
            manifest = {"format": _FORMAT, "version": _VERSION, "byteorder": "little",
                        "object": writer.encode(obj)}
            zf.writestr(zipfile.ZipInfo("ember/manifest.json", date_time=(1980, 1, 1, 0, 0, 0)),
                        json.dumps(manifest))
    finally:
        if own:
            fh.close()


class _Reader:
    def __init__(self, zf, map_location):
        self.zf = zf
        self.map_location = map_location
        self.memo = {}

    def target_device(self, saved):
        loc = self.map_location
        if loc is None:
            return saved
        if isinstance(loc, dict):
            return loc.get(saved, saved)
        if isinstance(loc, (str, ember.device)):
            return str(loc)
        raise TypeError(f"map_location should be a str, an ember.device, a dict or a callable, "
                        f"got {type(loc).__name__}")

    def tensor(self, e):
        import numpy as np

        for key in ("data", "dtype", "shape", "device"):
            if key not in e:
                raise RuntimeError(f"ember.load: corrupt archive (a tensor entry lacks '{key}')")
        name = e["data"]
        if name in self.memo:
            return self.memo[name]
        dtype = e["dtype"]
        if dtype not in _NP:
            raise RuntimeError(f"ember.load: unknown dtype {dtype!r} in the archive")
        shape = [int(s) for s in e["shape"]]
        raw = self.zf.read(name)
        ed = getattr(ember, dtype)
        expected = ed.itemsize
        for s in shape:
            expected *= s
        if len(raw) != expected:
            raise RuntimeError(f"ember.load: corrupt archive ({name} holds {len(raw)} bytes, "
                               f"expected {expected} for a {dtype} tensor of shape {shape})")
        arr = np.frombuffer(raw, dtype=_NP[dtype]).reshape(shape).copy()
        t = ember.from_numpy(arr)
        if dtype in _BITS:
            t = t.view(ed)
        saved_device = e["device"]
        if callable(self.map_location) and not isinstance(self.map_location, (str, dict)):
            t = self.map_location(t, saved_device)
        else:
            device = self.target_device(saved_device)
            if str(device).startswith("cuda") and not ember.cuda.is_available():
                raise RuntimeError(
                    "Attempting to deserialize object on a CUDA device but "
                    "ember.cuda.is_available() is False. If you are running on a CPU-only "
                    "machine, please use ember.load with map_location=ember.device('cpu') to map "
                    "your storages to the CPU.")
            if str(device) != "cpu":
                t = t.to(device)
        if e.get("parameter"):
            t = ember.nn.Parameter(t, requires_grad=bool(e.get("requires_grad", True)))
        elif e.get("requires_grad"):
            t.requires_grad_(True)
        self.memo[name] = t
        return t

    def decode(self, obj, depth=0):
        if depth > 400:
            raise RuntimeError("ember.load: the archive nests too deeply")
        if obj is None or isinstance(obj, (bool, int, float, str)):
            return obj
        if not isinstance(obj, dict) or len(obj) == 0:
            raise RuntimeError("ember.load: corrupt archive (unexpected JSON value)")
        if "__tensor__" in obj:
            return self.tensor(obj["__tensor__"])
        if "__dict__" in obj:
            out = OrderedDict() if obj.get("kind") == "OrderedDict" else {}
            for pair in obj["__dict__"]:
                k = self.decode(pair[0], depth + 1)
                if isinstance(k, list):
                    raise RuntimeError("ember.load: corrupt archive (a list as a dict key)")
                out[k] = self.decode(pair[1], depth + 1)
            return out
        if "__list__" in obj:
            return [self.decode(v, depth + 1) for v in obj["__list__"]]
        if "__tuple__" in obj:
            return tuple(self.decode(v, depth + 1) for v in obj["__tuple__"])
        if "__float__" in obj:
            return float(obj["__float__"])
        if "__dtype__" in obj:
            name = obj["__dtype__"]
            if name not in _NP:
                raise RuntimeError(f"ember.load: unknown dtype {name!r}")
            return getattr(ember, name)
        if "__device__" in obj:
            return ember.device(obj["__device__"])
        if "__size__" in obj:
            return ember.Size([int(s) for s in obj["__size__"]])
        raise RuntimeError(f"ember.load: corrupt archive (unknown entry {sorted(obj)[0]!r})")


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None,
         **pickle_load_args):
    """Loads what ember.save wrote. ``map_location``: None (each tensor on the device it
    was saved from), a device or string ("cpu", "cuda:1"), a dict mapping saved device
    strings to new ones ({"cuda:1": "cuda:0"}), or a callable ``fn(tensor, location)``
    returning the tensor to use (called with the CPU tensor and the saved device string).
    Nothing in the file is executed, whatever ``weights_only`` says."""
    own = isinstance(f, (str, os.PathLike))
    fh = open(f, "rb") if own else f
    try:
        try:
            zf = zipfile.ZipFile(fh, "r")
        except zipfile.BadZipFile:
            raise RuntimeError("ember.load: the file is not an ember archive (ember.save writes a "
                               "zip file with a JSON manifest; pickled torch files are not read)")
        with zf:
            try:
                manifest = json.loads(zf.read("ember/manifest.json"))
            except KeyError:
                raise RuntimeError("ember.load: the archive has no ember/manifest.json: not "
                                   "written by ember.save")
            if manifest.get("format") != _FORMAT:
                raise RuntimeError("ember.load: not an ember archive")
            if manifest.get("version", 0) > _VERSION:
                raise RuntimeError(f"ember.load: archive version {manifest.get('version')} is "
                                   f"newer than this ember reads ({_VERSION})")
            return _Reader(zf, map_location).decode(manifest["object"])
    finally:
        if own:
            fh.close()
