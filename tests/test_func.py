"""ndgrad.func: grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, vmap, functional_call.

Scenarios are written against the torch API and run through tests/parity.py on ndgrad and
torch.func: the same values, gradients, Jacobians, shapes, requires_grad flags and errors.
vmap is also checked against the Python loop it must equal.
"""
import numpy as np
import pytest

import ndgrad
from ndgrad.utils import _pytree
from parity import both, parity, same_error


def X(T, *shape, lo=0.3, hi=1.7):
    n = int(np.prod(shape)) if shape else 1
    return T.tensor(np.linspace(lo, hi, n).reshape(shape), dtype=T.float64)


def tree(x):
    """Dicts as [key, value] lists so that the parity harness compares them."""
    if isinstance(x, dict):
        return [[k, tree(x[k])] for k in sorted(x)]
    if isinstance(x, (list, tuple)):
        return [tree(v) for v in x]
    return x


def cube(x):
    return (x ** 3).sum()


# --- grad / grad_and_value ---------------------------------------------------------------------
def test_grad_of_a_scalar_function():
    parity(lambda T: T.func.grad(lambda x: (x.sin() * x).sum())(X(T, 2, 3)))


def test_grad_argnums_tuple_and_negative():
    parity(lambda T: T.func.grad(lambda x, y: (x * y.exp()).sum(), argnums=(0, 1))(X(T, 3), X(T, 3, lo=-1)))
    parity(lambda T: T.func.grad(lambda x, y: (x * y.exp()).sum(), argnums=-1)(X(T, 3), X(T, 3, lo=-1)))


def test_grad_has_aux_returns_aux_untouched():
    parity(lambda T: T.func.grad(lambda x: ((x ** 2).sum(), (x.cos(), [x * 2])), has_aux=True)(X(T, 3)))
    same_error(lambda T: T.func.grad(lambda x: (x.sum(), "tag"), has_aux=True)(X(T, 3)))


def test_grad_and_value():
    parity(lambda T: T.func.grad_and_value(lambda x: (x.tanh() * 2).sum())(X(T, 4)))


def test_grad_with_respect_to_a_pytree():
    parity(lambda T: tree(T.func.grad(lambda p: (p["w"] * p["b"][0]).sum() + p["b"][1].sum())(
        {"w": X(T, 3), "b": [X(T, 3, lo=2), X(T, 2)]})))


def test_grad_of_grad():
    parity(lambda T: T.func.grad(T.func.grad(lambda x: x.sin() * x ** 2))(T.tensor(0.7, dtype=T.float64)))
    parity(lambda T: T.func.grad(T.func.grad(T.func.grad(lambda x: x.exp() * x)))(T.tensor(0.4, dtype=T.float64)))


def test_no_perturbation_confusion():
    # d/dx [x * d/dy (x + y)] = 1: the inner level must not see the outer x as its own input
    parity(lambda T: T.func.grad(lambda x: x * T.func.grad(lambda y: x + y)(x))(T.tensor(2.0, dtype=T.float64)))
    parity(lambda T: T.func.grad(lambda x: T.func.grad(lambda y: (x * y) ** 2)(x))(T.tensor(1.5, dtype=T.float64)))


def test_grad_outputs_are_detached_unless_a_captured_tensor_requires_grad():
    def scenario(T):
        w = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
        plain = T.func.grad(cube)(X(T, 3))
        g, v = T.func.grad_and_value(lambda x: (x * w).sum())(X(T, 3))
        return [plain.requires_grad, g.requires_grad, v.requires_grad, plain]
    assert both(scenario)[:3] == [False, True, True]


def test_gradient_flows_to_captured_tensors():
    def scenario(T):
        w = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
        g = T.func.grad(lambda x: (x ** 2 * w).sum())(X(T, 3))
        g.sum().backward()
        return [g, w.grad]
    parity(scenario)


def test_grad_of_an_unused_input_is_zero():
    parity(lambda T: T.func.grad(lambda x, y: (y * 2).sum(), argnums=(0, 1))(X(T, 2), X(T, 2)))
    parity(lambda T: T.func.grad(lambda x: T.tensor(1.0))(X(T, 2)))


@pytest.mark.parametrize("call, exc", [
    (lambda T: T.func.grad(lambda x: x * 2)(X(T, 3)), RuntimeError),
    (lambda T: T.func.grad(lambda x: x.sum(), has_aux=True)(X(T, 3)), RuntimeError),
    (lambda T: T.func.grad(lambda x: 3.0)(X(T, 3)), RuntimeError),
    (lambda T: T.func.grad(lambda x: x.sum(), argnums=3)(X(T, 3)), RuntimeError),
    (lambda T: T.func.grad(lambda x: x.sum(), argnums=())(X(T, 3)), RuntimeError),
    (lambda T: T.func.grad(lambda x: x.sum(), argnums=(0, 0))(X(T, 3)), RuntimeError),
    (lambda T: T.func.grad(lambda x: x.sum(), argnums=1.0)(X(T, 3)), RuntimeError),
    (lambda T: T.func.grad(lambda x: x.sum())(3.0), ValueError),
    (lambda T: T.func.grad(lambda x: x.sum())(T.tensor([1, 2])), RuntimeError),
])
def test_grad_errors_match_torch(call, exc):
    same_error(call, exc)


# --- vjp / jvp -----------------------------------------------------------------------------------
def test_vjp_several_outputs_and_repeated_calls():
    def scenario(T):
        out, fn = T.func.vjp(lambda x, y: (x * y, x.sin()), X(T, 3), X(T, 3, lo=-1))
        first = fn((X(T, 3), X(T, 3, lo=2)))
        return [out, first, fn((T.ones(3, dtype=T.float64), T.zeros(3, dtype=T.float64)))]
    parity(scenario)


def test_vjp_has_aux():
    def scenario(T):
        out, fn, aux = T.func.vjp(lambda x: (x.exp(), {"n": x.sum()}), X(T, 2, 2), has_aux=True)
        return [out, fn(X(T, 2, 2)), tree(aux), out.requires_grad]
    parity(scenario)


def test_vjp_errors_match_torch():
    same_error(lambda T: T.func.vjp(lambda x: 3, X(T, 3)))
    same_error(lambda T: T.func.vjp(lambda x: x, X(T, 3), has_aux=True))
    same_error(lambda T: T.func.vjp(lambda x: x * 2, X(T, 3))[1]((X(T, 3),)))
    same_error(lambda T: T.func.vjp(lambda x: x * 2, X(T, 3))[1](X(T, 4)))


def test_jvp():
    parity(lambda T: T.func.jvp(lambda x, y: (x * y).sin(), (X(T, 3), X(T, 3, lo=-1)), (X(T, 3), X(T, 3, lo=2))))


def test_jvp_has_aux_and_pytree_outputs():
    parity(lambda T: tree(T.func.jvp(lambda x: ({"a": x.exp(), "b": [x * 2]}, x.sum()), (X(T, 2),), (X(T, 2),),
                                   has_aux=True)))


def test_grad_of_jvp_and_jvp_of_grad():
    parity(lambda T: T.func.grad(lambda x: T.func.jvp(lambda y: (y ** 3).sum(), (x,), (T.ones_like(x),))[1])(X(T, 3)))
    parity(lambda T: T.func.jvp(T.func.grad(cube), (X(T, 3),), (X(T, 3, lo=1),)))


@pytest.mark.parametrize("call", [
    lambda T: T.func.jvp(lambda x: x * 2, X(T, 3), X(T, 3)),
    lambda T: T.func.jvp(lambda x: x * 2, (X(T, 3),), (X(T, 3), X(T, 3))),
    lambda T: T.func.jvp(lambda x: x * 2, (X(T, 3),), X(T, 3)),
    lambda T: T.func.jvp(lambda x: 3, (X(T, 3),), (X(T, 3),)),
    lambda T: T.func.jvp(lambda x: x, (X(T, 3),), (X(T, 3),), has_aux=True),
    lambda T: T.func.jvp(lambda x: x, (3.0,), (3.0,)),
    lambda T: T.func.jvp(lambda x: x * 2, (X(T, 3),), (X(T, 4),)),
])
def test_jvp_errors_match_torch(call):
    same_error(call)


# --- jacrev / jacfwd / hessian -------------------------------------------------------------------
@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobian(jac):
    parity(lambda T: getattr(T.func, jac)(lambda x: (x.outer(x)).sin())(X(T, 3)))


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobian_argnums_tuple_and_aux(jac):
    parity(lambda T: getattr(T.func, jac)(lambda x, y: ((x @ y).exp(), y.sum()), argnums=(0, 1), has_aux=True)(
        X(T, 2, 3), X(T, 3)))


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobian_of_pytrees(jac):
    parity(lambda T: tree(getattr(T.func, jac)(lambda p: {"o": p["k"] * 2, "q": (p["l"][0].sum(),)})(
        {"k": X(T, 2), "l": (X(T, 3),)})))


def test_jacobian_chunk_size_is_accepted():
    parity(lambda T: T.func.jacrev(lambda x: x.cumsum(0), chunk_size=2)(X(T, 4)))
    jac = ndgrad.func.jacfwd(lambda x: x.cumsum(0), chunk_size=2)(X(ndgrad, 4))   # torch's jacfwd has none
    np.testing.assert_allclose(jac.numpy(), np.tril(np.ones((4, 4))))


def test_hessian():
    parity(lambda T: T.func.hessian(lambda x, y: (x.sin() * y ** 2).sum(), argnums=(0, 1))(X(T, 2), X(T, 2, lo=-1)))


@pytest.mark.parametrize("outer", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("inner", ["jacrev", "jacfwd"])
def test_nested_jacobians(outer, inner):
    parity(lambda T: getattr(T.func, outer)(getattr(T.func, inner)(lambda x: (x.exp() * x.sum()).sin()))(X(T, 3)))


def test_jacobian_errors_match_torch():
    same_error(lambda T: T.func.jacrev(lambda x: 3)(X(T, 3)))
    same_error(lambda T: T.func.jacrev(lambda x: x * 2, has_aux=True)(X(T, 3)))
    same_error(lambda T: T.func.jacfwd(lambda x: x * 2, has_aux=True)(X(T, 3)))
    same_error(lambda T: T.func.jacfwd(lambda x: x, randomness="x")(X(T, 3)))
    same_error(lambda T: T.func.jacrev(lambda x: x, chunk_size=0)(X(T, 3)), ValueError)
    same_error(lambda T: T.func.jacrev(lambda x: x)(3.0), ValueError)


# --- vmap ----------------------------------------------------------------------------------------
def test_vmap_equals_a_python_loop():
    def scenario(T):
        x, y = X(T, 4, 3), X(T, 3, lo=-2)
        f = lambda a, b: (a * b).softmax(0) @ b  # noqa: E731
        return [T.vmap(f, in_dims=(0, None))(x, y), T.stack([f(x[i], y) for i in range(4)])]
    out = both(scenario)
    np.testing.assert_allclose(out[0], out[1])


def test_vmap_in_dims_and_out_dims():
    parity(lambda T: T.vmap(lambda a, b: (a + b, a.sum()), in_dims=(1, 0), out_dims=(1, 0))(X(T, 3, 2), X(T, 2, 3)))
    parity(lambda T: T.vmap(lambda a: a * 2, in_dims=-1, out_dims=-1)(X(T, 2, 3)))


def test_vmap_nested_in_dims_and_kwargs():
    parity(lambda T: T.vmap(lambda p, s, scale=1.0: (p[0] * p[1]["w"] + s) * scale, in_dims=((0, {"w": None}), 1))(
        (X(T, 2, 3), {"w": X(T, 3)}), X(T, 3, 2), scale=2.0))


def test_vmap_out_dims_none_returns_the_unbatched_output():
    parity(lambda T: T.vmap(lambda a, b: (a * 2, b + 1, "x"), in_dims=(0, None), out_dims=(0, None, None))(
        X(T, 2, 3), X(T, 3)))


def test_nested_vmap():
    parity(lambda T: T.vmap(T.vmap(lambda a, b: a * b, in_dims=(0, None)), in_dims=(None, 0))(X(T, 3), X(T, 2)))


def test_vmap_of_grad_gives_per_sample_gradients():
    parity(lambda T: T.vmap(T.func.grad(lambda w, x: ((x @ w).tanh() ** 2).sum()), in_dims=(None, 0))(
        X(T, 3), X(T, 4, 3, lo=-1)))


def test_grad_of_vmap_and_jacrev_of_vmap():
    parity(lambda T: T.func.grad(lambda x: T.vmap(lambda r: r.sin().sum())(x).prod())(X(T, 2, 3)))
    parity(lambda T: T.func.jacrev(T.vmap(lambda r: r.exp() * r.sum()))(X(T, 2, 2)))
    parity(lambda T: T.vmap(T.func.jacrev(lambda r: r.exp() * r.sum()))(X(T, 2, 2)))
    parity(lambda T: T.vmap(T.func.hessian(cube))(X(T, 2, 2)))


def test_vmap_randomness():
    same_error(lambda T: T.vmap(lambda a: a + T.rand(3))(X(T, 2, 3)))
    same_error(lambda T: T.vmap(lambda a: a, randomness="bad")(X(T, 2, 3)))
    ndgrad.manual_seed(0)
    same = ndgrad.vmap(lambda a: ndgrad.rand(3), randomness="same")(X(ndgrad, 4))
    assert all(np.array_equal(same[0].numpy(), r.numpy()) for r in same)
    different = ndgrad.vmap(lambda a: ndgrad.rand(3), randomness="different")(X(ndgrad, 4))
    assert not np.array_equal(different[0].numpy(), different[1].numpy())


@pytest.mark.parametrize("call", [
    lambda T: T.vmap(lambda a, b: a + b)(X(T, 3), X(T, 4)),
    lambda T: T.vmap(lambda a: a, in_dims=1)(X(T, 3)),
    lambda T: T.vmap(lambda a: a, in_dims=-2)(X(T, 3)),
    lambda T: T.vmap(lambda a: a, in_dims=(0, 0))(X(T, 3)),
    lambda T: T.vmap(lambda a: a, in_dims=None)(X(T, 3)),
    lambda T: T.vmap(lambda a: a, in_dims=[0])(X(T, 3)),
    lambda T: T.vmap(lambda a: a, in_dims=(None,))(X(T, 3)),
    lambda T: T.vmap(lambda a: a, in_dims=(0,))(3.0),
    lambda T: T.vmap(lambda a: a, in_dims=(0.5,))(X(T, 3)),
    lambda T: T.vmap(lambda a: 3)(X(T, 3)),
    lambda T: T.vmap(lambda a: a, out_dims=(0, 0))(X(T, 3)),
    lambda T: T.vmap(lambda a: a * 2, out_dims=None)(X(T, 3)),
    lambda T: T.vmap(lambda a: a)(),
    lambda T: T.vmap(lambda a: a)(T.tensor(1.0)),
    lambda T: T.vmap(lambda a: a, chunk_size=0)(X(T, 3)),
])
def test_vmap_errors_match_torch(call):
    same_error(call, ValueError)


def test_vmap_out_dim_out_of_range_matches_torch():
    same_error(lambda T: T.vmap(lambda a: a * 2, out_dims=1)(X(T, 3)), IndexError)


# --- functional_call -----------------------------------------------------------------------------
def linear(T):
    T.manual_seed(0)
    return T.nn.Linear(3, 2).double()


def params(T):
    return {"weight": X(T, 2, 3), "bias": X(T, 2, lo=-1)}


def test_functional_call_uses_the_given_tensors_and_restores_the_module():
    def scenario(T):
        m = linear(T)
        before = m.weight
        out = T.func.functional_call(m, params(T), (X(T, 3),))
        return [out, m.weight is before, isinstance(m.weight, T.nn.Parameter)]
    parity(scenario)


def test_grad_and_vmap_through_functional_call():
    def loss(T):
        m = linear(T)
        return lambda p, x: T.func.functional_call(m, p, (x,)).pow(2).sum()
    parity(lambda T: tree(T.func.grad(loss(T))(params(T), X(T, 3))))
    parity(lambda T: tree(T.vmap(T.func.grad(loss(T)), in_dims=(None, 0))(params(T), X(T, 4, 3))))


def test_functional_call_with_several_dicts_and_kwargs():
    parity(lambda T: T.func.functional_call(linear(T), ({"weight": X(T, 2, 3)}, {"bias": X(T, 2)}), X(T, 3),
                                          kwargs={}))


def test_functional_call_tied_weights():
    def model(T):
        s = T.nn.Sequential(T.nn.Linear(3, 3, bias=False), T.nn.Linear(3, 3, bias=False)).double()
        s[1].weight = s[0].weight
        return s
    eye = lambda T: T.eye(3, dtype=T.float64)  # noqa: E731
    parity(lambda T: T.func.functional_call(model(T), {"0.weight": eye(T) * 2}, (X(T, 3),)))
    same_error(lambda T: T.func.functional_call(model(T), {"0.weight": eye(T), "1.weight": eye(T) * 2}, (X(T, 3),)),
               ValueError)


@pytest.mark.parametrize("call, exc", [
    (lambda T: T.func.functional_call(linear(T), {"weight": X(T, 2, 3)}, (X(T, 3),), strict=True), RuntimeError),
    (lambda T: T.func.functional_call(linear(T), dict(params(T), foo=X(T, 1)), (X(T, 3),), strict=True),
     RuntimeError),
    (lambda T: T.func.functional_call(linear(T), ({"weight": X(T, 2, 3)}, {"weight": X(T, 2, 3)}), (X(T, 3),)),
     ValueError),
    (lambda T: T.func.functional_call(linear(T), 3, (X(T, 3),)), ValueError),
    (lambda T: T.func.functional_call(linear(T), {"foo.bar": X(T, 1)}, (X(T, 3),)), AttributeError),
])
def test_functional_call_errors_match_torch(call, exc):
    same_error(call, exc)


# --- pytrees -------------------------------------------------------------------------------------
def test_pytree_round_trip_and_map():
    nest = {"a": (1, [2, 3]), "b": 4}
    leaves, spec = _pytree.tree_flatten(nest)
    assert leaves == [1, 2, 3, 4]
    assert _pytree.tree_unflatten(leaves, spec) == nest
    assert _pytree.tree_map(lambda a, b: a + b, nest, nest) == {"a": (2, [4, 6]), "b": 8}
    assert str(spec) == "TreeSpec(dict, ['a', 'b'], [TreeSpec(tuple, None, [*,\n    TreeSpec(list, None, [*,\n" \
                        "      *])]),\n  *])"


# --- vmap's native path --------------------------------------------------------------------------
from ndgrad.func import _batching  # noqa: E402

NATIVE = {
    "elementwise": lambda a, b: (a * b + 2).sin().exp() ** 2 - b / 3 + (1 - a).abs().sqrt(),
    "sum_last": lambda a, b: (a * b).sum(-1),
    "broadcast_a_lower_rank_sample": lambda a, b: a.sum(-1) * b + a,
    "sum_all": lambda a, b: (a * b).sum(),
    "sum_dims_keepdim": lambda a, b: (a + 1).sum((0,), keepdim=True),
    "mean": lambda a, b: a.relu().mean() + a.mean(0),
    "activations": lambda a, b: a.tanh() * b.sigmoid() + a.clamp(min=0),
}


@pytest.mark.parametrize("name", sorted(NATIVE))
def test_native_path_runs_and_equals_the_loop(name):
    f = NATIVE[name]
    x, y = X(ndgrad, 4, 3, lo=-1), X(ndgrad, 3)
    before = _batching.state.completed
    out = ndgrad.vmap(f, in_dims=(0, None))(x, y)
    assert _batching.state.completed == before + 1   # ran once, natively
    loop = ndgrad.stack([f(x[i], y) for i in range(4)])
    assert out.shape == loop.shape
    np.testing.assert_allclose(out.numpy(), loop.numpy(), rtol=1e-12)
    parity(lambda T: T.vmap(f, in_dims=(0, None), out_dims=-1)(X(T, 4, 3, lo=-1), X(T, 3)))


def test_native_softmax_and_in_dims_out_dims():
    f = lambda a: a.softmax(-1) * a.log_softmax(0)  # noqa: E731
    before = _batching.state.completed
    parity(lambda T: T.vmap(f, in_dims=1, out_dims=1)(X(T, 2, 4, 3)))
    assert _batching.state.completed == before + 1


def test_native_path_gradients_match_the_loop():
    parity(lambda T: T.func.grad(lambda x: T.vmap(lambda r: (r.sin() * r).softmax(0).sum())(x).pow(2).sum())(
        X(T, 3, 4)))
    parity(lambda T: T.func.jacrev(T.vmap(lambda r: (r.exp() * r.sum()).tanh()))(X(T, 2, 2)))


@pytest.mark.parametrize("f", [
    lambda a: a[0] * 2,                       # indexing looks at the batched tensor
    lambda a: a.unbind(0)[0] * a,             # an op the native path refuses (unbind)
])
def test_unsupported_ops_fall_back_to_the_loop(f):
    before = _batching.state.completed
    parity(lambda T: T.vmap(f)(X(T, 3, 2)))
    assert _batching.state.completed == before


def test_inplace_on_batched_data_runs_natively_unless_recorded():
    before = _batching.state.completed
    parity(lambda T: T.vmap(lambda a, b: a.clone().mul_(2).add_(b))(X(T, 3, 2), X(T, 3, 2)))
    parity(lambda T: T.vmap(lambda a, b: a.clone().add_(b), in_dims=(0, None))(X(T, 3, 2), X(T, 2)))
    assert _batching.state.completed == before + 2
    # with a history to record (a grad of it), the loop runs it
    parity(lambda T: T.func.grad(lambda x: T.vmap(lambda a: a.clone().mul_(2))(x).sum())(X(T, 3, 2)))
    assert _batching.state.completed == before + 2


def test_native_batched_output_with_out_dims_none_is_refused():
    same_error(lambda T: T.vmap(lambda a, b: (a * b).sum(), in_dims=(0, None), out_dims=None)(X(T, 3, 2), X(T, 2)),
               ValueError)


# --- graph flags and forward-mode nesting -----------------------------------------------------------
def test_results_require_grad_exactly_when_torch_funcs_do():
    def scenario(T):
        x, y = X(T, 3).requires_grad_(), X(T, 3)
        f, g = (lambda a: (a ** 3).sum()), (lambda a: a.sin())
        outs = [T.func.grad(f)(x), T.func.grad(f)(y), *T.func.jvp(g, (x,), (y,)), T.func.jvp(g, (y,), (y,))[1],
                T.func.jacrev(g)(x), T.func.jacfwd(g)(x), T.func.hessian(f)(x), T.func.hessian(f)(y),
                T.func.vjp(g, x)[1](y)[0], T.func.vjp(g, x)[0], T.vmap(g)(x),
                T.vmap(T.func.grad(f))(X(T, 2, 3).requires_grad_())]
        return [[o.requires_grad, o.grad_fn is not None] for o in outs]
    parity(scenario)


def test_jvp_of_jvp():
    def scenario(T):
        f = lambda x: (x.sin() * x.exp()).sum()  # noqa: E731
        inner = lambda x: T.func.jvp(f, (x,), (X(T, 3, lo=1),))[1]  # noqa: E731
        return T.func.jvp(inner, (X(T, 3),), (X(T, 3, lo=-1),))
    parity(scenario)


def test_inplace_write_of_batched_values_into_a_captured_tensor_is_refused():
    def call(T):
        y = T.zeros(4, dtype=T.float64)
        return T.vmap(lambda a: y.mul_(a))(X(T, 3, 4))
    same_error(call)


def test_inplace_ops_on_unbatched_tensors_run_once():
    def scenario(T):   # the native path calls the function once, as torch's vmap
        y = T.zeros(2, dtype=T.float64)
        return T.vmap(lambda a: y.add_(1).sum() + a.sum())(X(T, 3, 2)), y
    parity(scenario)


def test_jvp_strict_refuses_an_output_independent_of_the_inputs():
    same_error(lambda T: T.func.jvp(lambda a: T.ones(3, dtype=T.float64), (X(T, 3),), (X(T, 3),), strict=True))
    parity(lambda T: T.func.jvp(lambda a: a * 2, (X(T, 3),), (X(T, 3),), strict=True))


def test_vjp_fn_retain_graph_and_create_graph():
    def scenario(T):
        out, fn = T.func.vjp(lambda a: a.sin() * a, X(T, 3))
        g = fn(X(T, 3), create_graph=True)[0]
        return [g, g.requires_grad, fn(X(T, 3, lo=-1), retain_graph=False)[0]]
    parity(scenario)
    same_error(lambda T: [fn(X(T, 3), retain_graph=False) and fn(X(T, 3))
                          for fn in [T.func.vjp(lambda a: a.sin() * a, X(T, 3))[1]]])


def test_stack_module_state_runs_an_ensemble_with_functional_call_and_vmap():
    def scenario(T):
        T.manual_seed(0)
        models = [T.nn.Linear(3, 2) for _ in range(4)]
        for k, m in enumerate(models):   # deterministic weights: the libraries' generators differ
            with T.no_grad():
                m.weight.copy_(T.arange(6.0).reshape(2, 3) * (k + 1) / 10)
                m.bias.fill_(float(k))
        params, buffers = T.func.stack_module_state(models)
        x = T.ones(5, 3)
        base = T.nn.Linear(3, 2)

        def one(p, b):
            return T.func.functional_call(base, (p, b), (x,))
        out = T.vmap(one)(params, buffers)
        out.sum().backward()
        return [tuple(params["weight"].shape), params["weight"].is_leaf, out[:, 0].double().round(decimals=4).tolist(),
                params["bias"].grad.tolist()]
    shape, is_leaf, first_rows, bias_grad = both(scenario)
    assert shape == [4, 2, 3] and is_leaf
    assert first_rows == [[0.3, 1.2], [1.6, 3.4], [2.9, 5.6], [4.2, 7.8]] and bias_grad == [[5.0, 5.0]] * 4
    same_error(lambda T: T.func.stack_module_state([]))


# --- vmap batches for real: one array call per op, nested levels, transforms built on it -------------
def _layer(T, size=5, dtype=None):
    dtype = dtype or T.float64
    rs = np.random.RandomState(0)
    W, b, x = (T.tensor(a, dtype=dtype) for a in (rs.randn(size, size), rs.randn(size), rs.randn(size)))
    return W, b, x, (lambda W, b, x: T.nn.functional.linear(x, W, b).tanh())


def _natively(run):
    """run() and how many native vmap runs finished and how many ops the per-sample fallback took."""
    done, fallbacks = _batching.state.completed, sum(_batching.state.fallback_ops.values())
    out = run()
    return out, _batching.state.completed - done, sum(_batching.state.fallback_ops.values()) - fallbacks


@pytest.mark.parametrize("which", ["jacfwd(jacfwd)", "jacrev(jacrev)", "hessian", "jacrev", "jacfwd"])
def test_transforms_match_torch_func_and_run_batched(which):
    def scenario(T):
        W, b, x, f = _layer(T)
        F = T.func
        return {"jacfwd(jacfwd)": lambda: F.jacfwd(F.jacfwd(f, argnums=2), argnums=2)(W, b, x),
                "jacrev(jacrev)": lambda: F.jacrev(F.jacrev(f, argnums=2), argnums=2)(W, b, x),
                "hessian": lambda: F.hessian(f, argnums=2)(W, b, x),
                "jacrev": lambda: F.jacrev(f, argnums=(0, 1, 2))(W, b, x),
                "jacfwd": lambda: F.jacfwd(f, argnums=(0, 2))(W, b, x)}[which]()
    parity(scenario)
    _, native, fallbacks = _natively(lambda: scenario(ndgrad))
    assert native >= 1 and fallbacks == 0   # batched, every op by a rule


def test_per_sample_gradients_match_torch_func_and_run_batched():
    def scenario(T):
        W, b, _, f = _layer(T)
        xs = X(T, 7, 5, lo=-1)
        loss = lambda W, b, x: f(W, b, x).pow(2).sum()  # noqa: E731
        return T.func.vmap(T.func.grad(loss, argnums=(0, 1)), in_dims=(None, None, 0))(W, b, xs)
    parity(scenario)
    _, native, fallbacks = _natively(lambda: scenario(ndgrad))
    assert native == 1 and fallbacks == 0


def test_ensembling_with_stacked_parameters():
    def scenario(T):
        rs = np.random.RandomState(1)
        Ws, bs = T.tensor(rs.randn(3, 4, 5)), T.tensor(rs.randn(3, 4))
        x = T.tensor(rs.randn(6, 5))
        return T.func.vmap(lambda W, b: T.nn.functional.linear(x, W, b).relu().softmax(-1))(Ws, bs)
    parity(scenario)


@pytest.mark.parametrize("f", [
    lambda a, b: a @ b,
    lambda a, b: (a.unsqueeze(0) * b.t()).sum(-1).softmax(0),
    lambda a, b: a.view(-1).expand(2, 12).transpose(0, 1).reshape(4, 6).mean(1),
    lambda a, b: ndgrad_or_torch(a).stack([a.sum(0), b.sum(1)], 1).cumsum(0),
    lambda a, b: a.t().matmul(a).diagonal(),
    lambda a, b: ndgrad_or_torch(a).nn.functional.linear(a, b.t(), a.sum(1)).tanh(),   # a batched bias
])
def test_vmap_float32_equals_the_unbatched_call(f):
    def scenario(T):
        rs = np.random.RandomState(2)
        xs, y = T.tensor(rs.randn(5, 3, 4).astype(np.float32)), T.tensor(rs.randn(4, 3).astype(np.float32))
        batched = T.vmap(f, in_dims=(0, None))(xs, y)
        unbatched = T.stack([f(xs[i], y) for i in range(5)])
        assert batched.dtype == T.float32 and batched.shape == unbatched.shape
        np.testing.assert_allclose(batched.numpy(), unbatched.numpy(), rtol=1.3e-6, atol=1e-5)   # torch's float32
        return batched
    parity(scenario, rtol=1.3e-6, atol=1e-5)


def test_vmap_of_products_over_one_term_gives_the_unbatched_products_bits():
    # (per-sample outer products: the batched rule multiplies, the unbatched call runs BLAS; one rounded
    # product per element either way)
    rs = np.random.RandomState(3)
    for dtype in (np.float32, np.float64):
        xs, ys = ndgrad.tensor(rs.randn(5, 7, 1).astype(dtype)), ndgrad.tensor(rs.randn(5, 1, 9).astype(dtype))
        for f in (lambda a, b: a @ b, lambda a, b: ndgrad.mm(a, b), lambda a, b: (b.t() @ a.t()).t()):
            batched = ndgrad.vmap(f)(xs, ys.transpose(1, 2).contiguous().transpose(1, 2))
            unbatched = ndgrad.stack([f(xs[i], ys[i]) for i in range(5)])
            assert batched.dtype == unbatched.dtype and np.array_equal(batched.numpy(), unbatched.numpy())


def ndgrad_or_torch(t):
    return ndgrad if isinstance(t, ndgrad.Tensor) else __import__("torch")


def test_views_of_tensors_batched_over_some_or_all_levels_run_natively_as_torchs():
    # views and reshapes of a tensor batched over both levels, and of one batched over the outer level only
    # (captured by the inner function), with the levels' dims in the middle of the arrays
    def scenario(T):
        def inner(a, b):
            return a.reshape(2, -1).t().reshape(-1) * 2 + b.view(3, 2).t().reshape(-1).sum()
        outer = lambda a, b: T.vmap(inner, in_dims=(1, None))(a, b)  # noqa: E731
        return T.vmap(outer, in_dims=(2, 0), out_dims=1)(X(T, 3, 4, 5, 2), X(T, 5, 6, lo=-1))
    parity(scenario)
    assert _natively(lambda: scenario(ndgrad))[1:] == (2, 0)


@pytest.mark.parametrize("f", [
    lambda T, x, W, b: x.conj() * 2,
    lambda T, x, W, b: x.conj() @ W.t(),
    lambda T, x, W, b: x.conj().view(2, 2).sum(0),
    lambda T, x, W, b: T.nn.functional.linear(x.conj(), W, b).conj().tanh(),
    lambda T, x, W, b: T.cat([x.conj(), x]) * 3,
])
def test_vmap_and_per_sample_grads_read_lazily_conjugated_values(f):
    # a conjugate view's values, not its memory, in the batched ops, the level moves and the per-sample
    # gradients (vmap used to read the memory: silently wrong numbers for complex inputs)
    def scenario(T):
        rs = np.random.RandomState(4)
        W, b = T.tensor(rs.randn(3, 4) + 1j * rs.randn(3, 4)), T.tensor(rs.randn(3) + 1j * rs.randn(3))
        xs = T.tensor(rs.randn(5, 4) + 1j * rs.randn(5, 4))
        out = T.vmap(lambda x: f(T, x, W, b))(xs)
        loss = lambda x, W, b: f(T, x, W, b).abs().sum()  # noqa: E731
        grads = T.func.vmap(T.func.grad(loss, argnums=(0, 1, 2)), in_dims=(0, None, None))(xs, W, b)
        return [t.resolve_conj().resolve_neg() for t in (out, *grads)]
    parity(scenario)


@pytest.mark.parametrize("f", [lambda x: x.conj() * 2, lambda x: x.conj().t() @ x, lambda x: x.abs() * x])
def test_vmap_of_jvp_with_complex_tangents_is_torchs(f):
    def scenario(T):
        x = T.tensor(np.array([[1 + 2j, 3 - 1j], [0.5, 2j]]))
        ts = T.tensor(np.stack([np.eye(2) * (k + 1) + 0.25j * k for k in range(3)]))
        return T.vmap(lambda t: T.func.jvp(f, (x,), (t,))[1])(ts).resolve_conj()
    parity(scenario)


_COMPLEX_OPS = {"exp": lambda x: x.exp(), "abs": lambda x: x.abs(), "sqrt": lambda x: x.sqrt(),
                "sum": lambda x: x.sum(0), "matmul": lambda x: x.t() @ x, "flip": lambda x: x.flip(0), "mul": lambda x: x.conj() * x,
                "index": lambda x: x[1] * 1, "cumsum": lambda x: x.cumsum(1), "sgn": lambda x: x.sgn()}


@pytest.mark.parametrize("kind", ["vmap", "vmap(grad)"])
@pytest.mark.parametrize("op", sorted(_COMPLEX_OPS))
def test_vmap_of_complex_ops_on_conjugate_views_is_torchs(op, kind):
    # (13 of these 20 gave wrong numbers when vmap read a conjugate view's memory)
    f = _COMPLEX_OPS[op]

    def scenario(T):
        rs = np.random.RandomState(5)
        xs = T.tensor(rs.randn(5, 3, 4) + 1j * rs.randn(5, 3, 4))
        g = (lambda x: f(x.conj())) if kind == "vmap" else T.func.grad(lambda x: (f(x.conj()) * (1 + 0.5j)).abs().sum())
        return T.vmap(g)(xs).resolve_conj().resolve_neg()
    parity(scenario)


def test_level_moves_transpose_as_np_moveaxis():
    from ndgrad.func._batching import _moveaxis
    a = np.arange(120).reshape(2, 3, 4, 5)
    for src in range(4):
        for dst in range(4):
            assert np.array_equal(_moveaxis(a, src, dst), np.moveaxis(a, src, dst))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64, np.int32, np.bool_])
def test_summing_a_level_out_gives_numpys_sum_bits(dtype, monkeypatch):
    """A level summed out of a batched array: the bits of a.sum(axis) (NumPy sums an axis that is not the
    innermost in memory in sequence; the fast form moves it first in a contiguous copy), for short and long
    inner dims, transposed and reversed layouts, signed zeros, inf and NaN."""
    from ndgrad.func import _batching
    from ndgrad.func._batching import _sum_axis
    moved = []
    monkeypatch.setattr(_batching, "_moveaxis", lambda *a: moved.append(a) or np.moveaxis(*a))
    rs = np.random.RandomState(6)
    for shape in ((16, 256, 16), (4, 300, 2, 3), (3, 40, 40), (8, 16, 16), (2, 8, 8), (64, 16)):
        a = (rs.randn(*shape) * rs.exponential(10, shape)).astype(dtype)
        if dtype in (np.float32, np.float64):
            a.reshape(-1)[:3] = [-0.0, np.inf, np.nan]
        for v in (a, a.T, np.moveaxis(a, 0, 1), a[::-1]):   # (other memory orders: batched levels moved)
            for axis in range(a.ndim):
                got, want = _sum_axis(v, axis), v.sum(axis=axis)
                assert got.dtype == want.dtype and got.shape == want.shape
                assert got.tobytes() == want.tobytes(), (shape, v.strides, axis)
    assert moved   # (the fast form ran)


def test_nested_vmap_in_dims_out_dims():
    def scenario(T):
        f = lambda a, b: (a * b).sin().sum(0)  # noqa: E731
        inner = T.vmap(f, in_dims=(1, None), out_dims=0)
        return T.vmap(inner, in_dims=(None, 0), out_dims=1)(X(T, 3, 4, 2), X(T, 5, 2, lo=-1))
    parity(scenario)
    assert _natively(lambda: scenario(ndgrad))[1:] == (2, 0)


def test_grad_of_vmap_sums_over_the_samples_of_a_captured_tensor():
    def scenario(T):
        W = X(T, 4, 3, lo=-1).requires_grad_()
        xs = X(T, 6, 3)
        out = T.vmap(lambda x: (W @ x).tanh().sum())(xs)
        return T.autograd.grad((out ** 2).sum(), W, create_graph=True)[0].sum(0)
    parity(scenario)


def test_vmap_of_grad_of_vmap():
    def scenario(T):
        g = T.func.grad(lambda w, x: T.vmap(lambda r: (r * w).exp().sum())(x).sum())
        return T.vmap(g, in_dims=(0, None))(X(T, 3, 2), X(T, 4, 2, lo=-1))
    parity(scenario)


def test_ops_without_a_rule_loop_per_sample_inside_the_batched_run():
    def scenario(T):
        return T.vmap(lambda a: T.diag(a) * 2 + a)(X(T, 3, 4))
    parity(scenario)
    before = _batching.state.fallback_ops["diag_embed"]   # its dims count in the output's rank: no rule
    _, native, _ = _natively(lambda: scenario(ndgrad))
    assert native == 1 and _batching.state.fallback_ops["diag_embed"] == before + 1


def test_chunk_size_maps_in_chunks():
    parity(lambda T: T.vmap(lambda a, b: (a * b).sum(-1), in_dims=(0, None), chunk_size=2)(X(T, 5, 3), X(T, 3)))
    parity(lambda T: T.func.jacrev(lambda x: (x.exp() * x.sum()).sin(), chunk_size=2)(X(T, 5)))



def test_jacobians_of_a_module_through_functional_call():
    def scenario(T):
        rs = np.random.RandomState(3)
        model = T.nn.Sequential(T.nn.Linear(4, 6), T.nn.GELU(), T.nn.LayerNorm(6), T.nn.ReLU(), T.nn.Linear(6, 2))
        params = {k: T.tensor(rs.randn(*v.shape)) for k, v in model.named_parameters()}
        x = T.tensor(rs.randn(4))
        out = T.func.jacrev(lambda p: T.func.functional_call(model, p, (x,)))(params)
        hess = T.func.hessian(lambda x: T.func.functional_call(model, params, (x,)).sum())(x)
        return [out[k] for k in sorted(out)] + [hess]
    parity(scenario, rtol=1e-6, atol=1e-9)
    done = _batching.state.completed
    scenario(ndgrad)
    assert _batching.state.completed > done


def test_per_sample_gradients_of_a_cnn():
    def scenario(T):
        rs = np.random.RandomState(4)
        F = T.nn.functional
        w1, b1, w2 = T.tensor(rs.randn(3, 1, 3, 3)), T.tensor(rs.randn(3)), T.tensor(rs.randn(2, 3 * 3 * 3))
        data, targets = T.tensor(rs.randn(5, 1, 8, 8)), T.tensor([0, 1, 1, 0, 1])

        def loss(w1, b1, w2, x, t):
            h = F.max_pool2d(F.relu(F.conv2d(x.unsqueeze(0), w1, b1)), 2)
            h = F.avg_pool2d(h, 1) + F.adaptive_avg_pool2d(h, 3)
            return F.cross_entropy(T.flatten(h, 1) @ w2.t(), t.unsqueeze(0))
        return T.func.vmap(T.func.grad(loss, argnums=(0, 1, 2)), in_dims=(None, None, None, 0, 0))(
            w1, b1, w2, data, targets)
    parity(scenario)
    before = _batching.state.fallback_ops["convolution"] + _batching.state.fallback_ops["max_pool2d_with_indices"]
    _, native, _ = _natively(lambda: scenario(ndgrad))
    assert native == 1   # the forward's convolution and pooling fold the samples into their batch dim
    assert _batching.state.fallback_ops["convolution"] + _batching.state.fallback_ops["max_pool2d_with_indices"] \
        == before
