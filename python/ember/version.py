"""Versions, like ``torch.version``: ``ember.version.cuda`` is the CUDA runtime
ember was built with ("13.0"), or None for a CPU-only build."""
from ember import _C

__version__ = _C.__version__


def _cuda_version():
    v = _C.cuda._runtime_version()
    return f"{v // 1000}.{(v % 1000) // 10}" if v else None


cuda = _cuda_version()
