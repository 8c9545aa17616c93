"""The CPU backend: NumPy arrays, SciPy for special functions, linear algebra, FFTs and sparse
matrices (each SciPy module imported on first use: importing SciPy costs `import ndgrad` ~100 ms).

The backend API (see backends/__init__.py) is NumPy's own functions, bound here without wrappers:
the op glue calls them on its hot path."""
import functools
import importlib

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


# SciPy's modules, each imported on first use: importing SciPy costs `import ndgrad` about 100 ms
def special():
    return importlib.import_module("scipy.special")


def linalg():
    return importlib.import_module("scipy.linalg")


def fft():
    return importlib.import_module("scipy.fft")


def sparse():
    return importlib.import_module("scipy.sparse")
