"""LowRankMultivariateNormal(loc, cov_factor, cov_diag): covariance W W^T + diag(D) with W of rank m,
its log-determinant and Mahalanobis distance through the m x m capacitance matrix I + W^T D^-1 W."""
import math

import numpy as np

from .._tensor import Size
from ..linalg import cholesky, solve_triangular
from ..ops.creation import eye
from . import constraints
from .distribution import Distribution
from .multivariate import _mahalanobis
from .utils import _standard_normal, lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _capacitance_tril(W, D):
    """Cholesky factor of I + W^T D^-1 W."""
    m = W.shape[-1]
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    return cholesky(Wt_Dinv @ W + eye(m, dtype=W.dtype))


def _lowrank_logdet(W, D, capacitance_tril):
    """log det(W W^T + D) = log det(capacitance) + log det(D)."""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def _lowrank_mahalanobis(W, D, x, capacitance_tril):
    """x^T (W W^T + D)^-1 x by the Woodbury identity."""
    Wt_Dinv_x = ((W.mT / D.unsqueeze(-2)) @ x.unsqueeze(-1)).squeeze(-1)
    return (x.pow(2) / D).sum(-1) - _mahalanobis(capacitance_tril, Wt_Dinv_x)


class LowRankMultivariateNormal(Distribution):
    """The multivariate normal distribution with covariance ``cov_factor @ cov_factor.mT + diag(cov_diag)``
    (a low-rank plus diagonal form, cheap for large event sizes).

    Args:
        loc (Tensor): the mean, of shape ``(*batch, n)``.
        cov_factor (Tensor): the low-rank factor, of shape ``(*batch, n, rank)``.
        cov_diag (Tensor): the diagonal part, of shape ``(*batch, n)`` (positive).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> W = torch.tensor([[1.0], [0.0]])
        >>> d = torch.distributions.LowRankMultivariateNormal(torch.zeros(2), W, torch.ones(2))
        >>> d.covariance_matrix, d.log_prob(torch.zeros(2))
        (tensor([[2., 0.],
                [0., 1.]]), tensor(-2.1845))
    """
    arg_constraints = {"loc": constraints.real_vector, "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        batch = tuple(np.broadcast_shapes(tuple(loc.shape[:-1]), tuple(cov_factor.shape[:-2]),
                                          tuple(cov_diag.shape[:-1])))
        n, m = event_shape[0], cov_factor.shape[-1]
        self.loc = loc.expand(batch + (n,))
        self.cov_factor = cov_factor.expand(batch + (n, m))
        self.cov_diag = cov_diag.expand(batch + (n,))
        self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag = cov_factor, cov_diag
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)
        super().__init__(batch, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch = tuple(batch_shape)
        new.loc = self.loc.expand(batch + tuple(self.event_shape))
        new.cov_factor = self.cov_factor.expand(batch + tuple(self.cov_factor.shape[-2:]))
        new.cov_diag = self.cov_diag.expand(batch + tuple(self.event_shape))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        Distribution.__init__(new, Size(batch_shape), self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)

    @lazy_property
    def variance(self):
        v = self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
        return v.expand(tuple(self._batch_shape + self._event_shape))

    def _full(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def scale_tril(self):
        # the Cholesky factor of the covariance, scaled by sqrt(D) first for conditioning
        n = self._event_shape[0]
        sqrt_d = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        Dinvsqrt_W = self._unbroadcasted_cov_factor / sqrt_d
        K = Dinvsqrt_W @ Dinvsqrt_W.mT + eye(n, dtype=self.loc.dtype)
        return (sqrt_d * cholesky(K)).expand(self._full())

    @lazy_property
    def covariance_matrix(self):
        W = self._unbroadcasted_cov_factor
        return (W @ W.mT + self._unbroadcasted_cov_diag.diag_embed()).expand(self._full())

    @lazy_property
    def precision_matrix(self):
        # Woodbury: D^-1 - D^-1 W C^-1 W^T D^-1
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        Wt_Dinv = W.mT / D.unsqueeze(-2)
        A = solve_triangular(self._capacitance_tril, Wt_Dinv, upper=False)
        return ((1 / D).diag_embed() - A.mT @ A).expand(self._full())

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        m = self.cov_factor.shape[-1]
        eps_W = _standard_normal(tuple(shape[:-1]) + (m,), self.loc.dtype)
        eps_D = _standard_normal(shape, self.loc.dtype)
        return (self.loc + (self._unbroadcasted_cov_factor @ eps_W.unsqueeze(-1)).squeeze(-1)
                + self._unbroadcasted_cov_diag.sqrt() * eps_D)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        M = _lowrank_mahalanobis(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, value - self.loc,
                                 self._capacitance_tril)
        log_det = _lowrank_logdet(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                  self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + log_det + M)

    def entropy(self):
        log_det = _lowrank_logdet(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                  self._capacitance_tril)
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + log_det)
        return H if len(self._batch_shape) == 0 else H.expand(tuple(self._batch_shape))
