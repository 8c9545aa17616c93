"""torch.distributions.multivariate_normal: the module torch defines MultivariateNormal in
(ndgrad's is in multivariate.py)."""
from .multivariate import MultivariateNormal

__all__ = ["MultivariateNormal"]
