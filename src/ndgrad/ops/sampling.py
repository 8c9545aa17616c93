"""Resampling: upsample/interpolate (per-axis interpolation matrices, antialiased too), pixel
shuffle/unshuffle, affine grids and grid sampling (2-d and 3-d, with backward ops of their own), and
the user-facing interpolate, upsample*, affine_grid, grid_sample (nn/functional/sampling.py).
"""
import itertools
import math
import warnings

import numpy as np

from ._registry import op, register
from ._schema import Parser
from . import creation, pointwise
from .linalg import _type_name
from .padding import _along_axes
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d


# interpolation: source coordinates as torch computes them
def _scale(n_in, n_out, align_corners, scale):
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else n_in / n_out


def _interp_matrix(mode, n_in, n_out, align_corners, scale):
    dst = np.arange(n_out, dtype=np.float64)
    m = np.zeros((n_out, n_in))
    rows = np.arange(n_out)
    if mode in ("nearest", "nearest-exact"):
        s = 1.0 / scale if scale is not None and scale > 0 else n_in / n_out
        src = np.floor((dst + 0.5) * s if mode == "nearest-exact" else dst * s).astype(np.int64)
        m[rows, np.minimum(src, n_in - 1)] = 1
        return m
    s = _scale(n_in, n_out, align_corners, scale)
    src = s * dst if align_corners else s * (dst + 0.5) - 0.5
    if mode == "linear":
        src = np.maximum(src, 0)
        i0 = np.floor(src).astype(np.int64)
        i1 = np.minimum(i0 + 1, n_in - 1)
        t = src - i0
        np.add.at(m, (rows, i0), 1 - t)
        np.add.at(m, (rows, i1), t)
        return m
    # cubic convolution (A = -0.75) on taps i-1 .. i+2, indices clamped to the edge
    i = np.floor(src).astype(np.int64)
    t = src - i
    a = -0.75
    for k, x in zip(range(-1, 3), (t + 1, t, 1 - t, 2 - t)):
        w = np.where(x <= 1, ((a + 2) * x - (a + 3)) * x * x + 1, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a)
        np.add.at(m, (rows, np.clip(i + k, 0, n_in - 1)), w)
    return m


def _aa_matrix(mode, n_in, n_out, align_corners, scale):
    """Antialiased (area-weighted filter) interpolation, as torch's _upsample_*_aa."""
    s = _scale(n_in, n_out, align_corners, scale)
    size = 2 if mode == "linear" else 4
    support = size / 2 * s if s >= 1 else size / 2
    inv = 1 / s if s >= 1 else 1.0
    m = np.zeros((n_out, n_in))
    for i in range(n_out):   # a loop over output positions of one axis (small), not over elements
        center = s * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), n_in)
        x = np.abs((np.arange(lo, hi) - center + 0.5) * inv)
        if mode == "linear":
            w = np.maximum(1 - x, 0)
        else:
            a = -0.5
            w = np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                         np.where(x < 2, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a, 0))
        total = w.sum()
        m[i, lo:hi] = w / total if total else w
    return m


def _upsample_mats(mode, aa, in_sizes, out_sizes, align_corners, scales):
    scales = scales if scales is not None else [None] * len(out_sizes)
    make = _aa_matrix if aa else _interp_matrix
    return [make(mode, a, b, align_corners, s) for a, b, s in zip(in_sizes, out_sizes, scales)]


def _upsample_op(name, mode, dims, aa=False):
    # torch's arguments after the sizes: (align_corners,) scales per axis (scales / scales_h, scales_w /
    # scales_d, scales_h, scales_w); the nearest modes take no align_corners
    # (fixed parameters, not *rest: the op glue passes a function's declared arguments)
    n_rest = dims + (not mode.startswith("nearest"))

    def options(rest):
        rest = rest[:n_rest]
        align_corners, scales = (None, rest) if mode.startswith("nearest") else (rest[0], rest[1:])
        return align_corners, None if all(v is None for v in scales) else list(scales)

    def forward(self, output_size, o1=None, o2=None, o3=None, o4=None):
        if self.ndim != dims + 2:
            raise RuntimeError(f"{name}: expected a {dims + 2}D input (N, C, spatial...), got {list(self.shape)}")
        mats = _upsample_mats(mode, aa, self.shape[2:], output_size, *options((o1, o2, o3, o4)))
        return _along_axes(self, mats)

    def backward(grad_output, output_size, input_size, o1=None, o2=None, o3=None, o4=None):
        mats = _upsample_mats(mode, aa, tuple(input_size)[2:], output_size, *options((o1, o2, o3, o4)))
        return _along_axes(grad_output, mats, transpose=True)
    fwd = op(name, public=name if name.startswith("_") else "_" + name)(forward)
    op(name + "_backward", public=(name if name.startswith("_") else "_" + name) + "_backward")(backward)
    return fwd


_SCALE_NAMES = {1: ("scales",), 2: ("scales_h", "scales_w"), 3: ("scales_d", "scales_h", "scales_w")}


def _upsample_front(fwd, dims):
    """The public function of an interpolating upsample op, taking torch's aten forms too: the
    default overload (one float per axis: scales_h, scales_w) and `.vec` (output_size or
    scale_factors), besides the op's own form (a list of scales), which the formulas call."""
    name = fwd.__name__
    scale_args = ", ".join(f"float? {n}=None" for n in _SCALE_NAMES[dims])
    parser = Parser(f"{name}(Tensor input, SymInt[{dims}] output_size, bool? align_corners=None, "
                    f"float[{dims}]? scales=None)|hidden",
                    f"{name}(Tensor input, SymInt[{dims}] output_size, bool align_corners, {scale_args})",
                    f"{name}(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors)")

    @parser.signature
    def front(*args, **kwargs):
        which, (x, size, align_corners, *scales) = parser.parse(args, kwargs)
        if which == 1:
            scales = None if all(v is None for v in scales) else list(scales)
        else:
            scales = scales[0]
        if which == 2:   # .vec: exactly one of output_size and scale_factors, as torch checks
            if (size is None) == (scales is None):
                raise RuntimeError("Must specify exactly one of output_size and scale_factors")
            if size is None:
                size = tuple(int(math.floor(n * f)) for n, f in zip(x.shape[2:], scales))
        return fwd(x, size, align_corners, *(scales or (None,) * dims))
    front.__name__ = front.__qualname__ = name
    return register(name)(front)


_UPSAMPLE = {}
for _mode, _dims, _name, _aa in [
        ("nearest", 1, "upsample_nearest1d", False), ("nearest", 2, "upsample_nearest2d", False),
        ("nearest", 3, "upsample_nearest3d", False), ("nearest-exact", 1, "_upsample_nearest_exact1d", False),
        ("nearest-exact", 2, "_upsample_nearest_exact2d", False), ("nearest-exact", 3, "_upsample_nearest_exact3d", False),
        ("linear", 1, "upsample_linear1d", False), ("linear", 2, "upsample_bilinear2d", False),
        ("linear", 3, "upsample_trilinear3d", False), ("cubic", 2, "upsample_bicubic2d", False),
        ("linear", 2, "_upsample_bilinear2d_aa", True), ("cubic", 2, "_upsample_bicubic2d_aa", True)]:
    _UPSAMPLE[_mode, _dims, _aa] = _upsample_op(_name, _mode, _dims, _aa)
    if _mode in ("linear", "cubic"):
        _upsample_front(_UPSAMPLE[_mode, _dims, _aa], _dims)


@op("pixel_shuffle", public="pixel_shuffle")
def pixel_shuffle(self, upscale_factor):
    r = upscale_factor
    if self.ndim < 3 or self.shape[-3] % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={self.shape[-3] if self.ndim >= 3 else None} is not "
                           f"divisible by {r * r}")
    *b, c, h, w = self.shape
    x = self.reshape(*b, c // (r * r), r, r, h, w)
    n = len(b)
    x = x.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return np.ascontiguousarray(x.reshape(*b, c // (r * r), h * r, w * r))


@op("pixel_unshuffle", public="pixel_unshuffle")
def pixel_unshuffle(self, downscale_factor):
    r = downscale_factor
    if self.ndim < 3 or self.shape[-2] % r or self.shape[-1] % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by downscale_factor, got "
                           f"{list(self.shape)} and {r}")
    *b, c, h, w = self.shape
    x = self.reshape(*b, c, h // r, r, w // r, r)
    n = len(b)
    x = x.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return np.ascontiguousarray(x.reshape(*b, c * r * r, h // r, w // r))


@op("channel_shuffle", public="channel_shuffle")
def channel_shuffle(self, groups):
    r"""Shuffles the channels of `input` (N, C, \*): read as (`groups`, C / `groups`) and transposed, so that
    consecutive channels come from different groups.

    Args:
        input (Tensor): the input, (N, C, \*), C divisible by `groups`.
        groups (int): the number of groups.

    Returns:
        Tensor: the shuffled tensor, of `input`'s shape.

    Example::

        >>> x = torch.arange(6.0).reshape(1, 6, 1)
        >>> torch.channel_shuffle(x, 2).flatten()
        tensor([0., 3., 1., 4., 2., 5.])
    """
    if self.ndim < 3:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with sizes "
                           f"{list(self.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c, *rest = self.shape
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    x = self.reshape(n, groups, c // groups, *rest).swapaxes(1, 2)
    return np.ascontiguousarray(x.reshape(self.shape))


@op("native_channel_shuffle", public="native_channel_shuffle")
def native_channel_shuffle(self, groups):
    r""":func:`ndgrad.channel_shuffle`'s kernel, without a derivative (torch records a node that
    refuses the backward).

    Args:
        input (Tensor): the input, (N, C, \*), C divisible by `groups`.
        groups (int): the number of groups.

    Returns:
        Tensor: the shuffled tensor.

    Example::

        >>> x = torch.arange(4.0).reshape(1, 4, 1)
        >>> torch.native_channel_shuffle(x, 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    return channel_shuffle.spec.forward(self, groups)


_INTERP_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    dims = input.ndim - 2
    if mode in ("nearest", "nearest-exact", "area"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if mode in _INTERP_DIMS and _INTERP_DIMS[mode] != dims:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {_INTERP_DIMS[mode] + 2}D input")
    if dims < 1 or dims > 3:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) "
                                  f"for the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                                  f"nearest-exact (got {mode})")
    if antialias and not (mode in ("bilinear", "bicubic") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D tensor "
                         "as input")
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined" if size is not None else
                         "either size or scale_factor should be defined")
    scales = None
    if size is not None:
        out = [int(size)] * dims if isinstance(size, (int, np.integer)) else [int(s) for s in size]
        if len(out) != dims:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {list(input.shape[2:])} and output size of {out}. Please provide "
                             f"input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                             f"format.")
    else:
        sf = [float(scale_factor)] * dims if isinstance(scale_factor, (int, float)) else [float(s) for s in scale_factor]
        out = [int(math.floor(n * s)) for n, s in zip(input.shape[2:], sf)]
        scales = None if recompute_scale_factor else sf
    if mode == "area":
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[dims - 1](input, out)
    kind = {"nearest": "nearest", "nearest-exact": "nearest-exact", "bicubic": "cubic"}.get(mode, "linear")
    if mode not in ("nearest", "nearest-exact", "area", "bicubic") + tuple(_INTERP_DIMS):
        raise NotImplementedError(f"Input Error: unsupported interpolation mode {mode!r}")
    options = () if kind.startswith("nearest") else (align_corners,)
    return _UPSAMPLE[kind, dims, bool(antialias)](input, out, *options, *(scales or (None,) * dims))


def _deprecated_upsample(name):
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=3)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    _deprecated_upsample("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    _deprecated_upsample("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    _deprecated_upsample("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


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
        x = pointwise.where(flips % 2 == 0, extra + low, span - extra + low)
    return x.clamp(0, size - 1)


def grid_sample_composite(input, grid, interp, padding, align):
    """Grid sampling built from differentiable public ops, equal to the kernel: the taps' indices
    come from _grid_taps (constants), their weights are recomputed from `grid` as Tensors. Double
    backward of grid_sampler differentiates this twice."""
    sizes = tuple(input.shape[2:])
    n, c = input.shape[:2]
    out_shape = tuple(grid.shape[1:-1])
    taps = _grid_taps(grid._array, sizes, interp, padding, align)
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
        vals = flat.gather(2, creation.tensor(np.broadcast_to(linear, (n, c, linear.shape[-1])).copy()))
        w = creation.tensor(ok.astype(input._array.dtype))
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
    _check_grid_sampler(input._array, grid._array, interpolation_mode)
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
