"""ember.cuda: torch.cuda's names and semantics.

Everything here is either a direct binding of the C++ core or a thin context
manager over one. Nothing initialises CUDA until it is needed:
``is_available()`` and ``device_count()`` ask NVML, so the process may still fork.
"""
from ember import _C

_c = _C.cuda

CudaError = _c.CudaError
OutOfMemoryError = _c.OutOfMemoryError
CompileError = _c.CompileError

is_available = _c.is_available
device_count = _c.device_count
init = _c.init
is_initialized = _c.is_initialized
current_device = _c.current_device
set_device = _c.set_device
synchronize = _c.synchronize
mem_get_info = _c.mem_get_info
get_device_properties = _c.get_device_properties
get_device_name = _c.get_device_name
get_device_capability = _c.get_device_capability
_CudaDeviceProperties = _c._CudaDeviceProperties

# Streams and events (csrc/runtime/stream.hpp, event.hpp): bound C++ classes and
# functions, no Python wrappers on the hot paths.
Stream = _c.Stream
ExternalStream = _c.ExternalStream
Event = _c.Event
StreamContext = _c.StreamContext
stream = _c.stream
current_stream = _c.current_stream
default_stream = _c.default_stream
set_stream = _c.set_stream
_sleep = _c._sleep
set_sync_debug_mode = _c.set_sync_debug_mode  # csrc/runtime/sync_debug.hpp
get_sync_debug_mode = _c.get_sync_debug_mode
from ember.cuda import memory  # noqa: E402
from ember.cuda.memory import (  # noqa: E402
    _host_alloc,
    _HostBuffer,
    caching_allocator_alloc,
    caching_allocator_delete,
    caching_allocator_record_stream,
    empty_cache,
    get_per_process_memory_fraction,
    host_memory_stats,
    host_memory_stats_as_nested_dict,
    max_memory_allocated,
    max_memory_reserved,
    memory_allocated,
    memory_reserved,
    memory_snapshot,
    memory_stats,
    memory_stats_as_nested_dict,
    memory_summary,
    reset_accumulated_host_memory_stats,
    reset_accumulated_memory_stats,
    reset_peak_host_memory_stats,
    reset_peak_memory_stats,
    set_per_process_memory_fraction,
)


class device:
    """Context manager that makes ``device`` current for its block and restores
    the previous device on exit, also when the block raises.

    ``device`` may be an int, ``"cuda:N"``, an ``ember.device``, or None (no-op).
    """

    __slots__ = ("idx", "prev_idx")

    def __init__(self, device):
        self.idx = _c._device_index(device)
        self.prev_idx = -1

    def __enter__(self):
        self.prev_idx = _c._exchange_device(self.idx)
        return self

    def __exit__(self, exc_type, exc, tb):
        _c._exchange_device(self.prev_idx)
        return False


class device_of(device):
    """Context manager that makes the device of ``obj`` (a tensor) current; a
    no-op for objects that are not on a CUDA device."""

    __slots__ = ()

    def __init__(self, obj):
        idx = obj.get_device() if getattr(obj, "is_cuda", False) else -1
        super().__init__(idx)


__all__ = [
    "CudaError", "OutOfMemoryError", "is_available", "device_count", "init", "is_initialized",
    "current_device", "set_device", "synchronize", "mem_get_info", "get_device_properties",
    "get_device_name", "get_device_capability", "device", "device_of",
    "Stream", "ExternalStream", "Event", "StreamContext", "stream", "current_stream",
    "default_stream", "set_stream",
    "memory", "memory_allocated", "max_memory_allocated", "memory_reserved",
    "max_memory_reserved", "memory_stats", "memory_stats_as_nested_dict", "memory_summary",
    "reset_peak_memory_stats", "reset_accumulated_memory_stats", "empty_cache",
    "caching_allocator_alloc", "caching_allocator_delete", "caching_allocator_record_stream",
    "set_per_process_memory_fraction", "get_per_process_memory_fraction", "memory_snapshot",
    "host_memory_stats", "host_memory_stats_as_nested_dict", "reset_peak_host_memory_stats",
    "reset_accumulated_host_memory_stats", "set_sync_debug_mode", "get_sync_debug_mode",
]

from ember.cuda import streams  # noqa: E402  (torch.cuda.streams' place)

# Random number generators (torch.cuda.random's names).
from ember.cuda import random  # noqa: E402
from ember.cuda.random import (  # noqa: E402
    get_rng_state, get_rng_state_all, initial_seed, manual_seed, manual_seed_all, seed, seed_all,
    set_rng_state, set_rng_state_all,
)

__all__ += ["random", "get_rng_state", "get_rng_state_all", "initial_seed", "manual_seed",
            "manual_seed_all", "seed", "seed_all", "set_rng_state", "set_rng_state_all"]


# Kernels compiled at run time (CuPy's RawKernel/RawModule in _raw.py, torch's
# jiterator; csrc/ops/jit/): imported on first use (making RawKernel's class costs
# ~1 ms), and nothing compiles or opens NVRTC before a kernel's first launch.
__all__ += ["CompileError", "RawKernel", "RawModule", "jiterator"]


def __getattr__(name):
    import importlib
    if name in ("amp", "jiterator"):  # imported on first use (amp: torch.cuda.amp's aliases)
        return importlib.import_module("ember.cuda." + name)
    if name in ("RawKernel", "RawModule"):
        return getattr(importlib.import_module("ember.cuda._raw"), name)
    raise AttributeError(f"module 'ember.cuda' has no attribute {name!r}")

# torch.cuda's deprecated aliases, capability questions and NVML readings.
from ember.cuda import _extras  # noqa: E402
from ember.cuda._extras import *  # noqa: E402,F401,F403

# The legacy CUDA tensor types (ember.cuda.FloatTensor...; ember/_tensor_types.py).
from ember import _tensor_types  # noqa: E402

globals().update(_tensor_types.CUDA_TYPES)
__all__ += [*_extras.__all__, *_tensor_types.CUDA_TYPES]
