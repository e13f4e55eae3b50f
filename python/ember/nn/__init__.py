"""ember.nn: layers, losses and their functional forms (torch.nn's API).

Modules are thin Python classes over the C++ ops: a layer's forward is one or
a few bound C++ calls, and the graph for backward is recorded in C++.
"""
from ember.nn.parameter import Parameter
from ember.nn.modules import *  # noqa: F401,F403
from ember.nn.modules import __all__ as _modules_all
from ember.nn import functional, init, utils

__all__ = ["Parameter", "functional", "init", "utils", *_modules_all]

# ---- nn1: parameter kinds, factory_kwargs, Container -----------------------------------------
from ember.nn.parameter import Buffer, UninitializedBuffer, UninitializedParameter  # noqa: E402
from ember.nn.modules.container import Container  # noqa: E402


def factory_kwargs(kwargs):
    """The device/dtype/memory_format keywords of kwargs as a dict for factory functions
    (torch.nn.factory_kwargs); ``factory_kwargs={...}`` inside kwargs is merged in."""
    if kwargs is None:
        return {}
    simple_keys = {"device", "dtype", "memory_format"}
    expected_keys = simple_keys | {"factory_kwargs"}
    if not kwargs.keys() <= expected_keys:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected_keys}")
    r = dict(kwargs.get("factory_kwargs", {}))
    for k in simple_keys:
        if k in kwargs:
            if k in r:
                raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
            r[k] = kwargs[k]
    return r


__all__ += ["Buffer", "UninitializedBuffer", "UninitializedParameter", "Container",
            "factory_kwargs"]
