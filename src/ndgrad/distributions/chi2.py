"""Chi2(df): Gamma(df / 2, 1 / 2)."""
from .._tensor import Size
from . import constraints
from .distribution import Distribution
from .gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    """The chi-squared distribution with `df` degrees of freedom (a :class:`Gamma` of concentration ``df / 2`` and
    rate 1/2).

    Args:
        df (Tensor or float): the degrees of freedom (positive).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.Chi2(torch.tensor([4.0]))
        >>> d.mean, d.variance, d.log_prob(torch.tensor([2.0]))
        (tensor([4.]), tensor([8.]), tensor([-1.6931]))
    """
    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Chi2, _instance)
        shape = tuple(batch_shape)
        new.concentration, new.rate = self.concentration.expand(shape), self.rate.expand(shape)
        Distribution.__init__(new, Size(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    df = property(lambda self: self.concentration * 2)
