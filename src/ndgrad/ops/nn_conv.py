"""Convolution, pooling and fold/unfold (im2col / col2im).

Every op works on a batch of planes (N, C, *spatial) with 1-3 spatial dims, through two
primitives: `_im2col` (a strided window view of the padded input, laid out (N, C, *kernel,
*positions)) and its adjoint `_col2im` (a scatter-add of such windows back into an image, one
slice-add per kernel offset). A convolution is a batched matmul of the weight with the im2col
matrix; its input gradient (and a transposed convolution) is a matmul followed by col2im.

As in torch, CPU convolutions of every kind record one `convolution` node whose backward is the
differentiable op `convolution_backward`; pooling backward kernels are ops of their own too, so
create_graph records torch's ...BackwardBackward0 nodes. The user-facing functions with
torch.nn.functional's signatures are at the end (re-exported by ndgrad/nn/functional.py).
"""
import math
import sys
import types

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ._registry import op, register

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "conv_tbc",
           "avg_pool1d", "avg_pool2d", "avg_pool3d", "max_pool1d", "max_pool2d", "max_pool3d",
           "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "fractional_max_pool2d", "fractional_max_pool3d",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices",
           "max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d",
           "unfold", "fold"]

# torch.ops.aten.<op> for the ops torch reaches only there (shared with other op families)
_pkg = sys.modules[__package__]
aten = getattr(_pkg, "aten", None) or types.SimpleNamespace()
_pkg.aten = aten


# ---- argument handling --------------------------------------------------------------------
def _ints(value, n, what, op_name):
    """An int or a sequence of 1 or n ints as a tuple of n ints."""
    if isinstance(value, (int, np.integer)):
        return (int(value),) * n
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise RuntimeError(f"{op_name}: expected {what} to be a single integer value or a list of {n} values to "
                           f"match the {n}d dimensions, but got {what}={list(value)}")
    return value


def _batched(x, d, op_name):
    """(N, C, *spatial) view of an input that may lack the batch dim; and whether it did."""
    if x.ndim == d + 1:
        return x[None], True
    if x.ndim != d + 2:
        raise RuntimeError(f"{op_name}: Expected {d + 1}D (unbatched) or {d + 2}D (batched) input, but got input "
                           f"of size: {list(x.shape)}")
    return x, False


def _unbatch(y, unbatched):
    return y[0] if unbatched else y


def _prod(values):
    return math.prod(int(v) for v in values)


# ---- im2col / col2im primitives ------------------------------------------------------------
def _im2col(x, kernel, stride, dilation, positions=None):
    """Windows of x (N, C, *S), already padded, as a view (N, C, *kernel, *positions)."""
    d = len(kernel)
    span = tuple(dl * (k - 1) + 1 for k, dl in zip(kernel, dilation))
    v = sliding_window_view(x, span, axis=tuple(range(2, 2 + d)))
    v = v[(slice(None), slice(None))
          + tuple(slice(None, None if positions is None else (n - 1) * s + 1, s)
                  for s, n in zip(stride, positions or stride))
          + tuple(slice(None, None, dl) for dl in dilation)]
    return v.transpose((0, 1) + tuple(range(2 + d, 2 + 2 * d)) + tuple(range(2, 2 + d)))


def _col2im(cols, padded, stride, dilation):
    """Adjoint of _im2col. `cols` is laid out channel-major (C, *kernel, N, *positions) (any view);
    the windows are summed into an image (N, C, *padded), returned as a (C, N) transposed view."""
    d = len(padded)
    kernel, n, positions = cols.shape[1:1 + d], cols.shape[1 + d], cols.shape[2 + d:]
    img = np.zeros((cols.shape[0], n) + tuple(padded), cols.dtype)
    lead = (slice(None), slice(None))
    for offs in np.ndindex(*kernel):   # a loop over the (small) kernel, each a strided slice-add
        region = tuple(slice(o * dl, o * dl + s * (m - 1) + 1, s)
                       for o, dl, s, m in zip(offs, dilation, stride, positions))
        img[lead + region] += cols[(slice(None),) + offs]
    return img.swapaxes(0, 1)


def _channel_major(cols):
    """(N, C, *kernel, *positions) windows as the view (C, *kernel, N, *positions) _col2im takes."""
    d = (cols.ndim - 2) // 2
    return cols.transpose((1,) + tuple(range(2, 2 + d)) + (0,) + tuple(range(2 + d, 2 + 2 * d)))


def _pad(x, before, after, value=0):
    if not any(before) and not any(after):
        return x
    return np.pad(x, ((0, 0), (0, 0)) + tuple(zip(before, after)), constant_values=value)


def _crop(img, before, size):
    """The contiguous (N, C, *size) part of a padded image starting at `before`."""
    return np.ascontiguousarray(img[(slice(None), slice(None)) + tuple(slice(b, b + s) for b, s in zip(before, size))])


# ---- convolution ----------------------------------------------------------------------------
# Matrices are channel-major: one GEMM per group over the whole batch (N*P columns), which BLAS
# runs far faster than a stack of per-sample products.
def _unfold(x, kernel, stride, padding, dilation, positions, groups):
    """The im2col matrix (G, C/G*K, N*P) of x (N, C, *S) (a copy)."""
    cols = _channel_major(_im2col(_pad(x, padding, padding), kernel, stride, dilation, positions))
    return cols.reshape(groups, -1, x.shape[0] * _prod(positions))


def _by_channel(x, groups):
    """x (N, C, *S) as the matrix (G, C/G, N*P)."""
    return x.swapaxes(0, 1).reshape(groups, x.shape[1] // groups, -1)


def _gemm(a, b):
    return (a[0] @ b[0])[None] if a.shape[0] == 1 else np.matmul(a, b)


def _conv(x, w, stride, padding, dilation, groups):
    """Cross-correlation of x (N, C, *S) with w (O, C/groups, *k): (N, O, *out)."""
    n, o, kernel = x.shape[0], w.shape[0], w.shape[2:]
    out = _conv_out_sizes(x.shape[2:], kernel, stride, padding, dilation)
    y = _gemm(w.reshape(groups, o // groups, -1), _unfold(x, kernel, stride, padding, dilation, out, groups))
    return np.ascontiguousarray(y.reshape((o, n) + out).swapaxes(0, 1))


def _conv_t(x, w, stride, padding, dilation, groups, size):
    """Transposed convolution of x (N, C, *S) with w (C, O/groups, *k) onto spatial `size`."""
    n, c, kernel = x.shape[0], x.shape[1], w.shape[2:]
    cols = _gemm(w.reshape(groups, c // groups, -1).transpose(0, 2, 1), _by_channel(x, groups))  # (G, O/G*K, N*P)
    cols = cols.reshape((groups * w.shape[1],) + kernel + (n,) + x.shape[2:])
    padded = tuple(sz + 2 * p for sz, p in zip(size, padding))
    return _crop(_col2im(cols, padded, stride, dilation), padding, size)


def _weight_grad(a, b, kernel, stride, padding, dilation, groups):
    """Sum over the batch of a (N, G*X, *P) times the windows of b (N, G*Y, *S) at the P positions:
    the (G*X, Y, *kernel) weight gradient of a convolution (a = grad_output, b = input) or of a
    transposed one (a = input, b = grad_output)."""
    cols = _unfold(b, kernel, stride, padding, dilation, a.shape[2:], groups)       # (G, Y*K, N*P)
    gw = _gemm(_by_channel(a, groups), cols.transpose(0, 2, 1))                    # (G, X, Y*K)
    return gw.reshape((a.shape[1], b.shape[1] // groups) + tuple(kernel))


def _conv_out_sizes(size, kernel, stride, padding, dilation):
    return tuple((s + 2 * p - dl * (k - 1) - 1) // st + 1
                 for s, k, st, p, dl in zip(size, kernel, stride, padding, dilation))


def _conv_t_out_sizes(size, kernel, stride, padding, dilation, output_padding):
    return tuple((s - 1) * st - 2 * p + dl * (k - 1) + op + 1
                 for s, k, st, p, dl, op in zip(size, kernel, stride, padding, dilation, output_padding))


def _type_word(dt):
    return {"float64": "Double", "float32": "Float", "float16": "Half", "int64": "Long", "int32": "Int",
            "complex64": "ComplexFloat", "complex128": "ComplexDouble"}.get(dt.name, dt.name)


def _check_conv(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """torch's argument checks (same messages); returns the normalized int tuples."""
    d = weight.ndim - 2
    if d < 1 or input.ndim != d + 2:
        raise RuntimeError(f"Expected {d + 1}D (unbatched) or {d + 2}D (batched) input to conv{max(d, 1)}d, "
                           f"but got input of size: {list(input.shape)}")
    stride, padding, dilation, output_padding = (
        _ints(v, d, name, "convolution") for v, name in ((stride, "stride"), (padding, "padding"),
                                                         (dilation, "dilation"), (output_padding, "output_padding")))
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(dl <= 0 for dl in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    for other in (weight, bias):
        if other is not None and other.dtype != input.dtype:
            raise RuntimeError(f"expected scalar type {_type_word(input.dtype)} but found {_type_word(other.dtype)}")
    shape = list(weight.shape)
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                           f"but got weight of size [{shape}] instead")
    in_channels = weight.shape[0] if transposed else weight.shape[1] * groups
    if input.shape[1] != in_channels:
        what = f"transposed=1, weight of size {shape}" if transposed else f"groups={groups}, weight of size {shape}"
        raise RuntimeError(f"Given {what}, expected input{list(input.shape)} to have {in_channels} channels, but got "
                           f"{input.shape[1]} channels instead")
    out_channels = weight.shape[1] * groups if transposed else weight.shape[0]
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(f"Given weight of size {shape}, expected bias to be 1-dimensional with {out_channels} "
                           f"elements, but got bias of size {list(bias.shape)} instead")
    if transposed:
        if any(op >= st and op >= dl for op, st, dl in zip(output_padding, stride, dilation)):
            raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got "
                               f"output_padding={list(output_padding)}, stride={list(stride)}, "
                               f"dilation={list(dilation)}")
    else:
        padded = [s + 2 * p for s, p in zip(input.shape[2:], padding)]
        span = [dl * (k - 1) + 1 for k, dl in zip(weight.shape[2:], dilation)]
        if any(s < k for s, k in zip(padded, span)):
            raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                               f"size: ({' x '.join(map(str, span))}). Kernel size can't be greater than actual "
                               "input size")
    return stride, padding, dilation, output_padding


def _convolution_forward(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    stride, padding, dilation, output_padding = _check_conv(input, weight, bias, stride, padding, dilation,
                                                            transposed, output_padding, groups)
    if transposed:
        size = _conv_t_out_sizes(input.shape[2:], weight.shape[2:], stride, padding, dilation, output_padding)
        y = _conv_t(input, weight, stride, padding, dilation, groups, size)
    else:
        y = _conv(input, weight, stride, padding, dilation, groups)
    if bias is not None:
        y += bias.reshape((1, -1) + (1,) * (y.ndim - 2))
    return y


@op("convolution", method=False)
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    return _convolution_forward(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)


def _convolution_grads(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                       output_padding, groups, output_mask):
    d = weight.ndim - 2
    stride, padding, dilation = (_ints(v, d, n, "convolution_backward")
                                 for v, n in ((stride, "stride"), (padding, "padding"), (dilation, "dilation")))
    kernel = weight.shape[2:]
    gi = gw = gb = None
    if output_mask[0]:
        gi = (_conv(grad_output, weight, stride, padding, dilation, groups) if transposed else
              _conv_t(grad_output, weight, stride, padding, dilation, groups, input.shape[2:]))
    if output_mask[1]:
        gw = (_weight_grad(input, grad_output, kernel, stride, padding, dilation, groups) if transposed else
              _weight_grad(grad_output, input, kernel, stride, padding, dilation, groups))
    if output_mask[2]:
        gb = grad_output.sum((0,) + tuple(range(2, grad_output.ndim)))
    # outputs not asked for: zeros without memory (never routed anywhere)
    zero = np.zeros((), grad_output.dtype)
    return (np.broadcast_to(zero, input.shape) if gi is None else gi,
            np.broadcast_to(zero, weight.shape) if gw is None else gw,
            np.broadcast_to(zero, (weight.shape[1] * groups if transposed else weight.shape[0],))
            if gb is None else gb)


_convolution_backward = op("convolution_backward", public="_convolution_backward")(_convolution_grads)
aten.convolution = convolution
aten.convolution_backward = _convolution_backward


@register()
def conv_tbc(input, weight, bias, pad=0):
    return _conv_tbc(input, weight, bias, pad)


@op("conv_tbc", public=False)
def _conv_tbc(input, weight, bias, pad=0):
    """Time-batch-channel 1-d convolution: input (T, B, C), weight (K, C, O), bias (O,)."""
    if input.ndim != 3 or weight.ndim != 3 or bias.ndim != 1:
        raise RuntimeError(f"conv_tbc: expected a 3-D input (time, batch, channels), a 3-D weight (kernel, in, out) "
                           f"and a 1-D bias, got {list(input.shape)}, {list(weight.shape)}, {list(bias.shape)}")
    if input.shape[2] != weight.shape[1] or bias.shape[0] != weight.shape[2]:
        raise RuntimeError(f"conv_tbc: input channels ({input.shape[2]}) must equal the weight's dim 1 "
                           f"({weight.shape[1]}), and the bias size ({bias.shape[0]}) its dim 2 ({weight.shape[2]})")
    y = _convolution_forward(input.transpose(1, 2, 0), weight.transpose(2, 1, 0), bias, (1,), (pad,), (1,),
                             False, (0,), 1)
    return np.ascontiguousarray(y.transpose(2, 0, 1))


# the slow_conv* / thnn_conv2d / mkldnn_convolution ops torch reaches through torch.ops.aten
# (each records its own node; their backward is the generic convolution backward)
@op("_slow_conv2d_forward", public=False)
def _slow_conv2d_forward(self, weight, kernel_size, bias, stride, padding):
    return _convolution_forward(self, weight, bias, stride, padding, 1, False, 0, 1)


@op("_slow_conv2d_backward.output_mask", public="_slow_conv2d_backward")
def _slow_conv2d_backward(grad_output, self, weight, kernel_size, stride, padding, output_mask):
    return _convolution_grads(grad_output, self, weight, None, stride, padding, 1, False, 0, 1, output_mask)


@op("slow_conv3d_forward", public=False)
def _slow_conv3d_forward(self, weight, kernel_size, bias, stride, padding):
    return _convolution_forward(self, weight, bias, stride, padding, 1, False, 0, 1)


@op("slow_conv_dilated2d", public=False)
def _slow_conv_dilated2d(self, weight, kernel_size, bias=None, stride=1, padding=0, dilation=1):
    return _convolution_forward(self, weight, bias, stride, padding, dilation, False, 0, 1)


@op("slow_conv_dilated3d", public=False)
def _slow_conv_dilated3d(self, weight, kernel_size, bias=None, stride=1, padding=0, dilation=1):
    return _convolution_forward(self, weight, bias, stride, padding, dilation, False, 0, 1)


@op("slow_conv_transpose2d", public=False)
def _slow_conv_transpose2d(self, weight, kernel_size, bias=None, stride=1, padding=0, output_padding=0, dilation=1):
    return _convolution_forward(self, weight, bias, stride, padding, dilation, True, output_padding, 1)


@op("slow_conv_transpose3d", public=False)
def _slow_conv_transpose3d(self, weight, kernel_size, bias=None, stride=1, padding=0, output_padding=0, dilation=1):
    return _convolution_forward(self, weight, bias, stride, padding, dilation, True, output_padding, 1)


@op("mkldnn_convolution", public="mkldnn_convolution")
def mkldnn_convolution(self, weight, bias, padding, stride, dilation, groups):
    if self.dtype != np.float32:
        raise RuntimeError(f"mkldnn_convolution: expects float tensor inputs (oneDNN), got {_type_word(self.dtype)}")
    return _convolution_forward(self, weight, bias, stride, padding, dilation, False, 0, groups)


def thnn_conv2d(self, weight, kernel_size, bias=None, stride=1, padding=0):
    return _slow_conv2d_forward(self, weight, kernel_size, bias, stride, padding)


def slow_conv3d(self, weight, kernel_size, bias=None, stride=1, padding=0):
    return _slow_conv3d_forward(self, weight, kernel_size, bias, stride, padding)


aten.thnn_conv2d, aten.slow_conv3d = thnn_conv2d, slow_conv3d
aten._slow_conv2d_forward, aten._slow_conv2d_backward = _slow_conv2d_forward, _slow_conv2d_backward
aten.slow_conv3d_forward, aten.mkldnn_convolution = _slow_conv3d_forward, mkldnn_convolution
aten.slow_conv_dilated2d, aten.slow_conv_dilated3d = _slow_conv_dilated2d, _slow_conv_dilated3d
aten.slow_conv_transpose2d, aten.slow_conv_transpose3d = _slow_conv_transpose2d, _slow_conv_transpose3d
aten.conv_tbc = conv_tbc


# ---- pooling geometry -----------------------------------------------------------------------
def _pool_args(name, d, kernel_size, stride, padding, dilation=1):
    def ints(v, what):
        if isinstance(v, (int, np.integer)):
            return (int(v),) * d
        v = tuple(int(e) for e in v)
        if len(v) not in (1, d):
            raise RuntimeError(f"{name}: {what} must either be a single int, or a tuple of {d} ints")
        return v * d if len(v) == 1 else v
    kernel = ints(kernel_size, "kernel_size")
    stride = kernel if stride is None or (not isinstance(stride, (int, np.integer)) and len(stride) == 0) \
        else ints(stride, "stride")
    padding, dilation = ints(padding, "padding"), ints(dilation, "dilation")
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"{name}: kernel_size must be greater than zero, but got {list(kernel)}")
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"{name}: stride must be greater than zero, but got {list(stride)}")
    if any(dl <= 0 for dl in dilation):
        raise RuntimeError(f"{name}: dilation must be greater than zero, but got {list(dilation)}")
    if any(p < 0 or p > k // 2 for p, k in zip(padding, kernel)):
        raise RuntimeError(f"{name}: pad should be at most half of effective kernel size, but got "
                           f"pad={list(padding)}, kernel_size={list(kernel)}")
    return kernel, stride, padding, dilation


def _pool_out_sizes(name, size, kernel, stride, padding, dilation, ceil_mode):
    out = []
    for s, k, st, p, dl in zip(size, kernel, stride, padding, dilation):
        span = s + 2 * p - dl * (k - 1) - 1
        o = (-(-span // st) if ceil_mode else span // st) + 1
        if ceil_mode and (o - 1) * st >= s + p:   # the last window must start inside the input or left padding
            o -= 1
        if o < 1:
            raise RuntimeError(f"{name}: Given input size: {list(size)}. Calculated output size: "
                               f"{[o]}. Output size is too small")
        out.append(o)
    return tuple(out)


def _pool_pads(size, out, kernel, stride, padding, dilation):
    """Right-side padding so that every window (ceil_mode ones too) lies inside the padded input."""
    return tuple(max(p, (o - 1) * st + dl * (k - 1) + 1 - s - p)
                 for s, o, k, st, p, dl in zip(size, out, kernel, stride, padding, dilation))


# ---- average pooling ------------------------------------------------------------------------
def _avg_divisor(size, out, kernel, stride, padding, count_include_pad, divisor_override, dtype):
    if divisor_override is not None:
        if divisor_override == 0:
            raise RuntimeError("divisor must be not zero")
        return np.asarray(divisor_override, dtype)
    div = np.ones((), dtype)
    for k, (s, o, ker, st, p) in enumerate(zip(size, out, kernel, stride, padding)):
        start = np.arange(o) * st - p
        if count_include_pad:
            n = np.minimum(start + ker, s + p) - start
        else:
            n = np.minimum(start + ker, s) - np.maximum(start, 0)
        div = div[..., None] * n.astype(dtype)
    return div


def _avg_pool(name, d, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    x, unbatched = _batched(self, d, name)
    kernel, stride, padding, _ = _pool_args(name, d, kernel_size, stride, padding)
    size = x.shape[2:]
    out = _pool_out_sizes(name, size, kernel, stride, padding, (1,) * d, ceil_mode)
    xp = _pad(x, padding, _pool_pads(size, out, kernel, stride, padding, (1,) * d))
    sums = _im2col(xp, kernel, stride, (1,) * d, out).sum(tuple(range(2, 2 + d)))
    div = _avg_divisor(size, out, kernel, stride, padding, count_include_pad, divisor_override, x.dtype)
    return _unbatch((sums / div).astype(x.dtype, copy=False), unbatched)


def _avg_pool_backward(name, d, grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                       divisor_override):
    x, unbatched = _batched(self, d, name)
    g, _ = _batched(grad_output, d, name)
    kernel, stride, padding, _ = _pool_args(name, d, kernel_size, stride, padding)
    size = x.shape[2:]
    out = _pool_out_sizes(name, size, kernel, stride, padding, (1,) * d, ceil_mode)
    div = _avg_divisor(size, out, kernel, stride, padding, count_include_pad, divisor_override, g.dtype)
    cols = _channel_major(np.broadcast_to((g / div).astype(g.dtype, copy=False)[(slice(None),) * 2 + (None,) * d
                                                                                 + (Ellipsis,)],
                                          g.shape[:2] + kernel + out))
    padded = tuple(s + p + r for s, p, r in zip(size, padding, _pool_pads(size, out, kernel, stride, padding,
                                                                         (1,) * d)))
    return _unbatch(_crop(_col2im(cols, padded, stride, (1,) * d), padding, size), unbatched)


def _check_float(name, x):
    if x.dtype.kind not in "fc":
        raise NotImplementedError(f'"{name}" not implemented for \'{_type_word(x.dtype)}\'; use a floating-point input')


@op("avg_pool2d", public="_avg_pool2d")
def _avg_pool2d(self, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
                divisor_override=None):
    return _avg_pool("avg_pool2d", 2, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


@op("avg_pool2d_backward", public="_avg_pool2d_backward")
def _avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                         divisor_override):
    return _avg_pool_backward("avg_pool2d", 2, grad_output, self, kernel_size, stride, padding, ceil_mode,
                              count_include_pad, divisor_override)


@op("avg_pool3d", public="_avg_pool3d")
def _avg_pool3d(self, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
                divisor_override=None):
    return _avg_pool("avg_pool3d", 3, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


@op("avg_pool3d_backward", public="_avg_pool3d_backward")
def _avg_pool3d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                         divisor_override):
    return _avg_pool_backward("avg_pool3d", 3, grad_output, self, kernel_size, stride, padding, ceil_mode,
                              count_include_pad, divisor_override)


# ---- max pooling (max_pool, adaptive_max_pool, fractional_max_pool) --------------------------
def _argmax_windows(win, pos, axis):
    """Max over `axis` of the windows and the flat input index (from `pos`, broadcastable to win)
    where it lies: torch's scan, where a later element wins if greater or NaN — the first of equal
    maxima, the last NaN. (argmax / take_along_axis over a short non-last axis are ~10x slower than
    these whole-array passes over a small kernel.)"""
    vals = win.max(axis)
    pos = np.broadcast_to(pos, win.shape)
    at = (slice(None),) * axis
    if win.shape[axis] <= 16:   # a small kernel: one pass per kernel offset, no branches
        idx = np.zeros(vals.shape, np.int64)
        todo = np.ones(vals.shape, bool)
        for j in range(win.shape[axis]):
            hit = win[at + (j,)] == vals
            hit &= todo
            todo ^= hit
            idx += hit * pos[at + (j,)]
    else:
        arg = np.expand_dims((win == np.expand_dims(vals, axis)).argmax(axis), axis)
        idx = np.take_along_axis(pos, arg, axis).squeeze(axis).astype(np.int64, copy=False)
    if vals.dtype.kind in "fc" and np.isnan(vals).any():   # rare: the last NaN of each window
        nan = np.flip(np.isnan(win), axis)
        last = np.expand_dims(win.shape[axis] - 1 - nan.argmax(axis), axis)
        idx = np.where(np.isnan(vals), np.take_along_axis(pos, last, axis).squeeze(axis), idx)
    return vals, idx


def _lowest(dtype):
    return -np.inf if dtype.kind in "fc" else np.iinfo(dtype).min


def _flat_index(coords, size):
    """Flat index into spatial `size` of per-dim coordinate arrays (broadcast together)."""
    idx = 0
    for c, s in zip(coords, size):
        idx = idx * s + c
    return idx


def _max_pool(name, d, self, kernel_size, stride, padding, dilation, ceil_mode):
    x, unbatched = _batched(self, d, name)
    if x.size == 0 and x.shape[1] != 0:
        raise RuntimeError(f"{name}: Expected input's non-batch dimensions to have positive length, but input has "
                           f"a shape of {list(self.shape)}")
    kernel, stride, padding, dilation = _pool_args(name, d, kernel_size, stride, padding, dilation)
    size = x.shape[2:]
    out = _pool_out_sizes(name, size, kernel, stride, padding, dilation, ceil_mode)
    xp = _pad(x, padding, _pool_pads(size, out, kernel, stride, padding, dilation), _lowest(x.dtype))
    win = _im2col(xp, kernel, stride, dilation, out).reshape(x.shape[:2] + (_prod(kernel), _prod(out)))
    # input coordinate of kernel offset j at output position q, per dim: q*stride - pad + j*dilation
    coords = [(np.arange(k)[:, None] * dl + np.arange(o)[None, :] * st - p)
              for k, o, st, p, dl in zip(kernel, out, stride, padding, dilation)]
    grids = np.ix_(*[c.reshape(-1) for c in coords])   # (k1*o1, k2*o2, ...) grids
    pos = _flat_index(grids, size).reshape(sum(((k, o) for k, o in zip(kernel, out)), ()))
    pos = pos.transpose(tuple(range(0, 2 * d, 2)) + tuple(range(1, 2 * d, 2))).reshape(_prod(kernel), _prod(out))
    vals, idx = _argmax_windows(win, pos, 2)
    shape = x.shape[:2] + out
    return _unbatch(vals.reshape(shape), unbatched), _unbatch(idx.reshape(shape), unbatched)


def _max_pool_backward(grad_output, self, indices, d, disjoint=False):
    """Scatter-add grad_output into the input's shape at the argmax indices (per plane). Windows
    that cannot overlap (`disjoint`) have distinct indices: a plain scatter, in grad_output's dtype
    (bincount adds in float64, about 2.5x slower)."""
    planes = _prod(self.shape[:-d])
    plane_size = _prod(self.shape[-d:])
    flat = (indices.reshape(planes, -1) + (np.arange(planes) * plane_size)[:, None]).reshape(-1)
    if disjoint and grad_output.dtype.kind == "f":
        g = np.zeros(planes * plane_size, grad_output.dtype)
        g[flat] = grad_output.reshape(-1)
        return g.reshape(self.shape)
    g = np.bincount(flat, weights=grad_output.reshape(-1), minlength=planes * plane_size)
    return g.reshape(self.shape).astype(grad_output.dtype, copy=False)


def _disjoint_windows(d, kernel_size, stride, dilation):
    """Whether max-pool windows never share an input element (each one's span fits in a stride)."""
    kernel, stride, _, dilation = _pool_args("max_pool", d, kernel_size, stride, 0, dilation)
    return all(st >= dl * (k - 1) + 1 for k, st, dl in zip(kernel, stride, dilation))


@op("max_pool2d_with_indices", public="_max_pool2d_with_indices")
def _max_pool2d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _max_pool("max_pool2d", 2, self, kernel_size, stride, padding, dilation, ceil_mode)


@op("max_pool2d_with_indices_backward", public="_max_pool2d_with_indices_backward")
def _max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices):
    return _max_pool_backward(grad_output, self, indices, 2, _disjoint_windows(2, kernel_size, stride, dilation))


@op("max_pool3d_with_indices", public="_max_pool3d_with_indices")
def _max_pool3d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _max_pool("max_pool3d", 3, self, kernel_size, stride, padding, dilation, ceil_mode)


@op("max_pool3d_with_indices_backward", public="_max_pool3d_with_indices_backward")
def _max_pool3d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices):
    return _max_pool_backward(grad_output, self, indices, 3, _disjoint_windows(3, kernel_size, stride, dilation))


def _gather_max(x, windows):
    """Max pooling over explicit windows: windows[k] holds input coordinates along spatial dim k,
    shaped (N or 1, C or 1, out_k, kernel_k). Returns (values, indices) of shape (N, C, *out)."""
    n, c, size, d = x.shape[0], x.shape[1], x.shape[2:], len(windows)
    index = [np.arange(n).reshape((n,) + (1,) * (2 * d + 1)), np.arange(c).reshape((1, c) + (1,) * (2 * d))]
    for k, w in enumerate(windows):
        shape = [w.shape[0], w.shape[1]] + [1] * (2 * d)
        shape[2 + k], shape[2 + d + k] = w.shape[2], w.shape[3]
        index.append(w.reshape(shape))
    win = x[tuple(index)]                                             # (N, C, *out, *kernel)
    out = win.shape[2:2 + d]
    pos = _flat_index(index[2:], size)
    pos = pos.reshape(pos.shape[:2] + (_prod(out), -1))
    vals, idx = _argmax_windows(win.reshape((n, c, _prod(out), -1)), pos, 3)
    return vals.reshape((n, c) + out), idx.reshape((n, c) + out)


def _adaptive_windows(size, out):
    """Per output index i the input range [floor(i*size/out), ceil((i+1)*size/out)), padded to one
    width by repeating its last element (which changes neither a max nor its first index)."""
    i = np.arange(out)
    start, end = (i * size) // out, -((-(i + 1) * size) // out)
    width = int((end - start).max())
    return np.minimum(start[:, None] + np.arange(width), end[:, None] - 1)


def _output_size(name, d, output_size, size):
    sizes = (output_size,) * d if isinstance(output_size, (int, np.integer)) else tuple(output_size)
    if len(sizes) != d:
        raise RuntimeError(f"{name}: internal error: output_size.size() must be {d}")
    return tuple(int(s) if s is not None else int(n) for s, n in zip(sizes, size))


def _check_adaptive_input(name, x, d):
    if x.ndim not in (d + 1, d + 2) or any(s == 0 for s in x.shape[-d:]) or x.ndim == d + 2 and x.shape[1] == 0:
        raise RuntimeError(f"{name}(): Expected {d + 1}D or {d + 2}D tensor with non-zero sizes for non-batch "
                           f"dimensions, but got {list(x.shape)}")


def _adaptive_max(name, d, self, output_size):
    _check_adaptive_input(name, self, d)
    x, unbatched = _batched(self, d, name)
    out = _output_size(name, d, output_size, x.shape[2:])
    if any(o < 0 for o in out):
        raise RuntimeError(f"{name}(): elements of output_size must be greater than or equal to 0 but received "
                           f"{list(out)}")
    windows = [_adaptive_windows(s, o)[None, None] for s, o in zip(x.shape[2:], out)]
    vals, idx = _gather_max(x, windows)
    return _unbatch(vals, unbatched), _unbatch(idx, unbatched)


@op("adaptive_max_pool2d", public="_adaptive_max_pool2d")
def _adaptive_max_pool2d(self, output_size):
    return _adaptive_max("adaptive_max_pool2d", 2, self, output_size)


@op("adaptive_max_pool2d_backward", public="_adaptive_max_pool2d_backward")
def _adaptive_max_pool2d_backward(grad_output, self, indices):
    return _max_pool_backward(grad_output, self, indices, 2)


@op("adaptive_max_pool3d", public="_adaptive_max_pool3d")
def _adaptive_max_pool3d(self, output_size):
    return _adaptive_max("adaptive_max_pool3d", 3, self, output_size)


@op("adaptive_max_pool3d_backward", public="_adaptive_max_pool3d_backward")
def _adaptive_max_pool3d_backward(grad_output, self, indices):
    return _max_pool_backward(grad_output, self, indices, 3)


def _fractional_starts(samples, size, out, pool):
    """torch's pseudo-random window starts: samples (N, C) in [0, 1) -> (N, C, out)."""
    if out == 1:
        return np.full(samples.shape + (1,), size - pool, np.int64)
    alpha = samples.dtype.type(size - pool) / samples.dtype.type(out - 1)
    i = np.arange(out - 1, dtype=samples.dtype)
    starts = ((i + samples[..., None]) * alpha).astype(np.int64) - (samples * alpha).astype(np.int64)[..., None]
    return np.concatenate([starts, np.full(samples.shape + (1,), size - pool, np.int64)], -1)


def _fractional_max(name, d, self, kernel_size, output_size, random_samples):
    x, unbatched = _batched(self, d, name)
    kernel = _ints(kernel_size, d, "kernel_size", name)
    out = _ints(output_size, d, "output_size", name)
    size = x.shape[2:]
    for s, o, k, what in zip(size, out, kernel, ("time", "height", "width")[3 - d:]):
        if o + k - 1 >= s:
            raise RuntimeError(f"{name}_out(): pool {what} {k} too large relative to input {what} {s}")
    if random_samples.shape != (x.shape[0], x.shape[1], d):
        raise RuntimeError(f"{name}(): expected random_samples of shape {[x.shape[0], x.shape[1], d]}, got "
                           f"{list(random_samples.shape)}")
    # torch draws the last spatial dim's starts from sample 0 in 2-d, the dims in order in 3-d
    order = (1, 0) if d == 2 else (0, 1, 2)
    windows = [_fractional_starts(random_samples[..., j], s, o, k)[..., None] + np.arange(k)
               for j, s, o, k in zip(order, size, out, kernel)]
    vals, idx = _gather_max(x, windows)
    return _unbatch(vals, unbatched), _unbatch(idx, unbatched)


@op("fractional_max_pool2d", public="_fractional_max_pool2d")
def _fractional_max_pool2d(self, kernel_size, output_size, random_samples):
    return _fractional_max("fractional_max_pool2d", 2, self, kernel_size, output_size, random_samples)


@op("fractional_max_pool2d_backward", public="_fractional_max_pool2d_backward")
def _fractional_max_pool2d_backward(grad_output, self, kernel_size, output_size, indices):
    return _max_pool_backward(grad_output, self, indices, 2)


@op("fractional_max_pool3d", public="_fractional_max_pool3d")
def _fractional_max_pool3d(self, kernel_size, output_size, random_samples):
    return _fractional_max("fractional_max_pool3d", 3, self, kernel_size, output_size, random_samples)


@op("fractional_max_pool3d_backward", public="_fractional_max_pool3d_backward")
def _fractional_max_pool3d_backward(grad_output, self, kernel_size, output_size, indices):
    return _max_pool_backward(grad_output, self, indices, 3)


def _max_unpool(name, d, self, indices, output_size):
    if indices.dtype != np.int64:
        raise RuntimeError(f"{name}(): Expected indices to have dtype int64, got {indices.dtype}")
    if self.shape != indices.shape:
        raise RuntimeError(f"{name}(): Expected shape of indices to be same as that of the input tensor "
                           f"({list(self.shape)}) but got indices tensor with shape: {list(indices.shape)}")
    x, unbatched = _batched(self, d, name)
    out = _ints(output_size, d, "output_size", name)
    planes, plane_size = x.shape[0] * x.shape[1], _prod(out)
    flat = indices.reshape(planes, -1)
    bad = (flat < 0) | (flat >= plane_size)
    if bad.any():
        raise RuntimeError(f"Found an invalid max index: {flat[bad][0]} (output volumes are of size "
                           f"{'x'.join(map(str, out))}")
    y = np.zeros((planes, plane_size), x.dtype)
    y[np.arange(planes)[:, None], flat] = x.reshape(planes, -1)
    return _unbatch(y.reshape(x.shape[:2] + out), unbatched)


@op("max_unpool2d", public="_max_unpool2d")
def _max_unpool2d(self, indices, output_size):
    return _max_unpool("max_unpooling2d_forward", 2, self, indices, output_size)


@op("max_unpool3d", public="_max_unpool3d")
def _max_unpool3d(self, indices, output_size, stride, padding):
    return _max_unpool("max_unpooling3d_forward", 3, self, indices, output_size)


# ---- adaptive average pooling ---------------------------------------------------------------
def _adaptive_avg_matrix(size, out, dtype):
    """(out, size) averaging matrix of the adaptive windows (see _adaptive_windows)."""
    i = np.arange(out)[:, None]
    start, end = (i * size) // out, -((-(i + 1) * size) // out)
    j = np.arange(size)[None, :]
    return np.where((j >= start) & (j < end), 1 / (end - start), 0).astype(dtype)


def _apply_per_dim(x, mats, transpose):
    """Contract the trailing spatial dims of x with one matrix each (separable pooling)."""
    lead = x.ndim - len(mats)
    for m in mats:   # each contraction moves its new axis to the end: order is kept
        x = np.tensordot(x, m, ([lead], [0 if transpose else 1]))
    return x


def _adaptive_avg(name, d, self, output_size):
    _check_adaptive_input(name, self, d)
    _check_float(name, self)
    out = _output_size(name, d, output_size, self.shape[-d:])
    mats = [_adaptive_avg_matrix(s, o, self.dtype) for s, o in zip(self.shape[-d:], out)]
    return np.ascontiguousarray(_apply_per_dim(self, mats, False))


def _adaptive_avg_backward(grad_output, self, d):
    mats = [_adaptive_avg_matrix(s, o, grad_output.dtype) for s, o in zip(self.shape[-d:], grad_output.shape[-d:])]
    return np.ascontiguousarray(_apply_per_dim(grad_output, mats, True))


@op("_adaptive_avg_pool2d")
def _adaptive_avg_pool2d(self, output_size):
    return _adaptive_avg("adaptive_avg_pool2d", 2, self, output_size)


@op("_adaptive_avg_pool2d_backward")
def _adaptive_avg_pool2d_backward(grad_output, self):
    return _adaptive_avg_backward(grad_output, self, 2)


@op("_adaptive_avg_pool3d")
def _adaptive_avg_pool3d(self, output_size):
    return _adaptive_avg("adaptive_avg_pool3d", 3, self, output_size)


@op("_adaptive_avg_pool3d_backward")
def _adaptive_avg_pool3d_backward(grad_output, self):
    return _adaptive_avg_backward(grad_output, self, 3)


# ---- im2col / col2im (nn.functional.unfold / fold) --------------------------------------------
def _fold_args(name, kernel_size, dilation, padding, stride):
    args = tuple(_ints(v, 2, what, name) for v, what in ((kernel_size, "kernel_size"), (dilation, "dilation"),
                                                          (padding, "padding"), (stride, "stride")))
    for v, what, least in zip(args, ("kernel_size", "dilation", "padding", "stride"), (1, 1, 0, 1)):
        if any(e < least for e in v):
            raise RuntimeError(f"{name}: {what} should be {'greater than zero' if least else 'non-negative'}, "
                               f"but got {what}: {list(v)}")
    return args


@op("im2col", public="_im2col")
def _im2col_op(self, kernel_size, dilation, padding, stride):
    if self.ndim not in (3, 4) or any(s == 0 for s in self.shape[-3:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(self.shape)}")
    kernel, dilation, padding, stride = _fold_args("im2col", kernel_size, dilation, padding, stride)
    x, unbatched = _batched(self, 2, "im2col")
    out = _conv_out_sizes(x.shape[2:], kernel, stride, padding, dilation)
    if any(o < 1 for o in out):
        raise RuntimeError(f"Given input with spatial size {list(x.shape[2:])}, kernel_size={list(kernel)}, "
                           f"dilation={list(dilation)}, padding={list(padding)}, calculated shape of the array of "
                           f"sliding blocks as {list(out)}, but its components must be at least one.")
    cols = _im2col(_pad(x, padding, padding), kernel, stride, dilation, out)
    return _unbatch(cols.reshape(x.shape[0], x.shape[1] * _prod(kernel), _prod(out)), unbatched)


@op("col2im", public="_col2im")
def _col2im_op(self, output_size, kernel_size, dilation, padding, stride):
    size = _ints(output_size, 2, "output_size", "col2im")
    kernel, dilation, padding, stride = _fold_args("col2im", kernel_size, dilation, padding, stride)
    if self.ndim not in (2, 3) or any(s == 0 for s in self.shape[-2:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                           f"non-zero dimensions for input, but got: {list(self.shape)}")
    x = self[None] if self.ndim == 2 else self
    k = _prod(kernel)
    if x.shape[1] % k:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={x.shape[1]} and kernel_size={list(kernel)}")
    blocks = _conv_out_sizes(size, kernel, stride, padding, dilation)
    if _prod(blocks) != x.shape[2] or any(b < 1 for b in blocks):
        raise RuntimeError(f"Given output_size={list(size)}, kernel_size={list(kernel)}, dilation={list(dilation)}, "
                           f"padding={list(padding)}, stride={list(stride)}, expected size of input's dimension 2 to "
                           f"match the calculated number of sliding blocks {' * '.join(map(str, blocks))} = "
                           f"{_prod(blocks)}, but got input.size(2)={x.shape[2]}.")
    cols = _channel_major(x.reshape((x.shape[0], x.shape[1] // k) + kernel + blocks))
    img = _crop(_col2im(cols, tuple(s + 2 * p for s, p in zip(size, padding)), stride, dilation), padding, size)
    return img[0] if self.ndim == 2 else img


# ---- nn.functional ------------------------------------------------------------------------
def _nd():
    import ndgrad
    return ndgrad


def _conv_nd(d, input, weight, bias, stride, padding, dilation, groups):
    name = f"conv{d}d"
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(f"Expected {d + 1}D (unbatched) or {d + 2}D (batched) input to {name}, but got input of "
                           f"size: {list(input.shape)}")
    unbatched = input.ndim == d + 1
    if unbatched:
        input = input.unsqueeze(0)
    if isinstance(padding, str):
        input, padding = _string_padding(input, weight, padding, stride, dilation, d)
    out = convolution(input, weight, bias, stride, padding, dilation, False, 0, groups)
    return out.squeeze(0) if unbatched else out


def _string_padding(input, weight, padding, stride, dilation, d):
    """padding='valid' / 'same' as ints; 'same' with an odd total pads the input's end explicitly (as torch)."""
    if padding == "valid":
        return input, 0
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    if any(s != 1 for s in _ints(stride, d, "stride", f"conv{d}d")):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    dilation = _ints(dilation, d, "dilation", f"conv{d}d")
    total = [dl * (k - 1) for dl, k in zip(dilation, weight.shape[2:])]
    left = [t // 2 for t in total]
    extra = [t - 2 * lt for t, lt in zip(total, left)]
    if any(extra):
        pad = []
        for e in reversed(extra):   # constant_pad_nd lists the last dim first
            pad += [0, e]
        pad_fn = getattr(_nd(), "constant_pad_nd", None)
        if pad_fn is None:
            raise NotImplementedError(f"conv{d}d: padding='same' with an even kernel needs ndgrad.constant_pad_nd, "
                                      "which is not implemented yet; pad explicitly instead")
        input = pad_fn(input, pad, 0.0)
    return input, left


def _conv_transpose_nd(d, input, weight, bias, stride, padding, output_padding, groups, dilation):
    name = f"conv_transpose{d}d"
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(f"Expected {d + 1}D (unbatched) or {d + 2}D (batched) input to {name}, but got input of "
                           f"size: {list(input.shape)}")
    if isinstance(padding, str):
        raise RuntimeError(f"{name}: padding must be an int or a tuple of ints (string padding is not supported)")
    unbatched = input.ndim == d + 1
    if unbatched:
        input = input.unsqueeze(0)
    out = convolution(input, weight, bias, stride, padding, dilation, True, output_padding, groups)
    return out.squeeze(0) if unbatched else out


@register()
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv_nd(1, input, weight, bias, stride, padding, dilation, groups)


@register()
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv_nd(2, input, weight, bias, stride, padding, dilation, groups)


@register()
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv_nd(3, input, weight, bias, stride, padding, dilation, groups)


@register()
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose_nd(1, input, weight, bias, stride, padding, output_padding, groups, dilation)


@register()
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose_nd(2, input, weight, bias, stride, padding, output_padding, groups, dilation)


@register()
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose_nd(3, input, weight, bias, stride, padding, output_padding, groups, dilation)


def _via_2d(input, fn):
    """A 1-d pooling as torch runs it: a 2-d one on input.unsqueeze(-2), squeezed back."""
    out = fn(input.unsqueeze(-2))
    if isinstance(out, tuple):
        return tuple(o.squeeze(-2) for o in out)
    return out.squeeze(-2)


def _one(v):
    """A 1-d pooling argument (int or 1-sequence) as the 2-d pair torch passes on."""
    if v is None:
        return None
    v = _ints(v, 1, "argument", "pool1d")[0]
    return (1, v)


@register()
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    if input.ndim not in (2, 3):
        raise RuntimeError(f"avg_pool1d: Expected 2D or 3D input, but got {list(input.shape)}")
    k = _one(kernel_size)
    s = k if stride is None or not isinstance(stride, int) and len(stride) == 0 else _one(stride)
    return _via_2d(input, lambda x: _avg_pool2d(x, k, s, (0, _one(padding)[1]), ceil_mode, count_include_pad))


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool2d(input, kernel_size, () if stride is None else stride, padding, ceil_mode, count_include_pad,
                       divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool3d(input, kernel_size, () if stride is None else stride, padding, ceil_mode, count_include_pad,
                       divisor_override)


@register()
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    if input.ndim not in (2, 3):
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D input, but got {list(input.shape)}")
    k = _one(kernel_size)
    s = k if stride is None or not isinstance(stride, int) and len(stride) == 0 else _one(stride)
    return _via_2d(input, lambda x: _max_pool2d_with_indices(x, k, s, (0, _one(padding)[1]),
                                                             (1, _one(dilation)[1]), ceil_mode))


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _max_pool2d_with_indices(input, kernel_size, () if stride is None else stride, padding, dilation,
                                    ceil_mode)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _max_pool3d_with_indices(input, kernel_size, () if stride is None else stride, padding, dilation,
                                    ceil_mode)


def _values_or_both(fn):
    def pool(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
        out = fn(input, kernel_size, stride, padding, dilation, ceil_mode)
        return out if return_indices else out[0]
    pool.__name__ = fn.__name__.replace("_with_indices", "")
    return pool


max_pool1d = register("max_pool1d")(_values_or_both(max_pool1d_with_indices))
max_pool2d = register("max_pool2d")(_values_or_both(max_pool2d_with_indices))
max_pool3d = register("max_pool3d")(_values_or_both(max_pool3d_with_indices))


def _adaptive_avg_public(d, kernel):
    def pool(input, output_size):
        name = f"adaptive_avg_pool{d}d"
        _check_adaptive_input(name, input, d)
        out = _output_size(name, d, output_size, input.shape[-d:])
        if all(o == 1 for o in out):   # torch takes the mean for a 1x1 output
            return input.mean(tuple(range(-d, 0)), keepdim=True)
        return kernel(input, out)
    return pool


adaptive_avg_pool2d = _adaptive_avg_public(2, _adaptive_avg_pool2d)
adaptive_avg_pool3d = _adaptive_avg_public(3, _adaptive_avg_pool3d)


@register()
def adaptive_avg_pool1d(input, output_size):
    if input.ndim not in (2, 3):
        raise RuntimeError(f"adaptive_avg_pool1d(): Expected 2D or 3D tensor, but got {list(input.shape)}")
    return _via_2d(input, lambda x: adaptive_avg_pool2d(x, _one(output_size)))


def adaptive_max_pool1d(input, output_size, return_indices=False):
    if input.ndim not in (2, 3):
        raise RuntimeError(f"adaptive_max_pool1d(): Expected 2D or 3D tensor, but got {list(input.shape)}")
    out = _via_2d(input, lambda x: _adaptive_max_pool2d(x, _one(output_size)))
    return out if return_indices else out[0]


@register("adaptive_max_pool1d")   # torch.adaptive_max_pool1d returns (values, indices)
def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max_pool2d(input, _output_size("adaptive_max_pool2d", 2, output_size, input.shape[-2:]))


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max_pool3d(input, _output_size("adaptive_max_pool3d", 3, output_size, input.shape[-3:]))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out = adaptive_max_pool2d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool3d(input, output_size, return_indices=False):
    out = adaptive_max_pool3d_with_indices(input, output_size)
    return out if return_indices else out[0]


def _fractional_public(d, kernel):
    def pool(input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        name = f"fractional_max_pool{d}d"
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
        if output_size is None:
            ratio = _ratios(output_ratio, d)
            output_size = [int(s * r) for s, r in zip(input.shape[-d:], ratio)]
        if _random_samples is None:
            n = 1 if input.ndim == d + 1 else input.shape[0]
            _random_samples = _nd().rand(n, input.shape[-d - 1], d, dtype=input.dtype)
        return kernel(input, kernel_size, output_size, _random_samples)
    return pool


def _ratios(ratio, d):
    return (ratio,) * d if isinstance(ratio, (int, float)) else tuple(ratio)


fractional_max_pool2d_with_indices = _fractional_public(2, _fractional_max_pool2d)
fractional_max_pool3d_with_indices = _fractional_public(3, _fractional_max_pool3d)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio, True, _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio, True, _random_samples)
    return out if return_indices else out[0]


def _unpool_size(input, d, kernel_size, stride, padding, output_size):
    kernel = _ints(kernel_size, d, "kernel_size", f"max_unpool{d}d")
    stride = kernel if stride is None else _ints(stride, d, "stride", f"max_unpool{d}d")
    padding = _ints(padding, d, "padding", f"max_unpool{d}d")
    default = tuple((s - 1) * st + k - 2 * p for s, st, k, p in zip(input.shape[-d:], stride, kernel, padding))
    if output_size is None:
        return default, stride, padding
    output_size = tuple(output_size)[-d:]
    for o, dflt, st in zip(output_size, default, stride):
        if not dflt - st < o < dflt + st:
            raise ValueError(f"invalid output_size {list(output_size)} (dim must be between {dflt - st} and "
                             f"{dflt + st})")
    return output_size, stride, padding


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    size, _, _ = _unpool_size(input, 1, kernel_size, stride, padding, output_size)
    return _max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), size + (1,)).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    size, _, _ = _unpool_size(input, 2, kernel_size, stride, padding, output_size)
    return _max_unpool2d(input, indices, size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    size, stride, padding = _unpool_size(input, 3, kernel_size, stride, padding, output_size)
    return _max_unpool3d(input, indices, size, stride, padding)


def _lp_pool(d, input, norm_type, kernel_size, stride, ceil_mode):
    kernel = _ints(kernel_size, d, "kernel_size", f"lp_pool{d}d")
    pool = (avg_pool1d, avg_pool2d, avg_pool3d)[d - 1]
    out = pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    nd = _nd()
    return (out.sign() * nd.relu(out.abs())).mul(_prod(kernel)).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    if input.ndim not in (3, 4):
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.ndim}D)")
    return _im2col_op(input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    if input.ndim not in (2, 3):
        raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                                  f"(got {input.ndim}D)")
    return _col2im_op(input, output_size, kernel_size, dilation, padding, stride)
