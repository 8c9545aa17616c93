"""Gamma, whose rsample is reparameterized through ndgrad._standard_gamma (StandardGammaBackward0),
as torch's is."""

import numpy as np

from .._tensor import Size
from ..ops.special import _standard_gamma
from . import constraints
from .distribution import ExponentialFamily
from .utils import broadcast_params

__all__ = ["Gamma"]


def _sample_gamma(concentration):
    """Gamma(concentration, 1) samples that carry the gradient with respect to concentration."""
    value = _standard_gamma(concentration)
    # keep samples positive; recorded (gradient 1 where no clamping happens), since clamping the sample in
    # place would change the result StandardGammaBackward0 saved
    return value.clamp(min=float(np.finfo(value.detach().numpy().dtype).tiny))


class Gamma(ExponentialFamily):
    """The gamma distribution of shape `concentration` (``a``) and `rate`: density
    ``rate^a x^(a-1) exp(-rate x) / Gamma(a)`` for ``x > 0``.

    Its samples are reparameterized (``rsample`` has gradients); they differ from torch's for the
    same seed (ndgrad's random streams are its own).

    Args:
        concentration (Tensor or float): the shape ``a`` (positive).
        rate (Tensor or float): the rate, one over the scale (positive).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Gamma(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.5]))
        >>> d.mean, d.variance
        (tensor([1., 4.]), tensor([1., 8.]))
        >>> d.log_prob(torch.tensor([1.0, 2.0]))
        tensor([-1.0000, -1.6931])
        >>> d.rsample((3,)).shape
        torch.Size([3, 2])
    """
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        (self.concentration, self.rate), batch_shape = broadcast_params(concentration, rate)
        super().__init__(batch_shape, validate_args=validate_args)

    def rsample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=float(np.finfo(value.detach().numpy().dtype).tiny))
        return value

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        a, rate = self.concentration, self.rate
        return a.xlogy(rate) + (a - 1).xlogy(value) - rate * value - a.lgamma()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.concentration.igamma(self.rate * value)  # the regularised lower incomplete gamma

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def entropy(self):
        a = self.concentration
        return a - self.rate.log() + a.lgamma() + (1.0 - a) * a.digamma()

    _mean_carrier_measure = 0
    _natural_params = property(lambda self: (self.concentration - 1, -self.rate))

    def _log_normalizer(self, x, y):
        return (x + 1).lgamma() + (x + 1) * (-y.reciprocal()).log()
