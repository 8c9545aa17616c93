"""How tensors and storages cross processes (multiprocessing's ForkingPickler, used by its queues,
pipes and by Process arguments under "spawn"): as torch, the storage is moved into shared memory in
the sender, and the receiver maps the same memory, so writes on either side are seen by both.

The pickle carries the segment (a file descriptor, passed by multiprocessing's own fd passing, or a
/dev/shm name) and the tensor's shape, strides, offset, dtype and requires_grad; unpickling calls only
the rebuild functions below, which map the segment and wrap it, nothing else.
"""
import pickle
from multiprocessing.reduction import DupFd, ForkingPickler

import numpy as np

from .._tensor import Tensor, TypedStorage, UntypedStorage, _owner, _rebuild_tensor
from ..nn import Parameter
from . import _shared

NON_LEAF = ("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does not support "
            "crossing process boundaries.  If you just want to transfer the data, call detach() on the tensor "
            "before serializing (e.g., putting it on the queue).")
_pinned = set()   # file_system segments sent from here: kept (and their names) until this process exits


def _handle(seg):
    if seg.name is not None:
        _pinned.add(seg)   # the receiver opens the name later, perhaps after the sender dropped the tensor
        return None, seg.name
    return DupFd(seg.fd), None


def _attach(handle, nbytes):
    fd, name = handle
    return _shared.attach(None if fd is None else fd.detach(), name, nbytes)


def reduce_tensor(t):
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError(NON_LEAF)
    if type(t._array) is not np.ndarray:   # sparse, nested, meta: copied, as plain pickle does
        return t.__reduce_ex__(pickle.DEFAULT_PROTOCOL)
    _shared.share_tensor(t)
    state = t.__reduce_ex__(pickle.DEFAULT_PROTOCOL)[1][3]   # user attributes, lazy conj/neg bits
    a, owner = t._array, _owner(t)
    offset = a.__array_interface__["data"][0] - owner.__array_interface__["data"][0] if a.size else 0
    return rebuild_tensor, (type(t), _handle(_shared.segment_of(owner)), owner.nbytes, offset, a.shape, a.dtype,
                            a.strides, t.requires_grad, state)


def rebuild_tensor(cls, handle, nbytes, offset, shape, dtype, strides, requires_grad, state):
    owner = _attach(handle, nbytes)
    data = np.ndarray(shape, dtype, buffer=owner, offset=offset, strides=strides)
    return _rebuild_tensor(cls, data, requires_grad, state)


def reduce_storage(s):
    if _shared.segment_of(s._owner) is None:
        share_storage(s)
    seg = _shared.segment_of(s._owner)
    dtype = s._np_dtype if isinstance(s, TypedStorage) else None
    return rebuild_storage, (type(s), _handle(seg), s._owner.nbytes, dtype)


def rebuild_storage(cls, handle, nbytes, dtype):
    owner = _attach(handle, nbytes)
    return cls(owner) if dtype is None else cls(owner, dtype)


def share_storage(s):
    """``UntypedStorage.share_memory_()``: this storage, and every tensor over it, moved into shared memory."""
    if _shared.segment_of(s._owner) is None:
        s._owner = _shared.move_to_shared(s._owner)
    return s


def storage_is_shared(s):
    return _shared.segment_of(s._owner) is not None


def init_reductions():
    """Register the reductions with multiprocessing's ForkingPickler (done when ndgrad is imported)."""
    for cls in (Tensor, Parameter):
        ForkingPickler.register(cls, reduce_tensor)
    for cls in (UntypedStorage, TypedStorage):
        ForkingPickler.register(cls, reduce_storage)
