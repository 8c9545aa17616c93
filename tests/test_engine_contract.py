"""Engine behaviours that mutation testing (tools/mutation.py) found no test stating: the engine's
own API (vjp, apply_node, reverse_graph) against hand-derived values, and what torch users see
(execution order with inputs= or several roots, reentrant backward deep in the stack, graphs with
many shared nodes) against torch."""
import sys
import threading

import numpy as np
import pytest

import ndgrad
from ndgrad.autograd import engine
from parity import both, same_error


def leaves():
    x = ndgrad.tensor([0.5, -1.0, 2.0], requires_grad=True)
    w = ndgrad.tensor([1.5, 0.25, -0.75], requires_grad=True)
    return x, w


# --- vjp --------------------------------------------------------------------------------------
def test_vjp_gives_the_gradients_for_the_given_output_gradients():
    x, w = leaves()
    out = x * w
    gx, gw = engine.vjp([out], [x, w], [ndgrad.tensor([1.0, 2.0, 3.0])])
    np.testing.assert_allclose(gx.numpy(), [1.5, 0.5, -2.25])   # w * g
    np.testing.assert_allclose(gw.numpy(), [0.5, -2.0, 6.0])    # x * g
    assert gx.grad_fn is None and x.grad is None                 # returned, not accumulated


def test_vjp_frees_the_graph_unless_create_graph():
    x, w = leaves()
    out = x * w
    engine.vjp([out], [x], [ndgrad.ones_like(out)])
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        engine.vjp([out], [x], [ndgrad.ones_like(out)])
    out = x * w
    (gx,) = engine.vjp([out], [x], [ndgrad.ones_like(out)], create_graph=True)
    assert gx.grad_fn is not None                                # differentiable: d(gx)/dw = 1
    (gxw,) = engine.vjp([gx.sum()], [w], [ndgrad.tensor(1.0)])
    np.testing.assert_allclose(gxw.numpy(), [1.0, 1.0, 1.0])
    (again,) = engine.vjp([out], [x], [ndgrad.ones_like(out)])   # the graph was kept
    np.testing.assert_allclose(again.numpy(), w.detach().numpy())


def test_vjp_gives_none_for_an_input_not_reached():
    x, w = leaves()
    assert engine.vjp([x.exp()], [x, w], [ndgrad.ones(3)])[1] is None


# --- apply_node -------------------------------------------------------------------------------
def test_apply_node_fits_the_gradient_to_a_broadcast_input():
    a = ndgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = ndgrad.tensor([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]], requires_grad=True)
    out = a * b
    node = out.grad_fn
    towards = {e for e, _ in node.next_functions}
    got = dict((e.node, g) for e, g in engine.apply_node(node, [ndgrad.ones(2, 3)], towards))
    # a's gradient summed over the broadcast dimension: b's column sums
    np.testing.assert_allclose(got[a.grad_fn or node.next_functions[0][0]].numpy(), [3.0, 3.0, 3.0])
    np.testing.assert_allclose(got[node.next_functions[1][0]].numpy(), np.ones((2, 3)) * [1, 2, 3])


def test_apply_node_fills_a_missing_output_gradient_with_zeros():
    x = ndgrad.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    first, second = x.split(2)
    node = first.grad_fn
    ((e, g),) = engine.apply_node(node, [ndgrad.tensor([5.0, 6.0]), None], {node.next_functions[0][0]})
    np.testing.assert_allclose(g.numpy(), [5.0, 6.0, 0.0, 0.0])


def test_apply_node_with_create_graph_gives_a_differentiable_gradient():
    x, w = leaves()
    node = (x * w).grad_fn
    towards = {node.next_functions[0][0]}
    ((_, plain),) = engine.apply_node(node, [ndgrad.ones(3)], towards)
    assert plain.grad_fn is None and not plain.requires_grad
    node = (x * w).grad_fn
    ((_, g),) = engine.apply_node(node, [ndgrad.ones(3)], towards, create_graph=True)
    assert g.requires_grad and g.grad_fn is not None            # g = w, a function of w
    g.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [1.0, 1.0, 1.0])


# --- graph walks ------------------------------------------------------------------------------
def test_reverse_graph_follows_edges_after_a_non_differentiable_input():
    c = ndgrad.tensor([1.0, 2.0])           # no grad: the node's first edge is None
    w = ndgrad.tensor([3.0, 4.0], requires_grad=True)
    out = c * w
    rev = engine.reverse_graph([out.grad_fn])
    assert out.grad_fn.next_functions[0][0] is None
    assert rev[out.grad_fn.next_functions[1][0]] == [out.grad_fn]


def test_reverse_graph_lists_a_shared_node_once_per_edge():
    x = ndgrad.tensor([1.0, 2.0], requires_grad=True)
    a = x.exp()
    out = a.sin() + a.cos()                 # a is used twice; x's node by a only
    rev = engine.reverse_graph([out.grad_fn])
    assert rev[x.grad_fn or a.grad_fn.next_functions[0][0]] == [a.grad_fn]
    assert sorted(n.name() for n in rev[a.grad_fn]) == ["CosBackward0", "SinBackward0"]


def test_grad_through_many_shared_nodes_visits_each_once():
    # y = y + y, 80 times: each node reaches the previous one by two edges; a walk that revisits
    # nodes would take 2**80 steps
    def scenario(T):
        x = T.tensor(1.0, requires_grad=True)
        y = x
        for _ in range(80):
            y = y + y
        z = T.tensor(3.0, requires_grad=True) * y
        return T.autograd.grad(z, [x])[0]
    assert float(both(scenario)) == 3.0 * 2.0 ** 80


# --- execution order as hooks see it ----------------------------------------------------------
def _order_during(T, run):
    a = T.tensor(1.0, requires_grad=True)
    b = T.tensor(2.0, requires_grad=True)
    c, d = b.sin(), a.cos()
    out = c * d
    seen = []
    out.register_hook(lambda g: seen.extend(n.name() for n in T._C._current_graph_task_execution_order()))
    with T.autograd.set_multithreading_enabled(False):
        run(T, a, b, c, d, out)
    return seen


def test_execution_order_of_a_pass_with_inputs_lists_only_the_nodes_that_run():
    got = both(lambda T: _order_during(T, lambda T, a, b, c, d, out: T.autograd.grad(out, [b])))
    assert got == ["MulBackward0", "SinBackward0", "torch::autograd::AccumulateGrad"]   # b's, captured


def test_execution_order_follows_the_needed_edge_after_one_that_is_not():
    # out = d * c: the product's first edge (d's) leads to no input asked for, its second does
    def scenario(T):
        a = T.tensor(1.0, requires_grad=True)
        b = T.tensor(2.0, requires_grad=True)
        out = a.cos() * b.sin()
        seen = []
        out.register_hook(lambda g: seen.extend(n.name() for n in T._C._current_graph_task_execution_order()))
        with T.autograd.set_multithreading_enabled(False):
            T.autograd.grad(out, [b])
        return seen
    assert both(scenario) == ["MulBackward0", "SinBackward0", "torch::autograd::AccumulateGrad"]


def test_execution_order_of_a_pass_with_several_roots_is_the_order_nodes_run():
    # ndgrad only: torch 2.13 fails an internal assert when asked with several roots
    a, b = leaves()
    c, d = b.sin(), a.cos()
    roots = [c * 2, d * 3, c * d]
    predicted, ran = [], []
    roots[2].register_hook(lambda g: predicted.extend(engine.current_task().execution_order()))
    for n in {id(r.grad_fn): r.grad_fn for r in roots + [c, d]}.values():
        n.register_prehook(lambda g, n=n: ran.append(n))
    ndgrad.autograd.backward(roots, [ndgrad.ones(3)] * 3)
    assert [n.name() for n in ran] == ["MulBackward0", "MulBackward0", "MulBackward0", "CosBackward0", "SinBackward0"]
    assert [n for n in predicted if n in ran] == ran and len(predicted) == len(ran) + 2   # + the two leaves


# --- reentrant backward deep in the stack -----------------------------------------------------
def _deep(depth, fn):
    return fn() if depth == 0 else _deep(depth - 1, fn)


def test_reentrant_backward_deep_in_the_stack_returns_its_gradients():
    # a hook that, deeper than half the recursion limit, runs autograd.grad: ndgrad goes on in a
    # fresh thread (as torch hands it to another worker) and returns what a shallow call returns
    def scenario(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        inner = []

        def hook(g):
            z = T.tensor([3.0, 4.0], requires_grad=True)
            with T.enable_grad():   # hooks run with grad mode off
                    inner.append(_deep(int(sys.getrecursionlimit() * 0.6),
                                   lambda: T.autograd.grad((z * z).sum(), [z], retain_graph=False)[0]))
        y = x * 2
        y.register_hook(hook)
        y.sum().backward()
        return [inner[0], x.grad]
    got = both(scenario)
    np.testing.assert_allclose(got[0], [6.0, 8.0])
    np.testing.assert_allclose(got[1], [2.0, 2.0])


def test_reentrant_backward_deep_in_the_stack_raises_its_error_in_the_caller():
    def scenario(T):
        z = T.tensor(3.0, requires_grad=True)
        w = (z * z).exp()
        w.backward()                        # frees w's graph: a second pass raises inside the engine
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: _deep(int(sys.getrecursionlimit() * 0.6), lambda: T.autograd.grad(w, [z])))
        y.sum().backward()
    assert same_error(scenario).startswith("Trying to backward through the graph a second time")


def test_reentrant_backward_runs_on_the_calling_thread_when_the_stack_is_shallow():
    def scenario(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        threads = []

        def hook(g):
            z = T.tensor(3.0, requires_grad=True)
            with T.enable_grad():
                zz = z * z
            zz.register_hook(lambda g: threads.append(threading.current_thread() is threading.main_thread()))
            zz.backward()
        y = x * 2
        y.register_hook(hook)
        y.sum().backward()
        return threads
    assert both(scenario) == [True]


# --- what hooks may return --------------------------------------------------------------------
def test_a_node_hook_returning_a_wrong_size_is_named_in_the_error():
    def scenario(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()

        def shrink(grad_outputs):
            return (grad_outputs[0][:1],)
        y.grad_fn.register_prehook(shrink)
        y.sum().backward()
    assert same_error(scenario) == "hook 'shrink' has changed the size of value"


def test_a_tensor_hook_changing_only_the_layout_is_refused():
    def scenario(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2

        def sparse(g):
            return g.to_sparse()
        y.register_hook(sparse)
        y.sum().backward()
    assert same_error(scenario).startswith("hook 'sparse' has changed the type of value")


class _Product(ndgrad.autograd.Function):
    """A custom node that computes both gradients whatever is asked."""
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b, g[:2] * a[:2]          # b's gradient has the wrong size


def test_apply_node_returns_only_the_edges_asked_for_even_if_the_node_computes_more():
    a = ndgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = ndgrad.tensor([4.0, 5.0, 6.0], requires_grad=True)
    node = _Product.apply(a, b).grad_fn
    got = engine.apply_node(node, [ndgrad.ones(3)], {node.next_functions[0][0]})
    assert len(got) == 1 and got[0][0].node is node.next_functions[0][0]
    np.testing.assert_allclose(got[0][1].numpy(), [4.0, 5.0, 6.0])
    with pytest.raises(RuntimeError) as e:
        engine.apply_node(node, [ndgrad.ones(3)], {node.next_functions[1][0]})
    assert str(e.value) == ("Function _ProductBackward returned an invalid gradient at index 1 - got [2] but "
                            "expected shape compatible with [3]")
