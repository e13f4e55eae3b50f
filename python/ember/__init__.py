"""ember: torch.cuda's API on a small, fast C++/CUDA core.

Code written for torch's device, stream, event and memory APIs runs on ember
with ``import ember as torch``. ``import ember`` loads no CUDA library and
creates no CUDA context; CUDA initialises on first use.
"""
from ember import _C
from ember._C import device
from ember import cuda, version

__version__ = _C.__version__

# Tensors: the class and the creation functions are bound C++ (no Python wrappers).
from ember._C import (  # noqa: E402
    Tensor, Size, dtype, finfo, iinfo, get_default_dtype, set_default_dtype, promote_types,
    tensor, as_tensor, asarray, from_numpy, from_dlpack, empty, zeros, ones, full,
    empty_like, zeros_like, ones_like, full_like, empty_strided, arange, linspace, eye,
    cat, concat, concatenate, stack, is_tensor, numel, set_default_device, get_default_device,
)
# Tensor methods written in Python (__format__, pickling, type(), isclose...): set on the
# bound class once; and the legacy tensor types (ember.FloatTensor...).
from ember import _tensor, _tensor_types  # noqa: E402
from ember._tensor import isclose, allclose, equal  # noqa: E402
from ember._tensor_types import (  # noqa: E402
    DoubleTensor as DoubleTensor, FloatTensor as FloatTensor, HalfTensor as HalfTensor,
    BFloat16Tensor as BFloat16Tensor, LongTensor as LongTensor, IntTensor as IntTensor,
    ShortTensor as ShortTensor, CharTensor as CharTensor, ByteTensor as ByteTensor,
    BoolTensor as BoolTensor,
)



# Type checkers (mypy, pyright) take `if TYPE_CHECKING:` branches and Python does not: a
# plain constant, not typing's, so that `import ember` imports nothing more (deleted at
# the end). They read ember's exports from the stub ember/_exports.pyi (tools/gen_stubs.py
# writes it): also the names bound below in loops or by __getattr__ on first use, and
# those __all__ gets through *tuples, which they do not expand. They do not see
# __getattr__: a misspelt ember.name is an error to them.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ember._exports import *  # noqa: F401,F403
    from ember import serialization as serialization  # __getattr__'s, not in __all__

if not TYPE_CHECKING:
    def __getattr__(name):
        # nn, optim, serialization: imported on first use, so that `import ember` stays cheap
        if name in ("nn", "optim", "serialization"):
            import importlib
            return importlib.import_module("ember." + name)
        # The print options live in ember._tensor_str, imported on first use (repr
        # imports it too) so that `import ember` stays cheap.
        if name in ("set_printoptions", "get_printoptions", "printoptions"):
            from ember import _tensor_str
            return getattr(_tensor_str, name)
        if name == "amp":  # ember.amp (GradScaler...), imported on first use
            import importlib
            return importlib.import_module("ember.amp")
        if name in ("utils", "testing", "accelerator", "special", "fft"):  # imported on first use
            import importlib
            return importlib.import_module("ember." + name)
        raise AttributeError(f"module 'ember' has no attribute {name!r}")

# Linear algebra (csrc/ops/blas/matmul.hpp, einsum.hpp): bound C++, no Python wrappers.
from ember._C import (  # noqa: E402
    matmul, mm, bmm, mv, dot, vdot, outer, ger, addmm, addmv, baddbmm, einsum,
    set_float32_matmul_precision, get_float32_matmul_precision,
)
from ember import backends  # noqa: E402

# Autograd (csrc/autograd/): grad mode is a C++ thread-local flag; the engine is C++.
from ember import autograd  # noqa: E402
from ember.autograd.grad_mode import (  # noqa: E402
    no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
    is_inference_mode_enabled,
)


def save(obj, f, *args, **kwargs):
    """Saves tensors, state dicts and nested containers of them (see ember.serialization:
    a zip of a JSON manifest and raw tensor bytes; no pickle)."""
    from ember.serialization import save as _save
    return _save(obj, f, *args, **kwargs)


def load(f, map_location=None, *args, **kwargs):
    """Loads what ember.save wrote; map_location: device, str, dict or callable."""
    from ember.serialization import load as _load
    return _load(f, map_location, *args, **kwargs)


# Mixed precision (csrc/autograd/autocast.hpp): the state is C++ and thread-local;
# ember.autocast enters and leaves a region in one C++ call each.
from ember._C import (  # noqa: E402
    is_autocast_enabled, set_autocast_enabled, get_autocast_dtype, set_autocast_dtype,
    is_autocast_cache_enabled, set_autocast_cache_enabled, autocast_increment_nesting,
    autocast_decrement_nesting, clear_autocast_cache, _amp_foreach_non_finite_check_and_unscale_,
    _amp_update_scale_,
)
from ember.amp.autocast_mode import (  # noqa: E402
    autocast, is_autocast_cpu_enabled, set_autocast_cpu_enabled, get_autocast_cpu_dtype,
    set_autocast_cpu_dtype, get_autocast_gpu_dtype, set_autocast_gpu_dtype,
)

_AMP = ("amp", "autocast", "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype",
        "set_autocast_dtype", "is_autocast_cache_enabled", "set_autocast_cache_enabled",
        "autocast_increment_nesting", "autocast_decrement_nesting", "clear_autocast_cache",
        "is_autocast_cpu_enabled", "set_autocast_cpu_enabled", "get_autocast_cpu_dtype",
        "set_autocast_cpu_dtype", "get_autocast_gpu_dtype", "set_autocast_gpu_dtype")

_AUTOGRAD = ("autograd", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
             "is_grad_enabled", "is_inference_mode_enabled", "nn", "optim", "save", "load")

# Random numbers (csrc/ops/random/random.hpp, csrc/tensor/generator.hpp): bound C++.
from ember._C import (  # noqa: E402
    Generator, default_generator, manual_seed, seed, initial_seed, get_rng_state, set_rng_state,
    rand, randn, randint, rand_like, randn_like, randint_like, randperm, normal, bernoulli,
    multinomial,
)

_RANDOM = ("Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state", "rand", "randn", "randint", "rand_like",
           "randn_like", "randint_like", "randperm", "normal", "bernoulli", "multinomial")

_LINALG = ("matmul", "mm", "bmm", "mv", "dot", "vdot", "outer", "ger", "addmm", "addmv",
           "baddbmm", "einsum", "set_float32_matmul_precision", "get_float32_matmul_precision",
           "backends", "nn")


# torch's functional spellings of the view methods (thin: not hot paths).
def _method(name):
    def f(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"ember.{name}(input, ...) is input.{name}(...)"
    return f


_FUNCTIONAL = ("reshape", "flatten", "squeeze", "unsqueeze", "permute", "transpose", "swapaxes",
               "swapdims", "t", "movedim", "narrow", "split", "chunk", "unbind", "select",
               "diagonal", "as_strided", "as_strided_", "clone", "is_floating_point", "is_complex")
globals().update({_name: _method(_name) for _name in _FUNCTIONAL})

# dtypes: the names shadow Python's builtins inside this module (as in torch),
# so they are bound last and nothing below this point may use int/float/bool
# (or complex: ember.complex is torch.complex, csrc/bindings/complex.cpp).
_DTYPE_NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                "float32", "float64", "complex32", "complex64", "complex128", "half", "float",
                "double", "short", "int", "long", "chalf", "cfloat", "cdouble")

# Complex numbers (csrc/bindings/complex.cpp): bound C++.
_COMPLEX = ("view_as_real", "view_as_complex", "real", "imag", "conj", "conj_physical",
            "resolve_conj", "resolve_neg", "is_conj", "is_neg", "angle", "sgn", "complex",
            "polar")

__all__ = ["cuda", "utils", "device", "version", "__version__", "Tensor", "Size", "dtype", "finfo",
           "iinfo", "get_default_dtype", "set_default_dtype", "promote_types", "tensor",
           "as_tensor", "asarray", "from_numpy", "from_dlpack", "empty", "zeros", "ones", "full",
           "empty_like", "zeros_like", "ones_like", "full_like", "empty_strided", "arange",
           "linspace", "eye", "cat", "concat", "concatenate", "stack", "is_tensor", "numel",
           "set_printoptions", "get_printoptions", "printoptions", *_FUNCTIONAL, *_LINALG, *_RANDOM,
           *_AUTOGRAD, *_AMP, *_COMPLEX, *_DTYPE_NAMES, "set_default_device", "get_default_device",
           "isclose", "allclose", "equal", *_tensor_types.CPU_TYPES, "testing", "accelerator"]

globals().update({_n: getattr(_C, _n) for _n in _DTYPE_NAMES + _COMPLEX})

# Math: bound C++ functions (fast-call, no Python wrappers), listed by _C.
from ember._C import (  # noqa: E402
    result_type, can_cast, return_types, get_num_threads, set_num_threads)
globals().update({_n: getattr(_C, _n) for _n in _C._math_functions})
__all__ += ["result_type", "can_cast", "return_types", "get_num_threads", "set_num_threads",
            *_C._math_functions]
# Composites of the bound ops (python/ember/_composite_*.py): shape and math functions,
# and the Tensor methods torch has for them (set on the bound class at import).
from ember import (  # noqa: E402
    _composite_shape, _composite_math, _composite_copy, _composite_linalg, _composite_stats,
    _composite_misc, _composite_index, _composite_special, linalg)
from ember._composite_shape import *  # noqa: E402,F401,F403
from ember._composite_math import *  # noqa: E402,F401,F403
from ember._composite_copy import *  # noqa: E402,F401,F403
from ember._composite_linalg import *  # noqa: E402,F401,F403
from ember._composite_stats import *  # noqa: E402,F401,F403
from ember._composite_misc import *  # noqa: E402,F401,F403
from ember._composite_index import *  # noqa: E402,F401,F403
from ember._composite_special import *  # noqa: E402,F401,F403
__all__ += [*_composite_shape.__all__, *_composite_math.__all__, *_composite_copy.__all__,
            *_composite_linalg.__all__, *_composite_stats.__all__, *_composite_misc.__all__,
            *_composite_index.__all__, *_composite_special.__all__, "linalg"]
# torch's top-level factorizations (torch.det, torch.svd, torch.qr, ...) over ember.linalg.
from ember import _linalg_toplevel  # noqa: E402
from ember._linalg_toplevel import *  # noqa: E402,F401,F403
__all__ += _linalg_toplevel.__all__
# The sorting and search family (python/ember/_sorting.py over csrc/ops/sort/).
from ember import _sorting  # noqa: E402
from ember._sorting import *  # noqa: E402,F401,F403
__all__ += _sorting.__all__
# torch.stft / torch.istft over ember.fft's cores (python/ember/_spectral.py).
from ember import _spectral  # noqa: E402
from ember._spectral import *  # noqa: E402,F401,F403
__all__ += _spectral.__all__
# torch's top-level spellings of nn functions (torch.conv1d, torch.dropout...), ATen's
# signatures over ember.nn.functional (imported on first call).
from ember import _nn_toplevel  # noqa: E402
from ember._nn_toplevel import *  # noqa: E402,F401,F403
__all__ += _nn_toplevel.__all__
del TYPE_CHECKING
