"""torch.distributions.categorical: the module torch defines Categorical in (ndgrad's is in discrete.py)."""
from .discrete import Categorical

__all__ = ["Categorical"]
