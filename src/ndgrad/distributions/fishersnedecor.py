"""FisherSnedecor(df1, df2): the F distribution, (X1 / df1) / (X2 / df2) for chi-squared X1, X2."""
import math

from .._tensor import Size
from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import _tiny, broadcast_params

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """The Fisher-Snedecor (F) distribution: the ratio of two chi-squared variables, each divided by its degrees of
    freedom.

    Args:
        df1 (Tensor or float): the numerator's degrees of freedom (positive).
        df2 (Tensor or float): the denominator's (positive).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.FisherSnedecor(torch.tensor([4.0]), torch.tensor([6.0]))
        >>> d.mean, d.log_prob(torch.tensor([1.0]))
        (tensor([1.5000]), tensor([-0.8802]))
    """
    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        (self.df1, self.df2), batch_shape = broadcast_params(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(FisherSnedecor, _instance)
        shape = tuple(batch_shape)
        new.df1, new.df2 = self.df1.expand(shape), self.df2.expand(shape)
        new._gamma1, new._gamma2 = self._gamma1.expand(batch_shape), self._gamma2.expand(batch_shape)
        Distribution.__init__(new, Size(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return (self.df2 / (self.df2 - 2)).masked_fill(self.df2 <= 2, math.nan)

    @property
    def mode(self):
        return ((self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)).masked_fill(self.df1 <= 2, math.nan)

    @property
    def variance(self):
        df1, df2 = self.df1, self.df2
        var = 2 * df2.pow(2) * (df1 + df2 - 2) / (df1 * (df2 - 2).pow(2) * (df2 - 4))
        return var.masked_fill(df2 <= 4, math.nan)

    def rsample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        # Gamma(df/2, df) draws are chi-squared / df; keep both away from 0 (as torch does)
        x1 = self._gamma1.rsample(sample_shape).reshape(shape)
        x2 = self._gamma2.rsample(sample_shape).reshape(shape)
        tiny = _tiny(x2)
        x2.detach().clamp_(min=tiny)
        y = x1 / x2
        y.detach().clamp_(min=tiny)
        return y

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        h1, h2 = self.df1 * 0.5, self.df2 * 0.5
        ratio = self.df1 / self.df2
        t1 = (h1 + h2).lgamma() - h1.lgamma() - h2.lgamma()
        t2 = h1 * ratio.log() + (h1 - 1) * value.log()
        t3 = (h1 + h2) * (ratio * value).log1p()
        return t1 + t2 - t3
