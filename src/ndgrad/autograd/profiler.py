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

from ..ops import _registry
from . import engine
from .node import GraphRoot

_active = []   # the running profile (one at a time, as in torch)


# ---- events ---------------------------------------------------------------------------------
class FunctionEvent:
    """One timed range: an op, a backward node or a record_function block (times in µs)."""

    def __init__(self, id, name, start_us, thread, input_shapes=None, stack=None, is_user=False):
        self.id = id
        self.name = name
        self.key = name
        self.time_range_start = start_us
        self.time_range_end = start_us
        self.thread = thread
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.stack = stack if stack is not None else []
        self.cpu_children = []
        self.cpu_parent = None
        self.cpu_memory_usage = 0
        self.is_user_annotation = is_user
        self.count = 1

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

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={_format_time(self.cpu_time_total)} "
                f"input_shapes={self.input_shapes}>")


class FunctionEventAvg:
    """Events with the same key (name, and input shapes / stack when grouped by them) summed."""
    _SUMMED = ("cpu_time_total", "self_cpu_time_total", "cpu_memory_usage", "self_cpu_memory_usage")

    def __init__(self, key, input_shapes, stack):
        self.key = key
        self.input_shapes = input_shapes
        self.stack = stack
        self.count = 0
        for attr in self._SUMMED:
            setattr(self, attr, 0)

    def add(self, event):
        self.count += 1
        for attr in self._SUMMED:
            setattr(self, attr, getattr(self, attr) + getattr(event, attr))
        return self

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

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

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        groups = {}
        for e in self:
            stack = tuple(e.stack[:group_by_stack_n]) if group_by_stack_n else ()
            shapes = str(e.input_shapes) if group_by_input_shape else ""
            key = (e.key, shapes, stack)
            if key not in groups:
                groups[key] = FunctionEventAvg(e.key, e.input_shapes if group_by_input_shape else None, list(stack))
            groups[key].add(e)
        return EventList(groups.values(), self._profile_memory, group_by_input_shape, group_by_stack_n > 0)

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
        self._pid = os.getpid()
        self._tid = threading.get_ident() & 0x7FFFFFFF
        self._t0 = 0

    def __enter__(self):
        if not self.enabled:
            return self
        if _active:
            raise RuntimeError("Profiler is already enabled on this thread")
        self._events, self._open = [], []
        self._t0 = time.perf_counter_ns()
        _active.append(self)
        _registry.profile_op = _profile_op
        engine.profile_node = _profile_node
        return self

    def __exit__(self, *exc):
        if not self.enabled:
            return False
        _registry.profile_op = None
        engine.profile_node = None
        _active.remove(self)
        while self._open:   # ranges left open by an exception
            self._close(self._open[-1])
        self.function_events = EventList(self._events, self.profile_memory, self.record_shapes, self.with_stack)
        return False

    # timing ---------------------------------------------------------------------------------
    def _now(self):
        return (time.perf_counter_ns() - self._t0) / 1000.0

    def _open_event(self, name, args=None, is_user=False):
        shapes = [list(a.shape) if hasattr(a, "shape") else [] for a in args] if self.record_shapes and args else None
        stack = _user_stack() if self.with_stack and not is_user else None
        ev = FunctionEvent(len(self._events), name, self._now(), self._tid, shapes, stack, is_user)
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
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by=None, row_limit=100, **kwargs):
        self._check_finished()
        return self.function_events.table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def total_average(self):
        self._check_finished()
        total = FunctionEventAvg("Total", None, [])
        for e in self.function_events:
            total.add(e)
        return total

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


def _profile_op(spec, args, inplace=False):
    """Called by the op glue instead of itself while profiling: time one op call."""
    prof = _active[-1]
    name = "aten::" + spec.name.split(".")[0] + ("_" if inplace else "")
    ev = prof._open_event(name, args)
    _registry.profile_op = None   # the op's own glue (an in-place op's out-of-place call) is not an op
    try:
        out = (_registry.call_inplace if inplace else _registry.call)(spec, args)
    finally:
        _registry.profile_op = _profile_op
        prof._close(ev)
    if prof.profile_memory and not inplace:
        ev.cpu_memory_usage += sum(o._data.nbytes for o in (out if type(out) is tuple else (out,))
                                   if hasattr(o, "_data") and o._data.base is None)
    return out


def _profile_node(call_node, node, grads, targets, create_graph):
    """Called by the engine instead of `call_node` while profiling: time one backward node."""
    if type(node) is GraphRoot:   # the engine's start node, not part of the user's graph
        return call_node(node, grads, targets, create_graph)
    prof = _active[-1]
    name = node.name()
    outer = prof._open_event("autograd::engine::evaluate_function: " + name)
    inner = prof._open_event(name)
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
        trace.append({"ph": "X", "cat": cat, "name": e.name, "pid": pid, "tid": e.thread,
                      "ts": round(e.time_range_start, 3), "dur": round(e.cpu_time_total, 3), "args": args})
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": trace, "traceName": str(path)}, f)
