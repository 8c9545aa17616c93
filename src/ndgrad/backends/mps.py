"""torch.backends.mps: Apple's Metal backend, absent from ndgrad."""


def is_available():
    return False


def is_built():
    return False
