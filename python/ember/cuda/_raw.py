"""``ember.cuda.RawKernel`` and ``ember.cuda.RawModule``: CUDA C++ kernels compiled
at run time, called with ember tensors -- CuPy's API.

.. code-block:: python

    add = ember.cuda.RawKernel(r'''
    extern "C" __global__ void add(const float* x, const float* y, float* out, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = x[i] + y[i];
    }''', "add")
    add(((n + 255) // 256,), (256,), (x, y, out, n))

- Nothing is compiled until the first launch (or ``compile()``); the binary is then
  cached in memory and on disk (``~/.cache/ember/kernels``, ``EMBER_CACHE_DIR``), so
  a new process loads it without compiling. NVRTC is opened only when a kernel
  really has to be compiled.
- A launch ``kern(grid, block, args, shared_mem=0, stream=None)`` goes on ``stream``
  (default: the current stream) and runs on that stream's device. ``args`` are
  checked against the kernel's parameters: a wrong count, an int for a pointer, a
  float for an ``int``, a tensor on another device or of another dtype than the
  pointer's are ``TypeError``/``ValueError``, raised before anything is launched.
  Pointers take ember tensors, None, and any object with
  ``__cuda_array_interface__`` or ``__dlpack__``; scalars take Python and NumPy
  numbers; parameters of other types (structs) take a NumPy scalar or ``bytes`` of
  their size.
- A launch that the device cannot run (too many threads per block, too much
  shared memory) is a ``ValueError`` that says what to change; a kernel that faults
  makes the next synchronising call raise ``ember.cuda.CudaError``, after which the
  process's CUDA context is unusable (restart the process).
- Compile errors raise ``ember.cuda.CompileError`` with NVRTC's log (``.log``),
  whose line numbers are those of ``code``.
"""
from ember import _C

__all__ = ["RawKernel", "RawModule"]

_c = _C.cuda
_JitModule = getattr(_c, "_JitModule", None)
_RawKernelBase = getattr(_c, "_RawKernel", object)


def _check_backend(backend, jitify, enable_cooperative_groups, translate_cucomplex):
    if _JitModule is None:
        raise RuntimeError("ember was built without CUDA: RawKernel and RawModule need a CUDA "
                           "build of ember (install it on a machine with the CUDA toolkit)")
    if backend != "nvrtc":
        raise ValueError(f"ember compiles kernels with NVRTC only; got backend={backend!r}")
    if jitify:
        raise ValueError("ember does not support jitify=True")
    if enable_cooperative_groups:
        raise ValueError("ember does not launch cooperative kernels (enable_cooperative_groups)")
    if translate_cucomplex:
        raise ValueError("ember has no complex dtypes yet (translate_cucomplex)")


def _options(options):
    if isinstance(options, str):
        options = (options,)
    options = tuple(options)
    for o in options:
        if not isinstance(o, str):
            raise TypeError(f"options must be strings, got {type(o).__name__}")
    return options


class RawModule:
    """Several kernels (and device functions) compiled together from ``code``, or
    loaded from a compiled file (``path``: a cubin, fatbin or PTX).

    ``name_expressions`` lists C++ names to compile and look up, e.g.
    ``["my_kernel<float>", "my_kernel<double>"]`` for a function template;
    ``get_function("my_kernel<float>")`` then returns that instance.
    """

    def __init__(self, code=None, *, path=None, options=(), name_expressions=None,
                 backend="nvrtc", translate_cucomplex=False, enable_cooperative_groups=False,
                 jitify=False):
        _check_backend(backend, jitify, enable_cooperative_groups, translate_cucomplex)
        if (code is None) == (path is None):
            raise ValueError("RawModule takes either code= or path=")
        names = tuple(name_expressions or ())
        self._module = _JitModule(code, None if path is None else str(path), _options(options),
                                  names, "raw_module.cu")

    @property
    def code(self):
        return self._module.code or None

    @property
    def options(self):
        return tuple(self._module.options)

    @property
    def name_expressions(self):
        return tuple(self._module.name_expressions)

    def compile(self, log_stream=None):
        """Compiles (or loads from the caches) the module for the current device now;
        writes NVRTC's warnings to ``log_stream`` when given."""
        self._module.compile()
        if log_stream is not None and self._module.log:
            log_stream.write(self._module.log)

    def get_function(self, name):
        """The kernel ``name`` (an ``extern "C"`` name or one of the name expressions)."""
        return RawKernel._from_module(self._module, name)

    def __repr__(self):
        what = f"path={self._module.path!r}" if self._module.path else "code=..."
        return f"<ember.cuda.RawModule {what}>"


class RawKernel(_RawKernelBase):
    """The ``__global__`` function ``name`` of ``code``, launched by calling it:
    ``kern(grid, block, args, shared_mem=0, stream=None)``.

    ``grid`` and ``block`` are ints or tuples of 1 to 3 ints; ``args`` a tuple with
    one value per kernel parameter (see the module's docstring for what each
    parameter type takes). ``options`` are NVRTC's (``"-std=c++17"``,
    ``"--use_fast_math"``, ``"-DN=4"``); ember adds the architecture of the device
    and include paths for CUDA's and ember's headers (``<ember/device/half.cuh>``
    gives ``ember::Half`` and ``ember::BFloat16``).
    """

    def __init__(self, code, name, options=(), backend="nvrtc", *, translate_cucomplex=False,
                 enable_cooperative_groups=False, jitify=False):
        _check_backend(backend, jitify, enable_cooperative_groups, translate_cucomplex)
        module = _JitModule(code, None, _options(options), (), f"{name}.cu")
        super().__init__(module, name)

    @classmethod
    def _from_module(cls, module, name):
        kernel = cls.__new__(cls)
        _RawKernelBase.__init__(kernel, module, name)
        return kernel

    @property
    def code(self):
        return self._module.code or None

    @property
    def options(self):
        return tuple(self._module.options)

    @property
    def max_threads_per_block(self):
        return self.attributes["max_threads_per_block"]

    @property
    def num_regs(self):
        return self.attributes["num_regs"]

    @property
    def shared_size_bytes(self):
        return self.attributes["shared_size_bytes"]

    @property
    def const_size_bytes(self):
        return self.attributes["const_size_bytes"]

    @property
    def local_size_bytes(self):
        return self.attributes["local_size_bytes"]

    @property
    def ptx_version(self):
        return self.attributes["ptx_version"]

    @property
    def binary_version(self):
        return self.attributes["binary_version"]

    def __repr__(self):
        return f"<ember.cuda.RawKernel {self.name!r}>"


if _JitModule is not None:
    _c._fast_call(RawKernel)  # calls go straight to C, as on the base class
