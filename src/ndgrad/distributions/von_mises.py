"""VonMises(loc, concentration): the circular normal distribution on [-pi, pi)."""
import math

import numpy as np

from .._tensor import Size
from ..autograd.grad_mode import no_grad
from .._dtype import float64
from ..ops.creation import as_tensor
from ..ops.random import rand
from ..special import i0e, i1e
from . import constraints
from .distribution import Distribution
from .utils import broadcast_params

__all__ = ["VonMises"]


def _rejection_sample(loc, concentration, rng_uniform):
    """Best and Fisher's (1979) wrapped-Cauchy envelope, on float64 arrays of one shape."""
    tau = 1 + np.sqrt(1 + 4 * concentration ** 2)
    rho = (tau - np.sqrt(2 * tau)) / (2 * concentration)
    r = (1 + rho ** 2) / (2 * rho)
    x = np.empty_like(concentration)
    todo = np.ones(concentration.shape, dtype=bool)
    while todo.any():
        u1, u2, u3 = (rng_uniform(concentration.shape) for _ in range(3))
        z = np.cos(np.pi * u1)
        f = (1 + r * z) / (r + z)
        c = concentration * (r - f)
        accept = ((c * (2 - c) - u2) > 0) | (np.log(c / u2) + 1 - c >= 0)
        new = todo & accept
        x[new] = (np.sign(u3 - 0.5) * np.arccos(f))[new]
        todo &= ~accept
    return (x + np.pi + loc) % (2 * np.pi) - np.pi


class VonMises(Distribution):
    """The von Mises distribution on the circle, of density
    ``exp(concentration * cos(x - loc)) / (2 * pi * I0(concentration))``.

    Args:
        loc (Tensor or float): the mean angle, in radians.
        concentration (Tensor or float): kappa, the concentration (positive; 0 is uniform).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.VonMises(torch.tensor([0.0]), torch.tensor([1.0]))
        >>> d.log_prob(torch.tensor([0.0]))
        tensor([-1.0738])
    """
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        (self.loc, self.concentration), batch_shape = broadcast_params(loc, concentration)
        super().__init__(batch_shape, validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        k = self.concentration
        # log I0(k) = log(i0e(k)) + k, stable for large k
        return k * (value - self.loc).cos() - math.log(2 * math.pi) - (i0e(k).log() + k)

    def sample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            loc = np.broadcast_to(self.loc.detach().numpy().astype(np.float64), shape)
            conc = np.broadcast_to(self.concentration.detach().numpy().astype(np.float64), shape)
            draws = _rejection_sample(loc, conc, _uniform)
            return as_tensor(draws, dtype=self.loc.dtype)

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)

    @property
    def variance(self):
        k = self.concentration
        return 1 - i1e(k) / i0e(k)  # circular variance 1 - I1(k) / I0(k)


def _uniform(shape):
    """Uniform draws (float64 arrays) from ndgrad's random stream."""
    return rand(shape, dtype=float64).numpy()
