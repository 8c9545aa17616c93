"""ndgrad.utils: helpers outside the autograd core (checkpointing, data loading, benchmarking, DLPack,
TensorBoard logging)."""
from . import checkpoint, dlpack, tensorboard  # noqa: F401
from . import data  # noqa: F401
from . import benchmark  # noqa: F401
