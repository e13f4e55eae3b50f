"""Grad mode: ember.no_grad, enable_grad, set_grad_enabled, inference_mode.

The state is a thread-local flag in C++ (autograd/grad_mode.hpp): entering and
leaving one of these costs two C calls. Each is a context manager and a
decorator (``@ember.no_grad()`` and ``@ember.no_grad``), as in torch.
"""
import functools

from ember import _C

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]

_CO_GENERATOR = 0x20  # inspect.CO_GENERATOR (inspect itself is slow to import)

is_grad_enabled = _C.is_grad_enabled
is_inference_mode_enabled = _C.is_inference_mode_enabled


class _DecoratorContextManager:
    """Context managers that also decorate functions (and generator functions)."""

    def __call__(self, func):
        if isinstance(func, type):
            raise RuntimeError("ember grad-mode decorators cannot decorate classes")
        code = getattr(func, "__code__", None)
        if code is not None and code.co_flags & _CO_GENERATOR:
            return self._wrap_generator(func)

        @functools.wraps(func)
        def decorate_context(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return decorate_context

    def _wrap_generator(self, func):
        @functools.wraps(func)
        def generator_context(*args, **kwargs):
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as e:
                        with self.clone():
                            response = gen.throw(e)
                    else:
                        with self.clone():
                            response = gen.send(request)
            except StopIteration as e:
                return e.value

        return generator_context

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also usable bare: ``@ember.no_grad`` as well as ``@ember.no_grad()``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Operations inside record no graph (torch.no_grad)."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _C._set_grad_enabled(self.prev)


class enable_grad(_NoParamDecoratorContextManager):
    """Turns grad mode back on inside no_grad (torch.enable_grad)."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(True)

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _C._set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Sets grad mode on or off. Takes effect when called (``ember.set_grad_enabled(False)``
    as a statement works) and, used with ``with``, restores the previous mode on exit."""

    def __init__(self, mode: bool) -> None:
        self.prev = _C.is_grad_enabled()
        self.mode = bool(mode)
        _C._set_grad_enabled(self.mode)

    def __call__(self, func):
        _C._set_grad_enabled(self.prev)
        return super().__call__(func)

    def __enter__(self) -> None:
        _C._set_grad_enabled(self.mode)

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _C._set_grad_enabled(self.prev)

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like no_grad, and ember.is_inference_mode_enabled() is True inside
    (torch.inference_mode). ember does not mark tensors made inside as
    inference tensors: they can be used in autograd afterwards."""

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls(True)(mode)  # used bare: @ember.inference_mode

    def __init__(self, mode=True) -> None:
        self.mode = mode
        self.prev_grad = True
        self.prev_inference = False

    def __enter__(self) -> None:
        self.prev_grad = _C.is_grad_enabled()
        self.prev_inference = _C.is_inference_mode_enabled()
        if self.mode:
            _C._set_grad_enabled(False)
            _C._set_inference_mode(True)

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _C._set_grad_enabled(self.prev_grad)
        _C._set_inference_mode(self.prev_inference)

    def clone(self):
        return self.__class__(self.mode)
