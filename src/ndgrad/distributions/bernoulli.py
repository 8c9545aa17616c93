"""torch.distributions.bernoulli: the module torch defines Bernoulli in (ndgrad's is in discrete.py)."""
from .discrete import Bernoulli

__all__ = ["Bernoulli"]
