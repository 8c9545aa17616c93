"""The ops once in the misc family beyond their registry entries (tests/op_db/shape.py, reduction.py,
creation.py, indexing.py, activation.py): the unique ops' values and backward errors, argument errors,
view and aliasing behaviour, and the private test ops' side effects, each compared with torch where
it is installed."""
import warnings

import numpy as np
import pytest

import ndgrad
from parity import LIBS, both, same_error


def _x(T, values, **kw):
    return T.tensor(values, dtype=T.float64, requires_grad=True, **kw)


VALUES = [3.0, 1.0, 2.0, 1.0, 3.0, float("nan"), 0.5, float("nan")]
MATRIX = [[1.0, 2.0, 1.0], [0.0, 1.0, 0.0], [1.0, 2.0, 1.0], [1.0, 2.0, 1.0]]


@pytest.mark.parametrize("call", [
    lambda T: T.unique(_x(T, VALUES)),
    lambda T: T.unique(_x(T, VALUES), return_inverse=True, return_counts=True),
    lambda T: T.unique(_x(T, VALUES), sorted=False, return_counts=True),
    lambda T: T._unique(_x(T, VALUES)),
    lambda T: T._unique2(_x(T, VALUES), return_inverse=True),
    lambda T: T.unique(_x(T, MATRIX), return_inverse=True),
    lambda T: T.unique(_x(T, MATRIX), dim=0, return_inverse=True, return_counts=True),
    lambda T: _x(T, MATRIX).unique(dim=-1, return_counts=True),
    lambda T: T.unique(T.tensor(2.0), return_inverse=True, return_counts=True),
    lambda T: T.unique(T.zeros(0, 2), return_inverse=True, return_counts=True),
    lambda T: T.unique(T.tensor([True, False, True])),
    lambda T: T.unique_consecutive(_x(T, [1.0, 1.0, 2.0, 2.0, 3.0, 1.0]), return_inverse=True, return_counts=True),
    lambda T: T.unique_consecutive(_x(T, MATRIX), dim=0, return_counts=True),
    lambda T: T.ops.aten.unique_consecutive(_x(T, MATRIX)),
    lambda T: T.ops.aten.unique_dim(_x(T, MATRIX), 1),
    lambda T: T.ops.aten.unique_dim_consecutive(_x(T, MATRIX), 0),
], ids=lambda c: "")
def test_unique_values_match_torch(call):
    both(call)


@pytest.mark.parametrize("call", [
    lambda T: T.unique(_x(T, VALUES)),
    lambda T: T.unique(_x(T, MATRIX), dim=1),
    lambda T: T.unique_consecutive(_x(T, VALUES)),
], ids=["unique", "unique_dim", "unique_consecutive"])
def test_unique_backward_is_not_implemented(call):
    for T in LIBS:
        with pytest.raises(NotImplementedError, match="derivative"):
            call(T).sum().backward()


@pytest.mark.parametrize("call", [
    lambda T: T.tril(T.zeros(3)),
    lambda T: T.zeros(3).triu_(),
    lambda T: T.rot90(T.zeros(3, 3), 1, [0]),
    lambda T: T.rot90(T.zeros(3), 1, [0, 1]),
    lambda T: T.rot90(T.zeros(3, 3), 1, [0, -2]),
    lambda T: T.block_diag(T.zeros(2, 2, 2)),
    lambda T: T.diag_embed(T.zeros(3), 0, 1, -1),
    lambda T: T._masked_softmax(T.zeros(2, 3), T.zeros(2, 3)),
    lambda T: T._masked_softmax(T.zeros(2, 3), T.zeros(3, dtype=T.bool)),
    lambda T: T._masked_softmax(T.zeros(2, 2, 3, 3), T.zeros(3, 2, dtype=T.bool), 3, 0),
    lambda T: T._masked_softmax(T.zeros(2, 2, 3, 3), T.zeros(3, 3, dtype=T.bool), 3, 1),
    lambda T: T._masked_softmax(T.zeros(2, 2, 3, 3), T.zeros(3, 3, dtype=T.bool), -1, 3),
    lambda T: T.slice_inverse(T.zeros(1, 2), T.zeros(2, 2), 0, 0, 1),
], ids=lambda c: "")
def test_bad_arguments_raise_torchs_error(call):
    same_error(call)


@pytest.mark.parametrize("call", [
    lambda T: T.rot90(T.zeros(3, 3), 1, [0, 2]),
    lambda T: T.diag_embed(T.tensor(1.0)),
], ids=["rot90", "diag_embed"])
def test_dims_out_of_range_raise_torchs_index_error(call):
    same_error(call, IndexError)


def test_failed_inplace_tril_leaves_the_tensor_unchanged():
    x = ndgrad.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError):
        x.tril_()
    assert x.tolist() == [1.0, 2.0] and x._version == 0


def test_block_diag_promotes_like_torch():
    both(lambda T: [T.block_diag(T.tensor(1.5, dtype=T.float64), T.ones(2)),
                    T.block_diag(T.tensor([1, 2]), T.tensor([[1.5]])),
                    T.block_diag(T.tensor([1]), T.tensor(True)),
                    T.block_diag(T.ones(0, 3), T.ones(2, 0)),
                    T.block_diag()])


def test_block_diag_gradients_survive_inplace_changes_of_its_inputs():
    def run(T):
        a, b = _x(T, [[1.0, 2.0]]), _x(T, [3.0])
        a2 = a * 1
        out = T.block_diag(a2, b)
        a2.mul_(2)   # the node keeps shapes, not inputs
        out.backward(T.arange(6.0, dtype=T.float64).view(2, 3))
        return a.grad, b.grad
    both(run)


def test_slice_inverse_is_a_view_of_the_sliced_tensors_base():
    def run(T):
        a = _x(T, [[4.0, 1.0], [2.0, 3.0]])
        b = a * 1
        out = T.slice_inverse(b[0:1], b, 0, 0, 1)
        with T.no_grad():
            out[1, 1] = 10.0
        return out._base is b, b, out.grad_fn.next_functions[0][0].name()
    assert both(run)[0] is True


def test_masked_softmax_matches_torch_with_fully_masked_rows():
    def run(T):
        x = _x(T, [[0.2, -0.5, 0.7], [1.0, 0.3, -0.2]])
        y = T._masked_softmax(x, T.tensor([[False, True, False], [True, True, True]]))
        y.backward(T.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]], dtype=T.float64))
        return y, x.grad
    both(run)


def test_masked_softmax_broadcast_masks_match_torch():
    def run(T):
        x = T.arange(36.0, dtype=T.float64).view(2, 2, 3, 3).sin()
        causal = T.tensor([[False, True, True], [False, False, True], [False, False, False]])
        padding = T.tensor([[False, False, True], [True, False, False]])
        return T._masked_softmax(x, causal, 3, 0), T._masked_softmax(x, padding, 3, 1)
    both(run)


def test_masked_softmax_has_no_double_backward():
    x = _x(ndgrad, [[0.2, -0.5, 0.7]])
    y = ndgrad._masked_softmax(x, ndgrad.tensor([[False, True, False]]))
    g, = ndgrad.autograd.grad(y, x, ndgrad.ones_like(y, requires_grad=True), create_graph=True)
    assert g.grad_fn.name() == "NotImplemented"
    with pytest.raises(NotImplementedError):
        g.sum().backward()


def test_test_warn_in_autograd_warns_in_backward():
    for T in LIBS:
        x = _x(T, [1.0, 2.0])
        y = T.ops.aten._test_warn_in_autograd(x)
        with pytest.warns(UserWarning, match="Warn from backward"):
            y.sum().backward()
        assert x.grad.tolist() == [1.0, 1.0]


def test_lift_shares_memory_without_being_a_view():
    for T in LIBS:
        x = _x(T, [1.0, 2.0])
        for y in (T.ops.aten.lift(x), T.ops.aten.lift_fresh(x)):
            assert y.data_ptr() == x.data_ptr() and y._base is None


def test_reshape_alias_refuses_strides_that_are_not_a_reshape():
    with pytest.raises(NotImplementedError, match="_reshape_alias"):
        ndgrad.ops.aten._reshape_alias(ndgrad.zeros(4), [2], [2])


def test_test_autograd_multiple_dispatch_view_writes_through():
    def run(T):
        x = T.zeros(2, 3)
        v = T._test_autograd_multiple_dispatch_view(x)
        v[4] = 1.0
        return x, v._base is x
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert both(run)[1] is True
    assert np.asarray(both(run)[0])[1, 1] == 1.0


def test_cli_version_prints_the_package_version(capsys):
    from ndgrad.__main__ import main
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.strip() == f"ndgrad {ndgrad.__version__}"
