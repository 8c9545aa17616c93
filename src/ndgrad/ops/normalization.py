"""Normalization: batch norm (native_batch_norm and torch's _batch_norm_* variants), layer norm, group
norm and their backward ops; weight norm; and the user-facing batch_norm, instance_norm, layer_norm,
group_norm, rms_norm, normalize (re-exported by ndgrad/nn/functional/normalization.py).
"""
import functools
import math
import sys
import types

import numpy as np

from .._typeinfo import finfo
from ..backends import is_array

from .. import _parallel
from . import _fused
from ._registry import op, register
from ._scratch import buffer
from ..autograd.grad_mode import no_grad
from .activation import _float_only, _plain
from .reduction import norm_except_dim

# torch.ops.aten: a namespace shared by the op modules that need one (created by the first)
_pkg = sys.modules[__package__]
aten = getattr(_pkg, "aten", None) or types.SimpleNamespace()
_pkg.aten = aten



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
    r"""Batch normalization (as :func:`ndgrad.nn.functional.batch_norm`), returning the statistics it used;
    in training mode the running statistics are updated in place.

    Args:
        input (Tensor): the input, (N, C, \*).
        weight (Tensor, optional): the scale per channel.
        bias (Tensor, optional): the shift per channel.
        running_mean (Tensor, optional): the running means, updated in training mode.
        running_var (Tensor, optional): the running variances, updated in training mode.
        training (bool): normalise with the batch's statistics (else the running ones).
        momentum (float): the weight of the batch's statistics in the running ones.
        eps (float): added to the variance.

    Returns:
        (Tensor, Tensor, Tensor): the output, the saved mean and the saved inverse standard deviation.

    Example::

        >>> x = torch.tensor([[1.0], [3.0]])
        >>> out, mean, invstd = torch.native_batch_norm(x, None, None, None, None, True, 0.1, 0.0)
        >>> out, mean, invstd
        (tensor([[-1.],
                [ 1.]]), tensor([2.]), tensor([1.]))
    """
    _float_only("batch_norm", input)
    if input.ndim < 2:
        raise RuntimeError(f"batch_norm: expected an input of at least 2 dims (N, C, ...), got {list(input.shape)}")
    c = input.shape[1]
    for name, v in (("weight", weight), ("bias", bias), ("running_mean", running_mean), ("running_var", running_var)):
        if v is not None and v.size != c:
            raise RuntimeError(f"batch_norm: {name} should contain {c} elements not {v.size}")
    x = _bn_planes(input)
    if training:
        mean, var, invstd = (np.empty(c, input.dtype) for _ in range(3))
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm: running_mean and running_var must be defined in evaluation mode")
        mean, invstd = running_mean, 1 / np.sqrt(running_var + eps)
    fused = _fused.batch_norm(x, weight, bias, mean, invstd, training, eps) if x.size else None
    if fused is not None:
        out, mean, var, invstd = fused
    else:
        out = np.empty(x.shape, input.dtype)
        _parallel.run(functools.partial(_bn_channels, x, out, weight, bias, mean, var if training else None, invstd,
                                        eps), c, x.size * (6 if training else 3))   # (each channel as alone)
    if training:
        if running_mean is not None:
            n = input.size // c
            running_mean *= 1 - momentum
            running_mean += momentum * mean
            running_var *= 1 - momentum
            running_var += momentum * var * (n / (n - 1) if n > 1 else np.inf)
        save = (mean, invstd)
    else:
        save = (np.zeros(0, input.dtype), np.zeros(0, input.dtype))
    return (out.reshape(input.shape),) + save


def _bn_channels(x, out, weight, bias, mean, var, invstd, eps, i, j):
    """Batch norm's NumPy passes for channels i..j of x (N, C, P): with `var` (an array to fill), the
    batch's statistics into mean, var, invstd first."""
    training = var is not None
    xc = x[:, i:j]
    if training:
        m, v, r = _stats(xc, (0, 2), eps)
        mean[i:j], var[i:j], invstd[i:j] = m.reshape(-1), v.reshape(-1), r.reshape(-1)
    # as torch's kernel: out = x * scale + shift per channel (two passes over the input)
    scale = invstd[i:j] if weight is None else invstd[i:j] * weight[i:j]
    shift = -mean[i:j] * scale if bias is None else bias[i:j] - mean[i:j] * scale
    np.multiply(xc, scale.astype(x.dtype, copy=False)[:, None], out=out[:, i:j], dtype=x.dtype)
    out[:, i:j] += shift.astype(x.dtype, copy=False)[:, None]


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
    fused = _fused.batch_norm_backward(g, x, mean, invstd, weight, train) if x.size and g.shape == x.shape else None
    if fused is not None:
        gi, sum_g, sum_gd = fused
        return gi.reshape(input.shape), sum_gd * invstd, sum_g
    gi = np.empty(g.shape, g.dtype)
    sum_g, sum_gd = np.empty(x.shape[1], g.dtype), np.empty(x.shape[1], np.result_type(g, x, mean))
    n = x.shape[0] * x.shape[2]

    def channels(i, j):
        gc, ic = g[:, i:j], invstd[i:j]
        d = x[:, i:j] - mean[i:j, None]                # (N, c, P)
        sum_g[i:j] = gc.sum((0, 2))
        sum_gd[i:j] = np.einsum("ncp,ncp->c", gc, d)   # no (N, c, P) temporary
        k = (ic if weight is None else ic * weight[i:j]).astype(g.dtype, copy=False)
        np.multiply(gc, k[:, None], out=gi[:, i:j], dtype=g.dtype)
        if train:
            d *= (-k * ic * ic * sum_gd[i:j] / n).astype(d.dtype, copy=False)[:, None]
            d -= (k * sum_g[i:j] / n).astype(d.dtype, copy=False)[:, None]
            gi[:, i:j] += d
    _parallel.run(channels, x.shape[1], x.size * 8)   # (each channel's passes are computed as alone)
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
    return _layer_norm(input, normalized_shape, weight, bias, eps)


def _layer_norm(input, normalized_shape, weight, bias, eps, keep=False):
    """native_layer_norm; `keep` (ndgrad.compile's tapes, for the backward): xhat = (input - mean) * rstd
    too, as a fourth result in a buffer of its own (the product by the weight is then written to a fresh
    array rather than in place: the same passes)."""
    _float_only("layer_norm", input)
    axes = _ln_axes(input, normalized_shape)
    for name, v in (("weight", weight), ("bias", bias)):
        if v is not None and v.shape != tuple(normalized_shape):
            raise RuntimeError(f"layer_norm: expected {name} of shape {list(normalized_shape)}, got {list(v.shape)}")
    fused = _fused.layer_norm(input, math.prod(normalized_shape), weight, bias, eps, keep)
    if fused is not None:
        stat = input.shape[:input.ndim - len(axes)] + (1,) * len(axes)
        return tuple(a.reshape(input.shape if k in (0, 3) else stat) for k, a in enumerate(fused))
    if _by_rows(input, weight, bias):
        return _layer_norm_rows(input, len(axes), weight, bias, eps, keep)
    mean = _mean_kept(input, axes)
    out = input - mean                  # one buffer, then in place (a transformer runs two per step)
    square = np.square(out, out=buffer("ln_square", out.shape, out.dtype)) if _plain(out) else np.square(out)
    rstd = 1 / np.sqrt(_mean_kept(square, axes) + eps)
    del square
    out = _into(np.multiply, out, rstd)
    xhat = out
    if weight is not None:
        out = np.multiply(out, weight) if keep else _into(np.multiply, out, weight)
    elif keep:
        out = out.copy()
    if bias is not None:
        out = _into(np.add, out, bias)
    return (out, mean, rstd, xhat) if keep else (out, mean, rstd)


# Layer norm on NumPy arrays of one float dtype, large enough to split, runs as the passes above over
# a (rows, D) view, in parallel slices of rows: each row's passes are the same ufunc calls as on the
# whole array (the same bits, for any thread count), and rows of a few hundred elements make each
# broadcast pass cost several times a plain one (NumPy's loop restarts every row), which two threads
# halve. (Smaller ones keep the whole-array passes: fewer calls.)
def _by_rows(x, *others):
    """Whether input x and `others` (None or arrays of x's dtype) take the row-slice path."""
    return type(x) is np.ndarray and x.ndim and _row_work(x, 7) >= 2 * _parallel.MIN_WORK and \
        x.dtype.kind == "f" and x.dtype.itemsize >= 4 and all(
            a is None or (type(a) is np.ndarray and a.dtype == x.dtype) for a in others)


def _rows(a, d):
    """a as a (rows, D) array over its last d dims (a view where it can be)."""
    return a.reshape(-1, math.prod(a.shape[a.ndim - d:]))


def _row_work(x, passes):   # (each pass restarts NumPy's loop per row: about 50 ns, some 150 work units)
    return passes * (x.size + 150 * (x.size // max(x.shape[-1], 1)))


def _layer_norm_rows(input, k, weight, bias, eps, keep):
    x = _rows(input, k)
    n, d = x.shape
    out = np.empty(x.shape, x.dtype)
    xhat = np.empty(x.shape, x.dtype) if keep else out
    mean, rstd = np.empty((n, 1), x.dtype), np.empty((n, 1), x.dtype)
    w = None if weight is None else weight.reshape(d)
    b = None if bias is None else bias.reshape(d)

    def rows(i, j):
        m, r = mean[i:j], rstd[i:j]
        np.true_divide(np.add.reduce(x[i:j], 1, None, m, True), d, out=m)
        xh = np.subtract(x[i:j], m, out=xhat[i:j])
        square = np.square(xh, out=buffer("ln_square", xh.shape, xh.dtype))
        np.true_divide(np.add.reduce(square, 1, None, r, True), d, out=r)
        np.true_divide(1, np.sqrt(np.add(r, eps, out=r), out=r), out=r)
        np.multiply(xh, r, out=xh)
        if w is not None:
            np.multiply(xh, w, out=out[i:j])
        elif keep:
            np.copyto(out[i:j], xh)
        if b is not None:
            np.add(out[i:j], b, out=out[i:j])
    _parallel.run(rows, n, _row_work(x, 7))
    stat = input.shape[:input.ndim - k] + (1,) * k
    result = (out.reshape(input.shape), mean.reshape(stat), rstd.reshape(stat))
    return result + (xhat.reshape(input.shape),) if keep else result


def _layer_norm_backward_rows(grad_out, input, k, mean, rstd, weight, kept):
    """_layer_norm_backward's passes over (rows, D) views in parallel row slices; the column sums
    (the weight's and bias's gradients) run whole between the two parallel parts, as there."""
    g, x = _rows(grad_out, k), _rows(input, k)
    n, d = x.shape
    m, r = mean.reshape(n, 1), rstd.reshape(n, 1)
    xhat = buffer("ln_xhat", x.shape, x.dtype) if kept is None else _rows(kept, k)
    gx = buffer("ln_gx", x.shape, x.dtype)

    def products(i, j):
        if kept is None:
            np.multiply(np.subtract(x[i:j], m[i:j], out=xhat[i:j]), r[i:j], out=xhat[i:j])
        np.multiply(g[i:j], xhat[i:j], out=gx[i:j])
    _parallel.run(products, n, _row_work(x, 3))
    gw, gb = gx.sum(0), g.sum(0)
    w = None if weight is None else weight.reshape(d)
    gi = np.empty(x.shape, x.dtype)
    # (a kept xhat is read, not changed: its product goes to a scratch buffer)
    scaled = xhat if kept is None else buffer("ln_xhat", x.shape, x.dtype)

    def grads(i, j):
        gxi, s, gii = gx[i:j], scaled[i:j], gi[i:j]
        if w is not None:
            np.multiply(g[i:j], w, out=gii)
            np.multiply(gxi, w, out=gxi)
        else:
            np.copyto(gii, g[i:j])
        np.multiply(xhat[i:j], np.true_divide(np.add.reduce(gxi, 1, None, None, True), d), out=s)
        np.subtract(gii, np.true_divide(np.add.reduce(gii, 1, None, None, True), d), out=gii)
        np.subtract(gii, s, out=gii)
        np.multiply(gii, r[i:j], out=gii)
    _parallel.run(grads, n, _row_work(x, 8))
    shape = input.shape[input.ndim - k:]
    return gi.reshape(input.shape), gw.reshape(shape), gb.reshape(shape)


def _layer_norm_keeping(input, normalized_shape, weight, bias, eps):
    return _layer_norm(input, normalized_shape, weight, bias, eps, keep=True)


def _mean_kept(x, axes):
    """x.mean(axes, keepdims=True), the same bits (NumPy's mean of a float32/float64 array is its sum
    divided by the count), without mean's Python wrapper (~3 us, as much as the work on small rows)."""
    if type(x) is not np.ndarray or x.dtype.kind != "f" or x.dtype.itemsize < 4:   # (float16 sums in float32)
        return x.mean(axes, keepdims=True)
    total = np.add.reduce(x, axes, None, None, True)
    return np.true_divide(total, math.prod([x.shape[a] for a in axes]), out=total)


def _into(ufunc, out, other):
    """ufunc(out, other), into `out` (a buffer of ours) when the result keeps its shape and dtype."""
    if type(out) is np.ndarray and type(other) is np.ndarray and other.dtype == out.dtype:
        k = out.ndim - other.ndim   # (np.broadcast_shapes and np.result_type cost a few us)
        if k >= 0 and all(a == b or a == 1 for a, b in zip(other.shape, out.shape[k:])):
            return ufunc(out, other, out=out)
    elif (is_array(out) and np.result_type(out, other) == out.dtype
            and np.broadcast_shapes(out.shape, np.shape(other)) == out.shape):
        return ufunc(out, other, out=out)
    return ufunc(out, other)


@op("native_layer_norm_backward", public="native_layer_norm_backward")
def native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
                               output_mask=(True, True, True)):
    return _layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias)


def _layer_norm_backward_kept(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask, xhat):
    """native_layer_norm_backward with the forward's xhat (_layer_norm's `keep`): the same bits, two
    passes fewer."""
    return _layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, xhat)


def _layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, kept=None):
    axes = _ln_axes(input, normalized_shape)
    if grad_out.shape == input.shape:
        fused = _fused.layer_norm_backward(grad_out, input, math.prod(normalized_shape), mean, rstd, weight, kept)
        if fused is not None:
            shape = input.shape[input.ndim - len(axes):]
            return fused[0].reshape(input.shape), fused[1].reshape(shape), fused[2].reshape(shape)
    if _by_rows(input, grad_out, mean, rstd, weight, kept) and grad_out.shape == input.shape:
        return _layer_norm_backward_rows(grad_out, input, len(axes), mean, rstd, weight, kept)
    outer = tuple(range(input.ndim - len(axes)))
    # the formula of _normalized_backward, in place; xhat and grad_out * xhat, which never leave
    # this function, in scratch buffers (NumPy arrays of one dtype), g * weight becomes the result
    scratch = _plain(grad_out, input, mean, rstd) and np.result_type(grad_out, input, mean, rstd) == input.dtype
    if kept is None:
        xhat = np.subtract(input, mean, out=buffer("ln_xhat", input.shape, input.dtype) if scratch else None)
        xhat = _into(np.multiply, xhat, rstd)
    else:
        xhat = kept
    gx = np.multiply(grad_out, xhat, out=buffer("ln_gx", input.shape, input.dtype) if scratch else None)
    gw, gb = gx.sum(outer), grad_out.sum(outer)
    if weight is not None:
        g = grad_out * weight
        gx = _into(np.multiply, gx, weight)
    else:
        g = grad_out
    if kept is None:
        xhat = _into(np.multiply, xhat, gx.mean(axes, keepdims=True))
    else:   # (the kept xhat is read, not changed: the product goes to the scratch buffer)
        xhat = np.multiply(kept, gx.mean(axes, keepdims=True),
                           out=buffer("ln_xhat", input.shape, input.dtype) if scratch else None)
    del gx
    mean_g = g.mean(axes, keepdims=True)
    gi = _into(np.subtract, g, mean_g) if weight is not None else g - mean_g
    gi = _into(np.subtract, gi, xhat)
    return _into(np.multiply, gi, rstd), gw, gb


def _gn_view(input, N, C, HxW, group):
    return input.reshape(N, group, (C // group) * HxW)


@op("native_group_norm", public="native_group_norm")
def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    _float_only("group_norm", input)
    if input.size == N * C * HxW and group and C % group == 0 and (
            fused := _fused.group_norm(input.reshape(N, C, HxW), group, weight, bias, eps)) is not None:
        return fused[0].reshape(input.shape), fused[1], fused[2]
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
    if input.size == N * C * HxW and grad_out.shape == input.shape and group and C % group == 0 and (
            fused := _fused.group_norm_backward(grad_out.reshape(N, C, HxW), input.reshape(N, C, HxW), group, mean,
                                                rstd, weight)) is not None:
        return fused[0].reshape(input.shape), fused[1], fused[2]
    x = _gn_view(input, N, C, HxW, group)
    m, r = mean.reshape(N, group, 1), rstd.reshape(N, group, 1)
    xhat = ((x - m) * r).reshape(input.shape)
    w = _channel(weight, input.ndim) if weight is not None else 1
    gi = _normalized_backward(_gn_view(grad_out * w, N, C, HxW, group), (x - m) * r, r, (2,))
    axes = _bn_axes(input)
    return gi.reshape(input.shape), (grad_out * xhat).sum(axes), grad_out.sum(axes)


# ---- normalization
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    if input.numel() == 0:   # torch: a copy (not a view, to keep the graph), scaled by the first weight
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        if bias is not None:
            out = out + bias[0]
        return out
    if training:
        size = math.prod(input.shape[:1]) * math.prod(input.shape[2:])
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
        with no_grad():   # the batch's per-instance running stats, averaged back per channel
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
    hw = math.prod(input.shape[2:])
    return native_group_norm(input, weight, bias, n, c, hw, num_groups, eps)[0]


def rms_norm(input, normalized_shape, weight=None, eps=None):
    dims = list(range(input.ndim - len(normalized_shape), input.ndim))
    eps = eps if eps is not None else finfo(input.dtype).eps
    out = input * (input.pow(2).mean(dims, keepdim=True) + eps).rsqrt()
    return out * weight if weight is not None else out


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    if out is not None:
        raise NotImplementedError("normalize(..., out=): ndgrad returns a new tensor; assign it instead")
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom


# ---- weight norm --------------------------------------------------------------------------
def _other_axes(ndim, dim):
    return tuple(i for i in range(ndim) if i != dim)


@op("_weight_norm_interface", public="_weight_norm_interface")
def _weight_norm_interface(v, g, dim=0):
    dim = dim % v.ndim
    norms = np.sqrt((v * v).sum(_other_axes(v.ndim, dim), keepdims=True))
    return v * (g / norms), norms.reshape(g.shape)


@op("_weight_norm_interface_backward", public="_weight_norm_interface_backward")
def _weight_norm_interface_backward(grad_w, saved_v, saved_g, saved_norms, dim):
    dim = dim % saved_v.ndim
    axes = _other_axes(saved_v.ndim, dim)
    shape = tuple(s if i == dim else 1 for i, s in enumerate(saved_v.shape))
    norms, g = saved_norms.reshape(shape), saved_g.reshape(shape)
    dots = (grad_w * saved_v).sum(axes, keepdims=True)
    grad_v = g / norms * (grad_w - saved_v * (dots / (norms * norms)))
    return grad_v, (dots / norms).reshape(saved_g.shape)


@register()
def _weight_norm(v, g, dim=0):
    """w = g * v / ||v|| (norm over every dim but `dim`): one fused op for the first or last dim."""
    v, g = v.contiguous(), g.contiguous()
    if dim == 0 or dim == v.ndim - 1:
        return _weight_norm_interface(v, g, dim)[0]
    return v * (g / norm_except_dim(v, 2, dim))


# ---- api: torch's top-level (aten) forms; cudnn_enabled / cudnn_enable choose a kernel, ignored here
@register("batch_norm")
def _aten_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


@register("instance_norm")
def _aten_instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                        cudnn_enabled):
    return instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


@register("layer_norm")
def _aten_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    return layer_norm(input, normalized_shape, weight, bias, eps)


@register("group_norm")
def _aten_group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    return group_norm(input, num_groups, weight, bias, eps)


register("rms_norm")(rms_norm)
