"""F.cosine_similarity, F.pairwise_distance, F.pdist, F.normalize and F.bilinear with
their modules (CosineSimilarity, PairwiseDistance, Bilinear) on the CPU against NumPy
float64 references: values, broadcasting, gradients (gradcheck), reprs and messages."""
import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

RNG = np.random.default_rng()


def t64(a, rg=False):
    return ember.tensor(np.asarray(a, dtype=np.float64), dtype=ember.float64, requires_grad=rg)


def npy(t):
    return t.detach().cpu().numpy()


def test_cosine_similarity():
    a, b = RNG.standard_normal((4, 5)), RNG.standard_normal((1, 5))
    ref = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    np.testing.assert_allclose(npy(F.cosine_similarity(t64(a), t64(b))), ref, rtol=1e-12)
    m = nn.CosineSimilarity(dim=0)
    assert repr(m) == "CosineSimilarity()"
    np.testing.assert_allclose(npy(m(t64(a[0]), t64(b[0]))), ref[0], rtol=1e-12)
    assert npy(F.cosine_similarity(ember.zeros(2, 3), ember.ones(2, 3))).tolist() == [0.0, 0.0]
    assert ember.autograd.gradcheck(lambda x, y: F.cosine_similarity(x, y), (t64(a, True),
                                                                           t64(b, True)))


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf"), 0.0])
def test_pairwise_distance(p):
    a, b = RNG.standard_normal((4, 5)), RNG.standard_normal((4, 5))
    d = a - b + 1e-6
    ref = {0.0: (d != 0).sum(1).astype(float), float("inf"): np.abs(d).max(1)}.get(
        p, (np.abs(d) ** p).sum(1) ** (1 / p) if p else None)
    out = F.pairwise_distance(t64(a), t64(b), p)
    np.testing.assert_allclose(npy(out), ref, rtol=1e-10)
    m = nn.PairwiseDistance(p, keepdim=True)
    assert repr(m) == "PairwiseDistance()"
    assert tuple(m(t64(a), t64(b)).shape) == (4, 1)
    np.testing.assert_allclose(npy(F.pairwise_distance(t64(a), t64(b[0]), p)),
                               npy(F.pairwise_distance(t64(a), t64(np.tile(b[0], (4, 1))), p)))
    if p not in (0.0, float("inf")):
        assert ember.autograd.gradcheck(lambda x: F.pairwise_distance(x, t64(b), p),
                                        (t64(a, True),))


@pytest.mark.parametrize("p", [1.0, 1.5, 2.0, float("inf")])
def test_pdist(p):
    a = RNG.standard_normal((5, 3))
    ref = []
    for i in range(5):
        for j in range(i + 1, 5):
            d = np.abs(a[i] - a[j])
            ref.append(d.max() if p == float("inf") else (d ** p).sum() ** (1 / p))
    np.testing.assert_allclose(npy(F.pdist(t64(a), p)), ref, rtol=1e-10)
    assert tuple(F.pdist(t64(a[:1])).shape) == (0,)
    if p != float("inf"):
        assert ember.autograd.gradcheck(lambda x: F.pdist(x, p), (t64(a, True),))
    with pytest.raises(RuntimeError, match="pdist only supports 2D tensors, got: 3D"):
        F.pdist(t64(a).reshape(1, 5, 3))


def test_normalize():
    a = RNG.standard_normal((3, 4))
    ref = a / np.maximum((np.abs(a) ** 1.5).sum(0, keepdims=True) ** (1 / 1.5), 1e-12)
    np.testing.assert_allclose(npy(F.normalize(t64(a), p=1.5, dim=0)), ref, rtol=1e-12)
    out = t64(np.zeros((3, 4)))
    r = F.normalize(t64(a), p=1.5, dim=0, out=out)
    assert r is out
    np.testing.assert_allclose(npy(out), ref, rtol=1e-12)
    assert npy(F.normalize(ember.zeros(2, 3))).sum() == 0
    assert ember.autograd.gradcheck(lambda x: F.normalize(x, dim=1), (t64(a, True),))


def test_bilinear():
    x1, x2 = RNG.standard_normal((3, 2, 4)), RNG.standard_normal((3, 2, 5))
    w, b = RNG.standard_normal((6, 4, 5)), RNG.standard_normal(6)
    ref = np.einsum("nki,oij,nkj->nko", x1, w, x2) + b
    np.testing.assert_allclose(npy(F.bilinear(t64(x1), t64(x2), t64(w), t64(b))), ref,
                               rtol=1e-12)
    m = nn.Bilinear(4, 5, 6).double()
    assert repr(m) == "Bilinear(in1_features=4, in2_features=5, out_features=6, bias=True)"
    assert list(m.state_dict()) == ["weight", "bias"]
    assert np.all(np.abs(npy(m.weight)) <= 0.5)  # uniform in +-1/sqrt(in1_features)
    assert ember.autograd.gradcheck(lambda a, c, w: F.bilinear(a, c, w),
                                    (t64(x1[:, 0], True), t64(x2[:, 0], True), t64(w, True)))
    with pytest.raises(RuntimeError, match="All tensors must have the same dtype, got input1: "
                                           "double, input2: double, weight: double, bias: float"):
        F.bilinear(t64(x1), t64(x2), t64(w), ember.ones(6))
    with pytest.raises(RuntimeError, match="input batch dimensions do not match at dim 0: got 3 "
                                           "and 2"):
        F.bilinear(t64(x1), t64(x2[:2]), t64(w))
    with pytest.raises(RuntimeError, match="bias size does not match weight size: got 5 but "
                                           "expected 6"):
        F.bilinear(t64(x1), t64(x2), t64(w), t64(b[:5]))


def test_one_hot():
    t = ember.tensor([[0, 2], [1, 3]])
    ref = np.eye(4, dtype=np.int64)[np.array([[0, 2], [1, 3]])]
    np.testing.assert_array_equal(npy(F.one_hot(t)), ref)
    np.testing.assert_array_equal(npy(F.one_hot(t, 6)), np.eye(6, dtype=np.int64)[npy(t)])
    assert tuple(F.one_hot(ember.zeros(0, dtype=ember.long), 3).shape) == (0, 3)
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes."):
        F.one_hot(t, 3)
    with pytest.raises(RuntimeError, match="Class values must be non-negative."):
        F.one_hot(ember.tensor([0, -1]))
    with pytest.raises(RuntimeError, match="Can not infer total number of classes from empty "
                                           "tensor."):
        F.one_hot(ember.zeros(0, dtype=ember.long))
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor of type "
                                           "LongTensor."):
        F.one_hot(t.int())
