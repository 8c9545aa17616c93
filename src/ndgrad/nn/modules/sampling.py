"""Resampling and channel rearrangement: Upsample (and its nearest/bilinear 2d forms),
PixelShuffle, PixelUnshuffle, ChannelShuffle."""
from .. import functional as F
from .module import Module


class Upsample(Module):
    """Upsamples a batch of 1-D, 2-D or 3-D signals to a given size or by a given factor,
    ``F.interpolate`` as a module.

    Args:
        size (int or tuple, optional): the output's spatial size.
        scale_factor (float or tuple, optional): the multiplier of the spatial size (give this or `size`).
        mode (str): ``'nearest'``, ``'linear'``, ``'bilinear'``, ``'bicubic'`` or ``'trilinear'``.
            Default: ``'nearest'``.
        align_corners (bool, optional): for the linear modes, align the corner pixels of the input and
            output (rather than their edges). Default: ``False``.
        recompute_scale_factor (bool, optional): compute the sampling from the output size rather than
            from `scale_factor`.

    Shape:
        Input: `(N, C, W_in)`, `(N, C, H_in, W_in)` or `(N, C, D_in, H_in, W_in)`.
        Output: `(N, C, W_out)`, `(N, C, H_out, W_out)` or `(N, C, D_out, H_out, W_out)`.

    Example::

        >>> x = torch.tensor([[[1.0, 2.0, 4.0]]])
        >>> torch.nn.Upsample(scale_factor=2)(x)
        tensor([[[1., 1., 2., 2., 4., 4.]]])
        >>> torch.nn.Upsample(scale_factor=2, mode='linear', align_corners=True)(x)
        tensor([[[1.0000, 1.4000, 1.8000, 2.4000, 3.2000, 4.0000]]])
    """
    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
        super().__init__()
        self.size, self.mode, self.align_corners = size, mode, align_corners
        # torch keeps scale factors as floats
        self.scale_factor = (tuple(float(f) for f in scale_factor) if isinstance(scale_factor, tuple)
                             else float(scale_factor) if scale_factor else None)
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        what = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return f"{what}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """2-D nearest-neighbour upsampling: ``Upsample(size, scale_factor, mode='nearest')``.

    Args:
        size (int or tuple, optional): the output's spatial size `(H_out, W_out)`.
        scale_factor (float or tuple, optional): the multiplier of the spatial size.

    Shape:
        Input: `(N, C, H_in, W_in)`.
        Output: `(N, C, H_out, W_out)`.

    Example::

        >>> m = torch.nn.UpsamplingNearest2d(scale_factor=2)
        >>> m(torch.tensor([[[[1.0, 2.0]]]]))
        tensor([[[[1., 1., 2., 2.],
                  [1., 1., 2., 2.]]]])
    """
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """2-D bilinear upsampling with aligned corners:
    ``Upsample(size, scale_factor, mode='bilinear', align_corners=True)``.

    Args:
        size (int or tuple, optional): the output's spatial size `(H_out, W_out)`.
        scale_factor (float or tuple, optional): the multiplier of the spatial size.

    Shape:
        Input: `(N, C, H_in, W_in)`.
        Output: `(N, C, H_out, W_out)`.

    Example::

        >>> m = torch.nn.UpsamplingBilinear2d(size=(1, 3))
        >>> m(torch.tensor([[[[1.0, 2.0]]]]))
        tensor([[[[1.0000, 1.5000, 2.0000]]]])
    """
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class PixelShuffle(Module):
    """Moves channels into space: rearranges `(*, C * r * r, H, W)` into `(*, C, H * r, W * r)`
    with ``r`` the upscale factor (sub-pixel convolution).

    Args:
        upscale_factor (int): the factor ``r``.

    Shape:
        Input: `(*, C * r * r, H, W)`.
        Output: `(*, C, H * r, W * r)`.

    Example::

        >>> m = torch.nn.PixelShuffle(2)
        >>> m(torch.arange(4.0).view(1, 4, 1, 1))
        tensor([[[[0., 1.],
                  [2., 3.]]]])
    """
    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """Moves space into channels, the inverse of `PixelShuffle`: rearranges `(*, C, H * r, W * r)` into
    `(*, C * r * r, H, W)`.

    Args:
        downscale_factor (int): the factor ``r``.

    Shape:
        Input: `(*, C, H * r, W * r)`.
        Output: `(*, C * r * r, H, W)`.

    Example::

        >>> m = torch.nn.PixelUnshuffle(2)
        >>> m(torch.arange(4.0).view(1, 1, 2, 2)).flatten()
        tensor([0., 1., 2., 3.])
    """
    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Interleaves the channels of `groups` groups: channels `(g, i)` become `(i, g)`, as ShuffleNet mixes
    the channels of grouped convolutions. Composed from view and transpose: the values and gradients are
    torch's; torch's node is its own op (ChannelShuffleBackward0).

    Args:
        groups (int): the number of groups; it divides the number of channels.

    Shape:
        Input: `(N, C, *)`.
        Output: `(N, C, *)`.

    Example::

        >>> m = torch.nn.ChannelShuffle(2)
        >>> m(torch.arange(4.0).view(1, 4, 1, 1)).flatten()
        tensor([0., 2., 1., 3.])
    """

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        n, c = input.shape[:2]
        if c % self.groups:
            raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and "
                               f"{self.groups} groups.")
        rest = tuple(input.shape[2:])
        return input.reshape((n, self.groups, c // self.groups) + rest).transpose(1, 2).reshape(input.shape)

    def extra_repr(self):
        return f"groups={self.groups}"


__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle",
           "ChannelShuffle"]
