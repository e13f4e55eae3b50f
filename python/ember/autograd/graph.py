"""ember.autograd.graph: the nodes of the backward graph (``tensor.grad_fn``)."""
from ember import _C

#: torch.autograd.graph.Node: ``name()``, ``next_functions``, and ``variable`` for
#: AccumulateGrad.
Node = _C._Node

__all__ = ["Node"]
