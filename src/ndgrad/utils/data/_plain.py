"""When the data pipeline may use NumPy in place of ops: the collate functions and the loader build
a batch's tensors straight from the samples' arrays where that gives exactly the tensors the ops
would (values, dtype, strides, a fresh leaf), since the ops' per-call glue costs more than the copy.
They ask the two questions here, and take the ops' path whenever either says no.
"""
import numpy as np

from ..._tensor import Tensor
from ...ops._registry import ops_unobserved

# torch's dtypes that NumPy holds natively and whose copies no op treats specially (bfloat16 ops
# compute in float32, ndgrad refuses some uint16/32/64 ops): the dtypes of the NumPy shortcut
_PLAIN_DTYPES = frozenset(np.dtype(c) for c in "?BbhilqefdFD")


def plain_arrays(tensors):
    """The NumPy arrays of `tensors` when NumPy on them gives what the ops would: exact Tensors with
    no autograd history to record and no lazy conjugate/negative bit, over C-contiguous NumPy arrays
    of one shape and one of `_PLAIN_DTYPES`, and no one watching the ops (`ops_unobserved`). Else None."""
    first = tensors[0]._array if type(tensors[0]) is Tensor else None
    if type(first) is not np.ndarray or first.dtype not in _PLAIN_DTYPES or not ops_unobserved():
        return None
    shape, dtype = first.shape, first.dtype
    arrays = []
    for t in tensors:
        a = t._array if type(t) is Tensor else None
        if (type(a) is not np.ndarray or a.dtype != dtype or a.shape != shape or not a.flags.c_contiguous
                or t._math_bits or t.requires_grad):
            return None
        arrays.append(a)
    return arrays
