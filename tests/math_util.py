"""Helpers shared by the tests/test_math_*.py files: dtype tables and
conversions between ember tensors and NumPy arrays (bfloat16 goes through
float32, since NumPy has no bfloat16)."""
import numpy as np

import ember

ALL = [ember.bool, ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64,
       ember.float16, ember.bfloat16, ember.float32, ember.float64]
INTS = [ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64]
FLOATS = [ember.float16, ember.bfloat16, ember.float32, ember.float64]
NP = {ember.bool: np.bool_, ember.uint8: np.uint8, ember.int8: np.int8, ember.int16: np.int16,
      ember.int32: np.int32, ember.int64: np.int64, ember.float16: np.float16,
      ember.bfloat16: np.float32, ember.float32: np.float32, ember.float64: np.float64}
# Relative tolerances of one result in each float dtype (a few ulps).
RTOL = {ember.float16: 2e-3, ember.bfloat16: 1.6e-2, ember.float32: 2e-6, ember.float64: 1e-12}


def name(dt):
    return str(dt).replace("ember.", "")


def to_ember(a, dtype=None):
    """An ember tensor holding a (converted to dtype, bfloat16 included)."""
    # from_numpy of a fresh copy: it keeps 0-d arrays 0-d (ember.tensor of a
    # 0-d ndarray gives shape [1] at the moment: numpy.ascontiguousarray).
    a = np.asarray(a)
    if dtype is None:
        return ember.from_numpy(np.array(a, copy=True))
    if dtype == ember.bfloat16:
        return ember.from_numpy(np.array(a, dtype=np.float32)).to(ember.bfloat16)
    return ember.from_numpy(np.array(a, dtype=NP[dtype]))


def to_np(t):
    if t.dtype == ember.bfloat16:
        t = t.float()
    return t.cpu().numpy()


def round_to(a, dtype):
    """a (float64) rounded to dtype the way ember converts (bit-exact RNE),
    returned as float64."""
    if dtype == ember.bfloat16:
        return to_np(ember.tensor(np.asarray(a, np.float64)).to(ember.bfloat16)).astype(np.float64)
    return np.asarray(a).astype(NP[dtype]).astype(np.float64)


def sample(dtype, shape, rng, low=-10, high=10):
    """Values valid for dtype: small integers for integer dtypes, floats otherwise."""
    if dtype == ember.bool:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype in INTS:
        lo = max(low, 0) if dtype == ember.uint8 else low
        return rng.integers(lo, high, shape).astype(NP[dtype])
    return rng.uniform(low, high, shape).astype(np.float64)


def assert_close(t, ref, dtype=None, rtol=None, atol=0.0, equal_nan=True):
    """t (ember) against ref (NumPy, any precision) within dtype's tolerance."""
    dtype = dtype or t.dtype
    got = to_np(t)
    if dtype in FLOATS:
        rtol = RTOL[dtype] if rtol is None else rtol
        np.testing.assert_allclose(got.astype(np.float64), np.asarray(ref, np.float64), rtol=rtol,
                                   atol=atol, equal_nan=equal_nan)
    else:
        np.testing.assert_array_equal(got, np.asarray(ref).astype(got.dtype))
