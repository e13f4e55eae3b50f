"""ember.nn.functional: torch.nn.functional's names, bound straight to C++."""
from ember._C import _nn

#: linear(input, weight, bias=None) -> input @ weight.T + bias. On the GPU the
#: bias is added in cuBLASLt's epilogue (one pass over the output).
linear = _nn.linear

__all__ = ["linear"]
