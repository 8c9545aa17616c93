"""Dropout: native_dropout (the op torch records) and the user-facing dropout, dropout1d/2d/3d,
alpha_dropout and feature_alpha_dropout (re-exported by ndgrad/nn/functional/dropout.py).
"""
import math
import sys
import types

import numpy as np

from ._registry import op, register
from . import creation
from .._random import generator as _generator
from .random import _bernoulli_float

# torch.ops.aten: a namespace shared by the op modules that need one (created by the first)
_pkg = sys.modules[__package__]
aten = getattr(_pkg, "aten", None) or types.SimpleNamespace()
_pkg.aten = aten



# ---- dropout ------------------------------------------------------------------------------
@op("native_dropout", public="native_dropout", method=True)
def native_dropout(input, p, train):
    if train is None or train:
        if not 0 <= p <= 1:
            raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
        mask = _bernoulli_float(_generator(), np.empty(input.shape), 1 - p)   # torch's bernoulli_(1 - p) draws
        scale = 1 / (1 - p) if p < 1 else 0.0
        return input * mask * np.asarray(scale, input.dtype), mask
    return input.copy(), np.ones(input.shape, bool)


@op("native_dropout_backward", public="_native_dropout_backward")
def _native_dropout_backward(grad_output, mask, scale):
    return grad_output * mask * np.asarray(scale, grad_output.dtype)


aten.native_dropout = native_dropout
aten.native_dropout_backward = _native_dropout_backward


# ---- dropout
def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _mask_dropout(input, p, training, inplace, mask_shape):
    _check_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    mask = creation.zeros(mask_shape, dtype=input.dtype) if p == 1 else \
        creation.empty(mask_shape, dtype=input.dtype).bernoulli_(1 - p).div_(1 - p)
    return input.mul_(mask) if inplace else input * mask


def dropout(input, p=0.5, training=True, inplace=False):
    return _mask_dropout(input, p, training, inplace, tuple(input.shape))


def _feature_shape(input, name, dims):
    if input.ndim not in dims:
        raise RuntimeError(f"{name}: Expected {'or '.join(f'{d - 1}D or {d}D ' for d in dims[:1])}input, but "
                           f"received a {input.ndim}D input")
    batched = input.ndim == max(dims)
    shape = tuple(input.shape[:2]) if batched else tuple(input.shape[:1])
    return shape + (1,) * (input.ndim - len(shape))


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _mask_dropout(input, p, training, inplace, _feature_shape(input, "dropout1d", (2, 3)))


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _mask_dropout(input, p, training, inplace, _feature_shape(input, "dropout2d", (3, 4)))


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _mask_dropout(input, p, training, inplace, _feature_shape(input, "dropout3d", (4, 5)))


_SELU_ALPHA_PRIME = 1.7580993408473766   # -selu's alpha * scale: the value dropped units take


def _alpha_dropout(input, p, training, inplace, mask_shape):
    _check_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * creation.zeros((), dtype=input.dtype)
    keep = creation.empty(mask_shape, dtype=input.dtype).bernoulli_(1 - p)
    a = 1 / math.sqrt((_SELU_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
    b = keep.add(-1).mul_(_SELU_ALPHA_PRIME * a).add_(_SELU_ALPHA_PRIME * a * p)
    keep = keep.mul_(a)
    return input.mul_(keep).add_(b) if inplace else input * keep + b


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha_dropout(input, p, training, inplace, tuple(input.shape))


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return _alpha_dropout(input, p, training, inplace, shape)


# ---- api: torch's top-level (aten) forms: dropout(input, p, train), and the in-place ones
def _aten_dropout(fn, inplace):
    def form(input, p, train):
        if p < 0 or p > 1:   # a RuntimeError here (nn.functional's forms raise ValueError)
            raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
        return fn(input, p, train, inplace)
    form.__name__ = form.__qualname__ = fn.__name__ + ("_" if inplace else "")
    register(form.__name__)(form)


def feature_dropout(input, p=0.5, training=True, inplace=False):
    """Whole channels (dim 1) zeroed, for any input of 2 or more dims (aten's feature_dropout)."""
    return _mask_dropout(input, p, training, inplace, tuple(input.shape[:2]) + (1,) * (input.ndim - 2))


for _fn in (dropout, alpha_dropout, feature_dropout, feature_alpha_dropout):
    _aten_dropout(_fn, False)
    _aten_dropout(_fn, True)
