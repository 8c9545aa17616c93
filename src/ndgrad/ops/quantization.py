"""Fake quantization: x rounded onto the grid scale * (q - zero_point), q an integer in
[quant_min, quant_max], and back to floating point — training with the rounding of a quantized
model in the forward pass.

Gradients are straight-through: the incoming gradient where q was in range, 0 where it was
clamped (the `mask` the cachemask ops return). The learnable variants also give scale and
zero_point gradients (LSQ); their backward ops, like torch's, have no derivative themselves.
Rounding follows torch's kernels: x * (1 / scale) in float32 arithmetic, ties to even.
"""
import numpy as np

from ._registry import op, register
from ._schema import Parser
from .._dtype import type_word
from .._tensor import _wrap_dim, Tensor


def _check_range(quant_min, quant_max):
    if quant_min > quant_max:
        raise RuntimeError("`quant_min` should be less than or         equal to `quant_max`.")


def _check_zero_point(zero_point, quant_min, quant_max):
    if np.any(zero_point < quant_min) or np.any(zero_point > quant_max):
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")


def _along(v, x, axis):
    """Per-channel values `v` shaped to broadcast along `axis` of x (scalars unchanged)."""
    v = np.asarray(v)
    if axis is None or v.ndim == 0:
        return v
    return v.reshape((-1,) + (1,) * (x.ndim - 1 - axis))


def _quantize(x, scale, zero_point, axis=None):
    """(q before clamping, scale, zero point), the last two shaped to broadcast against x."""
    scale32 = _along(np.asarray(scale, dtype=np.float32), x, axis)
    inv_scale = (np.float32(1) / scale32).astype(x.dtype)
    zp = _along(zero_point, x, axis)
    if zp.dtype.kind == "f":     # floating zero points (per channel) are added before rounding
        q = np.rint(x * inv_scale + zp.astype(x.dtype))
    else:
        q = np.rint(x * inv_scale) + zp.astype(x.dtype)
    return q, scale32.astype(x.dtype), zp.astype(x.dtype)


def _fake_quantize(x, scale, zero_point, quant_min, quant_max, axis=None):
    """(output, mask of the elements whose q was in range)."""
    if x.dtype.kind != "f":
        raise NotImplementedError(f"fake quantization takes floating point input, got {x.dtype}")
    q, scale, zp = _quantize(x, scale, zero_point, axis)
    out = (np.clip(q, quant_min, quant_max) - zp) * scale
    return out.astype(x.dtype), (q >= quant_min) & (q <= quant_max)


# ---- per tensor -------------------------------------------------------------------------------
@op("fake_quantize_per_tensor_affine_cachemask", public=False)
def fake_quantize_per_tensor_affine_cachemask(input, scale, zero_point, quant_min, quant_max):
    _check_range(quant_min, quant_max)
    _check_zero_point(zero_point, quant_min, quant_max)
    return _fake_quantize(input, scale, zero_point, quant_min, quant_max)


@op("_fake_quantize_per_tensor_affine_cachemask_tensor_qparams",
    public="_fake_quantize_per_tensor_affine_cachemask_tensor_qparams")
def _fake_quantize_per_tensor_affine_cachemask_tensor_qparams(input, scale, zero_point, fake_quant_enabled,
                                                              quant_min, quant_max):
    """As the float-qparams op, with scale and zero point in 1-element tensors; a zero in
    `fake_quant_enabled` passes input through (mask all True)."""
    _check_range(quant_min, quant_max)
    if not fake_quant_enabled.reshape(-1)[0]:
        return input.copy(), np.ones(input.shape, dtype=bool)
    zp = np.rint(zero_point.reshape(-1)[0])
    _check_zero_point(zp, quant_min, quant_max)
    return _fake_quantize(input, scale.reshape(-1)[0], np.int64(zp), quant_min, quant_max)


_fake_quantize_per_tensor_affine_args = Parser(
    "fake_quantize_per_tensor_affine(Tensor input, Tensor scale, Tensor zero_point, int quant_min, int quant_max)",
    "fake_quantize_per_tensor_affine(Tensor input, float scale, int zero_point, int quant_min, int quant_max)")


@register()
@_fake_quantize_per_tensor_affine_args.signature
def fake_quantize_per_tensor_affine(*args, **kwargs):
    """Quantizes `input` with one scale and zero point and dequantizes it again (quantization-aware
    training): ``(clamp(round(x / scale) + zero_point, quant_min, quant_max) - zero_point) * scale``.

    Args:
        input (Tensor): the input (floating point).
        scale (float or Tensor): the quantization step.
        zero_point (int or Tensor): the integer that 0 maps to.
        quant_min (int): the smallest quantized value.
        quant_max (int): the largest quantized value.

    Returns:
        Tensor: the fake-quantized values.

    Example::

        >>> x = torch.tensor([-1.0, 0.26, 0.5, 3.0])
        >>> torch.fake_quantize_per_tensor_affine(x, 0.25, 0, 0, 8)
        tensor([0.0000, 0.2500, 0.5000, 2.0000])
    """
    which, (input, scale, zero_point, quant_min, quant_max) = _fake_quantize_per_tensor_affine_args.parse(args, kwargs)
    if which == 0:
        enabled = Tensor._make(np.ones(1, dtype=np.int64), False, None, 0)
        return _fake_quantize_per_tensor_affine_cachemask_tensor_qparams(input, scale, zero_point, enabled,
                                                                         quant_min, quant_max)[0]
    return fake_quantize_per_tensor_affine_cachemask(input, scale, zero_point, quant_min, quant_max)[0]


# ---- per channel ------------------------------------------------------------------------------
def _check_per_channel(input, scale, zero_point, axis):
    if scale.dtype != np.float32:
        raise RuntimeError(f"Scale must be Float or BFloat16, found {type_word(scale.dtype)}")
    if zero_point.dtype not in (np.int32, np.float32, np.float16):
        raise RuntimeError(f"Zero-point must be Int32, Float or Half, found {type_word(zero_point.dtype)}")
    if scale.ndim != 1:
        raise RuntimeError("scale should be a 1-D tensor")
    if scale.shape != zero_point.shape:
        raise RuntimeError("scale and zero-point need to have the same dimensions")
    if scale.shape[0] != input.shape[_wrap_dim(axis, input.ndim)]:
        raise RuntimeError("dimensions of scale and zero-point are not consistent with input tensor")
    if axis < 0:
        raise RuntimeError("`axis` must be between 0 and number of dimensions of input")
    return axis


@op("fake_quantize_per_channel_affine_cachemask", public=False)
def fake_quantize_per_channel_affine_cachemask(input, scale, zero_point, axis, quant_min, quant_max):
    axis = _check_per_channel(input, scale, zero_point, axis)
    _check_range(quant_min, quant_max)
    _check_zero_point(zero_point, quant_min, quant_max)
    return _fake_quantize(input, scale, zero_point, quant_min, quant_max, axis)


@register()
def fake_quantize_per_channel_affine(input, scale, zero_point, axis, quant_min, quant_max):
    """As :func:`ndgrad.fake_quantize_per_tensor_affine`, with a scale and a zero point per index of
    dimension `axis`.

    Args:
        input (Tensor): the input (floating point).
        scale (Tensor): the steps, one per channel.
        zero_point (Tensor): the zero points, one per channel (int32).
        axis (int): the channel dimension.
        quant_min (int): the smallest quantized value.
        quant_max (int): the largest quantized value.

    Returns:
        Tensor: the fake-quantized values.

    Example::

        >>> x = torch.tensor([[0.3, 0.3], [0.3, 0.3]])
        >>> torch.fake_quantize_per_channel_affine(x, torch.tensor([0.25, 0.5]),
        ...                                        torch.tensor([0, 0], dtype=torch.int32), 0, 0, 255)
        tensor([[0.2500, 0.2500],
                [0.5000, 0.5000]])
    """
    return fake_quantize_per_channel_affine_cachemask(input, scale, zero_point, axis, quant_min, quant_max)[0]


# ---- learnable scale and zero point -------------------------------------------------------------
def _lsq_grads(grad, x, scale, zp, quant_min, quant_max, grad_factor, axis):
    """Gradients of fake quantization with respect to x, scale and zero point (zp integral): in
    range, d out / d scale = (q - zp) - x / scale and d out / d zp = 0; clamped, the gradient of
    (bound - zp) * scale. (torch's backward kernels add zp before rounding, unlike the forward.)"""
    q, s, z = _quantize(x, scale, np.asarray(zp, dtype=np.float32), axis)
    inv_scale = (np.float32(1) / s.astype(np.float32)).astype(x.dtype)
    below, above = q < quant_min, q > quant_max
    inside = ~(below | above)
    d_scale = np.where(below, quant_min - z, np.where(above, quant_max - z, ((q - z) * s - x) * inv_scale))
    d_zp = np.where(inside, 0, -s)
    others = tuple(d for d in range(x.ndim) if d != axis)
    g_scale = (grad * d_scale).sum(axis=others) * grad_factor
    g_zp = (grad * d_zp).sum(axis=others) * grad_factor
    return (grad * inside).astype(x.dtype), g_scale.reshape(scale.shape).astype(scale.dtype), \
        g_zp.reshape(scale.shape).astype(scale.dtype)


@op("_fake_quantize_learnable_per_tensor_affine", public="_fake_quantize_learnable_per_tensor_affine")
def _fake_quantize_learnable_per_tensor_affine(input, scale, zero_point, quant_min, quant_max, grad_factor=1.0):
    """Per-tensor fake quantization whose scale and zero point (1-element tensors) take gradients."""
    _check_range(quant_min, quant_max)
    zp = np.clip(np.rint(zero_point.reshape(-1)[0]), quant_min, quant_max).astype(np.int64)
    return _fake_quantize(input, scale.reshape(-1)[0], zp, quant_min, quant_max)[0]


# torch has no derivative of these backward ops (their node is NotImplemented), nor does ndgrad
@op("_fake_quantize_learnable_per_tensor_affine_backward",
    public="_fake_quantize_learnable_per_tensor_affine_backward")
def _fake_quantize_learnable_per_tensor_affine_backward(grad, input, scale, zero_point, quant_min, quant_max,
                                                        grad_factor=1.0):
    # torch's backward kernel rounds the zero point half up, where the forward rounds half to even
    zp = np.clip(np.trunc(zero_point.reshape(-1)[0] + 0.5), quant_min, quant_max).astype(np.int64)
    return _lsq_grads(grad, input, scale, zp, quant_min, quant_max, grad_factor, None)


@op("_fake_quantize_learnable_per_channel_affine", public="_fake_quantize_learnable_per_channel_affine")
def _fake_quantize_learnable_per_channel_affine(input, scale, zero_point, axis, quant_min, quant_max,
                                                grad_factor=1.0):
    """Per-channel fake quantization whose scales and zero points take gradients."""
    _check_range(quant_min, quant_max)
    axis = _wrap_dim(axis, input.ndim)
    zp = np.clip(np.rint(zero_point), quant_min, quant_max).astype(np.int32)
    return _fake_quantize(input, scale, zp, quant_min, quant_max, axis)[0]


@op("_fake_quantize_learnable_per_channel_affine_backward",
    public="_fake_quantize_learnable_per_channel_affine_backward")
def _fake_quantize_learnable_per_channel_affine_backward(grad, input, scale, zero_point, axis, quant_min, quant_max,
                                                         grad_factor=1.0):
    axis = _wrap_dim(axis, input.ndim)
    zp = np.clip(np.rint(zero_point), quant_min, quant_max).astype(np.int32)
    return _lsq_grads(grad, input, scale, zp, quant_min, quant_max, grad_factor, axis)


# ---- observer + fake quantization in one op -----------------------------------------------------
_SMALL_SCALE = np.float32(6.1e-5)


def _choose_qparams(low, high, quant_min, quant_max, symmetric):
    """(scale, zero point) mapping [min(low, 0), max(high, 0)] onto [quant_min, quant_max], as
    torch's observers choose them (float32 bounds, the zero point nearest to exact)."""
    low, high = np.float32(low), np.float32(high)
    if symmetric and low < 0 < high:
        half = (quant_max - quant_min) // 2
        step = max(abs(low / -(half + 1)), abs(high / half))
        low, high = np.float32(step * -(half + 1)), np.float32(step * half)
    low, high = min(low, np.float32(0)), max(high, np.float32(0))
    scale = (float(high) - float(low)) / (quant_max - quant_min)
    if np.float32(scale) == 0 or np.isinf(np.float32(1) / np.float32(scale)):
        scale = 0.1
    if scale < _SMALL_SCALE:   # widen tiny ranges so the scale stays representable
        grow = _SMALL_SCALE / np.float32(scale)
        scale = float(_SMALL_SCALE)
        if low == 0:
            high = _SMALL_SCALE * (quant_max - quant_min)
        elif high == 0:
            low = -_SMALL_SCALE * (quant_max - quant_min)
        else:
            low, high = low * grow, high * grow
    from_min, from_max = quant_min - low / scale, quant_max - high / scale
    err_min, err_max = abs(quant_min) - abs(low / scale), abs(quant_max) - abs(high / scale)
    zp = from_min if err_min < err_max else from_max
    if symmetric and low < 0 < high:
        zp = (quant_min + quant_max) / 2
    zp = quant_min if zp < quant_min else quant_max if zp > quant_max else np.rint(zp)
    return np.float32(scale), int(zp)


@op("_fused_moving_avg_obs_fq_helper", public="_fused_moving_avg_obs_fq_helper")
def _fused_moving_avg_obs_fq_helper(input, observer_on, fake_quant_on, running_min, running_max, scale, zero_point,
                                    averaging_const, quant_min, quant_max, ch_axis, per_row_fake_quant=False,
                                    symmetric_quant=False):
    """Observe (running_min / running_max: moving averages of input's min and max — per row of
    dim 0 with per_row_fake_quant — taken as they are while still infinite), then fake-quantize
    with the scales and zero points chosen from them (written into `scale` and `zero_point`).
    Returns (output, mask)."""
    _check_range(quant_min, quant_max)
    if per_row_fake_quant and ch_axis != 0:
        raise RuntimeError("Per-channel FakeQuant in fused_moving_avg_obs_fake_quant is only supported on axis == 0")
    if observer_on.reshape(-1)[0]:
        rows = input.reshape(input.shape[0], -1) if per_row_fake_quant else input.reshape(1, -1)
        for stat, seen in ((running_min, rows.min(1)), (running_max, rows.max(1))):
            stat[...] = np.where(np.isinf(stat), seen, stat + averaging_const * (seen - stat))
    if not fake_quant_on.reshape(-1)[0]:
        return input.copy(), np.ones(input.shape, dtype=bool)
    chosen = [_choose_qparams(lo, hi, quant_min, quant_max, symmetric_quant)
              for lo, hi in zip(running_min.reshape(-1), running_max.reshape(-1))]
    scale[...] = [s for s, _ in chosen]
    zero_point[...] = [z for _, z in chosen]
    if per_row_fake_quant:
        return _fake_quantize(input, scale.astype(np.float32), zero_point.astype(np.int64), quant_min, quant_max, 0)
    return _fake_quantize(input, chosen[0][0], np.int64(chosen[0][1]), quant_min, quant_max)


@register()
def fused_moving_avg_obs_fake_quant(input, observer_on, fake_quant_on, running_min, running_max, scale, zero_point,
                                    averaging_const, quant_min, quant_max, ch_axis, per_row_fake_quant=False,
                                    symmetric_quant=False):
    """A moving-average min/max observer and fake quantization in one op (quantization-aware
    training): updates `running_min`, `running_max`, `scale` and `zero_point` in place when the
    observer is on, then fake-quantizes `input` when fake quantization is on.

    Args:
        input (Tensor): the input.
        observer_on (Tensor): 1 to update the observed range.
        fake_quant_on (Tensor): 1 to fake-quantize.
        running_min (Tensor): the running minimum.
        running_max (Tensor): the running maximum.
        scale (Tensor): the scale, updated from the range.
        zero_point (Tensor): the zero point (int32), updated from the range.
        averaging_const (float): the weight of the new range in the moving average.
        quant_min (int): the smallest quantized value.
        quant_max (int): the largest quantized value.
        ch_axis (int): the channel axis (0 with `per_row_fake_quant`).
        per_row_fake_quant (bool): a range, scale and zero point per row of dimension 0. Default: ``False``.
        symmetric_quant (bool): a range symmetric around 0. Default: ``False``.

    Returns:
        Tensor: the fake-quantized input.

    Example::

        >>> x = torch.tensor([0.0, 1.0, 2.0])
        >>> rmin, rmax = torch.tensor(float("inf")), torch.tensor(float("-inf"))
        >>> scale, zp = torch.tensor([1.0]), torch.tensor([0], dtype=torch.int32)
        >>> out = torch.fused_moving_avg_obs_fake_quant(x, torch.tensor([1]), torch.tensor([1]), rmin, rmax,
        ...                                             scale, zp, 0.01, 0, 255, 0)
        >>> rmin, rmax, out
        (tensor(0.), tensor(2.), tensor([0.0000, 0.9961, 2.0000]))
    """
    return _fused_moving_avg_obs_fq_helper(input, observer_on, fake_quant_on, running_min, running_max, scale,
                                           zero_point, averaging_const, quant_min, quant_max, ch_axis,
                                           per_row_fake_quant, symmetric_quant)[0]
