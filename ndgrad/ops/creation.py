"""Factories: tensor, zeros/ones/full/empty (and _like), arange, linspace, eye, clone, casts."""
import numpy as np

from .. import _dtype
from .._dispatch import op, register, write_into
from .._tensor import Tensor
from ..autograd.grad_mode import state


def _np_dtype(dtype, default=None):
    if dtype is None:
        return (default or _dtype.defaults.float).np
    return _dtype.to_dtype(dtype).np


def _new(data, requires_grad=False):
    t = Tensor._make(data, False, None, 0)
    if state.inference:
        t._inference = True
    if requires_grad:
        t.requires_grad_(True)
    return t


def _infer_dtype(data):
    """torch.tensor's dtype inference for nested Python data."""
    arr = np.asarray(data)
    kind = arr.dtype.kind
    if isinstance(data, np.ndarray) or isinstance(data, np.generic):
        return arr.dtype
    if kind == "f":
        return _dtype.defaults.float.np
    if kind == "c":
        return _dtype.defaults.complex.np
    if kind in "iu":
        return np.int64
    if kind == "b":
        return np.bool_
    if kind == "O":
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    return arr.dtype


def _unwrap_nested(data):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_unwrap_nested(d) for d in data]
    return data


@register()
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    data = _unwrap_nested(data)
    np_dtype = _dtype.to_dtype(dtype).np if dtype is not None else _infer_dtype(data)
    return _new(np.array(data, dtype=np_dtype), requires_grad)


@register()
def as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype == dtype else data.to(dtype)
    if isinstance(data, np.ndarray):
        return _new(data if dtype is None else data.astype(_dtype.to_dtype(dtype).np, copy=False))
    return tensor(data, dtype=dtype)


@register()
def from_numpy(array):
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dtype.from_numpy_dtype(array.dtype)
    return _new(array)


def _shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return tuple(int(s) for s in size)


def _factory(fill):
    def make(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None, pin_memory=False):
        return _new(fill(_shape(size), _np_dtype(dtype)), requires_grad)
    return make


zeros = register("zeros")(_factory(np.zeros))
ones = register("ones")(_factory(np.ones))
empty = register("empty")(_factory(np.empty))


@register()
def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    if dtype is None:
        dtype = _dtype.scalar_dtype(fill_value)
    return _new(np.full(_shape((size,)), fill_value, dtype=_np_dtype(dtype)), requires_grad)


def _like(fill):
    def make(input, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None):
        return _new(fill(input._data.shape, _np_dtype(dtype, input.dtype)), requires_grad)
    return make


zeros_like = register("zeros_like")(_like(np.zeros))
ones_like = register("ones_like")(_like(np.ones))
empty_like = register("empty_like")(_like(np.empty))


@register()
def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    return _new(np.full(input._data.shape, fill_value, dtype=_np_dtype(dtype, input.dtype)), requires_grad)


@op("clone", method=True)
def clone(input, *, memory_format=None):
    return input.copy()


@op("_to_copy", public="_to_copy")
def _to_copy(input, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
             memory_format=None):
    return input.astype(dtype.np if dtype is not None else input.dtype)


@register(method=True)
def to(input, *args, dtype=None, device=None, non_blocking=False, copy=False, memory_format=None):
    for a in args:
        if isinstance(a, _dtype.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, str) or hasattr(a, "type"):
            device = a
    if device is not None and str(device).split(":")[0] != "cpu":
        raise NotImplementedError(f"device {device!r}: only the CPU backend is wired to ops so far")
    if (dtype is None or dtype == input.dtype) and not copy:
        return input
    return _to_copy(input, dtype=dtype or input.dtype)


@op("copy_", public=False)
def _copy(input, src, non_blocking=False):
    return np.broadcast_to(src, input.shape).astype(input.dtype, copy=True)


@register(method="copy_")
def copy_(input, src, non_blocking=False):
    from .._dispatch import call_inplace
    return call_inplace(_copy.spec, (input, src, non_blocking))
