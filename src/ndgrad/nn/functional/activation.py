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
    """The rectified linear unit, element-wise: ``max(0, x)``. See `torch.nn.ReLU`.

    Args:
        input (Tensor): the input.
        inplace (bool): overwrite `input` with the result (and return it). Default: ``False``.

    Returns:
        Tensor: a tensor of the input's shape.

    Example::

        >>> torch.nn.functional.relu(torch.tensor([-1.0, 0.5, 2.0]))
        tensor([0.0000, 0.5000, 2.0000])
    """
    # relu_ is registered by name only (ops/activation.py): it is relu's in-place entry point
    return _ops.relu.inplace(input) if inplace else _ops.relu(input)


def relu_(input):
    """In-place `relu`: overwrites `input` with the result and returns it.

    Args:
        input (Tensor): the input.

    Example::

        >>> x = torch.tensor([-1.0, 0.5, 2.0])
        >>> torch.nn.functional.relu_(x)
        tensor([0.0000, 0.5000, 2.0000])
        >>> x
        tensor([0.0000, 0.5000, 2.0000])
    """
    return _ops.relu.inplace(input)


def threshold(input, threshold, value, inplace=False):
    """Replaces each element not greater than `threshold` by `value`. See `torch.nn.Threshold`.

    Args:
        input (Tensor): the input.
        threshold (float): the threshold.
        value (float): what replaces the elements at or below it.
        inplace (bool): overwrite `input` with the result (and return it). Default: ``False``.

    Returns:
        Tensor: a tensor of the input's shape.

    Example::

        >>> torch.nn.functional.threshold(torch.tensor([-1.0, 0.5, 2.0]), 0.5, -5.0)
        tensor([-5., -5.,  2.])
    """
    return _ops.threshold_(input, threshold, value) if inplace else _ops.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    """In-place `threshold`: overwrites `input` with the result and returns it.

    Args:
        input (Tensor): the input.
        threshold (float): the threshold.
        value (float): what replaces the elements at or below it.

    Example::

        >>> x = torch.tensor([-1.0, 0.5, 2.0])
        >>> torch.nn.functional.threshold_(x, 0.0, 1.0)
        tensor([1.0000, 0.5000, 2.0000])
        >>> x
        tensor([1.0000, 0.5000, 2.0000])
    """
    return _ops.threshold_(input, threshold, value)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """The leaky ReLU, element-wise: ``x`` where ``x >= 0``, ``negative_slope * x`` elsewhere. See
    `torch.nn.LeakyReLU`.

    Args:
        input (Tensor): the input.
        negative_slope (float): the slope for negative inputs. Default: ``0.01``.
        inplace (bool): overwrite `input` with the result (and return it). Default: ``False``.

    Returns:
        Tensor: a tensor of the input's shape.

    Example::

        >>> torch.nn.functional.leaky_relu(torch.tensor([-1.0, 0.5, 2.0]), 0.1)
        tensor([-0.1000,  0.5000,  2.0000])
    """
    return _ops.leaky_relu_(input, negative_slope) if inplace else _ops.leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    """In-place `leaky_relu`: overwrites `input` with the result and returns it.

    Args:
        input (Tensor): the input.
        negative_slope (float): the slope for negative inputs. Default: ``0.01``.

    Example::

        >>> x = torch.tensor([-1.0, 0.5, 2.0])
        >>> torch.nn.functional.leaky_relu_(x, 0.1)
        tensor([-0.1000,  0.5000,  2.0000])
        >>> x
        tensor([-0.1000,  0.5000,  2.0000])
    """
    return _ops.leaky_relu_(input, negative_slope)


def elu(input, alpha=1.0, inplace=False):
    """The exponential linear unit, element-wise: ``x`` where ``x > 0``, ``alpha * (exp(x) - 1)`` elsewhere.
    See `torch.nn.ELU`.

    Args:
        input (Tensor): the input.
        alpha (float): the scale of the negative part. Default: ``1.0``.
        inplace (bool): overwrite `input` with the result (and return it). Default: ``False``.

    Returns:
        Tensor: a tensor of the input's shape.

    Example::

        >>> torch.nn.functional.elu(torch.tensor([-1.0, 0.5, 2.0]))
        tensor([-0.6321,  0.5000,  2.0000])
    """
    return _ops.elu_(input, alpha) if inplace else _ops.elu(input, alpha)


def elu_(input, alpha=1.0):
    """In-place `elu`: overwrites `input` with the result and returns it.

    Args:
        input (Tensor): the input.
        alpha (float): the scale of the negative part. Default: ``1.0``.

    Example::

        >>> x = torch.tensor([-1.0, 0.5, 2.0])
        >>> torch.nn.functional.elu_(x)
        tensor([-0.6321,  0.5000,  2.0000])
        >>> x
        tensor([-0.6321,  0.5000,  2.0000])
    """
    return _ops.elu_(input, alpha)


def selu(input, inplace=False):
    """The scaled exponential linear unit, element-wise, with SELU's fixed ``alpha`` and ``scale``. See
    `torch.nn.SELU`.

    Args:
        input (Tensor): the input.
        inplace (bool): overwrite `input` with the result (and return it). Default: ``False``.

    Returns:
        Tensor: a tensor of the input's shape.

    Example::

        >>> torch.nn.functional.selu(torch.tensor([-1.0, 0.5, 2.0]))
        tensor([-1.1113,  0.5254,  2.1014])
    """
    return _ops.selu_(input) if inplace else _ops.selu(input)


def selu_(input):
    """In-place `selu`: overwrites `input` with the result and returns it.

    Args:
        input (Tensor): the input.

    Example::

        >>> x = torch.tensor([-1.0, 0.5, 2.0])
        >>> torch.nn.functional.selu_(x)
        tensor([-1.1113,  0.5254,  2.1014])
        >>> x
        tensor([-1.1113,  0.5254,  2.1014])
    """
    return _ops.selu_(input)


def celu(input, alpha=1.0, inplace=False):
    """The continuously differentiable ELU: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``. See
    `torch.nn.CELU`.

    Args:
        input (Tensor): the input.
        alpha (float): the scale of the negative part. Default: ``1.0``.
        inplace (bool): overwrite `input` with the result (and return it). Default: ``False``.

    Returns:
        Tensor: a tensor of the input's shape.

    Example::

        >>> torch.nn.functional.celu(torch.tensor([-1.0, 0.5, 2.0]), 2.0)
        tensor([-0.7869,  0.5000,  2.0000])
    """
    return _ops.celu_(input, alpha) if inplace else _ops.celu(input, alpha)


def celu_(input, alpha=1.0):
    """In-place `celu`: overwrites `input` with the result and returns it.

    Args:
        input (Tensor): the input.
        alpha (float): the scale of the negative part. Default: ``1.0``.

    Example::

        >>> x = torch.tensor([-1.0, 0.5, 2.0])
        >>> torch.nn.functional.celu_(x)
        tensor([-0.6321,  0.5000,  2.0000])
        >>> x
        tensor([-0.6321,  0.5000,  2.0000])
    """
    return _ops.celu_(input, alpha)


def gelu(input, approximate="none"):
    """The Gaussian error linear unit, element-wise: ``x * Phi(x)``, ``Phi`` the standard normal
    distribution function. See `torch.nn.GELU`.

    Args:
        input (Tensor): the input.
        approximate (str): ``'none'`` (exact, with ``erf``) or ``'tanh'`` (the tanh approximation). Default:
            ``'none'``.

    Returns:
        Tensor: a tensor of the input's shape.

    Example::

        >>> torch.nn.functional.gelu(torch.tensor([-1.0, 0.5, 2.0]))
        tensor([-0.1587,  0.3457,  1.9545])
    """
    return _ops._gelu(input, approximate=approximate)


def silu(input, inplace=False):
    """The sigmoid linear unit (swish), element-wise: ``x * sigmoid(x)``. See `torch.nn.SiLU`.

    Args:
        input (Tensor): the input.
        inplace (bool): overwrite `input` with the result (and return it). Default: ``False``.

    Returns:
        Tensor: a tensor of the input's shape.

    Example::

        >>> torch.nn.functional.silu(torch.tensor([-1.0, 0.5, 2.0]))
        tensor([-0.2689,  0.3112,  1.7616])
    """
    return _ops.silu_(input) if inplace else _ops.silu(input)


def softplus(input, beta=1.0, threshold=20.0):
    """A smooth ReLU, element-wise: ``log(1 + exp(beta * x)) / beta``, linear where ``beta * x >
    threshold``. See `torch.nn.Softplus`.

    Args:
        input (Tensor): the input.
        beta (float): the sharpness. Default: ``1.0``.
        threshold (float): above this ``beta * x`` the result is ``x``. Default: ``20.0``.

    Returns:
        Tensor: a tensor of the input's shape.

    Example::

        >>> torch.nn.functional.softplus(torch.tensor([-1.0, 0.5, 2.0]))
        tensor([0.3133, 0.9741, 2.1269])
    """
    return _ops._softplus(input, beta, threshold)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Clamps each element to ``[min_val, max_val]``. See `torch.nn.Hardtanh`.

    Args:
        input (Tensor): the input.
        min_val (float): the lower bound. Default: ``-1.0``.
        max_val (float): the upper bound. Default: ``1.0``.
        inplace (bool): overwrite `input` with the result (and return it). Default: ``False``.

    Returns:
        Tensor: a tensor of the input's shape.

    Example::

        >>> torch.nn.functional.hardtanh(torch.tensor([-1.0, 0.5, 2.0]), -0.5, 1.0)
        tensor([-0.5000,  0.5000,  1.0000])
    """
    return _ops.hardtanh_(input, min_val, max_val) if inplace else _ops.hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place `hardtanh`: overwrites `input` with the result and returns it.

    Args:
        input (Tensor): the input.
        min_val (float): the lower bound. Default: ``-1.0``.
        max_val (float): the upper bound. Default: ``1.0``.

    Example::

        >>> x = torch.tensor([-1.0, 0.5, 2.0])
        >>> torch.nn.functional.hardtanh_(x)
        tensor([-1.0000,  0.5000,  1.0000])
        >>> x
        tensor([-1.0000,  0.5000,  1.0000])
    """
    return _ops.hardtanh_(input, min_val, max_val)


def relu6(input, inplace=False):
    """ReLU capped at six, element-wise: ``min(max(0, x), 6)``. See `torch.nn.ReLU6`.

    Args:
        input (Tensor): the input.
        inplace (bool): overwrite `input` with the result (and return it). Default: ``False``.

    Returns:
        Tensor: a tensor of the input's shape.

    Example::

        >>> torch.nn.functional.relu6(torch.tensor([-1.0, 3.0, 8.0]))
        tensor([0., 3., 6.])
    """
    return hardtanh(input, 0.0, 6.0, inplace)


def sigmoid(input):
    """The logistic sigmoid, element-wise: ``1 / (1 + exp(-x))`` (as `torch.sigmoid`). See `torch.nn.Sigmoid`.

    Args:
        input (Tensor): the input.

    Returns:
        Tensor: a tensor of the input's shape.

    Example::

        >>> torch.nn.functional.sigmoid(torch.tensor([-1.0, 0.0, 1.0]))
        tensor([0.2689, 0.5000, 0.7311])
    """
    return _pointwise.sigmoid(input)


def tanh(input):
    """The hyperbolic tangent, element-wise (as `torch.tanh`). See `torch.nn.Tanh`.

    Args:
        input (Tensor): the input.

    Returns:
        Tensor: a tensor of the input's shape.

    Example::

        >>> torch.nn.functional.tanh(torch.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.7616,  0.0000,  0.7616])
    """
    return _pointwise.tanh(input)


# ---- softmax ------------------------------------------------------------------------------
def _softmax_dim(name, ndim):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
                  "dim=X as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Softmax along `dim`: ``exp(x_i) / sum_j exp(x_j)``; the slices along `dim` are positive and sum to 1.
    See `torch.nn.Softmax`.

    Args:
        input (Tensor): the input.
        dim (int): the dimension to normalise along. ``None`` picks one by torch's legacy rule, with a
            warning.
        dtype (dtype, optional): cast the input to this dtype first (e.g. to compute in float64).

    Returns:
        Tensor: a tensor of the input's shape.

    Example::

        >>> torch.nn.functional.softmax(torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]), dim=1)
        tensor([[0.0900, 0.2447, 0.6652],
                [0.3333, 0.3333, 0.3333]])
    """
    if dim is None:
        dim = _softmax_dim("softmax", input.ndim)
    return _ops.softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """Softmin along `dim`: the softmax of ``-x``. See `torch.nn.Softmin`.

    Args:
        input (Tensor): the input.
        dim (int): the dimension to normalise along. ``None`` picks one by torch's legacy rule, with a
            warning.
        dtype (dtype, optional): cast the input to this dtype first (e.g. to compute in float64).

    Returns:
        Tensor: a tensor of the input's shape.

    Example::

        >>> torch.nn.functional.softmin(torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]), dim=1)
        tensor([[0.6652, 0.2447, 0.0900],
                [0.3333, 0.3333, 0.3333]])
    """
    if dim is None:
        dim = _softmax_dim("softmin", input.ndim)
    return _ops.softmax(-input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """The logarithm of the softmax along `dim`, computed stably: ``x_i - log(sum_j exp(x_j))``. See
    `torch.nn.LogSoftmax`.

    Args:
        input (Tensor): the input.
        dim (int): the dimension to normalise along. ``None`` picks one by torch's legacy rule, with a
            warning.
        dtype (dtype, optional): cast the input to this dtype first (e.g. to compute in float64).

    Returns:
        Tensor: a tensor of the input's shape.

    Example::

        >>> torch.nn.functional.log_softmax(torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]), dim=1)
        tensor([[-2.4076, -1.4076, -0.4076],
                [-1.0986, -1.0986, -1.0986]])
    """
    if dim is None:
        dim = _softmax_dim("log_softmax", input.ndim)
    return _ops.log_softmax(input, dim, dtype=dtype)


# ---- api: gumbel_softmax
def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax (concrete) distribution over `dim`: ``softmax((logits + g) / tau)``
    with ``g`` drawn from Gumbel(0, 1). With `hard`, the one-hot of its argmax in the forward and the
    soft sample's gradient in the backward (straight-through).

    The draws come from ndgrad's generator: the same seed does not give torch's sample.

    Args:
        logits (Tensor): unnormalised log-probabilities, `(*, num_features)`.
        tau (float): the temperature, positive; small values give nearly one-hot samples. Default: ``1.0``.
        hard (bool): return one-hot samples (differentiable as the soft ones). Default: ``False``.
        eps (float): unused, as in torch (deprecated there: passing another value warns).
        dim (int): the dimension of the categories. Default: ``-1``.

    Returns:
        Tensor: a sample of the logits' shape, summing to 1 along `dim`.

    Example::

        >>> logits = torch.tensor([[1.0, 2.0, 3.0]])
        >>> y = torch.nn.functional.gumbel_softmax(logits, tau=0.5)
        >>> torch.allclose(y.sum(-1), torch.ones(1))
        True
        >>> torch.nn.functional.gumbel_softmax(logits, hard=True).sum().item()
        1.0
    """
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
