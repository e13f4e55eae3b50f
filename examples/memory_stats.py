"""Memory you can see: statistics, an out-of-memory error and how to recover,
and the device-mismatch error.

    python examples/memory_stats.py

The debugging section of the guides, on ember:
1. memory_allocated() counts the bytes tensors use; memory_reserved() what
   the caching allocator holds from CUDA (freed blocks stay cached for reuse
   until empty_cache()); memory_summary() prints the table;
   reset_peak_memory_stats() / max_memory_allocated() give a step's peak and
   memory_stats() every counter (torch's keys).
2. Asking for more memory than the GPU has raises ember.cuda.OutOfMemoryError
   (a RuntimeError) with torch's message; nothing leaks and the process goes on.
3. A CPU tensor and a CUDA tensor in one operation raise a RuntimeError that
   names both devices; move one of them with .to(device).
Without a GPU there is no CUDA memory to watch: the script says so.
"""
import ember

device = "cuda" if ember.cuda.is_available() else "cpu"
print(f"using {device}")

MiB = 2**20


def show(what):
    print(f"{what:<40} allocated {ember.cuda.memory_allocated() / MiB:8.1f} MiB, "
          f"reserved {ember.cuda.memory_reserved() / MiB:8.1f} MiB")


if device == "cpu":
    x = ember.zeros(64 * MiB // 4)
    print(f"a CPU tensor of {x.nbytes / MiB:.0f} MiB lives in ordinary host memory: "
          "CUDA memory statistics, out-of-memory errors and device mismatches need a GPU")
    raise SystemExit(0)

# 1. Statistics ---------------------------------------------------------------
show("start")
x = ember.empty(256 * MiB // 4, device=device)         # 256 MiB of float32
show("after a 256 MiB tensor")
del x
show("after del (memory stays cached)")
ember.cuda.empty_cache()
show("after empty_cache()")
y = ember.ones(1024, 1024, device=device)
print(ember.cuda.memory_summary(abbreviated=True))

# Peaks: reset, run a step, read the high-water mark (what a batch size must fit in).
ember.cuda.reset_peak_memory_stats()
tmp = (y @ y).sum()                                   # a 4 MiB temporary, then freed
peak = ember.cuda.max_memory_allocated()
stats = ember.cuda.memory_stats()                     # torch's keys, read in O(1)
print(f"peak during y @ y: {peak / MiB:.1f} MiB; "
      f"allocations so far: {stats['allocation.all.allocated']}, "
      f"cudaMalloc retries: {stats['num_alloc_retries']}")
assert peak >= ember.cuda.memory_allocated() + 4 * MiB - 512

# 2. Out of memory, and recovering ----------------------------------------------
free, total = ember.cuda.mem_get_info()
before = ember.cuda.memory_allocated()
try:
    huge = ember.empty(2 * total // 4, device=device)  # twice the GPU's memory
except ember.cuda.OutOfMemoryError as e:
    print(f"OutOfMemoryError: {str(e).splitlines()[0]}")
    print(f"  requested {e.requested / 2**30:.1f} GiB, the GPU has {e.gpu_total / 2**30:.1f} GiB")
assert ember.cuda.memory_allocated() == before   # nothing leaked
show("after the failed allocation")
print(f"out-of-memory errors counted by the allocator: {ember.cuda.memory_stats()['num_ooms']}")
z = ember.zeros(1024, device=device)              # and the GPU still works
print(f"a new tensor after the error: {z.device}, sum of y = {int(y.cpu().numpy().sum())}")

# 3. Device mismatch ---------------------------------------------------------------
cpu_t = ember.ones(3)
gpu_t = ember.ones(3, device=device)
try:
    ember.cat([cpu_t, gpu_t])
except RuntimeError as e:
    print(f"RuntimeError: {e}")
fixed = ember.cat([cpu_t.to(device), gpu_t])      # the fix: move one of them
print(f"after .to(device): {fixed.tolist()} on {fixed.device}")
