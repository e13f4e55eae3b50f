"""Two Conv2d + ReLU branches on their own streams, joined with wait_stream."""
import argparse
import contextlib

import numpy as np
import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--batch", type=int, default=4)
parser.add_argument("--size", type=int, default=16)
args = parser.parse_args()
device = "cuda" if torch.cuda.is_available() else "cpu"

rng = np.random.default_rng(4)
branches = []
for _ in range(2):
    conv = nn.Conv2d(3, 64, 3, padding=1)
    with torch.no_grad():
        conv.weight.copy_(torch.from_numpy(rng.standard_normal((64, 3, 3, 3), dtype=np.float32)
                                           * 0.2))
        conv.bias.copy_(torch.from_numpy(rng.standard_normal(64, dtype=np.float32) * 0.1))
    branches.append(nn.Sequential(conv, nn.ReLU()).to(device))
x = torch.from_numpy(rng.standard_normal((args.batch, 3, args.size, args.size),
                                         dtype=np.float32)).to(device)

if device == "cuda":
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    main = torch.cuda.current_stream()
    for s in streams:
        s.wait_stream(main)
    with torch.cuda.stream(streams[0]):
        a = branches[0](x)
    with torch.cuda.stream(streams[1]):
        b = branches[1](x)
    for s, t in zip(streams, (a, b)):
        main.wait_stream(s)
        t.record_stream(main)
else:
    with contextlib.nullcontext():
        a, b = branches[0](x), branches[1](x)
out = a + b
print(f"shape = {'x'.join(str(d) for d in out.shape)}")
print(f"sum = {out.double().sum().item():.10e}")
print(f"abs_max = {out.abs().max().item():.10e}")
print(f"out0 = {out[0, 0, 0, 0].item():.10e}")
print(f"out_last = {out[-1, -1, -1, -1].item():.10e}")
