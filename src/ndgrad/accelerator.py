"""torch.accelerator: the current accelerator, of which ndgrad has none (it computes on the CPU)."""


def is_available():
    return False


def current_accelerator(check_available=False):
    """None: no accelerator (torch's answer on a CPU-only build)."""
    return None


def device_count():
    return 0
