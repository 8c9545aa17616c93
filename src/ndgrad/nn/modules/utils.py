"""Argument helpers shared by the module families: the default factory dtype and
n-tuples of kernel sizes, strides and paddings."""
from ... import _dtype


def _factory(dtype):
    return dtype if dtype is not None else _dtype.get_default_dtype()


def _ntuple(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n
