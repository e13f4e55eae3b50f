"""EmbeddingBag / F.embedding_bag on the CPU against NumPy float64 references: sum, mean
and max over bags given by offsets (with include_last_offset) or by a 2-D input,
per_sample_weights, padding_idx, empty bags, gradients of the weight and of
per_sample_weights, from_pretrained, reprs and messages."""
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


def bags_of(n, offsets, include_last):
    offs = list(offsets)
    ends = offs[1:] + ([] if include_last else [n])
    starts = offs[:-1] if include_last else offs
    return list(zip(starts, ends))


def ref_bag(w, idx, offsets, mode, psw=None, padding_idx=None, include_last=False):
    out = []
    for s, e in bags_of(len(idx), offsets, include_last):
        rows = [(i, idx[i]) for i in range(s, e) if idx[i] != padding_idx]
        if not rows:
            out.append(np.zeros(w.shape[1]))
            continue
        vals = np.stack([w[v] * (psw[i] if psw is not None else 1.0) for i, v in rows])
        out.append({"sum": vals.sum(0), "mean": vals.mean(0), "max": vals.max(0)}[mode])
    return np.stack(out) if out else np.zeros((0, w.shape[1]))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("include_last", [False, True])
def test_embedding_bag_offsets(mode, include_last):
    w = RNG.standard_normal((10, 6))
    idx = RNG.integers(0, 10, 13)
    offsets = [0, 3, 3, 7, 12]  # bag 1 is empty
    if include_last:
        offsets = offsets + [13]
    out = F.embedding_bag(ember.tensor(idx), t64(w), ember.tensor(offsets), mode=mode,
                          include_last_offset=include_last)
    np.testing.assert_allclose(npy(out), ref_bag(w, idx, offsets, mode,
                                                 include_last=include_last), atol=1e-12)
    wt = t64(w, True)
    assert ember.autograd.gradcheck(
        lambda w: F.embedding_bag(ember.tensor(idx), w, ember.tensor(offsets), mode=mode,
                                  include_last_offset=include_last), (wt,))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_2d_input_padding_and_float32(mode):
    w = RNG.standard_normal((8, 5))
    idx = RNG.integers(0, 8, (4, 3))
    idx[1, :] = 2  # a bag of padding only: zeros
    idx[2, 0] = 2
    out = F.embedding_bag(ember.tensor(idx), t64(w), mode=mode, padding_idx=2)
    ref = ref_bag(w, idx.reshape(-1), [0, 3, 6, 9], mode, padding_idx=2)
    np.testing.assert_allclose(npy(out), ref, atol=1e-12)
    wt = t64(w, True)
    F.embedding_bag(ember.tensor(idx), wt, mode=mode, padding_idx=2).sum().backward()
    assert np.all(npy(wt.grad)[2] == 0)
    out32 = F.embedding_bag(ember.tensor(idx).int(), ember.tensor(w, dtype=ember.float32),
                            mode=mode, padding_idx=-6)  # -6 wraps to 2
    assert out32.dtype == ember.float32
    np.testing.assert_allclose(npy(out32), ref, rtol=1e-5, atol=1e-6)


def test_embedding_bag_per_sample_weights():
    w = RNG.standard_normal((9, 4))
    idx = RNG.integers(0, 9, 10)
    psw = RNG.standard_normal(10)
    offsets = [0, 4, 4, 9]
    out = F.embedding_bag(ember.tensor(idx), t64(w), ember.tensor(offsets), mode="sum",
                          per_sample_weights=t64(psw))
    np.testing.assert_allclose(npy(out), ref_bag(w, idx, offsets, "sum", psw), atol=1e-12)
    wt, pt = t64(w, True), t64(psw, True)
    assert ember.autograd.gradcheck(
        lambda w, p: F.embedding_bag(ember.tensor(idx), w, ember.tensor(offsets), mode="sum",
                                     per_sample_weights=p, padding_idx=int(idx[1])), (wt, pt))
    with pytest.raises(NotImplementedError, match="per_sample_weights is only supported for "
                                                  "mode='sum' \\(got mode='mean'\\)"):
        F.embedding_bag(ember.tensor(idx), t64(w), ember.tensor(offsets), mode="mean",
                        per_sample_weights=t64(psw))
    with pytest.raises(ValueError, match="then it must have the same shape as the input"):
        F.embedding_bag(ember.tensor(idx), t64(w), ember.tensor(offsets), mode="sum",
                        per_sample_weights=t64(psw[:3]))


def test_embedding_bag_errors():
    w = ember.randn(5, 3)
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        F.embedding_bag(ember.tensor([0, 1]), w)
    with pytest.raises(ValueError, match="if input is 2D, then offsets has to be None"):
        F.embedding_bag(ember.tensor([[0, 1]]), w, ember.tensor([0]))
    with pytest.raises(ValueError, match="mode has to be one of sum, mean or max"):
        F.embedding_bag(ember.tensor([[0, 1]]), w, mode="min")
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding_bag(ember.tensor([0, 5]), w, ember.tensor([0]))
    with pytest.raises(RuntimeError, match="offsets\\[0\\] has to be 0"):
        F.embedding_bag(ember.tensor([0, 1]), w, ember.tensor([1]))
    with pytest.raises(ValueError, match="input has to be 1D or 2D Tensor, but got Tensor of "
                                         "dimension 3"):
        F.embedding_bag(ember.zeros((1, 1, 1), dtype=ember.long), w)
    # still usable
    assert tuple(F.embedding_bag(ember.tensor([0, 1]), w, ember.tensor([0])).shape) == (1, 3)


def test_embedding_bag_module():
    m = nn.EmbeddingBag(10, 3)
    assert repr(m) == "EmbeddingBag(10, 3, mode='mean')"
    assert repr(nn.EmbeddingBag(10, 3, padding_idx=2, mode="max")) == \
        "EmbeddingBag(10, 3, mode='max', padding_idx=2)"
    assert repr(nn.EmbeddingBag(10, 3, mode="sum", max_norm=1.0, norm_type=1.0)) == \
        "EmbeddingBag(10, 3, max_norm=1.0, norm_type=1.0, mode='sum')"
    assert list(m.state_dict()) == ["weight"]
    p = nn.EmbeddingBag(6, 2, padding_idx=-1)
    assert p.padding_idx == 5 and np.all(npy(p.weight)[5] == 0)
    w = RNG.standard_normal((6, 4))
    fp = nn.EmbeddingBag.from_pretrained(t64(w), mode="sum")
    assert not fp.weight.requires_grad
    idx = ember.tensor([[1, 2], [3, 3]])
    np.testing.assert_allclose(npy(fp(idx)), w[[1, 3]] + w[[2, 3]], atol=1e-12)
    psw = t64(np.array([[1.0, 2.0], [0.5, 0.5]]))
    np.testing.assert_allclose(npy(fp(idx, per_sample_weights=psw)),
                               np.stack([w[1] + 2 * w[2], w[3]]), atol=1e-12)
    # max_norm renormalises the looked-up rows in place
    mn = nn.EmbeddingBag.from_pretrained(t64(w * 10), max_norm=1.0, freeze=False)
    mn(ember.tensor([[0, 1]]))
    assert np.all(np.linalg.norm(npy(mn.weight)[[0, 1]], axis=1) <= 1.0 + 1e-6)


def test_top_level_embedding_bag_and_renorm():
    w = RNG.standard_normal((5, 3))
    idx, off = ember.tensor([0, 2, 1, 1, 4]), ember.tensor([0, 2, 2])
    out, offset2bag, bag_size, max_idx = ember.embedding_bag(t64(w), idx, off, False, 2)
    np.testing.assert_allclose(npy(out), ref_bag(w, npy(idx), [0, 2, 2], "max"), atol=1e-12)
    assert npy(offset2bag).tolist() == [0, 0, 2, 2, 2]
    assert npy(bag_size).tolist() == [2, 0, 3]
    np.testing.assert_array_equal(npy(max_idx)[2], np.array([1, 2, 4])[w[[1, 1, 4]].argmax(0)])
    assert npy(max_idx)[1].tolist() == [0, 0, 0]
    big = t64(w * 10)
    ember.embedding_renorm_(big, ember.tensor([0, 3]), 1.0, 2.0)
    norms = np.linalg.norm(npy(big), axis=1)
    np.testing.assert_allclose(norms[[0, 3]], [1.0, 1.0], rtol=1e-6)
    np.testing.assert_allclose(npy(big)[[1, 2, 4]], w[[1, 2, 4]] * 10)
