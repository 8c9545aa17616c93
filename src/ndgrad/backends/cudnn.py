"""torch.backends.cudnn flags. ndgrad has no cuDNN: `is_available()` is False and the flags are
plain settings programs may read and write (torch's defaults), which change nothing on the CPU."""
enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
benchmark_limit = 10


def is_available():
    return False


def version():
    return None
