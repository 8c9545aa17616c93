"""torch._vmap_internals (the legacy vmap over func.vmap), torch.autograd.torch, and the error of
NotImplemented nodes recorded by in-place calls."""
import warnings

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
