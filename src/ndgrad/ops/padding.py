"""Padding: the reflection/replication/circular pad ops (per-axis gathers, so their backward is the
per-axis scatter-add) and constant_pad_nd; the user-facing pad (nn/functional/padding.py). The per-axis
helper `_along_axes` (interpolation's per-axis linear maps) is shared with sampling.py.
"""

import numpy as np

from ._registry import op


# ---- padding and interpolation: per-axis maps -------------------------------------------------
# Every interpolation mode is, along each spatial axis, a matrix M (out x in) applied to that axis; the
# backward applies M's transpose. Reflect/replicate padding is a gather along each axis (each output
# position copies one input entry), its backward the matching scatter-add.
def _along_axes(x, mats, transpose=False):
    first = x.ndim - len(mats)
    for k, m in enumerate(mats):
        if m is None:
            continue
        axis = first + k
        idx = _selection(m)
        if idx is not None and not transpose:   # nearest modes: a gather (an inf pixel stays where it is)
            x = np.take(x, idx, axis=axis)
            continue
        if idx is not None and (r := len(idx) // m.shape[1]) * m.shape[1] == len(idx) and \
                np.array_equal(idx, np.arange(len(idx)) // r):   # each entry taken r times in a row: r strided adds
            lead = (slice(None),) * axis
            out = x[lead + (slice(0, None, r),)].copy()
            for t in range(1, r):
                out += x[lead + (slice(t, None, r),)]
            x = out
            continue
        x = np.moveaxis(np.moveaxis(x, axis, -1) @ (m if transpose else m.T).astype(x.dtype, copy=False), -1, axis)
    return np.ascontiguousarray(x)


def _selection(m):
    """The column each row of m picks where m is a selection (one 1 per row, zeros elsewhere); else None."""
    idx = m.argmax(1)
    if not len(idx) or not np.array_equal(m[np.arange(len(idx)), idx], np.ones(len(idx))) \
            or np.count_nonzero(m) != len(idx):
        return None
    return idx


def _pad_indices(shape, padding, mode):
    """Per padded axis (the trailing len(padding)//2 dims of `shape`), the source index of each output
    position of reflect/replicate padding, and the axis's left padding."""
    k = len(padding) // 2
    out = []
    for i in range(k):
        n = shape[len(shape) - k + i]
        left, right = padding[2 * (k - 1 - i)], padding[2 * (k - 1 - i) + 1]
        if mode == "reflect" and (left >= n or right >= n):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({left}, {right}) at dimension {len(shape) - k + i} of input "
                               f"{list(shape)}")
        idx = np.arange(-left, n + right)
        if mode == "reflect":
            period = 2 * (n - 1) if n > 1 else 1
            idx = np.abs(idx) % period
            idx = np.where(idx >= n, period - idx, idx)
        else:
            idx = np.clip(idx, 0, n - 1)
        out.append((idx, left))
    return out


def _gather_axes(x, indices):
    """x with each trailing axis replaced by its entries at `indices`, where the positions between the
    left and right padding copy the entries in order: x copied into the middle at once, then each
    axis's border positions copied from it (full range on the axes before, the middle on those after:
    the corners come with the last axes). Copies only."""
    first = x.ndim - len(indices)
    if not all(0 <= left and left + n <= len(idx) for (idx, left), n in zip(indices, x.shape[first:])):
        for k, (idx, _) in enumerate(indices):   # negative padding crops: a plain gather per axis
            x = np.take(x, idx, axis=first + k)
        return np.ascontiguousarray(x)
    out = np.empty(x.shape[:first] + tuple(len(idx) for idx, _ in indices), x.dtype)
    middle = [slice(left, left + n) for (_, left), n in zip(indices, x.shape[first:])]
    out[(Ellipsis,) + tuple(middle)] = x
    for k, (idx, left) in enumerate(indices):
        before, after = (slice(None),) * (first + k), tuple(middle[k + 1:])
        for p in np.flatnonzero(idx != np.arange(len(idx)) - left):
            out[before + (p,) + after] = out[before + (left + idx[p],) + after]
    return out


def _scatter_axes(g, indices, shape):
    """The adjoint of _gather_axes: along each axis, the output positions that copied an entry summed back
    into it, the interior as one copy and each border position (a few) as one slice-add."""
    first = g.ndim - len(indices)
    for k, (idx, left) in enumerate(indices):
        axis, n = first + k, shape[first + k]
        lead = (slice(None),) * axis
        if not 0 <= left <= left + n <= len(idx):   # negative padding cropped: add every position at its entry
            out = np.zeros(g.shape[:axis] + (n,) + g.shape[axis + 1:], g.dtype)
            np.add.at(out, lead + (idx,), g)
            g = out
            continue
        out = np.array(g[lead + (slice(left, left + n),)])   # position left + i copied entry i
        for p in np.flatnonzero((idx != np.arange(len(idx)) - left)):
            out[lead + (idx[p],)] += g[lead + (p,)]
        g = out
    return g


def _check_pad_input(name, self, padding):
    k = len(padding) // 2
    if self.ndim not in (k + 1, k + 2) or any(s == 0 for s in self.shape[-k:]):
        raise RuntimeError(f"{name}: Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: {list(self.shape)}")


def _pad_op(name, mode):
    def forward(self, padding):
        _check_pad_input(name, self, padding)
        return _gather_axes(self, _pad_indices(self.shape, padding, mode))

    def backward(grad_output, self, padding):
        return _scatter_axes(grad_output, _pad_indices(self.shape, padding, mode), self.shape)
    fwd = op(name, public="_" + name)(forward)
    op(name + "_backward", public="_" + name + "_backward")(backward)
    return fwd


_PADS = {(mode, d): _pad_op(f"{prefix}_pad{d}d", mode)
         for mode, prefix in (("reflect", "reflection"), ("replicate", "replication")) for d in (1, 2, 3)}


@op("constant_pad_nd", public="constant_pad_nd")
def constant_pad_nd(self, pad, value=0):
    if len(pad) % 2 or len(pad) // 2 > self.ndim:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}" if len(pad) % 2 else
                           f"Length of pad should be no more than twice the number of dimensions of the input. "
                           f"Pad length is {len(pad)} while the input has {self.ndim} dimensions.")
    k = len(pad) // 2
    widths = [(0, 0)] * (self.ndim - k) + [(pad[2 * (k - 1 - i)], pad[2 * (k - 1 - i) + 1]) for i in range(k)]
    for d, ((a, b), n) in enumerate(zip(widths, self.shape)):
        if n + a + b < 0:   # NumPy's slicing would quietly give an empty dimension
            raise RuntimeError(f"constant_pad_nd: padding ({a}, {b}) of dimension {d} (size {n}) would make its "
                               f"size {n + a + b}; negative padding may remove at most the whole dimension")
    crop = tuple(slice(max(-a, 0), n - max(-b, 0)) for (a, b), n in zip(widths, self.shape))
    out = self[crop]
    return np.pad(out, [(max(a, 0), max(b, 0)) for a, b in widths], constant_values=value)


# ---- user-facing padding, interpolation, pixel shuffle
def pad(input, pad, mode="constant", value=None):
    pad = tuple(int(p) for p in pad)
    if mode == "constant":
        return constant_pad_nd(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise ValueError(f"Padding mode \"{mode}\" doesn't take in value argument.")
    k = len(pad) // 2
    if len(pad) % 2 or k > 3 or input.ndim not in (k + 1, k + 2):
        raise NotImplementedError(f"Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now "
                                  f"(got a {input.ndim}D input and {len(pad)} pad values in mode {mode!r})")
    if mode in ("reflect", "replicate"):
        return _PADS[mode, k](input, pad)
    if mode == "circular":
        return _pad_circular(input, pad)
    raise NotImplementedError(f"Unrecognised padding mode {mode}")


def _pad_circular(input, pad):
    """Circular padding as torch composes it: copy the input into the middle, then wrap slices."""
    k = len(pad) // 2
    shape = list(input.shape)
    for i in range(k):
        d = input.ndim - 1 - i
        if pad[2 * i] > shape[d] or pad[2 * i + 1] > shape[d]:
            raise ValueError("Padding value causes wrapping around more than once.")
        shape[d] += pad[2 * i] + pad[2 * i + 1]
    out = input.new_empty(shape)
    inner = [slice(None)] * input.ndim
    cropped = [slice(None)] * input.ndim   # negative pads crop the input
    for i in range(k):
        d = input.ndim - 1 - i
        inner[d] = slice(max(pad[2 * i], 0), shape[d] - max(pad[2 * i + 1], 0))
        cropped[d] = slice(max(-pad[2 * i], 0), input.shape[d] - max(-pad[2 * i + 1], 0))
    out[tuple(inner)] = input[tuple(cropped)] if any(p < 0 for p in pad) else input
    for i in range(k):   # wrap along each padded dim, innermost first, over the full extent of the others
        d = input.ndim - 1 - i
        left, right, n = pad[2 * i], pad[2 * i + 1], shape[d]
        idx = [slice(None)] * input.ndim
        if left > 0:
            dst, src = list(idx), list(idx)
            dst[d], src[d] = slice(0, left), slice(n - max(right, 0) - left, n - max(right, 0))
            out[tuple(dst)] = out[tuple(src)]
        if right > 0:
            dst, src = list(idx), list(idx)
            dst[d], src[d] = slice(n - right, n), slice(max(left, 0), max(left, 0) + right)
            out[tuple(dst)] = out[tuple(src)]
    return out
