"""Dirichlet(concentration): the conjugate prior of the categorical probabilities, on the simplex."""
from .._tensor import Size
from ..nn import functional as F
from ..ops.special import _standard_gamma
from . import constraints
from .distribution import Distribution, ExponentialFamily
from .utils import _tiny

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution over probability vectors (the simplex) of the last dimension's size.

    Args:
        concentration (Tensor): the concentrations, of shape ``(*batch, K)`` (positive).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Dirichlet(torch.tensor([1.0, 2.0, 1.0]))
        >>> d.mean, d.log_prob(torch.tensor([0.25, 0.5, 0.25]))
        (tensor([0.2500, 0.5000, 0.2500]), tensor(1.0986))
    """
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(tuple(batch_shape + self.event_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        # normalised Gamma(concentration_i, 1) draws; the gradient flows through each Gamma draw
        gammas = _standard_gamma(self.concentration.expand(tuple(self._extended_shape(sample_shape))))
        value = gammas / gammas.sum(-1, True)
        value.detach().clamp_(min=_tiny(value))  # in place, unrecorded: the division saved its inputs, not this
        return value

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return (c - 1.0).xlogy(value).sum(-1) + c.sum(-1).lgamma() - c.lgamma().sum(-1)

    mean = property(lambda self: self.concentration / self.concentration.sum(-1, True))

    @property
    def mode(self):
        cm1 = (self.concentration - 1).clamp(min=0.0)
        mode = cm1 / cm1.sum(-1, True)
        # all concentrations below 1: the density peaks at the vertex of the largest one
        corner = F.one_hot(self.concentration.argmax(-1), cm1.shape[-1]).to(mode.dtype)
        return mode.where(~(self.concentration < 1).all(-1, keepdim=True), corner)

    @property
    def variance(self):
        total = self.concentration.sum(-1, True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def entropy(self):
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (self.concentration.lgamma().sum(-1) - a0.lgamma() - (k - a0) * a0.digamma()
                - ((self.concentration - 1.0) * self.concentration.digamma()).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()
