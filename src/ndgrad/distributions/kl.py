"""kl_divergence(p, q) and register_kl: KL(p || q) found by the most specific pair of registered types."""
import math
import warnings

import numpy as np

from ..autograd.differentiate import grad
from ..linalg import solve_triangular
from ..ops.creation import full_like
from .cauchy import Cauchy
from .continuous import Beta, Exponential, Laplace, Normal, Uniform
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .discrete import Bernoulli, Binomial, Categorical, OneHotCategorical, Poisson
from .distribution import ExponentialFamily
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate import Independent, MultivariateNormal, _mahalanobis
from .pareto import Pareto
from .transformed_distribution import TransformedDistribution
from .utils import _sum_rightmost, euler_constant

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY = {}
_KL_MEMOIZE = {}


def register_kl(type_p, type_q):
    """A decorator that registers ``fn(p, q)`` as ``KL(p || q)`` for `p` of `type_p` and `q` of `type_q`.

    :func:`kl_divergence` calls the most specific registered pair for the types it is given (a
    RuntimeWarning names an ambiguous choice, so that a more specific pair may be registered).

    Args:
        type_p (type): a subclass of :class:`Distribution`.
        type_q (type): a subclass of :class:`Distribution`.

    Example::

        >>> class Point(torch.distributions.Normal):
        ...     pass
        >>> @torch.distributions.register_kl(Point, Point)
        ... def _kl_point_point(p, q):
        ...     return (p.loc - q.loc).abs()
        >>> torch.distributions.kl_divergence(Point(0.0, 1.0), Point(torch.tensor(3.0), 1.0))
        tensor(3.)
    """
    if not isinstance(type_p, type):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()
        return fun
    return decorator


def _dispatch_kl(type_p, type_q):
    matches = [(p, q) for p, q in _KL_REGISTRY if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return NotImplemented
    # the closest match by (p's distance, q's distance) in the MROs, and by the reverse order
    def rank(m, first):
        d = (type_p.__mro__.index(m[0]), type_q.__mro__.index(m[1]))
        return d if first else d[::-1]
    left, right = min(matches, key=lambda m: rank(m, True)), min(matches, key=lambda m: rank(m, False))
    if _KL_REGISTRY[left] is not _KL_REGISTRY[right]:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). Please register_kl("
                      f"{right[0].__name__}, {right[1].__name__})", RuntimeWarning)
    return _KL_REGISTRY[left]


def kl_divergence(p, q):
    """The Kullback-Leibler divergence ``KL(p || q) = E_p[log p(x) - log q(x)]`` of two distributions.

    It uses the closed form registered (with ``register_kl``) for the most specific pair of their types;
    a pair without one raises NotImplementedError.

    Args:
        p (Distribution): the first distribution.
        q (Distribution): the second distribution.

    Returns:
        Tensor: the divergences, of the distributions' batch shape.

    Example::

        >>> p = torch.distributions.Normal(torch.tensor([0.0]), torch.tensor([1.0]))
        >>> q = torch.distributions.Normal(torch.tensor([1.0]), torch.tensor([2.0]))
        >>> torch.distributions.kl_divergence(p, q)
        tensor([0.4431])
    """
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _KL_MEMOIZE[type(p), type(q)] = _dispatch_kl(type(p), type(q))
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type "
                                  f"{q.__class__.__name__}")
    return fun(p, q)


def _softplus(x):
    return x.exp().log1p().where(x < 20, x)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (_softplus(-q.logits) - _softplus(-p.logits))
    t1 = t1.masked_fill(q.probs == 0, math.inf).masked_fill(p.probs == 0, 0)
    t2 = (1 - p.probs) * (_softplus(q.logits) - _softplus(p.logits))
    t2 = t2.masked_fill(q.probs == 1, math.inf).masked_fill(p.probs == 1, 0)
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = t.masked_fill((q.probs == 0).expand_as(t), math.inf).masked_fill((p.probs == 0).expand_as(t), 0)
    return t.sum(-1)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return result.masked_fill((q.low > p.low) | (q.high < p.high), math.inf)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sp, sq = p.concentration1 + p.concentration0, q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sp.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sq.lgamma()
    t3 = (p.concentration1 - q.concentration1) * p.concentration1.digamma()
    t4 = (p.concentration0 - q.concentration0) * p.concentration0.digamma()
    t5 = (sq - sp) * sp.digamma()
    return t1 - t2 + t3 + t4 + t5


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return -ratio.log() + ratio - 1


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot be "
                         "computed")
    pL, qL = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = qL.diagonal(dim1=-2, dim2=-1).log().sum(-1) - pL.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    n = p.event_shape[0]
    batch = tuple(np.broadcast_shapes(tuple(qL.shape[:-2]), tuple(pL.shape[:-2])))
    term2 = solve_triangular(qL.expand(batch + (n, n)), pL.expand(batch + (n, n)), upper=False).pow(2).sum((-2, -1))
    term3 = _mahalanobis(qL, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


# ---- same-family pairs ------------------------------------------------------------------------

@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    n = p.total_count
    kl = n * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return kl.masked_fill(p.total_count > q.total_count, math.inf)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    return (((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log() - (4 * p.scale * q.scale).log())


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    return -p.entropy() - _cross_continuous_bernoulli(p.mean, q)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    a, b = p.concentration, q.concentration
    a0 = a.sum(-1)
    t1 = a0.lgamma() - b.sum(-1).lgamma() - (a.lgamma() - b.lgamma()).sum(-1)
    return t1 + ((a - b) * (a.digamma() - a0.digamma().unsqueeze(-1))).sum(-1)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log-normaliser between the natural parameters."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot \
                            be computed using Bregman divergences")
    p_params = [t.detach().requires_grad_() for t in p._natural_params]
    q_params = q._natural_params
    log_norm = p._log_normalizer(*p_params)
    grads = grad(log_norm.sum(), p_params, create_graph=True)
    result = q._log_normalizer(*q_params) - log_norm
    for pp, qp, g in zip(p_params, q_params, grads):
        result = result - _sum_rightmost((qp - pp) * g, len(q.event_shape))
    return result


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = q.concentration.lgamma() - p.concentration.lgamma()
    t3 = (p.concentration - q.concentration) * p.concentration.digamma()
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    ratio = p.scale / q.scale
    t1 = -ratio.log() - q.loc / q.scale + p.loc / q.scale
    t3 = ((q.loc - p.loc) / q.scale + (1 + ratio).lgamma()).exp()  # E_p exp(-(X - q.loc) / q.scale)
    return t1 + ratio * euler_constant + t3 - (1 + euler_constant)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    return 0.5 * (var_ratio - 1 - var_ratio.log())


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    ratio = p.scale / q.scale
    dist = (p.loc - q.loc).abs()
    return -ratio.log() + dist / q.scale + ratio * (-dist / p.scale).exp() - 1


def _scale_tril(d):
    return d._unbroadcasted_scale_tril if isinstance(d, MultivariateNormal) else d.scale_tril


def _kl_gaussians(p, q):
    """KL between two (low-rank or full) multivariate normals, through Cholesky factors."""
    pL, qL = _scale_tril(p), _scale_tril(q)
    n = p.event_shape[0]
    half_term1 = qL.diagonal(dim1=-2, dim2=-1).log().sum(-1) - pL.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    batch = tuple(np.broadcast_shapes(tuple(qL.shape[:-2]), tuple(pL.shape[:-2])))
    term2 = solve_triangular(qL.expand(batch + (n, n)), pL.expand(batch + (n, n)), upper=False).pow(2).sum((-2, -1))
    term3 = _mahalanobis(qL, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrankmvn_lowrankmvn(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Low Rank Multivariate Normals with\
                          different event shapes cannot be computed")
    return _kl_gaussians(p, q)


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_mixed_mvn(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two (Low Rank) Multivariate Normals with\
                          different event shapes cannot be computed")
    return _kl_gaussians(p, q)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    return result.masked_fill(p.scale < q.scale, math.inf)  # p puts mass below q's support


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), len(p.event_shape) - len(p.base_dist.event_shape))


# ---- pairs across families: KL(p || q) = -H(p) - E_p[log q(X)] -------------------------------
# Each _cross_<q> is E_p[log q(X)] from the moments of p it needs; support mismatches give +inf.

def _infinite_like(t):
    return full_like(t, math.inf)


def _expected_log(p):
    """E_p[log X] for p on the positive reals."""
    if isinstance(p, Beta):
        return p.concentration1.digamma() - (p.concentration1 + p.concentration0).digamma()
    if isinstance(p, Exponential):
        return -euler_constant - p.rate.log()
    if isinstance(p, Gamma):
        return p.concentration.digamma() - p.rate.log()
    if isinstance(p, Pareto):
        return p.scale.log() + p.alpha.reciprocal()
    if isinstance(p, Uniform):  # low >= 0
        return (p.high.xlogy(p.high) - p.low.xlogy(p.low)) / (p.high - p.low) - 1
    raise NotImplementedError


def _expected_log1m(p):
    """E_p[log(1 - X)] for p on (0, 1)."""
    if isinstance(p, Beta):
        return p.concentration0.digamma() - (p.concentration1 + p.concentration0).digamma()
    return ((1 - p.low).xlogy(1 - p.low) - (1 - p.high).xlogy(1 - p.high)) / (p.high - p.low) - 1  # Uniform


def _expected_exp(p, t):
    """E_p[exp(t X)] (the moment generating function at t < 0)."""
    if isinstance(p, Exponential):
        return p.rate / (p.rate - t)
    if isinstance(p, Gamma):
        return (p.rate / (p.rate - t)).pow(p.concentration)
    if isinstance(p, Normal):
        return (t * p.loc + 0.5 * (t * p.scale).pow(2)).exp()
    if isinstance(p, Uniform):
        return ((t * p.high).exp() - (t * p.low).exp()) / (t * (p.high - p.low))
    raise NotImplementedError


def _cross_normal(p, q):
    second = p.variance + (p.mean - q.loc).pow(2)  # E_p[(X - q.loc)^2]
    return -q.scale.log() - 0.5 * math.log(2 * math.pi) - second / (2 * q.scale.pow(2))


def _cross_exponential(p, q):
    return q.rate.log() - q.rate * p.mean


def _cross_gamma(p, q):
    a, b = q.concentration, q.rate
    return a * b.log() - a.lgamma() + (a - 1) * _expected_log(p) - b * p.mean


def _cross_gumbel(p, q):
    tail = (q.loc / q.scale).exp() * _expected_exp(p, -1 / q.scale)  # E_p exp(-(X - q.loc) / q.scale)
    return -q.scale.log() - (p.mean - q.loc) / q.scale - tail


def _cross_beta(p, q):
    a, b = q.concentration1, q.concentration0
    log_beta = a.lgamma() + b.lgamma() - (a + b).lgamma()
    return (a - 1) * _expected_log(p) + (b - 1) * _expected_log1m(p) - log_beta


def _cross_continuous_bernoulli(mean, q):
    return q._cont_bern_log_norm() + mean * (q.probs.log() - (-q.probs).log1p()) + (-q.probs).log1p()


def _cross_pareto(p, q):
    return q.alpha.log() + q.alpha * q.scale.log() - (q.alpha + 1) * _expected_log(p)


def _register_cross(p_types, q_type, cross, outside=None):
    """KL(p || q) = -H(p) - cross(p, q), +inf where outside(p, q) (p's support not inside q's)."""
    def kl(p, q):
        result = -p.entropy() - cross(p, q)
        return result if outside is None else result.masked_fill(outside(p, q), math.inf)
    for p_type in p_types:
        register_kl(p_type, q_type)(kl)


_register_cross((Beta, ContinuousBernoulli, Exponential, Gamma, Gumbel, Laplace, Pareto, Uniform), Normal,
                _cross_normal)
_register_cross((Beta, ContinuousBernoulli, Gamma, Pareto), Exponential, _cross_exponential)
_register_cross((Beta, Exponential, Pareto), Gamma, _cross_gamma)
_register_cross((Exponential, Gamma, Normal, Uniform), Gumbel, _cross_gumbel)
_register_cross((Beta,), ContinuousBernoulli, lambda p, q: _cross_continuous_bernoulli(p.mean, q))
_register_cross((Uniform,), ContinuousBernoulli, lambda p, q: _cross_continuous_bernoulli(p.mean, q),
                lambda p, q: (p.low < 0) | (p.high > 1))
_register_cross((Uniform,), Exponential, _cross_exponential, lambda p, q: p.low < 0)
_register_cross((Uniform,), Gamma, _cross_gamma, lambda p, q: p.low < 0)
_register_cross((Uniform,), Beta, _cross_beta, lambda p, q: (p.low < 0) | (p.high > 1))
_register_cross((Uniform,), Pareto, _cross_pareto, lambda p, q: p.low < q.scale)
_register_cross((Beta, ContinuousBernoulli), Uniform, lambda p, q: -(q.high - q.low).log(),
                lambda p, q: (q.low > 0) | (q.high < 1))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    # E_p|X - q.loc| for a normal p: the mean of a folded normal
    d = p.loc - q.loc
    folded = p.scale * math.sqrt(2 / math.pi) * (-d.pow(2) / (2 * p.scale.pow(2))).exp() + \
        d * (d / (p.scale * math.sqrt(2))).erf()
    return -p.entropy() + (2 * q.scale).log() + folded / q.scale


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


def _register_infinite(p_types, q_types):
    """Pairs whose p puts mass where q has none, whatever the parameters."""
    def kl(p, q):
        return _infinite_like(p.mean if not isinstance(p, Poisson) else p.rate)
    for p_type in p_types:
        for q_type in q_types:
            register_kl(p_type, q_type)(kl)


_register_infinite((Normal, Laplace, Gumbel), (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform))
_register_infinite((Exponential, Gamma), (Beta, ContinuousBernoulli, Pareto, Uniform))
_register_infinite((Pareto,), (Beta, ContinuousBernoulli, Uniform))
_register_infinite((Beta, ContinuousBernoulli), (Pareto,))
_register_infinite((Poisson,), (Bernoulli, Binomial))
