"""StudentT(df, loc, scale): loc + scale * Z / sqrt(V / df) for Z standard normal and V ~ Chi2(df)."""
import math

from .._tensor import Size
from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t distribution with `df` degrees of freedom, shifted by `loc` and scaled by `scale`.

    Args:
        df (Tensor or float): the degrees of freedom (positive).
        loc (Tensor or float, optional): the location (default: 0).
        scale (Tensor or float, optional): the scale (positive; default: 1).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.StudentT(torch.tensor([3.0]))
        >>> d.variance, d.log_prob(torch.tensor([0.0]))
        (tensor([3.]), tensor([-1.0009]))
    """
    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(StudentT, _instance)
        shape = tuple(batch_shape)
        new.df, new.loc, new.scale = self.df.expand(shape), self.loc.expand(shape), self.scale.expand(shape)
        new._chi2 = self._chi2.expand(batch_shape)
        Distribution.__init__(new, Size(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.loc.masked_fill(self.df <= 1, math.nan)

    mode = property(lambda self: self.loc)

    @property
    def variance(self):
        df = self.df
        finite = self.scale.pow(2) * df / (df - 2)
        return finite.where(df > 2, math.inf).masked_fill(df <= 1, math.nan)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        z = _standard_normal(shape, self.df.dtype)
        v = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * z * (v / self.df).rsqrt()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        norm = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + (0.5 * self.df).lgamma()
                - (0.5 * (self.df + 1.0)).lgamma())
        return -0.5 * (self.df + 1.0) * (y.pow(2) / self.df).log1p() - norm

    def entropy(self):
        log_beta = (0.5 * self.df).lgamma() + math.lgamma(0.5) - (0.5 * (self.df + 1)).lgamma()
        return (self.scale.log() + 0.5 * (self.df + 1) * ((0.5 * (self.df + 1)).digamma() - (0.5 * self.df).digamma())
                + 0.5 * self.df.log() + log_beta)
