"""torch's private ops with per-dispatch-key formulas (derivatives.yaml `dispatch:`), as torch 2.13
records them: _test_autograd_multiple_dispatch (fullcoverage: Default and AutogradNestedTensor
formulas; ntonly: nested formulas only, a clone for other inputs), _test_autograd_multiple_dispatch_view
and its *_copy form (the view's formulas under the view's node name with a suffix)."""
import pytest

import ndgrad
from ndgrad.derivatives import ENTRIES
from ndgrad.ops.creation import _test_autograd_multiple_dispatch_ntonly
from parity import both, err, same_error

VIEW = "_test_autograd_multiple_dispatch_view"


def nested_leaves(T):
    a = T.arange(6, dtype=T.float32).reshape(2, 3).requires_grad_(True)
    b = T.arange(8, dtype=T.float32).reshape(2, 4).requires_grad_(True)
    return a, b


def test_ntonly_is_a_clone_for_dense_inputs():
    def scenario(T):
        t = T.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
        outs = [T._test_autograd_multiple_dispatch(t, b) for b in (True, False)]
        sum(o * k for o, k in zip(outs, (1.0, 2.0))).backward(T.tensor([[1.0, 2.0], [3.0, 4.0]]))
        return ([o.grad_fn.name() for o in outs], [o.grad_fn.next_functions[0][0].name() for o in outs],
                outs[0], outs[0].data_ptr() == t.data_ptr(), t.grad)
    names, nexts, out, shared, grad = both(scenario)
    assert names == ["CloneBackward0", "CloneBackward0"] and nexts == ["torch::autograd::AccumulateGrad"] * 2
    assert out.tolist() == [[1.0, -2.0], [0.5, 3.0]] and shared is False
    assert grad.tolist() == [[3.0, 6.0], [9.0, 12.0]]   # the plain gradient: clone's


def test_ntonly_records_its_nested_formula():
    def scenario(T):
        a, b = nested_leaves(T)
        nt = T.nested.as_nested_tensor([a, b])
        out = T._test_autograd_multiple_dispatch(nt, True)
        c, d = T.arange(6.0).reshape(2, 3) - 2, T.full((2, 4), 0.5)
        out.backward(T.nested.nested_tensor([c, d]))
        return (out.grad_fn.name(), out.grad_fn.next_functions[0][0].name(), list(out.unbind()), a.grad, b.grad,
                T._test_autograd_multiple_dispatch(T.nested.as_nested_tensor([a, b]), False).grad_fn.name())
    name, nxt, values, ga, gb, name_false = both(scenario)
    # the second entry of the base name (after fullcoverage): index 1, whatever `b` says
    assert name == name_false == "TestAutogradMultipleDispatchBackwardAutogradNestedTensor1"
    assert nxt == "NestedTensorFromTensorListBackward0"
    assert values[0].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert ga.tolist() == [[2.0, 0.0, 0.0], [2.0, 6.0, 12.0]]   # grad * grad + grad
    assert gb.tolist() == [[0.75] * 4] * 2


def test_fullcoverage_keeps_its_formulas_per_key():
    def scenario(T):
        a, b = nested_leaves(T)
        out = T._test_autograd_multiple_dispatch(T.nested.as_nested_tensor([a, b]))
        out.backward(T.nested.nested_tensor([T.full((2, 3), 3.0), T.full((2, 4), -1.0)]))
        t = T.zeros(2, 2, requires_grad=True)
        dense = T._test_autograd_multiple_dispatch(t)
        dense.backward(T.full((2, 2), 2.0))
        return out.grad_fn.name(), a.grad, b.grad, dense.grad_fn.name(), t.grad
    name, ga, gb, dense_name, gt = both(scenario)
    assert name == "TestAutogradMultipleDispatchBackwardAutogradNestedTensor0"
    assert ga.tolist() == [[9.0] * 3] * 2 and gb.tolist() == [[1.0] * 4] * 2
    assert dense_name == "TestAutogradMultipleDispatchBackward0" and gt.tolist() == [[3.0, 3.0], [3.0, 3.0]]


def test_overloads_refuse_a_bad_b():
    msg = same_error(lambda T: T._test_autograd_multiple_dispatch(T.ones(2), 1), TypeError)
    assert msg == "_test_autograd_multiple_dispatch(): argument 'b' (position 2) must be bool, not int"


def test_ntonly_without_its_nested_formula_has_no_derivative_of_its_own():
    # the op itself (not the public function, which clones dense inputs) has no Default formula
    x = ndgrad.ones(2, requires_grad=True)
    with pytest.raises(NotImplementedError, match="derivative for '_test_autograd_multiple_dispatch.ntonly'"):
        _test_autograd_multiple_dispatch_ntonly(x, True)


def test_view_copy_matches_the_view_but_owns_its_memory():
    def scenario(T):
        t = T.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
        t_ref = t.detach().clone().requires_grad_()
        view = getattr(T, VIEW)(t_ref)
        copy = getattr(T, VIEW + "_copy")(t)
        node = copy.grad_fn
        saves_t, view_saves_t = node._saved_self is t, view.grad_fn._saved_self is t_ref
        g = T.tensor([0.25, -1.0, 2.0, 4.0])
        copy.backward(g)
        view.backward(g.clone())
        return (node.name(), type(node).__name__, view.grad_fn.name(), copy, view, t.grad, t_ref.grad,
                copy._is_view(), copy.data_ptr() == t.data_ptr(), view._base is t_ref, copy.stride(),
                [hasattr(n, "_saved_self_sym_sizes") for n in (node, view.grad_fn)], saves_t,
                view_saves_t)
    (name, cls, view_name, copy, view, grad, grad_ref, is_view, shared, view_of, stride, sizes, saves_t,
     view_saves_t) = both(scenario)
    assert name == cls == "TestAutogradMultipleDispatchViewBackward0_copy"
    assert view_name == "TestAutogradMultipleDispatchViewBackward0"
    assert copy.tolist() == view.tolist() == [1.0, -2.0, 0.5, 3.0]
    assert grad.tolist() == grad_ref.tolist() == [[0.25, -1.0], [2.0, 4.0]]   # Default: grad reshaped as self
    assert (is_view, shared, view_of, stride) == (False, False, True, [1])
    assert sizes == [False, False] and saves_t is view_saves_t is True   # self saved whole, no sizes beside it


def test_view_copy_writes_do_not_reach_the_input_and_it_saves_the_input():
    def scenario(T):
        x = T.zeros(2, 2)
        c = getattr(T, VIEW + "_copy")(x)
        c.add_(1.0)
        t = T.ones(2, 2, requires_grad=True)
        y = t.clone()
        out = getattr(T, VIEW + "_copy")(y)
        y.mul_(2)   # the input is saved whole: its backward refuses
        return x, c, err(lambda: out.sum().backward())[0], getattr(T, VIEW + "_copy")(T.tensor(3.0)).shape
    x, c, e, shape0 = both(scenario)
    assert x.tolist() == [[0.0, 0.0], [0.0, 0.0]] and c.tolist() == [1.0] * 4
    assert e == "RuntimeError" and list(shape0) == [1]


@pytest.mark.parametrize("name", [VIEW, VIEW + "_copy"])
def test_view_and_view_copy_refuse_what_view_refuses(name):
    msg = same_error(lambda T: getattr(T, name)(T.arange(6.0).reshape(2, 3).t()))
    assert msg.startswith("view size is not compatible with input tensor's size and stride")


@pytest.mark.parametrize("name", [VIEW, VIEW + "_copy"])
def test_view_and_view_copy_have_no_forward_ad(name):
    def call(T):
        with T.autograd.forward_ad.dual_level():
            getattr(T, name)(T.autograd.forward_ad.make_dual(T.ones(2, 2), T.ones(2, 2)))
    msg = same_error(call, NotImplementedError)
    assert msg.startswith(f"Trying to use forward AD with {name} that does not support it")


def test_view_copy_double_backward_and_out():
    def scenario(T):
        t = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        g = T.tensor([1.0, -1.0, 0.5, 2.0], requires_grad=True)
        gi, = T.autograd.grad(getattr(T, VIEW + "_copy")(t), t, g, create_graph=True)
        (gi * T.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
        o = T.empty(4)
        r = getattr(T, VIEW + "_copy")(T.ones(2, 2), out=o)
        return gi.grad_fn.name(), g.grad, r is o, o
    name, gg, same, o = both(scenario)
    assert name == "ViewBackward0" and gg.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert same is True and o.tolist() == [1.0] * 4


def test_dispatch_without_default_takes_its_index():
    # ntonly's nested node follows fullcoverage's in the base name's numbering, with no node of its own
    assert "_test_autograd_multiple_dispatch.ntonly" not in ENTRIES
    assert ENTRIES["_test_autograd_multiple_dispatch.ntonly@AutogradNestedTensor"].node_cls.__name__ == \
        "TestAutogradMultipleDispatchBackwardAutogradNestedTensor1"
    assert ENTRIES["_test_autograd_multiple_dispatch.fullcoverage"].node_cls.__name__ == \
        "TestAutogradMultipleDispatchBackward0"


def test_aten_ntonly_is_the_composite_for_dense_inputs_and_modes_see_what_runs():
    def scenario(T):
        from_mode = []

        class Log(T.utils._python_dispatch.TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                from_mode.append(str(func))
                return func(*args, **(kwargs or {}))
        x = T.ones(2, requires_grad=True)
        a, b = nested_leaves(T)
        nt = T.nested.as_nested_tensor([a, b])
        overload = T.ops.aten._test_autograd_multiple_dispatch.ntonly
        names = [overload(x, True).grad_fn.name(), overload(nt, True).grad_fn.name()]
        with Log():
            T._test_autograd_multiple_dispatch(x, True)
            T._test_autograd_multiple_dispatch(nt, True)
            T._test_autograd_multiple_dispatch_view_copy(x)
        # (torch's mode also sees the nested output's _nested_tensor_size, a nested tensors' matter)
        return names, [f for f in from_mode if "multiple_dispatch" in f or "clone" in f]
    names, from_mode = both(scenario)
    assert names == ["CloneBackward0", "TestAutogradMultipleDispatchBackwardAutogradNestedTensor1"]
    assert from_mode == ["aten.clone.default", "aten._test_autograd_multiple_dispatch.ntonly",
                         "aten._test_autograd_multiple_dispatch_view_copy.default"]
