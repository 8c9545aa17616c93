"""ndgrad.utils: helpers outside the autograd core (checkpointing)."""
from . import checkpoint  # noqa: F401
