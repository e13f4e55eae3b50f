"""ember.testing.assert_close and make_tensor, and ember.isclose/allclose/equal: values
checked by hand, messages in torch's structure (compared with torch's where installed)."""
import math

import numpy as np
import pytest

import ember
from ember.testing import assert_close, make_tensor

T = ember.tensor


def test_isclose_allclose_equal():
    a, b = T([1.0, 2.0, float("nan"), float("inf")]), T([1.0, 2.1, float("nan"), float("inf")])
    assert ember.isclose(a, b).tolist() == [True, False, False, True]
    assert ember.isclose(a, b, equal_nan=True).tolist() == [True, False, True, True]
    assert ember.isclose(a, b, rtol=0.1, equal_nan=True).tolist() == [True, True, True, True]
    assert a.isclose(b, atol=0.2).tolist() == [True, True, False, True]
    assert not ember.allclose(a, b) and ember.allclose(a, b, atol=0.2, equal_nan=True)
    assert ember.isclose(T([1, 2]), T([1, 3]), atol=1).tolist() == [True, True]
    assert ember.isclose(T([1, 2]), T([1, 3])).tolist() == [True, False]
    assert ember.equal(T([1, 2]), T([1, 2])) and not ember.equal(T([1, 2]), T([1]))
    assert not T([1, 2]).equal(T([1, 3]))
    with pytest.raises(RuntimeError, match="Float did not match Double"):
        ember.isclose(T([1.0]), T([1.0], dtype=ember.float64))
    with pytest.raises(RuntimeError, match="rtol must be greater than or equal to zero"):
        ember.isclose(T([1.0]), T([1.0]), rtol=-1)


def test_isclose_against_torch(torch):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(50).astype(np.float32)
    y = x + rng.standard_normal(50).astype(np.float32) * 1e-5
    y[::7] = np.nan
    for kw in ({}, {"rtol": 1e-3, "atol": 0.0}, {"equal_nan": True}, {"rtol": 0, "atol": 0}):
        e = ember.isclose(ember.from_numpy(x), ember.from_numpy(y), **kw).tolist()
        t = torch.isclose(torch.from_numpy(x), torch.from_numpy(y), **kw).tolist()
        assert e == t
    assert ember.equal(T([1]), T([1.0])) == torch.equal(torch.tensor([1]), torch.tensor([1.0]))


def message(fn):
    with pytest.raises((AssertionError, TypeError, ValueError)) as info:
        fn()
    return info.type, str(info.value)


CASES = [
    lambda L: L.testing.assert_close(L.tensor([1., 2., 3.]), L.tensor([1., 2.5, 3.])),
    lambda L: L.testing.assert_close(L.tensor([[1., 2.], [3., 4.]]), L.tensor([[1., 2.], [3., 5.]])),
    lambda L: L.testing.assert_close(L.tensor(1.), L.tensor(2.)),
    lambda L: L.testing.assert_close(L.tensor([1, 2]), L.tensor([1, 3])),
    lambda L: L.testing.assert_close(1.0, 1.5),
    lambda L: L.testing.assert_close([L.tensor(1.), L.tensor(2.)], [L.tensor(1.), L.tensor(3.)]),
    lambda L: L.testing.assert_close({"a": L.tensor(1.)}, {"a": L.tensor(3.)}),
    lambda L: L.testing.assert_close(L.tensor([1.]), L.tensor([1.]), rtol=1e-3),
    lambda L: L.testing.assert_close(L.tensor([float("nan")]), L.tensor([float("nan")])),
    lambda L: L.testing.assert_close(L.tensor([True]), L.tensor([False])),
    lambda L: L.testing.assert_close(L.tensor([1., 2.]), L.tensor([1., 3.]), msg="custom"),
    lambda L: L.testing.assert_close(L.tensor([1., 2.]), L.tensor([1., 3.]), msg=lambda m: "X" + m[:10]),
    lambda L: L.testing.assert_close(L.tensor([1., float("inf")]), L.tensor([1., 2.])),
    lambda L: L.testing.assert_close([1, 2], [1, 2, 3]),
    lambda L: L.testing.assert_close(L.tensor([1., 2.]), L.tensor([1., 2.], dtype=L.float64)),
    lambda L: L.testing.assert_close(L.tensor([1., 2.]), L.tensor([1., 2., 3.])),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_assert_close_messages_match_torch(case, torch):
    et, em = message(lambda: CASES[case](ember))
    tt, tm = message(lambda: CASES[case](torch))
    assert et is tt
    assert em.replace("ember.", "torch.") == tm


def test_assert_close_messages_by_hand():
    _, m = message(lambda: CASES[0](ember))
    assert m == ("Tensor-likes are not close!\n\nMismatched elements: 1 / 3 (33.3%)\n"
                 "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
                 "Greatest relative difference: 0.20000000298023224 at index (1,) "
                 "(up to 1.3e-06 allowed)")
    _, m = message(lambda: CASES[5](ember))
    assert m.endswith("\n\nThe failure occurred for item [1]")
    t, m = message(lambda: assert_close(T([1.0]), 1.0))
    assert t is TypeError and m.startswith("No comparison pair was able to handle inputs")
    t, m = message(lambda: CASES[7](ember))
    assert t is ValueError and m.endswith("but got no atol.")


def test_assert_close_passes():
    assert_close(T([1.0, 2.0]), T([1.0, 2.0 + 1e-7]))
    assert_close(T([1.0, float("nan")]), T([1.0, float("nan")]), equal_nan=True)
    assert_close(T([1.0]), T([1.0], dtype=ember.float64), check_dtype=False)
    assert_close(T([1.0, 2.0]).half(), T([1.0, 2.001]).half())
    assert_close([T(1.0), {"a": (1, 2.0)}], [T(1.0), {"a": (1, 2.0)}])
    assert_close(T([1.0]), np.array([1.0], dtype=np.float32))
    assert_close(T([1.0, 2.0]), T([1.1, 2.2]), rtol=0.2, atol=0.0)


def test_make_tensor():
    ember.manual_seed(0)
    t = make_tensor(2, 3, dtype=ember.float32, device="cpu")
    assert t.shape == (2, 3) and t.dtype == ember.float32
    assert -9 <= t.min().item() and t.max().item() < 9
    i = make_tensor((100,), dtype=ember.int64, device="cpu", low=0, high=3)
    assert set(i.tolist()) <= {0, 1, 2}
    u = make_tensor(100, dtype=ember.uint8, device="cpu")
    assert 0 <= u.min().item() and u.max().item() < 10
    b = make_tensor(50, dtype=ember.bool, device="cpu")
    assert b.dtype == ember.bool
    z = make_tensor(1000, dtype=ember.int32, device="cpu", low=-1, high=2, exclude_zero=True)
    assert 0 not in z.tolist()
    f = make_tensor(1000, dtype=ember.float16, device="cpu", exclude_zero=True)
    assert (f != 0).all().item()
    n = make_tensor(3, 4, dtype=ember.float32, device="cpu", noncontiguous=True)
    assert n.shape == (3, 4) and not n.is_contiguous()
    g = make_tensor(3, dtype=ember.float64, device="cpu", requires_grad=True)
    assert g.requires_grad and g.is_leaf
    c = make_tensor(3, dtype=ember.float32, device="cpu", low=2.0, high=2.5)
    assert all(2.0 <= v < 2.5 for v in c.tolist()) and not math.isnan(c.sum().item())
    with pytest.raises(ValueError, match="`low` must be less than `high`"):
        make_tensor(3, dtype=ember.float32, device="cpu", low=3, high=1)
    with pytest.raises(ValueError, match="not supported for boolean and integral dtypes"):
        make_tensor(3, dtype=ember.int64, device="cpu", requires_grad=True)
