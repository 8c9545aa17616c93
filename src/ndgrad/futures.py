"""ndgrad.futures (torch.futures): a result that may arrive later, with callbacks.

``torch.jit.fork`` returns one (in ndgrad the forked call has already run: see :mod:`ndgrad.jit`);
programs also make them directly to hand results between threads.
"""
import threading
import traceback

__all__ = ["Future", "collect_all", "wait_all"]


class Future:
    """The result of an asynchronous computation: ``set_result``/``set_exception`` completes it once;
    ``wait`` blocks until then; ``then``/``add_done_callback`` run callbacks on completion.

    Example::

        >>> fut = torch.futures.Future()
        >>> doubled = fut.then(lambda f: f.wait() * 2)
        >>> fut.set_result(21)
        >>> doubled.wait()
        42
    """

    def __init__(self, *, devices=None):
        self._lock = threading.Condition()
        self._done = False
        self._result = None
        self._error = None
        self._callbacks = []

    def __repr__(self):
        return f"<torch.jit.Future object at {id(self):#x}>"

    def done(self):
        """Whether the future has a result or an exception."""
        return self._done

    def wait(self):
        """Block until the future completes; its result, or its exception raised."""
        with self._lock:
            while not self._done:
                self._lock.wait()
        return self.value()

    def value(self):
        """The result of a completed future (raises its exception, if it has one)."""
        if not self._done:
            raise RuntimeError("Future.value(): the future is not completed yet (wait() blocks until it is)")
        if self._error is not None:
            raise self._error
        return self._result

    def then(self, callback):
        """A new future completed with ``callback(self)`` once this one completes (an exception the
        callback raises completes it with a RuntimeError naming it)."""
        out = Future()

        def run(fut):
            try:
                out.set_result(callback(fut))
            except Exception as e:  # noqa: BLE001 - handed to the waiting side, as torch
                stack = "".join(traceback.format_tb(e.__traceback__))
                out.set_exception(RuntimeError(
                    f"Got the following error when running the callback: {type(e).__name__}: {e}\n\nAt:\n{stack}"))
        self.add_done_callback(run)
        return out

    def add_done_callback(self, callback):
        """Run ``callback(self)`` when the future completes (now, if it has)."""
        with self._lock:
            if not self._done:
                self._callbacks.append(callback)
                return
        callback(self)

    def set_result(self, result):
        """Complete the future with `result` (once)."""
        self._complete(result, None)

    def set_exception(self, result):
        """Complete the future with the exception `result`: ``wait`` and ``value`` raise it."""
        assert isinstance(result, Exception), f"{result} is of type {type(result)}, not an Exception."
        self._complete(None, result)

    def _complete(self, result, error):
        with self._lock:
            if self._done:
                raise RuntimeError("Attempting to mark a completed Future as complete again. Note that a Future can "
                                   "only be marked completed once.")
            self._result, self._error, self._done = result, error, True
            callbacks, self._callbacks = self._callbacks, []
            self._lock.notify_all()
        for callback in callbacks:
            callback(self)


def collect_all(futures):
    """A future completed, once every one of `futures` is, with the list of them."""
    out, remaining = Future(), [len(futures)]
    lock = threading.Lock()
    if not futures:
        out.set_result([])

    def one_done(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            out.set_result(list(futures))
    for fut in futures:
        fut.add_done_callback(one_done)
    return out


def wait_all(futures):
    """Wait for every future; their results in order (the first exception met is raised)."""
    return [fut.wait() for fut in futures]
