"""torch.cpu.amp: the deprecated CPU spellings of ndgrad.amp (they warn, then work)."""
import warnings

from .. import amp as _amp


def _deprecated(name):
    warnings.warn(f"`torch.cpu.amp.{name}(args...)` is deprecated. Please use `torch.amp.{name}('cpu', args...)` "
                  "instead.", FutureWarning, stacklevel=3)


class autocast(_amp.autocast):
    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        _deprecated("autocast")
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        _deprecated("GradScaler")
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
