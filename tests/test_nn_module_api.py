"""nn.Module's API beyond forward (torch's semantics): walking the tree with and without
duplicates, apply, get/set_submodule, forward (pre-)hooks with kwargs/prepend/always_call,
full backward (pre-)hooks (gradients checked against NumPy), global hooks, state-dict
pre/post hooks and load pre/post hooks, extra state, to_empty, requires_grad_,
share_memory, zero_grad, the containers' completeness (ParameterList/ParameterDict, the
ModuleList repr), LazyLinear, and __repr__ equal to torch's for the same model (strings
printed by torch 2.11)."""
from collections import OrderedDict

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.nn.modules import module as module_mod

RNG = np.random.default_rng(918)


def linear(i=3, o=2):
    m = nn.Linear(i, o).double()
    return m


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8),
                                      nn.ReLU(inplace=True), nn.MaxPool2d(2), nn.Dropout2d(0.1))
        self.blocks = nn.ModuleList([nn.Linear(8, 8) for _ in range(3)] + [nn.Hardswish()])
        self.heads = nn.ModuleDict({"cls": nn.Sequential(nn.Flatten(), nn.Linear(8, 10)),
                                    "act": nn.LeakyReLU(0.1)})
        self.norm = nn.LayerNorm(8)
        self.emb = nn.Embedding(10, 4)
        self.pad = nn.ReflectionPad2d(1)
        self.unflat = nn.Unflatten(1, (2, 4))
        self.identity = nn.Identity()
        self.drop = nn.AlphaDropout(0.2)
        self.scale = nn.Parameter(ember.ones(1))


NET_REPR = (
    'Net(\n  (features): Sequential(\n    (0): Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), '
    'padding=(1, 1))\n    (1): BatchNorm2d(8, eps=1e-05, momentum=0.1, affine=True, '
    'track_running_stats=True)\n    (2): ReLU(inplace=True)\n    (3): MaxPool2d(kernel_size=2, '
    'stride=2, padding=0, dilation=1, ceil_mode=False)\n    (4): Dropout2d(p=0.1, inplace=False)'
    '\n  )\n  (blocks): ModuleList(\n    (0-2): 3 x Linear(in_features=8, out_features=8, '
    'bias=True)\n    (3): Hardswish()\n  )\n  (heads): ModuleDict(\n    (cls): Sequential(\n'
    '      (0): Flatten(start_dim=1, end_dim=-1)\n      (1): Linear(in_features=8, '
    'out_features=10, bias=True)\n    )\n    (act): LeakyReLU(negative_slope=0.1)\n  )\n'
    '  (norm): LayerNorm((8,), eps=1e-05, elementwise_affine=True)\n  (emb): Embedding(10, 4)\n'
    '  (pad): ReflectionPad2d((1, 1, 1, 1))\n  (unflat): Unflatten(dim=1, unflattened_size=(2, '
    '4))\n  (identity): Identity()\n  (drop): AlphaDropout(p=0.2, inplace=False)\n)')


def test_repr_is_torchs():
    assert repr(Net()) == NET_REPR
    assert repr(nn.Sequential()) == "Sequential()"
    assert repr(nn.ModuleList()) == "ModuleList()"
    assert repr(nn.LazyLinear(4)) == "LazyLinear(in_features=0, out_features=4, bias=True)"
    assert repr(nn.Identity(3, x=4)) == "Identity()"


def test_isinstance_checks():
    net = Net()
    assert isinstance(net, nn.Module) and issubclass(nn.Linear, nn.Module)
    assert all(isinstance(m, nn.Module) for m in net.modules())
    assert isinstance(net.scale, nn.Parameter) and isinstance(net.scale, ember.Tensor)


def test_named_modules_and_members_remove_duplicate():
    shared = nn.Linear(2, 2)
    seq = nn.Sequential(shared, nn.ReLU(), shared)
    assert [n for n, _ in seq.named_modules()] == ["", "0", "1"]
    assert [n for n, _ in seq.named_modules(remove_duplicate=False)] == ["", "0", "1", "2"]
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias"]
    assert [n for n, _ in seq.named_parameters(remove_duplicate=False)] == [
        "0.weight", "0.bias", "2.weight", "2.bias"]
    bn = nn.Sequential(nn.BatchNorm1d(3))
    assert [n for n, _ in bn.named_buffers(prefix="m")] == [
        "m.0.running_mean", "m.0.running_var", "m.0.num_batches_tracked"]
    assert [n for n, _ in bn.named_buffers(recurse=False)] == []


def test_apply_visits_children_first():
    seen = []
    net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.ReLU()))
    assert net.apply(lambda m: seen.append(type(m).__name__)) is net
    assert seen == ["Linear", "ReLU", "Sequential", "Sequential"]


def test_get_and_set_submodule_parameter_buffer():
    net = Net()
    assert net.get_submodule("features.1") is net.features[1]
    assert net.get_parameter("heads.cls.1.bias") is net.heads["cls"][1].bias
    assert net.get_buffer("features.1.running_var") is net.features[1].running_var
    with pytest.raises(AttributeError, match="has no attribute `nope`"):
        net.get_submodule("features.nope")
    with pytest.raises(AttributeError, match="`weight` is not a buffer"):
        net.get_buffer("norm.weight")
    with pytest.raises(AttributeError, match="`running_mean` is not an nn.Parameter"):
        net.get_parameter("features.1.running_mean")
    new = nn.Tanh()
    net.set_submodule("heads.act", new)
    assert net.heads["act"] is new
    net.set_submodule("heads.extra", nn.ReLU())
    assert isinstance(net.heads["extra"], nn.ReLU)
    with pytest.raises(AttributeError, match="has no attribute `missing`"):
        net.set_submodule("heads.missing", nn.ReLU(), strict=True)
    with pytest.raises(ValueError, match="Cannot set the submodule without a target name"):
        net.set_submodule("", nn.ReLU())
    with pytest.raises(AttributeError, match="`scale` is not an nn.Module"):
        net.set_submodule("scale", nn.ReLU())


class Adder(nn.Module):
    def forward(self, x, *, bias=0.0):
        return x + bias


def test_forward_pre_hooks_kwargs_and_prepend():
    m = Adder()
    order = []
    h1 = m.register_forward_pre_hook(lambda mod, args: order.append("a"))
    h2 = m.register_forward_pre_hook(lambda mod, args: order.append("b"), prepend=True)

    def kw(mod, args, kwargs):
        order.append("kw")
        return (args[0] * 2,), {"bias": kwargs.get("bias", 0.0) + 1.0}

    h3 = m.register_forward_pre_hook(kw, with_kwargs=True)
    x = ember.tensor([1.0, 2.0])
    assert m(x, bias=0.5).tolist() == [3.5, 5.5]
    assert order == ["b", "a", "kw"]
    for h in (h1, h2, h3):
        h.remove()
    assert not m._forward_pre_hooks and not m._forward_pre_hooks_with_kwargs
    assert m(x).tolist() == [1.0, 2.0]

    m.register_forward_pre_hook(lambda mod, args: (args[0] + 10,))
    assert m(x).tolist() == [11.0, 12.0]


def test_forward_pre_hook_with_kwargs_bad_return():
    m = Adder()
    m.register_forward_pre_hook(lambda mod, a, k: a, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple"):
        m(ember.ones(1))


def test_forward_hooks_kwargs_always_call():
    m = Adder()
    m.register_forward_hook(lambda mod, args, kwargs, out: out + kwargs["bias"], with_kwargs=True)
    assert m(ember.tensor([1.0]), bias=2.0).tolist() == [5.0]

    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    b = Boom()
    calls = []
    b.register_forward_hook(lambda mod, args, out: calls.append("plain"))
    h = b.register_forward_hook(lambda mod, args, out: calls.append(("always", out)),
                                always_call=True)
    with pytest.raises(ValueError, match="boom"):
        b(ember.ones(1))
    assert calls == [("always", None)]
    h.remove()
    assert not b._forward_hooks_always_called


def test_full_backward_hooks_see_and_replace_gradients():
    m = linear(3, 2)
    w = m.weight.detach().numpy()
    x_np = RNG.uniform(-1, 1, size=(4, 3))
    g_np = RNG.uniform(-1, 1, size=(4, 2))
    seen = {}

    def pre(mod, grad_output):
        seen["pre"] = grad_output[0].numpy().copy()
        return (grad_output[0] * 2,)

    def hook(mod, grad_input, grad_output):
        seen["gi"] = grad_input[0].numpy().copy()
        seen["go"] = grad_output[0].numpy().copy()
        return (grad_input[0] + 1,)

    m.register_full_backward_pre_hook(pre)
    m.register_full_backward_hook(hook)
    x = ember.tensor(x_np, requires_grad=True)
    y = m(x)
    y.backward(ember.tensor(g_np))
    np.testing.assert_allclose(seen["pre"], g_np, rtol=1e-12)
    np.testing.assert_allclose(seen["go"], 2 * g_np, rtol=1e-12)
    np.testing.assert_allclose(seen["gi"], 2 * g_np @ w, rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), 2 * g_np @ w + 1, rtol=1e-12)
    # the parameters' gradients see the pre-hook's grad_output
    np.testing.assert_allclose(m.weight.grad.numpy(), (2 * g_np).T @ x_np, rtol=1e-12)


def test_full_backward_hook_without_input_grad():
    m = linear(3, 2)
    calls = []
    m.register_full_backward_hook(lambda mod, gi, go: calls.append((gi, go[0].shape)))
    m(ember.randn(4, 3, dtype=ember.float64)).sum().backward()
    assert calls == [((None,), (4, 2))]
    m2 = linear(3, 2)
    m2.register_full_backward_hook(lambda mod, gi, go: (ember.ones(4, 3),))
    with pytest.raises(RuntimeError, match="no input requires gradient should always return "
                                           "None"):
        m2(ember.randn(4, 3, dtype=ember.float64)).sum().backward()


def test_backward_hook_wrong_count():
    m = linear(3, 2)
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    x = ember.randn(2, 3, dtype=ember.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="Backward hook returned an invalid number of "
                                           "grad_input, got 2, but expected 1"):
        m(x).sum().backward()


def test_global_hooks():
    calls = []
    h1 = module_mod.register_module_forward_pre_hook(lambda m, a: calls.append("pre"))
    h2 = module_mod.register_module_forward_hook(lambda m, a, o: calls.append("post"))
    h3 = module_mod.register_module_full_backward_hook(lambda m, gi, go: calls.append("bw"))
    try:
        x = ember.randn(2, 3, dtype=ember.float64, requires_grad=True)
        linear()(x).sum().backward()
    finally:
        h1.remove()
        h2.remove()
        h3.remove()
    assert calls == ["pre", "post", "bw"]
    linear()(ember.randn(2, 3, dtype=ember.float64))
    assert calls == ["pre", "post", "bw"]


def test_state_dict_hooks():
    m = nn.Sequential(nn.Linear(2, 2))
    calls = []
    m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: calls.append((prefix,
                                                                                 keep_vars)))

    def post(mod, sd, prefix, meta):
        sd[prefix + "extra"] = ember.zeros(1)

    m.register_state_dict_post_hook(post)
    sd = m.state_dict(keep_vars=True)
    assert calls == [("", True)] and list(sd) == ["0.weight", "0.bias", "extra"]

    m2 = nn.Linear(2, 2)
    m2.register_state_dict_post_hook(lambda mod, sd, p, meta: OrderedDict())
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        m2.state_dict()
    m3 = nn.Linear(2, 2)
    m3._register_state_dict_hook(lambda mod, sd, p, meta: OrderedDict(w=sd[p + "weight"]))
    assert list(m3.state_dict()) == ["w"]


def test_load_state_dict_pre_and_post_hooks():
    src = nn.Linear(2, 3)
    dst = nn.Linear(2, 3)
    renamed = {"W": src.weight.detach(), "bias": src.bias.detach()}

    def pre(mod, sd, prefix, meta, strict, missing, unexpected, errors):
        if prefix + "W" in sd:
            sd[prefix + "weight"] = sd.pop(prefix + "W")

    dst.register_load_state_dict_pre_hook(pre)
    seen = []
    dst.register_load_state_dict_post_hook(lambda mod, keys: seen.append(list(keys.missing_keys)))
    result = dst.load_state_dict(renamed)
    assert ember.equal(dst.weight, src.weight) and seen == [[]]
    assert "W" in renamed  # the caller's dict is not edited

    # a post-hook may forgive missing keys in place
    tolerant = nn.Linear(2, 3)
    tolerant.register_load_state_dict_post_hook(lambda mod, keys: keys.missing_keys.clear())
    result = tolerant.load_state_dict({"weight": src.weight.detach()})
    assert result.missing_keys == []
    bad = nn.Linear(2, 3)
    bad.register_load_state_dict_post_hook(lambda mod, keys: 1)
    with pytest.raises(AssertionError, match="not\\s*expected to return new values"):
        bad.load_state_dict(src.state_dict())


class WithExtra(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.count = 3

    def get_extra_state(self):
        return {"count": self.count}

    def set_extra_state(self, state):
        self.count = state["count"]


def test_extra_state_round_trip():
    a = WithExtra()
    a.count = 7
    sd = a.state_dict()
    assert sd["_extra_state"] == {"count": 7}
    b = WithExtra()
    b.load_state_dict(sd)
    assert b.count == 7
    del sd["_extra_state"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "_extra_state"'):
        WithExtra().load_state_dict(sd)
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: '
                                           '"_extra_state"'):
        nn.Linear(2, 2).load_state_dict({**nn.Linear(2, 2).state_dict(), "_extra_state": 1})


def test_to_empty_requires_grad_share_memory_zero_grad():
    net = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    w = net[0].weight
    assert net.to_empty(device="cpu") is net
    assert net[0].weight is w and tuple(w.shape) == (4, 3) and w.dtype == ember.float32
    assert net[1].num_batches_tracked.dtype == ember.int64
    assert net.requires_grad_(False) is net
    assert not any(p.requires_grad for p in net.parameters())
    net.requires_grad_()
    assert all(p.requires_grad for p in net.parameters())
    # ember's share_memory_ is a no-op on the CPU (DataLoader workers are threads): the
    # module call keeps every parameter object and value
    with ember.no_grad():  # to_empty left uninitialised memory (NaN would compare unequal)
        for k, p in enumerate(net.parameters()):
            p.fill_(k + 0.5)
    before = [p.detach().clone() for p in net.parameters()]
    assert net.share_memory() is net and net[0].weight is w
    assert all(ember.equal(a, b) for a, b in zip(before, net.parameters()))
    net(ember.randn(5, 3)).sum().backward()
    net.zero_grad(set_to_none=False)
    assert all(bool((p.grad == 0).all()) for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_parameter_list_complete():
    pl = nn.ParameterList([nn.Parameter(ember.randn(2, 3)), ember.randn(4), 5, "x"])
    assert repr(pl) == ("ParameterList(\n    (0): Parameter containing: [ember.float32 of size "
                        "2x3]\n    (1): Parameter containing: [ember.float32 of size 4]\n    (2): "
                        "Object of type: int\n    (3): Object of type: str\n)")
    assert list(pl.state_dict()) == ["0", "1"]
    assert isinstance(pl[1], nn.Parameter) and pl[2] == 5 and pl[-1] == "x"
    part = pl[0:2]
    assert isinstance(part, nn.ParameterList) and len(part) == 2 and part[0] is pl[0]
    pl += [ember.zeros(1)]
    assert len(pl) == 5 and len(list(pl.parameters())) == 3
    pl[0] = ember.ones(2)
    assert isinstance(pl[0], nn.Parameter)
    with pytest.raises(IndexError, match="index 9 is out of range"):
        pl[9]
    with pytest.raises(TypeError, match="ParameterList.extend should be called with an "
                                        "iterable"):
        pl.extend(3)
    with pytest.raises(RuntimeError, match="ParameterList should not be called"):
        pl()
    assert repr(nn.ParameterList()) == "ParameterList()"


def test_parameter_dict_complete():
    pd = nn.ParameterDict({"b": nn.Parameter(ember.randn(3, 1)), "a": ember.randn(2),
                           "c": "str"})
    # a plain dict's keys are sorted, as torch
    assert list(pd.keys()) == ["a", "b", "c"]
    assert repr(pd) == ("ParameterDict(\n    (a): Parameter containing: [ember.FloatTensor of "
                        "size 2]\n    (b): Parameter containing: [ember.FloatTensor of size 3x1]"
                        "\n    (c): Object of type: str\n)")
    assert list(pd.state_dict()) == ["a", "b"]
    ordered = nn.ParameterDict(OrderedDict([("z", ember.ones(1)), ("y", ember.ones(1))]))
    assert list(ordered) == ["z", "y"] and list(reversed(ordered)) == ["y", "z"]
    assert pd.get("nope", 4) == 4 and "a" in pd and len(pd) == 3
    assert pd.setdefault("d", ember.zeros(2)) is pd["d"]
    merged = pd | ordered
    assert list(merged) == ["a", "b", "c", "d", "z", "y"]
    k, v = merged.popitem()
    assert k == "y" and "y" not in merged
    assert isinstance(pd.pop("a"), nn.Parameter) and "a" not in pd
    cp = pd.copy()
    assert list(cp) == list(pd) and cp["b"] is pd["b"]
    pd.clear()
    assert len(pd) == 0 and list(pd.parameters()) == []
    with pytest.raises(TypeError, match="cannot be used as a key as it is not a string"):
        pd[1] = ember.ones(1)
    with pytest.raises(RuntimeError, match="ParameterDict should not be called"):
        pd(1)
    assert list(nn.ParameterDict().fromkeys(["p", "q"], ember.ones(1))) == ["p", "q"]


def test_module_list_repr_folds_repeats():
    ml = nn.ModuleList([nn.Tanh(), nn.Tanh(), nn.ReLU(), nn.Tanh()])
    assert repr(ml) == ("ModuleList(\n  (0-1): 2 x Tanh()\n  (2): ReLU()\n  (3): Tanh()\n)")
    assert isinstance(ml.pop(2), nn.ReLU) and len(ml) == 3


def test_lazy_linear():
    m = nn.LazyLinear(4)
    assert isinstance(m.weight, nn.parameter.UninitializedParameter)
    assert repr(m.weight) == "<UninitializedParameter>"
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized "
                                           "parameter"):
        m.weight.shape
    x = ember.randn(5, 7)
    y = m(x)
    assert type(m) is nn.Linear and tuple(m.weight.shape) == (4, 7)
    assert repr(m) == "Linear(in_features=7, out_features=4, bias=True)"
    np.testing.assert_allclose(y.detach().numpy(), x.numpy() @ m.weight.detach().numpy().T
                               + m.bias.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert not m._forward_pre_hooks  # the inference hook is gone
    bound = 1 / np.sqrt(7)
    assert float(m.weight.abs().max()) <= bound
    m2 = nn.LazyLinear(4, bias=False)
    m2.load_state_dict({"weight": m.weight.detach()})
    assert tuple(m2.weight.shape) == (4, 7) and ember.equal(m2.weight, m.weight)
    assert m2.bias is None


def test_unflatten_flatten_identity():
    x = ember.randn(2, 12, 3)
    assert tuple(nn.Unflatten(1, (3, 4))(x).shape) == (2, 3, 4, 3)
    assert tuple(nn.Unflatten(-2, (2, -1))(x).shape) == (2, 2, 6, 3)
    assert tuple(nn.Flatten()(x).shape) == (2, 36)
    assert tuple(nn.Flatten(0, 1)(x).shape) == (24, 3)
    assert nn.Identity(1, 2, k=3)(x) is x


def test_buffer_container_factory_kwargs():
    m = nn.Module()
    m.b = nn.Buffer(ember.ones(2))
    m.c = nn.Buffer(ember.zeros(1), persistent=False)
    assert list(m.state_dict()) == ["b"] and [n for n, _ in m.named_buffers()] == ["b", "c"]
    assert isinstance(m.b, ember.Tensor) and not m.b.requires_grad
    with pytest.warns(UserWarning, match="nn.Container is deprecated"):
        c = nn.Container(lin=nn.Linear(2, 2))
    assert isinstance(c.lin, nn.Linear)
    assert nn.factory_kwargs({"device": "cpu", "factory_kwargs": {"dtype": ember.float16}}) == {
        "dtype": ember.float16, "device": "cpu"}
    with pytest.raises(TypeError, match="unexpected kwargs"):
        nn.factory_kwargs({"bogus": 1})


def test_state_dict_metadata_and_unflatten_checks():
    sd = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2)).state_dict()
    assert sd._metadata == OrderedDict([("", {"version": 1}), ("0", {"version": 1}),
                                        ("1", {"version": 2})])
    seen = []

    class Probe(nn.Linear):
        def _load_from_state_dict(self, state_dict, prefix, local_metadata, *args, **kwargs):
            seen.append(local_metadata)
            super()._load_from_state_dict(state_dict, prefix, local_metadata, *args, **kwargs)

    p = nn.Sequential(Probe(2, 2))
    p.load_state_dict(p.state_dict())
    assert seen == [{"version": 1}]
    with pytest.raises(TypeError, match="unflattened_size must be a tuple of ints, but found "
                                        "type int"):
        nn.Unflatten(1, 5)
    with pytest.raises(TypeError, match="unflattened_size must be tuple of ints, but found "
                                        "element of type str at pos 1"):
        nn.Unflatten(1, (2, "a"))
    assert repr(nn.Unflatten(1, [2, 3])) == "Unflatten(dim=1, unflattened_size=[2, 3])"
    assert tuple(nn.Unflatten(1, [2, 3])(ember.ones(4, 6)).shape) == (4, 2, 3)


@pytest.mark.gpu
def test_gpu_backward_hooks_against_torch(torch):
    w = RNG.uniform(-1, 1, size=(4, 3)).astype(np.float32)
    x = RNG.uniform(-1, 1, size=(5, 3)).astype(np.float32)
    seen = {}

    def run(lib, mod, tag):
        m = mod.Linear(3, 4).cuda()
        with lib.no_grad():
            m.weight.copy_(lib.tensor(w, device="cuda"))
            m.bias.zero_()
        m.register_full_backward_pre_hook(lambda mm, go: (go[0] * 3,))
        m.register_full_backward_hook(
            lambda mm, gi, go: seen.__setitem__(tag, (gi[0].cpu().numpy(), go[0].cpu().numpy())))
        xt = lib.tensor(x, device="cuda", requires_grad=True)
        m(xt).pow(2).sum().backward()
        return xt.grad.cpu().numpy(), m.weight.grad.cpu().numpy()

    e = run(ember, nn, "ember")
    t = run(torch, torch.nn, "torch")
    for a, b in zip(e + seen["ember"], t + seen["torch"]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
