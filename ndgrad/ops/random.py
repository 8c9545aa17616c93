"""Random factories: rand, randn, randint, randperm (and _like), drawn from a Generator."""
import numpy as np

from .. import _dtype
from .._dispatch import register
from .._random import rng
from .creation import _new, _np_dtype, _shape


@register()
def rand(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None):
    return _new(rng(generator).random(_shape(size)).astype(_np_dtype(dtype)), requires_grad)


@register()
def randn(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None):
    return _new(rng(generator).standard_normal(_shape(size)).astype(_np_dtype(dtype)), requires_grad)


@register()
def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    if high is None:
        low, high = 0, low
    data = rng(generator).integers(low, high, size=_shape((size,)))
    return _new(data.astype(_np_dtype(dtype, _dtype.int64)), requires_grad)


@register()
def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    return _new(rng(generator).permutation(n).astype(_np_dtype(dtype, _dtype.int64)), requires_grad)


@register()
def rand_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    return rand(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


@register()
def randn_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    return randn(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)
