"""Factories (tensor, zeros/ones/full/empty and _like, arange, linspace, logspace, eye), clone and casts.
Also here: _lazy_clone, and torch's private autograd test ops (copies and a view of their input
whose nodes test the engine: _test_warn_in_autograd, _test_autograd_multiple_dispatch[_view[_copy]]).

Factories make leaves, so they bypass the op glue; they follow torch's argument forms (declared as
torch's schema strings, ops/_schema.py, whose parser gives torch's TypeErrors), dtype inference and
error messages. The random factories live in `random.py` and share the helpers here.
"""
import math
import mmap
import operator
import os
import sys
import types
import warnings

import numpy as np

from .. import _dtype
from ._registry import broadcast_shape, call, call_inplace, method, op, register
from ._aten import function_overload as _aten_overload
from ._schema import Parser
from . import _fused, _unsigned
from .shape import _alias, _plain_size, _strided, _view_forward
from .._meta_array import NO_DATA, MetaArray
from .._sparse_array import BACKEND, strided
from .._tensor import (Size, Tensor, _c_type, _owner, _tensor_options, contiguous_format, format_order, format_strides,
                       legacy_array, preserve_format, resolved_data)
from ..autograd.grad_mode import state
from ..backends import by_name as backend_by_name, current, is_array, namespace


# torch.ops.aten: a namespace shared by the op modules that need one (created by the first)
_pkg = sys.modules[__package__]
aten = getattr(_pkg, "aten", None) or types.SimpleNamespace()
_pkg.aten = aten


# ---- helpers shared by every factory --------------------------------------------------------
def _new(data, requires_grad=False):
    """A leaf tensor over `data` (not copied)."""
    t = Tensor._make(data, False, None, 0)
    if state.inference:
        t._inference = True
    if requires_grad:
        if data.dtype.kind not in _dtype.INEXACT_KINDS:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad_(True)
    return t


def _dtype_arg(fname, dtype, default=None):
    """The ndgrad dtype a factory's `dtype=` names (None: `default`, else the default float)."""
    if dtype is None:
        dtype = default or _dtype.defaults.float
    if isinstance(dtype, _dtype.dtype):
        if dtype in _dtype.UNSIGNED:
            _unsigned.check_factory(fname, dtype)
        return dtype
    if dtype in (bool, int, float, complex):
        return _dtype.to_dtype(dtype)
    raise TypeError(f"{fname}(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")


def _on_meta(device):
    return device is not None and str(device).split(":")[0] == "meta"


def _check_device(fname, device):
    if device is not None and str(device).split(":")[0] != "cpu":
        raise NotImplementedError(f"{fname}(device={str(device)!r}): ndgrad only has the CPU backend wired "
                                  "to ops so far; create the tensor on the CPU")


def _check_out(fname, out):
    if out is not None:
        raise NotImplementedError(f"{fname}(out=...) is not supported by ndgrad yet; use the returned tensor")


def _shape(shape, fname="factory"):
    """`shape` (a tuple of ints, from the parser) with torch's error for a negative size."""
    for s in shape:
        if s < 0:
            if fname == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(shape)}")
    return shape


# the keyword arguments of torch's factories, after the size (or the range)
_FACTORY_KWARGS = ("ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool pin_memory=False, "
                   "bool requires_grad=False")


def _scalar(value):
    """A Python number from a number, NumPy scalar or one-element tensor."""
    return value.item() if isinstance(value, (Tensor, np.generic)) else value


# ---- tensor, as_tensor, from_numpy ----------------------------------------------------------
_SCALAR_TYPES = frozenset((bool, int, float, complex))


def _scalar_type_dtype(py_type):
    return {bool: _dtype.bool_, int: _dtype.int64, float: _dtype.defaults.float,
            complex: _dtype.defaults.complex}[py_type]


def _infer_dtype(data):
    """torch.tensor's dtype for nested data: the promotion of every leaf's own dtype.

    Python scalars count as bool/int64/default float/default complex; NumPy scalars and arrays
    and Tensors inside the data keep their dtype.
    """
    kind = type(data)
    if kind in _SCALAR_TYPES:
        return _scalar_type_dtype(kind)
    if isinstance(data, Tensor):
        return data.dtype
    if isinstance(data, (np.ndarray, np.generic)):
        return _dtype.from_numpy_dtype(data.dtype)
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{kind.__name__}'")
    if not isinstance(data, (list, tuple, range)):
        raise RuntimeError(f"Could not infer dtype of {kind.__name__}")
    leaf_types = set(map(type, data))
    if leaf_types <= _SCALAR_TYPES:   # fast path: a flat list of Python numbers
        dtypes = [_scalar_type_dtype(t) for t in leaf_types]
    else:
        dtypes = [_infer_dtype(item) for item in data]
    result = None
    for d in dtypes:
        result = d if result is None else _dtype.promote_types(result, d)
    return result or _dtype.defaults.float


def _sized(data):
    """data, after torch's size walk: it follows each sequence's first element, and a str met below the
    top (a sequence of one-character sequences to it) never ends: torch's ValueError."""
    first = data
    while isinstance(first, (list, tuple)) and len(first):
        first = first[0]
        if type(first) is str and first:
            raise ValueError("too many dimensions 'str'")
    return data


def _to_arrays(data):
    """Nested data with Tensors replaced by their arrays."""
    if isinstance(data, Tensor):
        return resolved_data(data)
    if isinstance(data, (list, tuple)):
        return [_to_arrays(d) for d in data]
    return data


@register()
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new leaf tensor holding a copy of `data`.

    Args:
        data: a number, a (nested) list or tuple of numbers, a NumPy array or a Tensor.
        dtype: the dtype of the result; by default inferred from `data` (bool, int64, the
            default float dtype, or complex).
        device: only the CPU (``"cpu"``, ``None``) is supported.
        requires_grad: whether autograd records operations on the result.
        pin_memory: accepted for compatibility; has no effect on the CPU.

    Returns:
        Tensor: a tensor that shares no memory with `data`.

    Example::

        >>> torch.tensor([[1, 2], [3, 4]])
        tensor([[1, 2],
                [3, 4]])
        >>> torch.tensor([0.5, 1.5], requires_grad=True)
        tensor([0.5000, 1.5000], requires_grad=True)
        >>> torch.tensor(3.0, dtype=torch.float64).dtype
        torch.float64
    """
    _check_device("tensor", device)
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)   # (torch's words: programs filter this warning by them)
    inferred = _infer_dtype(_sized(data))
    target = _dtype_arg("tensor", dtype, inferred)
    # with a dtype given, numbers convert straight to it (0.1 -> float64 without a float32 detour),
    # with C casts (1.7 -> 1, -1 -> 255 for uint8): build in the widest type of their kind, then cast
    build = inferred.np if target is inferred else _WIDEST[inferred.np.kind]
    if target is _dtype.uint64 and inferred._rank in (1, 2) and not isinstance(data, (np.ndarray, Tensor)):
        return _new(_uint64_data(data, inferred), requires_grad)
    try:
        with np.errstate(all="ignore"):
            arr = np.array(_to_arrays(data), dtype=build, order="C")   # torch copies are contiguous
    except OverflowError:
        raise ValueError(f"tensor(): a Python int in the data does not fit in {inferred}") from None
    except ValueError as e:
        raise ValueError(f"tensor(): the nested sequences must have equal lengths at each depth ({e})") from None
    if target is not inferred:
        if arr.dtype.kind == "c" and not target.is_complex:
            raise TypeError(f"tensor(): can't convert complex data to {target}")
        if target._rank == 1 and arr.size and not isinstance(data, (np.ndarray, Tensor)):
            low, high = _int_range(target)   # Python numbers are range-checked, arrays cast
            if arr.dtype.kind == "f" and not target.is_signed:   # negative floats never wrap
                low = 0
            if not (arr.min() >= low and arr.max() <= high):
                raise RuntimeError(f"value cannot be converted to type {target.name} without overflow")
        with np.errstate(all="ignore"):
            arr = arr.astype(target.np)
    return _new(arr, requires_grad)


_WIDEST = {"b": np.bool_, "u": np.int64, "i": np.int64, "f": np.float64, "c": np.complex128}


def _uint64_data(data, inferred):
    """Python numbers as uint64, converted one by one as torch does (Python's own unsigned conversion):
    ints up to 2**64 - 1, no negative ints, no floats."""
    values = np.array(_to_arrays(data), dtype=object, order="C")
    if inferred._rank == 2 and values.size:
        raise TypeError("an integer is required")
    if values.size and not (values.min() >= 0 and values.max() < 1 << 64):
        bad = next(v for v in values.flat if not 0 <= v < 1 << 64)
        raise OverflowError("can't convert negative int to unsigned" if bad < 0 else "int too big to convert")
    return values.astype(np.uint64)


@register()
def as_tensor(data, dtype=None, device=None):
    """Converts `data` to a tensor, sharing memory with it where possible.

    A Tensor or a NumPy array of the wanted dtype is not copied (a Tensor is returned as it is); other
    data (lists, scalars, another dtype) is copied.

    Args:
        data (array_like): a Tensor, NumPy array, list, tuple or scalar.
        dtype (torch.dtype, optional): the wanted dtype (default: inferred from `data`).
        device (torch.device, optional): only the CPU is supported.

    Returns:
        Tensor: the tensor.

    Example::

        >>> import numpy as np
        >>> a = np.array([1.0, 2.0])
        >>> t = torch.as_tensor(a)
        >>> a[0] = 5.0
        >>> t
        tensor([5., 2.], dtype=torch.float64)
    """
    _check_device("as_tensor", device)
    d = None if dtype is None else _dtype_arg("as_tensor", dtype)
    if isinstance(data, Tensor):
        return data if d is None or data.dtype is d else data.to(d)
    if isinstance(data, np.ndarray):
        t = from_numpy(data)
        return t if d is None or t.dtype is d else _new(data.astype(d.np))
    return tensor(data, dtype=d)


@register()
def from_numpy(ndarray):
    """A tensor sharing memory with a NumPy array: writes through either are seen by both.

    Args:
        ndarray: a NumPy array of a dtype torch has (bool, integers, floats, complex).

    Returns:
        Tensor: a tensor of the array's shape and dtype, backed by the same memory.

    Example::

        >>> import numpy as np
        >>> a = np.array([1.0, 2.0])
        >>> t = torch.from_numpy(a)
        >>> a[0] = 10.0
        >>> t
        tensor([10.,  2.], dtype=torch.float64)
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _dtype.from_numpy_dtype(ndarray.dtype)
    if any(s < 0 for s in ndarray.strides):
        raise ValueError("from_numpy: the array has a negative stride (e.g. from a[::-1]), which tensors "
                         "cannot represent; pass a copy: from_numpy(a.copy())")
    if not ndarray.flags.writeable:
        warnings.warn("from_numpy: the NumPy array is not writable; the tensor shares its memory, so "
                      "writing to the tensor is undefined behaviour. Copy the array first to avoid this.",
                      UserWarning, stacklevel=2)
    return _new(ndarray)


class _Capsule:
    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


@register()
def from_dlpack(ext_tensor):
    """A tensor sharing memory with an object that has the DLPack protocol (``__dlpack__``): a NumPy
    array, a torch, JAX or CuPy tensor, or a DLPack capsule. A GPU object lands on ndgrad's CuPy backend.

    Args:
        ext_tensor (object): the object (or capsule) to import.

    Returns:
        Tensor: the tensor over the same memory.

    Example::

        >>> import numpy as np
        >>> a = np.arange(3.0)
        >>> t = torch.from_dlpack(a)
        >>> a[0] = 9.0
        >>> t
        tensor([9., 1., 2.], dtype=torch.float64)
    """
    if type(ext_tensor).__name__ == "PyCapsule":   # a bare capsule (to_dlpack's): NumPy checks it is CPU memory
        ext_tensor = _Capsule(ext_tensor)
    if not hasattr(ext_tensor, "__dlpack__"):
        raise TypeError(f"from_dlpack: expected an object with __dlpack__ (got {type(ext_tensor).__name__})")
    device_type = ext_tensor.__dlpack_device__()[0]
    xp = np if device_type == 1 else backend_by_name("cupy").xp   # 1: kDLCPU
    return _new(xp.from_dlpack(ext_tensor))


# ---- constant fills ---------------------------------------------------------------------------
def _backend_of(data):
    """The backend new tensors like a tensor of storage `data` are made on (sparse and nested
    storages: the current backend)."""
    return namespace(data) if is_array(data) else current()


_FILL_DOC = """A tensor of the given size filled with {what}.

Args:
    size: the shape, as ints (``{name}(2, 3)``) or one sequence (``{name}((2, 3))``).
    dtype: the dtype (default: the default float dtype, `torch.get_default_dtype()`).
    device: only the CPU (``"cpu"``, ``None``) is supported.
    requires_grad: whether autograd records operations on the result.

Returns:
    Tensor: the new tensor.
{example}"""
_FILL_EXAMPLES = {
    "zeros": """
Example::

    >>> torch.zeros(2, 3)
    tensor([[0., 0., 0.],
            [0., 0., 0.]])
    >>> torch.zeros((2,), dtype=torch.int64)
    tensor([0, 0])
""",
    "ones": """
Example::

    >>> torch.ones(2, 2, requires_grad=True)
    tensor([[1., 1.],
            [1., 1.]], requires_grad=True)
""",
    "empty": """
Example::

    >>> torch.empty(2, 3).shape
    torch.Size([2, 3])
""",
}
_LIKE_DOC = """{base}() with the shape of `input` and, unless given, its dtype.

Args:
    input: the tensor whose shape (and dtype) the result takes.
    dtype: the dtype of the result (default: that of `input`).
    requires_grad: whether autograd records operations on the result.

Returns:
    Tensor: a new tensor; it shares nothing with `input`.
{example}"""
_LIKE_EXAMPLES = {
    "zeros_like": """
Example::

    >>> torch.zeros_like(torch.tensor([[1, 2, 3]]))
    tensor([[0, 0, 0]])
""",
    "ones_like": """
Example::

    >>> torch.ones_like(torch.tensor([1.5, 2.5]), dtype=torch.int32)
    tensor([1, 1], dtype=torch.int32)
""",
    "empty_like": """
Example::

    >>> x = torch.empty_like(torch.zeros(2, 3, dtype=torch.float64))   # its values are arbitrary
    >>> x.shape, x.dtype
    (torch.Size([2, 3]), torch.float64)
""",
}


def _factory(args_parser, fill):
    """zeros/ones/empty: `fill` names the backend's creation function."""
    name = args_parser.name

    @args_parser.signature
    def factory(*args, **kwargs):
        size = None if kwargs else _plain_size(args)   # fast path (see shape._plain_size): zeros(2, 3)
        if size is not None:
            return _new(getattr(current(), fill)(_shape(size, name), _dtype.defaults.float.np))
        _, (size, *rest) = args_parser.parse(args, kwargs)
        out, dtype, layout, device, pin_memory, requires_grad = rest[-6:]
        _check_out(name, out)
        if _on_meta(device):   # shape and dtype only
            return _new(MetaArray(_shape(size, name), _dtype_arg(name, dtype).np), requires_grad)
        _check_device(name, device)
        return _new(getattr(current(), fill)(_shape(size, name), _dtype_arg(name, dtype).np), requires_grad)
    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = _FILL_DOC.format(what="uninitialized values" if name == "empty" else name, name=name,
                                       example=_FILL_EXAMPLES.get(name, ""))
    return register(name, aten=(name, "memory_format" if name == "empty" else "default"))(factory)


_zeros_args = Parser(f"zeros(SymInt[] size, *, Tensor? out=None, {_FACTORY_KWARGS})")
_ones_args = Parser(f"ones(SymInt[] size, *, Tensor? out=None, {_FACTORY_KWARGS})")
_empty_args = Parser(f"empty(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor? out=None, {_FACTORY_KWARGS})")
zeros = _factory(_zeros_args, "zeros")
ones = _factory(_ones_args, "ones")
empty = _factory(_empty_args, "empty")


_C_TYPE_NAMES = {"int64": "int64_t", "int32": "int32_t", "int16": "int16_t", "int8": "int8_t",
                 "uint8": "uint8_t", "float32": "float"}


def _int_range(d):
    """The values torch accepts for integer dtype `d`; uint8 also takes negatives down to -255 (they wrap)."""
    bits = 8 * d.itemsize
    if d.is_signed:
        return -(1 << bits - 1), (1 << bits - 1) - 1
    return 1 - (1 << bits), (1 << bits) - 1


def _fill_value(fname, value, d):
    """`value` (a Python number) checked to fit dtype `d` the way torch checks fill values."""
    overflow = False
    if d._rank == 1 and not isinstance(value, bool):
        if isinstance(value, complex) or not math.isfinite(value):
            overflow = True
        else:
            low, high = _int_range(d)
            overflow = not low <= value <= high
    elif d is _dtype.float32:
        overflow = isinstance(value, complex) or math.isfinite(value) and abs(value) > float(np.finfo(np.float32).max)
    elif d._rank == 2:
        overflow = isinstance(value, complex)
    if overflow:
        raise RuntimeError(f"value cannot be converted to type {_C_TYPE_NAMES.get(d.name, d.name)} without "
                           "overflow")
    return value


def _fill(shape, value, d, backend):
    with np.errstate(all="ignore"):
        if d._rank == 1 and not isinstance(value, bool):
            value = np.array(int(value)).astype(d.np)[()]   # wraps like torch: -1 -> 255 for uint8
        return backend.full(shape, value, d.np)


_full_args = Parser(f"full(SymInt[] size, Scalar fill_value, *, Tensor? out=None, {_FACTORY_KWARGS})")


@register(aten=("full", "default"))
@_full_args.signature
def full(*args, **kwargs):
    """A tensor of the given size filled with one value.

    Args:
        size: the shape, a sequence of ints.
        fill_value: the value of every element.
        dtype: the dtype; by default that of `fill_value` (bool, int64 or the default float).
        requires_grad: whether autograd records operations on the result.

    Returns:
        Tensor: the filled tensor.

    Example::

        >>> torch.full((2, 3), 7)
        tensor([[7, 7, 7],
                [7, 7, 7]])
        >>> torch.full((2,), 0.5)
        tensor([0.5000, 0.5000])
    """
    _, (size, value, out, dtype, layout, device, pin_memory, requires_grad) = _full_args.parse(args, kwargs)
    _check_out("full", out)
    _check_device("full", device)
    shape = _shape(size, "full")
    d = _dtype_arg("full", dtype, _dtype.scalar_dtype(value))
    return _new(_fill(shape, _fill_value("full", value, d), d, current()), requires_grad)


def _like(name, fill):
    def factory(input, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False,
                memory_format=None):
        if not isinstance(input, Tensor):   # torch's TypeError, not an AttributeError on _array
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        data = input._array   # for its backend; the shape is input's (per-sample, under vmap)
        if _on_meta(device) or device is None and type(data) is MetaArray:   # like a meta tensor: meta
            return _new(MetaArray(data.shape, _dtype_arg(name, dtype, input.dtype).np), requires_grad)
        _check_device(name, device)
        return _new(getattr(_backend_of(data), fill)(tuple(input.shape), _dtype_arg(name, dtype, input.dtype).np),
                    requires_grad)
    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = _LIKE_DOC.format(base=name[:-5], example=_LIKE_EXAMPLES.get(name, ""))
    return register(name, aten=(name, "default"))(factory)


zeros_like = _like("zeros_like", "zeros")
ones_like = _like("ones_like", "ones")
empty_like = _like("empty_like", "empty")


_full_like_args = Parser(f"full_like(Tensor input, Scalar fill_value, *, {_FACTORY_KWARGS}, "
                         "MemoryFormat? memory_format=None)")


@register(aten=("full_like", "default"))
@_full_like_args.signature
def full_like(*args, **kwargs):
    _, (input, value, dtype, layout, device, pin_memory, requires_grad, _) = _full_like_args.parse(args, kwargs)
    _check_device("full_like", device)
    d = _dtype_arg("full_like", dtype, input.dtype)
    return _new(_fill(input._array.shape, _fill_value("full_like", value, d), d, _backend_of(input._array)),
                requires_grad)


# ---- ranges -------------------------------------------------------------------------------
def _range_dtype(fname, values, dtype):
    """Integers give int64, any float the default float, any complex the default complex."""
    if dtype is not None:
        return _dtype_arg(fname, dtype)
    kinds = {type(v) for v in values}
    if complex in kinds:
        return _dtype.defaults.complex
    if float in kinds:
        return _dtype.defaults.float
    return _dtype.int64


_arange_args = Parser(f"arange(Scalar end, *, Tensor? out=None, {_FACTORY_KWARGS})",
                      f"arange(Scalar start, Scalar end, *, {_FACTORY_KWARGS})",
                      f"arange(Scalar start, Scalar end, Scalar step=1, *, Tensor? out=None, {_FACTORY_KWARGS})")


@register(aten=("arange", "default", "start", "start_step"))
@_arange_args.signature
def arange(*args, **kwargs):
    """Values from `start` up to, not including, `end`, `step` apart.

    Called as ``arange(end)``, ``arange(start, end)`` or ``arange(start, end, step)``.

    Args:
        start: the first value (default 0).
        end: the bound, excluded.
        step: the gap between values (default 1); may be negative.
        dtype: the dtype; by default int64 when every argument is an integer, else the default float.
        requires_grad: whether autograd records operations on the result.

    Returns:
        Tensor: a 1-D tensor of ``ceil((end - start) / step)`` values.

    Example::

        >>> torch.arange(5)
        tensor([0, 1, 2, 3, 4])
        >>> torch.arange(1, 2, 0.25)
        tensor([1.0000, 1.2500, 1.5000, 1.7500])
    """
    which, values = _arange_args.parse(args, kwargs)
    if which == 0:
        (end, out, *rest), start, step = values, 0, 1
    elif which == 1:
        (start, end, *rest), step, out = values, 1, None
    else:
        start, end, step, out, *rest = values
    dtype, layout, device, pin_memory, requires_grad = rest
    _check_out("arange", out)
    _check_device("arange", device)
    d = _range_dtype("arange", (start, end, step), dtype)
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if step > 0 and end < start or step < 0 and end > start:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = math.ceil((end - start) / step)
    if d._rank <= 1:   # integer dtypes count in integers: start and step are truncated first
        start, step = int(start), int(step)
        if step == 0:
            raise ValueError("arange(): step must be nonzero once converted to the integer dtype "
                             f"{d} (got {step!r}); use a floating-point dtype")
        values = start + step * np.arange(n, dtype=np.int64)
    else:
        values = start + step * np.arange(n, dtype=np.float64)
    return _new(values.astype(d.np), requires_grad)


def _linspace_values(start, end, steps, d):
    """`steps` evenly spaced values, computed from both ends so that both are exact, as torch does.

    Floats are computed in their own precision like torch's kernel (integers in float64); torch's
    vectorised loop may still differ in the last bit for some elements.
    """
    ct = d.np.type if d._rank >= 2 and d is not _dtype.float16 else np.float64
    start, end = ct(start), ct(end)
    if steps == 1:
        return np.array([start])
    step = (end - start) / ct(steps - 1)
    idx = np.arange(steps)
    return np.where(idx < steps // 2, start + step * idx.astype(ct), end - step * (steps - 1 - idx).astype(ct))


def _space_args(fname, start, end, steps, dtype):
    start, end = _scalar(start), _scalar(end)   # the 0-dim tensors of the Tensor overloads
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = _range_dtype(fname, (start, end), dtype)
    if d._rank <= 1 and dtype is None:
        d = _dtype.defaults.float
    return start, end, steps, d


_linspace_args = Parser(*(f"linspace({start} start, {end} end, int steps, *, Tensor? out=None, {_FACTORY_KWARGS})"
                          for start, end in (("Tensor", "Tensor"), ("Scalar", "Tensor"), ("Tensor", "Scalar"),
                                             ("Scalar", "Scalar"))))


@register(aten=("linspace", "default"))
@_linspace_args.signature
def linspace(*args, **kwargs):
    """`steps` evenly spaced values from `start` to `end`, both included.

    Args:
        start: the first value.
        end: the last value.
        steps: how many values.
        dtype: the dtype (default: the default float dtype).
        requires_grad: whether autograd records operations on the result.

    Returns:
        Tensor: a 1-D tensor of `steps` values.

    Example::

        >>> torch.linspace(0, 1, steps=5)
        tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """
    _, (start, end, steps, out, dtype, layout, device, pin_memory, requires_grad) = _linspace_args.parse(args, kwargs)
    _check_out("linspace", out)
    _check_device("linspace", device)
    start, end, steps, d = _space_args("linspace", start, end, steps, dtype)
    return _new(_linspace_values(start, end, steps, d).astype(d.np), requires_grad)


_logspace_args = Parser(*(f"logspace({start} start, {end} end, int steps, float base=10.0, *, Tensor? out=None, "
                          f"{_FACTORY_KWARGS})" for start, end in (("Tensor", "Tensor"), ("Scalar", "Tensor"),
                                                                   ("Tensor", "Scalar"), ("Scalar", "Scalar"))))


@register(aten=("logspace", "default"))
@_logspace_args.signature
def logspace(*args, **kwargs):
    """`steps` values spaced evenly on a log scale: ``base ** linspace(start, end, steps)``.

    Args:
        start (float): the exponent of the first value.
        end (float): the exponent of the last value.
        steps (int): the number of values.
        base (float): the base. Default: ``10.0``.
        dtype (torch.dtype, optional): the dtype (default: the default float dtype).
        requires_grad (bool): whether autograd records operations on the result. Default: ``False``.

    Returns:
        Tensor: the 1-D tensor of values.

    Example::

        >>> torch.logspace(0, 2, 3)
        tensor([  1.,  10., 100.])
        >>> torch.logspace(0, 3, 4, base=2)
        tensor([1., 2., 4., 8.])
    """
    _, values = _logspace_args.parse(args, kwargs)
    start, end, steps, base, out, dtype, layout, device, pin_memory, requires_grad = values
    _check_out("logspace", out)
    _check_device("logspace", device)
    start, end, steps, d = _space_args("logspace", start, end, steps, dtype)
    exponents = _linspace_values(start, end, steps, d)
    return _new(np.power(exponents.dtype.type(base), exponents).astype(d.np), requires_grad)


_eye_args = Parser(f"eye(SymInt n, *, Tensor? out=None, {_FACTORY_KWARGS})",
                   f"eye(SymInt n, SymInt m, *, Tensor? out=None, {_FACTORY_KWARGS})")


@register(aten=("eye", "default", "m"))
@_eye_args.signature
def eye(*args, **kwargs):
    """The identity matrix: ones on the diagonal, zeros elsewhere.

    Args:
        n: the number of rows.
        m: the number of columns (default: `n`).
        dtype: the dtype (default: the default float dtype).
        requires_grad: whether autograd records operations on the result.

    Returns:
        Tensor: an ``n x m`` matrix.

    Example::

        >>> torch.eye(2, 3)
        tensor([[1., 0., 0.],
                [0., 1., 0.]])
    """
    which, values = _eye_args.parse(args, kwargs)
    n, m = values[0], values[which]
    out, dtype, layout, device, pin_memory, requires_grad = values[1 + which:]
    _check_out("eye", out)
    _check_device("eye", device)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    return _new(np.eye(n, m, dtype=_dtype_arg("eye", dtype).np), requires_grad)


# ---- copies and casts ---------------------------------------------------------------------
def _in_format(a, memory_format):
    """A copy of array `a` laid out in `memory_format` (channels_last...). None or preserve_format, as torch:
    the same strides where `a` is dense and does not overlap itself (a transposed or permuted block of
    memory), row-major otherwise."""
    if memory_format is None or memory_format is preserve_format or not is_array(a):
        if type(a) is np.ndarray and a.ndim > 1 and not (a.flags.c_contiguous and 1 not in a.shape) \
                and _dense(a) and a.strides != format_strides(a.shape, a.itemsize, None):
            # those strides over fresh memory
            out = np.ndarray(a.shape, a.dtype, buffer=np.empty(a.size, a.dtype), strides=a.strides)
            np.copyto(out, a)
            return out
        memory_format = contiguous_format
    if memory_format is contiguous_format:
        out = _fused.transposed_copy(a)   # (a transposed matrix: by tiles)
        return a.copy() if out is None else out
    order = format_order(a.ndim, memory_format)
    out = namespace(a).empty(tuple(a.shape[d] for d in order), dtype=a.dtype).transpose(
        [order.index(d) for d in range(a.ndim)])
    namespace(a).copyto(out, a)
    return out


def _dense(a):
    """Whether array `a` covers a block of memory without gaps or overlaps (its strides, largest first, are
    those of a row-major array of its sizes in that order; a zero or negative stride is not)."""
    step = a.itemsize
    for stride, size in sorted((st, n) for st, n in zip(a.strides, a.shape) if n != 1):
        if stride != step:
            return False
        step *= size
    return True


@register(aten=("empty_strided", "default"))
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """An uninitialized tensor of `size` with the given `stride` (elements to step in memory per
    index of each dimension), over just the memory those strides reach.

    Args:
        size (tuple of int): the shape.
        stride (tuple of int): the strides.
        dtype (torch.dtype, optional): the dtype (default: the default float dtype).
        device (torch.device, optional): only the CPU is supported.
        requires_grad (bool): whether autograd records operations on the result. Default: ``False``.

    Returns:
        Tensor: the new tensor; its values are arbitrary.

    Example::

        >>> x = torch.empty_strided((2, 3), (1, 2))
        >>> x.shape, x.stride()
        (torch.Size([2, 3]), (1, 2))
    """
    d = _dtype_arg("empty_strided", dtype).np
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape")
    n = 1 + sum((k - 1) * st for k, st in zip(size, stride)) if all(size) else 0
    memory = current().empty(n, dtype=d)
    view = np.ndarray(size, d, buffer=memory, strides=tuple(st * d.itemsize for st in stride)) \
        if type(memory) is np.ndarray else np.lib.stride_tricks.as_strided(memory, size, tuple(st * d.itemsize for st in stride))
    return _new(view, requires_grad)


@op("clone", method=True)
def clone(input, *, memory_format=None):
    return _in_format(input, memory_format)


@op("_to_copy", public="_to_copy")
def _to_copy(input, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
             memory_format=None):
    if _on_meta(device):   # onto the meta device: the shape and dtype only
        return MetaArray(input.shape, dtype.np if dtype is not None else input.dtype)
    out = input.astype(dtype.np if dtype is not None else input.dtype)
    return out if memory_format is None or memory_format is preserve_format else _in_format(out, memory_format)


@register(method=True)
def to(input, *args, dtype=None, device=None, non_blocking=False, copy=False, memory_format=None):
    for a in args:
        if isinstance(a, _dtype.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, str) or hasattr(a, "type"):
            device = a
    if device is not None:
        kind = str(device).split(":")[0]
        if input.is_meta and kind != "meta":
            raise NotImplementedError(NO_DATA)
        if kind == "meta" and not input.is_meta:
            return _to_copy(input, dtype=dtype or input.dtype, device="meta")
        if kind not in ("cpu", "meta"):
            raise NotImplementedError(f"device {device!r}: only the CPU backend is wired to ops so far")
    formatted = memory_format is None or memory_format is preserve_format or input.is_contiguous(memory_format)
    if (dtype is None or dtype == input.dtype) and not copy and formatted:
        return input
    # (positionally: dtype, layout, device, pin_memory, non_blocking, memory_format; no keyword binding)
    return call(_to_copy.spec, (input, dtype or input.dtype, None, None, None, False,
                                None if formatted else memory_format))


@op("copy_", public=False)
def _copy(input, src, non_blocking=False):
    # torch's RuntimeError naming both shapes, before NumPy's ValueError about "remapped shapes"
    if broadcast_shape(input.shape, np.shape(src)) != tuple(input.shape):
        raise RuntimeError(f"output with shape {list(input.shape)} doesn't match the broadcast shape "
                           f"{list(broadcast_shape(input.shape, np.shape(src)))}")
    return np.broadcast_to(src, input.shape).astype(input.dtype, copy=True)


@register(method="copy_")
def copy_(input, src, non_blocking=False):
    return call_inplace(_copy.spec, (input, src, non_blocking))


@op("_lazy_clone", method=True)
def _lazy_clone(input):
    """A copy (torch copies on first write; ndgrad copies at once)."""
    return input.copy()


# ---- forward AD's tangent layout ------------------------------------------------------------
def _new_zeros_with_same_feature_meta(self, other, *, self_num_batch_dims=0):
    """torch.ops.aten._new_zeros_with_same_feature_meta: zeros of other's dtype laid out exactly as
    other (sizes, strides, storage offset, storage size), preceded by self's first
    `self_num_batch_dims` sizes as batch dims, each batch entry a whole storage of its own. Forward
    AD stores a tangent in this layout when it differs from its primal's (autograd/forward_ad.py)."""
    n = operator.index(self_num_batch_dims)
    if not 0 <= n <= self.dim():
        raise RuntimeError(f"_new_zeros_with_same_feature_meta: self_num_batch_dims must be in [0, {self.dim()}], "
                           f"got {n}")
    data = other._array
    if not is_array(data):
        raise NotImplementedError(f"_new_zeros_with_same_feature_meta: a {other.layout} tensor has no strided layout")
    batch = tuple(self.shape[:n])
    storage = _owner(other).nbytes // data.itemsize
    batch_strides = tuple(storage * math.prod(batch[k + 1:]) for k in range(n))
    memory = namespace(data).zeros(storage * math.prod(batch), dtype=data.dtype)
    return _new(_strided(memory, data, batch + data.shape, batch_strides + other.stride(), other.storage_offset()))


aten._new_zeros_with_same_feature_meta = _new_zeros_with_same_feature_meta


# ---- torch's private autograd test ops --------------------------------------------------------
@op("_test_warn_in_autograd", public=False)
def _test_warn_in_autograd(input):
    """A copy whose backward warns "Warn from backward"."""
    return input.copy()


aten._test_warn_in_autograd = _test_warn_in_autograd


@op("_test_autograd_multiple_dispatch.fullcoverage", public=False)
def _test_autograd_multiple_dispatch_fullcoverage(input):
    return input.copy()


@op("_test_autograd_multiple_dispatch.ntonly", public=False)
def _test_autograd_multiple_dispatch_ntonly(input, b):
    return input.copy()


_multiple_dispatch_args = Parser("_test_autograd_multiple_dispatch(Tensor self)",
                                 "_test_autograd_multiple_dispatch(Tensor self, bool b)")


def _ntonly(input, b):
    # torch's ntonly has a kernel (and formulas) for nested tensors only; others run its composite: clone
    return _test_autograd_multiple_dispatch_ntonly(input, b) if input.is_nested else input.clone()


_aten_overload("_test_autograd_multiple_dispatch", "ntonly", _ntonly)   # torch.ops.aten's is the composite too


@register()
@_multiple_dispatch_args.signature
def _test_autograd_multiple_dispatch(*args, **kwargs):
    """A copy whose backward adds 1 to the gradient (squares it for a nested input); with `b` (torch's
    nested-only overload) a clone, whose backward for a nested input is grad * grad + grad."""
    which, args = _multiple_dispatch_args.parse(args, kwargs)
    return _test_autograd_multiple_dispatch_fullcoverage(*args) if which == 0 else _ntonly(*args)


@op("_test_autograd_multiple_dispatch_view", view=True)
def _test_autograd_multiple_dispatch_view(input):
    """input flattened, as a view."""
    return _view_forward(input, -1)


@op("_test_autograd_multiple_dispatch_view_copy")
def _test_autograd_multiple_dispatch_view_copy(input):
    """input flattened, as a copy (the *_copy form of :func:`_test_autograd_multiple_dispatch_view`)."""
    return _view_forward(input, -1).copy()


# ---- new tensors with a tensor's dtype (Tensor.new_*) ------------------------------------------
@method()
def new(self, *args, device=None):
    """new(*args, device=None) -> Tensor

    The legacy constructor, with this tensor's dtype: use :meth:`new_tensor`, :meth:`new_zeros` or
    :meth:`new_empty` in new code.

    ``x.new(data)`` makes a tensor of `data` (a list or a scalar); ``x.new(*sizes)`` (ints or one
    :class:`ndgrad.Size`) a tensor of that shape, zero-filled in ndgrad (torch leaves it
    uninitialised); ``x.new()`` an empty one; ``x.new(t)``, for a tensor `t` of the same dtype, an
    alias of `t`.

    Args:
        args: the data, the sizes, a tensor or nothing.
        device (ndgrad.device, optional): only the CPU is supported.

    Returns:
        Tensor: a tensor with this tensor's dtype, not requiring grad.

    Example::

        >>> x = torch.tensor([1.0, 2.0])
        >>> x.new([3, 4])
        tensor([3., 4.])
        >>> x.new(2, 3).shape
        torch.Size([2, 3])
    """
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if other.dtype is not self.dtype:
            raise TypeError(f"expected {_tensor_options(self.dtype)} (got {_tensor_options(other.dtype)})")
        return _alias(other)
    return _new(legacy_array(args, self.dtype, device, namespace(self._array)))


@method()
def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    return tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


@method()
def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    return zeros(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)


@method()
def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    return ones(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)


@method()
def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    return empty(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)


@method()
def new_empty_strided(self, size, stride, dtype=None, device=None, requires_grad=False):
    return empty_strided(size, stride, dtype=dtype or self.dtype, requires_grad=requires_grad)


@method()
def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
    return full(size, fill_value, dtype=dtype or self.dtype, requires_grad=requires_grad)


@register()
def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """Converts `obj` to a tensor. A Tensor or NumPy array is shared (no copy) when `copy` is not
    ``True`` and the dtype is kept; ``copy=False`` refuses a conversion that would copy. Other data
    (lists, numbers) is read as by :func:`ndgrad.tensor`. As in torch, an object with the buffer
    protocol (bytearray, array.array, memoryview) is shared as raw bytes read in `dtype` (default:
    the default float dtype), as :func:`ndgrad.frombuffer` reads it; a DLPack object is shared as
    :func:`ndgrad.from_dlpack` shares it.

    Args:
        obj (object): a Tensor, NumPy array, scalar or (nested) sequence.
        dtype (torch.dtype, optional): the dtype of the result (default: that of `obj`, or inferred).
        device (torch.device, optional): only the CPU is supported.
        copy (bool, optional): always copy (``True``), never copy (``False``), or copy only when needed (``None``).
        requires_grad (bool): whether autograd records operations on the result. Default: ``False``.

    Returns:
        Tensor: the tensor.

    Example::

        >>> a = torch.tensor([1, 2, 3])
        >>> torch.asarray(a) is a
        True
        >>> torch.asarray(a, copy=True).data_ptr() == a.data_ptr()
        False
        >>> torch.asarray([1.5, 2.5], dtype=torch.float64)
        tensor([1.5000, 2.5000], dtype=torch.float64)
    """
    _check_device("asarray", device)
    d = None if dtype is None else _dtype_arg("asarray", dtype)
    if isinstance(obj, (Tensor, np.ndarray, np.generic)) or hasattr(obj, "__dlpack__"):
        t = obj if isinstance(obj, Tensor) else from_numpy(np.asarray(obj)) if isinstance(obj, (np.ndarray, np.generic)) \
            else from_dlpack(obj)
        if d is not None and t.dtype is not d:
            if copy is False:
                raise ValueError(f"can't alias tensor with dtype '{t.dtype.title}' into dtype '{d.title}'.")
            t = t.to(d)
        elif copy:
            t = t.clone()
    elif _has_buffer(obj):   # as torch: raw bytes, read in the dtype asked for (or the default one)
        t = _new(_from_buffer(obj, d if d is not None else _dtype.defaults.float), False)
        if copy:
            t = t.clone()
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        t = tensor(obj, dtype=d)
    if requires_grad:
        if not (t.dtype.is_floating_point or t.dtype.is_complex):   # (not requires_grad_'s message, as torch)
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad_(True)
    return t


def _has_buffer(obj):
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


# ---- api: window functions, triangle indices, scalar_tensor, frombuffer, empty_permuted
def _window(name, values, params=()):
    """torch's `name`_window: `values(k, n, *params)` is the symmetric window of n points (k = arange(n)
    in the window's dtype, as torch computes it); a periodic window is n + 1 symmetric points less the
    last. Each of the float `params` needs `periodic` and those before it (torch's overloads)."""
    lead = ["int window_length", "bool periodic"] + [f"float {p}" for p in params]
    parser = Parser(*(f"{name}({', '.join(lead[:i])}, *, {_FACTORY_KWARGS})" for i in range(1, len(lead) + 1)))

    @parser.signature
    def window(*args, **kwargs):
        _, (window_length, *explicit) = parser.parse(args, kwargs)
        dtype, layout, device, pin_memory, requires_grad = explicit[-5:]
        periodic, *given = explicit[:-5] or [True]
        _check_device(name, device)
        d = _dtype_arg(name, dtype)
        if not d.is_floating_point and not d.is_complex:
            raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype={_c_type(d)}, "
                               "device=cpu, layout=Strided (default), requires_grad=false (default), "
                               f"pinned_memory={str(pin_memory).lower()}, memory_format=(nullopt))")
        if window_length < 0:
            raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
        if window_length <= 1:
            return _new(np.ones(window_length, dtype=d.np), requires_grad)
        if d.is_complex:   # torch has no complex arange to start the window from
            raise NotImplementedError(f"\"arange_cpu\" not implemented for '{d.title}'")
        n = window_length + 1 if periodic else window_length
        w = values(np.arange(n, dtype=d.np), n, *given)
        return _new(np.ascontiguousarray(w[:window_length]).astype(d.np), requires_grad)
    window.__name__ = window.__qualname__ = name
    return register(name)(window)


# torch's formulas, in its order of operations and in the window's dtype (a float32 window's values
# and its zero endpoints are torch's to the bit)
def _hamming(k, n, alpha=0.54, beta=0.46):
    t = k.dtype.type
    return np.cos(k * t(2 * math.pi / (n - 1))) * t(-beta) + t(alpha)


def _blackman(k, n):
    t = k.dtype.type
    x = k * t(math.pi / (n - 1))
    return t(0.08) * np.cos(x * t(4)) - t(0.5) * np.cos(x * t(2)) + t(0.42)


def _bartlett(k, n):
    w = k * k.dtype.type(2 / (n - 1))
    half = (n - 1) // 2 + 1
    w[half:] = 2 - w[half:]
    return w


hann_window = _window("hann_window", lambda k, n: _hamming(k, n, 0.5, 0.5))
hamming_window = _window("hamming_window", _hamming, ("alpha", "beta"))
blackman_window = _window("blackman_window", _blackman)
bartlett_window = _window("bartlett_window", _bartlett)
kaiser_window = _window("kaiser_window", lambda k, n, beta=12.0: np.kaiser(n, beta), ("beta",))


def _triangle_indices(name, np_indices):
    def indices(row, col, offset=0, *, dtype=None, layout=None, device=None, pin_memory=False):
        _check_device(name, device)
        d = _dtype_arg(name, dtype, _dtype.int64)
        if d not in (_dtype.int32, _dtype.int64):
            raise RuntimeError("\"" + name + "\" not implemented for '" + _dtype.type_word(d.np) + "'")
        for what, n in (("row", row), ("col", col)):   # NumPy would give no indices
            if n < 0:
                raise RuntimeError(f"{name}(): {what} must be non-negative, got {n}")
        rows, cols = np_indices(row, offset, col)
        return _new(np.stack([rows, cols]).astype(d.np).reshape(2, -1))
    indices.__name__ = indices.__qualname__ = name
    return register(name)(indices)


tril_indices = _triangle_indices("tril_indices", np.tril_indices)
triu_indices = _triangle_indices("triu_indices", np.triu_indices)


@register(aten=("scalar_tensor", "default"))
def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A 0-dim tensor holding the number `s`, of the default float dtype unless `dtype` says otherwise.

    Args:
        s (Number): the value.
        dtype (torch.dtype, optional): the dtype.
        device (torch.device, optional): only the CPU is supported.
        requires_grad (bool): whether autograd records operations on the result. Default: ``False``.

    Returns:
        Tensor: the 0-dim tensor.

    Example::

        >>> torch.scalar_tensor(3)
        tensor(3.)
        >>> torch.scalar_tensor(1, dtype=torch.int64)
        tensor(1)
    """
    _check_device("scalar_tensor", device)
    d = _dtype_arg("scalar_tensor", dtype)
    if isinstance(s, complex) and not d.is_complex:
        raise RuntimeError("value cannot be converted to type float without overflow")
    return _new(np.asarray(_scalar(s), dtype=d.np), requires_grad)


@register()
def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor that shares the memory of a Python object with the buffer protocol (bytearray,
    array.array, memoryview...): writing to one changes the other.

    Args:
        buffer (object): the buffer (writable, or torch warns).
        dtype (torch.dtype): the dtype to read the bytes as.
        count (int): the number of elements to read; ``-1`` for all. Default: ``-1``.
        offset (int): the number of bytes to skip first. Default: ``0``.
        requires_grad (bool): whether autograd records operations on the result. Default: ``False``.

    Returns:
        Tensor: the tensor over the buffer.

    Example::

        >>> import array
        >>> a = array.array("i", [1, 2, 3])
        >>> t = torch.frombuffer(a, dtype=torch.int32)
        >>> t[0] = 7
        >>> a
        array('i', [7, 2, 3])
    """
    return _new(_from_buffer(buffer, _dtype_arg("frombuffer", dtype), count, offset), requires_grad)


def _from_buffer(buffer, d, count=-1, offset=0):
    """The array of dtype `d` over `buffer`'s bytes (shared when it is writable), with torch's checks."""
    length, size = memoryview(buffer).nbytes, d.itemsize
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({length} bytes) minus 1")
    if count < 0 and (length - offset) % size:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a multiple "
                         f"of element size ({size})")
    if count > 0 and count * size > length - offset:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) must not "
                         f"be greater than actual buffer length ({length} bytes)")
    data = np.frombuffer(buffer, dtype=d.np, count=max(count, -1), offset=offset)
    if not data.flags.writeable:   # torch writes into the immutable buffer; NumPy cannot: a copy
        warnings.warn("The given buffer is not writable, and PyTorch does not support non-writable tensors. This "
                      "means you can write to the underlying (supposedly non-writable) buffer using the tensor. You "
                      "may want to copy the buffer to protect its data or make it writable before converting it "
                      "to a tensor. This type of warning will be suppressed for the rest of this program.")
        data = data.copy()
    return data


_from_file_args = Parser("from_file(str filename, bool? shared=None, int? size=0, *, ScalarType? dtype=None, "
                         "Layout? layout=None, Device? device=None, bool? pin_memory=False, bool requires_grad=False)")


@_from_file_args.signature
def from_file(*args, **kwargs):
    """A 1-D CPU tensor of `size` elements over a memory-mapped file.

    With ``shared=True`` the mapping is shared (MAP_SHARED): writes to the tensor reach the file, and the
    file is created, or grown, to hold ``size`` elements. Otherwise (False or None) the mapping is private:
    the tensor starts as the file's first ``size * itemsize`` bytes (the file must have them) and writes
    stay in the tensor.

    Args:
        filename (str): the file.
        shared (bool, optional): whether writes reach the file. Default: ``None`` (they do not).
        size (int, optional): the number of elements. Default: ``0``.
        dtype (torch.dtype, optional): the dtype the bytes are read as. Default: the default float dtype.
        layout, device, pin_memory: only the strided CPU tensor in pageable memory exists.
        requires_grad (bool, optional): whether autograd records operations on it. Default: ``False``.

    Example::

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "data.bin")
        >>> torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64).numpy().tofile(path)
        >>> torch.from_file(path, size=3, dtype=torch.float64)
        tensor([0., 1., 2.], dtype=torch.float64)
    """
    _, (filename, shared, size, dtype, layout, device, pin_memory, requires_grad) = _from_file_args.parse(args, kwargs)
    if layout is not None and layout is not strided:
        raise NotImplementedError(f"Could not run 'aten::from_file' with arguments from the '{BACKEND[layout]}' "
                                  "backend (a file maps into a strided tensor only).")
    _check_device("from_file", device)
    if pin_memory:
        raise RuntimeError("tensors constructed from a file cannot be pinned")
    d = _dtype_arg("from_file", dtype)
    size = size or 0
    nbytes = size * d.itemsize
    flags = os.O_RDWR | os.O_CREAT if shared else os.O_RDONLY
    try:
        fd = os.open(filename, flags, 0o600)
    except OSError as e:
        mode = "read-write" if shared else "read-only"
        raise RuntimeError(f"unable to open file <{filename}> in {mode} mode: {e.strerror} ({e.errno})") from None
    try:
        if nbytes < 0:
            raise RuntimeError(f"unable to mmap {nbytes} bytes from file <{filename}>: Cannot allocate memory (12)")
        length = os.fstat(fd).st_size
        if length < nbytes:
            if not shared:
                raise RuntimeError(f"file <{filename}> size <{length}> is smaller than the required mapping size "
                                   f"<{nbytes}>")
            os.ftruncate(fd, nbytes)
        # (mmap cannot map 0 bytes: an empty tensor maps nothing)
        data = np.frombuffer(mmap.mmap(fd, nbytes, mmap.MAP_SHARED if shared else mmap.MAP_PRIVATE),
                             dtype=d.np, count=size) if nbytes else np.empty(0, d.np)
    finally:
        os.close(fd)
    return _new(data, requires_grad)


register("from_file")(from_file)


@register()
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """An uninitialized tensor of `size` whose memory holds its dimensions in the order `physical_layout`
    (the first listed outermost), so that its strides follow that order.

    Args:
        size (tuple of int): the shape.
        physical_layout (tuple of int): a permutation of the dimensions, outermost first.
        dtype (torch.dtype, optional): the dtype (default: the default float dtype).
        device (torch.device, optional): only the CPU is supported.
        requires_grad (bool): whether autograd records operations on the result. Default: ``False``.

    Returns:
        Tensor: the new tensor; its values are arbitrary.

    Example::

        >>> x = torch.empty_permuted((2, 3, 4), (0, 2, 1))
        >>> x.shape, x.stride()
        (torch.Size([2, 3, 4]), (12, 1, 3))
    """
    _check_device("empty_permuted", device)
    size, order = tuple(size), tuple(physical_layout)
    if sorted(order) != list(range(len(size))):
        raise RuntimeError("Number of dimensions in size does not match the length of the physical_layout; "
                           f"i.e. len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}")
    data = np.empty(tuple(size[d] for d in order), dtype=_dtype_arg("empty_permuted", dtype).np)
    return _new(data.transpose([order.index(d) for d in range(len(size))]), requires_grad)


@register("range")   # not named range here: that would hide the builtin from this module
def _range(start=0, end=None, step=1, *, dtype=None, layout=None, device=None, requires_grad=False,
           pin_memory=False):
    """The values ``start, start + step, ...`` up to and including `end` (deprecated in torch, which
    warns: :func:`ndgrad.arange` excludes `end`), of the default float dtype unless `dtype` says otherwise.

    Args:
        start (Number): the first value. Default: ``0``.
        end (Number): the last value.
        step (Number): the gap between values. Default: ``1``.
        dtype (torch.dtype, optional): the dtype.

    Returns:
        Tensor: the 1-D tensor of values.

    Example::

        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     torch.range(1, 4)
        tensor([1., 2., 3., 4.])
    """
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    _check_device("range", device)
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    if step == 0:
        raise RuntimeError("step must be nonzero")
    d = _dtype_arg("range", dtype)
    size = int(math.floor((end - start) / step)) + 1
    return _new((start + step * np.arange(max(size, 0), dtype=np.float64)).astype(d.np), requires_grad)
