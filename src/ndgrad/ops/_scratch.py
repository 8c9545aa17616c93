"""Scratch buffers for the temporaries of the heavy array kernels (convolution, the fused LSTM
layer): arrays that never leave the op, reused across calls. A fresh large array costs the kernel
zero-filling new pages on first touch, as much time as the copies themselves; a step of a CNN or
an LSTM asks for the same shapes every time. One buffer per purpose (`slot`) and dtype and thread,
grown to the largest size asked for; buffers over LIMIT bytes are not kept.
"""
import math
import threading

import numpy as np

_local = threading.local()
LIMIT = 32 << 20


def buffer(slot, shape, dtype):
    """An uninitialised scratch array of `shape`: the caller owns it until it asks for `slot` again."""
    size = math.prod(shape)
    dtype = np.dtype(dtype)
    if size * dtype.itemsize > LIMIT:
        return np.empty(shape, dtype)
    cache = getattr(_local, "buffers", None)
    if cache is None:
        cache = _local.buffers = {}
    buf = cache.get((slot, dtype))
    if buf is None or buf.size < size:
        buf = cache[slot, dtype] = np.empty(size, dtype)
    return buf[:size].reshape(shape)
