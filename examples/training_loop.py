"""Training a small MLP with MSELoss and SGD over a DataLoader.

    python examples/training_loop.py [--samples 4096] [--epochs 5] [--batch-size 64]

The guides' training loop: a TensorDataset of inputs and targets, a shuffling
DataLoader, a model on the device, and per batch zero_grad / forward / loss /
backward / step. The targets come from a fixed random linear map plus noise,
so the loss must fall; the script checks that it does.
"""
import argparse

import ember
import ember.nn as nn
from ember.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--samples", type=int, default=4096)
parser.add_argument("--epochs", type=int, default=5)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--lr", type=float, default=0.05)
args = parser.parse_args()

device = "cuda" if ember.cuda.is_available() else "cpu"
print(f"using {device}")
ember.manual_seed(0)

# Data: y = x @ w_true + noise, built on the CPU (a DataLoader reads host memory).
x = ember.randn(args.samples, 32)
w_true = ember.randn(32, 4)
y = x @ w_true + 0.01 * ember.randn(args.samples, 4)
loader = DataLoader(TensorDataset(x, y), batch_size=args.batch_size, shuffle=True,
                    generator=ember.Generator().manual_seed(0),
                    pin_memory=(device == "cuda"))       # pinned: fast, async copies

model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4)).to(device)
loss_fn = nn.MSELoss()
optimizer = ember.optim.SGD(model.parameters(), lr=args.lr)

losses = []
for epoch in range(args.epochs):
    total = ember.zeros((), device=device)   # summed on the device: no sync per batch
    for xb, yb in loader:
        xb = xb.to(device, non_blocking=True)
        yb = yb.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.detach() * xb.shape[0]
    losses.append(total.item() / args.samples)  # one sync per epoch
    print(f"epoch {epoch}: mean loss {losses[-1]:.5f}")

assert losses[-1] < losses[0], "the loss did not fall"
print(f"loss fell from {losses[0]:.5f} to {losses[-1]:.5f}")
