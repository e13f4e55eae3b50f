"""ember.nn.utils against NumPy and torch's semantics: rnn packing/padding (values,
gradients through them, errors), parametrize (register/remove/cached, right_inverse,
state-dict keys, reprs, class swap), parametrizations.weight_norm/spectral_norm/
orthogonal, the older weight_norm/spectral_norm hooks, clip_grad_norm_/clip_grad_value_,
get_total_norm, parameters_to_vector/vector_to_parameters. Reprs and keys are the strings
torch 2.11 prints."""
import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.autograd import gradcheck
from ember.nn.utils import parametrize, parametrizations as P, rnn

RNG = np.random.default_rng(1808)


def arr(*shape):
    return RNG.uniform(-1, 1, size=shape)


# ---- rnn ----------------------------------------------------------------------------------

def test_pad_sequence_right_left_batch_first():
    seqs = [arr(3, 2), arr(1, 2), arr(4, 2)]
    ts = [ember.tensor(s) for s in seqs]
    out = rnn.pad_sequence(ts, padding_value=-1.0).numpy()
    assert out.shape == (4, 3, 2)
    for b, s in enumerate(seqs):
        np.testing.assert_array_equal(out[:len(s), b], s)
        assert (out[len(s):, b] == -1.0).all()
    bf = rnn.pad_sequence(ts, batch_first=True, padding_side="left").numpy()
    assert bf.shape == (3, 4, 2)
    for b, s in enumerate(seqs):
        np.testing.assert_array_equal(bf[b, 4 - len(s):], s)
        assert (bf[b, :4 - len(s)] == 0).all()
    with pytest.raises(ValueError, match="Expected padding_side to be one of left or right, "
                                         "but got middle"):
        rnn.pad_sequence(ts, padding_side="middle")
    with pytest.raises(RuntimeError, match="Expected iterable for input sequences"):
        rnn.pad_sequence(3)


def test_unpad_sequence_round_trip():
    seqs = [ember.tensor(arr(n, 3)) for n in (5, 2, 4)]
    padded = rnn.pad_sequence(seqs, batch_first=True)
    back = rnn.unpad_sequence(padded, ember.tensor([5, 2, 4]), batch_first=True)
    assert all(ember.equal(a, b) for a, b in zip(back, seqs))
    padded_t = rnn.pad_sequence(seqs)
    back_t = rnn.unpad_sequence(padded_t, ember.tensor([5, 2, 4]))
    assert all(ember.equal(a, b) for a, b in zip(back_t, seqs))
    assert tuple(padded_t.shape) == (5, 3, 3)  # not transposed in place


def _pack_reference(padded, lengths):
    """time-major data and batch sizes of sequences sorted longest first"""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    rows, sizes = [], []
    for t in range(max(lengths)):
        live = [b for b in order if lengths[b] > t]
        sizes.append(len(live))
        rows.extend(padded[t, b] for b in live)
    return np.array(rows), sizes, order


@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_padded_sequence_unsorted(batch_first):
    lengths = [2, 5, 3, 5]
    padded = arr(5, 4, 3)
    src = padded.transpose(1, 0, 2) if batch_first else padded
    packed = rnn.pack_padded_sequence(ember.tensor(src), lengths, batch_first=batch_first,
                                      enforce_sorted=False)
    data, sizes, order = _pack_reference(padded, lengths)
    np.testing.assert_array_equal(packed.data.numpy(), data)
    assert packed.batch_sizes.tolist() == sizes and packed.batch_sizes.dtype == ember.int64
    assert packed.sorted_indices.tolist() == order
    inv = np.argsort(order)
    assert packed.unsorted_indices.tolist() == inv.tolist()
    out, lens = rnn.pad_packed_sequence(packed, batch_first=batch_first, padding_value=9.0)
    assert lens.tolist() == lengths
    o = out.numpy() if not batch_first else out.numpy().transpose(1, 0, 2)
    for b, n in enumerate(lengths):
        np.testing.assert_array_equal(o[:n, b], padded[:n, b])
        assert (o[n:, b] == 9.0).all()


def test_pack_sorted_total_length_and_gradients():
    x = ember.tensor(arr(4, 3, 2), requires_grad=True)
    packed = rnn.pack_padded_sequence(x, ember.tensor([4, 2, 1]))
    assert packed.sorted_indices is None and packed.unsorted_indices is None
    out, lens = rnn.pad_packed_sequence(packed, total_length=6)
    assert tuple(out.shape) == (6, 3, 2)
    g = arr(6, 3, 2)
    out.backward(ember.tensor(g))
    mask = np.zeros((4, 3, 1))
    for b, n in enumerate([4, 2, 1]):
        mask[:n, b] = 1
    np.testing.assert_allclose(x.grad.numpy(), g[:4] * mask, rtol=1e-12)
    with pytest.raises(ValueError, match="Expected total_length to be at least the length of "
                                         "the longest sequence in input, but got total_length=2 "
                                         "and max sequence length being 4"):
        rnn.pad_packed_sequence(packed, total_length=2)

    def f(inp):
        p = rnn.pack_padded_sequence(inp, [3, 1], enforce_sorted=True)
        return rnn.pad_packed_sequence(p)[0]

    assert gradcheck(f, (ember.tensor(arr(3, 2, 2), requires_grad=True),))


def test_pack_errors():
    x = ember.tensor(arr(4, 3, 2))
    with pytest.raises(RuntimeError, match="`lengths` array must be sorted in decreasing order "
                                           "when `enforce_sorted` is True"):
        rnn.pack_padded_sequence(x, [2, 4, 1])
    with pytest.raises(RuntimeError, match="Expected `len\\(lengths\\)` to be equal to "
                                           "batch_size, but got 2 \\(batch_size=3\\)"):
        rnn.pack_padded_sequence(x, [4, 2])
    with pytest.raises(RuntimeError, match="Length of all samples has to be greater than 0"):
        rnn.pack_padded_sequence(x, [4, 2, 0])
    with pytest.raises(RuntimeError, match="Cannot pack empty tensors"):
        rnn.pack_padded_sequence(ember.empty(0, 0, 2), [])
    with pytest.raises(ValueError, match="batch_sizes should always be on CPU"):
        rnn.PackedSequence(ember.ones(2), ember.tensor([1, 1]).to("meta")
                           if False else _NotCpu())


class _NotCpu:
    class device:
        type = "cuda"


def test_pack_sequence_unpack_sequence_and_packed_methods():
    seqs = [ember.tensor(arr(n, 2), dtype=ember.float32) for n in (3, 5, 1)]
    packed = rnn.pack_sequence(seqs, enforce_sorted=False)
    assert isinstance(packed, rnn.PackedSequence) and isinstance(packed, tuple)
    back = rnn.unpack_sequence(packed)
    assert all(ember.equal(a, b) for a, b in zip(back, seqs))
    d = packed.double()
    assert d.data.dtype == ember.float64 and d.batch_sizes is packed.batch_sizes
    assert packed.to(ember.float64) is not packed and packed.to("cpu") is packed
    assert not packed.is_cuda
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        rnn.pack_sequence(seqs)
    assert rnn.invert_permutation(None) is None
    p = ember.tensor([2, 0, 1])
    assert rnn.invert_permutation(p).tolist() == [1, 2, 0]


# ---- parametrize ----------------------------------------------------------------------------

class Symmetric(nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).mT

    def right_inverse(self, a):
        return a.triu()


class Double(nn.Module):
    def forward(self, x):
        return x * 2


def test_register_parametrization_symmetric():
    m = nn.Linear(3, 3).double()
    w0 = m.weight.detach().clone()
    parametrize.register_parametrization(m, "weight", Symmetric())
    assert type(m).__name__ == "ParametrizedLinear" and isinstance(m, nn.Linear)
    assert parametrize.type_before_parametrizations(m) is nn.Linear
    assert parametrize.is_parametrized(m) and parametrize.is_parametrized(m, "weight")
    assert not parametrize.is_parametrized(m, "bias")
    w = m.weight
    np.testing.assert_allclose(w.detach().numpy(), w.detach().numpy().T)
    np.testing.assert_allclose(np.triu(w.detach().numpy()), np.triu(w0.numpy()))
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert repr(m) == ("ParametrizedLinear(\n  in_features=3, out_features=3, bias=True\n"
                       "  (parametrizations): ModuleDict(\n    (weight): ParametrizationList(\n"
                       "      (0): Symmetric()\n    )\n  )\n)")
    # gradients reach the original
    x = ember.tensor(arr(2, 3), requires_grad=True)
    m(x).sum().backward()
    g = m.parametrizations.weight.original.grad.numpy()
    ones = np.ones((2, 3)).T @ x.detach().numpy()   # d sum / d W[i, j] = sum_n x[n, j]
    want = np.triu(ones) + np.tril(ones, -1).T
    np.testing.assert_allclose(g, want, rtol=1e-12)
    # assignment goes through right_inverse
    a = arr(3, 3)
    m.weight = ember.tensor(a + a.T)
    np.testing.assert_allclose(m.weight.detach().numpy(), a + a.T, rtol=1e-12)
    # chaining
    parametrize.register_parametrization(m, "weight", Double())
    np.testing.assert_allclose(m.weight.detach().numpy(), 2 * (a + a.T), rtol=1e-12)
    assert len(m.parametrizations.weight) == 2
    parametrize.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and isinstance(m.weight, nn.Parameter)
    np.testing.assert_allclose(m.weight.detach().numpy(), 2 * (a + a.T), rtol=1e-12)
    assert list(m.state_dict()) == ["bias", "weight"]


def test_remove_leave_unparametrized_and_errors():
    m = nn.Linear(3, 3)
    parametrize.register_parametrization(m, "weight", Double())
    orig = m.parametrizations.weight.original.detach().clone()
    parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)
    assert ember.equal(m.weight, orig)
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        parametrize.remove_parametrizations(m, "weight")
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a "
                                         "parametrized element with name 'nope'"):
        parametrize.register_parametrization(m, "nope", Double())

    class Shrink(nn.Module):
        def forward(self, x):
            return x[:1]

    with pytest.raises(ValueError, match="may not change the shape of the tensor"):
        parametrize.register_parametrization(nn.Linear(3, 3), "weight", Shrink())
    parametrize.register_parametrization(m, "weight", Double())
    with pytest.raises(RuntimeError, match="parametrization Double does not implement "
                                           "right_inverse"):
        m.weight = ember.ones(3, 3)


def test_cached():
    calls = []

    class Counting(nn.Module):
        def forward(self, x):
            calls.append(1)
            return x + 0

    m = nn.Linear(2, 2)
    parametrize.register_parametrization(m, "weight", Counting())
    calls.clear()
    with parametrize.cached():
        a = m.weight
        b = m.weight
        assert a is b
    assert len(calls) == 1
    m.weight
    m.weight
    assert len(calls) == 3


def test_parametrized_buffer():
    bn = nn.BatchNorm1d(3)
    parametrize.register_parametrization(bn, "running_var", Double())
    assert list(bn.state_dict())[-1] == "parametrizations.running_var.original"
    np.testing.assert_allclose(bn.running_var.numpy(), 2 * np.ones(3))


# ---- parametrizations ---------------------------------------------------------------------

def test_weight_norm_parametrization():
    m = nn.Linear(4, 3).double()
    w = m.weight.detach().numpy().copy()
    P.weight_norm(m)
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original0",
                                    "parametrizations.weight.original1"]
    g = m.parametrizations.weight.original0.detach().numpy().copy()
    np.testing.assert_allclose(g, np.linalg.norm(w, axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(m.weight.detach().numpy(), w, rtol=1e-12)
    assert repr(m).splitlines()[4] == "      (0): _WeightNorm()"
    with ember.no_grad():
        m.parametrizations.weight.original0.mul_(3)
    np.testing.assert_allclose(m.weight.detach().numpy(), 3 * w, rtol=1e-12)
    # the older state-dict keys load
    m2 = nn.Linear(4, 3).double()
    P.weight_norm(m2)
    m2.load_state_dict({"weight_g": ember.tensor(g), "weight_v": ember.tensor(w),
                        "bias": m.bias.detach()})
    np.testing.assert_allclose(m2.weight.detach().numpy(), w, rtol=1e-12)
    v = ember.tensor(arr(3, 4), requires_grad=True)
    gg = ember.tensor(arr(3, 1), requires_grad=True)
    assert gradcheck(lambda a, b: P._WeightNorm(0)(a, b), (gg, v))
    m3 = P.weight_norm(nn.Linear(4, 3).double(), dim=None)
    np.testing.assert_allclose(m3.parametrizations.weight.original0.detach().numpy(),
                               np.linalg.norm(m3.weight.detach().numpy()), rtol=1e-12)


def test_spectral_norm_parametrization():
    ember.manual_seed(0)
    m = P.spectral_norm(nn.Linear(6, 4).double(), n_power_iterations=30)
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original",
                                    "parametrizations.weight.0._u", "parametrizations.weight.0._v"]
    w = m.weight.detach().numpy()
    assert abs(np.linalg.svd(w, compute_uv=False)[0] - 1.0) < 1e-6
    m.eval()
    w_eval = m.weight.detach().numpy()
    np.testing.assert_allclose(m.weight.detach().numpy(), w_eval)  # no iteration in eval
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
        P.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        P.spectral_norm(nn.Linear(2, 2), dim=3)


@pytest.mark.parametrize("shape,orth_map", [((4, 4), None), ((5, 3), None), ((3, 5), None),
                                            ((4, 4), "cayley"), ((5, 3), "householder"),
                                            ((5, 3), "matrix_exp")])
def test_orthogonal(shape, orth_map):
    m = nn.Linear(shape[1], shape[0]).double()
    P.orthogonal(m, orthogonal_map=orth_map)
    q = m.weight.detach().numpy()
    small = min(shape)
    gram = q.T @ q if shape[0] >= shape[1] else q @ q.T
    np.testing.assert_allclose(gram, np.eye(small), atol=1e-10)
    assert "parametrizations.weight.0.base" in m.state_dict()
    # assigning an orthogonal matrix keeps it
    z = np.linalg.qr(arr(max(shape), max(shape)))[0][:shape[0], :shape[1]]
    m.weight = ember.tensor(z)
    np.testing.assert_allclose(m.weight.detach().numpy(), z, atol=1e-10)
    m.weight.sum().backward()
    assert m.parametrizations.weight.original.grad is not None


def test_householder_product_matches_lapack_and_differentiates():
    a = ember.tensor(arr(2, 5, 3), requires_grad=True)
    tau = ember.tensor(RNG.uniform(0.5, 1.5, size=(2, 3)), requires_grad=True)
    got = P._householder_product(a, tau)
    want = ember.linalg.householder_product(a.detach(), tau.detach())
    np.testing.assert_allclose(got.detach().numpy(), want.numpy(), atol=1e-12)
    assert gradcheck(P._householder_product, (a, tau))


def test_orthogonal_without_trivialization():
    m = nn.Linear(3, 5).double()
    P.orthogonal(m, orthogonal_map="householder", use_trivialization=False)
    q = m.weight.detach().numpy()
    np.testing.assert_allclose(q.T @ q, np.eye(3), atol=1e-10)
    z = np.linalg.qr(arr(5, 5))[0][:, :3]
    m.weight = ember.tensor(z)
    np.testing.assert_allclose(m.weight.detach().numpy(), z, atol=1e-10)
    assert "parametrizations.weight.0.base" not in m.state_dict()
    c = nn.Linear(4, 4).double()
    P.orthogonal(c, orthogonal_map="cayley", use_trivialization=False)
    with pytest.raises(NotImplementedError, match="It is not possible to assign to the matrix "
                                                  "exponential or the Cayley parametrizations"):
        c.weight = ember.eye(4, dtype=ember.float64)


def test_orthogonal_errors():
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a tensor "
                                         "of 1 dimensions."):
        P.orthogonal(nn.Linear(2, 2), "bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", '
                                         '"cayley", "householder". Got: qr'):
        P.orthogonal(nn.Linear(2, 2), orthogonal_map="qr")


def test_old_weight_norm_and_spectral_norm():
    m = nn.Linear(4, 3).double()
    w = m.weight.detach().numpy().copy()
    with pytest.warns(FutureWarning, match="weight_norm` is deprecated"):
        nn.utils.weight_norm(m)
    assert list(m.state_dict()) == ["bias", "weight_g", "weight_v"]
    np.testing.assert_allclose(m.weight.detach().numpy(), w, rtol=1e-12)
    x = ember.tensor(arr(2, 4))
    m(x).sum().backward()
    assert m.weight_g.grad is not None and m.weight_v.grad is not None
    nn.utils.remove_weight_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"] and isinstance(m.weight, nn.Parameter)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        nn.utils.remove_weight_norm(m)

    ember.manual_seed(1)
    s = nn.utils.spectral_norm(nn.Linear(5, 4).double())
    assert list(s.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    for _ in range(40):
        s(ember.tensor(arr(1, 5)))
    assert abs(np.linalg.svd(s.weight.detach().numpy(), compute_uv=False)[0] - 1) < 1e-6
    nn.utils.remove_spectral_norm(s)
    assert list(s.state_dict()) == ["bias", "weight"]


# ---- gradient clipping and vectors --------------------------------------------------------

def _params_with_grads(*shapes):
    ps = []
    for shape in shapes:
        p = nn.Parameter(ember.tensor(arr(*shape)))
        p.grad = ember.tensor(arr(*shape) * 10)
        ps.append(p)
    return ps


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf")])
def test_clip_grad_norm(norm_type):
    ps = _params_with_grads((3, 4), (5,), (2, 2, 2))
    grads = [p.grad.numpy().copy() for p in ps]
    flat = np.concatenate([g.ravel() for g in grads])
    want = np.abs(flat).max() if np.isinf(norm_type) else (np.abs(flat) ** norm_type).sum() ** (
        1 / norm_type)
    total = nn.utils.clip_grad_norm_(ps, max_norm=1.5, norm_type=norm_type)
    np.testing.assert_allclose(total.item(), want, rtol=1e-10)
    coef = min(1.5 / (want + 1e-6), 1.0)
    for p, g in zip(ps, grads):
        np.testing.assert_allclose(p.grad.numpy(), g * coef, rtol=1e-10)
    ps2 = _params_with_grads((3,))
    np.testing.assert_allclose(nn.utils.get_total_norm([p.grad for p in ps2], norm_type).item(),
                               np.linalg.norm(ps2[0].grad.numpy(), norm_type), rtol=1e-10)


def test_clip_grad_norm_nonfinite_and_value():
    ps = _params_with_grads((3,))
    ps[0].grad[0] = float("inf")
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        nn.utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
    ps = _params_with_grads((4, 3))
    g = ps[0].grad.numpy().copy()
    nn.utils.clip_grad_value_(ps, 0.5)
    np.testing.assert_array_equal(ps[0].grad.numpy(), np.clip(g, -0.5, 0.5))
    assert nn.utils.clip_grad_norm_([nn.Parameter(ember.ones(2))], 1.0).item() == 0.0


def test_parameters_to_vector_and_back():
    m = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    vec = nn.utils.parameters_to_vector(m.parameters())
    assert tuple(vec.shape) == (3 * 2 + 2 + 2 + 1,)
    np.testing.assert_array_equal(vec.detach().numpy(), np.concatenate(
        [p.detach().numpy().ravel() for p in m.parameters()]))
    new = ember.arange(vec.numel(), dtype=ember.float32)
    w = m[0].weight
    nn.utils.vector_to_parameters(new, m.parameters())
    assert m[0].weight is w
    assert m[0].weight.detach().numpy().ravel().tolist() == [0, 1, 2, 3, 4, 5]
    assert m[1].bias.item() == 10
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        nn.utils.vector_to_parameters([1.0], m.parameters())


# ---- GPU: against torch on CUDA ----------------------------------------------------------

@pytest.mark.gpu
def test_gpu_pack_pad_against_torch(torch):
    trnn = torch.nn.utils.rnn
    lengths = [3, 6, 2, 6]
    a = arr(6, 4, 5).astype(np.float32)
    ex = ember.tensor(a, device="cuda", requires_grad=True)
    tx = torch.tensor(a, device="cuda", requires_grad=True)
    ep = rnn.pack_padded_sequence(ex, lengths, enforce_sorted=False)
    tp = trnn.pack_padded_sequence(tx, lengths, enforce_sorted=False)
    np.testing.assert_array_equal(ep.data.detach().cpu().numpy(), tp.data.detach().cpu().numpy())
    assert ep.batch_sizes.tolist() == tp.batch_sizes.tolist()
    assert ep.sorted_indices.is_cuda and ep.sorted_indices.tolist() == tp.sorted_indices.tolist()
    eo, el = rnn.pad_packed_sequence(ep, batch_first=True, padding_value=-1.0)
    to, tl = trnn.pad_packed_sequence(tp, batch_first=True, padding_value=-1.0)
    np.testing.assert_array_equal(eo.detach().cpu().numpy(), to.detach().cpu().numpy())
    assert el.tolist() == tl.tolist()
    g = arr(*to.shape).astype(np.float32)
    eo.backward(ember.tensor(g, device="cuda"))
    to.backward(torch.tensor(g, device="cuda"))
    np.testing.assert_array_equal(ex.grad.cpu().numpy(), tx.grad.cpu().numpy())
    seqs = [arr(n, 3).astype(np.float32) for n in (4, 1, 3)]
    ep = rnn.pad_sequence([ember.tensor(s, device="cuda") for s in seqs], padding_side="left")
    tp = trnn.pad_sequence([torch.tensor(s, device="cuda") for s in seqs], padding_side="left")
    np.testing.assert_array_equal(ep.cpu().numpy(), tp.cpu().numpy())


@pytest.mark.gpu
@pytest.mark.parametrize("which", ["weight_norm", "orthogonal", "orthogonal_cayley",
                                   "orthogonal_householder"])
def test_gpu_parametrizations_against_torch(torch, which):
    """Deterministic set-ups only: a non-square orthogonal with trivialization completes its
    base with a random draw, which differs between the libraries."""
    shape = (5, 3) if which in ("weight_norm", "orthogonal_householder") else (4, 4)
    w = arr(*shape).astype(np.float64)
    em = nn.Linear(shape[1], shape[0]).double().cuda()
    tm = torch.nn.Linear(shape[1], shape[0]).double().cuda()
    with ember.no_grad():
        em.weight.copy_(ember.tensor(w, device="cuda"))
    with torch.no_grad():
        tm.weight.copy_(torch.tensor(w, device="cuda"))
    tP = torch.nn.utils.parametrizations
    if which == "weight_norm":
        P.weight_norm(em, dim=1)
        tP.weight_norm(tm, dim=1)
    elif which == "orthogonal":
        P.orthogonal(em, orthogonal_map="matrix_exp")
        tP.orthogonal(tm, orthogonal_map="matrix_exp")
    elif which == "orthogonal_cayley":
        P.orthogonal(em, orthogonal_map="cayley")
        tP.orthogonal(tm, orthogonal_map="cayley")
    else:
        P.orthogonal(em, orthogonal_map="householder", use_trivialization=False)
        tP.orthogonal(tm, orthogonal_map="householder", use_trivialization=False)
    np.testing.assert_allclose(em.weight.detach().cpu().numpy(), tm.weight.detach().cpu().numpy(),
                               atol=1e-10)
    with ember.no_grad():
        em.bias.zero_()
    with torch.no_grad():
        tm.bias.zero_()
    x = arr(4, shape[1])
    em(ember.tensor(x, device="cuda")).pow(2).sum().backward()
    tm(torch.tensor(x, device="cuda")).pow(2).sum().backward()
    for (en, ep), (tn, tp) in zip(em.named_parameters(), tm.named_parameters()):
        assert en == tn
        np.testing.assert_allclose(ep.grad.cpu().numpy(), tp.grad.cpu().numpy(), atol=1e-10)


@pytest.mark.gpu
def test_gpu_clip_grad_norm_against_torch(torch):
    shapes = [(64, 32), (32,), (8, 8, 3)]
    grads = [arr(*s).astype(np.float32) * 5 for s in shapes]
    eps = [nn.Parameter(ember.zeros(*s, device="cuda")) for s in shapes]
    tps = [torch.nn.Parameter(torch.zeros(*s, device="cuda")) for s in shapes]
    for g, ep, tp in zip(grads, eps, tps):
        ep.grad = ember.tensor(g, device="cuda")
        tp.grad = torch.tensor(g, device="cuda")
    en = nn.utils.clip_grad_norm_(eps, 2.0)
    tn = torch.nn.utils.clip_grad_norm_(tps, 2.0)
    assert abs(en.item() - tn.item()) < 1e-4 * tn.item()
    for ep, tp in zip(eps, tps):
        np.testing.assert_allclose(ep.grad.cpu().numpy(), tp.grad.cpu().numpy(), rtol=1e-5,
                                   atol=1e-7)
