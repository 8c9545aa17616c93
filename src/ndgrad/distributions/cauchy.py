"""Cauchy(loc, scale): the Lorentz distribution, with no mean and no variance."""
import math

from .._tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import broadcast_params

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """The Cauchy (Lorentz) distribution: density ``1 / (pi * scale * (1 + ((x - loc) / scale)**2))``; it has no mean.

    Args:
        loc (Tensor or float): the location (median and mode).
        scale (Tensor or float): the half width at half maximum (positive).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Cauchy(torch.tensor([0.0]), torch.tensor([1.0]))
        >>> d.log_prob(torch.tensor([1.0])), d.cdf(torch.tensor([1.0]))
        (tensor([-1.8379]), tensor([0.7500]))
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        (self.loc, self.scale), batch_shape = broadcast_params(loc, scale)
        super().__init__(batch_shape, validate_args=validate_args)

    mean = property(lambda self: self.loc.new_full(tuple(self._extended_shape()), math.nan))
    mode = property(lambda self: self.loc)
    variance = property(lambda self: self.loc.new_full(tuple(self._extended_shape()), math.inf))

    def rsample(self, sample_shape=Size()):
        # torch's draw: cauchy_() of the shape, so the same seed gives torch's samples
        return self.loc + self.loc.new_empty(tuple(self._extended_shape(sample_shape))).cauchy_() * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - ((value - self.loc) / self.scale).pow(2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value):
        return (math.pi * (value - 0.5)).tan() * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
