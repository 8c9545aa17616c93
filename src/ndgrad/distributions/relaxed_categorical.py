"""RelaxedOneHotCategorical(temperature, probs | logits): the Concrete / Gumbel-softmax relaxation of
OneHotCategorical, exp of ExpRelaxedCategorical (log-space samples, reparameterised)."""
from .._tensor import Size
from ..ops.creation import full_like
from ..ops.random import rand
from . import constraints
from .discrete import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """log_softmax((logits + Gumbel noise) / temperature)."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, Size(batch_shape), self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    param_shape = property(lambda self: self._categorical.param_shape)
    logits = property(lambda self: self._categorical.logits)
    probs = property(lambda self: self._categorical.probs)

    def rsample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        u = clamp_probs(rand(shape, dtype=self.logits.dtype))
        gumbels = -((-(u.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        log_scale = full_like(self.temperature, float(k)).lgamma() - self.temperature.log().mul(-(k - 1))
        score = self.logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """A continuous relaxation of :class:`OneHotCategorical` on the simplex (Gumbel-softmax, Concrete):
    its samples are differentiable and approach one-hot vectors as `temperature` goes to 0.

    Args:
        temperature (Tensor or float): the relaxation temperature (positive).
        probs (Tensor, optional): the (unnormalized, non-negative) probability of each category.
        logits (Tensor, optional): their (unnormalized) log-probabilities; give `probs` or `logits`.
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.RelaxedOneHotCategorical(torch.tensor(0.5), probs=torch.tensor([0.25, 0.75]))
        >>> d.log_prob(torch.tensor([0.5, 0.5]))
        tensor(-0.9808)
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape,
                              _instance=self._get_checked_instance(RelaxedOneHotCategorical, _instance))

    temperature = property(lambda self: self.base_dist.temperature)
    logits = property(lambda self: self.base_dist.logits)
    probs = property(lambda self: self.base_dist.probs)
