"""Kumaraswamy(concentration1, concentration0): (1 - (1 - U)^(1/b))^(1/a) for U uniform, a Beta-like
law on (0, 1) with a closed-form cdf."""
import math

from ..ops.creation import full_like
from . import constraints
from .continuous import Uniform
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moment(a, b, n):
    """E[X^n] = b B(1 + n/a, b)."""
    arg = 1 + n / a
    return b * (arg.lgamma() + b.lgamma() - (arg + b).lgamma()).exp()


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution on (0, 1): density ``a * b * x**(a - 1) * (1 - x**a)**(b - 1)``.

    Args:
        concentration1 (Tensor or float): a (positive).
        concentration0 (Tensor or float): b (positive).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Kumaraswamy(torch.tensor([2.0]), torch.tensor([2.0]))
        >>> d.mean, d.log_prob(torch.tensor([0.5]))
        (tensor([0.5333]), tensor([0.4055]))
    """
    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(full_like(self.concentration0, 0), full_like(self.concentration0, 1),
                       validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()), AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(tuple(batch_shape))
        new.concentration0 = self.concentration0.expand(tuple(batch_shape))
        return super().expand(batch_shape, _instance=new)

    mean = property(lambda self: _moment(self.concentration1, self.concentration0, 1))

    @property
    def mode(self):
        # ((a - 1) / (a b - 1))^(1/a), defined when both concentrations are at least 1
        a, b = self.concentration1, self.concentration0
        log_mode = ((a - 1).log() - (a * b - 1).log()) / a
        return log_mode.exp().masked_fill((a < 1) | (b < 1), math.nan)

    @property
    def variance(self):
        return _moment(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        harmonic = (self.concentration0 + 1).digamma() + euler_constant
        return t0 + t1 * harmonic - self.concentration1.log() - self.concentration0.log()
