"""LogNormal(loc, scale): exp(X) for X ~ Normal(loc, scale)."""
from . import constraints
from .continuous import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """The log-normal distribution: ``exp(X)`` for X normal of mean `loc` and standard deviation `scale`.

    Args:
        loc (Tensor or float): the mean of log(X).
        scale (Tensor or float): the standard deviation of log(X) (positive).
        validate_args (bool, optional): check the parameters (and the values given to ``log_prob``) against
            their constraints (default: on, unless Python runs with ``-O``).

    Example::

        >>> d = torch.distributions.LogNormal(torch.tensor([0.0]), torch.tensor([1.0]))
        >>> d.mean, d.log_prob(torch.tensor([1.0]))
        (tensor([1.6487]), tensor([-0.9189]))
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, _instance=self._get_checked_instance(LogNormal, _instance))

    loc = property(lambda self: self.base_dist.loc)
    scale = property(lambda self: self.base_dist.scale)
    mean = property(lambda self: (self.loc + self.scale.pow(2) / 2).exp())
    mode = property(lambda self: (self.loc - self.scale.pow(2)).exp())

    @property
    def variance(self):
        scale2 = self.scale.pow(2)
        return scale2.expm1() * (2 * self.loc + scale2).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc
