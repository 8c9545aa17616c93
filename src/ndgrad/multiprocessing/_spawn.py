"""torch.multiprocessing.spawn / start_processes: run ``fn(i, *args)`` in `nprocs` processes, and
ProcessContext, whose join() raises in the parent what went wrong in a child (its traceback, or how it
exited), after stopping the others."""
import ctypes
import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import traceback
import warnings

_log = logging.getLogger(__name__)
_PR_SET_PDEATHSIG = 1


class ProcessException(Exception):
    """A process started by :func:`spawn` failed; `error_index` and `error_pid` say which."""
    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg, self.error_index, self.error_pid = msg, error_index, error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised an exception; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A spawned process exited with a non-zero code or was killed by a signal (`exit_code`, `signal_name`)."""
    __slots__ = ["exit_code"]

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


def _die_with_parent():
    """Ask Linux to send this process SIGINT when its parent dies (as torch's children do)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGINT)
        except (OSError, AttributeError):
            pass


def _run(fn, i, args, error_file):
    """A child's entry point: fn(i, *args); an exception's traceback goes to `error_file` for the parent."""
    _die_with_parent()
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass   # SIGINT: the parent stopped us
    except Exception:
        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """The processes started by :func:`start_processes` (returned with ``join=False``).

    Args:
        processes (list): the ``multiprocessing.Process`` objects.
        error_files (list of str): where each writes the traceback of an exception.
    """

    def __init__(self, processes, error_files):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        """The process ids, in index order."""
        return [int(p.pid) for p in self.processes]

    def _join_all(self, timeout):
        end = time.monotonic() + timeout
        for p in self.processes:
            p.join(max(0, end - time.monotonic()))

    def join(self, timeout=None, grace_period=None):
        """Wait (up to `timeout` seconds) for processes to end. Returns True when all have ended well,
        False when some still run. When one failed, the others are terminated (after `grace_period`
        seconds, SIGTERM, then SIGKILL) and the failure is raised: :class:`ProcessRaisedException` with the
        child's traceback, or :class:`ProcessExitedException` with its exit code or signal."""
        if not self.sentinels:
            return True
        failed = None
        for sentinel in multiprocessing.connection.wait(list(self.sentinels), timeout=timeout):
            i = self.sentinels.pop(sentinel)
            self.processes[i].join()
            if self.processes[i].exitcode != 0:
                failed = i
                break
        if failed is None:
            return not self.sentinels
        if grace_period is not None:
            self._join_all(grace_period)
        for p in self.processes:
            if p.is_alive():
                _log.warning("Terminating process %s via signal SIGTERM", p.pid)
                p.terminate()
        self._join_all(30 if grace_period is None else grace_period)
        for p in self.processes:
            if p.is_alive():
                _log.warning("Unable to shutdown process %s via SIGTERM , forcefully exiting via SIGKILL", p.pid)
                p.kill()
            p.join()
        process, error_file = self.processes[failed], self.error_files[failed]
        if not os.access(error_file, os.R_OK):
            code = process.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"<Unknown signal {-code}>"
                raise ProcessExitedException(f"process {failed:d} terminated with signal {name}", error_index=failed,
                                             error_pid=process.pid, exit_code=code, signal_name=name)
            raise ProcessExitedException(f"process {failed:d} terminated with exit code {code:d}",
                                         error_index=failed, error_pid=process.pid, exit_code=code)
        with open(error_file, "rb") as fh:
            trace = pickle.load(fh)   # (a string the child wrote)
        os.unlink(error_file)
        raise ProcessRaisedException(f"\n\n-- Process {failed:d} terminated with the following error:\n{trace}",
                                     failed, process.pid)


class SpawnContext(ProcessContext):
    """The old name of :class:`ProcessContext` (warns)."""

    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.", stacklevel=2)
        super().__init__(processes, error_files)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start `nprocs` processes with `start_method` ("spawn", "fork", "forkserver"), each running
    ``fn(i, *args)`` with its index `i`; wait for them all if `join` (raising the first failure, see
    :meth:`ProcessContext.join`), else return their :class:`ProcessContext`."""
    ctx = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        # a free name: the child creates the file only when it has an error to report
        with tempfile.NamedTemporaryFile(prefix="ndgrad-errorfile-", suffix=".pickle", delete=True) as tf:
            name = tf.name
        p = ctx.Process(target=_run, args=(fn, i, args, name), daemon=daemon)
        p.start()
        processes.append(p)
        error_files.append(name)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Run ``fn(i, *args)`` in `nprocs` new processes started with "spawn", `i` being each one's index.

    When a process fails the others are stopped and the parent raises
    :class:`ProcessRaisedException` (with the child's traceback) or :class:`ProcessExitedException`.

    Args:
        fn (function): a module-level function (it is pickled to the children).
        args (tuple): the arguments after the index.
        nprocs (int): how many processes.
        join (bool): wait for them (else return the :class:`ProcessContext`).
        daemon (bool): the processes' daemon flag.
        start_method (str): deprecated; always "spawn" (use :func:`start_processes` for others).

    Returns:
        None if `join`, else the :class:`ProcessContext`.
    """
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\nTo use a different "
                      "start_method use:\n\t\t torch.multiprocessing.start_processes(...)", FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
