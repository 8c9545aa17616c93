"""ndgrad.utils.dlpack (torch.utils.dlpack): exchange tensors with other libraries without copying."""
from ..ops.creation import from_dlpack


def to_dlpack(tensor):
    """A DLPack capsule of `tensor`'s memory (prefer passing the tensor itself to the consumer's
    `from_dlpack`, which calls `tensor.__dlpack__()`)."""
    return tensor.__dlpack__(max_version=(1, 0))   # a versioned capsule: consumers may write through it


__all__ = ["from_dlpack", "to_dlpack"]
