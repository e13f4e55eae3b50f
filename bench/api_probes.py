"""How bench/api_coverage.py decides that a name *works*: the probes.

A probe calls the name, in torch and in ember, with arguments that each library builds for
itself (a candidate is a function ``lib -> (args, kwargs)``, so torch gets torch tensors and
ember gets ember tensors with the same values):

1. **Hand-written probes** (``HAND``) for the names whose arguments no generic list finds
   (optimisers, schedulers, setters that must restore what they change, losses...).
2. **Generated candidates** (``CANDIDATES``) otherwise: small tensors, sizes, dims, in a
   fixed order. The first candidate that *torch* accepts (returns without an exception) is
   the probe; ember is then called with the same candidate.

Verdicts (``probe`` returns one):

- ``works``: ember returned, and where both results are tensors (or tuples of them) and
  torch's result is deterministic (two torch calls agree), ember's has torch's shape and
  values (dtype too) -- a probe proves that one call on small CPU inputs works, not that
  every argument form, device or dtype does;
- ``differs``: ember returned a different shape, dtype or value than torch;
- ``stub``: ember raised NotImplementedError (or an AttributeError: a missing feature);
- ``error``: ember raised another exception on arguments torch accepts;
- ``unprobed``: present in ember, but torch accepted no candidate (or the name is a
  setter/side effect with no hand probe), so nothing was called.

Only ``works`` counts as covered. Names with side effects (``set_*``, seeding, process
groups, files) are called only by a hand probe.
"""
from __future__ import annotations

import inspect
import math
import re
import warnings

# ---- values each library builds for itself ------------------------------------------


def _t(L):
    return L.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


def _v(L):
    return L.tensor([0.5, 1.0, 2.0])


def _sq(L):  # symmetric positive definite: every linalg decomposition accepts it
    return L.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])


def _i(L):
    return L.tensor([[1, 0, 2], [0, 1, 1]])


def _b(L):
    return L.tensor([[True, False, True], [False, True, True]])


def _p(L):  # probabilities, for losses and draws
    return L.tensor([[0.25, 0.5, 0.75], [0.125, 0.625, 0.375]])


def _img(L):
    return L.arange(32.0).reshape(1, 2, 4, 4) / 8.0


def _seq(L):
    return L.arange(24.0).reshape(2, 3, 4) / 8.0


def _param(L):
    return L.nn.Parameter(L.tensor([1.0, -2.0, 0.5]))


def _opt(L):
    return L.optim.SGD([_param(L)], lr=0.1)


def _c(*args, **kwargs):
    """A candidate of plain Python values (the same for both libraries)."""
    return lambda L: (args, kwargs)


CANDIDATES = [
    _c(),
    lambda L: ((_t(L),), {}),
    lambda L: ((_t(L), _t(L)), {}),
    lambda L: ((_t(L), 1), {}),
    lambda L: ((_t(L), 0), {}),
    lambda L: ((_t(L), _t(L), _t(L)), {}),
    lambda L: ((_v(L),), {}),
    lambda L: ((_v(L), _v(L)), {}),
    lambda L: ((_sq(L),), {}),
    lambda L: ((_sq(L), _sq(L)), {}),
    lambda L: ((_i(L),), {}),
    lambda L: ((_i(L), _i(L)), {}),
    lambda L: ((_b(L),), {}),
    lambda L: ((_b(L), _b(L)), {}),
    lambda L: ((_t(L), 1, 0), {}),
    lambda L: ((_t(L), 0, _i(L)), {}),
    lambda L: ((_t(L), _b(L)), {}),
    lambda L: ((_t(L), [1, 0, 2]), {}),
    lambda L: ((_t(L), _i(L)), {}),
    lambda L: ((_t(L), 0, 1), {}),
    lambda L: ((_t(L), 0.5), {}),
    lambda L: ((_p(L), _p(L)), {}),
    lambda L: ((_t(L), L.tensor([0, 2])), {}),
    lambda L: ((_img(L),), {}),
    lambda L: ((_img(L), 2), {}),
    lambda L: ((_img(L), _img(L)[:, :, :3, :3]), {}),
    lambda L: ((_seq(L),), {}),
    lambda L: ((_seq(L), _seq(L)), {}),
    lambda L: (([_t(L), _t(L)],), {}),
    lambda L: ((_t(L), _v(L)), {}),
    lambda L: ((_sq(L), _v(L)), {}),
    lambda L: ((_v(L), _sq(L)), {}),
    _c(3),
    _c(2, 3),
    _c(3, 3),
    _c(2, 3, 4),
    _c(2, 3, 4, 5),
    _c(0.5),
    lambda L: (([_param(L)],), {"lr": 0.1}),
    lambda L: ((_opt(L),), {}),
    lambda L: ((_t(L), (3, 2)), {}),
    lambda L: ((_t(L), L.float64), {}),
]

# Names never called by the generated candidates: they change process-wide state, touch
# files or processes, or wait. A hand probe (below) may still call them.
SIDE_EFFECT = re.compile(
    r"^(set_|use_|manual_seed|seed|init|enable_|disable|compile|load|save|empty_cache|"
    r"reset_|synchronize|cudart|profile|ipc|host_memory|change_current|caching_allocator|"
    r"register_|unregister|make_graphed|checkpoint|export|dump|breakpoint|_sleep|"
    r"jiterator|tunable|nvtx|record_memory|attach|detach_|interrupt)"
)
# torch.distributed: only the questions (is_*, get_*) are called without a hand probe.
DISTRIBUTED_ASKS = re.compile(r"^(is_|get_)")


def _restoring(getter, setter, value=None):
    """A probe of a setter: set the current value (or `value`), then restore it."""
    def probe(L):
        old = getter(L)()
        try:
            setter(L)(old if value is None else value)
        finally:
            setter(L)(old)
        return None
    return probe


def _call(path, *args, **kwargs):
    """A hand probe: L.<path>(*args(L)...), each argument a value or a function of L."""
    def probe(L):
        fn = L
        for part in path.split("."):
            fn = getattr(fn, part)
        a = [x(L) if callable(x) and not isinstance(x, type) else x for x in args]
        k = {n: (x(L) if callable(x) and not isinstance(x, type) else x) for n, x in kwargs.items()}
        return fn(*a, **k)
    return probe


def _module(name, *ctor, inp=_t, **kw):
    """An nn module probe: construct with `ctor`, call it on inp(L)."""
    def probe(L):
        m = getattr(L.nn, name)(*ctor, **kw)
        return m(inp(L))
    return probe


def _sched(name, **kw):
    def probe(L):
        opt = _opt(L)
        sched = getattr(L.optim.lr_scheduler, name)(opt, **kw)
        opt.step()
        sched.step()
        return L.tensor(opt.param_groups[0]["lr"])
    return probe


def _optimizer(name, **kw):
    def probe(L):
        p = _param(L)
        opt = getattr(L.optim, name)([p], **kw)
        (p * p).sum().backward()
        opt.step()
        return p.detach()
    return probe


def _state(L):  # get/set pairs of the torch namespace
    return L


HAND = {
    # torch: setters restore what they change
    "torch.set_default_dtype": _restoring(lambda L: L.get_default_dtype, lambda L: L.set_default_dtype),
    "torch.set_grad_enabled": _call("set_grad_enabled", True),
    "torch.set_printoptions": _call("set_printoptions", precision=4),
    "torch.set_num_threads": _restoring(lambda L: L.get_num_threads, lambda L: L.set_num_threads),
    "torch.set_rng_state": _restoring(lambda L: L.get_rng_state, lambda L: L.set_rng_state),
    "torch.set_float32_matmul_precision": _restoring(
        lambda L: L.get_float32_matmul_precision, lambda L: L.set_float32_matmul_precision),
    "torch.set_default_device": _restoring(lambda L: L.get_default_device,
                                           lambda L: L.set_default_device),
    "torch.manual_seed": _call("manual_seed", 0),
    "torch.seed": _call("initial_seed"),
    "torch.set_autocast_enabled": _restoring(lambda L: (lambda: L.is_autocast_enabled("cpu")),
                                             lambda L: (lambda v: L.set_autocast_enabled("cpu", v))),
    "torch.save": lambda L: L.save(_t(L), __import__("io").BytesIO()),
    "torch.load": lambda L: _roundtrip(L),
    "torch.get_default_device": _call("get_default_device"),
    "torch.zeros": _call("zeros", 2, 3),
    "torch.full": _call("full", (2, 3), 1.5),
    "torch.normal": _call("normal", 0.0, 1.0, (3,)),
    "torch.randint": _call("randint", 0, 5, (3,)),
    "torch.where": _call("where", _b, _t, _t),
    "torch.clamp": _call("clamp", _t, -0.5, 0.5),
    "torch.lerp": _call("lerp", _t, _t, 0.5),
    "torch.addcmul": _call("addcmul", _t, _t, _t),
    "torch.einsum": _call("einsum", "ij,kj->ik", _t, _t),
    "torch.tensordot": _call("tensordot", _t, _t, dims=([1], [1])),
    "torch.index_select": _call("index_select", _t, 1, lambda L: L.tensor([0, 2])),
    "torch.gather": _call("gather", _t, 1, _i),
    "torch.scatter": _call("scatter", _t, 1, _i, _t),
    "torch.scatter_add": _call("scatter_add", _t, 1, _i, _t),
    "torch.masked_fill": _call("masked_fill", _t, _b, 0.0),
    "torch.allclose": _call("allclose", _t, _t),
    "torch.isclose": _call("isclose", _t, _t),
    "torch.equal": _call("equal", _t, _t),
    "torch.get_rng_state": lambda L: L.set_rng_state(L.get_rng_state()),
    "torch.initial_seed": lambda L: (L.manual_seed(7), L.initial_seed())[1],
    "torch.addmm": _call("addmm", _sq, _sq, _sq),
    "torch.addmv": _call("addmv", _v, _sq, _v),
    "torch.baddbmm": lambda L: L.baddbmm(_sq(L)[None], _sq(L)[None], _sq(L)[None]),
    "torch.bmm": lambda L: L.bmm(_sq(L)[None], _sq(L)[None]),
    "torch.as_strided": _call("as_strided", _t, (2, 2), (1, 2)),
    "torch.flip": _call("flip", _t, (0, 1)),
    "torch.broadcast_to": _call("broadcast_to", _v, (2, 3)),
    "torch.Tensor.broadcast_to": lambda L: _v(L).broadcast_to((2, 3)),
    "torch.Tensor.unfold": lambda L: _t(L).unfold(1, 2, 1),
    "torch.can_cast": lambda L: L.can_cast(L.float32, L.int32),
    "torch.promote_types": lambda L: str(L.promote_types(L.float32, L.int64)).split(".")[-1],
    "torch.empty_strided": lambda L: L.empty_strided((2, 3), (1, 2)).shape,
    "torch.from_numpy": lambda L: L.from_numpy(__import__("numpy").arange(3.0)),
    "torch.narrow": _call("narrow", _t, 1, 0, 2),
    "torch.permute": _call("permute", _t, (1, 0)),
    "torch.multinomial": lambda L: L.multinomial(_p(L), 2).shape,
    "torch.get_autocast_dtype": lambda L: str(L.get_autocast_dtype("cpu")).split(".")[-1],
    "torch.set_autocast_cache_enabled": _restoring(lambda L: L.is_autocast_cache_enabled,
                                                   lambda L: L.set_autocast_cache_enabled),
    "torch.set_autocast_cpu_enabled": _restoring(lambda L: L.is_autocast_cpu_enabled,
                                                 lambda L: L.set_autocast_cpu_enabled),
    "torch.set_autocast_cpu_dtype": _restoring(lambda L: L.get_autocast_cpu_dtype,
                                               lambda L: L.set_autocast_cpu_dtype),
    "torch.set_autocast_gpu_dtype": _restoring(lambda L: L.get_autocast_gpu_dtype,
                                               lambda L: L.set_autocast_gpu_dtype),
    "torch.set_autocast_dtype": _restoring(lambda L: (lambda: L.get_autocast_dtype("cpu")),
                                           lambda L: (lambda d: L.set_autocast_dtype("cpu", d))),
    "torch.iinfo": lambda L: L.iinfo(L.int32).max,
    "torch.dtype": lambda L: isinstance(L.float32, L.dtype),
    "torch.autocast": lambda L: _autocast(L),
    "torch.enable_grad": lambda L: _grad_ctx(L, "enable_grad"),
    "torch.Tensor.addmm": lambda L: _sq(L).addmm(_sq(L), _sq(L)),
    "torch.Tensor.addmm_": lambda L: _sq(L).addmm_(_sq(L), _sq(L)),
    "torch.Tensor.addmv": lambda L: _v(L).addmv(_sq(L), _v(L)),
    "torch.Tensor.baddbmm": lambda L: _sq(L)[None].baddbmm(_sq(L)[None], _sq(L)[None]),
    "torch.Tensor.baddbmm_": lambda L: _sq(L)[None].baddbmm_(_sq(L)[None], _sq(L)[None]),
    "torch.Tensor.bmm": lambda L: _sq(L)[None].bmm(_sq(L)[None]),
    "torch.Tensor.as_strided": lambda L: _t(L).as_strided((2, 2), (1, 2)),
    "torch.Tensor.expand": lambda L: _v(L).expand(2, 3),
    "torch.Tensor.item": lambda L: _v(L)[1].item(),
    "torch.Tensor.multinomial": lambda L: _p(L).multinomial(2).shape,
    "torch.Tensor.narrow": lambda L: _t(L).narrow(1, 0, 2),
    "torch.Tensor.new_full": lambda L: _t(L).new_full((2,), 1.5),
    "torch.Tensor.where": lambda L: _t(L).where(_b(L), 0.0),
    "torch.Tensor.backward": lambda L: _backward_method(L),
    "torch.Tensor.register_hook": lambda L: _hook(L),
    "torch.Tensor.retain_grad": lambda L: _retain(L),
    "torch.nn.Unflatten": lambda L: L.nn.Unflatten(1, (3, 1))(_t(L)),
    "torch.nn.functional.batch_norm": _call("nn.functional.batch_norm", _t, lambda L: L.zeros(3),
                                            lambda L: L.ones(3)),
    "torch.optim.Optimizer": None,
    "torch.optim.lr_scheduler.LRScheduler": None,
    "torch.autograd.enable_grad": lambda L: _grad_ctx(L.autograd, "enable_grad"),
    "torch.autograd.set_grad_enabled": lambda L: _grad_ctx(L.autograd, "set_grad_enabled", True),
    "torch.autograd.gradcheck": lambda L: L.autograd.gradcheck(
        lambda x: (x * x).sum(), (_v(L).double().requires_grad_(),)),
    "torch.autograd.gradgradcheck": lambda L: L.autograd.gradgradcheck(
        lambda x: (x * x).sum(), (_v(L).double().requires_grad_(),)),
    "torch.utils.data.BatchSampler": lambda L: list(L.utils.data.BatchSampler(range(5), 2, False)),
    "torch.utils.data.IterableDataset": None,
    "torch.utils.data.WeightedRandomSampler": lambda L: len(list(
        L.utils.data.WeightedRandomSampler([0.5, 0.5], 4))),
    # nn: modules constructed and called
    "torch.nn.Linear": _module("Linear", 3, 2),
    "torch.nn.Bilinear": lambda L: L.nn.Bilinear(3, 3, 2)(_t(L), _t(L)),
    "torch.nn.Conv1d": _module("Conv1d", 3, 2, 2, inp=_seq),
    "torch.nn.Conv2d": _module("Conv2d", 2, 3, 3, inp=_img),
    "torch.nn.ConvTranspose2d": _module("ConvTranspose2d", 2, 3, 3, inp=_img),
    "torch.nn.BatchNorm1d": _module("BatchNorm1d", 3),
    "torch.nn.BatchNorm2d": _module("BatchNorm2d", 2, inp=_img),
    "torch.nn.LayerNorm": _module("LayerNorm", 3),
    "torch.nn.GroupNorm": _module("GroupNorm", 1, 2, inp=_img),
    "torch.nn.InstanceNorm2d": _module("InstanceNorm2d", 2, inp=_img),
    "torch.nn.Embedding": _module("Embedding", 4, 2, inp=_i),
    "torch.nn.EmbeddingBag": _module("EmbeddingBag", 4, 2, inp=_i),
    "torch.nn.LSTM": _module("LSTM", 4, 3, inp=_seq),
    "torch.nn.GRU": _module("GRU", 4, 3, inp=_seq),
    "torch.nn.RNN": _module("RNN", 4, 3, inp=_seq),
    "torch.nn.MultiheadAttention": lambda L: L.nn.MultiheadAttention(4, 2)(_seq(L), _seq(L), _seq(L)),
    "torch.nn.MaxPool2d": _module("MaxPool2d", 2, inp=_img),
    "torch.nn.AvgPool2d": _module("AvgPool2d", 2, inp=_img),
    "torch.nn.AdaptiveAvgPool2d": _module("AdaptiveAvgPool2d", 1, inp=_img),
    "torch.nn.Dropout": _module("Dropout", 0.0),
    "torch.nn.Flatten": _module("Flatten"),
    "torch.nn.Sequential": lambda L: L.nn.Sequential(L.nn.Linear(3, 2), L.nn.ReLU())(_t(L)),
    "torch.nn.ModuleList": lambda L: len(L.nn.ModuleList([L.nn.ReLU()])),
    "torch.nn.ModuleDict": lambda L: len(L.nn.ModuleDict({"a": L.nn.ReLU()})),
    "torch.nn.ParameterList": lambda L: len(L.nn.ParameterList([_param(L)])),
    "torch.nn.ParameterDict": lambda L: len(L.nn.ParameterDict({"a": _param(L)})),
    "torch.nn.Parameter": lambda L: L.nn.Parameter(_t(L)),
    "torch.nn.Module": lambda L: L.nn.Module().train(),
    "torch.nn.CrossEntropyLoss": lambda L: L.nn.CrossEntropyLoss()(_t(L), L.tensor([0, 2])),
    "torch.nn.NLLLoss": lambda L: L.nn.NLLLoss()(_t(L), L.tensor([0, 2])),
    "torch.nn.functional.cross_entropy": _call("nn.functional.cross_entropy", _t, lambda L: L.tensor([0, 2])),
    "torch.nn.functional.nll_loss": _call("nn.functional.nll_loss", _t, lambda L: L.tensor([0, 2])),
    "torch.nn.functional.embedding": _call("nn.functional.embedding", _i, _sq),
    "torch.nn.functional.linear": _call("nn.functional.linear", _t, _t),
    "torch.nn.functional.conv2d": _call("nn.functional.conv2d", _img, lambda L: L.ones(3, 2, 3, 3)),
    "torch.nn.functional.one_hot": _call("nn.functional.one_hot", lambda L: L.tensor([0, 2, 1])),
    "torch.nn.functional.pad": _call("nn.functional.pad", _t, (1, 1)),
    "torch.nn.functional.interpolate": _call("nn.functional.interpolate", _img, scale_factor=2.0),
    "torch.nn.functional.dropout": _call("nn.functional.dropout", _t, 0.0),
    "torch.nn.functional.layer_norm": _call("nn.functional.layer_norm", _t, (3,)),
    "torch.nn.functional.scaled_dot_product_attention": _call(
        "nn.functional.scaled_dot_product_attention", _seq, _seq, _seq),
    # optim
    "torch.optim.SGD": _optimizer("SGD", lr=0.1, momentum=0.9),
    "torch.optim.Adam": _optimizer("Adam", lr=0.1),
    "torch.optim.AdamW": _optimizer("AdamW", lr=0.1),
    "torch.optim.Adagrad": _optimizer("Adagrad", lr=0.1),
    "torch.optim.RMSprop": _optimizer("RMSprop", lr=0.1),
    "torch.optim.Adamax": _optimizer("Adamax", lr=0.1),
    "torch.optim.Adadelta": _optimizer("Adadelta", lr=0.1),
    "torch.optim.NAdam": _optimizer("NAdam", lr=0.1),
    "torch.optim.RAdam": _optimizer("RAdam", lr=0.1),
    "torch.optim.ASGD": _optimizer("ASGD", lr=0.1),
    "torch.optim.Rprop": _optimizer("Rprop", lr=0.1),
    "torch.optim.Adafactor": _optimizer("Adafactor", lr=0.1),
    "torch.optim.Muon": lambda L: _muon(L),
    "torch.optim.optimizer.Optimizer": None,
    "torch.optim.lr_scheduler.StepLR": _sched("StepLR", step_size=1),
    "torch.optim.lr_scheduler.MultiStepLR": _sched("MultiStepLR", milestones=[1]),
    "torch.optim.lr_scheduler.ExponentialLR": _sched("ExponentialLR", gamma=0.5),
    "torch.optim.lr_scheduler.CosineAnnealingLR": _sched("CosineAnnealingLR", T_max=4),
    "torch.optim.lr_scheduler.LambdaLR": _sched("LambdaLR", lr_lambda=lambda e: 0.5 ** e),
    "torch.optim.lr_scheduler.MultiplicativeLR": _sched("MultiplicativeLR", lr_lambda=lambda e: 0.5),
    "torch.optim.lr_scheduler.ConstantLR": _sched("ConstantLR"),
    "torch.optim.lr_scheduler.LinearLR": _sched("LinearLR"),
    "torch.optim.lr_scheduler.PolynomialLR": _sched("PolynomialLR"),
    "torch.optim.lr_scheduler.CosineAnnealingWarmRestarts": _sched("CosineAnnealingWarmRestarts", T_0=2),
    "torch.optim.lr_scheduler.CyclicLR": _sched("CyclicLR", base_lr=0.01, max_lr=0.1),
    "torch.optim.lr_scheduler.OneCycleLR": _sched("OneCycleLR", max_lr=0.1, total_steps=4),
    "torch.optim.lr_scheduler.ReduceLROnPlateau": lambda L: _plateau(L),
    "torch.optim.lr_scheduler.SequentialLR": lambda L: _sequential(L),
    "torch.optim.lr_scheduler.ChainedScheduler": lambda L: _chained(L),
    # utils.data
    "torch.utils.data.DataLoader": lambda L: list(L.utils.data.DataLoader(
        L.utils.data.TensorDataset(_t(L)), batch_size=1)),
    "torch.utils.data.TensorDataset": lambda L: L.utils.data.TensorDataset(_t(L))[0],
    "torch.utils.data.random_split": lambda L: len(L.utils.data.random_split(range(4), [2, 2])),
    # testing
    "torch.testing.assert_close": _call("testing.assert_close", _t, _t),
    "torch.testing.make_tensor": _call("testing.make_tensor", (2, 3), dtype=lambda L: L.float32,
                                       device="cpu"),
    "torch.testing.assert_allclose": _call("testing.assert_allclose", _t, _t),
    # autograd
    "torch.autograd.grad": lambda L: _grad(L),
    "torch.autograd.backward": lambda L: _backward(L),
    "torch.autograd.Variable": lambda L: L.autograd.Variable(_t(L)),
    # amp
    "torch.amp.autocast": lambda L: _autocast(L),
    "torch.amp.GradScaler": lambda L: L.amp.GradScaler("cpu", enabled=False).scale(_t(L)),
    "torch.amp.custom_fwd": lambda L: _custom_fwd_bwd(L)[0],
    "torch.amp.custom_bwd": lambda L: _custom_fwd_bwd(L)[1],
    "torch.amp.is_autocast_available": _call("amp.is_autocast_available", "cpu"),
    # cuda: answers that need no GPU
    "torch.cuda.set_sync_debug_mode": _restoring(lambda L: L.cuda.get_sync_debug_mode,
                                                 lambda L: L.cuda.set_sync_debug_mode),
    # composites of issue 16 (products, copies, scatters, creation, switches, nn spellings)
    "torch.addbmm": lambda L: L.addbmm(_t(L), _sq(L)[None, :2], _sq(L)[None]),
    "torch.Tensor.addbmm": lambda L: _t(L).addbmm(_sq(L)[None, :2], _sq(L)[None]),
    "torch.Tensor.addbmm_": lambda L: _t(L).addbmm_(_sq(L)[None, :2], _sq(L)[None]),
    "torch.addmv_": lambda L: L.addmv_(_v(L), _sq(L), _v(L)),
    "torch.Tensor.addmv_": lambda L: _v(L).addmv_(_sq(L), _v(L)),
    "torch.addr": lambda L: L.addr(_t(L), _v(L)[:2], _v(L), beta=0.5),
    "torch.Tensor.addr": lambda L: _t(L).addr(_v(L)[:2], _v(L), alpha=2.0),
    "torch.Tensor.addr_": lambda L: _t(L).addr_(_v(L)[:2], _v(L)),
    "torch.as_strided_copy": _call("as_strided_copy", _t, (2, 2), (1, 2)),
    "torch.as_strided_scatter": lambda L: L.as_strided_scatter(_t(L), L.ones(2, 2), (2, 2),
                                                               (1, 2)),
    "torch.Tensor.as_strided_scatter": lambda L: _t(L).as_strided_scatter(L.ones(2, 2), (2, 2),
                                                                          (1, 2), 1),
    "torch.select_scatter": lambda L: L.select_scatter(_t(L), _v(L), 0, 1),
    "torch.Tensor.select_scatter": lambda L: _t(L).select_scatter(L.ones(2), 1, 2),
    "torch.detach_": lambda L: L.detach_(_t(L) * 1),
    "torch.detach_copy": _call("detach_copy", _t),
    "torch.expand_copy": _call("expand_copy", _v, (2, 3)),
    "torch.permute_copy": _call("permute_copy", _t, (1, 0)),
    "torch.narrow_copy": _call("narrow_copy", _t, 1, 1, 2),
    "torch.Tensor.narrow_copy": lambda L: _t(L).narrow_copy(1, 0, 2),
    "torch.unfold_copy": _call("unfold_copy", _t, 1, 2, 1),
    "torch.split_with_sizes": _call("split_with_sizes", _t, [1, 2], 1),
    "torch.Tensor.split_with_sizes": lambda L: _t(L).split_with_sizes([2, 1], 1),
    "torch.split_with_sizes_copy": _call("split_with_sizes_copy", _t, [1, 2], 1),
    "torch.unsafe_split_with_sizes": _call("unsafe_split_with_sizes", _t, [1, 1]),
    "torch.Tensor.unsafe_split_with_sizes": lambda L: _t(L).unsafe_split_with_sizes([1, 2], 1),
    "torch.unflatten": _call("unflatten", _t, 1, (3, 1)),
    "torch.Tensor.unflatten": lambda L: _t(L).unflatten(0, (1, 2)),
    "torch.empty_permuted": lambda L: L.empty_permuted((2, 3, 4), (2, 0, 1)).stride(),
    "torch.frombuffer": lambda L: L.frombuffer(bytearray(b"\x00\x00\x80\x3f" * 3),
                                               dtype=L.float32),
    "torch.init_num_threads": _call("init_num_threads"),
    "torch.is_nonzero": lambda L: L.is_nonzero(_v(L)[:1]),
    "torch.Tensor.is_nonzero": lambda L: L.tensor(0.0).is_nonzero(),
    "torch.Tensor.new_empty_strided": lambda L: _t(L).new_empty_strided((2, 3), (1, 2)).stride(),
    "torch.renorm": _call("renorm", _t, 2, 0, 1.0),
    "torch.Tensor.renorm": lambda L: _t(L).renorm(1, 1, 0.5),
    "torch.Tensor.renorm_": lambda L: _t(L).renorm_(2, 0, 1.0),
    "torch.unravel_index": lambda L: L.unravel_index(L.tensor([4, 1, 5]), (2, 3)),
    "torch.set_deterministic_debug_mode": _restoring(lambda L: L.get_deterministic_debug_mode,
                                                     lambda L: L.set_deterministic_debug_mode),
    "torch.use_deterministic_algorithms": _restoring(
        lambda L: L.are_deterministic_algorithms_enabled,
        lambda L: L.use_deterministic_algorithms),
    "torch.set_warn_always": _restoring(lambda L: L.is_warn_always_enabled,
                                        lambda L: L.set_warn_always),
    "torch.set_flush_denormal": lambda L: (L.set_flush_denormal(False), 0)[1],
    "torch.set_num_interop_threads": lambda L: L.get_num_interop_threads() > 0,
    "torch.alpha_dropout": lambda L: L.alpha_dropout(_t(L), 0.5, False),
    "torch.alpha_dropout_": lambda L: L.alpha_dropout_(_t(L), 0.5, False),
    "torch.dropout": lambda L: L.dropout(_t(L), 0.5, False),
    "torch.dropout_": lambda L: L.dropout_(_t(L), 0.0, True),
    "torch.feature_dropout": lambda L: L.feature_dropout(_img(L), 0.5, True).shape,
    "torch.feature_dropout_": lambda L: L.feature_dropout_(_img(L), 0.5, False),
    "torch.feature_alpha_dropout": lambda L: L.feature_alpha_dropout(_img(L), 0.5, True).shape,
    "torch.feature_alpha_dropout_": lambda L: L.feature_alpha_dropout_(_img(L), 0.5, False),
    "torch.native_dropout": lambda L: L.native_dropout(_t(L), 0.5, False),
    "torch.batch_norm": lambda L: L.batch_norm(_t(L), L.ones(3), L.zeros(3), L.zeros(3),
                                               L.ones(3), True, 0.1, 1e-5, False),
    "torch.native_batch_norm": lambda L: L.native_batch_norm(_t(L), L.ones(3), L.zeros(3),
                                                             L.zeros(3), L.ones(3), True, 0.1,
                                                             1e-5),
    "torch.instance_norm": lambda L: L.instance_norm(_img(L), None, None, None, None, True, 0.1,
                                                     1e-5, False),
    "torch.layer_norm": _call("layer_norm", _t, (3,)),
    "torch.native_layer_norm": lambda L: L.native_layer_norm(_t(L), (3,), None, None, 1e-5),
    "torch.native_group_norm": lambda L: L.native_group_norm(_img(L), None, None, 1, 2, 16, 1,
                                                             1e-5),
    "torch.rms_norm": _call("rms_norm", _t, (3,)),
    "torch.nn.functional.rms_norm": _call("nn.functional.rms_norm", _t, (3,)),
    "torch.embedding": lambda L: L.embedding(_t(L), L.tensor([1, 0, 1])),
    "torch.bilinear": lambda L: L.bilinear(_t(L), _t(L), L.ones(2, 3, 3)),
    "torch.nn.functional.bilinear": lambda L: L.nn.functional.bilinear(_t(L), _t(L),
                                                                       L.ones(2, 3, 3)),
    "torch.cosine_embedding_loss": lambda L: L.cosine_embedding_loss(
        _t(L), _t(L) * 2, L.tensor([1.0, -1.0])),
    "torch.nn.functional.cosine_embedding_loss": lambda L: L.nn.functional.cosine_embedding_loss(
        _t(L), -_t(L), L.tensor([1.0, -1.0])),
    "torch.poisson_nll_loss": lambda L: L.poisson_nll_loss(_t(L), _p(L), True, True, 1e-8, 1),
    "torch.pixel_shuffle": lambda L: L.pixel_shuffle(L.arange(16.0).reshape(1, 4, 2, 2), 2),
    "torch.nn.functional.pixel_shuffle": lambda L: L.nn.functional.pixel_shuffle(
        L.arange(16.0).reshape(1, 4, 2, 2), 2),
    "torch.nn.ZeroPad2d": _module("ZeroPad2d", 1, inp=_img),
    "torch.nn.ZeroPad3d": _module("ZeroPad3d", 1, inp=_img),
    "torch.nn.ConstantPad2d": _module("ConstantPad2d", (1, 0, 2, 1), 1.5, inp=_img),
    "torch.nn.ConstantPad3d": _module("ConstantPad3d", 1, 1.5, inp=_img),
    "torch.nn.ReflectionPad2d": _module("ReflectionPad2d", (1, 0, 2, 1), inp=_img),
    "torch.nn.ReflectionPad3d": _module("ReflectionPad3d", 1, inp=lambda L: _img(L)[None]),
    "torch.nn.ReplicationPad2d": _module("ReplicationPad2d", (1, 0, 2, 1), inp=_img),
    "torch.nn.ReplicationPad3d": _module("ReplicationPad3d", 1, inp=lambda L: _img(L)[None]),
    "torch.nn.CircularPad2d": _module("CircularPad2d", (1, 0, 2, 1), inp=_img),
    "torch.nn.CircularPad3d": _module("CircularPad3d", 1, inp=lambda L: _img(L)[None]),
    "torch.nn.Dropout2d": lambda L: L.nn.Dropout2d().eval()(_img(L)),
    "torch.nn.Dropout3d": lambda L: L.nn.Dropout3d().eval()(_img(L)[None]),
    "torch.nn.functional.dropout2d": lambda L: L.nn.functional.dropout2d(_img(L), training=False),
    "torch.nn.functional.dropout3d": lambda L: L.nn.functional.dropout3d(_img(L)[None],
                                                                         training=False),
}


def _idx(L):  # an index along dim 1 of _t
    return L.tensor([2, 0])


def _src(L):  # 2 x 2 values for index_* along dim 1 of _t
    return L.tensor([[10.0, 20.0], [30.0, 40.0]])


def _method(name, *args, base=_t, **kwargs):
    """A Tensor method probe on a fresh base(L) (in-place ones change only their copy)."""
    def probe(L):
        a = [x(L) if callable(x) and not isinstance(x, type) else x for x in args]
        k = {n: (x(L) if callable(x) and not isinstance(x, type) else x) for n, x in kwargs.items()}
        return getattr(base(L).clone(), name)(*a, **k)
    return probe


# The indexing and sorting families: index tensors and masks no generated list finds.
_INDEX_PROBES = {
    "gather": ((1, _i), {}),
    "scatter": ((1, _i, _t), {}),
    "scatter_add": ((1, _i, _t), {}),
    "scatter_reduce": ((1, _i, _t, "amax"), {}),
    "index_select": ((1, _idx), {}),
    "index_add": ((1, _idx, _src), {"alpha": 2}),
    "index_copy": ((1, _idx, _src), {}),
    "index_fill": ((1, _idx, -1.0), {}),
    "index_reduce": ((1, _idx, _src, "prod"), {}),
    "index_put": (((lambda L: (L.tensor([0, 1]), L.tensor([2, 0]))), lambda L: L.tensor([7.0, 8.0])), {}),
    "masked_fill": ((_b, 0.0), {}),
    "masked_scatter": ((_b, lambda L: L.arange(6.0)), {}),
    "put": ((lambda L: L.tensor([0, 5]), lambda L: L.tensor([9.0, 8.0])), {}),
}
for _n, (_a, _k) in _INDEX_PROBES.items():
    HAND.setdefault(f"torch.{_n}", _call(_n, _t, *_a, **_k))
    HAND.setdefault(f"torch.Tensor.{_n}", _method(_n, *_a, **_k))
    HAND.setdefault(f"torch.Tensor.{_n}_", _method(_n + "_", *_a, **_k))
HAND.setdefault("torch.index_put_", _call("index_put_", lambda L: _t(L).clone(),
                                          *_INDEX_PROBES["index_put"][0]))
HAND.setdefault("torch.bincount", _call("bincount", lambda L: L.tensor([0, 2, 2, 5])))
HAND.setdefault("torch.Tensor.bincount", _method("bincount", base=lambda L: L.tensor([0, 2, 2, 5])))
# stft/istft: a short signal, a window and return_complex (torch requires it for real input).
_sig = lambda L: L.tensor([0.5, -1.0, 2.0, 1.5, 0.25, -0.75, 1.0, 0.0, -2.0, 0.5, 1.25, -0.5])  # noqa: E731
_spec = lambda L: L.stft(_sig(L), 4, hop_length=1, window=L.ones(4), return_complex=True)  # noqa: E731
HAND.setdefault("torch.stft", _call("stft", _sig, 4, hop_length=2, return_complex=True))
HAND.setdefault("torch.Tensor.stft", _method("stft", 4, base=_sig, hop_length=2,
                                             return_complex=True))
HAND.setdefault("torch.istft", _call("istft", _spec, 4, hop_length=1, window=lambda L: L.ones(4)))
HAND.setdefault("torch.Tensor.istft", _method("istft", 4, base=_spec, hop_length=1,
                                              window=lambda L: L.ones(4)))


def _custom_fwd_bwd(L):
    """The decorators on a forward and a backward that take a ctx (what they decorate)."""
    import types
    ctx = types.SimpleNamespace()
    fwd = L.amp.custom_fwd(device_type="cpu")(lambda ctx, x: x * 2)
    bwd = L.amp.custom_bwd(device_type="cpu")(lambda ctx, g: g * 2)
    return fwd(ctx, _t(L)), bwd(ctx, _t(L))


def _roundtrip(L):
    import io
    buf = io.BytesIO()
    L.save(_t(L), buf)
    buf.seek(0)
    return L.load(buf)


def _muon(L):
    p = L.nn.Parameter(_sq(L))
    opt = L.optim.Muon([p], lr=0.1)
    (p * p).sum().backward()
    opt.step()
    return p.detach()


def _plateau(L):
    opt = _opt(L)
    sched = L.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
    for loss in (1.0, 2.0, 3.0):
        sched.step(loss)
    return L.tensor(opt.param_groups[0]["lr"])


def _sequential(L):
    opt = _opt(L)
    a = L.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=1)
    b = L.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    sched = L.optim.lr_scheduler.SequentialLR(opt, [a, b], milestones=[1])
    opt.step()
    sched.step()
    return L.tensor(opt.param_groups[0]["lr"])


def _chained(L):
    opt = _opt(L)
    a = L.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=1)
    b = L.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    sched = L.optim.lr_scheduler.ChainedScheduler([a, b])
    opt.step()
    sched.step()
    return L.tensor(opt.param_groups[0]["lr"])


def _grad(L):
    x = _t(L).requires_grad_()
    return L.autograd.grad((x * x).sum(), x)[0]


def _backward(L):
    x = _t(L).requires_grad_()
    L.autograd.backward([(x * x).sum()])
    return x.grad


def _grad_ctx(mod, name, *args):
    with getattr(mod, name)(*args):
        return True


def _backward_method(L):
    x = _t(L).requires_grad_()
    (x * x).sum().backward()
    return x.grad


def _hook(L):
    x = _t(L).requires_grad_()
    seen = []
    x.register_hook(lambda g: seen.append(g))
    (x * 2).sum().backward()
    return seen[0]


def _retain(L):
    x = _t(L).requires_grad_()
    y = x * 2
    y.retain_grad()
    y.sum().backward()
    return y.grad


def _autocast(L):
    with L.amp.autocast("cpu", enabled=False):
        return _t(L) + 1


# ---- calling and judging ---------------------------------------------------------------


class _Stub(Exception):
    pass


def _classify_exc(e):
    if isinstance(e, NotImplementedError):
        return "stub"
    if isinstance(e, AttributeError) and "module 'ember" in str(e):
        return "stub"  # an ember module misses a name the call needs
    return "error"


def call_candidate(lib, obj, cand, method=None, resolve=None):
    """obj(*args) (or args[0].<method>(*args[1:])) with the candidate built for lib."""
    args, kwargs = cand(lib)
    if method is not None:
        if not args or not isinstance(args[0], lib.Tensor):
            raise TypeError("a method needs its tensor")
        fn = getattr(args[0], method)
        if not callable(fn):
            return fn
        return fn(*args[1:], **kwargs)
    return obj(*args, **kwargs)


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def _seeded(lib, fn, *args, once=False):
    """fn(*args) after lib.manual_seed(1); unless `once`, also the pair of results under
    seeds 2 and 3 (a random result differs between them, a deterministic one does not):
    (result under seed 1, result under seed 2 if it equals the seed-3 one else None)."""
    lib.manual_seed(1)
    first = _quiet(fn, *args)
    if once:
        return first
    try:
        lib.manual_seed(2)
        second = _quiet(fn, *args)
        lib.manual_seed(3)
        third = _quiet(fn, *args)
    except Exception:
        return first, None
    same = _leaves(second, []) == _leaves(third, []) and _close(
        [x[3] for x in _leaves(first, []) if x], [x[3] for x in _leaves(second, []) if x])
    return first, (second if same else None)


def _leaves(x, out):
    """Tensors (as NumPy) and numbers of a result, flattened; None where not comparable."""
    if hasattr(x, "detach") and hasattr(x, "shape") and hasattr(x, "dtype"):
        try:
            t = x.detach()
            if getattr(t, "is_cuda", False):
                t = t.cpu()
            out.append(("t", str(t.dtype).replace("torch.", "").replace("ember.", ""),
                        tuple(t.shape), t.tolist()))
        except Exception:
            out.append(None)
    elif isinstance(x, (bool, int, float)):
        out.append(("n", type(x).__name__, (), x))
    elif isinstance(x, (tuple, list)) and not isinstance(x, str):
        for y in x:
            _leaves(y, out)
    return out


def _close(a, b):
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(map(_close, a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, complex) or isinstance(b, complex):
        try:
            ca, cb = complex(a), complex(b)
        except (TypeError, ValueError):
            return a == b
        return _close(ca.real, cb.real) and _close(ca.imag, cb.imag)
    try:
        fa, fb = float(a), float(b)
    except (TypeError, ValueError):
        return a == b
    if math.isnan(fa):
        return math.isnan(fb)
    return fa == fb or abs(fa - fb) <= 1e-5 + 1e-3 * abs(fa)


def compare(torch_res, torch_res2, ember_res):
    """None when ember's result agrees with torch's (or torch's is not deterministic or
    not comparable), else what differs."""
    if torch_res2 is None:
        return None  # random: the torch results under two seeds differ
    ta, tb = _leaves(torch_res, []), _leaves(torch_res2, [])
    if not ta or None in ta or len(ta) != len(tb) or not _close([x[3] for x in ta], [x[3] for x in tb]):
        return None  # nothing comparable, or random
    ea = _leaves(ember_res, [])
    if len(ea) != len(ta):
        return f"{len(ea)} results, torch {len(ta)}"
    for (kt, dt, st, vt), e in zip(ta, ea):
        if e is None:
            return "result not readable"
        ke, de, se, ve = e
        if kt == "t" and (ke != "t" or de != dt or se != st):
            return f"{de}{list(se)} vs torch's {dt}{list(st)}"
        if not _close(vt, ve):
            return "values differ"
    return None


def probe(name, torch_obj, ember_obj, torch_lib, ember_lib, method=None):
    """(verdict, detail) for one name present in ember; see the module docstring."""
    hand = HAND.get(name, False)
    if hand is None:
        return "unprobed", "no probe (abstract)"
    if hand is not False:
        try:
            t1, t2 = _seeded(torch_lib, hand, torch_lib)
        except Exception as e:  # torch itself rejects the hand probe: report, do not judge
            return "unprobed", f"hand probe fails in torch: {type(e).__name__}"
        try:
            e1 = _seeded(ember_lib, hand, ember_lib, once=True)
        except Exception as e:
            return _classify_exc(e), f"{type(e).__name__}: {str(e)[:120]}"
        d = compare(t1, t2, e1)
        return ("differs", d) if d else ("works", "hand probe")
    if not callable(ember_obj) and method is None:
        return "works", "attribute"
    short = name.rsplit(".", 1)[-1]
    if method is None and (SIDE_EFFECT.match(short) or (
            name.startswith("torch.distributed.") and not DISTRIBUTED_ASKS.match(short))):
        return "unprobed", "side effects: only a hand probe calls it"
    for cand in CANDIDATES:
        try:
            t1, t2 = _seeded(torch_lib, call_candidate, torch_lib, torch_obj, cand, method)
        except Exception:
            continue
        try:
            e1 = _seeded(ember_lib, call_candidate, ember_lib, ember_obj, cand, method, once=True)
        except Exception as e:
            return _classify_exc(e), f"{type(e).__name__}: {str(e)[:120]}"
        if isinstance(t1, torch_lib.nn.Module):
            return _probe_forward(t1, t2, e1, torch_lib, ember_lib)
        d = compare(t1, t2, e1)
        return ("differs", d) if d else ("works", "generated arguments")
    if _is_stub_source(ember_obj):
        return "stub", "its body raises NotImplementedError"
    return "unprobed", "torch accepts none of the generated arguments"


def _probe_forward(t1, t2, e1, torch_lib, ember_lib):
    """A module constructed by generated arguments is called too, on the first generated
    input torch's module accepts."""
    for cand in CANDIDATES[1:]:
        try:
            r1 = _quiet(call_candidate, torch_lib, t1, cand)
        except Exception:
            continue
        try:
            r2 = _quiet(call_candidate, torch_lib, t2, cand)
            er = _quiet(call_candidate, ember_lib, e1, cand)
        except Exception as e:
            return _classify_exc(e), f"forward: {type(e).__name__}: {str(e)[:120]}"
        d = compare(r1, r2, er)
        return ("differs", "forward: " + d) if d else ("works", "constructed and called")
    return "works", "constructed (torch's module accepts no generated input)"


def _is_stub_source(obj):
    try:
        src = inspect.getsource(obj)
    except (TypeError, OSError):
        return False
    body = [ln.strip() for ln in src.splitlines()[1:] if ln.strip() and not ln.strip().startswith("#")]
    return bool(body) and body[-1].startswith("raise NotImplementedError") and len(body) <= 4
