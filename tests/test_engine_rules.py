"""Rules of the backward engine (autograd/engine.py, hooks.py, capture.py, graph_walk.py), each
stated with its expected value and, where torch is installed, compared with torch: a reentrant
backward deep in the stack keeps its options, anomaly mode runs the same pass, the execution order
a hook sees, retains_grad on outputs that get no gradient.
"""
import contextlib
import sys

import numpy as np
import pytest

import ndgrad
from ndgrad.autograd import engine
from ndgrad.autograd.node import edge

from parity import both


def _deep(depth, fn):
    return fn() if depth == 0 else _deep(depth - 1, fn)


def _in_deep_hook(T, fn):
    """fn() run by a tensor hook during a backward, deeper than half the recursion limit (where
    ndgrad moves the nested backward to a fresh thread); returns what fn returned."""
    out = []
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2

    def hook(g):
        with T.enable_grad():   # hooks run with grad mode off
            out.append(_deep(int(sys.getrecursionlimit() * 0.6), fn))
    y.register_hook(hook)
    y.sum().backward()
    return out[0]


# --- reentrant backward deep in the stack -------------------------------------------------------
def test_deep_reentrant_grad_keeps_create_graph():
    def s(T):
        z = T.tensor([3.0, 4.0], requires_grad=True)

        def inner():
            g, = T.autograd.grad((z ** 3).sum(), [z], create_graph=True)   # 3 z^2, with a graph
            gg, = T.autograd.grad(g.sum(), [z])                              # 6 z
            return [g, gg, g.requires_grad]
        return _in_deep_hook(T, inner)
    g, gg, has_graph = both(s)
    np.testing.assert_allclose(g, [27.0, 48.0])
    np.testing.assert_allclose(gg, [18.0, 24.0])
    assert has_graph is True


def test_deep_reentrant_grad_keeps_retain_graph():
    def s(T):
        z = T.tensor([3.0, 4.0], requires_grad=True)

        def inner():
            w = (z * z).exp().sum()
            T.autograd.grad(w, [z], retain_graph=True)
            return T.autograd.grad(w, [z])[0]   # the graph is still there
        return _in_deep_hook(T, inner)
    np.testing.assert_allclose(both(s), 2 * np.array([3.0, 4.0]) * np.exp([9.0, 16.0]), rtol=1e-6)


def test_deep_reentrant_backward_with_inputs_accumulates_into_grad():
    def s(T):
        z = T.tensor([3.0, 4.0], requires_grad=True)
        other = T.tensor([1.0, 1.0], requires_grad=True)

        def inner():
            (z * z * other).sum().backward(inputs=[z])
            return [z.grad, other.grad is None]
        return _in_deep_hook(T, inner)
    g, other_none = both(s)
    np.testing.assert_allclose(g, [6.0, 8.0])
    assert other_none is True


# --- anomaly mode ---------------------------------------------------------------------------
def test_backward_in_anomaly_mode_computes_the_same_gradients():
    def s(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        with T.autograd.detect_anomaly():
            a, b = (x * x).unbind()
            (a * 3 + b.exp()).backward()
        return x.grad
    np.testing.assert_allclose(both(s), [6.0, 4.0 * np.exp(4.0)], rtol=1e-6)


# --- what a hook sees of the running pass ------------------------------------------------------
def test_execution_order_lists_every_root_but_runs_only_what_reaches_the_inputs():
    def s(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        w = T.tensor([1.0, 2.0], requires_grad=True)
        seen = []
        a = (x * 2).sum()
        b = w.exp().sum()       # reaches only w, which is not asked for

        def hook(g):
            seen.extend(n.name() for n in T._C._current_graph_task_execution_order())
        a.register_hook(hook)
        b.register_hook(lambda g: seen.append("b ran"))
        with T.autograd.set_multithreading_enabled(False):
            g, = T.autograd.grad([a, b], [x])
        return [g, seen]
    g, seen = both(s)
    np.testing.assert_allclose(g, [2.0, 2.0])
    # as torch: b's node is listed (it is a root) although it does not run; nothing below it is
    assert seen == ["SumBackward0", "SumBackward0", "MulBackward0", "torch::autograd::AccumulateGrad"]


def test_retained_output_that_gets_no_gradient_keeps_none():
    def s(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        a, b = (x * 1).unbind()
        a.retain_grad()
        b.retain_grad()
        (a * 3).backward()     # b's slot of the unbind node gets no gradient
        return [a.grad, b.grad is None, x.grad]
    ga, b_none, gx = both(s)
    np.testing.assert_allclose(ga, 3.0)
    assert b_none is True
    np.testing.assert_allclose(gx, [3.0, 0.0])


# --- the profiler's hold on each node --------------------------------------------------------
def test_profiled_grad_computes_only_the_gradients_asked_for():
    def s(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        w = T.tensor([3.0, 4.0], requires_grad=True)
        y = (x * w).sum()
        with T.autograd.profiler.profile() as prof:
            g, = T.autograd.grad(y, [x])
        names = [e.name for e in prof.function_events]
        # MulBackward0 multiplies once: the gradient of w is not asked for
        return [g, names.count("aten::mul"),
                [n for n in names if n.startswith("autograd::engine::evaluate_function: ") and "Accumulate" not in n]]
    g, muls, nodes = both(s)
    np.testing.assert_allclose(g, [3.0, 4.0])
    assert muls == 1
    assert nodes == ["autograd::engine::evaluate_function: SumBackward0",
                     "autograd::engine::evaluate_function: MulBackward0"]


def test_profiled_backward_keeps_create_graph():
    def s(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        w = T.tensor([3.0, 4.0])
        with T.autograd.profiler.profile():
            (x * x * w).sum().backward(create_graph=True)
        return [x.grad, x.grad.grad_fn.name()]
    g, fn = both(s)
    np.testing.assert_allclose(g, [6.0, 16.0])
    assert fn == "torch::autograd::CopyBackwards"


# --- what a node computes in a pass with inputs= ---------------------------------------------
@pytest.mark.parametrize("mode", ["plain", "anomaly", "profiler"])
def test_node_post_hook_sees_no_gradient_for_an_input_not_asked_for(mode):
    def s(T):
        ctx = {"plain": contextlib.nullcontext, "anomaly": T.autograd.detect_anomaly,
               "profiler": T.autograd.profiler.profile}[mode]
        x = T.tensor([1.0, 2.0], requires_grad=True)
        w = T.tensor([3.0, 4.0], requires_grad=True)
        y = x * w
        seen = []
        y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(list(grad_inputs)))
        with ctx():
            g, = T.autograd.grad(y.sum(), [x])
        return [g, seen[0][0], seen[0][1] is None]
    g, gx, w_none = both(s)
    np.testing.assert_allclose(g, [3.0, 4.0])
    np.testing.assert_allclose(gx, [3.0, 4.0])
    assert w_none is True     # w's gradient is not computed: only x was asked for


def test_anomaly_mode_backward_keeps_create_graph():
    def s(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        with T.autograd.detect_anomaly():
            (x * x * T.tensor([3.0, 4.0])).sum().backward(create_graph=True)
        return [x.grad, x.grad.grad_fn.name()]
    g, fn = both(s)
    np.testing.assert_allclose(g, [6.0, 16.0])
    assert fn == "torch::autograd::CopyBackwards"


# --- gradients brought to their input -----------------------------------------------------------
def test_lazily_conjugated_gradient_given_to_backward_is_resolved():
    def s(T):
        x = T.tensor([1 + 1j, 2 - 1j], requires_grad=True)
        c = T.tensor([1 + 2j, 3 - 1j])
        (x * 2).backward(c.conj())      # a conj view: the root passes it on as is
        return x.grad
    np.testing.assert_allclose(both(s), [2 - 4j, 6 + 2j])


@pytest.mark.parametrize("grad_dtype", ["any", "float64"])
def test_broadcast_gradient_is_summed_to_a_leaf_with_a_grad_dtype(grad_dtype):
    def s(T):
        x = T.ones(1, requires_grad=True)
        x.grad_dtype = None if grad_dtype == "any" else T.float64
        (x + T.ones(3)).sum().backward()   # add's gradient for x has shape [3]: summed to [1]
        return [x.grad, str(x.grad.dtype)]
    g, dtype = both(s)
    np.testing.assert_allclose(g, [3.0])
    assert dtype == ("torch.float32" if grad_dtype == "any" else "torch.float64")


@pytest.mark.parametrize("sparse_first", [True, False])
def test_dense_and_sparse_gradients_meeting_in_one_buffer_add_to_dense(sparse_first):
    def s(T):
        w = T.ones(4, 2, requires_grad=True)
        terms = [lambda: (w * 2).sum(), lambda: T.nn.functional.embedding(T.tensor([0, 2]), w, sparse=True).sum()]
        if not sparse_first:
            terms.reverse()
        a, b = terms[0](), terms[1]()    # b, recorded last, runs first: its gradient is buffered first
        (a + b).backward()
        return [w.grad.is_sparse, w.grad]
    sparse, g = both(s)
    assert sparse is False
    np.testing.assert_allclose(g, [[3.0, 3.0], [2.0, 2.0], [3.0, 3.0], [2.0, 2.0]])


def test_final_callback_sees_no_current_node():
    def s(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        seen = []
        y = x * 2

        def hook(g):
            seen.append(T._C._current_autograd_node().name())
            T.autograd.Variable._execution_engine.queue_callback(
                lambda: seen.append(T._C._current_autograd_node() is None))
        y.register_hook(hook)
        y.sum().backward()
        return seen
    assert both(s) == ["MulBackward0", True]


# --- nodes that get some, all or none of their gradients ---------------------------------------
def test_post_hook_sees_no_gradient_for_an_input_without_an_edge_in_a_pass_with_inputs():
    def s(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        c = T.tensor([3.0, 4.0])           # needs no gradient: no edge
        y = x * c
        seen = []
        y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(grad_inputs[1] is None))
        g, = T.autograd.grad(y.sum(), [x])
        return [g, seen]
    g, seen = both(s)
    np.testing.assert_allclose(g, [3.0, 4.0])
    assert seen == [True]


def test_two_output_node_with_both_gradients():
    def s(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        a, b = (x * 1).unbind()
        (a * 2 + b * 3).backward()
        return x.grad
    np.testing.assert_allclose(both(s), [2.0, 3.0])


def test_two_output_node_that_gets_no_gradient_passes_none_on():
    def s(T):
        class Drop(T.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a + b

            @staticmethod
            def backward(ctx, g):
                return None, None
        x = T.tensor([1.0, 2.0], requires_grad=True)
        w = T.tensor([1.0, 2.0], requires_grad=True)
        a, b = (x * 1).unbind()
        seen = []
        a.grad_fn.register_prehook(lambda grad_outputs: seen.append([g is None for g in grad_outputs]))
        a.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append([g is None for g in grad_inputs]))
        (Drop.apply(a, b) + w.sum()).sum().backward()
        return [x.grad is None, seen, w.grad]
    x_none, seen, gw = both(s)
    # unbind's node runs (its hooks see None in, None out) but makes no zeros: x gets no gradient
    assert x_none is True and seen == [[True, True], [True]]
    np.testing.assert_allclose(gw, [1.0, 1.0])


def test_engine_refuses_a_root_node_returning_the_wrong_number_of_gradients():
    # the engine API (docs/engine-api.md): one gradient per root edge, as every node returns one per edge
    y = ndgrad.tensor([1.0, 2.0], requires_grad=True) * 2
    with pytest.raises(RuntimeError) as e:
        engine.run_backward([edge(y)], [ndgrad.ones(2), ndgrad.ones(2)])
    assert str(e.value) == "function GraphRoot returned an incorrect number of gradients (expected 1, got 2)"


_TWICE = ["x * 2.0", "x * 1", "2 * x", "x / 3", "x.div(4.0)", "x + 1", "x - 1.5", "x * x", "x.tanh()",
          "x.lerp(x.detach(), 0.5)", "x.pow(2)", "torch.where(x > 0, x, 0.0)",
          "x.clamp(min=0.1)"]


@pytest.mark.parametrize("expr", _TWICE)
def test_a_second_backward_through_a_saved_python_number_raises_as_torch(expr):
    """torch saves a Python number given for a Tensor argument (x * 2.0's other) as a wrapped-number
    tensor: it is freed with the graph, so a second backward through that node raises, and the node
    exposes it as a 0-d tensor of the number's default dtype. A Scalar argument (pow's exponent, lerp's
    weight) or an op that saves nothing (x + 1) leaves the node runnable again."""
    def scenario(T):
        x = T.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = eval(expr, {"torch": T, "x": x})   # noqa: S307 - the expressions above
        saved = {n: getattr(y.grad_fn, n) for n in sorted(dir(y.grad_fn))
                 if n.startswith("_saved_") and n not in ("_saved_tensors", "_saved_names", "_saved_tensor_idx",
                                                          "_saved_arrays", "_saved_variables")}
        exposed = {n: (type(v).__name__, str(v.dtype), v.tolist() if v.dim() == 0 else list(v.shape))
                   if isinstance(v, T.Tensor) else repr(v) for n, v in saved.items()}
        y.sum().backward()
        try:
            y.sum().backward()
            second = "ran"
        except RuntimeError as e:
            second = str(e)[:60]
        return [exposed, second, x.grad]
    both(scenario)


def test_hooks_on_a_saved_wrapped_number_see_its_tensor():
    """register_hooks on x * 2.0's saved `other` (torch's wrapped number): the pack hook gets the 0-d
    float64 tensor, and what the unpack hook returns is what the backward multiplies by."""
    def scenario(T):
        x = T.tensor([1.0, -2.0], requires_grad=True)
        y = x * 2.0
        seen = []
        y.grad_fn._raw_saved_other.register_hooks(
            lambda t: seen.append((str(t.dtype), t.dim(), t.item())) or t * 3, lambda t: t)
        y.sum().backward()
        return [seen, x.grad, str(x.grad.dtype)]
    both(scenario)
