"""torch.distributions.binomial: the module torch defines Binomial in (ndgrad's is in discrete.py)."""
from .discrete import Binomial

__all__ = ["Binomial"]
