"""Intra-op parallelism for the heavy array kernels, as torch's intra-op threads.

A kernel whose work splits into independent slices (the samples of a convolution's batch, the
channels of a batch norm, the rows of an elementwise pass) hands all but the last slice to worker
threads and computes the last itself. NumPy releases the GIL inside its loops and BLAS calls, so
the slices run in parallel; only the Python between the calls is serial. `torch.set_num_threads`
sets how many threads a kernel uses (default: OMP_NUM_THREADS, as in torch, else the CPUs this
process may run on). Each slice is computed exactly as it would be alone, so results do not depend
on the thread count.

A handoff costs 20-40 µs, and the Python around a slice's NumPy calls runs one thread at a time:
kernels split only where each thread gets at least MIN_WORK units of work, a unit being one element
read or written (about 0.3 ns in a plain pass) or six multiply-adds of a matrix product. A
kernel that finds the workers busy (another thread's kernel, or a kernel running inside a kernel)
computes every slice itself.
"""
import os
import threading

import numpy as np

from ._native import one_blas_thread

MIN_WORK = 1 << 20


def _default_threads():
    """OMP_NUM_THREADS where set (as torch reads it), else the CPUs this process may run on."""
    try:
        return max(1, int(os.environ["OMP_NUM_THREADS"]))
    except (KeyError, ValueError):
        pass
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:   # (not on Linux)
        return os.cpu_count() or 1


threads = _default_threads()


class _Worker:
    """A daemon thread running one slice at a time: `go` hands it a job, `done` says it finished."""

    def __init__(self):
        self.go, self.done = threading.Lock(), threading.Lock()
        self.go.acquire()
        self.done.acquire()
        self.job = self.error = None
        threading.Thread(target=self._loop, name="ndgrad-intra-op", daemon=True).start()

    def _loop(self):
        while True:
            self.go.acquire()
            fn, i, j = self.job
            self.job = None
            try:
                fn(i, j)
            except BaseException as e:   # noqa: BLE001  (re-raised in the calling thread)
                self.error = e
            del fn   # (a kernel's closure holds its arrays: not one moment past the kernel)
            self.done.release()


_workers = []
_busy = threading.Lock()


def _after_fork():   # a forked child has none of the parent's threads
    global _busy
    _workers.clear()
    _busy = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def parts(n, work):
    """How many slices `run` cuts range(n) into for `work` units in all."""
    return max(1, min(threads, n, work // MIN_WORK))


def run(fn, n, work):
    """fn(i, j) for contiguous slices [i, j) covering range(n), in parallel where `work` (units, in
    all) pays for it. fn must write only its own slice's part of shared outputs."""
    k = parts(n, work)
    if k == 1 or not _busy.acquire(blocking=False):
        fn(0, n)
        return
    try:
        while len(_workers) < k - 1:
            _workers.append(_Worker())
        used = _workers[:k - 1]
        bounds = [n * p // k for p in range(k + 1)]
        for w, i, j in zip(used, bounds, bounds[1:]):
            w.job = (fn, i, j)
            w.go.release()
        try:
            fn(bounds[-2], n)
        finally:
            for waited, w in enumerate(used):
                try:
                    w.done.acquire()
                except BaseException:   # (KeyboardInterrupt while waiting: the workers not waited for
                    for stale in used[waited:]:   # may still be running their slices; fresh ones take their place)
                        _workers.remove(stale)
                    raise
        errors = [w.error for w in used if w.error is not None]
        for w in used:
            w.error = None
        if errors:
            raise errors[0]
    finally:
        _busy.release()


def contiguous(*arrays):
    """Whether every one of `arrays` is a C-contiguous ndarray of more elements than one thread's
    share of a split pass (the arrays `elementwise` takes)."""
    return threads > 1 and all(type(a) is np.ndarray and a.flags.c_contiguous for a in arrays) \
        and arrays[0].size * (len(arrays) + 1) >= 2 * MIN_WORK


def elementwise(fn, out, *arrays):
    """fn(*slices, out=out_slice) over the flattened C-contiguous `arrays` and `out` (all of one
    size), in parallel slices; returns out."""
    flat = [a.reshape(-1) for a in arrays]
    dest = out.reshape(-1)

    def part(i, j):
        fn(*[a[i:j] for a in flat], out=dest[i:j])
    run(part, dest.size, dest.size * (len(arrays) + 1))
    return out


# A stack of small matrix products (attention's scores, a batched matmul's backward) is slow on
# OpenBLAS's threads: it splits each product over them and joins them again, many times per stack,
# for products too small to gain (a stack of 32 (128 x 64) @ (64 x 128) products: 0.61 ms on two
# threads, 0.57 on one). Such stacks run here on one BLAS thread per product, in parallel slices of
# the batch (0.35 ms). Whether a stack runs so depends on its sizes only, not on the thread count
# (with one thread its products run in turn, still on one BLAS thread), so that its bits do not
# either: OpenBLAS's threaded products may round otherwise. Smaller stacks, where a handoff costs
# more than it gains, stay on OpenBLAS's threads.
SMALL_PRODUCT = 1 << 22   # multiply-adds of one product


def matmul(a, b):
    """np.matmul(a, b) for stacks a (B, m, k) and b (B, k, n)."""
    batch, m, k = a.shape
    n = b.shape[2]
    work = batch * m * k * n // 6
    if (work < 2 * MIN_WORK or m * k * n > SMALL_PRODUCT or type(a) is not np.ndarray
            or type(b) is not np.ndarray or a.dtype != b.dtype or a.dtype.char not in "fdFD"):
        return np.matmul(a, b)
    out = np.empty((batch, m, n), a.dtype)

    def products(i, j):
        np.matmul(a[i:j], b[i:j], out=out[i:j])
    with one_blas_thread() as blas:
        if not blas.active:   # (not NumPy's OpenBLAS, or one without the setting)
            return np.matmul(a, b)
        run(products, batch, work)
    return out
