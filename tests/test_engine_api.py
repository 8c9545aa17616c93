"""The engine's public API (docs/engine-api.md): the seam autograd, utils.checkpoint and
distributed.pipelining use. Each test states one point of the documented contract.

The behaviour torch users see through backward / grad / hooks is tested against torch in
test_engine.py and test_graph.py; the split stage backward in test_pipelining_backward.py.
Here the calls are ndgrad's own, so the reference is ndgrad's full backward.
"""
import numpy as np
import pytest

import ndgrad
from ndgrad.autograd import engine
from ndgrad.autograd.graph import get_gradient_edge

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
W = np.array([[1.0, 2.0], [-0.5, 0.3], [0.7, -1.2]])


def graph():
    """out = tanh(x @ w) * w.sum(): x and w leaves, h = x @ w in the middle."""
    x = ndgrad.tensor(X, requires_grad=True)
    w = ndgrad.tensor(W, requires_grad=True)
    h = x @ w
    out = ndgrad.tanh(h) * w.sum()
    return x, w, h, out


def roots(out):
    return [get_gradient_edge(out)], [ndgrad.ones_like(out)]


def full_grads():
    x, w, _, out = graph()
    out.sum().backward()
    return x.grad.numpy(), w.grad.numpy()


# --- run_backward ----------------------------------------------------------------------------
def test_run_backward_without_inputs_accumulates_into_leaves_and_returns_none():
    x, w, _, out = graph()
    assert engine.run_backward(*roots(out)) is None
    gx, gw = full_grads()
    np.testing.assert_allclose(x.grad.numpy(), gx)
    np.testing.assert_allclose(w.grad.numpy(), gw)


def test_run_backward_with_inputs_returns_gradients_instead_of_accumulating():
    x, w, _, out = graph()
    gx, gw = engine.run_backward(*roots(out), inputs=[get_gradient_edge(x), get_gradient_edge(w)])
    assert x.grad is None and w.grad is None
    np.testing.assert_allclose(gx.numpy(), full_grads()[0])
    np.testing.assert_allclose(gw.numpy(), full_grads()[1])


def test_run_backward_captures_the_gradient_of_a_non_leaf():
    x, _, h, out = graph()
    (gh,) = engine.run_backward(*roots(out), inputs=[get_gradient_edge(h)])
    expected = (1 - np.tanh(X @ W) ** 2) * W.sum()
    np.testing.assert_allclose(gh.numpy(), expected)
    assert x.grad is None


def test_run_backward_with_accumulate_fills_grad_of_the_leaf_inputs_only():
    x, w, _, out = graph()
    (gw,) = engine.run_backward(*roots(out), inputs=[get_gradient_edge(w)], accumulate=True)
    np.testing.assert_allclose(w.grad.numpy(), gw.numpy())
    assert x.grad is None


def test_run_backward_gives_none_for_an_unreached_input():
    x, _, _, out = graph()
    other = ndgrad.ones(2, requires_grad=True)
    gx, g_other = engine.run_backward(*roots(out), inputs=[get_gradient_edge(x), get_gradient_edge(other)])
    assert gx is not None and g_other is None


def test_run_backward_with_inputs_runs_only_the_nodes_on_a_path_to_them():
    x, w, _, out = graph()
    ran = []
    w_side = w.sum()        # a branch that reaches w only
    total = (out + w_side).sum()
    total.grad_fn.register_prehook(lambda g: ran.append("sum"))
    w_side.grad_fn.register_prehook(lambda g: ran.append("w side"))
    engine.run_backward([get_gradient_edge(total)], [ndgrad.ones_like(total)], inputs=[get_gradient_edge(x)])
    assert ran == ["sum"]


def test_run_backward_frees_saved_tensors_unless_retain_graph():
    _, _, _, out = graph()
    engine.run_backward(*roots(out), retain_graph=True)
    engine.run_backward(*roots(out))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        engine.run_backward(*roots(out))


def test_run_backward_with_create_graph_gives_differentiable_gradients():
    x = ndgrad.tensor([1.0, 2.0], dtype=ndgrad.float64, requires_grad=True)
    y = (x ** 3).sum()
    (g,) = engine.run_backward([get_gradient_edge(y)], [ndgrad.tensor(1.0, dtype=ndgrad.float64)],
                               inputs=[get_gradient_edge(x)], create_graph=True)
    assert g.grad_fn is not None
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 12.0])


# --- the running pass: current_task, queue_callback -------------------------------------------
def test_current_task_is_none_outside_backward():
    assert engine.current_task() is None


def test_current_task_tells_hooks_which_nodes_will_run():
    _, w, h, out = graph()
    w_node = get_gradient_edge(w).node
    seen = []
    h.register_hook(lambda g: seen.append((engine.current_task().will_execute(w_node),
                                           engine.current_task().targets is None)))
    out.sum().backward(retain_graph=True)
    ndgrad.autograd.grad(out.sum(), [h])
    assert seen == [(True, True), (False, False)]


def test_queue_callback_runs_once_every_node_ran():
    x, _, _, out = graph()
    log = []
    out.register_hook(lambda g: engine.queue_callback(lambda: log.append(x.grad is not None)) or log.append("hook"))
    out.sum().backward()
    assert log == ["hook", True]


def test_queue_callback_outside_backward_raises():
    with pytest.raises(RuntimeError, match="only be installed during backward"):
        engine.queue_callback(print)


# --- resuming part of the graph later: apply_node, release_saved ------------------------------
def test_apply_node_resumes_backward_towards_chosen_edges_only():
    x, w, h, out = graph()
    captured = []
    handle = h.grad_fn.register_prehook(lambda grads: captured.append(list(grads)))
    ndgrad.autograd.grad(out.sum(), [x], retain_graph=True)   # the input half: x only
    handle.remove()
    w_node = get_gradient_edge(w).node
    resumed = engine.apply_node(h.grad_fn, captured[0], {w_node})
    assert [edge.node for edge, _ in resumed] == [w_node]
    (expected,) = ndgrad.autograd.grad(h, [w], captured[0][0])
    np.testing.assert_allclose(resumed[0][1].numpy(), expected.numpy())


def test_input_pass_then_resumed_weight_pass_gives_the_full_backward():
    x, w, h, out = graph()
    reverse = engine.reverse_graph([out.grad_fn])
    x_node, w_node = get_gradient_edge(x).node, get_gradient_edge(w).node
    input_closure, _ = engine.reverse_closure([x_node], set(), reverse)
    weight_region, intermediates = engine.reverse_closure([w_node], input_closure, reverse)
    captured = {}
    handles = [n.register_prehook(lambda grads, n=n: captured.__setitem__(n, list(grads))) for n in intermediates]
    (gx,) = ndgrad.autograd.grad(out.sum(), [x], retain_graph=True)
    for handle in handles:
        handle.remove()
    resumed = [pair for n in intermediates for pair in engine.apply_node(n, captured[n], weight_region)]
    engine.run_backward([e for e, _ in resumed], [g for _, g in resumed])
    full_x, full_w = full_grads()
    np.testing.assert_allclose(gx.numpy(), full_x)
    np.testing.assert_allclose(w.grad.numpy(), full_w)
    assert x.grad is None


def test_apply_node_runs_no_hooks():
    x, w, h, out = graph()
    ran = []
    h.grad_fn.register_prehook(lambda g: ran.append("pre"))
    h.grad_fn.register_hook(lambda gi, go: ran.append("post"))
    engine.apply_node(h.grad_fn, [ndgrad.ones_like(h)], {get_gradient_edge(w).node})
    assert ran == []


def test_release_saved_makes_a_second_run_raise():
    _, _, h, out = graph()
    engine.release_saved([h.grad_fn])
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out.sum().backward()


# --- graph walks: reverse_graph, reverse_closure ----------------------------------------------
def test_reverse_graph_maps_each_node_to_the_nodes_that_use_it():
    x, w, h, out = graph()
    reverse = engine.reverse_graph([out.grad_fn])
    assert reverse[h.grad_fn] == [out.grad_fn.next_functions[0][0]]   # tanh uses the matmul
    w_node = get_gradient_edge(w).node
    assert set(reverse[w_node]) == {h.grad_fn, out.grad_fn.next_functions[1][0]}   # mm and sum


def test_reverse_closure_stops_at_the_given_nodes_and_reports_them():
    x, w, h, out = graph()
    reverse = engine.reverse_graph([out.grad_fn])
    w_node = get_gradient_edge(w).node
    closure, met = engine.reverse_closure([w_node], {h.grad_fn}, reverse)
    assert met == {h.grad_fn}
    assert h.grad_fn not in closure and w_node in closure and out.grad_fn in closure
