"""Docstrings of the `ndgrad.nn.functional` names that come from ndgrad/ops (those defined in
ndgrad/nn/functional/ carry theirs inline).
See ndgrad/_docs/__init__.py for the format."""
DOCS = {
    "adaptive_avg_pool1d": r"""1-D adaptive average pooling: averages over windows chosen so that the output
has `output_size`. See `torch.nn.AdaptiveAvgPool1d`.

Args:
    input (Tensor): `(N, C, L)` or `(C, L)`.
    output_size (int or tuple): the output's spatial size (``None`` in a tuple keeps the input's).

Returns:
    Tensor: the pooled tensor.

Example::

    >>> x = torch.tensor([[[1.0, 3.0, 2.0, 5.0, 4.0, 0.0]]])
    >>> torch.nn.functional.adaptive_avg_pool1d(x, 3)
    tensor([[[2.0000, 3.5000, 2.0000]]])
""",
    "adaptive_avg_pool2d": r"""2-D adaptive average pooling: averages over windows chosen so that the output
has `output_size`. See `torch.nn.AdaptiveAvgPool2d`.

Args:
    input (Tensor): `(N, C, H, W)` or `(C, H, W)`.
    output_size (int or tuple): the output's spatial size (``None`` in a tuple keeps the input's).

Returns:
    Tensor: the pooled tensor.

Example::

    >>> x = torch.arange(16.0).view(1, 1, 4, 4)
    >>> torch.nn.functional.adaptive_avg_pool2d(x, 2)
    tensor([[[[ 2.5000,  4.5000],
              [10.5000, 12.5000]]]])
""",
    "adaptive_avg_pool3d": r"""3-D adaptive average pooling: averages over windows chosen so that the output
has `output_size`. See `torch.nn.AdaptiveAvgPool3d`.

Args:
    input (Tensor): `(N, C, D, H, W)` or `(C, D, H, W)`.
    output_size (int or tuple): the output's spatial size (``None`` in a tuple keeps the input's).

Returns:
    Tensor: the pooled tensor.

Example::

    >>> x = torch.arange(64.0).view(1, 1, 4, 4, 4)
    >>> torch.nn.functional.adaptive_avg_pool3d(x, 2).shape
    torch.Size([1, 1, 2, 2, 2])
""",
    "adaptive_max_pool1d": r"""1-D adaptive max pooling: the maximum over windows chosen so that the output
has `output_size`. See `torch.nn.AdaptiveMaxPool1d`.

Args:
    input (Tensor): `(N, C, L)` or `(C, L)`.
    output_size (int or tuple): the output's spatial size (``None`` in a tuple keeps the input's).
    return_indices (bool): also return the indices of the maxima. Default: ``False``.

Returns:
    Tensor: the pooled tensor, or `(output, indices)` with `return_indices`.

Example::

    >>> x = torch.tensor([[[1.0, 3.0, 2.0, 5.0, 4.0, 0.0]]])
    >>> torch.nn.functional.adaptive_max_pool1d(x, 3)
    tensor([[[3., 5., 4.]]])
""",
    "adaptive_max_pool1d_with_indices": r"""`adaptive_max_pool1d` that returns the indices of the maxima
too.

Args:
    input (Tensor): `(N, C, L)` or `(C, L)`.
    output_size (int or tuple): the output's spatial size.
    return_indices (bool): ignored (the indices are always returned).

Returns:
    tuple: `(output, indices)`.

Example::

    >>> x = torch.tensor([[[1.0, 3.0, 2.0, 5.0, 4.0, 0.0]]])
    >>> out, indices = torch.nn.functional.adaptive_max_pool1d_with_indices(x, 3)
    >>> indices
    tensor([[[1, 3, 4]]])
""",
    "adaptive_max_pool2d": r"""2-D adaptive max pooling: the maximum over windows chosen so that the output
has `output_size`. See `torch.nn.AdaptiveMaxPool2d`.

Args:
    input (Tensor): `(N, C, H, W)` or `(C, H, W)`.
    output_size (int or tuple): the output's spatial size (``None`` in a tuple keeps the input's).
    return_indices (bool): also return the indices of the maxima. Default: ``False``.

Returns:
    Tensor: the pooled tensor, or `(output, indices)` with `return_indices`.

Example::

    >>> x = torch.arange(16.0).view(1, 1, 4, 4)
    >>> torch.nn.functional.adaptive_max_pool2d(x, 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
""",
    "adaptive_max_pool2d_with_indices": r"""`adaptive_max_pool2d` that returns the indices of the maxima
too.

Args:
    input (Tensor): `(N, C, H, W)` or `(C, H, W)`.
    output_size (int or tuple): the output's spatial size.
    return_indices (bool): ignored (the indices are always returned).

Returns:
    tuple: `(output, indices)`.

Example::

    >>> x = torch.arange(16.0).view(1, 1, 4, 4)
    >>> out, indices = torch.nn.functional.adaptive_max_pool2d_with_indices(x, 2)
    >>> indices
    tensor([[[[ 5,  7],
              [13, 15]]]])
""",
    "adaptive_max_pool3d": r"""3-D adaptive max pooling: the maximum over windows chosen so that the output
has `output_size`. See `torch.nn.AdaptiveMaxPool3d`.

Args:
    input (Tensor): `(N, C, D, H, W)` or `(C, D, H, W)`.
    output_size (int or tuple): the output's spatial size (``None`` in a tuple keeps the input's).
    return_indices (bool): also return the indices of the maxima. Default: ``False``.

Returns:
    Tensor: the pooled tensor, or `(output, indices)` with `return_indices`.

Example::

    >>> x = torch.arange(64.0).view(1, 1, 4, 4, 4)
    >>> torch.nn.functional.adaptive_max_pool3d(x, 2).shape
    torch.Size([1, 1, 2, 2, 2])
""",
    "adaptive_max_pool3d_with_indices": r"""`adaptive_max_pool3d` that returns the indices of the maxima
too.

Args:
    input (Tensor): `(N, C, D, H, W)` or `(C, D, H, W)`.
    output_size (int or tuple): the output's spatial size.
    return_indices (bool): ignored (the indices are always returned).

Returns:
    tuple: `(output, indices)`.

Example::

    >>> x = torch.arange(64.0).view(1, 1, 4, 4, 4)
    >>> out, indices = torch.nn.functional.adaptive_max_pool3d_with_indices(x, 2)
    >>> indices.shape
    torch.Size([1, 1, 2, 2, 2])
""",
    "affine_grid": r"""The sampling grid of a batch of affine transforms, for `grid_sample`: for each output
pixel, the normalised ``(x, y)`` (or ``(x, y, z)``) input position it samples.

Args:
    theta (Tensor): the transforms, `(N, 2, 3)` for 2-D or `(N, 3, 4)` for 3-D.
    size (torch.Size): the output's size, `(N, C, H, W)` or `(N, C, D, H, W)`.
    align_corners (bool, optional): -1 and 1 are the centres of the corner pixels (else their outer edges).
        Default: ``False``.

Returns:
    Tensor: `(N, H, W, 2)` or `(N, D, H, W, 3)`.

Example::

    >>> theta = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    >>> torch.nn.functional.affine_grid(theta, (1, 1, 1, 2), align_corners=False)
    tensor([[[[-0.5000,  0.0000],
              [ 0.5000,  0.0000]]]])
""",
    "alpha_dropout": r"""Dropout that keeps the input's mean and variance (for SELU networks): dropped
elements take SELU's negative saturation value, then the result is scaled and
shifted. See `torch.nn.AlphaDropout`.

Args:
    input (Tensor): the input.
    p (float): the probability of dropping an element. Default: ``0.5``.
    training (bool): apply dropout (else return the input). Default: ``False``.
    inplace (bool): overwrite `input` with the result. Default: ``False``.

Returns:
    Tensor: the result, of the input's shape.

Example::

    >>> x = torch.zeros(8)
    >>> torch.equal(torch.nn.functional.alpha_dropout(x, 0.5), x)
    True
    >>> torch.nn.functional.alpha_dropout(x, 0.5, training=True).unique().numel() <= 2
    True
""",
    "avg_pool1d": r"""1-D average pooling: the mean of each window, channel by channel. See
`torch.nn.AvgPool1d`.

Args:
    input (Tensor): `(N, C, L)` or `(C, L)`.
    kernel_size (int or tuple): the size of the window.
    stride (int or tuple, optional): the step of the window. Default: `kernel_size`.
    padding (int or tuple): implicit zeros on both sides, at most half the kernel. Default: ``0``.
    ceil_mode (bool): round the output size up. Default: ``False``.
    count_include_pad (bool): count the padding zeros in the divisor. Default: ``True``.

Returns:
    Tensor: the pooled tensor.

Example::

    >>> x = torch.tensor([[[1.0, 3.0, 2.0, 5.0, 4.0, 0.0]]])
    >>> torch.nn.functional.avg_pool1d(x, 2)
    tensor([[[2.0000, 3.5000, 2.0000]]])
""",
    "avg_pool2d": r"""2-D average pooling: the mean of each window, channel by channel. See
`torch.nn.AvgPool2d`.

Args:
    input (Tensor): `(N, C, H, W)` or `(C, H, W)`.
    kernel_size (int or tuple): the size of the window.
    stride (int or tuple, optional): the step of the window. Default: `kernel_size`.
    padding (int or tuple): implicit zeros on both sides, at most half the kernel. Default: ``0``.
    ceil_mode (bool): round the output size up. Default: ``False``.
    count_include_pad (bool): count the padding zeros in the divisor. Default: ``True``.
    divisor_override (int, optional): divide every window's sum by this instead.

Returns:
    Tensor: the pooled tensor.

Example::

    >>> x = torch.arange(16.0).view(1, 1, 4, 4)
    >>> torch.nn.functional.avg_pool2d(x, 2)
    tensor([[[[ 2.5000,  4.5000],
              [10.5000, 12.5000]]]])
""",
    "avg_pool3d": r"""3-D average pooling: the mean of each window, channel by channel. See
`torch.nn.AvgPool3d`.

Args:
    input (Tensor): `(N, C, D, H, W)` or `(C, D, H, W)`.
    kernel_size (int or tuple): the size of the window.
    stride (int or tuple, optional): the step of the window. Default: `kernel_size`.
    padding (int or tuple): implicit zeros on both sides, at most half the kernel. Default: ``0``.
    ceil_mode (bool): round the output size up. Default: ``False``.
    count_include_pad (bool): count the padding zeros in the divisor. Default: ``True``.
    divisor_override (int, optional): divide every window's sum by this instead.

Returns:
    Tensor: the pooled tensor.

Example::

    >>> x = torch.arange(64.0).view(1, 1, 4, 4, 4)
    >>> torch.nn.functional.avg_pool3d(x, 2).shape
    torch.Size([1, 1, 2, 2, 2])
""",
    "batch_norm": r"""Batch normalization with the given statistics and parameters:
``(x - mean) / sqrt(var + eps) * weight + bias`` per channel (dimension 1). See
`torch.nn.BatchNorm1d`.

Args:
    input (Tensor): `(N, C, *)`.
    running_mean (Tensor, optional): `(C)`, used in evaluation, updated in training.
    running_var (Tensor, optional): `(C)`, likewise.
    weight (Tensor, optional): the scale, `(C)`.
    bias (Tensor, optional): the shift, `(C)`.
    training (bool): use (and fold into the running statistics) the batch's statistics. Default: ``False``.
    momentum (float): the weight of the batch in the running statistics. Default: ``0.1``.
    eps (float): added to the variance. Default: ``1e-5``.

Returns:
    Tensor: the normalised tensor, of the input's shape.

Example::

    >>> x = torch.tensor([[1.0, 10.0], [3.0, 30.0]])
    >>> mean, var = torch.zeros(2), torch.ones(2)
    >>> torch.nn.functional.batch_norm(x, mean, var, training=True)
    tensor([[-1.0000, -1.0000],
            [ 1.0000,  1.0000]])
    >>> mean
    tensor([0.2000, 2.0000])
""",
    "bilinear": r"""A bilinear transform of two inputs: ``out[k] = x1^T A[k] x2 + b[k]``.

Args:
    input1 (Tensor): `(*, in1)`.
    input2 (Tensor): `(*, in2)`.
    weight (Tensor): `(out, in1, in2)`.
    bias (Tensor, optional): `(out)`.

Returns:
    Tensor: `(*, out)`.

Example::

    >>> torch.nn.functional.bilinear(torch.tensor([[1.0, 2.0]]), torch.tensor([[3.0, 4.0, 5.0]]),
    ...                              torch.ones(1, 2, 3))
    tensor([[36.]])
""",
    "binary_cross_entropy": r"""The binary cross entropy between probabilities `input` and targets in
``[0, 1]``. See `torch.nn.BCELoss`.

Args:
    input (Tensor): probabilities, any shape.
    target (Tensor): the input's shape.
    weight (Tensor, optional): a rescaling weight, broadcast to the input's shape.
    size_average (bool, optional): deprecated, use `reduction`.
    reduce (bool, optional): deprecated, use `reduction`.
    reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

Returns:
    Tensor: the loss, a scalar unless ``reduction='none'``.

Example::

    >>> torch.nn.functional.binary_cross_entropy(torch.tensor([0.9, 0.2]), torch.tensor([1.0, 0.0]))
    tensor(0.1643)
""",
    "binary_cross_entropy_with_logits": r"""The binary cross entropy of ``sigmoid(input)``, computed stably
from the logits. See `torch.nn.BCEWithLogitsLoss`.

Args:
    input (Tensor): logits, any shape.
    target (Tensor): the input's shape, in ``[0, 1]``.
    weight (Tensor, optional): a rescaling weight, broadcast to the input's shape.
    size_average (bool, optional): deprecated, use `reduction`.
    reduce (bool, optional): deprecated, use `reduction`.
    reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    pos_weight (Tensor, optional): a weight of the positive term per class (the last dimension).

Returns:
    Tensor: the loss, a scalar unless ``reduction='none'``.

Example::

    >>> torch.nn.functional.binary_cross_entropy_with_logits(torch.tensor([2.0, -1.0]),
    ...                                                      torch.tensor([1.0, 0.0]))
    tensor(0.2201)
""",
    "conv1d": r"""A 1-D convolution (cross-correlation) over an input of several channels. See
`torch.nn.Conv1d`.

Args:
    input (Tensor): `(N, C_in, L)` or `(C_in, L)`.
    weight (Tensor): the kernels, `(C_out, C_in / groups, kL)`.
    bias (Tensor, optional): `(C_out)`. Default: ``None``.
    stride (int or tuple): the step of the kernel. Default: ``1``.
    padding (int, tuple or str): zeros on both sides of each spatial dimension, or ``'valid'`` or
        ``'same'``. Default: ``0``.
    dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
    groups (int): split the channels in this many groups. Default: ``1``.

Returns:
    Tensor: `(N, C_out, ...)`, each spatial size
        ``(size + 2 * padding - dilation * (k - 1) - 1) // stride + 1``.

Example::

    >>> x, w = torch.ones(2, 4, 10), torch.ones(3, 4, 3)
    >>> torch.nn.functional.conv1d(x, w, padding=1).shape
    torch.Size([2, 3, 10])
    >>> torch.nn.functional.conv1d(x, w).flatten()[0]
    tensor(12.)
""",
    "conv2d": r"""A 2-D convolution (cross-correlation) over an input of several channels. See
`torch.nn.Conv2d`.

Args:
    input (Tensor): `(N, C_in, H, W)` or `(C_in, H, W)`.
    weight (Tensor): the kernels, `(C_out, C_in / groups, kH, kW)`.
    bias (Tensor, optional): `(C_out)`. Default: ``None``.
    stride (int or tuple): the step of the kernel. Default: ``1``.
    padding (int, tuple or str): zeros on both sides of each spatial dimension, or ``'valid'`` or
        ``'same'``. Default: ``0``.
    dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
    groups (int): split the channels in this many groups. Default: ``1``.

Returns:
    Tensor: `(N, C_out, ...)`, each spatial size
        ``(size + 2 * padding - dilation * (k - 1) - 1) // stride + 1``.

Example::

    >>> x, w = torch.ones(2, 4, 8, 8), torch.ones(3, 4, 3, 3)
    >>> torch.nn.functional.conv2d(x, w, padding=1).shape
    torch.Size([2, 3, 8, 8])
    >>> torch.nn.functional.conv2d(x, w).flatten()[0]
    tensor(36.)
""",
    "conv3d": r"""A 3-D convolution (cross-correlation) over an input of several channels. See
`torch.nn.Conv3d`.

Args:
    input (Tensor): `(N, C_in, D, H, W)` or `(C_in, D, H, W)`.
    weight (Tensor): the kernels, `(C_out, C_in / groups, kD, kH, kW)`.
    bias (Tensor, optional): `(C_out)`. Default: ``None``.
    stride (int or tuple): the step of the kernel. Default: ``1``.
    padding (int, tuple or str): zeros on both sides of each spatial dimension, or ``'valid'`` or
        ``'same'``. Default: ``0``.
    dilation (int or tuple): the spacing between kernel elements. Default: ``1``.
    groups (int): split the channels in this many groups. Default: ``1``.

Returns:
    Tensor: `(N, C_out, ...)`, each spatial size
        ``(size + 2 * padding - dilation * (k - 1) - 1) // stride + 1``.

Example::

    >>> x, w = torch.ones(2, 4, 6, 6, 6), torch.ones(3, 4, 3, 3, 3)
    >>> torch.nn.functional.conv3d(x, w, padding=1).shape
    torch.Size([2, 3, 6, 6, 6])
    >>> torch.nn.functional.conv3d(x, w).flatten()[0]
    tensor(108.)
""",
    "conv_tbc": r"""A 1-D convolution over time-batch-channel inputs (the layout `(T, N, C)`), with zero
padding `pad` on both ends of the time axis.

Args:
    input (Tensor): `(T, N, C_in)`.
    weight (Tensor): `(k, C_in, C_out)`.
    bias (Tensor): `(C_out)`.
    pad (int): zeros added at both ends of the time axis. Default: ``0``.

Returns:
    Tensor: `(T + 2 * pad - k + 1, N, C_out)`.

Example::

    >>> x = torch.ones(5, 2, 3)
    >>> torch.nn.functional.conv_tbc(x, torch.ones(3, 3, 4), torch.zeros(4), pad=1)[:, 0, 0]
    tensor([6., 9., 9., 9., 6.])
""",
    "conv_transpose1d": r"""A 1-D transposed convolution: the gradient of `conv1d` with respect to its
input. See `torch.nn.ConvTranspose1d`.

Args:
    input (Tensor): `(N, C_in, L)` or `(C_in, L)`.
    weight (Tensor): the kernels, `(C_in, C_out / groups, kL)`.
    bias (Tensor, optional): `(C_out)`. Default: ``None``.
    stride (int or tuple): the step of the kernel. Default: ``1``.
    padding (int or tuple): ``dilation * (k - 1) - padding`` zeros on both sides of the input. Default:
        ``0``.
    output_padding (int or tuple): extra size on one side of the output. Default: ``0``.
    groups (int): split the channels in this many groups. Default: ``1``.
    dilation (int or tuple): the spacing between kernel elements. Default: ``1``.

Returns:
    Tensor: `(N, C_out, ...)`, each spatial size
        ``(size - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``.

Example::

    >>> x, w = torch.ones(2, 4, 10), torch.ones(4, 3, 3)
    >>> torch.nn.functional.conv_transpose1d(x, w, stride=2).shape
    torch.Size([2, 3, 21])
""",
    "conv_transpose2d": r"""A 2-D transposed convolution: the gradient of `conv2d` with respect to its
input. See `torch.nn.ConvTranspose2d`.

Args:
    input (Tensor): `(N, C_in, H, W)` or `(C_in, H, W)`.
    weight (Tensor): the kernels, `(C_in, C_out / groups, kH, kW)`.
    bias (Tensor, optional): `(C_out)`. Default: ``None``.
    stride (int or tuple): the step of the kernel. Default: ``1``.
    padding (int or tuple): ``dilation * (k - 1) - padding`` zeros on both sides of the input. Default:
        ``0``.
    output_padding (int or tuple): extra size on one side of the output. Default: ``0``.
    groups (int): split the channels in this many groups. Default: ``1``.
    dilation (int or tuple): the spacing between kernel elements. Default: ``1``.

Returns:
    Tensor: `(N, C_out, ...)`, each spatial size
        ``(size - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``.

Example::

    >>> x, w = torch.ones(2, 4, 8, 8), torch.ones(4, 3, 3, 3)
    >>> torch.nn.functional.conv_transpose2d(x, w, stride=2).shape
    torch.Size([2, 3, 17, 17])
""",
    "conv_transpose3d": r"""A 3-D transposed convolution: the gradient of `conv3d` with respect to its
input. See `torch.nn.ConvTranspose3d`.

Args:
    input (Tensor): `(N, C_in, D, H, W)` or `(C_in, D, H, W)`.
    weight (Tensor): the kernels, `(C_in, C_out / groups, kD, kH, kW)`.
    bias (Tensor, optional): `(C_out)`. Default: ``None``.
    stride (int or tuple): the step of the kernel. Default: ``1``.
    padding (int or tuple): ``dilation * (k - 1) - padding`` zeros on both sides of the input. Default:
        ``0``.
    output_padding (int or tuple): extra size on one side of the output. Default: ``0``.
    groups (int): split the channels in this many groups. Default: ``1``.
    dilation (int or tuple): the spacing between kernel elements. Default: ``1``.

Returns:
    Tensor: `(N, C_out, ...)`, each spatial size
        ``(size - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``.

Example::

    >>> x, w = torch.ones(2, 4, 6, 6, 6), torch.ones(4, 3, 3, 3, 3)
    >>> torch.nn.functional.conv_transpose3d(x, w, stride=2).shape
    torch.Size([2, 3, 13, 13, 13])
""",
    "cosine_embedding_loss": r"""``1 - cos(x1, x2)`` for a target of 1, ``max(0, cos(x1, x2) - margin)`` for
-1. See `torch.nn.CosineEmbeddingLoss`.

Args:
    input1 (Tensor): `(N, D)` or `(D)`.
    input2 (Tensor): the shape of `input1`.
    target (Tensor): `(N)` or `()`, of 1 and -1.
    margin (float): in ``[-1, 1]``. Default: ``0.0``.
    size_average (bool, optional): deprecated, use `reduction`.
    reduce (bool, optional): deprecated, use `reduction`.
    reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

Returns:
    Tensor: the loss, a scalar unless ``reduction='none'``.

Example::

    >>> x1, x2 = torch.tensor([[1.0, 0.0], [1.0, 1.0]]), torch.tensor([[0.0, 1.0], [1.0, 1.0]])
    >>> torch.nn.functional.cosine_embedding_loss(x1, x2, torch.tensor([1.0, -1.0]), reduction='none')
    tensor([1., 1.])
""",
    "ctc_loss": r"""The connectionist temporal classification loss: the negative log likelihood of each target
sequence, summed over all its alignments with the input sequence. See `torch.nn.CTCLoss`.

Args:
    log_probs (Tensor): `(T, N, C)` or `(T, C)`, log-probabilities over the classes (blank included).
    targets (Tensor): `(N, S)` padded, or the targets concatenated `(sum(target_lengths))`.
    input_lengths (Tensor or tuple): `(N)`, the length of each input, at most `T`.
    target_lengths (Tensor or tuple): `(N)`, the length of each target.
    blank (int): the index of the blank label. Default: ``0``.
    reduction (str): ``'none'``, ``'mean'`` (each loss divided by its target length, then the mean)
        or ``'sum'``. Default: ``'mean'``.
    zero_infinity (bool): replace infinite losses and their gradients by zero. Default: ``False``.

Returns:
    Tensor: the loss, a scalar unless ``reduction='none'``.

Example::

    >>> log_probs = torch.full((3, 1, 2), 0.5).log()
    >>> torch.nn.functional.ctc_loss(log_probs, torch.tensor([[1]]), (3,), (1,), reduction='sum')
    tensor(0.2877)
""",
    "dropout": r"""In training, zeros each element with probability `p` and scales the others by
``1 / (1 - p)``; with ``training=False``, returns the input. The elements dropped after a
given seed are torch's (CPU, without MKL's Bernoulli on Intel). See `torch.nn.Dropout`.

Args:
    input (Tensor): the input.
    p (float): the probability of zeroing an element. Default: ``0.5``.
    training (bool): apply dropout (else return the input). Default: ``True``.
    inplace (bool): overwrite `input` with the result. Default: ``False``.

Returns:
    Tensor: the result, of the input's shape.

Example::

    >>> x = torch.ones(8)
    >>> torch.nn.functional.dropout(x, 0.5).unique()
    tensor([0., 2.])
    >>> torch.equal(torch.nn.functional.dropout(x, 0.5, training=False), x)
    True
""",
    "dropout1d": r"""In training, zeros whole channels (the 1-D feature maps ``input[b, c]``) with
probability `p` and scales the others by ``1 / (1 - p)``. See `torch.nn.Dropout1d`.

Args:
    input (Tensor): `(N, C, L)` or `(C, L)`.
    p (float): the probability of zeroing a channel. Default: ``0.5``.
    training (bool): apply dropout (else return the input). Default: ``True``.
    inplace (bool): overwrite `input` with the result. Default: ``False``.

Returns:
    Tensor: the result, of the input's shape.

Example::

    >>> x = torch.ones(4, 8, 2)
    >>> out = torch.nn.functional.dropout1d(x, 0.5)
    >>> out.unique()
    tensor([0., 2.])
    >>> bool((out == out[:, :, :1]).all())
    True
""",
    "dropout2d": r"""In training, zeros whole channels (the 2-D feature maps ``input[b, c]``) with
probability `p` and scales the others by ``1 / (1 - p)``. See `torch.nn.Dropout2d`.

Args:
    input (Tensor): `(N, C, H, W)` or `(C, H, W)`.
    p (float): the probability of zeroing a channel. Default: ``0.5``.
    training (bool): apply dropout (else return the input). Default: ``True``.
    inplace (bool): overwrite `input` with the result. Default: ``False``.

Returns:
    Tensor: the result, of the input's shape.

Example::

    >>> x = torch.ones(4, 8, 2, 2)
    >>> out = torch.nn.functional.dropout2d(x, 0.5)
    >>> out.unique()
    tensor([0., 2.])
    >>> bool((out == out[:, :, :1, :1]).all())
    True
""",
    "dropout3d": r"""In training, zeros whole channels (the 3-D feature maps ``input[b, c]``) with
probability `p` and scales the others by ``1 / (1 - p)``. See `torch.nn.Dropout3d`.

Args:
    input (Tensor): `(N, C, D, H, W)` or `(C, D, H, W)`.
    p (float): the probability of zeroing a channel. Default: ``0.5``.
    training (bool): apply dropout (else return the input). Default: ``True``.
    inplace (bool): overwrite `input` with the result. Default: ``False``.

Returns:
    Tensor: the result, of the input's shape.

Example::

    >>> x = torch.ones(4, 8, 2, 2, 2)
    >>> out = torch.nn.functional.dropout3d(x, 0.5)
    >>> out.unique()
    tensor([0., 2.])
    >>> bool((out == out[:, :, :1, :1, :1]).all())
    True
""",
    "embedding": r"""Looks up rows of `weight`: each index of `input` is replaced by its row. See
`torch.nn.Embedding`.

Args:
    input (Tensor): integer indices into the rows of `weight`.
    weight (Tensor): the table, `(num_embeddings, embedding_dim)`.
    padding_idx (int, optional): this row gets no gradient.
    max_norm (float, optional): rows looked up whose norm exceeds this are rescaled to it, in place in
        `weight`.
    norm_type (float): the p of the p-norm for `max_norm`. Default: ``2.0``.
    scale_grad_by_freq (bool): divide the gradients by the frequency of each index in the batch. Default:
        ``False``.
    sparse (bool): the gradient of `weight` is a sparse tensor. Default: ``False``.

Returns:
    Tensor: `(*input.shape, embedding_dim)`.

Example::

    >>> table = torch.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]])
    >>> torch.nn.functional.embedding(torch.tensor([2, 1, 2]), table)
    tensor([[3., 4.],
            [1., 2.],
            [3., 4.]])
""",
    "embedding_bag": r"""Sums, means or maxes of bags of rows of `weight`, the bags given by the rows of a 2-D
`input` or by `offsets` into a 1-D one. See `torch.nn.EmbeddingBag`.

Args:
    input (Tensor): indices, `(B, L)` or `(total)`.
    weight (Tensor): the table, `(num_embeddings, embedding_dim)`.
    offsets (Tensor, optional): `(B)`, the start of each bag in a 1-D `input`.
    max_norm (float, optional): rows whose norm exceeds this are rescaled to it, in place in `weight`.
    norm_type (float): the p of the p-norm for `max_norm`. Default: ``2``.
    scale_grad_by_freq (bool): divide the gradients by the frequency of each index. Default: ``False``.
    mode (str): ``'sum'``, ``'mean'`` or ``'max'``. Default: ``'mean'``.
    sparse (bool): the gradient of `weight` is a sparse tensor. Default: ``False``.
    per_sample_weights (Tensor, optional): a weight per index, of the input's shape (``'sum'`` only).
    include_last_offset (bool): `offsets` has one more entry, the end of the last bag. Default: ``False``.
    padding_idx (int, optional): this index is left out of the bags.

Returns:
    Tensor: `(B, embedding_dim)`.

Example::

    >>> table = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> torch.nn.functional.embedding_bag(torch.tensor([0, 1, 2, 2]), table, torch.tensor([0, 2]), mode='sum')
    tensor([[ 4.,  6.],
            [10., 12.]])
""",
    "feature_alpha_dropout": r"""`alpha_dropout` over whole channels ``input[b, c]``. See
`torch.nn.FeatureAlphaDropout`.

Args:
    input (Tensor): `(N, C, *)`.
    p (float): the probability of dropping a channel. Default: ``0.5``.
    training (bool): apply dropout (else return the input). Default: ``False``.
    inplace (bool): overwrite `input` with the result. Default: ``False``.

Returns:
    Tensor: the result, of the input's shape.

Example::

    >>> x = torch.zeros(4, 8, 2)
    >>> torch.equal(torch.nn.functional.feature_alpha_dropout(x, 0.5), x)
    True
""",
    "fold": r"""Sums sliding blocks (columns) back into a batched image: the inverse arrangement of
`unfold`, overlapping values added. See `torch.nn.Fold`.

Args:
    input (Tensor): `(N, C * prod(kernel_size), L)` or `(C * prod(kernel_size), L)`.
    output_size (int or tuple): the output's spatial size `(H, W)`.
    kernel_size (int or tuple): the size of the blocks.
    dilation (int or tuple): the spacing between block elements. Default: ``1``.
    padding (int or tuple): the implicit zero padding dropped from the output. Default: ``0``.
    stride (int or tuple): the step between blocks. Default: ``1``.

Returns:
    Tensor: `(N, C, H, W)` or `(C, H, W)`.

Example::

    >>> torch.nn.functional.fold(torch.ones(1, 2, 4), output_size=(2, 3), kernel_size=(1, 2))
    tensor([[[[1., 2., 1.],
              [1., 2., 1.]]]])
""",
    "fractional_max_pool2d": r"""2-D fractional max pooling: max pooling over windows at pseudo-random
positions, so that the output can be any size between the input's and half
of it (Graham, 2014). The random draws come from ndgrad's generator.

Args:
    input (Tensor): `(N, C, H, W)` or `(C, H, W)`.
    kernel_size (int or tuple): the size of the window.
    output_size (int or tuple, optional): the output's spatial size.
    output_ratio (float or tuple, optional): the output's size as a fraction of the input's, in ``(0, 1)``
        (give this or `output_size`).
    return_indices (bool): also return the indices of the maxima. Default: ``False``.

Returns:
    Tensor: the pooled tensor, or `(output, indices)` with `return_indices`.

Example::

    >>> x = torch.arange(25.0).view(1, 1, 5, 5)
    >>> torch.nn.functional.fractional_max_pool2d(x, 2, output_size=3).shape
    torch.Size([1, 1, 3, 3])
""",
    "fractional_max_pool2d_with_indices": r"""`fractional_max_pool2d` that returns the indices of the maxima
too.

Args:
    input (Tensor): `(N, C, H, W)` or `(C, H, W)`.
    kernel_size, output_size, output_ratio, return_indices: as for `fractional_max_pool2d`.

Returns:
    tuple: `(output, indices)`.

Example::

    >>> x = torch.arange(25.0).view(1, 1, 5, 5)
    >>> out, indices = torch.nn.functional.fractional_max_pool2d_with_indices(x, 2, output_size=3)
    >>> out.shape == indices.shape
    True
""",
    "fractional_max_pool3d": r"""3-D fractional max pooling: max pooling over windows at pseudo-random
positions, so that the output can be any size between the input's and half
of it (Graham, 2014). The random draws come from ndgrad's generator.

Args:
    input (Tensor): `(N, C, D, H, W)` or `(C, D, H, W)`.
    kernel_size (int or tuple): the size of the window.
    output_size (int or tuple, optional): the output's spatial size.
    output_ratio (float or tuple, optional): the output's size as a fraction of the input's, in ``(0, 1)``
        (give this or `output_size`).
    return_indices (bool): also return the indices of the maxima. Default: ``False``.

Returns:
    Tensor: the pooled tensor, or `(output, indices)` with `return_indices`.

Example::

    >>> x = torch.arange(125.0).view(1, 1, 5, 5, 5)
    >>> torch.nn.functional.fractional_max_pool3d(x, 2, output_size=3).shape
    torch.Size([1, 1, 3, 3, 3])
""",
    "fractional_max_pool3d_with_indices": r"""`fractional_max_pool3d` that returns the indices of the maxima
too.

Args:
    input (Tensor): `(N, C, D, H, W)` or `(C, D, H, W)`.
    kernel_size, output_size, output_ratio, return_indices: as for `fractional_max_pool3d`.

Returns:
    tuple: `(output, indices)`.

Example::

    >>> x = torch.arange(125.0).view(1, 1, 5, 5, 5)
    >>> out, indices = torch.nn.functional.fractional_max_pool3d_with_indices(x, 2, output_size=3)
    >>> out.shape == indices.shape
    True
""",
    "gaussian_nll_loss": r"""The negative log likelihood of `target` under normal distributions of mean
`input` and variance `var`. See `torch.nn.GaussianNLLLoss`.

Args:
    input (Tensor): the means, `(N, *)` or `(*)`.
    target (Tensor): the input's shape (or broadcastable to it).
    var (Tensor): the variances, the input's shape or with one dimension of size 1; positive.
    full (bool): add the constant ``0.5 * log(2 * pi)``. Default: ``False``.
    eps (float): the variances are clamped at this, for stability. Default: ``1e-6``.
    reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

Returns:
    Tensor: the loss, a scalar unless ``reduction='none'``.

Example::

    >>> torch.nn.functional.gaussian_nll_loss(torch.tensor([1.0, 2.0]), torch.tensor([1.5, 2.0]),
    ...                                       torch.tensor([1.0, 0.5]))
    tensor(-0.1108)
""",
    "glu": r"""The gated linear unit: splits `input` in halves ``a, b`` along `dim` and returns
``a * sigmoid(b)``. See `torch.nn.GLU`.

Args:
    input (Tensor): the input, of even size at `dim`.
    dim (int): the dimension to split. Default: ``-1``.

Returns:
    Tensor: the input's shape with `dim` halved.

Example::

    >>> torch.nn.functional.glu(torch.tensor([[1.0, 2.0, 0.0, 10.0]]))
    tensor([[0.5000, 1.9999]])
""",
    "grid_sample": r"""Samples `input` at the positions of `grid` (normalised to ``[-1, 1]``, x first),
interpolating between pixels.

Args:
    input (Tensor): `(N, C, H, W)` or `(N, C, D, H, W)`.
    grid (Tensor): `(N, H_out, W_out, 2)` or `(N, D_out, H_out, W_out, 3)`.
    mode (str): ``'bilinear'``, ``'nearest'`` or ``'bicubic'`` (2-D only). Default: ``'bilinear'``.
    padding_mode (str): the value outside the input: ``'zeros'``, ``'border'`` or ``'reflection'``. Default:
        ``'zeros'``.
    align_corners (bool, optional): -1 and 1 are the centres of the corner pixels. Default: ``False``.

Returns:
    Tensor: `(N, C, H_out, W_out)` or `(N, C, D_out, H_out, W_out)`.

Example::

    >>> x = torch.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    >>> grid = torch.tensor([[[[0.0, 0.0], [-1.0, -1.0]]]])
    >>> torch.nn.functional.grid_sample(x, grid, align_corners=True)
    tensor([[[[2.5000, 1.0000]]]])
""",
    "group_norm": r"""Group normalization: the channels split in `num_groups` groups, each normalised by its
own statistics per sample, then scaled and shifted per channel. See
`torch.nn.GroupNorm`.

Args:
    input (Tensor): `(N, C, *)`.
    num_groups (int): the number of groups; it divides `C`.
    weight (Tensor, optional): the scale, `(C)`.
    bias (Tensor, optional): the shift, `(C)`.
    eps (float): added to the variance. Default: ``1e-5``.

Returns:
    Tensor: the normalised tensor, of the input's shape.

Example::

    >>> torch.nn.functional.group_norm(torch.tensor([[0.0, 2.0, 1.0, 1.0]]), 2)
    tensor([[-1.0000,  1.0000,  0.0000,  0.0000]])
""",
    "hardsigmoid": r"""A piecewise linear sigmoid, element-wise: ``0`` below -3, ``1`` above 3,
``x / 6 + 1 / 2`` between. See `torch.nn.Hardsigmoid`.

Args:
    input (Tensor): the input.
    inplace (bool): overwrite `input` with the result. Default: ``False``.

Returns:
    Tensor: a tensor of the input's shape.

Example::

    >>> torch.nn.functional.hardsigmoid(torch.tensor([-4.0, 0.0, 1.5, 4.0]))
    tensor([0.0000, 0.5000, 0.7500, 1.0000])
""",
    "hardswish": r"""The hard swish, element-wise: ``x * hardsigmoid(x)``. See `torch.nn.Hardswish`.

Args:
    input (Tensor): the input.
    inplace (bool): overwrite `input` with the result. Default: ``False``.

Returns:
    Tensor: a tensor of the input's shape.

Example::

    >>> torch.nn.functional.hardswish(torch.tensor([-4.0, 0.0, 1.5, 4.0]))
    tensor([-0.0000, 0.0000, 1.1250, 4.0000])
""",
    "has_torch_function_unary": r"""Whether `arg` takes over torch functions through the ``__torch_function__``
protocol: its type defines ``__torch_function__``, other than the disabled one of plain tensors and
Parameters. Functions check it before handing a call to the override.

Args:
    arg: any object.

Returns:
    bool: ``True`` if an override should be consulted.

Example::

    >>> torch.nn.functional.has_torch_function_unary(torch.ones(1))
    False
    >>> class Logged:
    ...     @classmethod
    ...     def __torch_function__(cls, func, types, args=(), kwargs=None):
    ...         return 'Logged'
    >>> torch.nn.functional.has_torch_function_unary(Logged())
    True
""",
    "has_torch_function_variadic": r"""Whether any of the arguments (or an element of a list or tuple argument)
takes over torch functions, as `has_torch_function_unary` says for one.

Args:
    *args: any objects.

Returns:
    bool: ``True`` if an override should be consulted.

Example::

    >>> torch.nn.functional.has_torch_function_variadic(torch.ones(1), 2.0)
    False
    >>> torch.nn.functional.has_torch_function_variadic(torch.ones(1), torch.nn.Parameter(torch.ones(1)))
    False
""",
    "hinge_embedding_loss": r"""``x`` where the target is 1, ``max(0, margin - x)`` where it is -1. See
`torch.nn.HingeEmbeddingLoss`.

Args:
    input (Tensor): any shape, usually distances.
    target (Tensor): the input's shape, of 1 and -1.
    margin (float): the margin. Default: ``1.0``.
    size_average (bool, optional): deprecated, use `reduction`.
    reduce (bool, optional): deprecated, use `reduction`.
    reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

Returns:
    Tensor: the loss, a scalar unless ``reduction='none'``.

Example::

    >>> torch.nn.functional.hinge_embedding_loss(torch.tensor([0.3, 0.3]), torch.tensor([1.0, -1.0]),
    ...                                          reduction='none')
    tensor([0.3000, 0.7000])
""",
    "huber_loss": r"""The Huber loss: ``0.5 * d ** 2`` where ``|d| < delta``,
``delta * (|d| - 0.5 * delta)`` elsewhere, ``d = input - target``. See
`torch.nn.HuberLoss`.

Args:
    input (Tensor): any shape.
    target (Tensor): the input's shape.
    reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    delta (float): where the loss turns linear. Default: ``1.0``.
    weight (Tensor, optional): a weight per element, of the input's shape.

Returns:
    Tensor: the loss, a scalar unless ``reduction='none'``.

Example::

    >>> torch.nn.functional.huber_loss(torch.tensor([0.5, 3.0]), torch.zeros(2), reduction='none', delta=2.0)
    tensor([0.1250, 4.0000])
""",
    "instance_norm": r"""Instance normalization: each channel of each sample normalised by its own
statistics over the spatial dimensions. See `torch.nn.InstanceNorm1d`.

Args:
    input (Tensor): `(N, C, *)`.
    running_mean (Tensor, optional): `(C)`, updated with the mean over the batch.
    running_var (Tensor, optional): `(C)`, likewise.
    weight (Tensor, optional): the scale, `(C)`.
    bias (Tensor, optional): the shift, `(C)`.
    use_input_stats (bool): normalise with the input's statistics (else the running ones). Default:
        ``True``.
    momentum (float): the weight of the new statistics in the running ones. Default: ``0.1``.
    eps (float): added to the variance. Default: ``1e-5``.

Returns:
    Tensor: the normalised tensor, of the input's shape.

Example::

    >>> torch.nn.functional.instance_norm(torch.tensor([[[0.0, 2.0], [1.0, 5.0]]]))
    tensor([[[-1.0000,  1.0000],
             [-1.0000,  1.0000]]])
""",
    "interpolate": r"""Resamples a batch of 1-D, 2-D or 3-D signals to `size`, or by `scale_factor`.

Args:
    input (Tensor): `(N, C, W)`, `(N, C, H, W)` or `(N, C, D, H, W)`.
    size (int or tuple, optional): the output's spatial size.
    scale_factor (float or tuple, optional): the multiplier of the spatial size (give this or `size`).
    mode (str): ``'nearest'``, ``'nearest-exact'``, ``'linear'``, ``'bilinear'``, ``'bicubic'``,
        ``'trilinear'`` or ``'area'``. Default: ``'nearest'``.
    align_corners (bool, optional): for the linear and cubic modes, align the corner pixels rather than
        their edges. Default: ``False``.
    recompute_scale_factor (bool, optional): compute the sampling from the output size rather than
        `scale_factor`.
    antialias (bool): low-pass filter before downsampling (bilinear and bicubic). Default: ``False``.

Returns:
    Tensor: the resampled tensor.

Example::

    >>> x = torch.tensor([[[1.0, 2.0, 4.0]]])
    >>> torch.nn.functional.interpolate(x, scale_factor=2)
    tensor([[[1., 1., 2., 2., 4., 4.]]])
    >>> torch.nn.functional.interpolate(x, size=5, mode='linear', align_corners=True)
    tensor([[[1.0000, 1.5000, 2.0000, 3.0000, 4.0000]]])
""",
    "kl_div": r"""The Kullback-Leibler divergence ``target * (log(target) - input)``, `input` given as
log-probabilities. See `torch.nn.KLDivLoss`.

Args:
    input (Tensor): log-probabilities, any shape.
    target (Tensor): probabilities (or log-probabilities with `log_target`), the input's shape.
    size_average (bool, optional): deprecated, use `reduction`.
    reduce (bool, optional): deprecated, use `reduction`.
    reduction (str): ``'none'``, ``'batchmean'`` (the sum over the batch size: the true KL divergence),
        ``'sum'`` or ``'mean'``. Default: ``'mean'``.
    log_target (bool): `target` is given as log-probabilities. Default: ``False``.

Returns:
    Tensor: the loss, a scalar unless ``reduction='none'``.

Example::

    >>> torch.nn.functional.kl_div(torch.tensor([[0.25, 0.75]]).log(), torch.tensor([[0.5, 0.5]]),
    ...                            reduction='batchmean')
    tensor(0.1438)
""",
    "l1_loss": r"""The mean absolute error ``|input - target|``, reduced. See `torch.nn.L1Loss`.

Args:
    input (Tensor): any shape.
    target (Tensor): the input's shape.
    size_average (bool, optional): deprecated, use `reduction`.
    reduce (bool, optional): deprecated, use `reduction`.
    reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    weight (Tensor, optional): a weight per element, of the input's shape.

Returns:
    Tensor: the loss, a scalar unless ``reduction='none'``.

Example::

    >>> torch.nn.functional.l1_loss(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 0.0, 5.0]))
    tensor(1.3333)
""",
    "layer_norm": r"""Layer normalization over the trailing dimensions `normalized_shape`:
``(x - mean) / sqrt(var + eps) * weight + bias``. See `torch.nn.LayerNorm`.

Args:
    input (Tensor): `(*, normalized_shape)`.
    normalized_shape (list or tuple): the trailing shape to normalise over.
    weight (Tensor, optional): the scale, of shape `normalized_shape`.
    bias (Tensor, optional): the shift, likewise.
    eps (float): added to the variance. Default: ``1e-5``.

Returns:
    Tensor: the normalised tensor, of the input's shape.

Example::

    >>> torch.nn.functional.layer_norm(torch.tensor([[1.0, 2.0, 3.0], [2.0, 2.0, 8.0]]), (3,))
    tensor([[-1.2247,  0.0000,  1.2247],
            [-0.7071, -0.7071,  1.4142]])
""",
    "linear": r"""A linear transform: ``input @ weight.T + bias``. See `torch.nn.Linear`.

Args:
    input (Tensor): `(*, in_features)`.
    weight (Tensor): `(out_features, in_features)` (or `(in_features)`, for one output without
        that dimension).
    bias (Tensor, optional): `(out_features)`.

Returns:
    Tensor: `(*, out_features)`.

Example::

    >>> x = torch.tensor([[1.0, 2.0, 3.0]])
    >>> w = torch.tensor([[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    >>> torch.nn.functional.linear(x, w, torch.tensor([0.5, 0.5]))
    tensor([[1.5000, 6.5000]])
""",
    "logsigmoid": r"""The logarithm of the sigmoid, element-wise, computed stably. See
`torch.nn.LogSigmoid`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: a tensor of the input's shape.

Example::

    >>> torch.nn.functional.logsigmoid(torch.tensor([-2.0, 0.0, 2.0]))
    tensor([-2.1269, -0.6931, -0.1269])
""",
    "lp_pool1d": r"""1-D power-average pooling: ``(sum of x ** p over each window) ** (1 / p)``. See
`torch.nn.LPPool1d`.

Args:
    input (Tensor): `(N, C, L)` or `(C, L)`.
    norm_type (float): the power ``p``.
    kernel_size (int or tuple): the size of the window.
    stride (int or tuple, optional): the step of the window. Default: `kernel_size`.
    ceil_mode (bool): round the output size up. Default: ``False``.

Returns:
    Tensor: the pooled tensor.

Example::

    >>> x = torch.tensor([[[1.0, 3.0, 2.0, 5.0, 4.0, 0.0]]])
    >>> torch.nn.functional.lp_pool1d(x, 2, 2)
    tensor([[[3.1623, 5.3852, 4.0000]]])
""",
    "lp_pool2d": r"""2-D power-average pooling: ``(sum of x ** p over each window) ** (1 / p)``. See
`torch.nn.LPPool2d`.

Args:
    input (Tensor): `(N, C, H, W)` or `(C, H, W)`.
    norm_type (float): the power ``p``.
    kernel_size (int or tuple): the size of the window.
    stride (int or tuple, optional): the step of the window. Default: `kernel_size`.
    ceil_mode (bool): round the output size up. Default: ``False``.

Returns:
    Tensor: the pooled tensor.

Example::

    >>> x = torch.arange(16.0).view(1, 1, 4, 4)
    >>> torch.nn.functional.lp_pool2d(x, 2, 2)
    tensor([[[[ 6.4807,  9.8995],
              [21.4009, 25.3377]]]])
""",
    "lp_pool3d": r"""3-D power-average pooling: ``(sum of x ** p over each window) ** (1 / p)``. See
`torch.nn.LPPool3d`.

Args:
    input (Tensor): `(N, C, D, H, W)` or `(C, D, H, W)`.
    norm_type (float): the power ``p``.
    kernel_size (int or tuple): the size of the window.
    stride (int or tuple, optional): the step of the window. Default: `kernel_size`.
    ceil_mode (bool): round the output size up. Default: ``False``.

Returns:
    Tensor: the pooled tensor.

Example::

    >>> x = torch.arange(64.0).view(1, 1, 4, 4, 4)
    >>> torch.nn.functional.lp_pool3d(x, 2, 2).shape
    torch.Size([1, 1, 2, 2, 2])
""",
    "margin_ranking_loss": r"""``max(0, -target * (input1 - input2) + margin)``: a target of 1 asks `input1`
to rank above `input2`. See `torch.nn.MarginRankingLoss`.

Args:
    input1 (Tensor): `(N)` or `()`.
    input2 (Tensor): the shape of `input1`.
    target (Tensor): the shape of `input1`, of 1 and -1.
    margin (float): the margin. Default: ``0.0``.
    size_average (bool, optional): deprecated, use `reduction`.
    reduce (bool, optional): deprecated, use `reduction`.
    reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

Returns:
    Tensor: the loss, a scalar unless ``reduction='none'``.

Example::

    >>> torch.nn.functional.margin_ranking_loss(torch.tensor([1.0, 0.2]), torch.tensor([0.0, 0.5]),
    ...                                         torch.tensor([1.0, 1.0]), margin=0.5)
    tensor(0.4000)
""",
    "max_pool1d": r"""1-D max pooling: the maximum of each window, channel by channel. See
`torch.nn.MaxPool1d`.

Args:
    input (Tensor): `(N, C, L)` or `(C, L)`.
    kernel_size (int or tuple): the size of the window.
    stride (int or tuple, optional): the step of the window. Default: `kernel_size`.
    padding (int or tuple): implicit negative infinity on both sides, at most half the kernel. Default:
        ``0``.
    dilation (int or tuple): the spacing between window elements. Default: ``1``.
    ceil_mode (bool): round the output size up. Default: ``False``.
    return_indices (bool): also return the flat (per-channel) indices of the maxima. Default: ``False``.

Returns:
    Tensor: the pooled tensor, or `(output, indices)` with `return_indices`.

Example::

    >>> x = torch.tensor([[[1.0, 3.0, 2.0, 5.0, 4.0, 0.0]]])
    >>> torch.nn.functional.max_pool1d(x, 2)
    tensor([[[3., 5., 4.]]])
""",
    "max_pool1d_with_indices": r"""`max_pool1d` that returns the indices of the maxima too (whatever
`return_indices` says).

Args:
    input (Tensor): `(N, C, L)` or `(C, L)`.
    kernel_size, stride, padding, dilation, ceil_mode, return_indices: as for `max_pool1d`.

Returns:
    tuple: `(output, indices)`, the indices flat over each channel's spatial positions.

Example::

    >>> x = torch.tensor([[[1.0, 3.0, 2.0, 5.0, 4.0, 0.0]]])
    >>> out, indices = torch.nn.functional.max_pool1d_with_indices(x, 2)
    >>> indices
    tensor([[[1, 3, 4]]])
""",
    "max_pool2d": r"""2-D max pooling: the maximum of each window, channel by channel. See
`torch.nn.MaxPool2d`.

Args:
    input (Tensor): `(N, C, H, W)` or `(C, H, W)`.
    kernel_size (int or tuple): the size of the window.
    stride (int or tuple, optional): the step of the window. Default: `kernel_size`.
    padding (int or tuple): implicit negative infinity on both sides, at most half the kernel. Default:
        ``0``.
    dilation (int or tuple): the spacing between window elements. Default: ``1``.
    ceil_mode (bool): round the output size up. Default: ``False``.
    return_indices (bool): also return the flat (per-channel) indices of the maxima. Default: ``False``.

Returns:
    Tensor: the pooled tensor, or `(output, indices)` with `return_indices`.

Example::

    >>> x = torch.arange(16.0).view(1, 1, 4, 4)
    >>> torch.nn.functional.max_pool2d(x, 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
""",
    "max_pool2d_with_indices": r"""`max_pool2d` that returns the indices of the maxima too (whatever
`return_indices` says).

Args:
    input (Tensor): `(N, C, H, W)` or `(C, H, W)`.
    kernel_size, stride, padding, dilation, ceil_mode, return_indices: as for `max_pool2d`.

Returns:
    tuple: `(output, indices)`, the indices flat over each channel's spatial positions.

Example::

    >>> x = torch.arange(16.0).view(1, 1, 4, 4)
    >>> out, indices = torch.nn.functional.max_pool2d_with_indices(x, 2)
    >>> indices
    tensor([[[[ 5,  7],
              [13, 15]]]])
""",
    "max_pool3d": r"""3-D max pooling: the maximum of each window, channel by channel. See
`torch.nn.MaxPool3d`.

Args:
    input (Tensor): `(N, C, D, H, W)` or `(C, D, H, W)`.
    kernel_size (int or tuple): the size of the window.
    stride (int or tuple, optional): the step of the window. Default: `kernel_size`.
    padding (int or tuple): implicit negative infinity on both sides, at most half the kernel. Default:
        ``0``.
    dilation (int or tuple): the spacing between window elements. Default: ``1``.
    ceil_mode (bool): round the output size up. Default: ``False``.
    return_indices (bool): also return the flat (per-channel) indices of the maxima. Default: ``False``.

Returns:
    Tensor: the pooled tensor, or `(output, indices)` with `return_indices`.

Example::

    >>> x = torch.arange(64.0).view(1, 1, 4, 4, 4)
    >>> torch.nn.functional.max_pool3d(x, 2).shape
    torch.Size([1, 1, 2, 2, 2])
""",
    "max_pool3d_with_indices": r"""`max_pool3d` that returns the indices of the maxima too (whatever
`return_indices` says).

Args:
    input (Tensor): `(N, C, D, H, W)` or `(C, D, H, W)`.
    kernel_size, stride, padding, dilation, ceil_mode, return_indices: as for `max_pool3d`.

Returns:
    tuple: `(output, indices)`, the indices flat over each channel's spatial positions.

Example::

    >>> x = torch.arange(64.0).view(1, 1, 4, 4, 4)
    >>> out, indices = torch.nn.functional.max_pool3d_with_indices(x, 2)
    >>> indices.shape
    torch.Size([1, 1, 2, 2, 2])
""",
    "max_unpool1d": r"""A partial inverse of `max_pool1d`: puts each value at the position its index names,
zeros elsewhere. See `torch.nn.MaxUnpool1d`.

Args:
    input (Tensor): the pooled values, `(N, C, L)` or `(C, L)`.
    indices (Tensor): their indices, as `max_pool1d` returns them.
    kernel_size (int or tuple): the size of the pooling window.
    stride (int or tuple, optional): the step of the pooling window. Default: `kernel_size`.
    padding (int or tuple): the padding of the pooling. Default: ``0``.
    output_size (tuple, optional): the output's size, where several are possible.

Returns:
    Tensor: the unpooled tensor.

Example::

    >>> x = torch.tensor([[[1.0, 3.0, 2.0, 5.0, 4.0, 0.0]]])
    >>> out, indices = torch.nn.functional.max_pool1d(x, 2, return_indices=True)
    >>> torch.nn.functional.max_unpool1d(out, indices, 2)
    tensor([[[0., 3., 0., 5., 4., 0.]]])
""",
    "max_unpool2d": r"""A partial inverse of `max_pool2d`: puts each value at the position its index names,
zeros elsewhere. See `torch.nn.MaxUnpool2d`.

Args:
    input (Tensor): the pooled values, `(N, C, H, W)` or `(C, H, W)`.
    indices (Tensor): their indices, as `max_pool2d` returns them.
    kernel_size (int or tuple): the size of the pooling window.
    stride (int or tuple, optional): the step of the pooling window. Default: `kernel_size`.
    padding (int or tuple): the padding of the pooling. Default: ``0``.
    output_size (tuple, optional): the output's size, where several are possible.

Returns:
    Tensor: the unpooled tensor.

Example::

    >>> x = torch.arange(16.0).view(1, 1, 4, 4)
    >>> out, indices = torch.nn.functional.max_pool2d(x, 2, return_indices=True)
    >>> torch.nn.functional.max_unpool2d(out, indices, 2)
    tensor([[[[ 0.,  0.,  0.,  0.],
              [ 0.,  5.,  0.,  7.],
              [ 0.,  0.,  0.,  0.],
              [ 0., 13.,  0., 15.]]]])
""",
    "max_unpool3d": r"""A partial inverse of `max_pool3d`: puts each value at the position its index names,
zeros elsewhere. See `torch.nn.MaxUnpool3d`.

Args:
    input (Tensor): the pooled values, `(N, C, D, H, W)` or `(C, D, H, W)`.
    indices (Tensor): their indices, as `max_pool3d` returns them.
    kernel_size (int or tuple): the size of the pooling window.
    stride (int or tuple, optional): the step of the pooling window. Default: `kernel_size`.
    padding (int or tuple): the padding of the pooling. Default: ``0``.
    output_size (tuple, optional): the output's size, where several are possible.

Returns:
    Tensor: the unpooled tensor.

Example::

    >>> x = torch.arange(64.0).view(1, 1, 4, 4, 4)
    >>> out, indices = torch.nn.functional.max_pool3d(x, 2, return_indices=True)
    >>> torch.nn.functional.max_unpool3d(out, indices, 2).shape
    torch.Size([1, 1, 4, 4, 4])
""",
    "mish": r"""The Mish activation, element-wise: ``x * tanh(softplus(x))``. See `torch.nn.Mish`.

Args:
    input (Tensor): the input.
    inplace (bool): overwrite `input` with the result. Default: ``False``.

Returns:
    Tensor: a tensor of the input's shape.

Example::

    >>> torch.nn.functional.mish(torch.tensor([-2.0, 0.0, 2.0]))
    tensor([-0.2525,  0.0000,  1.9440])
""",
    "multi_margin_loss": r"""A multi-class hinge loss: for target class ``y``, the sum over the other
classes ``i`` of ``max(0, margin - x[y] + x[i]) ** p``, over the number of
classes. See `torch.nn.MultiMarginLoss`.

Args:
    input (Tensor): `(N, C)` or `(C)`.
    target (Tensor): class indices, `(N)` or `()`.
    p (int): 1 or 2. Default: ``1``.
    margin (float): the margin. Default: ``1.0``.
    weight (Tensor, optional): a weight per class, `(C)`.
    size_average (bool, optional): deprecated, use `reduction`.
    reduce (bool, optional): deprecated, use `reduction`.
    reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

Returns:
    Tensor: the loss, a scalar unless ``reduction='none'``.

Example::

    >>> torch.nn.functional.multi_margin_loss(torch.tensor([[0.1, 0.2, 0.4, 0.8]]), torch.tensor([3]))
    tensor(0.3250)
""",
    "multilabel_margin_loss": r"""A multi-label hinge loss: each sample's target lists its classes (ended by
the first -1); each (target, non-target class) pair adds
``max(0, 1 - (x[target] - x[other]))``, over the number of classes. See
`torch.nn.MultiLabelMarginLoss`.

Args:
    input (Tensor): `(N, C)` or `(C)`.
    target (Tensor): the input's shape, class indices padded with -1.
    size_average (bool, optional): deprecated, use `reduction`.
    reduce (bool, optional): deprecated, use `reduction`.
    reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

Returns:
    Tensor: the loss, a scalar unless ``reduction='none'``.

Example::

    >>> torch.nn.functional.multilabel_margin_loss(torch.tensor([[0.1, 0.2, 0.4, 0.8]]),
    ...                                            torch.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
""",
    "multilabel_soft_margin_loss": r"""A multi-label loss: the binary cross entropy of ``sigmoid(input)``
against 0/1 targets, averaged over the classes. See
`torch.nn.MultiLabelSoftMarginLoss`.

Args:
    input (Tensor): `(N, C)` or `(C)`.
    target (Tensor): the input's shape, of 0 and 1.
    weight (Tensor, optional): a weight per class, `(C)`.
    size_average (bool, optional): deprecated, use `reduction`.
    reduce (bool, optional): deprecated, use `reduction`.
    reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

Returns:
    Tensor: the loss, a scalar unless ``reduction='none'``.

Example::

    >>> torch.nn.functional.multilabel_soft_margin_loss(torch.tensor([[2.0, -1.0, 0.0]]),
    ...                                                 torch.tensor([[1.0, 0.0, 1.0]]))
    tensor(0.3778)
""",
    "normalize": r"""Divides `input` by its p-norm along `dim`: ``x / max(||x||_p, eps)``.

Args:
    input (Tensor): the input.
    p (float): the norm degree. Default: ``2.0``.
    dim (int or tuple): the dimension(s) to normalise over. Default: ``1``.
    eps (float): the smallest norm, to avoid division by zero. Default: ``1e-12``.
    out (Tensor, optional): not supported by ndgrad (NotImplementedError): use the returned tensor.

Returns:
    Tensor: the normalised tensor, of the input's shape.

Example::

    >>> torch.nn.functional.normalize(torch.tensor([[3.0, 4.0], [0.0, 0.0]]))
    tensor([[0.6000, 0.8000],
            [0.0000, 0.0000]])
""",
    "one_hot": r"""Each class index as a row of zeros with a one at the index.

Args:
    tensor (Tensor): class indices, of dtype int64.
    num_classes (int): the number of classes; -1 takes one more than the largest index. Default: ``-1``.

Returns:
    Tensor: `(*tensor.shape, num_classes)`, of dtype int64.

Example::

    >>> torch.nn.functional.one_hot(torch.tensor([0, 2, 1]))
    tensor([[1, 0, 0],
            [0, 0, 1],
            [0, 1, 0]])
    >>> torch.nn.functional.one_hot(torch.tensor([1]), num_classes=4)
    tensor([[0, 1, 0, 0]])
""",
    "pad": r"""Pads the last dimensions of `input`: `pad` gives the sizes
``(left, right, top, bottom, front, back)``, the last dimension first (negative sizes crop).

Args:
    input (Tensor): the input.
    pad (tuple): an even number of sizes, at most two per dimension.
    mode (str): ``'constant'``, ``'reflect'``, ``'replicate'`` or ``'circular'`` (the last three pad up to
        the last 3 dimensions of a batched input). Default: ``'constant'``.
    value (float, optional): the padding value in ``'constant'`` mode. Default: ``0``.

Returns:
    Tensor: the padded tensor.

Example::

    >>> x = torch.tensor([[1.0, 2.0, 3.0]])
    >>> torch.nn.functional.pad(x, (1, 2))
    tensor([[0., 1., 2., 3., 0., 0.]])
    >>> torch.nn.functional.pad(x, (2, 2), mode='reflect')
    tensor([[3., 2., 1., 2., 3., 2., 1.]])
""",
    "pdist": r"""The p-norm distances between every pair of rows of `input`: the upper triangle of the
distance matrix, row by row.

Args:
    input (Tensor): `(N, M)`.
    p (float): the norm degree, at least 0. Default: ``2``.

Returns:
    Tensor: `(N * (N - 1) / 2)`.

Example::

    >>> torch.nn.functional.pdist(torch.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]]))
    tensor([ 5., 10.,  5.])
""",
    "poisson_nll_loss": r"""The negative log likelihood of `target` under Poisson distributions of rate
`input` (or ``exp(input)``). See `torch.nn.PoissonNLLLoss`.

Args:
    input (Tensor): the rates, or their logarithms with `log_input`.
    target (Tensor): the counts, the input's shape.
    log_input (bool): `input` is the log of the rate: the loss is ``exp(input) - target * input``. Default:
        ``True``.
    full (bool): add Stirling's approximation of ``log(target!)``. Default: ``False``.
    size_average (bool, optional): deprecated, use `reduction`.
    eps (float): keeps ``log(input + eps)`` finite without `log_input`. Default: ``1e-8``.
    reduce (bool, optional): deprecated, use `reduction`.
    reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

Returns:
    Tensor: the loss, a scalar unless ``reduction='none'``.

Example::

    >>> torch.nn.functional.poisson_nll_loss(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
    tensor(0.8591)
""",
    "prelu": r"""A leaky ReLU with given slopes: ``x`` where ``x >= 0``, ``weight * x`` elsewhere, `weight`
one slope or one per channel (dimension 1). See `torch.nn.PReLU`.

Args:
    input (Tensor): the input.
    weight (Tensor): the slopes, `(1)` or `(C)`.

Returns:
    Tensor: a tensor of the input's shape.

Example::

    >>> torch.nn.functional.prelu(torch.tensor([-2.0, 0.0, 2.0]), torch.tensor([0.25]))
    tensor([-0.5000,  0.0000,  2.0000])
""",
    "rms_norm": r"""Root mean square normalization over the trailing dimensions:
``x / sqrt(mean(x ** 2) + eps) * weight``. See `torch.nn.RMSNorm`.

Args:
    input (Tensor): `(*, normalized_shape)`.
    normalized_shape (list or tuple): the trailing shape to normalise over.
    weight (Tensor, optional): the scale, of shape `normalized_shape`.
    eps (float, optional): added to the mean square; ``None`` is the dtype's machine epsilon.

Returns:
    Tensor: the normalised tensor, of the input's shape.

Example::

    >>> torch.nn.functional.rms_norm(torch.tensor([[3.0, 4.0], [1.0, -1.0]]), (2,))
    tensor([[ 0.8485,  1.1314],
            [ 1.0000, -1.0000]])
""",
    "rrelu": r"""The randomized leaky ReLU: in training, negative elements are multiplied by slopes drawn
uniformly from ``[lower, upper]``; otherwise by ``(lower + upper) / 2``. See
`torch.nn.RReLU`.

Args:
    input (Tensor): the input.
    lower (float): the lower bound of the slope. Default: ``1/8``.
    upper (float): the upper bound of the slope. Default: ``1/3``.
    training (bool): draw random slopes. Default: ``False``.
    inplace (bool): overwrite `input` with the result. Default: ``False``.

Returns:
    Tensor: a tensor of the input's shape.

Example::

    >>> torch.nn.functional.rrelu(torch.tensor([-2.0, 0.0, 2.0]), 0.1, 0.3)
    tensor([-0.4000,  0.0000,  2.0000])
""",
    "rrelu_": r"""In-place `rrelu`: overwrites `input` with the result and returns it.

Args:
    input (Tensor): the input.
    lower (float): the lower bound of the slope. Default: ``1/8``.
    upper (float): the upper bound of the slope. Default: ``1/3``.
    training (bool): draw random slopes. Default: ``False``.

Example::

    >>> x = torch.tensor([-2.0, 0.0, 2.0])
    >>> torch.nn.functional.rrelu_(x, 0.1, 0.3)
    tensor([-0.4000,  0.0000,  2.0000])
    >>> x
    tensor([-0.4000,  0.0000,  2.0000])
""",
    "scaled_dot_product_attention": r"""Attention: ``softmax(query @ key^T * scale + mask) @ value``, with
optional causal masking and dropout.

Args:
    query (Tensor): `(N, ..., L, E)`.
    key (Tensor): `(N, ..., S, E)`.
    value (Tensor): `(N, ..., S, Ev)`.
    attn_mask (Tensor, optional): broadcastable to `(N, ..., L, S)`: a bool mask (False masks out) or a
        float mask added to the scores.
    dropout_p (float): dropout on the attention weights. Default: ``0.0``.
    is_causal (bool): mask out the keys after each query (a lower-triangular mask). Default: ``False``.
    scale (float, optional): the scores' factor; default ``1 / sqrt(E)``.
    enable_gqa (bool): grouped-query attention: `key` and `value` may have fewer heads than `query`.
        Default: ``False``.

Returns:
    Tensor: `(N, ..., L, Ev)`.

Example::

    >>> q = torch.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    >>> kv = torch.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    >>> torch.nn.functional.scaled_dot_product_attention(q, kv, kv, is_causal=True)
    tensor([[[1.0000, 0.0000],
             [0.3302, 0.6698]]])
""",
    "smooth_l1_loss": r"""Squared error for small differences, absolute for large: ``0.5 * d ** 2 / beta``
where ``|d| < beta``, ``|d| - 0.5 * beta`` elsewhere. See `torch.nn.SmoothL1Loss`.

Args:
    input (Tensor): any shape.
    target (Tensor): the input's shape.
    size_average (bool, optional): deprecated, use `reduction`.
    reduce (bool, optional): deprecated, use `reduction`.
    reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    beta (float): where the loss turns linear (not negative). Default: ``1.0``.

Returns:
    Tensor: the loss, a scalar unless ``reduction='none'``.

Example::

    >>> torch.nn.functional.smooth_l1_loss(torch.tensor([0.5, 3.0]), torch.zeros(2), reduction='none')
    tensor([0.1250, 2.5000])
""",
    "soft_margin_loss": r"""The two-class logistic loss ``log(1 + exp(-target * input))``, targets 1 or -1.
See `torch.nn.SoftMarginLoss`.

Args:
    input (Tensor): any shape.
    target (Tensor): the input's shape, of 1 and -1.
    size_average (bool, optional): deprecated, use `reduction`.
    reduce (bool, optional): deprecated, use `reduction`.
    reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

Returns:
    Tensor: the loss, a scalar unless ``reduction='none'``.

Example::

    >>> torch.nn.functional.soft_margin_loss(torch.tensor([2.0, -1.0]), torch.tensor([1.0, 1.0]))
    tensor(0.7201)
""",
    "softshrink": r"""Soft shrinkage, element-wise: zero where ``|x| <= lambd``, else ``x`` moved towards
zero by `lambd`. See `torch.nn.Softshrink`.

Args:
    input (Tensor): the input.
    lambd (float): the half-width of the zeroed band. Default: ``0.5``.

Returns:
    Tensor: a tensor of the input's shape.

Example::

    >>> torch.nn.functional.softshrink(torch.tensor([-1.0, 0.3, 1.0]))
    tensor([-0.5000,  0.0000,  0.5000])
""",
    "softsign": r"""The softsign, element-wise: ``x / (1 + |x|)``. See `torch.nn.Softsign`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: a tensor of the input's shape.

Example::

    >>> torch.nn.functional.softsign(torch.tensor([-2.0, 0.0, 2.0]))
    tensor([-0.6667,  0.0000,  0.6667])
""",
    "tanhshrink": r"""``x - tanh(x)``, element-wise. See `torch.nn.Tanhshrink`.

Args:
    input (Tensor): the input.

Returns:
    Tensor: a tensor of the input's shape.

Example::

    >>> torch.nn.functional.tanhshrink(torch.tensor([-2.0, 0.0, 2.0]))
    tensor([-1.0360,  0.0000,  1.0360])
""",
    "unfold": r"""Extracts the sliding blocks of a batched image as columns (im2col). See `torch.nn.Unfold`.

Args:
    input (Tensor): `(N, C, H, W)` or `(C, H, W)`.
    kernel_size (int or tuple): the size of the blocks.
    dilation (int or tuple): the spacing between block elements. Default: ``1``.
    padding (int or tuple): zeros on both sides of each spatial dimension. Default: ``0``.
    stride (int or tuple): the step between blocks. Default: ``1``.

Returns:
    Tensor: `(N, C * prod(kernel_size), L)`, ``L`` the number of blocks.

Example::

    >>> torch.nn.functional.unfold(torch.arange(9.0).view(1, 1, 3, 3), kernel_size=2)
    tensor([[[0., 1., 3., 4.],
             [1., 2., 4., 5.],
             [3., 4., 6., 7.],
             [4., 5., 7., 8.]]])
""",
    "upsample": r"""Deprecated alias of `interpolate` (each call warns): use
`interpolate`.

Args:
    input (Tensor): the input.
    size, scale_factor, mode, align_corners: as for `interpolate`.

Returns:
    Tensor: the resampled tensor.

Example::

    >>> torch.nn.functional.interpolate(torch.tensor([[[1.0, 2.0]]]), scale_factor=2)
    tensor([[[1., 1., 2., 2.]]])
""",
    "upsample_bilinear": r"""Deprecated (each call warns): the same as
``interpolate(input, size, scale_factor, mode='bilinear', align_corners=True)``.

Args:
    input (Tensor): `(N, C, H, W)`.
    size (int or tuple, optional): the output's spatial size.
    scale_factor (int or tuple, optional): the multiplier of the spatial size.

Returns:
    Tensor: the resampled tensor.

Example::

    >>> torch.nn.functional.interpolate(torch.tensor([[[[1.0, 2.0]]]]), size=(1, 3), mode='bilinear',
    ...                                 align_corners=True)
    tensor([[[[1.0000, 1.5000, 2.0000]]]])
""",
    "upsample_nearest": r"""Deprecated (each call warns): the same as
``interpolate(input, size, scale_factor, mode='nearest')``.

Args:
    input (Tensor): the input.
    size (int or tuple, optional): the output's spatial size.
    scale_factor (int, optional): the multiplier of the spatial size.

Returns:
    Tensor: the resampled tensor.

Example::

    >>> torch.nn.functional.interpolate(torch.tensor([[[1.0, 2.0]]]), scale_factor=2, mode='nearest')
    tensor([[[1., 1., 2., 2.]]])
""",
}
