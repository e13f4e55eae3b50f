"""An MLP trained with MSELoss and SGD over a DataLoader."""
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--samples", type=int, default=256)
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--lr", type=float, default=0.05)
args = parser.parse_args()
device = "cuda" if torch.cuda.is_available() else "cpu"

rng = np.random.default_rng(3)
x = rng.standard_normal((args.samples, 16), dtype=np.float32)
y = (x @ rng.standard_normal((16, 4), dtype=np.float32)).astype(np.float32)
w1 = rng.standard_normal((32, 16), dtype=np.float32) * 0.25
b1 = rng.standard_normal(32, dtype=np.float32) * 0.1
w2 = rng.standard_normal((4, 32), dtype=np.float32) * 0.25
b2 = rng.standard_normal(4, dtype=np.float32) * 0.1

model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
with torch.no_grad():
    for p, v in zip(model.parameters(), (w1, b1, w2, b2)):
        p.copy_(torch.from_numpy(v))
model.to(device)
loader = DataLoader(TensorDataset(torch.from_numpy(x), torch.from_numpy(y)),
                    batch_size=args.batch_size, shuffle=False)
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)

for epoch in range(args.epochs):
    total = 0.0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item()
    print(f"loss_{epoch} = {total / len(loader):.10e}")
print(f"w_sum = {sum(p.detach().double().sum().item() for p in model.parameters()):.10e}")
