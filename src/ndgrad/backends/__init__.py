"""Array backends: where a device's arrays live and the extras the array API lacks.

Ops are written against NumPy's function names; CuPy arrays dispatch those calls to CuPy
through NumPy's array protocols, so a backend only supplies creation, transfer and the
few extras below. `backend_for(device_type)` picks the module; 'cpu' is numpy_backend.
"""
from . import numpy_backend

_BACKENDS = {"cpu": numpy_backend}


def backend_for(device_type):
    try:
        return _BACKENDS[device_type]
    except KeyError:
        if device_type == "cuda":
            from . import cupy_backend  # noqa: F401  (raises a clear error without CuPy)
            _BACKENDS["cuda"] = cupy_backend
            return cupy_backend
        raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {device_type}") from None
