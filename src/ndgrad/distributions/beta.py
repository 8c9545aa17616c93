"""torch.distributions.beta: the module torch defines Beta in (ndgrad's is in continuous.py)."""
from .continuous import Beta

__all__ = ["Beta"]
