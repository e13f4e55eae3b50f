"""ember.optim: SGD, Adam, AdamW (torch's updates, one fused multi-tensor call per
parameter group), learning-rate schedulers (lr_scheduler) and weight averaging
(swa_utils, imported on first use)."""
from ember.optim.optimizer import Optimizer
from ember.optim.sgd import SGD
from ember.optim.adam import Adam, AdamW
from ember.optim import lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler", "swa_utils"]


def __getattr__(name):
    if name == "swa_utils":  # imports ember.nn: on first use
        import importlib
        return importlib.import_module("ember.optim.swa_utils")
    raise AttributeError(f"module 'ember.optim' has no attribute {name!r}")
