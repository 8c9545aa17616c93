"""The backward engine: accumulation, retain_graph, create_graph, inputs=, autograd.grad,
GradientEdge, hooks and their order, saved-tensor lifetime, long chains.

Each scenario is written once against the torch API and run on ndgrad; where torch is
installed the same scenario runs on torch too and the results must agree.
"""
import numpy as np
import pytest

import ndgrad

from parity import both, err, leaf, parity, same_error


# --- accumulation --------------------------------------------------------------------------
def test_backward_fills_grad_of_leaves():
    def s(T):
        x, y = leaf(T), leaf(T, (1.0, 2.0, 3.0))
        (x * y).sum().backward()
        return [x.grad, y.grad]
    gx, gy = both(s)
    np.testing.assert_allclose(gx, [1.0, 2.0, 3.0])
    np.testing.assert_allclose(gy, [0.5, -1.0, 2.0])


def test_second_backward_accumulates_into_grad():
    def s(T):
        x = leaf(T)
        (x * x).sum().backward()
        (x * 3).sum().backward()
        return x.grad
    np.testing.assert_allclose(both(s), [4.0, 1.0, 7.0])


def test_grad_of_a_tensor_used_twice_is_summed():
    def s(T):
        x = leaf(T)
        y = x * 2
        (y * y + y).sum().backward()
        return x.grad
    np.testing.assert_allclose(both(s), 8 * np.array([0.5, -1.0, 2.0]) + 2)  # d(y^2+y)/dx, y=2x


def test_grads_of_two_leaves_do_not_alias():
    x, y = leaf(ndgrad), leaf(ndgrad)
    (x + y).sum().backward()
    x.grad.mul_(10) if hasattr(x.grad, "mul_") else None
    np.testing.assert_allclose(y.grad.numpy(), [1.0, 1.0, 1.0])


def test_non_leaf_has_no_grad_unless_retained():
    def s(T):
        x = leaf(T)
        y = x * 2
        z = x * 3
        z.retain_grad()
        (y * z).sum().backward()
        return [y.grad is None, z.retains_grad, z.grad]
    none_y, retains, gz = both(s)
    assert none_y and retains
    np.testing.assert_allclose(gz, [1.0, -2.0, 4.0])


def test_broadcast_gradient_is_summed_back_to_input_shape():
    def s(T):
        x = T.tensor([[1.0], [2.0]], dtype=T.float64, requires_grad=True)
        y = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
        (x * y).sum().backward()
        return [x.grad, y.grad]
    gx, gy = both(s)
    np.testing.assert_allclose(gx, [[6.0], [6.0]])
    np.testing.assert_allclose(gy, [3.0, 3.0, 3.0])


def test_gradient_keeps_the_input_dtype():
    def s(T):
        x = T.tensor([1.0, 2.0], dtype=T.float32, requires_grad=True)
        (x.to(T.float64) * 2).sum().backward()
        return [str(x.grad.dtype)]
    assert both(s) == ["torch.float32"]


# --- retain_graph / create_graph -------------------------------------------------------------
def test_backward_twice_without_retain_graph_raises():
    x = leaf(ndgrad)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_backward_twice_with_retain_graph_accumulates():
    def s(T):
        x = leaf(T)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad
    np.testing.assert_allclose(both(s), [2.0, -4.0, 8.0])


def test_graph_without_saved_tensors_can_run_twice():
    def s(T):
        x = leaf(T)
        y = (x + 1).sum()
        y.backward()
        y.backward()
        return x.grad
    np.testing.assert_allclose(both(s), [2.0, 2.0, 2.0])


def test_saved_tensors_are_freed_after_backward():
    x = leaf(ndgrad)
    y = x * x
    fn = y.grad_fn
    assert fn._saved_self is x
    y.sum().backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        fn._saved_self


def test_only_values_a_needed_gradient_reads_are_saved():
    def s(T):
        x, c = leaf(T), T.tensor([3.0, 4.0, 5.0], dtype=T.float64)
        w = T.ones(3, 2, dtype=T.float64, requires_grad=True)
        by_const, by_scalar, const_by = x * c, x * 2.0, c * x
        mm = T.mm(c.view(1, 3), w)    # saves the input for w's gradient, not w
        with_mutation = x * c
        with T.no_grad():
            x.add_(1)                 # x was not saved by x * c: changing it breaks nothing
        with_mutation.sum().backward()
        return [by_const.grad_fn._saved_self is None, by_const.grad_fn._saved_other,
                by_scalar.grad_fn._saved_self is None, const_by.grad_fn._saved_other is None,
                mm.grad_fn._saved_mat2 is None, mm.grad_fn._saved_self, x.grad]
    r = both(s)
    assert r[0] and r[2] and r[3] and r[4]


def test_grad_with_batched_grad_outputs():
    def s(T):
        x = leaf(T)
        y = x * x
        (rows,) = T.autograd.grad(y, x, T.eye(3, dtype=T.float64), is_grads_batched=True, retain_graph=True)
        two = T.autograd.grad([y, y.sum()], x, [T.eye(3, dtype=T.float64), T.ones(3, dtype=T.float64)],
                              is_grads_batched=True, create_graph=True)
        (second,) = T.autograd.grad(two[0].sum(), x)
        return [rows, two, two[0].requires_grad, second]
    parity(s)


def test_batched_grad_shape_mismatch_names_the_shapes():
    # torch's message prints torch.Size([]) for the grad_output here; ndgrad names its real shape
    x = leaf(ndgrad)
    with pytest.raises(RuntimeError, match=r"grad_output\[0\] has a shape of torch.Size\(\[2\]\) and output\[0\]"):
        ndgrad.autograd.grad(x * x, x, ndgrad.ones(3, 2, dtype=ndgrad.float64), is_grads_batched=True)


@pytest.mark.parametrize("call", [
    lambda T, x: T.autograd.grad(x * x, x, None, is_grads_batched=True),
    lambda T, x: T.autograd.grad([x * x, x.sum()], x, [T.eye(3, dtype=T.float64), T.ones(2, dtype=T.float64)],
                                 is_grads_batched=True),
], ids=["missing", "batch_sizes"])
def test_batched_grad_errors(call):
    same_error(lambda T: call(T, leaf(T)), exc=(RuntimeError, ValueError))


def test_second_and_third_derivatives_through_create_graph():
    def s(T):
        x = leaf(T)
        y = (x * x * x).sum()
        (g1,) = T.autograd.grad(y, x, create_graph=True)
        (g2,) = T.autograd.grad(g1.sum(), x, create_graph=True)
        (g3,) = T.autograd.grad(g2.sum(), x)
        return [g1, g2, g3]
    g1, g2, g3 = both(s)
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(g1, 3 * x ** 2)
    np.testing.assert_allclose(g2, 6 * x)
    np.testing.assert_allclose(g3, [6.0, 6.0, 6.0])


def test_create_graph_backward_gives_differentiable_grad():
    def s(T):
        x = leaf(T)
        (x * x).sum().backward(create_graph=True)
        g = x.grad
        return [g.requires_grad, g.grad_fn is not None]
    assert both(s) == [True, True]


# --- autograd.grad and inputs= -----------------------------------------------------------------
def test_grad_returns_without_touching_dot_grad():
    def s(T):
        x = leaf(T)
        (g,) = T.autograd.grad((x * x).sum(), [x])
        return [g, x.grad is None]
    g, untouched = both(s)
    np.testing.assert_allclose(g, [1.0, -2.0, 4.0])
    assert untouched


def test_grad_wrt_intermediate_tensor():
    def s(T):
        x = leaf(T)
        h = x * 2
        out = (h * h).sum()
        return list(T.autograd.grad(out, [h, x]))
    gh, gx = both(s)
    np.testing.assert_allclose(gh, [2.0, -4.0, 8.0])
    np.testing.assert_allclose(gx, [4.0, -8.0, 16.0])


def test_grad_unused_input_raises_unless_allowed():
    x, z = leaf(ndgrad), leaf(ndgrad)
    y = (x * 2).sum()
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        ndgrad.autograd.grad(y, [x, z], retain_graph=True)
    gx, gz = ndgrad.autograd.grad(y, [x, z], allow_unused=True, retain_graph=True)
    assert gz is None
    gx, gz = ndgrad.autograd.grad(y, [x, z], materialize_grads=True)
    np.testing.assert_allclose(gz.numpy(), [0.0, 0.0, 0.0])


def test_backward_inputs_accumulates_only_into_those():
    def s(T):
        x, y = leaf(T), leaf(T, (1.0, 2.0, 3.0))
        (x * y).sum().backward(inputs=[y])
        return [x.grad is None, y.grad]
    none_x, gy = both(s)
    assert none_x
    np.testing.assert_allclose(gy, [0.5, -1.0, 2.0])


def test_backward_inputs_non_leaf_gets_grad():
    def s(T):
        x = leaf(T)
        h = x * 2
        (h * h).sum().backward(inputs=[h])
        return [h.grad, x.grad is None]
    gh, none_x = both(s)
    np.testing.assert_allclose(gh, [2.0, -4.0, 8.0])
    assert none_x


def test_grad_with_grad_outputs_for_several_outputs():
    def s(T):
        x = leaf(T)
        a, b = x * 2, x * x
        go = [T.ones(3, dtype=T.float64), T.tensor([1.0, 0.0, 2.0], dtype=T.float64)]
        return list(T.autograd.grad([a, b], x, go))
    np.testing.assert_allclose(both(s)[0], [2 + 1.0, 2.0, 2 + 8.0])


def test_only_needed_branches_run():
    calls = []
    x, y = leaf(ndgrad), leaf(ndgrad)
    a = x * 2
    b = y * 3
    b.grad_fn.register_prehook(lambda g: calls.append("b"))
    ndgrad.autograd.grad((a + b).sum(), [x])
    assert calls == []


def test_gradient_edge_as_input_and_output():
    def s(T):
        from_graph = T.autograd.graph.get_gradient_edge
        x = leaf(T)
        h = x * 2
        out = (h * h).sum()
        (gh,) = T.autograd.grad(out, from_graph(h), retain_graph=True)
        (gx,) = T.autograd.grad(from_graph(h), x, grad_outputs=gh)
        return [gh, gx]
    gh, gx = both(s)
    np.testing.assert_allclose(gx, 2 * gh)


# --- hooks -----------------------------------------------------------------------------------
def test_tensor_hook_can_replace_gradient():
    def s(T):
        x = leaf(T)
        y = x * 2
        y.register_hook(lambda g: g * 10)
        y.sum().backward()
        return x.grad
    np.testing.assert_allclose(both(s), [20.0, 20.0, 20.0])


def test_leaf_hook_runs_before_accumulation():
    def s(T):
        x = leaf(T)
        x.register_hook(lambda g: g + 1)
        (x * 2).sum().backward()
        return x.grad
    np.testing.assert_allclose(both(s), [3.0, 3.0, 3.0])


def test_hook_handle_remove():
    def s(T):
        x = leaf(T)
        h = x.register_hook(lambda g: g * 0)
        h.remove()
        (x * 2).sum().backward()
        return x.grad
    np.testing.assert_allclose(both(s), [2.0, 2.0, 2.0])


def test_post_accumulate_grad_hook_sees_grad():
    def s(T):
        x = leaf(T)
        seen = []
        x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.sum().item()))
        (x * 2).sum().backward()
        return seen
    assert both(s) == [6.0]


def test_hook_order_matches_torch():
    def s(T):
        order = []
        x = leaf(T)
        y = x * 2
        z = y * 3
        y.register_hook(lambda g: order.append("tensor_pre"))
        y.retain_grad()
        y.grad_fn.register_prehook(lambda go: order.append("node_pre"))
        y.grad_fn.register_hook(lambda gi, go: order.append("node_post"))
        x.register_hook(lambda g: order.append("leaf_pre"))
        x.register_post_accumulate_grad_hook(lambda t: order.append("post_acc"))
        z.sum().backward()
        order.append(y.grad is not None)
        return order
    assert both(s) == ["tensor_pre", "node_pre", "node_post", "leaf_pre", "post_acc", True]


def test_node_hooks_can_replace_gradients():
    def s(T):
        x = leaf(T)
        y = x * 2
        y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
        y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, gi[1]))
        y.sum().backward()
        return x.grad
    np.testing.assert_allclose(both(s), [5.0, 5.0, 5.0])


def test_node_metadata_and_next_functions():
    def s(T):
        x = leaf(T)
        y = x * 2
        y.grad_fn.metadata["k"] = 1
        fn, nr = y.grad_fn.next_functions[0]
        return [y.grad_fn.name(), fn.name(), nr, tuple(y.grad_fn.next_functions[1]), fn.variable is x,
                y.grad_fn.metadata["k"], isinstance(y.grad_fn._sequence_nr(), int)]
    assert both(s) == ["MulBackward0", "torch::autograd::AccumulateGrad", 0, [None, 0], True, 1, True]


def test_sequence_numbers_increase():
    x = leaf(ndgrad)
    a = x * 2
    b = a * 2
    assert b.grad_fn._sequence_nr() > a.grad_fn._sequence_nr()


# --- versions and in-place -----------------------------------------------------------------
def test_modified_saved_tensor_raises_naming_node_and_versions():
    def s(T):
        x = leaf(T)
        h = x * 1
        y = h * h
        h.add_(1)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        return [str(e.value).split("Hint")[0]]
    (msg,) = both(s)
    assert "modified by an inplace operation" in msg
    assert "output 0 of Add," in msg and "is at version 1; expected version 0" in msg  # torch's wording


def test_inplace_on_graph_tensor_differentiates():
    def s(T):
        x = leaf(T)
        y = x * 1
        y.mul_(5)
        y.sum().backward()
        return [x.grad, y._version, y.grad_fn.name()]
    g, version, name = both(s)
    np.testing.assert_allclose(g, [5.0, 5.0, 5.0])
    assert version == 1 and name == "MulBackward0"


def test_inplace_on_view_rewrites_base_history():
    def s(T):
        x = leaf(T)
        y = x * 1
        v = y.view(3)
        v.mul_(5)
        (y * y).sum().backward()
        return [x.grad, y.grad_fn.name()]
    g, name = both(s)
    np.testing.assert_allclose(g, 50 * np.array([0.5, -1.0, 2.0]))
    assert name == "torch::autograd::CopySlices"


def test_inplace_on_leaf_requiring_grad_raises():
    x = leaf(ndgrad)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."):
        x.mul_(2)
    np.testing.assert_allclose(x.detach().numpy(), [0.5, -1.0, 2.0])
    with ndgrad.no_grad():
        x.mul_(2)
    np.testing.assert_allclose(x.detach().numpy(), [1.0, -2.0, 4.0])


def test_inplace_on_view_of_leaf_raises():
    x = leaf(ndgrad)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x.view(3).mul_(2)


def test_version_counter_is_shared_by_views():
    x = ndgrad.zeros(2, 3)
    v = x.view(6)
    v.add_(1)
    assert x._version == v._version == 1
    assert v._base is x
    assert float(x.sum()) == 6.0


def test_detach_shares_memory_and_version():
    x = leaf(ndgrad)
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None
    d.add_(1)
    assert x._version == 1
    np.testing.assert_allclose(x.detach().numpy(), [1.5, 0.0, 3.0])


# --- scale -----------------------------------------------------------------------------------
def test_long_chain_needs_no_recursion():
    x = ndgrad.tensor([1.0], dtype=ndgrad.float64, requires_grad=True)
    y = x
    for _ in range(200_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.item() == 1.0


def test_grad_keeps_engine_buffers_but_never_aliases_visible_tensors():
    def shares(a, b):
        return np.shares_memory(a._array, b._array)
    x, y = leaf(ndgrad), leaf(ndgrad)
    (x + y).backward(ndgrad.ones(3, dtype=ndgrad.float64))         # one gradient object routed twice
    assert not shares(x.grad, y.grad)
    kept = []
    x = leaf(ndgrad)
    x.register_hook(lambda g: kept.append(g))                      # a hook keeps a reference
    (x * 2).sum().backward()
    assert not shares(kept[0], x.grad)
    g = ndgrad.ones(3, dtype=ndgrad.float64)
    x = leaf(ndgrad)
    x.backward(g)                                                  # the user's own gradient
    assert not shares(g, x.grad)
    x = leaf(ndgrad)
    z = x * 1
    z.retain_grad()
    (z * 2).sum().backward()
    assert not shares(z.grad, x.grad)
    w = ndgrad.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=ndgrad.float64, requires_grad=True)
    out = ndgrad.ones(1, 2, dtype=ndgrad.float64) @ w
    produced = []
    out.grad_fn.register_hook(lambda gi, go: produced.append(id(gi[1]._array)))
    out.sum().backward()
    assert produced == [id(w.grad._array)]                          # a fresh buffer is kept, not copied


# --- gradient buffers handed to AccumulateGrad -----------------------------------------------
def test_one_gradient_returned_for_two_leaves_is_kept_by_one_and_copied_for_the_other():
    def s(T):
        class Twice(T.autograd.Function):
            seen = []

            @staticmethod
            def forward(ctx, a, b):
                return a + b

            @staticmethod
            def backward(ctx, g):
                Twice.seen.append(g.data_ptr())
                return g, g          # one tensor for both inputs

        a, b = T.randn(4, 3, requires_grad=True), T.randn(4, 3, requires_grad=True)
        Twice.apply(a, b)[2][1].backward()
        pa, pb = a.grad.data_ptr(), b.grad.data_ptr()
        return [pa != pb, Twice.seen[0] in (pa, pb), a.grad.sum().item(), b.grad.sum().item()]
    assert both(s) == [True, True, 1.0, 1.0]


def test_a_cached_gradient_is_kept_though_its_cache_holds_it():
    # torch._C's cached tensors: one reference (the cache's) is not counted, so a gradient a hook keeps
    # and registers is still handed to .grad as it is; unregistered, it is copied
    def s(T):
        C = T._C
        errors = [err(lambda: C._add_cached_tensor(T.ones(1))), err(lambda: C._remove_cached_tensor(T.ones(1)))]
        C._set_cached_tensors_enabled(True)
        try:
            shared = []
            for cache in (False, True, False):
                x = T.ones(3, requires_grad=True)
                kept = []

                def hook(g):
                    kept.append(g * 1)
                    if cache:
                        C._add_cached_tensor(kept[0])
                    return kept[0]
                x.register_hook(hook)
                (x * 2).sum().backward()
                shared.append(x.grad.data_ptr() == kept[0].data_ptr())
            y = T.rand(4)
            C._add_cached_tensor(y)
            C._add_cached_tensor(y)
            states = [C._is_cached_tensor(y), C._is_cached_tensor(y.view(4)), C._is_cached_tensor(T.rand(4))]
            C._set_cached_tensors_enabled(False)
            states.append(C._is_cached_tensor(y))        # disabled: nothing is cached, the entry stays
            C._set_cached_tensors_enabled(True)
            states.append(C._is_cached_tensor(y))
            C._remove_cached_tensor(y)                   # one removal undoes two additions
            states.append(C._is_cached_tensor(y))
        finally:
            C._set_cached_tensors_enabled(False)
        return [[e[0] for e in errors], shared, states, err(lambda: C._is_cached_tensor(3))]
    out = both(s)
    assert out[:3] == [["RuntimeError", "RuntimeError"], [False, True, False], [True, False, False, False, True, False]]
    assert out[3] == ["TypeError", "_is_cached_tensor(): incompatible function arguments. The following argument "
                                   "types are supported:\n    1. (arg0: torch.Tensor) -> bool\n\nInvoked with: 3"]


def test_first_gradient_accumulated_with_create_graph_is_a_recorded_copy():
    def s(T):
        x = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
        (x * x).sum().backward(create_graph=True)
        first = x.grad.grad_fn
        (x * x).sum().backward(create_graph=True)
        strided = T.randn(4, 6, dtype=T.float64)[:, ::2].detach().requires_grad_()   # not dense: a clone
        (strided * strided).sum().backward(create_graph=True)
        plain = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
        plain.sum().backward(create_graph=True)       # a gradient without history is copied without one
        return [first.name(), [None if n is None else n.name() for n, _ in first.next_functions],
                x.grad.grad_fn.name(), strided.grad.grad_fn.name(), list(strided.grad.stride()),
                plain.grad.grad_fn is None, x.grad]
    got = both(s)
    assert got[:6] == ["torch::autograd::CopyBackwards", [None, "AddBackward0"], "AddBackward0", "CloneBackward0",
                       [3, 1], True]
    np.testing.assert_allclose(got[6], [4.0, 8.0])


# --- grad_dtype --------------------------------------------------------------------------------
def test_grad_dtype_defaults_to_the_dtype_and_is_for_leaves_only():
    def s(T):
        x = T.ones(2, requires_grad=True)
        seen = [x.grad_dtype]
        x.grad_dtype = T.float64
        seen.append(x.grad_dtype)
        x.grad_dtype = None
        seen.append(x.grad_dtype)
        seen.append(T.ones(2, dtype=T.int64).grad_dtype)
        return [str(d) for d in seen]
    assert both(s) == ["torch.float32", "torch.float64", "None", "torch.int64"]
    assert same_error(lambda T: (T.ones(2, requires_grad=True) * 2).grad_dtype) == (
        "grad_dtype can only be accessed on leaf tensors.")
    assert same_error(lambda T: setattr(T.ones(2, requires_grad=True) * 2, "grad_dtype", T.float64)) == (
        "grad_dtype can only be set on leaf tensors.")
    assert same_error(lambda T: setattr(T.ones(2), "grad_dtype", "float")) == (
        "grad_dtype must be a torch.dtype or None, but got str")


def test_grad_dtype_decides_which_grad_can_be_assigned():
    def assign(T, grad_dtype, grad):
        x = T.ones(2, requires_grad=True)
        if grad_dtype is not False:
            x.grad_dtype = grad_dtype
        x.grad = grad
        return x.grad.dtype
    message = same_error(lambda T: assign(T, False, T.ones(2, dtype=T.float64)))
    assert message.startswith("attempting to assign a gradient with dtype 'double' to a tensor with grad_dtype "
                              "'Float'. The gradient must match the tensor's grad_dtype")
    assert same_error(lambda T: assign(T, T.float16, T.ones(2))).startswith(
        "attempting to assign a gradient with dtype 'float' to a tensor with grad_dtype 'Half'.")
    assert same_error(lambda T: assign(T, False, T.ones(2, dtype=T.int64))).startswith(
        "attempting to assign a gradient with dtype 'long int'")
    assert both(lambda T: str(assign(T, None, T.ones(2, dtype=T.float64)))) == "torch.float64"

    def change_with_grad(T):
        x = T.ones(2, requires_grad=True)
        x.grad = T.ones(2)
        x.grad_dtype = T.float32       # agrees with the gradient: allowed
        x.grad_dtype = T.float16
    assert same_error(change_with_grad).startswith(
        "Cannot set grad_dtype to 'Half' because there is already a gradient with dtype 'float'.")


def test_incoming_gradients_are_cast_to_grad_dtype_when_they_reach_the_leaf():
    def s(T):
        class ToDouble(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g.to(T.float64)

        def grad_of(grad_dtype, set_after_recording=False):
            x = T.tensor([1.0, 2.0], requires_grad=True)
            if not set_after_recording and grad_dtype is not False:
                x.grad_dtype = grad_dtype
            seen = []
            x.register_hook(lambda g: seen.append(str(g.dtype)))
            out = ToDouble.apply(x)
            if set_after_recording:
                x.grad_dtype = grad_dtype
            out.sum().backward()
            return [str(x.grad.dtype), seen[0]]

        y = T.tensor([1.0, 2.0], requires_grad=True)
        y.grad_dtype = T.float16
        (y * 2).sum().backward()                     # a float32 gradient cast to float16
        z = T.tensor([1.0, 2.0], requires_grad=True)
        z.grad_dtype = None
        captured = T.autograd.grad(ToDouble.apply(z).sum(), z)[0]
        return [grad_of(False), grad_of(None), grad_of(T.float16), grad_of(None, set_after_recording=True),
                str(y.grad.dtype), y.grad, str(captured.dtype)]
    got = both(s)
    assert got[:5] == [["torch.float32", "torch.float32"], ["torch.float64", "torch.float64"],
                       ["torch.float16", "torch.float16"], ["torch.float64", "torch.float64"], "torch.float16"]
    np.testing.assert_allclose(got[5], [2.0, 2.0])
    assert got[6] == "torch.float64"


def test_accumulation_into_an_existing_grad_keeps_its_dtype():
    def s(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        x.grad_dtype = None
        x.grad = T.tensor([1.0, 1.0], dtype=T.float64)
        (x * 3).sum().backward()
        return [str(x.grad.dtype), x.grad]
    dtype, values = both(s)
    assert dtype == "torch.float64"
    np.testing.assert_allclose(values, [4.0, 4.0])


# --- small engine internals torch exposes ------------------------------------------------------
def test_current_graph_task_keep_graph_follows_retain_graph():
    def s(T):
        seen = []
        x = T.ones(2, requires_grad=True)
        x.register_hook(lambda g: seen.append(T._C._autograd._get_current_graph_task_keep_graph()))
        (x * 2).sum().backward(retain_graph=True)
        (x * 2).sum().backward()
        T.autograd.grad((x * 2).sum(), x)
        T.autograd.grad((x * 2).sum(), x, create_graph=True)   # retain_graph defaults to create_graph
        return seen + [T._C._autograd._get_current_graph_task_keep_graph()]   # outside backward: True
    assert both(s) == [True, False, False, True, True]


def test_set_sequence_nr_changes_which_ready_node_runs_first():
    def s(T):
        x, y, z = (T.ones(2, requires_grad=True) for _ in range(3))
        a, b = x + y, y + z
        c = a + b
        order = []
        for name, t in (("a", a), ("b", b), ("c", c)):
            t.register_hook(lambda g, name=name: order.append(name))
        a.grad_fn._set_sequence_nr(100)     # a, recorded first, now runs before b
        b.grad_fn._set_sequence_nr(99)
        c.grad_fn._set_sequence_nr(98)
        numbers = [t.grad_fn._sequence_nr() for t in (a, b, c)]
        c.sum().backward()
        return [numbers, order]
    assert both(s) == [[100, 99, 98], ["c", "a", "b"]]
    assert same_error(lambda T: (T.ones(1, requires_grad=True) * 2).grad_fn._set_sequence_nr(-1),
                      OverflowError) == "can't convert negative int to unsigned"


def test_calculate_shape_names_the_shapes_a_mismatch_error_shows():
    def s(T):
        out, g = T.randn(4, 3), T.randn(2, 4, 3)
        plain = T.autograd._calculate_shape(out, g[0], False)
        batched = T.autograd._calculate_shape(out, g, True)
        return [list(map(list, plain)), list(map(list, batched))]
    assert both(s) == [[[4, 3], [4, 3]], [[4, 3], [4, 3]]]
    nested = ndgrad.nested.as_nested_tensor([ndgrad.randn(2, 3), ndgrad.randn(4, 3)])
    out_shape, grad_shape = ndgrad.autograd._calculate_shape(nested, nested, False)
    assert out_shape.tolist() == [[2, 3], [4, 3]] and grad_shape.tolist() == [[2, 3], [4, 3]]
    with pytest.raises(RuntimeError, match="Batched grads are not supported with Nested Tensor."):
        ndgrad.autograd._calculate_shape(nested, nested, True)


def test_volatile_is_gone_and_says_so():
    x = ndgrad.randn(2)
    with pytest.warns(UserWarning, match=r"volatile was removed \(Variable.volatile is always False\)"):
        assert x.volatile is False
    with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
        x.volatile = True
    with pytest.warns(UserWarning):
        assert x.volatile is False
