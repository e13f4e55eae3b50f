"""Products, distances and statistics composed of bound ops (python/ember/_composite_linalg.py,
_composite_stats.py): trace, inner, kron, tensordot, addr, addbmm, addmv_, adjoint,
matrix_power, vander, dist, cdist, pdist, renorm, cosine_similarity, pairwise_distance,
nansum, nanmean, logcumsumexp, cov, corrcoef. NumPy references, and torch (values, dtypes,
gradients, error types) on the same data, contiguous or not."""
import numpy as np
import pytest

import ember
from composite_util import compare
from cuda_util import gpu

RNG = np.random.default_rng(61)


def _r(*shape, dtype=np.float64):
    return (RNG.standard_normal(shape) * 2).astype(dtype)


def _i(*shape):
    return RNG.integers(-4, 5, shape).astype(np.int64)


def _e(a):
    return ember.from_numpy(np.array(a, copy=True))


# ---- NumPy references -------------------------------------------------------------------------

def test_products_match_numpy():
    a, b = _r(3, 4), _r(5, 4)
    np.testing.assert_allclose(ember.trace(_e(a)).item(), np.trace(a))
    assert ember.trace(_e(_i(3, 3))).dtype == ember.int64
    np.testing.assert_allclose(ember.inner(_e(a), _e(b)).numpy(), np.inner(a, b))
    np.testing.assert_allclose(ember.kron(_e(a), _e(b)).numpy(), np.kron(a, b))
    p, q = _i(2, 3), _i(3)
    np.testing.assert_array_equal(ember.kron(_e(p), _e(q)).numpy(), np.kron(p, q))
    c, d = _r(2, 3, 4), _r(4, 3, 5)
    np.testing.assert_allclose(ember.tensordot(_e(c), _e(d), ([1, 2], [1, 0])).numpy(),
                               np.tensordot(c, d, ([1, 2], [1, 0])))
    x = _i(4)
    np.testing.assert_array_equal(ember.vander(_e(x), 3).numpy(), np.vander(x, 3))
    np.testing.assert_array_equal(ember.vander(_e(x), increasing=True).numpy(),
                                  np.vander(x, increasing=True))
    m = _r(3, 3)
    np.testing.assert_allclose(ember.matrix_power(_e(m), 5).numpy(),
                               np.linalg.matrix_power(m, 5), rtol=1e-10)
    np.testing.assert_allclose(ember.matrix_power(_e(m), 0).numpy(), np.eye(3))


def test_statistics_match_numpy():
    x = _r(3, 7)
    np.testing.assert_allclose(ember.cov(_e(x)).numpy(), np.cov(x), rtol=1e-10)
    np.testing.assert_allclose(ember.cov(_e(x), correction=0).numpy(), np.cov(x, bias=True))
    fw, aw = RNG.integers(0, 4, 7), RNG.random(7)
    np.testing.assert_allclose(ember.cov(_e(x), fweights=_e(fw), aweights=_e(aw)).numpy(),
                               np.cov(x, fweights=fw, aweights=aw), rtol=1e-10)
    np.testing.assert_allclose(ember.corrcoef(_e(x)).numpy(), np.corrcoef(x), rtol=1e-10)
    assert ember.cov(_e(x[0])).dim() == 0
    y = x.copy()
    y[0, 2] = y[1, 5] = np.nan
    np.testing.assert_allclose(ember.nansum(_e(y), 1).numpy(), np.nansum(y, 1))
    np.testing.assert_allclose(ember.nanmean(_e(y), 1, True).numpy(),
                               np.nanmean(y, 1, keepdims=True))
    np.testing.assert_allclose(ember.nansum(_e(y)).item(), np.nansum(y))
    z = np.array([-1000.0, 0.0, 1.0, -np.inf, 50.0, 2.0, 700.0])
    np.testing.assert_allclose(ember.logcumsumexp(_e(z), 0).numpy(), np.logaddexp.accumulate(z))
    w = _r(2, 9, 3)
    np.testing.assert_allclose(ember.logcumsumexp(_e(w), 1).numpy(),
                               np.logaddexp.accumulate(w, 1), rtol=1e-12)


def test_distances_match_numpy():
    a, b = _r(4, 3), _r(5, 3)
    ref = np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1))
    np.testing.assert_allclose(ember.cdist(_e(a), _e(b)).numpy(), ref, rtol=1e-10)
    iu = np.triu_indices(4, 1)
    np.testing.assert_allclose(ember.pdist(_e(a), 1).numpy(),
                               np.abs(a[:, None] - a[None]).sum(-1)[iu], rtol=1e-10)
    np.testing.assert_allclose(ember.dist(_e(a), _e(b[0]), 3).item(),
                               (np.abs(a - b[0]) ** 3).sum() ** (1 / 3), rtol=1e-10)


# ---- against torch ------------------------------------------------------------------------------

def _cases():
    m, s, v, w = _r(3, 4), _r(3, 3), _r(3), _r(4)
    return [
        ("trace", lambda L, x: L.trace(x), [m]),
        ("trace_int", lambda L, x: x.trace(), [_i(3, 2)]),
        ("trace_1d", lambda L, x: L.trace(x), [v]),
        ("inner", lambda L, x, y: L.inner(x, y), [m, _r(2, 4)]),
        ("inner_scalar", lambda L, x, y: x.inner(y), [m, np.array(2.0)]),
        ("inner_bad", lambda L, x, y: L.inner(x, y), [m, v]),
        ("kron", lambda L, x, y: L.kron(x, y), [m, _r(2, 1, 2)]),
        ("kron_int", lambda L, x, y: x.kron(y), [_i(2, 2), _i(3)]),
        ("tensordot", lambda L, x, y: L.tensordot(x, y, 1), [m, _r(4, 2)]),
        ("tensordot_lists", lambda L, x, y: L.tensordot(x, y, ([0], [1])), [m, _r(2, 3)]),
        ("tensordot_neg", lambda L, x, y: L.tensordot(x, y, -1), [m, m]),
        ("tensordot_mismatch", lambda L, x, y: L.tensordot(x, y, ([1], [0])), [m, m]),
        ("addr", lambda L, x, a, b: L.addr(x, a, b, beta=0.5, alpha=2), [m, v, w]),
        ("addr_bcast", lambda L, x, a, b: L.addr(x, a, b), [w, v, w]),
        ("addr_beta0", lambda L, x, a, b: L.addr(x, a, b, beta=0),
         [np.where(m > 0, np.nan, m), v, w]),
        ("addbmm_beta0", lambda L, x, a, b: L.addbmm(x, a, b, beta=0),
         [np.full((3, 4), np.inf), _r(2, 3, 2), _r(2, 2, 4)]),
        ("addr_int_alpha", lambda L, x, a, b: L.addr(x, a, b, alpha=0.5),
         [_i(3, 4), _i(3), _i(4)]),
        ("addr_", lambda L, x, a, b: (x * 1).addr_(a, b), [m, v, w]),
        ("addbmm", lambda L, x, a, b: L.addbmm(x, a, b, beta=2, alpha=0.5),
         [m, _r(5, 3, 2), _r(5, 2, 4)]),
        ("addbmm_", lambda L, x, a, b: (x * 1).addbmm_(a, b), [m, _r(2, 3, 2), _r(2, 2, 4)]),
        ("addbmm_bad", lambda L, x, a, b: L.addbmm(x, a, b), [m, _r(2, 3, 2), _r(3, 2, 4)]),
        ("addmv_", lambda L, x, a, b: (x * 1).addmv_(a, b, alpha=2), [v, m, w]),
        ("adjoint", lambda L, x: L.adjoint(x), [_r(2, 3, 4)]),
        ("adjoint_1d", lambda L, x: x.adjoint(), [v]),
        ("matrix_power", lambda L, x: L.matrix_power(x, 3), [s]),
        ("matrix_power_batch", lambda L, x: x.matrix_power(2), [_r(2, 3, 3)]),
        ("matrix_power_0", lambda L, x: x.matrix_power(0), [s]),
        ("matrix_power_bad", lambda L, x: L.matrix_power(x, 2), [m]),
        ("vander", lambda L, x: L.vander(x, 4), [v]),
        ("vander_bool", lambda L, x: L.vander(x > 0), [v]),
        ("vander_2d", lambda L, x: L.vander(x), [m]),
        ("dist", lambda L, x, y: L.dist(x, y, 3), [m, w]),
        ("dist_inf", lambda L, x, y: x.dist(y, float("inf")), [m, w]),
        ("cdist", lambda L, x, y: L.cdist(x, y), [_r(2, 3, 4), _r(5, 4)]),
        ("cdist_p1", lambda L, x, y: L.cdist(x, y, p=1), [m, _r(2, 4)]),
        ("cdist_bad", lambda L, x, y: L.cdist(x, y), [m, _r(2, 3)]),
        ("pdist", lambda L, x: L.pdist(x), [_r(5, 3)]),
        ("pdist_inf", lambda L, x: L.pdist(x, float("inf")), [_r(4, 2)]),
        ("renorm", lambda L, x: L.renorm(x, 2, 0, 1.0), [m]),
        ("renorm_1", lambda L, x: x.renorm(1, 1, 0.5), [m]),
        ("renorm_", lambda L, x: (x * 1).renorm_(2, -1, 2.0), [m]),
        ("renorm_bad", lambda L, x: L.renorm(x, 0, 0, 1.0), [m]),
        ("cosine_similarity", lambda L, x, y: L.cosine_similarity(x, y), [m, _r(1, 4)]),
        ("cosine_similarity_dim", lambda L, x, y: L.cosine_similarity(x, y, 0), [m, m]),
        ("pairwise_distance", lambda L, x, y: L.pairwise_distance(x, y), [m, m]),
        ("pairwise_distance_p", lambda L, x, y: L.pairwise_distance(x, y, 1.5, keepdim=True),
         [m, w]),
        ("nansum", lambda L, x: L.nansum(x, 1), [m]),
        ("nansum_int", lambda L, x: x.nansum(), [_i(3, 4)]),
        ("nanmean", lambda L, x: L.nanmean(x, (0, 1)), [m]),
        ("nanmean_int", lambda L, x: L.nanmean(x), [_i(3)]),
        ("logcumsumexp", lambda L, x: L.logcumsumexp(x, 1), [m]),
        ("logcumsumexp_0d", lambda L, x: x.logcumsumexp(0), [np.array(1.5)]),
        ("logcumsumexp_int", lambda L, x: L.logcumsumexp(x, 0), [_i(3)]),
        ("cov", lambda L, x: L.cov(x), [m]),
        ("cov_int", lambda L, x: x.cov(), [_i(2, 5)]),
        ("cov_3d", lambda L, x: L.cov(x), [_r(2, 2, 2)]),
        ("corrcoef", lambda L, x: L.corrcoef(x), [m]),
        ("corrcoef_1d", lambda L, x: x.corrcoef(), [w]),
    ]


@pytest.mark.parametrize("name,fn,arrays", _cases(), ids=[c[0] for c in _cases()])
@pytest.mark.parametrize("noncontig", [False, True])
def test_against_torch(torch, name, fn, arrays, noncontig):
    if noncontig and name.startswith("kron"):
        pytest.skip("torch's kron raises on these non-contiguous inputs (a view error); "
                    "ember's works")
    compare(torch, fn, arrays, noncontig=noncontig, grad=True, rtol=1e-7, atol=1e-9)


@pytest.mark.gpu
@pytest.mark.parametrize("name,fn,arrays", _cases(), ids=[c[0] for c in _cases()])
def test_against_torch_cuda(torch, name, fn, arrays):
    compare(torch, fn, arrays, device="cuda", grad=True, rtol=1e-7, atol=1e-9)


def test_empty_inputs(torch):
    for fn, arrays in [(lambda L, x, y: L.kron(x, y), [_r(0, 2), _r(2)]),
                       (lambda L, x: L.nansum(x), [_r(0, 3)]),
                       (lambda L, x: L.logcumsumexp(x, 0), [_r(0, 3)]),
                       (lambda L, x, y: L.cdist(x, y), [_r(0, 3), _r(2, 3)]),
                       (lambda L, x: L.trace(x), [_r(0, 0)])]:
        compare(torch, fn, arrays)


def test_matrix_power_negative_is_not_silently_wrong():
    with pytest.raises(NotImplementedError, match="inverse"):
        ember.matrix_power(ember.eye(2), -1)
