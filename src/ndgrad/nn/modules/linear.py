"""Linear layers: Identity, Linear, Bilinear (and the NonDynamicallyQuantizableLinear that
MultiheadAttention's out_proj is, as in torch)."""
from typing import Any

import math

from ...ops.creation import empty
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module
from .utils import _factory


class Identity(Module):
    """A module that returns its input unchanged; it accepts (and ignores) any constructor arguments.
    Useful as a placeholder, e.g. to remove a layer from a model without changing its structure.

    Shape:
        Input: `(*)`, any number of dimensions.
        Output: the input itself.

    Example::

        >>> m = torch.nn.Identity(54, unused='ignored')
        >>> x = torch.tensor([1.0, 2.0])
        >>> m(x) is x
        True
    """
    def __init__(self, *args, **kwargs):   # accepts and ignores any arguments, as torch
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """A fully connected layer: ``y = x W^T + b`` with ``W`` of shape `(out_features, in_features)`.

    Args:
        in_features (int): the size of each input sample.
        out_features (int): the size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``.
        device: only the CPU.
        dtype: the dtype of the parameters (default: the default float dtype).

    Attributes:
        weight (Tensor): the learnable weight, `(out_features, in_features)`, initialised from
            ``U(-k, k)`` with ``k = 1 / sqrt(in_features)``.
        bias (Tensor): the learnable bias, `(out_features)`, initialised likewise.

    Shape:
        Input: `(*, in_features)`, any number of leading dimensions.
        Output: `(*, out_features)`.

    Example::

        >>> m = torch.nn.Linear(3, 2)
        >>> with torch.no_grad():
        ...     _ = m.weight.copy_(torch.tensor([[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]]))
        ...     _ = m.bias.fill_(0.5)
        >>> m(torch.tensor([[1.0, 2.0, 3.0]]))
        tensor([[1.5000, 6.5000]], grad_fn=<AddmmBackward0>)
        >>> torch.nn.Linear(20, 30)(torch.ones(128, 20)).shape
        torch.Size([128, 30])
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(empty(out_features, in_features, dtype=_factory(dtype)))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=_factory(dtype)))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        # torch's default: kaiming_uniform(a=sqrt(5)) = U(±1/sqrt(fan_in)) for the weight and the bias
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1]
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Module):
    """A bilinear layer: ``y = x1^T A x2 + b`` with ``A`` of shape `(out_features, in1_features, in2_features)`.

    Args:
        in1_features (int): the size of each first input sample.
        in2_features (int): the size of each second input sample.
        out_features (int): the size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``.
        device: only the CPU.
        dtype: the dtype of the parameters (default: the default float dtype).

    Attributes:
        weight (Tensor): the learnable weight, `(out_features, in1_features, in2_features)`, initialised
            from ``U(-k, k)`` with ``k = 1 / sqrt(in1_features)``.
        bias (Tensor): the learnable bias, `(out_features)`, initialised likewise.

    Shape:
        Input1: `(*, in1_features)`.
        Input2: `(*, in2_features)`, the same leading dimensions.
        Output: `(*, out_features)`.

    Example::

        >>> m = torch.nn.Bilinear(2, 3, 4)
        >>> m(torch.ones(5, 2), torch.ones(5, 3)).shape
        torch.Size([5, 4])
    """

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = Parameter(empty(out_features, in1_features, in2_features, dtype=_factory(dtype)))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=_factory(dtype)))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """MultiheadAttention's out_proj (torch's class name, for identical reprs)."""


__all__ = ["Identity", "Linear", "Bilinear"]
