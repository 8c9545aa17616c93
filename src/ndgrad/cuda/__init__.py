"""torch.cuda as it is in a PyTorch build without CUDA: ndgrad computes on the CPU only (its CuPy
backend is not wired to the ops), so `is_available()` is False and the calls that need a device
raise torch's AssertionError; the calls torch answers without a device (seeding, memory counters,
empty_cache) answer the same way here."""
import importlib

_NO_CUDA = "Torch not compiled with CUDA enabled"


def _lazy_init():
    raise AssertionError(_NO_CUDA)


def is_available():
    return False


def is_initialized():
    return False


def device_count():
    return 0


def is_bf16_supported(including_emulation=True):
    return False


# seeding records nothing: there is no CUDA generator to seed (the CPU one is torch.manual_seed's)
def manual_seed(seed):
    int(seed)


def manual_seed_all(seed):
    int(seed)


def seed():
    pass


def seed_all():
    pass


def empty_cache():
    pass


def memory_allocated(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def memory_reserved(device=None):
    return 0


def max_memory_reserved(device=None):
    return 0


def synchronize(device=None):
    _lazy_init()


def current_device():
    _lazy_init()


def set_device(device):
    _lazy_init()


def get_device_name(device=None):
    _lazy_init()


def get_device_capability(device=None):
    _lazy_init()


def get_device_properties(device=None):
    _lazy_init()


def initial_seed():
    _lazy_init()


def get_rng_state(device="cuda"):
    _lazy_init()


def set_rng_state(new_state, device="cuda"):
    _lazy_init()


def mem_get_info(device=None):
    _lazy_init()


def current_stream(device=None):
    _lazy_init()


def __getattr__(name):
    # torch.cuda.amp, imported on first use (PEP 562) so that `import ndgrad` does not load amp
    if name == "amp":
        return importlib.import_module(".amp", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
