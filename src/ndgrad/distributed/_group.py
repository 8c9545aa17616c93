"""Process groups on MPI (mpi4py): ranks, collectives, and waits that time out instead of hanging.

mpi4py is imported only when a group is created, so `import ndgrad.distributed` works without it.
Every blocking wait polls its MPI requests with a deadline (`timeout`, 30 s by default) and
watches a side channel on which a failing rank announces its error, so the other ranks stop with
a message naming that rank and the step it was in instead of waiting forever:
- a rank that raises announces it: the pipeline schedules when an action fails, and for any
  uncaught exception the excepthook installed by `init_process_group`; one that exits during a
  step announces that (atexit);
- a rank that dies without a word (killed) is seen gone by the ranks on its machine (its pid);
  MPICH's launcher, under -disable-auto-cleanup, also tells the others with SIGUSR1 (whose default
  action would end them without a word): the handler installed here makes them look at once;
- a rank that hangs (or died on another machine) is found by elimination: a rank that times out
  says so on the side channel and waits a short grace for the others' word; those that stay
  silent are named.
After such a failure an uncaught exception ends the process without MPI_Finalize, which would wait
for the failed rank: with os._exit once its notices are delivered, or, after a timeout (a rank may
be hung), with MPI_Abort, which ends the hung rank too (a second later, for the others to report).
"""
import atexit
import datetime
import os
import pickle
import signal
import socket
import sys
import time
import weakref

import numpy as np

__all__ = ["ProcessGroup", "ReduceOp", "init_process_group", "is_available", "is_initialized", "get_rank",
           "get_world_size", "new_group", "destroy_process_group", "barrier", "all_reduce", "broadcast"]

DEFAULT_TIMEOUT = 30.0
_FAILURE_TAG = 7
_LIVENESS_PERIOD = 0.2   # seconds between checks that the peers on this machine are alive
_ABORT_GRACE = 1.0       # seconds an aborting rank leaves the others to report before MPI_Abort
_NOTICE_GRACE = 0.5      # seconds a notice may take to arrive from a rank that then left


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
    """Another rank of the group failed; this one stops instead of waiting for it.

    notice: what that rank's failure was ({"kind": "failed" or "gone", "rank", "step", "error"}), passed on
    to the other ranks when this one leaves, so that they name the rank that failed first, not this one."""

    def __init__(self, message, notice=None):
        super().__init__(message)
        self.notice = notice


class PeerTimeoutError(TimeoutError):
    """This rank timed out waiting; the others were told (nothing more to announce)."""


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
        self.step = None       # what this rank is doing for the group, e.g. "DDP step 3": named in errors
        self._alarm = None
        self._alarm = self._dup(comm)  # failure notices travel apart from the data
        self._notices = []
        self._waiting_peers = set()    # world ranks that said they timed out waiting
        self._next_liveness = 0.0
        world = _mpi().COMM_WORLD
        self._world_ranks = _mpi().Group.Translate_ranks(comm.Get_group(), list(range(comm.Get_size())),
                                                         world.Get_group())
        _groups.append(weakref.ref(self))

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
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        delay = 1e-6
        while True:
            done, value = poll()
            if done:
                return value
            self.check_failures(what)
            now = time.monotonic()
            if now > deadline or self._waiting_peers:   # (a peer gave up waiting: this wait is stuck too)
                self._census(what, timeout)
            time.sleep(delay)
            delay = min(delay * 2, 1e-3)

    def wait_request(self, request, what, status=None, timeout=None):
        MPI = _mpi()
        status = status if status is not None else MPI.Status()
        self.wait(lambda: (request.Test(status), None), what, timeout)
        return status

    def _during(self):
        return f" during {self.step}" if self.step else ""

    def notify_failure(self, message, kind="failed", notice=None):
        """Tell every other rank that this one failed (fire and forget); or pass on another rank's notice."""
        notice = notice or {"kind": kind, "rank": _world_rank(), "step": self.step, "error": str(message)}
        data = pickle.dumps(notice)
        for r in range(self.size()):
            if r != self.rank():
                self._notices.append(self._alarm.Isend([data, _mpi().BYTE], dest=r, tag=_FAILURE_TAG))

    def check_failures(self, what=None):
        """Raise PeerFailedError if a rank of the group announced a failure or is gone from this
        machine; note the ranks that announced they timed out waiting."""
        self._read_notices(what)
        now = time.monotonic()
        if now >= self._next_liveness or _state["launcher_notice"]:
            self._next_liveness = now + _LIVENESS_PERIOD
            for r in self._world_ranks:
                if r != _world_rank() and _is_gone(r):
                    # a rank that stopped because of another's failure passed its notice on before it left:
                    # give it a moment to arrive, so that the rank named is the one that failed first
                    end = now + _NOTICE_GRACE
                    while time.monotonic() < end:
                        self._read_notices(what)
                        time.sleep(1e-3)
                    self._peer_failed({"kind": "gone", "rank": r, "step": None, "error": "killed, or exited without "
                                       f"a word; pid {_peers[r][1]} on {_peers[r][0]}"}, what)
            # the launcher may speak before the dead rank's pid is gone: look again for a second
            if _state["launcher_notice"] and now - _state["launcher_notice"] > 1.0:
                raise PeerFailedError(f"rank {self.rank()}: stopping because a rank ended abnormally (the MPI "
                                      f"launcher sent SIGUSR1) while this rank waited for {what}{self._during()}")

    def _read_notices(self, what):
        MPI = _mpi()
        status = MPI.Status()
        while self._alarm.Iprobe(source=MPI.ANY_SOURCE, tag=_FAILURE_TAG, status=status):
            buf = bytearray(status.Get_count(MPI.BYTE))
            self._alarm.Recv([buf, MPI.BYTE], source=status.Get_source(), tag=_FAILURE_TAG)
            notice = pickle.loads(bytes(buf))
            if notice["kind"] == "timeout":
                self._waiting_peers.add(notice["rank"])
            else:
                self._peer_failed(notice, what)

    def _peer_failed(self, notice, what):
        if notice["kind"] == "gone":
            cause = f"rank {notice['rank']} is gone ({notice['error']})"
        else:
            during = f" during {notice['step']}" if notice["step"] else ""
            cause = f"rank {notice['rank']} failed{during}: {notice['error']}"
        waiting = f" (this rank was waiting for {what}{self._during()})" if what else ""
        raise PeerFailedError(f"rank {self.rank()}: stopping because {cause}{waiting}", notice)

    def _census(self, what, timeout):
        """After a timeout: tell the others, wait a short grace for their word, and name the silent ranks."""
        self.notify_failure(f"timed out waiting for {what}", kind="timeout")
        grace = min(max(timeout / 2, 0.2), 2.0)
        others = {r for r in self._world_ranks if r != _world_rank()}
        end = time.monotonic() + grace
        while time.monotonic() < end and not others <= self._waiting_peers:
            self.check_failures(what)
            time.sleep(1e-3)
        silent = sorted(others - self._waiting_peers)
        why = (f"rank{'s' if len(silent) > 1 else ''} {', '.join(map(str, silent))} did not answer within {grace:g} s "
               "(hung, or gone)" if silent else "every other rank is waiting too (do all ranks run the same steps?)")
        raise PeerTimeoutError(f"rank {self.rank()}: timed out after {timeout:g} s waiting for {what}{self._during()} "
                           f"(did that rank fail or run a different schedule?); {why}")

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
_groups = []      # weak references to every group of this process: an uncaught error is announced on each
_peers = None     # world rank -> (host, pid), gathered by init_process_group
_state = {"announced": False, "abort": None, "launcher_notice": False}   # abort: None, "exit" or "abort"


def _world_rank():
    return _mpi().COMM_WORLD.Get_rank()


def _is_gone(world_rank):
    """Whether a rank running on this machine has ended (a zombie counts as ended)."""
    if _peers is None or _peers[world_rank][0] != _peers[_world_rank()][0]:
        return False   # on another machine: only a timeout can tell
    pid = _peers[world_rank][1]
    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except ProcessLookupError:
        return True
    except OSError:   # no /proc, or no right to signal it: assume alive
        return False


def _live_groups():
    return [g for g in (ref() for ref in _groups) if g is not None]


def _announce(message, notice=None):
    """Tell every rank of every group of this process that this one failed, or pass on the notice of
    the rank that did (once)."""
    if _state["announced"]:
        return
    _state["announced"] = True
    for g in _live_groups():
        try:
            g.notify_failure(message, notice=notice)
        except Exception:  # noqa: BLE001 - best effort: this process is failing already
            pass


def _excepthook(kind, error, tb):
    # an uncaught error leaves the other ranks waiting: tell them (unless they told us), and do not
    # let MPI_Finalize wait for them at exit
    if isinstance(error, PeerFailedError):
        _announce(None, error.notice)   # the ranks that have not heard yet must name the first to fail
    elif not isinstance(error, PeerTimeoutError):
        _announce(f"{kind.__name__}: {error}")
    _state["abort"] = "abort" if isinstance(error, PeerTimeoutError) else "exit"
    _previous_excepthook(kind, error, tb)


def _at_exit():
    steps = [g.step for g in _live_groups() if g.step]
    if steps and not _state["announced"]:   # sys.exit (or the end of the program) in the middle of a step
        _announce(f"exited during {steps[0]}")
        _state["abort"] = _state["abort"] or "exit"
    if not _state["abort"] or _mpi().COMM_WORLD.Get_size() == 1:
        return
    MPI, deadline = _mpi(), time.monotonic() + _ABORT_GRACE
    for g in _live_groups():   # deliver this rank's notices before leaving
        while g._notices and not MPI.Request.Testall(g._notices) and time.monotonic() < deadline:
            time.sleep(1e-3)
    sys.stdout.flush()
    sys.stderr.flush()
    # stay a moment: a send complete here may still be on its way, and the launcher may end the
    # others as this rank leaves without MPI_Finalize, before they could report
    time.sleep(_ABORT_GRACE)
    if _state["abort"] == "abort":   # a rank may be hung: end the job (it too)
        MPI.COMM_WORLD.Abort(1)
    os._exit(1)


def _launcher_notice(signum, frame):
    _state["launcher_notice"] = _state["launcher_notice"] or time.monotonic()


_previous_excepthook = sys.excepthook


def init_process_group(backend="mpi", timeout=None, **kwargs):
    """Join the default group: every process started by `mpiexec -n N` (rank, size from MPI).

    timeout: how long any wait for other ranks may last (seconds or a timedelta; 30 s by default)."""
    global _world, _peers, _previous_excepthook
    if backend not in ("mpi", None):
        raise ValueError(f"init_process_group: ndgrad runs on MPI only; got backend={backend!r}")
    if _world is not None:
        raise RuntimeError("trying to initialize the default process group twice!")
    world = _mpi().COMM_WORLD
    _peers = world.allgather((socket.gethostname(), os.getpid()))
    _world = ProcessGroup(world.Dup(), timeout)
    if sys.excepthook is not _excepthook:
        _previous_excepthook, sys.excepthook = sys.excepthook, _excepthook
        atexit.register(_at_exit)   # registered after mpi4py's finalizer: runs before it
        if hasattr(signal, "SIGUSR1") and signal.getsignal(signal.SIGUSR1) is signal.SIG_DFL:
            signal.signal(signal.SIGUSR1, _launcher_notice)
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
    data = tensor._array
    buf = data if data.flags.c_contiguous else np.ascontiguousarray(data)
    g.wait_request(g.iallreduce(buf, op), "all_reduce")
    if op == ReduceOp.AVG:
        buf /= g.size()
    if buf is not data:
        data[...] = buf


def broadcast(tensor, src, group=None):
    """Copy `tensor` from rank `src` to every rank of the group, in place."""
    g = _group(group)
    buf = np.ascontiguousarray(tensor._array)
    g.wait_request(g.comm.Ibcast(buf, root=src), f"broadcast from rank {src}")
    tensor._array[...] = buf
