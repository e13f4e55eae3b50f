"""ember.linalg: torch.linalg's functions that ember has so far (cross, a composite of
bound ops; see ember/_composite_math.py). torch.linalg's decompositions and solvers
are another issue's (cuSOLVER, LAPACK)."""
from ember._composite_math import linalg_cross as cross

__all__ = ["cross"]
