"""Native helper threads for the large elementwise passes and matrix products, as torch's intra-op pool.

On a small VM a sleeping thread takes 15-40 µs to wake (the idle vCPU halts; the wake-up interrupt exits
to the hypervisor), and a Python worker needs the GIL, a second such wake: _parallel's threads gain
nothing on a 1 MB add (37 µs alone). These helpers are pthreads running numba-compiled code that never
touches Python: they spin (pause, sched_yield) for ~0.7 ms after their last job, so that the passes of a
training step find them awake, then sleep on a condition variable. A job is published through shared
memory and cut into chunks that every thread, the caller included, claims in turn: a helper that is
late costs its share, never a wait (see _pool_kernels for the protocol).

Jobs: add, sub, mul, div and ReLU of float32/float64 arrays (NumPy's IEEE operations, element by element:
its bits), compiled jobs (`run`: a numba cfunc over chunks; layer norm, softmax's backward, masked_fill,
ReLU's backward from ops/_numba_kernels) and matrix products through NumPy's OpenBLAS on one thread per
piece: whole products of a stack (each as OpenBLAS computes it alone), or one row (or column) block per
thread of a matrix product. OpenBLAS's blocking depends on the block's size, so such a product's bits
depend on the thread count, as OpenBLAS's (and torch's MKL's) own threads make them; within a process they
are fixed: while another Python thread's job runs, a job's chunks are computed in turn by its caller (the
same chunks). The callers keep their NumPy path where the pool is absent (no numba,
NDGRAD_POOL=0 or NDGRAD_NUMBA=0, one thread: `torch.set_num_threads(1)`).

numba compiles the helpers' code once per installation (~10 s, cached on disk beside the module, or
where NUMBA_CACHE_DIR says); a process loads it at its first large pass (~0.4 s).
"""
import atexit
import contextlib
import ctypes
import os
import threading

import numpy as np

from . import _native, _parallel

# off with NDGRAD_POOL=0, and with NDGRAD_NUMBA=0 (no numba at all: see ops/_fused.py)
enabled = os.environ.get("NDGRAD_POOL", "1") != "0" and os.environ.get("NDGRAD_NUMBA", "1") != "0"
MAX_THREADS = 8             # the pool's threads, the caller's included: more spin for jobs cut in few chunks
MIN_ELEMENTS = 1 << 16      # an elementwise pass below this stays on NumPy (a job's round trip is ~1-2 µs)
# ... and an add, sub, mul, div or ReLU below this many bytes out: NumPy's own loop over 256 KB of float32
# takes ~8 µs, less than a job (float32 65536-element multiply 7.5 µs against the pool's 12.5; float64's
# 512 KB 28 against 22)
MIN_BINARY_BYTES = 8 << 16
CHUNK = 1 << 15             # elements per chunk of an elementwise pass
# a product of fewer multiply-adds times itemsize stays on NumPy (float32: 1M multiply-adds, ~15 µs on one
# thread; float64 half as many): below that a job's cost outweighs the second thread
MIN_PRODUCT = 4 << 20

_k = None                   # _pool_kernels once the helpers run; False where they cannot
_ctrl = None
_helpers = []               # (pthread id, its start argument)
_busy = threading.Lock()
_starting = threading.Lock()
_products = False           # whether NumPy's BLAS is an OpenBLAS with CBLAS products the helpers can call
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _start():
    if not enabled or _parallel.threads < 2:
        return False
    with _starting:   # (two threads' first large passes at once: one starts the helpers)
        if _k is not None:
            return bool(_k)
        return _launch()


def _launch():
    global _k, _ctrl, _products
    try:
        from . import _pool_kernels as k   # (compiles the helpers' code, or loads it from numba's cache)
    except Exception:   # noqa: BLE001  (no numba, or a platform its code does not compile for: NumPy's paths run)
        _k = False
        return False
    ctrl = np.zeros(k.PRIVATE + 32 * 64 + 16, np.int64)
    for slot, dtype in ((k.SGEMM, np.float32), (k.DGEMM, np.float64)):
        fn = _native.gemm(dtype)
        ctrl[slot] = 0 if fn is None else ctypes.cast(fn, ctypes.c_void_p).value
    _products = bool(ctrl[k.SGEMM] and ctrl[k.DGEMM]) and _native.blas_threads_settable()
    create = ctypes.CDLL(None).pthread_create
    create.restype, create.argtypes = ctypes.c_int, [ctypes.c_void_p] * 4
    for me in range(min(_parallel.threads, MAX_THREADS) - 1):
        arg, tid = np.array([ctrl.ctypes.data, me], np.int64), ctypes.c_ulong()
        if create(ctypes.addressof(tid), None, k.helper.address, arg.ctypes.data) != 0:
            break
        _helpers.append((tid, arg))
    if not _helpers:
        _k = False
        return False
    _ctrl, _k = ctrl, k
    return True


def ready():
    """Whether jobs go to the helpers (started at the first call)."""
    return _parallel.threads > 1 and (_k or _k is None and _start())


@atexit.register
def _stop():   # before the interpreter frees the compiled code the helpers run
    global _k
    if _k and _helpers:
        _k.halt(_ctrl)
        join = ctypes.CDLL(None).pthread_join
        join.argtypes = [ctypes.c_ulong, ctypes.c_void_p]
        for tid, _ in _helpers:
            join(tid.value, None)
        _helpers.clear()
        _k = False


def _after_fork():   # a forked child has none of the helpers: it starts its own
    global _k, _ctrl, _busy, _starting
    _helpers.clear()
    _busy, _starting = threading.Lock(), threading.Lock()
    if _k:
        _k, _ctrl = None, None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


# ---- elementwise ---------------------------------------------------------------------------------
ADD, SUB, MUL, DIV, RELU = 0, 1, 2, 3, 4   # (_pool_kernels' numbers: this module does not import numba)
_FULL, _SCALAR, _ROW = 0, 1, 2


def _mode(a, shape, size):
    """How operand a meets an output of `shape`: FULL (that shape, C-contiguous), SCALAR (one element) or
    ROW (the last dim's length, broadcast along the others); None otherwise."""
    if a.size == 1:
        return _SCALAR
    if not a.flags.c_contiguous:
        return None
    if a.shape == shape:
        return _FULL
    return _ROW if a.size == shape[-1] and a.shape[-1] == shape[-1] else None


def binary(kind, a, b, out=None):
    """a (op) b, as NumPy's ufunc gives it, where the helpers take these operands (NumPy float32 or
    float64 arrays, or Python numbers, of one dtype, at least MIN_BINARY_BYTES out); else None. `out`: a itself
    (b not another view of its memory), or a C-contiguous array of the result's shape and dtype apart from
    both operands."""
    ta, tb = type(a), type(b)
    if ta is np.ndarray:
        x = a
        if tb is np.ndarray:
            if b.dtype != x.dtype:
                return None
        elif tb is float or tb is int:
            b = np.asarray(b, x.dtype)
        else:
            return None
    elif tb is np.ndarray and (ta is float or ta is int):
        x, a = b, np.asarray(a, b.dtype)
    else:
        return None
    if x.dtype not in _FLOATS:
        return None
    shape = a.shape if a.size >= b.size else b.shape
    size = max(a.size, b.size)
    if size * x.itemsize < MIN_BINARY_BYTES or not ready() or len(shape) < max(a.ndim, b.ndim):
        return None
    ma, mb = _mode(a, shape, size), _mode(b, shape, size)
    if ma is None or mb is None or ma != _FULL and mb != _FULL:
        return None
    if out is not None and not (
            out is a and ma == _FULL and (b is a or not np.may_share_memory(a, b))
            or type(out) is np.ndarray and out.flags.c_contiguous and out.shape == shape and out.dtype == x.dtype
            and not np.may_share_memory(out, a) and not np.may_share_memory(out, b)):
        return None
    out = np.empty(shape, x.dtype) if out is None else out
    cols = shape[-1]
    step = CHUNK if ma != _ROW and mb != _ROW else max(1, CHUNK // cols) * cols
    with _area() as ctrl:
        _k.binary(ctrl, kind, a.reshape(-1), b.reshape(-1), out.reshape(-1), ma, mb, cols, step)
    return out


def relu(a, out=None):
    """np.clip(a, 0, inf) (NaN and -0.0 kept) of a large float array, as `binary` takes it; else None."""
    return binary(RELU, a, a, out) if type(a) is np.ndarray else None


# ---- products ----------------------------------------------------------------------------------------
def _operand(m):
    """(transposed, leading dimension) of a 2-D operand BLAS takes as it lies; None for other layouts."""
    s0, s1 = m.strides
    size = m.itemsize
    if s1 == size and s0 >= max(1, m.shape[1]) * size and s0 % size == 0:
        return 0, s0 // size
    if s0 == size and s1 >= max(1, m.shape[0]) * size and s1 % size == 0:
        return 1, s1 // size
    return None


def matmul(a, b):
    """a @ b for 2-D float32/float64 NumPy arrays of one dtype, in row (or column) blocks, one per thread,
    where the helpers take them; else None."""
    if type(a) is not np.ndarray or type(b) is not np.ndarray or a.ndim != 2 or b.ndim != 2 \
            or a.dtype != b.dtype or a.dtype not in _FLOATS:
        return None
    m, k = a.shape
    n = b.shape[1]
    if b.shape[0] != k or m * n * k * a.itemsize < MIN_PRODUCT or not ready() or not _products:
        return None
    la, lb = _operand(a), _operand(b)
    if la is None or lb is None:
        return None
    by_cols, piece, count = blocks(m, n)
    c = np.empty((m, n), a.dtype)
    with _area() as ctrl, _native.one_blas_thread():
        _k.gemm(ctrl, a, b, c, la[0], lb[0], k, la[1], lb[1], int(by_cols), piece, count)
    return c


def blocks(m, n):
    """(by columns, block size, blocks) of an (m, n) product: one block per thread, of rows unless the
    product is wider than tall."""
    parts = _parts()
    by_cols = n > m
    piece = -(-(n if by_cols else m) // parts)
    return by_cols, piece, -(-(n if by_cols else m) // piece)


def _parts():
    return min(_parallel.threads, len(_helpers) + 1)


@contextlib.contextmanager
def _area():
    """The control block a job goes to: the helpers', or, while another Python thread's job runs there, one
    no helper reads (the caller runs every chunk: the same chunks, so the same bits)."""
    if _busy.acquire(blocking=False):
        try:
            yield _ctrl
        finally:
            _busy.release()
        return
    ctrl = np.zeros(_k.JOB + _k.SLOTS, np.int64)
    ctrl[_k.SGEMM], ctrl[_k.DGEMM] = _ctrl[_k.SGEMM], _ctrl[_k.DGEMM]
    yield ctrl


# ---- compiled jobs -----------------------------------------------------------------------------------
def run(job, arrays, scalars, n, step):
    """Runs job(block, lo, hi), a numba cfunc of signature void(int64, int64, int64) (its `address`), over
    range(n) in chunks of `step`, on the helpers and this thread; block holds the first array's itemsize,
    then each array's (address, first dim, last dim), then the scalars as float64 (see
    _pool_kernels.call). False where the helpers do not run (the caller splits the work its own way)."""
    if not ready():
        return False
    scalars = scalars or (0.0,)   # (numba iterates over no empty tuple)
    block = np.empty(1 + 3 * len(arrays) + len(scalars), np.int64)
    with _area() as ctrl:
        _k.call(ctrl, job, block, arrays, scalars, n, step)
    return True


def _stack_operand(m):
    """(transposed, leading dimension, batch stride) of a 3-D stack BLAS takes product by product."""
    lay = _operand(m[0]) if m.shape[0] else None
    if lay is None or m.strides[0] % m.itemsize or m.strides[0] < 0:
        return None
    return lay[0], lay[1], m.strides[0] // m.itemsize


def bmm(a, b):
    """a @ b for stacks (B, m, k) and (B, k, n) of one float dtype, the products of the stack shared
    among the threads; else None."""
    if type(a) is not np.ndarray or type(b) is not np.ndarray or a.ndim != 3 or b.ndim != 3 \
            or a.dtype != b.dtype or a.dtype not in _FLOATS:
        return None
    batch, m, k = a.shape
    n = b.shape[2]
    if b.shape[:2] != (batch, k) or batch * m * n * k * a.itemsize < MIN_PRODUCT or not ready() or not _products:
        return None
    la, lb = _stack_operand(a), _stack_operand(b)
    if la is None or lb is None:
        return None
    per = max(1, batch // (4 * _parts()))
    c = np.empty((batch, m, n), a.dtype)
    with _area() as ctrl, _native.one_blas_thread():
        _k.bmm(ctrl, a, b, c, la[0], lb[0], k, la[1], la[2], lb[1], lb[2], per, -(-batch // per))
    return c


def stack_matmul(a, b):
    """np.matmul(a, b) for stacks a (B, m, k) and b (B, k, n): by the pool's helpers where they take it, else
    by _parallel's threads."""
    out = bmm(a, b)
    return _parallel.matmul(a, b) if out is None else out
