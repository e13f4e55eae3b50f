"""Helpers shared by the tests/test_linalg_*.py files: random float64 operands, the
norm-wise relative error against a float64 reference, ember/NumPy conversions."""
import numpy as np

import ember

RNG = np.random.default_rng(1234)


def arr(*shape, dtype=np.float64):
    a = RNG.standard_normal(shape) if shape else np.array(RNG.standard_normal())
    return np.asarray(a).astype(dtype)


def rel_err(x, ref):
    """Norm-wise relative error of x against a float64 reference."""
    x = np.asarray(x, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    assert x.shape == ref.shape, (x.shape, ref.shape)
    scale = np.abs(ref).max() if ref.size else 0.0
    if ref.size == 0:
        return 0.0
    return float(np.abs(x - ref).max() / (scale if scale > 0 else 1.0))


def e(a, dtype=None):
    t = ember.tensor(a)  # a copy: in-place ops must not change the NumPy reference
    return t if dtype is None else t.to(dtype)


def npy(t):
    if t.dtype in (ember.bfloat16, ember.float16):
        t = t.float()
    return t.numpy()
