"""Array backends: the seam between device-independent code and the arrays of one device.

Every dense array belongs to one backend module: numpy_backend (CPU, the default), cupy_backend
(GPU), strict (a CPU backend for tests whose arrays refuse to mix with plain ndarrays).
Device-independent code (the Tensor, the op glue, the autograd core) never calls a module-level
`np.` to create or combine arrays: it asks the backend of the arrays it holds,

    b = namespace(array)          # the backend module of `array`
    b.zeros(shape, dtype)         # a new array on the same backend

and tests whether a value is a dense array with `is_array(x)` (or, on the hot path,
`type(x) in ARRAY_TYPES`), never `type(x) is np.ndarray`. Sparse and nested storages
(_sparse_array.py, _nested_array.py) are not arrays of a backend.

What every backend module provides:
    xp                     its array module (NumPy's function names)
    device_type            'cpu' or 'cuda'
    array_type             the class of its dense arrays
    asarray(data, dtype=None), zeros(shape, dtype), ones(shape, dtype), empty(shape, dtype),
    full(shape, value, dtype)                    new arrays on this backend
    may_share_memory(a, b)                       whether two arrays may overlap (views)
    copyto(dst, src)                             write src into dst (broadcast, any casting)
    to_host(array)                               the NumPy array of the same values
    scatter_add(target, index, values), special(), linalg(), fft(), sparse()   the extras

`current()` is the backend that arrays made from Python data go to (numpy_backend unless a
`use(name)` block says otherwise); `backend_for(device_type)` picks the module of a device.
Shapes are device independent: `broadcast_shapes` is plain tuple arithmetic.
"""
import contextlib

from . import numpy_backend
from . import cuda, cudnn, mps  # noqa: F401,E402  torch.backends' flag modules (no array backends)

ARRAY_TYPES = {numpy_backend.array_type: numpy_backend}   # dense array class -> its backend
_BACKENDS = {"cpu": numpy_backend}
_current = [numpy_backend]


def register(backend):
    """Make `backend`'s arrays known to namespace / is_array."""
    ARRAY_TYPES[backend.array_type] = backend
    return backend


def namespace(array):
    """The backend module of the dense array `array` (TypeError for anything else)."""
    b = ARRAY_TYPES.get(type(array))
    if b is None:
        b = _lookup(array)
        if b is None:
            raise TypeError(f"no array backend for a {type(array).__name__}")
    return b


def is_array(x):
    """Whether `x` is a dense array of some backend (sparse/nested storages and scalars are not)."""
    return type(x) in ARRAY_TYPES or _lookup(x) is not None


def _lookup(x):
    """The backend of an array whose exact class is not registered: a subclass of a registered
    class (np.memmap), or a CuPy array before cupy_backend was imported."""
    cls = type(x)
    if cls.__module__.startswith("cupy"):
        b = backend_for("cuda")
        if isinstance(x, b.array_type):
            return b
    for base in cls.__mro__[1:]:
        b = ARRAY_TYPES.get(base)
        if b is not None:
            return b
    return None


def current():
    """The backend that arrays made from Python data (lists, numbers) are created on."""
    return _current[-1]


@contextlib.contextmanager
def use(name):
    """Within the block, arrays made from Python data go to backend `name` ('numpy', 'strict', 'cupy')."""
    _current.append(by_name(name))
    try:
        yield
    finally:
        _current.pop()


def by_name(name):
    if name == "numpy":
        return numpy_backend
    if name == "strict":
        from . import strict   # test-only backend: not loaded by `import ndgrad`
        return register(strict)
    if name == "cupy":
        return backend_for("cuda")
    raise ValueError(f"unknown array backend {name!r} (numpy, strict, cupy)")


def broadcast_shapes(*shapes):
    """The shape arrays of `shapes` broadcast to (NumPy's rule); ValueError if they do not."""
    out = ()
    for shape in shapes:
        if len(shape) > len(out):
            out, shape = tuple(shape), out
        lead = len(out) - len(shape)
        merged = list(out)
        for i, s in enumerate(shape):
            o = out[lead + i]
            if s != o:
                if o == 1:
                    merged[lead + i] = s
                elif s != 1:
                    raise ValueError(f"shape mismatch: objects cannot be broadcast to a single shape: "
                                     f"{tuple(shapes)}")
        out = tuple(merged)
    return out


def backend_for(device_type):
    try:
        return _BACKENDS[device_type]
    except KeyError:
        if device_type == "cuda":
            from . import cupy_backend  # raises a clear error without CuPy
            _BACKENDS["cuda"] = register(cupy_backend)
            return cupy_backend
        raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {device_type}") from None
