"""torch.distributions.normal: the module torch defines Normal in (ndgrad's is in continuous.py)."""
from .continuous import Normal

__all__ = ["Normal"]
