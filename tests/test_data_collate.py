"""ember.utils.data's collation: default_collate and default_convert over tensors,
numbers, NumPy, strings and nested structures, custom collate maps, the lazy NumPy-free
import; torch's default_collate as the oracle where it is installed."""
import collections
import subprocess
import sys

import numpy as np
import pytest

import ember
from data_util import Point
from ember.utils.data import default_collate, default_convert
from ember.utils.data._utils.collate import collate, default_collate_fn_map
from torch_util import dtype_name

pytestmark = pytest.mark.usefixtures("no_worker_thread_outlives_its_test")


# ---- collation -----------------------------------------------------------------------

def test_default_collate_tensors_numbers_strings():
    out = default_collate([ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0])])
    assert out.shape == (2, 2) and out.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    f = default_collate([1.5, 2.5])
    assert f.dtype == ember.float64 and f.tolist() == [1.5, 2.5]
    i = default_collate([1, 2, 3])
    assert i.dtype == ember.int64 and i.tolist() == [1, 2, 3]
    b = default_collate([True, False])
    assert b.dtype == ember.bool and b.tolist() == [True, False]
    assert default_collate(["a", "b"]) == ["a", "b"]
    assert default_collate([b"a", b"b"]) == [b"a", b"b"]


def test_default_collate_numpy():
    out = default_collate([np.arange(3, dtype=np.float32), np.ones(3, dtype=np.float32)])
    assert isinstance(out, ember.Tensor) and out.dtype == ember.float32
    assert out.tolist() == [[0, 1, 2], [1, 1, 1]]
    s = default_collate([np.int32(4), np.int32(5)])
    assert s.dtype == ember.int32 and s.tolist() == [4, 5]
    f = default_collate([np.float64(0.5), np.float64(1.5)])
    assert f.dtype == ember.float64 and f.tolist() == [0.5, 1.5]
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy "
                                        "arrays, numbers, dicts or lists; found <U1"):
        default_collate([np.array(["a"]), np.array(["b"])])


def test_default_collate_nested_structures():
    samples = [{"img": ember.tensor([i, i]), "meta": (i, f"s{i}"), "p": Point(float(i), [i, -i])}
               for i in range(3)]
    out = default_collate(samples)
    assert set(out) == {"img", "meta", "p"}
    assert out["img"].tolist() == [[0, 0], [1, 1], [2, 2]]
    assert isinstance(out["meta"], list)  # tuples become lists, as in torch
    assert out["meta"][0].tolist() == [0, 1, 2] and out["meta"][1] == ("s0", "s1", "s2")
    assert isinstance(out["p"], Point)
    assert out["p"].x.dtype == ember.float64
    assert [t.tolist() for t in out["p"].y] == [[0, 1, 2], [0, -1, -2]]
    lists = default_collate([[1, 2], [3, 4]])
    assert isinstance(lists, list) and [t.tolist() for t in lists] == [[1, 3], [2, 4]]


def test_default_collate_keeps_mapping_types():
    out = default_collate([collections.OrderedDict(a=1), collections.OrderedDict(a=2)])
    assert type(out) is collections.OrderedDict and out["a"].tolist() == [1, 2]


def test_default_collate_errors():
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal "
                                           "size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="found <class 'object'>"):
        default_collate([object(), object()])


def test_collate_with_a_custom_map():
    def tensor_as_list(batch, *, collate_fn_map):
        return [t.tolist() for t in batch]

    out = collate([(ember.tensor([1]), 2), (ember.tensor([3]), 4)],
                  collate_fn_map={ember.Tensor: tensor_as_list, int: lambda b, **k: sum(b)})
    assert out == [[[1], [3]], 6]
    assert ember.Tensor in default_collate_fn_map


def test_default_convert():
    a = np.arange(3)
    t = default_convert(a)
    assert isinstance(t, ember.Tensor) and t.tolist() == [0, 1, 2]
    assert default_convert(5) == 5 and default_convert("s") == "s"
    out = default_convert({"a": a, "b": (a, "x"), "p": Point(a, 1)})
    assert isinstance(out["a"], ember.Tensor)
    assert isinstance(out["b"], list) and isinstance(out["b"][0], ember.Tensor)
    assert isinstance(out["p"], Point) and isinstance(out["p"].x, ember.Tensor)
    strings = np.array(["a", "b"])
    assert default_convert(strings) is strings


def test_import_is_lazy_and_numpy_free():
    code = ("import sys, ember; assert 'ember.utils' not in sys.modules; "
            "import ember.utils.data; assert 'numpy' not in sys.modules, 'numpy imported'; "
            "assert ember.utils.data.DataLoader is not None; print('ok')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr
    r = subprocess.run([sys.executable, "-c", "import ember; print(ember.utils.data.Dataset)"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "Dataset" in r.stdout, r.stderr


# ---- torch as the oracle ----------------------------------------------------------------

def _same(e, t, torch):
    """ember's collated structure equals torch's: types, dtypes, values."""
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor)
        assert dtype_name(e.dtype) == dtype_name(t.dtype)
        assert tuple(e.shape) == tuple(t.shape)
        np.testing.assert_array_equal(e.numpy(), t.numpy())
    elif isinstance(t, dict):
        assert type(e) is type(t) and list(e) == list(t)
        for k in t:
            _same(e[k], t[k], torch)
    elif isinstance(t, (list, tuple)):
        assert type(e) is type(t) and len(e) == len(t)
        for a, b in zip(e, t):
            _same(a, b, torch)
    else:
        assert e == t


def test_default_collate_matches_torch(torch):
    from torch.utils.data import default_collate as torch_collate

    def samples(lib):
        return [{"arr": np.arange(4, dtype=np.float32) + i,
                 "tensor": lib.from_numpy(np.full((2, 2), i, dtype=np.int32)),
                 "num": (float(i), i, bool(i % 2), np.float32(i), np.int64(i)),
                 "text": f"s{i}",
                 "point": Point([i, i + 1], {"k": np.int16(i)}),
                 "nested": [[i, -i], (f"a{i}", 2.5 * i)]}
                for i in range(3)]

    _same(default_collate(samples(ember)), torch_collate(samples(torch)), torch)
    _same(default_convert(samples(ember)[0]),
          torch.utils.data.default_convert(samples(torch)[0]), torch)
