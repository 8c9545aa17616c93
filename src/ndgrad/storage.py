"""torch.storage: the module that defines the storage classes (also top-level names): UntypedStorage
(bytes) and TypedStorage (a dtype's view of them), ndgrad's from _tensor.py."""
from ._tensor import TypedStorage, UntypedStorage  # noqa: F401

__all__ = ["TypedStorage", "UntypedStorage"]
