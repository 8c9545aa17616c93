"""ndgrad.nn.functional: torch.nn.functional's API.

The kernels live in ops/nn.py and ops/linalg.py; the functions here pick among them and
compose them the way torch does (cross_entropy is log_softmax then nll_loss, linear is addmm
or matmul...), so a call records the graph torch records.
"""
import warnings

import ndgrad as _nd
from ..ops import nn as _ops
from ..ops.linalg import broadcast_shape
from ..ops.nn import REDUCTIONS
from ..ops.nn_norm import (  # noqa: F401  (normalization, losses, activations, dropout, embedding, ...)
    alpha_dropout, batch_norm, binary_cross_entropy, binary_cross_entropy_with_logits, cosine_embedding_loss,
    dropout, dropout1d, dropout2d, dropout3d, feature_alpha_dropout, gaussian_nll_loss, glu, group_norm,
    hardshrink, hardsigmoid, hardswish, hinge_embedding_loss, huber_loss, instance_norm, kl_div, l1_loss,
    layer_norm, logsigmoid, margin_ranking_loss, mish, multi_margin_loss, multilabel_margin_loss,
    multilabel_soft_margin_loss, normalize, poisson_nll_loss, prelu, rms_norm, rrelu, rrelu_, smooth_l1_loss,
    soft_margin_loss, softshrink, softsign, tanhshrink, embedding_fn as embedding, pad, interpolate, upsample,
    upsample_nearest, upsample_bilinear, pixel_shuffle, pixel_unshuffle)


def _reduction(reduction, size_average=None, reduce=None):
    """torch's reduction enum; the deprecated size_average/reduce flags override `reduction`."""
    if size_average is not None or reduce is not None:
        warnings.warn("size_average and reduce args will be deprecated, please use reduction='"
                      f"{'none' if reduce is False else 'mean' if size_average is not False else 'sum'}' instead.")
        if reduce is False:
            return REDUCTIONS["none"]
        return REDUCTIONS["sum" if size_average is False else "mean"]
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return REDUCTIONS[reduction]


# ---- activations --------------------------------------------------------------------------
def relu(input, inplace=False):
    return _nd.relu_(input) if inplace else _nd.relu(input)


def relu_(input):
    return _nd.relu_(input)


def threshold(input, threshold, value, inplace=False):
    return _nd.threshold_(input, threshold, value) if inplace else _nd.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    return _nd.threshold_(input, threshold, value)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _ops.leaky_relu_(input, negative_slope) if inplace else _ops.leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return _ops.leaky_relu_(input, negative_slope)


def elu(input, alpha=1.0, inplace=False):
    return _ops.elu_(input, alpha) if inplace else _ops.elu(input, alpha)


def elu_(input, alpha=1.0):
    return _ops.elu_(input, alpha)


def selu(input, inplace=False):
    return _nd.selu_(input) if inplace else _nd.selu(input)


def selu_(input):
    return _nd.selu_(input)


def celu(input, alpha=1.0, inplace=False):
    return _nd.celu_(input, alpha) if inplace else _nd.celu(input, alpha)


def celu_(input, alpha=1.0):
    return _nd.celu_(input, alpha)


def gelu(input, approximate="none"):
    return _ops._gelu(input, approximate=approximate)


def silu(input, inplace=False):
    return _ops.silu_(input) if inplace else _ops.silu(input)


def softplus(input, beta=1.0, threshold=20.0):
    return _ops._softplus(input, beta, threshold)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return _ops.hardtanh_(input, min_val, max_val) if inplace else _ops.hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return _ops.hardtanh_(input, min_val, max_val)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def sigmoid(input):
    return _nd.sigmoid(input)


def tanh(input):
    return _nd.tanh(input)


# ---- softmax ------------------------------------------------------------------------------
def _softmax_dim(name, ndim):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
                  "dim=X as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmax", input.ndim)
    return _nd.softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmin", input.ndim)
    return _nd.softmax(-input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("log_softmax", input.ndim)
    return _nd.log_softmax(input, dim, dtype=dtype)


# ---- linear -------------------------------------------------------------------------------
def linear(input, weight, bias=None):
    if input.is_nested:
        return _nd._nested_linear(input, weight, bias)
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"linear: both arguments to linear need to be at least 1D, but they are {input.ndim}D "
                           f"and {weight.ndim}D")
    if bias is not None:
        if input.ndim == 2:
            return _nd.addmm(bias, input, weight.t())
        if input.is_contiguous() and (input.ndim == 3 or bias.ndim == 1):
            # one addmm on the flattened batch, as torch
            out = _nd.addmm(bias, input.view(-1, input.shape[-1]), weight.t())
            return out.view(tuple(input.shape[:-1]) + (out.shape[-1],))
    out = _nd.matmul(input, weight.t())
    return out if bias is None else out + bias


# ---- losses -------------------------------------------------------------------------------
def _nll_loss_nd(input, target, weight, reduction, ignore_index):
    """(loss, total_weight): nll_loss for any number of dims, through torch's nll_loss/nll_loss2d."""
    if input.ndim < 1:
        raise ValueError(f"nll_loss: Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim != 1 and (target.ndim == 0 or input.shape[0] != target.shape[0]):
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0] if target.ndim else 'a 0-d target'}).")
    if weight is not None and weight.requires_grad and _nd.is_grad_enabled():
        raise RuntimeError("The function 'nll_loss_forward' is not differentiable with respect to argument "
                           "'weight'. This input cannot have requires_grad True (pass weight.detach()).")
    if input.ndim <= 2:
        return _ops._nll_loss(input, target, weight, reduction, ignore_index)
    if input.ndim == 4:
        return _ops._nll_loss2d(input, target, weight, reduction, ignore_index)
    n, c = input.shape[:2]
    if tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"nll_loss: Expected target size {[n] + list(input.shape[2:])}, got {list(target.shape)}")
    # any other rank: fold the extra dims into one spatial dim of nll_loss2d
    flat = input.contiguous().view(n, c, 1, -1) if input.numel() else input.view(n, c, 0, 0)
    flat_target = target.contiguous().view(n, 1, -1) if target.numel() else target.view(n, 0, 0)
    out, total = _ops._nll_loss2d(flat, flat_target, weight, reduction, ignore_index)
    return (out.view(tuple(target.shape)) if reduction == REDUCTIONS["none"] else out), total


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    return _nll_loss_nd(input, target, weight, _reduction(reduction, size_average, reduce), ignore_index)[0]


def _class_shape(ndim, class_dim):
    """The shape that broadcasts a per-class vector along the class dim."""
    return tuple(-1 if d == class_dim else 1 for d in range(ndim))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    red = _reduction(reduction, size_average, reduce)
    if label_smoothing > 1.0:
        raise RuntimeError(f"cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input.ndim == 1 else 1
    logp = log_softmax(input, class_dim)
    if tuple(input.shape) == tuple(target.shape):
        return _cross_entropy_probs(logp, target, weight, red, ignore_index, label_smoothing, class_dim)
    loss, total = _nll_loss_nd(logp, target, weight, red, ignore_index)
    if label_smoothing <= 0:
        return loss
    # the smoothed part: the mean over classes of -logp, for the targets that are not ignored
    if weight is not None:
        logp = logp * weight.view(_class_shape(input.ndim, class_dim))
    smooth = (-logp.sum(class_dim)).masked_fill(target == ignore_index, 0.0)
    if red == REDUCTIONS["sum"]:
        smooth = smooth.sum()
    elif red == REDUCTIONS["mean"]:
        smooth = smooth.sum() / total
    classes = input.shape[class_dim]
    return loss * (1 - label_smoothing) + smooth * (label_smoothing / classes)


def _cross_entropy_probs(logp, target, weight, reduction, ignore_index, label_smoothing, class_dim):
    if not target.is_floating_point():
        raise RuntimeError(f"cross_entropy: Expected floating point type for target with class probabilities, "
                           f"got {_ops._type_name(target._data)}")
    if ignore_index >= 0:
        raise RuntimeError("cross_entropy: ignore_index is not supported for floating point target")
    classes = logp.shape[class_dim]
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    if weight is not None:
        logp = logp * weight.view(_class_shape(logp.ndim, class_dim))
    terms = logp * target
    if reduction == REDUCTIONS["none"]:
        return -terms.sum(class_dim)
    if reduction == REDUCTIONS["sum"]:
        return -terms.sum()
    return _ops._div_scalar(-terms.sum(), logp.numel() // classes)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=2)
    red = _reduction(reduction, size_average, reduce)
    shape = broadcast_shape(input.shape, target.shape)
    input = input if tuple(input.shape) == shape else input.expand(shape)
    target = target if tuple(target.shape) == shape else target.expand(shape)
    if weight is None:
        return _ops._mse_loss(input, target, red)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("mse_loss: Weights and input must have the same size.")
    weighted = (input - target).pow(2) * weight
    if red == REDUCTIONS["none"]:
        return weighted
    if red == REDUCTIONS["sum"]:
        return weighted.sum()
    return weighted.sum() / weight.sum()


# convolution, pooling, fold/unfold (ops/nn_conv.py)
from ..ops.nn_conv import *  # noqa: E402,F401,F403
# distances, triplet losses, local response norm (nn/_distance.py)
from ._distance import (  # noqa: E402,F401
    cosine_similarity, local_response_norm, pairwise_distance, triplet_margin_loss, triplet_margin_with_distance_loss)
# grid sampling, distances, bilinear, embedding_bag, attention, ctc (ops/nn_extra.py)
from ..ops.nn_extra import (  # noqa: E402,F401
    affine_grid, bilinear, ctc_loss_fn as ctc_loss, embedding_bag_fn as embedding_bag, grid_sample, pdist,
    scaled_dot_product_attention)
