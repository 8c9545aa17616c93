"""torch.cuda.amp: the deprecated CUDA spellings of ndgrad.amp. Without CUDA, both warn and
disable themselves, as torch's do on a machine without CUDA."""
import warnings

from .. import amp as _amp


def _deprecated(name):
    warnings.warn(f"`torch.cuda.amp.{name}(args...)` is deprecated. Please use `torch.amp.{name}('cuda', args...)` "
                  "instead.", FutureWarning, stacklevel=3)


class autocast(_amp.autocast):
    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        _deprecated("autocast")
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        _deprecated("GradScaler")
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    return _amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    return _amp.custom_bwd(bwd, device_type="cuda")
