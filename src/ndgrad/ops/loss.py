"""Losses: nll_loss, mse_loss, binary cross entropy, smooth L1 / Huber, margin losses, CTC loss, and
the losses torch composes from other ops (kl_div, poisson/gaussian nll, hinge, cosine embedding ...).

Kernels are NumPy on arrays; their backward kernels are ops with yaml entries of their own. Holds
torch's reduction enum (REDUCTIONS, `_reduction` for the deprecated size_average/reduce flags) that
the nn families above share. The user-facing forms are re-exported by ndgrad/nn/functional/loss.py.
"""
import math
import warnings

import numpy as np

from .. import _dtype
from ._registry import autocast_as, op, register
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from . import creation, pointwise
from .activation import _float_only, logsigmoid
from .linalg import _type_name, broadcast_shape


REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduce(losses, reduction):
    if reduction == 1:
        return losses.mean()
    return losses.sum() if reduction == 2 else losses


def _reduction_scale(grad_output, reduction, numel):
    return grad_output / numel if reduction == 1 else grad_output


# ---- losses -------------------------------------------------------------------------------
@op("div.Scalar", public=False)
def _div_scalar(input, other):
    # torch's losses divide by a Python number inside C++ (DivBackward1, not Python's DivBackward0)
    return np.true_divide(input, other)


def _nll_targets(input, target, weight, ignore_index):
    """(class axis, valid mask, targets safe to index with, per-element weights) for nll_loss."""
    if target.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_type_name(target)}")
    axis = 0 if input.ndim == 1 else 1
    classes = input.shape[axis]
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    bad = (safe < 0) | (safe >= classes)
    if bad.any():
        raise IndexError(f"Target {safe[bad].flat[0]} is out of bounds.")
    if weight is None:
        w = valid.astype(input.dtype)
    else:
        if weight.dtype != input.dtype:
            raise RuntimeError(f"nll_loss: expected scalar type {_type_name(input)} but found {_type_name(weight)} "
                               "(weight must have the input's dtype)")
        w = np.where(valid, weight[safe], np.zeros((), input.dtype))
    return axis, valid, safe, w


def _plain_targets(input, target, weight, ignore_index):
    """Whether nll_loss's common case holds: (batch, classes) NumPy float32/float64 input, no weight, int64
    targets all in range and none ignored (ignore_index outside the classes). Then every weight is 1 and
    the general path's selections and products by 1 change no bit: a fancy-index gather (or scatter) and
    the count of the batch give its numbers, without its seven passes over masks (a third of a small MLP's
    compiled step). The bounds check stays: it reads the targets' values."""
    if (weight is not None or type(input) is not np.ndarray or type(target) is not np.ndarray or input.ndim != 2
            or target.dtype != np.int64 or target.shape != input.shape[:1] or input.dtype not in _EXACT_COUNTS
            or not 0 < input.shape[0] <= _EXACT_COUNTS[input.dtype]):
        return False
    classes = input.shape[1]
    # (as unsigned words, negative targets are out of range too; the batch is not empty: it has a max)
    return (ignore_index < 0 or ignore_index >= classes) and np.maximum.reduce(target.view(np.uint64)) < classes


# up to which count a sum of ones (the general path's total weight) is exact in each dtype
_EXACT_COUNTS = {np.dtype(np.float32): 2 ** 24, np.dtype(np.float64): 2 ** 53}


def _nll_forward(input, target, weight, reduction, ignore_index):
    if _plain_targets(input, target, weight, ignore_index):
        losses = -input[np.arange(input.shape[0]), target]
        if reduction == 0:
            return losses, np.zeros((), input.dtype)
        total = input.dtype.type(input.shape[0])
        out = losses.sum()
        return np.asarray(out / total if reduction == 1 else out, input.dtype), np.asarray(total, input.dtype)
    axis, valid, safe, w = _nll_targets(input, target, weight, ignore_index)
    picked = np.take_along_axis(input, np.expand_dims(safe, axis), axis).squeeze(axis)
    losses = -np.where(valid, picked, np.zeros((), input.dtype)) * w
    if reduction == 0:
        return losses, np.zeros((), input.dtype)
    total = w.sum()
    out = losses.sum()
    if reduction == 1:
        with np.errstate(invalid="ignore", divide="ignore"):   # every target ignored: nan, as torch
            out = out / total
    return np.asarray(out, input.dtype), np.asarray(total, input.dtype)


def _nll_backward(grad_output, input, target, weight, reduction, ignore_index, total_weight):
    if (type(grad_output) is np.ndarray and grad_output.dtype == input.dtype and not grad_output.ndim
            and _plain_targets(input, target, weight, ignore_index) and (reduction != 1 or total_weight > 0)):
        scale = -grad_output
        if reduction == 1:
            scale = scale / total_weight
        grad_input = np.zeros(input.shape, input.dtype)
        grad_input[np.arange(input.shape[0]), target] = scale
        return grad_input
    axis, valid, safe, w = _nll_targets(input, target, weight, ignore_index)
    scale = -grad_output
    if reduction == 1:
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = scale / total_weight
    coef = np.where(valid, w * scale, np.zeros((), input.dtype))
    grad_input = np.zeros(input.shape, np.result_type(input, grad_output))
    np.put_along_axis(grad_input, np.expand_dims(safe, axis), np.expand_dims(coef, axis), axis)
    return grad_input


def _check_nll_shapes(input, target, want_input_dims):
    if input.ndim not in want_input_dims:
        raise ValueError(f"nll_loss: input tensor should be {' or '.join(f'{d}D' for d in want_input_dims)}, "
                         f"got {input.ndim}D of shape {list(input.shape)}")
    if input.ndim <= 2:
        if target.ndim > 1:
            raise RuntimeError("nll_loss: 0D or 1D target tensor expected, multi-target not supported "
                               f"(got target of shape {list(target.shape)})")
        ok = target.shape == input.shape[:1] if input.ndim == 2 else target.ndim == 0 or target.shape == (1,)
    else:
        ok = target.shape == input.shape[:1] + input.shape[2:]
    if not ok:
        raise RuntimeError(f"nll_loss: size mismatch (got input: {list(input.shape)} , target: {list(target.shape)})")


@op("nll_loss", public="_nll_loss")
def _nll_loss(input, target, weight, reduction, ignore_index):
    _check_nll_shapes(input, target, (1, 2))
    if weight is not None and weight.shape != input.shape[-1:]:   # NumPy would broadcast it or index past it
        raise RuntimeError(f"weight tensor should be defined either for all {input.shape[-1]} classes or no "
                           f"classes but got weight tensor of shape: {list(weight.shape)}")
    return _nll_forward(input, target.reshape(()) if input.ndim == 1 else target, weight, reduction, ignore_index)


def _nll_loss_replay(input, target, weight, reduction, ignore_index):   # (ndgrad.compile's: shapes checked)
    return _nll_forward(input, target.reshape(()) if input.ndim == 1 else target, weight, reduction, ignore_index)


_nll_loss.__wrapped__.replay = _nll_loss_replay


@op("nll_loss2d", public="_nll_loss2d")
def _nll_loss2d(input, target, weight, reduction, ignore_index):
    _check_nll_shapes(input, target, (4,))
    return _nll_forward(input, target, weight, reduction, ignore_index)


@op("nll_loss_backward", public="_nll_loss_backward")
def _nll_loss_backward(grad_output, input, target, weight, reduction, ignore_index, total_weight):
    return _nll_backward(grad_output, input, target.reshape(()) if input.ndim == 1 else target, weight,
                         reduction, ignore_index, total_weight)


@op("nll_loss2d_backward", public="_nll_loss2d_backward")
def _nll_loss2d_backward(grad_output, input, target, weight, reduction, ignore_index, total_weight):
    return _nll_backward(grad_output, input, target, weight, reduction, ignore_index, total_weight)


@op("mse_loss", public="_mse_loss", promote="same", operands=(0, 1))
def _mse_loss(input, target, reduction):
    if input.dtype.kind not in "fc":
        raise NotImplementedError(f'"mse_loss" not implemented for \'{_type_name(input)}\'; use floating-point '
                                  "input and target")
    diff = input - target
    return _reduce(diff * diff, reduction)


@op("mse_loss_backward", public="_mse_loss_backward", promote="same", operands=(0, 1, 2))
def _mse_loss_backward(grad_output, input, target, reduction):
    return (input - target) * _reduction_scale(2 * grad_output, reduction, input.size)


# ---- losses -------------------------------------------------------------------------------
_EPS_BCE = 1e-12


@op("binary_cross_entropy", public="_binary_cross_entropy", promote="same", operands=(0, 1, 2))
def _binary_cross_entropy(self, target, weight, reduction):
    _float_only("binary_cross_entropy", self)
    if not ((self >= 0) & (self <= 1)).all():   # NaN is out of range too, as in torch
        raise RuntimeError("all elements of input should be between 0 and 1")
    losses = -(target * np.maximum(np.log(self), -100) + (1 - target) * np.maximum(np.log1p(-self), -100))
    return _reduce(losses if weight is None else losses * weight, reduction)


@op("binary_cross_entropy_backward", public="_binary_cross_entropy_backward", promote="same",
    operands=(0, 1, 2, 3))
def _binary_cross_entropy_backward(grad_output, self, target, weight, reduction):
    g = _reduction_scale(grad_output, reduction, self.size) * (self - target) / np.maximum((1 - self) * self, _EPS_BCE)
    return g if weight is None else g * weight


@op("binary_cross_entropy_with_logits", public="_binary_cross_entropy_with_logits", promote="same",
    operands=(0, 1, 2, 3))
def _binary_cross_entropy_with_logits(self, target, weight, pos_weight, reduction):
    log_sig_neg = -np.logaddexp(0, self)          # log(1 - sigmoid(x))
    log_sig = log_sig_neg + self                  # log(sigmoid(x))
    pos = target if pos_weight is None else target * pos_weight
    losses = -(pos * log_sig + (1 - target) * log_sig_neg)
    return _reduce(losses if weight is None else losses * weight, reduction)


@op("smooth_l1_loss", public="_smooth_l1_loss", promote="same", operands=(0, 1))
def _smooth_l1_loss(self, target, reduction, beta=1.0):
    d = np.abs(self - target)
    return _reduce(np.where(d < beta, 0.5 * d * d / beta if beta else d, d - 0.5 * beta), reduction)


@op("smooth_l1_loss_backward", public="_smooth_l1_loss_backward", promote="same", operands=(0, 1, 2))
def _smooth_l1_loss_backward(grad_output, self, target, reduction, beta):
    d = self - target
    slope = np.clip(d / beta, -1, 1) if beta else np.sign(d)
    return _reduction_scale(grad_output, reduction, self.size) * slope


@op("huber_loss", public="_huber_loss", promote="same", operands=(0, 1))
def _huber_loss(self, target, reduction, delta=1.0):
    d = np.abs(self - target)
    return _reduce(np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction)


@op("huber_loss_backward", public="_huber_loss_backward", promote="same", operands=(0, 1, 2))
def _huber_loss_backward(grad_output, self, target, reduction, delta):
    return _reduction_scale(grad_output, reduction, self.size) * np.clip(self - target, -delta, delta)


@op("soft_margin_loss", public="_soft_margin_loss", promote="same", operands=(0, 1))
def _soft_margin_loss(self, target, reduction):
    return _reduce(np.logaddexp(0, -target * self), reduction)


@op("soft_margin_loss_backward", public="_soft_margin_loss_backward", promote="same", operands=(0, 1, 2))
def _soft_margin_loss_backward(grad_output, self, target, reduction):
    return _reduction_scale(grad_output, reduction, self.size) * -target / (1 + np.exp(target * self))


def _margin_setup(name, self, target):
    """(2-D input, 1-D or 2-D target) for the margin losses, with torch's shape checks."""
    if self.ndim > 2 or self.ndim == 2 and self.shape[1] == 0:
        raise RuntimeError(f"{name}: Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(self.shape)}")
    x = self.reshape(1, -1) if self.ndim < 2 else self
    return x


@op("multi_margin_loss", public="_multi_margin_loss")
def _multi_margin_loss(self, target, p, margin, weight, reduction):
    x = _margin_setup("multi_margin_loss", self, target)
    t = target.reshape(-1)
    if t.shape[0] != x.shape[0]:
        raise RuntimeError(f"inconsistent target size, expected {x.shape[0]} but got {list(target.shape)}")
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if ((t < 0) | (t >= x.shape[1])).any():
        raise IndexError("target out of range")
    rows = np.arange(x.shape[0])
    z = np.maximum(margin - x[rows, t][:, None] + x, 0)
    z[rows, t] = 0
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight[t][:, None]
    losses = z.sum(1) / x.shape[1]
    return _reduce(losses if self.ndim == 2 else losses.reshape(()), reduction).astype(self.dtype, copy=False)


@op("multilabel_margin_loss", public="_multilabel_margin_loss")
def _multilabel_margin_loss(self, target, reduction):
    x = _margin_setup("multilabel_margin_loss", self, target)
    t = target.reshape(x.shape)
    # the targets of a sample are its entries up to the first -1
    valid = np.cumprod(t >= 0, axis=1).astype(bool)
    is_target = np.zeros(x.shape, bool)
    rows = np.broadcast_to(np.arange(x.shape[0])[:, None], t.shape)
    is_target[rows[valid], t[valid]] = True
    picked = np.take_along_axis(x, np.where(valid, t, 0), 1)                 # x[y_j]
    hinge = np.maximum(1 - picked[:, :, None] + x[:, None, :], 0)          # [sample, j, i]
    hinge = hinge * (valid[:, :, None] & ~is_target[:, None, :])
    losses = hinge.sum((1, 2)) / x.shape[1]
    return _reduce(losses if self.ndim == 2 else losses.reshape(()), reduction).astype(self.dtype, copy=False)


@op("multi_margin_loss_backward", public="_multi_margin_loss_backward")
def _multi_margin_loss_backward(grad_output, self, target, p, margin, weight, reduction):
    x = _margin_setup("multi_margin_loss", self, target)
    t = target.reshape(-1)
    rows = np.arange(x.shape[0])
    z = margin - x[rows, t][:, None] + x
    active = z > 0
    active[rows, t] = False
    coef = np.where(active, 2 * z if p == 2 else 1.0, 0.0) / x.shape[1]
    if weight is not None:
        coef = coef * weight[t][:, None]
    scale = _reduction_scale(grad_output, reduction, x.shape[0])
    coef = coef * (scale if reduction else scale.reshape(-1, 1))
    coef[rows, t] = -coef.sum(1)
    return coef.reshape(self.shape).astype(self.dtype, copy=False)


@op("multilabel_margin_loss_backward", public="_multilabel_margin_loss_backward")
def _multilabel_margin_loss_backward(grad_output, self, target, reduction):
    x = _margin_setup("multilabel_margin_loss", self, target)
    t = target.reshape(x.shape)
    valid = np.cumprod(t >= 0, axis=1).astype(bool)
    is_target = np.zeros(x.shape, bool)
    rows = np.broadcast_to(np.arange(x.shape[0])[:, None], t.shape)
    is_target[rows[valid], t[valid]] = True
    safe = np.where(valid, t, 0)
    picked = np.take_along_axis(x, safe, 1)
    active = (1 - picked[:, :, None] + x[:, None, :] > 0) & valid[:, :, None] & ~is_target[:, None, :]
    scale = _reduction_scale(grad_output, reduction, x.shape[0])
    scale = (scale if reduction else scale.reshape(-1, 1, 1)) / x.shape[1]
    act = active * scale                                   # d loss / d x_i  (+) and d x_{y_j} (-)
    grad = act.sum(1)
    np.add.at(grad, (rows, safe), -act.sum(2))
    return grad.reshape(self.shape).astype(self.dtype, copy=False)


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


# ---- losses
def _same_size(input, target):
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")


def _broadcast_pair(input, target, name):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=3)
    shape = broadcast_shape(input.shape, target.shape)
    return input.expand(shape), target.expand(shape)


@autocast_as("binary_cross_entropy")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    red = _reduction(reduction, size_average, reduce)
    _same_size(input, target)
    if weight is not None:
        weight = weight.expand(input.shape)
    return _binary_cross_entropy(input, target, weight, red)


@autocast_as("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    red = _reduction(reduction, size_average, reduce)
    _same_size(input, target)
    return _binary_cross_entropy_with_logits(input, target, weight, pos_weight, red)


@autocast_as("smooth_l1_loss")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    red = _reduction(reduction, size_average, reduce)
    input, target = _broadcast_pair(input, target, "smooth_l1_loss")
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _smooth_l1_loss(input, target, red, beta)


@autocast_as("huber_loss")
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    red = _reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = _broadcast_pair(input, target, "huber_loss")
    if weight is None:
        return _huber_loss(input, target, red, delta)
    losses = _huber_loss(input, target, REDUCTIONS["none"], delta) * weight
    return losses if red == 0 else losses.sum() if red == 2 else losses.mean()


@autocast_as("l1_loss")
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    red = _reduction(reduction, size_average, reduce)
    input, target = _broadcast_pair(input, target, "l1_loss")
    losses = (input - target).abs()
    if weight is not None:
        losses = losses * weight
    return losses if red == 0 else losses.sum() if red == 2 else losses.mean()


@autocast_as("soft_margin_loss")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    red = _reduction(reduction, size_average, reduce)
    _same_size(input, target)
    return _soft_margin_loss(input, target, red)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    red = _reduction(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    return _multi_margin_loss(input, target, p, margin, weight, red)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _multilabel_margin_loss(input, target, _reduction(reduction, size_average, reduce))


def _reduce_t(losses, red):
    return losses if red == 0 else losses.sum() if red == 2 else losses.mean()


@autocast_as("kl_div")
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    for t in (input, target):
        if t.is_complex():
            raise RuntimeError("kl_div: Complex inputs not supported.")
        if not t.is_floating_point():
            raise RuntimeError("kl_div: Integral inputs not supported.")
    red = "mean" if reduction == "batchmean" else reduction
    red = _reduction(red, size_average, reduce)
    losses = target.exp() * (target - input) if log_target else pointwise.xlogy(target, target) - target * input
    if reduction == "batchmean":
        return losses.sum() / input.shape[0] if input.ndim else losses.sum()
    return _reduce_t(losses, red)


@autocast_as("poisson_nll_loss")
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    red = _reduction(reduction, size_average, reduce)
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + (2 * math.pi * target).log() * 0.5
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce_t(loss, red)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if var.ndim == input.ndim - 1 or var.shape[-1:] != input.shape[-1:] and var.shape[-1:] == (1,):
        var = var.unsqueeze(-1) if var.ndim == input.ndim - 1 else var
    if (var < 0).any():
        raise ValueError("var has negative entry/entries")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce_t(loss, _reduction(reduction))


@autocast_as("hinge_embedding_loss")
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    red = _reduction(reduction, size_average, reduce)
    zeros = creation.zeros_like(input)
    margin_clamp = (margin - input).clamp_min(0)
    output_margin = pointwise.where(target != 1, margin_clamp, zeros)
    output_self = pointwise.where(target != -1, input, zeros)
    return _reduce_t(output_margin + output_self, red)


@autocast_as("margin_ranking_loss")
def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    red = _reduction(reduction, size_average, reduce)
    return _reduce_t((-target * (input1 - input2) + margin).clamp_min(0), red)


@autocast_as("cosine_embedding_loss")
def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    red = _reduction(reduction, size_average, reduce)
    eps = 1e-12
    prod = (input1 * input2).sum(-1)
    mag = ((input1 * input1).sum(-1) + eps) * ((input2 * input2).sum(-1) + eps)
    cos = prod / mag.sqrt()
    zeros = creation.zeros_like(cos)
    pos = pointwise.where(target == 1, 1 - cos, zeros)
    neg = pointwise.where(target == -1, (cos - margin).clamp_min(0), zeros)
    return _reduce_t(pos + neg, red)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    red = _reduction(reduction, size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(-1) / input.shape[-1]
    return _reduce_t(loss, red)


# ---- CTC loss -----------------------------------------------------------------------------
def _logaddexp(*xs):
    m = np.maximum.reduce(xs)
    safe = np.where(np.isfinite(m), m, 0)
    return np.log(sum(np.exp(x - safe) for x in xs)) + safe


def _ctc_setup(log_probs, targets, input_lengths, target_lengths, blank):
    """Extended labels (blank, l1, blank, l2, ..., blank) per batch item, their mask, whether the
    skip transition s-2 -> s is allowed, and the lengths as arrays."""
    T, N, C = log_probs.shape
    il = np.asarray(input_lengths, np.int64).reshape(-1)
    tl = np.asarray(target_lengths, np.int64).reshape(-1)
    if len(il) != N:
        raise RuntimeError(f"ctc_loss: input_lengths must be of size batch_size ({N}), got {len(il)}")
    if len(tl) != N:
        raise RuntimeError(f"ctc_loss: target_lengths must be of size batch_size ({N}), got {len(tl)}")
    if (il > T).any():
        raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value {il.max()} "
                           "(while checking arguments for ctc_loss_allocate_outputs)")
    smax = int(tl.max()) if N else 0
    pos = np.arange(smax)
    if targets.ndim == 1:   # concatenated targets
        starts = np.concatenate([[0], np.cumsum(tl)[:-1]])
        idx = np.where(pos < tl[:, None], starts[:, None] + pos, 0)
        labels = targets[idx] if targets.size else np.zeros(idx.shape, np.int64)
    else:
        if targets.shape[1] < smax:
            raise RuntimeError(f"Expected tensor to have size at least {smax} at dimension 1, but got size "
                               f"{targets.shape[1]} for argument #2 'targets' (while checking arguments for "
                               "ctc_loss_allocate_outputs)")
        labels = targets[:, :smax]
    labels = np.where(pos < tl[:, None], labels, blank).astype(np.int64)
    ext = np.full((N, 2 * smax + 1), blank, np.int64)
    ext[:, 1::2] = labels
    live = np.arange(2 * smax + 1) < (2 * tl + 1)[:, None]
    skip = np.zeros(ext.shape, bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    return ext, live, skip, il, tl


@op("_ctc_loss", public="_ctc_loss")
def _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False):
    ext, live, skip, il, tl = _ctc_setup(log_probs, targets, input_lengths, target_lengths, blank)
    T, N, _ = log_probs.shape
    neg = np.asarray(-np.inf, log_probs.dtype)
    batch = np.arange(N)[:, None]
    emit = log_probs[:, batch, ext]   # (T, N, 2S+1): log-prob of each extended label
    alpha = np.full((N, T, ext.shape[1]), neg)
    a = np.where(np.arange(ext.shape[1]) < 2, emit[0], neg) if T else alpha[:, 0]
    for t in range(T):
        if t:
            prev = alpha[:, t - 1]
            one = np.concatenate([np.full((N, 1), neg), prev[:, :-1]], 1)
            two = np.where(skip, np.concatenate([np.full((N, 2), neg), prev[:, :-2]], 1), neg)
            a = emit[t] + _logaddexp(prev, one, two)
        alpha[:, t] = np.where(live, a, neg)
    last = alpha[np.arange(N), np.maximum(il - 1, 0)]
    end = 2 * tl
    ll = _logaddexp(last[np.arange(N), end], np.where(tl > 0, last[np.arange(N), np.maximum(end - 1, 0)], neg))
    ll = np.where(il > 0, ll, np.where(tl == 0, 0, neg))
    return (-ll).astype(log_probs.dtype), alpha


@op("_ctc_loss_backward", public="_ctc_loss_backward")
def _ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood, log_alpha,
                       blank, zero_infinity=False):
    ext, live, skip, il, tl = _ctc_setup(log_probs, targets, input_lengths, target_lengths, blank)
    T, N, C = log_probs.shape
    S2 = ext.shape[1]
    neg = np.asarray(-np.inf, log_probs.dtype)
    batch = np.arange(N)[:, None]
    emit = log_probs[:, batch, ext]
    beta = np.full((N, T, S2), neg)
    s_idx = np.arange(S2)
    skip_next = np.zeros(ext.shape, bool)   # s -> s+2 allowed
    skip_next[:, :-2] = skip[:, 2:]
    for t in range(T - 1, -1, -1):
        is_last = (il - 1 == t)[:, None]
        start = np.where((s_idx == 2 * tl[:, None]) | ((s_idx == 2 * tl[:, None] - 1) & (tl[:, None] > 0)),
                         emit[t], neg)
        if t < T - 1:
            nxt = beta[:, t + 1]
            one = np.concatenate([nxt[:, 1:], np.full((N, 1), neg)], 1)
            two = np.where(skip_next, np.concatenate([nxt[:, 2:], np.full((N, 2), neg)], 1), neg)
            b = emit[t] + _logaddexp(nxt, one, two)
        else:
            b = np.full((N, S2), neg)
        b = np.where(is_last, start, b)
        beta[:, t] = np.where(live & (t < il)[:, None], b, neg)
    ab = log_alpha + beta   # (N, T, S2)
    # log-sum-exp of alpha*beta over the extended positions of each class
    cls = np.broadcast_to(ext[:, None, :], ab.shape)
    n_i, t_i = np.indices(ab.shape[:2])
    n_i, t_i = np.broadcast_to(n_i[..., None], ab.shape), np.broadcast_to(t_i[..., None], ab.shape)
    peak = np.full((N, T, C), neg)
    np.maximum.at(peak, (n_i, t_i, cls), ab)
    safe = np.where(np.isfinite(peak), peak, 0)
    total = np.zeros((N, T, C), log_probs.dtype)
    np.add.at(total, (n_i, t_i, cls), np.exp(ab - safe[n_i, t_i, cls]))
    lcab = np.log(total) + safe
    lp = np.moveaxis(log_probs, 1, 0)   # (N, T, C)
    nll = neg_log_likelihood[:, None, None]
    res = (np.exp(lp) - np.exp(lcab + nll - lp)) * grad.reshape(-1)[:, None, None]
    res = np.where((np.arange(T)[None, :] < il[:, None])[..., None], res, 0)
    if zero_infinity:
        res = np.where(np.isinf(nll), 0, res)
    return np.moveaxis(res, 0, 1).astype(log_probs.dtype)


# torch.ctc_loss's default reduction is none: its binding reads the omitted enum as 0, like the other
# top-level losses below (nn.functional's form passes "mean")
@register()
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=REDUCTIONS["none"],
             zero_infinity=False):
    def as_list(lengths):
        return [int(n) for n in (lengths.reshape(-1).tolist() if isinstance(lengths, Tensor) else lengths)]
    il, tl = as_list(input_lengths), as_list(target_lengths)
    batched = log_probs.ndim == 3
    if not batched:
        log_probs, targets = log_probs.unsqueeze(1), targets.unsqueeze(0)
    if targets.dtype != _dtype.int64:
        targets = targets.long()
    res = _ctc_loss(log_probs, targets, il, tl, blank, zero_infinity)[0]
    if zero_infinity:
        res = pointwise.where(res == math.inf, creation.zeros((), dtype=res.dtype), res)
    if reduction == REDUCTIONS["mean"]:
        return (res / creation.tensor(tl, dtype=res.dtype).clamp_min(1)).mean()
    if reduction == REDUCTIONS["sum"]:
        return res.sum()
    return res if batched else res.squeeze(0)


def ctc_loss_fn(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    return ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction), zero_infinity)


# ---- api: torch's top-level (aten) forms of the losses: reduction is the enum int (0 none, 1 mean, 2 sum);
# torch's binding reads an omitted reduction as 0, so the default is none (torch.kl_div(x, t) is elementwise)
def _reduction_name(reduction, fname):
    if isinstance(reduction, bool) or not isinstance(reduction, int):
        raise TypeError(f"{fname}(): argument 'reduction' must be int, not {type(reduction).__name__}")
    return {v: k for k, v in REDUCTIONS.items()}[reduction]


@register("kl_div")
def _aten_kl_div(input, target, reduction=0, *, log_target=False):
    return kl_div(input, target, reduction=_reduction_name(reduction, "kl_div"), log_target=log_target)


@register("binary_cross_entropy_with_logits")
def _aten_binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    _reduction_name(reduction, "binary_cross_entropy_with_logits")
    return _binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


@register("poisson_nll_loss")
def _aten_poisson_nll_loss(input, target, log_input, full, eps, reduction):
    red = _reduction_name(reduction, "poisson_nll_loss")
    return poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=red)


@register("hinge_embedding_loss")
def _aten_hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    return hinge_embedding_loss(input, target, margin, reduction=_reduction_name(reduction, "hinge_embedding_loss"))


@register("margin_ranking_loss")
def _aten_margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    red = _reduction_name(reduction, "margin_ranking_loss")
    return margin_ranking_loss(input1, input2, target, margin, reduction=red)


@register("cosine_embedding_loss")
def _aten_cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    red = _reduction_name(reduction, "cosine_embedding_loss")
    return cosine_embedding_loss(input1, input2, target, margin, reduction=red)
