"""nn.functional's resampling: interpolate / upsample, pixel (un)shuffle, affine_grid and grid_sample,
the public forms in ops/sampling.py.
"""
from ...ops.sampling import (  # noqa: F401
    affine_grid, channel_shuffle, grid_sample, interpolate, pixel_shuffle, pixel_unshuffle, upsample, upsample_bilinear,
    upsample_nearest)

__all__ = ["affine_grid", "channel_shuffle", "grid_sample", "interpolate", "pixel_shuffle", "pixel_unshuffle", "upsample",
           "upsample_bilinear", "upsample_nearest"]
