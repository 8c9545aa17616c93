"""Multinomial(total_count, probs | logits): the counts of total_count draws from Categorical(probs)."""
import math

from .._tensor import Size
from ..ops.creation import ones_like, tensor
from . import constraints
from .discrete import Binomial, Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """The multinomial distribution: the counts of each category in `total_count` independent categorical draws.

    Args:
        total_count (int, optional): the number of draws (default: 1).
        probs (Tensor, optional): the (unnormalized, non-negative) probability of each category.
        logits (Tensor, optional): their (unnormalized) log-probabilities; give `probs` or `logits`.
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Multinomial(4, probs=torch.tensor([0.25, 0.75]))
        >>> d.mean, d.log_prob(torch.tensor([1.0, 3.0]))
        (tensor([1., 3.]), tensor(-0.8630))
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, Size(batch_shape), self.event_shape, validate_args=False)
        new._binomial = Binomial(total_count=self.total_count, probs=new.probs)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    logits = property(lambda self: self._categorical.logits)
    probs = property(lambda self: self._categorical.probs)
    param_shape = property(lambda self: self._categorical.param_shape)
    mean = property(lambda self: self.probs * self.total_count)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    def sample(self, sample_shape=Size()):
        sample_shape = Size(sample_shape)
        draws = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        draws = draws.permute(*range(1, draws.dim()), 0)  # the draws last
        counts = draws.new_zeros(tuple(self._extended_shape(sample_shape)))
        counts.scatter_add_(-1, draws, ones_like(draws))
        return counts.type_as(self.probs)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = (value.sum(-1) + 1).lgamma()
        log_factorial_xs = (value + 1).lgamma().sum(-1)
        # a category of probability 0 drawn 0 times contributes 0 (not 0 * -inf)
        logits = logits.masked_fill((value == 0) & (logits == -math.inf), 0)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)

    def entropy(self):
        n = self.total_count
        support = self._binomial.enumerate_support()
        binomial_probs = self._binomial.log_prob(support).exp()
        weights = (support + 1).lgamma()
        return (n * self._categorical.entropy() - tensor(n + 1.0, dtype=self.probs.dtype).lgamma()
                + (binomial_probs * weights).sum([0, -1]))
