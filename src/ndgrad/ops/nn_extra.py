"""Neural-network ops, part 3: distances (pdist, cdist), bilinear (_trilinear), affine grids and grid
sampling, embedding_bag, weight norm, scaled dot-product attention, CTC loss and packed sequences.

Kernels are NumPy on arrays, registered with `@op` under torch's ATen names; their backward kernels
are ops too (with yaml entries of their own), so `create_graph` records the nodes torch records
(PdistBackwardBackward0, ...). The user-facing functions with torch's signatures are at the end
(imported by ndgrad/nn/functional.py); packed sequences are in ndgrad/nn/utils_rnn.py.
"""
import itertools
import math
import warnings

import numpy as np

from ._registry import op, register
from .linalg import _type_name, broadcast_shape
from .nn import REDUCTIONS


# ---- distances ----------------------------------------------------------------------------
def _pnorm(diff, p):
    """The p-norm of `diff` along its last axis (p = 0 counts the non-zero entries)."""
    a = np.abs(diff)
    if p == 0:
        return (a != 0).sum(-1).astype(diff.dtype)
    if p == 1:
        return a.sum(-1)
    if p == 2:
        return np.sqrt((a * a).sum(-1))
    if math.isinf(p):
        return a.max(-1) if a.shape[-1] else np.zeros(a.shape[:-1], a.dtype)
    return (a ** p).sum(-1) ** (1.0 / p)


def _pnorm_grad(diff, dist, grad, p):
    """d dist / d diff times grad, for dist = ||diff||_p along the last axis (torch's conventions:
    zero where dist is 0; every tied entry of the max for p = inf)."""
    g, d = grad[..., None], dist[..., None]
    if p == 0:
        return np.zeros_like(diff)
    if p == 1:
        return g * np.sign(diff)
    if math.isinf(p):
        return g * np.sign(diff) * (np.abs(diff) == d)
    if p == 2:
        out = g * diff / d
    elif p < 2:
        out = np.sign(diff) * np.abs(diff) ** (p - 1) * g / d ** (p - 1)
    else:
        out = diff * np.abs(diff) ** (p - 2) * g / d ** (p - 1)
    zero = (d == 0) | ((diff == 0) & (p < 1))
    return np.where(zero, np.zeros((), out.dtype), out)


@op("_pdist_forward", public="_pdist_forward")
def _pdist_forward(input, p=2.0):
    i, j = np.triu_indices(input.shape[0], 1)
    return _pnorm(input[i] - input[j], p)


@op("_pdist_backward", public="_pdist_backward")
def _pdist_backward(grad, input, p, pdist):
    i, j = np.triu_indices(input.shape[0], 1)
    pair = _pnorm_grad(input[i] - input[j], pdist, grad, p)
    out = np.zeros(input.shape, pair.dtype)
    np.add.at(out, i, pair)
    np.add.at(out, j, -pair)
    return out


def _pairwise(x1, x2):
    """x1[..., i, None, :] - x2[..., None, j, :] with the batch dims broadcast."""
    return x1[..., :, None, :] - x2[..., None, :, :]


@op("_cdist_forward", public="_cdist_forward")
def _cdist_forward(x1, x2, p, compute_mode=None):
    return _pnorm(_pairwise(x1, x2), p)


def _sum_to(a, shape):
    """`a` summed down to `shape` (undoing broadcasting of the batch dims)."""
    lead = a.ndim - len(shape)
    a = a.sum(tuple(range(lead))) if lead else a
    axes = tuple(i for i, (s, t) in enumerate(zip(shape, a.shape)) if s == 1 and t != 1)
    return a.sum(axes, keepdims=True) if axes else a


@op("_cdist_backward", public="_cdist_backward")
def _cdist_backward(grad, x1, x2, p, cdist):
    return _sum_to(_pnorm_grad(_pairwise(x1, x2), cdist, grad, p).sum(-2), x1.shape)


@op("_euclidean_dist", public="_euclidean_dist")
def _euclidean_dist(x1, x2):
    # torch's matmul form: |a|^2 + |b|^2 - 2ab as one product of augmented matrices
    n1, n2 = (x1 * x1).sum(-1, keepdims=True), (x2 * x2).sum(-1, keepdims=True)
    a = np.concatenate([x1 * -2, n1, np.ones_like(n1)], -1)
    b = np.concatenate([x2, np.ones_like(n2), n2], -1)
    return np.sqrt(np.maximum(a @ np.swapaxes(b, -1, -2), 1e-30))


# ---- bilinear -----------------------------------------------------------------------------
def trilinear_operands(i1, i2, i3, expand1, expand2, expand3):
    """The three inputs with their expand dims inserted (works on arrays and Tensors)."""
    out = []
    for x, dims in ((i1, expand1), (i2, expand2), (i3, expand3)):
        for d in sorted(dims):
            x = x[(slice(None),) * d + (None,)] if isinstance(x, np.ndarray) else x.unsqueeze(d)
        out.append(x)
    return out


@op("_trilinear", public="_trilinear", promote="same")
def _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    a, b, c = trilinear_operands(i1, i2, i3, expand1, expand2, expand3)
    return (a * b * c).sum(tuple(sumdim)) if sumdim else a * b * c


# ---- affine grids and grid sampling -------------------------------------------------------
def _linspace_from_neg_one(steps, align_corners, dtype):
    if steps <= 1:
        return np.zeros(1, dtype)
    r = np.linspace(-1, 1, steps, dtype=dtype)
    return r if align_corners else r * ((steps - 1) / steps)


def affine_base_grid(size, align_corners, dtype):
    """(prod(spatial), k+1) rows (x, y[, z], 1) of the normalized output coordinates."""
    axes = [_linspace_from_neg_one(s, align_corners, dtype) for s in size[2:]]
    coords = list(np.meshgrid(*axes, indexing="ij"))[::-1]   # x runs along the last spatial dim
    return np.stack(coords + [np.ones_like(coords[0])], -1).reshape(-1, len(axes) + 1)


@op("affine_grid_generator", public="affine_grid_generator")
def affine_grid_generator(theta, size, align_corners):
    base = affine_base_grid(size, align_corners, theta.dtype)
    grid = base @ np.swapaxes(theta, 1, 2)   # (N, HW, k)
    return grid.reshape(tuple(size[:1]) + tuple(size[2:]) + (len(size) - 2,))


_CUBIC_A = -0.75


def _cubic_taps(t):
    """Bicubic convolution weights of the 4 taps at offsets -1..2 and their derivatives in t."""
    a = _CUBIC_A

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1, (3 * (a + 2) * x - 2 * (a + 3)) * x

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a, (3 * a * x - 10 * a) * x + 8 * a
    (w0, d0), (w1, d1), (w2, d2), (w3, d3) = far(t + 1), near(t), near(1 - t), far(2 - t)
    return (w0, w1, w2, w3), (d0, d1, -d2, -d3)


def _clip(x, size):
    """Clamp to [0, size-1] and the derivative (zero at and beyond the ends, as torch)."""
    return np.clip(x, 0, size - 1), ((x > 0) & (x < size - 1)).astype(x.dtype)


def _reflect(x, twice_low, twice_high):
    if twice_low == twice_high:
        return np.zeros_like(x), np.zeros_like(x)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    d = x - low
    sign = np.where(d < 0, -1.0, 1.0).astype(x.dtype)
    d = np.abs(d)
    extra, flips = np.fmod(d, span), np.floor(d / span)
    even = flips % 2 == 0
    return np.where(even, extra + low, span - extra + low), np.where(even, sign, -sign)


def _pad_coord(x, size, padding, align):
    """Source coordinate after the padding mode, and its derivative."""
    if padding == 1:
        return _clip(x, size)
    if padding == 2:
        x, m = _reflect(x, 0, 2 * (size - 1)) if align else _reflect(x, -1, 2 * size - 1)
        x, m2 = _clip(x, size)
        return x, m * m2
    return x, np.ones_like(x)


def _grid_taps(grid, sizes, interp, padding, align):
    """The sampling taps of every output point, per spatial dim (grid component d indexes the
    spatial dim -1-d): lists of (integer index, weight, d weight / d grid)."""
    per_dim = []
    for d, size in enumerate(reversed(sizes)):
        g = grid[..., d]
        scale = (size - 1) / 2 if align else size / 2
        x = (g + 1) * scale if align else ((g + 1) * size - 1) / 2
        if interp == 2:   # bicubic: taps around the raw coordinate, each tap index padded on its own
            x0 = np.floor(x)
            ws, dws = _cubic_taps(x - x0)
            taps = []
            for k in range(4):
                idx, _ = _pad_coord(x0 - 1 + k, size, padding, align)
                taps.append((np.trunc(idx).astype(np.int64), ws[k], dws[k] * scale))
        else:
            x, mult = _pad_coord(x, size, padding, align)
            if interp == 1:
                taps = [(np.rint(x).astype(np.int64), np.ones_like(x), np.zeros_like(x))]
            else:
                x0 = np.floor(x)
                frac = x - x0
                taps = [(x0.astype(np.int64), 1 - frac, -mult * scale),
                        (x0.astype(np.int64) + 1, frac, mult * scale)]
        per_dim.append(taps)
    return per_dim[::-1]   # spatial order (z,) y, x


def _each_tap(input, grid, interp, padding, align):
    """Yield (index tuple into input moved to (N, *spatial, C), weight, per-dim weight factors and
    their derivatives, in-bounds mask) for every combination of per-dim taps."""
    sizes = input.shape[2:]
    per_dim = _grid_taps(grid, sizes, interp, padding, align)
    n = np.arange(input.shape[0]).reshape((-1,) + (1,) * (grid.ndim - 2))
    for combo in itertools.product(*per_dim):
        ok = np.ones(grid.shape[:-1], bool)
        for (idx, _, _), size in zip(combo, sizes):
            ok &= (idx >= 0) & (idx < size)
        index = (n,) + tuple(np.clip(idx, 0, size - 1) for (idx, _, _), size in zip(combo, sizes))
        yield index, combo, ok


def _grid_sample_forward(input, grid, interp, padding, align):
    x = np.moveaxis(input, 1, -1)   # (N, *spatial, C)
    out = np.zeros(grid.shape[:-1] + (input.shape[1],), np.result_type(input, grid))
    for index, combo, ok in _each_tap(input, grid, interp, padding, align):
        w = np.where(ok, np.prod([wt for _, wt, _ in combo], 0), 0)
        out += w[..., None] * x[index]
    return np.moveaxis(out, -1, 1)


def _grid_sample_backward(grad_output, input, grid, interp, padding, align, output_mask):
    x = np.moveaxis(input, 1, -1)
    g = np.moveaxis(grad_output, 1, -1)   # (N, *out, C)
    grad_x = np.zeros_like(x) if output_mask[0] else None
    grad_grid = np.zeros_like(grid)
    for index, combo, ok in _each_tap(input, grid, interp, padding, align):
        weights = [np.where(ok, wt, 0) for _, wt, _ in combo]
        if grad_x is not None:
            np.add.at(grad_x, index, np.prod(weights, 0)[..., None] * g)
        if output_mask[1] and interp != 1:
            gv = (g * x[index]).sum(-1)
            k = len(combo)
            for s, (_, _, dw) in enumerate(combo):   # spatial dim s is grid component k-1-s
                others = np.prod([w for j, w in enumerate(weights) if j != s], 0) if k > 1 else 1
                grad_grid[..., k - 1 - s] += np.where(ok, gv * others * dw, 0)
    grad_input = np.moveaxis(grad_x, -1, 1) if grad_x is not None else np.zeros_like(input)
    return np.ascontiguousarray(grad_input), grad_grid


def _pad_coord_tensor(x, size, padding, align):
    """_pad_coord on Tensors, from differentiable public ops (for grid_sample_composite)."""
    if padding == 0:
        return x
    if padding == 2:
        twice_low, twice_high = (0, 2 * (size - 1)) if align else (-1, 2 * size - 1)
        if twice_low == twice_high:
            return x * 0
        low, span = twice_low / 2, (twice_high - twice_low) / 2
        d = (x - low).abs()
        flips = (d.detach() / span).floor()
        extra = d - flips * span
        x = _nd.where(flips % 2 == 0, extra + low, span - extra + low)
    return x.clamp(0, size - 1)


def grid_sample_composite(input, grid, interp, padding, align):
    """Grid sampling built from differentiable public ops, equal to the kernel: the taps' indices
    come from _grid_taps (constants), their weights are recomputed from `grid` as Tensors. Double
    backward of grid_sampler differentiates this twice."""
    sizes = tuple(input.shape[2:])
    n, c = input.shape[:2]
    out_shape = tuple(grid.shape[1:-1])
    taps = _grid_taps(grid._data, sizes, interp, padding, align)
    weights = []
    for s, size in enumerate(sizes):
        x = grid[..., len(sizes) - 1 - s]
        x = (x + 1) * ((size - 1) / 2) if align else ((x + 1) * size - 1) / 2
        if interp == 2:
            weights.append(list(_cubic_taps(x - x.detach().floor())[0]))
        elif interp == 1:
            weights.append([None])
        else:
            x = _pad_coord_tensor(x, size, padding, align)
            frac = x - x.detach().floor()
            weights.append([1 - frac, frac])
    flat = input.reshape(n, c, -1)
    out = None
    for combo in itertools.product(*(range(len(t)) for t in taps)):
        ok = np.ones(grid.shape[:-1], bool)
        idx = []
        for s, k in enumerate(combo):
            i = taps[s][k][0]
            ok &= (i >= 0) & (i < sizes[s])
            idx.append(np.clip(i, 0, sizes[s] - 1))
        linear = np.ravel_multi_index(idx, sizes).reshape(n, 1, -1)
        vals = flat.gather(2, _nd.tensor(np.broadcast_to(linear, (n, c, linear.shape[-1])).copy()))
        w = _nd.tensor(ok.astype(input._data.dtype))
        for s, k in enumerate(combo):
            if weights[s][k] is not None:
                w = w * weights[s][k]
        term = vals.reshape((n, c) + out_shape) * w.unsqueeze(1)
        out = term if out is None else out + term
    return out


@op("grid_sampler_2d", public="grid_sampler_2d")
def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    return _grid_sample_forward(input, grid, interpolation_mode, padding_mode, align_corners)


@op("grid_sampler_2d_backward", public="grid_sampler_2d_backward")
def grid_sampler_2d_backward(grad_output, input, grid, interpolation_mode, padding_mode, align_corners,
                             output_mask):
    return _grid_sample_backward(grad_output, input, grid, interpolation_mode, padding_mode, align_corners,
                                 output_mask)


@op("grid_sampler_3d", public="grid_sampler_3d")
def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    return _grid_sample_forward(input, grid, interpolation_mode, padding_mode, align_corners)


@op("grid_sampler_3d_backward", public="grid_sampler_3d_backward")
def grid_sampler_3d_backward(grad_output, input, grid, interpolation_mode, padding_mode, align_corners,
                             output_mask):
    return _grid_sample_backward(grad_output, input, grid, interpolation_mode, padding_mode, align_corners,
                                 output_mask)


@op("_grid_sampler_2d_cpu_fallback", public="_grid_sampler_2d_cpu_fallback")
def _grid_sampler_2d_cpu_fallback(input, grid, interpolation_mode, padding_mode, align_corners):
    _check_grid_sampler(input, grid, interpolation_mode)
    return _grid_sample_forward(input, grid, interpolation_mode, padding_mode, align_corners)


@op("_grid_sampler_2d_cpu_fallback_backward", public="_grid_sampler_2d_cpu_fallback_backward")
def _grid_sampler_2d_cpu_fallback_backward(grad_output, input, grid, interpolation_mode, padding_mode,
                                           align_corners):
    return _grid_sample_backward(grad_output, input, grid, interpolation_mode, padding_mode, align_corners,
                                 (True, True))


def _check_grid_sampler(input, grid, interpolation_mode):
    def sizes(t):
        return f"[{', '.join(map(str, t.shape))}]"
    if input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but input has "
                           f"{_type_name(input)} and grid has {_type_name(grid)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input "
                           f"with sizes {sizes(input)} and grid with sizes {sizes(grid)}")
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, but "
                           f"got grid with sizes {sizes(grid)}")
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, "
                           f"but got input with sizes {sizes(input)} and grid with sizes {sizes(grid)}")
    for i in range(2, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input "
                               f"has sizes {sizes(input)} with dimension {i} being empty")
    if interpolation_mode == 2 and input.ndim != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


# ---- embedding_bag ------------------------------------------------------------------------
def _bags(indices, offsets, include_last_offset, padding_idx):
    """(bag of every index, number of bags, mask of the indices that count)."""
    n_bags = len(offsets) - 1 if include_last_offset else len(offsets)
    bag = np.searchsorted(offsets, np.arange(len(indices)), side="right") - 1
    valid = (bag >= 0) & (bag < n_bags) & (indices != padding_idx)
    return np.clip(bag, 0, max(n_bags - 1, 0)), n_bags, valid


@op("_embedding_bag", public="_embedding_bag")
def _embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                   per_sample_weights=None, include_last_offset=False, padding_idx=-1):
    bag, n_bags, valid = _bags(indices, offsets, include_last_offset, padding_idx)
    rows = weight[indices]
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[:, None]
    counts = np.bincount(bag[valid], minlength=n_bags)
    out = np.zeros((n_bags, weight.shape[1]), weight.dtype)
    max_indices = np.full(out.shape if mode == 2 else (n_bags,), -1, np.int64)
    if mode == 2:
        out[:] = -np.inf
        np.maximum.at(out, bag[valid], rows[valid])
        out[counts == 0] = 0
        pos = np.arange(len(indices))[:, None]
        first = np.full(out.shape, len(indices))
        hit = valid[:, None] & (rows == out[bag])
        np.minimum.at(first, bag, np.where(hit, pos, len(indices)))
        found = first < len(indices)
        max_indices[found] = indices[first[found]]
    else:
        np.add.at(out, bag[valid], rows[valid])
        if mode == 1:
            out /= np.maximum(counts, 1)[:, None].astype(out.dtype)
    return out, np.where(valid, bag, 0), counts.astype(np.int64), max_indices


@op("_embedding_bag_backward", public="_embedding_bag_backward")
def _embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size, maximum_indices, num_weights,
                            scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx=-1):
    out = np.zeros((num_weights, grad.shape[1]), grad.dtype)
    if mode == 2:
        hit = maximum_indices >= 0
        cols = np.broadcast_to(np.arange(grad.shape[1]), grad.shape)
        np.add.at(out, (maximum_indices[hit], cols[hit]), grad[hit])
        return out
    bag, _, valid = _bags(indices, offsets, len(bag_size) == len(offsets) - 1, padding_idx)
    scale = valid / np.maximum(bag_size[bag], 1) if mode == 1 else valid.astype(np.float64)
    if per_sample_weights is not None:
        scale = scale * per_sample_weights
    if scale_grad_by_freq:
        scale = scale / np.bincount(indices, minlength=num_weights)[indices]
    np.add.at(out, indices[valid], (grad[bag] * scale[:, None].astype(grad.dtype))[valid])
    return out


@op("_embedding_bag_per_sample_weights_backward", public="_embedding_bag_per_sample_weights_backward")
def _embedding_bag_per_sample_weights_backward(grad, weight, indices, offsets, offset2bag, mode, padding_idx=-1):
    bag, _, valid = _bags(indices, offsets, len(offsets) > grad.shape[0], padding_idx)
    return np.where(valid, (grad[bag] * weight[indices]).sum(1), 0).astype(grad.dtype)


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


# ---- scaled dot-product attention ---------------------------------------------------------
def _attention_probs(query, key, is_causal, attn_mask, scale):
    """(softmax probabilities, logsumexp) of the attention scores; the key heads repeated for GQA."""
    s = scale if scale is not None else 1 / math.sqrt(query.shape[-1])
    scores = query @ np.swapaxes(key, -1, -2) * s
    if attn_mask is not None:
        scores = scores + attn_mask
    if is_causal:
        L, S = scores.shape[-2:]
        scores = np.where(np.tri(L, S, dtype=bool), scores, -np.inf)
    m = scores.max(-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    lse = np.log(np.exp(scores - m).sum(-1, keepdims=True)) + m
    return np.exp(scores - lse), lse[..., 0], s


def _repeat_heads(x, heads):
    return x if x.shape[1] == heads else np.repeat(x, heads // x.shape[1], axis=1)


@op("_scaled_dot_product_flash_attention_for_cpu", public="_scaled_dot_product_flash_attention_for_cpu")
def _scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p=0.0, is_causal=False, *,
                                                attn_mask=None, scale=None):
    if dropout_p > 0:
        raise NotImplementedError("_scaled_dot_product_flash_attention_for_cpu: dropout is not supported by "
                                  "ndgrad's kernel; use F.scaled_dot_product_attention (its math path)")
    heads = query.shape[1]
    p, lse, _ = _attention_probs(query, _repeat_heads(key, heads), is_causal, attn_mask, scale)
    p = np.nan_to_num(p)   # fully masked rows give zeros
    return p @ _repeat_heads(value, heads), lse


@op("_scaled_dot_product_flash_attention_for_cpu_backward",
    public="_scaled_dot_product_flash_attention_for_cpu_backward")
def _scaled_dot_product_flash_attention_for_cpu_backward(grad_out, query, key, value, out, logsumexp, dropout_p,
                                                         is_causal, *, attn_mask=None, scale=None):
    heads = query.shape[1]
    k, v = _repeat_heads(key, heads), _repeat_heads(value, heads)
    p, _, s = _attention_probs(query, k, is_causal, attn_mask, scale)
    p = np.nan_to_num(p)
    grad_v = np.swapaxes(p, -1, -2) @ grad_out
    dp = grad_out @ np.swapaxes(v, -1, -2)
    ds = p * (dp - (grad_out * out).sum(-1, keepdims=True)) * s
    grad_q, grad_k = ds @ k, np.swapaxes(ds, -1, -2) @ query

    def fold(g, like):   # GQA: sum the gradients of the repeated heads
        b, h = like.shape[:2]
        return g.reshape((b, h, -1) + g.shape[2:]).sum(2) if g.shape[1] != h else g
    return grad_q, fold(grad_k, key), fold(grad_v, value)


# ---- CTC loss -----------------------------------------------------------------------------
def _logaddexp(*xs):
    m = np.maximum.reduce(xs)
    safe = np.where(np.isfinite(m), m, 0)
    return np.log(sum(np.exp(x - safe) for x in xs)) + safe


def _ctc_setup(log_probs, targets, input_lengths, target_lengths, blank):
    """Extended labels (blank, l1, blank, l2, ..., blank) per batch item, their mask, whether the
    skip transition s-2 -> s is allowed, and the lengths as arrays."""
    T, N, C = log_probs.shape
    il = np.asarray(input_lengths, np.int64).reshape(-1)
    tl = np.asarray(target_lengths, np.int64).reshape(-1)
    if len(il) != N:
        raise RuntimeError(f"ctc_loss: input_lengths must be of size batch_size ({N}), got {len(il)}")
    if len(tl) != N:
        raise RuntimeError(f"ctc_loss: target_lengths must be of size batch_size ({N}), got {len(tl)}")
    if (il > T).any():
        raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value {il.max()} "
                           "(while checking arguments for ctc_loss_allocate_outputs)")
    smax = int(tl.max()) if N else 0
    pos = np.arange(smax)
    if targets.ndim == 1:   # concatenated targets
        starts = np.concatenate([[0], np.cumsum(tl)[:-1]])
        idx = np.where(pos < tl[:, None], starts[:, None] + pos, 0)
        labels = targets[idx] if targets.size else np.zeros(idx.shape, np.int64)
    else:
        if targets.shape[1] < smax:
            raise RuntimeError(f"Expected tensor to have size at least {smax} at dimension 1, but got size "
                               f"{targets.shape[1]} for argument #2 'targets' (while checking arguments for "
                               "ctc_loss_allocate_outputs)")
        labels = targets[:, :smax]
    labels = np.where(pos < tl[:, None], labels, blank).astype(np.int64)
    ext = np.full((N, 2 * smax + 1), blank, np.int64)
    ext[:, 1::2] = labels
    live = np.arange(2 * smax + 1) < (2 * tl + 1)[:, None]
    skip = np.zeros(ext.shape, bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    return ext, live, skip, il, tl


@op("_ctc_loss", public="_ctc_loss")
def _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False):
    ext, live, skip, il, tl = _ctc_setup(log_probs, targets, input_lengths, target_lengths, blank)
    T, N, _ = log_probs.shape
    neg = np.asarray(-np.inf, log_probs.dtype)
    batch = np.arange(N)[:, None]
    emit = log_probs[:, batch, ext]   # (T, N, 2S+1): log-prob of each extended label
    alpha = np.full((N, T, ext.shape[1]), neg)
    a = np.where(np.arange(ext.shape[1]) < 2, emit[0], neg) if T else alpha[:, 0]
    for t in range(T):
        if t:
            prev = alpha[:, t - 1]
            one = np.concatenate([np.full((N, 1), neg), prev[:, :-1]], 1)
            two = np.where(skip, np.concatenate([np.full((N, 2), neg), prev[:, :-2]], 1), neg)
            a = emit[t] + _logaddexp(prev, one, two)
        alpha[:, t] = np.where(live, a, neg)
    last = alpha[np.arange(N), np.maximum(il - 1, 0)]
    end = 2 * tl
    ll = _logaddexp(last[np.arange(N), end], np.where(tl > 0, last[np.arange(N), np.maximum(end - 1, 0)], neg))
    ll = np.where(il > 0, ll, np.where(tl == 0, 0, neg))
    return (-ll).astype(log_probs.dtype), alpha


@op("_ctc_loss_backward", public="_ctc_loss_backward")
def _ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood, log_alpha,
                       blank, zero_infinity=False):
    ext, live, skip, il, tl = _ctc_setup(log_probs, targets, input_lengths, target_lengths, blank)
    T, N, C = log_probs.shape
    S2 = ext.shape[1]
    neg = np.asarray(-np.inf, log_probs.dtype)
    batch = np.arange(N)[:, None]
    emit = log_probs[:, batch, ext]
    beta = np.full((N, T, S2), neg)
    s_idx = np.arange(S2)
    skip_next = np.zeros(ext.shape, bool)   # s -> s+2 allowed
    skip_next[:, :-2] = skip[:, 2:]
    for t in range(T - 1, -1, -1):
        is_last = (il - 1 == t)[:, None]
        start = np.where((s_idx == 2 * tl[:, None]) | ((s_idx == 2 * tl[:, None] - 1) & (tl[:, None] > 0)),
                         emit[t], neg)
        if t < T - 1:
            nxt = beta[:, t + 1]
            one = np.concatenate([nxt[:, 1:], np.full((N, 1), neg)], 1)
            two = np.where(skip_next, np.concatenate([nxt[:, 2:], np.full((N, 2), neg)], 1), neg)
            b = emit[t] + _logaddexp(nxt, one, two)
        else:
            b = np.full((N, S2), neg)
        b = np.where(is_last, start, b)
        beta[:, t] = np.where(live & (t < il)[:, None], b, neg)
    ab = log_alpha + beta   # (N, T, S2)
    # log-sum-exp of alpha*beta over the extended positions of each class
    cls = np.broadcast_to(ext[:, None, :], ab.shape)
    n_i, t_i = np.indices(ab.shape[:2])
    n_i, t_i = np.broadcast_to(n_i[..., None], ab.shape), np.broadcast_to(t_i[..., None], ab.shape)
    peak = np.full((N, T, C), neg)
    np.maximum.at(peak, (n_i, t_i, cls), ab)
    safe = np.where(np.isfinite(peak), peak, 0)
    total = np.zeros((N, T, C), log_probs.dtype)
    np.add.at(total, (n_i, t_i, cls), np.exp(ab - safe[n_i, t_i, cls]))
    lcab = np.log(total) + safe
    lp = np.moveaxis(log_probs, 1, 0)   # (N, T, C)
    nll = neg_log_likelihood[:, None, None]
    res = (np.exp(lp) - np.exp(lcab + nll - lp)) * grad.reshape(-1)[:, None, None]
    res = np.where((np.arange(T)[None, :] < il[:, None])[..., None], res, 0)
    if zero_infinity:
        res = np.where(np.isinf(nll), 0, res)
    return np.moveaxis(res, 0, 1).astype(log_probs.dtype)


# ---- packed sequences ---------------------------------------------------------------------
def packed_positions(batch_sizes, batch):
    """Flat (time * batch + b) positions of the packed rows, in packed (time-major) order."""
    batch_sizes = np.asarray(batch_sizes)
    t = np.repeat(np.arange(len(batch_sizes)), batch_sizes)
    b = np.concatenate([np.arange(n) for n in batch_sizes]) if len(batch_sizes) else np.zeros(0, np.int64)
    return t * batch + b


@op("_pack_padded_sequence", public="_pack_padded_sequence")
def _pack_padded_sequence(input, lengths, batch_first):
    x = np.swapaxes(input, 0, 1) if batch_first else input
    lengths = np.asarray(lengths, np.int64).reshape(-1)
    if len(lengths) != x.shape[1]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
                           f"(batch_size={x.shape[1]})")
    if (lengths <= 0).any():
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if (np.diff(lengths) > 0).any():
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                           "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    if lengths[0] > x.shape[0]:
        raise RuntimeError(f"Expected the longest sequence (length {lengths[0]}) to be at most the padded length "
                           f"{x.shape[0]}; pass lengths no larger than the input's time dimension")
    batch_sizes = (lengths[None, :] > np.arange(lengths[0])[:, None]).sum(1).astype(np.int64)
    rows = x.reshape((-1,) + x.shape[2:])
    return rows[packed_positions(batch_sizes, x.shape[1])], batch_sizes


# ---- user-facing functions (torch's signatures; F.* are imported by nn/functional.py) -------
import ndgrad as _nd  # noqa: E402  (partially initialized here; used at call time)

_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


@register()
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    mode = _CDIST_MODES[compute_mode]
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
        if not x.is_floating_point():
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {_type_name(x._data)}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    r1, r2, c = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    if x1.numel() and x2.numel() and p == 2 and (mode == 1 or mode == 0 and (r1 > 25 or r2 > 25)):
        # torch's matrix-product form of the euclidean distance (its own node, EuclideanDistBackward0)
        batch = broadcast_shape(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
        n = math.prod(batch)
        if n != 1:
            x1 = x1.expand(batch + (r1, c)).reshape(n, r1, c)
            x2 = x2.expand(batch + (r2, c)).reshape(n, r2, c)
        return _euclidean_dist(x1, x2).view(batch + (r1, r2))
    return _cdist_forward(x1, x2, p, None if mode == 0 else mode)


@register()
def pdist(input, p=2):
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return _pdist_forward(input.contiguous(), p)


@register()
def bilinear(input1, input2, weight, bias=None):
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for i in range(input1.ndim - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got {input1.shape[i]} "
                               f"and {input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {weight.shape[2]}")
    if bias is not None and bias.shape[-1] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[-1]} but expected "
                           f"{weight.shape[0]}")
    out_shape = tuple(input1.shape[:-1]) + (weight.shape[0],)
    a = input1.reshape(-1, input1.shape[-1])
    b = input2.reshape(-1, input2.shape[-1])
    out = _trilinear(a, weight, b, [1, 3], [0], [1, 2], [2, 3]).reshape(out_shape)
    return out if bias is None else out + bias


def _align_corners_default(align_corners):
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=3)
        return False
    return align_corners


def affine_grid(theta, size, align_corners=None):
    align_corners = _align_corners_default(align_corners)
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    given, size = size, list(size)
    if len(size) == 4:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {given}. "
                             f"Got {theta.shape}.")
    elif len(size) == 5:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {given}. "
                             f"Got {theta.shape}.")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {given}.")
    if align_corners and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {given}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"affine_grid: theta has batch size {theta.shape[0]} but size asks for {size[0]}")
    return affine_grid_generator(theta, size, align_corners)


_GRID_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_GRID_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}


@register()
def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    _check_grid_sampler(input._data, grid._data, interpolation_mode)
    kernel = grid_sampler_2d if input.ndim == 4 else grid_sampler_3d
    return kernel(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    if mode not in _GRID_MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in _GRID_PADDINGS:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    align_corners = _align_corners_default(align_corners)
    return grid_sampler(input, grid, _GRID_MODES[mode], _GRID_PADDINGS[padding_mode], align_corners)


@register()
def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    if indices.dtype not in (_nd.int64, _nd.int32) or offsets.dtype not in (_nd.int64, _nd.int32):
        raise RuntimeError(f"embedding_bag: expected indices and offsets to be Long or Int tensors, got "
                           f"{indices.dtype} and {offsets.dtype}")
    bad = ((indices < 0) | (indices >= weight.shape[0])).nonzero()
    if bad.numel():
        k = int(bad[0, 0])
        raise RuntimeError(f"Index {k} of input takes value {int(indices[k])} which is not in the valid range "
                           f"[0, {weight.shape[0]})")
    if sparse:
        raise NotImplementedError("embedding_bag: sparse gradients are not supported by ndgrad; use sparse=False")
    return _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                          include_last_offset, -1 if padding_idx is None else padding_idx)


def embedding_bag_fn(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                     mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                     padding_idx=None):
    """torch.nn.functional.embedding_bag."""
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        offsets = _nd.arange(0, input.numel(), input.shape[1], dtype=input.dtype)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    modes = {"sum": 0, "mean": 1, "max": 2}
    if mode not in modes:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if padding_idx is not None:
        if not -weight.shape[0] <= padding_idx < weight.shape[0]:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= weight.shape[0]
    if max_norm is not None:
        with _nd.no_grad():
            # detached, as torch does: no tangent flows into the renorm
            _nd.embedding_renorm_(weight.detach(), input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    return embedding_bag(weight, input, offsets, scale_grad_by_freq, modes[mode], sparse, per_sample_weights,
                         include_last_offset, padding_idx)[0]


@register()
def _weight_norm(v, g, dim=0):
    """w = g * v / ||v|| (norm over every dim but `dim`): one fused op for the first or last dim."""
    v, g = v.contiguous(), g.contiguous()
    if dim == 0 or dim == v.ndim - 1:
        return _weight_norm_interface(v, g, dim)[0]
    return v * (g / _nd.norm_except_dim(v, 2, dim))


def _convert_mask(mask, dtype):
    """A boolean attention mask as additive float (-inf where attention is not allowed)."""
    if mask is None or mask.dtype != _nd.bool:
        return mask
    return _nd.where(mask.logical_not(), _nd.tensor(-math.inf, dtype=dtype), _nd.tensor(0.0, dtype=dtype))


def _flash_cpu_applies(q, k, v, mask, dropout_p, enable_gqa):
    """torch's CPU backend choice: the fused flash kernel for plain 4-D inputs, else the math path."""
    if not (q.ndim == k.ndim == v.ndim == 4) or dropout_p > 0:
        return False
    if mask is not None and mask.requires_grad:
        return False
    if not (q.shape[0] == k.shape[0] == v.shape[0] and k.shape[1] == v.shape[1] and k.shape[2] == v.shape[2]):
        return False
    if not (q.shape[-1] == k.shape[-1] == v.shape[-1]):
        return False
    return q.shape[1] == k.shape[1] or enable_gqa and q.shape[1] % k.shape[1] == 0


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{query.dtype} key.dtype: {key.dtype} and value.dtype: {value.dtype} instead.")
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError("scaled_dot_product_attention: query, key and value must be at least 2-D "
                           f"(got {query.ndim}D, {key.ndim}D and {value.ndim}D)")
    if not enable_gqa and query.ndim >= 3 and key.ndim >= 3 and query.shape[-3] != key.shape[-3] \
            and 1 not in (query.shape[-3], key.shape[-3]):
        raise RuntimeError(f"scaled_dot_product_attention: query has {query.shape[-3]} heads but key has "
                           f"{key.shape[-3]}; pass enable_gqa=True for grouped-query attention")
    mask = _convert_mask(attn_mask, query.dtype)
    if _flash_cpu_applies(query, key, value, mask, dropout_p, enable_gqa):
        return _scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p, is_causal,
                                                           attn_mask=mask, scale=scale)[0]
    return _attention_math(query, key, value, mask, dropout_p, is_causal, scale, enable_gqa)


def _repeat_heads_interleaved(x, reps):
    """x.repeat_interleave(reps, -3), built as torch builds it (unsqueeze, expand, copy, view)."""
    shape = tuple(x.shape)
    grown = x.unsqueeze(-3).expand(shape[:-2] + (reps,) + shape[-2:]).clone()
    return grown.view(shape[:-3] + (shape[-3] * reps,) + shape[-2:])


def _attention_math(query, key, value, mask, dropout_p, is_causal, scale, enable_gqa):
    """torch's composite attention (the graph it records when the fused kernel does not apply)."""
    s = scale if scale is not None else 1 / math.sqrt(query.shape[-1])
    factor = math.sqrt(abs(s))
    query = query * (-factor if s < 0 else factor)
    if is_causal:
        if mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        L, S = query.shape[-2], key.shape[-2]
        mask = _convert_mask(_nd.ones(L, S, dtype=_nd.bool).tril(), query.dtype)
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        reps = query.shape[-3] // key.shape[-3]
        key, value = _repeat_heads_interleaved(key, reps), _repeat_heads_interleaved(value, reps)
    attn = _nd.matmul(query, key.transpose(-2, -1) * factor)
    if mask is not None:
        attn = attn + mask
    with _nd.no_grad():
        blocked = (attn == -math.inf).all(-1, keepdim=True) if mask is not None else None
    if blocked is not None and blocked.any():   # torch's safe softmax: rows with nothing to attend give 0
        attn = _nd.softmax(attn.masked_fill(blocked, 0.0), -1).masked_fill(blocked, 0.0)
    else:
        attn = _nd.softmax(attn, -1)
    if dropout_p > 0:
        attn = _nd.nn.functional.dropout(attn, dropout_p, True)
    return _nd.matmul(attn, value)


@register()
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=REDUCTIONS["mean"],
             zero_infinity=False):
    def as_list(lengths):
        return [int(n) for n in (lengths.reshape(-1).tolist() if isinstance(lengths, _nd.Tensor) else lengths)]
    il, tl = as_list(input_lengths), as_list(target_lengths)
    batched = log_probs.ndim == 3
    if not batched:
        log_probs, targets = log_probs.unsqueeze(1), targets.unsqueeze(0)
    if targets.dtype != _nd.int64:
        targets = targets.long()
    res = _ctc_loss(log_probs, targets, il, tl, blank, zero_infinity)[0]
    if zero_infinity:
        res = _nd.where(res == math.inf, _nd.zeros((), dtype=res.dtype), res)
    if reduction == REDUCTIONS["mean"]:
        return (res / _nd.tensor(tl, dtype=res.dtype).clamp_min(1)).mean()
    if reduction == REDUCTIONS["sum"]:
        return res.sum()
    return res if batched else res.squeeze(0)


def ctc_loss_fn(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """torch.nn.functional.ctc_loss."""
    from ..nn.functional import _reduction
    return ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction), zero_infinity)
