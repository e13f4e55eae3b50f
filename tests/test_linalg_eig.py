"""ember.linalg.eig / eigvals (LAPACK geev): complex results for every input dtype, checked
against NumPy (eigenvalues as sorted multisets, eigenvectors through A V = V diag(w), unit
norm and LAPACK's normalisation), batches, empty and 0x0 inputs, torch's errors, gradcheck
(complex128 and float64, with gauge-invariant losses as torch's tests), and on the GPU
(host LAPACK, as torch's) against torch CUDA."""
import numpy as np
import pytest

import ember
from ember import linalg as LA

REAL = [ember.float32, ember.float64]
COMPLEX = [ember.complex64, ember.complex128]
OUT = {ember.float32: ember.complex64, ember.float64: ember.complex128,
       ember.complex64: ember.complex64, ember.complex128: ember.complex128}
TOL = {ember.float32: 2e-4, ember.complex64: 2e-4, ember.float64: 1e-10,
       ember.complex128: 1e-10}


def rng():
    return np.random.default_rng()


def rand(*shape, dtype=ember.float64):
    r = rng()
    a = r.standard_normal(shape)
    if dtype in COMPLEX:
        a = a + 1j * r.standard_normal(shape)
    return ember.tensor(a).to(dtype)


def sorted_eigs(w):
    """Eigenvalues in a canonical order (real part, then imaginary, rounded)."""
    w = np.asarray(w)
    key = np.lexsort((np.round(w.imag, 6), np.round(w.real, 6)), axis=-1)
    return np.take_along_axis(w, key, -1)


def check_eig(A, w, V, dtype):
    a = A.detach().numpy().astype(np.complex128)
    wn, vn = w.numpy().astype(np.complex128), V.numpy().astype(np.complex128)
    assert wn.shape == a.shape[:-1] and vn.shape == a.shape
    if a.size == 0:
        return
    scale = max(1.0, np.abs(a).max()) * max(1, a.shape[-1])
    # A V = V diag(w)
    err = np.abs(a @ vn - vn * wn[..., None, :]).max()
    assert err < TOL[dtype] * scale * 10, err
    # unit 2-norm columns (LAPACK's normalisation) with the largest component real
    np.testing.assert_allclose(np.linalg.norm(vn, axis=-2), 1.0, atol=TOL[dtype] * 10)
    # eigenvalues equal NumPy's as multisets
    ref = np.linalg.eigvals(a)
    np.testing.assert_allclose(sorted_eigs(wn), sorted_eigs(ref), atol=TOL[dtype] * scale * 10)


@pytest.mark.parametrize("dtype", REAL + COMPLEX)
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (5, 5), (3, 7, 7), (2, 2, 4, 4), (33, 33)])
def test_eig_matches_numpy(dtype, shape):
    A = rand(*shape, dtype=dtype)
    w, V = LA.eig(A)
    assert w.dtype == OUT[dtype] and V.dtype == OUT[dtype]
    assert tuple(w.shape) == shape[:-1] and tuple(V.shape) == shape
    check_eig(A, w, V, dtype)
    np.testing.assert_allclose(LA.eigvals(A).numpy(), w.numpy(), rtol=0, atol=1e-5)


def test_eig_real_matrix_conjugate_pairs_and_numpy_vectors():
    # a rotation block has eigenvalues +-i; LAPACK's vectors are NumPy's (same geev)
    A = ember.tensor([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 2.0]])
    w, V = LA.eig(A)
    wn, vn = np.linalg.eig(A.numpy())
    np.testing.assert_allclose(w.numpy(), wn, atol=1e-14)
    np.testing.assert_allclose(V.numpy(), vn, atol=1e-14)
    assert w.numpy()[0] == np.conj(w.numpy()[1])
    r = rand(6, 6)
    w, V = LA.eig(r)
    wn, vn = np.linalg.eig(r.numpy())
    np.testing.assert_allclose(w.numpy(), wn, atol=1e-12)
    np.testing.assert_allclose(V.numpy(), vn, atol=1e-12)


def test_eig_non_contiguous_and_expanded():
    base = rand(6, 12)
    A = base[:, ::2]
    check_eig(A, *LA.eig(A), ember.float64)
    B = rand(4, 4).expand(3, 4, 4)
    w, V = LA.eig(B)
    assert tuple(w.shape) == (3, 4)
    check_eig(B, w, V, ember.float64)
    At = rand(5, 5, dtype=ember.complex128).mT
    check_eig(At, *LA.eig(At), ember.complex128)


@pytest.mark.parametrize("shape", [(0, 0), (3, 0, 0), (0, 4, 4)])
def test_eig_empty(shape):
    for dt in (ember.float32, ember.complex128):
        w, V = LA.eig(ember.zeros(shape, dtype=dt))
        assert tuple(w.shape) == shape[:-1] and tuple(V.shape) == shape
        assert w.dtype == OUT[dt] and V.dtype == OUT[dt]
        assert tuple(LA.eigvals(ember.zeros(shape, dtype=dt)).shape) == shape[:-1]


def test_eig_does_not_modify_input():
    A = rand(5, 5)
    before = A.numpy().copy()
    LA.eig(A)
    LA.eigvals(A)
    np.testing.assert_array_equal(A.numpy(), before)


def test_eig_errors():
    with pytest.raises(RuntimeError, match="must be batches of square matrices, but they are "
                       "2 by 3 matrices"):
        LA.eig(rand(2, 3))
    with pytest.raises(RuntimeError, match="linalg.eigvals: A must be batches of square"):
        LA.eigvals(rand(2, 3))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        LA.eig(rand(3))
    with pytest.raises(RuntimeError, match="floating point or complex"):
        LA.eig(ember.ones(3, 3, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="Low precision"):
        LA.eig(rand(3, 3).half())
    for bad in (float("nan"), float("inf")):
        A = rand(3, 3)
        A[1, 2] = bad
        with pytest.raises(RuntimeError, match="should not contain infs or NaNs"):
            LA.eig(A)
    # eigvals needs no vectors: a non-finite matrix gets NaN eigenvalues, as torch's
    A = rand(3, 3, 3)
    A[1, 0, 0] = float("nan")
    A[2, 1, 2] = float("inf")
    w = LA.eigvals(A)
    assert np.isnan(w[1:].numpy()).all()
    np.testing.assert_allclose(sorted_eigs(w[0].numpy()),
                               sorted_eigs(np.linalg.eigvals(A[0].numpy())), atol=1e-10)
    with pytest.raises(TypeError):
        LA.eig([[1.0, 2.0], [3.0, 4.0]])
    # the process keeps working
    X = rand(4, 4)
    check_eig(X, *LA.eig(X), ember.float64)


def test_eig_top_level_and_return_type():
    A = rand(4, 4)
    r = ember.linalg.eig(A)
    assert type(r).__name__ == "linalg_eig"
    assert r.eigenvalues is r[0] and r.eigenvectors is r[1]
    check_eig(A, *r, ember.float64)


# ---- autograd -------------------------------------------------------------------------------

def leaf(t):
    return t.detach().requires_grad_(True)


def gc(fn, *inputs):
    assert ember.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)


def _recompose(w, V):
    # V diag(w) V^-1: independent of each eigenvector's scale and phase
    return LA.solve(V, V * w.unsqueeze(-2), left=False)


@pytest.mark.parametrize("dtype", [ember.float64, ember.complex128])
def test_grad_eig_gauge_invariant(dtype):
    A = leaf(rand(2, 4, 4, dtype=dtype))
    gc(lambda a: LA.eigvals(a), A)
    gc(lambda a: LA.eig(a)[0], A)
    gc(lambda a: LA.eig(a)[1].abs(), A)
    gc(lambda a: _recompose(*LA.eig(a)), A)
    gc(lambda a: LA.eig(a)[0].abs().sum() + LA.eig(a)[1].abs().sum(), A)


def test_grad_eig_values_formula():
    # d(sum w)/dA = I (trace): the gradient of the eigenvalues' sum
    A = leaf(rand(5, 5))
    LA.eigvals(A).real.sum().backward()
    np.testing.assert_allclose(A.grad.numpy(), np.eye(5), atol=1e-10)


def test_grad_eig_phase_dependent_loss_raises():
    A = leaf(rand(4, 4, dtype=ember.complex128))
    _, V = LA.eig(A)
    with pytest.raises(RuntimeError, match="specified up to multiplication by e"):
        V.real.sum().backward()


# ---- GPU: host geev, against torch CUDA -------------------------------------------------------

gpu = pytest.mark.gpu


@gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("shape", [(1, 1), (6, 6), (4, 9, 9), (0, 3, 3), (0, 0), (70, 70)])
def test_gpu_eig_against_torch(dtype, shape):
    torch = pytest.importorskip("torch")
    r = rng()
    a = r.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * r.standard_normal(shape)
    a = a.astype(dtype)
    A, tA = ember.tensor(a).cuda(), torch.from_numpy(a).cuda()
    w, V = LA.eig(A)
    tw, tV = torch.linalg.eig(tA)
    assert w.device.type == "cuda" and V.device.type == "cuda"
    assert str(w.dtype).split(".")[-1] == str(tw.dtype).split(".")[-1]
    assert tuple(V.shape) == tuple(tV.shape)
    edt = ember.float32 if dtype in ("float32", "complex64") else ember.float64
    check_eig(A.cpu(), w.cpu(), V.cpu(), edt)
    tol = 1e-3 if edt == ember.float32 else 1e-9
    wv, twv = LA.eigvals(A).cpu().numpy(), tw.cpu().numpy()
    assert wv.shape == twv.shape
    if wv.size:
        np.testing.assert_allclose(sorted_eigs(wv), sorted_eigs(twv), atol=tol * shape[-1])


@gpu
def test_gpu_eig_grad_against_torch():
    torch = pytest.importorskip("torch")
    a = rng().standard_normal((3, 5, 5)) + 1j * rng().standard_normal((3, 5, 5))
    A = ember.tensor(a).cuda().requires_grad_(True)
    tA = torch.from_numpy(a).cuda().requires_grad_(True)
    w, V = LA.eig(A)
    (w.abs().sum() + V.abs().sum()).backward()
    tw, tV = torch.linalg.eig(tA)
    (tw.abs().sum() + tV.abs().sum()).backward()
    assert A.grad.device.type == "cuda"
    np.testing.assert_allclose(A.grad.cpu().numpy(), tA.grad.cpu().numpy(), atol=1e-8)
