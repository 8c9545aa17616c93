"""ndgrad.special: torch.special's functions.

Most are other names of ops ndgrad already has (expit is sigmoid, gammaln is lgamma, ...), so
their grad_fn is that op's node, as in torch. The special functions of their own (i0e, erfcx,
xlog1py, zeta, ...; Bessel functions and orthogonal polynomials, which have no gradient in torch
either) live in ndgrad/ops/special.py.
"""
import math

from . import _docs
from .ops import activation as _act
from .ops import pointwise as _pw
from .ops import reduction as _red
from .ops import special as _sp

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "digamma", "entr", "erf", "erfc", "erfcx",
           "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "log1p",
           "log_ndtr", "log_softmax", "logit", "logsumexp", "modified_bessel_i0", "modified_bessel_i1",
           "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "sinc", "softmax", "spherical_bessel_j0",
           "xlog1py", "xlogy", "zeta"] + list(_sp.POLYNOMIALS)

digamma = psi = _pw.digamma
erf, erfc, erfinv = _pw.erf, _pw.erfc, _pw.erfinv
exp2, expm1, log1p = _pw.exp2, _pw.expm1, _pw.log1p
expit = _pw.sigmoid
gammaln = _pw.lgamma
logit = _pw.logit
sinc = _pw.sinc
xlogy = _pw.xlogy
polygamma = _pw.polygamma
logsumexp = _red.logsumexp
i0 = _sp.i0
i0e, i1, i1e = _sp._special_i0e, _sp._special_i1, _sp._special_i1e
erfcx, entr, ndtri, log_ndtr = _sp._special_erfcx, _sp._special_entr, _sp._special_ndtri, _sp._special_log_ndtr
xlog1py, zeta = _sp.xlog1py, _sp.zeta
airy_ai, spherical_bessel_j0 = _sp.airy_ai, _sp.spherical_bessel_j0
bessel_j0, bessel_j1, bessel_y0, bessel_y1 = _sp.bessel_j0, _sp.bessel_j1, _sp.bessel_y0, _sp.bessel_y1
modified_bessel_i0, modified_bessel_i1 = _sp.modified_bessel_i0, _sp.modified_bessel_i1
modified_bessel_k0, modified_bessel_k1 = _sp.modified_bessel_k0, _sp.modified_bessel_k1
scaled_modified_bessel_k0, scaled_modified_bessel_k1 = _sp.scaled_modified_bessel_k0, _sp.scaled_modified_bessel_k1
globals().update(_sp.POLYNOMIALS)   # chebyshev_polynomial_t(input, n), hermite_polynomial_h, ...


def gammainc(input, other):
    """The regularized lower incomplete gamma function ``P(input, other)``, elementwise.

    ``P(a, x) = 1 / Gamma(a) * integral from 0 to x of t^(a-1) e^(-t) dt``; its gradient is
    defined with respect to `other` only.

    Args:
        input (Tensor): the parameter ``a``, positive.
        other (Tensor): the upper limit ``x``, nonnegative (broadcast with `input`).

    Returns:
        Tensor: the values, in [0, 1].

    Example::

        >>> torch.special.gammainc(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))
        tensor([0.6321, 0.2642])
    """
    return _pw.igamma(input, other)


def gammaincc(input, other):
    """The regularized upper incomplete gamma function ``Q(input, other) = 1 - P(input, other)``, elementwise.

    See :func:`gammainc`; the gradient is likewise defined with respect to `other` only.

    Args:
        input (Tensor): the parameter ``a``, positive.
        other (Tensor): the lower limit ``x``, nonnegative (broadcast with `input`).

    Returns:
        Tensor: the values, in [0, 1].

    Example::

        >>> torch.special.gammaincc(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))
        tensor([0.3679, 0.7358])
    """
    return _pw.igammac(input, other)


def multigammaln(input, p):
    """The logarithm of the multivariate gamma function of dimension `p`, of each element of `input`
    (another name of :func:`ndgrad.mvlgamma`).

    It is ``p * (p - 1) / 4 * log(pi)`` plus the sum of ``lgamma(input - j / 2)`` for j in 0..p-1; every
    element must be greater than ``(p - 1) / 2``.

    Args:
        input (Tensor): the input.
        p (int): the dimension, at least 1.

    Returns:
        Tensor: the result.

    Example::

        >>> torch.special.multigammaln(torch.tensor([2.0, 3.0]), 2)
        tensor([0.4516, 1.5502])
    """
    return _pw.mvlgamma(input, p)


def ndtr(input):
    """The cumulative distribution function of the standard normal distribution, elementwise.

    Computed as torch computes it, ``(1 + erf(x / sqrt(2))) / 2``, so its gradient goes through :func:`erf`.

    Args:
        input (Tensor): the points.

    Returns:
        Tensor: the probabilities, in [0, 1].

    Example::

        >>> torch.special.ndtr(torch.tensor([-1.0, 0.0, 1.0]))
        tensor([0.1587, 0.5000, 0.8413])
    """
    return (1 + erf(input * math.sqrt(0.5))) * 0.5


def round(input, *, decimals=0):
    """Rounds each element to `decimals` decimal places, halves to even (as :func:`ndgrad.round`).

    It always takes the ``decimals`` overload, so its backward node is ``RoundBackward1`` (a zero gradient).

    Args:
        input (Tensor): the input.
        decimals (int, optional): the number of decimal places (negative: to tens, hundreds...). Default: ``0``.

    Returns:
        Tensor: the rounded values.

    Example::

        >>> torch.special.round(torch.tensor([0.5, 1.5, 2.345]))
        tensor([0., 2., 2.])
        >>> torch.special.round(torch.tensor([2.345, 123.0]), decimals=-1)
        tensor([  0., 120.])
    """
    return _pw._round_decimals(input, decimals=decimals)


def softmax(input, dim, *, dtype=None):
    """The softmax of `input` along `dim`: ``exp(x) / sum(exp(x))``, computed stably; the same as
    :func:`ndgrad.nn.functional.softmax`.

    Args:
        input (Tensor): the input.
        dim (int): the dimension along which the results sum to 1.
        dtype (dtype, optional): the dtype `input` is cast to first.

    Returns:
        Tensor: the probabilities, of the shape of `input`.

    Example::

        >>> torch.special.softmax(torch.tensor([[1.0, 1.0], [0.0, 0.6931472]]), dim=1)
        tensor([[0.5000, 0.5000],
                [0.3333, 0.6667]])
    """
    return _act.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """The logarithm of the softmax of `input` along `dim`, ``x - logsumexp(x)``, computed without
    taking the log of a rounded probability; the same as :func:`ndgrad.nn.functional.log_softmax`.

    Args:
        input (Tensor): the input.
        dim (int): the dimension along which the softmax is taken.
        dtype (dtype, optional): the dtype `input` is cast to first.

    Returns:
        Tensor: the log-probabilities, of the shape of `input`.

    Example::

        >>> torch.special.log_softmax(torch.tensor([0.0, 0.0]), dim=0)
        tensor([-0.6931, -0.6931])
    """
    return _act.log_softmax(input, dim, dtype=dtype)


_docs.attach(globals(), "special")   # the docstrings of the names that come from ndgrad/ops
