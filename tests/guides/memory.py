"""Memory statistics, an out-of-memory error and recovering, the device-mismatch error."""
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
if device == "cpu":
    print("gpu = 0")
    raise SystemExit(0)

torch.cuda.synchronize()
before = torch.cuda.memory_allocated()
x = torch.empty(1 << 18, device=device)              # 1 MiB of float32
print(f"allocated_delta = {torch.cuda.memory_allocated() - before}")
print(f"reserved_covers = {int(torch.cuda.memory_reserved() >= torch.cuda.memory_allocated())}")
del x
print(f"freed_delta = {torch.cuda.memory_allocated() - before}")
torch.cuda.reset_peak_memory_stats()
y = torch.ones(1 << 18, device=device)
print(f"peak_covers = {int(torch.cuda.max_memory_allocated() >= before + (1 << 20))}")
print(f"stats_has_keys = {int('allocated_bytes.all.current' in torch.cuda.memory_stats())}")
free, total = torch.cuda.mem_get_info()
try:
    torch.empty(total, device=device)                # 4 x the GPU's memory
    print("oom = 0")
except torch.cuda.OutOfMemoryError as e:
    print(f"oom = {int(isinstance(e, RuntimeError) and 'out of memory' in str(e))}")
print(f"recovered = {int(torch.ones(4, device=device).sum().item() == 4)}")
try:
    torch.ones(3) + y[:3]
    print("mismatch = 0")
except RuntimeError as e:
    print(f"mismatch = {int('cuda' in str(e) and 'cpu' in str(e))}")
print(f"fixed = {(torch.ones(3).to(device) + y[:3]).sum().item():.1f}")
