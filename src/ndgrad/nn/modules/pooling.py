"""Pooling: max, average, adaptive, fractional and power-average pooling in 1, 2 and 3 dimensions, and max unpooling."""
from .. import functional as F
from .module import Module
from .utils import _ntuple


class _MaxPoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return self._fn(input, self.kernel_size, self.stride, self.padding, self.dilation,
                        ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """1-D max pooling: the maximum of each window of the input, channel by channel.

    Args:
        kernel_size (int or tuple): the size of the window.
        stride (int or tuple, optional): the step of the window. Default: `kernel_size`.
        padding (int or tuple): implicit negative infinity added on both sides, at most half the kernel
            size. Default: ``0``.
        dilation (int or tuple): the spacing between window elements. Default: ``1``.
        return_indices (bool): return the flat indices of the maxima too (for `MaxUnpool1d`). Default: ``False``.
        ceil_mode (bool): round the output size up, so that a partial window at the end counts.
            Default: ``False``.

    Shape:
        Input: `(N, C, L)` or `(C, L)`.
        Output: `(N, C, L_out)` or `(C, L_out)`, each spatial size
            ``(size + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1``,
            rounded down (up with `ceil_mode`).

    Example::

        >>> m = torch.nn.MaxPool1d(2)
        >>> m(torch.tensor([[[1.0, 3.0, 2.0, 5.0, 4.0, 0.0]]]))
        tensor([[[3., 5., 4.]]])
    """
    _fn = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """2-D max pooling: the maximum of each window of the input, channel by channel.

    Args:
        kernel_size (int or tuple): the size of the window.
        stride (int or tuple, optional): the step of the window. Default: `kernel_size`.
        padding (int or tuple): implicit negative infinity added on both sides, at most half the kernel
            size. Default: ``0``.
        dilation (int or tuple): the spacing between window elements. Default: ``1``.
        return_indices (bool): return the flat indices of the maxima too (for `MaxUnpool2d`). Default: ``False``.
        ceil_mode (bool): round the output size up, so that a partial window at the end counts.
            Default: ``False``.

    Shape:
        Input: `(N, C, H, W)` or `(C, H, W)`.
        Output: `(N, C, H_out, W_out)` or `(C, H_out, W_out)`, each spatial size
            ``(size + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1``,
            rounded down (up with `ceil_mode`).

    Example::

        >>> m = torch.nn.MaxPool2d(2)
        >>> m(torch.arange(16.0).view(1, 1, 4, 4))
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """
    _fn = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """3-D max pooling: the maximum of each window of the input, channel by channel.

    Args:
        kernel_size (int or tuple): the size of the window.
        stride (int or tuple, optional): the step of the window. Default: `kernel_size`.
        padding (int or tuple): implicit negative infinity added on both sides, at most half the kernel
            size. Default: ``0``.
        dilation (int or tuple): the spacing between window elements. Default: ``1``.
        return_indices (bool): return the flat indices of the maxima too (for `MaxUnpool3d`). Default: ``False``.
        ceil_mode (bool): round the output size up, so that a partial window at the end counts.
            Default: ``False``.

    Shape:
        Input: `(N, C, D, H, W)` or `(C, D, H, W)`.
        Output: `(N, C, D_out, H_out, W_out)` or `(C, D_out, H_out, W_out)`, each spatial size
            ``(size + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1``,
            rounded down (up with `ceil_mode`).

    Example::

        >>> m = torch.nn.MaxPool3d(2)
        >>> m(torch.arange(64.0).view(1, 1, 4, 4, 4)).shape
        torch.Size([1, 1, 2, 2, 2])
    """
    _fn = staticmethod(F.max_pool3d)


class AvgPool1d(Module):
    """1-D average pooling: the mean of each window of the input, channel by channel.

    Args:
        kernel_size (int or tuple): the size of the window.
        stride (int or tuple, optional): the step of the window. Default: `kernel_size`.
        padding (int or tuple): implicit zeros added on both sides, at most half the kernel size. Default: ``0``.
        ceil_mode (bool): round the output size up, so that a partial window at the end counts.
            Default: ``False``.
        count_include_pad (bool): count the padding zeros in the divisor. Default: ``True``.

    Shape:
        Input: `(N, C, L)` or `(C, L)`.
        Output: `(N, C, L_out)` or `(C, L_out)`, each spatial size
            ``(size + 2 * padding - kernel_size) / stride + 1``, rounded down (up with `ceil_mode`).

    Example::

        >>> m = torch.nn.AvgPool1d(2)
        >>> m(torch.tensor([[[1.0, 3.0, 2.0, 5.0, 4.0, 0.0]]]))
        tensor([[[2.0000, 3.5000, 2.0000]]])
    """
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        # torch keeps AvgPool1d's sizes as 1-tuples (and prints them so)
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(Module):
    """2-D average pooling: the mean of each window of the input, channel by channel.

    Args:
        kernel_size (int or tuple): the size of the window.
        stride (int or tuple, optional): the step of the window. Default: `kernel_size`.
        padding (int or tuple): implicit zeros added on both sides, at most half the kernel size. Default: ``0``.
        ceil_mode (bool): round the output size up, so that a partial window at the end counts.
            Default: ``False``.
        count_include_pad (bool): count the padding zeros in the divisor. Default: ``True``.
        divisor_override (int, optional): divide every window's sum by this instead. Default: ``None``.

    Shape:
        Input: `(N, C, H, W)` or `(C, H, W)`.
        Output: `(N, C, H_out, W_out)` or `(C, H_out, W_out)`, each spatial size
            ``(size + 2 * padding - kernel_size) / stride + 1``, rounded down (up with `ceil_mode`).

    Example::

        >>> m = torch.nn.AvgPool2d(2)
        >>> m(torch.arange(16.0).view(1, 1, 4, 4))
        tensor([[[[ 2.5000,  4.5000],
                  [10.5000, 12.5000]]]])
    """
    _fn = staticmethod(F.avg_pool2d)

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return self._fn(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                        self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool3d(AvgPool2d):
    """3-D average pooling: the mean of each window of the input, channel by channel.

    Args:
        kernel_size (int or tuple): the size of the window.
        stride (int or tuple, optional): the step of the window. Default: `kernel_size`.
        padding (int or tuple): implicit zeros added on both sides, at most half the kernel size. Default: ``0``.
        ceil_mode (bool): round the output size up, so that a partial window at the end counts.
            Default: ``False``.
        count_include_pad (bool): count the padding zeros in the divisor. Default: ``True``.
        divisor_override (int, optional): divide every window's sum by this instead. Default: ``None``.

    Shape:
        Input: `(N, C, D, H, W)` or `(C, D, H, W)`.
        Output: `(N, C, D_out, H_out, W_out)` or `(C, D_out, H_out, W_out)`, each spatial size
            ``(size + 2 * padding - kernel_size) / stride + 1``, rounded down (up with `ceil_mode`).

    Example::

        >>> m = torch.nn.AvgPool3d(2)
        >>> m(torch.arange(64.0).view(1, 1, 4, 4, 4)).shape
        torch.Size([1, 1, 2, 2, 2])
    """
    _fn = staticmethod(F.avg_pool3d)


class _AdaptivePool(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return self._fn(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool):
    """1-D adaptive average pooling: averages over windows chosen so that the output has the
    given size, whatever the input's size (window ``i`` of ``out`` over an input of size ``in`` spans
    ``[floor(i * in / out), ceil((i + 1) * in / out))``).

    Args:
        output_size (int or tuple): the size of the output; in a tuple, ``None`` keeps the input's size.

    Shape:
        Input: `(N, C, L)` or `(C, L)`.
        Output: `(N, C, L_out)` or `(C, L_out)`, `output_size`.

    Example::

        >>> m = torch.nn.AdaptiveAvgPool1d(3)
        >>> m(torch.tensor([[[1.0, 3.0, 2.0, 5.0, 4.0, 0.0]]]))
        tensor([[[2.0000, 3.5000, 2.0000]]])
    """
    _fn = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptivePool):
    """2-D adaptive average pooling: averages over windows chosen so that the output has the
    given size, whatever the input's size (window ``i`` of ``out`` over an input of size ``in`` spans
    ``[floor(i * in / out), ceil((i + 1) * in / out))``).

    Args:
        output_size (int or tuple): the size of the output; in a tuple, ``None`` keeps the input's size.

    Shape:
        Input: `(N, C, H, W)` or `(C, H, W)`.
        Output: `(N, C, H_out, W_out)` or `(C, H_out, W_out)`, `output_size`.

    Example::

        >>> m = torch.nn.AdaptiveAvgPool2d(2)
        >>> m(torch.arange(16.0).view(1, 1, 4, 4))
        tensor([[[[ 2.5000,  4.5000],
                  [10.5000, 12.5000]]]])
    """
    _fn = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptivePool):
    """3-D adaptive average pooling: averages over windows chosen so that the output has the
    given size, whatever the input's size (window ``i`` of ``out`` over an input of size ``in`` spans
    ``[floor(i * in / out), ceil((i + 1) * in / out))``).

    Args:
        output_size (int or tuple): the size of the output; in a tuple, ``None`` keeps the input's size.

    Shape:
        Input: `(N, C, D, H, W)` or `(C, D, H, W)`.
        Output: `(N, C, D_out, H_out, W_out)` or `(C, D_out, H_out, W_out)`, `output_size`.

    Example::

        >>> m = torch.nn.AdaptiveAvgPool3d(2)
        >>> m(torch.arange(64.0).view(1, 1, 4, 4, 4)).shape
        torch.Size([1, 1, 2, 2, 2])
    """
    _fn = staticmethod(F.adaptive_avg_pool3d)


class _AdaptiveMaxPool(_AdaptivePool):
    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input):
        return self._fn(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPool):
    """1-D adaptive max pooling: the maximum over windows chosen so that the output has the
    given size, whatever the input's size (the windows of `AdaptiveAvgPool1d`).

    Args:
        output_size (int or tuple): the size of the output; in a tuple, ``None`` keeps the input's size.
        return_indices (bool): return the flat indices of the maxima too. Default: ``False``.

    Shape:
        Input: `(N, C, L)` or `(C, L)`.
        Output: `(N, C, L_out)` or `(C, L_out)`, `output_size`.

    Example::

        >>> m = torch.nn.AdaptiveMaxPool1d(3)
        >>> m(torch.tensor([[[1.0, 3.0, 2.0, 5.0, 4.0, 0.0]]]))
        tensor([[[3., 5., 4.]]])
    """
    _fn = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPool):
    """2-D adaptive max pooling: the maximum over windows chosen so that the output has the
    given size, whatever the input's size (the windows of `AdaptiveAvgPool2d`).

    Args:
        output_size (int or tuple): the size of the output; in a tuple, ``None`` keeps the input's size.
        return_indices (bool): return the flat indices of the maxima too. Default: ``False``.

    Shape:
        Input: `(N, C, H, W)` or `(C, H, W)`.
        Output: `(N, C, H_out, W_out)` or `(C, H_out, W_out)`, `output_size`.

    Example::

        >>> m = torch.nn.AdaptiveMaxPool2d(2)
        >>> m(torch.arange(16.0).view(1, 1, 4, 4))
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """
    _fn = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPool):
    """3-D adaptive max pooling: the maximum over windows chosen so that the output has the
    given size, whatever the input's size (the windows of `AdaptiveAvgPool3d`).

    Args:
        output_size (int or tuple): the size of the output; in a tuple, ``None`` keeps the input's size.
        return_indices (bool): return the flat indices of the maxima too. Default: ``False``.

    Shape:
        Input: `(N, C, D, H, W)` or `(C, D, H, W)`.
        Output: `(N, C, D_out, H_out, W_out)` or `(C, D_out, H_out, W_out)`, `output_size`.

    Example::

        >>> m = torch.nn.AdaptiveMaxPool3d(2)
        >>> m(torch.arange(64.0).view(1, 1, 4, 4, 4)).shape
        torch.Size([1, 1, 2, 2, 2])
    """
    _fn = staticmethod(F.adaptive_max_pool3d)


class _LPPool(Module):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def forward(self, input):
        return self._fn(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPool):
    """1-D power-average pooling: ``(sum of x ** p over each window) ** (1 / p)``; ``p = 1`` is
    sum pooling and infinite ``p`` max pooling.

    Args:
        norm_type (float): the power ``p``.
        kernel_size (int or tuple): the size of the window.
        stride (int or tuple, optional): the step of the window. Default: `kernel_size`.
        ceil_mode (bool): round the output size up. Default: ``False``.

    Shape:
        Input: `(N, C, L)` or `(C, L)`.
        Output: `(N, C, L_out)` or `(C, L_out)`, each spatial size
            ``(size - kernel_size) / stride + 1``, rounded down (up with `ceil_mode`).

    Example::

        >>> m = torch.nn.LPPool1d(2, 2)
        >>> m(torch.tensor([[[1.0, 3.0, 2.0, 5.0, 4.0, 0.0]]]))
        tensor([[[3.1623, 5.3852, 4.0000]]])
    """
    _fn = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPool):
    """2-D power-average pooling: ``(sum of x ** p over each window) ** (1 / p)``; ``p = 1`` is
    sum pooling and infinite ``p`` max pooling.

    Args:
        norm_type (float): the power ``p``.
        kernel_size (int or tuple): the size of the window.
        stride (int or tuple, optional): the step of the window. Default: `kernel_size`.
        ceil_mode (bool): round the output size up. Default: ``False``.

    Shape:
        Input: `(N, C, H, W)` or `(C, H, W)`.
        Output: `(N, C, H_out, W_out)` or `(C, H_out, W_out)`, each spatial size
            ``(size - kernel_size) / stride + 1``, rounded down (up with `ceil_mode`).

    Example::

        >>> m = torch.nn.LPPool2d(2, 2)
        >>> m(torch.arange(16.0).view(1, 1, 4, 4))
        tensor([[[[ 6.4807,  9.8995],
                  [21.4009, 25.3377]]]])
    """
    _fn = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPool):
    """3-D power-average pooling: ``(sum of x ** p over each window) ** (1 / p)``; ``p = 1`` is
    sum pooling and infinite ``p`` max pooling.

    Args:
        norm_type (float): the power ``p``.
        kernel_size (int or tuple): the size of the window.
        stride (int or tuple, optional): the step of the window. Default: `kernel_size`.
        ceil_mode (bool): round the output size up. Default: ``False``.

    Shape:
        Input: `(N, C, D, H, W)` or `(C, D, H, W)`.
        Output: `(N, C, D_out, H_out, W_out)` or `(C, D_out, H_out, W_out)`, each spatial size
            ``(size - kernel_size) / stride + 1``, rounded down (up with `ceil_mode`).

    Example::

        >>> m = torch.nn.LPPool3d(2, 2)
        >>> m(torch.arange(64.0).view(1, 1, 4, 4, 4)).shape
        torch.Size([1, 1, 2, 2, 2])
    """
    _fn = staticmethod(F.lp_pool3d)


class _MaxUnpool(Module):
    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        n = self._dims
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride if stride is not None else kernel_size, n)
        self.padding = _ntuple(padding, n)

    def forward(self, input, indices, output_size=None):
        return self._fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpool):
    """A partial inverse of `MaxPool1d`: puts each value at the position its index names
    (as `MaxPool1d` with ``return_indices=True`` returns them), zeros elsewhere.

    Args:
        kernel_size (int or tuple): the size of the pooling window.
        stride (int or tuple, optional): the step of the pooling window. Default: `kernel_size`.
        padding (int or tuple): the padding of the pooling. Default: ``0``.

    Shape:
        Input: `(N, C, L_in)` or `(C, L_in)`, with indices of that shape.
        Output: `(N, C, L_out)` or `(C, L_out)`, each spatial size
            ``(size - 1) * stride - 2 * padding + kernel_size``, or ``forward(input, indices, output_size)``.

    Example::

        >>> pool = torch.nn.MaxPool1d(2, return_indices=True)
        >>> unpool = torch.nn.MaxUnpool1d(2)
        >>> out, indices = pool(torch.tensor([[[1.0, 3.0, 2.0, 5.0, 4.0, 0.0]]]))
        >>> unpool(out, indices)
        tensor([[[0., 3., 0., 5., 4., 0.]]])
    """
    _dims, _fn = 1, staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpool):
    """A partial inverse of `MaxPool2d`: puts each value at the position its index names
    (as `MaxPool2d` with ``return_indices=True`` returns them), zeros elsewhere.

    Args:
        kernel_size (int or tuple): the size of the pooling window.
        stride (int or tuple, optional): the step of the pooling window. Default: `kernel_size`.
        padding (int or tuple): the padding of the pooling. Default: ``0``.

    Shape:
        Input: `(N, C, H_in, W_in)` or `(C, H_in, W_in)`, with indices of that shape.
        Output: `(N, C, H_out, W_out)` or `(C, H_out, W_out)`, each spatial size
            ``(size - 1) * stride - 2 * padding + kernel_size``, or ``forward(input, indices, output_size)``.

    Example::

        >>> pool = torch.nn.MaxPool2d(2, return_indices=True)
        >>> unpool = torch.nn.MaxUnpool2d(2)
        >>> out, indices = pool(torch.arange(16.0).view(1, 1, 4, 4))
        >>> unpool(out, indices)
        tensor([[[[ 0.,  0.,  0.,  0.],
                  [ 0.,  5.,  0.,  7.],
                  [ 0.,  0.,  0.,  0.],
                  [ 0., 13.,  0., 15.]]]])
    """
    _dims, _fn = 2, staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpool):
    """A partial inverse of `MaxPool3d`: puts each value at the position its index names
    (as `MaxPool3d` with ``return_indices=True`` returns them), zeros elsewhere.

    Args:
        kernel_size (int or tuple): the size of the pooling window.
        stride (int or tuple, optional): the step of the pooling window. Default: `kernel_size`.
        padding (int or tuple): the padding of the pooling. Default: ``0``.

    Shape:
        Input: `(N, C, D_in, H_in, W_in)` or `(C, D_in, H_in, W_in)`, with indices of that shape.
        Output: `(N, C, D_out, H_out, W_out)` or `(C, D_out, H_out, W_out)`, each spatial size
            ``(size - 1) * stride - 2 * padding + kernel_size``, or ``forward(input, indices, output_size)``.

    Example::

        >>> pool = torch.nn.MaxPool3d(2, return_indices=True)
        >>> unpool = torch.nn.MaxUnpool3d(2)
        >>> out, indices = pool(torch.arange(64.0).view(1, 1, 4, 4, 4))
        >>> unpool(out, indices).shape
        torch.Size([1, 1, 4, 4, 4])
    """
    _dims, _fn = 3, staticmethod(F.max_unpool3d)


class _FractionalMaxPool(Module):
    """Shared by FractionalMaxPool2d/3d: the output size or ratio, and the optional fixed samples
    (the buffer `_random_samples`, else drawn at each call)."""

    _dims = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        super().__init__()
        n = self._dims
        name = type(self).__name__
        if n == 3 and (isinstance(kernel_size, int) and kernel_size <= 0 or
                       isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size)):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = _ntuple(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, n) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        pool = F.fractional_max_pool2d if self._dims == 2 else F.fractional_max_pool3d
        return pool(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                    _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPool):
    """Fractional max pooling over the last two dimensions (Graham, 2014): windows of `kernel_size`
    at pseudo-random positions chosen so the output has `output_size`, or `output_ratio` times the
    input size.

    Args:
        kernel_size (int or tuple): the window size.
        output_size (int or tuple, optional): the output's size `(oH, oW)`.
        output_ratio (float or tuple, optional): the output's size as a fraction of the input's, in (0, 1).
        return_indices (bool): also return the indices of the maxima (for MaxUnpool2d). Default: ``False``.

    Shape:
        Input: `(N, C, H, W)` or `(C, H, W)`.
        Output: `(N, C, oH, oW)` or `(C, oH, oW)`.

    Example::

        >>> m = torch.nn.FractionalMaxPool2d(2, output_size=3)
        >>> m(torch.randn(1, 2, 7, 7)).shape
        torch.Size([1, 2, 3, 3])
    """


class FractionalMaxPool3d(_FractionalMaxPool):
    """Fractional max pooling over the last three dimensions (Graham, 2014): windows of `kernel_size`
    at pseudo-random positions chosen so the output has `output_size`, or `output_ratio` times the
    input size.

    Args:
        kernel_size (int or tuple): the window size (positive).
        output_size (int or tuple, optional): the output's size `(oT, oH, oW)`.
        output_ratio (float or tuple, optional): the output's size as a fraction of the input's, in (0, 1).
        return_indices (bool): also return the indices of the maxima (for MaxUnpool3d). Default: ``False``.

    Shape:
        Input: `(N, C, T, H, W)` or `(C, T, H, W)`.
        Output: `(N, C, oT, oH, oW)` or `(C, oT, oH, oW)`.

    Example::

        >>> m = torch.nn.FractionalMaxPool3d(2, output_ratio=0.5)
        >>> m(torch.randn(1, 2, 6, 6, 6)).shape
        torch.Size([1, 2, 3, 3, 3])
    """
    _dims = 3


__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
           "LPPool1d", "LPPool2d", "LPPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]
