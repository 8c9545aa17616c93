"""Kernels compiled with numba, where it is installed (the `fast` extra), for the passes NumPy runs
far slower than torch's fused C++: NumPy makes one call per operation, and a pass that broadcasts a
vector per row restarts its loop every row (layer norm's backward on a transformer's (1024, 256)
float32 activations took 7x torch's kernel). The callers (normalization, activation, pooling,
recurrent) fall back to their NumPy passes where numba is absent, where these arrays are not NumPy
float32/float64 of one dtype, or with NDGRAD_NUMBA=0 (`enabled = False` here, as the tests do).

Two kinds of kernel:
- layer, batch and group norm, softmax and its backward: their row and channel sums are added in another
  (vectorised) order than NumPy's; results agree with NumPy's to rounding, not to the bit (neither
  path matches torch's bits there). So do the gather of a float32 convolution's input gradient and
  the depthwise convolutions (convolution.py calls those kernels itself). Which path runs depends on the
  arrays' dtype and size only (MIN_SIZE), so that a compiled tape and eager code, or two runs, give
  the same bits;
- ReLU's and max pooling's backward, 2x2 max pooling, masked_fill under a mask over the last dims, copies
  of transposed matrices,
  GELU's tanh form, an LSTM layer's steps,
  embedding's weight gradient and index_add along dim 0 (index_select's backward):
  selections, or NumPy's elementwise operations in NumPy's order (the same roundings): NumPy's bits.
Work splits over _parallel's threads in fixed pieces (rows, channels, planes, blocks): the bits do not
depend on the thread count. numba is imported and the kernels compiled (cached on disk) on the first
call that uses one: never at `import ndgrad`.
"""
import os

import numpy as np

from .. import _native, _parallel, _pool

enabled = os.environ.get("NDGRAD_NUMBA", "1") != "0"
# Arrays smaller than this keep NumPy's passes: there the kernels save microseconds, while loading numba
# costs a program that only ever sees small arrays (a tutorial's, a test's) about 0.3 s.
MIN_SIZE = 1 << 14
_kernels = None
_BLOCK = 64   # rows per block of the backward's column sums


def _compile():
    """The kernels (the module ops/_numba_kernels.py, kept in _kernels); None without numba."""
    global _kernels, enabled
    try:
        from . import _numba_kernels
        import scipy.linalg.cython_blas   # noqa: F401  (numba's products call SciPy's BLAS: loaded now, so that
    except ImportError:                   # one_blas_thread finds it too)
        enabled = False
        return None
    _native.rescan_blas()
    _kernels = _numba_kernels
    return _kernels


def kernels(*arrays, exact=False):
    """The compiled kernels (the module ops/_numba_kernels.py) where they take these arrays (None or
    NumPy float32/float64 arrays of one dtype, the first of MIN_SIZE elements, at least one, or more);
    None otherwise, or without numba. exact: the caller's kernel gives NumPy's bits (a selection), so
    that which path runs changes no number: then smaller arrays take it too once numba is loaded
    (MIN_SIZE only spares a program of small arrays loading it)."""
    if not enabled or arrays[0].size < MIN_SIZE and not (exact and _kernels is not None and arrays[0].size):
        return None
    dtype = arrays[0].dtype
    if dtype not in _FLOATS:
        return None
    for a in arrays:
        if a is not None and (type(a) is not np.ndarray or a.dtype != dtype):
            return None
    return _kernels or _compile()


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _split(job, part, n, work, arrays, scalars, step):
    """part(i, j) over range(n) (`work` units in all, see _parallel): as the compiled `job` on the native pool's
    threads in chunks of `step` where it runs and the arrays are large enough to gain, else on _parallel's."""
    if arrays[0].size < _pool.MIN_ELEMENTS or not _pool.run(job.address, arrays, scalars, n, step):
        _parallel.run(part, n, work)


def _vector(v, d, dtype):
    return np.empty(0, dtype) if v is None else np.ascontiguousarray(v).reshape(d)


def layer_norm(x, d, weight, bias, eps, keep):
    """(out, mean, rstd[, xhat]) of layer norm over the last dims (D = d elements) of x, with mean
    and rstd as (rows, 1); None where the kernels are unavailable or do not take these arrays."""
    if (k := kernels(x, weight, bias)) is None:
        return None
    rows = np.ascontiguousarray(x).reshape(-1, d)
    n, dtype = rows.shape[0], x.dtype
    out = np.empty(rows.shape, dtype)
    xhat = np.empty(rows.shape, dtype) if keep else np.empty((0, 0), dtype)
    mean, rstd = np.empty((n, 1), dtype), np.empty((n, 1), dtype)
    w, b = _vector(weight, d, dtype), _vector(bias, d, dtype)
    eps, size = dtype.type(eps), dtype.type(d)

    def part(i, j):
        k.ln_forward(rows, w, b, eps, size, out, xhat, mean.reshape(n), rstd.reshape(n), i, j)
    _split(k.ln_forward_job, part, n, 3 * rows.size, (rows, w, b, out, xhat, mean.reshape(n), rstd.reshape(n)),
           (float(eps), float(size)), max(1, _pool.CHUNK // d))
    return (out, mean, rstd) + ((xhat,) if keep else ())


def layer_norm_backward(g, x, d, mean, rstd, weight, kept):
    """(grad_input, grad_weight, grad_bias) as (rows, D), (D,), (D,) arrays; None as layer_norm."""
    if (k := kernels(x, g, mean, rstd, weight, kept)) is None:
        return None
    gr, xr = np.ascontiguousarray(g).reshape(-1, d), np.ascontiguousarray(x).reshape(-1, d)
    n, dtype = xr.shape[0], x.dtype
    blocks = -(-n // _BLOCK)
    gi = np.empty(xr.shape, dtype)
    gw, gb = np.zeros((blocks, d), dtype), np.zeros((blocks, d), dtype)
    w = _vector(weight, d, dtype)
    kept = np.empty((0, 0), dtype) if kept is None else np.ascontiguousarray(kept).reshape(-1, d)
    m, r = np.ascontiguousarray(mean).reshape(n), np.ascontiguousarray(rstd).reshape(n)
    size = dtype.type(d)

    def part(i, j):
        k.ln_backward(gr, xr, m, r, w, kept, size, gi, gw, gb, _BLOCK, i, j)
    _split(k.ln_backward_job, part, blocks, 5 * xr.size, (gr, xr, m, r, w, kept, gi, gw, gb),
           (float(size), float(_BLOCK)), 1)
    return gi, gw.sum(0), gb.sum(0)


def softmax_rows(x, e):
    """e = softmax of x along the rows of (rows, n) C-contiguous arrays (n > 0; e may be x): the row max and
    the shift compiled, NumPy's exp (numba's is several times slower), the row sums compiled; False where
    the kernels are unavailable or do not take these arrays."""
    if (k := kernels(x, e)) is None:
        return False

    def part(i, j):
        k.softmax_shift(x, e, i, j)
        np.exp(e[i:j], out=e[i:j])
        k.softmax_scale(e, i, j)
    _parallel.run(part, x.shape[0], 5 * x.size)
    return True


def softmax_backward_rows(g, y, gi):
    """gi = (g - sum(g y)) y along the rows of (rows, n) arrays (y not empty; gi may be g), softmax's
    backward; False where the kernels are unavailable or do not take these arrays."""
    if (k := kernels(y, g, gi)) is None:
        return False

    def part(i, j):
        k.softmax_backward(g, y, gi, i, j)
    _split(k.softmax_backward_job, part, y.shape[0], 3 * y.size, (g, y, gi), (), max(1, _pool.CHUNK // y.shape[1]))
    return True


def batch_norm(x, weight, bias, mean, invstd, training, eps):
    """(out, mean, var, invstd) of batch norm over x (N, C, P) (training: the batch's statistics; else
    `mean` and `invstd` normalise, and var is None); None where the kernels do not take these arrays."""
    if (k := kernels(x, weight, bias, *((mean, invstd) if not training else ()))) is None:
        return None
    n, c = x.shape[:2]
    x, dtype = np.ascontiguousarray(x), x.dtype
    out = np.empty(x.shape, dtype)
    if training:
        mean, var, invstd = (np.empty(c, dtype) for _ in range(3))
    else:
        mean, invstd, var = np.ascontiguousarray(mean).reshape(c), np.ascontiguousarray(invstd).reshape(c), None
    w, b = _vector(weight, c, dtype), _vector(bias, c, dtype)
    count = dtype.type(n * x.shape[2])
    stats = var if training else mean   # (in evaluation a stand-in for var, which the kernel leaves alone)

    def part(i, j):
        k.bn_forward(x, w, b, dtype.type(eps), count, training, mean, stats, invstd, out, i, j)
    _parallel.run(part, c, x.size * (3 if training else 2))
    return out, mean, var, invstd


def batch_norm_backward(g, x, mean, invstd, weight, training):
    """(grad_input, sum of g, sum of g (x - mean)) per channel, over (N, C, P) arrays; None as there."""
    if (k := kernels(x, g, mean, invstd, weight)) is None:
        return None
    c, dtype = x.shape[1], x.dtype
    g, x = np.ascontiguousarray(g), np.ascontiguousarray(x)
    gi = np.empty(x.shape, dtype)
    sum_g, sum_gd = np.empty(c, dtype), np.empty(c, dtype)
    m, r = (np.ascontiguousarray(a).reshape(c) for a in (mean, invstd))
    w = _vector(weight, c, dtype)
    count = dtype.type(x.shape[0] * x.shape[2])

    def part(i, j):
        k.bn_backward(g, x, m, r, w, count, training, gi, sum_g, sum_gd, i, j)
    _parallel.run(part, c, x.size * 3)
    return gi, sum_g, sum_gd


def transposed_copy(x):
    """A C-contiguous copy of x (2 to 4 dims) whose second-to-last axis is the one adjacent in memory (a
    transposed matrix, attention's k^T) by tiles (NumPy's copy reads it with a stride per element); None
    where the kernels do not take it."""
    if type(x) is not np.ndarray or x.size < MIN_SIZE or not 2 <= x.ndim <= 4 or x.strides[-2] != x.itemsize \
            or x.shape[-2] < 2 or (k := kernels(x)) is None:
        return None
    x4 = x.reshape((1,) * (4 - x.ndim) + x.shape) if x.ndim < 4 else x   # (leading 1s: a view)
    out = np.empty(x.shape, x.dtype)
    o4 = out.reshape(x4.shape)

    def part(i, j):
        k.transposed_copy(x4, o4, i, j)
    _parallel.run(part, x4.shape[0] * x4.shape[1], 2 * x.size)
    return out


def masked_fill(x, mask, value):
    """x with `value` (a 0-d array of x's dtype) where the bool `mask` is set, for a C-contiguous x and a mask
    whose shape is the end of x's (an attention mask over a batch of heads), in one pass; None where the
    kernels do not take these arrays."""
    if type(mask) is not np.ndarray or mask.dtype != np.bool_ or type(x) is not np.ndarray \
            or not x.flags.c_contiguous or mask.ndim > x.ndim or (k := kernels(x)) is None:
        return None
    while mask.ndim and mask.shape[0] == 1:   # (nanoGPT's (1, 1, T, T) causal mask: its last dims)
        mask = mask[0]
    if mask.shape != x.shape[x.ndim - mask.ndim:] or not mask.size:
        return None
    rows, flat = x.reshape(-1, mask.size), np.ascontiguousarray(mask).reshape(-1)
    out = np.empty(x.shape, x.dtype)
    dest, v = out.reshape(rows.shape), x.dtype.type(value)

    def part(i, j):
        k.masked_fill_rows(rows, flat, v, dest, i, j)
    _split(k.masked_fill_rows_job, part, rows.shape[0], 3 * x.size, (rows, dest, flat), (float(v),),
           max(1, _pool.CHUNK // flat.size))
    return out


def threshold_backward(g, x, threshold):
    """g where x > threshold, else 0 (a NaN x passes g): ReLU's backward, for C-contiguous arrays of
    one shape; None where the kernels do not take these."""
    if g.shape != x.shape or not (g.flags.c_contiguous and x.flags.c_contiguous) or \
            (k := kernels(x, g, exact=True)) is None:
        return None
    out = np.empty(x.shape, x.dtype)
    gf, xf, of = g.reshape(-1), x.reshape(-1), out.reshape(-1)
    t, zero = x.dtype.type(threshold), x.dtype.type(0)
    if of.size < MIN_SIZE:   # (one thread's work)
        k.threshold_backward(gf, xf, t, zero, of)
        return out

    def part(i, j):
        k.threshold_backward(gf[i:j], xf[i:j], t, zero, of[i:j])
    _split(k.threshold_backward_job, part, of.size, 3 * of.size, (gf, xf, of), (float(t), float(zero)), _pool.CHUNK)
    return out


def scatter_planes(idx, grads, plane_size, out):
    """out (planes * plane_size, zeroed here) with each plane's grads (planes, k) written at its int64
    indices idx (planes, k), distinct within a plane (max pooling's backward over windows that do not
    overlap: no sums, NumPy's bits); False where the kernels do not take these or an index is outside
    its plane (the caller's NumPy scatter then does what it does with such indices)."""
    if type(idx) is not np.ndarray or idx.dtype != np.int64 or (k := kernels(out, grads)) is None:
        return False
    idx, grads = np.ascontiguousarray(idx), np.ascontiguousarray(grads)
    inside = []

    def part(i, j):
        inside.append(k.scatter_planes(idx, grads, plane_size, out, i, j))
    _parallel.run(part, idx.shape[0], out.size + 3 * grads.size)
    return all(inside)


def max_pool_2x2(x, out):
    """(values, int64 indices within each plane) of x (N, C, H, W) max-pooled over 2x2 windows at
    stride 2 without padding onto spatial `out` (H // 2, W // 2), torch's scan (selections only:
    NumPy's path's bits); None where the kernels do not take x."""
    if (k := kernels(x)) is None:
        return None
    n, c = x.shape[:2]
    planes = np.ascontiguousarray(x).reshape((n * c,) + x.shape[2:])
    vals = np.empty((n * c,) + tuple(out), x.dtype)
    idx = np.empty(vals.shape, np.int64)

    def part(i, j):
        k.max_pool_2x2(planes, vals, idx, i, j)
    _parallel.run(part, planes.shape[0], planes.size + 3 * vals.size)
    return vals.reshape((n, c) + tuple(out)), idx.reshape((n, c) + tuple(out))


def group_norm(x, groups, weight, bias, eps):
    """(out, mean, rstd) of group norm over x (N, C, P) in `groups` groups, mean and rstd as (N, groups);
    None where the kernels do not take these arrays."""
    if (k := kernels(x, weight, bias)) is None:
        return None
    n, c = x.shape[:2]
    x, dtype = np.ascontiguousarray(x), x.dtype
    out = np.empty(x.shape, dtype)
    mean, rstd = np.empty(n * groups, dtype), np.empty(n * groups, dtype)
    w, b = _vector(weight, c, dtype), _vector(bias, c, dtype)
    args = (groups, w, b, dtype.type(eps), dtype.type(c // groups * x.shape[2]), out, mean, rstd)

    def part(i, j):
        k.gn_forward(x, *args, i, j)
    _parallel.run(part, n * groups, 3 * x.size)
    return out, mean.reshape(n, groups), rstd.reshape(n, groups)


def group_norm_backward(g, x, groups, mean, rstd, weight):
    """(grad_input, grad_weight, grad_bias) of group norm over (N, C, P) arrays; None as group_norm."""
    if (k := kernels(x, g, mean, rstd, weight)) is None:
        return None
    n, c = x.shape[:2]
    g, x, dtype = np.ascontiguousarray(g), np.ascontiguousarray(x), x.dtype
    gi, gw, gb = np.empty(x.shape, dtype), np.empty((n, c), dtype), np.empty((n, c), dtype)
    m, r = np.ascontiguousarray(mean).reshape(-1), np.ascontiguousarray(rstd).reshape(-1)
    args = (groups, m, r, _vector(weight, c, dtype), dtype.type(c // groups * x.shape[2]), gi, gw, gb)

    def part(i, j):
        k.gn_backward(g, x, *args, i, j)
    _parallel.run(part, n * groups, 4 * x.size)
    return gi, gw.sum(0), gb.sum(0)


def scatter_add_rows(idx, g, rows, out=None):
    """zeros (rows, D), or `out` (C-contiguous, (rows, D)) in place, plus g's rows (n, D) added at the
    int64/int32 indices idx (n,) in order, as np.add.at adds them (its bits): embedding's weight gradient,
    index_add along dim 0; None where the kernels do not take these or an index is outside [0, rows)
    (out then half-updated: the caller's copy, which it discards)."""
    if type(idx) is not np.ndarray or idx.dtype.kind != "i" or (k := kernels(g, out)) is None:
        return None
    g = np.ascontiguousarray(g)
    out = np.zeros((rows, g.shape[1]), g.dtype) if out is None else out
    inside = []

    def part(i, j):   # each thread adds into its own range of rows, every index read in order
        inside.append(k.scatter_add_rows(idx, g, out, i, j))
    _parallel.run(part, rows, 2 * g.size + idx.size * 2)
    return out if all(inside) else None
