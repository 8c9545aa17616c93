"""The univariate continuous distributions: Normal, Uniform, Exponential, Laplace, Beta."""
import math

from .._tensor import Size
from ..ops.random import rand
from ..ops.shape import stack
from . import constraints
from .distribution import Distribution, ExponentialFamily
from .gamma import _sample_gamma
from .utils import _eps, _standard_normal, broadcast_params

__all__ = ["Beta", "Exponential", "Laplace", "Normal", "Uniform"]


class Normal(ExponentialFamily):
    """The normal (Gaussian) distribution of mean `loc` and standard deviation `scale`.

    Args:
        loc (Tensor or float): the mean.
        scale (Tensor or float): the standard deviation (positive).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
        >>> d.log_prob(torch.tensor([0.0, 0.0]))
        tensor([-0.9189, -1.7371])
        >>> d.cdf(torch.tensor([0.0, 1.0])), d.entropy()
        (tensor([0.5000, 0.5000]), tensor([1.4189, 2.1121]))
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        (self.loc, self.scale), batch_shape = broadcast_params(loc, scale)
        super().__init__(batch_shape, validate_args=validate_args)

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)
    stddev = property(lambda self: self.scale)
    variance = property(lambda self: self.stddev.pow(2))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        return self.loc + _standard_normal(shape, self.loc.dtype) * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -((value - self.loc) ** 2) / (2 * self.scale ** 2) - self.scale.log() - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)).erf())

    def icdf(self, value):
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()

    # the exponential-family form (ExponentialFamily.entropy, Bregman KL)
    _mean_carrier_measure = 0
    _natural_params = property(lambda self: (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal()))

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * (-math.pi / y).log()


class Uniform(Distribution):
    """The continuous uniform distribution on the half-open interval ``[low, high)``.

    Args:
        low (Tensor or float): the lower bound (included).
        high (Tensor or float): the upper bound (excluded).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Uniform(torch.tensor([0.0]), torch.tensor([4.0]))
        >>> d.mean, d.variance, d.log_prob(torch.tensor([1.0]))
        (tensor([2.]), tensor([1.3333]), tensor([-1.3863]))
    """
    arg_constraints = {"low": constraints.dependent(is_discrete=False, event_dim=0),
                       "high": constraints.dependent(is_discrete=False, event_dim=0)}
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        (self.low, self.high), batch_shape = broadcast_params(low, high)
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and not bool(self.low.lt(self.high).all()):
            raise ValueError("Uniform is not defined when low>= high")

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    mean = property(lambda self: (self.high + self.low) / 2)
    mode = property(lambda self: math.nan * self.high)
    stddev = property(lambda self: (self.high - self.low) / 12 ** 0.5)
    variance = property(lambda self: (self.high - self.low).pow(2) / 12)

    def rsample(self, sample_shape=Size()):
        u = rand(tuple(self._extended_shape(sample_shape)), dtype=self.low.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        inside = self.low.le(value).type_as(self.low) * self.high.gt(value).type_as(self.low)
        return inside.log() - (self.high - self.low).log()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return (self.high - self.low).log()


class Exponential(ExponentialFamily):
    """The exponential distribution of rate `rate`: density ``rate * exp(-rate * x)`` for x >= 0.

    Args:
        rate (Tensor or float): the rate, 1 / mean (positive).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Exponential(torch.tensor([2.0]))
        >>> d.mean, d.log_prob(torch.tensor([1.0])), d.cdf(torch.tensor([1.0]))
        (tensor([0.5000]), tensor([-1.3069]), tensor([0.8647]))
    """
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,), batch_shape = broadcast_params(rate)
        super().__init__(batch_shape, validate_args=validate_args)

    mean = property(lambda self: self.rate.reciprocal())
    mode = property(lambda self: self.rate.new_zeros(self.rate.shape))
    stddev = property(lambda self: self.rate.reciprocal())
    variance = property(lambda self: self.rate.pow(-2))

    def rsample(self, sample_shape=Size()):
        # torch's draw: exponential_() of the shape, so the same seed gives torch's samples
        return self.rate.new_empty(tuple(self._extended_shape(sample_shape))).exponential_() / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value):
        return -(-value).log1p() / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()

    _mean_carrier_measure = 0
    _natural_params = property(lambda self: (-self.rate,))

    def _log_normalizer(self, x):
        return -(-x).log()


class Laplace(Distribution):
    """The Laplace (double exponential) distribution: density ``exp(-|x - loc| / scale) / (2 * scale)``.

    Args:
        loc (Tensor or float): the location (mean and median).
        scale (Tensor or float): the scale (positive).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Laplace(torch.tensor([0.0]), torch.tensor([1.0]))
        >>> d.variance, d.log_prob(torch.tensor([1.0]))
        (tensor([2.]), tensor([-1.6931]))
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        (self.loc, self.scale), batch_shape = broadcast_params(loc, scale)
        super().__init__(batch_shape, validate_args=validate_args)

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)
    variance = property(lambda self: 2 * self.scale.pow(2))
    stddev = property(lambda self: 2 ** 0.5 * self.scale)

    def rsample(self, sample_shape=Size()):
        eps = _eps(self.loc)
        u = rand(tuple(self._extended_shape(sample_shape)), dtype=self.loc.dtype) * (2 - eps) + (eps - 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * (-(value - self.loc).abs() / self.scale).expm1()

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self):
        return 1 + (2 * self.scale).log()


class Beta(ExponentialFamily):
    """The beta distribution on (0, 1), of density proportional to ``x**(a - 1) * (1 - x)**(b - 1)``.

    Args:
        concentration1 (Tensor or float): a, the first concentration (positive).
        concentration0 (Tensor or float): b, the second concentration (positive).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Beta(torch.tensor([2.0]), torch.tensor([2.0]))
        >>> d.mean, d.variance, d.log_prob(torch.tensor([0.5]))
        (tensor([0.5000]), tensor([0.0500]), tensor([0.4055]))
    """
    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        (self.concentration1, self.concentration0), batch_shape = broadcast_params(concentration1,
                                                                                    concentration0)
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def _concentration(self):
        """The Dirichlet concentration (c1, c0) along a last dimension."""
        return stack([self.concentration1, self.concentration0], -1)

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        c = self._concentration
        cm1 = (c - 1).clamp(min=0)
        interior = cm1[..., 0] / cm1.sum(-1)
        corner = (c[..., 0] >= c[..., 1]).type_as(c)  # both below 1: the larger concentration's end
        return interior.where(~(c < 1).all(-1), corner)

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        x = _sample_gamma(self.concentration1.expand(shape))
        y = _sample_gamma(self.concentration0.expand(shape))
        return x / (x + y)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self._concentration
        x = stack([value, 1.0 - value], -1)
        return (c - 1.0).xlogy(x).sum(-1) + c.sum(-1).lgamma() - c.lgamma().sum(-1)

    def entropy(self):
        c = self._concentration
        a0 = c.sum(-1)
        return c.lgamma().sum(-1) - a0.lgamma() - (2 - a0) * a0.digamma() - ((c - 1.0) * c.digamma()).sum(-1)

    _natural_params = property(lambda self: (self.concentration1, self.concentration0))

    def _log_normalizer(self, x, y):
        return x.lgamma() + y.lgamma() - (x + y).lgamma()
