"""dtypes and torch's type-promotion rules.

A `dtype` wraps the NumPy dtype that stores it. Promotion follows torch, not NumPy:
categories bool < integer < floating < complex; tensors with dimensions decide inside a
category, zero-dim tensors and Python scalars only lift the category.
"""
import numpy as np

try:   # bfloat16 storage and ufuncs (an optional dependency: `pip install ndgrad[bfloat16]`)
    import ml_dtypes as _ml_dtypes
except ImportError:
    _ml_dtypes = None


class dtype:
    """The data type of a tensor's elements: ``torch.float32``, ``torch.int64``, ``torch.bool``...
    Each dtype is one object, compared with ``==`` or ``is``; ndgrad stores it as a NumPy dtype. Its
    flags ``is_floating_point``, ``is_complex`` and ``is_signed`` say its kind, ``itemsize`` the size of
    one element in bytes.

    Example::

        >>> x = torch.tensor([1.0])
        >>> x.dtype, x.dtype.is_floating_point, x.dtype.itemsize
        (torch.float32, True, 4)
        >>> torch.complex64.to_real()
        torch.float32
    """
    __slots__ = ("name", "title", "np", "is_floating_point", "is_complex", "is_signed", "itemsize", "_rank")

    def __init__(self, name, title, np_dtype, rank):
        self.name = name
        self.title = title   # torch's ScalarType word used in messages: Float, Double, Long...
        self.np = np.dtype(np_dtype)
        self.is_floating_point = rank == 2   # not the NumPy kind: ml_dtypes' bfloat16 has kind "V"
        self.is_complex = self.np.kind == "c"
        self.is_signed = rank >= 2 or self.np.kind == "i"
        self.itemsize = self.np.itemsize
        self._rank = rank  # category: 0 bool, 1 integer, 2 floating, 3 complex

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))

    def to_real(self):
        return {complex64: float32, complex128: float64}.get(self, self)

    def to_complex(self):
        if self._rank < 2:   # as torch: integers and bool have no complex counterpart
            raise RuntimeError(f"Unknown Complex ScalarType for {self.title}")
        return {float16: complex64, bfloat16: complex64, float32: complex64, float64: complex128}.get(self, self)


class _MissingDtype(dtype):
    """A dtype whose NumPy storage comes from a package that is not installed: it can be named,
    printed and compared, and any use that needs its storage says what to install."""
    __slots__ = ("_package",)

    def __init__(self, name, title, rank, itemsize, package):
        self.name, self.title, self._rank, self.itemsize, self._package = name, title, rank, itemsize, package
        self.is_floating_point, self.is_complex, self.is_signed = rank == 2, rank == 3, True

    def __getattribute__(self, attr):
        if attr == "np":
            raise ImportError(f"torch.{object.__getattribute__(self, 'name')} needs the "
                              f"{object.__getattribute__(self, '_package')} package: pip install "
                              f"{object.__getattribute__(self, '_package')}")
        return object.__getattribute__(self, attr)


bool_ = dtype("bool", "Bool", np.bool_, 0)
uint8 = dtype("uint8", "Byte", np.uint8, 1)
int8 = dtype("int8", "Char", np.int8, 1)
int16 = dtype("int16", "Short", np.int16, 1)
int32 = dtype("int32", "Int", np.int32, 1)
int64 = dtype("int64", "Long", np.int64, 1)
float16 = dtype("float16", "Half", np.float16, 2)
float32 = dtype("float32", "Float", np.float32, 2)
float64 = dtype("float64", "Double", np.float64, 2)
# torch's brain float (8 exponent bits, 7 mantissa bits), stored as ml_dtypes.bfloat16
bfloat16 = (dtype("bfloat16", "BFloat16", _ml_dtypes.bfloat16, 2) if _ml_dtypes is not None else
            _MissingDtype("bfloat16", "BFloat16", 2, 2, "ml_dtypes"))
complex64 = dtype("complex64", "ComplexFloat", np.complex64, 3)
complex128 = dtype("complex128", "ComplexDouble", np.complex128, 3)
# torch's "barebones" unsigned dtypes: storage, conversions and a few kernels (ops/_unsigned.py lists
# them); no promotion with another integer, bool or complex dtype
uint16 = dtype("uint16", "UInt16", np.uint16, 1)
uint32 = dtype("uint32", "UInt32", np.uint32, 1)
uint64 = dtype("uint64", "UInt64", np.uint64, 1)
UNSIGNED = (uint16, uint32, uint64)
UNSIGNED_NP = frozenset(d.np for d in UNSIGNED)

ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128) + \
    ((bfloat16,) if _ml_dtypes is not None else ())
# NumPy kinds of ndgrad's floating (and inexact) storage: ml_dtypes files bfloat16 under "V" (and
# ndgrad admits no other "V" dtype), so `a.dtype.kind in INEXACT_KINDS` means "can require grad"
FLOAT_KINDS = "fV"
INEXACT_KINDS = "fcV"
BF16_NP = bfloat16.np if _ml_dtypes is not None else None
ALIASES = {"half": float16, "float": float32, "double": float64, "short": int16, "int": int32,
           "long": int64, "cfloat": complex64, "cdouble": complex128, "bool": bool_}
_from_np = {d.np: d for d in ALL + UNSIGNED}


def type_word(x):
    """torch's word for a dtype in messages (Float, Double, Long...); x: a dtype or a NumPy dtype."""
    return x.title if isinstance(x, dtype) else from_numpy_dtype(np.dtype(x)).title
_by_name_map = {d.name: d for d in ALL + UNSIGNED + (bfloat16,)}


def _by_name(name):
    return _by_name_map[name]


def from_numpy_dtype(np_dtype):
    try:
        return _from_np[np_dtype]
    except KeyError:
        d = np.dtype(np_dtype)
        if d in _from_np:
            return _from_np[d]
        raise TypeError(f"can't convert np.ndarray of type numpy.{d.type.__name__}. The only supported types are: "
                        "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, "
                        "uint16, uint8, and bool.")


def is_bfloat16(np_dtype):
    """Whether a NumPy dtype is ml_dtypes' bfloat16 (compared by identity first: the common no)."""
    return BF16_NP is not None and np_dtype == BF16_NP


def to_dtype(d):
    """Accept an ndgrad dtype, a NumPy dtype or a Python type and return the ndgrad dtype."""
    if isinstance(d, dtype):
        return d
    if d is float:
        return float64
    if d is int:
        return int64
    if d is bool:
        return bool_
    if d is complex:
        return complex128
    return from_numpy_dtype(np.dtype(d))


class _Defaults:
    __slots__ = ("float", "complex")


defaults = _Defaults()
defaults.float = float32
defaults.complex = complex64


def set_default_dtype(d):
    """Sets the floating dtype that factories and float literals use (float32 at start);
    the default complex dtype follows it (complex64 for float32, complex128 for float64).

    Args:
        d (dtype): a floating dtype.

    Example::

        >>> torch.set_default_dtype(torch.float64)
        >>> torch.tensor([1.5]).dtype, torch.tensor([1j]).dtype
        (torch.float64, torch.complex128)
        >>> torch.set_default_dtype(torch.float32)
    """
    d = to_dtype(d)
    if not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    defaults.float = d
    defaults.complex = d.to_complex()


def get_default_dtype():
    """The current default floating dtype (see :func:`ndgrad.set_default_dtype`).

    Returns:
        dtype: float32 unless changed.

    Example::

        >>> torch.get_default_dtype()
        torch.float32
    """
    return defaults.float


def promote_types(a, b):
    """The smallest dtype to which both `a` and `b` convert without losing their kind (the dtype type
    promotion gives an operation on tensors of these two dtypes).

    Args:
        a (torch.dtype): the first dtype.
        b (torch.dtype): the second dtype.

    Returns:
        torch.dtype: the promoted dtype.

    Example::

        >>> torch.promote_types(torch.int32, torch.float32)
        torch.float32
        >>> torch.promote_types(torch.uint8, torch.int8)
        torch.int16
    """
    if a is b:
        return a
    if (a in UNSIGNED or b in UNSIGNED) and not (a.is_floating_point or b.is_floating_point):
        raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {a.title} and {b.title}")
    if a._rank != b._rank:
        hi, lo = (a, b) if a._rank > b._rank else (b, a)
        if hi._rank == 3 and lo._rank == 2:  # complex keeps the wider float precision
            return complex128 if (hi is complex128 or lo is float64) else complex64
        return hi
    if a is bfloat16 or b is bfloat16:   # no NumPy rule joins it with float16: both fit in float32
        other = b if a is bfloat16 else a
        return float32 if other is float16 else other
    return _from_np[np.promote_types(a.np, b.np)]


def scalar_dtype(value):
    """The dtype torch gives a Python scalar taking part in promotion."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return defaults.float
    if isinstance(value, complex):
        return defaults.complex
    return from_numpy_dtype(np.asarray(value).dtype)


def _combine(higher, lower):
    # torch's category rule: the lower-priority operand only matters if it lifts the category
    if higher is None:
        return lower
    if lower is None or higher._rank == 3:
        return higher
    if lower._rank == 3:
        return higher.to_complex() if higher._rank == 2 else lower
    if higher._rank == 2:
        return higher
    if higher is bool_ or lower._rank == 2:
        return promote_types(higher, lower)
    return higher


def result_type(dim_dtypes, zero_dim_dtypes=(), scalars=()):
    """torch.result_type over tensors with dims, zero-dim tensors and Python scalars."""
    dim = zero = wrapped = None
    for d in dim_dtypes:
        dim = d if dim is None else promote_types(dim, d)
    for d in zero_dim_dtypes:
        zero = d if zero is None else promote_types(zero, d)
    for s in scalars:
        d = scalar_dtype(s)
        wrapped = d if wrapped is None else promote_types(wrapped, d)
    return _combine(dim, _combine(zero, wrapped))
