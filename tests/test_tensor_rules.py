"""Tensor bookkeeping stated by hand (issue 18, mutation testing of _tensor.py): the legacy constructor,
requires_grad and its errors, grad_fn / is_leaf / output_nr / retains_grad, the version counter,
.grad's checks, .data, detach and detach_. Each scenario also runs on torch where installed."""
import os
import warnings

import numpy as np
import pytest

import ndgrad

from parity import both, lists, same_error

# the file a warning should point at (its stacklevel); under tools/mutation.py, mutmut's trampolines add
# frames between the caller and ndgrad's code, so there the check is left out
HERE = __file__ if "MUTANT_UNDER_TEST" not in os.environ else None


# --- the legacy constructor ---------------------------------------------------------------------
def test_legacy_constructor_aliases_a_tensor():
    def scenario(T):
        t = T.tensor([1.0, 2.0])
        a = T.Tensor(t)
        a.add_(1)   # same memory, same version counter
        return t, t._version, a._version, a.requires_grad, a.grad_fn is None, a.output_nr
    assert lists(both(scenario)) == [[2.0, 3.0], 1, 1, False, True, 0]


def test_legacy_constructor_keeps_the_lazy_conjugate_and_negative_bits():
    def scenario(T):
        c = T.Tensor(T.tensor([1 + 2j]).conj())
        n = T.Tensor(T.tensor([1.0, 2.0])._neg_view())
        return c.is_conj(), c.resolve_conj(), n.is_neg(), n.resolve_neg()
    conj, c, neg, n = both(scenario)
    assert conj and neg
    np.testing.assert_array_equal(c, [1 - 2j])
    np.testing.assert_array_equal(n, [-1.0, -2.0])


def test_legacy_constructor_sizes_and_empty():
    def scenario(T):
        t = T.Tensor(2, 3)
        return list(t.shape), str(t.dtype), t.requires_grad, t._version, list(T.Tensor().shape)
    assert both(scenario) == [[2, 3], "torch.float32", False, 0, [0]]
    # ndgrad's zero-fills (torch leaves the memory uninitialized) and takes requires_grad (torch does not)
    t = ndgrad.Tensor([1.0, 2.0], requires_grad=True)
    assert t.requires_grad and t.is_leaf
    np.testing.assert_array_equal(ndgrad.Tensor(2).numpy(), [0.0, 0.0])
    assert not ndgrad.Tensor([1.0]).requires_grad


# --- requires_grad -------------------------------------------------------------------------------
def test_requires_grad_errors_are_worded_per_entry_point():
    def non_leaf(T):
        y = T.tensor([1.0, 2.0], requires_grad=True) * 2
        y.requires_grad = False
    assert same_error(non_leaf) == ("you can only change requires_grad flags of leaf variables. If you want to use a "
                                    "computed variable in a subgraph that doesn't require differentiation use "
                                    "var_no_grad = var.detach().")

    def non_leaf_attribute(T):
        y = T.tensor([1.0, 2.0], requires_grad=True) * 2
        y.requires_grad = True
    assert same_error(non_leaf_attribute) == "you can only change requires_grad flags of leaf variables."
    assert same_error(lambda T: T.tensor([1, 2]).requires_grad_()) == \
        "only Tensors of floating point dtype can require gradients"
    assert same_error(lambda T: setattr(T.tensor([1, 2]), "requires_grad", True)) == \
        "only Tensors of floating point and complex dtype can require gradients"

    def inference(T):
        with T.inference_mode():
            a = T.ones(2)
        a.requires_grad_()
    assert same_error(inference) == \
        "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."


def test_requires_grad_flags_that_are_allowed():
    def scenario(T):
        y = T.tensor([1.0, 2.0], requires_grad=True) * 2
        y.requires_grad_()              # a no-op on a non-leaf (the attribute refuses, below)
        a = T.ones(2)
        same = a.requires_grad_() is a
        b = T.ones(2).requires_grad_(False)
        i = T.tensor([1, 2]).requires_grad_(False)   # False is fine on any dtype
        with T.inference_mode():
            c = T.ones(2).requires_grad_()
        return y.requires_grad, same, a.requires_grad, b.requires_grad, i.requires_grad, c.requires_grad
    assert both(scenario) == [True, True, True, False, False, True]
    a = ndgrad.ones(2).requires_grad_(1)   # ndgrad stores a bool (torch refuses an int here)
    assert a.requires_grad is True


# --- grad_fn, is_leaf, output_nr, retains_grad, views ----------------------------------------------
def test_history_fields():
    def scenario(T):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        parts = (x * 1).unbind()
        values, indices = T.max(T.ones(2, 3, requires_grad=True) * 1, 0)
        before = y.retains_grad
        y.retain_grad()
        plain = T.ones(2)
        return [x.is_leaf, y.is_leaf, plain.is_leaf, x.grad_fn is None, y.grad_fn.name(),
                [p.output_nr for p in parts], values.output_nr, indices.output_nr,
                x.retains_grad, before, y.retains_grad]
    assert both(scenario) == [True, False, True, True, "MulBackward0", [0, 1, 2], 0, 0, False, False, True]


def test_is_view_and_a_views_requires_grad_follow_the_base():
    def scenario(T):
        b = T.ones(3)
        v = b[:2]
        early = v.requires_grad
        b.requires_grad_()        # a view requires grad once its base does
        return v._is_view(), b._is_view(), v._base is b, early, v.requires_grad, v.is_leaf, v.grad_fn
    assert both(scenario) == [True, False, True, False, True, True, None]


def test_a_view_regenerates_its_grad_fn_after_its_base_is_written():
    def scenario(T):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = x * 1
        v = b[:2]
        first = v.grad_fn.name()
        b.mul_(2)
        second = v.grad_fn.name()
        (v * T.tensor([1.0, 10.0])).sum().backward()
        return first, second, x.grad
    first, second, grad = both(scenario)
    assert (first, second) == ("SliceBackward0", "AsStridedBackward0")
    np.testing.assert_array_equal(grad, [2.0, 20.0, 0.0])

    def no_grad_base(T):
        b = T.ones(3)
        v = b[:2]
        b.mul_(2)   # no history to regenerate
        return v.grad_fn, v.requires_grad
    assert both(no_grad_base) == [None, False]


# --- the version counter ---------------------------------------------------------------------------
def test_version_counter_starts_at_zero_and_refuses_inference_tensors():
    def scenario(T):
        a = T.ones(2)
        y = T.ones(2, requires_grad=True) * 1
        return a._version, y._version, T.zeros(3)[1:]._version
    assert both(scenario) == [0, 0, 0]

    def inference(T):
        with T.inference_mode():
            a = T.ones(2)
        return a._version
    assert same_error(inference) == "Inference tensors do not track version counter."


# --- .grad -----------------------------------------------------------------------------------------
def test_reading_grad_of_a_non_leaf_warns_at_the_callers_line():
    def scenario(T):
        y = T.ones(2, requires_grad=True) * 2
        r = T.ones(2, requires_grad=True) * 2
        r.retain_grad()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = y.grad
            r.grad   # retained: no warning
            T.ones(2, requires_grad=True).grad   # a leaf: no warning
        return got, [(w.category.__name__, w.filename if HERE else None, str(w.message)[:52]) for w in caught]
    got, caught = both(scenario)
    assert got is None
    assert caught == [["UserWarning", HERE, "The .grad attribute of a Tensor that is not a leaf T"]]


def test_assigning_grad_is_checked():
    assert same_error(lambda T: setattr(T.ones(3, requires_grad=True), "grad", 3), TypeError) == \
        "assigned grad expected to be a Tensor or None but got grad of type int"

    def own(T):
        a = T.ones(3, requires_grad=True)
        a.grad = a
    assert same_error(own) == "can't assign Variable as its own grad"
    assert same_error(lambda T: setattr(T.ones(3, requires_grad=True), "grad", T.ones(2))) == (
        "attempting to assign a gradient of size '[2]' to a tensor of size '[3]'. Please ensure that the gradient "
        "and the tensor are the same size")
    assert same_error(lambda T: setattr(T.ones(3, requires_grad=True), "grad", T.ones(3, dtype=T.float64))) == (
        "attempting to assign a gradient with dtype 'double' to a tensor with grad_dtype 'Float'. The gradient must "
        "match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype "
        "attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the "
        "dtypes of a tensor and its gradient may break downstream systems that assume they match.")


def test_assigning_and_deleting_grad():
    def scenario(T):
        a = T.ones(3, requires_grad=True)
        a.grad = T.full((3,), 2.0)
        first = a.grad
        a.grad = None
        cleared = a.grad
        a.grad = T.ones(3)
        del a.grad
        b = T.ones(2, requires_grad=True)
        b.grad_dtype = None   # any dtype is accepted now
        b.grad = T.ones(2, dtype=T.float64)
        return first, cleared, a.grad, str(b.grad.dtype)
    assert lists(both(scenario)) == [[2.0, 2.0, 2.0], None, None, "torch.float64"]


# --- .data -----------------------------------------------------------------------------------------
def test_data_shares_memory_but_not_the_version_counter():
    def scenario(T):
        x = T.ones(2, requires_grad=True) * 1
        x.add_(1)
        d = x.data
        fresh = d._version
        d.add_(1)   # unseen by x's version counter: that is what .data is for
        return x, x._version, fresh, d._version, d.requires_grad, d.grad_fn, d.is_leaf
    assert lists(both(scenario)) == [[3.0, 3.0], 1, 0, 1, False, None, True]


def test_data_of_a_lazy_negative_view_reads_as_the_view():
    def scenario(T):
        n = T.tensor([1.0, 2.0])._neg_view()
        return n.data.is_neg(), n.data.resolve_neg()
    neg, values = both(scenario)
    assert neg
    np.testing.assert_array_equal(values, [-1.0, -2.0])


def test_setting_data():
    def scenario(T):
        p = T.ones(2, requires_grad=True)
        p.data = T.tensor([5.0, 6.0, 7.0])   # shape may change; history and flag stay
        n = T.ones(2)
        n.data = T.tensor([1.0, 2.0])._neg_view()   # the new data's bits come with it
        c = T.tensor([1.0, 2.0])._neg_view()
        c.data = T.tensor([3.0, 4.0])         # ... and a plain tensor clears them
        return p, p.requires_grad, n.is_neg(), n.resolve_neg(), c.is_neg(), c
    assert lists(both(scenario)) == [[5.0, 6.0, 7.0], True, True, [-1.0, -2.0], False, [3.0, 4.0]]
    assert same_error(lambda T: setattr(T.ones(2), "data", 3), TypeError) == \
        "Variable data has to be a tensor, but got int"
    assert same_error(lambda T: setattr(T.ones(2, requires_grad=True), "data", T.tensor([1, 2]))) == \
        "data set to a tensor that requires gradients must be floating point or complex dtype"
    assert same_error(lambda T: delattr(T.ones(2), "data")) == \
        "Deleting tensor data is not allowed. Delete tensor instead!"


INCOMPATIBLE = ("Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have incompatible tensor "
                "type.")


def test_setting_data_across_layouts_is_refused():
    def nested(T):
        return T.nested.nested_tensor([T.ones(2), T.ones(3)])
    assert same_error(lambda T: setattr(T.ones(2, 2), "data", T.ones(2, 2).to_sparse())) == INCOMPATIBLE
    assert same_error(lambda T: setattr(T.ones(2, 2).to_sparse(), "data", T.ones(2, 2))) == INCOMPATIBLE
    assert same_error(lambda T: setattr(T.ones(2), "data", nested(T))) == INCOMPATIBLE
    assert same_error(lambda T: setattr(nested(T), "data", T.ones(2))) == INCOMPATIBLE


def test_setting_data_within_a_layout():
    def scenario(T):
        s = T.ones(2, 2).to_sparse()
        s.data = T.zeros(2, 2).to_sparse()
        n = T.nested.nested_tensor([T.ones(2), T.ones(3)])
        n.data = T.nested.nested_tensor([T.zeros(2), T.full((3,), 2.0)])
        a = T.ones(2)
        a.data = T.tensor([1, 2])   # a tensor that needs no grad may take integer data
        return s.to_dense(), [t for t in n.unbind()], str(a.dtype)
    assert lists(both(scenario)) == [[[0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [2.0, 2.0, 2.0]], "torch.int64"]


# --- detach and detach_ ----------------------------------------------------------------------------
def test_detach_shares_memory_and_version_but_is_no_view():
    def scenario(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        d = y.detach()
        d.add_(1)
        c = T.tensor([1 + 2j], requires_grad=True).conj().detach()
        mean = T.var_mean(x * 1)[1].detach()   # output 1 of its node; the detached tensor is nobody's output
        return (y, y._version, d._version, d.requires_grad, d.grad_fn, d._is_view(), d.is_leaf, c.is_conj(),
                mean.output_nr)
    assert lists(both(scenario)) == [[3.0, 5.0], 1, 1, False, None, False, True, True, 0]


def test_detach_in_place():
    def scenario(T):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        var, z = T.var_mean(x * 1)   # the mean is output 1 of its node, and no view
        before = z.output_nr
        out = z.detach_()
        return before, out is z, z.requires_grad, z.grad_fn, z.is_leaf, z.output_nr
    assert both(scenario) == [1, True, False, None, True, 0]
    # any view is refused, whether or not its base requires grad
    assert same_error(lambda T: T.ones(3)[:2].detach_()).startswith("Can't detach views in-place.")
    assert same_error(lambda T: (T.ones(2, requires_grad=True) * 1)[:1].detach_()) == (
        "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for "
        "training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence "
        "detach_() cannot be called on these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
        "function in torch/optim/optimizer.py as the solution.")


def test_detach_in_place_drops_the_tangent():
    def scenario(T):
        with T.autograd.forward_ad.dual_level():
            d = T.autograd.forward_ad.make_dual(T.ones(2), T.full((2,), 3.0)) * 1
            before = T.autograd.forward_ad.unpack_dual(d).tangent
            d.detach_()
            return before, T.autograd.forward_ad.unpack_dual(d).tangent
    assert lists(both(scenario)) == [[3.0, 3.0], None]


def test_a_node_that_saved_a_tensor_detached_in_place_refuses_it():
    def call(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        z = y * y   # saves y with its history
        y.detach_()
        z.sum().backward()
    assert same_error(call) == ("Trying to use a saved tensor that has been detached in-place, i.e. with "
                                ".detach_().This is not supported, please use out-of-place `.detach()` instead")


def test_legacy_constructor_takes_a_device():
    assert both(lambda T: [str(T.Tensor(2, device="cpu").device), list(T.Tensor(2, device="cpu").shape)]) == \
        ["cpu", [2]]
    # ndgrad's legacy constructor has only the CPU wired (torch also makes meta tensors here)
    with pytest.raises(NotImplementedError, match="legacy tensor constructor"):
        ndgrad.Tensor(2, 3, device="meta")
