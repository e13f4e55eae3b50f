"""ember.cuda.amp (torch.cuda.amp): torch's deprecated aliases of ember.amp's
autocast('cuda', ...), GradScaler('cuda', ...), custom_fwd and custom_bwd.
Each warns with torch's FutureWarning when used."""
import functools
import warnings

import ember
from ember.amp import autocast_mode as _am
from ember.amp import grad_scaler as _gs

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


class autocast(_am.autocast):
    """Deprecated: ember.amp.autocast('cuda', ...)."""

    def __init__(self, enabled=True, dtype=ember.float16, cache_enabled=True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. "
                      "Please use `torch.amp.autocast('cuda', args...)` instead.",
                      FutureWarning, stacklevel=2)
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_gs.GradScaler):
    """Deprecated: ember.amp.GradScaler('cuda', ...)."""

    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. "
                      "Please use `torch.amp.GradScaler('cuda', args...)` instead.",
                      FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Deprecated: ember.amp.custom_fwd(..., device_type='cuda')."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. "
                  "Please use `torch.amp.custom_fwd(args..., device_type='cuda')` instead.",
                  FutureWarning, stacklevel=2)
    return functools.partial(_am.custom_fwd, device_type="cuda")(fwd=fwd, cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """Deprecated: ember.amp.custom_bwd(..., device_type='cuda')."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. "
                  "Please use `torch.amp.custom_bwd(args..., device_type='cuda')` instead.",
                  FutureWarning, stacklevel=2)
    return functools.partial(_am.custom_bwd, device_type="cuda")(bwd)
