"""torch.amp: autocast regions and gradient scaling (see autocast_mode and grad_scaler)."""
import warnings

from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]


def deprecated_spellings(device):
    """`torch.<device>.amp`'s autocast and GradScaler: the old per-device spellings, which warn (as
    torch's do) and then are `autocast(device)` and `GradScaler(device)`."""
    def warn(name):
        warnings.warn(f"`torch.{device}.amp.{name}(args...)` is deprecated. Please use "
                      f"`torch.amp.{name}('{device}', args...)` instead.", FutureWarning, stacklevel=3)

    class Autocast(autocast):
        def __init__(self, enabled=True, dtype=None, cache_enabled=True):
            warn("autocast")
            super().__init__(device, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    class Scaler(GradScaler):
        def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                     enabled=True):
            warn("GradScaler")
            super().__init__(device, init_scale, growth_factor, backoff_factor, growth_interval, enabled)

    Autocast.__name__ = Autocast.__qualname__ = "autocast"
    Scaler.__name__ = Scaler.__qualname__ = "GradScaler"
    Autocast.__module__ = Scaler.__module__ = f"ndgrad.{device}.amp"
    return Autocast, Scaler
