"""ndgrad.nn.init: in-place weight initialisations, drawn from the generators seeded by
`ndgrad.manual_seed` (torch's numbers for the same seed). All run under no_grad."""
import math
import warnings

import numpy as np

from ..autograd.grad_mode import no_grad
from ..ops.creation import empty, empty_like, eye, from_numpy
from ..ops.pointwise import where
from ..ops.random import randperm


def calculate_gain(nonlinearity, param=None):
    """The recommended gain of an initialisation for the nonlinearity that follows the layer, the factor
    that keeps the variance of the activations (torch's table): 1 for linear layers, convolutions and
    sigmoid, 5/3 for tanh, ``sqrt(2)`` for ReLU, ``sqrt(2 / (1 + slope ** 2))`` for leaky ReLU, 3/4 for SELU.

    Args:
        nonlinearity (str): ``'linear'``, ``'conv1d'``... ``'conv_transpose3d'``, ``'sigmoid'``, ``'tanh'``,
            ``'relu'``, ``'leaky_relu'`` or ``'selu'``.
        param (float, optional): the negative slope of ``'leaky_relu'`` (default ``0.01``).

    Returns:
        float: the gain.

    Example::

        >>> torch.nn.init.calculate_gain('tanh')
        1.6666666666666667
        >>> torch.nn.init.calculate_gain('leaky_relu', 0.2)
        1.3867504905630728
    """
    if nonlinearity in ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                        "conv_transpose3d", "sigmoid"):
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fills `tensor` with values drawn uniformly from ``[a, b)``.

    Args:
        tensor (Tensor): the tensor to fill (in place, without recording gradients).
        a (float): the lower bound. Default: ``0.0``.
        b (float): the upper bound. Default: ``1.0``.
        generator (Generator, optional): the generator to draw from (ndgrad's: the same seed does not give
            torch's values).

    Returns:
        Tensor: `tensor`, filled.

    Example::

        >>> w = torch.nn.init.uniform_(torch.empty(3, 5), -0.1, 0.1)
        >>> bool(((w >= -0.1) & (w < 0.1)).all())
        True
    """
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fills `tensor` with values drawn from the normal distribution ``N(mean, std ** 2)``.

    Args:
        tensor (Tensor): the tensor to fill (in place, without recording gradients).
        mean (float): the mean. Default: ``0.0``.
        std (float): the standard deviation. Default: ``1.0``.
        generator (Generator, optional): the generator to draw from (ndgrad's: the same seed does not give
            torch's values).

    Returns:
        Tensor: `tensor`, filled.

    Example::

        >>> w = torch.nn.init.normal_(torch.empty(200, 100), mean=1.0, std=0.5)
        >>> round(w.mean().item(), 1), round(w.std().item(), 1)
        (1.0, 0.5)
    """
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fills `tensor` with values drawn from ``N(mean, std ** 2)`` restricted to ``[a, b]``, by rejection
    as torch 2.13 does (so the same seed gives torch's values): when ``[a, b]`` holds more than 30% of the
    mass, normal draws of the whole tensor, the ones outside ``[a, b]`` replaced by those of a fresh draw
    until none is; otherwise uniform proposals on ``[a, b]``, each kept when the log of a uniform draw
    is below its log density relative to the peak, again for the whole tensor until every element has one.

    Args:
        tensor (Tensor): the tensor to fill (in place, without recording gradients).
        mean (float): the mean. Default: ``0.0``.
        std (float): the standard deviation. Default: ``1.0``.
        a (float): the lower bound. Default: ``-2.0``.
        b (float): the upper bound. Default: ``2.0``.
        generator (Generator, optional): the generator to draw from.

    Returns:
        Tensor: `tensor`, filled.

    Example::

        >>> w = torch.nn.init.trunc_normal_(torch.empty(1000), std=1.0, a=-0.5, b=0.5)
        >>> bool(((w >= -0.5) & (w <= 0.5)).all())
        True
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)

    def cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    with no_grad():
        if cdf((b - mean) / std) - cdf((a - mean) / std) > 0.3:
            lo, hi = (float(np.asarray(v, tensor._array.dtype)) for v in (a, b))   # the bounds in tensor's dtype
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                outside = (result < lo) | (result > hi)
                if not outside.any():
                    break
                result = where(outside, empty_like(result).normal_(mean, std, generator=generator), result)
            return tensor if result is tensor else tensor.copy_(result)
        peak = -0.5 * ((max(a, min(mean, b)) - mean) / std) ** 2

        def log_density(x):   # relative to the peak
            return x.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(peak)

        def rejected(log_pdf):
            return empty_like(tensor).uniform_(generator=generator).log_().gt(log_pdf)

        tensor.uniform_(a, b, generator=generator)
        pending = rejected(log_density(tensor.clone()))
        result = tensor
        while pending.any():
            proposal = empty_like(tensor).uniform_(a, b, generator=generator)
            result = where(pending, proposal, result)
            pending = where(pending, rejected(log_density(proposal)), pending)
        return tensor if result is tensor else tensor.copy_(result)


def constant_(tensor, val):
    """Fills `tensor` with the value `val`.

    Args:
        tensor (Tensor): the tensor to fill (in place, without recording gradients).
        val (float): the value.

    Returns:
        Tensor: `tensor`, filled.

    Example::

        >>> torch.nn.init.constant_(torch.empty(2, 3), 0.3)
        tensor([[0.3000, 0.3000, 0.3000],
                [0.3000, 0.3000, 0.3000]])
    """
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fills `tensor` with ones.

    Args:
        tensor (Tensor): the tensor to fill (in place, without recording gradients).

    Returns:
        Tensor: `tensor`, filled.

    Example::

        >>> torch.nn.init.ones_(torch.empty(2, 3))
        tensor([[1., 1., 1.],
                [1., 1., 1.]])
    """
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fills `tensor` with zeros.

    Args:
        tensor (Tensor): the tensor to fill (in place, without recording gradients).

    Returns:
        Tensor: `tensor`, filled.

    Example::

        >>> torch.nn.init.zeros_(torch.empty(2, 3))
        tensor([[0., 0., 0.],
                [0., 0., 0.]])
    """
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fills the 2-D `tensor` with the identity matrix (ones on the diagonal), so that a `Linear` layer
    initially passes as many of its inputs through as it can.

    Args:
        tensor (Tensor): a 2-D tensor to fill (in place, without recording gradients).

    Returns:
        Tensor: `tensor`, filled.

    Example::

        >>> torch.nn.init.eye_(torch.empty(2, 3))
        tensor([[1., 0., 0.],
                [0., 1., 0.]])
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return tensor.copy_(eye(*tensor.shape, dtype=tensor.dtype))


def dirac_(tensor, groups=1):
    """Fills the 3-, 4- or 5-D `tensor` with the Dirac delta: a convolution with it passes its input
    channels through unchanged (as many as there are output channels, per group).

    Args:
        tensor (Tensor): the kernel of a convolution, `(out_channels, in_channels, *kernel)`.
        groups (int): the number of convolution groups; it divides `out_channels`. Default: ``1``.

    Returns:
        Tensor: `tensor`, filled.

    Example::

        >>> w = torch.nn.init.dirac_(torch.empty(2, 2, 3))
        >>> w
        tensor([[[0., 1., 0.],
                 [0., 0., 0.]],
        <BLANKLINE>
                [[0., 0., 0.],
                 [0., 1., 0.]]])
        >>> x = torch.tensor([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]])
        >>> torch.equal(torch.nn.functional.conv1d(x, w, padding=1), x)
        True
    """
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_per_group = tensor.shape[0] // groups
    if tensor.shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    n = min(out_per_group, tensor.shape[1])
    with no_grad():
        tensor.zero_()
        for g in range(groups):   # one strided assignment per group: out channel g*k+i <- in channel i
            idx = (slice(g * out_per_group, g * out_per_group + n), slice(0, n))
            centre = tuple(s // 2 for s in tensor.shape[2:])
            block = tensor[idx]
            block[(np.arange(n), np.arange(n)) + centre] = 1
        return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Fills `tensor` with values drawn uniformly from ``[-b, b)`` with
    ``b = gain * sqrt(6 / (fan_in + fan_out))`` (Glorot and Bengio, 2010), to keep the variance of
    activations and gradients across layers.

    Args:
        tensor (Tensor): the tensor to fill, at least 2-D (in place, without recording gradients).
        gain (float): a scale (see `calculate_gain`). Default: ``1.0``.
        generator (Generator, optional): the generator to draw from (ndgrad's: the same seed does not give
            torch's values).

    Returns:
        Tensor: `tensor`, filled.

    Example::

        >>> w = torch.nn.init.xavier_uniform_(torch.empty(30, 20), gain=torch.nn.init.calculate_gain('relu'))
        >>> bound = 2 ** 0.5 * (6 / (20 + 30)) ** 0.5
        >>> bool(w.abs().max() <= bound)
        True
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Fills `tensor` with values drawn from ``N(0, std ** 2)`` with
    ``std = gain * sqrt(2 / (fan_in + fan_out))`` (Glorot and Bengio, 2010).

    Args:
        tensor (Tensor): the tensor to fill, at least 2-D (in place, without recording gradients).
        gain (float): a scale (see `calculate_gain`). Default: ``1.0``.
        generator (Generator, optional): the generator to draw from (ndgrad's: the same seed does not give
            torch's values).

    Returns:
        Tensor: `tensor`, filled.

    Example::

        >>> w = torch.nn.init.xavier_normal_(torch.empty(300, 200))
        >>> round(w.std().item() / (2 / 500) ** 0.5, 1)
        1.0
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """Fills `tensor` with values drawn uniformly from ``[-b, b)`` with ``b = gain * sqrt(3 / fan)``
    (He et al., 2015), ``gain`` that of `nonlinearity`, to keep the variance through rectifier layers.

    Args:
        tensor (Tensor): the tensor to fill, at least 2-D (in place, without recording gradients).
        a (float): the negative slope of a leaky ReLU `nonlinearity`. Default: ``0``.
        mode (str): ``'fan_in'`` (keep the forward variance) or ``'fan_out'`` (the backward's). Default:
            ``'fan_in'``.
        nonlinearity (str): the nonlinearity after the layer, ``'relu'`` or ``'leaky_relu'`` mostly.
            Default: ``'leaky_relu'``.
        generator (Generator, optional): the generator to draw from (ndgrad's: the same seed does not give
            torch's values).

    Returns:
        Tensor: `tensor`, filled.

    Example::

        >>> w = torch.nn.init.kaiming_uniform_(torch.empty(30, 20), nonlinearity='relu')
        >>> bool(w.abs().max() <= (2 ** 0.5) * (3 / 20) ** 0.5)
        True
    """
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """Fills `tensor` with values drawn from ``N(0, std ** 2)`` with ``std = gain / sqrt(fan)``
    (He et al., 2015), ``gain`` that of `nonlinearity`.

    Args:
        tensor (Tensor): the tensor to fill, at least 2-D (in place, without recording gradients).
        a (float): the negative slope of a leaky ReLU `nonlinearity`. Default: ``0``.
        mode (str): ``'fan_in'`` (keep the forward variance) or ``'fan_out'`` (the backward's). Default:
            ``'fan_in'``.
        nonlinearity (str): the nonlinearity after the layer, ``'relu'`` or ``'leaky_relu'`` mostly.
            Default: ``'leaky_relu'``.
        generator (Generator, optional): the generator to draw from (ndgrad's: the same seed does not give
            torch's values).

    Returns:
        Tensor: `tensor`, filled.

    Example::

        >>> w = torch.nn.init.kaiming_normal_(torch.empty(400, 200), mode='fan_out', nonlinearity='relu')
        >>> round(w.std().item() / (2 / 400) ** 0.5, 1)
        1.0
    """
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """Fills `tensor` with a (semi-)orthogonal matrix (Saxe et al., 2013): the Q of the QR decomposition
    of a Gaussian draw, signs fixed by R's diagonal, times `gain`; a tensor of more than 2 dimensions is
    treated as a matrix of its first dimension by the product of the others.

    Args:
        tensor (Tensor): the tensor to fill, at least 2-D (in place, without recording gradients).
        gain (float): a scale. Default: ``1``.
        generator (Generator, optional): the generator to draw from (ndgrad's: the same seed does not
            give torch's values).

    Returns:
        Tensor: `tensor`, filled.

    Example::

        >>> w = torch.nn.init.orthogonal_(torch.empty(3, 5))
        >>> torch.allclose(w @ w.T, torch.eye(3), atol=1e-6)
        True
    """
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = empty(rows, cols, dtype=tensor.dtype).normal_(0, 1, generator=generator)._array
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diagonal(r))
    if rows < cols:
        q = q.T
    with no_grad():
        tensor.copy_(from_numpy(np.ascontiguousarray(q)).view(tensor.shape))
        tensor.mul_(gain)
        return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fills the 2-D `tensor` as a sparse matrix: in each column a fraction `sparsity` of the elements
    are zero, the others drawn from ``N(0, std ** 2)`` (Martens, 2010).

    Args:
        tensor (Tensor): a 2-D tensor to fill (in place, without recording gradients).
        sparsity (float): the fraction of each column set to zero.
        std (float): the standard deviation of the non-zero values. Default: ``0.01``.
        generator (Generator, optional): the generator to draw from (ndgrad's: the same seed does not give
            torch's values).

    Returns:
        Tensor: `tensor`, filled.

    Example::

        >>> w = torch.nn.init.sparse_(torch.empty(10, 4), sparsity=0.3)
        >>> (w == 0).sum(0)
        tensor([3, 3, 3, 3])
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):   # an independent random set of rows per column
            tensor[randperm(rows, generator=generator)[:zeros], col] = 0
        return tensor


def _deprecated_alias(method):
    """torch's old names without the trailing underscore: the same fill, after a FutureWarning."""
    new_name = method.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
                      FutureWarning, stacklevel=2)
        return method(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = (f"{old_name}(...)\n\nSee :func:`torch.nn.init.{new_name}`, which this deprecated name "
                               "calls after a FutureWarning.")
    return deprecated_init


uniform = _deprecated_alias(uniform_)
normal = _deprecated_alias(normal_)
constant = _deprecated_alias(constant_)
xavier_uniform = _deprecated_alias(xavier_uniform_)
xavier_normal = _deprecated_alias(xavier_normal_)
kaiming_uniform = _deprecated_alias(kaiming_uniform_)
kaiming_normal = _deprecated_alias(kaiming_normal_)
orthogonal = _deprecated_alias(orthogonal_)
sparse = _deprecated_alias(sparse_)
dirac = _deprecated_alias(dirac_)
