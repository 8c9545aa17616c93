"""Reductions: sum, mean, prod, max/min, var/std, norms, cumulative ops."""
import numpy as np

from .._dispatch import op, register
from ..autograd.formulas import normalize_dims


def _sum_dtype(input, dtype):
    if dtype is not None:
        return dtype.np
    return np.int64 if input.dtype.kind in "biu" else input.dtype


@op("sum", public=False)
def _sum_all(input, *, dtype=None):
    return np.sum(input, dtype=_sum_dtype(input, dtype))


@op("sum.dim_IntList", public=False)
def _sum_dim(input, dim, keepdim=False, *, dtype=None):
    return np.sum(input, axis=normalize_dims(dim, input.ndim), keepdims=keepdim, dtype=_sum_dtype(input, dtype))


@register(method=True)
def sum(input, dim=None, keepdim=False, *, dtype=None):
    if dim is None:
        return _sum_all(input, dtype=dtype)
    return _sum_dim(input, dim, keepdim, dtype=dtype)
