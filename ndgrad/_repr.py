"""torch-style printing of tensors: `tensor([1.0000, 2.0000], requires_grad=True)`."""
import numpy as np

from . import _dtype


def _format_floats(arr):
    finite = arr[np.isfinite(arr)] if arr.size else arr
    if finite.size and np.all(finite == np.round(finite)) and np.max(np.abs(finite), initial=0) < 1e8:
        return {"float_kind": lambda v: f"{v:.0f}." if np.isfinite(v) else str(v).replace("inf", "inf")}
    big = np.max(np.abs(finite), initial=0) if finite.size else 0
    small = np.min(np.abs(finite[finite != 0]), initial=1) if finite.size else 1
    if big >= 1e8 or small < 1e-4:
        return {"float_kind": lambda v: f"{v:.4e}"}
    return {"float_kind": lambda v: f"{v:.4f}"}


def tensor_repr(t):
    arr = t._data
    prefix = "tensor("
    opts = {}
    if arr.dtype.kind == "f":
        opts = _format_floats(arr.astype(np.float64))
    body = np.array2string(arr, separator=", ", prefix=prefix, formatter=opts or None,
                           threshold=1000, edgeitems=3, max_line_width=80)
    if arr.size == 0:
        body = "[]" if arr.ndim == 1 else f"[], size=({', '.join(map(str, arr.shape))})"
    extras = []
    d = _dtype.from_numpy_dtype(arr.dtype)
    if d not in (_dtype.defaults.float, _dtype.int64, _dtype.bool_, _dtype.defaults.complex) or arr.size == 0 and d is not _dtype.defaults.float:
        extras.append(f"dtype={d!r}")
    fn = t.grad_fn
    if fn is not None:
        extras.append(f"grad_fn=<{fn.name().split('::')[-1]}>")
    elif t._requires_grad:
        extras.append("requires_grad=True")
    return prefix + body + "".join(", " + e for e in extras) + ")"
