"""torch.cpu: the CPU as a device module (device-agnostic code calls torch.<device>.synchronize() and
the like). The CPU is always there, one device; computation is synchronous, so streams and events
only order nothing, as in torch."""
import contextlib
import os
import platform

__all__ = ["Event", "Stream", "StreamContext", "current_device", "current_stream", "device_count", "get_capabilities",
           "is_available", "is_initialized", "set_device", "stream", "synchronize"]


def is_available():
    return True


def is_initialized():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def set_device(device):
    """Accepted for device-agnostic code: there is one CPU device."""


def synchronize(device=None):
    """Nothing to wait for: CPU ops complete before they return."""


def get_capabilities():
    """What torch reports of the CPU that ndgrad can know from Python: architecture and logical cores
    (torch's instruction-set flags describe its own C++ kernels, which ndgrad does not have)."""
    return {"architecture": platform.machine(), "num_logical_cores": os.cpu_count()}


class Stream:
    """A stand-in stream (as torch.cpu.Stream): CPU work is ordered by program order."""

    def __init__(self, priority=-1):
        self.priority = priority

    def wait_stream(self, stream):
        pass

    def record_event(self):
        pass

    def wait_event(self, event):
        pass


class Event:
    def __init__(self, enable_timing=True):
        self.enable_timing = enable_timing

    def record(self, stream=None):
        pass

    def wait(self, stream=None):
        pass

    def query(self):
        return True

    def synchronize(self):
        pass


_default_stream = Stream()
_current = _default_stream


def current_stream(device=None):
    return _current


class StreamContext(contextlib.AbstractContextManager):
    """Makes `stream` the current stream inside the block."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        global _current
        self._prev, _current = _current, self.stream if self.stream is not None else _current

    def __exit__(self, *exc):
        global _current
        _current = self._prev


def stream(stream):
    return StreamContext(stream)
