"""HalfNormal(scale): |X| for X ~ Normal(0, scale)."""
import math

from ..ops.creation import zeros_like
from . import constraints
from .continuous import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfNormal"]   # (and Folded, the base HalfCauchy shares)


class Folded(TransformedDistribution):
    """|X| for X of a distribution `_symmetric(0, scale)` symmetric about 0 (HalfNormal, HalfCauchy): the
    density doubled on [0, inf), the cdf and icdf folded, the entropy less log 2."""
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _symmetric = None   # the symmetric distribution's class

    def __init__(self, scale, validate_args=None):
        super().__init__(self._symmetric(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    scale = property(lambda self: self.base_dist.scale)
    mode = property(lambda self: zeros_like(self.scale))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(Folded):
    """The half-normal distribution: the absolute value of a normal variable of mean 0.

    Args:
        scale (Tensor or float): the standard deviation of the normal distribution (positive).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.HalfNormal(torch.tensor([1.0]))
        >>> d.mean, d.log_prob(torch.tensor([1.0]))
        (tensor([0.7979]), tensor([-0.7258]))
    """
    _symmetric = Normal

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, _instance=self._get_checked_instance(HalfNormal, _instance))

    mean = property(lambda self: self.scale * math.sqrt(2 / math.pi))
    variance = property(lambda self: self.scale.pow(2) * (1 - 2 / math.pi))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return log_prob.where(value >= 0, -math.inf)
