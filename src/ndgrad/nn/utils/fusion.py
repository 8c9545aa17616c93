"""torch.nn.utils.fusion: folding an eval-mode BatchNorm into the convolution or linear layer before
it (the batch norm's affine map of the running statistics becomes the layer's weight and bias)."""
import copy

from ...ops.creation import ones_like, zeros_like
from ...ops.pointwise import rsqrt
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def _check_eval(layer, bn):
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")


def _check_running(bn):
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of the eval-mode `conv` whose output is that of `bn(conv(x))` (both in eval mode).

    Example::

        >>> conv, bn = torch.nn.Conv2d(2, 3, 1).eval(), torch.nn.BatchNorm2d(3).eval()
        >>> x = torch.randn(1, 2, 4, 4)
        >>> torch.allclose(torch.nn.utils.fuse_conv_bn_eval(conv, bn)(x), bn(conv(x)), atol=1e-6)
        True
    """
    _check_eval(conv, bn)
    fused = copy.deepcopy(conv)
    _check_running(bn)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                    bn.eps, bn.weight, bn.bias, transpose)
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The (weight, bias) Parameters of a convolution followed by a batch norm with these statistics
    (output channels on dim 1 of the weight when `transpose`).

    See :func:`torch.nn.utils.fuse_conv_bn_eval`."""
    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    conv_b = zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = zeros_like(bn_rm) if bn_b is None else bn_b
    inv_std = rsqrt(bn_rv + bn_eps)
    rest = [1] * (len(conv_w.shape) - 2)
    shape = [1, -1] + rest if transpose else [-1, 1] + rest
    weight = (conv_w * (bn_w * inv_std).reshape(shape)).to(dtype=w_dtype)
    bias = ((conv_b - bn_rm) * inv_std * bn_w + bn_b).to(dtype=b_dtype)
    return Parameter(weight, conv_w.requires_grad), Parameter(bias, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of the eval-mode `linear` whose output is that of `bn(linear(x))` (bn's features equal to
    linear's outputs, or 1).

    Example::

        >>> lin, bn = torch.nn.Linear(2, 3).eval(), torch.nn.BatchNorm1d(3).eval()
        >>> x = torch.randn(4, 2)
        >>> torch.allclose(torch.nn.utils.fuse_linear_bn_eval(lin, bn)(x), bn(lin(x)), atol=1e-6)
        True
    """
    _check_eval(linear, bn)
    fused = copy.deepcopy(linear)
    # bn acts on the channel dim, linear on the last: the weight keeps its shape only if they broadcast
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features == bn.num_features or bn.num_features == 1, "
                             f"got linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    _check_running(bn)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The (weight, bias) Parameters of a linear layer followed by a batch norm with these statistics.

    See :func:`torch.nn.utils.fuse_linear_bn_eval`."""
    w_dtype = linear_w.dtype
    b_dtype = linear_b.dtype if linear_b is not None else w_dtype
    linear_b = zeros_like(bn_rm) if linear_b is None else linear_b
    scale = bn_w * rsqrt(bn_rv + bn_eps)
    weight = linear_w * scale.unsqueeze(-1).to(dtype=w_dtype)
    bias = ((linear_b - bn_rm) * scale + bn_b).to(dtype=b_dtype)
    return Parameter(weight, linear_w.requires_grad), Parameter(bias, linear_b.requires_grad)
