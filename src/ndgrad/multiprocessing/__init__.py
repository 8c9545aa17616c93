"""torch.multiprocessing: Python's multiprocessing, with tensors that cross processes through shared memory.

Everything of the standard module is here (Process, Queue, Pool, get_context, ...). Importing ndgrad
registers the tensor and storage reductions with multiprocessing's pickler (``reductions.py``): a
tensor put on a queue, sent through a pipe or given to a spawned process is moved into shared memory
(``Tensor.share_memory_()``) and arrives as a tensor over the same memory, so that workers that
update a ``model.share_memory()``'d model in place update the parent's (Hogwild). ``spawn`` and
``start_processes`` run ``fn(i, *args)`` in several processes and raise a child's failure in the parent.

Example::

    >>> import ndgrad.multiprocessing as mp
    >>> x = torch.zeros(3).share_memory_()
    >>> x.is_shared(), mp.get_sharing_strategy()
    (True, 'file_descriptor')
"""
import multiprocessing
from multiprocessing import *  # noqa: F401,F403  (the standard module's names, as torch re-exports them)

from .._tensor import Tensor, UntypedStorage
from . import _shared, reductions
from ._spawn import (ProcessContext, ProcessException, ProcessExitedException, ProcessRaisedException,  # noqa: F401
                     SpawnContext, spawn, start_processes)
from .reductions import init_reductions

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"] + multiprocessing.__all__


def set_sharing_strategy(new_strategy):
    """Set how new shared storages are made and passed to other processes.

    Args:
        new_strategy (str): ``"file_descriptor"`` (the default: memory passed as an open file
            descriptor, freed once no process uses it) or ``"file_system"`` (a file in /dev/shm passed
            by name: no descriptor per storage; its sender keeps it until it exits).
    """
    _shared.set_strategy(new_strategy)


def get_sharing_strategy():
    """The current sharing strategy (see :func:`set_sharing_strategy`)."""
    return _shared.get_strategy()


def get_all_sharing_strategies():
    """The sharing strategies this system supports: ``{"file_descriptor", "file_system"}``."""
    return set(_shared._STRATEGIES)


def share_memory_(self):
    """Move this tensor's storage into shared memory, in place (a no-op if it is there already), so that
    processes it is sent to see the same memory. The tensor and its views keep their identity and
    version counter. Returns ``self``.

    Example::

        >>> x = torch.ones(3)
        >>> v = x[1:]
        >>> x.share_memory_() is x, x.is_shared(), v.is_shared()
        (True, True, True)
        >>> _ = v.add_(1)
        >>> x
        tensor([1., 2., 2.])
    """
    return _shared.share_tensor(self)


def is_shared(self):
    """Whether this tensor's storage is in shared memory (see :meth:`share_memory_`).

    Example::

        >>> torch.ones(2).is_shared()
        False
    """
    return _shared.is_shared(self)


# Tensor and its storages are below this layer: their sharing methods are attached here (at import of ndgrad)
Tensor.share_memory_, Tensor.is_shared = share_memory_, is_shared
UntypedStorage.share_memory_, UntypedStorage.is_shared = reductions.share_storage, reductions.storage_is_shared
init_reductions()
