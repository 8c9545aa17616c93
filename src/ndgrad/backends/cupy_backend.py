"""The GPU backend: CuPy arrays, the same backend API as numpy_backend (see backends/__init__.py).

Imported on first use of a 'cuda' device or of a CuPy array (namespace / is_array); without CuPy
the import raises a clear error. Ops are not run on it yet: tensors live on the CPU."""
import functools
import importlib

try:
    import cupy as xp
except ImportError as e:  # pragma: no cover - depends on the machine
    raise RuntimeError("device 'cuda' needs CuPy: pip install cupy-cuda12x (and an NVIDIA GPU)") from e


device_type = "cuda"
array_type = xp.ndarray

asarray = xp.asarray
zeros = xp.zeros
ones = xp.ones
empty = xp.empty
full = xp.full
may_share_memory = xp.may_share_memory
copyto = functools.partial(xp.copyto, casting="unsafe")


def to_host(array):
    return xp.asnumpy(array)


def scatter_add(target, index, values):
    importlib.import_module("cupyx").scatter_add(target, index, values)
    return target


# cupyx's SciPy modules, each imported on first use (as numpy_backend does SciPy's)
def special():
    return importlib.import_module("cupyx.scipy.special")


def linalg():
    return importlib.import_module("cupyx.scipy.linalg")


def fft():
    return importlib.import_module("cupyx.scipy.fft")


def sparse():
    return importlib.import_module("cupyx.scipy.sparse")
