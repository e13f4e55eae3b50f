"""x**2 + x**3**x.sin()**x.cos() + x.tan(), on one stream and on two streams."""
import argparse
import contextlib

import numpy as np
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--n", type=int, default=1 << 20)
args = parser.parse_args()
device = "cuda" if torch.cuda.is_available() else "cpu"

x = torch.from_numpy(np.random.default_rng(0).random(args.n, dtype=np.float32)).to(device)


def heavy(t):
    return t**2 + t**3**t.sin()**t.cos() + t.tan()


one = heavy(x)
halves = [x[: args.n // 2], x[args.n // 2:]]
if device == "cuda":
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    main = torch.cuda.current_stream()
    outs = []
    for s, h in zip(streams, halves):
        s.wait_stream(main)
        with torch.cuda.stream(s):
            outs.append(heavy(h))
    for s, o in zip(streams, outs):
        main.wait_stream(s)
        o.record_stream(main)
else:
    with contextlib.nullcontext():
        outs = [heavy(h) for h in halves]
two = torch.cat(outs)
print(f"sum = {one.double().sum().item():.10e}")
print(f"max = {one.max().item():.10e}")
print(f"first = {one[0].item():.10e}")
print(f"two_streams_sum = {two.double().sum().item():.10e}")
print(f"streams_equal = {int((one == two).all().item())}")
