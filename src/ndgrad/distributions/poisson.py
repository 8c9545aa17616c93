"""torch.distributions.poisson: the module torch defines Poisson in (ndgrad's is in discrete.py)."""
from .discrete import Poisson

__all__ = ["Poisson"]
