"""ember.nn on the CPU: Module's registration, traversal, state dicts, modes, moves and
hooks; containers; Linear's initialisation; layers and losses against NumPy references of
torch's formulas, with their gradients checked numerically; the errors of the issue."""
from collections import OrderedDict
import copy
import math

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from autograd_util import leaf, npy

RNG = np.random.default_rng(3)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(8, 3)
        self.register_buffer("steps", ember.zeros((), dtype=ember.int64))
        self.register_buffer("scratch", ember.zeros(2), persistent=False)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


# ---- Module ------------------------------------------------------------------------------

def test_registration_and_traversal():
    m = MLP()
    names = [n for n, _ in m.named_parameters()]
    assert names == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in m.parameters())
    assert [n for n, _ in m.named_buffers()] == ["steps", "scratch"]
    assert [n for n, _ in m.named_children()] == ["fc1", "act", "fc2"]
    assert [n for n, _ in m.named_modules()] == ["", "fc1", "act", "fc2"]
    assert len(list(m.modules())) == 4 and len(list(m.children())) == 3
    assert list(m.fc1.parameters(recurse=False))[0] is m.fc1.weight
    assert m.get_submodule("fc2") is m.fc2 and m.get_parameter("fc1.bias") is m.fc1.bias
    shared = nn.Sequential(m.fc1, m.fc1)  # a module twice: its parameters once
    assert len(list(shared.parameters())) == 2


def test_state_dict_round_trip_and_strictness():
    m = MLP()
    sd = m.state_dict()
    # torch's order: the module's own parameters and buffers, then each child's
    assert list(sd) == ["steps", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert "scratch" not in sd  # non-persistent
    assert not sd["fc1.weight"].requires_grad
    other = MLP()
    result = other.load_state_dict(sd)
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert str(result) == "<All keys matched successfully>"
    for (n, a), (_, b) in zip(m.named_parameters(), other.named_parameters()):
        np.testing.assert_array_equal(npy(a), npy(b))
    w = other.fc1.weight
    other.load_state_dict(sd)
    assert other.fc1.weight is w  # loaded in place
    bad = dict(sd)
    del bad["fc2.bias"]
    bad["extra"] = ember.zeros(1)
    with pytest.raises(RuntimeError, match=r'Error\(s\) in loading state_dict for MLP:\n\tMissing '
                                           r'key\(s\) in state_dict: "fc2.bias". \n\tUnexpected '
                                           r'key\(s\) in state_dict: "extra". '):
        other.load_state_dict(bad)
    r = other.load_state_dict(bad, strict=False)  # reported, not raised
    assert r.missing_keys == ["fc2.bias"] and r.unexpected_keys == ["extra"]
    wrong = dict(sd)
    wrong["fc1.weight"] = ember.zeros(3, 3)
    with pytest.raises(RuntimeError, match=r"size mismatch for fc1.weight: copying a param with "
                                           r"shape ember.Size\(\[3, 3\]\) from checkpoint, the "
                                           r"shape in current model is ember.Size\(\[8, 4\]\)"):
        other.load_state_dict(wrong)


def test_train_eval_requires_grad_apply_zero_grad():
    m = MLP()
    assert m.training and m.fc1.training
    m.eval()
    assert not m.training and not m.fc2.training
    m.train()
    assert m.act.training
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())
    m.requires_grad_()
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "ReLU", "Linear", "MLP"]
    m(ember.randn(2, 4)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())


def test_double_half_float_move_parameters_in_place():
    m = MLP()
    w = m.fc1.weight
    m(ember.randn(2, 4)).sum().backward()
    m.double()
    assert m.fc1.weight is w and w.dtype == ember.float64 and w.grad.dtype == ember.float64
    assert m.steps.dtype == ember.int64  # non-floating buffers keep their dtype
    y = m(ember.randn(2, 4, dtype=ember.float64))
    assert y.dtype == ember.float64
    m.half().float()
    assert w.dtype == ember.float32 and w.requires_grad and w.is_leaf
    m.to(ember.float64)
    assert w.dtype == ember.float64
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point"):
        m.to(ember.int32)
    assert m.cpu() is m and m.to("cpu") is m


def test_setattr_errors_and_repr():
    m = MLP()
    with pytest.raises(TypeError, match=r"cannot assign 'ember.FloatTensor' as parameter "
                                        r"'weight' \(torch.nn.Parameter or None expected\)"):
        m.fc1.weight = ember.zeros(8, 4)
    with pytest.raises(AttributeError, match="'MLP' object has no attribute 'nope'"):
        m.nope
    with pytest.raises(KeyError):
        m.register_buffer("a.b", ember.zeros(1))
    m.fc1.bias = None
    assert m.fc1.bias is None and [n for n, _ in m.fc1.named_parameters()] == ["weight"]
    assert repr(MLP()) == ("MLP(\n  (fc1): Linear(in_features=4, out_features=8, bias=True)\n"
                           "  (act): ReLU()\n  (fc2): Linear(in_features=8, out_features=3, "
                           "bias=True)\n)")
    p = nn.Parameter(ember.zeros(2))
    assert repr(p) == "Parameter containing:\ntensor([0., 0.], requires_grad=True)"
    assert not nn.Parameter(ember.zeros(2), requires_grad=False).requires_grad


def test_forward_hooks():
    m = nn.Linear(2, 2)
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, args: calls.append("pre"))
    h2 = m.register_forward_hook(lambda mod, args, out: out * 0)
    y = m(ember.ones(1, 2))
    assert calls == ["pre"] and float(y.abs().sum()) == 0
    h1.remove()
    h2.remove()
    y = m(ember.ones(1, 2))
    assert calls == ["pre"] and float(y.abs().sum()) != 0


def test_deepcopy_and_parameter_data():
    m = MLP()
    c = copy.deepcopy(m)
    assert isinstance(c.fc1.weight, nn.Parameter)
    assert c.fc1.weight.data_ptr() != m.fc1.weight.data_ptr()
    np.testing.assert_array_equal(npy(c.fc1.weight), npy(m.fc1.weight))
    data = ember.ones(3)
    p = nn.Parameter(data)
    assert p.data_ptr() == data.data_ptr() and p.is_leaf


# ---- containers ------------------------------------------------------------------------

def test_sequential_modulelist_moduledict():
    s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(s) == 3 and isinstance(s[1], nn.ReLU) and isinstance(s[-1], nn.Linear)
    assert len(s[:2]) == 2
    s.append(nn.Identity())
    assert len(s) == 4
    assert s(ember.ones(5, 2)).shape == (5, 1)
    od = nn.Sequential(OrderedDict([("a", nn.Linear(2, 2)), ("b", nn.Tanh())]))
    assert [n for n, _ in od.named_children()] == ["a", "b"]
    ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    assert len(list(ml.parameters())) == 6 and isinstance(ml[2], nn.Linear)
    ml.append(nn.ReLU())
    assert len(ml) == 4
    md = nn.ModuleDict({"x": nn.Linear(1, 1)})
    md["y"] = nn.Sigmoid()
    assert list(md.keys()) == ["x", "y"] and "x" in md
    assert [n for n, _ in md.named_parameters()] == ["x.weight", "x.bias"]
    with pytest.raises(IndexError):
        s[10]


# ---- Linear ---------------------------------------------------------------------------

def test_linear_default_initialisation_bounds():
    ember.manual_seed(0)
    lin = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)  # kaiming_uniform_(a=sqrt(5)) gives 1/sqrt(fan_in) too
    w, b = npy(lin.weight), npy(lin.bias)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.98 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound
    assert np.abs(b).max() <= bound
    ember.manual_seed(0)
    again = nn.Linear(400, 300)
    np.testing.assert_array_equal(w, npy(again.weight))  # seeded: reproducible


def test_linear_wrong_input_shape_names_the_sizes():
    lin = nn.Linear(784, 256)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied "
                                           r"\(64x10 and 784x256\)"):
        lin(ember.zeros(64, 10))
    assert lin(ember.zeros(2, 784)).shape == (2, 256)  # still usable


def test_linear_matches_numpy_and_gradcheck():
    lin = nn.Linear(3, 2).double()
    x = leaf(5, 3)
    ref = npy(x) @ npy(lin.weight).T + npy(lin.bias)
    np.testing.assert_allclose(npy(lin(x)), ref, rtol=1e-12)
    assert ember.autograd.gradcheck(lambda a, w, b: F.linear(a, w, b),
                                    (x, lin.weight, lin.bias))


# ---- activations, dropout, flatten --------------------------------------------------------

def _erf(x):
    return np.vectorize(math.erf)(x)


ACTIVATIONS = {
    "ReLU": (nn.ReLU(), lambda x: np.maximum(x, 0)),
    "GELU": (nn.GELU(), lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2)))),
    "GELU_tanh": (nn.GELU("tanh"), lambda x: 0.5 * x * (1 + np.tanh(
        math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    "SiLU": (nn.SiLU(), lambda x: x / (1 + np.exp(-x))),
    "Sigmoid": (nn.Sigmoid(), lambda x: 1 / (1 + np.exp(-x))),
    "Tanh": (nn.Tanh(), np.tanh),
    "Softmax": (nn.Softmax(dim=1), lambda x: np.exp(x) / np.exp(x).sum(1, keepdims=True)),
    "LogSoftmax": (nn.LogSoftmax(dim=1),
                   lambda x: x - np.log(np.exp(x).sum(1, keepdims=True))),
    "Identity": (nn.Identity(), lambda x: x),
    "Flatten": (nn.Flatten(), lambda x: x.reshape(x.shape[0], -1)),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_layers(name):
    layer, ref = ACTIVATIONS[name]
    x = leaf(4, 5, low=-2, high=2)
    np.testing.assert_allclose(npy(layer(x)), ref(npy(x)), rtol=1e-10, atol=1e-12)
    assert ember.autograd.gradcheck(layer, (x,))


def _softplus_ref(a, beta, threshold):
    """torch's softplus, in the precision of a (float32 for float16 inputs)."""
    scaled = a * beta
    with np.errstate(over="ignore"):  # exp overflows where the threshold picks a
        return np.where(scaled > threshold, a, np.log1p(np.exp(scaled)) / beta)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_elu_is_accurate_for_small_negative_inputs(dtype):
    # alpha * expm1(x), as torch: exp(x) - 1 loses every digit near 0.
    a = np.concatenate([-np.logspace(-30, 1, 40), np.logspace(-30, 1, 9), [0.0, -0.0, np.nan]])
    a = a.astype(dtype)
    for alpha in (1.0, 0.5):
        got = F.elu(ember.tensor(a), alpha=alpha).numpy()
        ref = np.where(a > 0, a, alpha * np.expm1(a)).astype(dtype)
        np.testing.assert_allclose(got, ref, rtol=4 * np.finfo(dtype).eps, atol=0)
    assert F.elu(ember.tensor(a[:40]).view(4, 10).t()).shape == (10, 4)
    x = ember.tensor(a[:40])
    y = F.elu(x, inplace=True)
    assert y is x
    np.testing.assert_allclose(x.numpy(), np.expm1(a[:40]), rtol=4 * np.finfo(dtype).eps)


def test_elu_gradient_and_float16():
    x = leaf(3, 4, low=-1e-3, high=1e-3)
    assert ember.autograd.gradcheck(lambda t: F.elu(t, alpha=0.7), (x,))
    a = RNG.uniform(-3, 3, size=50).astype(np.float16)
    got = F.elu(ember.tensor(a)).numpy()
    assert got.dtype == np.float16
    ref = np.where(a > 0, a, np.expm1(a.astype(np.float32))).astype(np.float16)
    np.testing.assert_allclose(got.astype(np.float32), ref.astype(np.float32), rtol=1e-3)


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16])
def test_softplus_of_low_precision_inputs_computes_in_float32(dtype):
    # exp(11.5) overflows float16: computed in float16, softplus(11.5) would be inf.
    a = np.array([11.5, 15.0, 19.5, 20.0, 25.0, -3.0, -20.0, 0.0, 1e-3, 300.0], np.float32)
    for beta, threshold in ((1.0, 20.0), (2.0, 5.0), (0.5, 10.0)):
        x = ember.tensor(a).to(dtype)
        got = F.softplus(x, beta=beta, threshold=threshold)
        assert got.dtype == dtype
        xf = x.float().numpy()
        ref = ember.tensor(_softplus_ref(xf, np.float32(beta), threshold)).to(dtype).float().numpy()
        # one unit in the last place of the low-precision dtype (float32 libms differ)
        ulp = 2.0**-10 if dtype == ember.float16 else 2.0**-7
        np.testing.assert_allclose(got.float().numpy(), ref, rtol=ulp, atol=1e-7)
        assert np.isfinite(got.float().numpy()).all()
    assert F.softplus(ember.tensor([11.5], dtype=dtype)).item() == 11.5


def test_softplus_matches_torch_in_low_precision(torch):
    a = RNG.uniform(-30, 30, size=400).astype(np.float32)
    for dt in ("float16", "bfloat16"):
        for beta, threshold in ((1.0, 20.0), (3.0, 4.0)):
            e = F.softplus(ember.tensor(a).to(getattr(ember, dt)), beta, threshold)
            t = torch.nn.functional.softplus(torch.tensor(a).to(getattr(torch, dt)), beta,
                                             threshold)
            ulp = 2.0**-10 if dt == "float16" else 2.0**-7
            np.testing.assert_allclose(e.float().numpy(), t.float().numpy(), rtol=ulp, atol=1e-7)


def test_elu_matches_torch(torch):
    a = np.concatenate([-np.logspace(-20, 1, 200), RNG.uniform(-5, 5, 200)])
    for dt in ("float64", "float32", "float16", "bfloat16"):
        e = F.elu(ember.tensor(a).to(getattr(ember, dt)), alpha=0.8)
        t = torch.nn.functional.elu(torch.tensor(a).to(getattr(torch, dt)), alpha=0.8)
        tol = {"float64": 1e-15, "float32": 1e-6, "float16": 1e-3, "bfloat16": 8e-3}[dt]
        np.testing.assert_allclose(e.double().numpy(), t.double().numpy(), rtol=tol, atol=0)


def test_inplace_relu_on_an_activation():
    x = leaf(3, 4)
    h = x * 2
    y = nn.ReLU(inplace=True)(h)
    assert y is h
    y.sum().backward()
    np.testing.assert_allclose(npy(x.grad), 2.0 * (npy(x) > 0))


def test_dropout():
    ember.manual_seed(1)
    d = nn.Dropout(0.25)
    x = ember.ones(200, 100)
    y = d(x)
    kept = npy(y) != 0
    assert abs(kept.mean() - 0.75) < 0.02
    np.testing.assert_allclose(npy(y)[kept], 1 / 0.75, rtol=1e-6)
    d.eval()
    assert d(x) is x
    xr = ember.ones(50, 4, requires_grad=True)
    d.train()
    out = d(xr)
    out.sum().backward()
    np.testing.assert_allclose(npy(xr.grad), npy(out.detach()))  # the mask/(1-p) itself
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        nn.Dropout(1.5)
    assert float(F.dropout(x, 1.0).abs().sum()) == 0


# ---- losses ---------------------------------------------------------------------------

def _log_softmax(x, axis=1):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_and_l1(reduction):
    a, b = leaf(4, 3), leaf(4, 3)
    red = {"mean": np.mean, "sum": np.sum, "none": lambda v: v}[reduction]
    np.testing.assert_allclose(npy(nn.MSELoss(reduction=reduction)(a, b)),
                               red((npy(a) - npy(b)) ** 2), rtol=1e-12)
    np.testing.assert_allclose(npy(nn.L1Loss(reduction=reduction)(a, b)),
                               red(np.abs(npy(a) - npy(b))), rtol=1e-12)
    assert ember.autograd.gradcheck(lambda p, q: F.mse_loss(p, q, reduction=reduction), (a, b))
    assert ember.autograd.gradcheck(lambda p, q: F.l1_loss(p, q, reduction=reduction), (a, b))


def test_mse_warns_on_broadcasting_target():
    with pytest.warns(UserWarning, match="Using a target size"):
        F.mse_loss(ember.zeros(4, 1), ember.zeros(4))


def _nll_ref(logp, t, w=None, ignore=-100, reduction="mean"):
    n = logp.shape[0]
    w = np.ones(logp.shape[1]) if w is None else w
    valid = t != ignore
    ts = np.where(valid, t, 0)
    per = -logp[np.arange(n), ts] * w[ts] * valid
    if reduction == "none":
        return per
    if reduction == "sum":
        return per.sum()
    return per.sum() / (w[ts] * valid).sum()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_and_nll_with_class_indices(reduction, weighted):
    x = leaf(6, 4, low=-2, high=2)
    t = ember.tensor([0, 3, 1, -100, 2, 3])
    w = ember.tensor([0.5, 1.0, 2.0, 1.5], dtype=ember.float64) if weighted else None
    ref = _nll_ref(_log_softmax(npy(x)), npy(t), npy(w) if weighted else None,
                   reduction=reduction)
    ce = nn.CrossEntropyLoss(weight=w, reduction=reduction)
    np.testing.assert_allclose(npy(ce(x, t)), ref, rtol=1e-10)
    np.testing.assert_allclose(npy(nn.NLLLoss(weight=w, reduction=reduction)(
        F.log_softmax(x, 1), t)), ref, rtol=1e-10)
    assert ember.autograd.gradcheck(lambda a: ce(a, t), (x,))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_ignore_index_that_is_a_valid_class(reduction, weighted):
    # ignore_index=2 is also a class index: rows with target 2 take no part (nor in the mean)
    x = leaf(7, 4, low=-2, high=2)
    t = ember.tensor([0, 2, 1, 2, 3, 2, 1])
    w = ember.tensor([0.5, 1.0, 2.0, 1.5], dtype=ember.float64) if weighted else None
    ref = _nll_ref(_log_softmax(npy(x)), npy(t), npy(w) if weighted else None, ignore=2,
                   reduction=reduction)
    ce = nn.CrossEntropyLoss(weight=w, reduction=reduction, ignore_index=2)
    np.testing.assert_allclose(npy(ce(x, t)), ref, rtol=1e-10)
    np.testing.assert_allclose(npy(F.nll_loss(F.log_softmax(x, 1), t, weight=w, ignore_index=2,
                                              reduction=reduction)), ref, rtol=1e-10)
    assert ember.autograd.gradcheck(lambda a: ce(a, t), (x,))
    # label smoothing leaves the ignored rows out too
    ls = 0.2
    logp = _log_softmax(npy(x))
    valid = npy(t) != 2
    wv = np.ones(4) if w is None else npy(w)
    smooth = -(logp * wv).sum(1) * valid
    if reduction == "none":
        sm = smooth
    elif reduction == "sum":
        sm = smooth.sum()
    elif w is None:
        sm = smooth.sum() / valid.sum()
    else:
        sm = smooth.sum() / (wv[np.where(valid, npy(t), 0)] * valid).sum()
    got = F.cross_entropy(x, t, weight=w, ignore_index=2, reduction=reduction, label_smoothing=ls)
    np.testing.assert_allclose(npy(got), (1 - ls) * ref + ls / 4 * sm, rtol=1e-10)


def test_cross_entropy_label_smoothing_and_probabilities():
    x = leaf(5, 3, low=-2, high=2)
    t = ember.tensor([0, 2, 1, 1, 0])
    ls = 0.1
    logp = _log_softmax(npy(x))
    nll = _nll_ref(logp, npy(t))
    smooth = (-logp.sum(1)).mean()
    ref = (1 - ls) * nll + ls / 3 * smooth
    loss = F.cross_entropy(x, t, label_smoothing=ls)
    np.testing.assert_allclose(npy(loss), ref, rtol=1e-10)
    assert ember.autograd.gradcheck(lambda a: F.cross_entropy(a, t, label_smoothing=ls), (x,))
    probs = ember.softmax(leaf(5, 3), 1).detach()
    ref_p = -(npy(probs) * logp).sum(1).mean()
    np.testing.assert_allclose(npy(F.cross_entropy(x, probs)), ref_p, rtol=1e-10)
    assert ember.autograd.gradcheck(lambda a: F.cross_entropy(a, probs), (x,))


def test_cross_entropy_spatial_and_1d_inputs():
    x = leaf(2, 3, 4, low=-1, high=1)  # [N, C, d]
    t = ember.tensor([[0, 1, 2, 1], [2, 2, 0, 1]])
    logp = _log_softmax(npy(x), 1)
    ref = -np.mean([logp[n, npy(t)[n, d], d] for n in range(2) for d in range(4)])
    np.testing.assert_allclose(npy(F.cross_entropy(x, t)), ref, rtol=1e-10)
    v = leaf(4)
    np.testing.assert_allclose(npy(F.cross_entropy(v, ember.tensor(2))),
                               -_log_softmax(npy(v)[None])[0, 2], rtol=1e-10)


def test_cross_entropy_errors():
    x = ember.zeros(3, 4)
    with pytest.raises(ValueError, match=r"Expected input batch_size \(3\) to match target "
                                         r"batch_size \(2\)"):
        F.cross_entropy(x, ember.tensor([0, 1]))
    with pytest.raises(IndexError, match="out of bounds"):
        F.cross_entropy(x, ember.tensor([0, 1, 4]))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits(reduction):
    x = leaf(4, 3, low=-3, high=3)
    t = ember.tensor(RNG.uniform(0, 1, (4, 3)), dtype=ember.float64)
    pw = ember.tensor([1.0, 2.0, 0.5], dtype=ember.float64)
    xs, ts = npy(x), npy(t)
    sig = 1 / (1 + np.exp(-xs))
    red = {"mean": np.mean, "sum": np.sum, "none": lambda v: v}[reduction]
    ref = red(-(ts * np.log(sig) + (1 - ts) * np.log(1 - sig)))
    np.testing.assert_allclose(npy(nn.BCEWithLogitsLoss(reduction=reduction)(x, t)), ref,
                               rtol=1e-10)
    ref_pw = red(-(npy(pw) * ts * np.log(sig) + (1 - ts) * np.log(1 - sig)))
    loss = nn.BCEWithLogitsLoss(reduction=reduction, pos_weight=pw)
    np.testing.assert_allclose(npy(loss(x, t)), ref_pw, rtol=1e-10)
    assert ember.autograd.gradcheck(lambda a: loss(a, t), (x,))


# ---- init -------------------------------------------------------------------------------

def test_init_functions():
    ember.manual_seed(5)
    w = ember.empty(200, 300)
    nn.init.xavier_uniform_(w)
    a = math.sqrt(6 / 500)
    assert np.abs(npy(w)).max() <= a
    nn.init.kaiming_normal_(w, nonlinearity="relu")
    assert abs(npy(w).std() - math.sqrt(2 / 300)) < 0.01 * math.sqrt(2 / 300) * 5
    nn.init.zeros_(w)
    assert float(w.abs().sum()) == 0
    nn.init.ones_(w)
    assert float(w.sum()) == 60000
    nn.init.constant_(w, 0.5)
    nn.init.normal_(w, 2.0, 0.1)
    assert abs(npy(w).mean() - 2.0) < 0.01
    nn.init.uniform_(w, -1, 1)
    assert npy(w).min() >= -1 and npy(w).max() < 1
    assert nn.init.calculate_gain("relu") == math.sqrt(2)
    assert nn.init.calculate_gain("tanh") == 5 / 3
    assert nn.init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2 / 1.04)
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        nn.init.calculate_gain("nope")
    p = nn.Parameter(ember.empty(3, 3))
    nn.init.xavier_normal_(p)  # on a leaf that requires grad: under no_grad
    assert p.requires_grad and p.is_leaf


def test_training_loop_reduces_the_loss():
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))
    opt = ember.optim.SGD(model.parameters(), lr=0.05)
    x = ember.randn(64, 3)
    y = (x * ember.tensor([1.0, -2.0, 0.5])).sum(1, keepdim=True)
    losses = []
    for _ in range(200):
        opt.zero_grad()
        loss = nn.MSELoss()(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.05 * losses[0]


def test_losses_have_second_derivatives():
    a, b = leaf(3, 4), leaf(3, 4)
    assert ember.autograd.gradgradcheck(lambda x, y: F.mse_loss(x, y), (a, b))
    t = ember.tensor([0, 3, 1])
    assert ember.autograd.gradgradcheck(lambda x: F.cross_entropy(x, t), (a,))


def test_nll_ignores_targets_outside_the_classes_only_when_ignored():
    x = leaf(3, 4)
    t = ember.tensor([1, -100, 2])
    ref = -(npy(x)[0, 1] + npy(x)[2, 2]) / 2
    np.testing.assert_allclose(npy(F.nll_loss(x, t)), ref, rtol=1e-12)
    with pytest.raises(IndexError, match="Target -3 is out of bounds"):
        F.nll_loss(x, ember.tensor([1, -3, 2]))
