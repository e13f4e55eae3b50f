"""ember.utils: torch.utils' place. ``ember.utils.data`` holds datasets,
samplers and the DataLoader."""
from ember.utils import data

__all__ = ["data"]
