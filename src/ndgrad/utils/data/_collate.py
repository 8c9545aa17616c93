"""default_collate and default_convert: samples to batches, with torch's rules (tensors stacked,
NumPy arrays and scalars to tensors, Python floats to float64 and ints to int64, strings kept as
lists, mappings / namedtuples / sequences collated field by field).

A batch of plain tensors (or of Python ints or floats) is built by NumPy itself where that gives
what the ops would (see _plain.py): their glue, paid per column and batch, costs more than the copy.
"""
import collections.abc
import copy
import re

import numpy as np

from ... import _dtype
from ..._sparse_array import strided
from ..._tensor import Tensor
from ...ops.creation import as_tensor, from_numpy, tensor
from ...ops.shape import stack
from ._plain import ops_unobserved, plain_arrays

_STR_OR_OBJECT = re.compile(r"[SaUO]")   # NumPy dtype codes default_collate refuses
_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _is_numpy_value(x):
    t = type(x)
    return t.__module__ == "numpy" and t.__name__ not in ("str_", "string_")


def default_convert(data):
    """Converts the NumPy arrays and scalars in `data` to tensors, recursively through mappings and sequences.

    This is what a :class:`DataLoader` applies to each sample when batching is off
    (``batch_size=None``); tuples become lists, as in torch, and other values are left as they are.

    Args:
        data: a sample.

    Returns:
        the sample with tensors in place of the NumPy values.

    Example::

        >>> import numpy as np
        >>> torch.utils.data.default_convert({"x": np.array([1.0, 2.0]), "label": "a"})
        {'x': tensor([1., 2.], dtype=torch.float64), 'label': 'a'}
    """
    if isinstance(data, Tensor):
        return data
    if _is_numpy_value(data):
        if isinstance(data, np.ndarray) and _STR_OR_OBJECT.search(data.dtype.str):
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {k: default_convert(data[k]) for k in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):   # namedtuple
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def _rebuild_mapping(like, items):
    """A mapping of like's type holding items (a copy of like updated, when mutable), else a dict."""
    try:
        if isinstance(like, collections.abc.MutableMapping):
            clone = copy.copy(like)
            clone.update(items)
            return clone
        return type(like)(items)
    except TypeError:
        return items


def _rebuild_sequence(like, items):
    try:
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(like)(items)
    except TypeError:   # e.g. range
        return items


def collate_tensor_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if elem.is_nested:
        raise RuntimeError("Batches of nested tensors are not currently supported by the default collate_fn; "
                           "please provide a custom collate_fn to handle them appropriately.")
    if elem.layout is not strided:
        raise RuntimeError("Batches of sparse tensors are not currently supported by the default collate_fn; "
                           "please provide a custom collate_fn to handle them appropriately.")
    arrays = plain_arrays(batch)
    if arrays is not None:
        # the op's result: np.stack of C-contiguous arrays, row-major, which np.array builds faster;
        # from_numpy makes it a fresh leaf (an inference tensor in inference mode), as the op does
        return from_numpy(np.array(arrays))
    return stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if _STR_OR_OBJECT.search(elem.dtype.str) is not None:
        raise TypeError(_ERROR.format(elem.dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return as_tensor(np.array(batch))


def _plain_numbers(batch, kind, np_dtype):
    """tensor(batch) as NumPy builds it, for a batch of Python `kind`s only (no bool among ints) and
    no one watching the ops; None otherwise."""
    if not ops_unobserved() or not all(type(x) is kind for x in batch):
        return None
    try:
        return from_numpy(np.array(batch, dtype=np_dtype))
    except OverflowError:   # an int beyond int64: tensor() raises torch's error
        return None


def collate_float_fn(batch, *, collate_fn_map=None):
    out = _plain_numbers(batch, float, np.float64)
    return out if out is not None else tensor(batch, dtype=_dtype.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    out = _plain_numbers(batch, int, np.int64)
    return out if out is not None else tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def collate(batch, *, collate_fn_map=None):
    """Collate a list of samples; `collate_fn_map` maps a type (or tuple of types) of the first
    sample to the function that collates it (its exact type first, then isinstance in order)."""
    elem = batch[0]
    if collate_fn_map is not None:
        if type(elem) in collate_fn_map:
            return collate_fn_map[type(elem)](batch, collate_fn_map=collate_fn_map)
        for kind, fn in collate_fn_map.items():
            if isinstance(elem, kind):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map)
                                       for k in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):   # namedtuple
        return type(elem)(*(collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)]
        return columns if isinstance(elem, tuple) else _rebuild_sequence(elem, columns)
    raise TypeError(_ERROR.format(type(elem)))


def default_collate(batch):
    """Puts a list of samples together as a batch: tensors (and NumPy arrays, numbers) are stacked
    along a new leading dimension.

    Mappings, namedtuples and sequences are collated field by field, strings are kept as a list;
    samples of mismatched sizes or types raise. This is a :class:`DataLoader`'s ``collate_fn``
    unless it is given another.

    Args:
        batch (list): the samples.

    Returns:
        the batch, with the structure of one sample.

    Example::

        >>> torch.utils.data.default_collate([(torch.tensor([1.0, 2.0]), 0), (torch.tensor([3.0, 4.0]), 1)])
        [tensor([[1., 2.],
                [3., 4.]]), tensor([0, 1])]
        >>> torch.utils.data.default_collate([{"x": 1.5, "name": "a"}, {"x": 2.5, "name": "b"}])
        {'x': tensor([1.5000, 2.5000], dtype=torch.float64), 'name': ['a', 'b']}
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
