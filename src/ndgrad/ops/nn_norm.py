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

from ._registry import op, register
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
    lead = gw.ndim - weight.ndim
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(weight.shape) if n == 1 and gw.shape[lead + i] != 1)
    return gi, gw.sum(axes, keepdims=True).reshape(weight.shape)


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
    d = np.subtract(x, mean, out=np.empty(x.shape, np.result_type(x, mean)))
    var = np.square(d, out=d).mean(axes, keepdims=True)   # one temporary, squared in place
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
    x = _bn_planes(input)
    if training:
        mean, var, invstd = _stats(x, (0, 2), eps)
        mean, var, invstd = mean.reshape(-1), var.reshape(-1), invstd.reshape(-1)
        if running_mean is not None:
            n = input.size // c
            running_mean *= 1 - momentum
            running_mean += momentum * mean
            running_var *= 1 - momentum
            running_var += momentum * var * (n / (n - 1) if n > 1 else np.inf)
        save = (mean, invstd)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm: running_mean and running_var must be defined in evaluation mode")
        mean, invstd = running_mean, 1 / np.sqrt(running_var + eps)
        save = (np.zeros(0, input.dtype), np.zeros(0, input.dtype))
    # as torch's kernel: out = x * scale + shift per channel (two passes over the input)
    scale = invstd if weight is None else invstd * weight
    shift = -mean * scale if bias is None else bias - mean * scale
    out = np.multiply(x, scale.astype(input.dtype, copy=False)[:, None], dtype=input.dtype)
    out += shift.astype(input.dtype, copy=False)[:, None]
    return (out.reshape(input.shape),) + save


def _bn_planes(x):
    """x (N, C, *) as (N, C, P): per-channel passes over contiguous rows (a view when it can be)."""
    return x.reshape(x.shape[0], x.shape[1], -1)


def _batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps):
    """Per-channel sums of g and g*(x - mean), then gi = g*k + (x - mean)*kd + k0 per channel: four
    whole-array passes instead of the formula's dozen broadcast temporaries."""
    if train:
        mean, invstd = save_mean, save_invstd
    else:
        mean, invstd = running_mean, 1 / np.sqrt(running_var + eps)
    g, x = _bn_planes(grad_out), _bn_planes(input)
    w = 1 if weight is None else weight
    d = x - mean[:, None]                       # (N, C, P)
    sum_g = g.sum((0, 2))
    sum_gd = np.einsum("ncp,ncp->c", g, d)     # no (N, C, P) temporary
    k = (invstd * w).astype(g.dtype, copy=False)
    gi = np.multiply(g, k[:, None], dtype=g.dtype)
    if train:
        n = x.shape[0] * x.shape[2]
        d *= (-k * invstd * invstd * sum_gd / n).astype(d.dtype, copy=False)[:, None]
        d -= (k * sum_g / n).astype(d.dtype, copy=False)[:, None]
        gi += d
    return gi.reshape(input.shape), sum_gd * invstd, sum_g


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
    mean = input.mean(axes, keepdims=True)
    out = input - mean                  # one buffer, then in place (a transformer runs two per step)
    rstd = 1 / np.sqrt(np.square(out).mean(axes, keepdims=True) + eps)
    out = _into(np.multiply, out, rstd)
    if weight is not None:
        out = _into(np.multiply, out, weight)
    if bias is not None:
        out = _into(np.add, out, bias)
    return out, mean, rstd


def _into(ufunc, out, other):
    """ufunc(out, other), into `out` (a buffer of ours) when the result keeps its shape and dtype."""
    if (isinstance(out, np.ndarray) and np.result_type(out, other) == out.dtype
            and np.broadcast_shapes(out.shape, np.shape(other)) == out.shape):
        return ufunc(out, other, out=out)
    return ufunc(out, other)


@op("native_layer_norm_backward", public="native_layer_norm_backward")
def native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
                               output_mask=(True, True, True)):
    axes = _ln_axes(input, normalized_shape)
    outer = tuple(range(input.ndim - len(axes)))
    xhat = _into(np.multiply, input - mean, rstd)
    gx = grad_out * xhat
    gw, gb = gx.sum(outer), grad_out.sum(outer)
    if weight is not None:              # the formula of _normalized_backward, in place
        g = grad_out * weight
        gx = _into(np.multiply, gx, weight)
    else:
        g = grad_out
    xhat = _into(np.multiply, xhat, gx.mean(axes, keepdims=True))
    del gx
    gi = g - g.mean(axes, keepdims=True)
    gi = _into(np.subtract, gi, xhat)
    return _into(np.multiply, gi, rstd), gw, gb


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
            # detached, as torch does: no tangent flows into the renorm
            embedding_renorm_(weight.detach(), input.contiguous(), max_norm, norm_type)
    return embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


# ---- padding and interpolation: per-axis linear maps ----------------------------------------
# Reflect/replicate padding and every interpolation mode are, along each spatial axis, a matrix
# M (out x in) applied to that axis; the backward applies M's transpose. One code path for all.
def _along_axes(x, mats, transpose=False):
    first = x.ndim - len(mats)
    for k, m in enumerate(mats):
        if m is None:
            continue
        axis = first + k
        x = np.moveaxis(np.moveaxis(x, axis, -1) @ (m if transpose else m.T).astype(x.dtype, copy=False), -1, axis)
    return np.ascontiguousarray(x)


def _index_matrix(idx, n_in):
    m = np.zeros((len(idx), n_in))
    m[np.arange(len(idx)), idx] = 1
    return m


def _pad_mats(shape, padding, mode):
    """Matrices for reflect/replicate padding of the trailing len(padding)//2 dims of `shape`."""
    k = len(padding) // 2
    mats = []
    for i in range(k):
        n = shape[len(shape) - k + i]
        left, right = padding[2 * (k - 1 - i)], padding[2 * (k - 1 - i) + 1]
        if mode == "reflect" and (left >= n or right >= n):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({left}, {right}) at dimension {len(shape) - k + i} of input "
                               f"{list(shape)}")
        idx = np.arange(-left, n + right)
        if mode == "reflect":
            period = 2 * (n - 1) if n > 1 else 1
            idx = np.abs(idx) % period
            idx = np.where(idx >= n, period - idx, idx)
        else:
            idx = np.clip(idx, 0, n - 1)
        mats.append(_index_matrix(idx, n))
    return mats


def _check_pad_input(name, self, padding):
    k = len(padding) // 2
    if self.ndim not in (k + 1, k + 2) or any(s == 0 for s in self.shape[-k:]):
        raise RuntimeError(f"{name}: Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: {list(self.shape)}")


def _pad_op(name, mode):
    def forward(self, padding):
        _check_pad_input(name, self, padding)
        return _along_axes(self, _pad_mats(self.shape, padding, mode))

    def backward(grad_output, self, padding):
        return _along_axes(grad_output, _pad_mats(self.shape, padding, mode), transpose=True)
    fwd = op(name, public="_" + name)(forward)
    op(name + "_backward", public="_" + name + "_backward")(backward)
    return fwd


_PADS = {(mode, d): _pad_op(f"{prefix}_pad{d}d", mode)
         for mode, prefix in (("reflect", "reflection"), ("replicate", "replication")) for d in (1, 2, 3)}


@op("constant_pad_nd", public="constant_pad_nd")
def constant_pad_nd(self, pad, value=0):
    if len(pad) % 2 or len(pad) // 2 > self.ndim:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}" if len(pad) % 2 else
                           f"Length of pad should be no more than twice the number of dimensions of the input. "
                           f"Pad length is {len(pad)} while the input has {self.ndim} dimensions.")
    k = len(pad) // 2
    widths = [(0, 0)] * (self.ndim - k) + [(pad[2 * (k - 1 - i)], pad[2 * (k - 1 - i) + 1]) for i in range(k)]
    crop = tuple(slice(max(-a, 0), n - max(-b, 0)) for (a, b), n in zip(widths, self.shape))
    out = self[crop]
    return np.pad(out, [(max(a, 0), max(b, 0)) for a, b in widths], constant_values=value)


# interpolation: source coordinates as torch computes them
def _scale(n_in, n_out, align_corners, scale):
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else n_in / n_out


def _interp_matrix(mode, n_in, n_out, align_corners, scale):
    dst = np.arange(n_out, dtype=np.float64)
    m = np.zeros((n_out, n_in))
    rows = np.arange(n_out)
    if mode in ("nearest", "nearest-exact"):
        s = 1.0 / scale if scale is not None and scale > 0 else n_in / n_out
        src = np.floor((dst + 0.5) * s if mode == "nearest-exact" else dst * s).astype(np.int64)
        m[rows, np.minimum(src, n_in - 1)] = 1
        return m
    s = _scale(n_in, n_out, align_corners, scale)
    src = s * dst if align_corners else s * (dst + 0.5) - 0.5
    if mode == "linear":
        src = np.maximum(src, 0)
        i0 = np.floor(src).astype(np.int64)
        i1 = np.minimum(i0 + 1, n_in - 1)
        t = src - i0
        np.add.at(m, (rows, i0), 1 - t)
        np.add.at(m, (rows, i1), t)
        return m
    # cubic convolution (A = -0.75) on taps i-1 .. i+2, indices clamped to the edge
    i = np.floor(src).astype(np.int64)
    t = src - i
    a = -0.75
    for k, x in zip(range(-1, 3), (t + 1, t, 1 - t, 2 - t)):
        w = np.where(x <= 1, ((a + 2) * x - (a + 3)) * x * x + 1, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a)
        np.add.at(m, (rows, np.clip(i + k, 0, n_in - 1)), w)
    return m


def _aa_matrix(mode, n_in, n_out, align_corners, scale):
    """Antialiased (area-weighted filter) interpolation, as torch's _upsample_*_aa."""
    s = _scale(n_in, n_out, align_corners, scale)
    size = 2 if mode == "linear" else 4
    support = size / 2 * s if s >= 1 else size / 2
    inv = 1 / s if s >= 1 else 1.0
    m = np.zeros((n_out, n_in))
    for i in range(n_out):   # a loop over output positions of one axis (small), not over elements
        center = s * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), n_in)
        x = np.abs((np.arange(lo, hi) - center + 0.5) * inv)
        if mode == "linear":
            w = np.maximum(1 - x, 0)
        else:
            a = -0.5
            w = np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                         np.where(x < 2, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a, 0))
        total = w.sum()
        m[i, lo:hi] = w / total if total else w
    return m


def _upsample_mats(mode, aa, in_sizes, out_sizes, align_corners, scales):
    scales = scales if scales is not None else [None] * len(out_sizes)
    make = _aa_matrix if aa else _interp_matrix
    return [make(mode, a, b, align_corners, s) for a, b, s in zip(in_sizes, out_sizes, scales)]


def _upsample_op(name, mode, dims, aa=False):
    def forward(self, output_size, align_corners=None, scales=None):
        if self.ndim != dims + 2:
            raise RuntimeError(f"{name}: expected a {dims + 2}D input (N, C, spatial...), got {list(self.shape)}")
        mats = _upsample_mats(mode, aa, self.shape[2:], output_size, align_corners, scales)
        return _along_axes(self, mats)

    def backward(grad_output, output_size, input_size, align_corners=None, scales=None):
        mats = _upsample_mats(mode, aa, tuple(input_size)[2:], output_size, align_corners, scales)
        return _along_axes(grad_output, mats, transpose=True)
    fwd = op(name, public=name if name.startswith("_") else "_" + name)(forward)
    op(name + "_backward", public=(name if name.startswith("_") else "_" + name) + "_backward")(backward)
    return fwd


_UPSAMPLE = {}
for _mode, _dims, _name, _aa in [
        ("nearest", 1, "upsample_nearest1d", False), ("nearest", 2, "upsample_nearest2d", False),
        ("nearest", 3, "upsample_nearest3d", False), ("nearest-exact", 1, "_upsample_nearest_exact1d", False),
        ("nearest-exact", 2, "_upsample_nearest_exact2d", False), ("nearest-exact", 3, "_upsample_nearest_exact3d", False),
        ("linear", 1, "upsample_linear1d", False), ("linear", 2, "upsample_bilinear2d", False),
        ("linear", 3, "upsample_trilinear3d", False), ("cubic", 2, "upsample_bicubic2d", False),
        ("linear", 2, "_upsample_bilinear2d_aa", True), ("cubic", 2, "_upsample_bicubic2d_aa", True)]:
    _UPSAMPLE[_mode, _dims, _aa] = _upsample_op(_name, _mode, _dims, _aa)


@op("pixel_shuffle", public="pixel_shuffle")
def pixel_shuffle(self, upscale_factor):
    r = upscale_factor
    if self.ndim < 3 or self.shape[-3] % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={self.shape[-3] if self.ndim >= 3 else None} is not "
                           f"divisible by {r * r}")
    *b, c, h, w = self.shape
    x = self.reshape(*b, c // (r * r), r, r, h, w)
    n = len(b)
    x = x.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return np.ascontiguousarray(x.reshape(*b, c // (r * r), h * r, w * r))


@op("pixel_unshuffle", public="pixel_unshuffle")
def pixel_unshuffle(self, downscale_factor):
    r = downscale_factor
    if self.ndim < 3 or self.shape[-2] % r or self.shape[-1] % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by downscale_factor, got "
                           f"{list(self.shape)} and {r}")
    *b, c, h, w = self.shape
    x = self.reshape(*b, c, h // r, r, w // r, r)
    n = len(b)
    x = x.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return np.ascontiguousarray(x.reshape(*b, c * r * r, h // r, w // r))


# ---- user-facing padding, interpolation, pixel shuffle
def pad(input, pad, mode="constant", value=None):
    pad = tuple(int(p) for p in pad)
    if mode == "constant":
        return constant_pad_nd(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise ValueError(f"Padding mode \"{mode}\" doesn't take in value argument.")
    k = len(pad) // 2
    if len(pad) % 2 or k > 3 or input.ndim not in (k + 1, k + 2):
        raise NotImplementedError(f"Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now "
                                  f"(got a {input.ndim}D input and {len(pad)} pad values in mode {mode!r})")
    if mode in ("reflect", "replicate"):
        return _PADS[mode, k](input, pad)
    if mode == "circular":
        return _pad_circular(input, pad)
    raise NotImplementedError(f"Unrecognised padding mode {mode}")


def _pad_circular(input, pad):
    """Circular padding as torch composes it: copy the input into the middle, then wrap slices."""
    k = len(pad) // 2
    shape = list(input.shape)
    for i in range(k):
        d = input.ndim - 1 - i
        if pad[2 * i] > shape[d] or pad[2 * i + 1] > shape[d]:
            raise ValueError("Padding value causes wrapping around more than once.")
        shape[d] += pad[2 * i] + pad[2 * i + 1]
    out = input.new_empty(shape)
    inner = [slice(None)] * input.ndim
    for i in range(k):
        d = input.ndim - 1 - i
        inner[d] = slice(max(pad[2 * i], 0), shape[d] - max(pad[2 * i + 1], 0))
    out[tuple(inner)] = input
    for i in range(k):   # wrap along each padded dim, innermost first, over the full extent of the others
        d = input.ndim - 1 - i
        left, right, n = pad[2 * i], pad[2 * i + 1], shape[d]
        idx = [slice(None)] * input.ndim
        if left > 0:
            dst, src = list(idx), list(idx)
            dst[d], src[d] = slice(0, left), slice(n - right - left, n - right)
            out[tuple(dst)] = out[tuple(src)]
        if right > 0:
            dst, src = list(idx), list(idx)
            dst[d], src[d] = slice(n - right, n), slice(left, left + right)
            out[tuple(dst)] = out[tuple(src)]
    return out


_INTERP_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    dims = input.ndim - 2
    if mode in ("nearest", "nearest-exact", "area"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if mode in _INTERP_DIMS and _INTERP_DIMS[mode] != dims:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {_INTERP_DIMS[mode] + 2}D input")
    if dims < 1 or dims > 3:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) "
                                  f"for the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                                  f"nearest-exact (got {mode})")
    if antialias and not (mode in ("bilinear", "bicubic") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D tensor "
                         "as input")
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined" if size is not None else
                         "either size or scale_factor should be defined")
    scales = None
    if size is not None:
        out = [int(size)] * dims if isinstance(size, (int, np.integer)) else [int(s) for s in size]
        if len(out) != dims:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {list(input.shape[2:])} and output size of {out}. Please provide "
                             f"input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                             f"format.")
    else:
        sf = [float(scale_factor)] * dims if isinstance(scale_factor, (int, float)) else [float(s) for s in scale_factor]
        out = [int(math.floor(n * s)) for n, s in zip(input.shape[2:], sf)]
        scales = None if recompute_scale_factor else sf
    if mode == "area":
        from ..nn import functional as _F
        return getattr(_F, f"adaptive_avg_pool{dims}d")(input, out)
    kind = {"nearest": "nearest", "nearest-exact": "nearest-exact", "bicubic": "cubic"}.get(mode, "linear")
    if mode not in ("nearest", "nearest-exact", "area", "bicubic") + tuple(_INTERP_DIMS):
        raise NotImplementedError(f"Input Error: unsupported interpolation mode {mode!r}")
    return _UPSAMPLE[kind, dims, bool(antialias)](input, out, align_corners, scales)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
