"""torch.signal: signal-processing helpers (the window functions of torch.signal.windows)."""
from . import windows  # noqa: F401

__all__ = ["windows"]
