"""torch.amp: automatic mixed precision on the CPU (autocast to bfloat16 / float16, GradScaler)."""
from . import autocast_mode, grad_scaler  # noqa: F401
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
