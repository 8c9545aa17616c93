"""Namespaces real programs import: torch.utils.hooks / weak / model_zoo / checkpoint helpers / _pytree,
torch.types, torch.profiler's schedules and trace handler, torch.testing.assert_allclose, torch.overrides'
function lists, and the top-level sym_* helpers, cond, while_loop, get_device_module and build flags;
each checked against torch where it is installed (parity.both / same_error)."""
import collections
import gc
import gzip
import json
import os
import time
import warnings

import pytest

from parity import LIBS, both, err, lists, same_error

import ndgrad


def _mod(T, name):
    import importlib
    return importlib.import_module(f"{T.__name__}.{name}")


# ---- utils.hooks ----------------------------------------------------------------------------------
def test_hooks_module_exposes_the_one_removable_handle():
    from ndgrad.utils.hooks import RemovableHandle
    x = ndgrad.zeros(2, requires_grad=True)
    h = x.register_hook(lambda g: g)
    assert type(h) is RemovableHandle and isinstance(h.id, int)
    assert ndgrad.autograd.node.RemovableHandle is RemovableHandle


def test_removable_handle_refuses_a_plain_dict_and_removes_by_id():
    same_error(lambda T: _mod(T, "utils.hooks").RemovableHandle({}), TypeError)

    def scenario(T):
        hooks = collections.OrderedDict()
        h = _mod(T, "utils.hooks").RemovableHandle(hooks)
        hooks[h.id] = "hook"
        with h:
            assert h.id in hooks
        return len(hooks)
    assert both(scenario) == 0


def test_warn_if_has_hooks_and_unserializable_hook():
    def scenario(T):
        hooks = _mod(T, "utils.hooks")
        x = T.zeros(2, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: g)
        x.register_hook(hooks.unserializable_hook(lambda g: g))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            hooks.warn_if_has_hooks(y)
            hooks.warn_if_has_hooks(x)
            hooks.warn_if_has_hooks(T.zeros(1))
        return [str(w.message).split(" on tensor ")[1] for w in caught]
    assert both(scenario) == ["will not be serialized.  If this is expected, you can decorate the function with "
                              "@torch.utils.hooks.unserializable_hook to suppress this warning"]


# ---- utils.weak, utils.model_zoo, types -------------------------------------------------------------
def test_weak_id_key_dictionary_keys_by_identity_and_forgets_collected_keys():
    def scenario(T):
        weak = _mod(T, "utils.weak")
        a, b = T.zeros(2), T.zeros(2)
        d = weak.WeakIdKeyDictionary()
        d[a] = 1
        d[b] = 2
        seen = [len(d), d[a], d[b], a in d, T.zeros(2) in d, d.get(T.ones(1), "none")]
        r, tr = weak.WeakIdRef(a), weak.TensorWeakRef(a)
        seen += [r() is a, hash(r) == id(a), r == weak.WeakIdRef(a), tr() is a, sorted(d.values())]
        del a
        gc.collect()
        seen += [len(d), r() is None, tr() is None, list(d.values()), weak.WeakTensorKeyDictionary is
                 weak.WeakIdKeyDictionary, repr(d).startswith("<WeakIdKeyDictionary at 0x")]
        return seen
    assert both(scenario) == [2, 1, 2, True, False, "none", True, True, True, True, [1, 2], 1, True, True, [2], True,
                              True]
    same_error(lambda T: _mod(T, "utils.weak").TensorWeakRef(3), AssertionError)


def test_model_zoo_load_url_is_the_hubs_download():
    from ndgrad.hub import load_state_dict_from_url
    assert ndgrad.utils.model_zoo.load_url is load_state_dict_from_url


def test_types_aliases():
    def scenario(T):
        ty = T.types
        return [ty.__all__, ty._Number, ty._int is int, ty._bool is bool, ty.Size is T.Size, ty.Tensor is T.Tensor,
                set(ty.Number.__args__) == {int, float, bool}, set(ty._size.__args__) == {T.Size, list[int],
                                                                                        tuple[int, ...]},
                T.device in ty.Device.__args__ and str in ty.Device.__args__, ty._dtype is T.dtype]
    assert both(scenario) == [["Number", "Device", "FileLike", "Storage"], [int, float, bool]] + [True] * 8


# ---- profiler -----------------------------------------------------------------------------------------
def test_schedule_actions_and_argument_checks():
    def scenario(T):
        s = T.profiler.schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1)
        first = [s(i).name for i in range(12)]
        s2 = T.profiler.schedule(wait=2, warmup=1, active=1, skip_first=1, skip_first_wait=1)
        return first, [s2(i).name for i in range(6)], [a.name for a in T.profiler.ProfilerAction]
    first, skipped_wait, actions = both(scenario)
    assert first == ["NONE", "NONE", "WARMUP", "RECORD", "RECORD_AND_SAVE", "NONE", "WARMUP", "RECORD",
                     "RECORD_AND_SAVE", "NONE", "NONE", "NONE"]
    assert skipped_wait == ["NONE", "WARMUP", "RECORD_AND_SAVE", "NONE", "NONE", "WARMUP"]
    assert actions == ["NONE", "WARMUP", "RECORD", "RECORD_AND_SAVE", "DEVICE_STOPPED"]
    same_error(lambda T: T.profiler.schedule(wait=0, warmup=1, active=0), AssertionError)
    same_error(lambda T: T.profiler.schedule(wait=-1, warmup=1, active=1), AssertionError)
    same_error(lambda T: T.profiler.schedule(wait=0, warmup=1, active=1)(-1), AssertionError)
    with pytest.warns(UserWarning, match="Profiler won't be using warmup"):
        ndgrad.profiler.schedule(wait=0, warmup=0, active=1)


def _cycles(T, **kwargs):
    seen = []

    def ready(p):
        seen.append([e.name for e in p.events() if e.name.startswith("ProfilerStep") or e.name == "aten::add"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with T.profiler.profile(on_trace_ready=ready, **kwargs) as p:
            for i in range(6):
                T.ones(2).add(i)
                p.step()
    return seen, p.step_num


def test_profile_steps_follow_the_schedule():
    def scenario(T):
        return _cycles(T, schedule=T.profiler.schedule(wait=1, warmup=1, active=2, repeat=1))
    cycles, steps = both(scenario)
    assert cycles == [["ProfilerStep*", "aten::add", "ProfilerStep*", "aten::add"]] and steps == 6


def test_profile_without_schedule_is_one_cycle_without_step_ranges():
    def scenario(T):
        return _cycles(T)
    cycles, steps = both(scenario)
    assert cycles == [["aten::add"] * 6] and steps == 6


def test_acc_events_keeps_earlier_cycles():
    # steps 1, 3 and 5 are recorded, each a step range and an add; every cycle sees the earlier ones
    # (torch's Kineto drops one add from the third: 5 events)
    T = ndgrad
    cycles, _ = _cycles(T, schedule=T.profiler.schedule(wait=0, warmup=1, active=1), acc_events=True)
    assert [len(c) for c in cycles] == [2, 4, 6]
    assert cycles[2] == ["ProfilerStep*", "aten::add"] * 3


def test_incorrect_schedule_warns_and_a_schedule_cannot_stop_the_device():
    def scenario(T):
        actions = [T.profiler.ProfilerAction.RECORD, T.profiler.ProfilerAction.NONE]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with T.profiler.profile(schedule=lambda step: actions[min(step, 1)]) as p:
                p.step()
        return [str(w.message) for w in caught if "Incorrect" in str(w.message)]
    assert both(scenario) == ["Incorrect schedule: RECORD followed by NONE"]
    same_error(lambda T: T.profiler.profile(schedule=lambda step: T.profiler.ProfilerAction.DEVICE_STOPPED),
               ValueError)


@pytest.mark.parametrize("use_gzip", [False, True])
def test_tensorboard_trace_handler_writes_torchs_file_name(tmp_path, use_gzip):
    handler = ndgrad.profiler.tensorboard_trace_handler(str(tmp_path / "logs"), "worker0", use_gzip=use_gzip)
    start = time.time_ns()
    with ndgrad.profiler.profile(schedule=ndgrad.profiler.schedule(wait=0, warmup=1, active=1, repeat=1),
                                 on_trace_ready=handler) as p:
        for _ in range(3):
            ndgrad.ones(2).sin()
            p.step()
    files = os.listdir(tmp_path / "logs")
    assert len(files) == 1
    name, stamp, rest = files[0].split(".", 2)
    assert name == "worker0" and int(stamp) >= start and rest == "pt.trace.json" + (".gz" if use_gzip else "")
    path = tmp_path / "logs" / files[0]
    trace = json.loads(gzip.open(path).read() if use_gzip else path.read_text())
    names = [e["name"] for e in trace["traceEvents"] if e["ph"] == "X"]
    assert "ProfilerStep#1" in names and "aten::sin" in names


def test_supported_activities_and_kineto():
    assert ndgrad.profiler.supported_activities() == {ndgrad.profiler.ProfilerActivity.CPU}
    assert ndgrad.profiler.kineto_available() is False   # ndgrad records without Kineto (torch's legacy path)


# ---- testing, overrides -------------------------------------------------------------------------------
def test_assert_allclose_is_deprecated_and_loose():
    def scenario(T):
        out = []
        for call in (lambda: T.testing.assert_allclose(T.tensor([1.0, float("nan")]), [1.00001, float("nan")]),
                     lambda: T.testing.assert_allclose(T.tensor([1, 2]), T.tensor([1.0, 2.0]).double()),
                     lambda: T.testing.assert_allclose(T.tensor([1.0, 2.0]), [1.1, 2.0]),
                     lambda: T.testing.assert_allclose(T.tensor([1.0, 2.0]), [1.1, 2.0], msg="boom"),
                     lambda: T.testing.assert_allclose(T.tensor([1.0]), [1.0], rtol=0.1)):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out.append(err(call))
            out.append([w.category.__name__ for w in caught])
        return out
    out = both(scenario)
    assert out[0] is None and out[1] == ["FutureWarning"] and out[2] is None
    assert out[4][0] == "AssertionError" and "Tensor-likes are not close!" in out[4][1]
    assert out[6] == ["AssertionError", "boom"] and out[8][0] == "ValueError"


def test_override_function_lists():
    ov = ndgrad.overrides.get_overridable_functions()
    ignored = ndgrad.overrides.get_ignored_functions()
    assert ndgrad.add in ov[ndgrad] and ndgrad.Tensor.add in ov[ndgrad.Tensor]
    assert ndgrad.nn.functional.relu in ov[ndgrad.nn.functional] and ndgrad.linalg.det in ov[ndgrad.linalg]
    assert ndgrad.is_tensor in ignored and ndgrad.set_default_dtype in ignored and ndgrad.add not in ignored
    assert not any(f in ignored for fs in ov.values() for f in fs)
    # a function reached by several names (ndgrad.add is also Tensor.add) resolves to its first, torch's namespace
    assert [ndgrad.overrides.resolve_name(f) for f in (ndgrad.add, ndgrad.Tensor.backward, ndgrad.nn.functional.relu,
                                                        ndgrad.Tensor.shape.__get__, len)] == [
        "torch.add", "torch.Tensor.backward", "torch.nn.functional.relu", "torch.Tensor.shape.__get__", None]
    testing = ndgrad.overrides.get_testing_overrides()
    assert testing[ndgrad.add](1, 2) == -1
    assert list(__import__("inspect").signature(testing[ndgrad.nn.functional.relu]).parameters) == ["input", "inplace"]


def test_overridable_functions_really_dispatch():
    class Probe:
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return "seen"
    ov = ndgrad.overrides.get_overridable_functions()
    for f in (ndgrad.sin, ndgrad.nn.functional.relu, ndgrad.linalg.det, ndgrad.special.erf):
        assert any(f in fs for fs in ov.values()) and f(Probe()) == "seen"


# ---- utils.checkpoint --------------------------------------------------------------------------------
def test_checkpoint_helpers():
    def scenario(T):
        ck = _mod(T, "utils.checkpoint")
        x = T.ones(2, requires_grad=True) * 2
        d, plain, n = ck.detach_variable((x, T.ones(1), 3))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ck.check_backward_validity([T.ones(1), 2])
            ck.check_backward_validity([x])
        ctx = ck.noop_context_fn()
        ck.set_device_states([], [])
        ck.set_device_states([], [], device_type="meta")
        return [d.is_leaf, d.requires_grad, d.grad_fn is None, plain.requires_grad, n,
                [str(w.message) for w in caught], [type(c).__name__ for c in ctx],
                ck.get_device_states(x, [T.ones(1)], {"a": 3}), ck.DefaultDeviceType.get_device_type()]
    assert both(scenario) == [True, True, True, False, 3, ["None of the inputs have requires_grad=True. Gradients "
                                                           "will be None"], ["nullcontext", "nullcontext"], [[], []],
                              "cpu"]
    same_error(lambda T: _mod(T, "utils.checkpoint").detach_variable([T.ones(1)]), RuntimeError)


# ---- utils._pytree -----------------------------------------------------------------------------------
Point = collections.namedtuple("Point", "x y")


def _pt(T):
    return _mod(T, "utils._pytree")


def test_pytree_key_paths():
    def scenario(T):
        pt = _pt(T)
        tree = {"a": [1, (2, 3)], "b": None, "c": Point(4, 5)}
        pairs, spec = pt.tree_flatten_with_path(tree)
        return [[pt.keystr(p) for p, _ in pairs], [x for _, x in pairs], repr(spec),
                pt.key_get(tree, pairs[2][0]), [str(k) for k in pairs[4][0]],
                pt.tree_map_with_path(lambda p, x: pt.keystr(p) + str(x), [1, {"k": 2}]),
                [pt.keystr(p) for p, _ in pt.tree_leaves_with_path(collections.OrderedDict(z=1, a=[2]))]]
    out = both(scenario)
    assert out[0] == ["['a'][0]", "['a'][1][0]", "['a'][1][1]", "['b']", "['c'].x", "['c'].y"]
    assert out[1] == [1, 2, 3, None, 4, 5] and out[3] == 3 and out[4] == ["['c']", ".x"]
    assert out[2].startswith("TreeSpec(dict, ['a', 'b', 'c'], [TreeSpec(list, None, [*,")
    assert out[5] == ["[0]1", {"k": "[1]['k']2"}] and out[6] == ["['z']", "['a'][0]"]


def test_pytree_maps_and_predicates():
    def scenario(T):
        pt = _pt(T)
        seen = []
        tree = [1, 2.0, (3, "a")]
        return [pt.tree_map_only(int, lambda x: x * 10, tree), pt.tree_map_only((int, float), lambda x: x * 10, tree),
                pt.tree_map_only(lambda x: x == "a", str.upper, tree), pt.tree_map_(seen.append, tree) is tree, seen,
                list(pt.tree_iter({"b": [1, 2], "a": 3})), pt.tree_all(lambda x: x is not None, [1, [2]]),
                pt.tree_any(lambda x: x == 2, [1, [2]]), pt.tree_all_only(int, lambda x: x > 0, [1, "a"]),
                pt.tree_any_only(str, lambda x: x == "b", [1, "a"]),
                [pt.tree_is_leaf(1), pt.tree_is_leaf([1]), pt.tree_is_leaf(None), pt.tree_is_leaf([1], lambda x: True)],
                [pt.is_namedtuple(Point), pt.is_namedtuple(Point(1, 2)), pt.is_namedtuple_class(Point(1, 2)),
                 pt.is_namedtuple_instance(Point(1, 2)), pt.is_namedtuple((1, 2))],
                [pt.is_structseq(os.stat(".")), pt.is_structseq_class(time.struct_time),
                 pt.is_structseq_instance(time.localtime()), pt.is_structseq(Point(1, 2))]]
    assert both(scenario) == [[10, 2.0, [30, "a"]], [10, 20.0, [30, "a"]], [1, 2.0, [3, "A"]], True, [1, 2.0, 3, "a"],
                              [1, 2, 3], True, True, True, False, [True, False, True, True],
                              [True, True, False, True, False], [True, True, True, False]]


def test_pytree_registration_and_containers():
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    def scenario(T):
        pt = _pt(T)
        if Pair not in pt.SUPPORTED_NODES:
            pt.register_pytree_node(Pair, lambda p: ([p.a, p.b], None), lambda v, c: Pair(*v),
                                    serialized_type_name="tests.Pair")
        out = [pt.tree_leaves([Pair(1, [2])]), repr(pt.tree_structure(Pair(1, 2))),
               err(lambda: pt.register_pytree_node(Pair, lambda p: ([], None), lambda v, c: None)),
               err(lambda: pt.tree_flatten_with_path(Pair(1, 2)))]
        for tree in (collections.defaultdict(int, a=1), collections.OrderedDict(b=1, a=2),
                     collections.deque([1, 2], maxlen=3)):
            leaves, spec = pt.tree_flatten(tree)
            rebuilt = pt.tree_unflatten([x * 10 for x in leaves], spec)
            out += [repr(spec), type(rebuilt).__name__, list(rebuilt.values()) if hasattr(rebuilt, "values")
                    else list(rebuilt)]
        return out
    out = both(scenario)
    assert out[0] == [1, 2] and out[1] == "TreeSpec(Pair, None, [*,\n  *])"
    assert out[2][0] == "ValueError" and out[2][1].endswith("is already registered as pytree node.")
    assert out[3][0] == "ValueError" and "Did not find a flatten_with_keys_fn" in out[3][1]
    assert out[4:] == ["TreeSpec(defaultdict, [<class 'int'>, ['a']], [*])", "defaultdict", [10],
                       "TreeSpec(OrderedDict, ['b', 'a'], [*,\n  *])", "OrderedDict", [10, 20],
                       "TreeSpec(deque, 3, [*,\n  *])", "deque", [10, 20]]


def test_treespec_serialization():
    def scenario(T):
        pt = _pt(T)
        spec = pt.tree_structure([1, (2, {"a": 3, "b": None})])
        text = pt.treespec_dumps(spec)
        out = [text, pt.treespec_loads(text) == spec, pt.treespec_pprint(spec), pt.treespec_pprint(pt.tree_structure(1)),
               pt.treespec_dumps(pt.tree_structure(1))]
        for tree in (collections.defaultdict(int, a=1), collections.OrderedDict(a=1), collections.deque([1], maxlen=3)):
            s = pt.tree_structure(tree)
            out += [pt.treespec_dumps(s), pt.treespec_loads(pt.treespec_dumps(s)) == s]
        out += [err(lambda: pt.treespec_loads("[2, {}]")), err(lambda: pt.treespec_dumps(spec, protocol=5)),
                err(lambda: pt.treespec_dumps(pt.tree_structure(Point(1, 2)))),
                err(lambda: pt.treespec_loads(text.replace("builtins.list", "nope")))]
        return out
    out = both(scenario)
    assert json.loads(out[0])[0] == 1 and out[1] is True and out[2] == "[*, (*, {'a': *, 'b': *})]" and out[3] == "*"
    assert out[4] == '[1, {"type": null, "context": null, "children_spec": []}]'
    assert all(out[6:11:2]) and out[11] == ["ValueError", "Unknown protocol 2. Available protocols: [1]"]
    assert out[13][0] == "NotImplementedError" and out[14] == ["NotImplementedError",
                                                               "Deserializing nope in pytree is not registered."]


# ---- top level ----------------------------------------------------------------------------------------
def test_sym_helpers_on_numbers_and_0d_tensors():
    def scenario(T):
        t = T.tensor
        return [T.sym_int(t(3.7)), T.sym_int(-2.5), T.sym_float(t(3)), T.sym_float(2), T.sym_max(1, 2.0),
                T.sym_max(3, 2), T.sym_min(True, 2), T.sym_min(2.5, 1), T.sym_not(t(True)), T.sym_not(0),
                T.sym_ite(True, 1, 2), T.sym_sqrt(4), T.sym_sqrt(t(9.0)), T.sym_sum([1, 2, 3]), T.sym_sum(1, 2.5),
                T.sym_sum(()), [type(v).__name__ for v in (T.sym_int(t(3.7)), T.sym_max(1, 2.0), T.sym_min(True, 2))]]
    assert both(scenario) == [3, -2, 3.0, 2.0, 2.0, 3, True, 1.0, False, True, 1, 2.0, 3.0, 6, 3.5, 0,
                              ["int", "float", "bool"]]
    with pytest.raises(AssertionError, match=r"expected \(<class 'numpy.integer'>, <class 'numpy.floating'>, "
                                             r"<class 'int'>, <class 'float'>\), got <class 'ndgrad._tensor.Tensor'>"):
        ndgrad.sym_max(ndgrad.tensor(1), 2)
    same_error(lambda T: T.sym_ite(1, 1, 2), AssertionError)
    same_error(lambda T: T.sym_ite(True, 1, 2.0), AssertionError)


def test_cond_runs_the_chosen_branch_with_torchs_node():
    def scenario(T):
        x = T.tensor([0.5, 1.0], requires_grad=True)
        w = T.tensor(2.0, requires_grad=True)
        y = T.cond(T.tensor(False), lambda t: t.sin() * w, lambda t: t.cos() * w, (x,))
        y.sum().backward()
        plain = T.cond(True, lambda t: t.sin(), lambda t: t.cos(), [x])
        nested = T.cond(T.tensor(1), lambda d: [d["a"] * 2, 3], lambda d: [d["a"] * 3, 3], ({"a": x},))
        nograd = T.cond(T.tensor(True), lambda t: t + 1, lambda t: t - 1, (T.ones(2),))
        return [y, y.grad_fn.name(), x.grad, w.grad, plain.grad_fn.name(), nested[0].grad_fn.name(), nested[1],
                nograd.grad_fn is None, T.cond(False, lambda: 1, lambda: 2)]
    out = both(scenario, rtol=1e-6)
    assert out[1] == "CondAutogradOpBackward" and out[4] == "SinBackward0" and out[6] == 3 and out[7] is True


@pytest.mark.parametrize("call, exc", [
    (lambda T, x: T.cond("a", lambda t: t, lambda t: t, (x,)), RuntimeError),
    (lambda T, x: T.cond(T.tensor([True, False]), lambda t: t.sin(), lambda t: t.cos(), (x,)), RuntimeError),
    (lambda T, x: T.cond(T.tensor(True), 3, lambda t: t.cos(), (x,)), RuntimeError),
    (lambda T, x: T.cond(T.tensor(True), lambda t, n: t.sin(), lambda t, n: t.cos(), (x, 3)), RuntimeError),
    (lambda T, x: T.cond(T.tensor(True), lambda t: t.sin(), lambda t: t.cos(), x), RuntimeError),
])
def test_cond_argument_errors(call, exc):
    same_error(lambda T: call(T, T.ones(3, requires_grad=True)), exc)


def test_cond_refuses_branches_torch_cannot_trace():
    x = ndgrad.ones(3)
    pred = ndgrad.tensor(True)
    with pytest.raises(RuntimeError, match="expected same dim but got 0 and 1"):
        ndgrad.cond(pred, lambda t: t.sum(), lambda t: t.cos(), (x,))
    with pytest.raises(RuntimeError, match="expected same dtype but got torch.float32 and torch.float64"):
        ndgrad.cond(pred, lambda t: t.sin(), lambda t: t.cos().double(), (x,))
    with pytest.raises(RuntimeError, match="Unmatched output spec from torch.cond branches"):
        ndgrad.cond(pred, lambda t: (t.sin(),), lambda t: t.cos(), (x,))
    with pytest.raises(RuntimeError, match="aliasing"):
        ndgrad.cond(pred, lambda t: t.view(3), lambda t: t.cos(), (x,))
    with pytest.raises(RuntimeError, match="input mutation"):
        ndgrad.cond(pred, lambda t: t.add_(1).cos(), lambda t: t.cos(), (x,))
    assert x.tolist() == [1.0, 1.0, 1.0] and x._version == 0   # the refused branch changed nothing
    for T in LIBS:   # torch's errors (from its compiler) are RuntimeErrors too
        with pytest.raises(RuntimeError):
            T.cond(T.tensor(True), lambda t: t.sum(), lambda t: t.cos(), (T.ones(3),))


def test_while_loop():
    def scenario(T):
        t = T.tensor
        x = t([1.0, 2.0], requires_grad=True)
        out = T.while_loop(lambda x: x.sum() < 10, lambda x: (x * 2,), (x,))
        out[0].sum().backward()
        return [T.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), (t(0), t([1.0, 2.0]))),
                T.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), (0, t([1.0, 2.0]))),
                T.while_loop(lambda x: x.sum() < 0, lambda x: (x * 2,), (t([1.0, 2.0]),)),
                T.while_loop(lambda x: x.sum() < 10, lambda x: x * 2, [t([1.0, 2.0])]),
                T.while_loop(lambda d: d["a"].sum() < 10, lambda d: ({"a": d["a"] * 2},), ({"a": t([1.0, 2.0])},))[0]["a"],
                out, out[0].grad_fn.name(), x.grad]
    out = lists(both(scenario))
    assert out[0] == [3, [8.0, 16.0]] and out[1] == [3, [8.0, 16.0]] and out[6] == "WhileLoopAutogradOpBackward"
    assert out[2] == [[1.0, 2.0]] and out[3] == [4.0, 8.0] and out[4] == [4.0, 8.0] and out[7] == [4.0, 4.0]
    same_error(lambda T: T.while_loop(3, lambda x: (x,), (T.ones(1),)), RuntimeError)
    with pytest.raises(AssertionError, match=r"\[tensor\(\[1.\]\), 1.5\] can only be of \(<class 'ndgrad._tensor.Tensor'>, "
                                             r"<class 'int'>\) but got \(<class 'ndgrad._tensor.Tensor'>, <class 'float'>\)"):
        ndgrad.while_loop(lambda x, f: x.sum() < 1, lambda x, f: (x * 2, f), (ndgrad.ones(1), 1.5))
    with pytest.raises(RuntimeError, match="same metadata"):
        ndgrad.while_loop(lambda x: x.sum() < 10, lambda x: (x.double(),), (ndgrad.ones(2),))
    with pytest.raises(RuntimeError, match="aliasing"):
        ndgrad.while_loop(lambda x: x.sum() < 10, lambda x: (x,), (ndgrad.ones(2),))


def test_get_device_module_and_build_flags():
    def scenario(T):
        return [T.get_device_module().__name__.split(".")[-1], T.get_device_module("cuda:0").__name__.split(".")[-1],
                T.get_device_module(T.device("cpu")).__name__.split(".")[-1]]
    assert both(scenario) == ["cpu", "cuda", "cpu"]
    same_error(lambda T: T.get_device_module(3), RuntimeError)
    same_error(lambda T: T.get_device_module("meta"), RuntimeError)
    assert ndgrad.has_spectral is True and ndgrad.has_lapack is True
    assert ndgrad.has_mkl is ("mkl" in str(ndgrad._build._BLAS.get("name", "")).lower())
    assert isinstance(ndgrad.has_openmp, bool)
