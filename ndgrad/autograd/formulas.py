"""Backward helpers too long for one readable yaml line (the names formulas may call).

Everything here works on Tensors through public ops, so formulas stay differentiable and
`create_graph=True` gives higher derivatives for free.
"""
import numpy as np


def sum_to(t, shape):
    """Sum `t` down to `shape` (undoing broadcasting); ValueError if it cannot be."""
    shape = tuple(shape)
    tshape = t._data.shape
    if tshape == shape:
        return t
    lead = len(tshape) - len(shape)
    if lead < 0:
        raise ValueError(f"cannot sum {tshape} to {shape}")
    dims = list(range(lead))
    for i, s in enumerate(shape):
        if s == 1 and tshape[lead + i] != 1:
            dims.append(lead + i)
        elif s != tshape[lead + i]:
            raise ValueError(f"cannot sum {tshape} to {shape}")
    if dims:
        t = t.sum(dims, keepdim=True)
    return t.reshape(shape) if lead else t


def not_implemented(what):
    raise NotImplementedError(f"the derivative of {what} is not implemented in ndgrad yet")


def handle_r_to_c(self, grad):
    """A real input's gradient from a complex formula keeps only the real part."""
    if self is not None and getattr(self, "is_complex", None) is not None and not self.is_complex() \
            and grad.is_complex():
        return grad.real
    return grad


def scalar_dtype_of(x):
    return x.dtype if hasattr(x, "dtype") else None


def unsqueeze_dims(t, dims, ndim):
    """Re-insert reduced dims (sorted, normalized) so `t` broadcasts against the input."""
    for d in sorted(int(d) % max(ndim, 1) for d in dims):
        t = t.unsqueeze(d)
    return t


def normalize_dims(dim, ndim):
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    return tuple(int(d) % max(ndim, 1) for d in dim)


def conj(x):
    """Complex conjugate of a tensor or Python number; identity for real values."""
    data = getattr(x, "_data", None)
    if data is not None:
        return x.conj() if data.dtype.kind == "c" else x
    return x.conjugate() if isinstance(x, complex) else x


def maybe_multiply(grad, alpha):
    return grad if alpha == 1 else grad * alpha


def reduce_backward(grad, shape, dim, keepdim):
    """Give a reduction's gradient back the reduced dims (as size 1) so it broadcasts."""
    ndim = len(shape)
    if keepdim or ndim == 0:
        return grad
    return unsqueeze_dims(grad, normalize_dims(dim, ndim), ndim)


# ---- pointwise ----------------------------------------------------------------------------


# ---- reductions ---------------------------------------------------------------------------


# ---- shape and views ----------------------------------------------------------------------


# ---- indexing -----------------------------------------------------------------------------


# ---- matmul, linear algebra and nn --------------------------------------------------------
