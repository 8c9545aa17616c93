"""torch.autograd.profiler_util: the profiler's result types (events, their averages, the event list
and its table), which ndgrad defines in autograd/profiler.py."""
from .profiler import EventList, FunctionEvent, FunctionEventAvg, _format_memory, _format_time  # noqa: F401

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg"]
