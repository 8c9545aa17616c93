"""nn.functional's normalizations: the public forms in ops/normalization.py, and local_response_norm,
which torch composes from pad and average pooling (so does ndgrad, recording torch's graph).
"""
from ...ops.normalization import batch_norm, group_norm, instance_norm, layer_norm, normalize, rms_norm
from ...ops.padding import pad
from ...ops.pooling import avg_pool2d, avg_pool3d

__all__ = ["batch_norm", "group_norm", "instance_norm", "layer_norm", "local_response_norm", "normalize", "rms_norm"]


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Local response normalization: ``input / (k + alpha * mean of input^2 over size neighbouring
    channels) ** beta``. See `torch.nn.LocalResponseNorm`.

    Args:
        input (Tensor): `(N, C, *)`, at least 3-D.
        size (int): the number of neighbouring channels averaged over.
        alpha (float): the multiplicative factor. Default: ``1e-4``.
        beta (float): the exponent. Default: ``0.75``.
        k (float): the additive factor. Default: ``1.0``.

    Returns:
        Tensor: a tensor of the input's shape.

    Example::

        >>> torch.nn.functional.local_response_norm(torch.tensor([[[1.0], [2.0], [3.0]]]), 2, alpha=1.0)
        tensor([[[0.7378],
                 [0.7816],
                 [0.6620]]])
    """
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} dimensions)")
    if input.numel() == 0:
        return input
    square = input.mul(input)
    before, after = size // 2, (size - 1) // 2
    if input.ndim == 3:   # channels become the height of a one-channel image; average down it
        window = pad(square.unsqueeze(1), (0, 0, before, after))
        mean = avg_pool2d(window, (size, 1), stride=1).squeeze(1)
    else:
        shape = tuple(input.shape)
        window = pad(square.view(shape[0], 1, shape[1], shape[2], -1), (0, 0, 0, 0, before, after))
        mean = avg_pool3d(window, (size, 1, 1), stride=1).squeeze(1).view(shape)
    return input / mean.mul(alpha).add(k).pow(beta)
