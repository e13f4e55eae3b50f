"""ember.device: torch.device's forms, attributes, comparisons and errors."""
import pickle

import pytest

import ember


@pytest.mark.parametrize(
    "args, type_, index, text",
    [
        (("cuda",), "cuda", None, "cuda"),
        (("cuda:1",), "cuda", 1, "cuda:1"),
        (("cuda:12",), "cuda", 12, "cuda:12"),
        (("cpu",), "cpu", None, "cpu"),
        (("cpu:0",), "cpu", 0, "cpu:0"),
        (("cuda", 0), "cuda", 0, "cuda:0"),
        (("cpu", 0), "cpu", 0, "cpu:0"),
        ((3,), "cuda", 3, "cuda:3"),
    ],
)
def test_forms(args, type_, index, text):
    d = ember.device(*args)
    assert d.type == type_
    assert d.index == index
    assert str(d) == text
    expected_repr = (f"device(type='{type_}')" if index is None
                     else f"device(type='{type_}', index={index})")
    assert repr(d) == expected_repr


def test_keyword_and_copy_forms():
    assert ember.device(type="cuda", index=2) == ember.device("cuda:2")
    d = ember.device("cuda:1")
    assert ember.device(d) == d


def test_equality_and_hash():
    a, b, c = ember.device("cuda:0"), ember.device("cuda", 0), ember.device("cuda")
    assert a == b and hash(a) == hash(b)
    assert a != c
    assert ember.device("cpu") != ember.device("cuda")
    assert len({a, b, c, ember.device("cpu")}) == 3
    assert (a == "cuda:0") is False  # like torch: a device is not equal to a string
    assert a != "cuda:0"


def test_pickle_round_trip():
    for s in ["cuda", "cuda:3", "cpu"]:
        d = ember.device(s)
        assert pickle.loads(pickle.dumps(d)) == d


@pytest.mark.parametrize("bad", ["", "xyz", "gpu", "cuda:", "cuda:x", "cuda:-1", "cuda:01",
                                 "cuda:1:2", "CUDA", " cuda", "cuda:1 "])
def test_bad_strings_raise_runtime_error(bad):
    with pytest.raises(RuntimeError, match="Invalid device string") as info:
        ember.device(bad)
    assert repr(bad) in str(info.value) or "negative" in str(info.value)


def test_bad_arguments():
    with pytest.raises(RuntimeError, match="must not be negative"):
        ember.device("cuda", -1)
    with pytest.raises(RuntimeError, match="must not be negative"):
        ember.device(-2)
    with pytest.raises(RuntimeError, match="must not include an index"):
        ember.device("cuda:0", 1)
    with pytest.raises(TypeError, match="Expected a device"):
        ember.device(1.5)
    with pytest.raises(TypeError, match="Expected a device"):
        ember.device(None)
    with pytest.raises(TypeError, match="index must be an int"):
        ember.device("cuda", "0")
    with pytest.raises(RuntimeError, match="Invalid device type"):
        ember.device("tpu", 0)
    # The process is fine afterwards.
    assert str(ember.device("cuda:0")) == "cuda:0"


def test_matches_torch(torch):
    for args in [("cuda",), ("cuda:1",), ("cpu",), ("cuda", 0), (2,)]:
        e, t = ember.device(*args), torch.device(*args)
        assert (e.type, e.index, str(e), repr(e)) == (t.type, t.index, str(t), repr(t))
