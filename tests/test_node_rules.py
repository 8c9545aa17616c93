"""Rules of the graph's nodes (autograd/node.py) and hook handles (_hooks.py), each stated with
its expected value and, where torch is installed, compared with torch: calling a node directly,
saved values and their version checks, the error that names a modified tensor, sequence numbers,
AccumulateGrad (copy or keep the engine's gradient, its lock), hook handles.
"""
import copy
import threading
import time

import numpy as np
import pytest

import ndgrad
from ndgrad.autograd import node as node_module

from parity import both, same_error


# --- calling a node directly --------------------------------------------------------------
def test_calling_a_node_computes_only_the_gradients_of_inputs_with_an_edge():
    def s(T):
        x, c = T.tensor([1.0, 2.0], requires_grad=True), T.tensor([3.0, 4.0])
        gx, gc = (x * c).grad_fn(T.ones(2))    # c has no edge: no gradient is computed for it
        return [gx, gc is None]
    gx, c_none = both(s)
    np.testing.assert_allclose(gx, [3.0, 4.0])
    assert c_none is True


def test_calling_a_node_with_no_gradient_gives_none_per_input():
    def s(T):
        x = T.ones(2, requires_grad=True)
        return [(x * x).grad_fn(None), x.exp().grad_fn(None)]
    assert both(s) == [[None, None], None]


def test_calling_a_node_checks_its_arguments():
    def node(T):
        return (T.ones(2, requires_grad=True) * T.ones(2)).grad_fn
    assert same_error(lambda T: node(T)(), TypeError) == "expected 1 arguments, got 0 instead"
    assert same_error(lambda T: node(T)(T.ones(2), T.ones(2)), TypeError) == "expected 1 arguments, got 2 instead"
    assert same_error(lambda T: node(T)(3), TypeError) == "argument 0 is not a Variable"


def test_unknown_node_attribute_names_the_node_class():
    msg = same_error(lambda T: (T.ones(2, requires_grad=True) * 2).grad_fn.no_such_thing, AttributeError)
    assert msg == "'MulBackward0' object has no attribute 'no_such_thing'"


def test_set_sequence_nr_takes_ints_bools_included_and_refuses_the_rest():
    def s(T):
        fn = (T.ones(2, requires_grad=True) * 2).grad_fn
        fn._set_sequence_nr(True)   # a bool is an int: stored as 1
        first = fn._sequence_nr()
        fn._set_sequence_nr((1 << 64) - 1)
        return [first, type(first).__name__, fn._sequence_nr() == (1 << 64) - 1]
    assert both(s) == [1, "int", True]
    fn = lambda T: (T.ones(2, requires_grad=True) * 2).grad_fn   # noqa: E731
    assert same_error(lambda T: fn(T)._set_sequence_nr(1.5), TypeError) == "an integer is required"
    assert same_error(lambda T: fn(T)._set_sequence_nr(1 << 64), OverflowError) == "int too big to convert"


def test_gradient_edge_repr_names_node_and_output_nr():
    def s(T):
        x = T.ones(2, requires_grad=True)
        y = x.unbind()[1]
        edge = T.autograd.graph.get_gradient_edge(y)
        # torch's GradientEdge has a third field (ownership_token) after these two
        return repr(edge).startswith(f"GradientEdge(node={y.grad_fn!r}, output_nr=1")
    assert both(s) is True


# --- saved values ----------------------------------------------------------------------------
def test_saved_int_list_is_exposed_as_a_tuple():
    def s(T):
        y = T.ones(2, 3, requires_grad=True).permute([1, 0])   # given as a list, exposed as a tuple
        dims = y.grad_fn._saved_dims
        return [type(dims).__name__, list(dims)]
    assert both(s) == ["tuple", [1, 0]]


def test_saved_tensor_lists_are_exposed_as_tuples():
    def s(T):
        x = T.ones(2, 3, requires_grad=True)
        i = T.tensor([0, 1])
        rows, cols = x[i].grad_fn._saved_indices, x[:, i].grad_fn._saved_indices
        return [type(rows).__name__, len(rows), rows[0].tolist(), type(cols).__name__, cols[0] is None, cols[1].tolist()]
    assert both(s) == ["tuple", 1, [0, 1], "tuple", True, [0, 1]]


def test_saved_output_that_needs_no_gradient_has_no_history():
    def s(T):
        x = T.tensor([1.0, 3.0, 2.0], requires_grad=True)
        values, indices = x.max(0, keepdim=True)
        saved = values.grad_fn._saved_indices
        return [saved.grad_fn is None, saved.requires_grad, saved.tolist()]
    assert both(s) == [True, False, [1]]


def test_saved_tensor_list_is_version_checked_and_used():
    def s(T):
        x = T.arange(4.0, requires_grad=True)
        i = T.tensor([0, 2, 2])
        x[i].sum().backward()     # index saves its Tensor?[] indices
        return x.grad
    np.testing.assert_allclose(both(s), [1.0, 0.0, 2.0, 0.0])

    def modified(T):
        x = T.arange(4.0, requires_grad=True)
        i = T.tensor([0, 2])
        y = x[i]
        i.add_(1)
        y.sum().backward()
    msg = same_error(modified)
    assert msg.startswith("one of the variables needed for gradient computation has been modified by an inplace "
                          "operation: [torch.LongTensor [2]] is at version 1; expected version 0 instead.")


def test_saved_tensor_detached_in_place_is_refused():
    def go(T):
        x = T.ones(2, requires_grad=True)
        a = x * 2
        z = a * a
        a.detach_()
        z.sum().backward()
    assert same_error(go) == ("Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
                              "This is not supported, please use out-of-place `.detach()` instead")


def test_saved_output_unpacked_inside_a_dual_level_keeps_its_tangent():
    def s(T):
        fw = T.autograd.forward_ad
        with fw.dual_level():
            x = T.tensor([0.5, 1.0], requires_grad=True)
            y = fw.make_dual(x, T.tensor([1.0, 2.0])).exp()    # exp saves its output
            g, = T.autograd.grad(y.sum(), x)
            return [g, fw.unpack_dual(g).tangent]
    g, tangent = both(s, rtol=1e-6)
    np.testing.assert_allclose(g, np.exp([0.5, 1.0]), rtol=1e-6)
    np.testing.assert_allclose(tangent, np.exp([0.5, 1.0]) * [1.0, 2.0], rtol=1e-6)


# --- the error naming a modified tensor -------------------------------------------------------
@pytest.mark.parametrize("dtype, name", [
    ("float32", "torch.FloatTensor"), ("float64", "torch.DoubleTensor"), ("float16", "torch.HalfTensor"),
    ("complex64", "CPUComplexFloatType"), ("complex128", "CPUComplexDoubleType")])
def test_modified_saved_tensor_error_names_type_shape_and_op(dtype, name):
    def go(T):
        x = T.ones(2, 3, dtype=getattr(T, dtype), requires_grad=True)
        a = x * 1
        z = a * a
        a.add_(1)    # a's history is now the in-place add: the error names its op
        z.sum().abs().backward()
    assert same_error(go) == (
        f"one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"[{name} [2, 3]], which is output 0 of Add, is at version 1; expected version 0 instead. "
        "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False).")


@pytest.mark.parametrize("dtype, name", [
    ("int64", "torch.LongTensor"), ("int32", "torch.IntTensor"), ("uint8", "torch.ByteTensor"),
    ("bool", "CPUBoolType"), ("bfloat16", "CPUBFloat16Type")])
def test_modified_saved_tensor_without_history_is_named_by_type_alone(dtype, name):
    def go(T):
        w = T.ones(2, requires_grad=True)
        c = T.ones(2, dtype=getattr(T, dtype))
        z = w * c
        c.logical_not_() if dtype == "bool" else c.add_(1)
        z.sum().backward()
    assert same_error(go) == (
        f"one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"[{name} [2]] is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the "
        "operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, "
        "check_nan=False).")


# --- formulas reading only an argument's metadata (TensorMeta) ---------------------------------
def test_mean_of_an_empty_tensor_has_an_empty_gradient():
    def s(T):
        x = T.zeros(0, 3, requires_grad=True)
        x.mean().backward()      # the formula divides by numel() == 0: an empty gradient, no error
        return list(x.grad.shape)
    assert both(s) == [0, 3]


def test_as_strided_gradient_uses_the_input_strides():
    def s(T):
        x = T.arange(6.0, requires_grad=True)
        y = x.view(2, 3).t().as_strided((2,), (2,))   # the transposed input's strides are (1, 3)
        y.sum().backward()
        return x.grad
    np.testing.assert_allclose(both(s), [1.0, 0.0, 1.0, 0.0, 0.0, 0.0])


def test_real_to_complex_gradient_comes_back_real():
    def s(T):
        x = T.tensor([3.0, 4.0], requires_grad=True)
        x.to(T.complex64).abs().sum().backward()   # the formula asks whether the input was complex
        return [x.grad, str(x.grad.dtype)]
    g, dtype = both(s)
    np.testing.assert_allclose(g, [1.0, 1.0])
    assert dtype == "torch.float32"


# --- AccumulateGrad ------------------------------------------------------------------------
def test_first_gradient_with_create_graph_and_no_history_is_output_0():
    def s(T):
        x = T.ones(2, requires_grad=True)
        (x * T.tensor([2.0, 3.0])).sum().backward(create_graph=True)   # the gradient has no graph
        return [x.grad, x.grad.output_nr, x.grad.grad_fn is None, x.grad.requires_grad]
    g, nr, no_fn, requires_grad = both(s)
    np.testing.assert_allclose(g, [2.0, 3.0])
    assert nr == 0 and no_fn is True and requires_grad is False


def test_accumulate_grad_adds_under_the_leafs_lock():
    x = ndgrad.ones(2, requires_grad=True)
    y = (x * 3).sum()
    acc = y.grad_fn.next_functions[0][0].next_functions[0][0]
    assert acc.name() == "torch::autograd::AccumulateGrad"
    acc._lock.acquire()
    worker = threading.Thread(target=y.backward)
    try:
        worker.start()
        time.sleep(0.3)
        assert x.grad is None     # the addition waits for the lock another backward holds
    finally:
        acc._lock.release()
    worker.join(10)
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_gradient_the_user_still_holds_is_copied_into_grad():
    shared = ndgrad.full((2, 2), 3.0)
    x = ndgrad.ones(2, 2, requires_grad=True)
    x.register_hook(lambda g: shared)
    (x * 1).sum().backward()
    shared.add_(1)
    np.testing.assert_allclose(x.grad.numpy(), 3.0)
    assert x.grad.requires_grad is False and x.grad.output_nr == 0


def test_gradient_viewing_memory_the_user_holds_is_copied_into_grad():
    # ndgrad's contract (node.accumulate_grad): `.grad` never aliases memory anything else holds.
    # torch differs here: it keeps a view nobody else references, sharing `shared`'s storage.
    shared = ndgrad.full((2, 2), 3.0)
    x = ndgrad.ones(2, 2, requires_grad=True)
    x.register_hook(lambda g: shared.view(2, 2))
    (x * 1).sum().backward()
    shared.add_(1)
    np.testing.assert_allclose(x.grad.numpy(), 3.0)


def test_gradient_only_the_engine_holds_becomes_grad_without_a_copy():
    def s(T):
        ptrs = []

        def fresh(g):
            r = g * 2
            ptrs.append(r.data_ptr())
            return r
        x = T.ones(2, 2, requires_grad=True)
        x.register_hook(fresh)
        (x * 1).sum().backward()
        return [x.grad, x.grad.data_ptr() == ptrs[0]]
    g, kept = both(s)
    np.testing.assert_allclose(g, 2.0)
    assert kept is True


def test_reference_counts_are_calibrated_on_a_buffer_held_probe():
    probe = node_module._new_probe()
    base = probe._array.base
    assert probe._array.shape == (2, 2) and base is not None and base.flags.owndata and base.size == 4
    counts = (lambda grads: node_module._calibrate(None, grads[0], False))([node_module._new_probe()])
    assert counts == node_module._ENGINE_ONLY
    assert all(isinstance(c, int) and c > 0 for c in counts)


# --- hook handles ------------------------------------------------------------------------
def test_removing_a_hook_twice_is_harmless():
    def s(T):
        x = T.ones(2, requires_grad=True)
        handle = x.register_hook(lambda g: g * 10)
        handle.remove()
        handle.remove()
        (x * 1).sum().backward()
        return x.grad
    np.testing.assert_allclose(both(s), [1.0, 1.0])


def test_deep_copied_module_keeps_its_hooks_in_order():
    def s(T):
        seen = []
        m = T.nn.Linear(2, 2)
        m.register_forward_hook(lambda mod, i, o: seen.append("first"))
        m.register_forward_hook(lambda mod, i, o: seen.append("second"))
        copy.deepcopy(m)(T.ones(2))
        return seen
    assert both(s) == ["first", "second"]


def test_first_gradient_with_create_graph_is_a_copy_of_what_the_user_holds():
    def s(T):
        shared = T.full((2,), 3.0)
        x = T.ones(2, requires_grad=True)
        x.register_hook(lambda g: shared)
        (x * 1).sum().backward(create_graph=True)
        shared.add_(1)
        return x.grad
    np.testing.assert_allclose(both(s), [3.0, 3.0])


@pytest.mark.parametrize("leaf, fn", [
    ("contiguous 2-d", "torch::autograd::CopyBackwards"), ("contiguous 3-d", "torch::autograd::CopyBackwards"),
    ("rows with gaps", "CloneBackward0"), ("one row of a wider array", "torch::autograd::CopyBackwards")])
def test_first_gradient_with_create_graph_follows_the_leaf_layout(leaf, fn):
    # torch's layout contract: strided like a leaf whose elements fill its memory (size-1 dims do not
    # count), recorded as a copy; else a contiguous clone
    def s(T):
        make = {"contiguous 2-d": lambda: T.ones(2, 3), "contiguous 3-d": lambda: T.ones(2, 2, 2),
                "rows with gaps": lambda: T.ones(2, 6)[:, :3], "one row of a wider array": lambda: T.ones(2, 5)[:1, :3]}
        x = make[leaf]().detach().requires_grad_()
        (x * x).sum().backward(create_graph=True)
        return [x.grad, x.grad.grad_fn.name()]
    g, name = both(s)
    np.testing.assert_allclose(g, 2.0)
    assert name == fn


def test_accumulate_grad_called_directly_in_grad_mode_records_the_copy():
    def s(T):
        x = T.ones(2, requires_grad=True)
        acc = (x * 2).grad_fn.next_functions[0][0]
        acc(T.ones(2, requires_grad=True) * 3)
        return [x.grad, x.grad.grad_fn.name()]
    g, name = both(s)
    np.testing.assert_allclose(g, [3.0, 3.0])
    assert name == "torch::autograd::CopyBackwards"


def test_node_repr_names_its_class_and_address():
    fn = (ndgrad.ones(2, requires_grad=True) * 2).grad_fn
    assert repr(fn) == f"<MulBackward0 object at {id(fn):#x}>"

    def s(T):
        return repr((T.ones(2, requires_grad=True) * 2).grad_fn).split(" at 0x")[0]
    assert both(s) == "<MulBackward0 object"


def test_attribute_names_that_only_end_like_a_saved_value_are_unknown():
    fn = lambda T: (T.ones(2, requires_grad=True) * T.ones(2, requires_grad=True)).grad_fn   # noqa: E731
    for name in ("notsaveself", "abcdefghijkself"):   # 7 and 11 characters before a saved name
        msg = same_error(lambda T: getattr(fn(T), name), AttributeError)
        assert msg == f"'MulBackward0' object has no attribute '{name}'"


def test_sequence_nr_zero_is_allowed():
    def s(T):
        fn = (T.ones(2, requires_grad=True) * 2).grad_fn
        fn._set_sequence_nr(0)
        return fn._sequence_nr()
    assert both(s) == 0


def test_saved_output_keeps_its_output_number():
    def s(T):
        y = T.tensor([0.5, 1.0], requires_grad=True).exp()
        return y.grad_fn._saved_result.output_nr
    assert both(s) == 0


def test_complex_to_complex_copy_keeps_the_imaginary_gradient():
    def s(T):
        x = T.tensor([1 + 1j, 2 - 1j], dtype=T.complex128, requires_grad=True)
        (x.to(T.complex64) * (1 + 2j)).real.sum().backward()
        return [x.grad, str(x.grad.dtype)]
    g, dtype = both(s)
    np.testing.assert_allclose(g, [1 - 2j, 1 - 2j])
    assert dtype == "torch.complex128"


def test_tensor_meta_answers_as_the_tensor_does():
    # what a formula reading only an argument's metadata gets instead of the tensor
    for t in (ndgrad.ones(2, 3, 4)[:, 1:, ::2], ndgrad.zeros(3, 5, dtype=ndgrad.complex64)):
        meta = node_module.TensorMeta(t)
        assert meta.size() == t.size() and [meta.size(d) for d in range(t.dim())] == [t.size(d) for d in range(t.dim())]
        assert meta.stride() == t.stride() and [meta.stride(d) for d in range(t.dim())] == list(t.stride())
        assert meta.numel() == t.numel() and meta.dim() == meta.ndim == t.dim()
        assert meta.is_complex() == t.is_complex() and meta.dtype == t.dtype


def test_gradient_edge_made_by_hand_is_a_backward_output():
    def s(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        return T.autograd.grad([T.autograd.graph.GradientEdge(y.grad_fn, 0)], [x], [T.ones(2)])
    np.testing.assert_allclose(both(s), [[3.0, 3.0]])


def test_gradient_edge_of_a_leaf_is_a_backward_output_with_an_implicit_gradient():
    def s(T):
        x = T.tensor(2.0, requires_grad=True)
        return T.autograd.grad([T.autograd.graph.get_gradient_edge(x)], [x])
    np.testing.assert_allclose(both(s), [1.0])


@pytest.mark.parametrize("held", ["user's arrays", "hook's result", "a detached alias"])
def test_sparse_gradient_sharing_memory_with_the_user_is_copied_into_grad(held):
    # ndgrad's contract (node.accumulate_grad): `.grad` never aliases memory anything else holds.
    # torch differs for the first case: its .grad keeps the user's indices and values.
    i, v = ndgrad.tensor([[0, 2]]), ndgrad.ones(2, 2) * 5
    kept = []

    def hook(g):
        if held == "user's arrays":   # the new tensor itself is held by the engine alone
            return ndgrad.sparse_coo_tensor(i, v, (4, 2))
        kept.append(g * 5)
        return kept[0] if held == "hook's result" else kept[0].detach()   # detach shares the sparse data
    w = ndgrad.ones(4, 2, requires_grad=True)
    w.register_hook(hook)
    ndgrad.nn.functional.embedding(ndgrad.tensor([0, 2]), w, sparse=True).sum().backward()
    assert w.grad.is_sparse
    v.add_(1)
    i.zero_()
    if kept:
        kept[0]._values().add_(1)
    np.testing.assert_allclose(w.grad.to_dense().numpy(), [[5.0, 5.0], [0.0, 0.0], [5.0, 5.0], [0.0, 0.0]])


def test_saved_output_through_saved_tensor_hooks_comes_back_with_its_node():
    def s(T):
        x = T.tensor([0.5, 1.0], requires_grad=True)
        with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = x.exp()
        saved = y.grad_fn._saved_result
        return [saved.grad_fn is y.grad_fn, saved.requires_grad, saved]
    same_fn, requires_grad, value = both(s)
    assert same_fn is True and requires_grad is True
    np.testing.assert_allclose(value, np.exp([0.5, 1.0]), rtol=1e-6)


def test_saved_index_list_with_none_entries():
    def s(T):
        x = T.ones(2, 3, requires_grad=True)
        x[:, T.tensor([0, 2])].sum().backward()   # indices saved as [None, tensor]
        return x.grad
    np.testing.assert_allclose(both(s), [[1.0, 0.0, 1.0], [1.0, 0.0, 1.0]])


def test_sparse_first_gradient_with_create_graph_stays_sparse():
    def s(T):
        w = T.ones(4, 2, requires_grad=True)
        T.nn.functional.embedding(T.tensor([0, 2]), w, sparse=True).sum().backward(create_graph=True)
        return [w.grad.is_sparse, w.grad.to_dense()]
    sparse, g = both(s)
    assert sparse is True
    np.testing.assert_allclose(g, [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0], [0.0, 0.0]])


def test_threads_recording_on_one_leaf_at_once_share_its_accumulate_grad():
    x = ndgrad.ones(2, requires_grad=True)
    outs = []

    def record(k):
        outs.append((x * k).sum())
    node_module._new_acc_lock.acquire()   # both threads find no AccumulateGrad and wait here
    threads = [threading.Thread(target=record, args=(k,)) for k in (2.0, 3.0)]
    try:
        for t in threads:
            t.start()
        time.sleep(0.3)
    finally:
        node_module._new_acc_lock.release()
    for t in threads:
        t.join(10)
    accs = [y.grad_fn.next_functions[0][0].next_functions[0][0] for y in outs]
    assert accs[0] is accs[1] and accs[0].variable is x
    (outs[0] + outs[1]).backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 5.0])


def test_sparse_gradients_accumulate_into_grad():
    def s(T):
        w = T.ones(4, 2, requires_grad=True)
        emb = lambda idx: T.nn.functional.embedding(T.tensor(idx), w, sparse=True).sum()   # noqa: E731
        emb([0, 2]).backward()
        first = w.grad.to_dense()
        emb([2, 3]).backward()
        return [w.grad.is_sparse, first, w.grad.to_dense()]
    sparse, first, total = both(s)
    assert sparse is True
    np.testing.assert_allclose(first, [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    np.testing.assert_allclose(total, [[1.0, 1.0], [0.0, 0.0], [2.0, 2.0], [1.0, 1.0]])


def test_gradient_viewing_part_of_a_larger_array_is_copied_into_grad():
    # ndgrad's contract, as above (torch keeps this view, sharing `big`'s storage)
    big = ndgrad.full((3, 2), 3.0)
    x = ndgrad.ones(2, 2, requires_grad=True)
    x.register_hook(lambda g: big[:2])
    (x * 1).sum().backward()
    big.add_(1)
    np.testing.assert_allclose(x.grad.numpy(), 3.0)


def test_transposed_gradient_is_laid_out_like_the_leaf():
    def s(T):
        w = T.ones(4, 2, requires_grad=True)
        (w.t() * 2).sum().backward()       # the gradient arrives as a (2, 4) array transposed
        return [list(w.grad.stride()), w.grad.output_nr, w.grad.requires_grad, w.grad]
    stride, nr, requires_grad, g = both(s)
    assert stride == [2, 1] and nr == 0 and requires_grad is False
    np.testing.assert_allclose(g, 2.0)


def test_second_gradient_is_added_into_grad_in_place():
    def s(T):
        w = T.ones(2, requires_grad=True)
        (w * 2).sum().backward()
        first, ptr = w.grad, w.grad.data_ptr()
        (w * 3).sum().backward()
        return [w.grad.data_ptr() == ptr, w.grad is first, w.grad]
    same_memory, same_tensor, g = both(s)
    assert same_memory is True and same_tensor is True
    np.testing.assert_allclose(g, [5.0, 5.0])
