"""Data loading that overlaps compute: pinned batches copied on a side stream.

    python examples/data_loading_overlap.py [--batches 8] [--mib 64]

The guides' pattern, step by step:
1. a DataLoader with pin_memory=True hands out batches in pinned (page-locked)
   host memory; a background thread prepares the next ones while we work;
2. each batch is copied to the GPU with non_blocking=True on a side stream, so
   the host does not wait and the copy engine works while the SMs compute;
3. the compute stream waits for the copy with wait_stream (on the GPU, not the
   host), and record_stream tells the allocator the batch is used there;
4. timing with CUDA events: copying then computing one batch after the other,
   against copying batch i+1 while batch i is computed.
"Compute" here is a GPU busy-loop (ember.cuda._sleep) calibrated to last as
long as one copy, plus a device-to-device copy that reads the batch.
Without a GPU the same loop runs on the CPU, with nothing to overlap.
"""
import argparse
import time

import ember
from ember.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--batches", type=int, default=8)
parser.add_argument("--mib", type=int, default=64, help="MiB per batch (on the GPU)")
args = parser.parse_args()

device = "cuda" if ember.cuda.is_available() else "cpu"
print(f"using {device}")

# A dataset of rows of 1024 float32 (4 KiB each), held in ordinary host memory.
mib = args.mib if device == "cuda" else 1
rows = mib * 2**20 // 4096
features = ember.arange(args.batches * rows * 1024, dtype=ember.float32).reshape(-1, 1024)
labels = ember.arange(args.batches * rows)
loader = DataLoader(TensorDataset(features, labels), batch_size=rows,
                    pin_memory=(device == "cuda"))

# 1. Load every batch (pinned on the GPU machine) before timing the GPU loop.
t0 = time.perf_counter()
batches = [x for x, _ in loader]
load_s = time.perf_counter() - t0
print(f"loaded {len(batches)} batches of {mib} MiB in {load_s * 1e3:.1f} ms "
      f"(pinned: {batches[0].is_pinned()})")

if device == "cpu":
    # No streams on the CPU: copying and "computing" simply follow each other.
    t0 = time.perf_counter()
    total = 0.0
    for x in batches:
        y = x.to(device)            # a no-op on the CPU: already there
        total += float(y[0, 0])     # stands in for compute
    print(f"cpu loop: {(time.perf_counter() - t0) * 1e3:.2f} ms "
          "(no GPU: nothing to overlap)")
    raise SystemExit(0)

main = ember.cuda.current_stream()
side = ember.cuda.Stream()
work = ember.empty(rows, 1024, device=device)  # the compute's output buffer


def elapsed_ms(fn, stream):
    """GPU time of the work fn() queues, measured with events on `stream`."""
    start, end = ember.cuda.Event(enable_timing=True), ember.cuda.Event(enable_timing=True)
    start.record(stream)
    fn()
    end.record(stream)
    end.synchronize()
    return start.elapsed_time(end)


# Calibrate: how long one copy takes, and how many _sleep cycles last that long.
gpu_batch = ember.empty(rows, 1024, device=device)
gpu_batch.copy_(batches[0], non_blocking=True)      # warm up the copy path
ember.cuda._sleep(1000)
ember.cuda.synchronize()
copy_ms = min(elapsed_ms(lambda: gpu_batch.copy_(batches[0], non_blocking=True), main)
              for _ in range(3))
sleep_ms = elapsed_ms(lambda: ember.cuda._sleep(1_000_000), main)
cycles = int(1_000_000 * copy_ms / sleep_ms)


def compute(x):
    """Stands in for a model's forward pass: busy for about one copy's time,
    then reads the batch (device-to-device copy)."""
    ember.cuda._sleep(cycles)
    work.copy_(x)


def serial():
    # Copy, then compute, all on the compute stream: the GPU does one thing at a time.
    for x in batches:
        gpu_batch.copy_(x, non_blocking=True)
        compute(gpu_batch)


def overlapped():
    # Copy batch i+1 on the side stream while batch i is computed.
    side.wait_stream(main)            # (start after the timing event on main)
    with ember.cuda.stream(side):
        nxt = batches[0].to(device, non_blocking=True)
    for i in range(len(batches)):
        main.wait_stream(side)        # the copy of batch i is done before compute uses it
        cur = nxt
        cur.record_stream(main)       # its memory is in use on `main` too
        if i + 1 < len(batches):
            with ember.cuda.stream(side):
                nxt = batches[i + 1].to(device, non_blocking=True)
        compute(cur)


overlapped()  # warm-up: allocations of the side stream's buffers
ember.cuda.synchronize()
t_serial = elapsed_ms(serial, main)
t_overlap = elapsed_ms(overlapped, main)
print(f"one copy of {mib} MiB: {copy_ms:.2f} ms ({mib / 1024 / copy_ms * 1e3:.1f} GiB/s); "
      f"compute per batch: about the same")
print(f"serial (copy + compute): {t_serial:.2f} ms")
print(f"overlapped (side-stream copies): {t_overlap:.2f} ms")
print(f"(copy + compute) / overlapped = {t_serial / t_overlap:.2f}x "
      f"(at most 2x when copy and compute take the same time)")
