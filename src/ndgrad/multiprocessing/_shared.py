"""Shared-memory storages: a tensor's memory moved, in place, into a segment other processes can map.

A segment is a MAP_SHARED mapping of a memfd ("file_descriptor" strategy: passed to other processes
as a file descriptor, freed by the kernel once no process maps or holds it) or of a file in /dev/shm
("file_system": passed by name; the creating process unlinks it when it frees its storage or exits,
and multiprocessing's resource tracker does if it is killed).
The segment's bytes are a uint8 array (the storage owner); tensors are NumPy views of it, so
``x.untyped_storage()`` and ``storage_offset()`` read as for any tensor.

NumPy cannot re-point an array at other memory, so moving a storage gives every tensor over it a
new array of the same shape, strides and offset over the segment: the tensor objects, their
``_base`` links and version counters stay as they were, and views stay views.
"""
import gc
import mmap
import os
import secrets
import sys
import weakref
from multiprocessing import resource_tracker, util

import numpy as np

from .._tensor import Tensor, _owner
from ..backends import is_array

_STRATEGIES = ("file_descriptor", "file_system")
SHM_DIR = "/dev/shm"
SHM_PREFIX = "ndgrad_"
_strategy = ["file_descriptor"]
# (st_dev, st_ino) of a segment -> its owner array in this process: a storage received twice (or sent
# back to the process that made it) is the same memory, so tensors over it alias as in the sender
_by_key = weakref.WeakValueDictionary()


def get_strategy():
    return _strategy[0]


def set_strategy(name):
    if name not in _STRATEGIES:
        raise AssertionError(f"invalid sharing strategy {name!r}, expected one of {set(_STRATEGIES)}")
    _strategy[0] = name


class Segment(mmap.mmap):
    """A shared mapping; `fd` stays open while the mapping lives (it is what the file_descriptor
    strategy sends), `name` is the /dev/shm path of a file_system segment (else None)."""


def _release(fd, name, creator):
    os.close(fd)
    if name is not None and os.getpid() == creator:
        try:
            os.unlink(name)
        except FileNotFoundError:
            pass
        resource_tracker.unregister(_shm_name(name), "shared_memory")


def _shm_name(path):
    return "/" + os.path.basename(path)   # the POSIX shm name of a file in /dev/shm


def _map(fd, size, name, creator):
    seg = Segment(fd, size)
    seg.fd, seg.name = fd, name
    st = os.fstat(fd)
    seg.key = (st.st_dev, st.st_ino)
    # multiprocessing's Finalize (not weakref.finalize): it also runs when a worker process exits
    # (Process._bootstrap), and forked children drop their parent's, so only the creator unlinks
    util.Finalize(seg, _release, (fd, name, creator), exitpriority=0)
    return seg


def new_segment(nbytes):
    """A fresh zero-filled segment of at least `nbytes` bytes, made as the current strategy says."""
    size = max(nbytes, 1)   # mmap refuses empty mappings
    if _strategy[0] == "file_system":
        name = os.path.join(SHM_DIR, f"{SHM_PREFIX}{os.getpid()}_{secrets.token_hex(8)}")
        fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        # the tracker process unlinks it should this process die before it can (as SharedMemory's)
        resource_tracker.register(_shm_name(name), "shared_memory")
    else:
        name, fd = None, os.memfd_create("ndgrad_storage", os.MFD_CLOEXEC)
    try:
        os.ftruncate(fd, size)
        return _map(fd, size, name, os.getpid())
    except BaseException:
        _release(fd, name, os.getpid())
        raise


def attach(fd, name, nbytes):
    """The owner array (nbytes of a segment) of a segment received as an open `fd` (which this takes
    over) or by file_system `name`; the one this process already has when it maps that segment."""
    if fd is None:
        if os.path.dirname(name) != SHM_DIR or not os.path.basename(name).startswith(SHM_PREFIX):
            raise RuntimeError(f"not an ndgrad shared-memory segment: {name!r}")
        fd = os.open(name, os.O_RDWR)
    try:
        st = os.fstat(fd)
        owner = _by_key.get((st.st_dev, st.st_ino))
        if owner is None:
            if st.st_size < nbytes:
                raise RuntimeError(f"shared-memory segment of {st.st_size} bytes is smaller than its storage "
                                   f"({nbytes} bytes)")
            return _own(_map(fd, st.st_size, name, None), nbytes)   # (None: a receiver never unlinks)
    except BaseException:
        os.close(fd)
        raise
    os.close(fd)   # this process maps that segment already
    return owner


def _own(seg, nbytes):
    owner = np.frombuffer(seg, np.uint8, count=nbytes)
    _by_key[seg.key] = owner
    return owner


def segment_of(owner):
    """The Segment under a storage owner array, or None when its memory is not shared."""
    base = owner.base
    return base.obj if type(base) is memoryview and type(base.obj) is Segment else None


def is_shared(t):
    return is_array(t._array) and type(t._array) is np.ndarray and segment_of(_owner(t)) is not None


def _aliases(owner, holder):
    """The tensors whose arrays view `owner`'s memory. A leaf whose array is the owner and is
    referenced by nothing else (no views, no detached aliases) is alone: no heap walk then."""
    # references: holder's slot, `owner` here, the caller's variable, getrefcount's argument
    if holder is not None and holder._array is owner and sys.getrefcount(owner) <= 4:
        return [holder]
    found = [holder] if holder is not None else []
    # (tensors frozen by gc.freeze(), those made while `import ndgrad` ran, are not walked)
    for o in gc.get_objects():
        # (type(), not isinstance: some objects on the heap answer __class__ lazily, with side effects)
        if issubclass(type(o), Tensor) and o is not holder:
            a = getattr(o, "_array", None)   # (a tensor being made may have none yet)
            if type(a) is np.ndarray and _root(a) is owner:
                found.append(o)
    return found


def _root(a):
    while is_array(a.base) or type(a.base).__name__ == "DummyArray":   # as _tensor._owner walks it
        a = a.base if is_array(a.base) else a.base.base
    return a


def move_to_shared(owner, holder=None):
    """Move the storage `owner` (an array owning its memory) into a new segment; every tensor over it
    (`holder` among them) is re-pointed. Returns the new owner."""
    if type(owner) is not np.ndarray:
        raise NotImplementedError(f"share_memory_: ndgrad shares NumPy (CPU) storages only, not "
                                  f"{type(owner).__name__}")
    if not (owner.flags.c_contiguous or owner.flags.f_contiguous):
        raise NotImplementedError("share_memory_: the tensor's storage is not one contiguous block of memory")
    tensors = _aliases(owner, holder)
    seg = new_segment(owner.nbytes)
    new_owner = _own(seg, owner.nbytes)
    if owner.nbytes:
        new_owner[:] = owner.ravel(order="K").view(np.uint8)
    start, moved = owner.__array_interface__["data"][0], {}
    for t in tensors:
        a = t._array
        b = moved.get(id(a))
        if b is None:   # arrays shared by several tensors (detach()) stay shared
            offset = a.__array_interface__["data"][0] - start if a.size else 0
            b = np.ndarray(a.shape, a.dtype, buffer=new_owner, offset=offset, strides=a.strides)
            b.flags.writeable = a.flags.writeable
            moved[id(a)] = b
        t._array = b
    return new_owner


def share_tensor(t):
    """Tensor.share_memory_: t's storage moved into shared memory (a no-op when it is already)."""
    if not is_shared(t):
        if not is_array(t._array) or type(t._array) is not np.ndarray:
            if t.is_meta:   # no data: nothing to share (torch returns the meta tensor as it is)
                return t
            raise NotImplementedError(f"share_memory_: a {t.layout} tensor has no single storage to share in "
                                      "ndgrad")
        move_to_shared(_owner(t), t)
    return t
