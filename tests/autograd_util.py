"""Helpers shared by the autograd tests."""
import numpy as np

import ember

RNG = np.random.default_rng(8)


def leaf(*shape, dtype=ember.float64, device="cpu", low=-1.0, high=1.0):
    """A float64 leaf that requires grad, with values in [low, high)."""
    a = RNG.uniform(low, high, size=shape)
    return ember.tensor(a, dtype=dtype, device=device).requires_grad_()


def const(*shape, dtype=ember.float64, device="cpu"):
    return ember.tensor(RNG.standard_normal(shape), dtype=dtype, device=device)


def npy(t):
    return t.detach().cpu().numpy()


def check(fn, *inputs, **kw):
    """gradcheck, raising on mismatch."""
    assert ember.autograd.gradcheck(fn, inputs, **kw)
