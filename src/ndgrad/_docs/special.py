"""Docstrings of the `ndgrad.special` names that come from ndgrad/ops.
See ndgrad/_docs/__init__.py for the format."""
DOCS = {
    "entr": r"""The elementwise entropy term ``-x * log(x)`` of `input` (0 at 0, ``-inf`` for negative x).

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.special.entr(torch.tensor([0.0, 0.5, -1.0]))
    tensor([0.0000, 0.3466,   -inf])
""",
    "erfcx": r"""The scaled complementary error function ``exp(x**2) * erfc(x)`` of each element `x` of
`input`, without the overflow of computing the two factors apart.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.special.erfcx(torch.tensor([0.0, 10.0]))
    tensor([1.0000, 0.0561])
""",
    "i0e": r"""The exponentially scaled modified Bessel function of the first kind of order zero,
``exp(-|x|) * i0(x)``, of each element `x` of `input`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.special.i0e(torch.tensor([0.0, 1.0, 2.0]))
    tensor([1.0000, 0.4658, 0.3085])
""",
    "i1": r"""The modified Bessel function of the first kind of order one, of each element of `input`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.special.i1(torch.tensor([0.0, 1.0, 2.0]))
    tensor([0.0000, 0.5652, 1.5906])
""",
    "i1e": r"""The exponentially scaled modified Bessel function of the first kind of order one,
``exp(-|x|) * i1(x)``, of each element `x` of `input`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.special.i1e(torch.tensor([0.0, 1.0, 2.0]))
    tensor([0.0000, 0.2079, 0.2153])
""",
    "log_ndtr": r"""The logarithm of the standard normal distribution function, ``log(ndtr(x))``, of each
element `x` of `input`, accurate far into the lower tail.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result, non-positive.

Example::

    >>> torch.special.log_ndtr(torch.tensor([0.0, -10.0]))
    tensor([ -0.6931, -53.2313])
""",
    "ndtri": r"""The inverse of the standard normal distribution function (the quantile function, or
probit) of each element of `input`, a probability in [0, 1].

Args:
    input (Tensor): the probabilities.

Returns:
    Tensor: ``x`` such that ``ndtr(x)`` is the element (``-inf`` at 0, ``inf`` at 1).

Example::

    >>> torch.special.ndtri(torch.tensor([0.5, 0.975, 0.0]))
    tensor([0.0000, 1.9600,   -inf])
""",
    "xlog1py": r"""``input * log1p(other)``, taken as 0 where `input` is 0 (even where ``log1p(other)`` is infinite).

Either operand may be a Python number; tensors broadcast together.

Args:
    input (Tensor or Number): the factor.
    other (Tensor or Number): the argument of ``log1p``.

Returns:
    Tensor: the result.

Example::

    >>> torch.special.xlog1py(torch.tensor([0.0, 2.0]), torch.tensor([-1.0, 1.0]))
    tensor([0.0000, 1.3863])
""",
    "zeta": r"""The Hurwitz zeta function: the sum over k >= 0 of ``(k + other) ** -input`` (with ``other = 1`` the
Riemann zeta function).

Either operand may be a Python number; tensors broadcast together.

Args:
    input (Tensor or Number): the exponent (greater than 1 for a finite sum).
    other (Tensor or Number): the shift q.

Returns:
    Tensor: the result.

Example::

    >>> torch.special.zeta(torch.tensor([2.0, 2.0]), torch.tensor([1.0, 2.0]))
    tensor([1.6449, 0.6449])
""",
}

# Bessel functions: no gradient in torch, nor here (their outputs never require grad).
# name: (what it is, its values at 0, 1 and 2)
_BESSEL = {
    "airy_ai": ("The Airy function Ai", "tensor([0.3550, 0.1353, 0.0349])"),
    "bessel_j0": ("The Bessel function of the first kind of order zero", "tensor([1.0000, 0.7652, 0.2239])"),
    "bessel_j1": ("The Bessel function of the first kind of order one", "tensor([0.0000, 0.4401, 0.5767])"),
    "bessel_y0": ("The Bessel function of the second kind of order zero",
                  "tensor([  -inf, 0.0883, 0.5104])"),
    "bessel_y1": ("The Bessel function of the second kind of order one",
                  "tensor([   -inf, -0.7812, -0.1070])"),
    "modified_bessel_i0": ("The modified Bessel function of the first kind of order zero",
                           "tensor([1.0000, 1.2661, 2.2796])"),
    "modified_bessel_i1": ("The modified Bessel function of the first kind of order one",
                           "tensor([0.0000, 0.5652, 1.5906])"),
    "modified_bessel_k0": ("The modified Bessel function of the second kind of order zero",
                           "tensor([   inf, 0.4210, 0.1139])"),
    "modified_bessel_k1": ("The modified Bessel function of the second kind of order one",
                           "tensor([   inf, 0.6019, 0.1399])"),
    "scaled_modified_bessel_k0": ("The exponentially scaled modified Bessel function of the second kind of order "
                                  "zero, ``exp(x) * k0(x)``,", "tensor([   inf, 1.1445, 0.8416])"),
    "scaled_modified_bessel_k1": ("The exponentially scaled modified Bessel function of the second kind of order "
                                  "one, ``exp(x) * k1(x)``,", "tensor([   inf, 1.6362, 1.0335])"),
    "spherical_bessel_j0": ("The spherical Bessel function of the first kind of order zero, ``sin(x) / x``,",
                            "tensor([1.0000, 0.8415, 0.4546])"),
}
for _name, (_what, _values) in _BESSEL.items():
    DOCS[_name] = f"""{_what} of each element of `input`.

It has no gradient: the result never requires grad.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.special.{_name}(torch.tensor([0.0, 1.0, 2.0]))
    {_values}
"""

# Orthogonal polynomials of degree n: no gradient in torch, nor here.
# name: (what it is, its values at x = 0.5 and -1 for n = 2)
_POLYNOMIALS = {
    "chebyshev_polynomial_t": ("The Chebyshev polynomial of the first kind T_n, where ``T_n(cos t) = cos(n t)``",
                               "tensor([-0.5000,  1.0000])"),
    "chebyshev_polynomial_u": ("The Chebyshev polynomial of the second kind U_n, where "
                               "``U_n(cos t) = sin((n + 1) t) / sin(t)``", "tensor([0., 3.])"),
    "chebyshev_polynomial_v": ("The Chebyshev polynomial of the third kind V_n, where "
                               "``V_n(cos t) = cos((n + 1/2) t) / cos(t / 2)``", "tensor([-1.,  5.])"),
    "chebyshev_polynomial_w": ("The Chebyshev polynomial of the fourth kind W_n, where "
                               "``W_n(cos t) = sin((n + 1/2) t) / sin(t / 2)``", "tensor([1., 1.])"),
    "shifted_chebyshev_polynomial_t": ("The shifted Chebyshev polynomial of the first kind, ``T_n(2x - 1)``",
                                       "tensor([-1., 17.])"),
    "shifted_chebyshev_polynomial_u": ("The shifted Chebyshev polynomial of the second kind, ``U_n(2x - 1)``",
                                       "tensor([-1., 35.])"),
    "shifted_chebyshev_polynomial_v": ("The shifted Chebyshev polynomial of the third kind, ``V_n(2x - 1)``",
                                       "tensor([-1., 41.])"),
    "shifted_chebyshev_polynomial_w": ("The shifted Chebyshev polynomial of the fourth kind, ``W_n(2x - 1)``",
                                       "tensor([-1., 29.])"),
    "hermite_polynomial_h": ("The physicists' Hermite polynomial H_n", "tensor([-1.,  2.])"),
    "hermite_polynomial_he": ("The probabilists' Hermite polynomial He_n", "tensor([-0.7500,  0.0000])"),
    "laguerre_polynomial_l": ("The Laguerre polynomial L_n", "tensor([0.1250, 3.5000])"),
    "legendre_polynomial_p": ("The Legendre polynomial P_n", "tensor([-0.1250,  1.0000])"),
}
for _name, (_what, _values) in _POLYNOMIALS.items():
    DOCS[_name] = f"""{_what}, of degree `n`, at each element of `input`.

It has no gradient: the result never requires grad.

Args:
    input (Tensor or Number): the points x.
    n (Tensor or Number): the degree (integer-valued), broadcast with `input`.

Returns:
    Tensor: the values.

Example::

    >>> torch.special.{_name}(torch.tensor([0.5, -1.0]), 2)
    {_values}
"""
