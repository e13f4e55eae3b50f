"""The small top-level functions and Tensor methods of python/ember/_composite_misc.py:
predicates, identities, rsub, creation (scalar_tensor, range, logspace, empty_permuted,
frombuffer, new_empty_strided), isin, unravel_index, fill_diagonal_, sum_to_size,
dim_order, the in-place draws (geometric_, log_normal_, cauchy_) and the process-wide
switches. NumPy references, and torch on the same data (values, dtypes, error types)."""
import array
import math

import numpy as np
import pytest

import ember
from composite_util import compare
from cuda_util import gpu

DEVICES = ["cpu", pytest.param("cuda", marks=gpu)]
RNG = np.random.default_rng(7)


def _r(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _i(*shape):
    return RNG.integers(-3, 4, shape).astype(np.int64)


def _cases():
    m, v, i = _r(3, 4), _r(4), _i(3, 4)
    return [
        ("is_nonzero", lambda L, x: L.tensor(L.is_nonzero(x[:1])), [v]),
        ("is_nonzero_empty", lambda L, x: L.is_nonzero(x[:0]), [v]),
        ("is_nonzero_many", lambda L, x: x.is_nonzero(), [v]),
        ("is_same_size", lambda L, x, y: L.tensor([L.is_same_size(x, y), x.is_same_size(x)]),
         [m, v]),
        ("is_signed", lambda L, x: L.tensor([L.is_signed(x), L.is_signed(x > 0)]), [i]),
        ("predicates", lambda L, x: L.tensor([L.is_conj(x), L.is_neg(x), x.is_conj(), x.is_neg(),
                                             L.is_distributed(x), L.is_inference(x)]), [m]),
        ("resolve", lambda L, x: L.resolve_neg(L.resolve_conj(x)) * 2, [m]),
        ("positive", lambda L, x: L.positive(x) + 0, [i]),
        ("positive_bool", lambda L, x: L.positive(x > 0), [m]),
        ("rsub", lambda L, x, y: L.rsub(x, y, alpha=2), [m, v]),
        ("rsub_scalar", lambda L, x: L.rsub(x, 1.5), [i]),
        ("rsub_int_alpha", lambda L, x: L.rsub(x, 1, alpha=0.5), [i]),
        ("isin", lambda L, x, y: L.isin(x, y), [i, _i(5)]),
        ("isin_invert", lambda L, x, y: L.isin(x, y, invert=True), [i, _i(2, 2)]),
        ("isin_scalar", lambda L, x: L.isin(x, 2), [i]),
        ("isin_scalar_first", lambda L, x: L.isin(2, x), [i]),
        ("isin_promote", lambda L, x, y: L.isin(x, y), [i, np.array([1.0, 2.5])]),
        ("unravel_index", lambda L, x: L.unravel_index(x.abs(), (4, 3)), [i]),
        ("unravel_index_neg", lambda L, x: L.unravel_index(x, (2, 2, 3)), [i]),
        ("unravel_index_float", lambda L, x: L.unravel_index(x, (4, 3)), [m]),
        ("unravel_index_bad_shape", lambda L, x: L.unravel_index(x, (2, -3)), [i]),
        ("fill_diagonal_", lambda L, x: (x * 1).fill_diagonal_(7.0), [m]),
        ("fill_diagonal_wrap", lambda L, x: L.zeros(7, 3).fill_diagonal_(5, wrap=True), [m]),
        ("fill_diagonal_nowrap", lambda L, x: L.zeros(7, 3).fill_diagonal_(5), [m]),
        ("fill_diagonal_3d", lambda L, x: L.zeros(3, 3, 3).fill_diagonal_(2), [m]),
        ("fill_diagonal_bad", lambda L, x: L.zeros(2, 3, 4).fill_diagonal_(2), [m]),
        ("fill_diagonal_1d", lambda L, x: (x * 1).fill_diagonal_(2), [v]),
        ("sum_to_size", lambda L, x: x.sum_to_size(1, 4), [m]),
        ("sum_to_size_lead", lambda L, x: x.sum_to_size((4,)), [m]),
        ("sum_to_size_bad", lambda L, x: x.sum_to_size(3, 3), [m]),
        ("swapaxes_", lambda L, x: (x * 1).swapaxes_(0, 1), [m]),
        ("swapdims_", lambda L, x: (x * 1).swapdims_(1, 0) * 1, [m]),
        ("scalar_tensor", lambda L, x: L.scalar_tensor(3), [m]),
        ("scalar_tensor_bool", lambda L, x: L.scalar_tensor(True, dtype=L.int32), [m]),
        ("range", lambda L, x: L.range(0, 5, 2), [m]),
        ("range_neg", lambda L, x: L.range(3, -1.5, -0.5, dtype=L.float64), [m]),
        ("range_zero_step", lambda L, x: L.range(0, 5, 0), [m]),
        ("logspace", lambda L, x: L.logspace(-2, 2, 5), [m]),
        ("logspace_base", lambda L, x: L.logspace(0, 3, 4, base=2, dtype=L.int64), [m]),
        ("logspace_empty", lambda L, x: L.logspace(0, 3, 0), [m]),
    ]


@pytest.mark.parametrize("name,fn,arrays", _cases(), ids=[c[0] for c in _cases()])
@pytest.mark.parametrize("noncontig", [False, True])
def test_against_torch(torch, name, fn, arrays, noncontig):
    if noncontig and name == "isin_invert":
        pytest.skip("torch's isin views non-contiguous test_elements and raises; ember's works")
    compare(torch, fn, arrays, noncontig=noncontig, grad=True)


@pytest.mark.gpu
@pytest.mark.parametrize("name,fn,arrays", _cases(), ids=[c[0] for c in _cases()])
def test_against_torch_cuda(torch, name, fn, arrays):
    compare(torch, fn, arrays, device="cuda", grad=True)


def test_numpy_references():
    x = _i(3, 4)
    np.testing.assert_array_equal(ember.isin(ember.from_numpy(x), ember.tensor([0, 2])).numpy(),
                                  np.isin(x, [0, 2]))
    flat = np.array([0, 5, 11, 7])
    got = ember.unravel_index(ember.from_numpy(flat), (3, 4))
    for g, r in zip(got, np.unravel_index(flat, (3, 4))):
        np.testing.assert_array_equal(g.numpy(), r)
    np.testing.assert_allclose(ember.logspace(0, 2, 3).numpy(), np.logspace(0, 2, 3))
    with pytest.warns(UserWarning, match="deprecated"):
        np.testing.assert_allclose(ember.range(1, 2, 0.25).numpy(), np.arange(1, 2.01, 0.25))
    z = np.zeros((5, 2), np.float32)
    np.fill_diagonal(z, 3, wrap=True)
    np.testing.assert_array_equal(ember.zeros(5, 2).fill_diagonal_(3, wrap=True).numpy(), z)


def test_creation_layouts_and_buffers():
    e = ember.empty_permuted((2, 3, 4), (2, 0, 1))
    assert e.shape == (2, 3, 4) and e.stride() == (3, 1, 6)
    assert e.dim_order() == (2, 0, 1)
    assert ember.ones(2, 3, 4).dim_order() == (0, 1, 2)
    with pytest.raises(RuntimeError):
        ember.empty_permuted((2, 3), (0, 0))
    n = ember.ones(2, 3, dtype=ember.int32).new_empty_strided((2, 3), (1, 2))
    assert n.stride() == (1, 2) and n.dtype == ember.int32
    buf = bytearray(np.arange(5, dtype=np.float32).tobytes())
    t = ember.frombuffer(buf, dtype=ember.float32, count=3, offset=4)
    assert t.tolist() == [1.0, 2.0, 3.0]
    t[0] = 9.0  # shares the buffer's memory
    assert np.frombuffer(buf, np.float32)[1] == 9.0
    a = array.array("h", [1, -2, 3])
    assert ember.frombuffer(a, dtype=ember.int16).tolist() == [1, -2, 3]
    with pytest.raises(ValueError, match="must not be 0"):
        ember.frombuffer(b"", dtype=ember.float32)
    with pytest.raises(ValueError, match="multiple of element size"):
        ember.frombuffer(b"abc", dtype=ember.float32)


@pytest.mark.parametrize("device", DEVICES)
def test_random_draws(device):
    ember.manual_seed(3)
    n = 20000
    g = ember.empty(n, device=device).geometric_(0.25).cpu().numpy()
    assert g.min() >= 1 and np.all(g == np.round(g))
    assert abs(g.mean() - 4.0) < 0.15  # mean 1/p
    ln = np.log(ember.empty(n, device=device, dtype=ember.float64).log_normal_(1.0, 0.5)
                .cpu().numpy())
    assert abs(ln.mean() - 1.0) < 0.03 and abs(ln.std() - 0.5) < 0.03
    c = ember.empty(n, device=device).cauchy_(2.0, 0.5).cpu().numpy()
    assert abs(np.median(c) - 2.0) < 0.05
    assert abs(np.percentile(c, 75) - 2.5) < 0.05  # quartiles at median +- sigma
    gi = ember.empty(100, dtype=ember.int64, device=device).geometric_(0.5)
    assert gi.dtype == ember.int64 and gi.min().item() >= 1
    gen = ember.Generator(device=device) if device == "cuda" else ember.Generator()
    gen.manual_seed(11)
    a = ember.empty(5, device=device).cauchy_(generator=gen)
    gen.manual_seed(11)
    b = ember.empty(5, device=device).cauchy_(generator=gen)
    assert a.tolist() == b.tolist()


def test_random_draw_errors(torch):
    for fn in (lambda L: L.ones(2).geometric_(1.5), lambda L: L.ones(2).log_normal_(1, -1),
               lambda L: L.ones(2).cauchy_(0, -1),
               lambda L: L.ones(2, dtype=L.int64).cauchy_(),
               lambda L: L.ones(2, dtype=L.int64).log_normal_()):
        with pytest.raises(Exception) as want:
            fn(torch)
        with pytest.raises(want.type):
            fn(ember)


def test_switches_round_trip(torch):
    for L in (torch, ember):
        assert L.get_deterministic_debug_mode() == 0
        L.set_deterministic_debug_mode("warn")
        assert L.are_deterministic_algorithms_enabled()
        assert L.is_deterministic_algorithms_warn_only_enabled()
        assert L.get_deterministic_debug_mode() == 1
        L.use_deterministic_algorithms(True)
        assert L.get_deterministic_debug_mode() == 2
        L.set_deterministic_debug_mode(0)
        assert not L.are_deterministic_algorithms_enabled()
        with pytest.raises(RuntimeError):
            L.set_deterministic_debug_mode("loud")
        L.set_warn_always(True)
        assert L.is_warn_always_enabled()
        L.set_warn_always(False)
        assert not L.is_warn_always_enabled()
        assert L.get_num_interop_threads() >= 1
        assert isinstance(L.set_flush_denormal(False), bool)
        assert L.init_num_threads() is None


def test_detach_and_get_device():
    x = ember.ones(2, requires_grad=True) * 2
    assert not ember.detach(x).requires_grad
    ember.detach_(x)
    assert not x.requires_grad
    assert ember.get_device(x) == -1
    assert not ember.ones(2).is_shared() and ember.ones(2).share_memory_() is not None
    assert math.isclose(ember.scalar_tensor(2.5).item(), 2.5)
