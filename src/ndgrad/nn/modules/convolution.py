"""Convolutions: Conv1d/2d/3d, ConvTranspose1d/2d/3d, and Fold/Unfold (im2col and back)."""
import math

from ...ops.creation import empty
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module
from .utils import _factory, _ntuple


class _ConvNd(Module):
    _dims = 0
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None, output_padding=0):
        super().__init__()
        n = self._dims
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode != "zeros":
            if padding_mode not in ("reflect", "replicate", "circular"):
                raise ValueError(f"padding_mode must be one of ['zeros', 'reflect', 'replicate', 'circular'], "
                                 f"but got padding_mode='{padding_mode}'")
            raise NotImplementedError(f"{type(self).__name__}: padding_mode='{padding_mode}' needs F.pad, "
                                      "which ndgrad does not have yet; use padding_mode='zeros'")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in _ntuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = _ntuple(kernel_size, n), _ntuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation, self.output_padding = _ntuple(dilation, n), _ntuple(output_padding, n)
        self.transposed, self.padding_mode = self._transposed, padding_mode
        shape = ((in_channels, out_channels // groups) if self._transposed
                 else (out_channels, in_channels // groups)) + self.kernel_size
        self.weight = Parameter(empty(*shape, dtype=_factory(dtype)))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=_factory(dtype)))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        # as Linear: kaiming_uniform(a=sqrt(5)) weight, bias U(±1/sqrt(fan_in))
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                init.uniform_(self.bias, -1 / math.sqrt(fan_in), 1 / math.sqrt(fan_in))

    def extra_repr(self):
        n = self._dims
        text = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * n:
            text += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class _Conv(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype)

    def forward(self, input):
        return self._fn(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv1d(_Conv):
    """A 1-D convolution (cross-correlation) over an input of several channels:
    ``out[b, j] = bias[j] + sum_i weight[j, i] * input[b, i]``, the product a 1-D cross-correlation.

    Args:
        in_channels (int): the number of channels of the input.
        out_channels (int): the number of channels of the output.
        kernel_size (int or tuple): the size of the kernel.
        stride (int or tuple): the step of the kernel. Default: ``1``.
        padding (int, tuple or str): zeros added on both sides of each spatial dimension, or ``'valid'``
            (none) or ``'same'`` (the output the size of the input; stride 1 only). Default: ``0``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
        groups (int): split the channels in this many groups, each convolved separately; it divides
            both channel counts. Default: ``1``.
        bias (bool): learn an additive bias. Default: ``True``.
        padding_mode (str): only ``'zeros'``; ``'reflect'``, ``'replicate'`` and ``'circular'`` raise
            NotImplementedError in ndgrad. Default: ``'zeros'``.
        device: only the CPU.
        dtype: the dtype of the parameters (default: the default float dtype).

    Attributes:
        weight (Tensor): the learnable kernel, of shape ``(out_channels, in_channels / groups, *kernel_size)``,
            initialised from ``U(-k, k)`` with ``k = 1 / sqrt(in_channels / groups * prod(kernel_size))``.
        bias (Tensor): the learnable bias, of shape ``(out_channels,)``, initialised like the weight.

    Shape:
        Input: `(N, C_in, L)` or `(C_in, L)`.
        Output: `(N, C_out, L_out)` or `(C_out, L_out)`, each spatial size
            ``(size + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1``.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> m = torch.nn.Conv1d(4, 6, 3, stride=2, padding=1)
        >>> m(torch.randn(2, 4, 10)).shape
        torch.Size([2, 6, 5])
    """
    _dims, _fn = 1, staticmethod(F.conv1d)


class Conv2d(_Conv):
    """A 2-D convolution (cross-correlation) over an input of several channels:
    ``out[b, j] = bias[j] + sum_i weight[j, i] * input[b, i]``, the product a 2-D cross-correlation.

    Args:
        in_channels (int): the number of channels of the input.
        out_channels (int): the number of channels of the output.
        kernel_size (int or tuple): the size of the kernel.
        stride (int or tuple): the step of the kernel. Default: ``1``.
        padding (int, tuple or str): zeros added on both sides of each spatial dimension, or ``'valid'``
            (none) or ``'same'`` (the output the size of the input; stride 1 only). Default: ``0``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
        groups (int): split the channels in this many groups, each convolved separately; it divides
            both channel counts. Default: ``1``.
        bias (bool): learn an additive bias. Default: ``True``.
        padding_mode (str): only ``'zeros'``; ``'reflect'``, ``'replicate'`` and ``'circular'`` raise
            NotImplementedError in ndgrad. Default: ``'zeros'``.
        device: only the CPU.
        dtype: the dtype of the parameters (default: the default float dtype).

    Attributes:
        weight (Tensor): the learnable kernel, of shape ``(out_channels, in_channels / groups, *kernel_size)``,
            initialised from ``U(-k, k)`` with ``k = 1 / sqrt(in_channels / groups * prod(kernel_size))``.
        bias (Tensor): the learnable bias, of shape ``(out_channels,)``, initialised like the weight.

    Shape:
        Input: `(N, C_in, H, W)` or `(C_in, H, W)`.
        Output: `(N, C_out, H_out, W_out)` or `(C_out, H_out, W_out)`, each spatial size
            ``(size + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1``.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> m = torch.nn.Conv2d(4, 6, 3, stride=2, padding=1)
        >>> m(torch.randn(2, 4, 8, 8)).shape
        torch.Size([2, 6, 4, 4])
    """
    _dims, _fn = 2, staticmethod(F.conv2d)


class Conv3d(_Conv):
    """A 3-D convolution (cross-correlation) over an input of several channels:
    ``out[b, j] = bias[j] + sum_i weight[j, i] * input[b, i]``, the product a 3-D cross-correlation.

    Args:
        in_channels (int): the number of channels of the input.
        out_channels (int): the number of channels of the output.
        kernel_size (int or tuple): the size of the kernel.
        stride (int or tuple): the step of the kernel. Default: ``1``.
        padding (int, tuple or str): zeros added on both sides of each spatial dimension, or ``'valid'``
            (none) or ``'same'`` (the output the size of the input; stride 1 only). Default: ``0``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
        groups (int): split the channels in this many groups, each convolved separately; it divides
            both channel counts. Default: ``1``.
        bias (bool): learn an additive bias. Default: ``True``.
        padding_mode (str): only ``'zeros'``; ``'reflect'``, ``'replicate'`` and ``'circular'`` raise
            NotImplementedError in ndgrad. Default: ``'zeros'``.
        device: only the CPU.
        dtype: the dtype of the parameters (default: the default float dtype).

    Attributes:
        weight (Tensor): the learnable kernel, of shape ``(out_channels, in_channels / groups, *kernel_size)``,
            initialised from ``U(-k, k)`` with ``k = 1 / sqrt(in_channels / groups * prod(kernel_size))``.
        bias (Tensor): the learnable bias, of shape ``(out_channels,)``, initialised like the weight.

    Shape:
        Input: `(N, C_in, D, H, W)` or `(C_in, D, H, W)`.
        Output: `(N, C_out, D_out, H_out, W_out)` or `(C_out, D_out, H_out, W_out)`, each spatial size
            ``(size + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1``.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> m = torch.nn.Conv3d(4, 6, 3, stride=2, padding=1)
        >>> m(torch.randn(2, 4, 6, 6, 6)).shape
        torch.Size([2, 6, 3, 3, 3])
    """
    _dims, _fn = 3, staticmethod(F.conv3d)


class _ConvTranspose(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if isinstance(padding, str):
            raise ValueError(f"{type(self).__name__}: padding must be an int or a tuple, not {padding!r}")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype, output_padding)

    def _output_padding(self, input, output_size):
        """The output_padding that makes the output `output_size` (spatial sizes, or with batch/channels)."""
        if output_size is None:
            return self.output_padding
        n = self._dims
        output_size = tuple(output_size)[-n:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or "
                             f"{n + 2} elements (got {len(output_size)})")
        pads = []
        for d in range(n):
            smallest = ((input.shape[input.dim() - n + d] - 1) * self.stride[d] - 2 * self.padding[d]
                        + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            pad = output_size[d] - smallest
            if not 0 <= pad < max(self.stride[d], self.dilation[d]):
                raise ValueError(f"requested an output size of {list(output_size)}, but valid sizes range from "
                                 f"{smallest} to {smallest + max(self.stride[d], self.dilation[d]) - 1} "
                                 f"(for an input of {list(input.shape[2:])})")
            pads.append(pad)
        return tuple(pads)

    def forward(self, input, output_size=None):
        return self._fn(input, self.weight, self.bias, self.stride, self.padding,
                        self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose1d(_ConvTranspose):
    """A 1-D transposed convolution: the gradient of `Conv1d` with respect to its input,
    often used to upsample ("deconvolution", though it does not invert a convolution).

    Args:
        in_channels (int): the number of channels of the input.
        out_channels (int): the number of channels of the output.
        kernel_size (int or tuple): the size of the kernel.
        stride (int or tuple): the step of the kernel. Default: ``1``.
        padding (int or tuple): trims this much from both sides of each spatial dimension of the output,
            so that a `Conv1d` of the same arguments maps the output's shape back. Default: ``0``.
        output_padding (int or tuple): extra size added to one side of the output, to pick among the
            shapes a strided convolution maps to the same size. Default: ``0``.
        groups (int): split the channels in this many groups. Default: ``1``.
        bias (bool): learn an additive bias. Default: ``True``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
        padding_mode (str): only ``'zeros'``. Default: ``'zeros'``.
        device: only the CPU.
        dtype: the dtype of the parameters (default: the default float dtype).

    Attributes:
        weight (Tensor): the learnable kernel, of shape ``(in_channels, out_channels / groups, *kernel_size)``.
        bias (Tensor): the learnable bias, of shape ``(out_channels,)``.

    Shape:
        Input: `(N, C_in, L)` or `(C_in, L)`.
        Output: `(N, C_out, L_out)` or `(C_out, L_out)`, each spatial size
            ``(size - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding + 1``.
            ``forward(input, output_size)`` picks `output_padding` to reach `output_size`.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> m = torch.nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1)
        >>> m(torch.randn(2, 4, 10)).shape
        torch.Size([2, 6, 20])
    """
    _dims, _fn = 1, staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTranspose):
    """A 2-D transposed convolution: the gradient of `Conv2d` with respect to its input,
    often used to upsample ("deconvolution", though it does not invert a convolution).

    Args:
        in_channels (int): the number of channels of the input.
        out_channels (int): the number of channels of the output.
        kernel_size (int or tuple): the size of the kernel.
        stride (int or tuple): the step of the kernel. Default: ``1``.
        padding (int or tuple): trims this much from both sides of each spatial dimension of the output,
            so that a `Conv2d` of the same arguments maps the output's shape back. Default: ``0``.
        output_padding (int or tuple): extra size added to one side of the output, to pick among the
            shapes a strided convolution maps to the same size. Default: ``0``.
        groups (int): split the channels in this many groups. Default: ``1``.
        bias (bool): learn an additive bias. Default: ``True``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
        padding_mode (str): only ``'zeros'``. Default: ``'zeros'``.
        device: only the CPU.
        dtype: the dtype of the parameters (default: the default float dtype).

    Attributes:
        weight (Tensor): the learnable kernel, of shape ``(in_channels, out_channels / groups, *kernel_size)``.
        bias (Tensor): the learnable bias, of shape ``(out_channels,)``.

    Shape:
        Input: `(N, C_in, H, W)` or `(C_in, H, W)`.
        Output: `(N, C_out, H_out, W_out)` or `(C_out, H_out, W_out)`, each spatial size
            ``(size - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding + 1``.
            ``forward(input, output_size)`` picks `output_padding` to reach `output_size`.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> m = torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1)
        >>> m(torch.randn(2, 4, 8, 8)).shape
        torch.Size([2, 6, 16, 16])
    """
    _dims, _fn = 2, staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTranspose):
    """A 3-D transposed convolution: the gradient of `Conv3d` with respect to its input,
    often used to upsample ("deconvolution", though it does not invert a convolution).

    Args:
        in_channels (int): the number of channels of the input.
        out_channels (int): the number of channels of the output.
        kernel_size (int or tuple): the size of the kernel.
        stride (int or tuple): the step of the kernel. Default: ``1``.
        padding (int or tuple): trims this much from both sides of each spatial dimension of the output,
            so that a `Conv3d` of the same arguments maps the output's shape back. Default: ``0``.
        output_padding (int or tuple): extra size added to one side of the output, to pick among the
            shapes a strided convolution maps to the same size. Default: ``0``.
        groups (int): split the channels in this many groups. Default: ``1``.
        bias (bool): learn an additive bias. Default: ``True``.
        dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
        padding_mode (str): only ``'zeros'``. Default: ``'zeros'``.
        device: only the CPU.
        dtype: the dtype of the parameters (default: the default float dtype).

    Attributes:
        weight (Tensor): the learnable kernel, of shape ``(in_channels, out_channels / groups, *kernel_size)``.
        bias (Tensor): the learnable bias, of shape ``(out_channels,)``.

    Shape:
        Input: `(N, C_in, D, H, W)` or `(C_in, D, H, W)`.
        Output: `(N, C_out, D_out, H_out, W_out)` or `(C_out, D_out, H_out, W_out)`, each spatial size
            ``(size - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding + 1``.
            ``forward(input, output_size)`` picks `output_padding` to reach `output_size`.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> m = torch.nn.ConvTranspose3d(4, 6, 3, stride=2, padding=1, output_padding=1)
        >>> m(torch.randn(2, 4, 6, 6, 6)).shape
        torch.Size([2, 6, 12, 12, 12])
    """
    _dims, _fn = 3, staticmethod(F.conv_transpose3d)


class Fold(Module):
    """Sums sliding blocks back into a tensor: the inverse arrangement of `Unfold` (overlapping
    values add up), ``F.fold`` as a module.

    Args:
        output_size (int or tuple): the spatial shape `(H, W)` of the output.
        kernel_size (int or tuple): the size of the blocks.
        dilation (int or tuple): the spacing between block elements. Default: ``1``.
        padding (int or tuple): the implicit zero padding that is dropped from the output. Default: ``0``.
        stride (int or tuple): the step between blocks. Default: ``1``.

    Shape:
        Input: `(N, C * prod(kernel_size), L)` or `(C * prod(kernel_size), L)`, ``L`` the number of blocks.
        Output: `(N, C, H, W)` or `(C, H, W)`.

    Example::

        >>> fold = torch.nn.Fold(output_size=(2, 3), kernel_size=(1, 2))
        >>> fold(torch.ones(1, 2, 4))
        tensor([[[[1., 2., 1.],
                  [1., 2., 1.]]]])
    """
    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    """Extracts sliding blocks of a batched image into columns (im2col), ``F.unfold`` as a module.

    Args:
        kernel_size (int or tuple): the size of the blocks.
        dilation (int or tuple): the spacing between block elements. Default: ``1``.
        padding (int or tuple): zeros added on both sides of each spatial dimension. Default: ``0``.
        stride (int or tuple): the step between blocks. Default: ``1``.

    Shape:
        Input: `(N, C, H, W)` or `(C, H, W)`.
        Output: `(N, C * prod(kernel_size), L)` or `(C * prod(kernel_size), L)`, ``L`` the number of blocks.

    Example::

        >>> unfold = torch.nn.Unfold(kernel_size=2)
        >>> unfold(torch.arange(9.0).view(1, 1, 3, 3))
        tensor([[[0., 1., 3., 4.],
                 [1., 2., 4., 5.],
                 [3., 4., 6., 7.],
                 [4., 5., 7., 8.]]])
    """
    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, stride={self.stride}"


__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Fold", "Unfold"]
