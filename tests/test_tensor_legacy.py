"""torch's legacy and environment names: the legacy tensor types (ember.FloatTensor...),
x.type(), autograd.Variable, the default device, __format__, __index__,
__array_priority__, pickling and deepcopy. Hand-checked values on the CPU; the same calls
in torch where it is installed."""
import copy
import operator
import pickle
import threading

import numpy as np
import pytest

import ember

TYPES = {"DoubleTensor": "float64", "FloatTensor": "float32", "HalfTensor": "float16",
         "BFloat16Tensor": "bfloat16", "LongTensor": "int64", "IntTensor": "int32",
         "ShortTensor": "int16", "CharTensor": "int8", "ByteTensor": "uint8",
         "BoolTensor": "bool"}


@pytest.mark.parametrize("name", sorted(TYPES))
def test_legacy_type_from_sizes_and_data(name):
    cls = getattr(ember, name)
    dtype = getattr(ember, TYPES[name])
    t = cls(2, 3)
    assert t.shape == (2, 3) and t.dtype == dtype and t.device.type == "cpu"
    assert cls(ember.Size([4])).shape == (4,)
    assert cls().shape == (0,)
    d = cls([1, 0])
    assert d.dtype == dtype and d.tolist() == ([True, False] if name == "BoolTensor" else [1, 0])
    assert isinstance(t, cls) and isinstance(t, ember.Tensor)
    assert not issubclass(cls, ember.Tensor)
    assert repr(cls) == f"<class 'ember.{name}'>"
    assert t.type() == f"ember.{name}"
    assert not isinstance(t, ember.cuda.FloatTensor)


def test_legacy_type_rules():
    assert ember.LongTensor([1.7, 2]).tolist() == [1, 2]      # data converts
    assert ember.FloatTensor((2, 3)).tolist() == [2.0, 3.0]   # a tuple is data, not sizes
    assert ember.FloatTensor(np.array([1, 2])).tolist() == [1.0, 2.0]
    x = ember.tensor([1.0, 2.0])
    alias = ember.FloatTensor(x)
    alias[0] = 5.0
    assert x.tolist() == [5.0, 2.0]                            # the same memory
    assert not isinstance(ember.zeros(2, dtype=ember.float64), ember.FloatTensor)
    with pytest.raises(TypeError, match="expected ember.FloatTensor"):
        ember.FloatTensor(ember.tensor([1, 2]))
    with pytest.raises(TypeError, match="data must be a sequence"):
        ember.FloatTensor(2.5)
    with pytest.raises(TypeError, match="invalid data type 'str'"):
        ember.FloatTensor("a")
    with pytest.raises(RuntimeError, match="expects device type: cpu"):
        ember.FloatTensor(2, device="cuda")
    assert repr(ember.cuda.HalfTensor) == "<class 'ember.cuda.HalfTensor'>"
    assert ember.cuda.HalfTensor.dtype == ember.float16 and ember.cuda.HalfTensor.is_cuda


def test_type_strings_and_classes():
    x = ember.tensor([1.5, 2.5])
    assert x.type() == "ember.FloatTensor"
    assert x.type("torch.FloatTensor") is x
    d = x.type("torch.DoubleTensor")
    assert d.dtype == ember.float64 and d.tolist() == [1.5, 2.5]
    assert x.type("ember.IntTensor").tolist() == [1, 2]
    assert x.type(ember.LongTensor).dtype == ember.int64
    assert x.type(ember.float16).dtype == ember.float16
    assert x.type(ember.float32) is x
    with pytest.raises(ValueError, match="invalid type: 'torch.FooTensor'"):
        x.type("torch.FooTensor")


def test_legacy_against_torch(torch):
    for name in TYPES:
        e, t = getattr(ember, name)([1, 0]), getattr(torch, name)([1, 0])
        assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
        assert e.tolist() == t.tolist()
        assert isinstance(e, getattr(ember, name)) == isinstance(t, getattr(torch, name))
        assert e.type().split(".", 1)[1] == t.type().split(".", 1)[1]
    assert (ember.zeros(2).type("torch.DoubleTensor").dtype == ember.float64) == \
        (torch.zeros(2).type("torch.DoubleTensor").dtype == torch.float64)


def test_variable():
    x = ember.tensor([1.0, 2.0])
    v = ember.autograd.Variable(x, requires_grad=True)
    assert v.requires_grad and isinstance(v, ember.Tensor) and isinstance(x, ember.autograd.Variable)
    (v * v).sum().backward()
    assert v.grad.tolist() == [2.0, 4.0]
    assert not x.requires_grad                       # x itself is untouched
    assert ember.autograd.Variable().shape == (0,)
    with pytest.warns(UserWarning, match="volatile was removed"):
        ember.autograd.Variable(x, volatile=True)
    with pytest.raises(TypeError, match="has to be a tensor"):
        ember.autograd.Variable([1.0])
    from ember.autograd.variable import Variable
    assert Variable is ember.autograd.Variable


# ---- the default device ----------------------------------------------------------------


def test_default_device_is_cpu_and_settable():
    assert ember.get_default_device() == ember.device("cpu")
    ember.set_default_device("cpu")
    try:
        assert ember.zeros(2).device.type == "cpu"
    finally:
        ember.set_default_device(None)
    assert ember.get_default_device() == ember.device("cpu")
    with pytest.raises(RuntimeError, match="Invalid device string"):
        ember.set_default_device("bogus")


def test_device_context_nests_and_restores():
    with ember.device("cpu") as d:
        assert d == ember.device("cpu")
        assert ember.get_default_device() == ember.device("cpu")
        with ember.device("cpu"):
            pass
    assert ember.get_default_device() == ember.device("cpu")


@pytest.mark.gpu
def test_default_device_cuda_creation_functions(torch):
    try:
        ember.set_default_device("cuda")
        torch.set_default_device("cuda")
        for fn in (lambda L: L.zeros(2), lambda L: L.ones(2, 3), lambda L: L.tensor([1.0]),
                   lambda L: L.arange(3), lambda L: L.full((2,), 1.0), lambda L: L.rand(2),
                   lambda L: L.randn(2), lambda L: L.empty(2), lambda L: L.linspace(0, 1, 3),
                   lambda L: L.eye(2), lambda L: L.as_tensor([1.0])):
            assert fn(ember).device.type == fn(torch).device.type == "cuda"
        # not honoured, as torch's: *_like follow the input, from_numpy and the legacy types
        assert ember.zeros_like(ember.ones(1, device="cpu")).device.type == "cpu"
        assert ember.from_numpy(np.zeros(2)).device.type == "cpu"
        assert ember.FloatTensor(2).device.type == "cpu"
        assert ember.get_default_device() == ember.device("cuda", ember.cuda.current_device())
        seen = []
        th = threading.Thread(target=lambda: seen.append(ember.zeros(1).device.type))
        th.start()
        th.join()
        assert seen == ["cpu"]                       # per thread, as torch's
    finally:
        ember.set_default_device(None)
        torch.set_default_device(None)
    with ember.device("cuda"):
        assert ember.zeros(1).is_cuda and ember.nn.Linear(2, 2).weight.is_cuda
    assert not ember.zeros(1).is_cuda


# ---- protocols ---------------------------------------------------------------------------


def test_format():
    assert f"{ember.tensor(1.5):.3f}" == "1.500"
    assert f"{ember.tensor(3):d}" == "3"
    assert f"{ember.tensor(1.5)}" == "1.5"
    assert f"{ember.tensor(1.5, requires_grad=True):.2f}" == "1.50"
    assert format(ember.tensor([1.5, 2.0]), "") == str(ember.tensor([1.5, 2.0]))
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        format(ember.tensor([1.5, 2.0]), ".2f")
    with pytest.raises(TypeError, match="unsupported format string"):
        format(ember.tensor([1.5]), ".2f")


def test_format_against_torch(torch):
    for spec in ("", ".4f", "e", "+.1f", "10.2f"):
        assert format(ember.tensor(0.123456), spec) == format(torch.tensor(0.123456), spec)
    assert format(ember.tensor(7), "d") == format(torch.tensor(7), "d")


def test_index():
    assert operator.index(ember.tensor(3)) == 3
    assert operator.index(ember.tensor([3])) == 3
    b = operator.index(ember.tensor(True))
    assert b == 1 and type(b) is int
    assert type(int(ember.tensor(True))) is int
    assert [10, 20, 30][ember.tensor(2)] == 30
    for bad in (ember.tensor(1.0), ember.tensor([3, 4])):
        with pytest.raises(TypeError, match="only integer tensors of a single element"):
            operator.index(bad)


def test_array_priority():
    assert ember.Tensor.__array_priority__ == 1000
    r = np.float64(2.0) * ember.tensor([1.0, 2.0])
    assert isinstance(r, ember.Tensor) and r.tolist() == [2.0, 4.0]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int32",
                                   "int8", "uint8", "bool"])
def test_pickle_round_trip(dtype):
    dt = getattr(ember, dtype)
    t = ember.tensor([[1, 0, 2], [3, 1, 0]]).to(dt)
    u = pickle.loads(pickle.dumps(t))
    assert u.dtype == dt and u.shape == t.shape and u.tolist() == t.tolist()
    assert u.device.type == "cpu" and not u.requires_grad


def test_pickle_views_requires_grad_parameter():
    base = ember.arange(12.0).reshape(3, 4)
    view = base[:, 1]
    u = pickle.loads(pickle.dumps(view))
    assert u.tolist() == [1.0, 5.0, 9.0] and u.is_contiguous()   # a tensor of its own
    g = ember.tensor([1.0, 2.0], requires_grad=True)
    assert pickle.loads(pickle.dumps(g)).requires_grad
    p = ember.nn.Parameter(ember.tensor([1.0, 2.0]))
    q = pickle.loads(pickle.dumps(p))
    assert isinstance(q, ember.nn.Parameter) and q.requires_grad and q.tolist() == [1.0, 2.0]
    p2 = ember.nn.Parameter(ember.tensor([1.0]), requires_grad=False)
    assert not pickle.loads(pickle.dumps(p2)).requires_grad
    empty = pickle.loads(pickle.dumps(ember.zeros(0, 3)))
    assert empty.shape == (0, 3)
    m = pickle.loads(pickle.dumps({"w": base, "n": 3}))
    assert m["w"].tolist() == base.tolist()


def test_deepcopy():
    t = ember.tensor([1.0, 2.0], requires_grad=True)
    c = copy.deepcopy(t)
    assert c.tolist() == [1.0, 2.0] and c.requires_grad and c.data_ptr() != t.data_ptr()
    p = ember.nn.Parameter(ember.tensor([3.0]))
    cp = copy.deepcopy(p)
    assert isinstance(cp, ember.nn.Parameter) and cp.tolist() == [3.0]


@pytest.mark.gpu
def test_pickle_cuda(torch):
    t = ember.tensor([1.0, 2.0], device="cuda")
    u = pickle.loads(pickle.dumps(t))
    assert u.is_cuda and u.tolist() == [1.0, 2.0]
    p = pickle.loads(pickle.dumps(ember.nn.Parameter(t)))
    assert p.is_cuda and isinstance(p, ember.nn.Parameter)
