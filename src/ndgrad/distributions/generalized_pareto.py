"""GeneralizedPareto(loc, scale, concentration): the limit law of threshold exceedances; concentration 0
is the exponential case, a negative one bounds the support above by loc - scale / concentration."""
import math

from .._tensor import Size
from ..ops.creation import ones_like
from ..ops.random import rand
from . import constraints
from .distribution import Distribution
from .utils import broadcast_params

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution, the limit of the tails of many distributions beyond a threshold `loc`.

    Args:
        loc (Tensor or float): the location (the lower end of the support).
        scale (Tensor or float): the scale (positive).
        concentration (Tensor or float): the shape xi: 0 exponential tails, positive heavier ones, negative a bounded
            support.
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.GeneralizedPareto(torch.tensor([0.0]), torch.tensor([1.0]), torch.tensor([0.5]))
        >>> d.mean, d.log_prob(torch.tensor([1.0]))
        (tensor([2.]), tensor([-1.2164]))
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        (self.loc, self.scale, self.concentration), batch_shape = broadcast_params(loc, scale, concentration)
        super().__init__(batch_shape, validate_args=validate_args)

    def _z(self, x):
        return (x - self.loc) / self.scale

    def _zero_and_safe(self):
        """Where concentration is 0, and concentration with those entries made 1 (for formulas in 1/c)."""
        zero = self.concentration == 0
        return zero, self.concentration.where(~zero, ones_like(self.concentration))

    def rsample(self, sample_shape=Size()):
        u = rand(tuple(self._extended_shape(sample_shape)), dtype=self.loc.dtype)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        zero, c = self._zero_and_safe()
        return (-z).where(zero, -(1 / c + 1) * (c * z).log1p()) - self.scale.log()

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        zero, c = self._zero_and_safe()
        return (-z).where(zero, -(c * z).log1p() / c)

    def log_cdf(self, value):
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value):
        return self.log_cdf(value).exp()

    def icdf(self, value):
        zero, c = self._zero_and_safe()
        log1m = (-value).log1p()
        return self.loc + self.scale * (-log1m).where(zero, (-c * log1m).expm1() / c)

    @property
    def mean(self):
        c = self.concentration
        return (self.loc + self.scale / (1 - c)).where(c < 1, math.nan)

    @property
    def variance(self):
        c = self.concentration
        return (self.scale.pow(2) / ((1 - c).pow(2) * (1 - 2 * c))).where(c < 0.5, math.nan)

    def entropy(self):
        return self.scale.log() + self.concentration + 1

    mode = property(lambda self: self.loc)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        upper = (self.loc - self.scale / self.concentration).where(self.concentration < 0, math.inf)
        return constraints.interval(self.loc, upper)
