"""Geometric(probs | logits): the number of failures before the first success of Bernoulli(probs) trials."""
from .._tensor import Size
from ..autograd.grad_mode import no_grad
from ..nn import functional as F
from ..ops.random import rand
from . import constraints
from .distribution import Distribution
from .utils import BinaryProbsOrLogits, _tiny, broadcast_all, broadcast_params

__all__ = ["Geometric"]


class Geometric(BinaryProbsOrLogits, Distribution):
    """The geometric distribution: the number of failures before the first success of independent trials of success
    probability `probs`.

    Args:
        probs (Tensor or float, optional): the probability of a success (1).
        logits (Tensor or float, optional): its log-odds, ``log(p / (1 - p))``; give `probs` or `logits`.
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Geometric(probs=torch.tensor([0.5]))
        >>> d.mean, d.log_prob(torch.tensor([2.0]))
        (tensor([1.]), tensor([-2.0794]))
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._check_one_of(probs, logits)
        (param,), batch_shape = broadcast_params(probs if probs is not None else logits)
        setattr(self, "probs" if probs is not None else "logits", param)
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            valid = self.probs > 0  # probs = 0 never succeeds: no distribution
            if not bool(valid.all()):
                raise ValueError(f"Expected parameter probs ({type(self.probs).__name__} of shape "
                                 f"{tuple(self.probs.shape)}) of distribution {self!r} to be positive but found "
                                 f"invalid values:\n{self.probs[~valid]}")

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Geometric, _instance)
        self._expand_probs_or_logits(new, batch_shape)
        Distribution.__init__(new, Size(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    mean = property(lambda self: 1.0 / self.probs - 1.0)
    mode = property(lambda self: self.probs.new_zeros(tuple(self.probs.shape)))
    variance = property(lambda self: (1.0 / self.probs - 1.0) / self.probs)

    def sample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            u = rand(shape, dtype=self.probs.dtype).clamp(min=_tiny(self.probs))
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # probs = 1 puts all the mass on 0: 0 * log(0) counts as 0 there
        probs = probs.masked_fill((probs == 1) & (value == 0), 0)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
