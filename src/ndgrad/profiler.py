"""ndgrad.profiler: the torch.profiler spelling of the autograd profiler (CPU activity only)."""
import enum

from .autograd.profiler import EventList, emit_nvtx, record_function  # noqa: F401
from .autograd.profiler import profile as _autograd_profile


class ProfilerActivity(enum.Enum):
    """The devices a profiler can record: ndgrad records ``CPU`` activity only (``CUDA`` exists for
    code that names it).

    Example::

        >>> torch.autograd.ProfilerActivity.CPU
        <ProfilerActivity.CPU: 0>
    """
    CPU = 0
    CUDA = 1


class profile(_autograd_profile):
    """torch.profiler.profile: `activities`, `schedule` and `on_trace_ready` are accepted; ndgrad
    records CPU ops and backward nodes for the whole block (no schedule stepping)."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None):
        super().__init__(record_shapes=record_shapes, profile_memory=profile_memory, with_stack=with_stack)
        self.on_trace_ready = on_trace_ready

    def __exit__(self, *exc):
        super().__exit__(*exc)
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)
        return False

    def step(self):
        """Schedules are not implemented: every step is recorded."""

    def start(self):
        self.__enter__()

    def stop(self):
        self.__exit__(None, None, None)
