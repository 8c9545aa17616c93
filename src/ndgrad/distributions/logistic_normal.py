"""LogisticNormal(loc, scale): a Normal vector mapped onto the simplex by stick breaking."""
from . import constraints
from .continuous import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """The logistic-normal distribution: a normal vector mapped onto the simplex by the stick-breaking transform (one
    more component than `loc`).

    Args:
        loc (Tensor or float): the mean of the normal vector.
        scale (Tensor or float): its standard deviation (positive).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.LogisticNormal(torch.zeros(2), torch.ones(2))
        >>> d.event_shape, d.log_prob(torch.tensor([0.25, 0.25, 0.5]))
        (torch.Size([3]), tensor(1.3054))
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, _instance=self._get_checked_instance(LogisticNormal, _instance))

    loc = property(lambda self: self.base_dist.base_dist.loc)
    scale = property(lambda self: self.base_dist.base_dist.scale)
