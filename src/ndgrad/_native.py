"""Settings of the native libraries under NumPy, made once at import for array workloads: glibc's
malloc and OpenBLAS's threads. Each is left alone where the user has set it (its environment
variables), where the library is not the one loaded, or with `NDGRAD_NATIVE_TUNING=0`.

malloc: NumPy takes every array's memory from malloc. glibc serves large requests with fresh
mappings and returns the free top of its heap to the system, raising both limits only after it has
freed a large mapping. A training step that frees and reallocates the same megabytes of
activations every step then faults the same pages in again each time: in a small CNN's step (bench
(k)) a quarter of the time went to the kernel zero-filling pages. ndgrad starts the process where
glibc's own adjustment ends after freeing one 32 MiB array: requests up to 32 MiB come from the
heap, and up to 64 MiB of free heap is kept for the next step.

OpenBLAS: after a multi-threaded product its threads spin for about 2**28 cycles (~0.1 s) before
they sleep, taking a core from ndgrad's own kernel threads (see _parallel) that run between the
products: a CNN step was slower with those threads than without. 2**20 cycles (~0.4 ms) keeps them
awake across the products of a step (shorter spins made a small MLP's step 25% slower, its threads
woken for every product) and out of the way of the millisecond-long passes between convolutions.
`one_blas_thread` runs a block with OpenBLAS's products on one thread (see _parallel.matmul).
"""
import ctypes
import os
import sys
import threading

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD = 32 << 20    # glibc's ceiling for its own dynamic threshold (64-bit)
TRIM_THRESHOLD = 64 << 20    # twice that, as glibc sets it when it adjusts
BLAS_SPIN = "20"             # OPENBLAS_THREAD_TIMEOUT: log2 of the cycles its threads spin

tuned = {"malloc": False, "openblas": False}


def _glibc():
    try:
        if sys.platform.startswith("linux") and os.confstr("CS_GNU_LIBC_VERSION"):
            return ctypes.CDLL(None)
    except (ValueError, OSError):
        pass
    return None


def _openblas_libs():
    """The OpenBLAS libraries loaded (found among the process's mappings): NumPy's first (its wheel's
    path sorts before SciPy's), then SciPy's, which numba's products call."""
    libs = []
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower() and ".so" in line}
        for path in sorted(paths):
            lib = ctypes.CDLL(path)
            if hasattr(lib, "openblas_read_env") and hasattr(lib, "blas_thread_shutdown_"):
                libs.append(lib)
    except OSError:
        pass
    return libs


def _openblas():
    """The OpenBLAS library NumPy loaded, or None."""
    return next(iter(_openblas_libs()), None)


def tune_malloc():
    if any(k.startswith("MALLOC_") for k in os.environ):
        return False
    mallopt = getattr(_glibc(), "mallopt", None)
    return mallopt is not None and bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) \
        and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))


def tune_openblas():
    if "OPENBLAS_THREAD_TIMEOUT" in os.environ or not sys.platform.startswith("linux"):
        return False
    if "numpy" not in sys.modules:   # OpenBLAS (if that is NumPy's BLAS) reads the setting as it loads
        os.environ["OPENBLAS_THREAD_TIMEOUT"] = BLAS_SPIN
        import numpy   # noqa: F401
        return _openblas() is not None
    # loaded already, its threads maybe running: read the setting and restart them, unless another Python
    # thread could be inside a BLAS call right now
    lib = _openblas()
    if lib is None or threading.active_count() > 1:
        return False
    os.environ["OPENBLAS_THREAD_TIMEOUT"] = BLAS_SPIN
    lib.openblas_read_env()
    lib.blas_thread_shutdown_()
    return True


_setters = None   # openblas_set_num_threads_local of each OpenBLAS loaded, found at the first one_blas_thread
_blas_lock = threading.Lock()
_blas_users = 0
_blas_before = []


def _threads_setters():
    global _setters
    if _setters is None:
        _setters = []
        for lib in _openblas_libs():
            fn = getattr(lib, "openblas_set_num_threads_local", None)   # (OpenBLAS 0.3.27 and later)
            if fn is not None:
                fn.restype, fn.argtypes = ctypes.c_int, [ctypes.c_int]
                _setters.append(fn)
    return _setters


def rescan_blas():
    """Looks for OpenBLAS libraries again (SciPy's, once numba's products have loaded it), unless a
    thread is inside a one_blas_thread block now (then the next call does)."""
    global _setters
    with _blas_lock:
        if _blas_users == 0:
            _setters = None


_gemms = {}   # NumPy's OpenBLAS's CBLAS sgemm / dgemm (64-bit integers) by dtype char, found at first use


def gemm(dtype):
    """The ctypes function cblas_sgemm (float32) or cblas_dgemm (float64) of NumPy's OpenBLAS (its
    64-bit-integer build, as NumPy's wheels ship it), for compiled kernels that call it with a leading
    dimension, beta=1 or on their own threads (which np.dot cannot do); None where NumPy's BLAS has no such
    symbol."""
    import numpy as np   # (not at import: tune_openblas sets OpenBLAS's variable before NumPy loads it)
    char = np.dtype(dtype).char
    if char not in _gemms:
        _gemms[char] = None
        lib, letter = _openblas(), "s" if char == "f" else "d"
        scalar = ctypes.c_float if char == "f" else ctypes.c_double
        for name in (f"scipy_cblas_{letter}gemm64_", f"cblas_{letter}gemm64_"):
            fn = getattr(lib, name, None)
            if fn is not None:
                i64, ptr = ctypes.c_int64, ctypes.c_void_p
                fn.restype = None   # (order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
                fn.argtypes = [ctypes.c_int] * 3 + [i64] * 3 + [scalar, ptr, i64, ptr, i64, scalar, ptr, i64]
                _gemms[char] = fn
                break
    return _gemms[char]


def blas_threads_settable():
    """Whether one_blas_thread can hold NumPy's BLAS to one thread."""
    return bool(_threads_setters())


class one_blas_thread:
    """A block in which OpenBLAS (NumPy's, and SciPy's where loaded) runs each product on the calling
    thread. (OpenBLAS keeps this count for the whole process, not per thread: it is set when the first
    of the threads in such blocks enters and given back when the last leaves.) `active` says whether
    the count could be set."""

    def __enter__(self):
        global _blas_users, _blas_before
        with _blas_lock:
            setters = _threads_setters()
            self.active = bool(setters)
            if self.active:
                if _blas_users == 0:
                    _blas_before = [setter(1) for setter in setters]
                _blas_users += 1
        return self

    def __exit__(self, *exc):
        global _blas_users
        if self.active:
            with _blas_lock:
                _blas_users -= 1
                if _blas_users == 0:
                    _restore()


def _restore():
    for setter, count in zip(_setters, _blas_before):
        setter(count)


def _after_fork():   # a forked child has none of the threads inside such blocks: the count given back
    global _blas_lock, _blas_users
    _blas_lock = threading.Lock()
    if _blas_users:
        _blas_users = 0
        _restore()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def tune():
    """Makes the settings nothing says not to make; which it made are in `tuned`."""
    if os.environ.get("NDGRAD_NATIVE_TUNING", "1") == "0":
        return
    tuned["malloc"] = tune_malloc()
    tuned["openblas"] = tune_openblas()
