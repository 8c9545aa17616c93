"""Convolution and fold/unfold (im2col / col2im).

Every op works on a batch of planes (N, C, *spatial) with 1-3 spatial dims, through two
primitives: `_im2col` (a strided window view of the padded input, laid out (N, C, *kernel,
*positions)) and its adjoint `_col2im` (a scatter-add of such windows back into an image, one
slice-add per kernel offset). A convolution is a batched matmul of the weight with the im2col
matrix; its input gradient (and a transposed convolution) is a matmul followed by col2im.

As in torch, CPU convolutions of every kind record one `convolution` node whose backward is the
differentiable op `convolution_backward`. The user-facing functions with torch.nn.functional's
signatures are at the end (re-exported by ndgrad/nn/functional/convolution.py); pooling.py builds
on the primitives here.
"""
import functools
import math
import sys
import types

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import _native, _parallel, _pool
from .._native import blas_threads_settable, one_blas_thread
from . import _fused
from ._registry import op, register
from ._schema import Parser
from ._scratch import LIMIT as _SCRATCH_LIMIT, buffer as _buffer
from .padding import constant_pad_nd

# torch.ops.aten: a namespace shared by the op modules that need one (created by the first)
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
    return int(math.prod(values))   # (a Python int: values may be NumPy integers)


def _pad_scratch(x, before, after, value=0, slot="pad"):
    """x (N, C, *S) padded by `before`/`after` per spatial dim, in a scratch buffer (x itself when
    there is no padding)."""
    if not any(before) and not any(after):
        return x
    size = x.shape[2:]
    out = _buffer(slot, x.shape[:2] + tuple(b + s + a for b, s, a in zip(before, size, after)), x.dtype)
    lead = (slice(None), slice(None))
    for k, (b, s) in enumerate(zip(before, size)):   # only the border is filled, then the interior copied
        for edge in (slice(0, b), slice(b + s, None)):
            out[lead + (slice(None),) * k + (edge,)] = value
    out[lead + tuple(slice(b, b + s) for b, s in zip(before, size))] = x
    return out


# ---- im2col / col2im primitives ------------------------------------------------------------
def _im2col(x, kernel, stride, dilation, positions=None):
    """Windows of x (N, C, *S), already padded, as a read-only view (N, C, *kernel, *positions)."""
    size, steps = x.shape[2:], x.strides[2:]
    if positions is None:
        positions = tuple((s - dl * (k - 1) - 1) // st + 1 for s, k, st, dl in zip(size, kernel, stride, dilation))
    return _strided(x, x.shape[:2] + tuple(kernel) + tuple(positions), x.strides[:2]
                    + tuple(dl * sp for dl, sp in zip(dilation, steps)) + tuple(st * sp for st, sp in zip(stride, steps)))


def _strided(x, shape, strides):
    """A read-only view of x's memory with this shape and these strides (byte strides from x's start),
    by ndarray's constructor where x is contiguous (as_strided costs several µs more)."""
    if type(x) is not np.ndarray or not x.flags.c_contiguous:
        return as_strided(x, shape, strides, writeable=False)
    view = np.ndarray(shape, x.dtype, x, 0, strides)
    view.flags.writeable = False
    return view


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
# Small products are per sample (one BLAS call each, numpy's batched matmul): the im2col matrix is
# the input's window view copied as it lies, (N, C*K, P), and the result lands in (N, O, P), the
# output's own layout, with no transposing pass. Large ones run as one channel-major GEMM over the
# whole batch (N*P columns), which BLAS may split over its threads (see _ONE_THREAD).
def _unfold(x, kernel, stride, padding, dilation, positions, groups):
    """The im2col matrix (G, C/G*K, N*P) of x (N, C, *S), in a scratch buffer."""
    view = _channel_major(_im2col(_pad_scratch(x, padding, padding), kernel, stride, dilation, positions))
    cols = _buffer("cols", view.shape, x.dtype)
    _copy(cols, view)
    return cols.reshape(groups, -1, x.shape[0] * _prod(positions))


def _unfold_per_sample(x, kernel, stride, padding, dilation, positions, groups):
    """The per-sample im2col matrices (N, G, C/G*K, P) of x (N, C, *S), in a scratch buffer."""
    view = _im2col(_pad_scratch(x, padding, padding), kernel, stride, dilation, positions)
    cols = _buffer("cols", view.shape, x.dtype)
    np.copyto(cols, view)
    return cols.reshape(x.shape[0], groups, x.shape[1] // groups * _prod(kernel), _prod(positions))


def _by_channel(x, groups):
    """x (N, C, *S) as the matrix (G, C/G, N*P) (a scratch copy)."""
    out = _buffer("by_channel", (x.shape[1], x.shape[0]) + x.shape[2:], x.dtype)
    _copy(out, x.swapaxes(0, 1))
    return out.reshape(groups, x.shape[1] // groups, -1)


def _gemm(a, b):
    return (a[0] @ b[0])[None] if a.shape[0] == 1 else np.matmul(a, b)


# A product of up to 2**18 multiply-adds BLAS runs on one thread; larger ones it splits over its
# threads, and a stack of per-sample products would pay that handoff once per sample (on a busy
# machine, many times the product itself): those run as one channel-major GEMM instead.
_ONE_THREAD = 1 << 18


# float32 products up to _SPLIT times that size also run per sample, each split into blocks of
# positions small enough for one BLAS thread (the output written block by block in its own layout):
# few channels make the channel-major GEMM's transposing passes cost more than the products.
# (float64 keeps one product per sample, its results unchanged to the bit.)
_SPLIT = 8


def _per_sample(m, k, p, dtype=None):
    return m * k * p <= _ONE_THREAD * (_SPLIT if dtype == np.float32 else 1)


def _position_blocks(m, k, p):
    """Slices of the p positions that keep each block's (m, k) x (k, block) product on one thread."""
    step = max(1, -(-p // max(1, -(-(m * k * p) // _ONE_THREAD))))
    return [slice(i, i + step) for i in range(0, max(p, 1), step)]


# Stride 1: each kernel offset's window elements, over the positions, are one contiguous run of
# the flattened padded image if the positions are taken on a "wide" grid as wide as the padded
# image (positions[0] x padded[1:]), the extra columns holding zeros. col2im's adds then run along
# whole planes instead of short rows; im2col's copies run along whole rows of the grid, 2-3x faster
# than copying the windows' short rows, but the GEMM grows by the extra columns and its result's
# positions are copied out of the grid (see _conv_wide).
class _Wide:
    """The wide grid of `positions` on a padded array of spatial size `padded` (stride 1)."""

    def __init__(self, positions, padded, kernel, dilation):
        self.positions, self.padded, self.kernel = tuple(positions), tuple(padded), tuple(kernel)
        self.grid = (self.positions[0],) + self.padded[1:]
        self.size = _prod(self.grid)
        flat = [_prod(self.padded[t + 1:]) for t in range(len(padded))]   # element strides of the padded array
        self.steps = tuple(dl * f for dl, f in zip(dilation, flat))
        self.offsets = [sum(o * st for o, st in zip(offs, self.steps)) for offs in np.ndindex(*kernel)]
        # the last window of the last position reaches this far past the padded array's end
        self.body = _prod(self.padded)
        self.length = self.body + sum((k - 1) * st for k, st in zip(kernel[1:], self.steps[1:]))

    def valid(self, a):
        """The positions' part of `a` (..., Q) laid out on the grid."""
        return a.reshape(a.shape[:-1] + self.grid)[(Ellipsis,) + tuple(slice(0, p) for p in self.positions)]

    def unfold(self, x, before):
        """The windows of x (N, C, *S) placed at `before` in zeros of the padded size: a scratch copy
        (N, C, *kernel, Q) (the extra columns hold whatever the padded planes hold there)."""
        n, c = x.shape[:2]
        flat = _buffer("wide_pad", (n, c, self.length), x.dtype)
        flat.fill(0)   # (one pass: cheaper than filling the borders dim by dim, and small beside the copy below)
        flat[..., :self.body].reshape((n, c) + self.padded)[(slice(None), slice(None)) + tuple(
            slice(b, b + sz) for b, sz in zip(before, x.shape[2:]))] = x
        item = flat.itemsize
        shape = (n, c) + self.kernel + (self.size,)
        view = _strided(flat, shape, flat.strides[:2] + tuple(st * item for st in self.steps) + (item,))
        cols = _buffer("cols", shape, x.dtype)
        np.copyto(cols, view)
        return cols

    def spread(self, x, slot):
        """x (..., *positions) laid out on the grid (..., Q), zero elsewhere (scratch)."""
        out = _buffer(slot, x.shape[:-len(self.grid)] + (self.size,), x.dtype)
        self.zero_extra(out)
        self.valid(out)[...] = x
        return out

    def zero_extra(self, a):
        """Zeros into the extra columns of `a` (..., Q)."""
        grid = a.reshape(a.shape[:-1] + self.grid)
        for t in range(1, len(self.grid)):
            grid[(Ellipsis, slice(0, self.positions[0])) + (slice(None),) * (t - 1) + (slice(self.positions[t], None),)
                 + (slice(None),) * (len(self.grid) - 1 - t)] = 0


@functools.lru_cache(maxsize=64)
def _wide_grid(positions, padded, kernel, dilation):
    """The _Wide of these sizes (tuples of ints), made once: a network asks for the same few every step."""
    return _Wide(positions, padded, kernel, dilation)


def _finite(a):
    """Whether every element of a is finite (its sum is, unless it overflows: then False, the safe answer)."""
    with np.errstate(all="ignore"):
        return a.dtype.kind not in "fc" or bool(np.isfinite(a.sum()))


def _wide(stride, padded, positions):
    return all(s == 1 for s in stride) and len(padded) > 1 and padded[-1] <= 2 * positions[-1]


def _conv(x, w, stride, padding, dilation, groups, bias=None):
    """Cross-correlation of x (N, C, *S) with w (O, C/groups, *k), plus bias: (N, O, *out)."""
    n, o, kernel = x.shape[0], w.shape[0], w.shape[2:]
    out = _conv_out_sizes(x.shape[2:], kernel, stride, padding, dilation)
    if _strided_pointwise(kernel, stride, padding):   # (a ResNet's downsampling shortcut)
        return _conv(np.ascontiguousarray(x[_every(stride)]), w, (1,) * len(kernel), padding, dilation, groups, bias)
    if _per_pixel(kernel, stride, padding, groups, out) and out == x.shape[2:]:
        y = _pool.stack_matmul(np.broadcast_to(w.reshape(o, -1), (n, o, w.shape[1])), x.reshape(n, x.shape[1], -1))
        if bias is not None:
            y += bias[:, None]
        return y.reshape((n, o) + out)
    if o == groups == x.shape[1] and (kern := _depthwise_kernels(kernel, x, w, bias)) is not None:
        result = np.empty((n, o) + out, x.dtype)
        xp, wk = _pad_scratch(x, padding, padding), w.reshape((o,) + kernel)
        b = np.zeros(o, x.dtype) if bias is None else bias
        _parallel.run(lambda lo, hi: kern.depthwise_forward(xp, wk, b, result, *stride, *dilation, lo, hi), n * o,
                      2 * result.size * _prod(kernel))
        return result
    padded = tuple(sz + 2 * p for sz, p in zip(x.shape[2:], padding))
    if (taps := _taps(x, w, groups, stride, padded, out, (x.shape[1], o), kernel)) is not None:
        return _conv_taps(x, w, padding, padded, stride, dilation, out, bias, taps)
    if _compiled_wide(x, w, groups, stride, padded, out, (x.shape[1], o)):
        return _conv_wide(x, w, padding, padded, dilation, groups, out, bias, np.empty((n, o) + out, x.dtype))
    if _channels_last_pays(x, o, groups, o * w[0].size * _prod(out)):
        return _conv_last(x, w, stride, (padding, padding), dilation, out, bias)
    if _per_group_pays(x, o, groups, o // groups * w[0].size * _prod(out)):
        cg, og = x.shape[1] // groups, o // groups
        return np.concatenate([_conv(x[:, k * cg:(k + 1) * cg], w[k * og:(k + 1) * og], stride, padding, dilation,
                                     1, None if bias is None else bias[k * og:(k + 1) * og]) for k in range(groups)], 1)
    result = np.empty((n, o) + out, np.result_type(x, w))
    if not _per_sample(o // groups, w[0].size, _prod(out), x.dtype):
        for i, j in _limit_chunks(n, w[0].size * groups * _prod(out) * x.itemsize):
            cols = _unfold(x[i:j], kernel, stride, padding, dilation, out, groups)
            y = _gemm(w.reshape(groups, o // groups, -1), cols)
            # the channel-major result transposed to (N, O, P) in the pass that adds the bias
            y = y.reshape(o, j - i, _prod(out)).swapaxes(0, 1)
            _copy(result[i:j].reshape(y.shape), y, bias)
        return result
    if (_wide(stride, padded, out) and result.size
            and _wide_pays(w.shape[1], kernel, o // groups, _wide_kernels(x, w, groups) and "forward")):
        return _conv_wide(x, w, padding, padded, dilation, groups, out, bias, result)
    flat = result.reshape(n, groups, o // groups, _prod(out))
    blocks = _position_blocks(o // groups, w[0].size, _prod(out))

    def samples(i, j):
        cols = _unfold_per_sample(x[i:j], kernel, stride, padding, dilation, out, groups)
        for block in blocks:
            np.matmul(w.reshape(groups, o // groups, -1), cols[..., block], out=flat[i:j, ..., block])
        if bias is not None:
            result[i:j] += bias.reshape((o,) + (1,) * len(out))
    _run_samples(samples, n, n * w[0].size * _prod(out) * (groups + o // 6),
                 (w[0].size * groups + o) * _prod(out) * x.itemsize)
    return result


def _run_samples(samples, n, work, per_sample_bytes):
    """samples(i, j) over the batch's slices on _parallel's threads, each thread's slice in pieces of
    about _SAMPLE_CHUNK bytes of temporaries (`per_sample_bytes` a sample): large samples' temporaries
    then stay within the scratch LIMIT, reused instead of fresh pages each call (a (64, 32, 32, 32)
    output gradient into 3 input channels 7.7 -> 4.7 ms); small layers run as one piece per thread."""
    step = max(1, _SAMPLE_CHUNK // max(per_sample_bytes, 1))

    def part(a, b):
        for i in range(a, b, step):
            samples(i, min(b, i + step))
    _parallel.run(part, n, work)


_SAMPLE_CHUNK = 4 << 20


def _limit_chunks(n, per_sample_bytes):
    """The batch's chunks [(i, j)] for the channel-major products: as few as keep each im2col matrix
    within the scratch LIMIT (reused: a ResNet stem's 118 MB matrix took fresh pages each call)."""
    step = max(1, _SCRATCH_LIMIT // max(per_sample_bytes, 1))
    return [(i, min(n, i + step)) for i in range(0, n, step)] or [(0, 0)]


def _per_pixel(kernel, stride, padding, groups, positions):
    """Whether a convolution is a product of the weight with each sample's (C, P) planes as they lie
    (1x1 kernel, stride 1, no padding, one group: a bottleneck's or a MobileNet's pointwise layer), over
    enough positions for per-sample products (49 ran slower than the general path's larger GEMMs)."""
    return groups == 1 and all(k == 1 for k in kernel) and all(st == 1 for st in stride) and not any(padding) \
        and _prod(positions) >= _PER_PIXEL_POSITIONS


_PER_PIXEL_POSITIONS = 100


def _strided_pointwise(kernel, stride, padding):
    """Whether a convolution is a 1x1 one with a stride above 1 and no padding: a product with the input's
    every stride-th pixel (taken first: the per-pixel products then run without im2col copies)."""
    return all(k == 1 for k in kernel) and any(st > 1 for st in stride) and not any(padding)


def _every(stride):
    """The index of every stride-th pixel of an (N, C, *S) array."""
    return (slice(None), slice(None)) + tuple(slice(None, None, st) for st in stride)


def _depthwise_kernels(kernel, *arrays):
    """The compiled kernels for a depthwise convolution (one filter per channel: groups = channels in =
    channels out) with 2 spatial dims, where numba takes these arrays; None otherwise."""
    return _fused.kernels(*arrays) if len(kernel) == 2 else None


def _wide_pays(in_channels, kernel, out_channels, compiled=None):
    """Whether a per-sample convolution (`in_channels` and `out_channels` per group) runs on the wide
    grid: its im2col copy saves about 0.3 ns per element of the (C*K, P) matrix, copying the result's
    positions out of the grid costs about 0.6 ns per element of the (O, P) result. The compiled kernels
    copy the result out while it is in cache: their forward always gains (MNIST's 1 -> 8 channels 0.28 ->
    0.19 ms), their weight gradient from 16 columns of the im2col matrix on (1 channel, 3x3: 0.28 -> 0.36
    ms). `compiled`: None (NumPy's passes), "forward" or "weight" (the compiled kernels)."""
    if compiled == "forward":
        return True
    return in_channels * _prod(kernel) >= 16 if compiled == "weight" else in_channels * _prod(kernel) > 2 * out_channels


def _wide_kernels(x, w, groups):
    """The compiled kernels where they take this convolution (float32, 2 spatial dims, one group; the
    callers make the arrays contiguous), else None."""
    if groups != 1 or x.ndim != 4 or x.dtype != np.float32:
        return None
    return _fused.kernels(x, w)


# The compiled wide-grid kernels also take convolutions of up to _WIDE_CHANNELS channels in and out that
# are too large for NumPy's per-sample products, ahead of the channels-last chunks (a ResNet's 16 -> 16
# channel layers on 32 x 32 images: forward 6.0 -> 2.0 ms, input gradient 4.5 -> 2.0; with more channels
# the per-tap products below win).
_WIDE_CHANNELS = 32
_WIDE_BLOCK = 128 << 10   # bytes of a block's im2col matrix: the forward's products (the weight gradient's take _CHUNK)


def _compiled_wide(x, w, groups, stride, padded, positions, channels):
    """Whether the compiled wide-grid kernels run a float32 stride-1 convolution of x with w (one group, 2
    spatial dims) whose (in, out) `channels` are at most _WIDE_CHANNELS each."""
    return (max(channels) <= _WIDE_CHANNELS and _wide(stride, padded, positions) and _prod(positions) > 0
            and _wide_kernels(x, w, groups) is not None)


# With at least _TAPS_CHANNELS channels in and out (see _taps), where NumPy's OpenBLAS exposes CBLAS sgemm, the
# compiled kernels take one product per kernel tap straight from the channels-last padded planes (see
# _numba_kernels.taps_conv; no im2col copy): a ResNet's 64 -> 64 layers on 8 x 8 2.5 -> 1.5 ms, 64 channels
# on 56 x 56 22 -> 16 ms, 32 -> 64 on 16 x 16 4.7 -> 3.1 ms. Each sample's products read the whole weight:
# only a weight of up to _CHUNK bytes, which stays in cache, runs so (512 -> 512 channels on 7 x 7: 2.6x
# slower than channels-last).
_TAPS_CHANNELS = 32
# weight gradients, and strided convolutions (no wide grid there), gain from 16 channels: a 16 -> 16 layer's
# weight gradient 2.6 -> 2.25 ms, a stride-2 16 -> 32 one's forward 2.1 -> 1.4
_TAPS_MIN_CHANNELS = 16
_TAPS_CHUNK = 4   # samples per partial sum of the weight gradient (the partials added in order after)


def _taps(x, w, groups, stride, padded, positions, channels, kernel, least=None):
    """(kernels, sgemm) where the per-tap kernels run a float32 convolution of x with w (one group, 2
    spatial dims) whose (in, out) `channels` are at least `least` each (default: _TAPS_CHANNELS at stride
    1, else _TAPS_MIN_CHANNELS) and whose weight (those channels and `kernel`) is at most _CHUNK bytes;
    else None."""
    least = least or (_TAPS_CHANNELS if all(st == 1 for st in stride) else _TAPS_MIN_CHANNELS)
    if (min(channels) < least or _prod(channels + tuple(kernel)) * x.itemsize > _CHUNK
            or len(padded) != 2 or -(-padded[1] // stride[1]) > 2 * positions[1] or not _prod(positions)):
        return None
    kern = _wide_kernels(x, w, groups)
    gemm = _native.gemm(np.float32) if kern is not None else None
    return None if gemm is None else (kern, gemm)


def _conv_taps(x, w, before, padded, stride, dilation, out, bias, taps):
    """_conv (one group) by the per-tap kernel: x (N, C, *S) placed at `before` in zeros of size `padded`,
    the result (N, O, *out)."""
    kern, gemm = taps
    n, c, o, kernel = x.shape[0], x.shape[1], w.shape[0], w.shape[2:]
    x, wt = np.ascontiguousarray(x), np.ascontiguousarray(w.transpose(2, 3, 1, 0).reshape(-1, c, o))
    b = np.zeros(o, x.dtype) if bias is None else np.ascontiguousarray(bias, x.dtype)
    result = np.empty((n, o) + tuple(out), x.dtype)
    wp = -(-padded[1] // stride[1])   # (the width of a phase plane: the padded width without strides)
    _run_wide(lambda i, j: kern.taps_conv(gemm, x, wt, b, result, *before, padded[0], wp, *kernel, *stride,
                                          *dilation, i, j), n, n * wt.size * out[0] * wp // 6)
    return result


def _input_grad_taps(g, w, padding, size, stride, dilation, taps):
    """The input gradient (N, C, *size) of a convolution with w (O, C, *k) (one group) for its output
    gradient g, by the per-tap kernel (strided ones: stride 1 takes the flipped convolution)."""
    kern, gemm = taps
    n, o, c, kernel = g.shape[0], w.shape[0], w.shape[1], w.shape[2:]
    g, wt = np.ascontiguousarray(g), np.ascontiguousarray(w.transpose(2, 3, 1, 0).reshape(-1, c, o))
    result = np.empty((n, c) + tuple(size), g.dtype)
    hp, wp = size[0] + 2 * padding[0], -(-(size[1] + 2 * padding[1]) // stride[1])
    _run_wide(lambda i, j: kern.taps_input_grad(gemm, g, wt, result, *padding, hp, wp, *kernel, *stride,
                                                *dilation, i, j), n, n * wt.size * g.shape[2] * wp // 6)
    return result


def _weight_grad_taps(a, b, kernel, padding, padded, stride, dilation, taps):
    """_weight_grad (one group) by the per-tap kernel, as (X, Y, *kernel): partial sums over chunks of
    _TAPS_CHUNK samples, added in order."""
    kern, gemm = taps
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    n, o, c = a.shape[0], a.shape[1], b.shape[1]
    chunks, wp = -(-n // _TAPS_CHUNK), -(-padded[1] // stride[1])
    partials = np.empty((chunks, _prod(kernel), c, o), b.dtype)
    _run_wide(lambda i, j: kern.taps_weight_grad(gemm, a, b, partials, *padding, padded[0], wp, *kernel, *stride,
                                                 *dilation, _TAPS_CHUNK, i, j),
              chunks, n * o * c * _prod(kernel) * a.shape[2] * wp // 6)
    return np.ascontiguousarray(partials.sum(0).transpose(2, 1, 0)).reshape((o, c) + tuple(kernel))


def _grid_rows(rows_of_cols, width, height, itemsize, budget):
    """Grid rows per product of the compiled wide-grid kernels: as many as keep a block's im2col matrix
    (`rows_of_cols` rows) within `budget` bytes, in cache; at least one, at most the grid's `height`."""
    return max(1, min(height, budget // max(1, rows_of_cols * width * itemsize)))


def _run_wide(kernel, n, work):
    """kernel(i, j) over the batch's slices on _parallel's threads, each product on one BLAS thread."""
    with one_blas_thread():
        _parallel.run(kernel, n, work)


def _conv_wide(x, w, before, padded, dilation, groups, out, bias, result):
    """_conv (stride 1) on the wide grid: x (N, C, *S) placed at `before` in zeros of size `padded`,
    the products (N, G, O/G, Q) written block by block, the positions copied into result (N, O, *out)
    in the pass that adds the bias."""
    n, o = x.shape[0], w.shape[0]
    if (kern := _wide_kernels(x, w, groups)) is not None:
        x, w2 = np.ascontiguousarray(x), np.ascontiguousarray(w.reshape(o, -1))
        b = np.zeros(o, x.dtype) if bias is None else np.ascontiguousarray(bias, x.dtype)
        rows = _grid_rows(w2.shape[1], padded[1], out[0], x.itemsize, _WIDE_BLOCK)
        _run_wide(lambda i, j: kern.wide_conv(x, w2, b, result, *before, *padded, *w.shape[2:], *dilation, rows, i, j),
                  n, n * w2.size * out[0] * padded[1] // 6)
        return result
    grid = _wide_grid(out, padded, w.shape[2:], dilation)
    wg = w.reshape(groups, o // groups, -1)
    blocks = _position_blocks(o // groups, w[0].size, grid.size)

    def samples(i, j):
        cols = grid.unfold(x[i:j], before).reshape(j - i, groups, -1, grid.size)
        y = _buffer("gemm", (j - i, groups, o // groups, grid.size), result.dtype)
        for block in blocks:
            np.matmul(wg, cols[..., block], out=y[..., block])
        y = grid.valid(y.reshape(j - i, o, grid.size))
        if bias is None:
            np.copyto(result[i:j], y)
        else:
            np.add(y, bias.reshape((o,) + (1,) * len(out)), out=result[i:j])
    _run_samples(samples, n, n * w[0].size * grid.size * (groups + o // 6),
                 (w[0].size * groups + o) * grid.size * x.itemsize)
    return result


def _flipped(w, groups):
    """The weight w (C, O/groups, *k) of a transposed convolution as the (O, C/groups, *k) weight of the
    convolution that computes it (stride 1), each kernel flipped."""
    c, kernel = w.shape[0], w.shape[2:]
    o = groups * w.shape[1]
    return np.ascontiguousarray(w.reshape((groups, c // groups, o // groups) + kernel).swapaxes(1, 2).reshape(
        (o, c // groups) + kernel)[(slice(None), slice(None)) + (slice(None, None, -1),) * len(kernel)])


def _conv_t(x, w, stride, padding, dilation, groups, size):
    """Transposed convolution of x (N, C, *S) with w (C, O/groups, *k) onto spatial `size`."""
    n, c, kernel = x.shape[0], x.shape[1], w.shape[2:]
    o = groups * w.shape[1]
    padded = tuple(sz + 2 * p for sz, p in zip(size, padding))
    crop = (slice(None), slice(None)) + tuple(slice(p, p + sz) for p, sz in zip(padding, size))
    if _strided_pointwise(kernel, stride, padding):   # (the 1x1 products land on every stride-th pixel)
        result = np.zeros((n, o) + tuple(size), np.result_type(x, w))
        result[_every(stride)] = _conv_t(x, w, (1,) * len(kernel), padding, dilation, groups, x.shape[2:])
        return result
    if _per_pixel(kernel, stride, padding, groups, tuple(size)) and tuple(size) == x.shape[2:]:
        return _pool.stack_matmul(np.broadcast_to(w.reshape(c, o).T, (n, o, c)), x.reshape(n, c, -1)).reshape(
            (n, o) + tuple(size))
    if c == groups == o and (kern := _depthwise_kernels(kernel, x, w)) is not None:
        img = np.zeros((n, c) + padded, x.dtype)
        wk = w.reshape((c,) + kernel)
        _parallel.run(lambda lo, hi: kern.depthwise_scatter(x, wk, img, *stride, *dilation, lo, hi), n * c,
                      2 * x.size * _prod(kernel))
        return np.ascontiguousarray(img[crop])
    if _per_group_pays(x, o, groups, o // groups * c // groups * _prod(kernel) * _prod(size)):
        cg = c // groups
        return np.concatenate([_conv_t(x[:, k * cg:(k + 1) * cg], w[k * cg:(k + 1) * cg], stride, padding, dilation,
                                       1, size) for k in range(groups)], 1)
    # stride 1: the convolution of x, placed in zeros, with the weight flipped and transposed (as
    # _input_grad_last), on the wide grid (no col2im) where that pays and every weight is finite
    flat_pad = tuple(dl * (k - 1) - p for k, p, dl in zip(kernel, padding, dilation))
    full = tuple(sz + dl * (k - 1) for sz, k, dl in zip(size, kernel, dilation))
    flips = min(flat_pad) >= 0 and all(s == 1 for s in stride)
    if flips and (taps := _taps(x, w, groups, stride, full, tuple(size), (c, o), kernel)) is not None and _finite(w):
        return _conv_taps(x, _flipped(w, groups), flat_pad, full, stride, dilation, tuple(size), None, taps)
    if (not flips and (taps := _taps(x, w, groups, stride, padded, x.shape[2:], (c, o), kernel)) is not None
            and _finite(w)):   # (g's extra columns are zeros, multiplied by the weight)
        return _input_grad_taps(x, w, padding, size, stride, dilation, taps)
    if flips and _compiled_wide(x, w, groups, stride, full, tuple(size), (c, o)) and _finite(w):
        return _conv_wide(x, _flipped(w, groups), flat_pad, full, dilation, groups, tuple(size), None,
                          np.empty((n, o) + tuple(size), x.dtype))
    last = _channels_last_pays(x, o, groups, o * c * _prod(kernel) * _prod(size))
    if last and len(kernel) <= 2 and (kern := _fused.kernels(x)) is not None:
        return _input_grad_gather(x, w, stride, padding, dilation, size, kern)
    if (last and all(s == 1 for s in stride) and all(dl * (k - 1) >= p for k, p, dl in zip(kernel, padding, dilation))
            and _finite(w)):
        # (an inf or NaN weight would meet the zeros padding x there: col2im never multiplies those)
        return _input_grad_last(x, w, padding, dilation, size)
    if not _per_sample(o // groups * _prod(kernel), c // groups, _prod(padded), x.dtype):
        result = np.empty((n, o) + tuple(size), np.result_type(x, w))
        for i, j in _limit_chunks(n, o * _prod(kernel) * _prod(x.shape[2:]) * x.itemsize):
            cols = _gemm(w.reshape(groups, c // groups, -1).transpose(0, 2, 1), _by_channel(x[i:j], groups))
            cols = cols.reshape((o,) + kernel + (j - i,) + x.shape[2:])              # (G, O/G*K, B*P)
            _copy(result[i:j], _col2im(cols, padded, stride, dilation)[crop])
        return result
    result = np.empty((n, o) + tuple(size), np.result_type(x, w))
    # the flipped convolution's im2col copies C/G*K values per position, col2im adds O/G*K; with three
    # times as many channels in x as out, col2im's are fewer (a 32-channel gradient into 3 input channels
    # 4.7 -> 2.1 ms)
    if flips and _wide(stride, full, size) and c // groups < 3 * (o // groups) and result.size and _finite(w):
        return _conv_wide(x, _flipped(w, groups), flat_pad, full, dilation, groups, tuple(size), None, result)
    wt = w.reshape(groups, c // groups, -1).transpose(0, 2, 1)   # (G, O/G*K, C/G)
    if _wide(stride, padded, x.shape[2:]) and x.size and _prod(size):
        grid = _wide_grid(x.shape[2:], padded, kernel, dilation)
        finite = _finite(w)

        def samples(i, j):
            cols = _buffer("gemm", (j - i, groups, o // groups * _prod(kernel), grid.size), result.dtype)
            spread = grid.spread(x[i:j], "spread").reshape(j - i, groups, c // groups, grid.size)
            for block in _position_blocks(cols.shape[2], c // groups, grid.size):
                np.matmul(wt, spread[..., block], out=cols[..., block])
            cols = cols.reshape(j - i, o, _prod(kernel), grid.size)
            if not finite:   # off the positions x is 0, so are the products, unless a weight is inf or NaN
                grid.zero_extra(cols)
            img = _buffer("image", (j - i, o, grid.length), cols.dtype)
            img.fill(0)
            for k, off in enumerate(grid.offsets):   # col2im: each kernel offset's windows are one contiguous run
                img[:, :, off:off + grid.size] += cols[:, :, k]
            result[i:j] = img[:, :, :_prod(padded)].reshape((j - i, o) + padded)[crop]
    else:
        def samples(i, j):
            cols = _buffer("cols", (j - i, groups, o // groups * _prod(kernel), _prod(x.shape[2:])), result.dtype)
            planes = x[i:j].reshape(j - i, groups, c // groups, cols.shape[3])
            for block in _position_blocks(cols.shape[2], c // groups, cols.shape[3]):
                np.matmul(wt, planes[..., block], out=cols[..., block])
            cols = cols.reshape((j - i, o) + kernel + x.shape[2:])
            img = _buffer("image", (j - i, o) + padded, cols.dtype)
            img.fill(0)
            lead = (slice(None), slice(None))
            for offs in np.ndindex(*kernel):   # col2im: the windows added back, one strided slice-add per offset
                img[lead + tuple(slice(k * dl, k * dl + s * (m - 1) + 1, s)
                                 for k, dl, s, m in zip(offs, dilation, stride, x.shape[2:]))] += cols[lead + offs]
            result[i:j] = img[crop]
    _run_samples(samples, n, n * o * _prod(kernel) * _prod(x.shape[2:]) * (c // groups // 6 + 2),
                 (o * _prod(kernel) + c) * _prod(padded) * x.itemsize)
    return result


def _weight_grad_wide(a, b, kernel, padding, padded, dilation, work):
    """_weight_grad (stride 1, one group, float32) by the compiled wide-grid kernel: each sample's products
    over blocks of grid rows, summed over the batch after (in order), as (X, Y*K)."""
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    n, positions, ck = a.shape[0], a.shape[2:], b.shape[1] * _prod(kernel)
    rows = _grid_rows(ck, padded[1], positions[0], b.itemsize, _CHUNK)
    products = np.empty((-(-positions[0] // rows), n, ck, a.shape[1]), b.dtype)
    kern = _fused.kernels(b, a)
    _run_wide(lambda i, j: kern.wide_weight_grad(a, b, products, *padding, *padded, *kernel, *dilation, rows, i, j),
              n, work)
    gw = products[0].sum(0)
    for k in range(1, len(products)):
        gw += products[k].sum(0)
    return np.ascontiguousarray(gw.T)


def _weight_grad(a, b, kernel, stride, padding, dilation, groups, wide=True):
    """Sum over the batch of a (N, G*X, *P) times the windows of b (N, G*Y, *S) at the P positions:
    the (G*X, Y, *kernel) weight gradient of a convolution (a = grad_output, b = input) or of a
    transposed one (a = input, b = grad_output).

    wide: whether the methods on the wide grid (taps included) may run: there a's extra columns are zeros,
    which meet b's values, so an inf or NaN in b makes NaNs torch does not (it never multiplies them). Their
    result is checked rather than b (a few KB, not a pass over the activations), and a non-finite one made
    again without them."""
    n, x_size, y_size = a.shape[0], a.shape[1] // groups, b.shape[1] // groups
    shape = (a.shape[1], y_size) + tuple(kernel)
    if _strided_pointwise(tuple(kernel), stride, padding):   # (b's every stride-th pixel, as many as a has)
        b = np.ascontiguousarray(b[_every(stride)][(Ellipsis,) + tuple(slice(0, sz) for sz in a.shape[2:])])
        return _weight_grad(a, b, kernel, (1,) * len(stride), padding, dilation, groups)
    if _per_pixel(tuple(kernel), stride, padding, groups, a.shape[2:]) and a.shape[2:] == b.shape[2:]:
        products = _pool.stack_matmul(a.reshape(n, x_size, -1), b.reshape(n, y_size, -1).transpose(0, 2, 1))
        return products.sum(0).reshape(shape)   # (the samples' products added in order)
    if x_size == y_size == 1 and (kern := _depthwise_kernels(tuple(kernel), a, b)) is not None:
        bp, gw = _pad_scratch(b, padding, padding), np.empty((groups,) + tuple(kernel), a.dtype)
        _parallel.run(lambda lo, hi: kern.depthwise_weight_grad(a, bp, gw, *stride, *dilation, lo, hi), groups,
                      2 * a.size * _prod(kernel))
        return gw.reshape(shape)
    positions, p = a.shape[2:], _prod(a.shape[2:])
    padded = tuple(sz + 2 * pd for sz, pd in zip(b.shape[2:], padding))
    work = n * groups * y_size * _prod(kernel) * p * (1 + x_size // 6)
    if wide and (taps := _taps(b, a, groups, stride, padded, positions, (y_size, x_size), kernel,
                               _TAPS_MIN_CHANNELS)) is not None:
        return _checked_wide(_weight_grad_taps(a, b, kernel, padding, padded, stride, dilation, taps),
                             a, b, kernel, stride, padding, dilation, groups)
    if (wide and _compiled_wide(b, a, groups, stride, padded, positions, (y_size, x_size))
            and _wide_pays(y_size, kernel, x_size, "weight")):
        return _checked_wide(_weight_grad_wide(a, b, kernel, padding, padded, dilation, work).reshape(shape),
                             a, b, kernel, stride, padding, dilation, groups)
    if _channels_last_pays(b, x_size, groups, x_size * y_size * _prod(kernel) * p):
        return _weight_grad_last(a, b, kernel, stride, padding, dilation)
    if _per_group_pays(b, a.shape[1], groups, x_size * y_size * _prod(kernel) * p):
        return np.concatenate([_weight_grad(a[:, k * x_size:(k + 1) * x_size], b[:, k * y_size:(k + 1) * y_size],
                                            kernel, stride, padding, dilation, 1) for k in range(groups)], 0)
    if _per_sample(x_size, y_size * _prod(kernel), p, b.dtype):   # summed over the batch after
        compiled = _wide_kernels(b, a, groups) is not None
        grid = _wide_grid(positions, padded, kernel, dilation) if (
            wide and _wide(stride, padded, positions) and a.size
            and _wide_pays(y_size, kernel, x_size, compiled and "weight")) else None
        q = p if grid is None else grid.size
        if grid is not None and compiled:
            return _checked_wide(_weight_grad_wide(a, b, kernel, padding, padded, dilation, work).reshape(shape),
                                 a, b, kernel, stride, padding, dilation, groups)
        blocks = _position_blocks(x_size, y_size * _prod(kernel), q)
        # each block's per-sample products (N, G, X, Y*K), summed over the batch in one pass after
        products = np.empty((len(blocks), n, groups, x_size, y_size * _prod(kernel)), np.result_type(a, b))

        def samples(i, j):
            if grid is None:
                cols = _unfold_per_sample(b[i:j], kernel, stride, padding, dilation, positions, groups)
                ai = a[i:j].reshape(j - i, groups, x_size, p)
            else:
                cols = grid.unfold(b[i:j], padding).reshape(j - i, groups, -1, q)
                ai = grid.spread(a[i:j], "spread").reshape(j - i, groups, x_size, q)
            for k, block in enumerate(blocks):
                np.matmul(ai[..., block], cols[..., block].transpose(0, 1, 3, 2), out=products[k, i:j])
        _run_samples(samples, n, work, (groups * (y_size * _prod(kernel) + x_size)) * q * b.itemsize)
        gw = products[0].sum(0)
        for k in range(1, len(blocks)):
            gw += products[k].sum(0)
        gw = gw.reshape(shape)
        return gw if grid is None else _checked_wide(gw, a, b, kernel, stride, padding, dilation, groups)
    gw = None
    for i, j in _limit_chunks(n, b.shape[1] * _prod(kernel) * _prod(a.shape[2:]) * b.itemsize):
        cols = _unfold(b[i:j], kernel, stride, padding, dilation, a.shape[2:], groups)     # (G, Y*K, B*P)
        # (cols @ a^T)^T rather than a @ cols^T: BLAS runs this long contraction faster that way round
        part = _gemm(cols, _by_channel(a[i:j], groups).transpose(0, 2, 1)).transpose(0, 2, 1)  # (G, X, Y*K)
        gw = part if gw is None else np.add(gw, part, out=gw)
    return np.ascontiguousarray(gw).reshape(shape)


def _checked_wide(gw, a, b, kernel, stride, padding, dilation, groups):
    """gw, a weight gradient made on the wide grid, if finite; else made again off it (see _weight_grad)."""
    return gw if _finite(gw) else _weight_grad(a, b, kernel, stride, padding, dilation, groups, wide=False)


# ---- channels-last im2col, in cache-sized batch chunks ---------------------------------------
# float32 with many channels: per chunk of a few samples, a channels-last copy of the padded input
# (each window element is then a run of C contiguous values: an im2col copy several times faster
# than the planar one), its im2col matrix (B*P, K*C), one GEMM with the weight as (K*C, O), and the
# (P, O) rows transposed into the (N, O, P) output. A chunk's matrices stay in a core's cache
# (_CHUNK bytes, at least _MIN_ROWS rows); the chunks run on _parallel's threads, each product on one
# BLAS thread (the (c) CNN step 35 -> 27 ms against whole-batch products on OpenBLAS's threads).
# With fewer than _MIN_CHUNKS such chunks (large samples), or where NumPy's BLAS cannot be held to
# one thread, the batch runs in as few chunks as the scratch LIMIT allows, each product on BLAS's
# threads (cache-sized chunks there cost a BLAS thread handoff per product: a CNN step 1.5-2x
# slower). The chunks depend on the sizes only, not on the thread count: so do the bits. An input
# gradient, with numba, is the product of the output gradient with the weight, (B*P, O) @ (O, K*C),
# whose windows a compiled gather sums into the image (col2im, any stride, 1-2 spatial dims); without
# numba, a stride-1 one is the convolution of the padded output gradient with the flipped,
# transposed weight. float64 keeps the paths above, to the bit.
_CHUNK = 1 << 20
_LAST_MIN_CHANNELS = 16
_MIN_CHUNKS = 4
_MIN_ROWS = 256             # rows of a chunk's im2col matrix (OpenBLAS's products of 49 rows ran 30% slower)
_PARTIALS_LIMIT = 8 << 20   # bytes of the weight gradient's per-chunk products


def _channels_last_pays(x, out_channels, groups, macs):
    """Whether a product of the windows of x (N, C, *S) (`macs` multiply-adds per sample) with a
    (C*K, out_channels) matrix runs here: few channels on either side make copies and GEMM slow."""
    return (groups == 1 and x.dtype == np.float32 and min(x.shape[1], out_channels) >= _LAST_MIN_CHANNELS
            and macs > _ONE_THREAD and x.shape[0] > 0)


def _per_group_pays(x, out_channels, groups, macs):
    """Whether a grouped convolution runs as one channels-last convolution per group (on its slices of
    the channels; `macs` multiply-adds per sample and group): groups of many channels (a (32, 64, 28,
    28) input in 2 groups: forward and gradients 48 -> 26 ms, against torch's 10)."""
    return groups > 1 and _channels_last_pays(x[:, :x.shape[1] // groups], out_channels // groups, 1, macs)


def _last_padded(x, before, after, slot, copy):
    """x (N, C, *S) as a channels-last (N, *padded, C) array in scratch, zero around x."""
    size = x.shape[2:]
    out = _buffer(slot, (x.shape[0],) + tuple(b + s + a for b, s, a in zip(before, size, after)) + (x.shape[1],),
                  x.dtype)
    for k, (b, s) in enumerate(zip(before, size)):   # only the border is zeroed, then the interior copied
        for edge in (slice(0, b), slice(b + s, None)):
            out[(slice(None),) * (k + 1) + (edge,)] = 0
    copy(out[(slice(None),) + tuple(slice(b, b + s) for b, s in zip(before, size))], np.moveaxis(x, 1, -1))
    return out


def _copy(dst, src, bias=None):
    """dst = src (of one shape), plus bias per channel (dim 1) if given, in parallel slices of the
    leading dim: the layout changes around the large GEMMs, which BLAS runs on its own threads."""
    _parallel.run(lambda i, j: _copy_serial(dst[i:j], src[i:j], bias), dst.shape[0], 2 * dst.size)


def _copy_serial(dst, src, bias=None):
    """_copy on the calling thread (a chunk's copies, each chunk on a thread of its own)."""
    if bias is None:
        np.copyto(dst, src)
    else:
        np.add(src, bias.reshape((-1,) + (1,) * (src.ndim - 2)), out=dst)


def _chunks(n, positions, per_sample_bytes, max_chunks=None):
    """The batch's chunks [(i, j)] for im2col matrices of `positions` rows and `per_sample_bytes` per
    sample (at most `max_chunks` of them), and whether they run on _parallel's threads, one BLAS thread
    each: cache-sized ones where there are enough to share out (_MIN_CHUNKS, whatever the thread count:
    the chunks, and so the bits, depend on the sizes only), else as few as fit in the scratch LIMIT,
    each product on BLAS's threads."""
    def split(size):
        step = max(1, size // max(per_sample_bytes, 1), -(-_MIN_ROWS // max(positions, 1)))
        if max_chunks:
            step = max(step, -(-n // max_chunks))
        return [(i, min(n, i + step)) for i in range(0, n, step)]
    chunks = split(_CHUNK)
    if len(chunks) >= _MIN_CHUNKS and blas_threads_settable():
        return chunks, True
    return split(_SCRATCH_LIMIT), False


def _over_chunks(fn, chunks, parallel, work):
    """fn(k, i, j) for each chunk k = (i, j), on _parallel's threads if `parallel`."""
    def run(a, b):
        for k in range(a, b):
            fn(k, *chunks[k])
    if not parallel:
        run(0, len(chunks))
        return
    with one_blas_thread():
        _parallel.run(run, len(chunks), work)


def _windows_last(xl, kernel, stride, dilation, positions):
    """The windows of a channels-last padded xl (N, *padded, C) as a view (N, *positions, *kernel, C)."""
    steps = xl.strides[1:-1]
    return _strided(xl, xl.shape[:1] + tuple(positions) + tuple(kernel) + xl.shape[-1:], xl.strides[:1]
                    + tuple(st * sp for st, sp in zip(stride, steps)) + tuple(dl * sp for dl, sp in zip(dilation, steps))
                    + xl.strides[-1:])


def _unfold_last(windows, copy):
    """The im2col matrix (B*P, K*C) of windows (B, *positions, *kernel, C), in scratch."""
    cols = _buffer("cols_last", windows.shape, windows.dtype)
    copy(cols, windows)
    return cols.reshape(_prod(windows.shape[:windows.ndim // 2]), -1)


def _conv_last(x, w, stride, padding, dilation, out, bias=None):
    """_conv with groups=1 through channels-last im2col chunks: (N, O, *out). `padding` is
    (before, after) per spatial dim."""
    n, o, kernel, p = x.shape[0], w.shape[0], w.shape[2:], _prod(out)
    wl = np.moveaxis(w, 1, -1).reshape(o, -1).T            # (K*C, O), matching the columns' order
    result = np.empty((n, o) + out, x.dtype)
    flat = result.reshape(n, o, p)
    chunks, parallel = _chunks(n, p, p * wl.shape[0] * x.itemsize)
    copy = _copy_serial if parallel else _copy

    def chunk(k, i, j):
        windows = _windows_last(_last_padded(x[i:j], *padding, "last", copy), kernel, stride, dilation, out)
        y = np.matmul(_unfold_last(windows, copy), wl, out=_buffer("gemm_last", ((j - i) * p, o), x.dtype))
        copy(flat[i:j], y.reshape(j - i, p, o).transpose(0, 2, 1), bias)
    _over_chunks(chunk, chunks, parallel, n * p * wl.size // 6)
    return result


def _input_grad_last(g, w, padding, dilation, size):
    """The input gradient of a stride-1 convolution (transposed convolution with stride 1) as a
    convolution of g (N, O, *out) padded by dilation*(k-1)-padding with w flipped and transposed."""
    kernel = w.shape[2:]
    flipped = w[(slice(None), slice(None)) + (slice(None, None, -1),) * len(kernel)].swapaxes(0, 1)
    pad = tuple(dl * (k - 1) - p for k, p, dl in zip(kernel, padding, dilation))
    # output_padding's extra positions (a transposed convolution's) read that much more padding after
    after = tuple(sz - m + dl * (k - 1) - q for q, sz, m, k, dl in zip(pad, size, g.shape[2:], kernel, dilation))
    return _conv_last(g, flipped, (1,) * len(kernel), (pad, after), dilation, tuple(size))


def _input_grad_gather(g, w, stride, padding, dilation, size, kern):
    """The input gradient (N, C, *size) of a convolution with 1 or 2 spatial dims, w (O, C, *k), from g
    (N, O, *positions): per chunk, g's channels-last rows times w as (O, K*C), the windows summed into
    the image by the compiled gather `kern.col2im_2d`."""
    n, o, c = g.shape[0], g.shape[1], w.shape[1]
    two = (lambda t, one: tuple(t) if len(t) == 2 else (one,) + tuple(t))   # 1 spatial dim as a row
    positions, kernel = two(g.shape[2:], 1), two(w.shape[2:], 1)
    pad, steps, dil = two(padding, 0), two(stride, 1), two(dilation, 1)
    p = _prod(positions)
    wl = np.moveaxis(w, 1, -1).reshape(o, -1)               # (O, K*C), the gather's order
    result = np.empty((n, c) + tuple(size), g.dtype)
    image = result.reshape((n, c) + two(size, 1))
    chunks, parallel = _chunks(n, p, p * wl.size * g.itemsize // o)
    copy = _copy_serial if parallel else _copy

    def chunk(k, i, j):
        gl = _buffer("last", (j - i,) + g.shape[2:] + (o,), g.dtype)
        copy(gl, np.moveaxis(g[i:j], 1, -1))
        cols = np.matmul(gl.reshape(-1, o), wl, out=_buffer("cols_last", ((j - i) * p, wl.shape[1]), g.dtype))
        kern.col2im_2d(cols.reshape((j - i,) + positions + kernel + (c,)), image[i:j], *pad, *steps, *dil)
    _over_chunks(chunk, chunks, parallel, n * p * wl.size // 6)
    return result


def _weight_grad_last(g, x, kernel, stride, padding, dilation):
    """_weight_grad with groups=1 through channels-last im2col chunks: per chunk, g as (O, B*P)
    (planes copied as they lie) times the chunk's (B*P, K*C) matrix; the chunks' products summed in
    order (at most _PARTIALS_LIMIT bytes of them: fewer, larger chunks where the weight is large)."""
    n, o, c, p = g.shape[0], g.shape[1], x.shape[1], _prod(g.shape[2:])
    kc = _prod(kernel) * c
    chunks, parallel = _chunks(n, p, p * kc * x.itemsize, max(1, _PARTIALS_LIMIT // (o * kc * x.itemsize)))
    products = np.empty((len(chunks), o, kc), x.dtype)
    copy = _copy_serial if parallel else _copy

    def chunk(k, i, j):
        windows = _windows_last(_last_padded(x[i:j], padding, padding, "last", copy), kernel, stride, dilation,
                                g.shape[2:])
        gc = _buffer("by_channel", (o, j - i, p), g.dtype)
        copy(gc, g[i:j].reshape(j - i, o, p).swapaxes(0, 1))
        np.matmul(gc.reshape(o, -1), _unfold_last(windows, copy), out=products[k])
    _over_chunks(chunk, chunks, parallel, n * p * o * kc // 6)
    gw = products.sum(0)
    return np.ascontiguousarray(np.moveaxis(gw.reshape((o,) + tuple(kernel) + (c,)), -1, 1))


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
    if not transposed:
        return _conv(input, weight, stride, padding, dilation, groups, bias)
    size = _conv_t_out_sizes(input.shape[2:], weight.shape[2:], stride, padding, dilation, output_padding)
    y = _conv_t(input, weight, stride, padding, dilation, groups, size)
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
    # complex: the gradient of a product reads the other factor conjugated
    input, weight = (np.conj(input), np.conj(weight)) if np.iscomplexobj(input) or np.iscomplexobj(weight) \
        else (input, weight)
    if output_mask[0]:
        gi = (_conv(grad_output, weight, stride, padding, dilation, groups) if transposed else
              _conv_t(grad_output, weight, stride, padding, dilation, groups, input.shape[2:]))
        if transposed and gi.shape[2:] != input.shape[2:]:
            # output_padding's extra rows gave the convolution more positions than the input has
            gi = np.ascontiguousarray(gi[(slice(None), slice(None)) + tuple(slice(0, s) for s in input.shape[2:])])
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


def _aten_convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                               output_padding, groups, output_mask):
    """torch.ops.aten.convolution_backward: the outputs output_mask leaves out are undefined (None)."""
    grads = _convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                                  output_padding, groups, output_mask)
    return tuple(g if wanted else None for g, wanted in zip(grads, output_mask))


aten.convolution_backward = _aten_convolution_backward


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
def _conv_nd(parser, args, kwargs):
    """conv{1,2,3}d: torch's two overloads, padding as ints (0) or as a string (1)."""
    which, (input, weight, bias, stride, padding, dilation, groups) = parser.parse(args, kwargs)
    name = parser.name
    d = int(name[4])   # conv<d>d
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(f"Expected {d + 1}D (unbatched) or {d + 2}D (batched) input to {name}, but got input of "
                           f"size: {list(input.shape)}")
    unbatched = input.ndim == d + 1
    if unbatched:
        input = input.unsqueeze(0)
    if which == 1:
        input, padding = _string_padding(input, weight, padding, stride, dilation, d)
    out = convolution(input, weight, bias, stride, padding, dilation, False, [0] * d, groups)   # (torch's: d zeros)
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
        input = constant_pad_nd(input, pad, 0.0)
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
    # (d ints each, as torch's int[d] arguments read: its node saves them so)
    stride, padding, output_padding, dilation = (_ints(v, d, what, name) for v, what in (
        (stride, "stride"), (padding, "padding"), (output_padding, "output_padding"), (dilation, "dilation")))
    out = convolution(input, weight, bias, stride, padding, dilation, True, output_padding, groups)
    return out.squeeze(0) if unbatched else out


_conv1d_args = Parser("conv1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, int[1] padding=0, "
                      "int[1] dilation=1, int groups=1)",
                      "conv1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, str padding=\"valid\", "
                      "int[1] dilation=1, int groups=1)")
_conv2d_args = Parser("conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, "
                      "int[2] dilation=1, int groups=1)",
                      "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, str padding=\"valid\", "
                      "int[2] dilation=1, int groups=1)")
_conv3d_args = Parser("conv3d(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, int[3] padding=0, "
                      "int[3] dilation=1, int groups=1)",
                      "conv3d(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, str padding=\"valid\", "
                      "int[3] dilation=1, int groups=1)")


@register()
@_conv1d_args.signature
def conv1d(*args, **kwargs):
    return _conv_nd(_conv1d_args, args, kwargs)


@register()
@_conv2d_args.signature
def conv2d(*args, **kwargs):
    return _conv_nd(_conv2d_args, args, kwargs)


@register()
@_conv3d_args.signature
def conv3d(*args, **kwargs):
    return _conv_nd(_conv3d_args, args, kwargs)


@register()
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose_nd(1, input, weight, bias, stride, padding, output_padding, groups, dilation)


@register()
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose_nd(2, input, weight, bias, stride, padding, output_padding, groups, dilation)


@register()
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose_nd(3, input, weight, bias, stride, padding, output_padding, groups, dilation)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    n = input.ndim
    if n < 3:   # torch's im2col reads the sizes of dims 1 and 2 first
        raise IndexError("Dimension specified as 1 but tensor has no dimensions" if n == 0 else
                         f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {n})")
    if n != 4 and n != 3:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    return _im2col_op(input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    if input.ndim not in (2, 3):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    return _col2im_op(input, output_size, kernel_size, dilation, padding, stride)
