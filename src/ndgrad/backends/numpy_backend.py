"""The CPU backend: NumPy arrays, SciPy for special functions, linear algebra, FFTs and sparse
matrices (each SciPy module imported on first use: importing SciPy costs `import ndgrad` ~100 ms).

The backend API (see backends/__init__.py) is NumPy's own functions, bound here without wrappers:
the op glue calls them on its hot path."""
import functools

import numpy as np

xp = np
device_type = "cpu"
array_type = np.ndarray

asarray = np.asarray
zeros = np.zeros
ones = np.ones
empty = np.empty
full = np.full
may_share_memory = np.may_share_memory
copyto = functools.partial(np.copyto, casting="unsafe")


def to_host(array):
    return array


def scatter_add(target, index, values):
    """target[index] += values, accumulating repeated indices (in place)."""
    np.add.at(target, index, values)
    return target


def special():
    import scipy.special
    return scipy.special


def linalg():
    import scipy.linalg
    return scipy.linalg


def fft():
    import scipy.fft
    return scipy.fft


def sparse():
    import scipy.sparse
    return scipy.sparse
