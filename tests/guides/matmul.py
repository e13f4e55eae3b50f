"""Matrix multiplication on the GPU and the result back on the CPU."""
import argparse

import numpy as np
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--n", type=int, default=256)
args = parser.parse_args()
device = "cuda" if torch.cuda.is_available() else "cpu"

rng = np.random.default_rng(1)
a = torch.from_numpy(rng.standard_normal((args.n, args.n), dtype=np.float32)).to(device)
b = torch.from_numpy(rng.standard_normal((args.n, args.n), dtype=np.float32)).to(device)
c = torch.matmul(a, b)
back = c.cpu()
print(f"device_ok = {int(c.device.type == device and back.device.type == 'cpu')}")
print(f"sum = {back.double().sum().item():.10e}")
print(f"abs_sum = {back.double().abs().sum().item():.10e}")
print(f"c00 = {back[0, 0].item():.10e}")
print(f"c_last = {back[-1, -1].item():.10e}")
