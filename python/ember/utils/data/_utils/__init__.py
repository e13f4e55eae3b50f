"""Helpers of the DataLoader, laid out as torch.utils.data._utils: ``collate``,
``pin_memory``, ``fetch``, ``worker`` (threads in ember), and ``rng`` (the one
place the data utilities draw random numbers from)."""
from ember.utils.data._utils import collate, fetch, pin_memory, rng, worker

__all__ = ["collate", "fetch", "pin_memory", "rng", "worker"]
