"""torch.nn.utils.clip_grad: clipping gradients in place by their joint norm or by value."""
import math
import warnings

from ...ops import _registry
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad


def _grads(parameters):
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p.grad for p in params if p.grad is not None]


def _vector_norm(x, norm_type):
    return _registry.OPS["norm"](x, norm_type)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The `norm_type` norm of `tensors` taken together, as if concatenated into one vector
    (a tensor 0.0 for none).

    Example::

        >>> torch.nn.utils.get_total_norm([torch.tensor([3.0]), torch.tensor([4.0])])
        tensor(5.)
    """
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return _registry.OPS["tensor"](0.0)
    with no_grad():
        total = _vector_norm(_registry.OPS["stack"]([_vector_norm(t, norm_type) for t in tensors]), norm_type)
        if error_if_nonfinite and not math.isfinite(total.item()):
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                               "so it cannot be clipped. To disable this error and scale the gradients by the "
                               "non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients of `parameters` in place by min(max_norm / (total_norm + 1e-6), 1), for a
    `total_norm` computed beforehand (by :func:`get_total_norm`, say).

    Example::

        >>> p = torch.nn.Parameter(torch.ones(2)); p.grad = torch.tensor([3.0, 4.0])
        >>> torch.nn.utils.clip_grads_with_norm_([p], 1.0, torch.tensor(5.0)); p.grad
        tensor([0.6000, 0.8000])
    """
    grads = _grads(parameters)
    max_norm = float(max_norm)
    if not grads:
        return
    with no_grad():
        coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale the gradients in place so their joint `norm_type` norm is at most `max_norm`;
    returns the joint norm before clipping."""
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    grads = _grads(params)
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of :func:`clip_grad_norm_` (a FutureWarning first).

    See :func:`torch.nn.utils.clip_grad_norm_`."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient in place to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)
