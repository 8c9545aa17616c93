"""Scratch buffers for the temporaries of the heavy array kernels (convolution, the fused LSTM
layer): arrays that never leave the op, reused across calls. A fresh large array costs the kernel
zero-filling new pages on first touch, as much time as the copies themselves; a step of a CNN or
an LSTM asks for the same shapes every time. One buffer per purpose (`slot`) and dtype and thread,
grown to the largest size asked for; buffers over LIMIT bytes are not kept.

`split` runs a large pass in two halves on two threads (below).
"""
import contextvars
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor

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


# ---- two-way splitting of large memory-bound passes --------------------------------------------
# NumPy releases the GIL in its loops, so a pass over a large array split in two halves runs on two
# cores (torch splits its batch norm, pooling and copies over its threads the same way). Only for
# work a caller splits along an axis whose parts are computed independently (per sample or per
# channel), so the results are bitwise those of one pass. One worker thread, created on first use
# (again in a forked child, whose copy of it has no thread); a split from inside a split runs whole.
MIN_SPLIT = 1 << 19   # elements touched below which the handoff costs more than it saves
_CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
_worker = None        # (pid, ThreadPoolExecutor)
_worker_lock = threading.Lock()


def _executor():
    global _worker
    with _worker_lock:
        if _worker is None or _worker[0] != os.getpid():
            _worker = (os.getpid(), ThreadPoolExecutor(1, thread_name_prefix="ndgrad-split"))
        return _worker[1]


def _after_fork():   # a fork while another thread held the lock must not leave the child waiting on it
    global _worker_lock
    _worker_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def _run(fn, lo, hi):
    _local.splitting = True
    try:
        fn(lo, hi)
    finally:
        _local.splitting = False


def split(fn, n, work):
    """fn(lo, hi) over [0, n): as fn(0, n/2) here and fn(n/2, n) on the worker thread at once when
    `work` (elements touched) is large enough and there are two cores; else fn(0, n)."""
    if n < 2 or work < MIN_SPLIT or _CORES < 2 or getattr(_local, "splitting", False):
        fn(0, n)
        return
    half = n // 2
    try:   # (in a copy of this context: NumPy's errstate, for one, is a context variable)
        other = _executor().submit(contextvars.copy_context().run, _run, fn, half, n)
    except RuntimeError:   # the interpreter is shutting down: no new threads
        fn(0, n)
        return
    try:
        _run(fn, 0, half)
    finally:
        other.result()
