"""Resampling and channel rearrangement: Upsample (and its nearest/bilinear 2d forms),
PixelShuffle, PixelUnshuffle, ChannelShuffle."""
from .. import functional as F
from .module import Module


class Upsample(Module):
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
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class PixelShuffle(Module):
    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Interleave the channels of `groups` groups. Composed from view and transpose: the values and
    gradients are torch's; torch's node is its own op (ChannelShuffleBackward0)."""

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
