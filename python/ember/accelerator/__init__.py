"""ember.accelerator: torch.accelerator's device-generic API; ember's one accelerator
is CUDA, so each function is ember.cuda's (None/False/0 where no GPU is visible)."""
from ember import _C

_c = _C.cuda

__all__ = [
    "current_accelerator", "current_device_idx", "current_device_index", "current_stream",
    "device_count", "device_index", "empty_cache", "get_device_capability", "get_memory_info",
    "is_available", "max_memory_allocated", "max_memory_reserved", "memory_allocated",
    "memory_reserved", "memory_stats", "reset_accumulated_memory_stats",
    "reset_peak_memory_stats", "set_device_idx", "set_device_index", "set_stream", "synchronize",
]


def is_available():
    """True when a GPU is visible (asks NVML: does not initialise CUDA)."""
    return _c.is_available()


def device_count():
    """Number of visible GPUs; 0 without one."""
    return _c.device_count()


def current_accelerator(check_available=False):
    """ember.device('cuda') when ember was built with CUDA (and, with check_available, a GPU
    is visible); None otherwise."""
    if not _c._compiled_with_cuda() or (check_available and not _c.is_available()):
        return None
    return _C.device("cuda")


def current_device_index():
    """The current CUDA device of this thread."""
    return _c.current_device()


def set_device_index(device):
    """Makes ``device`` (an int, 'cuda:N' or ember.device) current in this thread."""
    _c.set_device(device)


current_device_idx = current_device_index  # torch's deprecated spellings
set_device_idx = set_device_index


class device_index:
    """Context manager: ``device`` (an int, or None for a no-op) is current for the block."""

    def __init__(self, device):
        self.device = device
        self.idx = -1
        self.prev = -1

    def __enter__(self):
        self.idx = -1 if self.device is None else _c._device_index(self.device)
        if self.idx >= 0:
            self.prev = _c._exchange_device(self.idx)
        return self

    def __exit__(self, *exc):
        if self.idx >= 0:
            _c._exchange_device(self.prev)
        return False


def current_stream(device=None):
    """The current stream of ``device`` (default: the current device)."""
    return _c.current_stream(device)


def set_stream(stream):
    """Makes ``stream`` current on its device."""
    _c.set_stream(stream)


def synchronize(device=None):
    """Waits for all work on ``device`` (default: the current one)."""
    _c.synchronize(device)


def get_device_capability(device=None):
    """{'major': ..., 'minor': ...} of ``device``'s compute capability."""
    major, minor = _c.get_device_capability(device)
    return {"major": major, "minor": minor}


def get_memory_info(device_index=None):
    """(free, total) bytes of the device's memory."""
    return _c.mem_get_info(device_index)


def empty_cache():
    """Releases the caching allocator's unused blocks."""
    _c.empty_cache()


def memory_stats(device_index=None):
    return _c.memory_stats(device_index)


def memory_allocated(device_index=None):
    return _c.memory_allocated(device_index)


def max_memory_allocated(device_index=None):
    return _c.max_memory_allocated(device_index)


def memory_reserved(device_index=None):
    return _c.memory_reserved(device_index)


def max_memory_reserved(device_index=None):
    return _c.max_memory_reserved(device_index)


def reset_accumulated_memory_stats(device_index=None):
    _c.reset_accumulated_memory_stats(device_index)


def reset_peak_memory_stats(device_index=None):
    _c.reset_peak_memory_stats(device_index)
