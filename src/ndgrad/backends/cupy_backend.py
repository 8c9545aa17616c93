"""The GPU backend: CuPy arrays. Present for the shape of the design; not wired to ops yet."""
try:
    import cupy as xp
except ImportError as e:  # pragma: no cover - depends on the machine
    raise RuntimeError("device 'cuda' needs CuPy: pip install cupy-cuda12x (and an NVIDIA GPU)") from e

device_type = "cuda"


def asarray(data, dtype=None):
    return xp.asarray(data, dtype=dtype)


def to_host(array):
    return xp.asnumpy(array)


def scatter_add(target, index, values):
    import cupyx
    cupyx.scatter_add(target, index, values)
    return target


def special():
    import cupyx.scipy.special
    return cupyx.scipy.special
