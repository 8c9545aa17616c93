"""Activation modules (ReLU ... Softmax, PReLU, RReLU): each calls its ndgrad.nn.functional
counterpart, with torch's arguments and repr."""
from ...ops.creation import empty
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module
from .utils import _factory


def _inplace_repr(inplace, prefix=""):
    return prefix + (", " if prefix and inplace else "") + ("inplace=True" if inplace else "")


class ReLU(Module):
    """The rectified linear unit, element-wise: ``max(0, x)``.

    Args:
        inplace (bool): overwrite the input with the result. Default: ``False``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.ReLU()
        >>> m(torch.tensor([-1.0, 0.0, 2.0]))
        tensor([0., 0., 2.])
    """
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class ReLU6(ReLU):
    """ReLU capped at six, element-wise: ``min(max(0, x), 6)``.

    Args:
        inplace (bool): overwrite the input with the result. Default: ``False``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.ReLU6()
        >>> m(torch.tensor([-1.0, 3.0, 8.0]))
        tensor([0., 3., 6.])
    """
    def forward(self, input):
        return F.relu6(input, inplace=self.inplace)


class SELU(ReLU):
    """The scaled exponential linear unit, element-wise: ``scale * (max(0, x) + min(0, alpha * (exp(x) - 1)))``
    with the fixed constants ``alpha = 1.6732632...`` and ``scale = 1.0507009...``.

    Args:
        inplace (bool): overwrite the input with the result. Default: ``False``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.SELU()
        >>> m(torch.tensor([-1.0, 0.0, 1.0]))
        tensor([-1.1113,  0.0000,  1.0507])
    """
    def forward(self, input):
        return F.selu(input, inplace=self.inplace)


class SiLU(ReLU):
    """The sigmoid linear unit (swish), element-wise: ``x * sigmoid(x)``.

    Args:
        inplace (bool): overwrite the input with the result. Default: ``False``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.SiLU()
        >>> m(torch.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.2689,  0.0000,  0.7311])
    """
    def forward(self, input):
        return F.silu(input, inplace=self.inplace)


class Threshold(Module):
    """Replaces each element not greater than `threshold` by `value`, keeps the others.

    Args:
        threshold (float): the threshold.
        value (float): what replaces the elements at or below the threshold.
        inplace (bool): overwrite the input with the result. Default: ``False``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.Threshold(0.5, -1.0)
        >>> m(torch.tensor([0.2, 0.5, 0.7]))
        tensor([-1.0000, -1.0000,  0.7000])
    """
    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, f"threshold={self.threshold}, value={self.value}")


class LeakyReLU(Module):
    """The leaky rectified linear unit, element-wise: ``x`` where ``x >= 0``, ``negative_slope * x`` elsewhere.

    Args:
        negative_slope (float): the slope for negative inputs. Default: ``0.01``.
        inplace (bool): overwrite the input with the result. Default: ``False``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.LeakyReLU(0.1)
        >>> m(torch.tensor([-2.0, 0.0, 2.0]))
        tensor([-0.2000,  0.0000,  2.0000])
    """
    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, f"negative_slope={self.negative_slope}")


class ELU(Module):
    """The exponential linear unit, element-wise: ``x`` where ``x > 0``, ``alpha * (exp(x) - 1)`` elsewhere.

    Args:
        alpha (float): the scale of the negative part. Default: ``1.0``.
        inplace (bool): overwrite the input with the result. Default: ``False``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.ELU()
        >>> m(torch.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.6321,  0.0000,  1.0000])
    """
    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, f"alpha={self.alpha}")


class CELU(ELU):
    """The continuously differentiable ELU, element-wise: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    Args:
        alpha (float): the scale of the negative part. Default: ``1.0``.
        inplace (bool): overwrite the input with the result. Default: ``False``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.CELU(alpha=2.0)
        >>> m(torch.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.7869,  0.0000,  1.0000])
    """
    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class GELU(Module):
    """The Gaussian error linear unit, element-wise: ``x * Phi(x)`` with ``Phi`` the standard normal
    distribution function.

    Args:
        approximate (str): ``'none'`` for the exact form with ``erf``, ``'tanh'`` for the tanh approximation.
            Default: ``'none'``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.GELU()
        >>> m(torch.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.1587,  0.0000,  0.8413])
    """
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    """A smooth ReLU, element-wise: ``log(1 + exp(beta * x)) / beta``; where ``beta * x`` exceeds
    `threshold` the result is ``x`` itself, for numerical stability.

    Args:
        beta (float): the sharpness. Default: ``1.0``.
        threshold (float): above this value of ``beta * x`` the function is linear. Default: ``20.0``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.Softplus()
        >>> m(torch.tensor([-1.0, 0.0, 1.0]))
        tensor([0.3133, 0.6931, 1.3133])
    """
    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    """Clamps each element to ``[min_val, max_val]``.

    Args:
        min_val (float): the lower bound. Default: ``-1.0``.
        max_val (float): the upper bound (greater than `min_val`). Default: ``1.0``.
        inplace (bool): overwrite the input with the result. Default: ``False``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.Hardtanh(-2.0, 2.0)
        >>> m(torch.tensor([-3.0, 0.5, 3.0]))
        tensor([-2.0000,  0.5000,  2.0000])
    """
    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        if max_val <= min_val:
            raise ValueError(f"max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, f"min_val={self.min_val}, max_val={self.max_val}")


class Sigmoid(Module):
    """The logistic sigmoid, element-wise: ``1 / (1 + exp(-x))``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.Sigmoid()
        >>> m(torch.tensor([-1.0, 0.0, 1.0]))
        tensor([0.2689, 0.5000, 0.7311])
    """
    def forward(self, input):
        return F.sigmoid(input)


class Tanh(Module):
    """The hyperbolic tangent, element-wise.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.Tanh()
        >>> m(torch.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.7616,  0.0000,  0.7616])
    """
    def forward(self, input):
        return F.tanh(input)


class Softmax(Module):
    """Softmax along one dimension: ``exp(x_i) / sum_j exp(x_j)``, so that the slices along `dim` are
    positive and sum to 1.

    Args:
        dim (int): the dimension to normalise along. ``None`` picks one as torch's legacy rule does (with
            a warning); give it explicitly.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.Softmax(dim=1)
        >>> m(torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]))
        tensor([[0.0900, 0.2447, 0.6652],
                [0.3333, 0.3333, 0.3333]])
    """
    _fn = staticmethod(F.softmax)

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return type(self)._fn(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmin(Softmax):
    """Softmin along one dimension: the softmax of ``-x``, so that the smallest element gets the
    largest weight.

    Args:
        dim (int): the dimension to normalise along.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.Softmin(dim=0)
        >>> m(torch.tensor([1.0, 2.0, 3.0]))
        tensor([0.6652, 0.2447, 0.0900])
    """
    _fn = staticmethod(F.softmin)


class LogSoftmax(Softmax):
    """The logarithm of the softmax along one dimension, computed stably: ``x_i - log(sum_j exp(x_j))``.

    Args:
        dim (int): the dimension to normalise along.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.LogSoftmax(dim=0)
        >>> m(torch.tensor([1.0, 2.0, 3.0]))
        tensor([-2.4076, -1.4076, -0.4076])
    """
    _fn = staticmethod(F.log_softmax)


class Hardsigmoid(ReLU):
    """A piecewise linear sigmoid, element-wise: ``0`` below -3, ``1`` above 3, ``x / 6 + 1 / 2`` between.

    Args:
        inplace (bool): overwrite the input with the result. Default: ``False``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.Hardsigmoid()
        >>> m(torch.tensor([-4.0, 0.0, 1.5, 4.0]))
        tensor([0.0000, 0.5000, 0.7500, 1.0000])
    """
    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class Hardswish(ReLU):
    """The hard swish, element-wise: ``x * hardsigmoid(x)``.

    Args:
        inplace (bool): overwrite the input with the result. Default: ``False``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.Hardswish()
        >>> m(torch.tensor([-4.0, 0.0, 1.5, 4.0]))
        tensor([-0.0000, 0.0000, 1.1250, 4.0000])
    """
    def forward(self, input):
        return F.hardswish(input, self.inplace)


class Mish(ReLU):
    """The Mish activation, element-wise: ``x * tanh(softplus(x))``.

    Args:
        inplace (bool): overwrite the input with the result. Default: ``False``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.Mish()
        >>> m(torch.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.3034,  0.0000,  0.8651])
    """
    def forward(self, input):
        return F.mish(input, self.inplace)


class LogSigmoid(Module):
    """The logarithm of the sigmoid, element-wise: ``-softplus(-x)``, computed stably.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.LogSigmoid()
        >>> m(torch.tensor([-1.0, 0.0, 1.0]))
        tensor([-1.3133, -0.6931, -0.3133])
    """
    def forward(self, input):
        return F.logsigmoid(input)


class Softsign(Module):
    """The softsign, element-wise: ``x / (1 + |x|)``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.Softsign()
        >>> m(torch.tensor([-3.0, 0.0, 1.0]))
        tensor([-0.7500,  0.0000,  0.5000])
    """
    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """Subtracts the hyperbolic tangent, element-wise: ``x - tanh(x)``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.Tanhshrink()
        >>> m(torch.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.2384,  0.0000,  0.2384])
    """
    def forward(self, input):
        return F.tanhshrink(input)


class Hardshrink(Module):
    """Hard shrinkage, element-wise: zero where ``|x| <= lambd``, ``x`` elsewhere.

    Args:
        lambd (float): the half-width of the zeroed band. Default: ``0.5``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.Hardshrink()
        >>> m(torch.tensor([-1.0, 0.3, 1.0]))
        tensor([-1.,  0.,  1.])
    """
    _fn = staticmethod(F.hardshrink)

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return type(self)._fn(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """Soft shrinkage, element-wise: zero where ``|x| <= lambd``, else ``x`` moved towards zero by `lambd`.

    Args:
        lambd (float): the half-width of the zeroed band (not negative). Default: ``0.5``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.Softshrink()
        >>> m(torch.tensor([-1.0, 0.3, 1.0]))
        tensor([-0.5000,  0.0000,  0.5000])
    """
    _fn = staticmethod(F.softshrink)


class GLU(Module):
    """The gated linear unit: splits the input in two halves ``a`` and ``b`` along `dim` and returns
    ``a * sigmoid(b)``.

    Args:
        dim (int): the dimension to split (of even size). Default: ``-1``.

    Shape:
        Input: `(*, N, *)`, with ``N`` even at `dim`.
        Output: `(*, N / 2, *)`.

    Example::

        >>> m = torch.nn.GLU()
        >>> m(torch.tensor([[1.0, 2.0, 0.0, 10.0]]))
        tensor([[0.5000, 1.9999]])
    """
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax2d(Module):
    """Softmax over the channels at each spatial location (the dimension -3).

    Shape:
        Input: `(N, C, H, W)` or `(C, H, W)`.
        Output: the shape of the input.

    Example::

        >>> m = torch.nn.Softmax2d()
        >>> m(torch.tensor([[[[1.0]], [[3.0]]]])).flatten()
        tensor([0.1192, 0.8808])
    """
    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3, _stacklevel=5)


class PReLU(Module):
    """A leaky ReLU whose negative slope is learned: ``x`` where ``x >= 0``, ``a * x`` elsewhere.

    Args:
        num_parameters (int): the number of slopes: 1 (shared) or the number of input channels (the
            dimension 1 of the input). Default: ``1``.
        init (float): the initial slope. Default: ``0.25``.

    Attributes:
        weight (Tensor): the learnable slopes, of shape ``(num_parameters,)``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.PReLU()
        >>> m(torch.tensor([-2.0, 0.0, 2.0]))
        tensor([-0.5000,  0.0000,  2.0000], grad_fn=<PreluKernelBackward0>)
    """
    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(empty(num_parameters, dtype=_factory(dtype)))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """The randomized leaky ReLU: in training, each negative element is multiplied by a slope drawn
    uniformly from ``[lower, upper]``; in evaluation, by the fixed slope ``(lower + upper) / 2``.

    Args:
        lower (float): the lower bound of the random slope. Default: ``1/8``.
        upper (float): the upper bound of the random slope. Default: ``1/3``.
        inplace (bool): overwrite the input with the result. Default: ``False``.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: `(*)`, the shape of the input.

    Example::

        >>> m = torch.nn.RReLU(0.1, 0.3).eval()
        >>> m(torch.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.2000,  0.0000,  1.0000])
    """
    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, f"lower={self.lower}, upper={self.upper}")


__all__ = ["ReLU", "ReLU6", "SELU", "SiLU", "Threshold", "LeakyReLU", "ELU", "CELU", "GELU", "Softplus", "Hardtanh",
           "Sigmoid", "Tanh", "Softmax", "Softmin", "LogSoftmax", "Hardsigmoid", "Hardswish", "Mish", "LogSigmoid",
           "Softsign", "Tanhshrink", "Hardshrink", "Softshrink", "GLU", "Softmax2d", "PReLU", "RReLU"]
