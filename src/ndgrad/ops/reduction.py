"""Reductions: sum, mean, prod, max/min, median, mode, kthvalue, var/std, logsumexp, norms, cumulative
ops, and the reductions without a gradient (argmax/argmin, all/any, count_nonzero).
Also here: sorting (sort, msort, argsort, topk) and the unique family (_unique, _unique2, unique_dim,
unique_consecutive), which torch records without a derivative.

Forwards parse torch's argument forms themselves (dim as an int, a sequence, None or () for
every dim, negative dims) and raise torch's errors, so most ops are registered directly. Public
functions exist only where torch picks among overloads (`x.sum()` vs `x.sum(dim)`, the three
`max` forms, var's `unbiased`/`correction`) or returns a named tuple; the overloads are torch's
schema strings, resolved by one `Parser` per op (ops/_schema.py). torch.norm is a Python function
in torch too, and keeps its own reading of `p`.
"""
import builtins
import collections
import functools
import math
import operator
import sys
import types
import warnings

import numpy as np

from ..backends import namespace

from . import _registry
from ._registry import autocast_as, op, register
from ._schema import Parser
from .._dtype import bool_, defaults as _default_dtypes, type_word as _type_word
from .._sparse_array import SparseArray, unsupported
from .._tensor import Tensor, _wrap_dim
from ..autograd.forward_ad import tangent_of
from ..autograd.grad_mode import no_grad


# torch.ops.aten: a namespace shared by the op modules that need one (created by the first)
_pkg = sys.modules[__package__]
aten = getattr(_pkg, "aten", None) or types.SimpleNamespace()
_pkg.aten = aten


# ---- argument forms and checks ------------------------------------------------------------
def _dims(ndim, dim):
    """`dim` (int, sequence, or None / () for every dim) as a tuple of wrapped dims."""
    if dim is None or isinstance(dim, (tuple, list)) and not dim:
        return tuple(range(ndim))
    if isinstance(dim, (tuple, list)):
        out = tuple(_wrap_dim(operator.index(d), ndim) for d in dim)
        for d in out:
            if out.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    else:
        out = (_wrap_dim(operator.index(dim), ndim),)
    return out if ndim else ()


def _count(shape, axes):
    """How many input elements each output element reduces."""
    return math.prod(shape[d] for d in axes)


def _acc_dtype(input, dtype):
    """sum/prod/cumsum accumulate integers and bools in int64 unless `dtype=` says otherwise."""
    if dtype is not None:
        return dtype.np
    return np.int64 if input.dtype.kind in "biu" else input.dtype


def _no_out(name, out):
    if out is not None:
        raise NotImplementedError(f"{name}(out=...) is not supported by ndgrad yet; use the returned tensor")


def _need_float(name, input, dtype=None):
    if dtype is None and input.dtype.kind not in "fc":
        raise RuntimeError(f"{name}(): could not infer output dtype. Input dtype must be either a floating point "
                           f"or complex dtype. Got: {_type_word(input.dtype)}")
    if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name}(): could not infer output dtype. Optional dtype must be either a floating point "
                           f"or complex dtype. Got: {dtype.title}")


def _no_identity(name, input, axes, all_dims):
    """max/min-like reductions have no value for an empty slice: torch's errors."""
    if all_dims and input.size == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           "reduction dim with the 'dim' argument.")
    for d in axes:
        if input.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _real_only(name, input, bool_ok=True):
    if input.dtype.kind == "c" or input.dtype.kind == "b" and not bool_ok:
        raise NotImplementedError(f"{name}(): not implemented for {_type_word(input.dtype)} tensors")


def _no_complex_order(name, input):
    if input.dtype.kind == "c":
        raise RuntimeError(f"{name}(): does not support complex input")


def _other_op(name, input, other):
    """torch.max(x, y) is torch.maximum(x, y) (implemented with the pointwise ops)."""
    fn = _registry.OPS.get(name)
    if fn is None:
        raise NotImplementedError(f"ndgrad.{name} is not implemented yet")
    return fn(input, other)


def _structseq(name, fields):
    """A named tuple printed like torch.return_types.<name>."""
    cls = collections.namedtuple(name, fields)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"torch.return_types.{name}(\n{body})"
    cls.__repr__ = __repr__
    return cls


return_types = types.SimpleNamespace(
    max=_structseq("max", ["values", "indices"]),
    min=_structseq("min", ["values", "indices"]),
    median=_structseq("median", ["values", "indices"]),
    nanmedian=_structseq("nanmedian", ["values", "indices"]),
    mode=_structseq("mode", ["values", "indices"]),
    kthvalue=_structseq("kthvalue", ["values", "indices"]),
    cummax=_structseq("cummax", ["values", "indices"]),
    cummin=_structseq("cummin", ["values", "indices"]),
    aminmax=_structseq("aminmax", ["min", "max"]),
    sort=_structseq("sort", ["values", "indices"]),
    topk=_structseq("topk", ["values", "indices"]),
    frexp=_structseq("frexp", ["mantissa", "exponent"]),
)


# ---- sum and mean -------------------------------------------------------------------------
@op("sum", public=False)
def _sum_all(input, *, dtype=None):
    if type(input) is np.ndarray:   # np.sum's reduction, without its wrapper
        return np.add.reduce(input, None, _acc_dtype(input, dtype))
    return np.sum(input, dtype=_acc_dtype(input, dtype))


@op("sum.dim_IntList", public=False)
def _sum_dim(input, dim, keepdim=False, *, dtype=None):
    if type(input) is np.ndarray:   # the reduction np.sum calls, without its Python wrapper (~1.3 us)
        return np.add.reduce(input, _dims(input.ndim, dim), _acc_dtype(input, dtype), None, keepdim)
    return np.sum(input, axis=_dims(input.ndim, dim), keepdims=keepdim, dtype=_acc_dtype(input, dtype))


def _sum_dim_replay(input, dim, keepdim=False, *, dtype=None):
    # what ndgrad.compile's tapes call (their arrays are NumPy's): the guard fixes ndim, so a non-empty
    # tuple of dims was checked at the trace and NumPy wraps its negative dims as _dims would
    axis = dim if type(dim) is tuple and dim and input.ndim else _dims(input.ndim, dim)
    return np.add.reduce(input, axis, _acc_dtype(input, dtype), None, keepdim)


_sum_dim.__wrapped__.replay = _sum_dim_replay


def _usual_dims(args, kwargs):
    """(input, dim, keepdim) of the usual call of sum and mean in models and formulas — x.sum(d),
    x.sum(d, k), x.sum(d, keepdim=k) with d an int or a tuple of ints — as the parser would give
    them (dim as a tuple); None for any other call. Parsing costs about 4 us, a quarter of a small
    reduction's time, and these are the hottest reductions."""
    n = len(args)
    if kwargs:
        if n != 2 or len(kwargs) != 1 or "keepdim" not in kwargs:
            return None
        keepdim = kwargs["keepdim"]
    elif n == 2:
        keepdim = False
    elif n == 3:
        keepdim = args[2]
    else:
        return None
    input, dim = args[0], args[1]
    if type(keepdim) is not bool or not isinstance(input, Tensor):
        return None
    if type(dim) is int:
        return input, (dim,), keepdim
    if type(dim) is tuple and builtins.all(type(d) is int for d in dim):   # (this module shadows all)
        return input, dim, keepdim
    return None


# torch picks the dim overload (and node) as soon as a dim is given, even `dim=None`
_sum_args = Parser("sum(Tensor input, *, ScalarType? dtype=None)",                       # SumBackward0
                   "sum(Tensor input, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, "
                   "Tensor? out=None)")                                                   # SumBackward1


@register(method=True)
@_sum_args.signature
def sum(*args, **kwargs):
    if len(args) == 1 and not kwargs and isinstance(args[0], Tensor):   # x.sum(), without the parser
        return _sum_all(args[0])
    usual = _usual_dims(args, kwargs)
    if usual is not None:
        return _sum_dim(*usual, None)
    which, values = _sum_args.parse(args, kwargs)
    if which == 0:
        return _sum_all(*values)
    _no_out("sum", values[4])
    return _sum_dim(*values[:4])


@op("nansum", method=True)
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    if input.dtype.kind == "c":
        raise RuntimeError("nansum on CPU does not support complex inputs")
    return np.nansum(input, axis=_dims(input.ndim, dim), keepdims=keepdim, dtype=_acc_dtype(input, dtype))


def _mean(input, dim, keepdim, dtype):
    _need_float("mean", input, dtype)
    axes = _dims(input.ndim, dim)
    acc = dtype.np if dtype is not None else None
    total = np.add.reduce(input, axes, acc, None, keepdim) if type(input) is np.ndarray else \
        np.sum(input, axis=axes, keepdims=keepdim, dtype=acc)   # (np.sum's wrapper, without it)
    count = _count(input.shape, axes)
    if count:
        return total / count
    with np.errstate(invalid="ignore", divide="ignore"):   # the mean of nothing is nan, as in torch
        return total / count


@op("mean", public=False)
def _mean_all(input, *, dtype=None):
    return _mean(input, None, False, dtype)


@op("mean.dim", public=False)
def _mean_dim(input, dim, keepdim=False, *, dtype=None):
    return _mean(input, dim, keepdim, dtype)


_mean_args = Parser("mean(Tensor input, *, ScalarType? dtype=None, Tensor? out=None)",    # MeanBackward0
                    "mean(Tensor input, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, "
                    "Tensor? out=None)")                                                  # MeanBackward1


@register(method=True)
@_mean_args.signature
def mean(*args, **kwargs):
    if len(args) == 1 and not kwargs and isinstance(args[0], Tensor):   # x.mean()
        return _mean_all(args[0])
    usual = _usual_dims(args, kwargs)
    if usual is not None:
        return _mean_dim(*usual, None)
    which, values = _mean_args.parse(args, kwargs)
    _no_out("mean", values[-1])
    if which == 0:
        return _mean_all(values[0], values[1])
    return _mean_dim(*values[:4])


@register(method=True)
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if dtype is None and input._array.dtype.kind not in "fc":
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{_type_word(input._array.dtype)}")
    return nansum(input, dim, keepdim, dtype=dtype) / input.isnan().logical_not().sum(dim, keepdim)


# ---- prod ---------------------------------------------------------------------------------
@op("prod", public=False)
def _prod_all(input, *, dtype=None):
    return np.prod(input, dtype=_acc_dtype(input, dtype))


@op("prod.dim_int", public=False)
def _prod_dim(input, dim, keepdim=False, *, dtype=None):
    if isinstance(dim, (tuple, list)):
        raise TypeError("prod(): dim must be one int (torch's prod reduces one dim or all of them)")
    return np.prod(input, axis=_dims(input.ndim, dim), keepdims=keepdim, dtype=_acc_dtype(input, dtype))


_prod_args = Parser("prod(Tensor input, *, ScalarType? dtype=None)",                     # ProdBackward0
                    "prod(Tensor input, int dim, bool keepdim=False, *, ScalarType? dtype=None, "
                    "Tensor? out=None)")                                                  # ProdBackward1


@register(method=True)
@_prod_args.signature
def prod(*args, **kwargs):
    which, values = _prod_args.parse(args, kwargs)
    if which == 0:
        return _prod_all(*values)
    _no_out("prod", values[4])
    return _prod_dim(*values[:4])


# ---- max, min, median and their relatives -------------------------------------------------
def _extreme(name, fn, input, dim, keepdim):
    axes = _dims(input.ndim, dim)
    _real_only(name, input)
    # torch's "dim to be specified" error is for no dim given, not for dims that cover them all
    _no_identity(name, input, axes, dim is None or isinstance(dim, (tuple, list)) and not dim)
    return fn(input, axis=axes, keepdims=keepdim)


@op("amax", method=True)
def amax(input, dim=(), keepdim=False):
    return _extreme("amax", np.max, input, dim, keepdim)


@op("amin", method=True)
def amin(input, dim=(), keepdim=False):
    return _extreme("amin", np.min, input, dim, keepdim)


def _pick(name, index_fn, input, dim, keepdim):
    """(values, int64 indices) of the element that `index_fn(x, axis)` (which keeps `axis` as size 1)
    picks in each slice along `dim`."""
    d = _wrap_dim(operator.index(dim), input.ndim)
    if input.ndim == 0:
        return input.copy(), namespace(input).zeros((), np.int64)
    _no_identity(name, input, (d,), False)
    idx = index_fn(input, d)
    values = _take_along(input, idx, d)
    if not keepdim:
        values, idx = values.squeeze(d), idx.squeeze(d)
    return values, idx.astype(np.int64, copy=False)


@functools.lru_cache(maxsize=256)
def _open_grid(shape, axis):
    """The open index arrays of `shape` (np.ogrid's) before and after `axis`."""
    grid = np.ogrid[tuple(slice(0, n) for n in shape)]
    return tuple(grid[:axis]), tuple(grid[axis + 1:])


def _take_along(x, idx, axis):
    """np.take_along_axis(x, idx, axis) for `idx` of size 1 along `axis` (a reduction's keepdims index),
    by one fancy index with the shape's cached grid (take_along_axis builds its own: ~4 us a call)."""
    if type(x) is not np.ndarray:
        return np.take_along_axis(x, idx, axis=axis)
    before, after = _open_grid(x.shape, axis)
    return x[before + (idx,) + after]


def _first_max(x, axis):   # the first maximum, or the first nan (as torch); the method: np.argmax's wrapper costs a us
    return x.argmax(axis=axis, keepdims=True) if type(x) is np.ndarray else np.argmax(x, axis=axis, keepdims=True)


def _first_min(x, axis):
    return x.argmin(axis=axis, keepdims=True) if type(x) is np.ndarray else np.argmin(x, axis=axis, keepdims=True)


@op("max.dim", public=False)
def _max_dim(input, dim, keepdim=False):
    _no_complex_order("max", input)
    return _pick("max", _first_max, input, dim, keepdim)


@op("max", public=False)
def _max_all(input):
    return _extreme("max", np.max, input, None, False)


@op("min.dim", public=False)
def _min_dim(input, dim, keepdim=False):
    _no_complex_order("min", input)
    return _pick("min", _first_min, input, dim, keepdim)


@op("min", public=False)
def _min_all(input):
    return _extreme("min", np.min, input, None, False)


_max_args = Parser("max(Tensor input, *, Tensor? out=None)",                                # MaxBackward1
                   "max(Tensor input, Tensor other, *, Tensor? out=None)",                    # maximum
                   "max(Tensor input, int dim, bool keepdim=False, *, Tensor[]? out=None)")   # MaxBackward0
_min_args = Parser("min(Tensor input, *, Tensor? out=None)",
                   "min(Tensor input, Tensor other, *, Tensor? out=None)",
                   "min(Tensor input, int dim, bool keepdim=False, *, Tensor[]? out=None)")


def _max_or_min(parser, all_op, pointwise, dim_op, args, kwargs):
    n = len(args)
    if not kwargs and 0 < n < 4 and isinstance(args[0], Tensor) and (n < 2 or type(args[1]) is int) and \
            (n < 3 or type(args[2]) is bool):   # x.max(), x.max(d), x.max(d, k): without the parser
        if n == 1:
            return all_op(args[0])
        return getattr(return_types, parser.name)(*dim_op(*args))
    which, values = parser.parse(args, kwargs)
    _no_out(parser.name, values[-1])
    if which == 0:
        return all_op(values[0])
    if which == 1:
        return _other_op(pointwise, values[0], values[1])
    return getattr(return_types, parser.name)(*dim_op(*values[:3]))


@register(method=True)
@_max_args.signature
def max(*args, **kwargs):
    """max(input) -> Tensor
    max(input, dim, keepdim=False) -> (Tensor, LongTensor)
    max(input, other) -> Tensor

    The largest element of `input`; along `dim`, the largest values and their indices; with a second
    tensor, the elementwise maximum (as :func:`ndgrad.maximum`).

    Args:
        input (Tensor): the input.
        dim (int, optional): the dimension to reduce.
        keepdim (bool): whether the reduced dimension is kept with size 1. Default: ``False``.
        other (Tensor, optional): a second tensor, compared elementwise.

    Returns:
        Tensor or (Tensor, LongTensor): the maximum, or a named tuple ``(values, indices)`` when `dim` is given.

    Example::

        >>> x = torch.tensor([[1.0, 5.0], [4.0, 2.0]])
        >>> torch.max(x)
        tensor(5.)
        >>> torch.max(x, dim=1)
        torch.return_types.max(
        values=tensor([5., 4.]),
        indices=tensor([1, 0]))
        >>> torch.max(x, torch.tensor(3.0))
        tensor([[3., 5.],
                [4., 3.]])
    """
    return _max_or_min(_max_args, _max_all, "maximum", _max_dim, args, kwargs)


@register(method=True)
@_min_args.signature
def min(*args, **kwargs):
    """min(input) -> Tensor
    min(input, dim, keepdim=False) -> (Tensor, LongTensor)
    min(input, other) -> Tensor

    The smallest element of `input`; along `dim`, the smallest values and their indices; with a second
    tensor, the elementwise minimum (as :func:`ndgrad.minimum`).

    Args:
        input (Tensor): the input.
        dim (int, optional): the dimension to reduce.
        keepdim (bool): whether the reduced dimension is kept with size 1. Default: ``False``.
        other (Tensor, optional): a second tensor, compared elementwise.

    Returns:
        Tensor or (Tensor, LongTensor): the minimum, or a named tuple ``(values, indices)`` when `dim` is given.

    Example::

        >>> x = torch.tensor([[1.0, 5.0], [4.0, 2.0]])
        >>> torch.min(x)
        tensor(1.)
        >>> torch.min(x, dim=0)
        torch.return_types.min(
        values=tensor([1., 2.]),
        indices=tensor([0, 1]))
        >>> torch.min(x, torch.tensor(3.0))
        tensor([[1., 3.],
                [3., 2.]])
    """
    return _max_or_min(_min_args, _min_all, "minimum", _min_dim, args, kwargs)


@op("aminmax", public=False)
def _aminmax(input, *, dim=None, keepdim=False):
    axes = _dims(input.ndim, dim)
    _real_only("aminmax", input)
    if dim is None and input.size == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    for d in axes:
        if input.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    return np.min(input, axis=axes, keepdims=keepdim), np.max(input, axis=axes, keepdims=keepdim)


_aminmax_args = Parser("aminmax(Tensor input, *, int? dim=None, bool keepdim=False)")   # one dim, never a tuple


@register(method=True)
@_aminmax_args.signature
def aminmax(*args, **kwargs):
    _, (input, dim, keepdim) = _aminmax_args.parse(args, kwargs)
    return return_types.aminmax(*_aminmax(input, dim=dim, keepdim=keepdim))


def _median_index(x, axis):
    """Index of the lower median in each slice (torch's median), or of the first nan if it has one."""
    k = (x.shape[axis] - 1) // 2
    idx = np.take(np.argpartition(x, k, axis=axis), [k], axis=axis)
    if x.dtype.kind == "f":
        nan = np.isnan(x)
        idx = np.where(nan.any(axis=axis, keepdims=True), np.argmax(nan, axis=axis, keepdims=True), idx)
    return idx


@op("median", public=False)
def _median_all(input):
    _real_only("median", input, bool_ok=False)
    flat = input.reshape(-1)
    if flat.size == 0:
        return np.array(np.nan, dtype=input.dtype)
    return np.take_along_axis(flat, _median_index(flat, 0), 0).reshape(())


@op("median.dim", public=False)
def _median_dim(input, dim, keepdim=False):
    _real_only("median", input, bool_ok=False)
    return _pick("median", _median_index, input, dim, keepdim)


_median_args = Parser("median(Tensor input)",                                                # MedianBackward0
                      "median(Tensor input, int dim, bool keepdim=False, *, Tensor[]? out=None)")   # MedianBackward1


@register(method=True)
@_median_args.signature
def median(*args, **kwargs):
    """median(input) -> Tensor
    median(input, dim, keepdim=False) -> (Tensor, LongTensor)

    The median of all elements of `input`, or, along `dim`, the medians and their indices. For an even
    number of elements it is the lower of the two middle values (not their mean). NaN is the median
    where there is a NaN (see :func:`ndgrad.nanmedian`).

    Args:
        input (Tensor): the input.
        dim (int, optional): the dimension to reduce.
        keepdim (bool): keep `dim` with size 1. Default: ``False``.

    Returns:
        Tensor or (Tensor, LongTensor): the median, or a named tuple ``(values, indices)`` with `dim`.

    Example::

        >>> x = torch.tensor([[1.0, 4.0, 2.0, 3.0], [9.0, 7.0, 8.0, 6.0]])
        >>> torch.median(x)
        tensor(4.)
        >>> values, indices = torch.median(x, dim=1)
        >>> values, indices
        (tensor([2., 7.]), tensor([2, 1]))
    """
    which, values = _median_args.parse(args, kwargs)
    if which == 0:
        return _median_all(*values)
    _no_out("median", values[3])
    return return_types.median(*_median_dim(*values[:3]))


def _nanmedian_index(x, axis):
    """Index of the lower median of the non-nan elements of each slice (a nan if all are)."""
    valid = ~np.isnan(x) if x.dtype.kind == "f" else np.ones(x.shape, bool)
    k = np.maximum((valid.sum(axis=axis, keepdims=True) - 1) // 2, 0)
    return np.take_along_axis(np.argsort(x, axis=axis, kind="stable"), k, axis=axis)   # nans sort last


@op("nanmedian", public=False)
def _nanmedian_all(input):
    _real_only("nanmedian", input, bool_ok=False)
    flat = input.reshape(-1)
    if flat.size == 0:
        return np.array(np.nan, dtype=input.dtype)
    return np.take_along_axis(flat, _nanmedian_index(flat, 0), 0).reshape(())


@op("nanmedian.dim", public=False)
def _nanmedian_dim(input, dim, keepdim=False):
    _real_only("nanmedian", input, bool_ok=False)
    return _pick("nanmedian", _nanmedian_index, input, dim, keepdim)


_nanmedian_args = Parser("nanmedian(Tensor input)",
                         "nanmedian(Tensor input, int dim, bool keepdim=False, *, Tensor[]? out=None)")


@register(method=True)
@_nanmedian_args.signature
def nanmedian(*args, **kwargs):
    """nanmedian(input) -> Tensor
    nanmedian(input, dim, keepdim=False) -> (Tensor, LongTensor)

    As :func:`ndgrad.median`, ignoring NaNs: the (lower) median of the other values (NaN only where all are NaN).

    Args:
        input (Tensor): the input.
        dim (int, optional): the dimension to reduce.
        keepdim (bool): keep `dim` with size 1. Default: ``False``.

    Returns:
        Tensor or (Tensor, LongTensor): the median, or a named tuple ``(values, indices)`` with `dim`.

    Example::

        >>> x = torch.tensor([1.0, float("nan"), 3.0, 2.0])
        >>> torch.nanmedian(x), torch.median(x)
        (tensor(2.), tensor(nan))
    """
    which, values = _nanmedian_args.parse(args, kwargs)
    if which == 0:
        return _nanmedian_all(*values)
    _no_out("nanmedian", values[3])
    return return_types.nanmedian(*_nanmedian_dim(*values[:3]))


def _mode_index(x, axis):
    """Index of the last occurrence of the most frequent value of each slice (ties: the smallest value)."""
    xp = namespace(x).xp
    a = np.moveaxis(x, axis, -1)
    s = np.sort(a, axis=-1)
    pos = xp.arange(s.shape[-1])
    run_start = np.concatenate([xp.ones(s.shape[:-1] + (1,), bool), s[..., 1:] != s[..., :-1]], axis=-1)
    run_length = pos - np.maximum.accumulate(np.where(run_start, pos, 0), axis=-1) + 1
    value = np.take_along_axis(s, np.argmax(run_length, axis=-1)[..., None], axis=-1)   # first longest run
    last = a.shape[-1] - 1 - np.argmax((a == value)[..., ::-1], axis=-1)
    return np.expand_dims(last, axis)


@op("mode", public=False)
def _mode(input, dim=-1, keepdim=False):
    _real_only("mode", input)
    return _pick("mode", _mode_index, input, dim, keepdim)


@register(method=True)
def mode(input, dim=-1, keepdim=False):
    """The most frequent value of `input` along `dim` (the smallest of those tied), with an index where it occurs.

    Args:
        input (Tensor): the input.
        dim (int): the dimension. Default: ``-1``.
        keepdim (bool): keep `dim` with size 1. Default: ``False``.

    Returns:
        (Tensor, LongTensor): a named tuple ``(values, indices)``.

    Example::

        >>> values, indices = torch.mode(torch.tensor([[1, 2, 2], [3, 3, 1]]))
        >>> values
        tensor([2, 3])
    """
    return return_types.mode(*_mode(input, dim, keepdim))


@op("kthvalue", public=False)
def _kthvalue(input, k, dim=-1, keepdim=False):
    d = _wrap_dim(operator.index(dim), input.ndim)
    if input.ndim and input.shape[d] == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= (input.shape[d] if input.ndim else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    _real_only("kthvalue", input)
    if input.dtype == np.bool_:
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")

    def kth_index(x, axis):
        return np.take(np.argpartition(x, k - 1, axis=axis), [k - 1], axis=axis)   # nans sort last
    return _pick("kthvalue", kth_index, input, d, keepdim)


@register(method=True)
def kthvalue(input, k, dim=-1, keepdim=False):
    """The `k`-th smallest element of `input` along `dim` (`k` counts from 1), with its index.

    Args:
        input (Tensor): the input.
        k (int): which element, in increasing order, from 1.
        dim (int): the dimension. Default: ``-1``.
        keepdim (bool): keep `dim` with size 1. Default: ``False``.

    Returns:
        (Tensor, LongTensor): a named tuple ``(values, indices)``.

    Example::

        >>> values, indices = torch.kthvalue(torch.tensor([5.0, 1.0, 4.0, 2.0]), 2)
        >>> values, indices
        (tensor(2.), tensor(3))
    """
    return return_types.kthvalue(*_kthvalue(input, k, dim, keepdim))


def _arg_extreme(name, index_fn, input, dim, keepdim):
    _no_complex_order(name, input)
    if input.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input; convert it first, e.g. input.int()")
    if dim is None:   # the index into the flattened input
        if input.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        idx = index_fn(input.reshape(-1), 0).astype(np.int64)
        return idx.reshape((1,) * input.ndim if keepdim else ())
    d = _wrap_dim(operator.index(dim), input.ndim)   # _pick's indices, without its values
    if input.ndim == 0:
        return namespace(input).zeros((), np.int64)
    _no_identity(name, input, (d,), False)
    idx = index_fn(input, d)
    return (idx if keepdim else idx.squeeze(d)).astype(np.int64, copy=False)


@op("argmax", method=True)
def argmax(input, dim=None, keepdim=False):
    return _arg_extreme("argmax", _first_max, input, dim, keepdim)


@op("argmin", method=True)
def argmin(input, dim=None, keepdim=False):
    return _arg_extreme("argmin", _first_min, input, dim, keepdim)


# ---- logical and counting reductions (no gradient) ----------------------------------------
def _logical(fn, input, dim, keepdim):
    out = fn(input, axis=_dims(input.ndim, dim), keepdims=keepdim)
    return out.astype(np.uint8) if input.dtype == np.uint8 else out   # torch keeps uint8 for uint8 input


@op("all", method=True)
def all(input, dim=None, keepdim=False):
    return _logical(np.all, input, dim, keepdim)


@op("any", method=True)
def any(input, dim=None, keepdim=False):
    return _logical(np.any, input, dim, keepdim)


@op("count_nonzero", method=True)
def count_nonzero(input, dim=None):
    return namespace(input).asarray(np.count_nonzero(input, axis=_dims(input.ndim, dim)), dtype=np.int64)


@op("hash_tensor", method=True)
def hash_tensor(input, dim=(), *, keepdim=False, mode=0):
    """The xor of the bits of input's elements over `dim` (every dim by default), each element first
    widened to 64 bits (floats to float64, integers and bools to int64): a uint64 fingerprint of the values.
    `mode` picks the hash; 0 (xor) is the only one.

    Example::

        >>> torch.hash_tensor(torch.tensor([1, 2, -3]))
        tensor(18446744073709551614, dtype=torch.uint64)
    """
    if isinstance(input, SparseArray):
        raise unsupported("hash_tensor", input)
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    if input.dtype.kind in "uc" and input.dtype != np.uint8 or input.dtype.kind == "V":
        raise NotImplementedError(f'"xor_sum_cpu" not implemented for \'{_type_word(input.dtype)}\'')
    dims = _dims(input.ndim, dim)
    if not (isinstance(dim, (tuple, list)) and not dim or dim is None):
        for d in dims:
            if input.shape[d] == 0:
                raise IndexError(f"hash_tensor: Expected reduction dim {d} to have non-zero size.")
    elif input.size == 0:
        raise RuntimeError("hash_tensor: Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           "reduction dim with the 'dim' argument.")
    wide = input.astype(np.float64 if input.dtype.kind == "f" else np.int64).view(np.uint64)
    return np.bitwise_xor.reduce(wide, axis=dims, keepdims=keepdim) if dims else wide.copy()


# ---- variance and standard deviation ------------------------------------------------------
def _moments(name, input, dim, correction, keepdim):
    """(variance, mean) over `dim`, dividing by N - correction (at least 0) as torch does."""
    if input.dtype.kind not in "fc":
        raise RuntimeError(f"{name if name.endswith('_mean') else 'std and var'} only support floating point and "
                           "complex dtypes")
    axes = _dims(input.ndim, dim)
    n = _count(input.shape, axes)
    dof = builtins.max(n - (1 if correction is None else correction), 0)
    if dof <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "reduction factor (input numel divided by output numel).", UserWarning)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.sum(input, axis=axes, keepdims=True) / n
        dev = input - mean
        sq = dev.real * dev.real + dev.imag * dev.imag if input.dtype.kind == "c" else dev * dev
        var = np.sum(sq, axis=axes, keepdims=keepdim) / dof
    return var, mean if keepdim else mean.squeeze(axes)


@op("var.correction", public=False)
def _var(input, dim=None, *, correction=None, keepdim=False):
    return _moments("var", input, dim, correction, keepdim)[0]


@op("std.correction", public=False)
def _std(input, dim=None, *, correction=None, keepdim=False):
    return np.sqrt(_moments("std", input, dim, correction, keepdim)[0])


@op("var_mean.correction", public=False)
def _var_mean(input, dim=None, *, correction=None, keepdim=False):
    return _moments("var_mean", input, dim, correction, keepdim)


@op("std_mean.correction", public=False)
def _std_mean(input, dim=None, *, correction=None, keepdim=False):
    var, mean = _moments("std_mean", input, dim, correction, keepdim)
    return np.sqrt(var), mean


# torch's three forms: var(x, dim, unbiased, keepdim), var(x, dim, correction=c), var(x, unbiased);
# all of them are the correction overload (VarBackward0), unbiased meaning correction 1
_var_args = Parser("var(Tensor input, int[1]? dim, bool unbiased=True, bool keepdim=False, *, Tensor? out=None)",
                   "var(Tensor input, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False, "
                   "Tensor? out=None)",
                   "var(Tensor input, bool unbiased=True)")
_std_args = Parser("std(Tensor input, int[1]? dim, bool unbiased=True, bool keepdim=False, *, Tensor? out=None)",
                   "std(Tensor input, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False, "
                   "Tensor? out=None)",
                   "std(Tensor input, bool unbiased=True)")
_var_mean_args = Parser("var_mean(Tensor input, int[1]? dim, bool unbiased=True, bool keepdim=False)",
                        "var_mean(Tensor input, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)",
                        "var_mean(Tensor input, bool unbiased=True)")
_std_mean_args = Parser("std_mean(Tensor input, int[1]? dim, bool unbiased=True, bool keepdim=False)",
                        "std_mean(Tensor input, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)",
                        "std_mean(Tensor input, bool unbiased=True)")


def _moments_call(parser, fn, args, kwargs):
    which, values = parser.parse(args, kwargs)
    if which == 2:
        input, unbiased = values
        return fn(input, None, correction=int(unbiased), keepdim=False)
    input, dim, unbiased_or_correction, keepdim = values[:4]
    if len(values) == 5:
        _no_out(parser.name, values[4])
    # (the correction form keeps None, meaning 1, as torch's node saves it: x.var()'s _saved_correction is None)
    correction = int(unbiased_or_correction) if which == 0 else unbiased_or_correction
    return fn(input, dim, correction=correction, keepdim=keepdim)


@register(method=True)
@_var_args.signature
def var(*args, **kwargs):
    return _moments_call(_var_args, _var, args, kwargs)


@register(method=True)
@_std_args.signature
def std(*args, **kwargs):
    return _moments_call(_std_args, _std, args, kwargs)


@register()
@_var_mean_args.signature
def var_mean(*args, **kwargs):
    return _moments_call(_var_mean_args, _var_mean, args, kwargs)


@register()
@_std_mean_args.signature
def std_mean(*args, **kwargs):
    return _moments_call(_std_mean_args, _std_mean, args, kwargs)


# ---- logsumexp and norms ------------------------------------------------------------------
@op("logsumexp", method=True, promote="float", operands=(0,))
def logsumexp(input, dim, keepdim=False):
    axes = _dims(input.ndim, dim)
    # complex: shifted by the real parts' max, as torch, so the imaginary part stays log's principal value
    shift = np.max(input.real if input.dtype.kind == "c" else input, axis=axes, keepdims=True, initial=-np.inf)
    shift = np.where(np.isfinite(shift), shift, 0)    # all -inf (or an inf) slices: nothing to shift
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(input - shift), axis=axes, keepdims=True)) + shift
    return out if keepdim else out.squeeze(axes)


def _vector_norm(name, input, ord, dim, keepdim, dtype=None):
    """The `ord`-norm of `input` over `dim` (None: all dims) as a real array."""
    if input.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_type_word(input.dtype)}")
    axes = _dims(input.ndim, dim)
    a = np.abs(input if dtype is None else input.astype(dtype.np))
    if math.isinf(ord):
        if input.size == 0 and dim is None:
            raise RuntimeError(f"{name} cannot compute the {ord} norm on an empty tensor because the operation "
                               "does not have an identity")
        for d in axes:
            if input.shape[d] == 0:
                raise RuntimeError(f"{name} cannot compute the {ord} norm on the dimension {d}because this "
                                   "dimension is empty and the operation does not have an identity")
        return (np.max if ord > 0 else np.min)(a, axis=axes, keepdims=keepdim)
    if ord == 0:
        return np.sum(a != 0, axis=axes, keepdims=keepdim).astype(a.dtype)
    if ord == 1:
        return np.sum(a, axis=axes, keepdims=keepdim)
    if ord == 2:
        return np.sqrt(np.sum(a * a, axis=axes, keepdims=keepdim))
    return np.sum(a ** ord, axis=axes, keepdims=keepdim) ** (1 / ord)


@op("linalg_vector_norm", public="_linalg_vector_norm")
def _linalg_vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.vector_norm (ndgrad.linalg exposes it under that name)."""
    return _vector_norm("linalg.vector_norm", input, ord, dim, keepdim, dtype)


# aten's own norm overloads: torch.norm no longer reaches them, norm_except_dim still does
@op("norm.Scalar", public=False)
def _norm_all(input, p=2):
    return _vector_norm("norm()", input, p, None, False)


@op("norm.ScalarOpt_dim", public=False)
def _norm_dim(input, p, dim, keepdim=False):
    return _vector_norm("norm()", input, p, dim, keepdim)


# ... and the ones computing in `dtype` (torch._VF.norm reaches them: ndgrad._C._VariableFunctions.norm)
@op("norm.ScalarOpt_dtype", public=False)
def _norm_all_dtype(input, p, *, dtype):
    return _vector_norm("norm()", input, 2 if p is None else p, None, False, dtype)


@op("norm.ScalarOpt_dim_dtype", public=False)
def _norm_dim_dtype(input, p, dim, keepdim, *, dtype):
    return _vector_norm("norm()", input, p, dim, keepdim, dtype)


@register()
def norm_except_dim(v, pow=2, dim=0):
    """The `pow`-norm of `v` over every dimension but `dim`, shaped to broadcast against `v` (the norm of
    weight normalization); ``dim=-1`` gives the norm of all elements.

    Args:
        v (Tensor): the input.
        pow (float): the order of the norm. Default: ``2``.
        dim (int): the dimension kept. Default: ``0``.

    Returns:
        Tensor: the norms, with size 1 in every dimension but `dim`.

    Example::

        >>> torch.norm_except_dim(torch.tensor([[3.0, 4.0], [6.0, 8.0]]), 2, 0)
        tensor([[ 5.],
                [10.]])
    """
    n = v.ndim
    if dim == -1:
        return _norm_all(v, pow)
    if dim == 0 or dim == n - 1:
        rows = v.contiguous().view(v.shape[0], -1) if dim == 0 else v.contiguous().view(-1, v.shape[-1])
        return _norm_dim(rows, pow, 1 if dim == 0 else 0).view([v.shape[d] if d == dim else 1 for d in range(n)])
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


@register(method=True)
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """The matrix or vector norm of `input` (deprecated in torch in favour of :func:`ndgrad.linalg.vector_norm`
    and :func:`ndgrad.linalg.matrix_norm`).

    Args:
        input (Tensor): the input.
        p (int, float, inf, -inf, 'fro', 'nuc'): the order: a number for a vector norm, ``'fro'`` (the 2-norm
            of the elements) or ``'nuc'`` (the nuclear norm of matrices). Default: ``'fro'``.
        dim (int or tuple of int, optional): the dimensions to reduce (default: all).
        keepdim (bool): whether reduced dimensions are kept with size 1. Default: ``False``.
        dtype (torch.dtype, optional): the dtype to compute in and return.

    Returns:
        Tensor: the norm.

    Example::

        >>> x = torch.tensor([[3.0, 4.0], [0.0, 0.0]])
        >>> torch.norm(x)
        tensor(5.)
        >>> torch.norm(x, p=1, dim=1)
        tensor([7., 0.])
    """
    if p is None:
        p = "fro"
    if isinstance(p, str):
        if p == "nuc":   # the sum of the singular values of the matrices in dims `dim` (default the last two)
            d = tuple(_wrap_dim(x, input.ndim) for x in (dim if dim is not None else (-2, -1)))
            x = input.movedim(d, (-2, -1))
            uv = x.requires_grad or tangent_of(x) is not None   # U, V: needed by either derivative
            r = _registry.OPS["_linalg_svd"](x, False, uv)[1].sum(-1)
            for k in (sorted(d) if keepdim else ()):
                r = r.unsqueeze(k)
            return r if dtype is None else r.to(dtype)
        if p != "fro":
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
        if isinstance(dim, (tuple, list)) and len(dim) > 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
        p = 2
    return _linalg_vector_norm(input, p, dim, keepdim, dtype=dtype)


# ---- cumulative ---------------------------------------------------------------------------
def _cumulative(fn, input, dim, dtype):
    d = _wrap_dim(operator.index(dim), input.ndim)
    if input.ndim == 0:
        return fn(input.reshape(1), dtype=_acc_dtype(input, dtype)).reshape(())
    return fn(input, axis=d, dtype=_acc_dtype(input, dtype))


@op("cumsum", method=True, inplace=True)
def cumsum(input, dim, *, dtype=None):
    return _cumulative(np.cumsum, input, dim, dtype)


@op("cumprod", method=True, inplace=True)
def cumprod(input, dim, *, dtype=None):
    return _cumulative(np.cumprod, input, dim, dtype)


@op("logcumsumexp", method=True)
def logcumsumexp(input, dim):
    if input.dtype.kind == "c":
        return _complex_logcumsumexp(input, _wrap_dim(operator.index(dim), input.ndim))
    if input.dtype.kind != "f":
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{_type_word(input.dtype)}'")
    return _cumulative(np.logaddexp.accumulate, input, dim, None)


def _complex_logcumsumexp(input, d):
    """The running log(sum(exp)) along axis d: NumPy's logaddexp has no complex loop to accumulate,
    so one vectorised step per position, each around the operand of larger real part (as torch)."""
    if input.ndim == 0:
        return input.copy()
    out = np.empty_like(input)
    steps, res = np.moveaxis(input, d, 0), np.moveaxis(out, d, 0)
    acc = np.full_like(steps[0], complex(-np.inf, 0))   # the empty sum, as torch starts
    with np.errstate(all="ignore"):
        for i in range(steps.shape[0]):
            acc = res[i] = _complex_logaddexp(acc, steps[i])
    return out


def _complex_logaddexp(x, y):
    hi = np.where(x.real >= y.real, x, y)
    lo = np.where(x.real >= y.real, y, x)
    out = np.log1p(np.exp(lo - hi)) + hi
    same_inf = np.isinf(lo.real) & (lo.real == hi.real)
    out = np.where(same_inf, np.where(lo.real < 0, x, np.log(np.exp(x) + np.exp(y))), out)   # -inf: keep x
    return np.where(np.isnan(lo.real) | np.isnan(hi.real), complex(np.nan, np.nan), out)


def _cum_extreme(name, running, input, dim):
    """(values, indices) of the running max/min; an index moves on at every element that equals the
    new running value, so ties and nans report their latest position (as torch does)."""
    d = _wrap_dim(operator.index(dim), input.ndim)
    _real_only(name, input)
    if input.ndim == 0:
        return input.copy(), namespace(input).zeros((), np.int64)
    values = running.accumulate(input, axis=d)
    moved = input == values
    if input.dtype.kind == "f":
        moved |= np.isnan(input)
    positions = namespace(input).xp.arange(input.shape[d]).reshape([-1 if i == d else 1 for i in range(input.ndim)])
    return values, np.maximum.accumulate(np.where(moved, positions, 0), axis=d).astype(np.int64)


@op("cummax", public=False)
def _cummax(input, dim):
    return _cum_extreme("cummax", np.maximum, input, dim)


@op("cummin", public=False)
def _cummin(input, dim):
    return _cum_extreme("cummin", np.minimum, input, dim)


@register(method=True)
def cummax(input, dim):
    return return_types.cummax(*_cummax(input, dim))


@register(method=True)
def cummin(input, dim):
    return return_types.cummin(*_cummin(input, dim))


# ---- unique -----------------------------------------------------------------------------------
# torch has no derivative for any of them: the nodes are recorded, backward raises. The flattened
# ops return empty inverse/counts unless asked; the ones along a dim always compute both.
def _distinct(a, dim, consecutive):
    """(values, inverse, counts): the distinct elements of a (slices along dim, when given), sorted,
    or its runs of equal neighbours when consecutive. NaNs are all distinct, as in torch."""
    if a.dtype.kind == "c":   # (torch's kernels order their elements: none for complex numbers)
        kernel = "unique" if dim is None or consecutive else "unique_dim"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_word(a.dtype)}'")
    moved = a.reshape(-1) if dim is None else np.moveaxis(a, dim, 0)
    rows = moved.reshape(len(moved), math.prod(moved.shape[1:]))
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
    """The distinct elements of `input` (with `dim`, its distinct slices along `dim`), sorted.

    Args:
        input (Tensor): the input.
        sorted (bool): sort the result in ascending order. Default: ``True``.
        return_inverse (bool): also return, for each element of `input`, its index in the result. Default: ``False``.
        return_counts (bool): also return how many times each result value occurs. Default: ``False``.
        dim (int, optional): the dimension whose slices are compared (default: the flattened elements).

    Returns:
        Tensor or tuple of Tensor: the unique values, followed by the inverse indices and the counts when asked.

    Example::

        >>> x = torch.tensor([3, 1, 3, 2, 1])
        >>> torch.unique(x)
        tensor([1, 2, 3])
        >>> torch.unique(x, return_inverse=True, return_counts=True)
        (tensor([1, 2, 3]), tensor([2, 0, 2, 1, 0]), tensor([2, 1, 2]))
    """
    if dim is None:
        return _picked(_unique2(input, sorted, return_inverse, return_counts), return_inverse, return_counts)
    return _picked(unique_dim(input, dim, sorted, return_inverse, return_counts), return_inverse, return_counts)


@register(method=True)
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """The first element (with `dim`, slice) of every run of equal consecutive elements of `input`.

    Args:
        input (Tensor): the input.
        return_inverse (bool): also return, for each element, the index of its run. Default: ``False``.
        return_counts (bool): also return the length of each run. Default: ``False``.
        dim (int, optional): the dimension whose slices are compared (default: the flattened elements).

    Returns:
        Tensor or tuple of Tensor: the values, followed by the inverse indices and the counts when asked.

    Example::

        >>> x = torch.tensor([1, 1, 2, 2, 3, 1, 1])
        >>> torch.unique_consecutive(x)
        tensor([1, 2, 3, 1])
        >>> torch.unique_consecutive(x, return_counts=True)
        (tensor([1, 2, 3, 1]), tensor([2, 2, 1, 2]))
    """
    return _picked(_unique_consecutive(input, return_inverse, return_counts, dim), return_inverse, return_counts)


aten._unique, aten._unique2, aten.unique_dim = _unique, _unique2, unique_dim
aten.unique_consecutive, aten.unique_dim_consecutive = _unique_consecutive, unique_dim_consecutive


# ---- sorting --------------------------------------------------------------------------------
def _sorted(a, dim, descending):
    """(values, indices) of a stable sort of `a` along `dim`; nan counts as the largest value."""
    if a.dtype.kind == "c":
        raise RuntimeError(" Sort does not support complex dtypes on CPU")
    if a.ndim == 0:
        return a.copy(), namespace(a).zeros((), np.int64)
    d = _wrap_dim(dim, a.ndim)
    if type(a) is np.ndarray and a.dtype == np.float32 and a.shape[d] < 1 << 32:
        keys = np.sort(_sort_keys(a, d, descending), axis=d)   # (unique keys: any sort is the stable one)
        idx = _key_index(np.flip(keys, d) if descending else keys, descending)
        return np.take_along_axis(a, idx, d), idx
    if descending:   # ascending stable sort of the reversed array, reversed: ties keep their order
        idx = a.shape[d] - 1 - np.argsort(np.flip(a, d), axis=d, kind="stable")
        idx = np.flip(idx, d)
    else:
        idx = np.argsort(a, axis=d, kind="stable")
    return np.take_along_axis(a, idx, d), idx.astype(np.int64)


@op("sort", public=False)
def _sort(input, dim=-1, descending=False):
    return _sorted(input, dim, descending)


@op("sort.stable", public=False)
def _sort_stable(input, stable, dim=-1, descending=False):
    return _sorted(input, dim, descending)


_sort_args = Parser("sort(Tensor input, *, bool? stable, int dim=-1, bool descending=False, "
                    "Tensor[]? out=None)",                                                # SortBackward1
                    "sort(Tensor input, int dim=-1, bool descending=False, *, Tensor[]? out=None)")  # SortBackward0


@register(method=True)
@_sort_args.signature
def sort(*args, **kwargs):
    """sort(input, dim=-1, descending=False, stable=False) -> (Tensor, LongTensor)

    Sorts the elements of `input` along `dim`, and returns the sorted values with the index each came from.

    In ndgrad every sort is stable: equal elements keep their order, whatever `stable` says.

    Args:
        input (Tensor): the input.
        dim (int): the dimension to sort along. Default: ``-1``.
        descending (bool): largest first. Default: ``False``.
        stable (bool): keep the order of equal elements. Default: ``False``.

    Returns:
        (Tensor, LongTensor): a named tuple ``(values, indices)``.

    Example::

        >>> x = torch.tensor([3.0, 1.0, 2.0])
        >>> torch.sort(x)
        torch.return_types.sort(
        values=tensor([1., 2., 3.]),
        indices=tensor([1, 2, 0]))
        >>> torch.sort(x, descending=True).indices
        tensor([0, 2, 1])
    """
    which, values = _sort_args.parse(args, kwargs)
    _no_out("sort", values[-1])
    if which == 0:
        return return_types.sort(*_sort_stable(*values[:4]))
    return return_types.sort(*_sort(*values[:3]))


@register(method=True)
def msort(input):
    return _sort(input, 0, False)[0]


@register(method=True)
def argsort(input, dim=-1, descending=False, stable=False):
    with no_grad():
        return _sort(input, dim, descending)[1]


@op("topk", public=False)
def _topk(input, k, dim=-1, largest=True, sorted=True):
    if input.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    size = input.shape[_wrap_dim(dim, input.ndim)] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if input.ndim and type(input) is np.ndarray and input.dtype == np.float32 and 0 < k and 8 * k <= size:
        return _topk_by_keys(input, k, _wrap_dim(dim, input.ndim), largest)
    values, idx = _sorted(input, dim, largest)
    if input.ndim == 0:
        return values, idx
    key = [slice(None)] * input.ndim
    key[_wrap_dim(dim, input.ndim)] = slice(0, k)
    return values[tuple(key)], idx[tuple(key)]


def _sort_keys(a, d, largest):
    """64-bit keys of a float32 array's elements along dim d in the stable sort's order: the value made an
    unsigned integer in the sort's order (NaN the largest, -0.0 equal to 0.0) above the index, which
    breaks ties as the stable sort does (for `largest`, a lower index ranks higher)."""
    bits = (a + np.float32(0)).view(np.uint32)   # (+0: -0.0 becomes 0.0, equal to it as in the sort)
    order = bits ^ np.where(bits >> 31, np.uint32(0xFFFFFFFF), np.uint32(0x80000000))
    order[np.isnan(a)] = 0xFFFFFFFF
    index = np.arange(a.shape[d], dtype=np.uint64).reshape((a.shape[d],) + (1,) * (a.ndim - 1 - d))
    keys = order.astype(np.uint64) << np.uint64(32)
    keys |= (np.uint64(0xFFFFFFFF) - index) if largest else index
    return keys


def _key_index(keys, largest):
    low = keys & np.uint64(0xFFFFFFFF)
    return (np.uint64(0xFFFFFFFF) - low if largest else low).astype(np.int64)


def _topk_by_keys(a, k, d, largest):
    """_topk of a float32 array without a full sort: a partition finds the k largest (smallest) of
    _sort_keys, a sort of those orders them. The first k of _sorted's (values, indices) exactly."""
    keys, n = _sort_keys(a, d, largest), a.shape[d]
    part = np.argpartition(keys, n - k if largest else k - 1, axis=d)
    part = part[(slice(None),) * d + (slice(n - k, None) if largest else slice(0, k),)]
    picked = np.take_along_axis(keys, part, d)
    rank = np.argsort(picked, axis=d)
    if largest:
        rank = np.flip(rank, d)
    idx = np.take_along_axis(part, rank, d).astype(np.int64)
    return np.take_along_axis(a, idx, d), idx


@register(method=True)
def topk(input, k, dim=-1, largest=True, sorted=True):
    """The `k` largest elements of `input` along `dim` (the `k` smallest with ``largest=False``), with their indices.

    Args:
        input (Tensor): the input.
        k (int): how many elements to take.
        dim (int): the dimension to take them along. Default: ``-1``.
        largest (bool): take the largest (else the smallest). Default: ``True``.
        sorted (bool): return them in sorted order. Default: ``True``.

    Returns:
        (Tensor, LongTensor): a named tuple ``(values, indices)``.

    Example::

        >>> x = torch.tensor([1.0, 4.0, 2.0, 5.0])
        >>> torch.topk(x, 2)
        torch.return_types.topk(
        values=tensor([5., 4.]),
        indices=tensor([3, 1]))
        >>> torch.topk(x, 2, largest=False).values
        tensor([1., 2.])
    """
    return return_types.topk(*_topk(input, operator.index(k), dim, largest, sorted))


# ---- composites: differences, integrals, covariance, quantiles (torch builds them from other ops) ---
@register(method=True)
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The `n`-th forward difference of `input` along `dim` (``out[i] = input[i + 1] - input[i]``, applied
    `n` times), with `prepend` and `append` joined to `input` first.

    Args:
        input (Tensor): the input.
        n (int): how many times to take differences. Default: ``1``.
        dim (int): the dimension. Default: ``-1``.
        prepend (Tensor, optional): values put before `input` along `dim`.
        append (Tensor, optional): values put after `input` along `dim`.

    Returns:
        Tensor: the differences.

    Example::

        >>> x = torch.tensor([1, 4, 9, 16])
        >>> torch.diff(x)
        tensor([3, 5, 7])
        >>> torch.diff(x, n=2)
        tensor([2, 2])
        >>> torch.diff(x, prepend=torch.tensor([0]))
        tensor([1, 3, 5, 7])
    """
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    dim = _wrap_dim(dim, input.ndim)
    parts = [p if p.ndim else p.expand(tuple(1 if d == dim else s for d, s in enumerate(input.shape)))
             for p in (prepend,) if p is not None] + [input] + \
            [p if p.ndim else p.expand(tuple(1 if d == dim else s for d, s in enumerate(input.shape)))
             for p in (append,) if p is not None]
    x = _registry.OPS["cat"](parts, dim) if len(parts) > 1 else input
    if n == 0:
        return _registry.OPS["clone"](input)   # a new tensor, as torch's (prepend/append are ignored)
    for _ in range(n):
        m = x.shape[dim]
        if m == 0:
            break
        hi, lo = x.narrow(dim, 1, m - 1), x.narrow(dim, 0, m - 1)
        x = _registry.OPS["logical_xor"](hi, lo) if x.dtype.is_floating_point is False and str(x.dtype) == \
            "torch.bool" else hi - lo
    return x


def _no_bool_samples(name, y):
    if y.dtype == bool_:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")


def _trapezoid_parts(y, dim):
    dim = _wrap_dim(dim, y.ndim)
    m = y.shape[dim]
    return dim, m, y.narrow(dim, 1, m - 1) + y.narrow(dim, 0, m - 1) if m else None


def _spacing(x, y, dim):
    """The steps of sample points `x` along y's `dim` (a 1-d x lies along dim)."""
    if x.ndim == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"trapezoid: There must be one `x` value for each sample point")
        d = x[1:] - x[:-1]
        return d.reshape(tuple(-1 if i == dim else 1 for i in range(y.ndim)))
    return diff(x, dim=dim - y.ndim)


@register()
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of `y` along `dim` by the trapezoidal rule, with sample points `x` or a constant spacing `dx`.

    Args:
        y (Tensor): the values.
        x (Tensor, optional): the sample points (default: spaced by `dx`).
        dx (float, optional): the constant spacing, without `x`. Default: ``1``.
        dim (int): the dimension to integrate along. Default: ``-1``.

    Returns:
        Tensor: the integrals, with `dim` removed.

    Example::

        >>> y = torch.tensor([1.0, 2.0, 3.0])
        >>> torch.trapezoid(y)
        tensor(4.)
        >>> torch.trapezoid(y, torch.tensor([0.0, 1.0, 3.0]))
        tensor(6.5000)
    """
    if x is not None and dx is not None:
        raise TypeError("trapezoid() received an invalid combination of arguments")
    _no_bool_samples("trapezoid", y)
    if isinstance(x, (int, float)):
        x, dx = None, x
    dim, m, pairs = _trapezoid_parts(y, dim)
    if not m:
        return y.sum(dim) * 0
    if x is None:
        return pairs.sum(dim) * ((1 if dx is None else dx) / 2)
    return (pairs * _spacing(x, y, dim)).sum(dim) / 2


@register()
def trapz(y, x=None, *, dx=None, dim=-1):
    return trapezoid(y, x, dx=dx, dim=dim)


@register()
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running integral of `y` along `dim` by the trapezoidal rule: element ``i`` is the integral
    from the first sample to sample ``i + 1`` (so one element fewer than `y` along `dim`).

    Args:
        y (Tensor): the values.
        x (Tensor, optional): the sample points (default: spaced by `dx`).
        dx (float, optional): the constant spacing, without `x`. Default: ``1``.
        dim (int): the dimension to integrate along. Default: ``-1``.

    Returns:
        Tensor: the running integrals.

    Example::

        >>> torch.cumulative_trapezoid(torch.tensor([1.0, 2.0, 3.0]))
        tensor([1.5000, 4.0000])
        >>> torch.cumulative_trapezoid(torch.tensor([1.0, 2.0, 3.0]), dx=0.5)
        tensor([0.7500, 2.0000])
    """
    _no_bool_samples("cumulative_trapezoid", y)
    if isinstance(x, (int, float)):
        x, dx = None, x
    dim, m, pairs = _trapezoid_parts(y, dim)
    if not m:
        return y.narrow(dim, 0, 0)
    if x is None:
        return (pairs * ((1 if dx is None else dx) / 2)).cumsum(dim)
    return (pairs * _spacing(x, y, dim) / 2).cumsum(dim)


@register(method=True)
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of `input`, whose columns are the observations.

    Args:
        input (Tensor): a 1-D tensor (one variable) or 2-D tensor (variables, observations).
        correction (int): subtracted from the number of observations in the divisor (1: unbiased). Default: ``1``.
        fweights (Tensor, optional): integer frequency weights of the observations.
        aweights (Tensor, optional): weights of the observations.

    Returns:
        Tensor: the covariance matrix (0-D for one variable).

    Example::

        >>> x = torch.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])
        >>> torch.cov(x)
        tensor([[ 1., -1.],
                [-1.,  1.]])
        >>> torch.cov(x, correction=0)
        tensor([[ 0.6667, -0.6667],
                [-0.6667,  0.6667]])
    """
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    if input.dtype is bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    if not (input.is_floating_point() or input.is_complex()):   # integers: in the default float dtype
        input = input.to(_default_dtypes.float)
    x = input.reshape(1, -1) if input.ndim < 2 else input
    n_obs = x.shape[1]
    w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1)
        w_sum = n_obs
        norm = n_obs - correction
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        norm = w_sum - correction * (w * aweights).sum() / w_sum if aweights is not None and correction \
            else w_sum - correction
    if (float(norm) if isinstance(norm, Tensor) else norm) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        norm = norm * 0 if isinstance(norm, Tensor) else 0
    xm = x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    c = _registry.OPS["mm"](xm, xw.t().conj())
    return (c / norm).squeeze()


@register(method=True)
def corrcoef(input):
    """The Pearson correlation coefficients of the variables in the rows of `input`, whose columns are the
    observations (the covariance matrix normalised by the standard deviations).

    Args:
        input (Tensor): a 1-D tensor (one variable) or 2-D tensor (variables, observations).

    Returns:
        Tensor: the correlation matrix.

    Example::

        >>> x = torch.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]])
        >>> torch.corrcoef(x)
        tensor([[ 1.0000, -0.9820],
                [-0.9820,  1.0000]])
    """
    c = cov(input)
    if c.ndim == 0:
        return c / c
    sd = c.diagonal().real.sqrt() if c.is_complex() else c.diagonal().sqrt()
    c = c / sd.unsqueeze(1)
    c = c / sd.unsqueeze(0)
    if c.is_complex():
        return _registry.OPS["complex"](c.real.clamp(-1, 1), c.imag.clamp(-1, 1))
    return c.clamp(-1, 1)


_QUANTILE_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, ignore_nan, input, q, dim, keepdim, interpolation):
    if input.dtype.is_floating_point is False or input.dtype.itemsize < 4:   # (torch: not half, nor bfloat16)
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if input.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if interpolation not in _QUANTILE_MODES:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                           f"Got {interpolation}")
    qa = np.asarray(q.detach().numpy() if isinstance(q, Tensor) else q, dtype=np.float64)
    if qa.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if ((qa < 0) | (qa > 1)).any():
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    scalar_q = qa.ndim == 0
    qa = qa.reshape(-1)
    if dim is None:
        x, out_shape = input.reshape(-1), ((1,) * input.ndim if keepdim else ())
    else:
        d = _wrap_dim(dim, builtins.max(input.ndim, 1))
        x = (input.reshape(1) if input.ndim == 0 else input).movedim(d, -1)
        shape = list(input.shape)
        if keepdim and shape:
            shape[d] = 1
        elif shape:
            del shape[d]
        out_shape = tuple(shape)
    s = x.sort(-1)[0]
    a = s.detach().numpy()
    n = a.shape[-1]
    nan = np.isnan(a)
    valid = (~nan).sum(-1) if ignore_nan else np.where(nan.any(-1), 0, n)
    rank = qa.reshape((-1,) + (1,) * (a.ndim - 1)) * (valid - 1)
    rank = np.where(valid == 0, n - 1, rank)   # all nan (or any nan for quantile): the nan at the end
    lo = np.floor(rank)
    if interpolation == "lower":
        hi = lo
    elif interpolation == "higher":
        lo = hi = np.ceil(rank)
    elif interpolation == "nearest":
        lo = hi = np.round(rank)
    else:
        hi = np.ceil(rank)
    weight = np.where(valid == 0, 0.0, 0.5 if interpolation == "midpoint" else rank - lo)
    big = s.unsqueeze(0).expand((len(qa),) + tuple(s.shape))
    tensor = _registry.OPS["tensor"]
    below = big.gather(-1, tensor(lo.astype(np.int64)[..., None]))
    above = big.gather(-1, tensor(hi.astype(np.int64)[..., None]))
    w = tensor(np.broadcast_to(weight, lo.shape)[..., None].astype(a.dtype))
    if isinstance(q, Tensor) and interpolation == "linear":
        # the weights are differentiable in q, as torch's (backward, and forward AD: a dual q
        # need not require grad)
        qv = q.reshape((-1,) + (1,) * (a.ndim - 1))
        w = (qv * tensor(np.asarray(valid - 1, a.dtype)) - tensor(lo.astype(a.dtype))) * \
            tensor((valid != 0).astype(a.dtype))
        w = w.unsqueeze(-1)
    r = _registry.OPS["lerp"](below, above, w).squeeze(-1)
    r = r.reshape((len(qa),) + out_shape)
    return r.squeeze(0) if scalar_q else r


@register(method=True)
@autocast_as("quantile")
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile("quantile", False, input, q, dim, keepdim, interpolation)


@register(method=True)
@autocast_as("nanquantile")
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile("nanquantile", True, input, q, dim, keepdim, interpolation)


# ---- counting (no gradient) -------------------------------------------------------------------
@op("histc", method=True)
def histc(input, bins=100, min=0, max=0):
    lo, hi = float(min), float(max)
    # torch's kernels refuse these dtypes: bool at the bin edges (linspace), complex at the range
    # (aminmax, when it has to find it), the other non-floating ones at the counting
    kind = input.dtype.kind
    if kind == "b":
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    if kind == "c" and lo == hi and input.size:
        raise NotImplementedError(f"\"aminmax_cpu\" not implemented for '{_type_word(input.dtype)}'")
    if kind in "iuc":
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{_type_word(input.dtype)}'")
    if lo == hi and input.size:
        lo, hi = float(input.min()), float(input.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    counts, _ = np.histogram(input[np.isfinite(input)], bins=bins, range=(lo, hi))
    return counts.astype(input.dtype)


@op("bincount", method=True)
def bincount(input, weights=None, minlength=0):
    if input.dtype.kind in "fcb":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{_type_word(input.dtype)}'")
    if input.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if input.size and input.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and weights.shape != input.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    out = np.bincount(input, weights=weights, minlength=minlength)
    if weights is None:
        return out.astype(np.int64)
    return out.astype(weights.dtype if weights.dtype in (np.float32, np.float64) else np.float64)


def _along(coef, ndim, dim):
    """A 1-d array of coefficients as a tensor that broadcasts along `dim` of an ndim-d tensor."""
    return _registry.OPS["tensor"](np.asarray(coef).reshape(tuple(-1 if i == dim else 1 for i in range(ndim))))


def _gradient_1d(f, dim, h, edge_order):
    """The derivative of f along dim by central differences; h: a scalar step or 1-d coordinates."""
    n = f.shape[dim]
    if n < edge_order + 1:
        raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    at = lambda i, k=1: f.narrow(dim, i % n, k)   # noqa: E731 - slices along dim
    if not isinstance(h, Tensor):
        inner = (at(2, n - 2) - at(0, n - 2)) / (2 * h)
        if edge_order == 1:
            front, back = (at(1) - at(0)) / h, (at(-1) - at(-2)) / h
        else:
            front = (at(0) * -1.5 + at(1) * 2 - at(2) * 0.5) / h
            back = (at(-3) * 0.5 - at(-2) * 2 + at(-1) * 1.5) / h
    else:
        c = h.detach().numpy().astype(np.result_type(h._array.dtype, np.float64) if h._array.dtype.kind in "biu"
                                      else h._array.dtype)
        if c.ndim != 1 or c.shape[0] != n:
            raise RuntimeError("torch.gradient expected each tensor to be on the same device and the coordinates "
                               "of each dimension to be 1-d of the dimension's size")
        dx = np.diff(c)
        d1, d2 = dx[:-1], dx[1:]
        a, b, cc = -d2 / (d1 * (d1 + d2)), (d2 - d1) / (d1 * d2), d1 / (d2 * (d1 + d2))
        nd = f.ndim
        inner = at(0, n - 2) * _along(a, nd, dim) + at(1, n - 2) * _along(b, nd, dim) + at(2, n - 2) * _along(cc, nd, dim)
        if edge_order == 1:
            front, back = (at(1) - at(0)) / float(dx[0]), (at(-1) - at(-2)) / float(dx[-1])
        else:
            p, q = float(dx[0]), float(dx[1])
            front = at(0) * (-(2 * p + q) / (p * (p + q))) + at(1) * ((p + q) / (p * q)) + at(2) * (-p / (q * (p + q)))
            p, q = float(dx[-2]), float(dx[-1])
            back = at(-3) * (q / (p * (p + q))) + at(-2) * (-(q + p) / (p * q)) + at(-1) * ((2 * q + p) / (q * (p + q)))
    return _registry.OPS["cat"]([front, inner, back], dim)


@register()
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimates the derivative of `input` along each of the dimensions `dim` (all by default): central
    differences inside, one-sided differences of order `edge_order` at the ends.

    Args:
        input (Tensor): the sampled function.
        spacing (Number, list of Number or tuple of Tensor): the spacing of the samples per dimension
            (one number for all), or the coordinates of the samples per dimension. Default: ``1``.
        dim (int or list of int, optional): the dimensions (default: all).
        edge_order (int): 1 or 2, the order of the differences at the ends. Default: ``1``.

    Returns:
        tuple of Tensor: one derivative per dimension.

    Example::

        >>> torch.gradient(torch.tensor([1.0, 4.0, 9.0, 16.0]))
        (tensor([3., 4., 6., 7.]),)
        >>> torch.gradient(torch.tensor([1.0, 4.0, 9.0, 16.0]), spacing=2.0)
        (tensor([1.5000, 2.0000, 3.0000, 3.5000]),)
    """
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if spacing is None:
        spacing = 1
    dims = list(range(input.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [_wrap_dim(d, input.ndim) for d in dims]
    if isinstance(spacing, (list, tuple)):
        steps = list(spacing)
        if len(steps) == 1 and len(dims) > 1 and not isinstance(steps[0], Tensor):
            steps = steps * len(dims)
        if len(steps) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                               f"arguments to have the same length, but got a spacing argument of length "
                               f"{len(steps)} and a dim argument of length {len(dims)}.")
    else:
        steps = [spacing.item() if isinstance(spacing, Tensor) else spacing] * len(dims)
    steps = [s.item() if isinstance(s, Tensor) and s.ndim == 0 else s for s in steps]
    return tuple(_gradient_1d(input, d, h, edge_order) for d, h in zip(dims, steps))


# ---- api: histogram
return_types.histogram = _structseq("histogram", ["hist", "bin_edges"])


@register(method=True)
def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """A histogram of the values of `input`: `bins` equal-width bins over `range` (by default from the
    smallest to the largest value), or the bins between the edges of a 1-D tensor `bins`.

    Args:
        input (Tensor): the values (a floating-point tensor).
        bins (int or Tensor): the number of bins, or their edges (increasing).
        range (tuple of float, optional): the lowest and highest edges.
        weight (Tensor, optional): a weight per value (counts are then sums of weights).
        density (bool): normalise so that the histogram integrates to 1. Default: ``False``.

    Returns:
        (Tensor, Tensor): a named tuple ``(hist, bin_edges)``.

    Example::

        >>> hist, edges = torch.histogram(torch.tensor([1.0, 2.0, 1.0, 4.0]), bins=3, range=(0.0, 6.0))
        >>> hist, edges
        (tensor([2., 1., 1.]), tensor([0., 2., 4., 6.]))
    """
    if input._array.dtype.kind != "f":
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_type_word(input._array.dtype)}'")
    values = np.asarray(input._array).ravel()
    edges = bins._array if isinstance(bins, Tensor) else bins
    w = None if weight is None else np.asarray(weight._array).ravel()
    hist, edges = np.histogram(values, bins=edges, range=range, weights=w, density=density)
    make = input.new_tensor
    return return_types.histogram(make(hist.astype(input._array.dtype)), make(edges.astype(input._array.dtype)))


# ---- api: histogramdd
return_types.histogramdd = _structseq("histogramdd", ["hist", "bin_edges"])


def _histogramdd_edges(input, bins, range):
    """The bin edges per dimension, as arrays of input's dtype, after torch's checks."""
    values, dtype = input._array, input._array.dtype
    d = values.shape[-1]
    if isinstance(bins, (int, np.integer)):
        bins = [bins] * d
    if len(bins) != d:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    if range is not None and len(range) != 2 * d:
        raise RuntimeError(f"torch.histogramdd: for a {d}-dimensional histogram range should have {2 * d} elements, "
                           f"but got {len(range)}")
    edges = []
    for dim, b in enumerate(bins):
        if isinstance(b, Tensor):
            if b._array.dtype != dtype:
                raise RuntimeError("torch.histogramdd: input tensor and bins tensors should have the same dtype, but "
                                   f"got input with dtype {_type_word(dtype).lower()} and bins for dimension {dim} "
                                   f"with dtype {_type_word(b._array.dtype).lower()}")
            edges.append(np.asarray(b._array))
            continue
        if b <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {b} for dimension {dim}")
        column = values[..., dim]
        if range is not None:
            lo, hi = float(range[2 * dim]), float(range[2 * dim + 1])
        elif column.size:
            lo, hi = float(column.min()), float(column.max())
        else:
            lo, hi = 0.0, 0.0
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} for "
                               f"dimension {dim}")
        if lo == hi:   # an empty range widens by half a unit each side
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(np.linspace(lo, hi, int(b) + 1).astype(dtype))
    return edges


@register()
def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """A d-dimensional histogram of the points in the innermost dimension of `input` (shape `(..., d)`):
    per dimension, `bins` equal-width bins over `range` (by default from the smallest to the largest
    coordinate), or the bins between the edges of the 1-D tensors of a sequence `bins`.

    Args:
        input (Tensor): the points (a floating-point tensor, at least 2-D).
        bins (int, sequence of int, or sequence of Tensor): the bins per dimension, or their edges.
        range (sequence of float, optional): ``[min_0, max_0, min_1, max_1, ...]``, the outer edges.
        weight (Tensor, optional): a weight per point (shape `input.shape[:-1]`).
        density (bool): normalise so that the histogram integrates to 1. Default: ``False``.

    Returns:
        (Tensor, tuple of Tensor): a named tuple ``(hist, bin_edges)``.

    Example::

        >>> points = torch.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]])
        >>> torch.histogramdd(points, bins=[2, 2]).hist
        tensor([[0., 1.],
                [2., 1.]])
    """
    if input.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    if input._array.dtype.kind != "f":
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_type_word(input._array.dtype)}'")
    d = input.shape[-1]
    if weight is not None and tuple(weight.shape) != tuple(input.shape[:-1]):
        raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                           "input tensor excluding its innermost dimension, but got input with shape "
                           f"{list(input.shape)} and weight with shape {list(weight.shape)}")
    edges = _histogramdd_edges(input, bins, range)
    points = np.asarray(input._array).reshape(-1, d)
    w = None if weight is None else np.asarray(weight._array).ravel()
    hist, _ = np.histogramdd(points, bins=edges, weights=w, density=density)
    make = input.new_tensor
    return return_types.histogramdd(make(hist.astype(input._array.dtype)), tuple(make(e) for e in edges))
