"""torch.mps as it is in a PyTorch build without Apple's Metal backend: ndgrad computes on the CPU only,
so `device_count()` is 0 and the calls that need the backend raise torch's RuntimeError."""


def is_available():
    return False


def device_count():
    return 0


def manual_seed(seed):
    return None   # as torch without MPS: nothing to seed


def _needs_backend(what):
    def refuse(*args, **kwargs):
        raise RuntimeError(f"Cannot execute {what}() without MPS backend.")
    return refuse


synchronize = _needs_backend("deviceSynchronize")
empty_cache = _needs_backend("emptyCache")
current_allocated_memory = _needs_backend("getCurrentAllocatedMemory")
driver_allocated_memory = _needs_backend("getDriverAllocatedMemory")
recommended_max_memory = _needs_backend("getRecommendedMaxMemory")
seed = get_rng_state = set_rng_state = _needs_backend("getDefaultGenerator")
