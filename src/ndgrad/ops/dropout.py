"""Dropout: native_dropout (the op torch records) and the user-facing dropout, dropout1d/2d/3d,
alpha_dropout and feature_alpha_dropout (re-exported by ndgrad/nn/functional/dropout.py).
"""
import math
import sys
import types
import warnings

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


def _channel_dropout(input, p, training, inplace, batched):
    """Dropout of whole channels, one draw per (batch, channel). As torch's, an unbatched input is
    given its batch dimension and has it taken away again (in place for inplace=True: so its
    version counter counts those two writes as well)."""
    x = input if batched else input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    if x.ndim < 2 and training and p != 0 and x.numel():   # (what is not dropped is not checked either)
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    out = _mask_dropout(x, p, training, inplace, tuple(x.shape[:2]) + (1,) * (x.ndim - 2))
    return out if batched else out.squeeze_(0) if inplace else out.squeeze(0)


def _note(name, k):
    return (f"Note that {name} exists to provide channel-wise dropout on inputs with {k} spatial dimension"
            f"{'s' if k > 1 else ''}, a channel dimension, and an optional batch dimension (i.e. {k + 1}D or "
            f"{k + 2}D inputs).")


def dropout1d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. "
                           + _note("dropout1d", 1))
    return _channel_dropout(input, p, training, inplace, input.ndim == 3)


def _spatial_dropout(name, k, input, p, training, inplace):
    """dropout2d (k = 2) and dropout3d (k = 3) as torch: other ranks are deprecated but still dropped
    channel-wise, dropout2d's with a batch dimension (a 3-D input read as (N, C, L)), dropout3d's
    without one unless 5-D."""
    _check_p(p)
    batched = k == 2 or input.ndim == 5
    if input.ndim not in (k + 1, k + 2):
        warnings.warn(f"{name}: Received a {input.ndim}-D input to {name}, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. " + _note(name, k), UserWarning, stacklevel=3)
    elif k == 2 and input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", UserWarning, stacklevel=3)
    return _channel_dropout(input, p, training, inplace, batched)


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _spatial_dropout("dropout2d", 2, input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _spatial_dropout("dropout3d", 3, input, p, training, inplace)


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
