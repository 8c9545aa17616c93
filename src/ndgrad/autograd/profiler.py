"""ndgrad.autograd.profiler: time every op and backward node, as torch.autograd.profiler does.

While a `profile` is active, the op glue (`ops/_registry.call`) and the engine hand each op call and
each backward node to this module (they test one module global, None otherwise, so profiling
costs nothing when off). Ops are named as torch names them (`aten::sin`, `aten::mul_`); a backward
node appears as `autograd::engine::evaluate_function: SinBackward0` around `SinBackward0`, with
the ops of its formulas nested inside. `record_function` adds user ranges. Results:
`key_averages().table(...)` (torch's table layout) and `export_chrome_trace(path)` (Chrome trace
JSON, loads in chrome://tracing and Perfetto).
"""
import functools
import json
import os
import threading
import time
import traceback

from .. import ops as _ops
from ..ops import _registry
from . import engine
from .node import MAX_SEQ, GraphRoot

_active = []   # the running profile (one at a time, as in torch)


# ---- events ---------------------------------------------------------------------------------
class FunctionEvent:
    """One timed range: an op, a backward node or a record_function block (times in µs).

    sequence_nr: for a forward op that recorded a node, that node's sequence number, and the same
    number on the backward ranges that ran the node (-1 elsewhere); fwd_thread: on those backward
    ranges, the thread of the forward op (0 on forward ranges)."""

    def __init__(self, id, name, thread, start_us, end_us, overload_name=None, fwd_thread=None, input_shapes=None,
                 stack=None, scope=0, use_device=None, cpu_memory_usage=0, device_memory_usage=0, is_async=False,
                 is_remote=False, sequence_nr=-1, node_id=-1, is_user_annotation=False):
        self.id = id
        self.node_id = node_id
        self.name = name
        self.key = name
        self.trace_name = name   # the name in a Chrome trace (torch.profiler's step ranges differ, see there)
        self.overload_name = overload_name
        self.time_range_start = start_us
        self.time_range_end = end_us
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.stack = stack if stack is not None else []
        self.scope = scope
        self.use_device = use_device
        self.cpu_children = []
        self.cpu_parent = None
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.is_async = is_async
        self.is_remote = is_remote
        self.sequence_nr = sequence_nr
        self.is_user_annotation = is_user_annotation
        self.is_legacy = True   # there is no Kineto: every event comes from this module's profiler
        self.count = 1

    def append_cpu_child(self, child):
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        self.cpu_parent = parent

    @property
    def cpu_time_total(self):
        return self.time_range_end - self.time_range_start

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self):
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def cpu_time(self):
        return self.cpu_time_total

    # nothing runs on a device the profiler can time
    device_time_total = self_device_time_total = device_time = 0
    self_device_memory_usage = 0

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={_format_time(self.cpu_time_total)} "
                f"input_shapes={self.input_shapes}>")


class FunctionEventAvg:
    """Events with the same key summed: `add` takes a FunctionEvent or another FunctionEventAvg (the
    first one added gives the key, shapes and stack)."""
    _SUMMED = ("cpu_time_total", "self_cpu_time_total", "cpu_memory_usage", "self_cpu_memory_usage",
               "device_time_total", "self_device_time_total", "device_memory_usage", "self_device_memory_usage",
               "count")

    def __init__(self):
        self.key = None
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.is_user_annotation = False
        self.is_legacy = False
        self.input_shapes = None
        self.stack = None
        self.overload_name = None
        self.cpu_parent = None
        self.cpu_children = None
        for attr in self._SUMMED:
            setattr(self, attr, 0)

    def add(self, other):
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Expected other to be a FunctionEvent or FunctionEventAvg")
        if self.key is None:
            for attr in ("key", "node_id", "is_async", "is_remote", "cpu_parent", "cpu_children", "overload_name",
                         "input_shapes", "stack", "is_legacy", "is_user_annotation"):
                setattr(self, attr, getattr(other, attr))
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        for attr in self._SUMMED:
            setattr(self, attr, getattr(self, attr) + getattr(other, attr))
        return self

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def device_time(self):
        return self.device_time_total / self.count if self.count else 0.0

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time)} input_shapes={self.input_shapes}>")


class EventList(list):
    """A list of events (or of their averages) with torch's table."""

    def __init__(self, events=(), profile_memory=False, with_shapes=False, with_stack=False):
        super().__init__(events)
        self._profile_memory = profile_memory
        self._with_shapes = with_shapes
        self._with_stack = with_stack

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False):
        groups = {}
        for e in self:
            key = (e.key, e.node_id, e.is_user_annotation)
            if group_by_overload_name:
                key += (e.overload_name,)
            if group_by_input_shapes:
                key += (str(e.input_shapes),)
            if group_by_stack_n > 0:
                key += tuple(e.stack[:group_by_stack_n])
            groups.setdefault(key, FunctionEventAvg()).add(e)
        averages = EventList(groups.values(), self._profile_memory, group_by_input_shapes, group_by_stack_n > 0)
        for avg in averages:
            avg.stack = avg.stack[:group_by_stack_n]
            if not group_by_input_shapes:
                avg.input_shapes = ""
        return averages

    def total_average(self):
        total = FunctionEventAvg()
        for e in self:
            total.key = None   # the events have different keys: each add starts as if first
            total.add(e)
        total.key = "Total"
        return total

    def _populate_cpu_children(self):
        """Nest the events by time, per thread: an event is a child of the innermost event whose
        [start, end) contains its own (partial overlaps give no relation)."""
        by_thread = {}
        for e in self:
            if not e.is_async:
                by_thread.setdefault((e.thread, e.node_id), []).append(e)
        for events in by_thread.values():
            events.sort(key=lambda e: (e.time_range_start, -e.time_range_end))
            open_ = []
            for e in events:
                while open_:
                    parent = open_[-1]
                    if e.time_range_start >= parent.time_range_end or e.time_range_end > parent.time_range_end:
                        open_.pop()
                        continue
                    parent.append_cpu_child(e)
                    e.set_cpu_parent(parent)
                    break
                open_.append(e)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False):
        return _table(self, sort_by, row_limit, max_src_column_width, max_name_column_width,
                      max_shapes_column_width, header, top_level_events_only)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        _write_chrome_trace(self, path)


# ---- the profiler ---------------------------------------------------------------------------
class profile:
    """Records ops and backward nodes run inside `with profile() as prof:`.

    record_shapes: keep each op's input shapes; profile_memory: bytes each op allocates for its
    outputs; with_stack: the Python stack of each op. Other torch options are accepted; use_cuda /
    use_device have nothing to time on the CPU backends and are ignored.
    """

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=True, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None):
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.function_events = None
        self._events = []
        self._open = []          # the events being timed now, innermost last
        self._composites = set()   # those of hand-written public functions (see _profile_composite)
        self._pid = os.getpid()
        self._tid = threading.get_ident() & 0x7FFFFFFF
        self._t0 = 0

    def __enter__(self):
        if not self.enabled:
            return self
        if _active:
            raise RuntimeError("Profiler is already enabled on this thread")
        self._events, self._open, self._composites = [], [], set()
        self._t0 = time.perf_counter_ns()
        _active.append(self)
        _registry.profile_op = _profile_op
        _registry.profile_composite = _profile_composite
        engine.profile_node = _profile_node
        return self

    def __exit__(self, *exc):
        if not self.enabled:
            return False
        _registry.profile_op = None
        _registry.profile_composite = None
        engine.profile_node = None
        _active.remove(self)
        while self._open:   # ranges left open by an exception
            self._close(self._open[-1])
        self.function_events = EventList(self._events, self.profile_memory, self.record_shapes, self.with_stack)
        return False

    # timing ---------------------------------------------------------------------------------
    def _now(self):
        return (time.perf_counter_ns() - self._t0) / 1000.0

    def _open_event(self, name, args=None, is_user=False, sequence_nr=-1, fwd_thread=0):
        shapes = [list(a.shape) if hasattr(a, "shape") else [] for a in args] if self.record_shapes and args else None
        stack = _user_stack() if self.with_stack and not is_user else None
        start = self._now()
        ev = FunctionEvent(len(self._events), name, self._tid, start, start, fwd_thread=fwd_thread,
                           input_shapes=shapes, stack=stack, sequence_nr=sequence_nr, is_user_annotation=is_user)
        if self._open:
            ev.cpu_parent = self._open[-1]
            self._open[-1].cpu_children.append(ev)
        self._events.append(ev)
        self._open.append(ev)
        return ev

    def _close(self, ev):
        ev.time_range_end = self._now()
        if self._open and self._open[-1] is ev:
            self._open.pop()
        elif ev in self._open:
            self._open.remove(ev)

    # results --------------------------------------------------------------------------------
    def _check_finished(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def events(self):
        self._check_finished()
        return self.function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        self._check_finished()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def table(self, sort_by=None, row_limit=100, **kwargs):
        self._check_finished()
        return self.function_events.table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def total_average(self):
        self._check_finished()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        self._check_finished()
        return self.function_events.self_cpu_time_total

    def export_chrome_trace(self, path):
        self._check_finished()
        _write_chrome_trace(self.function_events, path, self._pid)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Folded stacks ("frame;frame;op value" lines) for flame graph tools."""
        self._check_finished()
        if not self.with_stack:
            raise RuntimeError("export_stacks() needs profile(with_stack=True)")
        with open(path, "w") as f:
            for e in self.function_events:
                if e.stack:
                    f.write(";".join(reversed(e.stack)) + f";{e.name} {int(getattr(e, metric))}\n")

    def __str__(self):
        return self.table() if self.function_events is not None else "<unfinished profiler>"


def _profile_composite(name, fn, args, kwargs):
    """Called by a hand-written public function (one that picks among ops, as torch's composite
    ones) while profiling: one event around the ops it runs, as torch's aten::linear holds its
    aten::t and aten::addmm."""
    prof = _active[-1]
    ev = prof._open_event("aten::" + name, args)
    prof._composites.add(ev)
    try:
        return fn(*args, **kwargs)
    finally:
        prof._close(ev)


def _profile_op(spec, args, inplace=False):
    """Called by the op glue instead of itself while profiling: time one op call."""
    prof = _active[-1]
    base = spec.name.split(".")[0]
    name = "aten::" + base + ("_" if inplace and base[-1] != "_" else "")   # fills are in-place ops by name (normal_)
    if "::" in spec.name:   # a torch.library op, named by its own namespace
        name = spec.name
    outer = prof._open[-1] if prof._open else None
    # a public function running the op of its own name (div picking div.Tensor) is that one op: one event
    merged = outer is not None and outer.name == name and outer in prof._composites
    ev = outer if merged else prof._open_event(name, args)
    before = [getattr(a, "_grad_fn", None) for a in args]   # an in-place op replaces self's
    _registry.profile_op = None   # the op's own glue (an in-place op's out-of-place call) is not an op
    try:
        out = (_registry.call_inplace if inplace else _registry.call)(spec, args)
    finally:
        _registry.profile_op = _profile_op
        if not merged:
            prof._close(ev)
    fn = getattr(out if type(out) is not tuple else out[0], "_grad_fn", None)
    if fn is not None and not any(fn is b for b in before):
        ev.sequence_nr = fn._sequence_nr()   # the node this call recorded: its backward ranges carry it
    if prof.profile_memory and not inplace:
        ev.cpu_memory_usage += sum(o._array.nbytes for o in (out if type(out) is tuple else (out,))
                                   if hasattr(o, "_array") and o._array.base is None)
    return out


def _profile_node(call_node, node, grads, targets, create_graph):
    """Called by the engine instead of `call_node` while profiling: time one backward node."""
    if type(node) is GraphRoot:   # the engine's start node, not part of the user's graph
        return call_node(node, grads, targets, create_graph)
    prof = _active[-1]
    name = node.name()
    seq = node._sequence_nr()
    seq, fwd_thread = (-1, 0) if seq == MAX_SEQ else (seq, prof._tid)   # AccumulateGrad has no forward op
    outer = prof._open_event("autograd::engine::evaluate_function: " + name, sequence_nr=seq, fwd_thread=fwd_thread)
    inner = prof._open_event(name, sequence_nr=seq, fwd_thread=fwd_thread)
    try:
        return call_node(node, grads, targets, create_graph)
    finally:
        prof._close(inner)
        prof._close(outer)


def _user_stack():
    """The caller's frames, innermost first, without ndgrad's own (nor its generated op wrappers)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return [f"{f.filename}({f.lineno}): {f.name}" for f in reversed(traceback.extract_stack())
            if not f.filename.startswith(here) and f.filename != "<string>"]


class record_function:
    """A named range in the profile (context manager or decorator); nothing when not profiling."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._event = None

    def __enter__(self):
        if _active:
            self._event = _active[-1]._open_event(self.name, is_user=True)
        return self

    def __exit__(self, *exc):
        if self._event is not None and _active:
            _active[-1]._close(self._event)
        self._event = None
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapper


def _record_function_enter(name, args=None):
    """torch.ops.profiler._record_function_enter: open a record_function range; returns its handle."""
    return record_function(name, args).__enter__()


def _record_function_exit(handle):
    handle.__exit__(None, None, None)


class _ProfilerOps:
    """torch.ops.profiler: the functional form of record_function."""
    _record_function_enter = staticmethod(_record_function_enter)
    _record_function_enter_new = staticmethod(_record_function_enter)
    _record_function_exit = staticmethod(_record_function_exit)


_ops.profiler = _ProfilerOps


def kineto_available():
    """Whether the profiler can use Kineto, torch's tracing library: always False in ndgrad.

    ndgrad has no Kineto: every profile is recorded by :mod:`ndgrad.autograd.profiler` itself (the
    path of torch's legacy profiler), so a check of this flag before profiling takes that path.

    Returns:
        bool: False.

    Example::

        >>> isinstance(torch.autograd.kineto_available(), bool)
        True
    """
    return False


def _profiler_enabled():
    return bool(_active)


class emit_nvtx:
    """NVTX ranges for NVIDIA's profilers: there is no CUDA runtime to annotate, so a no-op."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


emit_itt = emit_nvtx


# ---- output ---------------------------------------------------------------------------------
def _format_time(us):
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_memory(nbytes):
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} B"


def _table(events, sort_by, row_limit, max_src_column_width, max_name_column_width, max_shapes_column_width,
           header, top_level_events_only):
    """torch's layout: right-aligned columns two spaces apart, dashed rules, a total line."""
    rows = list(events)
    if top_level_events_only:
        rows = [e for e in rows if getattr(e, "cpu_parent", None) is None]
    if sort_by is not None:
        rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
    total = sum(e.self_cpu_time_total for e in events)
    if row_limit is not None and row_limit > 0:
        rows = rows[:row_limit]
    name_w = min(max([len(e.key) for e in events] + [0]) + 4, max_name_column_width)
    columns = [("Name", name_w), ("Self CPU %", 12), ("Self CPU", 12), ("CPU total %", 12), ("CPU total", 12),
               ("CPU time avg", 12)]
    if events._profile_memory:
        columns += [("CPU Mem", 12), ("Self CPU Mem", 12)]
    columns.append(("# of Calls", 12))
    shapes_w = src_w = 0
    if events._with_shapes:
        shapes_w = min(max([len(str(e.input_shapes)) for e in events] + [0]) + 4, max_shapes_column_width)
        columns.append(("Input Shapes", shapes_w))
    if events._with_stack:
        src_w = min(max([len(s) for e in events for s in e.stack] + [0]) + 4, max_src_column_width)
        columns.append(("Source Location", src_w))
    rule = "".join("-" * w + "  " for _, w in columns)

    def line(cells):
        return "".join(f"{c:>{w}}  " for c, (_, w) in zip(cells, columns))

    def clip(text, width):
        return text if len(text) <= width else text[:width - 3] + "..."

    def pct(us):
        return f"{100.0 * us / total:.2f}%" if total else "0.00%"

    out = [] if header is None else [header]
    out += [rule, line([name for name, _ in columns]), rule]
    for e in rows:
        count = e.count
        cells = [clip(e.key, name_w), pct(e.self_cpu_time_total), _format_time(e.self_cpu_time_total),
                 pct(e.cpu_time_total), _format_time(e.cpu_time_total), _format_time(e.cpu_time_total / count)]
        if events._profile_memory:
            cells += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
        cells.append(str(count))
        if events._with_shapes:
            cells.append(clip(str(e.input_shapes), shapes_w))
        if events._with_stack:
            stack = e.stack or [""]
            cells.append(clip(stack[0], src_w))
            out.append(line(cells))
            out += [line([""] * (len(columns) - 1) + [clip(s, src_w)]) for s in stack[1:]]
            continue
        out.append(line(cells))
    out += [rule, f"Self CPU time total: {_format_time(total)}", ""]
    return "\n".join(out)


def _write_chrome_trace(events, path, pid=None):
    """Chrome trace JSON: one complete ("X") event per range, plus process/thread names."""
    pid = pid if pid is not None else os.getpid()
    tids = sorted({e.thread for e in events}) or [0]
    trace = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "ts": 0, "args": {"name": "python"}}]
    trace += [{"ph": "M", "name": "thread_name", "pid": pid, "tid": t, "ts": 0, "args": {"name": f"thread {t}"}}
              for t in tids]
    for e in events:
        if e.is_user_annotation:
            cat = "user_annotation"
        elif e.name.startswith("aten::"):
            cat = "cpu_op"
        else:
            cat = "autograd"
        args = {"Ev Idx": e.id}
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
        if e.stack:
            args["Call stack"] = ";".join(e.stack)
        trace.append({"ph": "X", "cat": cat, "name": e.trace_name, "pid": pid, "tid": e.thread,
                      "ts": round(e.time_range_start, 3), "dur": round(e.cpu_time_total, 3), "args": args})
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": trace, "traceName": str(path)}, f)
