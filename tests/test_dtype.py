"""ember dtypes: singletons, torch's aliases, properties, default dtype, promotion,
finfo/iinfo against NumPy (and torch on the GPU machine)."""
import pickle

import numpy as np
import pytest

import ember

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
         "float64"]
SIZES = dict(bool=1, uint8=1, int8=1, int16=2, int32=4, int64=8, float16=2, bfloat16=2,
             float32=4, float64=8)
FLOATS = {"float16", "bfloat16", "float32", "float64"}


@pytest.fixture(autouse=True)
def _restore_default_dtype():
    before = ember.get_default_dtype()
    yield
    ember.set_default_dtype(before)


@pytest.mark.parametrize("name", NAMES)
def test_singletons_and_properties(name):
    d = getattr(ember, name)
    assert isinstance(d, ember.dtype)
    assert d is getattr(ember._C, name)
    assert repr(d) == f"ember.{name}" and str(d) == f"ember.{name}"
    assert d.itemsize == SIZES[name]
    assert d.is_floating_point == (name in FLOATS)
    assert d.is_signed == (name not in ("bool", "uint8"))
    assert d.is_complex is False
    assert pickle.loads(pickle.dumps(d)) is d
    assert hash(d) == hash(getattr(ember, name))


def test_torch_aliases():
    assert ember.float is ember.float32
    assert ember.half is ember.float16
    assert ember.double is ember.float64
    assert ember.long is ember.int64
    assert ember.int is ember.int32
    assert ember.short is ember.int16
    assert ember.bool is not bool


def test_dtypes_cannot_be_constructed():
    with pytest.raises(TypeError):
        ember.dtype()


def test_default_dtype():
    assert ember.get_default_dtype() is ember.float32
    ember.set_default_dtype(ember.float64)
    assert ember.get_default_dtype() is ember.float64
    ember.set_default_dtype(ember.float32)
    assert ember.get_default_dtype() is ember.float32


@pytest.mark.parametrize("bad", [ember.int64, ember.bool])
def test_default_dtype_must_be_floating(bad):
    with pytest.raises(TypeError, match="floating-point"):
        ember.set_default_dtype(bad)
    assert ember.get_default_dtype() is ember.float32


@pytest.mark.parametrize("bad", ["float32", np.float32, 3, None])
def test_bad_dtype_arguments_raise_type_error(bad):
    with pytest.raises(TypeError, match="Expected a dtype"):
        ember.set_default_dtype(bad)


# torch.promote_types for every pair, from torch's documented promotion lattice.
def _expected_promotion(a, b):
    if a == b:
        return a
    if a == "bool":
        return b
    if b == "bool":
        return a
    fa, fb = a in FLOATS, b in FLOATS
    if fa and fb:
        if {a, b} == {"float16", "bfloat16"}:
            return "float32"
        return max(a, b, key=lambda n: SIZES[n])
    if fa or fb:
        return a if fa else b
    if {a, b} == {"uint8", "int8"}:
        return "int16"
    return max(a, b, key=lambda n: SIZES[n] if n != "uint8" else 0.5)


@pytest.mark.parametrize("a", NAMES)
@pytest.mark.parametrize("b", NAMES)
def test_promote_types(a, b):
    got = ember.promote_types(getattr(ember, a), getattr(ember, b))
    assert got is getattr(ember, _expected_promotion(a, b))


def test_promote_types_spot_checks():
    e = ember
    assert e.promote_types(e.uint8, e.int8) is e.int16
    assert e.promote_types(e.uint8, e.int16) is e.int16
    assert e.promote_types(e.int64, e.float16) is e.float16
    assert e.promote_types(e.bfloat16, e.float16) is e.float32
    assert e.promote_types(e.bfloat16, e.int64) is e.bfloat16
    assert e.promote_types(e.bool, e.uint8) is e.uint8
    assert e.promote_types(float, e.float32) is e.float64  # Python float means float64


@pytest.mark.parametrize("name", ["float16", "float32", "float64"])
def test_finfo_matches_numpy(name):
    f, n = ember.finfo(getattr(ember, name)), np.finfo(getattr(np, name))
    assert f.bits == n.bits
    assert f.eps == float(n.eps)
    assert f.max == float(n.max) and f.min == float(n.min)
    assert f.tiny == float(n.tiny) == f.smallest_normal
    # numpy stores resolution in the dtype itself; torch (and ember) give the power of ten.
    assert f.resolution == float(str(n.resolution))
    assert f.dtype == name


def test_finfo_bfloat16():
    f = ember.finfo(ember.bfloat16)
    assert f.bits == 16
    assert f.eps == 2.0 ** -7
    assert f.max == (2 - 2.0 ** -7) * 2.0 ** 127 == -f.min
    assert f.tiny == 2.0 ** -126
    assert f.resolution == 0.01
    assert f.dtype == "bfloat16"


def test_finfo_default_and_repr():
    assert ember.finfo().dtype == "float32"
    ember.set_default_dtype(ember.float64)
    assert ember.finfo().bits == 64
    assert repr(ember.finfo(ember.float32)).startswith("finfo(resolution=1e-06, min=-3.40282e+38")


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_numpy(name):
    i, n = ember.iinfo(getattr(ember, name)), np.iinfo(getattr(np, name))
    assert (i.bits, i.max, i.min, i.dtype) == (n.bits, int(n.max), int(n.min), name)
    assert repr(i) == f"iinfo(min={n.min}, max={n.max}, dtype={name})"


def test_finfo_iinfo_reject_the_other_kind():
    with pytest.raises(TypeError, match="iinfo"):
        ember.finfo(ember.int32)
    with pytest.raises(TypeError, match="finfo"):
        ember.iinfo(ember.float32)
    with pytest.raises(TypeError, match="not supported"):
        ember.iinfo(ember.bool)


@pytest.mark.gpu
def test_against_torch(torch):
    for a in NAMES:
        ta = getattr(torch, a)
        for b in NAMES:
            got = ember.promote_types(getattr(ember, a), getattr(ember, b))
            assert repr(got)[len("ember."):] == repr(torch.promote_types(ta, getattr(torch, b)))[6:]
        if a in FLOATS:
            f, t = ember.finfo(getattr(ember, a)), torch.finfo(ta)
            for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
                assert getattr(f, attr) == getattr(t, attr), (a, attr)
        elif a != "bool":
            i, t = ember.iinfo(getattr(ember, a)), torch.iinfo(ta)
            assert (i.bits, i.max, i.min) == (t.bits, t.max, t.min)
        assert getattr(ember, a).itemsize == ta.itemsize
        assert getattr(ember, a).is_signed == ta.is_signed
