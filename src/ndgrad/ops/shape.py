"""Shape and view ops: views share memory and the version counter with their base.
Also here: triangular parts (tril/triu), rot90, block_diag, diag_embed, and the aliases and copies
torch records under their own node names (lift, lift_fresh, _reshape_copy, _reshape_alias).

The forwards of view ops (`view=True`) return NumPy views of their input, never the input array
itself and never a copy; the glue marks the results as views of the input's base. Each public
function declares torch's overloads as schema strings (ops/_schema.py): its parser resolves the
call (varargs or a tuple of sizes, the overload) and raises torch's TypeErrors; the body checks
values (-1, negative dims) with torch's messages and calls one registered op. Tensor methods
whose arguments torch reads differently (varargs sizes: `x.view(2, 3)`, `x.permute(1, 0)`) are
their own functions, with the method parser (self bound apart).
"""
import itertools
import math
import operator
import sys
import types
import warnings

import numpy as np

from ..backends import current, is_array, namespace

from .. import _dtype
from . import _registry
from ..autograd import record as _record
from ..autograd.record import (check_leaf_inplace as _check_leaf_inplace, refuse_inference_inplace,
                               refuse_view_inplace as _refuse_view_inplace)
from ._registry import autocast_as, method, op, register
from ._schema import Parser
from ._torch_function import DisableTorchFunctionSubclass
from .._tensor import (CONJ_BIT, Size, Tensor, _wrap_dim, channels_last, channels_last_3d, contiguous_format,
                       format_strides, preserve_format)
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


# Fast paths: the hot ops (view, reshape, transpose, zeros, ...) take calls made of plain ints without
# their parser, which would read them the same way but costs a few microseconds a call.
def _plain_size(args):
    """The sizes of a call that gives plain ints as varargs (`x.view(2, 3)`) or in one tuple or Size
    (`x.view((2, 3))`), as the parser would give them; None for any other call."""
    if len(args) == 1 and type(args[0]) in (tuple, Size):
        args = args[0]
    elif not args:
        return None
    for a in args:
        if type(a) is not int:
            return None
    return tuple(args)


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
    _registry.METHODS[fn.__name__] = fn
    return fn


def _inplace_view(view_op, self, *args):
    """Tensor.t_(), squeeze_(), ...: self takes the view's shape and strides (its values are untouched) and
    the view op's node as its history; the version counter moves, as for any in-place op."""
    if self._inference and not state.inference:
        refuse_inference_inplace(self)
    if state.enabled and self.requires_grad:
        if self._creation is not None:   # as for any in-place op: see _registry.call_inplace
            _refuse_view_inplace(self)
        _check_leaf_inplace(self)
    out = view_op(self, *args)
    vc = self._vc   # (made before the data changes: see autograd/node.version_counter)
    self._array = out._array
    if out._fw is not None:   # forward AD: the tangent takes the view's geometry too
        self._fw = out._fw
    if out._grad_fn is not None:
        self._grad_fn, self._output_nr = out._grad_fn, out._output_nr
    vc[0] += 1
    if self._base is not None:
        self._view_fn, self._view_version = out._view_fn, vc[0]
    return self


# ---- view / reshape -------------------------------------------------------------------------
class _NotViewable(RuntimeError):
    pass


def _reshape_view(input, size):
    try:   # (the ndarray method: np.reshape's Python wrapper costs a µs more; other arrays dispatch through it)
        return input.reshape(size, copy=False) if type(input) is np.ndarray else np.reshape(input, size, copy=False)
    except ValueError:
        raise _NotViewable("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.") from None


def _view_forward(input, size):
    try:
        return _reshape_view(input, size)
    except _NotViewable as e:   # torch's RuntimeError itself: the subclass is for reshape's fallback
        raise RuntimeError(*e.args) from None


_view = op("view", public=False, view=True)(_view_forward)
# reshape of a non-contiguous input whose strides allow a view: torch's node for it
_reshape_alias = op("_reshape_alias", public=False, view=True)(_reshape_view)


@op("_unsafe_view", public=False)
def _unsafe_view(input, size):
    return np.reshape(input, size)   # input is a fresh clone: never copies, but not a tracked view


_view_args = Parser("view(Tensor self, ScalarType dtype)", "view(Tensor self, SymInt[] size)").method()


@register(method=True)
def view(self, *args, **kwargs):
    size = None if kwargs else _plain_size(args)
    if size is not None:
        return _view(self, _infer_size(size, self.numel()))
    which, (arg,) = _view_args.parse(args, kwargs)
    if which == 0:
        return _view_dtype(self, arg)
    return _view(self, _infer_size(arg, self.numel()))


def _view_dtype(input, dtype):
    """The same bytes read as `dtype`: not differentiable, shares memory and version counter."""
    a, new = input._array, dtype.np
    if input._math_bits and new != a.dtype:   # the bits cannot be read through another dtype
        raise RuntimeError("torch.Tensor.view is not supported for " + ("conjugate view tensors" if input._math_bits &
                           CONJ_BIT else "tensors with negative bit set") + " when converting to a different dtype.")
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
    t._array = a.view(new)
    return t


@_method
def view_as(input, other):
    return view(input, other.shape)


_reshape_args = Parser("reshape(Tensor input, SymInt[] shape)")
_reshape_method_args = _reshape_args.method()


@register()
@_reshape_args.signature
def reshape(*args, **kwargs):
    shape = _plain_size(args[1:]) if not kwargs and len(args) == 2 and type(args[1]) in (tuple, Size) else None
    if shape is not None and isinstance(args[0], Tensor):
        return _reshape(args[0], shape)
    _, (input, shape) = _reshape_args.parse(args, kwargs)
    return _reshape(input, shape)


@method("reshape")
def _reshape_method(self, *args, **kwargs):
    shape = None if kwargs else _plain_size(args)
    if shape is not None:
        return _reshape(self, shape)
    _, (shape,) = _reshape_method_args.parse(args, kwargs)
    return _reshape(self, shape)


def _clone(input, memory_format):
    """clone(input, memory_format=...) through the op glue, positionally (no keyword binding); clone is
    registered by ops/creation.py, which imports this module."""
    return _registry.call(_registry.OPS["clone"].spec, (input, memory_format))


def _reshape(input, shape):
    shape = _infer_size(shape, input.numel())
    if input._array.flags.c_contiguous:
        return _view(input, shape)
    try:
        return _reshape_alias(input, shape)
    except _NotViewable:
        return _unsafe_view(_clone(input, contiguous_format), shape)


@_method
def reshape_as(input, other):
    return _reshape(input, other.shape)


_flatten_args = Parser("flatten(Tensor input, int start_dim=0, int end_dim=-1)")


@register(method=True)
@_flatten_args.signature
def flatten(*args, **kwargs):
    n = len(args)
    if not kwargs and 0 < n < 4 and isinstance(args[0], Tensor) and (n < 2 or type(args[1]) is int) and \
            (n < 3 or type(args[2]) is int):   # the usual call, x.flatten(1), without the parser
        input, start_dim, end_dim = args[0], args[1] if n > 1 else 0, args[2] if n > 2 else -1
    else:
        _, (input, start_dim, end_dim) = _flatten_args.parse(args, kwargs)
    shape = tuple(input.shape)   # (slices of a plain tuple: Size's own __getitem__ costs more)
    if not shape:
        return _reshape(input, (1,))
    start, end = _wrap_dim(start_dim, len(shape)), _wrap_dim(end_dim, len(shape))
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    return _reshape(input, shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:])


_unflatten_args = Parser("unflatten(Tensor input, int dim, SymInt[] sizes)")


@register(method=True)
@_unflatten_args.signature
def unflatten(*args, **kwargs):
    _, (input, dim, sizes) = _unflatten_args.parse(args, kwargs)
    shape = input.shape
    dim = _wrap_dim(dim, len(shape))
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
    return _view(contiguous(input), (input.numel(),))


@_method
def contiguous(input, memory_format=None):
    if memory_format is preserve_format:
        memory_format = None
    if input.is_contiguous(memory_format):
        return input
    return _clone(input, memory_format or contiguous_format)


# ---- transposes and permutations ------------------------------------------------------------
def _swapaxes(a, axis1, axis2):
    return np.swapaxes(a, axis1, axis2) if a.ndim else a.view()   # a 0-d tensor's dims 0 and -1 are itself


_transpose = op("transpose.int", public=False, view=True)(_swapaxes)
_transpose_ = op("transpose_", public=False, view=True)(_swapaxes)


_transpose_args = Parser("transpose(Tensor input, int dim0, int dim1)")
_transpose__args = Parser("transpose_(Tensor self, int dim0, int dim1)").method()


@register(method=True)
@_transpose_args.signature
def transpose(*args, **kwargs):
    if not kwargs and len(args) == 3 and type(args[1]) is int and type(args[2]) is int and isinstance(args[0], Tensor):
        input, dim0, dim1 = args   # fast path: x.transpose(0, 1)
    else:
        _, (input, dim0, dim1) = _transpose_args.parse(args, kwargs)
    n = input.ndim
    return _transpose(input, _wrap_dim(dim0, n), _wrap_dim(dim1, n))


@_method
def transpose_(self, *args, **kwargs):
    _, (dim0, dim1) = _transpose__args.parse(args, kwargs)
    n = self.ndim
    return _inplace_view(_transpose_, self, _wrap_dim(dim0, n), _wrap_dim(dim1, n))


@_method
def swapaxes_(self, axis0, axis1):
    return transpose_(self, axis0, axis1)


@_method
def swapdims_(self, dim0, dim1):
    return transpose_(self, dim0, dim1)


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


_permute_args = Parser("permute(Tensor input, int[] dims)")
_permute_method_args = _permute_args.method()


@register()
@_permute_args.signature
def permute(*args, **kwargs):
    _, (input, dims) = _permute_args.parse(args, kwargs)
    return _permute_checked(input, dims)


@method("permute")
def _permute_method(self, *args, **kwargs):
    dims = None if kwargs else _plain_size(args)
    if dims is not None:
        return _permute_checked(self, dims)
    _, (dims,) = _permute_method_args.parse(args, kwargs)
    return _permute_checked(self, dims)


def _permute_checked(input, dims):
    n = input.ndim
    if len(dims) != n:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the length "
                           f"of the desired ordering of dimensions i.e. input.dim() = {n} is not equal to "
                           f"len(dims) = {len(dims)}")
    wrapped = tuple(_wrap_dim(d, n) for d in dims)
    if len(set(wrapped)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _permute(input, wrapped)


_movedim_args = Parser("movedim(Tensor input, int source, int destination)",
                       "movedim(Tensor input, int[] source, int[] destination)")


@register(method=True)
@_movedim_args.signature
def movedim(*args, **kwargs):
    which, (input, source, destination) = _movedim_args.parse(args, kwargs)
    return _movedim(input, source, destination) if which else _movedim(input, (source,), (destination,))


_moveaxis_args = Parser("moveaxis(Tensor input, int source, int destination)",
                        "moveaxis(Tensor input, int[] source, int[] destination)")


@register(method=True)
@_moveaxis_args.signature
def moveaxis(*args, **kwargs):
    which, (input, source, destination) = _moveaxis_args.parse(args, kwargs)
    return _movedim(input, source, destination) if which else _movedim(input, (source,), (destination,))


def _movedim(input, src, dst):
    n = input.ndim
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should contain "
                           f"the same number of dims as destination ({list(dst)} dims)")
    src_w, dst_w = tuple(_wrap_dim(d, n) for d in src), tuple(_wrap_dim(d, n) for d in dst)
    for name, given, wrapped in (("source", src, src_w), ("destination", dst, dst_w)):
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(given)})")
    if n == 0:   # torch: a 0-dim tensor moves to an alias of itself
        return _alias(input)
    order = [d for d in range(n) if d not in src_w]
    for d, s in sorted(zip(dst_w, src_w)):
        order.insert(d, s)
    return _permute(input, tuple(order))


def _conj(t):
    return t.conj() if t._array.dtype.kind == "c" else t


def _deprecated_on_0d(what, hint):
    warnings.warn(f"{what} is deprecated on 0-D tensors. {hint}", UserWarning, stacklevel=3)


_IDENTITY, _USE_CONJ = "This function is the identity in these cases.", "Consider using x.conj()."


def _matrix_transpose(name, conj, batched=True):
    """x.mT, x.mH, x.H, x.adjoint(): the last two dims swapped (and conjugated)."""
    def get(self):
        n = self.ndim
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
    n = self.ndim
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
    return broadcast_view(input, size)


def broadcast_view(a, size):
    """np.broadcast_to(a, size) for a NumPy array as torch's expand makes it: a read-only view with zero
    strides where a dim is broadcast or new, and a dim of size 1 that stays 1 keeping its stride (which
    np.broadcast_to zeroes; torch's layout decisions read it). A C-contiguous array's is made directly,
    without the iterator np.broadcast_to builds (2 µs against 0.5 for a loss's gradient in backward)."""
    if type(a) is not np.ndarray or len(size) < a.ndim:
        return np.broadcast_to(a, size)
    lead = len(size) - a.ndim
    strides = [0] * lead
    for n, m, step in zip(a.shape, size[lead:], a.strides):
        if n == m:
            strides.append(step)
        elif n == 1 and m >= 0:
            strides.append(0)
        else:
            return np.broadcast_to(a, size)   # (NumPy's error)
    if lead and min(size[:lead]) < 0:
        return np.broadcast_to(a, size)
    if not a.flags.c_contiguous:
        return np.lib.stride_tricks.as_strided(a, size, strides, writeable=False)
    view = np.ndarray(size, a.dtype, a, 0, tuple(strides))
    view.flags.writeable = False
    return view


_expand_args = Parser("expand(Tensor self, SymInt[] size, *, bool implicit=False)").method()


@register(method=True)
def expand(self, *args, **kwargs):
    size = None if kwargs else _plain_size(args)
    if size is not None:
        return _expand_checked(self, size)
    _, (size, implicit) = _expand_args.parse(args, kwargs)
    return _expand_checked(self, size, implicit)


def _expand_checked(input, size, implicit=False):
    return _expand(input, expanded_shape(input.shape, size, input.dtype.title), implicit)


def expanded_shape(shape, size, title):
    """The shape expand() gives a tensor of `shape` (dtype word `title`) for `size` (-1 keeps a
    dim), or torch's error."""
    lead = len(size) - len(shape)
    if lead < 0:
        raise RuntimeError(f"expand(torch.{title}Tensor{{{_shape_str(shape)}}}, size={_shape_str(size)}): the number "
                           f"of sizes provided ({len(size)}) must be greater or equal to the number of dimensions in "
                           f"the tensor ({len(shape)})")
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
    return tuple(target)


@_method
def expand_as(input, other):
    return _expand_checked(input, tuple(other.shape))


def _squeeze_dims(input, dims):
    # .view(): np.squeeze gives back the array itself when no dim goes, and the result must be a view
    return (np.squeeze(input, tuple(d for d in dims if input.shape[d] == 1)) if input.ndim else input).view()


def _squeeze_all(input):
    return _squeeze_dims(input, range(input.ndim))


def _squeeze_one(input, dim):
    return _squeeze_dims(input, (dim,))


# (all dims, one dim, several dims) for squeeze and squeeze_
_SQUEEZE = tuple(op(name, public=False, view=True)(fn) for name, fn in (
    ("squeeze", _squeeze_all), ("squeeze.dim", _squeeze_one), ("squeeze.dims", _squeeze_dims)))
_SQUEEZE_ = tuple(op(name, public=False, view=True)(fn) for name, fn in (
    ("squeeze_", _squeeze_all), ("squeeze_.dim", _squeeze_one), ("squeeze_.dims", _squeeze_dims)))


_squeeze_args = Parser("squeeze(Tensor input)", "squeeze(Tensor input, int dim)", "squeeze(Tensor input, int[] dim)")
_squeeze__args = Parser("squeeze_(Tensor self)", "squeeze_(Tensor self, int dim)",
                        "squeeze_(Tensor self, int[] dim)").method()


def _squeeze_dim(which, input, dim):
    """squeeze's dim argument for overload `which` (all dims, one dim, several dims), wrapped."""
    n = input.ndim
    return () if which == 0 else (_wrap_dim(dim[0], n),) if which == 1 else (_dims(dim[0], n),)


@register(method=True)
@_squeeze_args.signature
def squeeze(*args, **kwargs):
    which, (input, *dim) = _squeeze_args.parse(args, kwargs)
    return _SQUEEZE[which](input, *_squeeze_dim(which, input, dim))


@_method
def squeeze_(self, *args, **kwargs):
    which, dim = _squeeze__args.parse(args, kwargs)
    return _inplace_view(_SQUEEZE_[which], self, *_squeeze_dim(which, self, dim))


def _insert_dim(input, dim):
    return input[(slice(None),) * dim + (None,)]


_unsqueeze = op("unsqueeze", public=False, view=True)(_insert_dim)
_unsqueeze_ = op("unsqueeze_", public=False, view=True)(_insert_dim)


_unsqueeze_args = Parser("unsqueeze(Tensor input, int dim)")
_unsqueeze__args = Parser("unsqueeze_(Tensor self, int dim)").method()


@register(method=True)
@_unsqueeze_args.signature
def unsqueeze(*args, **kwargs):
    if not kwargs and len(args) == 2 and type(args[1]) is int and isinstance(args[0], Tensor):
        input, dim = args   # fast path: x.unsqueeze(0)
    else:
        _, (input, dim) = _unsqueeze_args.parse(args, kwargs)
    return _unsqueeze(input, _wrap_dim(dim, input.ndim + 1))


@_method
def unsqueeze_(self, *args, **kwargs):
    _, (dim,) = _unsqueeze__args.parse(args, kwargs)
    return _inplace_view(_unsqueeze_, self, _wrap_dim(dim, self.ndim + 1))


_narrow_args = Parser("narrow(Tensor input, int dim, Tensor start, SymInt length)",
                      "narrow(Tensor input, int dim, SymInt start, SymInt length)")


@register(method=True)
@_narrow_args.signature
def narrow(*args, **kwargs):
    which, (input, dim, start, length) = _narrow_args.parse(args, kwargs)
    shape = input.shape
    if not shape:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = _wrap_dim(dim, len(shape))
    if which == 0:
        start = operator.index(start)
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
    """input[..., start:end, ...] along dim: a slice view (SliceBackward0, even over the whole dim,
    where indexing would give an alias), by the slice op of ops/indexing.py."""
    return aten.slice.Tensor(input, dim, start, end, 1)


_tensor_split_args = Parser("tensor_split(Tensor input, SymInt[] indices, int dim=0)",
                            "tensor_split(Tensor input, Tensor tensor_indices_or_sections, int dim=0)",
                            "tensor_split(Tensor input, SymInt sections, int dim=0)")


@register(method=True)
@_tensor_split_args.signature
def tensor_split(*args, **kwargs):
    which, (input, indices_or_sections, dim) = _tensor_split_args.parse(args, kwargs)
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    dim = _wrap_dim(dim, input.ndim)
    if which == 1:
        if indices_or_sections.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {indices_or_sections.ndim} dims")
        indices_or_sections = indices_or_sections.tolist()
    return _tensor_split(input, indices_or_sections, dim)


def _tensor_split(input, indices_or_sections, dim):
    """The pieces between the given indices (a list), or `sections` pieces of (nearly) equal size (an int)."""
    n = input.shape[dim]
    if isinstance(indices_or_sections, list | tuple):
        bounds = [0] + list(indices_or_sections) + [None]
    else:
        sections = indices_or_sections
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        small, extra = divmod(n, sections)   # the first `extra` pieces get one more element
        bounds = [k * small + min(k, extra) for k in range(sections + 1)]
    return tuple(_slice(input, dim, a, b) for a, b in zip(bounds, bounds[1:]))


def _split_along(args_parser, min_ndim, dim_of):
    name = args_parser.name

    @args_parser.signature
    def split(*args, **kwargs):
        which, (input, indices_or_sections) = args_parser.parse(args, kwargs)
        ndim = input.ndim
        if ndim < min_ndim:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_ndim} dimension, but got a tensor "
                               f"with {ndim} dimensions!")
        dim = dim_of(ndim)
        if which == 0:
            sections = indices_or_sections
            if sections == 0 or input.shape[dim] % sections:
                raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                                   f"dimension {input.shape[dim]} is not divisible by the split_size "
                                   f"{sections}!")
        return _tensor_split(input, indices_or_sections, dim)
    split.__name__ = split.__qualname__ = name
    return register(name, method=True)(split)


_hsplit_args = Parser("hsplit(Tensor input, int sections)", "hsplit(Tensor input, int[] indices)")
_vsplit_args = Parser("vsplit(Tensor input, int sections)", "vsplit(Tensor input, int[] indices)")
_dsplit_args = Parser("dsplit(Tensor input, int sections)", "dsplit(Tensor input, int[] indices)")
hsplit = _split_along(_hsplit_args, 1, lambda ndim: 1 if ndim > 1 else 0)
vsplit = _split_along(_vsplit_args, 2, lambda ndim: 0)
dsplit = _split_along(_dsplit_args, 3, lambda ndim: 2)


# ---- joining ------------------------------------------------------------------------------
def _common_dtype(arrays):
    first = arrays[0].dtype
    for a in arrays:
        if a.dtype != first:
            return _dtype.result_type([_dtype.from_numpy_dtype(a.dtype) for a in arrays]).np
    return first if not _dtype.is_bfloat16(first) else _dtype.result_type([_dtype.from_numpy_dtype(first)]).np


def _check_list(tensors, fn, nonempty=False):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{fn}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    if nonempty and not tensors:
        raise RuntimeError(f"{fn} expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")


def _joined_layout(a):
    """cat/stack's result laid out as torch lays it: row-major, or channels-last where NumPy kept the
    inputs' channels-last layout (NumPy otherwise follows the inputs' strides, e.g. of a permute).
    Other arrays (meta, CuPy) are left as they are."""
    if not isinstance(a, np.ndarray) or a.flags.c_contiguous or a.ndim in (4, 5) and a.strides == format_strides(
            a.shape, a.itemsize, channels_last if a.ndim == 4 else channels_last_3d):
        return a
    return np.ascontiguousarray(a)


@op("cat", public=False)
def _cat(tensors, dim, sizes):
    arrays = [a for a, s in zip(tensors, sizes) if s is not None]
    return _joined_layout(np.concatenate(arrays, axis=dim, dtype=_common_dtype(tensors), casting="unsafe"))


@register()
def cat(tensors, dim=0):
    _check_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    shapes = [tuple(t.shape) for t in tensors]   # (plain tuples: Size's own __getitem__ costs more)
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
    return _joined_layout(np.stack(tensors, axis=dim, dtype=_common_dtype(tensors), casting="unsafe"))


@register()
def stack(tensors, dim=0):
    _check_list(tensors, "stack", nonempty=True)
    shape = tensors[0].shape
    for i, t in enumerate(tensors):
        if t.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {_shape_str(shape)} at entry 0 "
                               f"and {_shape_str(t.shape)} at entry {i}")
    return _stack(list(tensors), _wrap_dim(dim, len(shape) + 1))


def _atleast(n, tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
        single = False
    else:
        single = len(tensors) == 1
    out = []
    for t in tensors:
        nd = t.ndim
        if nd == 0:
            t = _reshape(t, (1,) * n)
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
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


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
    return hstack([_reshape(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in tensors])


# ---- splitting ----------------------------------------------------------------------------
def _split_at(input, split_size, dim):
    n = input.shape[dim]
    return _pieces(input, [*range(0, n, split_size), n] if split_size and n else [0, n], dim)


def _split_with_sizes(input, split_sizes, dim):
    return _pieces(input, [0, *itertools.accumulate(split_sizes)], dim)


def _pieces(input, bounds, dim):
    """The views input[..., a:b] along dim for consecutive bounds a, b (np.split's, without its
    generic machinery: a third of an LSTM cell's gate split)."""
    if type(input) is not np.ndarray:   # (other arrays: through their own np.split)
        return tuple(np.split(input, bounds[1:-1], axis=dim)) if len(bounds) > 1 else ()
    lead = (slice(None),) * dim
    return tuple([input[(*lead, slice(a, b))] for a, b in zip(bounds, bounds[1:])])


_split = op("split.Tensor", public=False, view=True)(_split_at)
_split_sizes = op("split_with_sizes", public=False, view=True)(_split_with_sizes)
_unsafe_split = op("unsafe_split.Tensor", public=False)(_split_at)
_unsafe_split_sizes = op("unsafe_split_with_sizes", public=False)(_split_with_sizes)


def _check_split_sizes(input, sizes, dim):
    dim = _wrap_dim(dim, input.ndim)
    n = input.shape[dim] if input.ndim else 0
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                           f"split_sizes={_shape_str(sizes)}")
    if sum(sizes) != n:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                           f"dimension {dim}), but got split_sizes={_shape_str(sizes)}")
    return dim


def _check_split_size(input, split_size, dim):
    dim = _wrap_dim(dim, input.ndim)
    n = input.shape[dim] if input.ndim else 0
    if input.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0 and n:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
    return dim


_split_args = Parser("split(Tensor input, SymInt split_size, int dim=0)")
_split_with_sizes_args = Parser("split_with_sizes(Tensor input, SymInt[] split_sizes, int dim=0)")
_unsafe_split_args = Parser("unsafe_split(Tensor input, SymInt split_size, int dim=0)")
_unsafe_split_with_sizes_args = Parser("unsafe_split_with_sizes(Tensor input, SymInt[] split_sizes, int dim=0)")


@register(method=True)
def split(tensor, split_size_or_sections, dim=0):
    """Splits `tensor` into chunks along `dim`: of `split_size_or_sections` elements each (the last
    may be smaller) when it is an int, or of the given sizes when it is a list. The chunks are views.

    Args:
        tensor (Tensor): the tensor to split.
        split_size_or_sections (int or list of int): the size of each chunk, or the list of sizes.
        dim (int): the dimension to split along. Default: ``0``.

    Returns:
        tuple of Tensor: the chunks.

    Example::

        >>> x = torch.arange(5)
        >>> torch.split(x, 2)
        (tensor([0, 1]), tensor([2, 3]), tensor([4]))
        >>> torch.split(x, [1, 4])
        (tensor([0]), tensor([1, 2, 3, 4]))
    """
    if type(split_size_or_sections) is int and type(dim) is int and type(tensor) is Tensor:   # (the parser's reading)
        return _split(tensor, split_size_or_sections, _check_split_size(tensor, split_size_or_sections, dim))
    if isinstance(split_size_or_sections, int):
        _, (tensor, split_size, dim) = _split_args.parse((tensor, split_size_or_sections, dim), None)
        return _split(tensor, split_size, _check_split_size(tensor, split_size, dim))
    return split_with_sizes(tensor, split_size_or_sections, dim)


@register(method=True)
@_split_with_sizes_args.signature
def split_with_sizes(*args, **kwargs):
    _, (input, sizes, dim) = _split_with_sizes_args.parse(args, kwargs)
    return _split_sizes(input, sizes, _check_split_sizes(input, sizes, dim))


@register(method=True)
@_unsafe_split_args.signature
def unsafe_split(*args, **kwargs):
    input, split_size, dim = _tensor_ints(args, kwargs) or _unsafe_split_args.parse(args, kwargs)[1]
    return _unsafe_split(input, split_size, _check_split_size(input, split_size, dim))


@register(method=True)
@_unsafe_split_with_sizes_args.signature
def unsafe_split_with_sizes(*args, **kwargs):
    _, (input, sizes, dim) = _unsafe_split_with_sizes_args.parse(args, kwargs)
    return _unsafe_split_sizes(input, sizes, _check_split_sizes(input, sizes, dim))


_chunk_args = Parser("chunk(Tensor input, int chunks, int dim=0)")
_unsafe_chunk_args = Parser("unsafe_chunk(Tensor input, int chunks, int dim=0)")


def _tensor_ints(args, kwargs):
    """(tensor, n, dim) of a call `f(tensor, n[, dim])` of a Tensor and plain ints, as the parsers of
    split, unsafe_split and chunk read it (dim 0 by default); None for any other call."""
    if kwargs or not 2 <= len(args) <= 3 or type(args[0]) is not Tensor or type(args[1]) is not int:
        return None
    if len(args) == 2:
        return args[0], args[1], 0
    return args if type(args[2]) is int else None


def _chunk(args, split, split_sizes):
    input, chunks, dim = args
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    dim = _wrap_dim(dim, input.ndim)
    n = input.shape[dim]
    if n == 0:
        return split_sizes(input, (0,) * chunks, dim)
    return split(input, -(-n // chunks), dim)


@register(method=True)
@_chunk_args.signature
def chunk(*args, **kwargs):
    return _chunk(_tensor_ints(args, kwargs) or _chunk_args.parse(args, kwargs)[1], _split, _split_sizes)


@register(method=True)
@_unsafe_chunk_args.signature
def unsafe_chunk(*args, **kwargs):
    """chunk whose pieces are not views for autograd (in-place ops on them are allowed)."""
    return _chunk(_tensor_ints(args, kwargs) or _unsafe_chunk_args.parse(args, kwargs)[1], _unsafe_split,
                  _unsafe_split_sizes)


@op("unbind.int", public=False, view=True)
def _unbind(input, dim):
    moved = np.moveaxis(input, dim, 0)
    return tuple(moved[i, ...] for i in range(moved.shape[0]))   # [i, ...]: 0-d views, not scalars


_unbind_args = Parser("unbind(Tensor input, int dim=0)")


@register(method=True)
@_unbind_args.signature
def unbind(*args, **kwargs):
    _, (input, dim) = _unbind_args.parse(args, kwargs)
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return _unbind(input, _wrap_dim(dim, input.ndim))


# ---- reordering and repetition (copies) ---------------------------------------------------
@op("flip", public=False)
def _flip(input, dims):
    return np.flip(input, dims).copy() if input.ndim else input.copy()   # a 0-dim tensor flips to itself


_flip_args = Parser("flip(Tensor input, int[] dims)")
_flip_method_args = _flip_args.method()


@register()
@_flip_args.signature
def flip(*args, **kwargs):
    _, (input, dims) = _flip_args.parse(args, kwargs)
    return _flip(input, _dims(dims, input.ndim))


@method("flip")
def _flip_method(self, *args, **kwargs):
    _, (dims,) = _flip_method_args.parse(args, kwargs)
    return _flip(self, _dims(dims, self.ndim))


@register(method=True)
def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _flip(input, (1,))


@register(method=True)
def flipud(input):
    if input.ndim < 1:
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
    n = input.ndim
    return _roll(input, tuple(operator.index(s) for s in shifts), tuple(_wrap_dim(d, n) for d in dims))


@op("repeat", public=False)
def _repeat(input, repeats):
    return np.tile(input, repeats)


_repeat_args = Parser("repeat(Tensor self, SymInt[] repeats)").method()


@_method
def repeat(self, *args, **kwargs):
    _, (repeats,) = _repeat_args.parse(args, kwargs)
    return _repeat_checked(self, repeats)


def _repeat_checked(input, repeats):
    if len(repeats) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    if any(r < 0 for r in repeats):
        shape = (1,) * (len(repeats) - input.ndim) + input.shape
        target = [r * n for r, n in zip(repeats, shape)]
        raise RuntimeError(f"Trying to create tensor with negative dimension {next(n for n in target if n < 0)}: "
                           f"{_shape_str(target)}")
    return _repeat(input, repeats)


_tile_args = Parser("tile(Tensor input, SymInt[] dims)")
_tile_method_args = _tile_args.method()


@register()
@_tile_args.signature
def tile(*args, **kwargs):
    _, (input, dims) = _tile_args.parse(args, kwargs)
    return _repeat_checked(input, (1,) * (input.ndim - len(dims)) + dims)


@method("tile")
def _tile_method(self, *args, **kwargs):
    _, (dims,) = _tile_method_args.parse(args, kwargs)
    return _repeat_checked(self, (1,) * (self.ndim - len(dims)) + dims)


@_method
def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """set_(source=None, storage_offset=0, size=None, stride=None) -> Tensor

    Make this tensor use the memory of `source`, in place.

    With a Tensor, this tensor then shares its data (and shape and strides); with a storage, it
    views that storage at `storage_offset` with `size` and `stride` (the whole storage, flat, by
    default); without `source`, it becomes empty. The dtypes must match. Not differentiable: ndgrad
    refuses it where autograd would record it (run it under :class:`ndgrad.no_grad`).

    Args:
        source (Tensor or Storage, optional): the memory to use.
        storage_offset (int, optional): where the view of a storage starts. Default: 0.
        size (tuple of ints, optional): the shape of the view of a storage.
        stride (tuple of ints, optional): the strides of the view of a storage.

    Returns:
        Tensor: this tensor.

    Example::

        >>> x = torch.zeros(3)
        >>> src = torch.tensor([4.0, 5.0])
        >>> x.set_(src)
        tensor([4., 5.])
        >>> _ = src.add_(1)
        >>> x
        tensor([5., 6.])
    """
    if state.enabled and (self.requires_grad or isinstance(source, Tensor) and source._requires_grad):
        _check_leaf_inplace(self)
        raise NotImplementedError("the derivative for 'set_' is not implemented in ndgrad (call it under "
                                  "ndgrad.no_grad())")
    dtype = self._array.dtype
    if source is None:
        data = namespace(self._array).empty((0,), dtype=dtype)
    elif isinstance(source, Tensor):
        if source._array.dtype != dtype:
            raise RuntimeError(f"Expected object of scalar type {self.dtype.title} but got scalar type "
                               f"{source.dtype.title} for argument 'source'")
        data = source._array
    else:   # a storage (typed or untyped): a strided view of its memory
        owner = source._owner
        size = tuple(size) if size is not None else (owner.nbytes // dtype.itemsize - storage_offset,)
        if stride is None:
            stride, n = [], 1
            for d in reversed(size):
                stride.insert(0, n)
                n *= d
        need = storage_offset + sum((n - 1) * st for n, st in zip(size, stride)) + 1 if all(size) else 0
        if need * dtype.itemsize > owner.nbytes:
            raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                               f"{storage_offset}, and itemsize {dtype.itemsize} requiring a storage size of "
                               f"{need * dtype.itemsize} are out of bounds for storage of size {owner.nbytes}")
        data = np.ndarray(size, dtype, buffer=owner, offset=storage_offset * dtype.itemsize,
                          strides=tuple(st * dtype.itemsize for st in stride))
    self._vc[0] += 1   # (first: the counter is made before the data changes, see autograd/node.version_counter)
    self._array = data
    self._acc = None   # as torch: the tensor gets a new AccumulateGrad (gradient edges taken before stay apart)
    return self


@_method
def _view_func(self, new_base, symint_visitor_fn=None, tensor_visitor_fn=None):
    """This view re-derived from `new_base` as torch would re-derive it from its base: its view ops
    replayed under `_force_original_view_tracking(True)` (the visitors may replace their saved SymInt
    and Tensor arguments), as_strided to its geometry otherwise."""
    if self._view_fn is None:
        raise RuntimeError("_view_func: this tensor is not a view that ndgrad can replay")
    if not state.view_replay:
        if self._dtype_view is not None:
            return _record.dtype_view_fn(self)(new_base)
        return as_strided(new_base, self.shape, self.stride(), self.storage_offset())
    return self._view_fn(new_base, symint_visitor_fn, tensor_visitor_fn)


# ---- strided views ------------------------------------------------------------------------
def _storage(a):
    """(the array owning a's memory, a's offset into it in elements of a's dtype)."""
    owner = a
    while isinstance(getattr(owner, "base", None), np.ndarray) or type(owner.base).__name__ == "DummyArray":
        owner = owner.base if is_array(owner.base) else owner.base.base
    if is_array(owner) and not owner.flags.forc and min(owner.strides, default=0) >= 0:
        # a ufunc's result keeps its input's dim order (as torch's does): the same memory, read C-ordered
        owner = owner.transpose(np.argsort(owner.strides, kind="stable")[::-1])
    if not is_array(owner) or not (owner.flags.c_contiguous or owner.flags.f_contiguous):
        raise NotImplementedError("as_strided: the tensor's memory is not a plain array ndgrad can address")
    return owner, (a.__array_interface__["data"][0] - owner.__array_interface__["data"][0]) // a.itemsize


def _strided(owner, like, size, stride, offset):
    """A view of `owner`'s memory with the geometry (size, stride, offset), an array of `like`'s class."""
    item = like.dtype.itemsize
    if 0 in size:   # no element is addressed: torch accepts any offset, NumPy only one inside the buffer
        offset = min(offset, owner.nbytes // item)
    view = np.ndarray(size, like.dtype, buffer=owner, offset=offset * item, strides=tuple(s * item for s in stride))
    return view if type(view) is type(like) else view.view(type(like))


def storage_positions(size, stride, offset):
    """The storage position of every element of the strided geometry (size, stride, offset)."""
    pos = np.full(size, offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(size, stride)):
        pos += (np.arange(n) * s).reshape((n,) + (1,) * (len(size) - d - 1))
    return pos


@op("as_strided", public=False, view=True)
def _as_strided(input, size, stride, storage_offset=None):
    """storage_offset: of the first element, in elements from the start of the memory (None: input's)."""
    owner, start = _storage(input)
    storage_offset = start if storage_offset is None else storage_offset
    need = storage_offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if all(size) else 0
    if storage_offset < 0 or need * input.itemsize > owner.nbytes:
        raise RuntimeError(f"setStorage: sizes {_shape_str(size)}, strides {_shape_str(stride)}, storage offset "
                           f"{storage_offset}, and itemsize {input.itemsize} requiring a storage size of "
                           f"{need * input.itemsize} are out of bounds for storage of size {owner.nbytes}")
    return _strided(owner, input, size, stride, storage_offset)


_as_strided_ = op("as_strided_", public=False, view=True)(_as_strided.__wrapped__)


def _as_strided_args(input, size, stride, storage_offset):
    size, stride = _size((size,)), _size((stride,))
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{_shape_str(stride)}")
    # storage_offset counts from the start of the memory, as Tensor.storage_offset() does
    return size, stride, None if storage_offset is None else operator.index(storage_offset)


@register(method=True)
def as_strided(input, size, stride, storage_offset=None):
    return _as_strided(input, *_as_strided_args(input, size, stride, storage_offset))


@_method
def as_strided_(self, size, stride, storage_offset=None):
    return _inplace_view(_as_strided_, self, *_as_strided_args(self, size, stride, storage_offset))


@op("as_strided_scatter", public=False)
def _as_strided_scatter(input, src, size, stride, storage_offset=None):
    out = input.copy()   # (its own memory: the offset from its first element is the storage offset)
    offset = 0 if storage_offset is None else storage_offset - _storage(input)[1]
    _as_strided.spec.forward(out, size, stride, offset)[...] = src
    return out


@register(method=True)
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    if not input._array.flags.c_contiguous:
        raise NotImplementedError("as_strided_scatter of a non-contiguous input is not implemented in ndgrad yet "
                                  "(call .contiguous() on it first)")
    size, stride = _size((size,)), _size((stride,))
    storage_offset = None if storage_offset is None else operator.index(storage_offset)
    slot = _as_strided.spec.forward(input._array, size, stride, storage_offset).shape
    if src.shape != slot:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{_shape_str(src.shape)}, slice size = {_shape_str(slot)}")
    return _as_strided_scatter(input, src, size, stride, storage_offset)


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
                                           tuple(strides[d] for d in rest) + (strides[dim1] + strides[dim2],),
                                           subok=True)


_diagonal = op("diagonal", public=False, view=True)(_diagonal_view)


@register(method=True)
def diagonal(input, offset=0, dim1=0, dim2=1):
    n = input.ndim
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _diagonal(input, operator.index(offset), d1, d2)


@op("diagonal_backward", public=False)
def _diagonal_backward(grad, input_sizes, offset, dim1, dim2):
    out = namespace(grad).zeros(input_sizes, dtype=grad.dtype)
    _diagonal_view(out, offset, dim1, dim2)[...] = grad
    return out


def _unfold_view(input, dimension, size, step):
    if input.ndim == 0:
        return np.reshape(input, (size,))
    st = input.strides
    shape = input.shape[:dimension] + ((input.shape[dimension] - size) // step + 1,) + input.shape[dimension + 1:]
    strides = st[:dimension] + (st[dimension] * step,) + st[dimension + 1:]
    return np.lib.stride_tricks.as_strided(input, shape + (size,), strides + (st[dimension],), subok=True)


_unfold = op("unfold", public=False, view=True)(_unfold_view)


@_method
def unfold(input, dimension, size, step):
    shape = input.shape
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
    out = namespace(grad).zeros(input_sizes, dtype=grad.dtype)
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
    n = input.ndim
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    slot = _diagonal_view(input._array, operator.index(offset), d1, d2).shape
    if src.shape != slot:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{_shape_str(src.shape)}, slice size = {_shape_str(slot)}")
    return _diagonal_scatter(input, src, operator.index(offset), d1, d2)


# ---- complex views ----------------------------------------------------------------------------
_REAL_OF = {np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64}
_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


@op("view_as_real", view=True, public=False)
def _view_as_real(input):
    if input.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return input[..., None].view(_REAL_OF[input.dtype])


@register()
def view_as_real(input):
    if input._math_bits & CONJ_BIT:   # a real view cannot conjugate lazily
        raise RuntimeError("view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate "
                           "tensor so you can view it as real, use self.resolve_conj(); however, be warned that the "
                           "resulting tensor will NOT alias the original.")
    return _view_as_real(input)


@register()
@autocast_as("view_as_complex")
def view_as_complex(input):
    a = input._array
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


def _as_subclass(self, cls):
    """as_subclass(cls) -> Tensor

    This tensor as an instance of `cls`, a subclass of Tensor, without copying.

    The result is a view of this tensor (an ``AliasBackward0`` node when it requires grad): it
    shares the data and the version counter, and gradients flow back to this tensor.

    Args:
        cls (type): a subclass of Tensor.

    Returns:
        Tensor: an instance of `cls`.

    Example::

        >>> class Tagged(torch.Tensor):
        ...     pass
        >>> x = torch.tensor([1.0, 2.0])
        >>> y = x.as_subclass(Tagged)
        >>> type(y).__name__, y.tolist()
        ('Tagged', [1.0, 2.0])
        >>> _ = y.add_(1)
        >>> x
        tensor([2., 3.])
    """
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. "
                        "Make sure your class inherits from Tensor.")
    with DisableTorchFunctionSubclass():   # (the subclass's own __torch_function__ converts with this)
        view = _alias(self)
    out = object.__new__(cls)   # the view's state, moved into an instance of cls
    for name in _TENSOR_SLOTS:
        setattr(out, name, getattr(view, name))
    out.__dict__.update(view.__dict__)
    return out


Tensor.as_subclass = _as_subclass
_TENSOR_SLOTS = tuple(n for n in Tensor.__slots__ if n not in ("__dict__", "__weakref__"))


# ---- triangular parts, rot90 ----------------------------------------------------------------
def _check_matrix(name, input):
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


@op("tril", method=True, inplace=True)
def tril(input, diagonal=0):
    """The lower triangle of the matrices of `input` (its last two dimensions): the elements on and below
    the `diagonal`-th diagonal, zeros above it.

    Args:
        input (Tensor): the input, of at least 2 dimensions.
        diagonal (int): the diagonal that bounds the kept part: 0 the main one, positive above it,
            negative below it. Default: ``0``.

    Returns:
        Tensor: the lower triangular part.

    Example::

        >>> a = torch.ones(3, 3)
        >>> torch.tril(a)
        tensor([[1., 0., 0.],
                [1., 1., 0.],
                [1., 1., 1.]])
        >>> torch.tril(a, diagonal=-1)
        tensor([[0., 0., 0.],
                [1., 0., 0.],
                [1., 1., 0.]])
    """
    _check_matrix("tril", input)
    return np.tril(input, diagonal)


@op("triu", method=True, inplace=True)
def triu(input, diagonal=0):
    """The upper triangle of the matrices of `input` (its last two dimensions): the elements on and above
    the `diagonal`-th diagonal, zeros below it.

    Args:
        input (Tensor): the input, of at least 2 dimensions.
        diagonal (int): the diagonal that bounds the kept part: 0 the main one, positive above it,
            negative below it. Default: ``0``.

    Returns:
        Tensor: the upper triangular part.

    Example::

        >>> a = torch.ones(3, 3)
        >>> torch.triu(a)
        tensor([[1., 1., 1.],
                [0., 1., 1.],
                [0., 0., 1.]])
        >>> torch.triu(a, diagonal=1)
        tensor([[0., 1., 1.],
                [0., 0., 1.],
                [0., 0., 0.]])
    """
    _check_matrix("triu", input)
    return np.triu(input, diagonal)


@op("rot90", public=False)
def _rot90(input, k, dims):
    return np.rot90(input, k, dims).copy()   # a new tensor, as torch's (np.rot90 gives a view)


@register(method=True)
def rot90(input, k=1, dims=(0, 1)):
    """`input` rotated by `k` quarter turns in the plane of the dimensions `dims`, from the first towards
    the second (counter-clockwise for a matrix printed as usual).

    Args:
        input (Tensor): the input.
        k (int): the number of quarter turns (negative: the other way). Default: ``1``.
        dims (list of int): the two dimensions of the plane. Default: ``(0, 1)``.

    Returns:
        Tensor: the rotated tensor.

    Example::

        >>> torch.rot90(torch.tensor([[1, 2], [3, 4]]))
        tensor([[2, 4],
                [1, 3]])
    """
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
    backend = namespace(tensors[0]) if tensors else current()
    out = backend.zeros((sum(b[0] for b in blocks) if tensors else 1, sum(b[1] for b in blocks)), dt)
    r = c = 0
    for a, (rows, cols) in zip(tensors, blocks):
        out[r:r + rows, c:c + cols] = a.reshape(rows, cols)
        r, c = r + rows, c + cols
    return out


@register()
def block_diag(*tensors):
    """The block-diagonal matrix with the given tensors as its blocks, in order, and zeros elsewhere
    (a 0-D tensor is a 1x1 block, a 1-D one a single row).

    Args:
        tensors (Tensor): the blocks, each of at most 2 dimensions.

    Returns:
        Tensor: the matrix, of the promoted dtype.

    Example::

        >>> torch.block_diag(torch.tensor([[1, 2]]), torch.tensor([[3], [4]]))
        tensor([[1, 2, 0],
                [0, 0, 3],
                [0, 0, 4]])
    """
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
    out = namespace(input).zeros(shape, input.dtype)
    _diagonal_view(out, offset, dim1, dim2)[...] = input
    return out


@register(method=True)
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices whose `offset`-th diagonal holds the last dimension of `input`, zeros elsewhere; the
    matrices lie in dimensions `dim1` and `dim2` of the result.

    Args:
        input (Tensor): the diagonals, in the last dimension.
        offset (int): which diagonal: 0 the main one, positive above it, negative below it. Default: ``0``.
        dim1 (int): the first dimension of the matrices. Default: ``-2``.
        dim2 (int): the second dimension of the matrices. Default: ``-1``.

    Returns:
        Tensor: with one more dimension than `input`.

    Example::

        >>> torch.diag_embed(torch.tensor([[1, 2], [3, 4]]))
        tensor([[[1, 0],
                 [0, 2]],
        <BLANKLINE>
                [[3, 0],
                 [0, 4]]])
    """
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
    view = np.reshape(input._array, size, copy=False) if input.numel() == math.prod(size) else None
    item = input._array.itemsize
    if view is None or any(n > 1 and s * item != vs for n, s, vs in zip(size, stride, view.strides)):
        raise NotImplementedError(f"_reshape_alias: size {_shape_str(size)} and stride {_shape_str(stride)} are not a "
                                  f"reshape of the input's shape {_shape_str(input.shape)} and stride "
                                  f"{_shape_str(input.stride())}; use as_strided for other geometries")
    return _reshape_alias(input, size)


aten.lift, aten.lift_fresh = lift, lift_fresh
aten._reshape_copy, aten._reshape_alias = _reshape_copy, _reshape_alias_strided


# ---- composites: torch builds these from other ops, so their graphs hold those ops' nodes ------
_broadcast_to_args = Parser("broadcast_to(Tensor input, SymInt[] size)")


@register(method=True)
def broadcast_to(*args, **kwargs):
    _, (input, size) = _broadcast_to_args.parse(args, kwargs)
    return _expand_checked(input, size)


broadcast_to.parser = _broadcast_to_args


@register()
def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = _registry.broadcast_shape(*(t.shape for t in tensors))
    # a tensor already of the broadcast shape is returned itself, as torch's expand_outplace does
    return tuple(t if tuple(t.shape) == shape else _expand_checked(t, shape) for t in tensors)


@register()
def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D tensors: for N inputs, N tensors of the grid's shape, the i-th holding
    the values of the i-th input along its dimension.

    Args:
        tensors (Tensor): 1-D tensors (or one list of them).
        indexing (str, optional): ``'ij'`` (the i-th input along dimension i) or ``'xy'`` (the first two
            dimensions swapped, as in NumPy). torch warns when it is not given, and uses ``'ij'``.

    Returns:
        tuple of Tensor: the grids (views of the inputs).

    Example::

        >>> x, y = torch.meshgrid(torch.tensor([1, 2]), torch.tensor([3, 4, 5]), indexing="ij")
        >>> x
        tensor([[1, 1, 1],
                [2, 2, 2]])
        >>> y
        tensor([[3, 4, 5],
                [3, 4, 5]])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    swap = indexing == "xy" and len(tensors) >= 2
    order = (tensors[1], tensors[0], *tensors[2:]) if swap else tensors
    shape = tuple(t.numel() for t in order)
    out = []
    for i, t in enumerate(order):
        view = [1] * len(order)
        view[i] = shape[i]
        out.append(_expand_checked(reshape(t, tuple(view)), shape))
    if swap:
        out = [out[1], out[0], *out[2:]]
    return tuple(out)


@register(method=True)
def diag(input, diagonal=0):
    """With a 1-D `input`, the square matrix that has it on its `diagonal`-th diagonal; with a 2-D
    `input`, a copy of its `diagonal`-th diagonal as a 1-D tensor.

    Args:
        input (Tensor): a 1-D or 2-D tensor.
        diagonal (int): which diagonal: 0 the main one, positive above it, negative below it. Default: ``0``.

    Returns:
        Tensor: the matrix, or the diagonal.

    Example::

        >>> torch.diag(torch.tensor([1, 2]))
        tensor([[1, 0],
                [0, 2]])
        >>> torch.diag(torch.tensor([[1, 2], [3, 4]]), 1)
        tensor([2])
    """
    if input.ndim == 1:
        return diag_embed(input, diagonal, 0, 1)
    if input.ndim == 2:
        return _registry.OPS["clone"](_diagonal_view_op(input, diagonal))
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def _diagonal_view_op(input, offset):
    return diagonal(input, offset, 0, 1)


@register(method=True)
def diagflat(input, offset=0):
    return diag_embed(reshape(input, (-1,)), offset, 0, 1)


@register()
def cartesian_prod(*tensors):
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {_shape_str(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([reshape(g, (-1,)) for g in grids], 1)


@register()
def combinations(input, r=2, with_replacement=False):
    """The combinations of length `r` of the elements of the 1-D `input`, one per row (as Python's
    ``itertools.combinations``, or ``combinations_with_replacement``).

    Args:
        input (Tensor): a 1-D tensor.
        r (int): the length of each combination. Default: ``2``.
        with_replacement (bool): allow an element to repeat within a combination. Default: ``False``.

    Returns:
        Tensor: the combinations, of shape (count, `r`).

    Example::

        >>> torch.combinations(torch.tensor([1, 2, 3]))
        tensor([[1, 2],
                [1, 3],
                [2, 3]])
        >>> torch.combinations(torch.tensor([1, 2]), with_replacement=True)
        tensor([[1, 1],
                [1, 2],
                [2, 2]])
    """
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {_shape_str(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty((0,))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = np.array(list(pick(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    index_select = _registry.OPS["index_select"]
    return stack([index_select(input, 0, _registry.OPS["tensor"](rows[:, j].copy())) for j in range(r)], 1)


_sum_to_size_args = Parser("sum_to_size(Tensor self, SymInt[] size)").method()


@method()
def sum_to_size(self, *args, **kwargs):
    _, (size,) = _sum_to_size_args.parse(args, kwargs)
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != h for s, h in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{_shape_str(size)}}} is not expandable to size {{{_shape_str(shape)}}}.")
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1)
    out = self.sum(dims, keepdim=True) if dims else self
    return out.view(size) if lead else out


_VIEW_FNS = {"slice": lambda *a, **k: _slice_public(*a, **k), "alias": lambda input: _alias(input),
             # functions only, not Tensor methods (in torch too)
             "view_as_real": lambda input: _registry.OPS["view_as_real"](input),
             "view_as_complex": lambda input: _registry.OPS["view_as_complex"](input)}


# the *_copy ops: the view op's result, copied (a tensor of its own, not a view of the input)
def _view_copy(view_fn, name):
    def copy(input, *args, **kwargs):
        out = view_fn(input, *args, **kwargs)
        clone = _registry.OPS["clone"]
        return tuple(clone(o) for o in out) if isinstance(out, (tuple, list)) else clone(out)
    copy.__name__ = copy.__qualname__ = name
    base = name[:-5]
    copy.__doc__ = _COPY_DOC.format(
        what=_COPY_WHAT.get(base, f"the view :meth:`Tensor.{base}` gives"),
        returns="tuple of Tensor: the pieces" if base in ("split", "split_with_sizes", "unbind") else "Tensor: the copy",
        example="\n".join("    " + line for line in _COPY_EXAMPLES[base].split("\n")))
    return register(name)(copy)


_COPY_DOC = """A copy of {what}, with memory of its own (not a view of `input`).

Args:
    input (Tensor): the input.
    args, kwargs: the other arguments of the view.

Returns:
    {returns}.

Example::

{example}
"""
_COPY_WHAT = {"slice": "the slice ``input[start:end:step]`` along `dim` (arguments ``dim=0, start=None, end=None, "
                       "step=1``)",
              "alias": "`input` (its alias is a view of the whole tensor)",
              "view_as_real": "the view :func:`ndgrad.view_as_real` gives",
              "view_as_complex": "the view :func:`ndgrad.view_as_complex` gives"}
_COPY_EXAMPLES = {
    "alias": ">>> x = torch.tensor([1, 2])\n>>> y = torch.alias_copy(x)\n>>> y[0] = 5\n>>> x\ntensor([1, 2])",
    "as_strided": ">>> torch.as_strided_copy(torch.arange(6), (2, 2), (1, 2))\ntensor([[0, 2],\n        [1, 3]])",
    "detach": ">>> torch.detach_copy(torch.ones(2))\ntensor([1., 1.])",
    "diagonal": ">>> torch.diagonal_copy(torch.tensor([[1, 2], [3, 4]]))\ntensor([1, 4])",
    "expand": ">>> torch.expand_copy(torch.tensor([1, 2]), (2, 2))\ntensor([[1, 2],\n        [1, 2]])",
    "narrow": ">>> torch.narrow_copy(torch.arange(5), 0, 1, 3)\ntensor([1, 2, 3])",
    "permute": ">>> torch.permute_copy(torch.zeros(2, 3, 4), (2, 0, 1)).shape\ntorch.Size([4, 2, 3])",
    "select": ">>> torch.select_copy(torch.tensor([[1, 2], [3, 4]]), 0, 1)\ntensor([3, 4])",
    "slice": ">>> torch.slice_copy(torch.arange(6), 0, 1, 6, 2)\ntensor([1, 3, 5])",
    "split": ">>> torch.split_copy(torch.arange(5), 2)\n(tensor([0, 1]), tensor([2, 3]), tensor([4]))",
    "split_with_sizes": ">>> torch.split_with_sizes_copy(torch.arange(5), [1, 4])\n(tensor([0]), tensor([1, 2, 3, 4]))",
    "squeeze": ">>> torch.squeeze_copy(torch.zeros(1, 2, 1)).shape\ntorch.Size([2])",
    "t": ">>> torch.t_copy(torch.tensor([[1, 2, 3]]))\ntensor([[1],\n        [2],\n        [3]])",
    "transpose": ">>> torch.transpose_copy(torch.zeros(2, 3, 4), 0, 2).shape\ntorch.Size([4, 3, 2])",
    "unbind": ">>> torch.unbind_copy(torch.tensor([[1, 2], [3, 4]]))\n(tensor([1, 2]), tensor([3, 4]))",
    "unfold": ">>> torch.unfold_copy(torch.arange(4), 0, 2, 2)\ntensor([[0, 1],\n        [2, 3]])",
    "unsqueeze": ">>> torch.unsqueeze_copy(torch.tensor([1, 2]), 0)\ntensor([[1, 2]])",
    "view_as_complex": ">>> torch.view_as_complex_copy(torch.tensor([[1.0, 2.0]]))\ntensor([1.+2.j])",
    "view_as_real": ">>> torch.view_as_real_copy(torch.tensor([1 + 2j]))\ntensor([[1., 2.]])",
    "view": ">>> torch.view_copy(torch.arange(4), (2, 2))\ntensor([[0, 1],\n        [2, 3]])",
}


for _name in ("expand", "permute", "view", "squeeze", "unsqueeze", "transpose", "t", "diagonal", "narrow",
              "select", "slice", "split", "split_with_sizes", "unbind", "unfold", "alias", "detach",
              "as_strided", "view_as_real", "view_as_complex"):
    _view_copy(lambda input, *a, _n=_name, **k: _VIEW_FNS[_n](input, *a, **k) if _n in _VIEW_FNS
               else getattr(Tensor, _n)(input, *a, **k), f"{_name}_copy")


def _slice_public(input, dim=0, start=None, end=None, step=1):
    index = [slice(None)] * input.ndim
    index[_wrap_dim(dim, input.ndim)] = slice(start, end, step)
    return input[tuple(index)]


aten.slice = _slice_public


@register(method=True)
def unsafe_chunk(input, chunks, dim=0):
    """As :func:`ndgrad.chunk`, without the checks that protect the chunks as views from in-place changes
    (the gradient node is torch's ``UnsafeSplitBackward0``).

    Args:
        input (Tensor): the tensor to split.
        chunks (int): the number of chunks.
        dim (int): the dimension to split along. Default: ``0``.

    Returns:
        tuple of Tensor: the chunks.

    Example::

        >>> torch.unsafe_chunk(torch.arange(5), 2)
        (tensor([0, 1, 2]), tensor([3, 4]))
    """
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = input.shape[_wrap_dim(dim, input.ndim)]
    return unsafe_split(input, -(-n // chunks) if n else 1, dim)


# ---- api: vander, broadcast_shapes and the size / sign predicates
@register()
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D `x`: its columns are powers of `x`, from ``x ** (N - 1)`` down
    to ``x ** 0`` (up, with ``increasing=True``).

    Args:
        x (Tensor): a 1-D tensor.
        N (int, optional): the number of columns (default: the length of `x`).
        increasing (bool): powers in increasing order. Default: ``False``.

    Returns:
        Tensor: the matrix, (len(x), N).

    Example::

        >>> torch.vander(torch.tensor([1, 2, 3]))
        tensor([[1, 1, 1],
                [4, 2, 1],
                [9, 3, 1]])
        >>> torch.vander(torch.tensor([1, 2, 3]), N=2, increasing=True)
        tensor([[1, 1],
                [1, 2],
                [1, 3]])
    """
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    result = x.new_ones((x.shape[0], n), dtype=_dtype.promote_types(x.dtype, _dtype.int64))
    if n > 1:
        result[:, 1:].copy_(x.unsqueeze(1).expand(x.shape[0], n - 1).cumprod(1))
    return result if increasing else result.flip(1)


@register()
def broadcast_shapes(*shapes):
    """The shape that tensors of the given shapes broadcast to, without creating any tensor.

    Args:
        shapes (torch.Size, tuple of int or int): the shapes (an int stands for a 1-D shape).

    Returns:
        torch.Size: the broadcast shape.

    Example::

        >>> torch.broadcast_shapes((2, 1), (1, 3), (3,))
        torch.Size([2, 3])
    """
    shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for i, shape in enumerate(shapes):
        for k, size in enumerate(reversed(shape), 1):
            if size != out[-k] and size != 1 and out[-k] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {size} at -{k}! Mismatching "
                                   f"argument at index {i} had {shape}; but expected shape should be broadcastable "
                                   f"to {out}")
            if out[-k] == 1:
                out[-k] = size
    return Size(out)


@register(method=True)
def is_same_size(input, other):
    return tuple(input.shape) == tuple(other.shape)


@register(method=True)
def is_signed(input):
    return input.dtype.is_signed


@register(method=True)
def is_nonzero(input):
    """Whether the single element of a one-element tensor is non-zero (``bool(input)``); any other tensor
    raises a RuntimeError.

    Args:
        input (Tensor): a tensor of one element.

    Returns:
        bool: whether that element is non-zero.

    Example::

        >>> torch.is_nonzero(torch.tensor([0.5]))
        True
        >>> torch.is_nonzero(torch.tensor(0))
        False
    """
    if input.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if input.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item())
