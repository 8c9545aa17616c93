"""torch.xpu as it is in a PyTorch build without Intel GPU support: ndgrad computes on the CPU only, so
`is_available()` is False, the calls that need a device raise torch's AssertionError, and the ones
torch answers without a device (seeding, memory counters, empty_cache) answer the same way here."""

# the questions torch answers alike for every absent device
from ..cuda import device_count, is_available, is_bf16_supported, is_initialized  # noqa: F401

_NO_XPU = "Torch not compiled with XPU enabled"


def _needs_device(*args, **kwargs):
    raise AssertionError(_NO_XPU)


init = current_device = synchronize = get_device_name = get_device_properties = get_device_capability = \
    current_stream = get_rng_state = set_rng_state = set_device = _needs_device


def _nothing(*args, **kwargs):
    return None


# seeding records nothing: there is no XPU generator to seed (the CPU one is torch.manual_seed's)
manual_seed = manual_seed_all = seed = seed_all = empty_cache = _nothing


def _zero(device=None):
    return 0


memory_allocated = max_memory_allocated = memory_reserved = max_memory_reserved = _zero
