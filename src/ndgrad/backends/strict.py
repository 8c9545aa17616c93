"""A second CPU backend, for tests: NumPy arrays that refuse to mix with plain ndarrays.

`StrictArray` is an ndarray subclass whose ufuncs and NumPy functions raise TypeError (naming
the function) when a StrictArray meets a plain ndarray, as CuPy does when a GPU array meets a
host array. Tensors whose data is a StrictArray therefore expose any device-independent code
that creates an array with a module-level `np.` call and combines it with tensor data, instead of
asking the backend of that data (backends/__init__.py). Values are NumPy's, so results compare
exactly with the default backend.

    import ndgrad
    from ndgrad.backends import strict
    x = ndgrad.Tensor(strict.asarray([1.0, 2.0]))      # a Tensor keeps the backend of its array
    with ndgrad.backends.use("strict"): ...            # arrays made from Python data are strict

Not imported by `import ndgrad`.
"""
import functools
import threading

import numpy as np

from . import numpy_backend



_inside = threading.local()   # depth of NumPy functions running on strict inputs: their own
                              # internals may mix (zeros_like copies a plain 0-d zero in)


class StrictArray(np.ndarray):
    """An ndarray of the strict backend: combines with StrictArrays and scalars only."""

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        if not getattr(_inside, "depth", 0):
            _refuse_plain(ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}",
                          inputs + (out or ()))
        if out is not None:
            kwargs["out"] = tuple(o.view(np.ndarray) for o in out)
        result = getattr(ufunc, method)(*(_plain(x) for x in inputs), **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        return _strict(result)

    def __array_function__(self, func, types, args, kwargs):
        depth = getattr(_inside, "depth", 0)
        if not depth:
            for t in types:
                if t is not StrictArray:
                    raise TypeError(f"strict backend: {func.__name__}() got a {t.__module__}.{t.__name__} "
                                    "and a StrictArray (create arrays through the backend of the tensor data)")
        _inside.depth = depth + 1
        try:
            return _strict(func._implementation(*args, **kwargs))
        finally:
            _inside.depth = depth


def _refuse_plain(name, values):
    for v in values:
        if isinstance(v, np.ndarray) and type(v) is not StrictArray:
            raise TypeError(f"strict backend: {name} got a {type(v).__module__}.{type(v).__name__} and a "
                            "StrictArray (create arrays through the backend of the tensor data)")


def _plain(x):
    return x.view(np.ndarray) if type(x) is StrictArray else x


def _strict(result):
    """Arrays in a result (plain ones made inside NumPy from strict inputs) as StrictArrays; NumPy
    scalars as 0-d StrictArrays, as CuPy returns 0-d arrays (code may not count on scalars)."""
    if type(result) is np.ndarray:
        return result.view(StrictArray)
    if isinstance(result, np.generic):
        return np.asarray(result).view(StrictArray)
    if type(result) in (tuple, list):
        return type(result)(_strict(r) for r in result)
    return result


# --- the backend API (backends/__init__.py) --------------------------------------------------
device_type = "cpu"
array_type = StrictArray


def asarray(data, dtype=None):
    return np.asarray(data, dtype=dtype).view(StrictArray)


def _created(make):
    @functools.wraps(make)
    def create(*args, **kwargs):
        return make(*args, **kwargs).view(StrictArray)
    return create


zeros = _created(np.zeros)
ones = _created(np.ones)
empty = _created(np.empty)
full = _created(np.full)
may_share_memory = np.may_share_memory
copyto = functools.partial(np.copyto, casting="unsafe")


def to_host(array):
    return array.view(np.ndarray)


def scatter_add(target, index, values):
    np.add.at(target, index, values)
    return target


class _Namespace:
    """`xp` of the strict backend: NumPy's functions, with creation functions making StrictArrays."""

    def __getattr__(self, name):
        return getattr(np, name)

    asarray = staticmethod(asarray)
    array = staticmethod(_created(np.array))
    zeros, ones, empty, full = (staticmethod(f) for f in (zeros, ones, empty, full))
    arange = staticmethod(_created(np.arange))
    linspace = staticmethod(_created(np.linspace))
    eye = staticmethod(_created(np.eye))


xp = _Namespace()


# SciPy's modules, imported on first use as the NumPy backend does
special, linalg, fft, sparse = numpy_backend.special, numpy_backend.linalg, numpy_backend.fft, numpy_backend.sparse
