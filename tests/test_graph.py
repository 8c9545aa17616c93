"""autograd.graph: Node, gradient edges, saved-tensor hooks (nested, disabled, save_on_cpu,
_raw_saved_* with register_hooks), multi-grad hooks, allow_mutation_on_saved_tensors,
increment_version, final callbacks (Variable._execution_engine.queue_callback), the
multithreading flag, and the graph pictures (to_dot, render, summary).

Scenarios are written once against the torch API (`T` is ndgrad or torch) and compared through
tests/parity.py where torch has the same API.
"""
import os
import shutil

import pytest

from parity import LIBS, both, err, leaf, parity, same_error

import ndgrad
from ndgrad.autograd import graph


# ---- Node, edges, versions ------------------------------------------------------------------
@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_every_node_is_a_graph_node(T):
    x = leaf(T)

    class Double(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    y = Double.apply(x.sin() * x).sum()
    v = x.clone()
    v[0].mul_(3)
    nodes, stack = [], [y.grad_fn, v.grad_fn]
    while stack:
        n = stack.pop()
        nodes.append(n)
        stack.extend(m for m, _ in n.next_functions if m is not None)
    assert {type(n).__name__ for n in nodes} >= {"SumBackward0", "DoubleBackward", "MulBackward0", "SinBackward0",
                                                 "AccumulateGrad", "CopySlices"}
    assert all(isinstance(n, T.autograd.graph.Node) for n in nodes)
    assert not isinstance(3, T.autograd.graph.Node)


def test_gradient_edge_and_increment_version():
    def scenario(T):
        x = leaf(T)
        y = x.exp()
        edge = T.autograd.graph.get_gradient_edge(y)
        (g,) = T.autograd.grad(y.sum(), edge)
        t = T.ones(2)
        versions = [t._version]
        T.autograd.graph.increment_version(t)
        versions.append(t._version)
        T.autograd.graph.increment_version([t, t])
        versions.append(t._version)
        return [g, edge.node.name(), edge.output_nr, versions]
    assert both(scenario)[1:] == ["ExpBackward0", 0, [0, 1, 3]]
    same_error(lambda T: T.autograd.graph.get_gradient_edge(T.ones(2)))


# ---- saved-tensor hooks ---------------------------------------------------------------------
def test_saved_tensors_hooks_pack_and_unpack_every_saved_tensor():
    def scenario(T):
        x = leaf(T)
        log = []

        def pack(t):
            log.append(["pack", list(t.shape), t.requires_grad, T.is_grad_enabled()])
            return t * 1   # a copy, made without history (hooks run in no_grad)

        def unpack(t):
            log.append(["unpack", T.is_grad_enabled()])
            return t
        with T.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = x.sin()
            z = y.exp()
        saved = y.grad_fn._saved_self
        facts = [saved is x, saved.requires_grad, saved.grad_fn is None, z.grad_fn._saved_result is z,
                 z.grad_fn._saved_result.grad_fn is z.grad_fn]
        z.sum().backward()
        return [x.grad, facts, log]
    grad, facts, log = both(scenario)
    assert facts == [False, True, True, False, True]
    # pack runs in no_grad; unpack in the current mode (three attribute reads, then backward)
    assert log == [["pack", [3], True, False]] * 2 + [["unpack", True]] * 3 + [["unpack", False]] * 2


def test_saved_tensors_hooks_double_backward_keeps_history():
    def scenario(T):
        x = leaf(T)
        with T.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
            y = (x.sin() * x).sum()
        (g,) = T.autograd.grad(y, x, create_graph=True)
        (gg,) = T.autograd.grad(g.sum(), x)
        return [g, gg]
    parity(scenario)


def test_saved_tensors_hooks_apply_to_custom_functions():
    def scenario(T):
        class Square(T.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * a

            @staticmethod
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                return 2 * a * g
        x = leaf(T)
        seen = []
        with T.autograd.graph.saved_tensors_hooks(lambda t: seen.append(list(t.shape)) or t * 10, lambda t: t / 10):
            y = Square.apply(x)
        y.sum().backward()
        return [x.grad, seen]
    assert both(scenario)[1] == [[3]]


def test_innermost_saved_tensors_hooks_win():
    def scenario(T):
        x = leaf(T)
        calls = []
        with T.autograd.graph.saved_tensors_hooks(lambda t: calls.append("outer") or t, lambda t: t):
            with T.autograd.graph.saved_tensors_hooks(lambda t: calls.append("inner") or t, lambda t: t):
                x.sin()
            x.cos()
        return calls
    assert both(scenario) == ["inner", "outer"]


def test_saved_tensors_hooks_errors():
    def disabled(T):
        with T.autograd.graph.disable_saved_tensors_hooks("no hooks in this region"):
            with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    assert same_error(disabled) == "no hooks in this region"

    def inplace_pack(T):
        a = leaf(T) * 1
        with T.autograd.graph.saved_tensors_hooks(lambda t: t.mul_(2), lambda t: t):
            a.sin()
    assert "pack hook is modifying its input in place" in same_error(inplace_pack)

    def bad_unpack(T):
        x = leaf(T)
        with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
            y = x.sin()
        y.sum().backward()
    assert same_error(bad_unpack, TypeError).startswith("Output of saved tensor unpack_hook expected to be a Tensor")


def test_disable_saved_tensors_hooks_restores_on_exit():
    with graph.disable_saved_tensors_hooks("off"):
        pass
    with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        assert graph.saved_hooks
    assert not graph.saved_hooks


def test_saved_values_behind_hooks_are_not_version_checked():
    def scenario(T):
        x = leaf(T)
        with T.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
            a = x * 1
            b = a.sin()
        a.add_(1)
        b.sum().backward()   # the packed copy holds the value from before the add
        return x.grad
    parity(scenario)


def test_save_on_cpu_gives_the_same_gradients():
    def scenario(T):
        x = leaf(T)
        with T.autograd.graph.save_on_cpu():
            y = (x.exp() * x.sin()).sum()
        y.backward()
        return x.grad
    parity(scenario)


def test_raw_saved_register_hooks():
    def scenario(T):
        x = leaf(T)
        y = x.sin()
        raw = y.grad_fn._raw_saved_self
        raw.register_hooks(lambda t: t * 2, lambda t: t / 2)
        unpacked = y.grad_fn._saved_self
        again = err(lambda: raw.register_hooks(lambda t: t, lambda t: t))
        y.sum().backward()
        freed = err(lambda: raw.register_hooks(lambda t: t, lambda t: t))
        return [x.grad, unpacked, unpacked is x, again, freed]
    _, _, same, again, freed = both(scenario)
    assert not same
    assert again[1].startswith("Calling register_hooks on a saved tensor whose hooks have already been set")
    assert freed[1].startswith("Calling register_hooks on a saved tensor after it has been freed")


def test_raw_saved_under_active_hooks_is_already_set():
    def scenario(T):
        x = leaf(T)
        with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = x.sin()
        return err(lambda: y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t))
    assert both(scenario)[0] == "RuntimeError"


# ---- multi-grad hooks, mutation, versions ---------------------------------------------------
def test_register_multi_grad_hook_all():
    def scenario(T):
        x, w = leaf(T), leaf(T, (1.0, 2.0, 3.0))
        a, b, c = x * 2, w * 3, x.exp()
        log = []
        T.autograd.graph.register_multi_grad_hook(
            (a, b, c), lambda grads: log.append([None if g is None else g.sum().item() for g in grads]))
        x.register_hook(lambda g: log.append("x hook"))
        (a.sum() + b.sum()).backward(retain_graph=True)          # c is not in this graph
        (a.sum() + c.sum()).backward(retain_graph=True)
        T.autograd.grad(a.sum() + b.sum(), [x], retain_graph=True)   # b's gradient is not needed
        return log
    assert both(scenario) == [[3.0, 3.0, None], "x hook", [3.0, None, 3.0], "x hook", [3.0, None, None], "x hook"]


def test_register_multi_grad_hook_any_and_remove():
    def scenario(T):
        x, w = leaf(T), leaf(T)
        a, b = x * 2, w * 3
        log = []
        handle = T.autograd.graph.register_multi_grad_hook((a, b), lambda g: log.append(list(g.shape)), mode="any")
        (a.sum() + b.sum()).backward(retain_graph=True)
        (a.sum() + b.sum()).backward(retain_graph=True)
        handle.remove()
        (a.sum() + b.sum()).backward()
        return log
    assert both(scenario) == [[3], [3]]
    same_error(lambda T: T.autograd.graph.register_multi_grad_hook((leaf(T) * 1,), print, mode="some"), ValueError)


def test_allow_mutation_on_saved_tensors():
    def scenario(T):
        p = leaf(T)
        with T.autograd.graph.allow_mutation_on_saved_tensors():
            q = p.clone()
            r = q.sin()
            q.mul_(2)
            r.sum().backward()
        with T.autograd.graph.allow_mutation_on_saved_tensors():
            r2 = p.clone().sin()
        late = err(lambda: r2.sum().backward())
        return [p.grad, late]
    grad, late = both(scenario)
    assert late[0] == "AssertionError"


def test_allow_mutation_contexts_do_not_nest():
    with graph.allow_mutation_on_saved_tensors():
        with pytest.raises(RuntimeError, match="cannot be nested"):
            with graph.allow_mutation_on_saved_tensors():
                pass


# ---- engine callbacks and flags -------------------------------------------------------------
def test_queue_callback_runs_after_the_backward():
    def scenario(T):
        x = leaf(T)
        log = []
        engine = T.autograd.Variable._execution_engine

        def hook(g):
            engine.queue_callback(lambda: log.append(["callback", T.is_grad_enabled()]))
            engine.queue_callback(lambda: engine.queue_callback(lambda: log.append("queued by a callback")))
            log.append("hook")
        y = (x * 2).sin()
        y.register_hook(hook)
        x.register_hook(lambda g: log.append("leaf hook"))
        y.sum().backward()
        return log
    assert both(scenario) == ["hook", "leaf hook", ["callback", False], "queued by a callback"]
    same_error(lambda T: T.autograd.Variable._execution_engine.queue_callback(print))


def test_variable_is_the_tensor_type():
    def scenario(T):
        t = T.ones(2)
        v = T.autograd.Variable(t, requires_grad=True)
        return [isinstance(t, T.autograd.Variable), v is t, v.requires_grad, t.requires_grad]
    assert both(scenario) == [True, False, True, False]


def test_set_multithreading_enabled_and_modes():
    flags = ndgrad.autograd.grad_mode.is_multithreading_enabled
    with ndgrad.autograd.set_multithreading_enabled(False) as ctx:
        assert ctx is None and not flags()
    assert flags()
    ndgrad.autograd.set_multithreading_enabled(False)
    assert not flags()
    ndgrad.autograd.set_multithreading_enabled(True)

    def scenario(T):
        with T.no_grad():
            a = T.is_grad_enabled()
        with T.inference_mode():
            b = T.is_inference_mode_enabled()
        x = leaf(T)
        with T.autograd.set_multithreading_enabled(False):
            x.exp().sum().backward()
        return [a, b, T.is_grad_enabled(), T.is_inference_mode_enabled(), x.grad]
    assert both(scenario)[:4] == [False, True, True, False]


# ---- pictures and memory --------------------------------------------------------------------
def _model_graph():
    ndgrad.manual_seed(0)
    model = ndgrad.nn.Sequential(ndgrad.nn.Linear(4, 3), ndgrad.nn.Tanh(), ndgrad.nn.Linear(3, 1))
    x = ndgrad.randn(2, 4)
    return model, model(x).sum()


def test_to_dot_shows_nodes_saved_tensors_and_named_leaves():
    model, loss = _model_graph()
    dot = graph.to_dot(loss, params=dict(model.named_parameters()))
    assert dot.startswith("digraph backward {") and dot.rstrip().endswith("}")
    for text in ["SumBackward0", "AddmmBackward0", "TanhBackward0", "TBackward0", "0.weight\\n(3, 4) float32",
                 "2.bias\\n(1,) float32", "result: (2, 3) float32 24 B", "output ()",
                 "mat2: (4, 3) float32 (shape only)"]:   # (the weight's metadata, saved apart: under its name)
        assert text in dot, text
    assert "__meta" not in dot
    # one line per edge: every next_functions entry is drawn
    assert dot.count(" -> ") == 10   # 9 next_functions edges and the output


def test_to_dot_of_a_leaf_and_of_a_constant():
    x = ndgrad.ones(2, requires_grad=True)
    assert "leaf\\n(2,) float32" in graph.to_dot(x)
    assert " -> " not in graph.to_dot(ndgrad.ones(2))


def test_render_without_graphviz_draws_svg_itself_and_says_how_to_install_for_png(monkeypatch, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    _, loss = _model_graph()
    with pytest.raises(RuntimeError, match="Graphviz's `dot` program for PNG.*apt-get install graphviz.*svg"):
        graph.render(loss, str(tmp_path / "g.png"))
    svg = open(graph.render(loss, str(tmp_path / "g.svg"))).read()
    assert svg.startswith("<svg") and "TanhBackward0" in svg


def test_to_svg_lays_the_graph_out_in_rows_from_leaves_to_output():
    import xml.etree.ElementTree as ET
    model, loss = _model_graph()
    root = ET.fromstring(graph.to_svg(loss, params=dict(model.named_parameters())))
    ns = "{http://www.w3.org/2000/svg}"
    rects, texts = root.findall(f"{ns}rect"), root.findall(f"{ns}text")
    assert len(rects) == 11 and len(root.findall(f"{ns}line")) == 10   # 10 nodes + output; 9 edges + output's
    top = {t.text: float(t.get("y")) for t in texts}
    # data flows downwards: a leaf above the node using it, which is above the output
    assert top["0.weight"] < top["TanhBackward0"] < top["SumBackward0"] < top["output ()"]
    assert top["0.weight"] < top["2.weight"] < top["SumBackward0"]   # the first layer's weight is further up


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_render_writes_svg(tmp_path):
    _, loss = _model_graph()
    path = graph.render(loss, str(tmp_path / "g.svg"))
    assert "<svg" in open(path).read()


def test_render_with_a_fake_dot_passes_the_dot_text(monkeypatch, tmp_path):
    fake = tmp_path / "dot"
    fake.write_text("#!/bin/sh\nout=$3\ncat > \"$out\"\n")   # writes its input where -o points
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    _, loss = _model_graph()
    out = tmp_path / "g.png"
    graph.render(loss, str(out))
    assert out.read_text() == graph.to_dot(loss)


def test_summary_counts_nodes_and_saved_bytes():
    _, loss = _model_graph()
    s = graph.summary(loss)
    assert s.counts == {"SumBackward0": 1, "AddmmBackward0": 2, "TanhBackward0": 1, "TBackward0": 2,
                        "torch::autograd::AccumulateGrad": 4}
    # addmm saves mat1 for mat2's gradient and mat2 for mat1's, only where that gradient is needed:
    # the 2x4 input (not the 4x3 weight view: the input needs no gradient); the 2x3 tanh output and
    # the 3x1 weight view. tanh saves its 2x3 result.
    assert s.saved_bytes["AddmmBackward0"] == 4 * (8 + 6 + 3)
    assert s.saved_bytes["TanhBackward0"] == 4 * 6
    assert s.total_saved_bytes == 4 * (8 + 6 + 3)   # tanh's result is addmm's input: counted once
    assert "AddmmBackward0" in str(s) and "Total" in str(s)
    loss.backward()
    assert graph.summary(loss).total_saved_bytes == 0    # freed by backward
