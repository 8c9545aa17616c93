"""In-place ops and views, the finer points: which in-place ops torch refuses (and with which words),
what happens to retain_grad, saved outputs and `requires_grad` when history moves, views through a
dtype change, and the tensor's memory API (storage, set_, resize_, version counters by hand).

Scenarios are written once against the torch API (see parity.py): on ndgrad, and on torch too
where it is installed, with results and errors compared.
"""
import gc
import warnings

import numpy as np
import pytest

import ndgrad

from parity import both, lists, same_error


def ramp(T, n=4, requires_grad=False):
    return T.tensor(np.arange(1.0, n + 1), requires_grad=requires_grad)


# --- which in-place ops torch refuses ----------------------------------------------------------
def _no_grad_view_of_view(T):
    x = T.zeros(2)
    with T.no_grad():
        y = x.view(2)
    y.requires_grad_(True)
    y.view(2).div_(2)


def _no_grad_view_written_with_grad_argument(T):
    x = T.zeros(2)
    with T.no_grad():
        y = x.view(2)
    y.add_(T.ones(2, requires_grad=True))   # the base needs no grad, the written value does


def _multi_output_view_of_plain_tensor(T):
    T.rand(1, 2).unbind()[0].copy_(T.rand(2, requires_grad=True)[:1])


def _view_of_leaf_after_base_required_grad(T):
    a = T.zeros(2, 3)
    b = a[:]
    a.requires_grad = True
    b.add_(5)


def _empty_view_of_leaf(T):
    T.ones(3, requires_grad=True)[:0].mul_(2)


def _inplace_view_op_on_no_grad_view(T):
    base = T.ones(2, 3, requires_grad=True).clone()
    with T.no_grad():
        v = base.view_as(base)
    v.t_()


def _inplace_view_op_on_multi_output_view(T):
    ramp(T, 4, True).clone().view(2, 2).unbind()[0].squeeze_(0)


def _no_grad_view_read_after_base_changed(T):
    a = ramp(T, 3, True).clone()
    with T.no_grad():
        b = a[:2]
    a.mul_(2)
    return b.grad_fn


def _multi_output_view_read_after_base_changed(T):
    a = ramp(T, 3, True).clone()
    out = a.unbind()
    a.mul_(2)
    return out[1].grad_fn


@pytest.mark.parametrize("call", [
    _no_grad_view_of_view, _no_grad_view_written_with_grad_argument, _multi_output_view_of_plain_tensor,
    _view_of_leaf_after_base_required_grad, _empty_view_of_leaf, _inplace_view_op_on_no_grad_view,
    _inplace_view_op_on_multi_output_view, _no_grad_view_read_after_base_changed,
    _multi_output_view_read_after_base_changed])
def test_refused_inplace_ops_and_their_messages(call):
    same_error(call)


def test_refusal_messages_name_the_case():
    msg = same_error(_no_grad_view_of_view)
    assert msg.startswith("Output 0 of View is a view of a view which was created in no_grad mode")
    assert "its base or another view of its base has been modified" in same_error(
        _multi_output_view_read_after_base_changed)
    assert "function that returns multiple views" in same_error(_multi_output_view_of_plain_tensor)


def test_views_that_stay_writable():
    def scenario(T):
        x = T.zeros(2)
        with T.no_grad():
            y = x.view(2)
        y.add_(1)                      # nothing requires grad: no history to protect
        a = T.rand(1, 2)
        a.select(1, 0).copy_(T.tensor([3.0]))
        return [x, a[0, 0], y.requires_grad]
    assert lists(both(scenario))[:2] == [[1.0, 1.0], 3.0]


def test_repr_of_a_view_whose_history_cannot_be_regenerated():
    def scenario(T):
        a = T.ones(1, requires_grad=True)
        with T.no_grad():
            b = a[:]
            b *= 2
        return repr(b)
    assert lists(both(scenario)) == "tensor([2.], grad_fn=<Invalid>)"


# --- writing through expand() -------------------------------------------------------------------
def _add_into_expanded(T):
    T.zeros(3, 1).expand(3, 4).add_(1)


def _copy_into_expanded(T):
    T.zeros(3, 1).expand(3, 4).copy_(T.ones(3, 4))


@pytest.mark.parametrize("call", [_add_into_expanded, _copy_into_expanded])
def test_overlapping_writes_refused(call):
    assert "more than one element of the written-to tensor" in same_error(call)


def test_fill_and_zero_write_through_expand_and_non_overlapping_expand_is_writable():
    def scenario(T):
        x = T.ones(3, 1)
        x.expand(3, 4).fill_(2)
        y = T.ones(3, 1)
        y.expand(3, 4).zero_()
        z = T.zeros(3)
        z.expand(3).add_(1)            # an expand that repeats nothing is an ordinary view
        return [x, y, z, z._version]
    assert lists(both(scenario)) == [[[2.0]] * 3, [[0.0]] * 3, [1.0] * 3, 1]


# --- history moving: CopySlices, saved outputs, retain_grad, requires_grad of views ---------------
def test_inplace_into_an_empty_view_moves_the_base_history():
    def scenario(T):
        a = T.ones(4, requires_grad=True)
        b = a.clone()
        b[4:].add_(T.ones(0, requires_grad=True))
        b.sum().backward()
        return [a.grad, b.grad_fn.name()]
    assert lists(both(scenario)) == [[1.0] * 4, "torch::autograd::CopySlices"]


def test_inplace_on_view_of_a_tensor_without_grad():
    def scenario(T):
        a = T.tensor([2.0, 5.0])
        b = T.tensor([3.0], requires_grad=True)
        res = a.narrow(0, 1, 1).mul_(b)
        res.sum().backward()
        return [b.grad, a.grad is None, a.requires_grad, a]
    assert lists(both(scenario)) == [[5.0], True, True, [2.0, 15.0]]


def test_earlier_view_follows_base_that_started_to_require_grad():
    def scenario(T):
        r = T.tensor([1.5], requires_grad=True)
        x = T.ones(5)
        v = x.select(0, 1)
        before = v.requires_grad
        x.add_(r)
        (v * 3).backward()
        return [before, v.requires_grad, r.grad]
    assert lists(both(scenario)) == [False, True, [3.0]]


def test_double_backward_through_inplace_activation_on_a_view():
    def scenario(T):
        x = T.tensor([[1.0, -2.0, 3.0]], requires_grad=True)
        y = (x * 2).view(3)
        T.nn.functional.relu(y, inplace=True)   # saves its output: a view, written in place
        (g,) = T.autograd.grad(y.pow(2).sum(), x, create_graph=True)
        (gg,) = T.autograd.grad(g.sum(), x)
        return [g, gg]
    assert lists(both(scenario)) == [[[8.0, 0.0, 24.0]], [[8.0, 0.0, 8.0]]]


def test_saved_output_of_inplace_on_view_does_not_keep_the_graph_alive():
    deleted = []

    class Marker:
        def __del__(self):
            deleted.append(True)

    def run():
        copy = ndgrad.randn(3, 3, requires_grad=True).clone()
        copy.grad_fn.register_hook(Marker())
        ndgrad.nn.functional.relu(copy.view(9), inplace=True)
    gc.disable()   # freed by reference counting alone: no cycle through the saved output
    try:
        run()
        assert deleted == [True]
    finally:
        gc.enable()


def test_retain_grad_follows_inplace_ops():
    def scenario(T):
        a = T.tensor([1.0], requires_grad=True).clone()
        a.retain_grad()
        a.mul_(2)
        a.mul_(3)
        a.sum().backward()
        base = T.tensor([1.0], requires_grad=True).clone()
        v1, v2 = base[:], base[:]
        v1.retain_grad()
        v2.retain_grad()
        v1.mul_(2)
        (v1 + v2).sum().backward()
        x = T.rand(3, 3, requires_grad=True)
        var, mean = T.var_mean(x, dim=0)
        var.retain_grad()
        mean.retain_grad()
        var.mul_(2)
        (var + mean).sum().backward()
        return [a.grad, v1.grad, v2.grad, var.grad, mean.grad]
    assert lists(both(scenario))[:3] == [[1.0], [1.0], [1.0]]


# --- views through a dtype change --------------------------------------------------------------
@pytest.mark.parametrize("inplace_transpose", [False, True])
def test_view_as_real_then_transpose_then_inplace(inplace_transpose):
    def scenario(T):
        a_orig = T.tensor(np.arange(9.0).reshape(3, 3) * (1 + 1j), dtype=T.complex128, requires_grad=True)
        b = T.view_as_real(a_orig.clone())
        if inplace_transpose:
            b.transpose_(0, 1)     # torch keeps re-deriving b without this transpose (its known quirk)
        else:
            b = b.transpose(0, 1)
        b += 1
        name = type(b.grad_fn).__name__
        b.backward(T.arange(0, 18, dtype=T.float64).view(3, 3, 2))
        return [name, T.view_as_real(a_orig.grad)]
    name, grad = lists(both(scenario))
    assert name == ("ViewAsRealBackward0" if inplace_transpose else "AsStridedBackward0")
    expected = np.arange(18.0).reshape(3, 3, 2)
    np.testing.assert_array_equal(grad, expected if inplace_transpose else expected.transpose(1, 0, 2))


# --- in-place view ops and multi-output pieces ------------------------------------------------
def test_as_strided_inplace_and_swapdims_inplace():
    def scenario(T):
        t = T.arange(6.0, requires_grad=True).clone()
        t.as_strided_((2, 2), (1, 2), 1)
        name = type(t.grad_fn).__name__
        w = T.arange(4.0).view(2, 2)
        (t * w).sum().backward()
        s = T.ones(2, 3, requires_grad=True).clone()
        s.swapdims_(0, 1)
        return [name, t, t.storage_offset(), s.shape, type(s.grad_fn).__name__]
    assert lists(both(scenario)) == ["AsStridedBackward1", [[1.0, 3.0], [2.0, 4.0]], 1, [3, 2], "TransposeBackward1"]


def test_unsafe_chunk_pieces_may_be_written():
    def scenario(T):
        a = T.tensor(np.arange(9.0).reshape(3, 3), requires_grad=True)
        s1, s2, s3 = (a + a).unsafe_chunk(3)
        s1.mul_(s2)
        s1.sum().backward()
        return [type(s2.grad_fn).__name__, a.grad]
    assert lists(both(scenario)) == ["UnsafeSplitBackward0", [[12.0, 16.0, 20.0], [0.0, 4.0, 8.0], [0.0, 0.0, 0.0]]]


@pytest.mark.parametrize("replay", [False, True])
def test_view_func_replays_with_visited_arguments(replay):
    def scenario(T):
        with T.autograd._force_original_view_tracking(replay):
            base = T.tensor(np.arange(60.0).reshape(3, 4, 5))
            view = base.select(1, 2)
            new_base = -base
            shifted = view._view_func(new_base, symint_visitor_fn=lambda i: i + 1)
            return [shifted, view._view_func(new_base)]
    ours = lists(both(scenario))
    full = -np.arange(60.0).reshape(3, 4, 5)
    # the visitor changes the replayed select's index; as_strided (no replay) has nothing to visit
    np.testing.assert_array_equal(ours[0], full[:, 3] if replay else full[:, 2])
    np.testing.assert_array_equal(ours[1], full[:, 2])


# --- memory: storage, set_, resize_, new ------------------------------------------------------
def test_storage_is_shared_by_views():
    def scenario(T):
        y = T.arange(6.0)
        v = y[2:4]
        u = v.untyped_storage()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = v.storage()
        s[0] = 9.0
        return [u.data_ptr() == y.untyped_storage().data_ptr(), u.nbytes(), len(u), s.size(), s[3],
                str(s.dtype), y, v.storage_offset()]
    assert lists(both(scenario)) == [True, 24, 24, 6, 3.0, "torch.float32", [9.0, 1, 2, 3, 4, 5], 2]


def test_set_to_a_storage_geometry_and_to_another_tensor():
    def scenario(T):
        s = T.zeros(6)
        t = T.empty(0)
        t.set_(s.untyped_storage(), 1, (2, 2), (1, 2))
        t[0, 0] = 5.0
        a, b = T.zeros(3), T.ones(3)
        a.set_(b)
        a[0] = 7.0
        return [s, t.storage_offset(), t.stride(), b, a._version, b._version]
    assert lists(both(scenario)) == [[0.0, 5.0, 0, 0, 0, 0], 1, [1, 2], [7.0, 1.0, 1.0], 2, 0]


def test_set_gives_the_leaf_a_new_gradient_edge():
    def scenario(T):
        x = T.rand(2, requires_grad=True)
        old_edge = T.autograd.graph.get_gradient_edge(x)
        out = x.clone()
        with T.no_grad():
            x.set_(T.rand(2))
        (g,) = T.autograd.grad(out.sum(), old_edge)
        return [g, T.autograd.graph.get_gradient_edge(x).node is old_edge.node]
    assert lists(both(scenario)) == [[1.0, 1.0], False]
    same_error(lambda T: T.rand(2, requires_grad=True).set_(T.ones(2)))


def test_resize_bumps_the_version_only_when_the_shape_changes():
    def scenario(T):
        x = T.zeros(1)
        versions = []
        for shape in [(1, 2), (3,), (3,), (2,)]:
            x.resize_(shape)
            versions.append(x._version)
        x.resize_as_(T.zeros(2, 1))
        return [versions, x._version, x.shape]
    assert lists(both(scenario)) == [[1, 2, 2, 3], 4, [2, 1]]
    same_error(lambda T: T.zeros(2, requires_grad=True).clone().resize_(3))


def test_resize_in_inference_mode_skips_the_requires_grad_check():
    def scenario(T):
        rows = []
        x = T.ones(3, requires_grad=True)
        y = x * 2
        with T.inference_mode():
            for t, size in ((T.ones(1, 2, 3, requires_grad=True), (1, 2)), (x, (2,)), (y, (1,))):
                t.resize_(size)
                rows.append([t.shape, t.requires_grad, t.is_inference(), t.grad_fn is None])
            z = T.ones(2, 3, requires_grad=True)
            z.resize_as_(T.ones(3))
            rows.append([z.shape, z.requires_grad])
        return rows
    assert lists(both(scenario)) == [[[1, 2], True, True, True], [[2], True, False, True],
                                     [[1], True, False, False], [[3], True]]
    same_error(lambda T: T.ones(2, requires_grad=True).resize_(1))   # outside inference mode: refused


def _inference_tensor(T):
    with T.inference_mode():
        return T.ones(2, 3)


def test_resize_and_out_refuse_inference_tensors_outside_inference_mode():
    msg = same_error(lambda T: _inference_tensor(T).resize_(1, 2))
    assert msg.startswith("Inplace update to inference tensor outside InferenceMode is not allowed.")
    assert same_error(lambda T: _inference_tensor(T).resize_as_(T.ones(2))) == msg
    s = lambda T: T.ones(2, 3)   # noqa: E731
    assert same_error(lambda T: T.mul(s(T), s(T), out=_inference_tensor(T))) == msg
    # an argument that requires grad is refused first, with out='s own message
    assert same_error(lambda T: T.mul(s(T).requires_grad_(), 2, out=_inference_tensor(T))).startswith(
        "mul(): functions with out=... arguments don't support automatic differentiation")

    def allowed(T):
        c = _inference_tensor(T)
        with T.inference_mode():
            T.mul(s(T), 3, out=c)
        a = s(T)
        T.mul(c, c, out=a)   # an inference tensor may be read into a normal one
        return [c, a, c.is_inference(), a.is_inference()]
    r = lists(both(allowed))
    assert r[0] == [[3.0] * 3] * 2 and r[1] == [[9.0] * 3] * 2 and r[2:] == [True, False]


def test_out_writes_are_seen_by_allow_mutation_on_saved_tensors():
    def scenario(T):
        with T.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            a = T.tensor([1.0, 2.0], requires_grad=True)
            b = T.tensor([1.0, 3.0])
            out = (a * b).sum()
            T.sin(T.tensor([0.0, 0.0]), out=b)   # b, saved by mul, is overwritten
            cloned = len(ctx.cloned)
            out.backward()
            return [cloned, len(ctx.cloned), a.grad, b]
    assert lists(both(scenario)) == [1, 0, [1.0, 3.0], [0.0, 0.0]]


def test_legacy_new():
    def scenario(T):
        x = T.ones(2, dtype=T.float64, requires_grad=True)
        return [x.new(2, 3).shape, x.new((2.0, 3.0)), x.new(T.Size([4])).shape, x.new().shape,
                str(x.new(1).dtype), x.new(1).requires_grad, type(x.new(x).grad_fn).__name__]
    assert lists(both(scenario))[-1] == "AliasBackward0"
    same_error(lambda T: T.ones(2).new(2.5), TypeError)


def test_memory_formats():
    def scenario(T):
        i = T.zeros(2, 3, 4, 5).contiguous(memory_format=T.channels_last)
        return [repr(T.contiguous_format), repr(T.channels_last), repr(T.preserve_format),
                repr(T.channels_last_3d), type(T.channels_last).__name__, i.shape]
    assert lists(both(scenario))[:2] == ["torch.contiguous_format", "torch.channels_last"]


# --- attributes that cannot be deleted or set, and .data -----------------------------------------
@pytest.mark.parametrize("name,exc", [("data", RuntimeError), ("requires_grad", RuntimeError),
                                      ("_grad_fn", RuntimeError), ("_backward_hooks", RuntimeError)])
def test_deleting_tensor_fields(name, exc):
    same_error(lambda T: delattr(T.randn(2, requires_grad=True), name), exc)


def test_deleting_grad_resets_it():
    def scenario(T):
        x = T.ones(2, requires_grad=True)
        x.sum().backward()
        del x.grad
        return x.grad is None
    assert lists(both(scenario)) is True


@pytest.mark.parametrize("value", [None, 3])
def test_data_must_be_a_tensor(value):
    same_error(lambda T: setattr(T.ones(2), "data", value), TypeError)


def test_data_checks():
    same_error(lambda T: setattr(T.tensor(1.0, requires_grad=True), "data", T.tensor(3)))
    same_error(lambda T: setattr(T.randn(1, 2), "data",
                                 T.sparse_coo_tensor(T.zeros([1, 1]), T.ones([1]))))


# --- version counters by hand -----------------------------------------------------------------
def test_version_counters_set_by_hand():
    def scenario(T):
        x = T.ones(2, requires_grad=True).clone()
        x.add_(1)
        x.add_(2)
        with T.autograd._unsafe_preserve_version_counter(x):
            x.mul_(2)
        kept = x._version
        T._C._autograd._unsafe_set_version_counter((x,), (0,))
        zero = x._version
        T.autograd.graph.increment_version((x, x[1:]))
        return [kept, zero, x._version, x]
    assert lists(both(scenario)) == [2, 0, 2, [8.0, 8.0]]
    same_error(lambda T: T._C._autograd._unsafe_set_version_counter((T.ones(1),), (-1,)))
    same_error(lambda T: T._C._autograd._unsafe_set_version_counter((T.ones(1),), (1, 2)))


def test_view_replay_flag_is_public():
    def scenario(T):
        states = [T.autograd.is_view_replay_enabled()]
        with T.autograd._force_original_view_tracking(True):
            states.append(T.autograd.is_view_replay_enabled())
        return states + [T.autograd.is_view_replay_enabled()]
    assert lists(both(scenario)) == [False, True, False]


# --- accumulating into .grad ---------------------------------------------------------------------
def test_dense_gradient_into_a_sparse_grad_makes_a_new_dense_grad():
    def scenario(T):
        p = T.tensor([1.5, 1.5]).requires_grad_()
        p.grad = T.sparse_coo_tensor(T.tensor([[1, 1]]), T.tensor([1.0, 1.0]))
        before = p.grad
        p.backward(T.tensor([1.5, 1.5]))
        return [p.grad is before, p.grad.layout == T.strided, p.grad]
    assert lists(both(scenario)) == [False, True, [1.5, 3.5]]


def test_real_to_complex_copy_backward_warns_nothing():
    def scenario(T):
        inp = T.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=T.float64, requires_grad=True)
        out = T.empty(2, 2, dtype=T.complex128)
        out.copy_(inp)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out.sum().abs().backward()
            (g,) = T.autograd.grad(inp.to(T.complex128).sum().abs(), inp)
        return [inp.grad, g]
    assert lists(both(scenario)) == [[[1.0, 1.0], [1.0, 1.0]]] * 2


# --- detach_() of a tensor a node saved with its history --------------------------------------------
def test_saved_input_detached_in_place_is_refused_at_backward():
    def call(T):
        a = T.tensor(1.0, requires_grad=True).clone()
        b = a.sin()
        a.detach_()
        b.backward()
    assert "detached in-place" in same_error(call)

    def scenario(T):
        a = T.tensor(1.0, requires_grad=True).clone()
        b = a.exp()             # saves its output, not a: fine
        a.detach_()
        b.backward()
        c = T.tensor(2.0, requires_grad=True).clone()
        c.detach_()
        w = T.tensor(3.0, requires_grad=True)
        (c * w).backward()      # saved after the detach: an ordinary constant
        return [a, w.grad]
    assert lists(both(scenario)) == [1.0, 2.0]


# --- gradient layout: .grad is strided like its leaf (torch's layout contract) -----------------------
@pytest.mark.parametrize("fmt", ["contiguous_format", "channels_last"])
def test_grad_is_strided_like_a_dense_leaf(fmt):
    def scenario(T):
        a = T.tensor(np.arange(120.0).reshape(2, 3, 4, 5)).to(memory_format=getattr(T, fmt)).requires_grad_()
        b = T.tensor(np.ones((2, 3, 4, 5))).requires_grad_()
        a.sum().backward()
        broadcast = a.grad.stride()
        a.grad = None
        (a * b).sum().backward()
        return [a.stride(), broadcast, a.grad.stride(), a.is_contiguous(memory_format=T.channels_last)]
    strides = both(scenario)
    assert strides[0] == strides[1] == strides[2]
    assert strides[3] is (fmt == "channels_last")


def test_grad_of_a_non_dense_leaf_is_row_major():
    def scenario(T):
        c = T.empty_strided((2, 2), (4, 2)).copy_(T.ones(2, 2)).requires_grad_()
        c.sum().backward()
        first = c.grad.stride()
        c.grad = None
        (c * T.ones(2, 2)).sum().backward()
        return [c.stride(), len(c.untyped_storage()), first, c.grad.stride()]
    assert lists(both(scenario)) == [[4, 2], 28, [2, 1], [2, 1]]
    same_error(lambda T: T.ones(2).contiguous(memory_format=T.channels_last))


def test_inplace_ops_on_empty_tensors_are_no_overlap():
    # NumPy gives empty arrays zero strides; that is no overlapping memory (found by test_fuzz)
    def scenario(T):
        x = T.ones(2, 0, dtype=T.float64, requires_grad=True)
        with T.no_grad():
            x.mul_(0.5)
        y = x * 2
        y.mul_(T.tensor(3.0, dtype=T.float64))
        y.sum().backward()
        return [list(y.shape), type(y.grad_fn).__name__, list(x.grad.shape)]
    assert both(scenario) == [[2, 0], "MulBackward0", [2, 0]]


def test_double_backward_through_inplace_op_on_a_temporary_view():
    # the op's saved output unpacks to the op's own node once the view is gone; the first
    # backward's CopySlices must leave that node's saved values to it
    def scenario(T):
        x = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
        y = x * 1
        y[:].exp_()
        (g,) = T.autograd.grad((y * y).sum(), [x], create_graph=True)
        return T.autograd.grad((g * g).sum(), [x])[0]
    assert np.allclose(both(scenario), [873.57, 47695.0, 2604100.0], rtol=1e-4)


def test_second_backward_through_a_freed_copy_slices_raises():
    def scenario(T):
        x = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
        y = x * 1
        y[:1].exp_()
        y.sum().backward()
        y.sum().backward()
    assert "backward through the graph a second time" in same_error(scenario)


def test_masked_fill_through_an_expand_warns_and_writes_only_the_masked_elements():
    def scenario(T):
        x = T.zeros(4, dtype=T.float64).expand(2, 4)
        mask = T.tensor([[True, False, True, False], [False, False, True, True]])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            x.masked_fill_(mask, 3.0)
        return x, [str(w.message).split(" (Triggered")[0] for w in caught]
    x, messages = both(scenario)
    assert x.tolist() == [[3.0, 0.0, 3.0, 3.0]] * 2
    assert messages == ["Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
                        "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar"]


def test_other_inplace_ops_through_an_expand_still_refuse():
    assert "single memory location" in same_error(lambda T: T.zeros(4).expand(2, 4).mul_(2))


def test_changes_through_data_escape_the_version_checks_and_detach_does_not():
    # .data has a version counter of its own (torch's documented difference from detach()): the
    # backward silently reads the changed values; through detach() the same change is refused
    def through_data(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        d = y.data
        d.mul_(2)
        y.sum().backward()
        return x.grad, y._version, d._version, d._base is None

    grad, y_version, d_version, no_base = both(through_data)
    assert np.allclose(grad, 2 * np.exp([1.0, 2.0])) and (y_version, d_version, no_base) == (0, 1, True)

    x = ndgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.detach().mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def _fused_add(T, name, shape, inplace):
    """torch's fused add ops (beta * self + alpha * product) on a self of `shape`: the result's shape and
    values, or the error's type and message."""
    o = lambda *s: T.ones(s, dtype=T.float64)   # noqa: E731
    operands = {"addmm": (o(3, 4), o(4, 5)), "addmv": (o(3, 4), o(4)), "addr": (o(3), o(5)),
                "addbmm": (o(2, 3, 4), o(2, 4, 5)), "baddbmm": (o(2, 3, 4), o(2, 4, 5))}[name]
    try:
        out = getattr(o(*shape), name + "_")(*operands) if inplace else getattr(T, name)(o(*shape), *operands)
    except (RuntimeError, IndexError) as e:
        return f"{type(e).__name__}: {e}"
    return tuple(out.shape), out.flatten().tolist()


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("name", ["addmm", "addmv", "addr", "addbmm", "baddbmm"])
@pytest.mark.parametrize("shape", [(), (1,), (2,), (3,), (5,), (1, 1), (1, 3), (3, 1), (1, 5), (2, 1), (3, 5),
                                   (1, 3, 5)])
def test_fused_add_self_shapes(name, shape, inplace):
    # which self shapes broadcast, the in-place forms' own checks (torch's structured kernels want self
    # to have the result's shape; addbmm_ resizes self to it) and every message
    both(lambda T: _fused_add(T, name, shape, inplace))


def test_addbmm_resizing_self_keeps_its_history():
    def run(T):
        a = T.ones(1, dtype=T.float64, requires_grad=True)
        b1 = T.ones(2, 3, 4, dtype=T.float64, requires_grad=True)
        x = a * 1
        v = x._version
        y = x.addbmm_(b1, T.ones(2, 4, 5, dtype=T.float64))
        assert y is x and x._version == v + 1
        x.sum().backward()
        return x.grad_fn.name(), tuple(x.shape), a.grad, b1.grad
    name, shape, a_grad, b1_grad = both(run)
    assert (name, shape, a_grad.tolist(), b1_grad.sum()) == ("AddbmmBackward0", [3, 5], [15.0], 120.0)
