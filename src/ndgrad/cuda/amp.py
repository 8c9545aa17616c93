"""torch.cuda.amp: the deprecated CUDA spellings of ndgrad.amp. Without CUDA, both warn and
disable themselves, as torch's do on a machine without CUDA."""
from .. import amp as _amp

autocast, GradScaler = _amp.deprecated_spellings("cuda")


def custom_fwd(fwd=None, *, cast_inputs=None):
    return _amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    return _amp.custom_bwd(bwd, device_type="cuda")
