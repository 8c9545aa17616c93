"""nn.functional's losses: nll_loss and cross_entropy (log_softmax then nll_loss, as torch composes
them) and mse_loss here; the other losses are the public forms in ops/loss.py, re-exported.
"""
import warnings
from typing import Optional

from ...autograd.grad_mode import is_grad_enabled
from ..._tensor import Tensor
from ...ops import loss as _ops
from ...ops._registry import autocast_as
from ...ops.linalg import broadcast_shape, linear
from ...ops.loss import (REDUCTIONS, _reduction, binary_cross_entropy, binary_cross_entropy_with_logits,
                         cosine_embedding_loss, ctc_loss_fn as ctc_loss, gaussian_nll_loss, hinge_embedding_loss,
                         huber_loss, kl_div, l1_loss, margin_ranking_loss, multi_margin_loss, multilabel_margin_loss,
                         multilabel_soft_margin_loss, poisson_nll_loss, smooth_l1_loss, soft_margin_loss)
from .activation import log_softmax

__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "cosine_embedding_loss", "cross_entropy",
           "ctc_loss", "gaussian_nll_loss", "hinge_embedding_loss", "huber_loss", "kl_div", "l1_loss",
           "linear_cross_entropy", "margin_ranking_loss", "mse_loss", "multi_margin_loss", "multilabel_margin_loss",
           "multilabel_soft_margin_loss", "nll_loss", "poisson_nll_loss", "smooth_l1_loss", "soft_margin_loss"]


def _nll_loss_nd(input, target, weight, reduction, ignore_index):
    """(loss, total_weight): nll_loss for any number of dims, through torch's nll_loss/nll_loss2d."""
    if input.ndim < 1:
        raise ValueError(f"nll_loss: Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim != 1 and (target.ndim == 0 or input.shape[0] != target.shape[0]):
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0] if target.ndim else 'a 0-d target'}).")
    if weight is not None and weight.requires_grad and is_grad_enabled():
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


@autocast_as("nll_loss")
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """The negative log likelihood loss of log-probabilities `input` for class indices `target`.
    See `torch.nn.NLLLoss`.

    Args:
        input (Tensor): log-probabilities, `(N, C)`, `(C)` or `(N, C, d1, ...)`.
        target (Tensor): class indices, `(N)`, `()` or `(N, d1, ...)`.
        weight (Tensor, optional): a rescaling weight per class, `(C)`.
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        ignore_index (int): a target class index that contributes no loss. Default: ``-100``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example::

        >>> logp = torch.tensor([[-0.5, -1.0, -2.0], [-3.0, -0.1, -2.5]])
        >>> torch.nn.functional.nll_loss(logp, torch.tensor([0, 1]))
        tensor(0.3000)
        >>> torch.nn.functional.nll_loss(logp, torch.tensor([0, 1]), reduction='none')
        tensor([0.5000, 0.1000])
    """
    return _nll_loss_nd(input, target, weight, _reduction(reduction, size_average, reduce), ignore_index)[0]


def _class_shape(ndim, class_dim):
    """The shape that broadcasts a per-class vector along the class dim."""
    return tuple(-1 if d == class_dim else 1 for d in range(ndim))


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    """The cross entropy of the logits of a linear layer: ``cross_entropy(linear(input, linear_weight,
    linear_bias), target, ...)`` in one call.

    A weight of shape ``(C, *out, in_features)`` gives logits ``(*batch, C, *out)``. torch computes
    the loss in chunks of the batch so that the whole logits never exist at once (`options`, a
    ``LinearCrossEntropyOptions``, chooses how); that changes memory, not the loss, and ndgrad
    computes the whole logits.

    Args:
        input (Tensor): the features, ``(N, in_features)`` or ``(in_features)``.
        linear_weight (Tensor): the weight of the linear layer, ``(C, *out, in_features)``.
        target (Tensor): class indices ``(N, *out)``, or class probabilities of the logits' shape.
        linear_bias (Tensor, optional): the bias of the linear layer, ``(C, *out)``.
        weight (Tensor, optional): a rescaling weight per class, ``(C)``.
        reduction (str, optional): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        ignore_index (int, optional): a target value that does not contribute to the loss.
        label_smoothing (float, optional): smoothing in [0, 1]. Default: 0.0.
        options (optional): torch's chunking options; ignored.

    Returns:
        Tensor: the loss.

    Example::

        >>> F = torch.nn.functional
        >>> x = torch.tensor([[1.0, 0.0, -1.0], [0.5, 2.0, 0.0]])
        >>> w = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
        >>> t = torch.tensor([0, 1])
        >>> F.linear_cross_entropy(x, w, t), F.cross_entropy(F.linear(x, w), t)
        (tensor(0.2573), tensor(0.2573))
    """
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batch, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), got "
                           f"{in_features} and {linear_weight.shape[-1]}, respectively")
    classes, out = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out):
        raise RuntimeError(f"expected linear_bias shape {(classes, *out)}, got {tuple(linear_bias.shape)}")
    if out and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires "
                           f"batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*batch, classes, *out)
    if tuple(target.shape) == logits_shape and ignore_index is not None:   # probabilities as target
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    if out:   # the extra class dims folded into the linear's out_features
        linear_weight = linear_weight.reshape(-1, in_features)
        linear_bias = None if linear_bias is None else linear_bias.reshape(-1)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index, label_smoothing=label_smoothing)


@autocast_as("cross_entropy_loss")
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """The cross entropy between the softmax of the logits `input` and `target` (class indices or
    class probabilities). See `torch.nn.CrossEntropyLoss`.

    Args:
        input (Tensor): logits, `(N, C)`, `(C)` or `(N, C, d1, ...)`.
        target (Tensor): class indices `(N)`, `()` or `(N, d1, ...)`, or probabilities of the input's shape.
        weight (Tensor, optional): a rescaling weight per class, `(C)`.
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        ignore_index (int): a target class index that contributes no loss. Default: ``-100``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        label_smoothing (float): in ``[0, 1]``, the share of the target mass spread uniformly over the
            classes. Default: ``0.0``.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example::

        >>> logits = torch.tensor([[2.0, 0.5, -1.0], [0.0, 0.0, 3.0]], requires_grad=True)
        >>> loss = torch.nn.functional.cross_entropy(logits, torch.tensor([0, 2]))
        >>> loss
        tensor(0.1681, grad_fn=<NllLossBackward0>)
        >>> loss.backward()
        >>> logits.grad
        tensor([[-0.1072,  0.0876,  0.0196],
                [ 0.0226,  0.0226, -0.0453]])
    """
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
                           f"got {_ops._type_name(target._array)}")
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


def mse_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
             reduction: str = "mean", weight: Optional[Tensor] = None) -> Tensor:
    """The mean squared error ``(input - target) ** 2``, reduced. See `torch.nn.MSELoss`.

    A `target` of another shape is broadcast, with a warning (it is usually a mistake).

    Args:
        input (Tensor): the prediction.
        target (Tensor): the target, of the input's shape.
        size_average (bool, optional): deprecated, use `reduction`.
        reduce (bool, optional): deprecated, use `reduction`.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        weight (Tensor, optional): a weight per element, of the input's shape; ``'mean'`` then divides by
            the sum of the weights.

    Returns:
        Tensor: the loss, a scalar unless ``reduction='none'``.

    Example::

        >>> torch.nn.functional.mse_loss(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 0.0, 5.0]))
        tensor(2.6667)
    """
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
