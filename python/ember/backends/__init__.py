"""ember.backends: torch.backends' switches that ember has (``ember.backends.cuda.matmul``)."""
from ember.backends import cuda

__all__ = ["cuda"]
