"""torch.nn.utils.parametrizations: weight_norm as a parametrization (g * v / ||v||, recomputed
on every access through torch's fused op _weight_norm)."""
from ...ops.normalization import _weight_norm
from ...ops.reduction import norm_except_dim
from ..modules.module import Module
from .parametrize import register_parametrization


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """torch.nn.utils.parametrizations.weight_norm: `name` = g * v / ||v|| with g, v as
    parametrizations.<name>.original0 / original1."""
    return register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
