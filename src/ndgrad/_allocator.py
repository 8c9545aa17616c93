"""glibc malloc settings for array workloads, set once at import.

NumPy takes every array's memory from malloc. glibc serves large requests with fresh mappings and
returns the free top of its heap to the system, adjusting both limits upwards only after it has
freed a large mapping. A training step that allocates and frees the same few megabytes of
activations every step then faults the same pages in again each time: in a small CNN's step
(bench (k)) a quarter of the time went to the kernel zero-filling pages. ndgrad starts the process
where glibc's own adjustment would end after freeing one 32 MiB array: requests up to 32 MiB come
from the heap, and up to 64 MiB of free heap is kept for the next step.

Nothing is changed where the platform's C library is not glibc, where the user has set any of
glibc's `MALLOC_*` variables (their choice stands), or with `NDGRAD_MALLOC_TUNING=0`.
"""
import ctypes
import os
import sys

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD = 32 << 20    # glibc's ceiling for its own dynamic threshold (64-bit)
TRIM_THRESHOLD = 64 << 20    # twice that, as glibc sets it when it adjusts

tuned = False


def _glibc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return None
        return ctypes.CDLL(None)
    except (ValueError, OSError, AttributeError):
        return None


def tune():
    """Sets the thresholds if nothing says not to; whether it did."""
    global tuned
    if os.environ.get("NDGRAD_MALLOC_TUNING", "1") == "0" or any(k.startswith("MALLOC_") for k in os.environ):
        return False
    libc = _glibc()
    mallopt = getattr(libc, "mallopt", None)
    if mallopt is None:
        return False
    tuned = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return tuned
