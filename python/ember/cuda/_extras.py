"""torch.cuda's remaining names: the deprecated memory aliases, capability questions
(is_bf16_supported, get_arch_list...), and NVML's readings of a GPU (utilization,
temperature, power, clocks, processes) -- NVML is opened lazily and answers without
initialising CUDA."""
import os
import warnings

from ember import _C

_c = _C.cuda

# ---- deprecated memory aliases (torch's warnings) ------------------------------------------


def reset_max_memory_allocated(device=None):
    """Deprecated: resets all peak statistics (ember.cuda.reset_peak_memory_stats)."""
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls "
                  "torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                  FutureWarning, stacklevel=2)
    return _c.reset_peak_memory_stats(device)


def reset_max_memory_cached(device=None):
    """Deprecated: resets all peak statistics (ember.cuda.reset_peak_memory_stats)."""
    warnings.warn("torch.cuda.reset_max_memory_cached now calls "
                  "torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                  FutureWarning, stacklevel=2)
    return _c.reset_peak_memory_stats(device)


def memory_cached(device=None):
    """Deprecated name of ember.cuda.memory_reserved."""
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
                  FutureWarning, stacklevel=2)
    return _c.memory_reserved(device)


def max_memory_cached(device=None):
    """Deprecated name of ember.cuda.max_memory_reserved."""
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to "
                  "`torch.cuda.max_memory_reserved`", FutureWarning, stacklevel=2)
    return _c.max_memory_reserved(device)


# ---- what the GPU and the build support -----------------------------------------------------

has_half = True    # torch's legacy constants: float16 is supported everywhere,
has_magma = False  # and ember's linear algebra does not use MAGMA


def is_bf16_supported(including_emulation=True):
    """True when the current GPU computes in bfloat16 (compute capability 8.0 or newer);
    False without a GPU. ember has no emulated bfloat16 on older GPUs."""
    if not _c.is_available():
        return False
    return _c.get_device_capability(_c.current_device())[0] >= 8


def is_tf32_supported():
    """True when the current GPU has TF32 tensor cores (compute capability 8.0 or newer)."""
    return is_bf16_supported(including_emulation=False)


def get_arch_list():
    """The architectures this build holds code for ('sm_90', and 'compute_90' for PTX);
    [] without a GPU, as torch's."""
    if not _c.is_available():
        return []
    out = []
    for arch in _c._arch_flags.split():
        num, _, kind = arch.partition("-")
        if kind in ("", "real"):
            out.append(f"sm_{num}")
        if kind in ("", "virtual"):
            out.append(f"compute_{num}")
    return out


def get_gencode_flags():
    """nvcc's -gencode flags for get_arch_list()."""
    archs = [a.split("_") for a in get_arch_list()]
    return " ".join(f"-gencode compute=compute_{num},code={kind}_{num}" for kind, num in archs)


can_device_access_peer = _c.can_device_access_peer

# ---- NVML readings ---------------------------------------------------------------------------

_UTILIZATION, _MEMORY_UTILIZATION, _TEMPERATURE, _POWER, _CLOCK, _MEMORY_USED = range(6)


def _nvml_index(device):
    """NVML's index of a CUDA device (CUDA_VISIBLE_DEVICES renumbers CUDA's)."""
    idx = _c._device_index(device)
    if idx < 0:
        idx = _c.current_device() if _c.is_initialized() else 0
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is None:
        return idx
    entries = [e.strip() for e in visible.split(",") if e.strip()]
    if idx >= len(entries):
        raise RuntimeError(f"device {idx} is not visible (CUDA_VISIBLE_DEVICES={visible!r})")
    entry = entries[idx]
    if entry.isdigit():
        return int(entry)
    uuids = _c._nvml_uuids()
    matches = [i for i, u in enumerate(uuids) if u.startswith(entry) or u[4:].startswith(entry)]
    if len(matches) != 1:
        raise RuntimeError(f"CUDA_VISIBLE_DEVICES entry {entry!r} names no single GPU")
    return matches[0]


def _reading(device, what, name):
    if not _c._nvml_available():
        raise RuntimeError(f"ember.cuda.{name}(): NVML (libnvidia-ml) could not be loaded: "
                           "it comes with the NVIDIA driver")
    value = _c._nvml_reading(_nvml_index(device), what)
    if value < 0:
        raise RuntimeError(f"ember.cuda.{name}(): NVML has no such reading for this GPU")
    return value


def utilization(device=None):
    """Percent of the last sample period (1/6 s to 1 s) in which a kernel ran (NVML)."""
    return _reading(device, _UTILIZATION, "utilization")


def memory_usage(device=None):
    """Percent of the last sample period in which device memory was read or written (NVML)."""
    return _reading(device, _MEMORY_UTILIZATION, "memory_usage")


def temperature(device=None):
    """The GPU's temperature in degrees Celsius (NVML)."""
    return _reading(device, _TEMPERATURE, "temperature")


def power_draw(device=None):
    """The GPU's power draw in milliwatts (NVML)."""
    return _reading(device, _POWER, "power_draw")


def clock_rate(device=None):
    """The GPU's SM clock in MHz (NVML)."""
    return _reading(device, _CLOCK, "clock_rate")


def device_memory_used(device=None):
    """Bytes of the GPU's memory in use, by all processes (NVML)."""
    return _reading(device, _MEMORY_USED, "device_memory_used")


def list_gpu_processes(device=None):
    """A readable list of the processes using the GPU and their memory (NVML)."""
    if not _c._nvml_available():
        return ("NVML (libnvidia-ml, installed with the NVIDIA driver) could not be loaded: no "
                "GPU processes to list")
    index = _nvml_index(device)
    procs = _c._nvml_processes(index)
    lines = [f"GPU:{index}"]
    if procs is None:
        return "NVML cannot list processes (those of other users need more rights)"
    if not procs:
        lines.append("no processes are running")
    for pid, used in procs:
        mem = float("nan") if used >= (1 << 63) else used / (1024 * 1024)
        lines.append(f"process {pid:>10d} uses {mem:>12.3f} MB GPU memory")
    return "\n".join(lines)


__all__ = ["has_half", "has_magma", "reset_max_memory_allocated", "reset_max_memory_cached", "memory_cached",
           "max_memory_cached", "is_bf16_supported", "is_tf32_supported", "get_arch_list",
           "get_gencode_flags", "can_device_access_peer", "utilization", "memory_usage",
           "temperature", "power_draw", "clock_rate", "device_memory_used",
           "list_gpu_processes"]
