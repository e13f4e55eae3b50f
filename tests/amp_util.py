"""Helpers shared by the tests/test_amp_*.py files (the CPU ones): random float32
tensors and the guard that every test starts and ends with autocast off and the
defaults (a fixture: conftest.py registers this module as a plugin; each file uses it for
every test through pytestmark)."""
import numpy as np
import pytest

import ember
from ember import _C

RNG = np.random.default_rng(11)


def t(*shape, dtype=ember.float32, requires_grad=False):
    x = ember.tensor(RNG.standard_normal(shape).astype(np.float32)).to(dtype)
    return x.requires_grad_() if requires_grad else x


@pytest.fixture
def clean_autocast_state():
    """Every test starts and ends with autocast off and the defaults."""
    assert not ember.is_autocast_enabled("cpu") and not ember.is_autocast_enabled("cuda")
    yield
    assert _C._autocast_nesting() == 0
    assert not ember.is_autocast_enabled("cpu")
    assert ember.get_autocast_dtype("cpu") == ember.bfloat16
    assert ember.get_autocast_dtype("cuda") == ember.float16
    assert ember.is_autocast_cache_enabled()
    assert _C._autocast_cache_size() == 0
