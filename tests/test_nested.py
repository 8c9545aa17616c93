"""Nested tensors beyond single ops (those are in op_db/nested.py): storage and metadata, leaves whose
.grad is nested, double backward of nested linear, printing, jagged narrow, and torch's errors."""
import re

import numpy as np
import pytest

import ndgrad
from parity import both, err, parity, same_error


def components(T):
    a = T.tensor([[0.2, -0.5, 1.5], [0.7, 1.0, -2.0]], dtype=T.float64, requires_grad=True)
    b = T.tensor([[0.3, 0.4, 0.9]], dtype=T.float64, requires_grad=True)
    return a, b


def jagged(T):
    v = T.tensor([[0.2, -0.5], [0.7, 1.0], [0.3, 0.4]], dtype=T.float64, requires_grad=True)
    return v, T.nested.nested_tensor_from_jagged(v, T.tensor([0, 2, 3]))


def test_strided_metadata():
    def scenario(T):
        nt = T.nested.as_nested_tensor(list(components(T)))
        return [nt.is_nested, str(nt.layout), str(nt.dtype), nt.dim(), nt.numel(), nt.requires_grad, nt.is_leaf,
                nt.size(0), nt._nested_tensor_size(), nt._nested_tensor_strides(), nt.values(),
                list(nt.unbind()), components(T)[0].is_nested]
    parity(scenario)


def test_jagged_metadata_and_views():
    def scenario(T):
        v, nt = jagged(T)
        return [str(nt.layout), nt.offsets(), nt.lengths(), nt.dim(), nt.size(0), nt.size(2), str(nt.shape[1])[0],
                nt._base is v, nt.values()._base is v, list(nt.unbind()), nt.to_padded_tensor(-1.0)]
    parity(scenario)


def test_leaf_nested_tensor_accumulates_a_nested_grad():
    def scenario(T):
        a, b = components(T)
        x = T.nested.nested_tensor([a, b], requires_grad=True)
        w = T.nested.nested_tensor([[[1.0, 2.0], [0.5, 0.0], [3.0, -1.0]], [[2.0], [1.0], [0.5]]],
                                   dtype=T.float64, requires_grad=True)
        T.nested.to_padded_tensor(T.matmul(x, w), 0.0).sum().backward()
        return [x.is_leaf, x.grad.is_nested, str(x.grad.layout), list(x.grad.unbind()), a.grad,
                w.is_leaf, w.grad_fn.name()]   # from Python lists: not a leaf (as torch)
    first = both(scenario)
    # a second backward adds into the nested .grad (torch 2.13 fails there: "NestedTensorImpl doesn't support
    # strides", an internal error)
    a, b = components(ndgrad)
    x = ndgrad.nested.nested_tensor([a, b], requires_grad=True)
    for _ in range(2):
        (x * x).to_padded_tensor(0.0).sum().backward()
    assert [g.tolist() for g in x.grad.unbind()] == [(4 * c).tolist() for c in (a.detach(), b.detach())]
    assert first[4] is None and first[5] is False


def test_linear_double_backward_graph():
    def scenario(T):
        T.manual_seed(0)
        a, b = components(T)
        x = T.nested.as_nested_tensor([a, b])
        w = T.tensor([[0.1, -0.2, 0.3], [0.5, 0.4, -0.6]], dtype=T.float64, requires_grad=True)
        y = T.nn.functional.linear(x, w)
        v = T.ones_like(y, requires_grad=True)
        g, = T.autograd.grad(y, x, v, create_graph=True)
        return [y.grad_fn.name(), g.grad_fn.name(), [n.name() if n else None for n, _ in g.grad_fn.next_functions],
                list(g.unbind()), v.is_nested, list(v.unbind())]
    parity(scenario)


def test_unbind_gradients_into_components():
    def scenario(T):
        a, b = components(T)
        parts = T.nested.as_nested_tensor([a, b]).unbind()
        (parts[1] * 3).sum().backward()
        return [parts[0].grad_fn.name(), a.grad, b.grad]
    parity(scenario)


def test_jagged_narrow():
    def scenario(T):
        x = T.arange(24, dtype=T.float64).reshape(2, 4, 3).requires_grad_()
        nt = T.nested.narrow(x, 1, T.tensor([0, 1]), T.tensor([2, 3]), layout=T.jagged)
        parts = nt.unbind()
        (parts[0].sum() + 2 * parts[1].sum()).backward()
        return [nt.grad_fn.name(), nt._base is x, nt.is_contiguous(), nt.values().shape[0], nt.lengths(),
                list(parts), x.grad]
    parity(scenario)


def test_repr_strided():
    def scenario(T):
        a, b = components(T)
        return [repr(T.nested.as_nested_tensor([a, b])), repr(T.nested.nested_tensor([[1.0, 2.0], [3.0]])),
                repr(T.nested.nested_tensor([a, b], requires_grad=True))]
    parity(scenario)


def test_repr_jagged():
    _, nt = jagged(ndgrad)
    text = re.sub(r" object at 0x[0-9a-f]+", "", repr(nt))
    assert re.fullmatch(r"NestedTensor\(size=\(2, j\d+, 2\), offsets=tensor\(\[0, 2, 3\]\), "
                        r"grad_fn=<NestedViewFromJaggedBackward0>, contiguous=True\)", text), text


def test_errors():
    def comps(T):
        return [T.ones(2, 3, dtype=T.float64), T.ones(3, dtype=T.float64)]
    same_error(lambda T: T.nested.as_nested_tensor(comps(T)))
    nt = lambda T: T.nested.as_nested_tensor([T.ones(2, 3, dtype=T.float64), T.ones(1, 3, dtype=T.float64)])  # noqa
    same_error(lambda T: T.matmul(nt(T), T.ones(3, 2, dtype=T.float64)))
    same_error(lambda T: T.matmul(T.ones(3, 2, dtype=T.float64), nt(T)))
    same_error(lambda T: T.matmul(nt(T), T.nested.as_nested_tensor([T.ones(3, 2, dtype=T.float64)])))
    same_error(lambda T: T.nn.functional.linear(nt(T), T.ones(2, 4, dtype=T.float64)))
    same_error(lambda T: T.nested.to_padded_tensor(nt(T), 0.0, (2, 1, 3)))
    same_error(lambda T: T._nested_tensor_from_mask(T.ones(2, 2, 2), T.tensor([[True, False], [False, True]])))
    same_error(lambda T: T.nested.narrow(T.ones(2, 2, 3), 1, 0, 1, layout=T.strided))
    same_error(lambda T: T.nested.narrow(T.ones(2, 2, 3), 1, T.tensor([0, 1]), T.tensor([1, 1])))
    nj = lambda T: T.nested.nested_tensor_from_jagged(T.ones(3, 2), T.tensor([0, 2, 3]))  # noqa
    same_error(lambda T: nt(T).unbind(1))
    same_error(lambda T: nj(T).unbind(1))
    same_error(lambda T: T.ones(2).offsets(), AttributeError)
    same_error(lambda T: nt(T).lengths(), AttributeError)
    same_error(lambda T: T.nested.as_nested_tensor(T.ones(3)))
    same_error(lambda T: T.nested.as_nested_tensor(nt(T), layout=T.jagged))
    same_error(lambda T: T.nested.nested_tensor_from_jagged(T.ones(3, 2)))
    x = ndgrad.ones(2, 4, 3)
    holes = ndgrad.nested.narrow(x, 1, ndgrad.tensor([0, 1]), ndgrad.tensor([2, 1]), layout=ndgrad.jagged)
    msg = "to_padded_tensor(): not supported for nested tensors with holes"
    try:
        holes.to_padded_tensor(0.0)
        raise AssertionError("no error")
    except RuntimeError as e:
        assert str(e) == msg


def test_unsupported_ops_raise_torch_not_implemented():
    # torch's message goes on about its build; the first sentence is the same
    for op in (lambda nt: nt.exp(), lambda nt: nt.sum()):
        with pytest.raises(NotImplementedError, match=r"Could not run 'aten::(exp|sum)' with arguments from the "
                                                      r"'NestedTensorCPU' backend\."):
            op(ndgrad.nested.as_nested_tensor([ndgrad.ones(2, 3), ndgrad.ones(1, 3)]))


def test_jagged_pointwise():
    def scenario(T):
        v, nt = jagged(T)
        out = (nt.exp() * 2 - nt).values()
        out.sum().backward()
        return [out, v.grad]
    parity(scenario)


def test_gradients_match_padded_dense_computation():
    # the nested matmul's gradient equals the one of the per-component dense products
    rng = np.random.default_rng(0)
    a, c = rng.standard_normal((2, 3)), rng.standard_normal((3, 2))
    x = ndgrad.tensor(a, requires_grad=True)
    w = ndgrad.tensor(c, requires_grad=True)
    y = ndgrad.matmul(ndgrad.nested.as_nested_tensor([x]), ndgrad.nested.as_nested_tensor([w]))
    y.to_padded_tensor(0.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones((2, 2)) @ c.T)
    np.testing.assert_allclose(w.grad.numpy(), a.T @ np.ones((2, 2)))


# --- per-dispatch-key formulas (derivatives.yaml `dispatch:`): the nested ones and what they save ----

def test_nested_formulas_of_an_op_with_per_key_formulas():
    def scenario(T):
        a = T.arange(6, dtype=T.float32).reshape(2, 3).requires_grad_(True)
        b = T.arange(8, dtype=T.float32).reshape(2, 4).requires_grad_(True)
        out = T._test_autograd_multiple_dispatch(T.nested.as_nested_tensor([a, b]))
        c, d = T.arange(6.0).reshape(2, 3) - 2, T.arange(8.0).reshape(2, 4) / 3
        out.backward(T.nested.nested_tensor([c, d]))
        t = T.ones(2, 2, requires_grad=True)
        dense = T._test_autograd_multiple_dispatch(t)
        dense.backward(T.full((2, 2), 3.0))
        return out.grad_fn.name(), a.grad, b.grad, dense.grad_fn.name(), t.grad
    name, ga, gb, dense_name, gt = both(scenario)
    # the table's deliberately odd formulas: grad * grad for nested inputs, grad + 1 otherwise
    assert name == "TestAutogradMultipleDispatchBackwardAutogradNestedTensor0"
    assert ga.tolist() == [[4.0, 1.0, 0.0], [1.0, 4.0, 9.0]] and gb.tolist()[1][0] == pytest.approx(16 / 9)
    assert dense_name == "TestAutogradMultipleDispatchBackward0" and gt.tolist() == [[4.0, 4.0], [4.0, 4.0]]


def test_nested_sum_over_the_last_dim_saves_its_input():
    def scenario(T):
        nt = T.nested.nested_tensor([T.tensor([1.0, 2.0]), T.tensor([3.0, 4.0, 5.0])], requires_grad=True)
        x = nt.clone()
        out = x.sum(-1, keepdim=True)
        node = out.grad_fn
        saved = [n for n in ("_saved_self", "_saved_self_sym_sizes") if hasattr(node, n)]
        out.backward(T.nested.nested_tensor([T.tensor([2.0]), T.tensor([3.0])]))
        x = nt.clone()
        res = x.sum(-1, keepdim=True)
        x.add_(x)   # nested: sum saved x, so its backward refuses
        e = err(lambda: res.backward(T.nested.nested_tensor([T.tensor([1.0]), T.tensor([1.0])])))
        d = T.tensor([1.0, 2.0], requires_grad=True).clone()
        dres = d.sum(-1, keepdim=True)
        d.add_(d)   # dense: sum saved only the sizes
        dres.backward()
        return (node.name(), saved, [c.tolist() for c in out.unbind()], [g.tolist() for g in nt.grad.unbind()],
                e[0], "modified by an inplace operation" in e[1])
    assert both(scenario) == ["SumBackwardAutogradNestedTensor1", ["_saved_self"], [[3.0], [12.0]],
                              [[2.0, 2.0], [3.0, 3.0, 3.0]], "RuntimeError", True]


@pytest.mark.parametrize("call", [lambda x: x.sum(0, keepdim=True), lambda x: x.sum(-1),
                                  lambda x: x.sum((0, 1), keepdim=True)])
def test_nested_sum_refuses_what_torchs_kernel_refuses(call):
    same_error(lambda T: call(T.nested.nested_tensor([T.ones(2), T.ones(3)])))
