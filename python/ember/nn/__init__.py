"""ember.nn: layers, losses and their functional forms (torch.nn's API).

Modules are thin Python classes over the C++ ops: a layer's forward is one or
a few bound C++ calls, and the graph for backward is recorded in C++.
"""
from ember.nn.parameter import Parameter
from ember.nn.modules import *  # noqa: F401,F403
from ember.nn.modules import __all__ as _modules_all
from ember.nn import functional, init, utils

__all__ = ["Parameter", "functional", "init", "utils", *_modules_all]
