"""RelaxedBernoulli(temperature, probs | logits): the Concrete / Gumbel-softmax relaxation of Bernoulli,
the sigmoid of LogitRelaxedBernoulli, whose samples are reparameterised."""
from .._tensor import Size
from ..ops.random import rand
from . import constraints
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import BinaryProbsOrLogits, broadcast_all, broadcast_params, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(BinaryProbsOrLogits, Distribution):
    """(logit(U) + logits) / temperature for U uniform on (0, 1)."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        self._check_one_of(probs, logits)
        (param,), batch_shape = broadcast_params(probs if probs is not None else logits)
        setattr(self, "probs" if probs is not None else "logits", param)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        new.temperature = self.temperature
        self._expand_probs_or_logits(new, batch_shape)
        Distribution.__init__(new, Size(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    param_shape = property(lambda self: self._param.shape)

    def rsample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        probs = clamp_probs(self.probs.expand(shape))
        u = clamp_probs(rand(shape, dtype=probs.dtype))
        return (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """A continuous relaxation of the Bernoulli distribution on (0, 1) (binary Concrete): its samples
    are differentiable and approach 0 or 1 as `temperature` goes to 0.

    Args:
        temperature (Tensor or float): the relaxation temperature (positive).
        probs (Tensor or float, optional): the probability of a success (1).
        logits (Tensor or float, optional): its log-odds, ``log(p / (1 - p))``; give `probs` or `logits`.
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.RelaxedBernoulli(torch.tensor([0.5]), probs=torch.tensor([0.25]))
        >>> d.log_prob(torch.tensor([0.5]))
        tensor([-0.9808])
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, _instance=self._get_checked_instance(RelaxedBernoulli, _instance))

    temperature = property(lambda self: self.base_dist.temperature)
    logits = property(lambda self: self.base_dist.logits)
    probs = property(lambda self: self.base_dist.probs)
