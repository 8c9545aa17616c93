"""torch.cpu: the CPU as a device module (the same calls as torch.cuda, answered for the one CPU
device), and `torch.cpu.amp`."""
import contextlib

from . import amp  # noqa: F401


def is_available():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def set_device(device):
    """Accepted and ignored, as torch does: there is one CPU device."""


def synchronize(device=None):
    """Nothing to wait for: CPU ops finish before they return."""


class Stream:
    """The CPU's stream: work on the CPU is synchronous, so waiting is immediate."""

    def __init__(self, priority=-1):
        pass

    def wait_stream(self, stream):
        pass


class Event:
    def query(self):
        return True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass


_default_stream = Stream()


def current_stream(device=None):
    return _default_stream


class StreamContext(contextlib.AbstractContextManager):
    def __init__(self, stream):
        self.stream = stream

    def __exit__(self, *exc):
        return False


def stream(stream):
    return StreamContext(stream)
