"""The CPU backend: NumPy arrays, SciPy for special functions."""
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
