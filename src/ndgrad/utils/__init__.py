"""ndgrad.utils: helpers outside the autograd core (checkpointing, data loading, benchmarking)."""
from . import checkpoint  # noqa: F401
from . import data  # noqa: F401
from . import benchmark  # noqa: F401
