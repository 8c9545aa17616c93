"""nn.functional's convolutions and fold/unfold: the public forms in ops/convolution.py."""
from ...ops.convolution import (  # noqa: F401
    conv1d, conv2d, conv3d, conv_tbc, conv_transpose1d, conv_transpose2d, conv_transpose3d, fold, unfold)

__all__ = ["conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "fold", "unfold"]


# ---- api: the argument check of fold / unfold
def assert_int_or_pair(arg, arg_name, message):
    """Check that `arg` is an int or a sequence of two values (the kernel size, stride... arguments of
    :func:`fold` and :func:`unfold`).

    Args:
        arg (int or sequence): the value to check.
        arg_name (str): its name, put into `message`.
        message (str): the error message, with ``{}`` where the name goes.

    Raises:
        AssertionError: with ``message.format(arg_name)`` if the check fails.

    Example::

        >>> F = torch.nn.functional
        >>> F.assert_int_or_pair((2, 2), "kernel_size", "{} must be int or 2-tuple")
        >>> F.assert_int_or_pair((1, 2, 3), "kernel_size", "{} must be int or 2-tuple")
        Traceback (most recent call last):
          ...
        AssertionError: kernel_size must be int or 2-tuple
    """
    assert isinstance(arg, int) or len(arg) == 2, message.format(arg_name)


__all__ += ["assert_int_or_pair"]
