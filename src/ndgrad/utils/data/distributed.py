"""torch.utils.data.distributed: DistributedSampler, each process's share of a dataset."""
import math
import sys

from ..._random import Generator
from ...ops.random import randperm
from .sampler import Sampler

__all__ = ["DistributedSampler"]


def _process_group(what):
    """world size or rank of ndgrad.distributed's default group. Looked up, not imported: the
    distributed layer sits above this one, and a program that set up a group has imported it."""
    dist = sys.modules.get("ndgrad.distributed")
    if dist is None or not dist.is_initialized():
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")
    return dist.get_world_size() if what == "world_size" else dist.get_rank()


class DistributedSampler(Sampler):
    """The share of a dataset that one of `num_replicas` processes reads: every
    ``num_replicas``-th index from ``rank`` on.

    With `shuffle` the order is a permutation seeded with ``seed + epoch`` (call ``set_epoch`` at
    each epoch's start); the indices are padded by repeating some so that every process gets as
    many, or cut to a multiple of `num_replicas` with `drop_last`.

    Args:
        dataset (Dataset): the dataset to share.
        num_replicas (int, optional): the number of processes (default: the default process group's world size).
        rank (int, optional): this process's rank (default: its rank in the default process group).
        shuffle (bool, optional): shuffle the indices. Default: ``True``.
        seed (int, optional): the base seed of the shuffle, the same in every process. Default: ``0``.
        drop_last (bool, optional): drop the tail instead of padding. Default: ``False``.

    Example::

        >>> DS = torch.utils.data.DistributedSampler
        >>> [list(DS(range(5), num_replicas=2, rank=r, shuffle=False)) for r in (0, 1)]
        [[0, 2, 4], [1, 3, 0]]
        >>> [list(DS(range(5), num_replicas=2, rank=r, shuffle=False, drop_last=True)) for r in (0, 1)]
        [[0, 2], [1, 3]]
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None:
            num_replicas = _process_group("world_size")
        if rank is None:
            rank = _process_group("rank")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch, self.drop_last, self.shuffle, self.seed = 0, drop_last, shuffle, seed
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if self.drop_last:
            indices = indices[:self.total_size]
        else:
            missing = self.total_size - len(indices)
            indices += (indices * math.ceil(missing / len(indices)))[:missing] if missing else []
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """The epoch whose order the next iteration shuffles into (call it at each epoch's start)."""
        self.epoch = epoch
