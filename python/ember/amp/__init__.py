"""ember.amp (torch.amp): autocast and GradScaler."""
from ember.amp.autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from ember.amp.grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
