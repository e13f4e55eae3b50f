"""Batches in pinned memory copied on a side stream (non_blocking) while the
current stream computes."""
import argparse

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--rows", type=int, default=512)
parser.add_argument("--batch-size", type=int, default=64)
args = parser.parse_args()
device = "cuda" if torch.cuda.is_available() else "cpu"

data = np.random.default_rng(6).standard_normal((args.rows, 128), dtype=np.float32)
loader = DataLoader(TensorDataset(torch.from_numpy(data)), batch_size=args.batch_size,
                    pin_memory=(device == "cuda"))
side = torch.cuda.Stream() if device == "cuda" else None
total = torch.zeros((), dtype=torch.float64, device=device)
pinned = 0
for (batch,) in loader:
    pinned += int(batch.is_pinned())
    if side is not None:
        with torch.cuda.stream(side):
            gpu = batch.to(device, non_blocking=True)
        torch.cuda.current_stream().wait_stream(side)
        gpu.record_stream(torch.cuda.current_stream())
    else:
        gpu = batch.to(device)
    total += (gpu * gpu).sum().double()
print(f"sum_sq = {total.item():.10e}")
print(f"batches = {len(loader)}")
print(f"all_pinned = {int(pinned == len(loader)) if device == 'cuda' else 1}")
