"""LKJCholesky(dim, concentration): the LKJ law on correlation matrices, over their Cholesky factors,
density proportional to det(C)^(concentration - 1); sampled by the onion method."""
import math

from .._tensor import Size
from ..autograd.grad_mode import no_grad
from ..ops.creation import arange
from ..ops.shape import cat
from . import constraints
from .continuous import Beta
from .distribution import Distribution
from .utils import _standard_normal, _tiny, broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """The LKJ distribution over correlation matrices, given by their lower Cholesky factors.

    Its density is proportional to ``det(C)**(concentration - 1)`` for the correlation matrix C.

    Args:
        dim (int): the size of the matrices (at least 2).
        concentration (Tensor or float, optional): eta (positive; 1, the default, is uniform over correlation matrices).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.LKJCholesky(2, torch.tensor(2.0))
        >>> d.log_prob(torch.eye(2))
        tensor(-0.2877)
    """
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.shape
        event_shape = Size((dim, dim))
        # the onion method: row i's squared norm off the diagonal is Beta(i / 2, c + (dim - 2 - i) / 2)
        marginal = self.concentration + 0.5 * (self.dim - 2)
        offset = arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = cat([offset.new_zeros((1,)), offset])
        beta_conc1 = offset + 0.5
        beta_conc0 = marginal.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(tuple(batch_shape))
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=Size()):
        with no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u = _standard_normal(tuple(self._extended_shape(sample_shape)), y.dtype).tril(-1)
            norms = u.norm(dim=-1, keepdim=True)
            u = u / norms.masked_fill(norms == 0, 1.0)  # the first row is all zeros
            w = y.sqrt() * u
            diag = (1 - w.pow(2).sum(-1)).clamp(min=_tiny(w)).sqrt()
            return w + diag.diag_embed()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = arange(2, self.dim + 1, dtype=value.dtype)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diag.log()).sum(-1)
        # log of the normalising constant: prod_i B(c + (dim - 1 - i) / 2, i / 2) in closed form
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = alpha.lgamma() * dm1
        numerator = (alpha - 0.5).mvlgamma(dm1)
        normalize = 0.5 * dm1 * math.log(math.pi) + numerator - denominator
        return unnormalized - normalize
