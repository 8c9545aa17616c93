"""torch.distributions.exponential: the module torch defines Exponential in (ndgrad's is in continuous.py)."""
from .continuous import Exponential

__all__ = ["Exponential"]
