"""ndgrad.distributions: torch.distributions' base class, constraints, the most used distributions
and kl_divergence, written with ndgrad ops so that gradients flow through log_prob, entropy and rsample."""
from . import constraints
from .continuous import Beta, Exponential, Laplace, Normal, Uniform
from .discrete import Bernoulli, Binomial, Categorical, OneHotCategorical, Poisson
from .distribution import Distribution, ExponentialFamily
from .gamma import Gamma
from .kl import kl_divergence, register_kl
from .multivariate import Independent, MultivariateNormal

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Distribution", "Exponential", "ExponentialFamily",
           "Gamma", "Independent", "Laplace", "MultivariateNormal", "Normal", "OneHotCategorical", "Poisson",
           "Uniform", "constraints", "kl_divergence", "register_kl"]
