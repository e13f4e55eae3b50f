"""A two-branch convolutional model, each branch on its own CUDA stream.

    python examples/two_branch_streams.py [--batch 64] [--size 256] [--repeat 5]

(Without a GPU the defaults are smaller: --batch 4 --size 64.)

The guides' stream example: two independent branches (Conv2d(3, 64, 3,
padding=1) + ReLU each) read the same input; each runs on its own stream so
that their kernels may overlap, and the current stream waits for both with
wait_stream before adding the results (out = a + b). It is timed against the
same forward pass on one stream and checked to give the same output.
Without a GPU the branches run one after the other on the CPU.
"""
import argparse
import contextlib
import time

import ember
import ember.nn as nn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--batch", type=int, default=None, help="default 64 on the GPU, 4 on the CPU")
parser.add_argument("--size", type=int, default=None,
                    help="images are 3 x size x size; default 256 on the GPU, 64 on the CPU")
parser.add_argument("--repeat", type=int, default=5)
args = parser.parse_args()

device = "cuda" if ember.cuda.is_available() else "cpu"
print(f"using {device}")
if args.batch is None:
    args.batch = 64 if device == "cuda" else 4
if args.size is None:
    args.size = 256 if device == "cuda" else 64


class TwoBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.branch_a = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.ReLU())
        self.branch_b = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.ReLU())
        if device == "cuda":
            self.streams = (ember.cuda.Stream(), ember.cuda.Stream())

    def forward(self, x, use_streams=True):
        if device != "cuda" or not use_streams:
            return self.branch_a(x) + self.branch_b(x)
        main = ember.cuda.current_stream()
        sa, sb = self.streams
        sa.wait_stream(main)           # x was produced on the main stream
        sb.wait_stream(main)
        with ember.cuda.stream(sa):
            a = self.branch_a(x)
        with ember.cuda.stream(sb):
            b = self.branch_b(x)
        main.wait_stream(sa)           # join: the main stream waits for both branches
        main.wait_stream(sb)
        a.record_stream(main)          # a and b are used (and freed) on the main stream
        b.record_stream(main)
        x.record_stream(sa)            # x is read on the side streams
        x.record_stream(sb)
        return a + b


ember.manual_seed(0)
model = TwoBranch().to(device)
x = ember.randn(args.batch, 3, args.size, args.size, device=device)


def best_ms(fn):
    best = float("inf")
    for _ in range(args.repeat):
        if device == "cuda":
            ember.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        if device == "cuda":
            ember.cuda.synchronize()
        best = min(best, (time.perf_counter() - t0) * 1e3)
    return best


with ember.no_grad():
    out = model(x)                                   # warm-up
    one = best_ms(lambda: model(x, use_streams=False))
    two = best_ms(lambda: model(x))
    same = (model(x) - model(x, use_streams=False)).abs().max().item() <= 1e-5
print(f"output {tuple(out.shape)} on {out.device}")
print(f"batch {args.batch} of 3x{args.size}x{args.size}: one stream {one:.2f} ms, "
      f"two streams {two:.2f} ms; same output: {same}")
assert same
