"""``ember.cuda.jiterator``: elementwise CUDA kernels from a C++ function template,
with torch.cuda.jiterator's semantics.

.. code-block:: python

    code = "template <typename T> T my_kernel(T x, T y, T alpha) { return -x + alpha * y; }"
    fn = ember.cuda.jiterator._create_jit_fn(code, alpha=1.0)
    out = fn(a, b, alpha=3.14)

- Inputs (up to 8) are tensors or numbers; they broadcast, promote to one dtype
  (``torch.result_type``'s rules) and may be non-contiguous; the output is a new
  tensor of that dtype, dense in the inputs' dimension order. 0-d CPU tensors and
  numbers are passed by value. ``T`` is torch's ``opmath_type`` of the common dtype:
  ``float`` for float16 and bfloat16 (rounded to the dtype once, when stored), the
  dtype's own type otherwise.
- Keyword arguments declared at creation are extra arguments after the inputs,
  typed by their value (``double``, ``long long`` or ``bool``), overridable per call.
- The last function of the code string is the entry point (torch's rule). Each
  combination of dtypes compiles once (NVRTC, cached in memory and on disk under
  ``~/.cache/ember/kernels``); later calls only launch, on the current stream.
- ``_create_multi_output_jit_fn(code, num_outputs)`` returns outputs through
  references after the extra arguments: ``void f(T x, T alpha, T& a, T& b)``.
"""
import re

from ember import _C

__all__ = []

_c = _C.cuda


class _CodeParser:
    """Finds the entry function of a code string (torch's regular expression)."""

    _PATTERN = re.compile(
        r"\s*template\s*(?P<template_params>\<.+\>)\s*(?P<return_type>\w+)\s+"
        r"(?P<function_name>\w+)\s*(?P<function_params>\(.+\))\s*(?P<function_body>\{.+\})\s*",
        re.DOTALL)

    def __init__(self, code_string):
        result = self._PATTERN.match(code_string)
        if result is None:
            raise Exception(f"Couldn't parse code, please check correctness:\n {code_string}")  # noqa: TRY002 (torch's type)
        self.template_params = result["template_params"]
        self.return_type = result["return_type"]
        self.function_name = result["function_name"]
        self.function_params = result["function_params"]
        self.function_body = result["function_body"]


class _JittedFunction:
    def __init__(self, code_string, return_by_ref, num_outputs, **kwargs):
        self.code_string = code_string
        if not (return_by_ref or num_outputs == 1):
            raise AssertionError("Return by value only works for single output.")
        self.return_by_ref = return_by_ref
        self.num_outputs = num_outputs
        self.kernel_name = _CodeParser(code_string).function_name
        self.kwargs_dict = kwargs
        self.is_cuda_available = _c.is_available()
        jit = getattr(_c, "_JitFunction", None)
        self._fn = jit(code_string, self.kernel_name, num_outputs) if jit is not None else None

    def __call__(self, *tensors, **kwargs):
        if not self.is_cuda_available or self._fn is None:
            raise AssertionError("Jiterator is only supported on CUDA GPUs, none are available "
                                 "(ember.cuda.is_available() is False).")
        if len(tensors) > 8:
            raise AssertionError(
                f"jiterator only supports up to 8 tensor inputs, got {len(tensors)}")
        expanded = self.kwargs_dict.copy()
        for key, value in kwargs.items():
            if key in self.kwargs_dict:
                expanded[key] = value
            else:
                raise KeyError(f"{key} is not declared in function definition")
        return self._fn(tensors, tuple(expanded.values()))


def _create_jit_fn(code_string, **kwargs):
    """An elementwise function from ``code_string``, a C++ function template that
    returns its result by value (see the module's docstring). ``kwargs`` declares
    the extra arguments and their default values."""
    return _JittedFunction(code_string, return_by_ref=False, num_outputs=1, **kwargs)


def _create_multi_output_jit_fn(code_string, num_outputs, **kwargs):
    """As ``_create_jit_fn`` for a function that returns ``num_outputs`` (1 to 8)
    results through references after its extra arguments; the call returns a
    tuple of tensors."""
    return _JittedFunction(code_string, return_by_ref=True, num_outputs=num_outputs, **kwargs)
