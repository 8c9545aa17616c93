"""Distances: pdist and cdist (p-norms of pairwise differences, and their backward ops),
_euclidean_dist; the user-facing cdist and pdist. The distances torch composes from other ops
(pairwise_distance, cosine_similarity, triplet losses) are in ndgrad/nn/functional/distance.py.
"""
import math

import numpy as np

from ._registry import autocast_as, op, register
from .linalg import _type_name, broadcast_shape


# ---- distances ----------------------------------------------------------------------------
def _pnorm(diff, p):
    """The p-norm of `diff` along its last axis (p = 0 counts the non-zero entries)."""
    a = np.abs(diff)
    if p == 0:
        return (a != 0).sum(-1).astype(diff.dtype)
    if p == 1:
        return a.sum(-1)
    if p == 2:
        return np.sqrt((a * a).sum(-1))
    if math.isinf(p):
        return a.max(-1) if a.shape[-1] else np.zeros(a.shape[:-1], a.dtype)
    return (a ** p).sum(-1) ** (1.0 / p)


def _pnorm_grad(diff, dist, grad, p):
    """d dist / d diff times grad, for dist = ||diff||_p along the last axis (torch's conventions:
    zero where dist is 0; every tied entry of the max for p = inf)."""
    g, d = grad[..., None], dist[..., None]
    if p == 0:
        return np.zeros_like(diff)
    if p == 1:
        return g * np.sign(diff)
    if math.isinf(p):
        return g * np.sign(diff) * (np.abs(diff) == d)
    if p == 2:
        out = g * diff / d
    elif p < 2:
        out = np.sign(diff) * np.abs(diff) ** (p - 1) * g / d ** (p - 1)
    else:
        out = diff * np.abs(diff) ** (p - 2) * g / d ** (p - 1)
    zero = (d == 0) | ((diff == 0) & (p < 1))
    return np.where(zero, np.zeros((), out.dtype), out)


@op("_pdist_forward", public="_pdist_forward")
def _pdist_forward(input, p=2.0):
    i, j = np.triu_indices(input.shape[0], 1)
    return _pnorm(input[i] - input[j], p)


@op("_pdist_backward", public="_pdist_backward")
def _pdist_backward(grad, input, p, pdist):
    i, j = np.triu_indices(input.shape[0], 1)
    pair = _pnorm_grad(input[i] - input[j], pdist, grad, p)
    out = np.zeros(input.shape, pair.dtype)
    np.add.at(out, i, pair)
    np.add.at(out, j, -pair)
    return out


def _pairwise(x1, x2):
    """x1[..., i, None, :] - x2[..., None, j, :] with the batch dims broadcast."""
    return x1[..., :, None, :] - x2[..., None, :, :]


@op("_cdist_forward", public="_cdist_forward")
def _cdist_forward(x1, x2, p, compute_mode=None):
    return _pnorm(_pairwise(x1, x2), p)


def _sum_to(a, shape):
    """`a` summed down to `shape` (undoing broadcasting of the batch dims)."""
    lead = a.ndim - len(shape)
    a = a.sum(tuple(range(lead))) if lead else a
    axes = tuple(i for i, (s, t) in enumerate(zip(shape, a.shape)) if s == 1 and t != 1)
    return a.sum(axes, keepdims=True) if axes else a


@op("_cdist_backward", public="_cdist_backward")
def _cdist_backward(grad, x1, x2, p, cdist):
    return _sum_to(_pnorm_grad(_pairwise(x1, x2), cdist, grad, p).sum(-2), x1.shape)


@op("_euclidean_dist", public="_euclidean_dist")
def _euclidean_dist(x1, x2):
    # torch's matmul form: |a|^2 + |b|^2 - 2ab as one product of augmented matrices
    n1, n2 = (x1 * x1).sum(-1, keepdims=True), (x2 * x2).sum(-1, keepdims=True)
    a = np.concatenate([x1 * -2, n1, np.ones_like(n1)], -1)
    b = np.concatenate([x2, np.ones_like(n2), n2], -1)
    return np.sqrt(np.maximum(a @ np.swapaxes(b, -1, -2), 1e-30))


_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


@register()
@autocast_as("cdist")
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    mode = _CDIST_MODES[compute_mode]
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
        if not x.is_floating_point():
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {_type_name(x._array)}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    r1, r2, c = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    if x1.numel() and x2.numel() and p == 2 and (mode == 1 or mode == 0 and (r1 > 25 or r2 > 25)):
        # torch's matrix-product form of the euclidean distance (its own node, EuclideanDistBackward0)
        batch = broadcast_shape(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
        n = math.prod(batch)
        if n != 1:
            x1 = x1.expand(batch + (r1, c)).reshape(n, r1, c)
            x2 = x2.expand(batch + (r2, c)).reshape(n, r2, c)
        return _euclidean_dist(x1, x2).view(batch + (r1, r2))
    return _cdist_forward(x1, x2, p, None if mode == 0 else mode)


@register()
def pdist(input, p=2):
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if input.dtype.itemsize == 2 and input.dtype.title == "Half":
        raise NotImplementedError("\"pdist\" not implemented for 'Half'")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return _pdist_forward(input.contiguous(), p)
