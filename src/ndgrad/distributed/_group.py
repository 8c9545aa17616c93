"""Process groups on MPI (mpi4py): ranks, collectives, and waits that time out instead of hanging.

mpi4py is imported only when a group is created, so `import ndgrad.distributed` works without it.
Every blocking wait polls its MPI requests with a deadline and watches a side channel on which a
failing rank announces its error, so the other ranks stop with a message naming that rank
instead of waiting forever.
"""
import datetime
import pickle
import time

import numpy as np

__all__ = ["ProcessGroup", "ReduceOp", "init_process_group", "is_available", "is_initialized", "get_rank",
           "get_world_size", "new_group", "destroy_process_group", "barrier", "all_reduce", "broadcast"]

DEFAULT_TIMEOUT = 300.0
_FAILURE_TAG = 7


def _mpi():
    try:   # mpi4py is optional (the distributed extra), and initialises MPI when imported
        from mpi4py import MPI
    except ImportError as e:
        raise RuntimeError("ndgrad.distributed needs mpi4py and an MPI library: pip install 'ndgrad[distributed]' "
                           "(installs mpi4py and the mpich wheel, which provides mpiexec)") from e
    return MPI


def is_available():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


class PeerFailedError(RuntimeError):
    """Another rank of the group failed; this one stops instead of waiting for it."""


class ReduceOp:
    SUM, PRODUCT, MIN, MAX, AVG = "sum", "product", "min", "max", "avg"


def _seconds(timeout):
    if timeout is None:
        return DEFAULT_TIMEOUT
    return timeout.total_seconds() if isinstance(timeout, datetime.timedelta) else float(timeout)


class ProcessGroup:
    """A set of ranks talking over one MPI communicator (collective to create: all its ranks must)."""

    def __init__(self, comm, timeout=None):
        self.comm = comm
        self.timeout = _seconds(timeout)
        self._alarm = None
        self._alarm = self._dup(comm)  # failure notices travel apart from the data
        self._notices = []

    def _dup(self, comm):
        """A copy of `comm` (collective: waits, within the timeout, for every rank to join)."""
        new, request = comm.Idup()
        deadline = time.monotonic() + self.timeout
        while not request.Test():
            if self._alarm is not None:
                self.check_failures()
            if time.monotonic() > deadline:
                raise TimeoutError(f"rank {comm.Get_rank()}: timed out after {self.timeout:g} s waiting for every "
                                   "rank to create the same communicator (does every rank build the same stages "
                                   "and schedules in the same order?)")
            time.sleep(1e-4)
        return new

    def rank(self):
        return self.comm.Get_rank()

    def size(self):
        return self.comm.Get_size()

    def dup(self):
        return ProcessGroup(self._dup(self.comm), self.timeout)

    def __repr__(self):
        return f"ProcessGroup(rank={self.rank()}, size={self.size()})"

    # waiting ------------------------------------------------------------------------------
    def wait(self, poll, what, timeout=None):
        """Call poll() -> (done, value) until done; raise on timeout or when another rank failed."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        delay = 1e-6
        while True:
            done, value = poll()
            if done:
                return value
            self.check_failures()
            if time.monotonic() > deadline:
                raise TimeoutError(f"rank {self.rank()}: timed out after {self.timeout:g} s waiting for {what} "
                                   "(did that rank fail or run a different schedule?)")
            time.sleep(delay)
            delay = min(delay * 2, 1e-3)

    def wait_request(self, request, what, status=None):
        MPI = _mpi()
        status = status if status is not None else MPI.Status()
        self.wait(lambda: (request.Test(status), None), what)
        return status

    def notify_failure(self, message):
        """Tell every other rank that this one failed (fire and forget)."""
        data = pickle.dumps(str(message))
        for r in range(self.size()):
            if r != self.rank():
                self._notices.append(self._alarm.Isend([data, _mpi().BYTE], dest=r, tag=_FAILURE_TAG))

    def check_failures(self):
        MPI = _mpi()
        status = MPI.Status()
        if self._alarm.Iprobe(source=MPI.ANY_SOURCE, tag=_FAILURE_TAG, status=status):
            buf = bytearray(status.Get_count(MPI.BYTE))
            self._alarm.Recv([buf, MPI.BYTE], source=status.Get_source(), tag=_FAILURE_TAG)
            raise PeerFailedError(f"rank {self.rank()}: stopping because rank {status.Get_source()} failed: "
                               f"{pickle.loads(bytes(buf))}")

    # collectives --------------------------------------------------------------------------
    def gather_object(self, obj, root=0, tag=0):
        """[the object of every rank] on `root` (None elsewhere), by point-to-point messages."""
        MPI = _mpi()
        if self.rank() != root:
            data = pickle.dumps(obj)
            self.wait_request(self.comm.Isend([data, MPI.BYTE], root, tag), f"rank {root} to collect an object")
            return None
        result = [None] * self.size()
        result[root] = obj
        for r in range(self.size()):
            if r != root:
                status = MPI.Status()
                self.wait(lambda: (self.comm.Iprobe(r, tag, status), None), f"an object from rank {r}")
                buf = bytearray(status.Get_count(MPI.BYTE))
                self.comm.Recv([buf, MPI.BYTE], r, tag)
                result[r] = pickle.loads(bytes(buf))
        return result

    def iallreduce(self, array, op=ReduceOp.SUM):
        """Start an in-place all-reduce of a contiguous NumPy array; returns the request."""
        MPI = _mpi()
        mpi_op = {ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD,
                  ReduceOp.MIN: MPI.MIN, ReduceOp.MAX: MPI.MAX}[op]
        return self.comm.Iallreduce(MPI.IN_PLACE, array, op=mpi_op)

    def barrier(self):
        self.wait_request(self.comm.Ibarrier(), "a barrier")


_world = None


def init_process_group(backend="mpi", timeout=None, **kwargs):
    """Join the default group: every process started by `mpiexec -n N` (rank, size from MPI)."""
    global _world
    if backend not in ("mpi", None):
        raise ValueError(f"init_process_group: ndgrad runs on MPI only; got backend={backend!r}")
    if _world is not None:
        raise RuntimeError("trying to initialize the default process group twice!")
    _world = ProcessGroup(_mpi().COMM_WORLD.Dup(), timeout)
    return _world


def is_initialized():
    return _world is not None


def _group(group):
    if group is not None:
        return group
    if _world is None:
        raise RuntimeError("Default process group has not been initialized, please make sure to call "
                           "init_process_group.")
    return _world


def get_default_group():
    return _group(None)


def get_rank(group=None):
    return _group(group).rank()


def get_world_size(group=None):
    return _group(group).size()


def new_group(ranks=None, timeout=None):
    """A group of some ranks of the default group (collective: every rank calls it)."""
    world = _group(None)
    ranks = sorted(ranks) if ranks is not None else list(range(world.size()))
    color = 0 if world.rank() in ranks else _mpi().UNDEFINED
    comm = world.comm.Split(color, ranks.index(world.rank()) if world.rank() in ranks else 0)
    return ProcessGroup(comm, timeout if timeout is not None else world.timeout) if comm != _mpi().COMM_NULL \
        else None


def split_group(color, key=None, group=None):
    """Split a group by color (ranks with the same color form one new group; collective)."""
    parent = _group(group)
    return ProcessGroup(parent.comm.Split(color, parent.rank() if key is None else key), parent.timeout)


def destroy_process_group():
    global _world
    _world = None


def barrier(group=None):
    _group(group).barrier()


def all_reduce(tensor, op=ReduceOp.SUM, group=None):
    """Reduce `tensor` over the group, in place (AVG divides by the group size)."""
    g = _group(group)
    data = tensor._data
    buf = data if data.flags.c_contiguous else np.ascontiguousarray(data)
    g.wait_request(g.iallreduce(buf, op), "all_reduce")
    if op == ReduceOp.AVG:
        buf /= g.size()
    if buf is not data:
        data[...] = buf


def broadcast(tensor, src, group=None):
    """Copy `tensor` from rank `src` to every rank of the group, in place."""
    g = _group(group)
    buf = np.ascontiguousarray(tensor._data)
    g.wait_request(g.comm.Ibcast(buf, root=src), f"broadcast from rank {src}")
    tensor._data[...] = buf
