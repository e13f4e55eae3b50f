"""A small typed program using ember as a user would, with torch's spellings.

tests/test_typing.py runs mypy (strict) over it: every ``assert_type`` must hold
and nothing may be reported. It also runs it, so that what the stubs promise is
what ember does (on the CPU; the CUDA part where a GPU is present).
"""
import sys
from typing import Any, Optional, Union

import numpy as np
import numpy.typing as npt

if sys.version_info >= (3, 11):
    from typing import assert_type
else:
    from typing_extensions import assert_type

import ember
import ember.nn as nn
import ember.nn.functional as F

Number = Union[int, float, bool]

# ---- creation ---------------------------------------------------------------
x = ember.zeros(3) + 1
assert_type(x, ember.Tensor)
assert_type(ember.zeros(3) + 1, ember.Tensor)
assert_type(ember.zeros((2, 3), dtype=ember.float64, device="cpu"), ember.Tensor)
assert_type(ember.ones(2, 3, requires_grad=True), ember.Tensor)
assert_type(ember.empty(4), ember.Tensor)
assert_type(ember.full((2, 2), 7.0), ember.Tensor)
assert_type(ember.arange(10), ember.Tensor)
assert_type(ember.arange(0, 1, 0.25), ember.Tensor)
assert_type(ember.linspace(0, 1, steps=5), ember.Tensor)
assert_type(ember.eye(3), ember.Tensor)
assert_type(ember.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=ember.float32), ember.Tensor)
assert_type(ember.zeros_like(x), ember.Tensor)
assert_type(ember.ones_like(x, dtype=ember.int64), ember.Tensor)
assert_type(ember.full_like(x, 2), ember.Tensor)
assert_type(ember.rand(2, 3), ember.Tensor)
assert_type(ember.randn((2, 3)), ember.Tensor)
assert_type(ember.randn(size=(2, 3)), ember.Tensor)
assert_type(ember.randint(0, 10, (4,)), ember.Tensor)
assert_type(ember.randint(10, size=(4,)), ember.Tensor)
assert_type(ember.rand_like(x), ember.Tensor)
assert_type(ember.cat([x, x]), ember.Tensor)
assert_type(ember.stack((x, x), dim=1), ember.Tensor)
gen = ember.Generator().manual_seed(0)
assert_type(ember.randn(3, generator=gen), ember.Tensor)
assert_type(ember.manual_seed(0), ember.Generator)

# ---- arithmetic and operators -----------------------------------------------
assert_type(1 + x, ember.Tensor)
assert_type(2.0 * x - x / 3, ember.Tensor)
assert_type(x ** 2 + 2 ** x, ember.Tensor)
assert_type(x // 2 % 3, ember.Tensor)
assert_type(-x, ember.Tensor)
assert_type(abs(x), ember.Tensor)
assert_type(x @ x, ember.Tensor)
assert_type(x > 0, ember.Tensor)
assert_type(x == 1, ember.Tensor)
assert_type((x > 0) & (x < 2), ember.Tensor)
assert_type(~(x > 0), ember.Tensor)
y = x.clone()
y += 1
y *= x
assert_type(y, ember.Tensor)
assert_type(y.add_(1, alpha=2), ember.Tensor)

# ---- math functions and methods ---------------------------------------------
assert_type(ember.exp(x), ember.Tensor)
assert_type(ember.add(x, 1, alpha=2), ember.Tensor)
assert_type(ember.div(x, 2, rounding_mode="floor"), ember.Tensor)
assert_type(ember.where(x > 1, x, 0.0), ember.Tensor)
assert_type(ember.clamp(x, min=0.0), ember.Tensor)
assert_type(ember.sum(x, dim=0), ember.Tensor)
assert_type(x.mean(), ember.Tensor)
assert_type(x.sqrt().sin().sum(dim=(0,), keepdim=True), ember.Tensor)
assert_type(x.softmax(0), ember.Tensor)
assert_type(ember.matmul(x, x), ember.Tensor)
m = ember.ones(2, 3).max(dim=1)
assert_type(m.values, ember.Tensor)
values, indices = ember.ones(2, 3).min(1)
assert_type(indices, ember.Tensor)
assert_type(x.max(), ember.Tensor)
item = x.sum().item()
assert_type(item, Number)
total: float = float(x.sum())

# ---- shapes, views, indexing, iteration ---------------------------------------
b = ember.randn(2, 3)
assert_type(b.shape, ember.Size)
assert_type(b.shape[0], int)
assert_type(b.size(), ember.Size)
assert_type(b.size(1), int)
assert_type(b.ndim, int)
assert_type(b.dtype, ember.dtype)
assert_type(b.device, ember.device)
assert_type(b.is_cuda, bool)
assert_type(len(b), int)
assert_type(b.T, ember.Tensor)
assert_type(b.view(3, 2), ember.Tensor)
assert_type(b.reshape(-1), ember.Tensor)
assert_type(ember.reshape(b, (3, 2)), ember.Tensor)
assert_type(b.unsqueeze(0).permute(1, 0, 2), ember.Tensor)
assert_type(b.split(1), tuple[ember.Tensor, ...])
assert_type(b[0], ember.Tensor)
assert_type(b[:, 1:], ember.Tensor)
assert_type(b[..., None], ember.Tensor)
assert_type(b[b > 0], ember.Tensor)
b[0] = 1.0
b[:, 0] = ember.zeros(2)
for row in b:
    assert_type(row, ember.Tensor)

# ---- dtypes and devices -------------------------------------------------------
assert_type(ember.float32, ember.dtype)
assert_type(ember.get_default_dtype(), ember.dtype)
assert_type(ember.finfo(ember.float16).eps, float)
assert_type(b.to(ember.float64), ember.Tensor)
assert_type(b.to("cpu"), ember.Tensor)
assert_type(b.to(ember.device("cpu"), non_blocking=True), ember.Tensor)
assert_type(b.double().int().float(), ember.Tensor)
assert_type(ember.device("cpu").type, str)

# ---- NumPy interop --------------------------------------------------------------
a = np.arange(6, dtype=np.float32).reshape(2, 3)
t = ember.from_numpy(a)
assert_type(t, ember.Tensor)
assert_type(t.numpy(), npt.NDArray[Any])
assert_type(np.asarray(t), npt.NDArray[Any])
assert_type(ember.as_tensor(a), ember.Tensor)
assert_type(t.tolist(), Any)

# ---- autograd -------------------------------------------------------------------
w = ember.ones(3, requires_grad=True)
loss = (w * 2).sum()
loss.backward()
assert_type(w.grad, Optional[ember.Tensor])
assert w.grad is not None
assert_type(w.grad, ember.Tensor)
with ember.no_grad():
    w.sub_(0.1 * w.grad)
assert_type(w.detach().requires_grad_(), ember.Tensor)



# ---- a small model ------------------------------------------------------------
class MLP(nn.Module):
    def __init__(self, n_in: int, n_hidden: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(n_in, n_hidden)
        self.fc2 = nn.Linear(n_hidden, 1)

    def forward(self, v: ember.Tensor) -> ember.Tensor:
        h: ember.Tensor = F.relu(self.fc1(v))
        out: ember.Tensor = self.fc2(h)
        return out


def train_step(model: MLP, opt: ember.optim.SGD, batch: ember.Tensor,
               target: ember.Tensor) -> float:
    opt.zero_grad()
    loss = F.mse_loss(model(batch), target)
    loss.backward()
    opt.step()
    return float(loss.item())


model = MLP(3, 8)
sgd = ember.optim.SGD(model.parameters(), lr=0.1)
print("loss", train_step(model, sgd, ember.randn(4, 3), ember.zeros(4, 1)))

# ---- CUDA: streams and events (run only where a GPU is) ---------------------------
if ember.cuda.is_available():
    g = x.to("cuda")
    assert_type(g, ember.Tensor)
    assert_type(x.cuda(), ember.Tensor)
    s = ember.cuda.Stream()
    assert_type(s, ember.cuda.Stream)
    start, end = ember.cuda.Event(enable_timing=True), ember.cuda.Event(enable_timing=True)
    with ember.cuda.stream(s):
        start.record()
        g = g * 2
        end.record()
    end.synchronize()
    assert_type(start.elapsed_time(end), float)
    assert_type(ember.cuda.current_stream(), ember.cuda.Stream)
    assert_type(ember.cuda.memory_allocated(), int)
