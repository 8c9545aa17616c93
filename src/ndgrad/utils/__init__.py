"""ndgrad.utils: helpers outside the autograd core (checkpointing)."""
from . import checkpoint, dlpack, tensorboard  # noqa: F401
