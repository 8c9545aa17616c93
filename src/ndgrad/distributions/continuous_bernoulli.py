"""ContinuousBernoulli(probs | logits): the density C(p) p^x (1-p)^(1-x) on [0, 1] (Loaiza-Ganem and
Cunningham, 2019). Near p = 1/2 the closed forms cancel catastrophically: inside `lims` a Taylor
expansion around 1/2 is used instead."""
import math

from .._tensor import Size
from ..autograd.grad_mode import no_grad
from ..nn import functional as F
from ..ops.creation import ones_like, zeros_like
from ..ops.random import rand
from . import constraints
from .distribution import Distribution, ExponentialFamily
from .utils import BinaryProbsOrLogits, broadcast_all, broadcast_params, clamp_probs, lazy_property, logits_to_probs

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(BinaryProbsOrLogits, ExponentialFamily):
    """The continuous Bernoulli distribution on [0, 1]: density proportional to ``p**x * (1 - p)**(1 - x)``.

    Args:
        probs (Tensor or float, optional): the shape parameter p in (0, 1).
        logits (Tensor or float, optional): its log-odds; give `probs` or `logits`.
        lims (tuple of two floats, optional): around p = 0.5 the normalizing constant is computed from a
            Taylor expansion, for stability.
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.ContinuousBernoulli(probs=torch.tensor([0.8]))
        >>> d.log_prob(torch.tensor([0.5])), d.mean
        (tensor([-0.0788]), tensor([0.6120]))
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        self._check_one_of(probs, logits)
        if probs is not None:
            (self.probs,), batch_shape = broadcast_params(probs)
            # checked before clamping, which would hide values outside [0, 1]
            if validate_args is not None and not bool(self.arg_constraints["probs"].check(self.probs).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            (self.logits,), batch_shape = broadcast_params(logits)
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        self._expand_probs_or_logits(new, batch_shape)
        Distribution.__init__(new, Size(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    param_shape = property(lambda self: self._param.shape)

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        return self.probs.where(self._outside_unstable_region(), self._lims[0] * ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """log C(p) = log(|log(1-p) - log p| / |1 - 2p|)."""
        cut = self._cut_probs()
        below = cut.where(cut <= 0.5, zeros_like(cut))
        above = cut.where(cut >= 0.5, ones_like(cut))
        log_norm = ((-cut).log1p() - cut.log()).abs().log() - (-2.0 * below).log1p().where(
            cut <= 0.5, (2.0 * above - 1.0).log())
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return log_norm.where(self._outside_unstable_region(), taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / ((-cut).log1p() - cut.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return mus.where(self._outside_unstable_region(), taylor)

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def variance(self):
        cut = self._cut_probs()
        vars_ = cut * (cut - 1.0) / (1.0 - 2.0 * cut).pow(2) + 1.0 / ((-cut).log1p() - cut.log()).pow(2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return vars_.where(self._outside_unstable_region(), taylor)

    def sample(self, sample_shape=Size()):
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()):
        u = rand(tuple(self._extended_shape(sample_shape)), dtype=self.probs.dtype)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none") + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (cut.pow(value) * (1.0 - cut).pow(1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = cdfs.where(self._outside_unstable_region(), value)
        return zeros_like(value).where(value <= 0.0, ones_like(value).where(value >= 1.0, unbounded))

    def icdf(self, value):
        cut = self._cut_probs()
        inv = ((-cut + value * (2.0 * cut - 1.0)).log1p() - (-cut).log1p()) / (cut.log() - (-cut).log1p())
        return inv.where(self._outside_unstable_region(), value)

    def entropy(self):
        log_probs0 = (-self.probs).log1p()
        log_probs1 = self.probs.log()
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """log of the normaliser as a function of the natural parameter (Taylor expansion near 0)."""
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = x.where(outside, (self._lims[0] - 0.5) * ones_like(x))
        log_norm = (cut.exp() - 1.0).abs().log() - cut.abs().log()
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return log_norm.where(outside, taylor)
