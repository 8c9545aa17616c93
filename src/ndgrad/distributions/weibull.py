"""Weibull(scale, concentration): scale * E^(1/concentration) for E ~ Exponential(1)."""
from ..ops.creation import ones_like
from . import constraints
from .continuous import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all, euler_constant

__all__ = ["Weibull"]


class Weibull(TransformedDistribution):
    """The two-parameter Weibull distribution: CDF ``1 - exp(-(x / scale)**concentration)`` for x >= 0.

    Args:
        scale (Tensor or float): lambda, the scale (positive).
        concentration (Tensor or float): k, the shape (positive).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Weibull(torch.tensor([1.0]), torch.tensor([2.0]))
        >>> d.mean, d.log_prob(torch.tensor([1.0]))
        (tensor([0.8862]), tensor([-0.3069]))
    """
    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(ones_like(self.scale), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration_reciprocal), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Weibull, _instance)
        shape = tuple(batch_shape)
        new.scale, new.concentration = self.scale.expand(shape), self.concentration.expand(shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        base = self.base_dist.expand(batch_shape)
        transforms = [PowerTransform(exponent=new.concentration_reciprocal), AffineTransform(loc=0, scale=new.scale)]
        TransformedDistribution.__init__(new, base, transforms, validate_args=False)
        new._validate_args = self._validate_args
        return new

    mean = property(lambda self: self.scale * (1 + self.concentration_reciprocal).lgamma().exp())

    @property
    def mode(self):
        c = self.concentration
        return self.scale * ((c - 1) / c) ** c.reciprocal()

    @property
    def variance(self):
        r = self.concentration_reciprocal
        return self.scale.pow(2) * ((1 + 2 * r).lgamma().exp() - (2 * (1 + r).lgamma()).exp())

    def entropy(self):
        r = self.concentration_reciprocal
        return euler_constant * (1 - r) + (self.scale * r).log() + 1
