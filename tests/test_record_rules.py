"""Recording rules stated by hand (issue 18, mutation testing of autograd/record.py and copy_slices.py):
what an in-place write checks and writes, where retain_grad goes when an in-place op on a view moves
the history, what the errors say. Each scenario also runs on torch where it is installed (parity.py)."""
import math
import os
import warnings

import numpy as np

import ndgrad

from parity import both, same_error

# the file a warning should point at (its stacklevel); under tools/mutation.py, mutmut's trampolines add
# frames between the caller and ndgrad's code, so there the check is left out
HERE = __file__ if "MUTANT_UNDER_TEST" not in os.environ else None

INFERENCE_SAVED = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
                   "mode in computation tracked by autograd. To work around this, you can make a clone to get a "
                   "normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
                   "`torch.inference_mode()`.")


def names(fn):
    """The names of every node reachable from fn, sorted."""
    out, stack, seen = [], [fn], set()
    while stack:
        f = stack.pop()
        if f is None or id(f) in seen:
            continue
        seen.add(id(f))
        out.append(f.name())
        stack += [n for n, _ in f.next_functions]
    return sorted(out)


# --- saving ------------------------------------------------------------------------------------
def test_an_inference_tensor_cannot_be_saved_for_backward():
    def call(T):
        with T.inference_mode():
            x = T.ones(2)
        (T.ones(2, requires_grad=True) * x)   # mul saves x for the gradient of the other factor
    assert same_error(call) == INFERENCE_SAVED


# --- what an in-place write checks --------------------------------------------------------------
def test_inplace_result_of_a_wider_kind_is_refused():
    msg = same_error(lambda T: T.zeros(2, dtype=T.int64).add_(T.tensor([0.5, 1.5])))
    assert msg == "result type Float can't be cast to the desired output type Long"


def test_inplace_result_that_does_not_broadcast_to_self_is_refused():
    assert same_error(lambda T: T.zeros(1).add_(T.ones(3))) == \
        "output with shape [1] doesn't match the broadcast shape [3]"
    assert same_error(lambda T: T.zeros(2, 1).add_(T.ones(3))) == \
        "output with shape [2, 1] doesn't match the broadcast shape [2, 3]"


def test_a_boolean_result_written_into_a_negative_view_is_stored_negated():
    def scenario(T):
        x = T.tensor([1.0, -2.0, 3.0])
        y = x._neg_view()   # reads -x: [-1, 2, -3]
        y.lt_(0)            # y becomes [1, 0, 1] (as floats), so x, which stores -y, becomes [-1, 0, -1]
        return x, y.resolve_neg()
    x, y = both(scenario)
    np.testing.assert_array_equal(x, [-1.0, 0.0, -1.0])
    np.testing.assert_array_equal(y, [1.0, 0.0, 1.0])


def test_a_boolean_result_written_into_a_conjugate_view_is_stored_conjugated():
    def scenario(T):
        x = T.tensor([1 + 1j, -2 + 0j])
        y = x.conj()                              # reads [1-1j, -2]
        y.eq_(T.tensor([1 - 1j, 0j]))             # [1, 0]
        return x
    np.testing.assert_array_equal(both(scenario), [1 + 0j, 0j])


# --- writing through an expand() ------------------------------------------------------------------
def test_fill_through_an_expanded_slice_writes_at_the_slice_offset():
    def scenario(T):
        b = T.arange(4.0)
        b[2:3].expand(3).fill_(7)
        return b
    np.testing.assert_array_equal(both(scenario), [0.0, 1.0, 7.0, 3.0])


def test_masked_fill_through_an_expand_warns_at_the_callers_line():
    def scenario(T):
        e = T.tensor([1.0, 2.0]).expand(2, 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            e.masked_fill_(T.tensor([[True, False], [False, False]]), 0.0)
        return [(w.category.__name__, w.filename if HERE else None, str(w.message)[:44]) for w in caught]
    got = both(scenario)
    assert got == [["UserWarning", HERE, "Use of masked_fill_ on expanded tensors is d"]]


def test_masked_fill_through_an_expand_writes_only_the_elements_it_changes():
    # the four elements of the expand alias two; an element left as it was must not undo the write
    # of its alias, NaN included (NaN != NaN, yet writing NaN over NaN changes nothing)
    def scenario(T, start, value):
        b = T.tensor(start)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            b.expand(2, 2).masked_fill_(T.tensor([[True, False], [False, False]]), value)
        return b
    got = both(lambda T: scenario(T, [1.0, 2.0], math.nan))
    assert math.isnan(got[0]) and got[1] == 2.0
    np.testing.assert_array_equal(both(lambda T: scenario(T, [math.nan, 2.0], 5.0)), [5.0, 2.0])


# --- an in-place op on a view --------------------------------------------------------------------
def test_a_view_written_in_place_with_a_grad_requiring_value_requires_grad_itself():
    # b needs no grad until v.add_(w); afterwards v's own flag is set, so an op using v saves
    # what its gradient needs
    def scenario(T):
        b = T.zeros(3)
        v = b[:2]
        w = T.tensor([1.0, 2.0], requires_grad=True)
        w2 = T.tensor([3.0, 4.0], requires_grad=True)
        v.add_(w)
        (v * w2).sum().backward()
        return w.grad, w2.grad, v.grad_fn.name(), b.grad_fn.name()
    w_grad, w2_grad, *fns = both(scenario)
    np.testing.assert_array_equal(w_grad, [3.0, 4.0])
    np.testing.assert_array_equal(w2_grad, [1.0, 2.0])
    assert fns == ["AsStridedBackward0", "torch::autograd::CopySlices"]


def test_a_broadcast_operand_of_an_inplace_op_on_a_view_gets_its_own_shape_back():
    def scenario(T):
        b = T.zeros(3, dtype=T.float64)
        w = T.tensor([2.0], dtype=T.float64, requires_grad=True)
        b[:2].add_(w)   # w's gradient is summed from the view's shape [2] to its own [1]
        (b * T.tensor([1.0, 10.0, 100.0], dtype=T.float64)).sum().backward()
        return w.grad
    np.testing.assert_array_equal(both(scenario), [11.0])


def test_retain_grad_follows_base_and_view_to_their_new_history():
    def scenario(T):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = x * 1
        b.retain_grad()
        v = b[:2]
        v.retain_grad()
        v.mul_(2)
        ((b * T.tensor([1.0, 2.0, 3.0])).sum() + (v * T.tensor([10.0, 20.0])).sum()).backward()
        return b.grad, v.grad, x.grad
    b_grad, v_grad, x_grad = both(scenario)
    # b.grad and v.grad are the gradients of the values after the write, not before it
    np.testing.assert_array_equal(b_grad, [11.0, 22.0, 3.0])
    np.testing.assert_array_equal(v_grad, [10.0, 20.0])
    np.testing.assert_array_equal(x_grad, [22.0, 44.0, 3.0])


def _exp_on_a_view(T, keep_view):
    x = T.tensor([0.5, 1.0, 2.0], dtype=T.float64, requires_grad=True)
    b = x * 1
    v = b[:2]
    v.exp_()   # ExpBackward0 saves its result, which is the view after the write
    if not keep_view:
        del v
    g, = T.autograd.grad(b.sum(), x, create_graph=True)
    graph = names(g.grad_fn)
    g.sum().backward()
    return g, x.grad, graph


def test_the_saved_result_of_an_inplace_op_on_a_view_unpacks_with_the_views_new_history():
    g, x_grad, graph = both(lambda T: _exp_on_a_view(T, keep_view=True))
    np.testing.assert_allclose(g, [math.exp(0.5), math.e, 1.0])
    np.testing.assert_allclose(x_grad, [math.exp(0.5), math.e, 0.0])
    # the result is read through the view's history (AsStridedBackward0 of b's CopySlices)
    assert "AsStridedBackward0" in graph and "ExpBackward0" not in graph
    # that history is held weakly: once the view is gone the result unpacks to ExpBackward0 itself
    g, x_grad, graph = both(lambda T: _exp_on_a_view(T, keep_view=False))
    np.testing.assert_allclose(x_grad, [math.exp(0.5), math.e, 0.0])
    assert "ExpBackward0" in graph and "AsStridedBackward0" not in graph


def test_a_gradient_edge_of_a_base_written_through_a_view_checks_the_gradient_shape():
    def call(T):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = x * 1
        b[:1].mul_(2)   # b's history is CopySlices now: its one output has b's shape
        T.autograd.grad(T.autograd.graph.get_gradient_edge(b), x, grad_outputs=T.ones(2))
    assert same_error(call) == ("Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has "
                                "a shape of torch.Size([3]).")


# --- Tensor[] arguments -------------------------------------------------------------------------
def test_each_tensor_of_a_list_argument_gets_a_gradient_of_its_own_dtype():
    def scenario(T):
        a32 = T.tensor([1.0, 2.0], requires_grad=True)
        a = a32 * 1
        seen = []
        a.register_hook(lambda g: seen.append(str(g.dtype)))
        s = T.stack([a, T.tensor([3.0, 4.0], dtype=T.float64)])   # float64: the gradient comes back float64
        (s * T.tensor([[1.0], [2.0]], dtype=T.float64)).sum().backward()
        return seen, a32.grad
    seen, grad = both(scenario)
    assert seen == ["torch.float32"]
    np.testing.assert_array_equal(grad, [1.0, 1.0])


def test_foreach_mul_by_a_tensor_differentiates_the_tensor_factor():
    # ndgrad only: torch 2.13 refuses this backward ("inconsistent range for TensorList output");
    # the factor t scales every element of both lists, so its gradient is their sum, in its dtype
    T = ndgrad
    a = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
    b = T.tensor([3.0], dtype=T.float64, requires_grad=True)
    t0 = T.tensor(2.0, requires_grad=True)
    t = t0 * 1
    seen = []
    t.register_hook(lambda g: seen.append((g.dtype, tuple(g.shape))))
    out = T._foreach_mul([a, b], t)
    (out[0].sum() + out[1].sum()).backward()
    assert seen == [(T.float32, ())]
    assert t0.grad.item() == 6.0
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(b.grad.numpy(), [2.0])


# --- in-place ops torch forbids -----------------------------------------------------------------
FORBID_TAIL = (" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
               "moving both the view and the inplace either both inside the {} block (if you don't want the inplace "
               "to be tracked) or both outside (if you want the inplace to be tracked).")


def test_inplace_on_a_view_made_in_inference_mode():
    def direct(T):
        x = T.ones(3, requires_grad=True).clone()
        with T.inference_mode():
            v = x.view(3)
        v.mul_(2)

    def of_a_view(T):
        x = T.ones(3, requires_grad=True).clone()
        with T.inference_mode():
            v = x.view(3)
        v[:2].mul_(2)   # a view (with history) of that view
    assert same_error(direct) == ("A view was created in inference mode and is being modified inplace in normal mode."
                                  + FORBID_TAIL.format("inference_mode"))
    assert same_error(of_a_view) == ("Output 0 of Slice is a view of a view which was created in inference mode and "
                                     "is being modified inplace in normal mode." + FORBID_TAIL.format("inference_mode"))


def test_inplace_on_a_view_made_in_no_grad_mode():
    def call(T):
        x = T.ones(3, requires_grad=True).clone()
        with T.no_grad():
            v = x.view(3)
        v.mul_(2)
    assert same_error(call) == ("A view was created in no_grad mode and is being modified inplace with grad mode "
                                "enabled." + FORBID_TAIL.format("no_grad"))


def test_inplace_on_a_view_returned_by_a_custom_function_names_the_function():
    def call(T):
        class ViewBackwardish(T.autograd.Function):   # "Backward" inside the name: only the suffix is cut
            @staticmethod
            def forward(ctx, x):
                return x.view_as(x)

            @staticmethod
            def backward(ctx, g):
                return g
        ViewBackwardish.apply(T.ones(3, requires_grad=True).clone()).mul_(2)
    assert same_error(call).startswith("Output 0 of ViewBackwardish is a view and is being modified inplace. This "
                                       "view was created inside a custom Function")


INFERENCE_INPLACE = ("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to "
                     "get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for "
                     "more details.")


def test_inplace_on_an_inference_tensor_outside_inference_mode():
    def leaf_with_grad(T):
        with T.inference_mode():
            x = T.ones(3, requires_grad=True)
        x.mul_(2)   # the leaf error comes first

    def leaf_under_no_grad(T):
        with T.inference_mode():
            x = T.ones(3, requires_grad=True)
        with T.no_grad():
            x.mul_(2)   # nothing is recorded: only the inference error

    def plain(T):
        with T.inference_mode():
            x = T.ones(3)
        x.mul_(2)
    assert same_error(leaf_with_grad) == "a leaf Variable that requires grad is being used in an in-place operation."
    assert same_error(leaf_under_no_grad) == INFERENCE_INPLACE
    assert same_error(plain) == INFERENCE_INPLACE


# --- version counters set by hand ----------------------------------------------------------------
def test_unsafe_preserve_version_counter_takes_one_tensor_or_several():
    def scenario(T):
        a = T.tensor(1.0)   # 0-d: cannot be iterated
        b = T.zeros(2)
        with T.autograd._unsafe_preserve_version_counter(a):
            a.add_(1)
        first = a._version
        with T.autograd._unsafe_preserve_version_counter((a, b)):
            a.add_(1)
            b.add_(1)
            b.add_(1)
        return first, a._version, b._version, a
    assert both(scenario) == [0, 0, 0, 3.0]


# --- replaying a view with visitors -----------------------------------------------------------------
def test_view_func_visits_each_symint_of_a_size_list():
    def scenario(T):
        with T.autograd._force_original_view_tracking(True):
            base = T.tensor(np.arange(60.0).reshape(3, 4, 5))
            view = base.view(12, 5)
            return list(view._view_func(-base, symint_visitor_fn=lambda i: {12: 6, 5: 10}.get(i, i)).shape)
    assert both(scenario) == [6, 10]


def test_view_func_tensor_visitor_sees_only_tensor_arguments():
    def scenario(T):
        with T.autograd._force_original_view_tracking(True):
            base = T.tensor(np.arange(60.0).reshape(3, 4, 5))
            seen = []
            # select(dim=1, index=2): neither argument is a Tensor, so the visitor is never called
            picked = base.select(1, 2)._view_func(-base, tensor_visitor_fn=lambda t: seen.append(t) or t)
            sliced = base[:, 2:3, :].detach()
            view = T.ops.aten.slice_inverse(sliced, base, 1, 2, 3, 1)   # saves the Tensor `base`
            new_sliced = T.ones_like(base)[:, 2:3, :].detach()
            replaced = view._view_func(new_sliced, tensor_visitor_fn=lambda t: seen.append(list(t.shape))
                                       or T.zeros(1, 2, 3, dtype=T.float64))
            again = view._view_func(sliced)   # the saved argument itself once the visitor is gone
            return picked, seen, list(replaced.shape), replaced, list(again.shape)
    picked, seen, shape, replaced, again = both(scenario)
    np.testing.assert_array_equal(picked, -np.arange(60.0).reshape(3, 4, 5)[:, 2])
    assert seen == [[3, 4, 5]] and shape == [1, 2, 3] and again == [3, 4, 5]
    np.testing.assert_array_equal(replaced, np.ones((1, 2, 3)))


def test_inplace_op_on_a_dtype_view_reshaped_in_place_keeps_torchs_geometry():
    # torch re-derives a view whose chain changed the dtype from the geometry it had when made: an
    # in-place view op (t_) since then is not seen, and backward through the write fails as in torch
    def call(T):
        x = T.tensor([1 + 2j, 3 + 4j, 5 + 6j], requires_grad=True)
        c = x * 1
        s = T.view_as_real(c).t()
        s.t_()
        s.mul_(T.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
        (T.view_as_real(c) * T.tensor([[1.0, 10.0], [100.0, 1000.0], [1e4, 1e5]])).sum().backward()
    assert same_error(call) == "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"


def test_a_value_saved_for_a_parameters_gradient_is_saved():
    # Parameter is a Tensor subclass: whether its gradient is needed is asked of the subclass too
    def scenario(T):
        p = T.nn.Parameter(T.tensor([1.0, 2.0]))
        x = T.tensor([3.0, 4.0])   # saved by mul for p's gradient only
        (x * p).sum().backward()
        return p.grad
    np.testing.assert_array_equal(both(scenario), [3.0, 4.0])


def test_slice_inverse_reads_the_input_in_its_own_dtype():
    # torch: input.as_strided(src's sizes, strides, offset), whatever src's dtype
    def scenario(T):
        base = T.tensor(np.arange(60.0).reshape(3, 4, 5))
        sliced = base[:, 2:3, :].detach()
        whole = T.ops.aten.slice_inverse(sliced, T.zeros(3, 4, 5), 1, 2, 3, 1)   # src float32, input float64
        return str(whole.dtype), whole
    dtype, whole = both(scenario)
    assert dtype == "torch.float64"
    np.testing.assert_array_equal(whole, np.arange(60.0).reshape(3, 4, 5))
