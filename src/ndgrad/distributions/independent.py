"""torch.distributions.independent: the module torch defines Independent in (ndgrad's is in multivariate.py)."""
from .multivariate import Independent

__all__ = ["Independent"]
