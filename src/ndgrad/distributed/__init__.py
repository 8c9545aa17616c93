"""ndgrad.distributed: training across processes and machines, on MPI (mpi4py; `mpiexec -n N`).

- process groups and collectives (`init_process_group`, `all_reduce`, ...): _group.py
- `DistributedDataParallel`: gradients all-reduced in buckets during backward: ddp.py
- `ndgrad.distributed.pipelining`: pipeline stages, schedules, split (zero-bubble) backward
"""
from ._group import (ProcessGroup, ReduceOp, all_reduce, barrier, broadcast, destroy_process_group,  # noqa: F401
                     get_default_group, get_rank, get_world_size, init_process_group, is_available,
                     is_initialized, new_group, split_group)
from .ddp import DistributedDataParallel  # noqa: F401,E402
from ..nn.modules import normalization as _normalization


def _sync_batch_norm_world_size(group):
    """The world size SyncBatchNorm would synchronize over, None without an initialized default group."""
    return get_world_size(group) if is_available() and is_initialized() else None


_normalization._distributed_world_size = _sync_batch_norm_world_size   # the slot nn's SyncBatchNorm reads
