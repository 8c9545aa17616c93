"""torch.nn.utils.convert_parameters: parameters flattened to one vector and back."""
from ...ops import _registry
from ..._tensor import Tensor


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated into one vector (differentiable)."""
    return _registry.OPS["cat"]([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of `vec` into the parameters' data (they then share vec's memory)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[offset:offset + n].view_as(p).data
        offset += n
