"""A branch-free `np.where` for floating-point arrays.

np.where branches per element: on an unpredictable mask (a ReLU's, dropout's) it runs ~25x slower
than an add, and ~3x on a regular one (a causal mask). For floats of one dtype the same selection
is exact on the bit patterns: (a & m) | (b & ~m), with m all-ones where the mask is set — NaN,
inf and signed zeros come through unchanged. Anything else (other dtypes, mixed dtypes, small
arrays where the extra passes cost more than they save) goes to np.where.
"""
import numpy as np

from ..backends import is_array

_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}
_SMALL = 4096   # below this many elements np.where's single pass wins


def where(mask, a, b):
    """a where mask else b (NumPy broadcasting). a and b: arrays or scalars; when both are (or
    convert losslessly to) one float dtype the result has it."""
    if type(mask) is np.ndarray and mask.size < _SMALL and _small(a) and _small(b):
        return np.where(mask, a, b)   # (the usual small call, decided without the shapes below)
    dtype = np.result_type(a, b)
    uint = _UINT.get(dtype.itemsize)
    shape = np.broadcast_shapes(np.shape(mask), np.shape(a), np.shape(b))
    if (dtype.kind != "f" or uint is None or mask.dtype != np.bool_ or _numel(shape) < _SMALL
            or any(is_array(v) and v.dtype != dtype for v in (a, b))):
        return np.where(mask, a, b)
    m = mask.astype(uint)   # all-ones words where set, in the mask's own shape (broadcast below)
    np.negative(m, out=m)
    a, b = _bits(a, dtype, uint), _bits(b, dtype, uint)
    # The larger operand is read once, into the result; the smaller one's part (a scalar fill value's,
    # a broadcast one's) is made in its and the mask's broadcast shape and added in a second pass,
    # unless it is all zero bits (+0.0).
    if a.size > b.size:
        big, small = a, b
        part = None if not small.ndim and small == 0 else np.bitwise_and(small, np.invert(m))
        keep = m
    else:
        big, small = b, a
        part = None if not small.ndim and small == 0 else np.bitwise_and(small, m)
        keep = np.invert(m, out=m)
    if part is None and keep.shape == shape:   # (our own array: the mask's words become the result)
        return np.bitwise_and(big, keep, out=keep).view(dtype)
    out = np.bitwise_and(big, keep, out=np.empty(shape, uint))
    if part is not None:
        out |= part
    return out.view(dtype)


def _small(v):
    """Whether v is a NumPy array of fewer than _SMALL elements or a Python number."""
    return type(v) is np.ndarray and v.size < _SMALL or type(v) in (int, float, bool)


def _bits(v, dtype, uint):
    return np.asarray(v, dtype).view(uint)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n
