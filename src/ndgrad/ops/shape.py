"""Shape and view ops: views share memory and the version counter with their base.
Also here: triangular parts (tril/triu), rot90, block_diag, diag_embed, and the aliases and copies
torch records under their own node names (lift, lift_fresh, _reshape_copy, _reshape_alias).

The forwards of view ops (`view=True`) return NumPy views of their input, never the input array
itself and never a copy; the glue marks the results as views of the input's base. Argument
parsing (varargs or a tuple, -1, negative dims) and torch's error messages live in the public
functions, which then call one registered op.
"""
import operator
import sys
import types
import warnings

import numpy as np

from .. import _dtype
from . import _registry as _dispatch
from ..autograd.record import check_leaf_inplace as _check_leaf_inplace
from ._registry import op, register
from .._tensor import Tensor, _wrap_dim
from ..autograd.grad_mode import state


# torch.ops.aten: a namespace shared by the op modules that need one (created by the first)
_pkg = sys.modules[__package__]
aten = getattr(_pkg, "aten", None) or types.SimpleNamespace()
_pkg.aten = aten


def _size(size):
    """Sizes given as varargs `f(2, 3)` or as one sequence `f((2, 3))`, as a tuple of ints."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return tuple(operator.index(s) for s in size)


def _dims(dims, ndim):
    """A sequence of dims, wrapped, with torch's error for repeats."""
    out = tuple(_wrap_dim(operator.index(d), ndim) for d in dims)
    if len(set(out)) != len(out):
        raise RuntimeError(f"dim {next(d for d in out if out.count(d) > 1)} appears multiple times in the list of dims")
    return out


def _shape_str(shape):
    return f"[{', '.join(map(str, shape))}]"


def _infer_size(shape, numel):
    """`shape` with its -1 (if any) filled in for `numel` elements, or torch's error."""
    infer, known = None, 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {_shape_str(shape)}")
        else:
            known *= s
    if infer is None:
        if known == numel:
            return shape
    elif known == 0 and numel == 0:
        raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {_shape_str(shape)} because the "
                           "unspecified dimension size -1 can be any value and is ambiguous")
    elif known and numel % known == 0:
        return shape[:infer] + (numel // known,) + shape[infer + 1:]
    raise RuntimeError(f"shape '{_shape_str(shape)}' is invalid for input of size {numel}")


def _method(fn):
    """A Tensor method that torch has no namespace function for."""
    _dispatch.METHODS[fn.__name__] = fn
    return fn


def _inplace_view(view_op, self, *args):
    """Tensor.t_(), squeeze_(), ...: self takes the view's shape and strides (its values are untouched) and
    the view op's node as its history; the version counter moves, as for any in-place op."""
    if state.enabled and self._requires_grad:
        _check_leaf_inplace(self)
    out = view_op(self, *args)
    self._data = out._data
    if out._fw is not None:   # forward AD: the tangent takes the view's geometry too
        self._fw = out._fw
    if out._grad_fn is not None:
        self._grad_fn, self._output_nr = out._grad_fn, out._output_nr
    self._vc[0] += 1
    if self._base is not None:
        self._view_fn, self._view_version = out._view_fn, self._vc[0]
    return self


# ---- view / reshape -------------------------------------------------------------------------
class _NotViewable(RuntimeError):
    pass


def _reshape_view(input, size):
    try:
        return np.reshape(input, size, copy=False)
    except ValueError:
        raise _NotViewable("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.") from None


_view = op("view", public=False, view=True)(_reshape_view)
# reshape of a non-contiguous input whose strides allow a view: torch's node for it
_reshape_alias = op("_reshape_alias", public=False, view=True)(_reshape_view)


@op("_unsafe_view", public=False)
def _unsafe_view(input, size):
    return np.reshape(input, size)   # input is a fresh clone: never copies, but not a tracked view


@register(method=True)
def view(input, *size):
    if len(size) == 1 and isinstance(size[0], _dtype.dtype):
        return _view_dtype(input, size[0])
    return _view(input, _infer_size(_size(size), input._data.size))


def _view_dtype(input, dtype):
    """The same bytes read as `dtype`: not differentiable, shares memory and version counter."""
    a, new = input._data, dtype.np
    if a.itemsize != new.itemsize:
        what = f"to view {input.dtype.title} as {dtype.title} (different element sizes)"
        if a.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if a.strides[-1] != a.itemsize and a.shape[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {a.strides[-1] // a.itemsize}")
        if new.itemsize > a.itemsize and a.shape[-1] % (new.itemsize // a.itemsize):
            raise RuntimeError(f"self.size(-1) must be divisible by {new.itemsize // a.itemsize} {what}, "
                               f"but got {a.shape[-1]}")
    t = input.detach()
    t._data = a.view(new)
    return t


@_method
def view_as(input, other):
    return view(input, other.shape)


@register(method=True)
def reshape(input, *shape):
    shape = _infer_size(_size(shape), input._data.size)
    if input._data.flags.c_contiguous:
        return _view(input, shape)
    try:
        return _reshape_alias(input, shape)
    except _NotViewable:
        return _unsafe_view(input.clone(), shape)


@_method
def reshape_as(input, other):
    return reshape(input, other.shape)


@register(method=True)
def flatten(input, start_dim=0, end_dim=-1):
    shape = input._data.shape
    if not shape:
        return reshape(input, 1)
    start, end = _wrap_dim(start_dim, len(shape)), _wrap_dim(end_dim, len(shape))
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    return reshape(input, shape[:start] + (int(np.prod(shape[start:end + 1])),) + shape[end + 1:])


@register(method=True)
def unflatten(input, dim, sizes):
    shape = input._data.shape
    dim = _wrap_dim(dim, len(shape))
    sizes = _size((sizes,))
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    try:
        sizes = _infer_size(sizes, shape[dim])
    except RuntimeError:
        if -1 in sizes:
            raise
        raise RuntimeError(f"unflatten: Provided sizes {_shape_str(sizes)} don't multiply up to the size of dim "
                           f"{dim} ({shape[dim]}) in the input tensor") from None
    return _view(input, shape[:dim] + sizes + shape[dim + 1:])


@register(method=True)
def ravel(input):
    return _view(contiguous(input), (input._data.size,))


@_method
def contiguous(input, memory_format=None):
    return input if input._data.flags.c_contiguous else input.clone()


# ---- transposes and permutations ------------------------------------------------------------
_transpose = op("transpose.int", public=False, view=True)(np.swapaxes)
_transpose_ = op("transpose_", public=False, view=True)(np.swapaxes)


@register(method=True)
def transpose(input, dim0, dim1):
    n = input._data.ndim
    return _transpose(input, _wrap_dim(dim0, n), _wrap_dim(dim1, n))


@_method
def transpose_(input, dim0, dim1):
    n = input._data.ndim
    return _inplace_view(_transpose_, input, _wrap_dim(dim0, n), _wrap_dim(dim1, n))


@register(method=True)
def swapaxes(input, axis0, axis1):
    return transpose(input, axis0, axis1)


@register(method=True)
def swapdims(input, dim0, dim1):
    return transpose(input, dim0, dim1)


def _t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return input.T


t = op("t", public="t", method=True, view=True)(_t)
_t_ = op("t_", public=False, view=True)(_t)


@_method
def t_(input):
    return _inplace_view(_t_, input)


@op("permute", public=False, view=True)
def _permute(input, dims):
    return np.transpose(input, dims)


@register(method=True)
def permute(input, *dims):
    dims = _size(dims)
    n = input._data.ndim
    if len(dims) != n:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the length "
                           f"of the desired ordering of dimensions i.e. input.dim() = {n} is not equal to "
                           f"len(dims) = {len(dims)}")
    wrapped = tuple(_wrap_dim(d, n) for d in dims)
    if len(set(wrapped)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _permute(input, wrapped)


@register(method=True)
def movedim(input, source, destination):
    n = input._data.ndim
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should contain "
                           f"the same number of dims as destination ({list(dst)} dims)")
    src_w, dst_w = tuple(_wrap_dim(d, n) for d in src), tuple(_wrap_dim(d, n) for d in dst)
    for name, given, wrapped in (("source", src, src_w), ("destination", dst, dst_w)):
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(given)})")
    order = [d for d in range(n) if d not in src_w]
    for d, s in sorted(zip(dst_w, src_w)):
        order.insert(d, s)
    return _permute(input, tuple(order))


@register(method=True)
def moveaxis(input, source, destination):
    return movedim(input, source, destination)


def _conj(t):
    return t.conj() if t._data.dtype.kind == "c" else t


def _deprecated_on_0d(what, hint):
    warnings.warn(f"{what} is deprecated on 0-D tensors. {hint}", UserWarning, stacklevel=3)


_IDENTITY, _USE_CONJ = "This function is the identity in these cases.", "Consider using x.conj()."


def _matrix_transpose(name, conj, batched=True):
    """x.mT, x.mH, x.H, x.adjoint(): the last two dims swapped (and conjugated)."""
    def get(self):
        n = self._data.ndim
        if n == 0:
            _deprecated_on_0d(name if name.endswith("()") else f"Tensor.{name}", _USE_CONJ if conj else _IDENTITY)
            return _conj(self) if conj else self
        if n < 2 or not batched and n != 2:
            what = "matrices or batches of matrices" if batched else "matrices (2-D tensors)"
            hint = " For batches of matrices, consider using tensor.mH" if not batched and n > 2 else ""
            raise RuntimeError(f"tensor.{name} is only supported on {what}. Got {n}-D tensor.{hint}")
        out = transpose(self, -2, -1)
        return _conj(out) if conj else out
    get.__name__ = name.rstrip("()")
    return get


def _T(self):
    n = self._data.ndim
    if n == 0:
        _deprecated_on_0d("Tensor.T", _IDENTITY)
    elif n != 2:
        warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
                      "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
                      "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
                      "tensor.", UserWarning, stacklevel=2)
    return _permute(self, tuple(range(n - 1, -1, -1)))


adjoint = register("adjoint", method=True)(_matrix_transpose("adjoint()", conj=True))
Tensor.T = property(_T)
Tensor.mT = property(_matrix_transpose("mT", conj=False))
Tensor.mH = property(_matrix_transpose("mH", conj=True))
Tensor.H = property(_matrix_transpose("H", conj=True, batched=False))


# ---- expand, squeeze, unsqueeze -------------------------------------------------------------
@op("expand", public=False, view=True)
def _expand(input, size, *, implicit=False):
    return np.broadcast_to(input, size)


@register(method=True)
def expand(input, *size, implicit=False):
    size = _size(size)
    shape = input._data.shape
    lead = len(size) - len(shape)
    if lead < 0:
        raise RuntimeError(f"expand(torch.{input.dtype.title}Tensor"
                           f"{{{_shape_str(shape)}}}, size={_shape_str(size)}): the number of sizes provided "
                           f"({len(size)}) must be greater or equal to the number of dimensions in the tensor "
                           f"({len(shape)})")
    target = []
    for i, s in enumerate(size):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
        else:
            have = shape[i - lead]
            if s == -1:
                s = have
            elif have != 1 and s != have:
                raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({have}) at "
                                   f"non-singleton dimension {i}.  Target sizes: {_shape_str(size)}.  Tensor sizes: "
                                   f"{_shape_str(shape)}")
        target.append(s)
    return _expand(input, tuple(target), implicit=implicit)


@_method
def expand_as(input, other):
    return expand(input, other.shape)


def _squeeze_dims(input, dims):
    return np.squeeze(input, tuple(d for d in dims if input.shape[d] == 1)) if input.ndim else input.view()


def _squeeze_all(input):
    return _squeeze_dims(input, range(input.ndim))


def _squeeze_one(input, dim):
    return _squeeze_dims(input, (dim,))


# (all dims, one dim, several dims) for squeeze and squeeze_
_SQUEEZE = tuple(op(name, public=False, view=True)(fn) for name, fn in (
    ("squeeze", _squeeze_all), ("squeeze.dim", _squeeze_one), ("squeeze.dims", _squeeze_dims)))
_SQUEEZE_ = tuple(op(name, public=False, view=True)(fn) for name, fn in (
    ("squeeze_", _squeeze_all), ("squeeze_.dim", _squeeze_one), ("squeeze_.dims", _squeeze_dims)))


def _squeeze_call(ops, input, dim):
    if dim is None:
        return ops[0], (input,)
    if isinstance(dim, (tuple, list)):
        return ops[2], (input, _dims(dim, input._data.ndim))
    return ops[1], (input, _wrap_dim(dim, input._data.ndim))


@register(method=True)
def squeeze(input, dim=None):
    fn, args = _squeeze_call(_SQUEEZE, input, dim)
    return fn(*args)


@_method
def squeeze_(input, dim=None):
    fn, args = _squeeze_call(_SQUEEZE_, input, dim)
    return _inplace_view(fn, *args)


def _insert_dim(input, dim):
    return input[(slice(None),) * dim + (None,)]


_unsqueeze = op("unsqueeze", public=False, view=True)(_insert_dim)
_unsqueeze_ = op("unsqueeze_", public=False, view=True)(_insert_dim)


@register(method=True)
def unsqueeze(input, dim):
    return _unsqueeze(input, _wrap_dim(dim, input._data.ndim + 1))


@_method
def unsqueeze_(input, dim):
    return _inplace_view(_unsqueeze_, input, _wrap_dim(dim, input._data.ndim + 1))


@register(method=True)
def narrow(input, dim, start, length):
    shape = input._data.shape
    if not shape:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = _wrap_dim(dim, len(shape))
    start, length = operator.index(start), operator.index(length)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -shape[dim] <= start <= shape[dim]:
        raise IndexError(f"start out of range (expected to be in range of [{-shape[dim]}, {shape[dim]}], but got "
                         f"{start})")
    if start < 0:
        start += shape[dim]
    if start + length > shape[dim]:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({shape[dim]}).")
    return _slice(input, dim, start, start + length)


def _slice(input, dim, start, end):
    """input[..., start:end, ...] along dim: a slice view (SliceBackward0), through indexing."""
    return input[(slice(None),) * dim + (slice(start, end),)]


@register(method=True)
def tensor_split(input, indices_or_sections, dim=0):
    if input._data.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    dim = _wrap_dim(dim, input._data.ndim)
    if isinstance(indices_or_sections, Tensor):
        if indices_or_sections._data.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {indices_or_sections._data.ndim} dims")
        indices_or_sections = indices_or_sections.tolist()
    n = input._data.shape[dim]
    if isinstance(indices_or_sections, (list, tuple)):
        bounds = [0] + [operator.index(i) for i in indices_or_sections] + [None]
    else:
        sections = operator.index(indices_or_sections)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        small, extra = divmod(n, sections)   # the first `extra` pieces get one more element
        bounds = [k * small + min(k, extra) for k in range(sections + 1)]
    return tuple(_slice(input, dim, a, b) for a, b in zip(bounds, bounds[1:]))


def _split_along(name, min_ndim, dim_of):
    def split(input, indices_or_sections):
        ndim = input._data.ndim
        if ndim < min_ndim:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_ndim} dimension, but got a tensor "
                               f"with {ndim} dimensions!")
        dim = dim_of(ndim)
        if not isinstance(indices_or_sections, (list, tuple)):
            sections = operator.index(indices_or_sections)
            if sections == 0 or input._data.shape[dim] % sections:
                raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                                   f"dimension {input._data.shape[dim]} is not divisible by the split_size "
                                   f"{sections}!")
        return tensor_split(input, indices_or_sections, dim)
    split.__name__ = name
    return register(name, method=True)(split)


hsplit = _split_along("hsplit", 1, lambda ndim: 1 if ndim > 1 else 0)
vsplit = _split_along("vsplit", 2, lambda ndim: 0)
dsplit = _split_along("dsplit", 3, lambda ndim: 2)


# ---- joining ------------------------------------------------------------------------------
def _common_dtype(arrays):
    return _dtype.result_type([_dtype.from_numpy_dtype(a.dtype) for a in arrays]).np


def _check_list(tensors, fn, nonempty=False):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{fn}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    if nonempty and not tensors:
        raise RuntimeError(f"{fn} expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")


@op("cat", public=False)
def _cat(tensors, dim, sizes):
    arrays = [a for a, s in zip(tensors, sizes) if s is not None]
    return np.concatenate(arrays, axis=dim, dtype=_common_dtype(tensors), casting="unsafe")


@register()
def cat(tensors, dim=0):
    _check_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    shapes = [t._data.shape for t in tensors]
    for i, s in enumerate(shapes):
        if not s:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    # 1-D empty tensors are skipped (legacy behaviour) unless every tensor is one
    kept = [i for i, s in enumerate(shapes) if s != (0,)] or list(range(len(shapes)))
    ref = shapes[kept[0]]
    dim = _wrap_dim(dim, len(ref))
    sizes = [None] * len(shapes)
    for i in kept:
        s = shapes[i]
        sizes[i] = s[dim] if len(s) > dim else None
        if len(s) != len(ref):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(ref)} and {len(s)}")
        for d in range(len(ref)):
            if d != dim and s[d] != ref[d]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected size {ref[d]} "
                                   f"but got size {s[d]} for tensor number {i} in the list.")
    # the node keeps each input's size along `dim` (not the inputs, which may change in place later)
    return _cat(list(tensors), dim, sizes)


@register()
def concat(tensors, dim=0):
    return cat(tensors, dim)


@register()
def concatenate(tensors, axis=0):
    return cat(tensors, axis)


@op("stack", public=False)
def _stack(tensors, dim):
    return np.stack(tensors, axis=dim, dtype=_common_dtype(tensors), casting="unsafe")


@register()
def stack(tensors, dim=0):
    _check_list(tensors, "stack", nonempty=True)
    shape = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        if t._data.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {_shape_str(shape)} at entry 0 "
                               f"and {_shape_str(t._data.shape)} at entry {i}")
    return _stack(list(tensors), _wrap_dim(dim, len(shape) + 1))


def _atleast(n, tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
        single = False
    else:
        single = len(tensors) == 1
    out = []
    for t in tensors:
        nd = t._data.ndim
        if nd == 0:
            t = reshape(t, (1,) * n)
        elif nd < n:
            t = unsqueeze(t, 0) if n > 1 and nd == 1 else t
            t = unsqueeze(t, -1) if n == 3 else t
        out.append(t)
    return out[0] if single else tuple(out)


@register()
def atleast_1d(*tensors):
    return _atleast(1, tensors)


@register()
def atleast_2d(*tensors):
    return _atleast(2, tensors)


@register()
def atleast_3d(*tensors):
    return _atleast(3, tensors)


@register()
def hstack(tensors):
    _check_list(tensors, "hstack", nonempty=True)
    tensors = _atleast(1, (tensors,))
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1)


@register()
def vstack(tensors):
    _check_list(tensors, "vstack", nonempty=True)
    return cat(_atleast(2, (tensors,)), 0)


@register()
def row_stack(tensors):
    return vstack(tensors)


@register()
def dstack(tensors):
    _check_list(tensors, "dstack", nonempty=True)
    return cat(_atleast(3, (tensors,)), 2)


@register()
def column_stack(tensors):
    _check_list(tensors, "column_stack", nonempty=True)
    return hstack([reshape(t, t._data.size, 1) if t._data.ndim <= 1 else t for t in tensors])


# ---- splitting ----------------------------------------------------------------------------
def _split_at(input, split_size, dim):
    n = input.shape[dim]
    return tuple(np.split(input, range(split_size, n, split_size) if split_size else (), axis=dim))


def _split_with_sizes(input, split_sizes, dim):
    return tuple(np.split(input, np.cumsum(split_sizes[:-1]), axis=dim))


_split = op("split.Tensor", public=False, view=True)(_split_at)
_split_sizes = op("split_with_sizes", public=False, view=True)(_split_with_sizes)
_unsafe_split = op("unsafe_split.Tensor", public=False)(_split_at)
_unsafe_split_sizes = op("unsafe_split_with_sizes", public=False)(_split_with_sizes)


def _check_split(input, split_size, dim):
    dim = _wrap_dim(dim, input._data.ndim)
    n = input._data.shape[dim] if input._data.ndim else 0
    if isinstance(split_size, (list, tuple)):
        sizes = _size((split_size,))
        if any(s < 0 for s in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                               f"split_sizes={_shape_str(sizes)}")
        if sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                               f"dimension {dim}), but got split_sizes={_shape_str(sizes)}")
        return sizes, dim
    split_size = operator.index(split_size)
    if input._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0 and n:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
    return split_size, dim


@register(method=True)
def split(tensor, split_size_or_sections, dim=0):
    size, dim = _check_split(tensor, split_size_or_sections, dim)
    return _split_sizes(tensor, size, dim) if isinstance(size, tuple) else _split(tensor, size, dim)


@register(method=True)
def split_with_sizes(input, split_sizes, dim=0):
    sizes, dim = _check_split(input, list(split_sizes), dim)
    return _split_sizes(input, sizes, dim)


@register(method=True)
def unsafe_split(input, split_size, dim=0):
    size, dim = _check_split(input, split_size, dim)
    return _unsafe_split(input, size, dim)


@register(method=True)
def unsafe_split_with_sizes(input, split_sizes, dim=0):
    sizes, dim = _check_split(input, list(split_sizes), dim)
    return _unsafe_split_sizes(input, sizes, dim)


@register(method=True)
def chunk(input, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    dim = _wrap_dim(dim, input._data.ndim)
    n = input._data.shape[dim]
    if n == 0:
        return _split_sizes(input, (0,) * chunks, dim)
    return _split(input, -(-n // chunks), dim)


@op("unbind.int", public=False, view=True)
def _unbind(input, dim):
    moved = np.moveaxis(input, dim, 0)
    return tuple(moved[i, ...] for i in range(moved.shape[0]))   # [i, ...]: 0-d views, not scalars


@register(method=True)
def unbind(input, dim=0):
    if input._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return _unbind(input, _wrap_dim(dim, input._data.ndim))


# ---- reordering and repetition (copies) ---------------------------------------------------
@op("flip", public=False)
def _flip(input, dims):
    return np.flip(input, dims).copy()


@register(method=True)
def flip(input, *dims):
    return _flip(input, _dims(_size(dims), input._data.ndim))


@register(method=True)
def fliplr(input):
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _flip(input, (1,))


@register(method=True)
def flipud(input):
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _flip(input, (0,))


@op("roll", public=False)
def _roll(input, shifts, dims):
    return np.roll(input, shifts, dims or None)


@register(method=True)
def roll(input, shifts, dims=None):
    shifts = (shifts,) if not isinstance(shifts, (tuple, list)) else tuple(shifts)
    dims = () if dims is None else (dims,) if not isinstance(dims, (tuple, list)) else tuple(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if dims and len(shifts) != len(dims) or not dims and len(shifts) != 1:
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    n = input._data.ndim
    return _roll(input, tuple(operator.index(s) for s in shifts), tuple(_wrap_dim(d, n) for d in dims))


@op("repeat", public=False)
def _repeat(input, repeats):
    return np.tile(input, repeats)


@_method
def repeat(input, *repeats):
    repeats = _size(repeats)
    if len(repeats) < input._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    if any(r < 0 for r in repeats):
        shape = (1,) * (len(repeats) - input._data.ndim) + input._data.shape
        target = [r * n for r, n in zip(repeats, shape)]
        raise RuntimeError(f"Trying to create tensor with negative dimension {next(n for n in target if n < 0)}: "
                           f"{_shape_str(target)}")
    return _repeat(input, repeats)


@register(method=True)
def tile(input, dims):
    dims = _size((dims,))
    return repeat(input, (1,) * (input._data.ndim - len(dims)) + dims)


# ---- strided views ------------------------------------------------------------------------
def _storage(a):
    """(the array owning a's memory, a's offset into it in elements of a's dtype)."""
    owner = a
    while isinstance(getattr(owner, "base", None), np.ndarray) or type(owner.base).__name__ == "DummyArray":
        owner = owner.base if isinstance(owner.base, np.ndarray) else owner.base.base
    if not isinstance(owner, np.ndarray) or not (owner.flags.c_contiguous or owner.flags.f_contiguous):
        raise NotImplementedError("as_strided: the tensor's memory is not a plain array ndgrad can address")
    return owner, (a.__array_interface__["data"][0] - owner.__array_interface__["data"][0]) // a.itemsize


def _strided(owner, dtype, size, stride, offset):
    item = dtype.itemsize
    return np.ndarray(size, dtype, buffer=owner, offset=offset * item, strides=tuple(s * item for s in stride))


def storage_positions(size, stride, offset):
    """The storage position of every element of the strided geometry (size, stride, offset)."""
    pos = np.full(size, offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(size, stride)):
        pos += (np.arange(n) * s).reshape((n,) + (1,) * (len(size) - d - 1))
    return pos


@op("as_strided", public=False, view=True)
def _as_strided(input, size, stride, offset):
    """offset: of the first element, in elements from input's own first element (negative: before it)."""
    owner, start = _storage(input)
    storage_offset = start + offset
    need = storage_offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if all(size) else 0
    if storage_offset < 0 or need * input.itemsize > owner.nbytes:
        raise RuntimeError(f"setStorage: sizes {_shape_str(size)}, strides {_shape_str(stride)}, storage offset "
                           f"{storage_offset}, and itemsize {input.itemsize} requiring a storage size of "
                           f"{need * input.itemsize} are out of bounds for storage of size {owner.nbytes}")
    return _strided(owner, input.dtype, size, stride, storage_offset)


@register(method=True)
def as_strided(input, size, stride, storage_offset=None):
    size, stride = _size((size,)), _size((stride,))
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{_shape_str(stride)}")
    # storage_offset counts from the base's first element, as Tensor.storage_offset() does
    offset = 0 if storage_offset is None else operator.index(storage_offset) - input.storage_offset()
    return _as_strided(input, size, stride, offset)


@op("as_strided_scatter", public=False)
def _as_strided_scatter(input, src, size, stride, offset):
    out = input.copy()
    _as_strided.spec.forward(out, size, stride, offset)[...] = src
    return out


@register(method=True)
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    if not input._data.flags.c_contiguous:
        raise NotImplementedError("as_strided_scatter of a non-contiguous input is not implemented in ndgrad yet "
                                  "(call .contiguous() on it first)")
    size, stride = _size((size,)), _size((stride,))
    offset = 0 if storage_offset is None else operator.index(storage_offset) - input.storage_offset()
    slot = _as_strided.spec.forward(input._data, size, stride, offset).shape
    if src._data.shape != slot:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{_shape_str(src._data.shape)}, slice size = {_shape_str(slot)}")
    return _as_strided_scatter(input, src, size, stride, offset)


@op("_strided_sum", public=False)
def _strided_sum(input, src_pos, dst_pos, dst_shape):
    """out.flat[k] = sum of input.flat[j] over all j with src_pos[j] == dst_pos[k] (as_strided's backward)."""
    n = int(max(src_pos.max(initial=-1), dst_pos.max(initial=-1))) + 1
    src, values = src_pos.ravel(), input.ravel()
    if values.dtype.kind == "c":
        storage = np.bincount(src, values.real, n) + 1j * np.bincount(src, values.imag, n)
    else:
        storage = np.bincount(src, values, n)
    return storage[dst_pos].reshape(dst_shape).astype(input.dtype, copy=False)


def _diagonal_view(input, offset, dim1, dim2):
    shape, strides = input.shape, input.strides
    n = max(0, min(shape[dim1] + min(offset, 0), shape[dim2] - max(offset, 0)))
    start = input[(slice(None),) * dim1 + (slice(-offset, None),)] if offset < 0 and n else \
        input[(slice(None),) * dim2 + (slice(offset, None),)] if n else input
    rest = [d for d in range(input.ndim) if d not in (dim1, dim2)]
    return np.lib.stride_tricks.as_strided(start, tuple(shape[d] for d in rest) + (n,),
                                           tuple(strides[d] for d in rest) + (strides[dim1] + strides[dim2],))


_diagonal = op("diagonal", public=False, view=True)(_diagonal_view)


@register(method=True)
def diagonal(input, offset=0, dim1=0, dim2=1):
    n = input._data.ndim
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _diagonal(input, operator.index(offset), d1, d2)


@op("diagonal_backward", public=False)
def _diagonal_backward(grad, input_sizes, offset, dim1, dim2):
    out = np.zeros(input_sizes, dtype=grad.dtype)
    _diagonal_view(out, offset, dim1, dim2)[...] = grad
    return out


def _unfold_view(input, dimension, size, step):
    if input.ndim == 0:
        return np.reshape(input, (size,))
    st = input.strides
    shape = input.shape[:dimension] + ((input.shape[dimension] - size) // step + 1,) + input.shape[dimension + 1:]
    strides = st[:dimension] + (st[dimension] * step,) + st[dimension + 1:]
    return np.lib.stride_tricks.as_strided(input, shape + (size,), strides + (st[dimension],))


_unfold = op("unfold", public=False, view=True)(_unfold_view)


@_method
def unfold(input, dimension, size, step):
    shape = input._data.shape
    dimension = _wrap_dim(dimension, len(shape))
    n = shape[dimension] if shape else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {dimension} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return _unfold(input, dimension, operator.index(size), operator.index(step))


@op("unfold_backward", public=False)
def _unfold_backward(grad, input_sizes, dim, size, step):
    if not input_sizes:
        return grad.reshape(())
    out = np.zeros(input_sizes, dtype=grad.dtype)
    windows = grad.shape[dim]
    for k in range(size):   # the k-th element of every window: distinct positions, so one += each
        out[(slice(None),) * dim + (slice(k, k + step * (windows - 1) + 1, step),)] += grad[..., k]
    return out


@op("diagonal_scatter", public=False)
def _diagonal_scatter(input, src, offset, dim1, dim2):
    out = input.copy()
    _diagonal_view(out, offset, dim1, dim2)[...] = src
    return out


@register(method=True)
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    n = input._data.ndim
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    slot = _diagonal_view(input._data, operator.index(offset), d1, d2).shape
    if src._data.shape != slot:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{_shape_str(src._data.shape)}, slice size = {_shape_str(slot)}")
    return _diagonal_scatter(input, src, operator.index(offset), d1, d2)


# ---- complex views ----------------------------------------------------------------------------
_REAL_OF = {np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64}
_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


@op("view_as_real", view=True)
def view_as_real(input):
    if input.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return input[..., None].view(_REAL_OF[input.dtype])


@register()
def view_as_complex(input):
    a = input._data
    if a.dtype == np.float16:
        raise NotImplementedError("view_as_complex of a float16 tensor: ndgrad has no complex32 dtype")
    if a.dtype.kind != "f":
        scalar_type = _dtype.type_word(a.dtype)
        raise RuntimeError("view_as_complex is only supported for half, float and double tensors, but got a tensor "
                           f"of scalar type: {scalar_type}")
    if a.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if a.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if a.strides[-1] != a.itemsize:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % (2 * a.itemsize) for s in a.strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if input.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return _view_as_complex(input)


@op("view_as_complex", public=False, view=True)
def _view_as_complex(input):
    return input.view(_COMPLEX_OF[input.dtype])[..., 0]


@op("alias", public=False, view=True)
def _alias(input):
    return input.view()


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


# ---- aliases and copies with their own nodes -----------------------------------------------------
@op("lift", public=False)
def lift(input):
    return input.view()   # like torch's: the same memory in a tensor that is not a tracked view


@op("lift_fresh", public=False)
def lift_fresh(input):
    return input.view()


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
