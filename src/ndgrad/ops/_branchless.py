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
    dtype = np.result_type(a, b)
    uint = _UINT.get(dtype.itemsize)
    shape = np.broadcast_shapes(np.shape(mask), np.shape(a), np.shape(b))
    if (dtype.kind != "f" or uint is None or mask.dtype != np.bool_ or _numel(shape) < _SMALL
            or any(is_array(v) and v.dtype != dtype for v in (a, b))):
        return np.where(mask, a, b)
    m = mask.astype(uint)   # all-ones words where set, in the mask's own shape (broadcast below)
    np.negative(m, out=m)
    b = _bits(b, dtype, uint)
    if not b.ndim and b == 0 and m.shape == shape:   # b == +0.0 adds nothing: AND into m itself
        return np.bitwise_and(_bits(a, dtype, uint), m, out=m).view(dtype)
    out = np.bitwise_and(_bits(a, dtype, uint), m, out=np.empty(shape, uint))
    if b.ndim or b != 0:
        out |= np.bitwise_and(b, np.invert(m, out=m))
    return out.view(dtype)


def _bits(v, dtype, uint):
    return np.asarray(v, dtype).view(uint)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n
