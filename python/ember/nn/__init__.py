"""ember.nn: for now only ``ember.nn.functional.linear``."""
from ember.nn import functional

__all__ = ["functional"]
