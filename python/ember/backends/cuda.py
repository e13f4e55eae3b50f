"""ember.backends.cuda: ``matmul.allow_tf32`` and the reduced-precision switches, and
``cufft_plan_cache`` (the per-device LRU caches of cuFFT plans, csrc/ops/fft/fft_plan_cache).

Each attribute reads or writes one atomic in C++ (csrc/ops/blas/matmul_config.hpp),
which the products read on every call. ``allow_tf32`` is a view of
``ember.get_float32_matmul_precision()``, as in torch: True means "high",
False "highest".
"""
from ember import _C

_GETTERS = {
    "allow_tf32": _C._get_cublas_allow_tf32,
    "allow_fp16_reduced_precision_reduction": _C._get_cublas_allow_fp16_reduced_precision_reduction,
    "allow_bf16_reduced_precision_reduction": _C._get_cublas_allow_bf16_reduced_precision_reduction,
}
_SETTERS = {
    "allow_tf32": _C._set_cublas_allow_tf32,
    "allow_fp16_reduced_precision_reduction": _C._set_cublas_allow_fp16_reduced_precision_reduction,
    "allow_bf16_reduced_precision_reduction": _C._set_cublas_allow_bf16_reduced_precision_reduction,
}


class cuBLASModule:
    """``ember.backends.cuda.matmul``: cuBLAS switches, like torch's."""

    __slots__ = ()

    def __getattr__(self, name):
        getter = _GETTERS.get(name)
        if getter is None:
            raise AttributeError(f"Unknown attribute {name}")
        return getter()

    def __setattr__(self, name, value):
        setter = _SETTERS.get(name)
        if setter is None:
            raise AttributeError(f"Unknown attribute {name}")
        if not isinstance(value, bool):
            raise TypeError(f"ember.backends.cuda.matmul.{name} must be a bool, got "
                            f"{type(value).__name__}")
        setter(value)

    def __dir__(self):
        return sorted(_GETTERS)

    def __repr__(self):
        return ("ember.backends.cuda.matmul("
                + ", ".join(f"{k}={v()}" for k, v in _GETTERS.items()) + ")")


matmul = cuBLASModule()


class cuFFTPlanCache:
    """The cuFFT plan cache of one device: ``size`` (read-only), ``max_size`` (read and
    write; 4096 by default, 0 disables caching) and ``clear()``, as torch's."""

    def __init__(self, device_index):
        self.device_index = device_index

    @property
    def size(self):
        return _C._fft.plan_cache_size(self.device_index)

    @size.setter
    def size(self, value):
        raise RuntimeError(".size is a read-only property showing the number of plans currently "
                           "in the cache. To change the cache capacity, set "
                           "cufft_plan_cache.max_size.")

    @property
    def max_size(self):
        return _C._fft.plan_cache_max_size(self.device_index)

    @max_size.setter
    def max_size(self, value):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"cufft_plan_cache.max_size must be an int, got "
                            f"{type(value).__name__}")
        _C._fft.set_plan_cache_max_size(self.device_index, value)

    def clear(self):
        """Destroys every cached plan of this device (plans in use finish first)."""
        return _C._fft.clear_plan_cache(self.device_index)

    def __repr__(self):
        return (f"cuFFTPlanCache(device_index={self.device_index}, size={self.size}, "
                f"max_size={self.max_size})")


class cuFFTPlanCacheManager:
    """``ember.backends.cuda.cufft_plan_cache``: indexed by a device (an int, "cuda:1", an
    ember.device) it gives that device's cuFFT plan cache; its attributes (``size``,
    ``max_size``, ``clear``) are the current device's."""

    __initialized = False

    def __init__(self):
        self.caches = []
        self.__initialized = True

    def __getitem__(self, device):
        cuda = _C.cuda
        index = cuda._device_index(device)
        count = cuda.device_count()
        if index < 0 or index >= count:
            raise RuntimeError(f"cufft_plan_cache: expected 0 <= device index < {count}, but got "
                               f"device with index {index}")
        if len(self.caches) == 0:
            self.caches.extend(cuFFTPlanCache(i) for i in range(count))
        return self.caches[index]

    def __getattr__(self, name):
        return getattr(self[_C.cuda.current_device()], name)

    def __setattr__(self, name, value):
        if self.__initialized:
            return setattr(self[_C.cuda.current_device()], name, value)
        return super().__setattr__(name, value)


cufft_plan_cache = cuFFTPlanCacheManager()

__all__ = ["matmul", "cuBLASModule", "cufft_plan_cache", "cuFFTPlanCache",
           "cuFFTPlanCacheManager"]
