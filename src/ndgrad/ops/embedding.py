"""Embedding lookups: embedding (and its dense backward, embedding_renorm_), _embedding_bag and its
backward ops, and the user-facing embedding / embedding_bag (re-exported by nn/functional/embedding.py).
"""

import warnings

import numpy as np

from .. import _dtype
from .._sparse_array import COO
from . import _fused
from ._registry import op, register
from ..autograd.grad_mode import no_grad
from . import creation
from .activation import _inplace, _zero
from .linalg import _type_name


# ---- embedding ----------------------------------------------------------------------------
def _check_indices(name, indices):
    if indices.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{_type_name(indices)}Tensor instead (while checking arguments "
                           f"for {name})")


@op("embedding", public="embedding")
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    _check_indices("embedding", indices)
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if ((indices < 0) | (indices >= weight.shape[0])).any():
        raise IndexError("index out of range in self")
    return weight[indices]


@op("embedding_dense_backward", public="embedding_dense_backward")
def embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    flat = indices.reshape(-1)
    g = grad_output.reshape(flat.size, -1)
    if scale_grad_by_freq:
        g = g / np.bincount(flat, minlength=num_weights)[flat][:, None]
    if padding_idx >= 0:
        g = np.where((flat == padding_idx)[:, None], _zero(g), g)
    if g.dtype == grad_output.dtype and (out := _fused.scatter_add_rows(flat, g, num_weights)) is not None:
        return out
    out = np.zeros((num_weights, g.shape[1]), grad_output.dtype)
    np.add.at(out, flat, g)
    return out


def _embedding_renorm(self, indices, max_norm, norm_type):
    """Rows of `self` picked by `indices` whose norm exceeds max_norm are scaled down to it (in place)."""
    self = self.copy()
    rows = np.unique(indices)
    norms = np.linalg.norm(self[rows], ord=norm_type, axis=1)
    big = norms > max_norm
    self[rows[big]] *= (max_norm / (norms[big] + 1e-7))[:, None]
    return self


embedding_renorm_ = register("embedding_renorm_")(_inplace("embedding_renorm_", _embedding_renorm))


# ---- embedding
def embedding_fn(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 sparse=False):
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= weight.shape[0] or padding_idx < 0 and padding_idx < -weight.shape[0]:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = padding_idx % weight.shape[0]
    else:
        padding_idx = -1
    if max_norm is not None:
        with no_grad():
            # detached, as torch does: no tangent flows into the renorm
            embedding_renorm_(weight.detach(), input.contiguous(), max_norm, norm_type)
    return embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


# ---- embedding_bag ------------------------------------------------------------------------
def _bags(indices, offsets, include_last_offset, padding_idx):
    """(bag of every index, number of bags, mask of the indices that count)."""
    n_bags = len(offsets) - 1 if include_last_offset else len(offsets)
    bag = np.searchsorted(offsets, np.arange(len(indices)), side="right") - 1
    valid = (bag >= 0) & (bag < n_bags) & (indices != padding_idx)
    return np.clip(bag, 0, max(n_bags - 1, 0)), n_bags, valid


@op("_embedding_bag", public="_embedding_bag")
def _embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                   per_sample_weights=None, include_last_offset=False, padding_idx=-1):
    bag, n_bags, valid = _bags(indices, offsets, include_last_offset, padding_idx)
    rows = weight[indices]
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[:, None]
    counts = np.bincount(bag[valid], minlength=n_bags)
    out = np.zeros((n_bags, weight.shape[1]), weight.dtype)
    max_indices = np.full(out.shape if mode == 2 else (n_bags,), -1, np.int64)
    if mode == 2:
        out[:] = -np.inf
        np.maximum.at(out, bag[valid], rows[valid])
        out[counts == 0] = 0
        pos = np.arange(len(indices))[:, None]
        first = np.full(out.shape, len(indices))
        hit = valid[:, None] & (rows == out[bag])
        np.minimum.at(first, bag, np.where(hit, pos, len(indices)))
        found = first < len(indices)
        max_indices[found] = indices[first[found]]
    else:
        np.add.at(out, bag[valid], rows[valid])
        if mode == 1:
            out /= np.maximum(counts, 1)[:, None].astype(out.dtype)
    return out, np.where(valid, bag, 0), counts.astype(np.int64), max_indices


@op("_embedding_bag_backward", public="_embedding_bag_backward")
def _embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size, maximum_indices, num_weights,
                            scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx=-1):
    out = np.zeros((num_weights, grad.shape[1]), grad.dtype)
    if mode == 2:
        hit = maximum_indices >= 0
        cols = np.broadcast_to(np.arange(grad.shape[1]), grad.shape)
        np.add.at(out, (maximum_indices[hit], cols[hit]), grad[hit])
        return out
    bag, _, valid = _bags(indices, offsets, len(bag_size) == len(offsets) - 1, padding_idx)
    scale = valid / np.maximum(bag_size[bag], 1) if mode == 1 else valid.astype(np.float64)
    if per_sample_weights is not None:
        scale = scale * per_sample_weights
    if scale_grad_by_freq:
        scale = scale / np.bincount(indices, minlength=num_weights)[indices]
    rows = (grad[bag] * scale[:, None].astype(grad.dtype))[valid]
    if sparse:   # one row per (non-padding) index, uncoalesced, as torch's
        if scale_grad_by_freq:
            raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients")
        return COO(indices[valid][None].astype(np.int64), rows, (num_weights, grad.shape[1]), len(rows) <= 1)
    np.add.at(out, indices[valid], rows)
    return out


@op("_embedding_bag_per_sample_weights_backward", public="_embedding_bag_per_sample_weights_backward")
def _embedding_bag_per_sample_weights_backward(grad, weight, indices, offsets, offset2bag, mode, padding_idx=-1):
    bag, _, valid = _bags(indices, offsets, len(offsets) > grad.shape[0], padding_idx)
    return np.where(valid, (grad[bag] * weight[indices]).sum(1), 0).astype(grad.dtype)


@register()
def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    if indices.dtype not in (_dtype.int64, _dtype.int32) or offsets.dtype not in (_dtype.int64, _dtype.int32):
        raise RuntimeError(f"embedding_bag: expected indices and offsets to be Long or Int tensors, got "
                           f"{indices.dtype} and {offsets.dtype}")
    bad = ((indices < 0) | (indices >= weight.shape[0])).nonzero()
    if bad.numel():
        k = int(bad[0, 0])
        raise RuntimeError(f"Index {k} of input takes value {int(indices[k])} which is not in the valid range "
                           f"[0, {weight.shape[0]})")
    return _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                          include_last_offset, -1 if padding_idx is None else padding_idx)


def embedding_bag_fn(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                     mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                     padding_idx=None):
    if weight.dtype == _dtype.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
                      stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        offsets = creation.arange(0, input.numel(), input.shape[1], dtype=input.dtype)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    modes = {"sum": 0, "mean": 1, "max": 2}
    if mode not in modes:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if padding_idx is not None:
        if not -weight.shape[0] <= padding_idx < weight.shape[0]:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= weight.shape[0]
    if max_norm is not None:
        with no_grad():
            # detached, as torch does: no tangent flows into the renorm
            embedding_renorm_(weight.detach(), input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    return embedding_bag(weight, input, offsets, scale_grad_by_freq, modes[mode], sparse, per_sample_weights,
                         include_last_offset, padding_idx)[0]


@op("one_hot", public=False)
def _one_hot(input, num_classes):
    out = np.zeros(input.shape + (num_classes,), dtype=np.int64)
    np.put_along_axis(out, input[..., None], 1, -1)
    return out


def one_hot(tensor, num_classes=-1):
    if tensor.dtype.is_floating_point or tensor.is_complex() or str(tensor.dtype) != "torch.int64":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    a = tensor._array
    if a.size and a.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        if not a.size:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(a.max()) + 1
    elif a.size and a.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return _one_hot(tensor, num_classes)
