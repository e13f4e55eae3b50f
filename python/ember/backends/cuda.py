"""ember.backends.cuda: ``matmul.allow_tf32`` and the reduced-precision switches.

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

__all__ = ["matmul", "cuBLASModule"]
