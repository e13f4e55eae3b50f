"""ember.backends: torch.backends' switches that ember has (``ember.backends.cuda.matmul``)
and ``ember.backends.mps`` (absent: ``is_available()`` is False)."""
from ember.backends import cuda, mps

__all__ = ["cuda", "mps"]
