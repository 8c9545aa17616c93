"""Neural-network ops: activations, softmax / log_softmax and the losses behind nn.functional.

Each op's backward is itself an op here (`_softmax_backward_data`, `_nll_loss_backward`, ...):
one NumPy kernel for the first derivative, and a derivatives.yaml entry of its own, so double
backward works and records the nodes torch records (SoftmaxBackwardDataBackward0, ...).
Underscored names are torch's internal (ATen) forms; the user-facing functions with torch's
signatures are here (torch.relu, torch.softmax, ...) and in ndgrad/nn/functional.py.
"""
import inspect
import math

import numpy as np

from ._registry import call_inplace, op, register
from ..backends.numpy_backend import special
from ._branchless import where as _branchless_where
from .linalg import _type_name

REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}
# Python floats, so float32 inputs stay float32
_GELU_K = math.sqrt(2 / math.pi)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_SQRT_HALF = math.sqrt(0.5)
_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772, 1.0507009873554805


def _axis(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _reduce(losses, reduction):
    if reduction == 1:
        return losses.mean()
    return losses.sum() if reduction == 2 else losses


def _reduction_scale(grad_output, reduction, numel):
    return grad_output / numel if reduction == 1 else grad_output


def _inplace(entry, forward):
    """`forward` applied in place and recorded under yaml entry `entry` (torch gives some in-place
    activations an entry of their own: they save the result instead of the input)."""
    spec = op(entry, public=False)(forward).spec
    signature = inspect.signature(forward)

    def apply(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return call_inplace(spec, tuple(bound.arguments.values()))
    return apply


# ---- relu and threshold -------------------------------------------------------------------
@op("relu", method=True, inplace=True)
def relu(input):
    if input.dtype == np.bool_:
        raise RuntimeError("relu: Boolean inputs not supported for relu; cast to a numeric dtype first")
    return np.maximum(input, 0)


register("relu_")(relu.inplace)


def _threshold(input, threshold, value):
    return np.where(input > threshold, input, np.asarray(value, input.dtype))


threshold = op("threshold", public="threshold")(_threshold)
threshold_ = register("threshold_")(_inplace("threshold_", _threshold))


@op("threshold_backward", public="_threshold_backward")
def _threshold_backward(grad_output, input, threshold):   # branch-free: a ReLU's mask is random
    return _branchless_where(input > threshold, grad_output, np.zeros((), grad_output.dtype))


# ---- other activations (user-facing forms in nn/functional.py) ----------------------------
def _leaky_relu_forward(input, negative_slope=0.01):
    return np.where(input > 0, input, input * np.asarray(negative_slope, input.dtype))


leaky_relu = op("leaky_relu", public="_leaky_relu")(_leaky_relu_forward)
leaky_relu_ = _inplace("leaky_relu_", _leaky_relu_forward)


@op("leaky_relu_backward", public="_leaky_relu_backward")
def _leaky_relu_backward(grad_output, input, negative_slope, self_is_result):
    return np.where(input > 0, grad_output, grad_output * np.asarray(negative_slope, grad_output.dtype))


def _elu_forward(input, alpha=1, scale=1, input_scale=1):
    neg = np.expm1(np.minimum(input, 0) * input_scale) * alpha
    return np.where(input > 0, input, neg) * np.asarray(scale, input.dtype)


elu = op("elu", public="_elu")(_elu_forward)
elu_ = _inplace("elu_", _elu_forward)


@register()
def selu(input):
    return elu(input, _SELU_ALPHA, _SELU_SCALE)


@register()
def selu_(input):
    return elu_(input, _SELU_ALPHA, _SELU_SCALE)


def _celu_forward(input, alpha=1.0):
    return _elu_forward(input, alpha, 1, 1 / alpha)


celu = op("celu", public="celu")(_celu_forward)
celu_ = register("celu_")(_inplace("celu_", _celu_forward))


@op("elu_backward", public="_elu_backward")
def _elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result):
    x = self_or_result
    if is_result:   # exp(x * input_scale) recovered from the output: out / (scale * alpha) + 1
        slope = (x / scale + alpha) * input_scale
    else:
        slope = np.exp(np.minimum(x, 0) * input_scale) * (alpha * input_scale)
    return grad_output * np.where(x > 0, np.asarray(scale, x.dtype), slope * scale)


# GELU's tanh form, t = tanh(k (x + c x^3)), computed in one buffer (the MLP of a transformer
# spends its time here; never x**3: NumPy's float32 power is ~300x slower than x*x*x)
_GELU_C = 0.044715


def _gelu_tanh(x):
    t = np.multiply(x, x, out=np.empty_like(x))
    t *= _GELU_C
    t += 1
    t *= x
    t *= _GELU_K
    return np.tanh(t, out=t)


def _gelu_tanh_derivative(x, block=1 << 15):
    """d gelu/dx = 0.5 (1 + t) + 0.5 x (1 - t^2) du/dx = (1 + t) (0.5 + 0.5 x du/dx (1 - t)), with
    du/dx = k (1 + 3 c x^2). Computed block by block into the result: the one scratch buffer is a
    cache-sized block (this is the backward memory peak of a transformer's MLP)."""
    out = np.empty(x.shape, x.dtype)
    xf, of = x.reshape(-1), out.reshape(-1)
    scratch = np.empty((2, min(block, xf.size)), x.dtype)
    for i in range(0, xf.size, block):
        xb, t = xf[i:i + block], of[i:i + block]
        s, one_minus_t = scratch[0, :xb.size], scratch[1, :xb.size]
        np.multiply(xb, xb, out=s)
        s *= 3 * _GELU_C * _GELU_K
        s += _GELU_K
        s *= xb
        s *= 0.5
        np.multiply(xb, xb, out=t)      # t = tanh(k (x + c x^3))
        t *= _GELU_C
        t += 1
        t *= xb
        t *= _GELU_K
        np.tanh(t, out=t)
        np.subtract(1, t, out=one_minus_t)
        s *= one_minus_t
        s += 0.5
        t += 1
        t *= s
    return out


def _times_grad(local, grad_output):
    """grad_output * local, into `local` (a fresh buffer) when the product has its shape and dtype."""
    if grad_output.shape == local.shape and np.result_type(grad_output, local) == local.dtype:
        local *= grad_output
        return local
    return grad_output * local


@op("gelu", public="_gelu")
def _gelu(input, *, approximate="none"):
    if approximate == "tanh":
        t = _gelu_tanh(input)
        t += 1
        t *= input
        t *= 0.5
        return t
    if approximate != "none":
        raise RuntimeError(f"gelu: approximate argument must be either none or tanh, got {approximate!r}")
    return 0.5 * input * (1 + _erf(input * _SQRT_HALF))


@op("gelu_backward", public="_gelu_backward")
def _gelu_backward(grad_output, input, *, approximate="none"):
    x = input
    if approximate == "tanh":
        return _times_grad(_gelu_tanh_derivative(x), grad_output)
    return grad_output * (0.5 * (1 + _erf(x * _SQRT_HALF)) + x * np.exp(-0.5 * x * x) * _INV_SQRT_2PI)


def _silu_forward(input):
    return input / (1 + np.exp(-input))


silu = op("silu", public="_silu")(_silu_forward)
silu_ = _inplace("silu", _silu_forward)


@op("softplus", public="_softplus")
def _softplus(input, beta=1, threshold=20):
    bx = input * beta
    return np.where(bx > threshold, input, np.logaddexp(0, bx) / beta)


@op("softplus_backward", public="_softplus_backward")
def _softplus_backward(grad_output, input, beta, threshold):
    bx = input * beta
    return np.where(bx > threshold, grad_output, grad_output / (1 + np.exp(-bx)))


def _hardtanh_forward(input, min_val=-1, max_val=1):
    if min_val > max_val:
        raise RuntimeError(f"hardtanh: min_val ({min_val}) cannot be greater than max_val ({max_val})")
    return np.clip(input, min_val, max_val)


hardtanh = op("hardtanh", public="_hardtanh")(_hardtanh_forward)
hardtanh_ = _inplace("hardtanh", _hardtanh_forward)


@op("hardtanh_backward", public="_hardtanh_backward")
def _hardtanh_backward(grad_output, input, min_val, max_val):
    return np.where((input > min_val) & (input < max_val), grad_output, np.zeros((), grad_output.dtype))


def _erf(x):
    return special().erf(x)


# ---- softmax and log_softmax --------------------------------------------------------------
def _along(input, dim):
    """input as an array with at least one dim and the softmax axis (0-d tensors: their one element)."""
    axis = _axis(dim, input.ndim)
    return (input.reshape(1), 0) if input.ndim == 0 else (input, axis)


def _float_input(name, input):
    if input.dtype.kind not in "fc":
        raise NotImplementedError(f'"{name}" not implemented for \'{_type_name(input)}\'; pass dtype= '
                                  "(e.g. dtype=torch.float32) to compute it in floating point")


@op("_softmax")
def _softmax(input, dim, half_to_float):
    _float_input("softmax", input)
    x, axis = _along(input.astype(np.float32) if half_to_float else input, dim)
    e = np.exp(x - x.max(axis, keepdims=True))
    e /= e.sum(axis, keepdims=True)
    return e.reshape(input.shape)


@op("_log_softmax")
def _log_softmax(input, dim, half_to_float):
    _float_input("log_softmax", input)
    x, axis = _along(input.astype(np.float32) if half_to_float else input, dim)
    shifted = x - x.max(axis, keepdims=True)
    shifted -= np.log(np.exp(shifted).sum(axis, keepdims=True))
    return shifted.reshape(input.shape)


@op("_softmax_backward_data")
def _softmax_backward_data(grad_output, output, dim, input_dtype):
    y, axis = _along(output, dim)
    g = grad_output.reshape(y.shape)
    gi = y * (g - (g * y).sum(axis, keepdims=True))
    return gi.reshape(output.shape).astype(input_dtype.np, copy=False)


@op("_log_softmax_backward_data")
def _log_softmax_backward_data(grad_output, output, dim, input_dtype):
    y, axis = _along(output, dim)
    g = grad_output.reshape(y.shape)
    gi = g - np.exp(y) * g.sum(axis, keepdims=True)
    return gi.reshape(output.shape).astype(input_dtype.np, copy=False)


def _softmax_public(kernel):
    def fn(input, dim, dtype=None):
        if dtype is not None:
            input = input.to(dtype)
        return kernel(input, dim, False)
    return fn


softmax = register("softmax", method=True)(_softmax_public(_softmax))
log_softmax = register("log_softmax", method=True)(_softmax_public(_log_softmax))


# ---- losses -------------------------------------------------------------------------------
@op("div.Scalar", public=False)
def _div_scalar(input, other):
    # torch's losses divide by a Python number inside C++ (DivBackward1, not Python's DivBackward0)
    return np.true_divide(input, other)


def _nll_targets(input, target, weight, ignore_index):
    """(class axis, valid mask, targets safe to index with, per-element weights) for nll_loss."""
    if target.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"nll_loss: expected target dtype to be Long or Byte, but got {_type_name(target)}")
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


def _nll_forward(input, target, weight, reduction, ignore_index):
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
    return _nll_forward(input, target.reshape(()) if input.ndim == 1 else target, weight, reduction, ignore_index)


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
