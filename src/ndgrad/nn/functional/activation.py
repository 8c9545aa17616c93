"""nn.functional's activations and softmax: the inplace= forms and torch's argument handling over
the kernels of ops/activation.py (the other activations are those kernels' own public forms).
"""
import warnings

from ..._tensor import Tensor
from ...ops import activation as _ops
from ...ops import pointwise as _pointwise
from ...ops.activation import (glu, hardshrink, hardsigmoid, hardswish, logsigmoid, mish, prelu, rrelu, rrelu_,
                               softshrink, softsign, tanhshrink)

__all__ = ["celu", "celu_", "elu", "elu_", "gelu", "glu", "hardshrink", "hardsigmoid", "hardswish", "hardtanh",
           "hardtanh_", "leaky_relu", "leaky_relu_", "log_softmax", "logsigmoid", "mish", "prelu", "relu", "relu6",
           "relu_", "rrelu", "rrelu_", "selu", "selu_", "sigmoid", "silu", "softmax", "softmin", "softplus",
           "softshrink", "softsign", "tanh", "tanhshrink", "threshold", "threshold_"]


# ---- activations --------------------------------------------------------------------------
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    # relu_ is registered by name only (ops/activation.py): it is relu's in-place entry point
    return _ops.relu.inplace(input) if inplace else _ops.relu(input)


def relu_(input):
    return _ops.relu.inplace(input)


def threshold(input, threshold, value, inplace=False):
    return _ops.threshold_(input, threshold, value) if inplace else _ops.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    return _ops.threshold_(input, threshold, value)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _ops.leaky_relu_(input, negative_slope) if inplace else _ops.leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return _ops.leaky_relu_(input, negative_slope)


def elu(input, alpha=1.0, inplace=False):
    return _ops.elu_(input, alpha) if inplace else _ops.elu(input, alpha)


def elu_(input, alpha=1.0):
    return _ops.elu_(input, alpha)


def selu(input, inplace=False):
    return _ops.selu_(input) if inplace else _ops.selu(input)


def selu_(input):
    return _ops.selu_(input)


def celu(input, alpha=1.0, inplace=False):
    return _ops.celu_(input, alpha) if inplace else _ops.celu(input, alpha)


def celu_(input, alpha=1.0):
    return _ops.celu_(input, alpha)


def gelu(input, approximate="none"):
    return _ops._gelu(input, approximate=approximate)


def silu(input, inplace=False):
    return _ops.silu_(input) if inplace else _ops.silu(input)


def softplus(input, beta=1.0, threshold=20.0):
    return _ops._softplus(input, beta, threshold)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return _ops.hardtanh_(input, min_val, max_val) if inplace else _ops.hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return _ops.hardtanh_(input, min_val, max_val)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def sigmoid(input):
    return _pointwise.sigmoid(input)


def tanh(input):
    return _pointwise.tanh(input)


# ---- softmax ------------------------------------------------------------------------------
def _softmax_dim(name, ndim):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
                  "dim=X as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmax", input.ndim)
    return _ops.softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmin", input.ndim)
    return _ops.softmax(-input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("log_softmax", input.ndim)
    return _ops.log_softmax(input, dim, dtype=dtype)


# ---- api: gumbel_softmax
def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax (concrete) distribution over `dim`: softmax((logits + g) / tau)
    with g ~ Gumbel(0, 1); hard: the one-hot of its argmax in the forward, the soft sample's
    gradient in the backward (straight-through). `eps` is unused, as in torch (deprecated there)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.")
    gumbels = -logits.new_empty(logits.shape).exponential_().log()
    soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return soft
    index = soft.max(dim, keepdim=True)[1]
    one_hot = logits.new_zeros(logits.shape).scatter_(dim, index, 1.0)
    return one_hot - soft.detach() + soft


__all__ += ["gumbel_softmax"]
