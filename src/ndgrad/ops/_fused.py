"""Kernels compiled with numba, where it is installed (the `fast` extra), for the passes NumPy runs
far slower than torch's fused C++: NumPy makes one call per operation, and a pass that broadcasts a
vector per row restarts its loop every row (layer norm's backward on a transformer's (1024, 256)
float32 activations took 7x torch's kernel). The callers (normalization, activation, pooling,
recurrent) fall back to their NumPy passes where numba is absent, where these arrays are not NumPy
float32/float64 of one dtype, or with NDGRAD_NUMBA=0 (`enabled = False` here, as the tests do).

Two kinds of kernel:
- layer norm, batch norm, softmax's backward: their row and channel sums are added in another
  (vectorised) order than NumPy's; results agree with NumPy's to rounding, not to the bit (neither
  path matches torch's bits there). Which path runs depends on the arrays' dtype and size only
  (MIN_SIZE), so that a compiled tape and eager code, or two runs, give the same bits;
- ReLU's and max pooling's backward, 2x2 max pooling, GELU's tanh form, an LSTM layer's steps:
  selections, or NumPy's elementwise operations in NumPy's order (the same roundings): NumPy's bits.
Work splits over _parallel's threads in fixed pieces (rows, channels, planes, blocks): the bits do not
depend on the thread count. numba is imported and the kernels compiled (cached on disk) on the first
call that uses one: never at `import ndgrad`.
"""
import os
import types

import numpy as np

from .. import _parallel

enabled = os.environ.get("NDGRAD_NUMBA", "1") != "0"
# Arrays smaller than this keep NumPy's passes: there the kernels save microseconds, while loading numba
# costs a program that only ever sees small arrays (a tutorial's, a test's) about 0.3 s.
MIN_SIZE = 1 << 14
_kernels = None
_BLOCK = 64   # rows per block of the backward's column sums


def _compile():
    """The kernels, as a namespace (kept in _kernels); None without numba."""
    global _kernels, enabled
    try:
        import numba
    except ImportError:
        enabled = False
        return None
    # Only the row sums may be reassociated (reassoc lets LLVM vectorise them; no other fast-math flag:
    # NaN and inf propagate as in NumPy); every elementwise value is computed as the NumPy passes do,
    # so that the forward's kept xhat and the backward's recomputed one are the same bits.
    summing = numba.njit(nogil=True, cache=True, fastmath={"reassoc"})
    jit = numba.njit(nogil=True, cache=True)

    @summing
    def total(a):   # (rows are never empty; a first term, not a zero of a's dtype, starts each sum)
        s = a[0]
        for j in range(1, a.shape[0]):
            s += a[j]
        return s

    @summing
    def squares_about(a, m):
        s = (a[0] - m) * (a[0] - m)
        for j in range(1, a.shape[0]):
            c = a[j] - m
            s += c * c
        return s

    @summing
    def dot(a, b):
        s = a[0] * b[0]
        for j in range(1, a.shape[0]):
            s += a[j] * b[j]
        return s

    @jit
    def forward(x, w, b, eps, d, out, xhat, mean, rstd, lo, hi):
        # x (rows, D); w, b: (D,) or empty (absent); xhat: (rows, D), or empty when not kept
        one = d / d
        for i in range(lo, hi):
            row, o = x[i], out[i]
            m = total(row) / d
            r = one / np.sqrt(squares_about(row, m) / d + eps)
            mean[i] = m
            rstd[i] = r
            for j in range(row.shape[0]):
                h = (row[j] - m) * r
                if xhat.shape[0]:
                    xhat[i, j] = h
                if w.shape[0]:
                    h = h * w[j]
                if b.shape[0]:
                    h = h + b[j]
                o[j] = h

    @jit
    def backward(g, x, mean, rstd, w, kept, d, gi, gw, gb, block, lo, hi):
        # blocks lo..hi of `block` rows; gw, gb: (blocks, D) column sums of g * xhat and g per block
        n, size = x.shape
        h, gw_row = np.empty(size, x.dtype), np.empty(size, x.dtype)   # the row's xhat and g * w
        for k in range(lo, hi):
            for i in range(k * block, min(n, (k + 1) * block)):
                m, r = mean[i], rstd[i]
                gr, xr, out = g[i], x[i], gi[i]
                for j in range(size):
                    h[j] = kept[i, j] if kept.shape[0] else (xr[j] - m) * r
                    gw[k, j] += gr[j] * h[j]
                    gb[k, j] += gr[j]
                    gw_row[j] = gr[j] * w[j] if w.shape[0] else gr[j]
                a = total(gw_row) / d
                c = dot(gw_row, h) / d
                for j in range(size):
                    out[j] = (gw_row[j] - a - h[j] * c) * r

    @jit
    def softmax_backward(g, y, gi, lo, hi):
        for i in range(lo, hi):
            gr, yr, out = g[i], y[i], gi[i]
            s = dot(gr, yr)
            for j in range(yr.shape[0]):
                out[j] = (gr[j] - s) * yr[j]

    @summing
    def products_about(a, b, m):
        s = a[0] * (b[0] - m)
        for j in range(1, a.shape[0]):
            s += a[j] * (b[j] - m)
        return s

    @jit
    def bn_forward(x, w, b, eps, count, training, mean, var, invstd, out, lo, hi):
        # x, out: (N, C, P); channels lo..hi; training: the batch's statistics into mean, var, invstd,
        # else those given (mean, invstd) normalise
        for c in range(lo, hi):
            if training:
                s = total(x[0, c])
                for i in range(1, x.shape[0]):
                    s += total(x[i, c])
                m = s / count
                v = squares_about(x[0, c], m)
                for i in range(1, x.shape[0]):
                    v += squares_about(x[i, c], m)
                v = v / count
                mean[c], var[c] = m, v
                invstd[c] = count / count / np.sqrt(v + eps)
            m, r = mean[c], invstd[c]
            scale = r * w[c] if w.shape[0] else r   # as torch's kernel: x * scale + shift
            shift = b[c] - m * scale if b.shape[0] else -m * scale
            for i in range(x.shape[0]):
                xr, o = x[i, c], out[i, c]
                for j in range(xr.shape[0]):
                    o[j] = xr[j] * scale + shift

    @jit
    def bn_backward(g, x, mean, invstd, w, count, training, gi, sum_g, sum_gd, lo, hi):
        for c in range(lo, hi):
            m, r = mean[c], invstd[c]
            sg = total(g[0, c])
            sgd = products_about(g[0, c], x[0, c], m)
            for i in range(1, x.shape[0]):
                sg += total(g[i, c])
                sgd += products_about(g[i, c], x[i, c], m)
            sum_g[c], sum_gd[c] = sg, sgd
            k = r * w[c] if w.shape[0] else r
            a = -k * r * r * sgd / count   # gi = g k + ((x - mean) a - b) in training, g k otherwise
            bb = k * sg / count
            for i in range(x.shape[0]):
                gr, xr, o = g[i, c], x[i, c], gi[i, c]
                for j in range(xr.shape[0]):
                    o[j] = gr[j] * k + ((xr[j] - m) * a - bb) if training else gr[j] * k

    @jit
    def threshold_backward(g, x, threshold, zero, out):
        # a selection (no arithmetic: NumPy's bits), in one pass where NumPy's takes three
        for i in range(x.shape[0]):
            out[i] = zero if x[i] <= threshold else g[i]   # (a NaN input passes its gradient)

    @jit
    def scatter_planes(idx, grads, plane_size, out, lo, hi):
        # planes lo..hi of out (planes * plane_size): zeros, then each plane's grads at its indices (distinct
        # within a plane); False, with the planes left part-written, at an index outside its plane
        for p in range(lo, hi):
            base = p * plane_size
            out[base:base + plane_size] = 0
            for j in range(idx.shape[1]):
                k = idx[p, j]
                if k < 0 or k >= plane_size:
                    return False
                out[base + k] = grads[p, j]
        return True

    # GELU's tanh form around NumPy's tanh (numba's is several times slower): the NumPy passes'
    # operations, each rounded in x's dtype in the same order (the same bits), in one pass each side
    @jit
    def gelu_inner(x, c, one, k, t):
        for j in range(x.shape[0]):
            v = x[j]
            t[j] = ((v * v * c + one) * v) * k   # k (x + c x^3), as (x x c + 1) x k

    @jit
    def gelu_outer(t, x, one, half, out):
        for j in range(x.shape[0]):
            out[j] = (t[j] + one) * x[j] * half

    @jit
    def gelu_slope_inner(x, c15k, half_k, c, one, k, s, t, with_t):
        for j in range(x.shape[0]):
            v = x[j]
            u = v * v
            s[j] = (u * c15k + half_k) * v   # 0.5 x du/dx
            if with_t:
                t[j] = ((u * c + one) * v) * k

    @jit
    def gelu_slope_outer(t, s, g, one, half, out):
        for j in range(t.shape[0]):
            d = (t[j] + one) * ((s[j] * (one - t[j])) + half)
            out[j] = d * g[j] if g.shape[0] else d

    @jit
    def max_pool_2x2(x, vals, idx, lo, hi):
        # 2x2 windows, stride 2, no padding: torch's scan of each window (a later element wins if
        # greater or NaN: the first of equal maxima, the last NaN), written branch-free to vectorise
        w_in = x.shape[2]
        for p in range(lo, hi):
            for oh in range(vals.shape[1]):
                r0, r1 = x[p, 2 * oh], x[p, 2 * oh + 1]
                vo, io = vals[p, oh], idx[p, oh]
                top = 2 * oh * w_in
                for ow in range(vals.shape[2]):
                    j = 2 * ow
                    best, at = r0[j], top + j
                    v = r0[j + 1]
                    u = (v > best) | (v != v)
                    best, at = (v, top + j + 1) if u else (best, at)
                    v = r1[j]
                    u = (v > best) | (v != v)
                    best, at = (v, top + w_in + j) if u else (best, at)
                    v = r1[j + 1]
                    u = (v > best) | (v != v)
                    best, at = (v, top + w_in + j + 1) if u else (best, at)
                    vo[ow], io[ow] = best, at

    # An LSTM layer's step (ops/recurrent.py), between its products and tanh: NumPy's operations in
    # NumPy's order (the same bits), one pass where NumPy makes five to seven calls on small arrays
    @jit
    def lstm_gates(a, scale, shift, c, c_new):
        # a (N, 4H): tanh of the pre-activations, made the gates (i, f, g, o); c_new = f c + i g
        hidden = c.shape[1]
        for b in range(a.shape[0]):
            for j in range(a.shape[1]):
                a[b, j] = a[b, j] * scale[j] + shift[j]
            for j in range(hidden):
                c_new[b, j] = a[b, hidden + j] * c[b, j] + a[b, j] * a[b, 2 * hidden + j]

    @jit
    def lstm_back_step(dh, dout, dc_dh, dc, f_ifg, f_o, forget, d_ifg, d_o):
        # dh += dout; dc += dh dc_dh; d_ifg = f_ifg dc (per gate); d_o = f_o dh; dc *= forget
        for b in range(dh.shape[0]):
            for j in range(dh.shape[1]):
                h = dh[b, j] + dout[b, j] if dout.shape[0] else dh[b, j]
                dh[b, j] = h
                d = dc[b, j] + h * dc_dh[b, j]
                for k in range(3):
                    d_ifg[b, k, j] = f_ifg[b, k, j] * d
                d_o[b, j] = f_o[b, j] * h
                dc[b, j] = d * forget[b, j]

    _kernels = types.SimpleNamespace(
        ln_forward=forward, ln_backward=backward, softmax_backward=softmax_backward, bn_forward=bn_forward,
        bn_backward=bn_backward, threshold_backward=threshold_backward, scatter_planes=scatter_planes,
        gelu_inner=gelu_inner, gelu_outer=gelu_outer, gelu_slope_inner=gelu_slope_inner,
        gelu_slope_outer=gelu_slope_outer, max_pool_2x2=max_pool_2x2, lstm_gates=lstm_gates,
        lstm_back_step=lstm_back_step)
    return _kernels


def kernels(*arrays):
    """The compiled kernels (a namespace) where they take these arrays (None or NumPy float32/float64
    arrays of one dtype, the first of MIN_SIZE elements or more); None otherwise, or without numba."""
    if not enabled or arrays[0].size < MIN_SIZE or not arrays[0].size:
        return None
    dtype = arrays[0].dtype
    if dtype not in _FLOATS or not all(a is None or type(a) is np.ndarray and a.dtype == dtype for a in arrays):
        return None
    return _kernels or _compile()


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


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
    _parallel.run(part, n, 3 * rows.size)
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
    _parallel.run(part, blocks, 5 * xr.size)
    return gi, gw.sum(0), gb.sum(0)


def softmax_backward_rows(g, y, gi):
    """gi = (g - sum(g y)) y along the rows of (rows, n) arrays (y not empty; gi may be g), softmax's
    backward; False where the kernels are unavailable or do not take these arrays. (The forward stays
    NumPy's: numba's exp is several times slower than NumPy's, and a compiled row max that keeps NaN
    does not vectorise.)"""
    if (k := kernels(y, g, gi)) is None:
        return False

    def part(i, j):
        k.softmax_backward(g, y, gi, i, j)
    _parallel.run(part, y.shape[0], 3 * y.size)
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


def threshold_backward(g, x, threshold):
    """g where x > threshold, else 0 (a NaN x passes g): ReLU's backward, for C-contiguous arrays of
    one shape; None where the kernels do not take these."""
    if g.shape != x.shape or not (g.flags.c_contiguous and x.flags.c_contiguous) or (k := kernels(x, g)) is None:
        return None
    out = np.empty(x.shape, x.dtype)
    gf, xf, of = g.reshape(-1), x.reshape(-1), out.reshape(-1)
    t, zero = x.dtype.type(threshold), x.dtype.type(0)

    def part(i, j):
        k.threshold_backward(gf[i:j], xf[i:j], t, zero, of[i:j])
    _parallel.run(part, of.size, 3 * of.size)
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
