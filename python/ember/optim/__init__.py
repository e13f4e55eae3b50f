"""ember.optim: SGD, Adam, AdamW (torch's updates, one fused multi-tensor call per
parameter group) and learning-rate schedulers."""
from ember.optim.optimizer import Optimizer
from ember.optim.sgd import SGD
from ember.optim.adam import Adam, AdamW
from ember.optim import lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler"]
