"""The catalog's odds and ends: triangular parts, rot90, block_diag, diag_embed, the unique family,
aliases and copies torch records under their own node names (lift, _lazy_clone, _reshape_copy,
slice_inverse), _masked_softmax, and torch's private autograd test ops.

Like every op family, each is a forward on arrays registered with `@op`; the public functions
check arguments with torch's messages. Ops torch reaches only through `torch.ops.aten.<op>` are
offered under `ndgrad.ops.aten`, the namespace the op modules share.
"""
import operator
import sys
import types

import numpy as np

from .. import _dtype
from ._registry import op, register
from .._tensor import _wrap_dim
from .indexing import _slice_bounds
from .nn import _float_input
from .shape import _diagonal_view, _infer_size, _reshape_alias, _shape_str, _size

_pkg = sys.modules[__package__]
aten = getattr(_pkg, "aten", None) or types.SimpleNamespace()
_pkg.aten = aten


# ---- triangular parts, rot90 ----------------------------------------------------------------
def _check_matrix(name, input):
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


@op("tril", method=True, inplace=True)
def tril(input, diagonal=0):
    """The lower triangle of the last two dims (on and below `diagonal`); zeros above it."""
    _check_matrix("tril", input)
    return np.tril(input, diagonal)


@op("triu", method=True, inplace=True)
def triu(input, diagonal=0):
    """The upper triangle of the last two dims (on and above `diagonal`); zeros below it."""
    _check_matrix("triu", input)
    return np.triu(input, diagonal)


@op("rot90", public=False)
def _rot90(input, k, dims):
    return np.rot90(input, k, dims).copy()   # a new tensor, as torch's (np.rot90 gives a view)


@register(method=True)
def rot90(input, k=1, dims=(0, 1)):
    """input rotated by k quarter turns in the plane of dims, from dims[0] towards dims[1]."""
    dims = tuple(dims)
    n = input.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    wrapped = (_wrap_dim(dims[0], n), _wrap_dim(dims[1], n))
    if wrapped[0] == wrapped[1]:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    return _rot90(input, operator.index(k) % 4, wrapped)


# ---- block_diag, diag_embed -------------------------------------------------------------------
def _block_shape(shape):
    """The (rows, cols) block a block_diag input fills: a 0-d tensor is 1x1, a 1-d one a row."""
    return (1, 1) if not shape else (1, shape[0]) if len(shape) == 1 else tuple(shape)


@op("block_diag", public=False)
def _block_diag(tensors, shapes):
    blocks = [_block_shape(s) for s in shapes]
    dims = [_dtype.from_numpy_dtype(a.dtype) for a in tensors if a.ndim]
    zeros = [_dtype.from_numpy_dtype(a.dtype) for a in tensors if not a.ndim]
    dt = _dtype.result_type(dims, zeros).np if tensors else _dtype.defaults.float.np
    out = np.zeros((sum(b[0] for b in blocks) if tensors else 1, sum(b[1] for b in blocks)), dt)
    r = c = 0
    for a, (rows, cols) in zip(tensors, blocks):
        out[r:r + rows, c:c + cols] = a.reshape(rows, cols)
        r, c = r + rows, c + cols
    return out


@register()
def block_diag(*tensors):
    """The tensors (at most 2-d) as the blocks of a block-diagonal matrix."""
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.ndim} dimensions")
    # the node keeps the inputs' shapes, not the inputs (which may be modified in place later)
    return _block_diag(list(tensors), [tuple(t.shape) for t in tensors])


@op("diag_embed", public=False)
def _diag_embed(input, offset, dim1, dim2):
    n = input.shape[-1] + abs(offset) if input.ndim else 1
    shape = list(input.shape[:-1])
    for d in sorted((dim1, dim2)):
        shape.insert(d, n)
    out = np.zeros(shape, input.dtype)
    _diagonal_view(out, offset, dim1, dim2)[...] = input
    return out


@register(method=True)
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices (in dims dim1, dim2 of the result) whose `offset` diagonal is input's last dim."""
    n = input.ndim + 1
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _diag_embed(input, operator.index(offset), d1, d2)


# ---- unique -----------------------------------------------------------------------------------
# torch has no derivative for any of them: the nodes are recorded, backward raises. The flattened
# ops return empty inverse/counts unless asked; the ones along a dim always compute both.
def _distinct(a, dim, consecutive):
    """(values, inverse, counts): the distinct elements of a (slices along dim, when given), sorted,
    or its runs of equal neighbours when consecutive. NaNs are all distinct, as in torch."""
    moved = a.reshape(-1) if dim is None else np.moveaxis(a, dim, 0)
    rows = moved.reshape(len(moved), int(np.prod(moved.shape[1:])))
    n = len(rows)
    order = np.arange(n) if consecutive or not rows.shape[1] else np.lexsort(rows.T[::-1])
    ordered = rows[order]
    first = np.ones(n, bool)
    first[1:] = (ordered[1:] != ordered[:-1]).any(1)
    inverse = np.empty(n, np.int64)
    inverse[order] = np.cumsum(first) - 1
    starts = np.flatnonzero(first)
    counts = np.diff(np.append(starts, n)).astype(np.int64)
    values = ordered[starts].reshape((len(starts),) + moved.shape[1:])
    return (values if dim is None else np.moveaxis(values, 0, dim)), inverse, counts


def _flat_distinct(input, consecutive, return_inverse, return_counts):
    values, inverse, counts = _distinct(input, None, consecutive)
    empty = np.empty(0, np.int64)
    return values, inverse.reshape(input.shape) if return_inverse else empty, counts if return_counts else empty


@op("_unique")
def _unique(input, sorted=True, return_inverse=False):
    return _flat_distinct(input, False, return_inverse, False)[:2]


@op("_unique2")
def _unique2(input, sorted=True, return_inverse=False, return_counts=False):
    return _flat_distinct(input, False, return_inverse, return_counts)


@op("unique_dim", public=False)
def unique_dim(input, dim, sorted=True, return_inverse=False, return_counts=False):
    return _distinct(input, _wrap_dim(dim, input.ndim), False)


@op("unique_consecutive", public=False)
def _unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    if dim is None:
        return _flat_distinct(input, True, return_inverse, return_counts)
    return _distinct(input, _wrap_dim(dim, input.ndim), True)


@op("unique_dim_consecutive", public=False)
def unique_dim_consecutive(input, dim, return_inverse=False, return_counts=False):
    return _distinct(input, _wrap_dim(dim, input.ndim), True)


def _picked(out, return_inverse, return_counts):
    """torch.unique's Python result: the values, then inverse and counts only if asked for."""
    values, inverse, counts = out
    picked = (values,) + ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return picked if len(picked) > 1 else values


@register(method=True)
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements (or slices along dim), sorted; optionally where each input element went
    (inverse) and how often each value occurs (counts)."""
    if dim is None:
        return _picked(_unique2(input, sorted, return_inverse, return_counts), return_inverse, return_counts)
    return _picked(unique_dim(input, dim, sorted, return_inverse, return_counts), return_inverse, return_counts)


@register(method=True)
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """The first element (or slice along dim) of every run of equal neighbours."""
    return _picked(_unique_consecutive(input, return_inverse, return_counts, dim), return_inverse, return_counts)


aten._unique, aten._unique2, aten.unique_dim = _unique, _unique2, unique_dim
aten.unique_consecutive, aten.unique_dim_consecutive = _unique_consecutive, unique_dim_consecutive


# ---- aliases and copies with their own nodes -----------------------------------------------------
@op("lift", public=False)
def lift(input):
    return input.view()   # like torch's: the same memory in a tensor that is not a tracked view


@op("lift_fresh", public=False)
def lift_fresh(input):
    return input.view()


@op("_lazy_clone", method=True)
def _lazy_clone(input):
    """A copy (torch copies on first write; ndgrad copies at once)."""
    return input.copy()


@op("_reshape_copy", public=False)
def _reshape_copy_op(input, size):
    return np.reshape(input, size).copy()


def _reshape_copy(input, size):
    return _reshape_copy_op(input, _infer_size(_size((size,)), input.numel()))


def _reshape_alias_strided(input, size, stride):
    """aten._reshape_alias: a view of input with the given size and stride, which must be those of
    reshaping input to `size` without a copy (the op's derivative assumes a reshape)."""
    size, stride = _size((size,)), _size((stride,))
    view = np.reshape(input._data, size, copy=False) if input.numel() == int(np.prod(size)) else None
    item = input._data.itemsize
    if view is None or any(n > 1 and s * item != vs for n, s, vs in zip(size, stride, view.strides)):
        raise NotImplementedError(f"_reshape_alias: size {_shape_str(size)} and stride {_shape_str(stride)} are not a "
                                  f"reshape of the input's shape {_shape_str(input.shape)} and stride "
                                  f"{_shape_str(input.stride())}; use as_strided for other geometries")
    return _reshape_alias(input, size)


aten.lift, aten.lift_fresh = lift, lift_fresh
aten._reshape_copy, aten._reshape_alias = _reshape_copy, _reshape_alias_strided


def _storage(a):
    """The array that owns a's memory (torch's storage of a's tensor)."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _storage_offset(a):
    """a's first element's position in its storage, in bytes."""
    return a.__array_interface__["data"][0] - _storage(a).__array_interface__["data"][0]


@op("slice_inverse", public=False, view=True)
def _slice_inverse(input, src, dim, start, end, step):
    """input's memory seen with src's size, stride and offset: for input a slice of src, src's memory."""
    storage, item, offset = _storage(input), src.itemsize, _storage_offset(src)
    needed = offset + item * (1 + sum((n - 1) * s // item for n, s in zip(src.shape, src.strides))) \
        if src.size else 0
    if needed > storage.nbytes or not storage.flags.c_contiguous:
        raise RuntimeError(f"setStorage: sizes {_shape_str(src.shape)}, strides "
                           f"{_shape_str(s // item for s in src.strides)}, storage offset {offset // item}, and "
                           f"itemsize {item} requiring a storage size of {needed} are out of bounds for storage of "
                           f"size {storage.nbytes}")
    flat = storage.reshape(-1).view(src.dtype)[offset // item:]
    return np.lib.stride_tricks.as_strided(flat, src.shape, src.strides)


@register(method=True)
def slice_inverse(input, src, dim=0, start=None, end=None, step=1):
    """The inverse of src[start:end:step] along dim: for input that slice, a view of src (with input's history)."""
    dim = _wrap_dim(dim, src.ndim)
    start, end, step = _slice_bounds(slice(start, end, step), src.shape[dim] if src.ndim else 1)
    return _slice_inverse(input, src, dim, start, end, step)


# ---- masked softmax ---------------------------------------------------------------------------
@op("_masked_softmax", public=False)
def _masked_softmax_full(input, mask, dim):
    _float_input("masked_softmax", input)
    x = np.where(mask, -np.inf, input).reshape(input.shape or (1,))
    e = np.exp(x - x.max(dim, keepdims=True))   # a fully masked slice gives NaN, as torch's CPU kernel
    return (e / e.sum(dim, keepdims=True)).reshape(input.shape)


@op("_masked_softmax_backward")
def _masked_softmax_backward(grad_output, output, mask, dim):
    y, g = output.reshape(output.shape or (1,)), grad_output.reshape(output.shape or (1,))
    gi = y * (g - (g * y).sum(dim, keepdims=True))
    return np.where(mask, np.zeros((), gi.dtype), gi.reshape(output.shape))


@register()
def _masked_softmax(input, mask, dim=None, mask_type=None):
    """softmax over dim (default: the last) with the entries where mask is True left out.

    mask_type 0: an (L, L) mask for every (batch, head) of a 4-d input; 1: a (B, L) key padding mask;
    2 (or None): a mask of input's shape.
    """
    if mask.dtype != _dtype.bool_:
        raise RuntimeError("Mask should be a boolean tensor")
    shape = tuple(input.shape)
    if tuple(mask.shape) != shape:   # a mask of input's shape is taken whatever mask_type says
        if input.ndim == 4 and mask_type == 0:
            if tuple(mask.shape) != shape[2:]:
                raise RuntimeError("For mask_type == 0 mask shape should be (L, L)")
            mask = mask.expand(shape)
        elif input.ndim == 4 and mask_type == 1:
            if tuple(mask.shape) != (shape[0], shape[3]):
                raise RuntimeError("For mask_type == 1 mask shape should be (B, L)")
            mask = mask.view(shape[0], 1, 1, shape[3]).expand(shape)
        elif input.ndim == 4 and mask_type not in (None, 2):
            raise RuntimeError("Mask Type should be 0 (src_mask) or 1 (src_key_padding_mask), or 2 (default_mask)")
        else:
            raise RuntimeError("For mask_type == 2 mask shape should match input shape")
    return _masked_softmax_full(input, mask, _wrap_dim(-1 if dim is None else dim, input.ndim))


# ---- torch's private autograd test ops --------------------------------------------------------
@op("_test_warn_in_autograd", public=False)
def _test_warn_in_autograd(input):
    """A copy whose backward warns "Warn from backward"."""
    return input.copy()


aten._test_warn_in_autograd = _test_warn_in_autograd


@op("_test_autograd_multiple_dispatch.fullcoverage", public=False)
def _test_autograd_multiple_dispatch_fullcoverage(input):
    return input.copy()


@register()
def _test_autograd_multiple_dispatch(input, b=None):
    """A copy whose backward adds 1 to the gradient; with `b` (torch's nested-only overload) a plain clone."""
    return _test_autograd_multiple_dispatch_fullcoverage(input) if b is None else input.clone()


@op("_test_autograd_multiple_dispatch_view", view=True)
def _test_autograd_multiple_dispatch_view(input):
    """input flattened, as a view."""
    return np.reshape(input, -1, copy=False)
