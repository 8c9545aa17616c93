"""ndgrad.autograd.profiler_util: the profiler's event classes, where torch keeps them."""
from .profiler import EventList, FunctionEvent, FunctionEventAvg, _format_memory, _format_time  # noqa: F401
