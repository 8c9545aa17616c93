"""Wishart(df, covariance_matrix | precision_matrix | scale_tril): the law of sums of df outer products
of MultivariateNormal(0, covariance) vectors, on positive-definite matrices; rsample by Bartlett's
decomposition."""
import math
import numbers
import warnings

import numpy as np

from .._tensor import Size
from ..linalg import cholesky
from ..ops.creation import arange, tensor, tril_indices
from . import constraints
from .chi2 import Chi2
from .distribution import Distribution, ExponentialFamily
from .multivariate import _precision_to_scale_tril
from .utils import _eps, _standard_normal, lazy_property

__all__ = ["Wishart"]


def _mvdigamma(x, p):
    """The derivative of the multivariate log-gamma function: sum of digamma(x - i / 2), i < p."""
    return (x.unsqueeze(-1) - arange(p, dtype=x.dtype) / 2).digamma().sum(-1)


class Wishart(ExponentialFamily):
    """The Wishart distribution over positive-definite matrices: the scatter matrix of `df` normal
    vectors of covariance `covariance_matrix` (given one of three ways, as for :class:`MultivariateNormal`).

    Args:
        df (Tensor or float): the degrees of freedom (greater than the matrix size minus 1).
        covariance_matrix (Tensor, optional): the positive-definite scale matrix, ``(*batch, n, n)``.
        precision_matrix (Tensor, optional): or its inverse.
        scale_tril (Tensor, optional): or its lower Cholesky factor; give exactly one of the three.
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Wishart(torch.tensor(3.0), torch.eye(2))
        >>> d.mean, d.log_prob(torch.eye(2))
        (tensor([[3., 0.],
                [0., 3.]]), tensor(-3.5310))
    """
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        assert (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) == 1, \
            "Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified."
        name, param = next((n, m) for n, m in (("scale_tril", scale_tril), ("covariance_matrix", covariance_matrix),
                                                ("precision_matrix", precision_matrix)) if m is not None)
        if param.dim() < 2:
            raise ValueError(f"{name} must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, numbers.Number):
            df = tensor(df, dtype=param.dtype)
        batch_shape = tuple(np.broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape)))
        event_shape = tuple(param.shape[-2:])
        p = event_shape[-1]
        if bool(df.le(p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        setattr(self, name, param.expand(batch_shape + event_shape))
        self.df = df.expand(batch_shape)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        # the squared diagonal of Bartlett's factor: chi-squared with df, df - 1, ..., df - p + 1 degrees
        self._dist_chi2 = Chi2(df=self.df.unsqueeze(-1) - arange(p, dtype=param.dtype).expand(batch_shape + (-1,)))

    @property
    def arg_constraints(self):
        p = self._event_shape[-1] if hasattr(self, "_event_shape") and len(self._event_shape) else 1
        return {"covariance_matrix": constraints.positive_definite, "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky, "df": constraints.greater_than(p - 1)}

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch = tuple(batch_shape)
        full = batch + tuple(self._event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        new.df = self.df.expand(batch)
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(full))
        new._dist_chi2 = self._dist_chi2.expand(batch + (self._event_shape[-1],))
        Distribution.__init__(new, Size(batch), self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _full(self):
        return tuple(self._batch_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._full())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(self._full())

    @lazy_property
    def precision_matrix(self):
        L = self._unbroadcasted_scale_tril
        return L.cholesky_inverse().expand(self._full())

    @property
    def mean(self):
        return self.df.reshape(tuple(self.df.shape) + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self._event_shape[-1] - 1
        factor = factor.masked_fill(factor <= 0, math.nan)  # no mode for df <= p + 1
        return factor.reshape(tuple(factor.shape) + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        d = V.diagonal(dim1=-2, dim2=-1)
        return self.df.reshape(tuple(self.df.shape) + (1, 1)) * (V.pow(2) + d.unsqueeze(-1) * d.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape=Size()):
        p = self._event_shape[-1]
        diag = self._dist_chi2.rsample(sample_shape).sqrt()
        diag = diag.clamp(min=_eps(diag))
        noise = diag.diag_embed(dim1=-2, dim2=-1)
        rows, cols = tril_indices(p, p, offset=-1)
        noise[..., rows, cols] = _standard_normal(tuple(noise.shape[:-2]) + (rows.shape[0],), noise.dtype)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.mT

    def rsample(self, sample_shape=Size(), max_try_correction=None):
        """Bartlett samples; a (numerically) singular one is redrawn up to max_try_correction times."""
        max_try_correction = max_try_correction or 3
        sample = self._bartlett_sampling(Size(sample_shape))
        singular = ~self.support.check(sample)
        if bool(singular.any()):
            warnings.warn("Singular sample detected.")
            for _ in range(max_try_correction):
                retry = self._bartlett_sampling(Size(sample_shape))
                sample = retry.where(singular.reshape(tuple(singular.shape) + (1, 1)), sample)
                singular = ~self.support.check(sample)
                if not bool(singular.any()):
                    break
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        half_log_det = L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = value.cholesky_solve(L).diagonal(dim1=-2, dim2=-1).sum(-1)  # tr(covariance^-1 value)
        return (-nu * (p * math.log(2) / 2 + half_log_det) - (nu / 2).mvlgamma(p)
                + (nu - p - 1) / 2 * value.logdet() - trace / 2)

    def entropy(self):
        nu, p = self.df, self._event_shape[-1]
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) * (p * math.log(2) / 2 + half_log_det) + (nu / 2).mvlgamma(p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p) + nu * p / 2)

    @property
    def _natural_params(self):
        return -self.precision_matrix / 2, (self.df - self._event_shape[-1] - 1) / 2

    def _log_normalizer(self, x, y):
        half_n = y + (self._event_shape[-1] + 1) / 2  # df / 2
        p = self._event_shape[-1]
        return -half_n * (-2 * x).logdet() + half_n * p * math.log(2) + half_n.mvlgamma(p)
