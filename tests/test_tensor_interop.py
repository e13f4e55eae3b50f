"""Zero-copy interop on the CPU: NumPy (from_numpy, numpy(), __array__) and DLPack
(versioned and legacy capsules, both directions). CUDA interop with torch and CuPy
is in test_tensor_gpu.py."""
import gc

import numpy as np
import pytest

import ember

NP = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


@pytest.mark.parametrize("name", NP)
def test_numpy_from_dlpack_of_ember_shares_memory(name):
    t = ember.arange(12).to(getattr(ember, name)).view(3, 4)
    for view in (t, t.t(), t[:, 1::2], t[1]):
        a = np.from_dlpack(view)
        assert a.dtype == np.dtype(name) and a.shape == tuple(view.shape)
        assert a.ctypes.data == view.data_ptr()
        np.testing.assert_array_equal(a, view.numpy())


@pytest.mark.parametrize("name", NP)
def test_ember_from_dlpack_of_numpy_shares_memory(name):
    a = np.arange(12).astype(name).reshape(3, 4)
    for view in (a, a.T, a[:, 1::2], a[2]):
        t = ember.from_dlpack(view)
        assert t.dtype is getattr(ember, name)
        assert t.data_ptr() == view.ctypes.data and t.shape == view.shape
        np.testing.assert_array_equal(t.numpy(), view)


def test_from_dlpack_keeps_the_producer_alive():
    t = ember.from_dlpack(np.arange(4.0) * 2)
    gc.collect()
    assert t.tolist() == [0.0, 2.0, 4.0, 6.0]
    del t
    gc.collect()


def test_dlpack_capsules_versioned_and_legacy():
    t = ember.arange(5, dtype=ember.int32)
    cap = t.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(cap)
    legacy = t.__dlpack__()
    assert '"dltensor"' in repr(legacy)
    u = ember.from_dlpack(legacy)
    assert u.data_ptr() == t.data_ptr() and u.tolist() == [0, 1, 2, 3, 4]
    assert "used_dltensor" in repr(legacy)
    v = ember.from_dlpack(cap)
    assert v.data_ptr() == t.data_ptr()
    with pytest.raises(ValueError, match="consumed only once"):
        ember.from_dlpack(cap)
    # An unconsumed capsule frees its tensor reference when collected.
    del t, u, v
    unused = ember.ones(3).__dlpack__(max_version=(1, 0))
    del unused
    gc.collect()


def test_ember_round_trip_through_dlpack():
    t = ember.arange(6, dtype=ember.float64).view(2, 3).t()
    u = ember.from_dlpack(t)
    assert u.data_ptr() == t.data_ptr() and u.stride() == t.stride() and u.tolist() == t.tolist()


def test_dlpack_bfloat16_round_trip():
    t = ember.tensor([1.0, 2.0, -0.5]).bfloat16()
    u = ember.from_dlpack(t)
    assert u.dtype is ember.bfloat16 and u.tolist() == [1.0, 2.0, -0.5]


def test_dlpack_device_and_copy_flags():
    t = ember.zeros(3)
    assert t.__dlpack_device__() == (1, 0)
    copied = ember.from_dlpack(t.__dlpack__(max_version=(1, 0), copy=True))
    assert copied.data_ptr() != t.data_ptr()
    same = ember.from_dlpack(t.__dlpack__(max_version=(1, 0), copy=False, dl_device=(1, 0)))
    assert same.data_ptr() == t.data_ptr()
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0))


def test_from_dlpack_rejects_other_objects():
    with pytest.raises(TypeError, match="__dlpack__"):
        ember.from_dlpack([1, 2, 3])


def test_cuda_array_interface_is_absent_on_cpu():
    t = ember.zeros(2)
    assert not hasattr(t, "__cuda_array_interface__")
    with pytest.raises(AttributeError, match="non-CUDA tensor"):
        t.__cuda_array_interface__


def test_numpy_protocols():
    t = ember.arange(6, dtype=ember.float32).view(2, 3)
    a = np.asarray(t)
    assert np.shares_memory(a, t.numpy()) and a.dtype == np.float32
    assert np.array(t).tolist() == t.tolist()
    assert not np.shares_memory(np.array(t, copy=True), a)
    assert (np.add(t, 1) == a + 1).all()


def test_from_numpy_rejects_what_it_cannot_share():
    with pytest.raises(TypeError, match="expected np.ndarray"):
        ember.from_numpy([1, 2])
    for dt in ("uint16", "uint32", "uint64", "object", "U3"):
        with pytest.raises(TypeError, match=r"can't convert np.ndarray of type numpy\..*The only "
                                            r"supported types are"):
            ember.from_numpy(np.zeros(2, dtype=dt))
    with pytest.raises(ValueError, match="negative"):
        ember.from_numpy(np.arange(4.0)[::-1])
    with pytest.raises(ValueError, match="byte order"):
        ember.from_numpy(np.arange(4, dtype=">i4"))
    rec = np.zeros(3, dtype=[("a", "i4"), ("b", "i2")])
    with pytest.raises(TypeError, match="The only supported types"):
        ember.from_numpy(rec)
    odd = np.zeros(3, dtype=[("a", "i1"), ("b", "i4")])["b"]  # stride 5: not a multiple of 4
    if odd.strides[0] % 4:
        with pytest.raises(ValueError, match="not a multiple of the element byte size"):
            ember.from_numpy(odd)


def test_readonly_numpy_arrays_are_shared():
    a = np.arange(3.0)
    a.flags.writeable = False
    assert ember.from_numpy(a).tolist() == [0.0, 1.0, 2.0]


def test_import_ember_loads_neither_numpy_nor_the_repr_module():
    import subprocess
    import sys
    code = ("import sys, ember\n"
            "assert 'numpy' not in sys.modules, 'numpy imported'\n"
            "assert 'ember._tensor_str' not in sys.modules\n"
            "t = ember.zeros(2)\n"
            "assert 'numpy' not in sys.modules\n"
            "repr(t); t.numpy()\n"
            "assert 'numpy' in sys.modules\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
