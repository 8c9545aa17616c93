"""nn.functional's convolutions and fold/unfold: the public forms in ops/convolution.py."""
from ...ops.convolution import (  # noqa: F401
    conv1d, conv2d, conv3d, conv_tbc, conv_transpose1d, conv_transpose2d, conv_transpose3d, fold, unfold)

__all__ = ["conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "fold", "unfold"]


# ---- api: the argument check of fold / unfold
def assert_int_or_pair(arg, arg_name, message):
    """AssertionError (message with arg_name) unless `arg` is an int or a sequence of two."""
    assert isinstance(arg, int) or len(arg) == 2, message.format(arg_name)


__all__ += ["assert_int_or_pair"]
