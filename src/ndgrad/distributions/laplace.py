"""torch.distributions.laplace: the module torch defines Laplace in (ndgrad's is in continuous.py)."""
from .continuous import Laplace

__all__ = ["Laplace"]
