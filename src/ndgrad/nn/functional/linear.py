"""nn.functional.linear (addmm or matmul, as torch picks) and bilinear (ops/linalg.py)."""
from ...ops.linalg import bilinear, linear

__all__ = ["bilinear", "linear"]
