"""torch.finfo and torch.iinfo: the numerical limits of floating-point and integer dtypes (read
from NumPy's, which describe the same IEEE and two's-complement formats)."""
import numpy as np

from . import _dtype


class finfo:
    """The numerical properties of a floating-point dtype (of a complex dtype: of its real part), as
    attributes: ``bits``, ``eps``, ``max``, ``min``, ``tiny`` (``smallest_normal``), ``resolution`` and ``dtype``.

    Args:
        type (torch.dtype, optional): a floating-point or complex dtype. Default: the default dtype.

    Example::

        >>> torch.finfo(torch.float32).eps
        1.1920928955078125e-07
        >>> torch.finfo(torch.float16).max
        65504.0
        >>> torch.finfo().bits
        32
    """

    def __init__(self, type=None):  # noqa: A002 - torch's parameter name
        d = _dtype.defaults.float if type is None else type
        if not isinstance(d, _dtype.dtype) or d._rank < 2:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        real = d.to_real().np
        # NumPy's finfo does not know ml_dtypes' bfloat16; ml_dtypes' own finfo describes it
        info = _dtype._ml_dtypes.finfo(real) if _dtype.is_bfloat16(real) else np.finfo(real)
        self.bits = info.bits
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision   # exact decimal, as torch reports it
        self.dtype = d.to_real().name

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """The numerical properties of an integer dtype, as attributes: ``bits``, ``max``, ``min`` and ``dtype``.

    Args:
        type (torch.dtype): an integer dtype (or bool).

    Example::

        >>> torch.iinfo(torch.int8).min, torch.iinfo(torch.int8).max
        (-128, 127)
        >>> torch.iinfo(torch.int64).bits
        64
    """

    def __init__(self, type):  # noqa: A002
        if type is _dtype.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if not isinstance(type, _dtype.dtype) or type._rank != 1:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(type.np)
        self.bits = info.bits
        self.min = int(info.min)
        self.max = int(info.max)
        self.dtype = type.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
