"""nn.functional.pad: the public form in ops/padding.py."""
from ...ops.padding import pad  # noqa: F401

__all__ = ["pad"]
