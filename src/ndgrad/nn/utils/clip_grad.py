"""torch.nn.utils.clip_grad: clipping gradients in place by their joint norm or by value."""
import math

from ...ops import _registry
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad


def _grads(parameters):
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p.grad for p in params if p.grad is not None]


def _vector_norm(x, norm_type):
    return _registry.OPS["norm"](x, norm_type)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale the gradients in place so their joint `norm_type` norm is at most `max_norm`;
    returns the joint norm before clipping."""
    grads = _grads(parameters)
    norm_type = float(norm_type)
    if not grads:
        return _registry.OPS["tensor"](0.0)
    stack = _registry.OPS["stack"]
    with no_grad():
        total = _vector_norm(stack([_vector_norm(g, norm_type) for g in grads]), norm_type)
        if error_if_nonfinite and not math.isfinite(total.item()):
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                               "so it cannot be clipped. To disable this error and scale the gradients by the "
                               "non-finite norm anyway, set `error_if_nonfinite=False`")
        coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype))
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient in place to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)
