"""View semantics: views share memory, the version counter and `_base` with their base; in-place
ops on views rewrite the base's history (CopySlices); torch's errors for shape ops and for
in-place ops torch forbids on views.

Each scenario is written once against the torch API and runs on ndgrad; where torch is installed
the same scenario runs on torch too and the results (values, gradients, names, errors) must agree.
"""
import warnings

import numpy as np
import pytest

import ndgrad

from parity import both, parity, same_error


def base(T, shape=(2, 3, 4), requires_grad=False):
    return T.tensor(np.arange(np.prod(shape), dtype=np.float64).reshape(shape), requires_grad=requires_grad)


def leaf(T, shape=(2, 3)):
    rng = np.random.default_rng(0)
    return T.tensor(rng.standard_normal(shape), requires_grad=True)


def weights(T, shape):
    return T.tensor(np.linspace(-1.0, 2.0, int(np.prod(shape))).reshape(shape))


# --- views share memory, version counter and _base --------------------------------------------
VIEWS = {
    "view": lambda T, x: x.view(6, 4),
    "view_as": lambda T, x: x.view_as(T.zeros(4, 6)),
    "reshape": lambda T, x: x.reshape(-1),
    "reshape_alias": lambda T, x: x.split(2, 2)[0].reshape(6, 2),
    "flatten": lambda T, x: x.flatten(1),
    "unflatten": lambda T, x: x.unflatten(2, (2, 2)),
    "ravel": lambda T, x: x.ravel(),
    "transpose": lambda T, x: x.transpose(0, 2),
    "swapaxes": lambda T, x: T.swapaxes(x, 1, 2),
    "t": lambda T, x: x.view(6, 4).t(),
    "T": lambda T, x: x.view(6, 4).T,
    "mT": lambda T, x: x.mT,
    "permute": lambda T, x: x.permute(1, 2, 0),
    "movedim": lambda T, x: x.movedim(0, -1),
    "squeeze": lambda T, x: x.view(1, 24, 1).squeeze(),
    "unsqueeze": lambda T, x: x.unsqueeze(1),
    "split": lambda T, x: x.split(2, 2)[1],
    "split_with_sizes": lambda T, x: x.split([1, 2], 1)[1],
    "chunk": lambda T, x: x.chunk(2, 2)[1],
    "unbind": lambda T, x: x.unbind(1)[2],
    "diagonal": lambda T, x: x.diagonal(1, 1, 2),
    "as_strided": lambda T, x: x.as_strided((3, 2), (2, 5), 1),
    "unfold": lambda T, x: x.unfold(2, 2, 2),
    "narrow": lambda T, x: x.narrow(2, 1, 2),
    "tensor_split": lambda T, x: x.tensor_split(2, 1)[1],
    "getitem": lambda T, x: x.view(6, 4)[1:4, 2],
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_view_shares_memory_version_and_base(name):
    def s(T):
        x = base(T)
        v = VIEWS[name](T, x)
        assert v._base is x
        x.add_(1)                      # written through the base: seen in the view
        seen = v.clone()
        v.mul_(-1)                     # written through the view: seen in the base
        return [seen, v, x, x._version, v._version]
    out = both(s)
    assert out[3] == out[4] == 2


def test_view_of_view_has_the_root_as_base():
    def s(T):
        x = base(T)
        v = x.view(6, 4)
        w = v.t().unsqueeze(0)
        assert w._base is x and v._base is x
        w.mul_(2)
        return [x, v, w, x._version, v._version, w._version]
    parity(s)


def test_expand_view_sees_base_writes():
    def s(T):
        x = base(T, (3, 1))
        v = x.expand(2, 3, 4)
        assert v._base is x
        x.add_(1)
        return [v, v._version]
    parity(s)


@pytest.mark.parametrize("call", [
    lambda T, x: x.transpose(0, 1).reshape(-1),
    lambda T, x: x.flip(0),
    lambda T, x: x.roll(1, 1),
    lambda T, x: x.repeat(1, 1, 1),
    lambda T, x: T.cat([x, x]),
    lambda T, x: T.stack([x]),
    lambda T, x: x.transpose(0, 1).contiguous(),
], ids=["reshape_copy", "flip", "roll", "repeat", "cat", "stack", "contiguous"])
def test_copies_are_not_views(call):
    def s(T):
        x = base(T)
        y = call(T, x)
        assert y._base is None
        y.mul_(0)
        return [x, x._version]
    assert both(s)[1] == 0


def test_unsafe_split_shares_memory_without_being_a_view():
    def s(T):
        x = base(T)
        y = x.unsafe_split(2, 2)[0]
        assert y._base is None
        y.mul_(0)
        return [x, x._version, y._version]
    parity(s)


def test_no_op_shape_calls_return_the_tensor_itself():
    x = base(ndgrad)
    assert x.contiguous() is x
    assert x.flatten(1, 1) is x
    assert ndgrad.atleast_1d(x) is x


def test_iteration_unbinds_into_views():
    def s(T):
        x = leaf(T)
        rows = list(x)
        assert all(r._base is x for r in rows)
        (rows[0] * 2 + rows[1] * 3).sum().backward()
        return [r.grad_fn.name() for r in rows] + [x.grad]
    parity(s)


# --- in-place ops on views of graph tensors: CopySlices ---------------------------------------
INPLACE = {
    "view": lambda T, y: y.view(-1).mul_(2),
    "transpose": lambda T, y: y.transpose(0, 1).mul_(2),
    "view_of_view": lambda T, y: y.t().unsqueeze(0).mul_(3),
    "diagonal": lambda T, y: y.diagonal().mul_(3),
    "as_strided": lambda T, y: y.as_strided((2,), (2,), 1).mul_(3),
    "narrow_like_split_view": lambda T, y: y.view(6).unsqueeze(1).squeeze_(1).mul_(-1),
    "exp_saves_result": lambda T, y: y.t().exp_(),
    "two_views": lambda T, y: (y.view(-1).mul_(2), y.t().add_(1)),
    "squeeze_": lambda T, y: y.view(1, 2, 3).squeeze_(0).mul_(2),
    "getitem": lambda T, y: y.view(3, 2)[1:].mul_(-2),
    "setitem": lambda T, y: y.view(-1).__setitem__(slice(1, 4), 5.0),
    "narrow": lambda T, y: y.narrow(1, 1, 2).mul_(4),
    "augmented_getitem": lambda T, y: y.t().__getitem__(1).__imul__(3),
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_on_view_rewrites_base_history(name):
    def s(T):
        x = leaf(T)
        y = x * 1
        INPLACE[name](T, y)
        assert y.grad_fn.name() == "torch::autograd::CopySlices"
        (y * weights(T, (2, 3))).sum().backward()
        return [y, x.grad]
    parity(s)


def test_inplace_on_view_with_a_differentiable_argument():
    def s(T):
        x, src = leaf(T), leaf(T, (3, 2))
        y = x * 1
        y.t().mul_(src)
        z = x * 1
        z.t().copy_(src * 2)
        ((y + z) * weights(T, (2, 3))).sum().backward()
        return [y, z, x.grad, src.grad, z.grad_fn.name()]
    parity(s)


def test_view_used_after_inplace_is_regenerated():
    def s(T):
        x = leaf(T)
        y = x * 1
        v = y.transpose(0, 1)
        v.mul_(2)
        w = y.view(-1)          # made after the in-place op
        u = y.unsqueeze(0)      # made before the next one: regenerated from the base
        y.add_(1)
        loss = (v * weights(T, (3, 2))).sum() + (w * w).sum() + (u * 3).sum()
        loss.backward()
        return [v.grad_fn.name(), u.grad_fn.name(), w.grad_fn.name(), x.grad]
    names = both(s)[:3]
    assert names == ["AsStridedBackward0"] * 3


def test_inplace_on_base_after_view_was_taken():
    def s(T):
        x = leaf(T)
        y = x * 1
        v = y.view(-1)
        y.mul_(x)
        (v * weights(T, (6,))).sum().backward()
        return [v, x.grad]
    parity(s)


def test_double_backward_through_copy_slices():
    def s(T):
        x = leaf(T)
        y = x * 1
        y.t().mul_(x.t())
        (g,) = T.autograd.grad((y * y).sum(), x, create_graph=True)
        (g * weights(T, (2, 3))).sum().backward()
        return [g, x.grad]
    parity(s)


def test_saved_tensor_modified_through_a_view():
    def run(T):
        x = leaf(T)
        y = x.exp()
        y.view(-1).mul_(2)
        y.sum().backward()
    msg = same_error(run)
    assert "modified by an inplace operation" in msg


# --- in-place ops torch refuses on views ------------------------------------------------------
def test_inplace_on_view_of_leaf():
    same_error(lambda T: leaf(T).view(-1).mul_(2))


@pytest.mark.parametrize("call", [
    lambda T, y: y.split(1)[1].mul_(2),
    lambda T, y: y.unbind(1)[2].mul_(2),
    lambda T, y: y.chunk(2)[0].mul_(2),
    lambda T, y: y.split(1)[0].t().mul_(2),
    lambda T, y: y[0].unbind()[1].mul_(2),
], ids=["split", "unbind", "chunk", "view_of_split", "unbind_to_0d"])
def test_inplace_on_multi_output_view(call):
    msg = same_error(lambda T: call(T, leaf(T) * 1))
    assert "returns multiple views" in msg


def test_inplace_on_multi_output_view_is_fine_without_grad():
    def s(T):
        y = leaf(T) * 1
        v = y.split(1)[0]
        with T.no_grad():
            v.mul_(2)
        x = base(T, (2, 3))
        x.unbind(0)[1].mul_(-1)
        return [y, x]
    parity(s)


def test_inplace_on_view_made_in_no_grad_mode():
    def run(T):
        y = leaf(T) * 1
        with T.no_grad():
            v = y.view(-1)
        v.mul_(2)
    assert same_error(run).startswith("A view was created in no_grad mode and is being modified inplace")


def test_inplace_on_expanded_view():
    msg = same_error(lambda T: base(T, (3, 1)).expand(3, 4).mul_(2))
    assert "more than one element of the written-to tensor refers to a single memory location" in msg


# --- torch's errors for shape ops -------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda T, x: x.view(4),
    lambda T, x: x.view(5, -1),
    lambda T, x: x.view(-1, -1),
    lambda T, x: x.view(-2, 12),
    lambda T, x: x.transpose(0, 1).view(-1),
    lambda T, x: x.reshape(7, -1),
    lambda T, x: T.zeros(0, 3).reshape(0, -1),
    lambda T, x: T.cat([x, x.split(2, 1)[0]], 0),
    lambda T, x: T.cat([x, x.unbind(0)[0]]),
    lambda T, x: T.cat([x.sum(), x.sum()]),
    lambda T, x: T.stack([x, x.split(2, 1)[0]]),
    lambda T, x: T.stack([]),
    lambda T, x: x.expand(3, 4),
    lambda T, x: x.expand(2, 5, 4),
    lambda T, x: x.expand(-1, 2, 3, 4),
    lambda T, x: x.permute(0, 1),
    lambda T, x: x.permute(0, 1, 1),
    lambda T, x: x.t(),
    lambda T, x: x.H,
    lambda T, x: x.unbind(0)[0].unbind(0)[0].mT,
    lambda T, x: x.split([1, 2], 2),
    lambda T, x: x.split([1, -1, 4], 2),
    lambda T, x: x.split(0, 2),
    lambda T, x: x.chunk(0),
    lambda T, x: x.flip((0, 0)),
    lambda T, x: x.squeeze((1, 1)),
    lambda T, x: x.roll((1, 2), (0,)),
    lambda T, x: x.repeat(2, 2),
    lambda T, x: x.repeat(-1, 1, 1),
    lambda T, x: x.tile((-1,)),
    lambda T, x: T.hstack([]),
    lambda T, x: T.row_stack([]),
    lambda T, x: x.unfold(2, 5, 1),
    lambda T, x: x.unfold(2, 2, 0),
    lambda T, x: x.unsqueeze(0).adjoint().unbind(0)[0].unbind(0)[0].unbind(0)[0].adjoint(),
    lambda T, x: x.flatten(2, 0),
    lambda T, x: x.unflatten(2, (3, 2)),
    lambda T, x: x.unflatten(2, ()),
    lambda T, x: x.movedim((0, 1), (1,)),
    lambda T, x: x.movedim((0, 0), (1, 2)),
    lambda T, x: x.diagonal(0, 1, 1),
    lambda T, x: x.as_strided((2, 2), (1, 2), 100),
    lambda T, x: x.as_strided((2, 2), (-1, 2)),
    lambda T, x: x.narrow(1, 2, 2),
    lambda T, x: x.tensor_split(0),
    lambda T, x: x.tensor_split(T.tensor([[1]]), 2),
    lambda T, x: x.sum().tensor_split(1),
    lambda T, x: x.hsplit(2),
    lambda T, x: x.unbind(0)[0].unbind(0)[0].vsplit(2),
    lambda T, x: x.unbind(0)[0].dsplit(2),
    lambda T, x: x.unbind(0)[0].unbind(0)[0].fliplr(),
])
def test_shape_op_errors(call):
    same_error(lambda T: call(T, base(T)))


@pytest.mark.parametrize("call", [
    lambda T, x: x.transpose(0, 3),
    lambda T, x: x.squeeze(3),
    lambda T, x: x.unsqueeze(-5),
    lambda T, x: T.cat([x, x], 3),
    lambda T, x: T.stack([x, x], -5),
    lambda T, x: x.flip(3),
    lambda T, x: x.permute(0, 1, 3),
    lambda T, x: x.movedim(0, 3),
    lambda T, x: x.split(1, 3),
    lambda T, x: x.unbind(-4),
    lambda T, x: x.roll(1, 3),
    lambda T, x: x.flatten(0, 3),
    lambda T, x: x.narrow(-4, 0, 1),
    lambda T, x: x.narrow(1, -4, 1),
    lambda T, x: x.sum().unbind(0),
])
def test_bad_dims_raise_index_error(call):
    same_error(lambda T: call(T, base(T)), IndexError)


def test_cat_errors_name_the_mismatch():
    msg = same_error(lambda T: T.cat([T.zeros(2, 2), T.zeros(2, 3), T.zeros(3, 3)], 1))
    assert msg == ("Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for tensor "
                   "number 2 in the list.")
    assert same_error(lambda T: T.cat([]), ValueError) == "torch.cat(): expected a non-empty list of Tensors"
    same_error(lambda T: T.cat(T.zeros(2)), TypeError)


def test_view_as_dtype_reads_the_same_bytes():
    def s(T):
        x = T.tensor([[1.0, -2.0], [0.5, 4.0]], requires_grad=True)
        same = x.view(T.int32)
        with T.no_grad():
            x.add_(1)
        return [same, same.requires_grad, same._is_view(), same._version, x.view(T.uint8).shape,
                x.view(T.float16), x.view(T.float64).shape, T.ones(()).view(T.int32), x[0, 0]._is_view()]
    parity(s)


@pytest.mark.parametrize("call", [
    lambda T: T.ones(3).view(T.float64),
    lambda T: T.ones(()).view(T.float64),
    lambda T: T.ones(2, 2).t().view(T.float16),
], ids=["size", "0d", "stride"])
def test_view_as_dtype_errors(call):
    same_error(call)


def test_view_error_messages():
    assert same_error(lambda T: T.zeros(2, 3).view(4)) == "shape '[4]' is invalid for input of size 6"
    assert "Use .reshape(...) instead." in same_error(lambda T: T.zeros(2, 3).t().view(6))


# --- results torch gives for the less common forms --------------------------------------------
def test_cat_promotes_and_skips_legacy_empty():
    def s(T):
        a = T.tensor([1.0, 2.0], dtype=T.float32, requires_grad=True)
        b = T.tensor([3, 4])
        c = T.cat([a, b])
        d = T.cat([T.zeros(0), T.ones(2, 2)])
        e = T.cat([T.ones(2, dtype=T.bool), T.zeros(1, dtype=T.uint8)])
        (c * T.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        return [c, str(c.dtype), d, str(e.dtype), a.grad]
    parity(s)


def test_split_and_chunk_shapes():
    def s(T):
        x = base(T, (5, 4))
        return [[tuple(p.shape) for p in parts] for parts in
                (x.split(2), x.split([1, 4]), x.chunk(3), x.chunk(3, 1), x.chunk(9), x.split(5, 1),
                 T.zeros(0, 2).chunk(3))]
    parity(s)


def test_matrix_properties_and_T_warning():
    def s(T):
        x = leaf(T, (2, 3, 4))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # torch warns once per process about x.T on 3-D tensors
            return [tuple(x.T.shape), tuple(x.mT.shape), tuple(x.mH.shape), tuple(x.unbind(0)[0].H.shape),
                    x.T.grad_fn.name(), x.unbind(0)[0].T.grad_fn.name()]
    parity(s)
    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other than 2"):
        leaf(ndgrad, (2, 3, 4)).T


def test_storage_offset_and_strides_of_views():
    def s(T):
        x = base(T)
        views = [x.unbind(0)[1], x.split(1, 2)[1], x.diagonal(0, 1, 2), x.transpose(0, 2), x.expand(3, 2, 3, 4),
                 x.as_strided((2,), (3,), 5)]
        return [[v.storage_offset(), tuple(v.stride()), v.is_contiguous()] for v in views]
    parity(s)


def test_as_strided_of_a_view_counts_from_the_base():
    def s(T):
        x = leaf(T, (3, 4))
        v = x.unbind(0)[1]
        y = v.as_strided((2, 2), (1, 4))            # storage offset defaults to the view's
        z = v.as_strided((3,), (4,), 1)             # an explicit one counts from the base
        ((y * 2).sum() + (z * 3).sum()).backward()
        return [y, z, y.storage_offset(), z.storage_offset(), x.grad]
    parity(s)


def test_grad_of_expanded_input_through_as_strided():
    def s(T):
        x = leaf(T, (3,))
        e = x.unsqueeze(1).expand(3, 2)
        y = e.as_strided((2, 2), (1, 1))
        (y * weights(T, (2, 2))).sum().backward()
        return [y, x.grad]
    parity(s)


def test_as_strided_scatter_values_match_torch():
    def s(T):
        x = base(T, (3, 4))
        return [T.as_strided_scatter(x, -base(T, (2, 2)), (2, 2), (1, 4), 1),
                T.as_strided_scatter(x.unbind(0)[1], base(T, (2,)), (2,), (2,))]
    parity(s)


def test_complex_views_share_memory():
    def s(T):
        z = T.tensor(np.array([[1 + 2j, 3 - 1j], [0.5j, 2.0]]))
        r = T.view_as_real(z)
        c = T.view_as_complex(r)
        assert r._base is z and c._base is z
        r.mul_(2)
        return [z, c, tuple(r.stride()), z._version]
    parity(s)


@pytest.mark.parametrize("call", [
    lambda T: T.view_as_real(T.zeros(2)),
    lambda T: T.view_as_complex(T.zeros(3, 3)),
    lambda T: T.view_as_complex(T.zeros(2, 3).t()),
    lambda T: T.view_as_complex(T.zeros(2, dtype=T.int64)),
    lambda T: T.view_as_complex(T.zeros(7).split([1, 6])[1].view(3, 2)),
    lambda T: T.view_as_complex(T.zeros(())),
    lambda T: T.diagonal_scatter(T.zeros(2, 2), T.zeros(1)),
    lambda T: T.as_strided_scatter(T.zeros(2, 2), T.zeros(1), (2,), (1,)),
])
def test_complex_view_and_scatter_errors(call):
    same_error(call)


# --- view tracking mode: how a view's history is regenerated after its base is written -------
def _regenerated_names(T, replay):
    with T.autograd._force_original_view_tracking(replay):
        a = T.arange(4.0, requires_grad=True).clone()
        row = a.view(2, 2)[0]
        a.mul_(2)
        fn = row.grad_fn
        names = [fn.name(), fn.next_functions[0][0].name()]
        row.sum().backward()
    return names


@pytest.mark.parametrize("replay, expected", [(False, ["AsStridedBackward0", "MulBackward0"]),
                                              (True, ["SelectBackward0", "ViewBackward0"])])
def test_view_replay_regenerates_with_original_view_ops(replay, expected):
    assert both(lambda T: _regenerated_names(T, replay)) == expected


def test_force_original_view_tracking_sets_now_restores_on_exit_and_decorates():
    def states(T):
        out = [T.autograd._is_view_replay_enabled() if T is ndgrad else T._C._is_view_replay_enabled()]
        flag = T.autograd._is_view_replay_enabled if T is ndgrad else T._C._is_view_replay_enabled
        mode = T.autograd._force_original_view_tracking(True)   # a call switches at once
        out.append(flag())
        mode.__exit__(None, None, None)
        out.append(flag())

        @T.autograd._force_original_view_tracking(True)
        def inside():
            return flag()
        out += [flag(), inside(), flag()]
        return out
    assert both(states) == [False, True, False, False, True, False]


def test_narrow_over_the_whole_dim_is_still_a_slice_and_a_0dim_tensor_flips():
    # found by test_fuzz: narrow recorded an alias where it covers the dim; flip(0) of a 0-dim raised
    def scenario(T):
        x = T.tensor([[1.0, 2.0]], dtype=T.float64, requires_grad=True) * 2
        names = [type(v.grad_fn).__name__ for v in (x.narrow(0, 0, 1), x[:, 2:].narrow(1, 0, 0))]
        s = T.tensor(3.0, dtype=T.float64, requires_grad=True)
        f = s.flip(0)
        f.backward()
        return names + [type(f.grad_fn).__name__, f.item(), s.grad.item()]
    assert both(scenario) == ["SliceBackward0", "SliceBackward0", "FlipBackward0", 3.0, 1.0]


def test_a_squeeze_that_removes_no_dim_is_still_a_view_and_a_0dim_tensor_moves_to_an_alias():
    # found by test_fuzz: such a squeeze was no view, so an in-place op through it lost its gradient
    def scenario(T):
        a = T.ones(3, dtype=T.float64, requires_grad=True)
        b = a * 1
        v = b.squeeze()
        v.mul_(3)
        (b * T.arange(3.0, dtype=T.float64)).sum().backward()
        s = T.tensor(2.0, dtype=T.float64, requires_grad=True) * 1
        return [type(b.grad_fn).__name__, v._base is b, a.grad.tolist(), type(s.movedim(-1, 0).grad_fn).__name__]
    assert both(scenario) == ["CopySlices", True, [0.0, 3.0, 6.0], "AliasBackward0"]


def test_inplace_through_a_view_of_a_result_in_permuted_layout():
    # found by test_fuzz: a pointwise result keeps its input's dim order, and CopySlices' as_strided
    # refused that memory
    def scenario(T):
        x = T.arange(24.0, dtype=T.float64).reshape(2, 4, 3).requires_grad_()
        y = x.mT.pow(2)
        y[1].add_(1)
        y.sum().backward()
        return [list(y.stride()), type(y.grad_fn).__name__, x.grad.sum().item(),
                y.detach().as_strided((2, 2), (1, 3), 1).tolist()]
    assert both(scenario)[:3] == [[12, 1, 3], "CopySlices", 552.0]


def test_which_slices_indexing_records():
    # torch skips a slice given as starting at 0 and reaching the end; x[-n:] and x[1:] of an empty dim
    # are recorded (found by test_fuzz)
    def scenario(T):
        c = T.ones(2, 3, dtype=T.float64, requires_grad=True) * 1
        e = T.ones(2, 0, dtype=T.float64, requires_grad=True) * 1
        return [type(v.grad_fn).__name__ for v in (c[:, -3:], c[:, 0:5], c[:, :], e[:, -1:-3], e[:, 1:], e[:, :-1])]
    assert both(scenario) == ["SliceBackward0", "AliasBackward0", "AliasBackward0"] + ["SliceBackward0"] * 3


def test_view_that_cannot_be_a_view_raises_runtime_error_itself():
    def scenario(T):
        try:
            T.ones(2, 3).t().view(-1)
        except Exception as e:  # noqa: BLE001 - the type itself is checked
            return type(e).__name__
    assert both(scenario) == "RuntimeError"


@pytest.mark.parametrize("join, dim", [("cat", 0), ("cat", 2), ("stack", 0), ("stack", -1)])
def test_cat_and_stack_of_permuted_tensors_are_row_major(join, dim):
    # NumPy keeps the inputs' (permuted) layout; torch's result is contiguous, so view(-1) works
    def scenario(T):
        x = T.arange(12.0, dtype=T.float64).reshape(1, 4, 3).permute(2, 0, 1)
        y = getattr(T, join)([x, x], dim=dim)
        return y.is_contiguous(), y.view(-1)
    contiguous, flat = both(scenario)
    assert contiguous is True and flat.shape == (24,)


def test_cat_of_channels_last_tensors_stays_channels_last():
    def scenario(T):
        x = T.zeros(2, 3, 4, 5).contiguous(memory_format=T.channels_last)
        return list(T.cat([x, x], 1).stride())
    assert both(scenario) == [120, 1, 30, 6]


def test_create_graph_gradient_of_an_empty_as_strided_view_is_a_constant():
    def scenario(T):
        x = T.zeros(0, dtype=T.float64, requires_grad=True)
        v = x.view(-1)
        with T.no_grad():
            x.mul_(0.5)   # v's history is regenerated as an as_strided of x
        (g,) = T.autograd.grad((v * v).sum(), [x], create_graph=True)
        return type(v.grad_fn).__name__, g.requires_grad
    assert both(scenario) == ["AsStridedBackward0", False]


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_of_a_transposed_tensor_is_row_major(fn):
    # torch's softmax kernels write a contiguous result, so flatten() is a view (NumPy kept the transpose)
    def scenario(T):
        x = T.arange(60.0, dtype=T.float64).reshape(3, 4, 5).transpose(0, 1).requires_grad_()
        y = getattr(T, fn)(x, 0)
        (g,) = T.autograd.grad(y.sum(), [x])
        return y.is_contiguous(), type(y.flatten().grad_fn).__name__, g
    contiguous, name, _ = both(scenario)
    assert contiguous is True and name == "ViewBackward0"


def test_view_as_real_and_complex_copies_are_copies_not_views():
    # torch has these two as functions only (no Tensor method): the copy ops must not look for one
    def scenario(T):
        z = T.tensor([1 + 2j, 3 - 4j])
        r = T.view_as_real_copy(z)
        c = T.view_as_complex_copy(T.tensor([[1.0, 2.0], [3.0, -4.0]]))
        r[0, 0] = 9.0   # a copy: z keeps its value
        return [r, T.view_as_real(c), T.view_as_real(z), r._base is None]
    r, c, z, no_base = both(scenario)
    assert r.tolist() == [[9.0, 2.0], [3.0, -4.0]] and c.tolist() == [[1.0, 2.0], [3.0, -4.0]]
    assert z.tolist() == [[1.0, 2.0], [3.0, -4.0]] and no_base is True
