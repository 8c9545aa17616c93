"""The CPU backend: NumPy arrays, SciPy for special functions, linear algebra, FFTs and sparse
matrices (each SciPy module imported on first use: importing SciPy costs `import ndgrad` ~100 ms)."""
import numpy as np

xp = np
device_type = "cpu"


def asarray(data, dtype=None):
    return np.asarray(data, dtype=dtype)


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
