"""nn.functional's convolutions and fold/unfold: the public forms in ops/convolution.py."""
from ...ops.convolution import (  # noqa: F401
    conv1d, conv2d, conv3d, conv_tbc, conv_transpose1d, conv_transpose2d, conv_transpose3d, fold, unfold)

__all__ = ["conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "fold", "unfold"]
