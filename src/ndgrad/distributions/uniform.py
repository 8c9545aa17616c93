"""torch.distributions.uniform: the module torch defines Uniform in (ndgrad's is in continuous.py)."""
from .continuous import Uniform

__all__ = ["Uniform"]
