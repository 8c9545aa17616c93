"""The discrete distributions: Bernoulli, Categorical, OneHotCategorical, Poisson, Binomial."""
import math
import numbers

import numpy as np

from .._tensor import Size
from ..nn import functional as F
from ..ops.creation import arange
from ..ops.random import bernoulli, binomial, multinomial, poisson
from ..ops.shape import broadcast_tensors
from . import constraints
from .distribution import Distribution, ExponentialFamily
from .utils import BinaryProbsOrLogits, broadcast_all, broadcast_params, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Bernoulli", "Binomial", "Categorical", "OneHotCategorical", "Poisson"]


def _one_of(probs, logits):
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class Bernoulli(BinaryProbsOrLogits, ExponentialFamily):
    """The Bernoulli distribution: 1 with probability `probs`, else 0.

    Args:
        probs (Tensor or float, optional): the probability of a success (1).
        logits (Tensor or float, optional): its log-odds, ``log(p / (1 - p))``; give `probs` or `logits`.
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Bernoulli(probs=torch.tensor([0.25]))
        >>> d.mean, d.log_prob(torch.tensor([1.0])), d.entropy()
        (tensor([0.2500]), tensor([-1.3863]), tensor([0.5623]))
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        given = probs if probs is not None else logits
        (param,), batch_shape = broadcast_params(given)
        setattr(self, "probs" if probs is not None else "logits", param)
        super().__init__(batch_shape, validate_args=validate_args)

    mean = property(lambda self: self.probs)
    variance = property(lambda self: self.probs * (1 - self.probs))

    @property
    def mode(self):
        half = self.probs == 0.5
        return (self.probs >= 0.5).to(self.probs.dtype).masked_fill(half, math.nan)

    def sample(self, sample_shape=Size()):
        return bernoulli(self.probs.detach().expand(tuple(self._extended_shape(sample_shape))))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    _mean_carrier_measure = 0
    _natural_params = property(lambda self: (self.logits,))

    def _log_normalizer(self, x):
        return x.exp().log1p()

    def enumerate_support(self, expand=True):
        values = arange(2, dtype=self._param.dtype).reshape((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values


class Categorical(Distribution):
    """The categorical distribution over the indices ``0 .. K - 1`` of the last dimension of `probs`.

    Args:
        probs (Tensor, optional): the (unnormalized, non-negative) probability of each category.
        logits (Tensor, optional): their (unnormalized) log-probabilities; give `probs` or `logits`.
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Categorical(probs=torch.tensor([1.0, 1.0, 2.0]))
        >>> d.probs, d.log_prob(torch.tensor(2)), d.entropy()
        (tensor([0.2500, 0.2500, 0.5000]), tensor(-0.6931), tensor(1.0397))
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        param = self._param
        self._num_events = param.shape[-1]
        super().__init__(param.shape[:-1] if param.dim() > 1 else Size(()), validate_args=validate_args)

    @property
    def _param(self):
        return self.__dict__["probs"] if "probs" in self.__dict__ else self.__dict__["logits"]

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.shape

    @property
    def mean(self):
        return self.probs.new_full(tuple(self._extended_shape()), math.nan)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return self.probs.new_full(tuple(self._extended_shape()), math.nan)

    def sample(self, sample_shape=Size()):
        sample_shape = Size(sample_shape)
        probs_2d = self.probs.detach().reshape(-1, self._num_events)
        samples_2d = multinomial(probs_2d, max(sample_shape.numel(), 1), True).T
        return samples_2d.reshape(tuple(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        logits = self.logits.clamp(min=float(np.finfo(self.logits.detach().numpy().dtype).min))
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = arange(self._num_events).reshape((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values


class OneHotCategorical(Distribution):
    """The categorical distribution with its samples as one-hot vectors over the last dimension.

    Args:
        probs (Tensor, optional): the (unnormalized, non-negative) probability of each category.
        logits (Tensor, optional): their (unnormalized) log-probabilities; give `probs` or `logits`.
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.OneHotCategorical(probs=torch.tensor([0.25, 0.75]))
        >>> d.mean, d.log_prob(torch.tensor([0.0, 1.0])), d.event_shape
        (tensor([0.2500, 0.7500]), tensor(-0.2877), torch.Size([2]))
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        param = self._categorical._param
        super().__init__(self._categorical.batch_shape, param.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(OneHotCategorical, _instance)
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, Size(batch_shape), self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    _param = property(lambda self: self._categorical._param)
    probs = property(lambda self: self._categorical.probs)
    logits = property(lambda self: self._categorical.logits)
    param_shape = property(lambda self: self._categorical.param_shape)
    mean = property(lambda self: self._categorical.probs)
    variance = property(lambda self: self._categorical.probs * (1 - self._categorical.probs))

    @property
    def mode(self):
        return F.one_hot(self._categorical.mode, self._event_shape[0]).to(self.probs.dtype)

    def sample(self, sample_shape=Size()):
        indices = self._categorical.sample(sample_shape)
        return F.one_hot(indices, self._event_shape[0]).to(self.probs.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        n = self._event_shape[0]
        values = F.one_hot(arange(n), n).to(self._param.dtype).reshape((n,) + (1,) * len(self._batch_shape) + (n,))
        return values.expand((n,) + tuple(self._batch_shape) + (n,)) if expand else values


class Poisson(ExponentialFamily):
    """The Poisson distribution of rate `rate`: the number of events in an interval where on average `rate` happen.

    Args:
        rate (Tensor or float): the mean number of events (non-negative).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Poisson(torch.tensor([2.0]))
        >>> d.log_prob(torch.tensor([0.0, 2.0])), d.variance
        (tensor([-2.0000, -1.3069]), tensor([2.]))
    """
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,), batch_shape = broadcast_params(rate)
        super().__init__(batch_shape, validate_args=validate_args)

    mean = property(lambda self: self.rate)
    mode = property(lambda self: self.rate.floor())
    variance = property(lambda self: self.rate)

    def sample(self, sample_shape=Size()):
        return poisson(self.rate.detach().expand(tuple(self._extended_shape(sample_shape))))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    _natural_params = property(lambda self: (self.rate.log(),))

    def _log_normalizer(self, x):
        return x.exp()


def _clamp_by_zero(x):
    # max(x, 0) whose gradient at 0 is 1/2, as torch's
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(BinaryProbsOrLogits, Distribution):
    """The binomial distribution: the number of successes in `total_count` independent trials of success probability
    `probs`.

    Args:
        total_count (Tensor or int, optional): the number of trials (default: 1).
        probs (Tensor or float, optional): the probability of a success (1).
        logits (Tensor or float, optional): its log-odds, ``log(p / (1 - p))``; give `probs` or `logits`.
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Binomial(4, probs=torch.tensor([0.5]))
        >>> d.mean, d.variance, d.log_prob(torch.tensor([2.0]))
        (tensor([2.]), tensor([1.]), tensor([-0.9808]))
    """
    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        given = probs if probs is not None else logits
        total_count, param = broadcast_all(total_count, given)
        self.total_count = total_count.type_as(param)
        setattr(self, "probs" if probs is not None else "logits", param)
        super().__init__(Size(()) if isinstance(given, numbers.Number) else param.shape, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    mean = property(lambda self: self.total_count * self.probs)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    def sample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        return binomial(self.total_count.detach().expand(shape), self.probs.detach().expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        normalize = n * _clamp_by_zero(logits) + n * (-logits.abs()).exp().log1p() - (n + 1).lgamma()
        return value * logits - (value + 1).lgamma() - (n - value + 1).lgamma() - normalize

    def _homogeneous_count(self, what):
        count = int(self.total_count.max())
        if not int(self.total_count.min()) == count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return count

    def entropy(self):
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        count = self._homogeneous_count("enumerate_support")
        values = arange(1 + count, dtype=self._param.dtype).reshape((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
