"""Indexing and scatter: `Tensor[...]` read and write, select/slice (and their scatters), index/index_put,
index_select/add/reduce/copy/fill, gather/scatter/scatter_add/scatter_reduce, masked ops, take/put, nonzero.
Also here: slice_inverse (the inverse of a slice: a view of the sliced tensor's memory).

`t[...]` records what torch records: integers, slices and None are a chain of view ops (select, slice,
unsqueeze), each with its own node; tensor, list and bool indices then end in one `index` op. Its index
list holds one entry per indexed dim (None: the whole dim), a bool mask covering as many dims as it has,
which is NumPy's own advanced-indexing rule, so the forwards are plain NumPy indexing.
`t[...] = v` walks the same views and ends in `copy_` (basic) or `index_put_` (advanced); an in-place op
on a view gives the base torch's CopySlices history.
Public functions check arguments (torch's errors) and pick the registered op; `_public` turns one such
function into `name` and its in-place twin `Tensor.name_`.
"""
import math
import operator
import warnings

import numpy as np

from .. import _dtype
from . import _fused, _registry
from ..autograd import record
from ..autograd.anomaly_mode import _user_stacklevel
from ..autograd.grad_mode import state as grad_state
from ..backends import is_array, namespace
from ._registry import autocast_as, op, register
from ._schema import Parser
from .._tensor import PLAIN_TYPES, Tensor, _c_type, _wrap_dim
from ..backends.numpy_backend import scatter_add as _scatter_add
from ._branchless import where as _branchless_where
from .creation import _check_out, tensor
from .shape import _alias, _unsqueeze, aten


def _public(args_parser, inplace_parser):
    """Register `check(which, input, *values) -> (op, args)`, which checks the values of overload `which`
    and gives the registered op to run, as the public op `check.__name__` (a Tensor method too; calls
    parsed by `args_parser`) and as `Tensor.<name>_` (parsed by `inplace_parser`, a method parser with
    the same overloads), which writes the op's result into self."""
    def deco(check):
        name = check.__name__

        @args_parser.signature
        def out_of_place(*args, **kwargs):
            which, values = args_parser.parse(args, kwargs)
            fn, values = check(which, *values)
            return _registry.call(fn.spec, values)

        def in_place(self, *args, **kwargs):
            which, values = inplace_parser.parse(args, kwargs)
            fn, values = check(which, self, *values)
            return _registry.call_inplace(fn.spec, values)

        out_of_place.__name__ = out_of_place.__qualname__ = name
        out_of_place.__doc__ = check.__doc__
        in_place.__name__ = in_place.__qualname__ = name + "_"
        in_place.__doc__ = f"In-place version of :meth:`Tensor.{name}`."
        _registry.OPS[name] = _registry.METHODS[name] = out_of_place
        _registry.METHODS[name + "_"] = in_place
        return out_of_place
    return deco


# ---- argument checks shared by the ops ----------------------------------------------------
_word = _dtype.type_word


def _shape_str(shape):
    return f"[{', '.join(map(str, shape))}]"


def _is_int(obj):
    return isinstance(obj, (int, np.integer)) and not isinstance(obj, bool)


def _check_bounds(index, size, dim, error=RuntimeError, prefix="", wrap=False):
    """torch's out-of-bounds error for the first bad entry of `index` along a dim of `size`."""
    low = -size if wrap else 0
    if index.size and (index.min() < low or index.max() >= size):
        bad = index[(index < low) | (index >= size)].flat[0]
        raise error(f"{prefix}index {bad} is out of bounds for dimension {dim} with size {size}")


def _broadcast_shape(a, b):
    """The broadcast of shapes a and b, with torch's message when they do not broadcast."""
    try:
        return np.broadcast_shapes(a, b)
    except ValueError:
        n = max(len(a), len(b))
        for i in range(1, n + 1):
            x, y = a[-i] if i <= len(a) else 1, b[-i] if i <= len(b) else 1
            if x != y and x != 1 and y != 1:
                raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                                   f"non-singleton dimension {n - i}") from None
        raise


def _scalar(value, np_dtype):
    """A Python scalar fill value as a 0-dim array of the tensor's dtype (torch casts it, as C does)."""
    if isinstance(value, complex) and np_dtype.kind in "iuf":
        name = np_dtype.name
        ctype = {"float16": "c10::Half", "float32": "float", "float64": "double"}.get(name, name + "_t")
        raise RuntimeError(f"value cannot be converted to type {ctype} without overflow")
    return np.asarray(value).astype(np_dtype)


def _check_in_range(index, size):
    a = index._array
    if a.size and (a.min() < 0 or a.max() >= size):
        raise IndexError("index out of range in self")


# ---- NumPy keys and reductions the forwards share -------------------------------------------
def _as_1d(*arrays):
    """0-dim arrays as 1-element vectors (the ops along a dim treat a scalar as a vector)."""
    return tuple(a.reshape(1) if a.ndim == 0 else a for a in arrays)


def _dim_key(dim, index):
    """The NumPy index taking `index` (an int, slice or vector) along dim."""
    return (slice(None),) * dim + (index,)


def _along(dim, index):
    """The NumPy index pairing every element of `index` with its own position in the other dims."""
    key = list(np.ogrid[tuple(slice(0, n) for n in index.shape)])
    key[dim] = index
    return tuple(key)


_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}


def _reduce_into(out, key, values, reduce, include_self=True):
    """Reduce `values` into out[key] in place, repeated positions included; out's own values take part
    if include_self (scatter_reduce, index_reduce, scatter(reduce=))."""
    if not include_self:
        out[key] = _reduce_identity(reduce, out.dtype)
    if _UFUNCS[reduce] is np.add:
        _scatter_add(out, key, values)
    else:   # the backends have no scatter-multiply/max/min: NumPy's (CPU only)
        _UFUNCS[reduce].at(out, key, values)
    if reduce == "mean":
        count = np.full(out.shape, int(include_self))
        _scatter_add(count, key, 1)
        np.maximum(count, 1, out=count)
        out[...] = out // count if out.dtype.kind in "biu" else out / count


def _reduce_identity(reduce, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    lowest = reduce == "amax"
    if dtype.kind in "fc":
        return -np.inf if lowest else np.inf
    if dtype.kind == "b":
        return not lowest
    return np.iinfo(dtype).min if lowest else np.iinfo(dtype).max


# ---- select and slice: the views of basic indexing ------------------------------------------
@op("select.int", public=False, view=True)
def _select(input, dim, index):
    return input[_dim_key(dim, index) + (Ellipsis,)]   # the Ellipsis keeps a 0-dim result an array view


@op("slice.Tensor", public=False, view=True)
def _slice(input, dim, start, end, step):
    return input[_dim_key(dim, slice(start, end, step))]


@op("select_backward", public=False)
def _select_backward(grad, input_sizes, dim, index):
    out = np.zeros(input_sizes, dtype=grad.dtype)
    out[_dim_key(dim, index)] = grad
    return out


@op("slice_backward", public=False)
def _slice_backward(grad, input_sizes, dim, start, end, step):
    out = namespace(grad).zeros(input_sizes, dtype=grad.dtype)
    out[_dim_key(dim, slice(start, end, step))] = grad
    return out


_select_args = Parser("select(Tensor input, int dim, SymInt index)")


@register(method=True)
@_select_args.signature
def select(*args, **kwargs):
    _, (input, dim, index) = _select_args.parse(args, kwargs)
    shape = input._array.shape
    if not shape:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = _wrap_dim(dim, len(shape))
    if not -shape[dim] <= index < shape[dim]:
        raise IndexError(f"select(): index {index} out of range for tensor of size {_shape_str(shape)} at "
                         f"dimension {dim}")
    return _select(input, dim, index % shape[dim])


def _slice_bounds(s, size):
    """(start, end, step) of Python slice `s` on a dim of `size`, clamped as torch does."""
    step = 1 if s.step is None else operator.index(s.step)
    if step <= 0:
        raise ValueError("slice step cannot be zero" if step == 0 else "step must be greater than zero")
    start, end, _ = s.indices(size)
    return start, max(start, end), step


@op("select_scatter", public=False)
def _select_scatter(input, src, dim, index):
    out = input.copy()
    out[_dim_key(dim, index)] = src
    return out


@op("slice_scatter", public=False)
def _slice_scatter(input, src, dim, start, end, step):
    out = input.copy()
    out[_dim_key(dim, slice(start, end, step))] = src
    return out


def _check_scatter_src(input, src, dim, key):
    slice_shape = np.broadcast_to(np.empty((), np.int8), input._array.shape)[_dim_key(dim, key)].shape
    if src._array.shape != slice_shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{_shape_str(src._array.shape)}, slice size = {_shape_str(slice_shape)}")


@register(method=True)
def select_scatter(input, src, dim, index):
    shape = input._array.shape
    dim = _wrap_dim(dim, len(shape))
    index = operator.index(index)
    if not shape or not -shape[dim] <= index < shape[dim]:
        raise IndexError(f"select(): index {index} out of range for tensor of size {_shape_str(shape)} at "
                         f"dimension {dim}")
    index %= shape[dim]
    _check_scatter_src(input, src, dim, index)
    return _select_scatter(input, src, dim, index)


@register(method=True)
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    shape = input._array.shape
    dim = _wrap_dim(dim, len(shape))
    start, end, step = _slice_bounds(slice(start, end, step), shape[dim])
    _check_scatter_src(input, src, dim, slice(start, end, step))
    return _slice_scatter(input, src, dim, start, end, step)


# ---- index and index_put: advanced indexing --------------------------------------------------
def _key(indices):
    """The NumPy index for an index list: None takes a whole dim, a bool mask as many dims as it has."""
    key = []
    for a in indices:
        if a is None:
            a = slice(None)
        elif a.dtype == np.uint8:
            warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
                          UserWarning, stacklevel=4)
            a = a.astype(bool)
        elif a.dtype != np.bool_ and a.dtype != np.int64 and a.dtype != np.int32:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        key.append(a)
    return tuple(key)


def _raise_index_error(shape, key, values_shape=None):
    """torch's error for a NumPy index that NumPy refused (or for values that do not fit its result)."""
    width = sum(k.ndim if getattr(k, "dtype", None) == np.bool_ else 1 for k in key)
    if width > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)} (got {width})")
    dim, tensors = 0, []     # tensors: (index array, size of the dim it indexes), masks expanded
    for k in key:
        if isinstance(k, slice):
            dim += 1
        elif k.dtype == np.bool_:
            for j, n in enumerate(k.shape):
                if n != shape[dim + j]:
                    raise IndexError(f"The shape of the mask {_shape_str(k.shape)} at index {j} does not match the "
                                     f"shape of the indexed tensor {_shape_str(shape)} at index {dim + j}")
            tensors += [(a, shape[dim + j]) for j, a in enumerate(np.nonzero(k))]
            dim += k.ndim
        else:
            tensors.append((k, shape[dim]))
            dim += 1
    try:
        np.broadcast_shapes(*(a.shape for a, _ in tensors))
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(_shape_str(a.shape) for a, _ in tensors)) from None
    for i, (a, n) in enumerate(tensors):
        _check_bounds(a, n, i, IndexError, wrap=True)
    if values_shape is not None:
        result = np.broadcast_to(np.empty((), np.int8), shape)[key].shape
        raise RuntimeError(f"shape mismatch: value tensor of shape {_shape_str(values_shape)} cannot be broadcast "
                           f"to indexing result of shape {_shape_str(result)}")


def _index_forward(input, indices):
    key = _key(indices)
    try:
        out = input[key]
    except (IndexError, ValueError):
        _raise_index_error(input.shape, key)
        raise
    if type(out) is not np.ndarray or type(input) is not np.ndarray:
        return out
    if input.flags.c_contiguous and (1 not in input.shape or input.strides == _row_major(input)):
        for k in key:
            if type(k) is not slice and k.ndim > 1:
                return _iterator_layout(input, key, out)
        # (the layout below comes out row-major for one-dim indices of a row-major input: the usual call, decided
        # without it; NumPy may give a size-1 dim another stride than row-major's, which torch's .stride() shows)
        if out.flags.c_contiguous and (1 not in out.shape or out.strides == _row_major(out)):
            return out
        return out.copy(order="C")
    return _iterator_layout(input, key, out)


def _row_major(a):
    strides, step = [], a.itemsize
    for n in reversed(a.shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def _iterator_layout(input, key, out):
    """`out` (input[key] as NumPy made it) laid out as torch's index kernel allocates its result: in the
    dimension order TensorIterator picks from its operands' strides, the input restrided to the result's
    shape (0 along the index dims) and each index broadcast over the result (0 along the other dims).
    NumPy instead puts the index dims outermost in memory."""
    indexes, last, before, slices = [], None, 0, []   # slices: input dims taken whole, in order
    dim = 0
    for i, k in enumerate(key):
        if isinstance(k, slice):
            slices.append(dim)
            dim += 1
            continue
        parts = np.nonzero(k) if k.dtype == np.bool_ else (k,)   # (torch indexes with a mask's nonzero)
        if last is None:
            before = len(slices)
        elif i != last + 1:
            before = 0   # indices apart: their dims go first (torch moves the indexed dims to the front)
        last = i
        indexes.extend(parts)
        dim += k.ndim if k.dtype == np.bool_ else 1
    slices.extend(range(dim, input.ndim))
    if not indexes or out.size == 0:
        return out
    shape = np.broadcast_shapes(*(a.shape for a in indexes))
    n = len(shape)
    dims = slices[:before] + [None] * n + slices[before:]
    if len(dims) != out.ndim or any(d is not None and input.shape[d] != m for d, m in zip(dims, out.shape)):
        return out   # (not the result this mapping of dims describes: left as NumPy made it)
    operands = [[input.strides[d] if d is not None else 0 for d in dims]]
    for a in indexes:
        # (torch reshapes each broadcast index to the result's rank: the size-1 dims before it get its first
        # stride times its first size, those after its last stride; they count only where the result has size 1)
        lost = n - a.ndim   # (as torch's expand: a dim of size 1 kept keeps its stride, where np.broadcast_to gives 0)
        strides = [0] * lost + [st if m == k else 0 for st, m, k in zip(a.strides, a.shape, shape[lost:])]
        lead, trail = (strides[0] * shape[0], strides[-1]) if n else (a.itemsize, a.itemsize)
        operands.append([lead if out.shape[j] == 1 else 0 for j in range(before)] + list(strides)
                        + [trail if out.shape[j] == 1 else 0 for j in range(before + n, len(dims))])
    order = _iterator_order(out.shape, operands)
    result = np.empty([out.shape[d] for d in reversed(order)], out.dtype).transpose(
        [len(order) - 1 - order.index(d) for d in range(len(order))])
    if result.strides == out.strides:
        return out
    result[...] = out
    return result


def _iterator_order(shape, operands):
    """TensorIterator's order of an output's dims, innermost first (its reorder_dimensions): from row-major,
    a dim moves inside another where the first operand whose strides along the two are both non-zero
    has the smaller one there (at equal strides, the smaller size goes inside)."""
    def swap(d0, d1):
        for strides in operands:
            s0, s1 = strides[d0], strides[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return 1 if s0 > s1 else -1
            if shape[d0] > shape[d1]:
                return 1
        return 0
    perm = list(range(len(shape) - 1, -1, -1))
    for i in range(1, len(perm)):
        j = i
        for k in range(i - 1, -1, -1):
            c = swap(perm[k], perm[j])
            if c > 0:
                perm[k], perm[j] = perm[j], perm[k]
                j = k
            elif c < 0:
                break
    return perm


def _index_put_forward(input, indices, values, accumulate=False, unsafe=False):
    if values.dtype != input.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got {_word(input.dtype)} "
                           f"for the destination and {_word(values.dtype)} for the source.")
    key = _key(indices)
    out = input.copy()
    try:
        if accumulate:
            _scatter_add(out, key, values)
        else:
            out[key] = values
    except (IndexError, ValueError):
        _raise_index_error(input.shape, key, values.shape)
        raise
    return out


# torch's unchecked variants compute the same and record their own nodes
_index = op("index.Tensor", public=False)(_index_forward)
_unsafe_index_op = op("_unsafe_index.Tensor", public=False)(_index_forward)
_index_put = op("index_put", public=False)(_index_put_forward)
_unsafe_index_put_op = op("_unsafe_index_put", public=False)(_index_put_forward)
_index_put_impl_op = op("_index_put_impl_", public=False)(_index_put_forward)


def _index_list(indices, what, position=2):
    """indices (argument `position`, counted from 1) as a list, checked as torch's binding checks it."""
    if isinstance(indices, Tensor) or not isinstance(indices, (tuple, list)):
        raise TypeError(f"{what}(): argument 'indices' (position {position}) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {position - 1}, but got {type(t).__name__}")
    return list(indices)


@_public(Parser("index_put(Tensor input, Tensor[] indices, Tensor values, bool accumulate=False)"),
         Parser("index_put_(Tensor self, Tensor[] indices, Tensor values, bool accumulate=False)").method())
def index_put(which, input, indices, values, accumulate):
    return _index_put, (input, list(indices), values, accumulate)


_registry.OPS["index_put_"] = _registry.METHODS["index_put_"]   # torch.index_put_ exists too
_registry.OPS["index_put_"].__doc__ = """index_put_(input, indices, values, accumulate=False) -> Tensor

Writes `values` into `input` at the positions the index tensors select (``input[indices] = values``),
or adds them there with `accumulate` (an index repeated then adds each of its values).

Args:
    input (Tensor): the tensor written to.
    indices (tuple of Tensor): one integer (or boolean) index tensor per leading dimension.
    values (Tensor): the values, broadcast to the indexed shape.
    accumulate (bool): add to the elements instead of replacing them. Default: ``False``.

Returns:
    Tensor: `input`.

Example::

    >>> x = torch.zeros(3)
    >>> torch.index_put_(x, (torch.tensor([0, 2]),), torch.tensor([1.0, 2.0]))
    tensor([1., 0., 2.])
    >>> x.index_put_((torch.tensor([0, 0]),), torch.tensor([1.0, 1.0]), accumulate=True)
    tensor([3., 0., 2.])
"""


@register()
def _unsafe_index(input, indices):
    return _unsafe_index_op(input, _index_list(indices, "_unsafe_index"))


@register()
def _unsafe_index_put(input, indices, values, accumulate=False):
    return _unsafe_index_put_op(input, _index_list(indices, "_unsafe_index_put"), values, accumulate)


def _clamped(shape, indices):
    """Index arrays clamped into the dims they index ([-size, size - 1]): the masked variants read
    (and write) every position, masked-out ones too, whose indices need not be in range."""
    return [None if a is None else np.clip(a, -n, n - 1) for a, n in zip(indices, shape)]


@op("_unsafe_masked_index", public=False)
def _unsafe_masked_index_op(self, mask, indices, fill):
    picked = self[_key(_clamped(self.shape, indices))]
    return np.where(np.broadcast_to(mask, picked.shape), picked, np.asarray(fill, dtype=self.dtype))


@op("_unsafe_masked_index_put_accumulate", public=False)
def _unsafe_masked_index_put_accumulate_op(self, mask, indices, values):
    out = self.copy()
    _scatter_add(out, _key(_clamped(self.shape, indices)), np.where(mask, values, np.zeros((), values.dtype)))
    return out


@register()
def _unsafe_masked_index(input, mask, indices, fill):
    """where(mask, input[indices], fill), indices clamped (torch's decomposition of padded gathers)."""
    return _unsafe_masked_index_op(input, mask, _index_list(indices, "_unsafe_masked_index", 3), fill)


@register()
def _unsafe_masked_index_put_accumulate(input, mask, indices, values):
    """input.index_put(indices, values where mask else 0, accumulate=True), indices clamped."""
    return _unsafe_masked_index_put_accumulate_op(input, mask, _index_list(indices, "_unsafe_masked_index_put_accumulate", 3),
                                                  values)


@register()
def _index_put_impl_(input, indices, values, accumulate=False, unsafe=False):
    return _registry.call_inplace(_index_put_impl_op.spec, (input, _index_list(indices, "_index_put_impl_"), values,
                                                            accumulate, unsafe))


# ---- Tensor.__getitem__ / __setitem__ --------------------------------------------------------
_INDEX_TYPES = "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices"


def _as_tuple(index):
    """The index as a tuple; a short list holding slices, None, ... or sequences counts as one (legacy)."""
    if type(index) is tuple:
        return index
    # (a str is a sequence of sequences to torch's test: 'ab' counts as ('a', 'b'), each refused below)
    if isinstance(index, (list, str)) and len(index) < 32 and any(
            isinstance(i, (Tensor, list, tuple, slice, str)) or i is None or i is Ellipsis for i in index):
        warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
                      "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted "
                      "as tensor index, x[torch.tensor(seq)], which will result either in an error or a different "
                      "result", UserWarning, stacklevel=3)
        return tuple(index)
    return (index,)


def _dims_taken(obj):
    """How many dims of the tensor an index entry consumes (torch's count of specified dims)."""
    if obj is None or obj is Ellipsis or isinstance(obj, bool):
        return 0
    if isinstance(obj, Tensor) and obj._array.dtype in (np.bool_, np.uint8):
        return obj._array.ndim
    return 1


def _index_tensor(obj):
    if isinstance(obj, Tensor):
        return obj
    if isinstance(obj, (list, tuple, range, np.ndarray)):
        return tensor(list(obj) if type(obj) is range else obj) if len(obj) else tensor([], dtype=_dtype.int64)
    if isinstance(obj, (str, bytes)):   # torch builds an index tensor from it, and its constructor refuses
        raise TypeError(f"new(): invalid data type '{type(obj).__name__}'")
    raise IndexError(f"{_INDEX_TYPES} (got {type(obj).__module__ + '.' if type(obj).__module__ != 'builtins' else ''}"
                     f"{type(obj).__name__})")


# Basic indexing records one view op per int, slice and None, as torch does. On a lean tensor (see
# _lean) a walk runs each op's forward on the arrays alone and makes the tensors afterwards (_views) with
# the glue's own steps, rather than calling each op's entry point: its generality (argument checks,
# promotion, hooks) costs more than the view itself.
_ndarray = np.ndarray
_make = Tensor._make


def _lean(t):
    """Whether views of t may skip the op glue: t is a plain tensor on NumPy memory, without math bits,
    not an inference tensor, and no hook the glue consults is set (profiler, dispatch modes, autocast,
    vmap, forward AD, inference mode, torch function modes), so that `call` would do only what
    _views does."""
    return ((type(t) is Tensor or type(t) in PLAIN_TYPES) and type(t._array) is _ndarray and not t._math_bits
            and not t._inference and not grad_state.inference and _registry.ops_unobserved())


def _step(spec, glue_call, steps, t, a, rest):
    """View op `spec` applied to t (whose array is a) with the arguments after it `rest`: on a lean walk
    (`steps` a list) to the array alone, the step kept for _views; else through `glue_call` now.
    Returns the new (t, a)."""
    if steps is None:
        t = glue_call(t, *rest)
        return t, t._array
    a = spec.kernel(a, *rest)
    steps.append((spec, rest, a))
    return t, a


def _views(t, steps):
    """The tensor of a lean walk's `steps` (spec, arguments after the tensor, forward's array) from t, made
    as the op glue makes a view op's output: a view of t's base (make_views), recorded when t needs grad."""
    if (t._requires_grad or t._base is not None and t._base._requires_grad) and grad_state.enabled:
        for spec, rest, a in steps:   # a node per step, each on its own intermediate tensor
            args = (t,) + rest
            t = _make(a, False, None, 0)
            record.make_views(spec, args, (t,), _registry.call)
            record.record(spec, args, (t,))
        return t
    # without grad, no intermediate tensor is needed: make_views reads only the view history of its input
    # (base, view function, creation mode), which the result carries once the step before is made
    out = _make(steps[-1][2], False, None, 0)
    for spec, rest, _ in steps:
        record.make_views(spec, (t,) + rest, (out,), _registry.call)
        t = out
    return out


def _unsqueeze_method(t, dim):   # (off the lean path, as a user calls it: torch function handlers see it)
    return t.unsqueeze(dim)


def _walk(t, index):
    """Apply the basic entries of tuple `index` to t as views; returns (view, index list for `index`)."""
    a = t._array
    ndim = a.ndim
    specified = 0
    for obj in index:
        k = type(obj)
        if k is int or k is slice:
            specified += 1
        elif obj is not None and obj is not Ellipsis:
            specified += _dims_taken(obj)
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    steps = [] if _lean(t) else None
    dim, indices, covered = 0, [], 0   # covered: the dims up to which `indices` has entries
    for real_dim, obj in enumerate(index):
        k = type(obj)
        if k is not int and k is not slice and obj is not None and obj is not Ellipsis:
            if not (_is_int(obj) or k is bool):
                obj = _index_tensor(obj)
                d = obj._array
                if d.ndim == 0 and d.dtype.kind in "biu":   # indexes like an int (a bool for bool and byte)
                    obj = bool(d) if d.dtype == np.bool_ or d.dtype == np.uint8 else int(d)
            k = int if _is_int(obj) else type(obj)
        if k is int:
            size = a.shape[dim]
            if not -size <= obj < size:
                raise IndexError(f"index {obj} is out of bounds for dimension {real_dim} with size {size}")
            t, a = _step(_select.spec, _select, steps, t, a, (dim, obj % size))
        elif k is slice:
            size = a.shape[dim]
            start, end, step = _slice_bounds(obj, size)
            # torch skips a slice given as starting at 0 (unwrapped: x[-n:] is recorded) up to the end
            if (start, end, step) != (0, size, 1) or obj.start is not None and obj.start != 0 \
                    or obj.stop is not None and obj.stop < 0:
                t, a = _step(_slice.spec, _slice, steps, t, a, (dim, start, end, step))
            dim += 1
        elif obj is Ellipsis:
            dim += ndim - specified
        elif obj is None:
            t, a = _step(_unsqueeze.spec, _unsqueeze_method, steps, t, a, (dim,))
            dim += 1
        else:
            if k is bool:   # a new dim of size 1, taken (True) or not (False)
                t, a = _step(_unsqueeze.spec, _unsqueeze_method, steps, t, a, (dim,))
                obj = tensor([0] if obj else [], dtype=_dtype.int64)
            indices.extend([None] * (dim - covered))
            indices.append(obj)
            covered = dim + (obj._array.ndim if obj._array.dtype in (np.bool_, np.uint8) else 1)
            dim = covered
    if steps:
        t = _views(t, steps)
    return t, indices


@register(name="_index_get")
def _index_get(self, index):
    """self[index]: torch's view chain for basic entries, then one `index` op for tensor entries."""
    k = type(index)
    if k is int or k is slice or k is not tuple and _is_int(index):
        shape = self._array.shape
        if not shape:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                             "in C++ to convert a 0-dim tensor to a number")
        if k is slice:   # a lone slice is always recorded, even a full one
            spec, glue_call, rest = _slice.spec, _slice, (0, *_slice_bounds(index, shape[0]))
        elif -shape[0] <= index < shape[0]:
            spec, glue_call, rest = _select.spec, _select, (0, index % shape[0])
        else:
            raise IndexError(f"index {index} is out of bounds for dimension 0 with size {shape[0]}")
        if not _lean(self):
            return glue_call(self, *rest)
        return _views(self, [(spec, rest, spec.kernel(self._array, *rest))])
    if k is Tensor and index._array.ndim and _dims_taken(index) <= self._array.ndim:
        return _index(self, [index])   # a lone index tensor: the index list _walk would make, without the walk
    result, indices = _walk(self, _as_tuple(index))
    if indices:
        return _index(result, indices)
    return _alias(result) if result is self else result


@register(name="_index_set")
def _index_set(self, index, value):
    """self[index] = value: the same views, then copy_ into them (basic) or index_put_ (advanced)."""
    if not isinstance(value, Tensor):
        if not isinstance(value, (bool, int, float, complex, np.number, np.bool_)):
            raise TypeError(f"can't assign a {type(value).__name__} to a "
                            f"torch.{_dtype.type_word(self._array.dtype)}Tensor")
        value = tensor(value, dtype=self.dtype)
        if type(value._array) is not type(self._array):   # made on NumPy: onto the backend of the data it is written to
            value._array = namespace(self._array).asarray(value._array)
    target, indices = _walk(self, _as_tuple(index))
    shape = value._array.shape
    stripped = shape[next((i for i, n in enumerate(shape) if n != 1), len(shape)):]   # torch drops leading 1s
    if indices:
        _registry.call_inplace(_index_put.spec, (target, indices, value.view(stripped) if stripped != shape else value,
                                                 False))
    elif shape == target._array.shape:
        target.copy_(value)
    elif not shape:
        target.fill_(value)
    else:
        value = value.view(stripped)
        target.copy_(value if stripped == target._array.shape else value.expand(target._array.shape))


# ---- index_select, index_add, index_reduce, index_copy, index_fill ---------------------------
@op("index_select", public=False)
def _index_select(input, dim, index):
    out = np.take(_as_1d(input)[0], index.reshape(-1), axis=dim)
    return out.reshape(()) if input.ndim == 0 else out


_index_select_args = Parser("index_select(Tensor input, int dim, Tensor index)")


@register(method=True)
@_index_select_args.signature
def index_select(*args, **kwargs):
    _, (input, dim, index) = _index_select_args.parse(args, kwargs)
    shape = input._array.shape
    dim = _wrap_dim(dim, len(shape))
    if index._array.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index._array.dtype not in (np.int64, np.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    _check_in_range(index, shape[dim] if shape else 1)
    return _index_select(input, dim, index)


@op("index_add", public=False)
def _index_add(input, dim, index, source, *, alpha=1):
    if alpha != 1:
        source = (source * alpha).astype(input.dtype, copy=False)
    if dim == 0 and input.ndim and type(input) is np.ndarray and input.dtype == source.dtype and index.ndim == 1:
        # rows added in index order (np.add.at's order and bits) by the compiled scatter, where numba is installed
        rows, d = np.array(input, order="C"), math.prod(input.shape[1:])
        if _fused.scatter_add_rows(index, source.reshape(len(index), d), rows.shape[0],
                                   rows.reshape(rows.shape[0], d)) is not None:
            return rows
    out, index, source = _as_1d(input.copy(), index, source)
    _scatter_add(out, _dim_key(dim, index), source)
    return out.reshape(input.shape)


def _check_index_source(what, input, dim, index, source):
    """The checks index_add and index_reduce share: one source slice per entry of a vector index."""
    shape, src_shape = input._array.shape, source._array.shape
    if index._array.ndim > 1:
        raise IndexError(f"{what}(): Index is supposed to be a vector, but got dim: {index._array.ndim} with type: "
                         f"{_word(index._array.dtype)} and size: {_shape_str(index._array.shape)}")
    if index._array.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{what}(): Expected dtype int32/int64 for index but got: {_word(index._array.dtype)}")
    if source._array.dtype != input._array.dtype:
        raise RuntimeError(f"{what}(): self ({_word(input._array.dtype)}) and source "
                           f"({_word(source._array.dtype)}) must have the same scalar type")
    size = src_shape[dim] if src_shape else 1
    if size != index._array.size:
        raise RuntimeError(f"{what}(): Number of indices ({index._array.size}) should be equal to "
                           f"source.size(dim): ({size}), for dim: {dim}")
    if len(shape) != len(src_shape) or any(a != b for d, (a, b) in enumerate(zip(shape, src_shape)) if d != dim):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {_shape_str(shape)} source.shape = {_shape_str(src_shape)}")


@_public(Parser("index_add(Tensor input, int dim, Tensor index, Tensor source, *, Scalar alpha=1)"),
         Parser("index_add_(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1)").method())
def index_add(which, input, dim, index, source, alpha):
    dim = _wrap_dim(dim, input._array.ndim)
    _check_index_source("index_add_", input, dim, index, source)
    _check_bounds(index._array, input._array.shape[dim] if input._array.ndim else 1, dim)
    return _index_add, (input, dim, index, source, alpha)


@op("index_reduce", public=False)
def _index_reduce(input, dim, index, source, reduce, *, include_self=True):
    out, index, source = _as_1d(input.copy(), index, source)
    _reduce_into(out, _dim_key(dim, index), source, reduce, include_self)
    return out.reshape(input.shape)


@_public(Parser("index_reduce(Tensor input, int dim, Tensor index, Tensor source, str reduce, *, "
                "bool include_self=True)"),
         Parser("index_reduce_(Tensor self, int dim, Tensor index, Tensor source, str reduce, *, "
                "bool include_self=True)").method())
def index_reduce(which, input, dim, index, source, reduce, include_self):
    warnings.warn("index_reduce() is in beta and the API may change at any time.", UserWarning, stacklevel=3)
    dim = _wrap_dim(dim, input._array.ndim)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    _check_index_source("index_reduce_", input, dim, index, source)
    _check_in_range(index, input._array.shape[dim] if input._array.ndim else 1)
    return _index_reduce, (input, dim, index, source, reduce, include_self)


@op("index_copy", public=False)
def _index_copy(input, dim, index, source):
    out, index, source = _as_1d(input.copy(), index, source)
    out[_dim_key(dim, index)] = source
    return out.reshape(input.shape)


@_public(Parser("index_copy(Tensor input, int dim, Tensor index, Tensor source)"),
         Parser("index_copy_(Tensor self, int dim, Tensor index, Tensor source)").method())
@autocast_as("index_copy")
def index_copy(which, input, dim, index, source):
    shape, src_shape = input._array.shape, source._array.shape
    dim = _wrap_dim(dim, len(shape))
    if index._array.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index._array.ndim})")
    if index._array.dtype != np.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_word(index._array.dtype)}")
    if source._array.dtype != input._array.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_word(input._array.dtype)} and (source) {_word(source._array.dtype)}")
    if shape and src_shape and len(shape) != len(src_shape):
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({len(src_shape)}), destination dimensionality ({len(shape)})")
    size = src_shape[dim] if src_shape else 1
    if size != index._array.size:
        raise IndexError(f"index_copy_(): Number of indices ({index._array.size}) should be equal to "
                         f"source.size(dim) ({size})")
    dst_slice, src_slice = shape[:dim] + shape[dim + 1:], src_shape[:dim] + src_shape[dim + 1:]
    for j, (a, b) in enumerate(zip(dst_slice, src_slice)):
        if a != b:
            raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                               f"slice shape: {a} at dimension {j} and source slice shape: {b} at dimension {j}.")
    _check_bounds(index._array, shape[dim] if shape else 1, dim, IndexError, "index_copy_(): ")
    return _index_copy, (input, dim, index, source)


def _index_fill_forward(input, dim, index, value):
    out, index = _as_1d(input.copy(), index)
    out[_dim_key(dim, index)] = value   # NumPy casts the 0-dim value to out's dtype
    return out.reshape(input.shape)


_index_fill_scalar = op("index_fill.int_Scalar", public=False)(_index_fill_forward)
_index_fill_tensor = op("index_fill.int_Tensor", public=False)(_index_fill_forward)


_index_fill_args = Parser("index_fill(Tensor input, int dim, Tensor index, Tensor value)",
                          "index_fill(Tensor input, int dim, Tensor index, Scalar value)")
_index_fill__args = Parser("index_fill_(Tensor self, int dim, Tensor index, Tensor value)",
                           "index_fill_(Tensor self, int dim, Tensor index, Scalar value)").method()


@_public(_index_fill_args, _index_fill__args)
def index_fill(which, input, dim, index, value):
    shape = input._array.shape
    dim = _wrap_dim(dim, len(shape))
    if index._array.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if index._array.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    _check_bounds(index._array, shape[dim] if shape else 1, dim, IndexError, wrap=True)
    if which == 0:
        if value._array.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._array.ndim} dimension(s).")
        return _index_fill_tensor, (input, dim, index, value)
    return _index_fill_scalar, (input, dim, index, _scalar(value, input._array.dtype))


# ---- gather, scatter, scatter_add, scatter_reduce, take_along_dim ----------------------------
def _crop(src, index):
    """The corner of src that index covers, as a view (so src's gradient has src's shape; torch's
    backward fails when src is larger than index)."""
    shape = index._array.shape
    return src if src._array.shape == shape or not shape else src[tuple(slice(0, n) for n in shape)]


def _check_gather_scatter(what, input, dim, index, src=None):
    shape, ishape = input._array.shape, index._array.shape
    if not index._array.size:   # torch checks nothing for an empty index (not even its dtype)
        return
    if index._array.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{what}(): Expected dtype int32/int64 for index")
    if max(len(ishape), 1) != max(len(shape), 1):
        raise RuntimeError(f"Index tensor must have the same number of dimensions as "
                           f"{'input' if what == 'gather' else 'self'} tensor")
    if src is not None and max(len(ishape), 1) != max(src._array.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    too_big = [d for d, (i, s) in enumerate(zip(ishape, shape)) if d != dim and i > s]
    if what == "gather" and too_big:
        raise RuntimeError(f"Size does not match at dimension {too_big[0]} expected index {_shape_str(ishape)} to be "
                           f"no larger than self {_shape_str(shape)} apart from dimension {dim}")
    if too_big or src is not None and any(i > s for i, s in zip(ishape, src._array.shape)):
        raise RuntimeError(f"Expected index {_shape_str(ishape)} to be no larger than self {_shape_str(shape)} apart "
                           f"from dimension {dim}" + (f" and to be no larger size than src "
                                                      f"{_shape_str(src._array.shape)}" if src is not None else ""))
    _check_bounds(index._array, shape[dim] if shape else 1, dim)


@op("gather", public=False)
def _gather(input, dim, index, sparse_grad=False):   # sparse_grad: for the backward (derivatives.yaml)
    if not index.size:   # any shape goes (torch does not check an empty index against the input)
        return np.zeros(index.shape, input.dtype)
    a, i = _as_1d(input, index)
    return a[_along(dim, i)].reshape(index.shape)


_gather_args = Parser("gather(Tensor input, int dim, Tensor index, *, bool sparse_grad=False)")


@register(method=True)
@_gather_args.signature
def gather(*args, **kwargs):
    _, (input, dim, index, sparse_grad) = _gather_args.parse(args, kwargs)
    dim = _wrap_dim(dim, input._array.ndim)
    _check_gather_scatter("gather", input, dim, index)
    return _gather(input, dim, index, sparse_grad)


def _scatter_forward(input, dim, index, src):
    out, index = _as_1d(input.copy(), index)
    out[_along(dim, index)] = src
    return out.reshape(input.shape)


def _scatter_reduce_forward(input, dim, index, src, reduce):
    out, index = _as_1d(input.copy(), index)
    _reduce_into(out, _along(dim, index), src, "sum" if reduce == "add" else "prod")
    return out.reshape(input.shape)


_scatter_src = op("scatter.src", public=False)(_scatter_forward)
_scatter_value = op("scatter.value", public=False)(_scatter_forward)
# torch has no derivative for the reduce forms: their nodes raise in backward, naming the in-place op
# (scatter_) where that ran, hence in-place ops of their own
_scatter_reduce_src = op("scatter.reduce", public=False)(_scatter_reduce_forward)
_scatter_reduce_value = op("scatter.value_reduce", public=False)(_scatter_reduce_forward)
_scatter_reduce_src_ = op("scatter_.reduce", public=False)(_scatter_reduce_forward)
_scatter_reduce_value_ = op("scatter_.value_reduce", public=False)(_scatter_reduce_forward)


_scatter_args = Parser("scatter(Tensor input, int dim, Tensor index, Tensor src, *, Tensor? out=None)",
                       "scatter(Tensor input, int dim, Tensor index, Tensor src, *, str reduce, Tensor? out=None)",
                       "scatter(Tensor input, int dim, Tensor index, Scalar value, *, Tensor? out=None)",
                       "scatter(Tensor input, int dim, Tensor index, Scalar value, *, str reduce, Tensor? out=None)")
_scatter__args = Parser("scatter_(Tensor self, int dim, Tensor index, Tensor src)",
                        "scatter_(Tensor self, int dim, Tensor index, Tensor src, *, str reduce)",
                        "scatter_(Tensor self, int dim, Tensor index, Scalar value)",
                        "scatter_(Tensor self, int dim, Tensor index, Scalar value, *, str reduce)").method()
# (src, value) x (no reduce, reduce): the ops of the overloads, in their order
_SCATTER = (_scatter_src, _scatter_reduce_src, _scatter_value, _scatter_reduce_value)
_SCATTER_ = (_scatter_src, _scatter_reduce_src_, _scatter_value, _scatter_reduce_value_)


@register(method=True)
@_scatter_args.signature
def scatter(*args, **kwargs):
    which, (*values, out) = _scatter_args.parse(args, kwargs)
    _check_out("scatter", out)
    return _registry.call(_SCATTER[which].spec, _scatter_values(which, *values))


@_registry.method("scatter_")
def scatter_(self, *args, **kwargs):
    which, values = _scatter__args.parse(args, kwargs)
    return _registry.call_inplace(_SCATTER_[which].spec, _scatter_values(which, self, *values))


def _scatter_values(which, input, dim, index, src, reduce=None):
    """The checked arguments of the scatter op of overload `which`."""
    dim = _wrap_dim(dim, input._array.ndim)
    is_tensor = which < 2
    if is_tensor and src._array.dtype != input._array.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    _check_gather_scatter("scatter", input, dim, index, src if is_tensor else None)
    src = _crop(src, index) if is_tensor else _scalar(src, input._array.dtype)
    if reduce is None:
        return input, dim, index, src
    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if is_tensor and not _scatter_reduce_warned:   # once per process, as torch's
        _scatter_reduce_warned.append(True)
        warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
                      "future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
                      UserWarning, stacklevel=_user_stacklevel())
    return input, dim, index, src, reduce


_scatter_reduce_warned = []


@op("scatter_add", public=False)
def _scatter_add_op(input, dim, index, src):
    if not index.size:   # nothing written (an empty index is not checked against the input, as in gather)
        return input.copy()
    out, index, src = _as_1d(input.copy(), index, src)
    _scatter_add(out, _along(dim, index), src)
    return out.reshape(input.shape)


@_public(Parser("scatter_add(Tensor input, int dim, Tensor index, Tensor src)"),
         Parser("scatter_add_(Tensor self, int dim, Tensor index, Tensor src)").method())
def scatter_add(which, input, dim, index, src):
    dim = _wrap_dim(dim, input._array.ndim)
    if src._array.dtype != input._array.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    _check_gather_scatter("scatter", input, dim, index, src)
    return _scatter_add_op, (input, dim, index, _crop(src, index))


@op("scatter_reduce.two", public=False)
def _scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    out, index, src = _as_1d(input.copy(), index, src)
    _reduce_into(out, _along(dim, index), src, reduce, include_self)
    return out.reshape(input.shape)


@_public(Parser("scatter_reduce(Tensor input, int dim, Tensor index, Tensor src, str reduce, *, "
                "bool include_self=True)"),
         Parser("scatter_reduce_(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, "
                "bool include_self=True)").method())
def scatter_reduce(which, input, dim, index, src, reduce, include_self):
    dim = _wrap_dim(dim, input._array.ndim)
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if src._array.dtype != input._array.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    _check_gather_scatter("scatter", input, dim, index, src)
    return _scatter_reduce, (input, dim, index, _crop(src, index), reduce, include_self)


@register(method=True)
def take_along_dim(input, indices, dim=None):
    if indices._array.dtype != np.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_word(indices._array.dtype)}")
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    shape, ishape = input._array.shape, indices._array.shape
    if len(shape) != len(ishape):
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {len(shape)} dimensions for input, and {len(ishape)} dimensions for indices")
    dim = _wrap_dim(dim, len(shape))
    if (indices._array < 0).any():   # along a dim, torch counts negative indices from the end (not without dim)
        indices = tensor(np.where(indices._array < 0, indices._array + shape[dim], indices._array))
    # broadcast every dim but `dim` (torch expands both, recording the expand even when it is a no-op)
    common = list(_broadcast_shape(shape[:dim] + (1,) + shape[dim + 1:], ishape[:dim] + (1,) + ishape[dim + 1:]))
    input = input.expand(common[:dim] + [shape[dim]] + common[dim + 1:])
    indices = indices.expand(common[:dim] + [ishape[dim]] + common[dim + 1:])
    return gather(input, dim, indices)


# ---- masked_fill, masked_select, masked_scatter ----------------------------------------------
def _check_mask(mask, what):
    if mask._array.dtype != np.bool_:   # masked_fill names the C type, masked_scatter torch's
        kind = _dtype.from_numpy_dtype(mask._array.dtype)
        raise RuntimeError(f"{what} only supports boolean masks, but got mask with dtype "
                           f"{_c_type(kind) if what == 'masked_fill_' else kind.title}")


def _masked_fill_forward(input, mask, value):
    value = value.astype(input.dtype, copy=False)
    out = _fused.masked_fill(input, mask, value)   # (an attention mask: one compiled pass)
    return out if out is not None else _branchless_where(mask, value, input)


_masked_fill_scalar = op("masked_fill.Scalar", public=False)(_masked_fill_forward)
_masked_fill_tensor = op("masked_fill.Tensor", public=False)(_masked_fill_forward)


_masked_fill_args = Parser("masked_fill(Tensor input, Tensor mask, Tensor value)",
                           "masked_fill(Tensor input, Tensor mask, Scalar value)")
_masked_fill__args = Parser("masked_fill_(Tensor self, Tensor mask, Tensor value)",
                            "masked_fill_(Tensor self, Tensor mask, Scalar value)").method()


@_public(_masked_fill_args, _masked_fill__args)
def masked_fill(which, input, mask, value):
    _check_mask(mask, "masked_fill_")
    _broadcast_shape(mask._array.shape, input._array.shape)
    if which == 0:
        if value._array.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._array.ndim} dimension(s).")
        return _masked_fill_tensor, (input, mask, value)
    return _masked_fill_scalar, (input, mask, _scalar(value, input._array.dtype))


@op("masked_select", public=False)
def _masked_select(input, mask):
    shape = np.broadcast_shapes(input.shape, mask.shape)
    return np.broadcast_to(input, shape)[np.broadcast_to(mask, shape)]


@register(method=True)
def masked_select(input, mask):
    if mask._array.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    _broadcast_shape(mask._array.shape, input._array.shape)
    return _masked_select(input, mask)


@op("masked_scatter", public=False)
def _masked_scatter(input, mask, source):
    shape = np.broadcast_shapes(input.shape, mask.shape)
    out = np.broadcast_to(input, shape).copy()
    mask = np.broadcast_to(mask, shape)
    n = np.count_nonzero(mask)
    if source.size < n:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    out[mask] = source.reshape(-1)[:n]
    return out


@op("masked_scatter_backward", public=False)
def _masked_scatter_backward(grad_output, mask, sizes):
    """source's gradient: the masked entries of grad_output, in order, then zeros, in source's shape."""
    picked = grad_output[np.broadcast_to(mask, grad_output.shape)]
    out = np.zeros(int(np.prod(sizes)), dtype=grad_output.dtype)
    out[:picked.size] = picked
    return out.reshape(sizes)


@_public(Parser("masked_scatter(Tensor input, Tensor mask, Tensor source)"),
         Parser("masked_scatter_(Tensor self, Tensor mask, Tensor source)").method())
def masked_scatter(which, input, mask, source):
    _check_mask(mask, "masked_scatter_")
    if source._array.dtype != input._array.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{_word(input._array.dtype)} and {_word(source._array.dtype)}")
    _broadcast_shape(mask._array.shape, input._array.shape)
    return _masked_scatter, (input, mask, source)


# ---- take and put ----------------------------------------------------------------------------
def _check_flat_index(index, numel, what):
    if index._array.dtype != np.int64:
        raise RuntimeError(f"{what}: Expected a long tensor for index, but got {_word(index._array.dtype)}")
    a = index._array
    if a.size:
        bad = (a < -numel) | (a >= numel)
        if bad.any():
            raise IndexError(f"out of range: tried to access index {a[bad].flat[0]} on a tensor of {numel} elements.")


@op("take", public=False)
def _take(input, index):
    return np.take(input, index)


@register(method=True)
def take(input, index):
    _check_flat_index(index, input._array.size, "take()")
    return _take(input, index)


@op("put", public=False)
def _put(input, index, source, accumulate=False):
    out = input.copy()
    flat = out.reshape(-1)   # a view: out is contiguous
    if accumulate:
        _scatter_add(flat, index.reshape(-1), source.reshape(-1))
    else:
        flat[index.reshape(-1)] = source.reshape(-1)
    return out


@_public(Parser("put(Tensor input, Tensor index, Tensor source, bool accumulate=False)"),
         Parser("put_(Tensor self, Tensor index, Tensor source, bool accumulate=False)").method())
def put(which, input, index, source, accumulate):
    _check_flat_index(index, input._array.size, "put_()")
    if source._array.dtype != input._array.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_word(input._array.dtype)} and source.dtype = {_word(source._array.dtype)}")
    if source._array.size != index._array.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source._array.size}, index.numel() = {index._array.size}")
    return _put, (input, index, source, accumulate)


# ---- nonzero (integer results: no gradient) --------------------------------------------------
@op("nonzero", public=False)
def _nonzero(input):
    return np.argwhere(input)


@op("nonzero_numpy", public=False)
def _nonzero_tuple(input):
    return tuple(np.nonzero(np.atleast_1d(input)))


@register(method=True)
def nonzero(input, *, as_tuple=False):
    return _nonzero_tuple(input) if as_tuple else _nonzero(input)


@register(method=True)
def argwhere(input):
    return _nonzero(input)


def _storage(a):
    """The array that owns a's memory (torch's storage of a's tensor)."""
    while is_array(a.base):
        a = a.base
    return a


def _storage_offset(a):
    """a's first element's position in its storage, in bytes."""
    return a.__array_interface__["data"][0] - _storage(a).__array_interface__["data"][0]


@op("slice_inverse", public=False, view=True)
def _slice_inverse(input, src, dim, start, end, step):
    """input's memory seen with src's size, stride and offset: for input a slice of src, src's memory."""
    # src's geometry in elements, read in input's dtype (torch: input.as_strided(src's sizes, strides, offset))
    storage, item = _storage(input), input.itemsize
    strides = tuple(s // src.itemsize * item for s in src.strides)
    offset = _storage_offset(src) // src.itemsize * item
    needed = offset + item * (1 + sum((n - 1) * s // item for n, s in zip(src.shape, strides))) \
        if src.size else 0
    if needed > storage.nbytes or not storage.flags.c_contiguous:
        raise RuntimeError(f"setStorage: sizes {_shape_str(src.shape)}, strides "
                           f"{_shape_str(s // item for s in strides)}, storage offset {offset // item}, and "
                           f"itemsize {item} requiring a storage size of {needed} are out of bounds for storage of "
                           f"size {storage.nbytes}")
    flat = storage.reshape(-1).view(input.dtype)[offset // item:]
    return np.lib.stride_tricks.as_strided(flat, src.shape, strides)


@register(method=True)
def slice_inverse(input, src, dim=0, start=None, end=None, step=1):
    """The inverse of slicing: a tensor of `src`'s shape (a view of `src`) whose slice
    ``[start:end:step]`` along `dim` is `input`, which must have the shape of that slice.

    Args:
        input (Tensor): the slice.
        src (Tensor): the tensor it was sliced from.
        dim (int): the sliced dimension. Default: ``0``.
        start (int, optional): the start of the slice.
        end (int, optional): the end of the slice.
        step (int): the step of the slice. Default: ``1``.

    Returns:
        Tensor: a view of `src`.

    Example::

        >>> src = torch.arange(4.0)
        >>> torch.slice_inverse(src[1:3], src, 0, 1, 3).shape
        torch.Size([4])
    """
    dim = _wrap_dim(dim, src.ndim)
    start, end, step = _slice_bounds(slice(start, end, step), src.shape[dim] if src.ndim else 1)
    return _slice_inverse(input, src, dim, start, end, step)


aten.slice_inverse = slice_inverse
aten.slice.Tensor = _slice   # torch.ops.aten.slice.Tensor: a recorded slice even over the whole dim


# ---- repeat_interleave; sorted-sequence lookups and membership (no gradient) --------------------
@register(method=True)
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """repeat_interleave(input, repeats, dim=None, *, output_size=None) -> Tensor
    repeat_interleave(repeats, *, output_size=None) -> Tensor

    Repeats each element of `input` (each slice along `dim`) `repeats` times, keeping repeats together.
    With a tensor of counts alone, each index ``i`` repeated ``repeats[i]`` times.

    Args:
        input (Tensor): the input (flattened when `dim` is not given).
        repeats (int or Tensor): the number of repeats, one for all or one per element.
        dim (int, optional): the dimension to repeat along.
        output_size (int, optional): the total length along `dim`, if known.

    Returns:
        Tensor: the repeated tensor.

    Example::

        >>> torch.repeat_interleave(torch.tensor([1, 2]), 2)
        tensor([1, 1, 2, 2])
        >>> torch.repeat_interleave(torch.tensor([[1, 2], [3, 4]]), torch.tensor([1, 2]), dim=0)
        tensor([[1, 2],
                [3, 4],
                [3, 4]])
        >>> torch.repeat_interleave(torch.tensor([2, 0, 1]))
        tensor([0, 0, 2])
    """
    if repeats is None:   # repeat_interleave(repeats): arange(len) repeated by the counts
        counts = input._array
        if counts.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        return tensor(np.repeat(np.arange(counts.shape[0]), counts).astype(counts.dtype))
    if dim is None:
        input, dim = input.reshape(-1), 0
    dim = _wrap_dim(dim, max(input.ndim, 1))
    if input.ndim == 0:
        input = input.reshape(1)
    counts = repeats._array if isinstance(repeats, Tensor) else np.asarray(repeats)
    if counts.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    n = input.shape[dim]
    if counts.ndim == 1 and counts.shape[0] not in (1, n):
        raise RuntimeError("repeats must have the same size as input along dim")
    index = np.repeat(np.arange(n), np.broadcast_to(counts, (n,)))
    if output_size is not None and index.shape[0] != output_size:
        raise RuntimeError("allocated size does not match required size")
    return index_select(input, dim, tensor(index.astype(np.int64)))


def _sorted_lookup(name, boundaries, values, out_int32, right, side, sorter):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"{name}(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError(f"{name}(): side and right can't be set to opposites, got side of left while right "
                               f"was True")
        right = side == "right"
    how = "right" if right else "left"
    if sorter is not None:
        boundaries = np.take_along_axis(boundaries, sorter, -1)
    if boundaries.ndim <= 1:
        out = np.searchsorted(boundaries, values, side=how)
    else:
        if boundaries.shape[:-1] != values.shape[:-1]:
            raise RuntimeError(f"{name}(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                               f"boundaries tensor and input value tensor must match, but we got boundaries tensor "
                               f"{list(boundaries.shape)} and input value tensor {list(values.shape)}")
        b2, v2 = boundaries.reshape(-1, boundaries.shape[-1]), values.reshape(-1, values.shape[-1])
        out = np.stack([np.searchsorted(b, v, side=how) for b, v in zip(b2, v2)]).reshape(values.shape)
    return np.asarray(out, dtype=np.int32 if out_int32 else np.int64)


@op("searchsorted", public=False)
def _searchsorted(sorted_sequence, input, out_int32, right, side, sorter):
    return _sorted_lookup("searchsorted", sorted_sequence, input, out_int32, right, side, sorter)


@register()
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """For each value of `input`, the index at which it would be inserted into `sorted_sequence` (into the
    matching row of its last dimension) to keep it sorted.

    Args:
        sorted_sequence (Tensor): increasing values along the last dimension.
        input (Tensor or Number): the values to look up.
        out_int32 (bool): return int32 indices (else int64). Default: ``False``.
        right (bool): after equal values (else before them). Default: ``False``.
        side (str, optional): ``'left'`` or ``'right'``, the same as `right`.
        sorter (LongTensor, optional): the indices that sort an unsorted `sorted_sequence`.

    Returns:
        Tensor: the insertion indices.

    Example::

        >>> s = torch.tensor([1, 3, 5, 7])
        >>> torch.searchsorted(s, torch.tensor([3, 6]))
        tensor([1, 3])
        >>> torch.searchsorted(s, torch.tensor([3, 6]), right=True)
        tensor([2, 3])
    """
    if not isinstance(input, Tensor):
        input = tensor(input, dtype=sorted_sequence.dtype)
    return _searchsorted(sorted_sequence, input, out_int32, right, side, sorter)


@op("bucketize", public=False)
def _bucketize(input, boundaries, out_int32, right):
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return _sorted_lookup("bucketize", boundaries, input, out_int32, right, None, None)


@register(method=False)
def bucketize(input, boundaries, *, out_int32=False, right=False):
    if not isinstance(input, Tensor):
        input = tensor(input, dtype=boundaries.dtype)
    return _bucketize(input, boundaries, out_int32, right)


@op("isin", public=False)
def _isin(elements, test_elements, assume_unique, invert):
    return np.isin(elements, test_elements, invert=invert)


@register()
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element of `elements` occurs in `test_elements`.

    Args:
        elements (Tensor or Number): the values to look up.
        test_elements (Tensor or Number): the values to look in.
        assume_unique (bool): both hold distinct values (a hint). Default: ``False``.
        invert (bool): answer "is not in" instead. Default: ``False``.

    Returns:
        Tensor: a boolean tensor of `elements`' shape.

    Example::

        >>> torch.isin(torch.tensor([[1, 2], [3, 4]]), torch.tensor([2, 3]))
        tensor([[False,  True],
                [ True, False]])
        >>> torch.isin(torch.tensor([1, 2]), 2, invert=True)
        tensor([ True, False])
    """
    if not isinstance(elements, Tensor):
        elements = tensor(elements)
    if not isinstance(test_elements, Tensor):
        test_elements = tensor(test_elements)
    return _isin(elements, test_elements, assume_unique, invert)


# ---- api: unravel_index, nonzero_static
@register()
def unravel_index(indices, shape):
    """The coordinates, in a tensor of `shape`, of the elements at the given flat indices (row-major);
    a negative index counts from the end.

    Args:
        indices (Tensor): integer flat indices.
        shape (int or sequence of int): the shape.

    Returns:
        tuple of Tensor: one tensor of coordinates per dimension of `shape`.

    Example::

        >>> torch.unravel_index(torch.tensor([4, 7]), (2, 4))
        (tensor([1, 1]), tensor([0, 3]))
    """
    if not indices.dtype.is_floating_point and not indices.is_complex() and indices.dtype is not _dtype.bool_:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        flat, coords = indices._array.astype(np.int64), []
        for size in reversed(shape):
            coords.append(tensor(np.mod(flat, size)))
            flat = np.floor_divide(flat, size)
        return tuple(reversed(coords))
    raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")


@register(method=True)
def nonzero_static(input, *, size, fill_value=-1):
    """The indices of the non-zero elements of `input`, as :func:`ndgrad.nonzero` gives them, but with
    exactly `size` rows: cut, or padded with `fill_value`.

    Args:
        input (Tensor): the input.
        size (int): the number of rows of the result.
        fill_value (int): the value of the padding rows. Default: ``-1``.

    Returns:
        LongTensor: the indices, (size, input.dim()).

    Example::

        >>> torch.nonzero_static(torch.tensor([0, 3, 0, 5]), size=3)
        tensor([[ 1],
                [ 3],
                [-1]])
    """
    found = np.argwhere(np.asarray(input._array))
    out = np.full((size, input.ndim), fill_value, dtype=np.int64)
    out[:min(size, len(found))] = found[:size]
    return tensor(out)
