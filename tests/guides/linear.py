"""An nn.Linear model moved to the GPU, and its forward pass."""
import argparse

import numpy as np
import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--batch", type=int, default=64)
parser.add_argument("--features", type=int, default=784)
parser.add_argument("--classes", type=int, default=10)
args = parser.parse_args()
device = "cuda" if torch.cuda.is_available() else "cpu"

rng = np.random.default_rng(2)
model = nn.Linear(args.features, args.classes)
with torch.no_grad():
    model.weight.copy_(torch.from_numpy(
        rng.standard_normal((args.classes, args.features), dtype=np.float32) * 0.05))
    model.bias.copy_(torch.from_numpy(rng.standard_normal(args.classes, dtype=np.float32)))
model = model.to(device)
x = torch.from_numpy(rng.standard_normal((args.batch, args.features), dtype=np.float32))
out = model(x.to(device))
print(f"on_device = {int(out.device.type == device and model.weight.device.type == device)}")
print(f"requires_grad = {int(out.requires_grad)}")
print(f"sum = {out.double().sum().item():.10e}")
print(f"abs_sum = {out.double().abs().sum().item():.10e}")
print(f"out00 = {out[0, 0].item():.10e}")
print(f"argmax_sum = {out.argmax(dim=1).sum().item()}")
