"""Neural-network ops, part 2: normalization, more activations and losses, dropout, embedding,
padding, interpolation, pixel shuffle, grid sampling, attention and distances.

As in ops/nn.py, an op whose torch backward is itself a differentiable op (so `create_graph`
records `XBackwardBackward0`) has its backward kernel registered here as an op with a yaml entry
of its own. Kernels are NumPy on arrays; the user-facing forms are in ndgrad/nn/functional.py.
Ops torch reaches only through `torch.ops.aten.<op>` are offered under `ndgrad.ops.aten`.
"""
import math
import sys
import types

import numpy as np

from .._dispatch import op, register
from .linalg import _type_name, broadcast_shape
from .nn import _axis, _inplace, _reduce, _reduction_scale

# torch.ops.aten: a namespace shared by the op modules that need one (created by the first)
_pkg = sys.modules[__package__]
aten = getattr(_pkg, "aten", None) or types.SimpleNamespace()
_pkg.aten = aten


def _zero(a):
    return np.zeros((), a.dtype)


def _float_only(name, a):
    if a.dtype.kind not in "fc":
        raise NotImplementedError(f'"{name}" not implemented for \'{_type_name(a)}\'; use a floating-point input')


# ---- activations --------------------------------------------------------------------------
@op("hardsigmoid", public="_hardsigmoid")
def _hardsigmoid(input):
    _float_only("hardsigmoid", input)
    return np.clip(input / 6 + 0.5, 0, 1).astype(input.dtype, copy=False)


hardsigmoid_ = _inplace("hardsigmoid", _hardsigmoid.spec.forward)


def _hardswish_forward(input):
    _float_only("hardswish", input)
    return input * np.clip(input / 6 + 0.5, 0, 1).astype(input.dtype, copy=False)


_hardswish = op("hardswish", public="_hardswish")(_hardswish_forward)
hardswish_ = _inplace("hardswish", _hardswish_forward)


@op("hardswish_backward", public="_hardswish_backward")
def _hardswish_backward(grad_output, self):
    slope = np.where(self < -3, 0, np.where(self <= 3, self / 3 + 0.5, 1)).astype(grad_output.dtype, copy=False)
    return grad_output * slope


def _mish_forward(input):
    _float_only("mish", input)
    return input * np.tanh(np.logaddexp(0, input))


_mish = op("mish", public="_mish")(_mish_forward)
mish_ = _inplace("mish", _mish_forward)


def _check_lambd(lambd):
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {float(lambd)}.")


@op("hardshrink", public="hardshrink", method=True)
def hardshrink(input, lambd=0.5):
    return np.where(np.abs(input) > lambd, input, _zero(input))


@op("hardshrink_backward", public="_hardshrink_backward")
def _hardshrink_backward(grad_out, self, lambd):
    return np.where(np.abs(self) > lambd, grad_out, _zero(grad_out))


@op("softshrink", public="_softshrink")
def _softshrink(input, lambd=0.5):
    _check_lambd(lambd)
    return np.where(input > lambd, input - lambd, np.where(input < -lambd, input + lambd, _zero(input)))


@op("softshrink_backward", public="_softshrink_backward")
def _softshrink_backward(grad_output, self, lambd):
    return np.where(np.abs(self) > lambd, grad_output, _zero(grad_output))


@op("log_sigmoid", public="_log_sigmoid")
def _log_sigmoid(input):
    _float_only("log_sigmoid", input)
    return -np.logaddexp(0, -input)


@op("log_sigmoid_backward", public="_log_sigmoid_backward")
def _log_sigmoid_backward(grad_output, self):
    return grad_output / (1 + np.exp(self))


def _glu_halves(input, dim):
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    axis = _axis(dim, input.ndim)
    if input.shape[axis] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {axis} is size {input.shape[axis]}")
    return np.split(input, 2, axis) + [axis]


@op("glu", public="_glu")
def _glu(input, dim=-1):
    a, b, _ = _glu_halves(input, dim)
    return a / (1 + np.exp(-b))


@op("glu_backward", public="_glu_backward")
def _glu_backward(grad_output, self, dim):
    a, b, axis = _glu_halves(self, dim)
    s = 1 / (1 + np.exp(-b))
    return np.concatenate([grad_output * s, grad_output * a * s * (1 - s)], axis)


def _prelu_check(input, weight):
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{weight.numel()} and channel size = {channels}.")


@op("_prelu_kernel", promote="same")
def _prelu_kernel(self, weight):
    return np.where(self > 0, self, self * weight)


@op("_prelu_kernel_backward", promote="same")
def _prelu_kernel_backward(grad_output, self, weight):
    pos = self > 0
    gi = np.where(pos, grad_output, grad_output * weight)
    gw = np.where(pos, _zero(grad_output), grad_output * self)
    return gi, gw


@op("rrelu_with_noise", public="_rrelu_with_noise")
def _rrelu_with_noise(self, noise, lower, upper, training):
    """rrelu; in training, draws each negative input's slope into `noise` (in place, as torch)."""
    if not training:
        return np.where(self >= 0, self, self * np.asarray((lower + upper) / 2, self.dtype))
    from .._random import rng
    slope = rng().uniform(lower, upper, self.shape).astype(self.dtype)
    noise[...] = np.where(self <= 0, slope, 1).reshape(noise.shape)
    return self * noise.reshape(self.shape)


@op("rrelu_with_noise_backward", public="_rrelu_with_noise_backward")
def _rrelu_with_noise_backward(grad_output, self, noise, lower, upper, training, self_is_result):
    if training and upper - lower > 1e-6:
        return grad_output * noise
    slope = np.asarray((lower + upper) / 2, grad_output.dtype)
    return np.where(self > 0, grad_output, grad_output * slope)


# ---- losses -------------------------------------------------------------------------------
_EPS_BCE = 1e-12


@op("binary_cross_entropy", public="_binary_cross_entropy", promote="same", operands=(0, 1, 2))
def _binary_cross_entropy(self, target, weight, reduction):
    _float_only("binary_cross_entropy", self)
    if ((self < 0) | (self > 1)).any():
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


# ---- dropout ------------------------------------------------------------------------------
@op("native_dropout", public="native_dropout", method=True)
def native_dropout(input, p, train):
    if train is None or train:
        if not 0 <= p <= 1:
            raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
        from .._random import rng
        mask = rng().random(input.shape) >= p
        scale = 1 / (1 - p) if p < 1 else 0.0
        return input * mask * np.asarray(scale, input.dtype), mask
    return input.copy(), np.ones(input.shape, bool)


@op("native_dropout_backward", public="_native_dropout_backward")
def _native_dropout_backward(grad_output, mask, scale):
    return grad_output * mask * np.asarray(scale, grad_output.dtype)


aten.native_dropout = native_dropout
aten.native_dropout_backward = _native_dropout_backward


# ---- normalization ------------------------------------------------------------------------
def _stats(x, axes, eps):
    mean = x.mean(axes, keepdims=True)
    var = np.square(x - mean).mean(axes, keepdims=True)
    return mean, var, 1 / np.sqrt(var + eps)


def _normalized_backward(g_hat, xhat, rstd, axes):
    """d loss/dx for xhat = (x - mean(x)) * rstd(x) over `axes`, given d loss/d xhat."""
    return rstd * (g_hat - g_hat.mean(axes, keepdims=True) - xhat * (g_hat * xhat).mean(axes, keepdims=True))


def _channel(v, ndim):
    """A per-channel vector shaped to broadcast along dim 1 of an ndim-D input."""
    return v.reshape((1, -1) + (1,) * (ndim - 2)) if ndim > 1 else v


def _bn_axes(x):
    return (0,) + tuple(range(2, x.ndim))


def _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """(output, save_mean, save_invstd); training updates the running stats in place."""
    _float_only("batch_norm", input)
    if input.ndim < 2:
        raise RuntimeError(f"batch_norm: expected an input of at least 2 dims (N, C, ...), got {list(input.shape)}")
    c = input.shape[1]
    for name, v in (("weight", weight), ("bias", bias), ("running_mean", running_mean), ("running_var", running_var)):
        if v is not None and v.size != c:
            raise RuntimeError(f"batch_norm: {name} should contain {c} elements not {v.size}")
    axes = _bn_axes(input)
    if training:
        mean, var, invstd = _stats(input, axes, eps)
        if running_mean is not None:
            n = input.size // c
            running_mean *= 1 - momentum
            running_mean += momentum * mean.reshape(-1)
            running_var *= 1 - momentum
            running_var += momentum * var.reshape(-1) * (n / (n - 1) if n > 1 else np.inf)
        save = (mean.reshape(-1), invstd.reshape(-1))
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm: running_mean and running_var must be defined in evaluation mode")
        mean, invstd = _channel(running_mean, input.ndim), _channel(1 / np.sqrt(running_var + eps), input.ndim)
        save = (np.zeros(0, input.dtype), np.zeros(0, input.dtype))
    out = (input - mean) * invstd
    if weight is not None:
        out = out * _channel(weight, input.ndim)
    if bias is not None:
        out = out + _channel(bias, input.ndim)
    return (out.astype(input.dtype, copy=False),) + save


def _batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps):
    axes, nd = _bn_axes(input), input.ndim
    if train:
        mean, invstd = _channel(save_mean, nd), _channel(save_invstd, nd)
    else:
        mean, invstd = _channel(running_mean, nd), _channel(1 / np.sqrt(running_var + eps), nd)
    xhat = (input - mean) * invstd
    w = _channel(weight, nd) if weight is not None else 1
    if train:
        gi = _normalized_backward(grad_out * w, xhat, invstd, axes)
    else:
        gi = grad_out * w * invstd
    return gi, (grad_out * xhat).sum(axes), grad_out.sum(axes)


native_batch_norm = op("native_batch_norm", public="native_batch_norm")(_batch_norm)


@op("native_batch_norm_backward", public="native_batch_norm_backward")
def native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train,
                               eps, output_mask=(True, True, True)):
    return _batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps)


@op("_native_batch_norm_legit", public=False)
def _native_batch_norm_legit(input, weight, bias, running_mean, running_var, training, momentum, eps):
    return _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


@op("_native_batch_norm_legit.no_stats", public=False)
def _native_batch_norm_legit_no_stats(input, weight, bias, training, momentum, eps):
    return _batch_norm(input, weight, bias, None, None, True, momentum, eps)


@op("_native_batch_norm_legit_no_training", public="_native_batch_norm_legit_no_training")
def _native_batch_norm_legit_no_training(input, weight, bias, running_mean, running_var, momentum, eps):
    return _batch_norm(input, weight, bias, running_mean, running_var, False, momentum, eps)


def _legit(input, weight, bias, *args):
    """torch._native_batch_norm_legit: with running stats (5 more args) or without (3)."""
    if len(args) == 3:
        return _native_batch_norm_legit_no_stats(input, weight, bias, *args)
    return _native_batch_norm_legit(input, weight, bias, *args)


register("_native_batch_norm_legit")(_legit)


@op("_batch_norm_with_update", public=False)
def _batch_norm_with_update(input, weight, bias, running_mean, running_var, momentum, eps):
    return _batch_norm(input, weight, bias, running_mean, running_var, True, momentum, eps) + (np.zeros(0, np.uint8),)


@op("_batch_norm_no_update", public=False)
def _batch_norm_no_update(input, weight, bias, running_mean, running_var, momentum, eps):
    out = _batch_norm(input, weight, bias, running_mean, running_var, running_mean is None, momentum, eps)
    return out[:1] + (np.zeros(0, input.dtype), np.zeros(0, input.dtype), np.zeros(0, np.uint8))


@op("batch_norm_backward", public="_batch_norm_backward")
def _batch_norm_backward_op(grad_out, input, weight, running_mean, running_var, save_mean, save_var, update, eps,
                            output_mask=(True, True, True), reserve=None):
    train = update or running_mean is None
    return _batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_var, train, eps)


aten._batch_norm_with_update = _batch_norm_with_update
aten._batch_norm_no_update = _batch_norm_no_update
aten.batch_norm_backward = _batch_norm_backward_op
aten.native_batch_norm = native_batch_norm
aten.native_batch_norm_backward = native_batch_norm_backward


def _ln_axes(input, normalized_shape):
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    if k == 0 or input.shape[input.ndim - k:] != normalized_shape or input.ndim < k:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, normalized_shape))}], but got input of size"
                           f"[{', '.join(map(str, input.shape))}]")
    return tuple(range(input.ndim - k, input.ndim))


@op("native_layer_norm", public="native_layer_norm")
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    _float_only("layer_norm", input)
    axes = _ln_axes(input, normalized_shape)
    for name, v in (("weight", weight), ("bias", bias)):
        if v is not None and v.shape != tuple(normalized_shape):
            raise RuntimeError(f"layer_norm: expected {name} of shape {list(normalized_shape)}, got {list(v.shape)}")
    mean, _, rstd = _stats(input, axes, eps)
    out = (input - mean) * rstd
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out, mean, rstd


@op("native_layer_norm_backward", public="native_layer_norm_backward")
def native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
                               output_mask=(True, True, True)):
    axes = _ln_axes(input, normalized_shape)
    outer = tuple(range(input.ndim - len(axes)))
    xhat = (input - mean) * rstd
    gi = _normalized_backward(grad_out * weight if weight is not None else grad_out, xhat, rstd, axes)
    return gi, (grad_out * xhat).sum(outer), grad_out.sum(outer)


def _gn_view(input, N, C, HxW, group):
    return input.reshape(N, group, (C // group) * HxW)


@op("native_group_norm", public="native_group_norm")
def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    _float_only("group_norm", input)
    mean, _, rstd = _stats(_gn_view(input, N, C, HxW, group), (2,), eps)
    out = ((_gn_view(input, N, C, HxW, group) - mean) * rstd).reshape(input.shape)
    if weight is not None:
        out = out * _channel(weight, input.ndim)
    if bias is not None:
        out = out + _channel(bias, input.ndim)
    return out, mean.reshape(N, group), rstd.reshape(N, group)


@op("native_group_norm_backward", public="native_group_norm_backward")
def native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group,
                               output_mask=(True, True, True)):
    x = _gn_view(input, N, C, HxW, group)
    m, r = mean.reshape(N, group, 1), rstd.reshape(N, group, 1)
    xhat = ((x - m) * r).reshape(input.shape)
    w = _channel(weight, input.ndim) if weight is not None else 1
    gi = _normalized_backward(_gn_view(grad_out * w, N, C, HxW, group), (x - m) * r, r, (2,))
    axes = _bn_axes(input)
    return gi.reshape(input.shape), (grad_out * xhat).sum(axes), grad_out.sum(axes)


# ---- embedding ----------------------------------------------------------------------------
def _check_indices(name, indices):
    if indices.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {_type_name(indices)} instead (while checking arguments for {name})")


@op("embedding", public="embedding")
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    _check_indices("embedding", indices)
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if ((indices < 0) | (indices >= weight.shape[0])).any():
        raise IndexError("index out of range in self")
    return weight[indices]


@op("embedding_dense_backward", public="embedding_dense_backward")
def embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    flat = indices.reshape(-1)
    g = grad_output.reshape(flat.size, -1)
    if scale_grad_by_freq:
        g = g / np.bincount(flat, minlength=num_weights)[flat][:, None]
    if padding_idx >= 0:
        g = np.where((flat == padding_idx)[:, None], _zero(g), g)
    out = np.zeros((num_weights, g.shape[1]), grad_output.dtype)
    np.add.at(out, flat, g)
    return out


def _embedding_renorm(self, indices, max_norm, norm_type):
    """Rows of `self` picked by `indices` whose norm exceeds max_norm are scaled down to it (in place)."""
    self = self.copy()
    rows = np.unique(indices)
    norms = np.linalg.norm(self[rows], ord=norm_type, axis=1)
    big = norms > max_norm
    self[rows[big]] *= (max_norm / (norms[big] + 1e-7))[:, None]
    return self


embedding_renorm_ = register("embedding_renorm_")(_inplace("embedding_renorm_", _embedding_renorm))


# ---- user-facing functions (torch.nn.functional's signatures; imported by nn/functional.py) --
import ndgrad as _nd  # noqa: E402  (partially initialized here; used at call time)

from .nn import REDUCTIONS  # noqa: E402


def _red(reduction, size_average=None, reduce=None):
    from ..nn.functional import _reduction
    return _reduction(reduction, size_average, reduce)


def hardsigmoid(input, inplace=False):
    return hardsigmoid_(input) if inplace else _hardsigmoid(input)


def hardswish(input, inplace=False):
    return hardswish_(input) if inplace else _hardswish(input)


def mish(input, inplace=False):
    return mish_(input) if inplace else _mish(input)


def softshrink(input, lambd=0.5):
    return _softshrink(input, lambd)


def logsigmoid(input):
    return _log_sigmoid(input)


def glu(input, dim=-1):
    return _glu(input, dim)


def tanhshrink(input):
    return input - input.tanh()


def softsign(input):
    return input / (input.abs() + 1)


@register("prelu")
def prelu(input, weight):
    _prelu_check(input, weight)
    if input.ndim >= 2:
        weight = weight.view([1, weight.numel()] + [1] * (input.ndim - 2))
    return _prelu_kernel(input, weight)


@register("rrelu")
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    if inplace:
        return rrelu_(input, lower, upper, training)
    return _rrelu_with_noise(input, _nd.empty_like(input), lower, upper, training)


@register("rrelu_")
def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    out = _rrelu_with_noise(input, _nd.empty_like(input), lower, upper, training)
    with _nd.no_grad():
        input.copy_(out)
    return input


# ---- losses
def _same_size(input, target):
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")


def _broadcast_pair(input, target, name):
    if tuple(target.shape) != tuple(input.shape):
        import warnings
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=3)
    shape = broadcast_shape(input.shape, target.shape)
    return input.expand(shape), target.expand(shape)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    red = _red(reduction, size_average, reduce)
    _same_size(input, target)
    if weight is not None:
        weight = weight.expand(input.shape)
    return _binary_cross_entropy(input, target, weight, red)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    red = _red(reduction, size_average, reduce)
    _same_size(input, target)
    return _binary_cross_entropy_with_logits(input, target, weight, pos_weight, red)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    red = _red(reduction, size_average, reduce)
    input, target = _broadcast_pair(input, target, "smooth_l1_loss")
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _smooth_l1_loss(input, target, red, beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    red = _red(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = _broadcast_pair(input, target, "huber_loss")
    if weight is None:
        return _huber_loss(input, target, red, delta)
    losses = _huber_loss(input, target, REDUCTIONS["none"], delta) * weight
    return losses if red == 0 else losses.sum() if red == 2 else losses.mean()


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    red = _red(reduction, size_average, reduce)
    input, target = _broadcast_pair(input, target, "l1_loss")
    losses = (input - target).abs()
    if weight is not None:
        losses = losses * weight
    return losses if red == 0 else losses.sum() if red == 2 else losses.mean()


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    red = _red(reduction, size_average, reduce)
    _same_size(input, target)
    return _soft_margin_loss(input, target, red)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    red = _red(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    return _multi_margin_loss(input, target, p, margin, weight, red)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _multilabel_margin_loss(input, target, _red(reduction, size_average, reduce))


def _reduce_t(losses, red):
    return losses if red == 0 else losses.sum() if red == 2 else losses.mean()


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    red = "mean" if reduction == "batchmean" else reduction
    red = _red(red, size_average, reduce)
    losses = target.exp() * (target - input) if log_target else _nd.xlogy(target, target) - target * input
    if reduction == "batchmean":
        return losses.sum() / input.shape[0] if input.ndim else losses.sum()
    return _reduce_t(losses, red)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    red = _red(reduction, size_average, reduce)
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
    with _nd.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce_t(loss, _red(reduction))


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    red = _red(reduction, size_average, reduce)
    zeros = _nd.zeros_like(input)
    margin_clamp = (margin - input).clamp_min(0)
    output_margin = _nd.where(target != 1, margin_clamp, zeros)
    output_self = _nd.where(target != -1, input, zeros)
    return _reduce_t(output_margin + output_self, red)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    red = _red(reduction, size_average, reduce)
    return _reduce_t((-target * (input1 - input2) + margin).clamp_min(0), red)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    red = _red(reduction, size_average, reduce)
    eps = 1e-12
    prod = (input1 * input2).sum(-1)
    mag = ((input1 * input1).sum(-1) + eps) * ((input2 * input2).sum(-1) + eps)
    cos = prod / mag.sqrt()
    zeros = _nd.zeros_like(cos)
    pos = _nd.where(target == 1, 1 - cos, zeros)
    neg = _nd.where(target == -1, (cos - margin).clamp_min(0), zeros)
    return _reduce_t(pos + neg, red)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    red = _red(reduction, size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(-1) / input.shape[-1]
    return _reduce_t(loss, red)


# ---- dropout
def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _mask_dropout(input, p, training, inplace, mask_shape):
    _check_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    mask = _nd.zeros(mask_shape, dtype=input.dtype) if p == 1 else \
        _nd.empty(mask_shape, dtype=input.dtype).bernoulli_(1 - p).div_(1 - p)
    return input.mul_(mask) if inplace else input * mask


def dropout(input, p=0.5, training=True, inplace=False):
    return _mask_dropout(input, p, training, inplace, tuple(input.shape))


def _feature_shape(input, name, dims):
    if input.ndim not in dims:
        raise RuntimeError(f"{name}: Expected {'or '.join(f'{d - 1}D or {d}D ' for d in dims[:1])}input, but "
                           f"received a {input.ndim}D input")
    batched = input.ndim == max(dims)
    shape = tuple(input.shape[:2]) if batched else tuple(input.shape[:1])
    return shape + (1,) * (input.ndim - len(shape))


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _mask_dropout(input, p, training, inplace, _feature_shape(input, "dropout1d", (2, 3)))


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _mask_dropout(input, p, training, inplace, _feature_shape(input, "dropout2d", (3, 4)))


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _mask_dropout(input, p, training, inplace, _feature_shape(input, "dropout3d", (4, 5)))


_SELU_ALPHA_PRIME = 1.7580993408473766   # -selu's alpha * scale: the value dropped units take


def _alpha_dropout(input, p, training, inplace, mask_shape):
    _check_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * _nd.zeros((), dtype=input.dtype)
    keep = _nd.empty(mask_shape, dtype=input.dtype).bernoulli_(1 - p)
    a = 1 / math.sqrt((_SELU_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
    b = keep.add(-1).mul_(_SELU_ALPHA_PRIME * a).add_(_SELU_ALPHA_PRIME * a * p)
    keep = keep.mul_(a)
    return input.mul_(keep).add_(b) if inplace else input * keep + b


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha_dropout(input, p, training, inplace, tuple(input.shape))


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return _alpha_dropout(input, p, training, inplace, shape)


# ---- normalization
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    if training:
        size = int(np.prod([input.shape[0]] + list(input.shape[2:])))
        if size == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
    return native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)[0]


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher input to instance_norm (got {input.ndim}D input)")
    n, c = input.shape[:2]
    flat = input.contiguous().view([1, n * c] + list(input.shape[2:]))
    rep = [None if v is None else v.repeat(n) for v in (running_mean, running_var, weight, bias)]
    out = native_batch_norm(flat, rep[2], rep[3], rep[0], rep[1], use_input_stats, momentum, eps)[0]
    if use_input_stats and running_mean is not None:
        with _nd.no_grad():   # the batch's per-instance running stats, averaged back per channel
            running_mean.copy_(rep[0].view(n, c).mean(0))
            running_var.copy_(rep[1].view(n, c).mean(0))
    return out.view(input.shape)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    return native_layer_norm(input, tuple(normalized_shape), weight, bias, eps)[0]


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    n, c = input.shape[:2]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape [{', '.join(map(str, input.shape))}] and num_groups={num_groups}")
    hw = int(np.prod(input.shape[2:]))
    return native_group_norm(input, weight, bias, n, c, hw, num_groups, eps)[0]


def rms_norm(input, normalized_shape, weight=None, eps=None):
    dims = list(range(input.ndim - len(normalized_shape), input.ndim))
    eps = eps if eps is not None else float(np.finfo(input.numpy().dtype).eps)
    out = input * (input.pow(2).mean(dims, keepdim=True) + eps).rsqrt()
    return out * weight if weight is not None else out


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom


# ---- embedding
def embedding_fn(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 sparse=False):
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= weight.shape[0] or padding_idx < 0 and padding_idx < -weight.shape[0]:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = padding_idx % weight.shape[0]
    else:
        padding_idx = -1
    if sparse:
        raise NotImplementedError("embedding(sparse=True): sparse gradients are not supported by ndgrad yet; "
                                  "use sparse=False")
    if max_norm is not None:
        with _nd.no_grad():
            embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    return embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
