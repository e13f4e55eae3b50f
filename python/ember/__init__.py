"""ember: torch.cuda's API on a small, fast C++/CUDA core.

Code written for torch's device, stream, event and memory APIs runs on ember
with ``import ember as torch``. ``import ember`` loads no CUDA library and
creates no CUDA context; CUDA initialises on first use.
"""
from ember import _C
from ember._C import device
from ember import cuda, version

__version__ = _C.__version__

# dtypes: the names shadow Python's builtins inside this module (as in torch),
# so they are bound last and nothing below this point may use int/float/bool.
_DTYPE_NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                "float32", "float64", "half", "float", "double", "short", "int", "long")
from ember._C import (  # noqa: E402
    dtype, finfo, iinfo, get_default_dtype, set_default_dtype, promote_types,
)

__all__ = ["cuda", "device", "version", "__version__", "dtype", "finfo", "iinfo",
           "get_default_dtype", "set_default_dtype", "promote_types", *_DTYPE_NAMES]

globals().update({_n: getattr(_C, _n) for _n in _DTYPE_NAMES})
