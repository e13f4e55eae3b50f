"""The shape composites of issue 16's breadth pass (python/ember/_composite_shape.py and
_composite_copy.py): tril/triu (+ in place), ravel, unflatten, split_with_sizes and the
unsafe splits, the ``*_copy`` functions and the view scatters. NumPy references where NumPy
has the function; every case also against torch (values, dtype, gradients, error types)."""
import numpy as np
import pytest

import ember
from composite_util import assert_same, compare, outcome
from cuda_util import gpu

DEVICES = ["cpu", pytest.param("cuda", marks=gpu)]
RNG = np.random.default_rng(16)


def _r(*shape, dtype=np.float32):
    a = RNG.standard_normal(shape) * 3
    return a.astype(dtype)


# ---- tril / triu against NumPy ---------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_, np.float64])
def test_tril_triu_match_numpy(device, dtype):
    for shape in [(4, 5), (5, 3), (2, 3, 4), (0, 3), (3, 0), (2, 0, 2), (1, 1)]:
        a = _r(*shape).astype(dtype)
        for nc in (False, True):
            if nc and len(shape) != 2:
                continue
            src = np.ascontiguousarray(a.swapaxes(0, 1)) if nc else a
            t = ember.from_numpy(src.copy()).to(device)
            t = t.transpose(0, 1) if nc else t
            for k in (-3, -1, 0, 1, 2, 7):
                np.testing.assert_array_equal(ember.tril(t, k).cpu().numpy(), np.tril(a, k))
                np.testing.assert_array_equal(t.triu(k).cpu().numpy(), np.triu(a, k))
                assert ember.triu(t, k).dtype == t.dtype


def test_tril_keeps_nonfinite_out_of_the_zeroed_part():
    a = np.array([[np.inf, np.nan], [1.0, -np.inf]], np.float32)
    got = ember.tril(ember.from_numpy(a)).numpy()
    np.testing.assert_array_equal(got, np.tril(a))  # zeros, not nan, above the diagonal


@pytest.mark.parametrize("device", DEVICES)
def test_tril_inplace_and_out(device):
    a = _r(3, 4)
    t = ember.from_numpy(a.copy()).to(device)
    assert t.tril_(1) is t
    np.testing.assert_array_equal(t.cpu().numpy(), np.tril(a, 1))
    t = ember.from_numpy(a.copy()).to(device)
    view = t[:, 1:]
    view.triu_()
    np.testing.assert_array_equal(t.cpu().numpy()[:, 0], a[:, 0])  # outside the view kept
    np.testing.assert_array_equal(t.cpu().numpy()[:, 1:], np.triu(a[:, 1:]))
    out = ember.empty(0, device=device)
    assert ember.tril(ember.from_numpy(a).to(device), -1, out=out) is out
    np.testing.assert_array_equal(out.cpu().numpy(), np.tril(a, -1))


def test_tril_gradient_is_the_mask():
    x = ember.from_numpy(_r(3, 4).astype(np.float64)).requires_grad_()
    ember.triu(x, 1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.triu(np.ones((3, 4)), 1))
    y = ember.from_numpy(_r(3, 3).astype(np.float64)).requires_grad_()
    z = y * 1
    z.tril_()
    z.sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), np.tril(np.ones((3, 3))))


def test_tril_errors():
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        ember.tril(ember.ones(3))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        ember.ones(()).triu_()


# ---- against torch ----------------------------------------------------------------------------

def _cases():
    f, i = _r(2, 3, 4), RNG.integers(-5, 5, (4, 6))
    m = _r(4, 5)
    return [
        ("tril", lambda L, x: L.tril(x, -1), [f]),
        ("triu_int", lambda L, x: x.triu(2), [i]),
        ("ravel", lambda L, x: L.ravel(x), [m]),
        ("ravel_0d", lambda L, x: x.ravel(), [np.array(2.5, np.float32)]),
        ("unflatten", lambda L, x: L.unflatten(x, 1, (3, -1)), [i]),
        ("unflatten_m", lambda L, x: x.unflatten(-1, (2, 1, 2)), [f]),
        ("unflatten_bad", lambda L, x: x.unflatten(0, (3, 3)), [m]),
        ("unflatten_empty", lambda L, x: x.unflatten(0, ()), [m]),
        ("unflatten_0d", lambda L, x: x.unflatten(0, (1,)), [np.array(1.0, np.float32)]),
        ("split_with_sizes", lambda L, x: L.split_with_sizes(x, [1, 4, 0], 1), [m]),
        ("split_with_sizes_m", lambda L, x: x.split_with_sizes([3, 1], 0), [m]),
        ("split_with_sizes_bad", lambda L, x: x.split_with_sizes([3, 3]), [m]),
        ("split_with_sizes_0d", lambda L, x: x.split_with_sizes([1]),
         [np.array(1.0, np.float32)]),
        ("unsafe_split", lambda L, x: L.unsafe_split(x, 2, 1), [m]),
        ("unsafe_split_list", lambda L, x: x.unsafe_split([2, 3], 1), [m]),
        ("unsafe_chunk", lambda L, x: L.unsafe_chunk(x, 3, 0), [m]),
        ("unsafe_split_with_sizes", lambda L, x: L.unsafe_split_with_sizes(x, [2, 2], 0), [m]),
        ("alias_copy", lambda L, x: L.alias_copy(x), [m]),
        ("as_strided_copy", lambda L, x: L.as_strided_copy(x, (2, 2), (1, 2), 1), [m]),
        ("detach_copy", lambda L, x: L.detach_copy(x), [m]),
        ("diagonal_copy", lambda L, x: L.diagonal_copy(x, 1, 1, 2), [f]),
        ("expand_copy", lambda L, x: L.expand_copy(x[:1], (3, 5)), [m]),
        ("permute_copy", lambda L, x: L.permute_copy(x, (2, 0, 1)), [f]),
        ("select_copy", lambda L, x: L.select_copy(x, 1, -1), [f]),
        ("slice_copy", lambda L, x: L.slice_copy(x, 1, 1, None, 2), [m]),
        ("slice_copy_bad_step", lambda L, x: L.slice_copy(x, 1, 0, 3, 0), [m]),
        ("split_copy", lambda L, x: L.split_copy(x, 2, 1), [m]),
        ("split_with_sizes_copy", lambda L, x: L.split_with_sizes_copy(x, [1, 3], 0), [m]),
        ("squeeze_copy", lambda L, x: L.squeeze_copy(x[:1]), [m]),
        ("squeeze_copy_dim", lambda L, x: L.squeeze_copy(x[:, :1], 1), [m]),
        ("t_copy", lambda L, x: L.t_copy(x), [m]),
        ("transpose_copy", lambda L, x: L.transpose_copy(x, 0, 2), [f]),
        ("unbind_copy", lambda L, x: L.unbind_copy(x, 1), [m]),
        ("unfold_copy", lambda L, x: L.unfold_copy(x, 1, 2, 1), [m]),
        ("unsqueeze_copy", lambda L, x: L.unsqueeze_copy(x, -1), [m]),
        ("view_copy", lambda L, x: L.view_copy(x, (5, 4)), [m]),
        ("narrow_copy", lambda L, x: L.narrow_copy(x, 1, 1, 3), [m]),
        ("narrow_copy_m", lambda L, x: x.narrow_copy(0, 0, 2), [i]),
        ("slice_scatter", lambda L, x, s: L.slice_scatter(x, s, 1, 0, 5, 2), [m, _r(4, 3)]),
        ("slice_scatter_bad", lambda L, x, s: L.slice_scatter(x, s, 1, 0, 2), [m, _r(4, 3)]),
        ("select_scatter", lambda L, x, s: L.select_scatter(x, s, 0, -1), [m, _r(5)]),
        ("select_scatter_m", lambda L, x, s: x.select_scatter(s, 1, 2), [m, _r(4)]),
        ("select_scatter_bad", lambda L, x, s: L.select_scatter(x, s, 0, 0), [m, _r(4)]),
        ("diagonal_scatter", lambda L, x, s: L.diagonal_scatter(x, s, 1), [m, _r(4)]),
        ("diagonal_scatter_m", lambda L, x, s: x.diagonal_scatter(s, -1, 1, 2), [f, _r(2, 3)]),
        ("as_strided_scatter", lambda L, x, s: L.as_strided_scatter(x, s, (2, 2), (1, 2), 3),
         [m, _r(2, 2)]),
        ("int_scatter", lambda L, x, s: L.slice_scatter(x, s, 0, 1, 3), [i, i[:2] * 7]),
    ]


# Gradients are not compared for: detach_copy and narrow_copy (torch has no derivative
# for them and raises; ember's is the view's), as_strided_scatter (torch's gradient for
# input is wrong: it masks the complement of the written elements) and as_strided_copy of
# a non-contiguous input (ember's as_strided backward takes contiguous inputs only).
NO_GRAD = {"detach_copy", "narrow_copy", "narrow_copy_m", "as_strided_scatter"}


@pytest.mark.parametrize("name,fn,arrays", _cases(), ids=[c[0] for c in _cases()])
@pytest.mark.parametrize("noncontig", [False, True])
def test_against_torch(torch, name, fn, arrays, noncontig):
    grad = name not in NO_GRAD and not (noncontig and name == "as_strided_copy")
    compare(torch, fn, arrays, noncontig=noncontig, grad=grad)


@pytest.mark.gpu
@pytest.mark.parametrize("name,fn,arrays", _cases(), ids=[c[0] for c in _cases()])
def test_against_torch_cuda(torch, name, fn, arrays):
    compare(torch, fn, arrays, device="cuda", grad=name not in NO_GRAD)


def test_copies_never_alias_and_are_contiguous():
    x = ember.arange(12.0).reshape(3, 4)
    for r in (ember.alias_copy(x), ember.view_copy(x, (12,)), ember.t_copy(x),
              ember.expand_copy(x[:1], (2, 4)), ember.narrow_copy(x, 0, 0, 3)):
        assert r.is_contiguous()
        r.fill_(-1.0)
    assert x.min().item() == 0.0


def test_scatters_copy_out_and_numpy():
    a, s = _r(4, 5), _r(2, 5)
    got = ember.slice_scatter(ember.from_numpy(a), ember.from_numpy(s), 0, 1, 3).numpy()
    ref = a.copy()
    ref[1:3] = s
    np.testing.assert_array_equal(got, ref)
    out = ember.empty(0)
    assert ember.diagonal_scatter(ember.from_numpy(a), ember.zeros(4), out=out) is out
    ref = a.copy()
    np.fill_diagonal(ref, 0)
    np.testing.assert_array_equal(out.numpy(), ref)


def test_unsafe_split_and_split_with_sizes_are_views():
    x = ember.arange(10.0)
    parts = ember.split_with_sizes(x, [3, 7])
    parts[0].fill_(-1.0)
    assert x[:3].tolist() == [-1.0] * 3
    assert [p.shape[0] for p in ember.unsafe_split(x, 4)] == [4, 4, 2]


def test_no_torch_outcome_helper_detects_errors():
    o = outcome(ember, lambda L, x: L.tril(x), [np.ones(3, np.float32)])
    assert o[0] is RuntimeError
    with pytest.raises(AssertionError):
        assert_same(outcome(ember, lambda L, x: x + 1, [np.ones(2, np.float32)]),
                    outcome(ember, lambda L, x: x, [np.ones(2, np.float32)]))
