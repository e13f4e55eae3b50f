"""Mixed-precision training with autocast and GradScaler.

    python examples/mixed_precision.py [--samples 2048] [--epochs 3] [--batch-size 64]

The guides' recipe: under ember.autocast the matrix products of the forward
pass run in float16 (bfloat16 on the CPU) while the parameters, the loss and
the optimizer stay in float32; GradScaler multiplies the loss before backward
so that small float16 gradients do not flush to zero, unscales them before
the step, skips steps whose gradients overflowed and adapts the scale.
"""
import argparse

import ember
import ember.nn as nn
from ember.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--samples", type=int, default=2048)
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--batch-size", type=int, default=64)
args = parser.parse_args()

device = "cuda" if ember.cuda.is_available() else "cpu"
print(f"using {device}")
amp_dtype = ember.float16 if device == "cuda" else ember.bfloat16
ember.manual_seed(0)

x = ember.randn(args.samples, 64)
y = (x[:, :8] * 2.0).tanh()                          # a smooth target to learn
loader = DataLoader(TensorDataset(x, y), batch_size=args.batch_size, shuffle=True,
                    generator=ember.Generator().manual_seed(0))

model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 8)).to(device)
optimizer = ember.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.MSELoss()
# The scaler matters for float16 on the GPU; bfloat16 has float32's range.
scaler = ember.amp.GradScaler(device, enabled=(device == "cuda"))

losses = []
for epoch in range(args.epochs):
    total = 0.0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        with ember.autocast(device_type=device, dtype=amp_dtype):
            out = model(xb)                 # Linear layers compute in amp_dtype
            loss = loss_fn(out.float(), yb)  # the loss in float32
        scaler.scale(loss).backward()       # scaled gradients
        scaler.step(optimizer)              # unscales; skips the step on inf/NaN
        scaler.update()                     # adapts the scale
        total += loss.item() * xb.shape[0]
    losses.append(total / args.samples)
    print(f"epoch {epoch}: mean loss {losses[-1]:.5f}, output dtype {out.dtype}, "
          f"scale {scaler.get_scale() if scaler.is_enabled() else 1.0:g}")

assert out.dtype == amp_dtype and model[0].weight.dtype == ember.float32
assert losses[-1] < losses[0], "the loss did not fall"
print(f"loss fell from {losses[0]:.5f} to {losses[-1]:.5f}")
