"""Tensor[...] reads and writes, and the indexing ops: values, gradients, recorded nodes, views and errors.

Each scenario is written once against the torch API and runs on ndgrad; where torch is installed it runs
on torch too and the results (values, gradients, node names, errors) must agree. Gradient checks of every
op form are in the registry (op_db/indexing.py, run by test_ops.py).
"""
import warnings

import numpy as np
import pytest

import ndgrad

from parity import both, err, parity, same_error


def x34(T, requires_grad=True):
    return T.tensor(np.arange(12.0).reshape(3, 4), requires_grad=requires_grad)


def chain(t):
    """Node names from t's grad_fn down its first edges (the view chain indexing recorded)."""
    names, fn = [], t.grad_fn
    while fn is not None and fn.name() != "torch::autograd::AccumulateGrad":
        names.append(fn.name())
        fn = fn.next_functions[0][0]
    return names


def grads_of(T, make, index):
    """Value of x[index] and x's gradient for a fixed upstream gradient."""
    x = make(T)
    y = x[index(T)]
    w = T.arange(y.numel(), dtype=T.float64).reshape(y.shape) + 1
    (y * w).sum().backward()
    return [y, x.grad, chain(y)]


# ---- reading --------------------------------------------------------------------------------
GETITEM = {
    "int": lambda T: 1,
    "negative_int": lambda T: -2,
    "slice": lambda T: slice(1, None),
    "lone_full_slice": lambda T: slice(None),
    "step": lambda T: (slice(None), slice(None, None, 3)),
    "int_slice": lambda T: (0, slice(1, 3)),
    "none_int": lambda T: (None, 1),
    "ellipsis": lambda T: Ellipsis,
    "two_ellipses": lambda T: (Ellipsis, 0, Ellipsis),
    "repeated_list": lambda T: [2, 0, 2, 2],
    "list_pair": lambda T: ([0, 2, 0], [1, 1, 1]),
    "column_list": lambda T: (slice(None), [3, 3, 0]),
    "mask": lambda T: T.arange(12).reshape(3, 4) % 3 == 0,
    "row_mask": lambda T: T.tensor([True, False, True]),
    "uint8_mask": lambda T: T.tensor([1, 0, 1], dtype=T.uint8),
    "true": lambda T: True,
    "false_none": lambda T: (False, None),
    "tensor_0d": lambda T: (T.tensor(1), T.tensor(-1)),
    "numpy_ints": lambda T: (np.int64(1), np.array([0, 3])),
    "list_as_tuple": lambda T: [slice(None), 2],
    "range": lambda T: (range(1, 3), range(2)),
}


@pytest.mark.parametrize("name", GETITEM)
def test_getitem_matches_torch(name):
    parity(lambda T: grads_of(T, x34, GETITEM[name]))


def test_basic_indexing_records_one_view_node_per_entry():
    assert both(lambda T: chain(x34(T)[1, None, 1:3])) == ["SliceBackward0", "UnsqueezeBackward0",
                                                           "SelectBackward0"]
    assert both(lambda T: chain(x34(T)[:, :])) == ["AliasBackward0"]
    assert both(lambda T: chain(x34(T)[...])) == ["AliasBackward0"]
    assert both(lambda T: chain(x34(T)[:])) == ["SliceBackward0"]
    assert both(lambda T: chain(x34(T)[:, 1])) == ["SelectBackward0"]


def test_advanced_indexing_ends_the_chain_with_one_index_node():
    assert both(lambda T: chain(x34(T)[1, [0, 1]])) == ["IndexBackward0", "SelectBackward0"]
    assert both(lambda T: chain(x34(T)[[0, 1]])) == ["IndexBackward0"]


def test_repeated_indices_accumulate_their_gradients():
    x = ndgrad.zeros(3, dtype=ndgrad.float64, requires_grad=True)
    x[[0, 0, 2, 0]].sum().backward()
    assert x.grad.tolist() == [3.0, 0.0, 1.0]


def test_basic_index_results_are_views():
    x = ndgrad.zeros(3, 4)
    for v in (x[1], x[:, 1:3], x[None], x[...], x[1, 2]):
        assert v._base is x
        assert np.shares_memory(v.numpy(), x.numpy())
    row = x[1]
    row.add_(1)   # writes through and bumps the shared version counter
    assert x.sum().item() == 4 and x._version == row._version == 1
    assert x[1, ::2].stride() == (2,) and x[1, ::2].storage_offset() == 4


def test_advanced_index_results_are_copies():
    x = ndgrad.zeros(3, 4)
    y = x[[1, 2]]
    assert y._base is None and not np.shares_memory(y.numpy(), x.numpy())


def test_view_of_0d_result_stays_a_view():
    x = ndgrad.zeros(3)
    e = x[1]
    e.add_(5)
    assert x.tolist() == [0.0, 5.0, 0.0]


def test_double_backward_through_select_and_slice():
    def run(T):
        x = x34(T)
        y = x[1:, ::2][0]
        v = T.ones_like(y, requires_grad=True)
        g, = T.autograd.grad(y, x, v, create_graph=True)
        (gg,) = T.autograd.grad((g * g).sum(), v)
        return [g, gg, g.grad_fn.name()]
    assert both(run)[2] == "SliceBackwardBackward0"


# ---- writing --------------------------------------------------------------------------------
def written(T, index, value, requires_grad=True):
    """y = x * 1; y[index] = value; the result, both gradients and the nodes recorded."""
    x = x34(T)
    v = value(T)
    y = x * 1
    y[index(T)] = v
    w = T.arange(12, dtype=T.float64).reshape(3, 4) + 1
    (y * w).sum().backward()
    edges = [fn.name() if fn is not None else None for fn, _ in y.grad_fn.next_functions]
    out = [y, x.grad, y.grad_fn.name(), edges]
    if isinstance(v, T.Tensor) and v.requires_grad:
        out.append(v.grad)
    return out


def val(*shape):
    return lambda T: (T.arange(int(np.prod(shape)), dtype=T.float64).reshape(shape) - 7).requires_grad_()


SETITEM = {
    "int_row": (lambda T: 1, val(4)),
    "int_scalar": (lambda T: 0, lambda T: 5.0),
    "int_slice_broadcast": (lambda T: (0, slice(1, None)), val(1)),
    "leading_ones": (lambda T: 2, val(1, 1, 4)),
    "rows_broadcast": (lambda T: slice(None, 2), val(4)),
    "0d_value": (lambda T: (1, 1), val()),
    "0d_value_into_rows": (lambda T: slice(1, None), val()),
    "ellipsis_scalar": (lambda T: (slice(None), Ellipsis, 1), lambda T: 2.5),
    "list": (lambda T: [2, 0], val(2, 4)),
    "list_scalar": (lambda T: [0, 2], lambda T: -1),
    "list_broadcast_leading_one": (lambda T: (slice(None), [0, 3]), val(1, 2)),
    "mask": (lambda T: T.arange(12).reshape(3, 4) % 5 == 0, val(3)),
    "mask_scalar": (lambda T: T.tensor([True, False, True]), lambda T: 2.0),
    "int_then_list": (lambda T: (1, [0, 2]), val(2)),
    "none": (lambda T: None, val(4)),
    "true": (lambda T: True, lambda T: 3.0),
}


@pytest.mark.parametrize("name", SETITEM)
def test_setitem_matches_torch(name):
    index, value = SETITEM[name]
    parity(lambda T: written(T, index, value))


def test_setitem_through_a_view_records_copy_slices():
    def run(T):
        x, z = x34(T), T.tensor([10.0, 20.0, 30.0], dtype=T.float64, requires_grad=True)
        y = x * 1
        y[0, 1:] = z
        (y * y).sum().backward()
        return [y.grad_fn.name(), x.grad, z.grad]
    assert both(run)[0] == "torch::autograd::CopySlices"


def test_inplace_op_on_an_indexed_view_matches_torch():
    def run(T):
        x = x34(T)
        y = x * 1
        y[1].mul_(5)
        (y * y).sum().backward()
        return [y, y.grad_fn.name(), x.grad, y[1].grad_fn.name()]
    assert both(run)[1] == "torch::autograd::CopySlices"


def test_setitem_of_a_0d_value_fills():
    def run(T):
        y = x34(T) * 1
        y[...] = T.tensor(2.0, dtype=T.float64, requires_grad=True)
        z = x34(T) * 1
        z[1:] = 3.0
        return [y.grad_fn.name(), z.grad_fn.name(), z]
    assert both(run)[0] == "FillBackward3"


def test_setitem_value_gets_its_view_and_expand_nodes():
    def run(T):
        x, z = x34(T), T.ones(1, 3, dtype=T.float64, requires_grad=True)
        y = x * 1
        y[:, 1:] = z
        value_edge = y.grad_fn.next_functions[1][0]
        return [value_edge.name(), value_edge.next_functions[0][0].name()]
    assert both(run) == ["ExpandBackward0", "ViewBackward0"]


def test_setitem_on_a_leaf_that_requires_grad_is_refused():
    same_error(lambda T: x34(T).__setitem__(0, 1.0), RuntimeError)
    same_error(lambda T: x34(T).__setitem__([0], 1.0), RuntimeError)


def test_setitem_on_a_leaf_without_grad_mode_just_writes():
    def run(T):
        x = x34(T)
        with T.no_grad():
            x[0, 1:] = 0
            x[[2, 2], [0, 1]] = T.tensor([7.0, 8.0], dtype=T.float64)
        return [x, x.requires_grad, x.grad_fn is None]
    parity(run)


def test_setitem_of_a_constant_with_a_value_that_requires_grad():
    def run(T):
        v = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
        y = T.zeros(2, 3, dtype=T.float64)
        y[1, 1:] = v
        (y * 3).sum().backward()
        return [y, y.requires_grad, y.grad_fn.name(), v.grad]
    parity(run)


def test_setitem_bumps_the_version_and_invalidates_saved_tensors():
    def run(T):
        x = x34(T)
        y = x * 1
        z = y.exp()          # saves its result
        z[0] = 1.0
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.sum().backward()
        return z._version
    assert both(run) == 1


def test_setitem_casts_scalars_and_basic_values_to_the_tensor_dtype():
    def run(T):
        y = T.zeros(3, dtype=T.int64)
        y[0] = 2.7
        y[1:] = T.tensor([1.5, -2.5], dtype=T.float64)
        y[[0]] = True
        return y
    parity(run)


# ---- the ops ----------------------------------------------------------------------------------
def test_index_put_accumulates_repeated_indices():
    parity(lambda T: T.zeros(3, dtype=T.float64).index_put((T.tensor([0, 0, 2]),), T.tensor([1.0, 2.0, 3.0],
                                                                                         dtype=T.float64), True))


def test_scatter_reduce_forms():
    def run(T):
        x, i = T.ones(2, 3, dtype=T.float64), T.tensor([[0, 1, 0], [0, 0, 0]])
        src = T.arange(2, 8, dtype=T.float64).reshape(2, 3)
        return [x.scatter(0, i, src, reduce="add"), x.scatter(0, i, src, reduce="multiply"),
                x.scatter(1, i, 2.0, reduce="multiply")]
    parity(run)


@pytest.mark.filterwarnings("ignore:The reduce argument")
def test_scatter_with_reduce_records_a_node_whose_backward_refuses():
    # torch has no derivative for scatter(reduce=): a NotImplemented node, raising in backward and
    # naming the in-place op where that ran
    def scenario(T):
        x = T.ones(2, 3, dtype=T.float64, requires_grad=True)
        i, src = T.tensor([[0, 1, 0]]), T.full((1, 3), 2.0, dtype=T.float64, requires_grad=True)
        out = []
        for y in (x.scatter(0, i, src, reduce="add"), x.clone().scatter_(0, i, src, reduce="multiply"),
                  x.clone().scatter_(1, i, 3.0, reduce="add"), T.scatter(x, 0, i, 3.0, reduce="multiply")):
            out += [y.detach(), y.grad_fn.name(), err(lambda: y.sum().backward())]
        return out
    r = both(scenario)
    assert r[1] == "torch::autograd::NotImplemented"
    assert r[2][1] == "derivative for aten::scatter is not implemented"
    assert r[5][1] == "derivative for aten::scatter_ is not implemented"


def test_scatter_reduce_with_tensor_src_warns_once(monkeypatch):
    monkeypatch.setattr(ndgrad.ops.indexing, "_scatter_reduce_warned", [])
    x, i, src = ndgrad.ones(3), ndgrad.tensor([0]), ndgrad.ones(1)
    with pytest.warns(UserWarning, match="reduce argument of torch.scatter with Tensor src is deprecated") as w:
        x.scatter(0, i, src, reduce="add")
    assert w[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x.scatter(0, i, src, reduce="add")


def test_masked_fill_casts_the_value_to_the_tensor_dtype():
    parity(lambda T: [T.arange(3).masked_fill(T.tensor([True, False, True]), 2.7),
                    T.arange(3).masked_fill(T.tensor([False, True, False]), T.tensor(-1.5)),
                    T.ones(2, dtype=T.float32).masked_fill(T.tensor([True, False]), T.tensor(3.0, dtype=T.float64))])


def test_index_fill_value_gradient_counts_each_slice_once():
    parity(lambda T: (lambda v: (T.ones(3, 2, dtype=T.float64).index_fill(0, T.tensor([1, 1, 2]), v).sum().backward(),
                               v.grad)[1])(T.tensor(0.0, dtype=T.float64, requires_grad=True)))


def test_nonzero_forms():
    parity(lambda T: [T.nonzero(T.tensor([[0, 1], [2, 0]])), T.tensor([0.0, 3.0, 0.0]).nonzero(as_tuple=True),
                    T.nonzero(T.tensor(0.0)), T.nonzero(T.tensor(2.0), as_tuple=True)])


def test_in_place_forms_write_into_their_tensor():
    def run(T):
        y = T.zeros(3, 4, dtype=T.float64)
        out = [y.index_fill_(1, T.tensor([0]), 1.0) is y, y.index_add_(0, T.tensor([2]), T.ones(1, 4, dtype=T.float64))
               is y, y.masked_fill_(y > 1, -1.0) is y, y.scatter_(1, T.tensor([[3]]), 9.0) is y,
               y.put_(T.tensor([5]), T.tensor([4.0], dtype=T.float64)) is y]
        return out + [y, y._version]
    parity(run)


# ---- errors --------------------------------------------------------------------------------
@pytest.mark.parametrize("index, exc", [
    (lambda T: 3, IndexError),
    (lambda T: -4, IndexError),
    (lambda T: (0, 7), IndexError),
    (lambda T: (None, 0, 9), IndexError),
    (lambda T: (0, 0, 0), IndexError),
    (lambda T: T.tensor([3]), IndexError),
    (lambda T: T.tensor(5), IndexError),
    (lambda T: (slice(None), [4]), IndexError),
    (lambda T: ([0], slice(None), [1]), IndexError),
    (lambda T: ([0, 1], [0, 1, 2]), IndexError),
    (lambda T: T.tensor([True, False]), IndexError),
    (lambda T: (slice(None), T.ones(3, dtype=T.bool)), IndexError),
    (lambda T: T.tensor([0.0]), IndexError),
    (lambda T: T.tensor(1.0), IndexError),
    (lambda T: T.tensor([0], dtype=T.int16), IndexError),
    (lambda T: 1.5, IndexError),
    (lambda T: slice(None, None, -1), ValueError),
    (lambda T: slice(None, None, 0), ValueError),
])
def test_getitem_errors_match_torch(index, exc):
    same_error(lambda T: x34(T, False)[index(T)], exc)


def test_index_of_a_0d_tensor():
    same_error(lambda T: T.tensor(1.0)[0], IndexError)
    same_error(lambda T: T.tensor(1.0)[(0,)], IndexError)
    parity(lambda T: [T.tensor(1.0)[None], T.tensor(1.0)[...], T.tensor(1.0)[True]])


@pytest.mark.parametrize("index, value, exc", [
    (lambda T: 0, lambda T: T.ones(3), RuntimeError),
    (lambda T: [0, 1], lambda T: T.ones(3), RuntimeError),
    (lambda T: [0], lambda T: T.ones(4, dtype=T.float64), RuntimeError),
    (lambda T: [5], lambda T: 1.0, IndexError),
    (lambda T: 0, lambda T: [1.0, 2.0], TypeError),
])
def test_setitem_errors_match_torch(index, value, exc):
    same_error(lambda T: T.zeros(3, 4).__setitem__(index(T), value(T)), exc)


def test_failed_setitem_leaves_the_tensor_unchanged():
    y = ndgrad.zeros(3, 4)
    with pytest.raises(RuntimeError):
        y[0] = ndgrad.ones(3)
    with pytest.raises(RuntimeError):
        y[[0, 1]] = ndgrad.ones(3)
    assert y.sum().item() == 0 and y._version == 0


def x(T):
    return T.zeros(3, 4)


@pytest.mark.parametrize("call, exc", [
    (lambda T: x(T).index_select(2, T.tensor([0])), IndexError),
    (lambda T: x(T).index_select(0, T.tensor([3])), IndexError),
    (lambda T: x(T).index_select(0, T.tensor([-1])), IndexError),
    (lambda T: x(T).index_select(0, T.tensor([[0]])), IndexError),
    (lambda T: x(T).index_select(0, T.tensor([0.0])), RuntimeError),
    (lambda T: x(T).gather(0, T.tensor([[3]])), RuntimeError),
    (lambda T: x(T).gather(0, T.tensor([[-1]])), RuntimeError),
    (lambda T: x(T).gather(0, T.tensor([0])), RuntimeError),
    (lambda T: x(T).gather(0, T.zeros(2, 5, dtype=T.int64)), RuntimeError),
    (lambda T: x(T).gather(0, T.tensor([[0.0]])), RuntimeError),
    (lambda T: x(T).scatter(0, T.zeros(2, 5, dtype=T.int64), T.ones(2, 5)), RuntimeError),
    (lambda T: x(T).scatter(0, T.zeros(2, 3, dtype=T.int64), T.ones(1, 3)), RuntimeError),
    (lambda T: x(T).scatter(0, T.tensor([[3]]), 1.0), RuntimeError),
    (lambda T: x(T).scatter(0, T.tensor([[0]]), T.ones(1, 1, dtype=T.float64)), RuntimeError),
    (lambda T: x(T).scatter(0, T.tensor([0]), 1.0), RuntimeError),
    (lambda T: x(T).scatter(0, T.tensor([[0]]), 1.0, reduce="mean"), RuntimeError),
    (lambda T: x(T).scatter_add(0, T.tensor([[0]]), T.ones(1, 1, dtype=T.float64)), RuntimeError),
    (lambda T: x(T).masked_fill(T.ones(3, 4, dtype=T.int64), 1.0), RuntimeError),
    (lambda T: x(T).masked_fill(T.ones(5, dtype=T.bool), 1.0), RuntimeError),
    (lambda T: x(T).masked_fill_(T.ones(2, 3, 4, dtype=T.bool), 1.0), RuntimeError),
    (lambda T: x(T).masked_fill(T.ones(4, dtype=T.bool), T.tensor([1.0])), RuntimeError),
    (lambda T: x(T).masked_fill(T.ones(4, dtype=T.bool), 2j), RuntimeError),
    (lambda T: x(T).long().masked_fill(T.ones(4, dtype=T.bool), 2j), RuntimeError),
    (lambda T: x(T).masked_fill(T.ones(4, dtype=T.int32), 2.0), RuntimeError),
    (lambda T: x(T).masked_scatter(T.ones(4, dtype=T.uint8), T.ones(12)), RuntimeError),
    (lambda T: x(T).masked_select(T.ones(3, 4, dtype=T.int64)), RuntimeError),
    (lambda T: x(T).masked_select(T.ones(5, dtype=T.bool)), RuntimeError),
    (lambda T: x(T).masked_scatter(T.ones(3, 4, dtype=T.bool), T.ones(11)), RuntimeError),
    (lambda T: x(T).masked_scatter(T.ones(3, 4, dtype=T.bool), T.ones(12, dtype=T.float64)), RuntimeError),
    (lambda T: x(T).take(T.tensor([12])), IndexError),
    (lambda T: x(T).take(T.tensor([0.0])), RuntimeError),
    (lambda T: x(T).put(T.tensor([-13]), T.ones(1)), IndexError),
    (lambda T: x(T).put(T.tensor([0, 1]), T.ones(3)), IndexError),
    (lambda T: x(T).put(T.tensor([0]), T.ones(1, dtype=T.float64)), RuntimeError),
    (lambda T: x(T).index_put((T.tensor([0, 1]),), T.ones(3)), RuntimeError),
    (lambda T: x(T).index_put((T.tensor([0.0]),), T.ones(4)), IndexError),
    (lambda T: x(T).index_put((T.tensor([0]), T.tensor([0]), T.tensor([0])), T.ones(1)), IndexError),
    (lambda T: x(T).index_put((T.tensor([0]),), T.ones(4, dtype=T.float64)), RuntimeError),
    (lambda T: x(T).index_add(0, T.tensor([0, 1]), T.ones(3, 4)), RuntimeError),
    (lambda T: x(T).index_add(0, T.tensor([0]), T.ones(1, 3)), RuntimeError),
    (lambda T: x(T).index_add(0, T.tensor([3]), T.ones(1, 4)), RuntimeError),
    (lambda T: x(T).index_add(0, T.tensor([[0]]), T.ones(1, 4)), IndexError),
    (lambda T: x(T).index_add(0, T.tensor([0]), T.ones(1, 4, dtype=T.float64)), RuntimeError),
    (lambda T: x(T).index_copy(0, T.tensor([0], dtype=T.int32), T.ones(1, 4)), RuntimeError),
    (lambda T: x(T).index_copy(0, T.tensor([-1]), T.ones(1, 4)), IndexError),
    (lambda T: x(T).index_copy(0, T.tensor([0]), T.ones(2, 4)), IndexError),
    (lambda T: x(T).index_copy(0, T.tensor([0]), T.ones(1, 3)), RuntimeError),
    (lambda T: x(T).index_copy(0, T.tensor([0]), T.ones(1, 1, 3)), IndexError),
    (lambda T: x(T).index_fill(0, T.tensor([3]), 1.0), IndexError),
    (lambda T: x(T).index_fill(0, T.tensor([0], dtype=T.int32), 1.0), IndexError),
    (lambda T: x(T).index_fill(0, T.tensor([[0]]), 1.0), RuntimeError),
    (lambda T: x(T).index_fill(0, T.tensor([0]), T.tensor([1.0])), RuntimeError),
    (lambda T: x(T).select(0, 3), IndexError),
    (lambda T: T.tensor(1.0).select(0, 0), IndexError),
    (lambda T: T.select_scatter(x(T), T.ones(3), 0, 0), RuntimeError),
    (lambda T: T.slice_scatter(x(T), T.ones(3, 4), 0, 1), RuntimeError),
    (lambda T: T.take_along_dim(x(T), T.tensor([0]), 0), RuntimeError),
    (lambda T: T.take_along_dim(x(T), T.tensor([[0.0]]), 0), RuntimeError),
])
def test_op_errors_match_torch(call, exc):
    same_error(call, exc)


def test_the_gradient_of_indexing_is_an_in_place_index_put_under_create_graph():
    # found by test_fuzz: torch accumulates into fresh zeros with _index_put_impl_
    def scenario(T):
        x = T.tensor([[1.0, -2.0], [3.0, 4.0]], dtype=T.float64, requires_grad=True)
        out = x[x > 0]
        g, = T.autograd.grad((out * out).sum(), [x], create_graph=True)
        (g ** 2).sum().backward()
        return [type(g.grad_fn).__name__, g.tolist(), x.grad.tolist()]
    assert both(scenario) == ["IndexPutImplBackward0", [[2.0, 0.0], [6.0, 8.0]], [[8.0, 0.0], [24.0, 32.0]]]


@pytest.mark.parametrize("index", [lambda x, i: x[:, i], lambda x, i: x[..., i], lambda x, i: x[:, :, i],
                                   lambda x, i: x[i, :, i], lambda x, i: x[:, i, i]])
def test_advanced_indexing_of_a_row_major_tensor_is_row_major(index):
    # NumPy lays the indexed dims out first; torch's result is contiguous, so contiguous() is a no-op
    def scenario(T):
        x = T.arange(60.0, dtype=T.float64).reshape(3, 4, 5).requires_grad_()
        y = index(x, T.tensor([0, 2, 1]))
        return list(y.stride()), y.is_contiguous(), type(y.contiguous().grad_fn).__name__
    strides, contiguous, name = both(scenario)
    assert contiguous is True and name == "IndexBackward0"


_LAYOUTS = {   # (a strided input, an index): torch's result layout follows the input's, as its index kernel's
    "narrowed": (lambda T: T.arange(4.0).reshape(2, 2).narrow(1, 0, 1), lambda x, T: x[:, T.tensor([0, 0])],
                 [2, 1]),
    "permuted": (lambda T: T.arange(60.0).reshape(3, 4, 5).permute(2, 1, 0), lambda x, T: x[:, T.tensor([0, 2])],
                 [1, 5, 10]),
    "column": (lambda T: T.arange(12.0).reshape(4, 3)[:, :1], lambda x, T: x[:, T.tensor([0, 0])], [2, 1]),
    "transposed index": (lambda T: T.arange(12.0).reshape(4, 3), lambda x, T: x[:, T.tensor([[0, 1], [2, 0]]).T],
                         [4, 1, 2]),
    "expanded, indices apart": (lambda T: T.arange(6.0).reshape(3, 1, 2).expand(2, 3, 1, 2).permute(0, 3, 1, 2),
                                lambda x, T: x[T.tensor([1, 0]), :, :, T.tensor([0, 0])], [6, 1, 2]),
}


@pytest.mark.parametrize("case", sorted(_LAYOUTS))
def test_advanced_indexing_lays_out_its_result_as_torch(case):
    # NumPy puts the indexed dims outermost in memory; a view of the result must fail or pass as torch's
    make, index, strides = _LAYOUTS[case]

    def scenario(T):
        x = make(T).requires_grad_()
        y = index(x, T)
        (y * y).sum().backward()
        return list(y.stride()), y.is_contiguous(), y.detach().reshape(-1).tolist(), x.grad
    got = both(scenario)
    assert got[0] == strides


# ---- basic indexing without the op glue's entry points (ints, slices, None, Ellipsis) -------
BASIC = {
    "int": lambda T: 2,
    "negative_int": lambda T: -1,
    "lone_slice": lambda T: slice(1, 3),
    "two_ints": lambda T: (1, -2),
    "slice_int": lambda T: (slice(None), 1),
    "int_slice_step": lambda T: (0, slice(None, None, 2)),
    "none_int": lambda T: (None, 2),
    "ellipsis_int": lambda T: (Ellipsis, 3),
    "int_none_slice": lambda T: (1, None, slice(-3, None)),
    "numpy_int": lambda T: (np.int64(1), 2),
    "full_slices": lambda T: (slice(None), slice(0, None)),
}
SOURCES = {
    "leaf": lambda x: x,
    "non_leaf": lambda x: x * 2,
    "view": lambda x: (x * 2)[1:][:, 0:],
}


def graph(fn):
    """The graph below node fn: its name and, for each edge, the output number and the graph below."""
    if fn is None:
        return None
    return [fn.name(), [[nr, graph(f)] for f, nr in fn.next_functions]]


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("name", BASIC)
def test_basic_index_records_torch_graph_and_gradients(name, source):
    def scenario(T):
        x = T.tensor(np.arange(20.0).reshape(4, 5), requires_grad=True)
        y = SOURCES[source](x)[BASIC[name](T)]
        w = T.arange(y.numel(), dtype=T.float64).reshape(y.shape) + 1
        (y * w).sum().backward()
        return [y, graph(y.grad_fn), y._is_view(), x.grad]
    parity(scenario)


@pytest.mark.parametrize("name", BASIC)
def test_basic_index_of_a_constant_is_a_view_sharing_memory_and_version(name):
    def scenario(T):
        x = T.arange(12.0).reshape(3, 4)
        v = x[BASIC[name](T)]
        v.fill_(-1.0)
        return [x, v._is_view(), v.requires_grad, v.grad_fn is None, x._version, v._version]
    assert both(scenario)[1:] == [True, False, True, 1, 1]
    x = ndgrad.zeros(3, 4)
    v = x[BASIC[name](ndgrad)]
    assert v._base is x and np.shares_memory(v.numpy(), x.numpy())


@pytest.mark.parametrize("name", BASIC)
def test_in_place_through_a_basic_index_rewrites_the_base_history(name):
    def scenario(T):
        x = T.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        y = x * 1
        v = y[BASIC[name](T)]
        v.mul_(10)
        (y * y).sum().backward()
        return [y, v, y._version, v._version, graph(y.grad_fn), graph(v.grad_fn), x.grad]
    parity(scenario)


def test_a_basic_index_taken_before_its_base_changed_regenerates_its_grad_fn():
    def scenario(T):
        y = x34(T) * 1
        v = y[1, None, 1:3]
        y.add_(1)
        return [v, graph(v.grad_fn)]
    parity(scenario)


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_a_basic_index_made_without_grad_mode_refuses_in_place_with_grad(mode):
    def scenario(T):
        y = x34(T) * 1
        with getattr(T, mode)():
            v = y[1, 1:]
        return [v.requires_grad, err(lambda: v.mul_(2))]
    assert both(scenario)[1][0] == "RuntimeError"


@pytest.mark.parametrize("index", [lambda T: (1, 4), lambda T: (0, 0, 0), lambda T: (None, 3), lambda T: (-4,),
                                   lambda T: (slice(None), -5), lambda T: (Ellipsis, 0, 0, 0)])
def test_basic_index_errors_match_torch(index):
    same_error(lambda T: x34(T)[index(T)], IndexError)


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("name", BASIC)
def test_basic_index_views_replay_as_those_made_through_the_op_glue(name, requires_grad, monkeypatch):
    """The view made without the glue's entry points has the glue's view function: the same ops replayed
    on a new base, the same SymInts seen by a visitor; and the same graph."""
    from ndgrad.ops import indexing

    def made():
        x = ndgrad.tensor(np.arange(12.0).reshape(3, 4), requires_grad=requires_grad)
        v = (x * 1)[BASIC[name](ndgrad)]
        seen = []
        replayed = v._view_func(ndgrad.arange(100.0, 112.0).reshape(3, 4),
                                symint_visitor_fn=lambda s: seen.append(s) or s)
        return [v.tolist(), replayed.tolist(), seen, v._version, graph(v.grad_fn)]
    lean = made()
    monkeypatch.setattr(indexing, "_lean", lambda t: False)
    assert made() == lean


LONE_TENSORS = {
    "long": lambda T: T.tensor([2, 0, 2, -1]),
    "long_2d": lambda T: T.tensor([[1], [3]]),
    "int32": lambda T: T.tensor([1, 2], dtype=T.int32),
    "bool_mask": lambda T: T.arange(20).reshape(4, 5) % 3 == 0,
    "row_mask": lambda T: T.tensor([True, False, True, True]),
    "long_0d": lambda T: T.tensor(3),
    "bool_0d": lambda T: T.tensor(False),
}


@pytest.mark.parametrize("name", LONE_TENSORS)
def test_a_lone_index_tensor_records_torch_graph_and_gradients(name):
    def scenario(T):
        x = T.tensor(np.arange(20.0).reshape(4, 5), requires_grad=True)
        y = x[LONE_TENSORS[name](T)]
        (y * y).sum().backward()
        return [y, graph(y.grad_fn), x.grad]
    parity(scenario)


@pytest.mark.parametrize("index", [lambda T: T.ones(4, 5, 1, dtype=T.bool), lambda T: T.tensor([0.0, 1.0]),
                                   lambda T: T.tensor([4]), lambda T: T.tensor([[True, False]])])
def test_lone_index_tensor_errors_match_torch(index):
    same_error(lambda T: T.zeros(4, 5)[index(T)], IndexError)
    same_error(lambda T: T.tensor(1.0)[T.tensor([0])], IndexError)
