"""torch.distributions.exp_family: the module torch defines ExponentialFamily in (ndgrad's is in distribution.py)."""
from .distribution import ExponentialFamily

__all__ = ["ExponentialFamily"]
