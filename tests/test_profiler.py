"""autograd.profiler (and ndgrad.profiler): forward ops and backward nodes are recorded with
torch's names, record_function ranges nest, key_averages().table() has torch's layout, the
Chrome trace is valid JSON with complete events, and nothing is recorded (or costs anything)
outside a profile block.
"""
import json
import re

import pytest

from parity import LIBS

import ndgrad
from ndgrad.ops import _registry
from ndgrad.autograd import engine
from ndgrad.autograd.profiler import profile, record_function


def run_model(T):
    x = T.ones(3, 3, dtype=T.float64, requires_grad=True)
    with T.autograd.profiler.profile(record_shapes=True, profile_memory=True) as prof:
        with T.autograd.profiler.record_function("my_block"):
            y = (x.sin() * 2).sum()
        y.backward()
    return prof


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_forward_ops_and_backward_nodes_are_recorded(T):
    names = [e.name for e in run_model(T).function_events]
    for name in ["my_block", "aten::sin", "aten::mul", "aten::sum", "SumBackward0", "MulBackward0",
                 "SinBackward0", "aten::cos", "autograd::engine::evaluate_function: SinBackward0",
                 "torch::autograd::AccumulateGrad"]:
        assert name in names, name


def test_events_nest_and_times_add_up():
    prof = run_model(ndgrad)
    events = prof.function_events
    block = next(e for e in events if e.name == "my_block")
    assert [c.name for c in block.cpu_children] == ["aten::sin", "aten::mul", "aten::sum"]
    sin_node = next(e for e in events if e.name == "SinBackward0")
    assert {c.name for c in sin_node.cpu_children} == {"aten::cos", "aten::mul"}
    assert sin_node.cpu_parent.name == "autograd::engine::evaluate_function: SinBackward0"
    for e in events:
        assert e.cpu_time_total >= 0 and e.self_cpu_time_total <= e.cpu_time_total + 1e-9
    tops = [e for e in events if e.cpu_parent is None]
    assert prof.self_cpu_time_total == pytest.approx(sum(e.cpu_time_total for e in tops))


def test_record_shapes_and_memory():
    prof = run_model(ndgrad)
    sin = next(e for e in prof.function_events if e.name == "aten::sin")
    assert sin.input_shapes == [[3, 3]]
    assert sin.cpu_memory_usage == 9 * 8
    avg = {e.key: e for e in prof.key_averages()}
    assert avg["aten::mul"].count == 3        # forward, and two in SinBackward0 / MulBackward0
    shaped = prof.key_averages(group_by_input_shape=True)
    assert {str(e.input_shapes) for e in shaped if e.key == "aten::mul"} == {"[[3, 3], []]", "[[3, 3], [3, 3]]"}


def _layout(table):
    """The table with numbers replaced, to compare the layout (not the timings) with torch's."""
    return [re.sub(r"-?[\d.]+ ?(%|us|ms|s|B|KB|MB)?", "#", line) for line in table.split("\n")]


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_table_has_torchs_layout(T):
    x = T.ones(3, requires_grad=True)
    with T.autograd.profiler.profile() as prof:
        x.sin()
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=5)
    lines = table.split("\n")
    assert lines[0] == "-------------  " + "------------  " * 6
    assert lines[1] == ("         Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg  "
                        "  # of Calls  ")
    assert lines[3].startswith("    aten::sin       100.00%")
    assert lines[-2].startswith("Self CPU time total: ") and lines[-1] == ""


def test_table_layout_with_memory_and_shapes_matches_torch():
    tables = []
    for T in LIBS:
        x = T.ones(3, 3, dtype=T.float64, requires_grad=True)
        with T.autograd.profiler.profile(record_shapes=True, profile_memory=True) as prof:
            with T.autograd.profiler.record_function("my_block"):
                x.sin()
        tables.append(prof.key_averages(group_by_input_shape=True).table(row_limit=2))
    for t in tables[1:]:
        assert _layout(t)[:3] == _layout(tables[0])[:3]
    assert "Input Shapes" in tables[0] and "Self CPU Mem" in tables[0]


def test_table_sorting_and_row_limit():
    prof = run_model(ndgrad)
    table = prof.key_averages().table(sort_by="count", row_limit=1)
    rows = [line for line in table.split("\n")[3:] if line and not line.startswith(("-", "Self"))]
    assert len(rows) == 1 and rows[0].split()[0] == "aten::mul"
    with pytest.raises(AttributeError):
        prof.key_averages().table(sort_by="no_such_column")


def test_chrome_trace_is_valid(tmp_path):
    prof = run_model(ndgrad)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    complete = [e for e in events if e["ph"] == "X"]
    assert len(complete) == len(prof.function_events)
    for e in complete:
        assert {"ph", "ts", "dur", "name", "pid", "tid"} <= e.keys()
        assert isinstance(e["ts"], (int, float)) and e["dur"] >= 0 and isinstance(e["pid"], int)
    assert {e["name"] for e in events if e["ph"] == "M"} == {"process_name", "thread_name"}
    names = {e["name"]: e for e in complete}
    assert names["my_block"]["cat"] == "user_annotation" and names["aten::sin"]["cat"] == "cpu_op"
    assert names["aten::sin"]["args"]["Input Dims"] == [[3, 3]]
    # children lie inside their parents' time ranges, as the trace viewers draw them
    block, sin = names["my_block"], names["aten::sin"]
    assert block["ts"] <= sin["ts"] and sin["ts"] + sin["dur"] <= block["ts"] + block["dur"] + 1e-3


def test_with_stack_records_the_callers_line():
    x = ndgrad.ones(2, requires_grad=True)
    with profile(with_stack=True) as prof:
        x.exp()
    (exp,) = [e for e in prof.function_events if e.name == "aten::exp"]
    assert exp.stack and "test_profiler.py" in exp.stack[0]
    assert "Source Location" in prof.key_averages(group_by_stack_n=2).table()


def test_inplace_ops_get_their_own_names():
    x = ndgrad.ones(2)
    with profile() as prof:
        x.mul_(2)
    assert [e.name for e in prof.function_events] == ["aten::mul_"]


def test_record_function_as_decorator_and_outside_profiling():
    @record_function("helper")
    def helper(t):
        return t.exp()
    helper(ndgrad.ones(2))                      # nothing is being profiled: no error, no event
    with profile() as prof:
        helper(ndgrad.ones(2))
    # (torch also lists aten::ones' inner aten::empty and aten::fill_)
    assert [e.name for e in prof.function_events] == ["aten::ones", "helper", "aten::exp"]


def test_profiling_is_off_outside_the_block():
    assert _registry.profile_op is None and engine.profile_node is None
    with profile():
        assert _registry.profile_op is not None and engine.profile_node is not None
    assert _registry.profile_op is None and engine.profile_node is None
    with pytest.raises(RuntimeError):
        with profile():
            raise RuntimeError("an error inside the block still switches profiling off")
    assert _registry.profile_op is None


def test_disabled_profile_records_nothing_and_results_need_a_finished_run():
    with profile(enabled=False):
        assert _registry.profile_op is None
    prof = profile()
    with pytest.raises(RuntimeError, match="didn't finish"):
        prof.key_averages()


def test_torch_profiler_spelling():
    from ndgrad.profiler import ProfilerActivity, record_function as rf
    seen = []
    x = ndgrad.ones(2, requires_grad=True)
    with ndgrad.profiler.profile(activities=[ProfilerActivity.CPU], record_shapes=True,
                                 on_trace_ready=seen.append) as prof:
        with rf("step"):
            x.tanh().sum().backward()
    assert seen == [prof]
    assert "TanhBackward0" in {e.key for e in prof.key_averages()}


def test_emit_nvtx_is_a_no_op():
    for T in LIBS:
        x = T.ones(2, requires_grad=True)
        if T is not ndgrad:
            continue   # torch's emit_nvtx needs CUDA
        with T.autograd.profiler.emit_nvtx():
            x.exp().sum().backward()
        assert x.grad.tolist() == pytest.approx([2.718281828] * 2)


# ---- torch's event API: sequence numbers, nesting by time, averages -------------------------
def seq_view(T):
    """(name, sequence_nr, whether fwd_thread is the forward op's thread) of the add/sum ranges."""
    with T.autograd.profiler.profile(use_kineto=T.autograd.kineto_available()) as prof:
        x = T.ones(2, 2, requires_grad=True)
        y = T.ones(2, 2, requires_grad=True)
        (x + y).sum().backward()
    events = [e for e in prof.function_events if e.name in ("aten::add", "aten::sum")
              or ("Backward" in e.name and ("Add" in e.name or "Sum" in e.name))]
    base = min(e.sequence_nr for e in events)
    fwd = {e.sequence_nr: e.thread for e in events if e.name.startswith("aten::")}
    return [(e.name, e.sequence_nr - base, e.fwd_thread == (0 if e.name.startswith("aten::") else fwd[e.sequence_nr]))
            for e in events]


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_backward_ranges_carry_the_sequence_number_of_their_forward_op(T):
    assert seq_view(T) == [
        ("aten::add", 0, True), ("aten::sum", 1, True),
        ("autograd::engine::evaluate_function: SumBackward0", 1, True), ("SumBackward0", 1, True),
        ("autograd::engine::evaluate_function: AddBackward0", 0, True), ("AddBackward0", 0, True)]


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_populate_cpu_children_nests_by_time_per_thread(T):
    util = __import__(T.__name__ + ".autograd.profiler_util", fromlist=["x"])
    ranges = [(7, 0, 4), (7, 1, 2), (7, 2, 3), (8, 0, 5), (8, 3, 6), (8, 3, 4)]   # (thread, start, end)
    events = util.EventList([util.FunctionEvent(id=i, name="r", thread=t, start_us=s, end_us=e)
                             for i, (t, s, e) in enumerate(ranges)])
    events._populate_cpu_children()
    # (3, 6) only overlaps (0, 5): no parent; (3, 4) sorts after (3, 6) and nests in it
    assert [[c.id for c in e.cpu_children] for e in events] == [[1, 2], [], [], [], [5], []]
    assert [e.cpu_parent.id if e.cpu_parent else None for e in events] == [None, 0, 0, None, None, 4]


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_function_event_avg_sums_events_and_averages(T):
    util = __import__(T.__name__ + ".autograd.profiler_util", fromlist=["x"])
    avg = util.FunctionEventAvg()
    avg.add(util.FunctionEvent(id=0, name="op", thread=0, start_us=0, end_us=4))
    avg.add(util.FunctionEvent(id=1, name="op", thread=0, start_us=10, end_us=18))
    avg.add(avg)
    assert (avg.key, avg.count, avg.cpu_time_total, avg.cpu_time, avg.device_time_total) == ("op", 4, 24, 6.0, 0)
    with pytest.raises(AssertionError, match="Expected keys to match"):
        avg.add(util.FunctionEvent(id=2, name="other", thread=0, start_us=0, end_us=1))


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_record_function_ops_and_profiler_enabled(T):
    x = T.ones(3)
    assert not T.autograd._profiler_enabled()
    with T.autograd.profiler.profile() as prof:
        assert T.autograd._profiler_enabled()
        handle = T.ops.profiler._record_function_enter("block", None)
        y = x * 2
        T.ops.profiler._record_function_exit(handle)
    assert not T.autograd._profiler_enabled()
    block = next(e for e in prof.function_events if e.name == "block")
    assert block.count == 1 and "aten::mul" in [c.name for c in block.cpu_children]
    assert str(prof) == prof.table()


def test_hand_written_functions_are_one_event_around_their_ops():
    # as torch: aten::linear holds the ops it runs, with its inputs' shapes; div, which picks its
    # op of the same name, is one event
    def run(T):
        layer, x = T.nn.Linear(20, 30), T.randn(128, 20)
        with T.autograd.profiler.profile(record_shapes=True) as prof:
            layer(x)
            T.div(x, 2)
        top = [(e.name, e.input_shapes) for e in prof.function_events if e.cpu_parent is None]
        inner = [e.name for e in prof.function_events if e.cpu_parent is not None and e.cpu_parent.name == "aten::linear"]
        return top, "aten::addmm" in inner
    for T in LIBS:
        top, addmm_inside = run(T)
        assert top == [("aten::linear", [[128, 20], [30, 20], [30]]), ("aten::div", [[128, 20], []])]
        assert addmm_inside


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_random_factories_allocate_then_fill_in_place(T):
    # as torch: randn is empty then normal_ (rand: uniform_, randint: random_), nested in its range, none
    # with a sequence number; a tensor's own fill is one event; the factory's result is at version 0
    x = T.ones(2, 3)
    with T.autograd.profiler.profile() as prof:
        a = T.randn(2, 3, requires_grad=True)
        T.rand(4, dtype=T.float64)
        T.randint(0, 5, (3,))
        T.normal(1.0, 2.0, (2,))
        x.normal_()
        x.uniform_(1, 2)
    events = [(e.name, e.cpu_parent.name if e.cpu_parent else None, e.sequence_nr) for e in prof.function_events]
    assert events[:12] == [
        ("aten::randn", None, -1), ("aten::empty", "aten::randn", -1), ("aten::normal_", "aten::randn", -1),
        ("aten::rand", None, -1), ("aten::empty", "aten::rand", -1), ("aten::uniform_", "aten::rand", -1),
        ("aten::randint", None, -1), ("aten::empty", "aten::randint", -1), ("aten::random_", "aten::randint", -1),
        ("aten::normal", None, -1), ("aten::empty", "aten::normal", -1), ("aten::normal_", "aten::normal", -1)]
    assert [e[:2] for e in events[12:]] == [("aten::normal_", None), ("aten::uniform_", None)]
    assert (a._version, a.requires_grad, a.is_leaf, x._version) == (0, True, True, 2)
    # the fill runs in the factory's kernel, below the dispatch modes
    TorchDispatchMode = __import__(T.__name__ + ".utils._python_dispatch", fromlist=["x"]).TorchDispatchMode
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))
    with Log():
        T.randn(3)
        T.rand(3)
    assert not any(name.startswith(("aten.normal_", "aten.uniform_")) for name in seen)
