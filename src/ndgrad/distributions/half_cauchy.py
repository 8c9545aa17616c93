"""HalfCauchy(scale): |X| for X ~ Cauchy(0, scale)."""
import math

from .cauchy import Cauchy
from .half_normal import Folded

__all__ = ["HalfCauchy"]


class HalfCauchy(Folded):
    """The half-Cauchy distribution: the absolute value of a Cauchy variable centered at 0.

    Args:
        scale (Tensor or float): the scale of the Cauchy distribution (positive).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.HalfCauchy(torch.tensor([1.0]))
        >>> d.log_prob(torch.tensor([1.0])), d.cdf(torch.tensor([1.0]))
        (tensor([-1.1447]), tensor([0.5000]))
    """
    _symmetric = Cauchy

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, _instance=self._get_checked_instance(HalfCauchy, _instance))

    mean = property(lambda self: self.scale.new_full(tuple(self._extended_shape()), math.inf))
    variance = property(lambda self: self.base_dist.variance)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return log_prob.masked_fill(value.expand(log_prob.shape) < 0, -math.inf)
