"""Pooling: average, max (with indices), adaptive, fractional and lp pooling, and max unpooling, on
the im2col primitives of convolution.py. Pooling backward kernels are ops of their own, so
create_graph records torch's ...BackwardBackward0 nodes. The user-facing functions with
torch.nn.functional's signatures are at the end (re-exported by ndgrad/nn/functional/pooling.py).
"""

import functools

import numpy as np

from .. import _parallel
from . import _fused
from ._registry import op, register
from ._schema import Parser
from ._scratch import buffer
from .activation import relu
from .convolution import (_batched, _channel_major, _col2im, _crop, _ints, _pad, _pad_scratch, _prod,
                          _type_word, _unbatch)
from .random import rand


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
    acc = np.dtype(np.float32) if x.dtype == np.float16 else x.dtype   # (torch sums half windows in float)
    sums = _window_sums(xp, kernel, stride, out, acc)
    div = _avg_divisor(size, out, kernel, stride, padding, count_include_pad, divisor_override, acc)
    return _unbatch((sums / div).astype(x.dtype, copy=False), unbatched)


def _window_sums(xp, kernel, stride, out, dtype):
    """The sum of each window of xp (N, C, *padded) in `dtype`: the windows' elements added offset by
    offset in the kernel's row-major order, torch's loop order (so its sums to the bit; a reduction
    over the windows' axes adds them in another order), one strided slice per offset."""
    lead = (slice(None), slice(None))
    total = None
    for offs in np.ndindex(*kernel):
        part = xp[lead + tuple(slice(o, o + st * (n - 1) + 1, st) for o, st, n in zip(offs, stride, out))]
        total = part.astype(dtype) if total is None else np.add(total, part, out=total, dtype=dtype)
    return total


def _avg_pool_backward(name, d, grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                       divisor_override):
    x, unbatched = _batched(self, d, name)
    g, _ = _batched(grad_output, d, name)
    kernel, stride, padding, _ = _pool_args(name, d, kernel_size, stride, padding)
    size = x.shape[2:]
    out = _pool_out_sizes(name, size, kernel, stride, padding, (1,) * d, ceil_mode)
    div = _avg_divisor(size, out, kernel, stride, padding, count_include_pad, divisor_override, g.dtype)
    if tuple(stride) == tuple(kernel) and not any(padding) and all(o * k == n for o, k, n in zip(out, kernel, size)):
        # windows that tile the input: each element's gradient is its window's, spread by one broadcast copy
        # (+0: col2im adds it to zeros, so -0.0 arrives as 0.0)
        q = (g / div).astype(g.dtype, copy=False) + g.dtype.type(0)
        res = np.empty(x.shape, q.dtype)
        tiles = res.reshape(x.shape[:2] + tuple(v for o, k in zip(out, kernel) for v in (o, k)))
        tiles[...] = q.reshape(q.shape[:2] + tuple(v for o in out for v in (o, 1)))
        return _unbatch(res, unbatched)
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


class _MaxPoolPlan:
    """What max pooling over spatial `size` needs besides the values, made once per geometry: the
    output size, the right padding, each kernel offset's strided view (as slices) and flat input
    index, each window's flat start index."""

    def __init__(self, name, size, kernel, stride, padding, dilation, ceil_mode):
        self.out = out = _pool_out_sizes(name, size, kernel, stride, padding, dilation, ceil_mode)
        self.pads = _pool_pads(size, out, kernel, stride, padding, dilation)
        offsets = list(np.ndindex(*kernel))
        lead = (slice(None), slice(None))
        self.views = [lead + tuple(slice(o * dl, o * dl + st * (n - 1) + 1, st)
                                   for o, dl, st, n in zip(offs, dilation, stride, out)) for offs in offsets]
        # the flat input index of window q's offset j: start(q) + offset(j), both per-dim sums
        self.start = _flat_index(np.ix_(*[np.arange(o) * st - p for o, st, p in zip(out, stride, padding)]), size)
        self.offset = np.array([_flat_index([o * dl for o, dl in zip(offs, dilation)], size) for offs in offsets],
                               np.int64)
        self.arg_dtype = np.int16 if len(offsets) < 2 ** 15 else np.int64
        first = []   # each window's first element inside the input (see _max_pool)
        for o, st, p, dl in zip(out, stride, padding, dilation):
            c = np.arange(o) * st - p
            first.append(c + np.where(c < 0, (-c + dl - 1) // dl, 0) * dl)
        self.first = _flat_index(np.ix_(*first), size)


_max_pool_plan = functools.lru_cache(maxsize=64)(_MaxPoolPlan)


def _max_pool(name, d, self, kernel_size, stride, padding, dilation, ceil_mode):
    x, unbatched = _batched(self, d, name)
    if 0 in self.shape[self.ndim - d - 1:]:   # channels and spatial dims; an empty batch is allowed
        raise RuntimeError(f"{name}: Expected input's non-batch dimensions to have positive length, but input has "
                           f"a shape of {list(self.shape)}")
    kernel, stride, padding, dilation = _pool_args(name, d, kernel_size, stride, padding, dilation)
    plan = _max_pool_plan(name, x.shape[2:], kernel, stride, padding, dilation, bool(ceil_mode))
    if kernel == stride == (2, 2) and padding == (0, 0) and dilation == (1, 1) and x.size and \
            plan.out == tuple(s // 2 for s in x.shape[2:]) and (fused := _fused.max_pool_2x2(x, plan.out)) is not None:
        return _unbatch(fused[0], unbatched), _unbatch(fused[1], unbatched)
    low = _lowest(x.dtype)
    vals = np.empty(x.shape[:2] + plan.out, x.dtype)
    idx = np.empty(vals.shape, np.int64)

    def samples(i, j):
        chunk = x[i:j]
        xp = _pad_scratch(chunk, padding, plan.pads, low, slot="max_pool")
        # torch's scan over each window (a later element wins if greater or NaN: the first of equal
        # maxima, the last NaN), run for all windows at once and branch-free: kernel offset j's elements
        # of every window are one strided view of the input, so no window is copied.
        views = [xp[v] for v in plan.views]
        v_out = vals[i:j]
        np.copyto(v_out, views[0])
        for v in views[1:]:
            np.maximum(v, v_out, out=v_out)   # ties keep the second operand, the earlier element (-0.0 vs 0.0)
        # the first offset holding the maximum: the count of offsets before it (temporaries in scratch
        # buffers: fresh ones would cost as much in page faults as the passes themselves)
        missing = np.not_equal(views[0], v_out, out=buffer("pool_missing", v_out.shape, bool))
        arg = buffer("pool_arg", v_out.shape, plan.arg_dtype)
        np.copyto(arg, missing)
        equal = buffer("pool_equal", v_out.shape, bool)
        for v in views[1:-1]:
            missing &= np.not_equal(v, v_out, out=equal)
            arg += missing
        if x.dtype.kind in "fc" and np.isnan(v_out.sum()):   # rare: NaN windows take their last NaN
            for k, v in enumerate(views):
                arg = np.where(np.isnan(v), k, arg)
        i_out = idx[i:j]
        np.take(plan.offset, arg, out=i_out)
        i_out += plan.start
        if xp is not chunk and (v_out == low).any():
            # torch's scan starts from its window's first element inside the input, which a window of
            # lowest values (-inf) keeps; the padding, equal to it, must not take its place
            np.copyto(i_out, plan.first, where=v_out == low)
    # (measured: ~2 ns an element)
    _parallel.run(samples, x.shape[0], 6 * x.size + vals.size * (2 * len(plan.views) + 3))
    return _unbatch(vals, unbatched), _unbatch(idx, unbatched)


def _max_pool_backward(grad_output, self, indices, d, disjoint=False):
    """Scatter-add grad_output into the input's shape at the argmax indices (per plane). Windows
    that cannot overlap (`disjoint`) have distinct indices: a plain scatter, in grad_output's dtype
    (bincount adds in float64, about 2.5x slower)."""
    planes = _prod(self.shape[:-d])
    plane_size = _prod(self.shape[-d:])
    per_plane = _prod(indices.shape[-d:])   # (not -1 in the reshape: there may be no plane)
    idx, grads = indices.reshape(planes, per_plane), grad_output.reshape(planes, per_plane)
    scatter = disjoint and grad_output.dtype.kind == "f"
    g = np.empty(planes * plane_size, grad_output.dtype)
    if scatter and planes and per_plane and _fused.scatter_planes(idx, grads, plane_size, g):
        return g.reshape(self.shape)

    def plane_range(a, b):   # planes a..b-1: their own part of g, indices made flat within it
        flat = np.add(idx[a:b], (np.arange(b - a) * plane_size)[:, None],
                      out=buffer("pool_flat", (b - a, per_plane), np.int64)).reshape(-1)
        part = g[a * plane_size:b * plane_size]
        if scatter:
            part.fill(0)
            part[flat] = grads[a:b].reshape(-1)
        else:
            part[...] = np.bincount(flat, weights=grads[a:b].reshape(-1), minlength=part.size)
    _parallel.run(plane_range, planes, g.size + 3 * grad_output.size)
    return g.reshape(self.shape)


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
    out, kernel = win.shape[2:2 + d], _prod(win.shape[2 + d:])   # (no -1 in the reshapes: N may be 0)
    pos = _flat_index(index[2:], size)
    pos = pos.reshape(pos.shape[:2] + (_prod(out), kernel))
    vals, idx = _argmax_windows(win.reshape((n, c, _prod(out), kernel)), pos, 3)
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
        if o + k - 1 > s:   # (torch names the 3-d check after its out= kernel)
            raise RuntimeError(f"{name}{'_out' if d == 3 else ''}(): pool {what} {k} too large relative to input "
                               f"{what} {s}")
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


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    if input.ndim not in (2, 3):
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D input, but got {list(input.shape)}")
    if input.dtype.is_complex or not input.dtype.is_floating_point:   # (max_pool2d takes integers)
        raise NotImplementedError(f"\"max_pool1d_impl\" not implemented for '{input.dtype.title}'")
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


max_pool1d = _values_or_both(max_pool1d_with_indices)
max_pool2d = _values_or_both(max_pool2d_with_indices)
max_pool3d = _values_or_both(max_pool3d_with_indices)


def _aten_max_pool(fn, with_indices):
    """torch.max_poolNd (and torch.max_pool1d_with_indices): aten's schema, without nn.functional's
    return_indices; an omitted stride is the kernel size."""
    d = fn.__name__[8]
    name = f"max_pool{d}d" + ("_with_indices" if with_indices else "")
    parser = Parser(f"{name}(Tensor input, int[{d}] kernel_size, int[{d}] stride=[], int[{d}] padding=0, "
                    f"int[{d}] dilation=1, bool ceil_mode=False)")

    @parser.signature
    def pool(*args, **kwargs):
        _, values = parser.parse(args, kwargs)
        out = fn(*values)
        return out if with_indices else out[0]
    pool.__name__ = pool.__qualname__ = name
    return register(name)(pool)


for _fn in (max_pool1d_with_indices, max_pool2d_with_indices, max_pool3d_with_indices):
    _aten_max_pool(_fn, False)
_aten_max_pool(max_pool1d_with_indices, True)


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


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool1d(input, output_size, True)


_adaptive_max_pool1d_args = Parser("adaptive_max_pool1d(Tensor input, int[1] output_size)")


@register("adaptive_max_pool1d")   # torch.adaptive_max_pool1d returns (values, indices), takes no return_indices
@_adaptive_max_pool1d_args.signature
def _aten_adaptive_max_pool1d(*args, **kwargs):
    _, (input, output_size) = _adaptive_max_pool1d_args.parse(args, kwargs)
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
            _random_samples = rand(n, input.shape[-d - 1], d, dtype=input.dtype)
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
    return (out.sign() * relu(out.abs())).mul(_prod(kernel)).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)
