"""torch._vmap_internals (the legacy vmap over func.vmap), torch.autograd.torch, and the error of
NotImplemented nodes recorded by in-place calls."""
import warnings

import numpy as np
import pytest

import ndgrad
from parity import both, lists, same_error


def _x(T):
    return T.arange(6.0, dtype=T.float64).reshape(2, 3)


def test_legacy_vmap_maps_over_in_dims_and_stacks_along_out_dims():
    def scenario(T):
        v = T._vmap_internals._vmap
        x = _x(T)
        return [v(T.sum, 0, 0)(x), v(T.sum, 1, 0)(x), v(lambda a: a * 2, 0, 1)(x),
                v(T.dot, (0, None))(x, T.ones(3, dtype=T.float64)),
                list(v(lambda a: (a, a.sum()), 0, (1, 0))(x))]
    r = lists(both(scenario))
    assert r[0] == [3.0, 12.0] and r[1] == [3.0, 5.0, 7.0]
    assert r[2] == [[0.0, 6.0], [2.0, 8.0], [4.0, 10.0]]
    assert r[3] == [3.0, 12.0]
    assert r[4][0] == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]] and r[4][1] == [3.0, 12.0]


def test_legacy_vmap_returns_a_single_tensor_or_a_tuple_as_func_did():
    x = _x(ndgrad)
    v = ndgrad._vmap_internals._vmap
    assert isinstance(v(lambda a: a)(x), ndgrad.Tensor)
    out = v(lambda a: (a,))(x)
    assert isinstance(out, tuple) and len(out) == 1


def test_legacy_vmap_passes_none_outputs_through_only_when_allowed():
    def scenario(T):
        out = T._vmap_internals._vmap(lambda a: (None, a + 1), 0, (0, 1), allow_none_pass_through=True)(_x(T))
        return [out[0] is None, out[1]]
    r = lists(both(scenario))
    assert r == [True, [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]]
    same_error(lambda T: T._vmap_internals._vmap(lambda a: (a, None))(_x(T)), ValueError)


@pytest.mark.parametrize("case", ["negative_in_dim", "out_dims_type", "out_dims_count", "non_tensor",
                                  "non_tensor_in_tuple", "sizes", "in_dims_structure", "non_tensor_input_first"])
def test_legacy_vmap_errors_are_torchs(case):
    def call(T):
        v, x = T._vmap_internals._vmap, _x(T)
        if case == "negative_in_dim":
            return v(T.sum, -1)(x)
        if case == "out_dims_type":
            return v(T.sum, 0, "a")(x)
        if case == "out_dims_count":
            return v(lambda a: (a, a), 0, (0, 0, 0))(x)
        if case == "non_tensor":
            return v(lambda a: 1.0)(x)
        if case == "non_tensor_in_tuple":
            return v(lambda a: (a, [a]))(x)
        if case == "sizes":
            return v(T.add)(x, T.ones(3, 3, dtype=T.float64))
        if case == "non_tensor_input_first":   # reported before a later input's negative in_dim
            return v(lambda a, b: b, (0, -1))(1.0, x)
        return v(T.add, (0,))(x, x)
    msg = same_error(call, ValueError)
    assert msg.startswith("vmap")


def test_legacy_vmap_public_form_is_deprecated():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = ndgrad._vmap_internals.vmap(ndgrad.sum)(_x(ndgrad))
    assert out.tolist() == [3.0, 12.0]
    assert any(issubclass(x.category, FutureWarning) and "torch.vmap" in str(x.message) for x in w)


def test_legacy_vmap_of_a_forward_ad_jvp_gives_each_samples_tangent():
    def scenario(T):
        fw = T.autograd.forward_ad
        primal = T.tensor([1.0, 2.0, 3.0], dtype=T.float64)

        def jvp(t):
            with fw.dual_level():
                return fw.unpack_dual(fw.make_dual(primal, t) ** 2)[1]
        return T._vmap_internals._vmap(jvp, 0, 0)(T.eye(3, dtype=T.float64))
    assert lists(both(scenario)) == [[2.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 6.0]]


def test_autograd_torch_is_the_root_package():
    assert ndgrad.autograd.torch is ndgrad
    with pytest.raises(AttributeError):
        ndgrad.autograd.no_such_name


@pytest.mark.parametrize("op", ["floor_divide", "heaviside"])
def test_not_implemented_node_names_the_inplace_op_it_was_recorded_by(op):
    def backward(T, inplace):
        a = T.tensor([1.5, 2.5], dtype=T.float64, requires_grad=True).clone()
        b = T.tensor([0.5, 1.0], dtype=T.float64)
        r = getattr(a, op + "_")(b) if inplace else getattr(T, op)(a, b)
        assert r.grad_fn.name() == "torch::autograd::NotImplemented"
        r.sum().backward()
    assert same_error(lambda T: backward(T, True)) == f"derivative for aten::{op}_ is not implemented"
    assert same_error(lambda T: backward(T, False)) == f"derivative for aten::{op} is not implemented"


# --- identity of what vmap wraps, and forward AD with tangents batched by vmap --------------------
def test_vmap_returns_an_input_returned_untouched_at_its_in_dim_as_itself():
    def scenario(T):
        x, y = _x(T), _x(T).t()
        leaf = _x(T).requires_grad_()
        legacy = T._vmap_internals._vmap
        same = [legacy(lambda a: a)(x) is x, T.vmap(lambda a: a)(x) is x, legacy(lambda a: a, 1, 1)(y) is y,
                legacy(lambda a: a)(leaf) is leaf]
        pair = legacy(lambda a: (a * 2, a))(x)
        moved = legacy(lambda a: a, 0, 1)(x)
        return same + [pair[1] is x, moved is x, moved]
    r = lists(both(scenario))
    assert r[:6] == [True] * 5 + [False]
    assert r[6] == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]


def _fw_vmap(T, fn, *args, in_dims=0):
    """fn run by the legacy vmap inside a dual level opened in the vmapped function."""
    def inner(*a):
        with T.autograd.forward_ad.dual_level():
            return fn(*a)
    return T._vmap_internals._vmap(inner, in_dims, 0)(*args)


def test_a_tangent_batched_by_vmap_is_kept_and_flows_batched():
    fwad = ndgrad.autograd.forward_ad
    seen = {}

    def scenario(T):
        fw = T.autograd.forward_ad
        primal = T.tensor([0.5, 1.0, 2.0], dtype=T.float64)

        def fn(tangent):
            dual = fw.make_dual(primal, tangent)
            seen[T] = fw.unpack_dual(dual).tangent is tangent   # the batched tangent itself, no copy
            p, t = fw.unpack_dual(dual.sin() * dual + 1)
            return fw.unpack_dual(dual).tangent, p, t
        tangents = T.arange(6.0, dtype=T.float64).reshape(2, 3)
        kept, p, t = _fw_vmap(T, fn, tangents)
        return [kept is tangents, p, t]
    r = both(scenario)
    assert r[0] is True and seen[ndgrad] is True
    x = np.array([0.5, 1.0, 2.0])
    v = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(r[1], np.tile(np.sin(x) * x + 1, (2, 1)))
    np.testing.assert_allclose(r[2], v * (np.cos(x) * x + np.sin(x)))
    assert fwad._current_level == -1


def test_a_batched_tangent_of_another_layout_is_copied_into_the_primals():
    def scenario(T):
        fw = T.autograd.forward_ad
        primal = T.zeros(2, 2, dtype=T.float64).t()   # the tangent's per-sample strides differ: a copy
        offset = T.zeros(5, dtype=T.float64)[1:]        # the tangent's storage offset differs: a copy
        plain = T.zeros(5, dtype=T.float64)[:4]         # only the storage size differs: not checked, kept
        tangents = T.arange(8.0, dtype=T.float64).reshape(2, 2, 2)
        flat = T.arange(8.0, dtype=T.float64).reshape(2, 4)
        out = _fw_vmap(T, lambda t: fw.unpack_dual(fw.make_dual(primal, t)).tangent, tangents)
        out2 = _fw_vmap(T, lambda t: fw.unpack_dual(fw.make_dual(offset, t)).tangent, flat)
        out3 = _fw_vmap(T, lambda t: fw.unpack_dual(fw.make_dual(plain, t)).tangent, flat)
        return [out is tangents, out2 is flat, out3 is flat, out, out2]
    r = both(scenario)
    assert r[:3] == [False, False, True]
    np.testing.assert_array_equal(r[3], np.arange(8.0).reshape(2, 2, 2))
    np.testing.assert_array_equal(r[4], np.arange(8.0).reshape(2, 4))


def test_in_place_copy_of_a_batched_dual_into_a_view_gives_its_base_a_batched_tangent():
    def scenario(T):
        fw = T.autograd.forward_ad
        tangents = T.arange(8.0, dtype=T.float64).reshape(2, 2, 2)
        out = []
        for view in (T.zeros(2, 2, dtype=T.float64).view(2, 2), T.zeros(2, 2, dtype=T.float64).t()):
            def fn(t):
                x = fw.make_dual(T.ones(2, 2, dtype=T.float64), t)
                view.copy_(x)
                return (fw.unpack_dual(x).tangent, fw.unpack_dual(view).tangent,
                        fw.unpack_dual(view._base).tangent)
            x_t, view_t, base_t = _fw_vmap(T, fn, tangents)
            # the same layout as the base: one tensor, no view; else the view's tangent views the base's
            out += [x_t is tangents, view_t is base_t, view_t._base is base_t, view_t._is_view(), view_t, base_t]
        return out
    r = both(scenario)
    assert r[0:4] == [True, True, False, False] and r[6:10] == [True, False, True, True]
    v = np.arange(8.0).reshape(2, 2, 2)
    np.testing.assert_array_equal(r[4], v)
    np.testing.assert_array_equal(r[5], v)
    np.testing.assert_array_equal(r[10], v)
    np.testing.assert_array_equal(r[11], v.transpose(0, 2, 1))


def test_as_strided_of_a_batched_tangent_stays_inside_each_sample():
    def scenario(T):
        fw = T.autograd.forward_ad
        primal = T.zeros(5, dtype=T.float64)[:4]

        def fn(t):
            dual = fw.make_dual(primal, t)
            try:
                dual.as_strided((5,), (1,), 0)
                message = None
            except RuntimeError as e:
                message = str(e)
            return fw.unpack_dual(dual.as_strided((2,), (2,), 1)).tangent, T.tensor(len(message or ""))
        tangent, length = _fw_vmap(T, fn, T.arange(12.0, dtype=T.float64).reshape(3, 4))
        return [tangent, length]
    r = both(scenario)
    np.testing.assert_array_equal(r[0], [[1.0, 3.0], [5.0, 7.0], [9.0, 11.0]])
    assert r[1].tolist() == [303, 303, 303]
