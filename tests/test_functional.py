"""ndgrad.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp.

Each scenario is a call written against the torch API; where torch is installed it runs on both
libraries and the results must agree in structure (nested tuples exactly as torch returns them),
values, dtype, requires_grad / grad_fn presence, and in the exception type and message. Closed
forms check the values without torch.
"""
import numpy as np
import pytest

import ndgrad

try:
    import torch
except ImportError:
    torch = None


def X(T, *shape, requires_grad=False):
    n = int(np.prod(shape)) if shape else 1
    return T.tensor(np.linspace(0.3, 1.7, n).reshape(shape), dtype=T.float64, requires_grad=requires_grad)


def Y(T, *shape):
    return T.tensor(np.linspace(-1.0, 2.0, int(np.prod(shape))).reshape(shape), dtype=T.float64)


def summary(x):
    """What must agree: structure, and per tensor its values, dtype, requires_grad and graph."""
    if isinstance(x, tuple):
        return tuple(summary(v) for v in x)
    if x is None:
        return None
    return (x.detach().numpy().copy(), str(x.dtype), x.requires_grad, x.grad_fn is not None)


def outcome(T, call):
    try:
        return summary(call(T))
    except Exception as e:  # noqa: BLE001 - compared across libraries
        return (type(e).__name__, str(e))


def assert_same(a, b, path="result"):
    if isinstance(a, tuple) and a and isinstance(a[0], np.ndarray):
        assert isinstance(b, tuple) and a[1:] == b[1:], (path, a[1:], b)
        assert a[0].shape == b[0].shape, (path, a[0].shape, b[0].shape)
        np.testing.assert_allclose(a[0], b[0], rtol=1e-7, atol=1e-10, err_msg=path)
    elif isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), (path, a, b)
        for i, (u, v) in enumerate(zip(a, b)):
            assert_same(u, v, f"{path}[{i}]")
    else:
        assert a == b, (path, a, b)


def F(T):
    return T.autograd.functional


SCENARIOS = {
    # jacobian: every combination of tensor / tuple inputs and outputs
    "jac_tensor_tensor": lambda T: F(T).jacobian(lambda x: x.sin() * 2, X(T, 3)),
    "jac_tuple_in": lambda T: F(T).jacobian(lambda x, y: x * y.sum(), (X(T, 3), X(T, 2))),
    "jac_tuple_out": lambda T: F(T).jacobian(lambda x: (x.exp(), x[0], x.sum()), X(T, 2, 2)),
    "jac_tuple_tuple": lambda T: F(T).jacobian(lambda x, y: (x * y, x.sum() * y), (X(T, 3), X(T, 3))),
    "jac_one_tuple": lambda T: F(T).jacobian(lambda x: x.exp(), (X(T, 2),)),
    "jac_unused_input": lambda T: F(T).jacobian(lambda x, y: x.exp(), (X(T, 2), X(T, 3))),
    "jac_unused_strict": lambda T: F(T).jacobian(lambda x, y: x.exp(), (X(T, 2), X(T, 3)), strict=True),
    "jac_constant_output": lambda T: F(T).jacobian(lambda x: Y(T, 2), X(T, 2)),
    "jac_constant_strict": lambda T: F(T).jacobian(lambda x: Y(T, 2), X(T, 2), strict=True),
    "jac_linear_strict_graph": lambda T: F(T).jacobian(lambda x: x * 2, X(T, 2), create_graph=True, strict=True),
    "jac_create_graph": lambda T: F(T).jacobian(lambda x: x.exp() * 3, X(T, 2, requires_grad=True),
                                                create_graph=True),
    "jac_vectorize": lambda T: F(T).jacobian(lambda x: (x.exp(), x.sum()), X(T, 2), vectorize=True),
    "jac_vectorize_strict": lambda T: F(T).jacobian(lambda x: x.exp(), X(T, 2), vectorize=True, strict=True),
    "jac_float32": lambda T: F(T).jacobian(lambda x: x * x, X(T, 3).float()),
    "jac_scalar_in_out": lambda T: F(T).jacobian(lambda x: x ** 3, X(T)),
    "jac_bad_inputs": lambda T: F(T).jacobian(lambda x: x, [X(T, 2)]),
    "jac_bad_tuple_inputs": lambda T: F(T).jacobian(lambda x, y: x, (X(T, 2), 3.0)),
    "jac_bad_outputs": lambda T: F(T).jacobian(lambda x: 3.0, X(T, 2)),
    "jac_bad_strategy": lambda T: F(T).jacobian(lambda x: x, X(T, 2), strategy="forward"),
    "jac_forward_graph": lambda T: F(T).jacobian(lambda x: x, X(T, 2), strategy="forward-mode", create_graph=True),
    "jac_forward_strict": lambda T: F(T).jacobian(lambda x: x, X(T, 2), strategy="forward-mode", strict=True),
    "jac_forward_loop": lambda T: F(T).jacobian(lambda x: x, X(T, 2), strategy="forward-mode"),
    # hessian
    "hess_tensor": lambda T: F(T).hessian(lambda x: (x ** 3).sum(), X(T, 3)),
    "hess_matrix_input": lambda T: F(T).hessian(lambda x: (x ** 3).prod(), X(T, 2, 2)),
    "hess_tuple": lambda T: F(T).hessian(lambda x, y: (x ** 2 * y).sum(), (X(T, 2), X(T, 2))),
    "hess_linear": lambda T: F(T).hessian(lambda x: (x * 2).sum(), X(T, 3)),
    "hess_linear_strict": lambda T: F(T).hessian(lambda x: (x * 2).sum(), X(T, 3), strict=True),
    "hess_create_graph": lambda T: F(T).hessian(lambda x: (x ** 3).sum(), X(T, 3, requires_grad=True),
                                                create_graph=True),
    "hess_strict_graph": lambda T: F(T).hessian(lambda x: (x ** 3).sum(), X(T, 3), strict=True, create_graph=True),
    "hess_not_scalar": lambda T: F(T).hessian(lambda x: x ** 3, X(T, 3)),
    "hess_tuple_output": lambda T: F(T).hessian(lambda x: (x.sum(), x.sum()), X(T, 3)),
    "hess_bad_strategy": lambda T: F(T).hessian(lambda x: x.sum(), X(T, 3), outer_jacobian_strategy="x"),
    # vjp
    "vjp_tensor": lambda T: F(T).vjp(lambda x: x.sin(), X(T, 3), Y(T, 3)),
    "vjp_tuples": lambda T: F(T).vjp(lambda x, y: (x * y, y.exp()), (X(T, 3), X(T, 3)), (Y(T, 3), X(T, 3))),
    "vjp_scalar_no_v": lambda T: F(T).vjp(lambda x: x.sin().sum(), X(T, 3)),
    "vjp_no_v": lambda T: F(T).vjp(lambda x: x.sin(), X(T, 3)),
    "vjp_v_size": lambda T: F(T).vjp(lambda x: x.sin(), X(T, 3), Y(T, 2)),
    "vjp_v_count": lambda T: F(T).vjp(lambda x, y: (x, y), (X(T, 3), X(T, 3)), (Y(T, 3),)),
    "vjp_v_entry_size": lambda T: F(T).vjp(lambda x, y: (x, y), (X(T, 3), X(T, 3)), (Y(T, 3), Y(T, 2))),
    "vjp_v_single": lambda T: F(T).vjp(lambda x: x, X(T, 3), (Y(T, 3), Y(T, 3))),
    "vjp_v_type": lambda T: F(T).vjp(lambda x: x * 2, X(T, 3), [1, 2]),
    "vjp_unused": lambda T: F(T).vjp(lambda x, y: x * 2, (X(T, 3), X(T, 3)), Y(T, 3)),
    "vjp_unused_strict": lambda T: F(T).vjp(lambda x, y: x * 2, (X(T, 3), X(T, 3)), Y(T, 3), strict=True),
    "vjp_create_graph": lambda T: F(T).vjp(lambda x: x ** 2, X(T, 3, requires_grad=True), Y(T, 3), create_graph=True),
    "vjp_strict_graph": lambda T: F(T).vjp(lambda x: x * 2, X(T, 3), Y(T, 3), strict=True, create_graph=True),
    # jvp (double-backward trick)
    "jvp_tensor": lambda T: F(T).jvp(lambda x: x.sin(), X(T, 3), Y(T, 3)),
    "jvp_tuples": lambda T: F(T).jvp(lambda x, y: (x * y, y.exp()), (X(T, 3), X(T, 3)), (Y(T, 3), X(T, 3))),
    "jvp_single_no_v": lambda T: F(T).jvp(lambda x: x.sin(), X(T, 1)),
    "jvp_no_v": lambda T: F(T).jvp(lambda x: x.sin(), X(T, 3)),
    "jvp_constant_output": lambda T: F(T).jvp(lambda x: (x * 2, Y(T, 2)), X(T, 3), Y(T, 3)),
    "jvp_unused_strict": lambda T: F(T).jvp(lambda x, y: x * 2, (X(T, 3), X(T, 3)), (Y(T, 3), Y(T, 3)), strict=True),
    "jvp_linear_strict": lambda T: F(T).jvp(lambda x: x * 2, X(T, 3), Y(T, 3), strict=True),
    "jvp_create_graph": lambda T: F(T).jvp(lambda x: x ** 2, X(T, 3, requires_grad=True), Y(T, 3), create_graph=True),
    "jvp_strict_graph": lambda T: F(T).jvp(lambda x: x ** 3, X(T, 3), Y(T, 3), strict=True, create_graph=True),
    # hvp / vhp
    "hvp_tensor": lambda T: F(T).hvp(lambda x: (x ** 3).sum(), X(T, 3), Y(T, 3)),
    "hvp_tuple": lambda T: F(T).hvp(lambda x, y: (x ** 2 * y).sum(), (X(T, 2), X(T, 2)), (Y(T, 2), X(T, 2))),
    "hvp_single_no_v": lambda T: F(T).hvp(lambda x: (x ** 3).sum(), X(T, 1)),
    "hvp_not_scalar": lambda T: F(T).hvp(lambda x: x ** 3, X(T, 3), Y(T, 3)),
    "hvp_linear": lambda T: F(T).hvp(lambda x: (x * 2).sum(), X(T, 3), Y(T, 3)),
    "hvp_linear_strict": lambda T: F(T).hvp(lambda x: (x * 2).sum(), X(T, 3), Y(T, 3), strict=True),
    "hvp_create_graph": lambda T: F(T).hvp(lambda x: (x ** 3).sum(), X(T, 3, requires_grad=True), Y(T, 3),
                                           create_graph=True),
    "hvp_strict_graph": lambda T: F(T).hvp(lambda x: (x ** 3).sum(), X(T, 3), Y(T, 3), strict=True,
                                           create_graph=True),
    "vhp_tensor": lambda T: F(T).vhp(lambda x: (x ** 3).sum(), X(T, 3), Y(T, 3)),
    "vhp_tuple": lambda T: F(T).vhp(lambda x, y: (x ** 2 * y).sum(), (X(T, 2), X(T, 2)), (Y(T, 2), X(T, 2))),
    "vhp_tuple_output": lambda T: F(T).vhp(lambda x: (x, x), X(T, 3), Y(T, 3)),
    "vhp_linear_strict": lambda T: F(T).vhp(lambda x: (x * 2).sum(), X(T, 3), Y(T, 3), strict=True),
    "vhp_create_graph": lambda T: F(T).vhp(lambda x: (x ** 3).sum(), X(T, 3, requires_grad=True), Y(T, 3),
                                           create_graph=True),
    "vhp_bad_v": lambda T: F(T).vhp(lambda x: (x ** 3).sum(), X(T, 3)),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    ours = outcome(ndgrad, SCENARIOS[name])
    if torch is None:
        pytest.skip("torch is not installed")
    assert_same(ours, outcome(torch, SCENARIOS[name]))


def test_values_in_closed_form():
    x = X(ndgrad, 3)
    xs = x.numpy()
    fn = F(ndgrad)
    np.testing.assert_allclose(fn.jacobian(lambda t: t.sin(), x).numpy(), np.diag(np.cos(xs)))
    np.testing.assert_allclose(fn.hessian(lambda t: (t ** 3).sum(), x).numpy(), np.diag(6 * xs))
    v = Y(ndgrad, 3)
    vs = v.numpy()
    out, jv = fn.jvp(lambda t: t.exp(), x, v)
    np.testing.assert_allclose(jv.numpy(), np.exp(xs) * vs)
    _, hv = fn.hvp(lambda t: (t ** 3).sum(), x, v)
    _, vh = fn.vhp(lambda t: (t ** 3).sum(), x, v)
    np.testing.assert_allclose(hv.numpy(), 6 * xs * vs)
    np.testing.assert_allclose(vh.numpy(), 6 * xs * vs)
    _, (ga, gb) = fn.vjp(lambda a, b: a * b, (x, v), ndgrad.ones(3, dtype=ndgrad.float64))
    np.testing.assert_allclose(ga.numpy(), vs)
    np.testing.assert_allclose(gb.numpy(), xs)


def test_inputs_and_their_grad_are_left_alone():
    x = X(ndgrad, 3, requires_grad=True)
    jac = F(ndgrad).jacobian(lambda t: t ** 2, x)
    assert x.grad is None and not jac.requires_grad


def test_create_graph_results_differentiate_back_to_the_inputs():
    def s(T):
        x = X(T, 3, requires_grad=True)
        jac = F(T).jacobian(lambda t: t ** 3, x, create_graph=True)
        jac.sum().backward()                   # d/dx sum(diag(3x^2)) = 6x
        _, hv = F(T).hvp(lambda t: (t ** 4).sum(), x, Y(T, 3), create_graph=True)
        g, = T.autograd.grad(hv.sum(), x)      # d/dx sum(12 x^2 v) = 24 x v
        return (x.grad, g)
    ours = summary(s(ndgrad))
    np.testing.assert_allclose(ours[0][0], 6 * X(ndgrad, 3).numpy())
    if torch is not None:
        assert_same(ours, summary(s(torch)))


@pytest.mark.parametrize("name", ["upsample", "upsample_nearest", "upsample_bilinear"])
def test_deprecated_upsample_functions_warn_and_interpolate(name):
    x = ndgrad.arange(4.0).view(1, 1, 2, 2)
    with pytest.warns(UserWarning, match=rf"^`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.$"):
        y = getattr(ndgrad.nn.functional, name)(x, scale_factor=2)
    mode = {"upsample_bilinear": "bilinear"}.get(name, "nearest")
    expected = ndgrad.nn.functional.interpolate(x, scale_factor=2, mode=mode, align_corners=True if mode == "bilinear" else None)
    assert y.shape == (1, 1, 4, 4) and ndgrad.equal(y, expected)
