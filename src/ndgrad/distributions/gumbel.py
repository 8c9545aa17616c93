"""Gumbel(loc, scale): loc - scale log(-log U) for U uniform on (0, 1)."""
import math

from ..ops.creation import ones_like
from . import constraints
from .continuous import Uniform
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .utils import _eps, _tiny, broadcast_all, euler_constant

__all__ = ["Gumbel"]


class Gumbel(TransformedDistribution):
    """The Gumbel (type-I extreme value) distribution: CDF ``exp(-exp(-(x - loc) / scale))``.

    Args:
        loc (Tensor or float): the location (the mode).
        scale (Tensor or float): the scale (positive).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Gumbel(torch.tensor([0.0]), torch.tensor([1.0]))
        >>> d.log_prob(torch.tensor([0.0])), d.cdf(torch.tensor([0.0]))
        (tensor([-1.]), tensor([0.3679]))
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        # U kept inside (0, 1) in the parameters' precision, so that both logarithms are finite
        base = Uniform(self.loc.new_full(tuple(self.loc.shape), _tiny(self.loc)),
                       self.loc.new_full(tuple(self.loc.shape), 1 - _eps(self.loc)), validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(loc=0, scale=-ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc=self.loc, scale=-self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc, new.scale = self.loc.expand(tuple(batch_shape)), self.scale.expand(tuple(batch_shape))
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    mean = property(lambda self: self.loc + self.scale * euler_constant)
    mode = property(lambda self: self.loc)
    stddev = property(lambda self: (math.pi / math.sqrt(6)) * self.scale)
    variance = property(lambda self: self.stddev.pow(2))

    def entropy(self):
        return self.scale.log() + (1 + euler_constant)
