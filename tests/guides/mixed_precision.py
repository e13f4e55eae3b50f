"""Mixed-precision training with autocast and GradScaler."""
import argparse

import numpy as np
import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--samples", type=int, default=128)
parser.add_argument("--steps", type=int, default=8)
args = parser.parse_args()
device = "cuda" if torch.cuda.is_available() else "cpu"
amp_dtype = torch.float16 if device == "cuda" else torch.bfloat16

rng = np.random.default_rng(5)
x = torch.from_numpy(rng.standard_normal((args.samples, 16), dtype=np.float32)).to(device)
y = torch.from_numpy(rng.standard_normal((args.samples, 4), dtype=np.float32)).to(device)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape), dtype=np.float32) * 0.2))
model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
scaler = torch.amp.GradScaler(device, init_scale=1024.0, enabled=(device == "cuda"))
loss_fn = nn.MSELoss()

for step in range(args.steps):
    optimizer.zero_grad()
    with torch.autocast(device_type=device, dtype=amp_dtype):
        out = model(x)
        loss = loss_fn(out.float(), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    print(f"loss_{step} = {loss.item():.10e}")
print(f"out_is_amp = {int(out.dtype == amp_dtype)}")
print(f"params_fp32 = {int(all(p.dtype == torch.float32 for p in model.parameters()))}")
print(f"w_sum = {sum(p.detach().double().sum().item() for p in model.parameters()):.10e}")
