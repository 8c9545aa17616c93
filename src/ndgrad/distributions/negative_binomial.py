"""NegativeBinomial(total_count, probs | logits): the number of successes before total_count failures of
Bernoulli(probs) trials (a Gamma-Poisson mixture)."""
from .._tensor import Size
from ..autograd.grad_mode import no_grad
from ..nn import functional as F
from ..ops.random import poisson
from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import BinaryProbsOrLogits, broadcast_all, lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryProbsOrLogits, Distribution):
    """The negative binomial distribution: the number of successes before `total_count` failures of independent trials
    of success probability `probs`.

    Args:
        total_count (Tensor or float): the number of failures (positive; need not be an integer).
        probs (Tensor or float, optional): the probability of a success (1).
        logits (Tensor or float, optional): its log-odds, ``log(p / (1 - p))``; give `probs` or `logits`.
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.NegativeBinomial(3.0, probs=torch.tensor([0.5]))
        >>> d.mean, d.log_prob(torch.tensor([2.0]))
        (tensor([3.]), tensor([-1.6740]))
    """
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        self._check_one_of(probs, logits)
        given = probs if probs is not None else logits
        total_count, param = broadcast_all(total_count, given)
        self.total_count = total_count.type_as(param)
        setattr(self, "probs" if probs is not None else "logits", param)
        super().__init__(param.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        shape = tuple(batch_shape)
        new.total_count = self.total_count.expand(shape)
        self._expand_probs_or_logits(new, shape)
        Distribution.__init__(new, Size(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    mean = property(lambda self: self.total_count * self.logits.exp())
    mode = property(lambda self: ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0))
    variance = property(lambda self: self.mean / (-self.logits).sigmoid())

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=(-self.logits).exp(), validate_args=False)

    def sample(self, sample_shape=Size()):
        with no_grad():
            return poisson(self._gamma.sample(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        unnormalized = n * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        normalization = -(n + value).lgamma() + (1.0 + value).lgamma() + n.lgamma()
        # total_count + value = 0: the only outcome of zero trials, of log-probability 0
        normalization = normalization.masked_fill(n + value == 0.0, 0.0)
        return unnormalized - normalization
