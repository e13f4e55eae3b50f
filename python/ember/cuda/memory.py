"""ember.cuda.memory: torch.cuda.memory's API over ember's caching allocators.

The functions called per step -- ``memory_allocated()`` and the other single
figures, ``caching_allocator_alloc``/``caching_allocator_delete`` -- are C++
functions bound directly (no Python frame). This module adds what is not on a
hot path: ``memory_summary``, the nested form of ``memory_stats``, and
``caching_allocator_alloc``'s torch-style documentation.

Configuration comes from the environment variable ``EMBER_CUDA_ALLOC_CONF``
(comma-separated ``key:value``): ``max_split_size_mb``,
``garbage_collection_threshold``, ``roundup_power2_divisions``,
``caching:False`` (every allocation is its own cudaMalloc, for memory
checkers), ``backend:native``, ``expandable_segments:False``. Anything else
raises ValueError on first use.
"""
from ember import _C

_c = _C.cuda

memory_allocated = _c.memory_allocated
max_memory_allocated = _c.max_memory_allocated
memory_reserved = _c.memory_reserved
max_memory_reserved = _c.max_memory_reserved
memory_stats = _c.memory_stats
reset_peak_memory_stats = _c.reset_peak_memory_stats
reset_accumulated_memory_stats = _c.reset_accumulated_memory_stats
empty_cache = _c.empty_cache
caching_allocator_alloc = _c.caching_allocator_alloc
caching_allocator_delete = _c.caching_allocator_delete
caching_allocator_record_stream = _c.caching_allocator_record_stream
set_per_process_memory_fraction = _c.set_per_process_memory_fraction
get_per_process_memory_fraction = _c.get_per_process_memory_fraction
memory_snapshot = _c.memory_snapshot
mem_get_info = _c.mem_get_info
host_memory_stats = _c.host_memory_stats
reset_peak_host_memory_stats = _c.reset_peak_host_memory_stats
reset_accumulated_host_memory_stats = _c.reset_accumulated_host_memory_stats
_host_alloc = _c._host_alloc
_HostBuffer = _c._HostBuffer


def _nest(flat):
    nested = {}
    for key, value in flat.items():
        node = nested
        *path, leaf = key.split(".")
        for part in path:
            node = node.setdefault(part, {})
        node[leaf] = value
    return nested


def memory_stats_as_nested_dict(device=None):
    """``memory_stats(device)`` as nested dicts: ``stats["allocated_bytes"]["all"]["current"]``."""
    return _nest(memory_stats(device))


def host_memory_stats_as_nested_dict():
    """``host_memory_stats()`` as nested dicts."""
    return _nest(host_memory_stats())


def _format_size(size, pref_size):
    prefixes = ["B  ", "KiB", "MiB", "GiB", "TiB", "PiB"]
    prefix = prefixes[0]
    for new_prefix in prefixes[1:]:
        if pref_size < 768 * 1024:
            break
        prefix = new_prefix
        size //= 1024
        pref_size /= 1024
    return f"{size:6d} {prefix}"


def _format_count(count, pref_count):
    prefixes = [" ", "K", "M"]
    prefix = prefixes[0]
    for new_prefix in prefixes[1:]:
        if pref_count < 750 * 1000:
            break
        prefix = new_prefix
        count //= 1000
        pref_count /= 1000
    return f"{count:7d} {prefix} "


_METRICS = [
    ("allocated_bytes", "Allocated memory", _format_size),
    ("active_bytes", "Active memory", _format_size),
    ("requested_bytes", "Requested memory", _format_size),
    ("reserved_bytes", "GPU reserved memory", _format_size),
    ("inactive_split_bytes", "Non-releasable memory", _format_size),
    ("allocation", "Allocations", _format_count),
    ("active", "Active allocs", _format_count),
    ("segment", "GPU reserved segments", _format_count),
    ("inactive_split", "Non-releasable allocs", _format_count),
]


def memory_summary(device=None, abbreviated=False):
    """A readable table of the caching allocator's statistics for ``device``
    (torch.cuda.memory_summary's layout): current, peak, total allocated and
    total freed of every figure, for all memory and per pool unless
    ``abbreviated``."""
    index = _c._device_index(device)
    if index < 0:
        index = _c.current_device() if _c.is_initialized() else 0
    stats = memory_stats(device)
    width = 75
    lines = ["=" * width,
             f" {'':16} ember CUDA memory summary, device ID {index:<19d} ",
             "-" * width,
             f"  {'':9} CUDA OOMs: {stats['num_ooms']:<12d} | {'':6} cudaMalloc retries: "
             f"{stats['num_alloc_retries']:<8d}  ",
             "=" * width,
             "        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  "]
    for key, name, fmt in _METRICS:
        lines.append("-" * width)
        rows = [("all", name)]
        if not abbreviated:
            rows += [("large_pool", "      from large pool"), ("small_pool", "      from small pool")]
        pref = None
        for pool, label in rows:
            values = [stats[f"{key}.{pool}.{m}"] for m in ("current", "peak", "allocated", "freed")]
            if pref is None:
                pref = values
            cells = " | ".join(fmt(v, p) for v, p in zip(values, pref))
            lines.append(f" {label:<21} | {cells} ")
    for key, name in [("oversize_allocations", "Oversize allocations"),
                      ("oversize_segments", "Oversize GPU segments")]:
        lines.append("-" * width)
        values = [stats[f"{key}.{m}"] for m in ("current", "peak", "allocated", "freed")]
        cells = " | ".join(_format_count(v, v) for v in values)
        lines.append(f" {name:<21} | {cells} ")
    lines.append("-" * width)
    lines.append(f" {'Cross-stream reuses':<21} | {stats['num_cross_stream_reuses']:<10d} | "
                 f"max_split_size: {_split_size(stats['max_split_size']):<20} ")
    lines.append("=" * width)
    return "|" + "|\n|".join(lines) + "|\n"


def _split_size(value):
    return "unlimited" if value < 0 else f"{value // (1024 * 1024)} MiB"


__all__ = [
    "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
    "memory_stats", "memory_stats_as_nested_dict", "memory_summary", "reset_peak_memory_stats",
    "reset_accumulated_memory_stats", "empty_cache", "caching_allocator_alloc",
    "caching_allocator_delete", "caching_allocator_record_stream",
    "set_per_process_memory_fraction", "get_per_process_memory_fraction", "memory_snapshot",
    "mem_get_info", "host_memory_stats", "host_memory_stats_as_nested_dict",
    "reset_peak_host_memory_stats", "reset_accumulated_host_memory_stats",
]
