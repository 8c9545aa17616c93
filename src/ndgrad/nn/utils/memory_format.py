"""torch.nn.utils.memory_format: giving the weights of (transposed) convolutions a memory format
(channels_last for 2-D, channels_last_3d for 3-D), recursively through a module's children."""
from ..modules.convolution import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds):
    if isinstance(module, kinds):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Give the weight of every Conv2d / ConvTranspose2d in `module` (itself included) `memory_format`.

    Example::

        >>> m = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 3))
        >>> m = torch.nn.utils.convert_conv2d_weight_memory_format(m, torch.channels_last)
        >>> m[0].weight.is_contiguous(memory_format=torch.channels_last)
        True
    """
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Give the weight of every Conv3d / ConvTranspose3d in `module` (itself included) `memory_format`.

    Example::

        >>> m = torch.nn.utils.convert_conv3d_weight_memory_format(torch.nn.Conv3d(2, 3, 3), torch.channels_last_3d)
        >>> m.weight.is_contiguous(memory_format=torch.channels_last_3d)
        True
    """
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
