"""The kernels of ops/_fused.py, compiled with numba (imported from there on first use only: this
module imports numba). Module-level functions, so that numba's on-disk cache finds them again in the
next process (closures are compiled afresh each time)."""
import numba
import numpy as np
from numba import types

from .._numba_pointers import bool_at, f32_at, f64_at, i64_at


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
def ln_forward(x, w, b, eps, d, out, xhat, mean, rstd, lo, hi):
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
def ln_backward(g, x, mean, rstd, w, kept, d, gi, gw, gb, block, lo, hi):
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
def row_max(r):
    # eight running maxima: independent chains the CPU runs side by side (one chain waits on each compare;
    # LLVM keeps them scalar: maxss, not a vectorised max); a NaN never
    # becomes the max, but its own term makes the row's softmax NaN, as NumPy's NaN max does
    m0 = r[0]
    m1 = m2 = m3 = m4 = m5 = m6 = m7 = m0
    j, d = 0, r.shape[0]
    while j + 8 <= d:
        m0 = r[j] if r[j] > m0 else m0
        m1 = r[j + 1] if r[j + 1] > m1 else m1
        m2 = r[j + 2] if r[j + 2] > m2 else m2
        m3 = r[j + 3] if r[j + 3] > m3 else m3
        m4 = r[j + 4] if r[j + 4] > m4 else m4
        m5 = r[j + 5] if r[j + 5] > m5 else m5
        m6 = r[j + 6] if r[j + 6] > m6 else m6
        m7 = r[j + 7] if r[j + 7] > m7 else m7
        j += 8
    while j < d:
        m0 = r[j] if r[j] > m0 else m0
        j += 1
    m0 = m0 if m0 > m1 else m1
    m2 = m2 if m2 > m3 else m3
    m4 = m4 if m4 > m5 else m5
    m6 = m6 if m6 > m7 else m7
    m0 = m0 if m0 > m2 else m2
    m4 = m4 if m4 > m6 else m6
    return m0 if m0 > m4 else m4


@jit
def softmax_shift(x, out, lo, hi):
    # out = x - max along the rows lo..hi (out may be x)
    for i in range(lo, hi):
        r, o = x[i], out[i]
        m = row_max(r)
        for j in range(r.shape[0]):
            o[j] = r[j] - m


@jit
def softmax_scale(e, lo, hi):
    for i in range(lo, hi):
        r = e[i]
        s = total(r)
        for j in range(r.shape[0]):
            r[j] = r[j] / s


@jit
def row_totals(e, out):
    for i in range(e.shape[0]):
        out[i] = total(e[i])


@jit
def log_softmax_backward(g, e, gi):
    # gi = g - exp(y) sum(g) along the rows, e = exp(y) given
    for i in range(g.shape[0]):
        gr, er, o = g[i], e[i], gi[i]
        s = total(gr)
        for j in range(gr.shape[0]):
            o[j] = gr[j] - er[j] * s


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
def transposed_copy(x, out, lo, hi):
    # out = x (C-contiguous) for x (A, B, R, C) whose R axis is the one adjacent in memory: 32 x 32 tiles,
    # read down x's columns and written along out's rows while both stay in cache; planes lo..hi of A * B
    nb, rows, cols = x.shape[1], x.shape[2], x.shape[3]
    for p in range(lo, hi):
        xp, op = x[p // nb, p % nb], out[p // nb, p % nb]
        for c0 in range(0, cols, 32):
            c1 = min(c0 + 32, cols)
            for r0 in range(0, rows, 32):
                r1 = min(r0 + 32, rows)
                for c in range(c0, c1):
                    for r in range(r0, r1):
                        op[r, c] = xp[r, c]


@jit
def masked_fill_rows(x, mask, value, out, lo, hi):
    # a selection per element (no arithmetic: the input's bits where the mask is not set)
    for i in range(lo, hi):
        r, o = x[i], out[i]
        for j in range(r.shape[0]):
            o[j] = value if mask[j] else r[j]


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
def lstm_back_factors(acts, cells, tanh_cells, cx, reverse, one, factors, d_cell_out):
    # per step, batch row and unit: each gate's derivative times what the gate multiplies (i: g, f: the
    # previous cell, cx at the first step processed, g: i, o: tanh(c)), and d_cell_out = (1 - tanh(c)^2) o
    steps, hidden = cells.shape[0], cells.shape[2]
    for t in range(steps):
        p = t + 1 if reverse else t - 1
        prev = cx if p < 0 or p == steps else cells[p]
        for b in range(cells.shape[1]):
            a, f, tc = acts[t, b], factors[t, b], tanh_cells[t, b]
            for j in range(hidden):
                i, fg, g, o, c = a[j], a[hidden + j], a[2 * hidden + j], a[3 * hidden + j], tc[j]
                f[j] = g * ((one - i) * i)
                f[hidden + j] = prev[b, j] * ((one - fg) * fg)
                f[2 * hidden + j] = i * (one - g * g)
                f[3 * hidden + j] = c * ((one - o) * o)
                d_cell_out[t, b, j] = (one - c * c) * o


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


# Group norm: rows (n, group) of C/G planes of P elements, a weight and bias per channel
@jit
def gn_forward(x, groups, w, b, eps, d, out, mean, rstd, lo, hi):
    # x, out: (N, C, P); rows lo..hi of the N * groups; mean, rstd: (N * groups,)
    per = x.shape[1] // groups
    one = d / d
    for row in range(lo, hi):
        n, c0 = row // groups, (row % groups) * per
        s = total(x[n, c0])
        for c in range(c0 + 1, c0 + per):
            s += total(x[n, c])
        m = s / d
        v = squares_about(x[n, c0], m)
        for c in range(c0 + 1, c0 + per):
            v += squares_about(x[n, c], m)
        r = one / np.sqrt(v / d + eps)
        mean[row], rstd[row] = m, r
        for c in range(c0, c0 + per):
            xr, o = x[n, c], out[n, c]
            for j in range(xr.shape[0]):
                h = (xr[j] - m) * r
                if w.shape[0]:
                    h = h * w[c]
                if b.shape[0]:
                    h = h + b[c]
                o[j] = h


@jit
def gn_backward(g, x, groups, mean, rstd, w, d, gi, gw, gb, lo, hi):
    # gw, gb: (N, C) sums over each plane of g xhat and g (summed over N afterwards, in order)
    per = x.shape[1] // groups
    size = x.shape[2]
    h, gw_row = np.empty(size, x.dtype), np.empty(size, x.dtype)   # a plane's xhat and g * w
    for row in range(lo, hi):
        n, c0 = row // groups, (row % groups) * per
        m, r = mean[row], rstd[row]
        a = m - m
        cc = a
        for c in range(c0, c0 + per):
            gr, xr = g[n, c], x[n, c]
            for j in range(size):
                h[j] = (xr[j] - m) * r
                gw_row[j] = gr[j] * w[c] if w.shape[0] else gr[j]
            gw[n, c] = dot(gr, h)
            gb[n, c] = total(gr)
            a += total(gw_row)
            cc += dot(gw_row, h)
        a = a / d
        cc = cc / d
        for c in range(c0, c0 + per):
            gr, xr, o = g[n, c], x[n, c], gi[n, c]
            for j in range(size):
                hj = (xr[j] - m) * r
                gj = gr[j] * w[c] if w.shape[0] else gr[j]
                o[j] = (gj - a - hj * cc) * r


@jit
def scatter_add_rows(idx, g, out, lo, hi):
    # out[idx[k]] += g[k] for k in order (np.add.at's order: its bits), for the rows lo..hi of out;
    # False at an index outside out (the caller's np.add.at then wraps or raises)
    for k in range(idx.shape[0]):
        r = idx[k]
        if r < 0 or r >= out.shape[0]:
            return False
        if lo <= r < hi:
            o, gk = out[r], g[k]
            for j in range(gk.shape[0]):
                o[j] += gk[j]
    return True


@jit
def col2im_2d(cols, out, ph, pw, sh, sw, dh, dw):
    """The windows cols (N, Ho, Wo, KH, KW, C) summed into the image out (N, C, H, W) they were taken
    from (padding ph, pw; strides sh, sw; dilations dh, dw): each pixel gathers its terms in kernel order."""
    ho, wo, kh, kw, c = cols.shape[1:]
    acc = np.empty(c, out.dtype)
    for n in range(out.shape[0]):
        for h in range(out.shape[2]):
            for w in range(out.shape[3]):
                acc[:] = 0
                for ki in range(kh):
                    t = h + ph - ki * dh
                    if t < 0 or t % sh or t // sh >= ho:
                        continue
                    for kj in range(kw):
                        u = w + pw - kj * dw
                        if u < 0 or u % sw or u // sw >= wo:
                            continue
                        for ch in range(c):
                            acc[ch] += cols[n, t // sh, u // sw, ki, kj, ch]
                for ch in range(c):
                    out[n, ch, h, w] = acc[ch]


# ---- depthwise convolutions (one filter per channel, 2 spatial dims) ---------------------------------
# Each plane is its own small convolution: per row of output, the multiply-adds of every filter tap's
# row of input, while the row is in cache (tap by tap over whole planes ran 2.6x slower), each a loop
# over a contiguous row that LLVM vectorises; the batched GEMMs of the general path degenerate to
# (1, K) x (K, P) products there. Planes p = n * C + c in lo..hi; inputs and images padded. Sums run
# in another order than the GEMM path's: results agree to rounding.
@jit
def depthwise_forward(xp, w, bias, out, sh, sw, dh, dw, lo, hi):
    """out[n, c] = bias[c] (zeros without one) + sum over taps of w[c, ki, kj] times xp[n, c]'s strided
    window at that tap."""
    c_count, kh, kw = w.shape[0], w.shape[1], w.shape[2]
    ho, wo = out.shape[2], out.shape[3]
    for p in range(lo, hi):
        n, c = p // c_count, p % c_count
        o, x = out[n, c], xp[n, c]
        for i in range(ho):
            orow = o[i]
            for j in range(wo):
                orow[j] = bias[c]
            for ki in range(kh):
                for kj in range(kw):
                    wv = w[c, ki, kj]
                    # (a view from the tap's column on: its index j is plainly >= 0, so the loop vectorises)
                    if sw == 1:
                        xr = x[i * sh + ki * dh, kj * dw:kj * dw + wo]
                        for j in range(wo):
                            orow[j] += wv * xr[j]
                    else:
                        xs = x[i * sh + ki * dh, kj * dw::sw]
                        for j in range(wo):
                            orow[j] += wv * xs[j]


@jit
def depthwise_scatter(g, w, img, sh, sw, dh, dw, lo, hi):
    """img[n, c] (padded, zeroed by the caller) += each output gradient row times each tap's weight, at
    the rows and columns that tap read: the transposed convolution."""
    c_count, kh, kw = w.shape[0], w.shape[1], w.shape[2]
    ho, wo = g.shape[2], g.shape[3]
    for p in range(lo, hi):
        n, c = p // c_count, p % c_count
        gp, im = g[n, c], img[n, c]
        for i in range(ho):
            grow = gp[i]
            for ki in range(kh):
                for kj in range(kw):
                    wv = w[c, ki, kj]
                    if sw == 1:
                        irow = im[i * sh + ki * dh, kj * dw:kj * dw + wo]
                        for j in range(wo):
                            irow[j] += wv * grow[j]
                    else:
                        irs = im[i * sh + ki * dh, kj * dw::sw]
                        for j in range(wo):
                            irs[j] += wv * grow[j]


@summing
def _row_dot(a, b):
    s = a[0] * b[0]
    for j in range(1, a.shape[0]):
        s += a[j] * b[j]
    return s


@jit
def depthwise_weight_grad(a, bp, out, sh, sw, dh, dw, lo, hi):
    """out[c, ki, kj] = sum over the batch and positions of a[n, c] times bp[n, c]'s window at the tap,
    for channels lo..hi (bp padded; positions at least one): row by row, each tap's dot product added in turn."""
    kh, kw = out.shape[1], out.shape[2]
    ho, wo = a.shape[2], a.shape[3]
    for c in range(lo, hi):
        acc = out[c]
        first = True
        for n in range(a.shape[0]):
            ap, bpl = a[n, c], bp[n, c]
            for i in range(ho):
                arow = ap[i]
                for ki in range(kh):
                    for kj in range(kw):
                        if sw == 1:
                            d = _row_dot(arow, bpl[i * sh + ki * dh, kj * dw:kj * dw + wo])
                        else:
                            d = _row_dot(arow, bpl[i * sh + ki * dh, kj * dw::sw][:wo])
                        acc[ki, kj] = d if first else acc[ki, kj] + d
                first = False


# ---- stride-1 convolutions on the wide grid, sample by sample ---------------------------------------
# convolution.py's _Wide in compiled form: a sample's padded planes (C, L) laid out flat, each kernel
# tap's windows over a block of whole grid rows are one contiguous run of a plane, so the im2col matrix
# of the block is C*K row copies; one BLAS product per block (numba's np.dot: SciPy's OpenBLAS, held to
# the calling thread by the caller's one_blas_thread; blocks small enough to stay in cache), the valid
# columns copied out while in cache. NumPy's passes over whole-batch scratch arrays ran 2x longer than these, and
# smaller NumPy chunks pay Python per chunk under the GIL. Copies go through row views (an index that
# is plainly >= 0), so LLVM vectorises them.
@jit
def _pad_sample(x, s, pad, bh, bw, wpd):
    """x[s] (C, H, W) into the flat planes pad (C, L) at row bh, column bw of planes wpd wide (the
    rest of pad left as it is: zeros)."""
    for c in range(x.shape[1]):
        for r in range(x.shape[2]):
            base = (bh + r) * wpd + bw
            dst, src = pad[c, base:base + x.shape[3]], x[s, c, r]
            for k in range(x.shape[3]):
                dst[k] = src[k]


@jit
def _wide_cols(pad, cols, kh, kw, dh, dw, wpd, start):
    """cols (C*kh*kw, M): row (c, i, j) holds the M values of plane c from i*dh*wpd + j*dw + start on."""
    m = cols.shape[1]
    for c in range(pad.shape[0]):
        for i in range(kh):
            for j in range(kw):
                dst = cols[(c * kh + i) * kw + j]
                off = i * dh * wpd + j * dw + start
                src = pad[c, off:off + m]
                for k in range(m):
                    dst[k] = src[k]


@jit
def wide_conv(x, w2, bias, out, bh, bw, hp, wpd, kh, kw, dh, dw, rows, lo, hi):
    """out[s] (O, OH, OW) = w2 (O, C*kh*kw) times the windows of x[s] placed at (bh, bw) in zeros of
    (hp, wpd), plus bias (O), for samples lo..hi; `rows` grid rows per product."""
    c, o, ck = x.shape[1], w2.shape[0], w2.shape[1]
    oh, ow = out.shape[2], out.shape[3]
    pad = np.zeros((c, hp * wpd + (kw - 1) * dw), x.dtype)
    short = oh % rows   # (the last block's rows, if fewer: products of exact shapes)
    full_cols, full_y = np.empty((ck, rows * wpd), x.dtype), np.empty((o, rows * wpd), x.dtype)
    short_cols, short_y = np.empty((ck, short * wpd), x.dtype), np.empty((o, short * wpd), x.dtype)
    for s in range(lo, hi):
        _pad_sample(x, s, pad, bh, bw, wpd)
        for r0 in range(0, oh, rows):
            r1 = min(oh, r0 + rows)
            cols, y = (full_cols, full_y) if r1 - r0 == rows else (short_cols, short_y)
            _wide_cols(pad, cols, kh, kw, dh, dw, wpd, r0 * wpd)
            np.dot(w2, cols, y)
            for oc in range(o):
                bv = bias[oc]
                for r in range(r0, r1):
                    dst, src = out[s, oc, r], y[oc, (r - r0) * wpd:(r - r0) * wpd + ow]
                    for k in range(ow):
                        dst[k] = src[k] + bv


@jit
def wide_weight_grad(g, x, products, bh, bw, hp, wpd, kh, kw, dh, dw, rows, lo, hi):
    """products[b, s] (C*kh*kw, O) = the windows of x[s] placed at (bh, bw) in zeros of (hp, wpd) over the
    grid rows of block b times g[s]'s rows there (zeros in the extra columns), transposed, for samples
    lo..hi. (This way round OpenBLAS runs the long contraction up to 1.7x faster than g times the windows.)"""
    c, o, ck = x.shape[1], g.shape[1], x.shape[1] * kh * kw
    oh, ow = g.shape[2], g.shape[3]
    pad = np.zeros((c, hp * wpd + (kw - 1) * dw), x.dtype)
    short = oh % rows
    full_cols, full_g = np.empty((ck, rows * wpd), x.dtype), np.zeros((o, rows * wpd), x.dtype)
    short_cols, short_g = np.empty((ck, short * wpd), x.dtype), np.zeros((o, short * wpd), x.dtype)
    for s in range(lo, hi):
        _pad_sample(x, s, pad, bh, bw, wpd)
        for b, r0 in enumerate(range(0, oh, rows)):
            r1 = min(oh, r0 + rows)
            cols, gs = (full_cols, full_g) if r1 - r0 == rows else (short_cols, short_g)
            _wide_cols(pad, cols, kh, kw, dh, dw, wpd, r0 * wpd)
            for oc in range(o):
                for r in range(r0, r1):
                    dst, src = gs[oc, (r - r0) * wpd:(r - r0) * wpd + ow], g[s, oc, r]
                    for k in range(ow):
                        dst[k] = src[k]
            np.dot(cols, gs.T, products[b, s])


# ---- convolutions as one product per kernel tap (channels-last, no im2col) ---------------------------
# With many channels, each tap's windows over a sample's wide grid are rows of its channels-last padded
# planes (L, C) taken from the tap's offset: a (OH*wp, C) matrix with leading dimension C, as it lies. The
# output (OH*wp, O) is the sum over the taps of those matrices times the tap's (C, O) weight: BLAS products
# with beta=1 (NumPy's OpenBLAS's CBLAS sgemm, `gemm`, called on the calling thread), 90 GMAC/s against the
# im2col matrix's copy (9x the input for 3x3) and its 80. Columns wp - OW of each output row are computed
# and dropped (the wide grid's extra columns). With strides (sh, sw) the padded planes are stored as
# sh * sw phase planes (the pixels at (a, b) mod the strides), wp = ceil(padded width / sw) wide: a tap
# reads the phase of its offset, from the offset divided by the strides, again as rows as they lie.
@jit
def _last_sample(x, s, xl, bh, bw, sh, sw, wp):
    """x[s] (C, H, W) into the flat channels-last padded phase planes xl (sh * sw, L, C): the pixel at
    padded (R, S) = (bh + r, bw + c) in phase (R % sh, S % sw) at (R // sh) * wp + S // sw (the rest of
    xl left as it is: zeros)."""
    for r in range(x.shape[2]):
        rr = bh + r
        for k in range(x.shape[3]):
            cc = bw + k
            dst = xl[(rr % sh) * sw + cc % sw, (rr // sh) * wp + cc // sw]
            for c in range(x.shape[1]):
                dst[c] = x[s, c, r, k]


@jit
def _grid_rows_last(g, s, gl, wp):
    """g[s] (O, OH, OW) onto the wide grid gl (OH * wp, O), channels last (its extra columns left as
    they are: zeros)."""
    for r in range(g.shape[2]):
        for oc in range(g.shape[1]):
            src = g[s, oc, r]
            for j in range(g.shape[3]):
                gl[r * wp + j, oc] = src[j]


@jit
def _tap(k, kw, dh, dw, sh, sw, wp):
    """(phase plane, row offset) of tap k = (i, j)."""
    a, b = (k // kw) * dh, (k % kw) * dw
    return (a % sh) * sw + b % sw, (a // sh) * wp + b // sw


@jit
def taps_conv(gemm, x, wt, bias, out, bh, bw, hp, wp, kh, kw, sh, sw, dh, dw, lo, hi):
    """out[s] (O, OH, OW) = bias (O) + the sum over taps k = (i, j) of x[s]'s windows at the tap (x placed at
    (bh, bw) in zeros of (hp, sw * wp); strides (sh, sw)) times wt[k] (C, O), for samples lo..hi."""
    c, o = x.shape[1], wt.shape[2]
    oh, ow = out.shape[2], out.shape[3]
    q, size = oh * wp, x.itemsize
    xl = np.zeros((sh * sw, -(-hp // sh) * wp + kw * dw, c), x.dtype)
    y = np.empty((q, o), x.dtype)
    for s in range(lo, hi):
        _last_sample(x, s, xl, bh, bw, sh, sw, wp)
        for k in range(kh * kw):
            phase, off = _tap(k, kw, dh, dw, sh, sw, wp)
            gemm(101, 111, 111, q, o, c, 1.0, xl[phase].ctypes.data + off * c * size, c, wt[k].ctypes.data, o,
                 1.0 if k else 0.0, y.ctypes.data, o)
        for r in range(oh):
            for oc in range(o):
                dst, bv = out[s, oc, r], bias[oc]
                for j in range(ow):
                    dst[j] = y[r * wp + j, oc] + bv


@jit
def taps_weight_grad(gemm, g, x, partials, bh, bw, hp, wp, kh, kw, sh, sw, dh, dw, per, lo, hi):
    """partials[p, k] (C, O) = the sum, over the samples of chunk p (`per` samples, in order), of x's windows
    at tap k (x placed at (bh, bw) in zeros of (hp, sw * wp); strides (sh, sw)) transposed times g's rows on
    the wide grid (zeros in the extra columns), for chunks lo..hi."""
    n, c, o = x.shape[0], x.shape[1], g.shape[1]
    q, size = g.shape[2] * wp, x.itemsize
    xl = np.zeros((sh * sw, -(-hp // sh) * wp + kw * dw, c), x.dtype)
    gl = np.zeros((q, o), x.dtype)
    for p in range(lo, hi):
        for s in range(p * per, min(n, (p + 1) * per)):
            _last_sample(x, s, xl, bh, bw, sh, sw, wp)
            _grid_rows_last(g, s, gl, wp)
            for k in range(kh * kw):
                phase, off = _tap(k, kw, dh, dw, sh, sw, wp)
                gemm(101, 112, 111, c, o, q, 1.0, xl[phase].ctypes.data + off * c * size, c, gl.ctypes.data, o,
                     1.0 if s > p * per else 0.0, partials[p, k].ctypes.data, o)


@jit
def taps_input_grad(gemm, g, wt, out, bh, bw, hp, wp, kh, kw, sh, sw, dh, dw, lo, hi):
    """out[s] (C, H, W) = the input gradient of taps_conv's convolution (weight wt (kh * kw, C, O)) for
    the output gradient g[s] (O, OH, OW), for samples lo..hi: per tap, g's rows on the wide grid (zeros in
    the extra columns) times the tap's weight transposed, added into the rows of the tap's phase plane it
    read (a BLAS product with beta=1 each), then the planes' pixels at (bh, bw) on copied out."""
    c, o = wt.shape[1], g.shape[1]
    q, size = g.shape[2] * wp, g.itemsize
    xl = np.empty((sh * sw, -(-hp // sh) * wp + kw * dw, c), g.dtype)
    gl = np.zeros((q, o), g.dtype)
    for s in range(lo, hi):
        _grid_rows_last(g, s, gl, wp)
        xl[:] = 0
        for k in range(kh * kw):
            phase, off = _tap(k, kw, dh, dw, sh, sw, wp)
            gemm(101, 111, 112, q, c, o, 1.0, gl.ctypes.data, o, wt[k].ctypes.data, o, 1.0,
                 xl[phase].ctypes.data + off * c * size, c)
        for r in range(out.shape[2]):
            rr = bh + r
            for j in range(out.shape[3]):
                cc = bw + j
                src = xl[(rr % sh) * sw + cc % sw, (rr // sh) * wp + cc // sw]
                for ci in range(c):
                    out[s, ci, r, j] = src[ci]


# ---- the kernels above as jobs of the native pool (_pool.run): block = the first array's itemsize, each
# array's (address, first dim, last dim), then the scalars as float64 (see _pool_kernels.call)
job = numba.cfunc(types.void(types.int64, types.int64, types.int64), cache=True)


@jit
def _m32(i, k):
    return numba.carray(f32_at(i[k]), (i[k + 1], i[k + 2]))


@jit
def _m64(i, k):
    return numba.carray(f64_at(i[k]), (i[k + 1], i[k + 2]))


@jit
def _v32(i, k):
    return numba.carray(f32_at(i[k]), i[k + 1])


@jit
def _v64(i, k):
    return numba.carray(f64_at(i[k]), i[k + 1])


@job
def ln_forward_job(block, lo, hi):   # (rows, w, b, out, xhat, mean, rstd), (eps, d)
    i, f = numba.carray(i64_at(block), 24), numba.carray(f64_at(block), 24)
    if i[0] == 8:
        ln_forward(_m64(i, 1), _v64(i, 4), _v64(i, 7), f[22], f[23], _m64(i, 10), _m64(i, 13), _v64(i, 16),
                   _v64(i, 19), lo, hi)
    else:
        ln_forward(_m32(i, 1), _v32(i, 4), _v32(i, 7), np.float32(f[22]), np.float32(f[23]), _m32(i, 10),
                   _m32(i, 13), _v32(i, 16), _v32(i, 19), lo, hi)


@job
def ln_backward_job(block, lo, hi):   # (g, x, mean, rstd, w, kept, gi, gw, gb), (d, rows per block)
    i, f = numba.carray(i64_at(block), 30), numba.carray(f64_at(block), 30)
    if i[0] == 8:
        ln_backward(_m64(i, 1), _m64(i, 4), _v64(i, 7), _v64(i, 10), _v64(i, 13), _m64(i, 16), f[28],
                    _m64(i, 19), _m64(i, 22), _m64(i, 25), int(f[29]), lo, hi)
    else:
        ln_backward(_m32(i, 1), _m32(i, 4), _v32(i, 7), _v32(i, 10), _v32(i, 13), _m32(i, 16), np.float32(f[28]),
                    _m32(i, 19), _m32(i, 22), _m32(i, 25), int(f[29]), lo, hi)


@job
def softmax_backward_job(block, lo, hi):   # (g, y, gi)
    i = numba.carray(i64_at(block), 10)
    if i[0] == 8:
        softmax_backward(_m64(i, 1), _m64(i, 4), _m64(i, 7), lo, hi)
    else:
        softmax_backward(_m32(i, 1), _m32(i, 4), _m32(i, 7), lo, hi)


@job
def masked_fill_rows_job(block, lo, hi):   # (rows, out, mask), (value,)
    i, f = numba.carray(i64_at(block), 11), numba.carray(f64_at(block), 11)
    mask = numba.carray(bool_at(i[7]), i[8])
    if i[0] == 8:
        masked_fill_rows(_m64(i, 1), mask, f[10], _m64(i, 4), lo, hi)
    else:
        masked_fill_rows(_m32(i, 1), mask, np.float32(f[10]), _m32(i, 4), lo, hi)


@job
def threshold_backward_job(block, lo, hi):   # (g, x, out) flat, (threshold, zero)
    i, f = numba.carray(i64_at(block), 12), numba.carray(f64_at(block), 12)
    if i[0] == 8:
        threshold_backward(_v64(i, 1)[lo:hi], _v64(i, 4)[lo:hi], f[10], f[11], _v64(i, 7)[lo:hi])
    else:
        threshold_backward(_v32(i, 1)[lo:hi], _v32(i, 4)[lo:hi], np.float32(f[10]), np.float32(f[11]),
                           _v32(i, 7)[lo:hi])
