"""InverseGamma(concentration, rate): 1 / X for X ~ Gamma(concentration, rate)."""
import math

from . import constraints
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """The inverse gamma distribution: the reciprocal of a :class:`Gamma` variable.

    Args:
        concentration (Tensor or float): the shape alpha (positive).
        rate (Tensor or float): the scale beta, the rate of the gamma variable (positive).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.InverseGamma(torch.tensor([3.0]), torch.tensor([2.0]))
        >>> d.mean, d.log_prob(torch.tensor([1.0]))
        (tensor([1.]), tensor([-0.6137]))
    """
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        super().__init__(base, PowerTransform(base.rate.new_tensor(-1.0)), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, _instance=self._get_checked_instance(InverseGamma, _instance))

    concentration = property(lambda self: self.base_dist.concentration)
    rate = property(lambda self: self.base_dist.rate)

    @property
    def mean(self):
        return (self.rate / (self.concentration - 1)).where(self.concentration > 1, math.inf)

    mode = property(lambda self: self.rate / (self.concentration + 1))

    @property
    def variance(self):
        a = self.concentration
        return (self.rate.pow(2) / ((a - 1).pow(2) * (a - 2))).where(a > 2, math.inf)

    def entropy(self):
        a = self.concentration
        return a + self.rate.log() + a.lgamma() - (1 + a) * a.digamma()
