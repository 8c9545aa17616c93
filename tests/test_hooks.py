"""Hooks and the engine's observable internals, compared with torch: the order hooks run in, what
they receive and may return, backward(inputs=) on non-leaves, the running graph task
(torch._C._current_graph_task_id and friends), the argument checks of backward/grad, and deep
reentrant backward."""
import warnings

import pytest

from parity import LIBS, both, err, leaf, same_error

import ndgrad


# ---- tensor hooks -----------------------------------------------------------------------------------

def test_tensor_hook_of_an_output_without_gradient_sees_none():
    def scenario(T):
        seen = []
        x = leaf(T)
        first, second, _ = x.unbind()
        first.register_hook(lambda g: seen.append(None if g is None else g.item()))
        second.backward()        # unbind runs; its output 0 gets no gradient
        first.backward()
        return [str(v) for v in seen] + x.grad.tolist()
    assert both(scenario) == ["None", "1.0", 1.0, 1.0, 0.0]


@pytest.mark.parametrize("bad", ["size", "dtype", "int", "replace_none"])
def test_tensor_hook_returning_a_wrong_gradient_is_refused(bad):
    def call(T):
        x = leaf(T)
        if bad == "replace_none":
            first, second, _ = x.unbind()
            first.register_hook(lambda g: T.ones((), dtype=T.float64))
            second.backward()
            return
        y = x * 2
        hooks = {"size": lambda g: T.ones(2, dtype=T.float64), "dtype": lambda g: g.float(), "int": lambda g: 3}
        y.register_hook(hooks[bad])
        y.sum().backward()
    exc = TypeError if bad == "int" else RuntimeError
    msg = same_error(call, exc)
    assert msg == {"size": "hook '<lambda>' has changed the size of value",
                   "dtype": "hook '<lambda>' has changed the type of value (was torch.DoubleTensor got "
                            "torch.FloatTensor)",
                   "int": "expected Variable, but hook returned 'int'",
                   "replace_none": "can't replace a None gradient with a non-None value"}[bad]


def test_leaf_hook_of_another_size_is_refused_and_names_callable_objects_unknown():
    class Hook:
        def __call__(self, g):
            return g[:1]

    def call(T):
        x = leaf(T)
        x.register_hook(Hook())
        (x * 2).sum().backward()
    assert same_error(call) == "hook '<unknown>' has changed the size of value"


def test_post_accumulate_grad_hook_must_return_none():
    def call(T):
        x = leaf(T)
        x.register_post_accumulate_grad_hook(lambda t: t.grad)
        x.sum().backward()
    assert same_error(call) == "Tensor post accumulate grad hooks should return None."


# ---- node hooks ----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["pre_count", "pre_type", "post_count", "post_list"])
def test_node_hook_results_are_checked(kind):
    def call(T):
        y = leaf(T) * leaf(T, (1.0, 2.0, 3.0))
        if kind == "pre_count":
            y.grad_fn.register_prehook(lambda go: (go[0], go[0]))
        elif kind == "pre_type":
            y.grad_fn.register_prehook(lambda go: 5)
        elif kind == "post_count":
            y.grad_fn.register_hook(lambda gi, go: (gi[0],))
        else:
            y.grad_fn.register_hook(lambda gi, go: list(gi))
        y.sum().backward()
    exc = TypeError if kind in ("pre_type", "post_list") else RuntimeError
    msg = same_error(call, exc)
    assert msg == {"pre_count": "hook '<lambda>' has returned an incorrect number of values (got 2, but expected 1)",
                   "pre_type": "expected tuple, but hook returned 'int'",
                   "post_count": "hook '<lambda>' has returned an incorrect number of values (got 1, but expected 2)",
                   "post_list": "expected tuple, but hook returned 'list'"}[kind]


def test_hook_order_with_non_leaf_inputs():
    # tensor hook, node pre-hooks, then the node; backward(inputs=[non-leaf]) runs the input's node
    # (its hooks) and retains its gradient, without going on to the leaf
    def scenario(T):
        log = []
        a = T.tensor(1.0, requires_grad=True)
        b = a.clone()
        b.grad_fn.register_prehook(lambda gs: log.append("pre") or tuple(g * 2 for g in gs))
        b.register_hook(lambda g: log.append("tensor") or g * 3)
        b.grad_fn.next_functions[0][0].register_prehook(lambda gs: log.append("acc_pre"))
        (b * 1).sum().backward(inputs=(b,))
        return log + [b.grad.item(), b.retains_grad, a.grad is None]
    assert both(scenario) == ["tensor", "pre", 3.0, True, True]


def test_backward_inputs_as_gradient_edges():
    def scenario(T):
        a = T.tensor(1.0, requires_grad=True)
        b = a * 2
        c = b * 3
        c.backward(inputs=[T.autograd.graph.get_gradient_edge(a)], retain_graph=True)
        first = a.grad.item()
        c.backward(inputs=[T.autograd.graph.get_gradient_edge(b)])   # a non-leaf edge: nothing is kept
        return [first, a.grad.item(), b.retains_grad]
    assert both(scenario) == [6.0, 6.0, False]


def test_post_hook_added_while_the_node_runs_gets_no_grad_outputs():
    def scenario(T):
        seen = []
        a = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)

        def unpack(t):
            node = T._C._current_autograd_node()
            node.register_hook(lambda gi, go: seen.append(len(go)) or tuple(g / 2 for g in gi))
            return t

        with T.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
            y = a * a
        y.sum().backward()
        return seen + a.grad.tolist()
    assert both(scenario) == [0, 0, 0.5, 1.0]   # one unpack (and one hook) per saved `a`


def test_full_backward_hook_runs_after_node_prehooks_and_once_per_grad_output():
    def scenario(T):
        log = []
        lin = T.nn.Linear(2, 2).double()
        lin.register_full_backward_hook(lambda m, gi, go: log.append("module"))
        x = T.ones(1, 2, dtype=T.float64, requires_grad=True)
        out = lin(x)
        in_node = out.grad_fn.next_functions[0][0].next_functions[1][0]   # AddmmBackward0 -> the inputs' node
        in_node.register_prehook(lambda g: log.append("pre"))
        in_node.register_hook(lambda gi, go: log.append("post"))
        (gx,) = T.autograd.grad(out.pow(2).sum(), x, create_graph=True)
        T.autograd.grad(gx.sum(), x, allow_unused=True)
        return [in_node.name()] + log
    assert both(scenario) == ["BackwardHookFunctionBackward", "pre", "module", "post", "pre", "module", "post"]


def test_full_backward_hook_does_not_fire_in_double_backward():
    def scenario(T):
        count = []
        loss = T.nn.MSELoss()
        loss.register_full_backward_hook(lambda m, gi, go: count.append(1))
        x = T.tensor([0.5], dtype=T.float64, requires_grad=True)
        (gx,) = T.autograd.grad(loss(x, T.zeros(1, dtype=T.float64)), x, create_graph=True)
        first = len(count)
        T.autograd.grad(gx, x)    # reaches the inputs' node without passing the outputs' node
        return [first, len(count)]
    assert both(scenario) == [1, 1]


# ---- the running graph task ------------------------------------------------------------------------

def test_graph_task_id_counts_passes_and_is_minus_one_outside():
    def scenario(T):
        ids = []
        t = T.tensor(1.0, requires_grad=True).clone()
        t.register_hook(lambda g: ids.append(T._C._current_graph_task_id()))
        for _ in range(3):
            t.backward(retain_graph=True)
        return [ids[1] - ids[0], ids[2] - ids[0], T._C._current_graph_task_id(), T._C._current_autograd_node()]
    assert both(scenario) == [1, 2, -1, None]


def test_execution_order_predicted_during_backward():
    def scenario(T):
        predicted, actual = [], []
        a = T.tensor(1.0, requires_grad=True)
        b = T.tensor(2.0, requires_grad=True)
        c, d = b.sin(), a.cos()
        out = c * d
        for name, t in zip("abcd", (a, b, c, d)):
            t.register_hook(lambda g, name=name: actual.append(name))
        out.register_hook(lambda g: predicted.extend(n.name() for n in T._C._current_graph_task_execution_order()))
        with T.autograd.set_multithreading_enabled(False):
            out.backward()
        return predicted + actual
    assert both(scenario) == ["MulBackward0", "CosBackward0", "torch::autograd::AccumulateGrad", "SinBackward0",
                              "torch::autograd::AccumulateGrad", "d", "a", "c", "b"]


def test_graph_task_internals_errors():
    assert same_error(lambda T: T._C._current_graph_task_execution_order()) == \
        "_current_graph_task_execution_order should only be called during the backward pass"
    assert same_error(lambda T: T._C._will_engine_execute_node(3)) == \
        "_will_engine_execute_node expects an grad_fn, but got int"
    assert same_error(lambda T: T._C._will_engine_execute_node(leaf(T).exp().grad_fn)) == \
        "_get_should_execute_nodes should only be called during the backward pass"

    def multithreaded(T):
        t = T.tensor(1.0, requires_grad=True).exp()
        t.register_hook(lambda g: T._C._current_graph_task_execution_order())
        t.backward()
    assert same_error(multithreaded).startswith("get_current_graph_task_execution_order expects the current "
                                                "backward to be executed with multithreading disabled")


def test_will_engine_execute_node():
    def scenario(T):
        out = []
        a, a2 = leaf(T), leaf(T, (1.0, 2.0, 3.0))
        b = a * a2
        b2 = b.cos()
        c = b.exp()
        acc = b.grad_fn.next_functions[0][0]
        acc2 = b.grad_fn.next_functions[1][0]

        def hook(g):
            out.append([T._C._will_engine_execute_node(n) for n in (b.grad_fn, b2.grad_fn, c.grad_fn)])
            out.append(err(lambda: T._C._will_engine_execute_node(acc)))
            out.append(T._C._will_engine_execute_node(acc2))
        b.register_hook(hook)
        c.backward(T.ones(3, dtype=T.float64), retain_graph=True)    # c's node is the single root
        T.autograd.grad(c.sum(), b, retain_graph=True)
        T.autograd.grad(c.sum(), a)
        return out
    assert both(scenario) == [[True, False, False], None, True, [True, False, True], None, False,
                              [True, False, True],
                              ["RuntimeError", "A leaf node was passed to _will_engine_execute_node but we are "
                               "currently running autograd.grad(). This is currently not supported."], False]


def test_multi_grad_hook_modes():
    def scenario(T):
        log = []
        a, b = leaf(T), leaf(T, (1.0, 2.0, 3.0))
        c, d = a * 2, b * 3
        T.autograd.graph.register_multi_grad_hook(
            (c, d), lambda gs: log.append(["all"] + [None if g is None else g.tolist() for g in gs]))
        T.autograd.graph.register_multi_grad_hook((c, d), lambda g: log.append(["any", g.tolist()]), mode="any")
        (c.sum() + 2 * d.sum()).backward(retain_graph=True)
        c.sum().backward()
        return log
    assert both(scenario) == [["any", [2.0, 2.0, 2.0]], ["all", [1.0, 1.0, 1.0], [2.0, 2.0, 2.0]],
                              ["all", [1.0, 1.0, 1.0], None], ["any", [1.0, 1.0, 1.0]]]


def test_c_functions_nodes():
    def scenario(T):
        y = leaf(T)
        boom = T._C._functions.DelayedError("Boom!", 1)(y)
        undefined = T._C._functions.UndefinedGrad()(y)
        undefined.sum().backward()
        return [type(boom.grad_fn).__name__, err(lambda: boom.sum().backward()), y.grad is None,
                isinstance((y * 2).grad_fn.next_functions[0][0], T._C._functions.AccumulateGrad),
                T._C._functions.DelayedError("x", 1)(T.ones(2)).grad_fn is None]
    assert both(scenario) == ["Error", ["RuntimeError", "Boom!"], True, True, True]


def test_weak_tensor_ref_expires_with_the_tensor():
    def scenario(T):
        t = T.ones(2)
        ref = T._C._WeakTensorRef(t)
        view = t.detach()
        alive = ref.expired()
        del t
        return [alive, ref.expired(), view.tolist()]
    assert both(scenario) == [False, True, [1.0, 1.0]]


# ---- backward / grad argument checks -------------------------------------------------------------------

@pytest.mark.parametrize("case", ["complex_backward", "complex_grad", "edge_not_scalar", "edge_shape",
                                  "edge_dtype", "empty_inputs", "materialize_edge"])
def test_backward_and_grad_argument_errors(case):
    def call(T):
        a = T.zeros(1, requires_grad=True)
        edge = T.autograd.graph.get_gradient_edge(a.sin().cos())
        if case == "complex_backward":
            (a * 0.5j).backward()
        elif case == "complex_grad":
            T.autograd.grad(a * 0.5j, a)
        elif case == "edge_not_scalar":
            T.autograd.grad(T.autograd.graph.get_gradient_edge(T.zeros(2, requires_grad=True).exp()), (a,))
        elif case == "edge_shape":
            T.autograd.grad(edge, (a,), grad_outputs=T.ones(3))
        elif case == "edge_dtype":
            T.autograd.grad(edge, (a,), grad_outputs=T.ones(1, dtype=T.complex64))
        elif case == "empty_inputs":
            a.sin().sum().backward(inputs=[])
        else:
            y = T.zeros(1, requires_grad=True).clone()
            T.autograd.grad(a.sum(), (a, T.autograd.graph.get_gradient_edge(y)), materialize_grads=True)
    complex_msg = "grad can be implicitly created only for real scalar outputs but got torch.complex64"
    assert same_error(call) == {
        "complex_backward": complex_msg, "complex_grad": complex_msg,
        "edge_not_scalar": "grad can be implicitly created only for scalar outputs",
        "edge_shape": "Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a shape "
                      "of torch.Size([1]).",
        "edge_dtype": "For complex Tensors, both grad_output and output are required to have the same dtype. "
                      "Mismatch in dtype: grad_output[0] has a dtype of torch.complex64 and output[0] has a dtype of "
                      "torch.float32.",
        "empty_inputs": "`inputs` argument to `backward()` cannot be empty.",
        "materialize_edge": "materialize_grads cannot be used when the given input is a GradientEdge"}[case]


def test_grad_with_no_inputs():
    assert same_error(lambda T: T.autograd.grad(2 * leaf(T), [])) == "`inputs` argument to `grad()` cannot be empty."


def test_gradient_edge_as_output_gets_an_implicit_gradient():
    def scenario(T):
        x = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
        tmp = x.sin().sum()
        edge = T.autograd.graph.get_gradient_edge(tmp)
        (g,) = T.autograd.grad(edge, (x,), retain_graph=True)
        T.autograd.backward(edge)
        return [g, x.grad]
    g, accumulated = both(scenario)
    assert g.tolist() == accumulated.tolist() and g[0] == pytest.approx(0.5403023058681398)


def test_grad_with_batched_integer_grad_outputs_and_dict_inputs():
    def scenario(T):
        x = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        (batched,) = T.autograd.grad(x.clone(), (x,), (T.arange(3).expand(2, 2, 3).transpose(0, 2),),
                                     is_grads_batched=True)
        by_name = T.autograd.grad((x * x).sum(), {"x": x})
        return [batched, sorted(by_name), by_name["x"]]
    out = both(scenario)
    assert out[0][2].tolist() == [[2.0, 2.0], [2.0, 2.0]] and out[1] == ["x"]


def test_materialized_gradient_requires_grad_with_create_graph():
    def scenario(T):
        x, a = T.tensor(0.5, requires_grad=True), T.tensor(1.0, requires_grad=True)
        (d,) = T.autograd.grad(x * a, x, create_graph=True)
        (z,) = T.autograd.grad(d, x, create_graph=True, materialize_grads=True)
        (z2,) = T.autograd.grad(z, x, materialize_grads=True)
        return [z.item(), z.requires_grad, z2.item()]
    assert both(scenario) == [0.0, True, 0.0]


def test_backward_with_create_graph_warns_but_grad_does_not():
    for T in LIBS:
        x = leaf(T)
        if hasattr(T, "set_warn_always"):   # torch warns once per process otherwise
            prev = T.is_warn_always_enabled()
            T.set_warn_always(True)
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            T.autograd.grad((x * x).sum(), x, create_graph=True)
            assert not ws
            (x * x).sum().backward(create_graph=True)
        if hasattr(T, "set_warn_always"):
            T.set_warn_always(prev)
        assert any("Using backward() with create_graph=True will create a reference cycle" in str(w.message)
                   for w in ws)


# ---- deep reentrant backward ---------------------------------------------------------------------

def test_reentrant_backward_deeper_than_the_recursion_limit():
    class Deep(ndgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with ndgrad.enable_grad():
                ctx.x = x.detach().requires_grad_() - 1
            return ctx.x.detach()

        @staticmethod
        def backward(ctx, g):
            if ctx.x.item() >= 0:
                with ndgrad.enable_grad():
                    Deep.apply(ctx.x).sum().backward()
            return g * 2

    v = ndgrad.tensor(600.0, requires_grad=True)   # several Python frames per level: far past the limit
    Deep.apply(v).sum().backward()
    assert v.grad.item() == 2.0


@pytest.mark.parametrize("call", ["too_many", "too_few", "not_tensor", "delayed_count", "undefined_count"])
def test_calling_a_node_checks_its_arguments(call):
    def run(T):
        x = T.ones(1, requires_grad=True)
        y = x ** 2
        if call == "too_many":
            y.grad_fn(x.detach(), x.detach())
        elif call == "too_few":
            y.grad_fn()
        elif call == "not_tensor":
            y.grad_fn(3)
        elif call == "delayed_count":
            T._C._functions.DelayedError("x", 3)(x)
        else:
            T._C._functions.UndefinedGrad()(x, x)
    assert same_error(run, TypeError) == {"too_many": "expected 1 arguments, got 2 instead",
                                          "too_few": "expected 1 arguments, got 0 instead",
                                          "not_tensor": "argument 0 is not a Variable",
                                          "delayed_count": "expected 3 arguments, got 1 instead",
                                          "undefined_count": "expected 1 arguments, got 2 instead"}[call]


def test_calling_a_node_of_several_outputs():
    def scenario(T):
        a, _ = T.tensor([1.0, 2.0], requires_grad=True).unbind()
        both_outputs = T._C._functions.DelayedError("x", 2)(T.ones(1, requires_grad=True), T.zeros(1))
        return [a.grad_fn(T.ones(()), None), err(lambda: a.grad_fn(T.ones(()))), len(both_outputs)]
    assert both(scenario)[1:] == [["TypeError", "expected 2 arguments, got 1 instead"], 2]
