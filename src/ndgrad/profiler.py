"""ndgrad.profiler: the torch.profiler spelling of the autograd profiler (CPU activity only), with
torch's step schedules: ``profile(schedule=schedule(wait=, warmup=, active=), on_trace_ready=)`` and
``prof.step()`` record only the active steps of each cycle and hand each finished cycle to
``on_trace_ready`` (``tensorboard_trace_handler`` writes it as a Chrome trace file)."""
import enum
import os
import time
import warnings

from .autograd.profiler import EventList, emit_nvtx, kineto_available, record_function  # noqa: F401
from .autograd.profiler import profile as _autograd_profile

__all__ = ["ProfilerAction", "ProfilerActivity", "kineto_available", "profile", "record_function", "schedule",
           "supported_activities", "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    """The devices a profiler can record: ndgrad records ``CPU`` activity only (``CUDA`` exists for
    code that names it).

    Example::

        >>> torch.autograd.ProfilerActivity.CPU
        <ProfilerActivity.CPU: 0>
    """
    CPU = 0
    CUDA = 1


def supported_activities():
    """The activities this build's profiler can record: ``{ProfilerActivity.CPU}`` (no device is timed).

    Example::

        >>> torch.profiler.supported_activities()
        {<ProfilerActivity.CPU: 0>}
    """
    return {ProfilerActivity.CPU}


class ProfilerAction(enum.Enum):
    """What the profiler does at a step, as a schedule returns it: nothing, warm up, record, or record
    and hand the cycle to ``on_trace_ready`` at the step's end (``DEVICE_STOPPED`` is the profiler's own
    state when a device stops collecting early; a schedule must not return it).

    Example::

        >>> torch.profiler.ProfilerAction.RECORD_AND_SAVE
        <ProfilerAction.RECORD_AND_SAVE: 3>
    """
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A step schedule for :class:`profile`: after `skip_first` steps, cycles of `wait` idle steps,
    `warmup` steps and `active` recorded steps (the last one ``RECORD_AND_SAVE``), `repeat` times
    (0: until the profile ends). A nonzero `skip_first_wait` leaves out the first cycle's wait.

    Example::

        >>> s = torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
        >>> [s(i).name for i in range(5)]
        ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
    """
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    cycle = wait + warmup + active

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step = step - skip_first + (wait if skip_first_wait else 0)
        if repeat > 0 and step >= repeat * cycle:
            return ProfilerAction.NONE
        phase = step % cycle
        if phase < wait:
            return ProfilerAction.NONE
        if phase < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if phase < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _default_schedule_fn(_):
    """Without a schedule every step is recorded, and the trace is ready when the profile ends."""
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False, use_python_export=False):
    """An ``on_trace_ready`` handler that writes each finished cycle to
    ``<dir_name>/<worker_name>.<time in ns>.pt.trace.json`` (``.gz`` added with `use_gzip`), a Chrome trace
    TensorBoard's profiler plugin reads; `worker_name` defaults to ``<hostname>_<pid>``.

    Example::

        >>> import os, tempfile
        >>> d = tempfile.mkdtemp()
        >>> with torch.profiler.profile(on_trace_ready=torch.profiler.tensorboard_trace_handler(d, "w")):
        ...     _ = torch.ones(2).sin()
        >>> [f.startswith("w.") and f.endswith(".pt.trace.json") for f in os.listdir(d)]
        [True]
    """
    def handler_fn(prof):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            import socket   # lazy on purpose: `import ndgrad` imports this module, and only a handler needs it
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json" + (".gz" if use_gzip else "")
        prof.export_chrome_trace(os.path.join(dir_name, file_name))

    return handler_fn


_CLEARS_EVENTS = ("Warning: Profiler clears events at the end of each cycle. Only events from the current cycle "
                  "will be reported. To keep events across cycles, set acc_events=True.")
_warned = set()


class profile(_autograd_profile):
    """torch.profiler.profile: records CPU ops and backward nodes.

    With a `schedule`, :meth:`step` moves to the next step and only the steps the schedule marks
    ``RECORD`` / ``RECORD_AND_SAVE`` are recorded (each step inside a ``ProfilerStep#<n>`` range); at the
    end of each cycle `on_trace_ready(prof)` sees that cycle's events (all cycles' with `acc_events`).
    Without one, the whole block is one cycle. `activities` is accepted: only CPU activity exists.
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        super().__init__(record_shapes=record_shapes, profile_memory=profile_memory, with_stack=with_stack)
        self.activities = set(activities) if activities else supported_activities()
        self.schedule = schedule if schedule else _default_schedule_fn
        self.record_steps = bool(schedule)
        self.on_trace_ready = on_trace_ready
        self.acc_events = acc_events
        self.step_num = 0
        self.step_rec_fn = None
        self._prepared = False
        self._earlier = []   # with acc_events: the events of the cycles already finished
        self.current_action = self._scheduled(0)

    def _scheduled(self, step):
        action = self.schedule(step)
        if action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler and must not be "
                             "returned by a user-provided schedule")
        return action

    # the cycle's stages ---------------------------------------------------------------------
    def prepare_trace(self):
        if self._prepared and not self.acc_events and _CLEARS_EVENTS not in _warned:
            _warned.add(_CLEARS_EVENTS)
            warnings.warn(_CLEARS_EVENTS, stacklevel=2)
        if not self.acc_events:
            self._earlier = []
        self._prepared = True

    def start_trace(self):
        if self.acc_events and self.function_events is not None:
            self._earlier = list(self.function_events)
        _autograd_profile.__enter__(self)

    def stop_trace(self):
        _autograd_profile.__exit__(self, None, None, None)
        for e in self.function_events:   # torch's events group the steps as one name; the trace keeps each
            if e.name.startswith("ProfilerStep#"):
                e.name = e.key = "ProfilerStep*"
        if self._earlier:
            self.function_events = EventList(self._earlier + list(self.function_events), self.profile_memory,
                                             self.record_shapes, self.with_stack)

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit(self, prev, current):
        for stage in _TRANSITIONS.get((prev, current), ()):
            if isinstance(stage, str):   # torch's warning about a schedule that skips a stage
                warnings.warn(stage, stacklevel=3)
            else:
                stage(self)

    # the public protocol ----------------------------------------------------------------------
    def start(self):
        self._transit(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function(f"ProfilerStep#{self.step_num}")
            self.step_rec_fn.__enter__()

    def stop(self):
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit(self.current_action, None)

    def step(self):
        """Marks the start of the next step: the schedule's action for it starts, continues or ends the
        recording (and hands a finished cycle to ``on_trace_ready``)."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev = self.current_action
        action = self._scheduled(self.step_num + 1)   # checked before anything changes
        self.step_num += 1
        self.current_action = action
        self._transit(prev, action)
        if self.record_steps:
            self.step_rec_fn = record_function(f"ProfilerStep#{self.step_num}")
            self.step_rec_fn.__enter__()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def export_chrome_trace(self, path, use_python_export=False):
        """Writes the recorded events as Chrome trace JSON to `path`, gzip-compressed when it ends in ``.gz``."""
        if not str(path).endswith(".gz"):
            return super().export_chrome_trace(path)
        import gzip, shutil, tempfile   # noqa: E401  (lazy on purpose: only a compressed trace needs them)
        fd, plain = tempfile.mkstemp(suffix=".json")
        os.close(fd)
        try:
            super().export_chrome_trace(plain)
            with open(plain, "rb") as src, gzip.open(path, "wb") as dst:
                shutil.copyfileobj(src, dst)
        finally:
            os.remove(plain)


_N, _W, _R, _S = ProfilerAction.NONE, ProfilerAction.WARMUP, ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE
_prepare, _start, _stop, _ready = (profile.prepare_trace, profile.start_trace, profile.stop_trace,
                                   profile._trace_ready)
# (previous action, next action; None when the profile ends) -> the stages run in between, as torch's
_TRANSITIONS = {
    (_N, _W): (_prepare,),
    (_N, _R): (_prepare, _start),
    (_N, _S): (_prepare, _start),
    (_W, _N): ("Incorrect schedule: WARMUP followed by NONE", _start, _stop),
    (_W, _R): (_start,),
    (_W, _S): (_start,),
    (_R, _N): ("Incorrect schedule: RECORD followed by NONE", _stop),
    (_R, _W): ("Incorrect schedule: RECORD followed by WARMUP", _stop),
    (_S, _N): (_stop, _ready),
    (_S, _W): (_stop, _ready, _prepare),
    (_S, _R): (_stop, _ready, _prepare, _start),
    (_S, _S): (_stop, _ready, _prepare, _start),
    (_W, None): (_start, _stop),
    (_R, None): (_stop, _ready),
    (_S, None): (_stop, _ready),
}
