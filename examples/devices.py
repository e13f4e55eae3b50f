"""Which device to use, and what it is: the first step of every guide.

    python examples/devices.py

Runs unchanged with `import torch` in place of `import ember as torch`.
"""
import ember as torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"using {device}")

if device.type == "cuda":
    for i in range(torch.cuda.device_count()):
        props = torch.cuda.get_device_properties(i)
        free, total = torch.cuda.mem_get_info(i)
        print(f"cuda:{i}: {props.name}, compute capability {props.major}.{props.minor}, "
              f"{props.multi_processor_count} SMs, {free / 2**30:.1f} of {total / 2**30:.1f} GiB free")
    # Work on another device for a block, then come back.
    with torch.cuda.device(0):
        torch.cuda.synchronize()
    print(f"current device: cuda:{torch.cuda.current_device()}")
