"""nn.functional's resampling: interpolate / upsample, pixel (un)shuffle, affine_grid and grid_sample,
the public forms in ops/sampling.py.
"""
from ...ops.sampling import (  # noqa: F401
    affine_grid, channel_shuffle, grid_sample, interpolate, native_channel_shuffle, pixel_shuffle, pixel_unshuffle,
    upsample, upsample_bilinear, upsample_nearest)

__all__ = ["affine_grid", "channel_shuffle", "grid_sample", "interpolate", "native_channel_shuffle", "pixel_shuffle", "pixel_unshuffle", "upsample",
           "upsample_bilinear", "upsample_nearest"]


# ---- api: torch's names for grid_sample's modes (the enum values its kernel takes)
GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}
__all__ += ["GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES"]
