"""Forward-mode AD (ndgrad.autograd.forward_ad) against torch: dual tensors, levels, views and
in-place ops on duals, custom Function jvp, forward-over-reverse and the functional API.
Per-op tangents are checked for every registry entry by tests/test_ops.py::test_forward_ad."""
import numpy as np
import pytest

import ndgrad
from parity import both, err, parity, same_error


def fw(T):
    return T.autograd.forward_ad


def X(T, *shape, start=0.1):
    n = int(np.prod(shape)) if shape else 1
    return T.tensor(np.linspace(start, 1.3, n).reshape(shape), dtype=T.float64)


def V(T, *shape):
    n = int(np.prod(shape)) if shape else 1
    return T.tensor(np.cos(np.arange(n) + 1.0).reshape(shape), dtype=T.float64)


# --- dual tensors and levels ---------------------------------------------------------------------
def test_tangent_of_a_composite_function():
    def scenario(T):
        with fw(T).dual_level():
            d = fw(T).make_dual(X(T, 2, 3), V(T, 2, 3))
            y = (d.sin() * d + d / 3).exp().sum(1) @ X(T, 2)
            return list(fw(T).unpack_dual(y))
    parity(scenario)


def test_unpack_dual_gives_the_primal_view_and_the_tangent_object():
    def scenario(T):
        x = X(T, 3).requires_grad_()
        v = V(T, 3)
        with fw(T).dual_level() as level:
            d = fw(T).make_dual(x, v)
            p, t = fw(T).unpack_dual(d)
            out = [level, d.grad_fn.name(), p.grad_fn.name(), p._base is x, t is v,
                   type(fw(T).unpack_dual(d)).__name__, fw(T).unpack_dual(d).tangent is v]
        return out + [fw(T).unpack_dual(d).tangent is None, fw(T).unpack_dual(x).primal is x]
    assert both(scenario) == [0, "ViewBackward0", "torch::autograd::Identity", True, True,
                              "UnpackedDualTensor", True, True, True]


def test_tangents_are_forgotten_when_the_level_exits():
    def scenario(T):
        with fw(T).dual_level():
            y = fw(T).make_dual(X(T, 3), V(T, 3)).cos()
        return fw(T).unpack_dual(y).tangent is None
    assert both(scenario) is True


def test_enter_and_exit_dual_level_and_decorator():
    def scenario(T):
        level = fw(T).enter_dual_level()
        t = fw(T).unpack_dual(fw(T).make_dual(X(T, 2), V(T, 2)) * 3).tangent
        fw(T).exit_dual_level()

        @fw(T).dual_level()
        def inside():
            return fw(T).unpack_dual(fw(T).make_dual(X(T, 2), V(T, 2)).tanh()).tangent
        return [level, t, inside()]
    parity(scenario)


def test_tangents_flow_under_no_grad():
    def scenario(T):
        with fw(T).dual_level(), T.no_grad():
            return fw(T).unpack_dual(fw(T).make_dual(X(T, 3), V(T, 3)).log()).tangent
    parity(scenario)


@pytest.mark.parametrize("call, exc", [
    (lambda T: _in_level(T, fw(T).enter_dual_level), RuntimeError),
    (lambda T: fw(T).make_dual(X(T, 2), V(T, 2)), RuntimeError),
    (lambda T: fw(T).exit_dual_level(), RuntimeError),
    (lambda T: _in_level(T, lambda: fw(T).make_dual(X(T, 3), V(T, 2))), RuntimeError),
    (lambda T: _in_level(T, lambda: fw(T).make_dual(T.arange(3), V(T, 3))), ValueError),
    (lambda T: _in_level(T, lambda: fw(T).make_dual(X(T, 3), T.arange(3))), ValueError),
    (lambda T: _in_level(T, lambda: fw(T).make_dual(fw(T).make_dual(X(T, 2), V(T, 2)), V(T, 2))), RuntimeError),
    (lambda T: _in_level(T, lambda: fw(T).exit_dual_level(level=3)), RuntimeError),
], ids=["nested", "no_level", "exit_without_level", "size", "int_primal", "int_tangent", "already_dual",
        "exit_other_level"])
def test_errors(call, exc):
    same_error(call, exc)


def _in_level(T, fn):
    with fw(T).dual_level():
        return fn()


def test_an_op_without_a_tangent_formula_raises_torchs_error():
    msg = same_error(lambda T: _in_level(T, lambda: T.special.zeta(fw(T).make_dual(X(T, 2), V(T, 2)), 2.0)),
                     NotImplementedError)
    assert msg.startswith("Trying to use forward AD with special_zeta that does not support it")


def test_tensor_fw_primal():
    with fw(ndgrad).dual_level() as level:
        d = fw(ndgrad).make_dual(X(ndgrad, 3), V(ndgrad, 3))
        p = d._fw_primal(level)
        assert fw(ndgrad).unpack_dual(p).tangent is None and p._base is not None
        np.testing.assert_array_equal(p.numpy(), X(ndgrad, 3).numpy())


# --- views and in-place ops ----------------------------------------------------------------------
def test_views_carry_views_of_the_tangent_and_see_in_place_updates():
    def scenario(T):
        with fw(T).dual_level():
            t = V(T, 2, 3)
            d = fw(T).make_dual(X(T, 2, 3), t)
            row, col = d[0], d.t()[1]
            tangent_is_view = fw(T).unpack_dual(row).tangent._base is not None
            d.mul_(2)
            d[1].mul_(d[0])          # in place on a view of the dual: the base's tangent changes
            return [tangent_is_view, fw(T).unpack_dual(d).tangent, t, fw(T).unpack_dual(row).tangent,
                    fw(T).unpack_dual(col).tangent]
    parity(scenario)


def test_in_place_ops_make_a_plain_tensor_dual():
    def scenario(T):
        with fw(T).dual_level():
            d = fw(T).make_dual(X(T, 2, 3), V(T, 2, 3))
            y = T.zeros(2, 3, dtype=T.float64)
            y[1].add_(d[0])           # a view of a tensor without tangent: the base gets one
            z = T.ones(3, dtype=T.float64)
            z.add_(d[1]).mul_(d[0])
            w = T.zeros(2, 3, dtype=T.float64)
            w.copy_(d)
            s = X(T, 2, 3).clone()
            s[:, 1] = d[:, 2]
            return [fw(T).unpack_dual(t).tangent for t in (y, z, w, s)]
    parity(scenario)


def test_the_first_tangent_of_a_view_written_in_place_is_its_bases_when_their_layouts_allow():
    def scenario(T):
        out = []
        with fw(T).dual_level():
            t = V(T, 2, 2)
            x = fw(T).make_dual(X(T, 2, 2), t)
            for view in (T.zeros(2, 2, dtype=T.float64).view(2, 2), T.zeros(2, 2, dtype=T.float64).t(),
                         T.zeros(3, 2, dtype=T.float64)[1:]):
                view.copy_(x)
                view_t, base_t = fw(T).unpack_dual(view).tangent, fw(T).unpack_dual(view._base).tangent
                out += [view_t is base_t, view_t._base is base_t, view_t is t, base_t]
            t.mul_(10)   # the tangents stored are copies: they do not see it
        return out + [fw(T).unpack_dual(x).tangent is None]
    r = both(scenario)
    assert r[0:3] == [True, False, False] and r[4:7] == [False, True, False] and r[8:11] == [False, True, False]
    np.testing.assert_array_equal(r[3], V(ndgrad, 2, 2).numpy())
    np.testing.assert_array_equal(r[7], V(ndgrad, 2, 2).numpy().T)
    np.testing.assert_array_equal(r[11][1:], V(ndgrad, 2, 2).numpy())


def test_multi_output_ops_and_view_lists():
    def scenario(T):
        with fw(T).dual_level():
            d = fw(T).make_dual(X(T, 3, 4), V(T, 3, 4))
            values, indices = d.max(1)
            parts = d.split([1, 3], 1)
            a, b = d.unbind(0)[1:]
            return [fw(T).unpack_dual(t).tangent for t in (values, *parts, a, b, d.sort(0)[0], d.cumsum(1))]
    parity(scenario)


# --- custom Functions ----------------------------------------------------------------------------
def _scaled_product(T):
    class ScaledProduct(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, k):
            ctx.save_for_forward(x, y)
            ctx.k = k
            return x * y * k, x.exp()

        @staticmethod
        def jvp(ctx, x_t, y_t, k_t):
            x, y = ctx.saved_tensors
            return (x_t * y + x * y_t) * ctx.k, x_t * x.exp()
    return ScaledProduct


def test_function_jvp_with_save_for_forward():
    def scenario(T):
        with fw(T).dual_level():
            a, b = _scaled_product(T).apply(fw(T).make_dual(X(T, 3), V(T, 3)), X(T, 3, start=0.5), 2.0)
            return [fw(T).unpack_dual(a).tangent, fw(T).unpack_dual(b).tangent]
    parity(scenario)


def test_function_without_jvp_or_with_a_wrong_count_raises():
    def no_jvp(T):
        class Double(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        return _in_level(T, lambda: Double.apply(fw(T).make_dual(X(T, 2), V(T, 2))))

    def two_tangents(T):
        class Double(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def jvp(ctx, x_t):
                return x_t, x_t
        return _in_level(T, lambda: Double.apply(fw(T).make_dual(X(T, 2), V(T, 2))))
    same_error(no_jvp, NotImplementedError)
    same_error(two_tangents, RuntimeError)


# --- forward-over-reverse, reverse-over-forward, functional ---------------------------------------
def test_forward_over_reverse_gives_hessian_vector_products():
    def scenario(T):
        f = lambda x: (x.sin() * x).sum() + (x[:2] * x[1:]).prod()   # noqa: E731
        x = X(T, 3).requires_grad_()
        with fw(T).dual_level():
            d = fw(T).make_dual(x, V(T, 3))
            g, = T.autograd.grad(f(d), d)
            h, = T.autograd.grad(f(d), x, create_graph=True)
            return [fw(T).unpack_dual(g).tangent, fw(T).unpack_dual(h).tangent]
    hv = both(scenario)
    x, v = X(ndgrad, 3), V(ndgrad, 3)
    _, ref = ndgrad.autograd.functional.hvp(lambda x: (x.sin() * x).sum() + (x[:2] * x[1:]).prod(), x, v)
    np.testing.assert_allclose(hv[0], ref.numpy(), rtol=1e-10)


def test_reverse_over_forward_differentiates_the_tangent():
    def scenario(T):
        t = V(T, 3).requires_grad_()
        x = X(T, 3).requires_grad_()
        with fw(T).dual_level():
            jt = fw(T).unpack_dual((fw(T).make_dual(x, t).exp() * 2).sum()).tangent
        return [jt] + list(T.autograd.grad(jt, (t, x)))
    parity(scenario)


def test_jacobian_forward_mode_and_forward_over_reverse_hessian():
    def scenario(T):
        F = T.autograd.functional
        f = lambda x, y: (x.sin() * y, (x * y).sum())   # noqa: E731
        jac = F.jacobian(f, (X(T, 3), X(T, 3, start=0.5)), strategy="forward-mode", vectorize=True)
        hess = F.hessian(lambda x, y: (x.sin() * y).sum(), (X(T, 3), X(T, 3, start=0.5)),
                         outer_jacobian_strategy="forward-mode", vectorize=True)
        single = F.hessian(lambda x: (x.exp() * x).sum(), X(T, 2), outer_jacobian_strategy="forward-mode",
                           vectorize=True)
        return [jac, hess, single]
    parity(scenario)


def test_an_op_torch_gives_no_derivative_raises_torchs_short_error():
    msg = same_error(lambda T: _in_level(T, lambda: T.floor_divide(fw(T).make_dual(X(T, 2), V(T, 2)), 2.0)),
                     NotImplementedError)
    assert msg == "Trying to use forward AD with aten::floor_divide that does not support it."


def test_in_place_on_a_dual_that_requires_grad_keeps_both_modes_right():
    def scenario(T):
        leaf = X(T, 2, 3).requires_grad_()
        with fw(T).dual_level():
            d = fw(T).make_dual(leaf.clone(), V(T, 2, 3))
            d.mul_(d.detach() + 1)
            d[0].exp_()
            tangent = fw(T).unpack_dual(d).tangent
            grad, = T.autograd.grad(d.sum(), leaf)
            return [d.grad_fn.name(), tangent, grad]
    parity(scenario)


# --- level index, the forward-grad switch, printing ----------------------------------------------
def test_current_level_module_attribute_follows_enter_and_exit():
    def scenario(T):
        seen = [fw(T)._current_level]
        with fw(T).dual_level():
            seen.append(fw(T)._current_level)
        return seen + [fw(T)._current_level]
    assert both(scenario) == [-1, 0, -1]


def test_disabling_forward_grad_makes_duals_act_as_plain_tensors():
    def scenario(T):
        out = [fw(T)._is_fwd_grad_enabled()]
        with fw(T).dual_level():
            d = fw(T).make_dual(X(T, 3), V(T, 3))
            try:
                T._C._set_fwd_grad_enabled(False)
                out.append(fw(T)._is_fwd_grad_enabled())
                y = d * 2
                out += [fw(T).unpack_dual(y).tangent is None, fw(T).unpack_dual(d).tangent is None,
                        fw(T).unpack_dual(fw(T).make_dual(X(T, 2), V(T, 2))).tangent is None]
                d.mul_(5)   # the tangent is left alone
                with fw(T)._set_fwd_grad_enabled(True):
                    out.append(fw(T)._is_fwd_grad_enabled())
                out.append(fw(T)._is_fwd_grad_enabled())
            finally:
                T._C._set_fwd_grad_enabled(True)
            out.append(fw(T).unpack_dual(d).tangent)
        return out
    assert both(scenario)[:7] == [True, False, True, True, True, True, False]


def test_a_dual_prints_its_tangent_while_its_level_lives():
    def scenario(T):
        with fw(T).dual_level():
            d = fw(T).make_dual(T.tensor([1.0, 2.5]), T.tensor([0.5, -1.0]))
            p, t = fw(T).unpack_dual(d)
            inside = [repr(d), repr(d * 2), str(p), str(t)]
        return inside + [repr(d)]
    out = both(scenario)
    assert out[0] == "tensor([1.0000, 2.5000], tangent=tensor([ 0.5000, -1.0000]))"
    assert "tangent=" not in out[2] + out[3] + out[4]


def test_a_tangent_with_its_own_tangent_is_refused():
    def call(T):
        with fw(T).dual_level():
            fw(T).make_dual(X(T, 2), fw(T).make_dual(X(T, 2), V(T, 2)))
    assert "itself has a forward gradient at the same level0" in same_error(call)


def test_make_dual_in_inference_mode_shares_memory_without_a_view():
    def scenario(T):
        with T.inference_mode():
            a = T.zeros(2)
            with fw(T).dual_level():
                d = fw(T).make_dual(a, V(T, 2).float())
                is_view = d._is_view()
                d += 1
        return [is_view, a]
    assert both(scenario)[0] is False


def test_the_dual_alone_keeps_the_tangent_alive():
    def scenario(T):
        with fw(T).dual_level():
            tangent = V(T, 2)
            ref = T._C._WeakTensorRef(tangent)
            d = fw(T).make_dual(X(T, 2), tangent)
            del tangent
            alive = not ref.expired()
            del d
            return [alive, ref.expired()]
    assert both(scenario) == [True, True]


def test_no_tensor_has_a_conj_or_neg_bit_after_plain_ops():
    def scenario(T):
        x = T.tensor([1 + 2j, 3 - 1j])
        return [T.is_conj(x), x.is_conj(), T.is_neg(x), x.is_neg(), T.is_conj(X(T, 2))]
    assert both(scenario) == [False] * 5


# --- out= variants ----------------------------------------------------------------------------
def test_out_variant_writes_into_the_given_tensor_and_returns_it():
    def scenario(T):
        a, b = X(T, 2, 2), V(T, 2, 2)
        o = T.zeros(2, 2, dtype=T.float64)
        r = T.add(a, b, alpha=2, out=o)
        version = o._version
        lead = T.zeros(2, 2, dtype=T.float64, requires_grad=True)
        with T.no_grad():
            T.mul(lead, b, out=o)
        return [r is o, version, o, err(lambda: T.mul(a, b, out=T.zeros(2, 2, dtype=T.int64)))]
    out = both(scenario)
    assert out[:2] == [True, 1] and out[3] == ["RuntimeError", "result type Double can't be cast to the desired "
                                                              "output type Long"]


def test_out_variant_refuses_autograd():
    msg = same_error(lambda T: T.mul(X(T, 2).requires_grad_(), V(T, 2), out=T.zeros(2, dtype=T.float64)))
    assert msg == ("mul(): functions with out=... arguments don't support automatic differentiation, but one of the "
                   "arguments requires grad.")
    same_error(lambda T: T.mul(X(T, 2), V(T, 2), out=T.zeros(2, dtype=T.float64, requires_grad=True)))
    for dual_out in (True, False):
        def call(T):
            with fw(T).dual_level():
                d = fw(T).make_dual(X(T, 2), V(T, 2))
                plain = X(T, 2)
                T.add(plain, plain, out=d) if dual_out else T.add(d, plain, out=plain)
        assert same_error(call, NotImplementedError) == ("Trying to use forward AD with add_out that does not support "
                                                         "it because it is an out= function")


def test_out_of_another_shape_is_resized_with_torchs_warning():
    def scenario(T):
        o = T.zeros(3, dtype=T.float64)
        with pytest.warns(UserWarning, match="resized since it had shape \\[3\\]"):
            T.exp(X(T, 2), out=o)
        return [o, list(o.shape)]
    assert both(scenario)[1] == [2]


# --- tangent layout: torch stores a tangent laid out exactly as its primal ---------------------------
def _layout(t):
    return [tuple(t.shape), t.stride(), t.storage_offset(), t.untyped_storage().nbytes() // t.element_size()]


def test_make_dual_copies_a_tangent_whose_layout_differs_from_the_primal():
    def scenario(T):
        rows = []
        cases = [(T.ones(5)[:4].detach(), T.ones(4)),            # the primal's storage is larger
                 (T.ones(5)[1:].detach(), T.ones(4)),            # ... and starts later
                 (T.ones(2, 3), T.ones(3, 2).t()),               # other strides
                 (T.ones(3, 2).t(), T.ones(2, 3)),
                 (T.ones(2, 3), T.ones(2, 3)),                   # same layout: the tangent itself
                 (T.ones(1, 3), T.ones(3, 1).t())]               # strides of size-1 dims do not count
        for primal, tangent in cases:
            with fw(T).dual_level():
                dual = fw(T).make_dual(primal, tangent)
                t = fw(T).unpack_dual(dual).tangent
                t.mul_(2)   # a copy leaves the given tangent alone
                n = primal.untyped_storage().nbytes() // primal.element_size()
                whole = fw(T).unpack_dual(dual.as_strided((n,), (1,), 0)).tangent   # the tangent spans the storage
                rows.append([t is tangent, _layout(t), tangent.sum().item(), whole.sum().item()])
        return rows
    r = both(scenario)
    assert [row[0] for row in r] == [False, False, False, False, True, True]
    assert r[0][1:] == [[[4], [1], 0, 5], 4.0, 8.0] and r[1][1:] == [[[4], [1], 1, 5], 4.0, 8.0]
    assert r[3][1] == [[2, 3], [1, 2], 0, 6] and r[4][2] == 12.0


def test_a_copied_tangent_stays_differentiable_and_expanded_primals_are_refused():
    def scenario(T):
        v = T.ones(4, requires_grad=True)
        with fw(T).dual_level():
            t = fw(T).unpack_dual(fw(T).make_dual(T.ones(5)[:4], v * 3)).tangent
            t.sum().backward()
        return [type(t.grad_fn).__name__, v.grad]
    assert both(scenario)[0] == "CopyBackwards"

    def expanded(T):
        with fw(T).dual_level():
            fw(T).make_dual(T.ones(3).expand(2, 3), T.ones(2, 3))
    assert same_error(expanded).startswith("unsupported operation: more than one element of the written-to tensor")


def test_new_zeros_with_same_feature_meta():
    def scenario(T):
        f = T.ops.aten._new_zeros_with_same_feature_meta
        a, b = T.ones(3, requires_grad=True), T.ones(2, 3, dtype=T.float64)
        view = T.ones(6)[1:].view(5, 1).t()
        rows = [f(a, b), f(a, b, self_num_batch_dims=1), f(a, T.ones(3).expand(2, 3)),
                f(a, T.ones(3, dtype=T.int64)), f(T.ones(2, 3, 4), view, self_num_batch_dims=2),
                f(b, T.tensor(2.0), self_num_batch_dims=1)]
        return [_layout(r) + [str(r.dtype), r.requires_grad, r.abs().sum().item()] for r in rows]
    r = both(scenario)
    assert r[1] == [[3, 2, 3], [6, 3, 1], 0, 18, "torch.float64", False, 0.0]
    assert r[4][:4] == [[2, 3, 1, 5], [18, 6, 1, 1], 1, 36] and r[2][1] == [0, 1]


def test_detach_in_place_drops_the_tangent():
    def scenario(T):
        with fw(T).dual_level():
            d = fw(T).make_dual(X(T, 2), V(T, 2)).clone()
            before = fw(T).unpack_dual(d).tangent is not None
            d.detach_()
            return [before, fw(T).unpack_dual(d).tangent, fw(T).unpack_dual(d * 2).tangent]
    assert both(scenario) == [True, None, None]


def test_nextafter_carries_the_tangent_of_self():
    def scenario(T):
        fwAD = T.autograd.forward_ad
        with fwAD.dual_level():
            x = fwAD.make_dual(T.tensor([1.0, -2.0], dtype=T.float64), T.tensor([3.0, 4.0], dtype=T.float64))
            return fwAD.unpack_dual(T.nextafter(x, T.zeros(2, dtype=T.float64))).tangent.tolist()
    assert both(scenario) == [3.0, 4.0]


def test_tangents_of_singular_value_functions():
    def scenario(T):
        fw = T.autograd.forward_ad
        A = T.tensor([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]], dtype=T.float64)
        tA = T.tensor([[0.1, 0.2], [0.3, -0.4], [1.0, 0.0]], dtype=T.float64)
        with fw.dual_level():
            x = fw.make_dual(A, tA)
            return [fw.unpack_dual(f(x)).tangent for f in (T.linalg.svdvals, lambda x: T.linalg.matrix_norm(x, "nuc"),
                                                            T.linalg.cond, lambda x: T.norm(x, "nuc"))]
    svdvals, nuc, cond, norm_nuc = both(scenario, rtol=1e-10)
    assert np.allclose(svdvals, [-0.1144, 0.8872], atol=1e-4) and abs(nuc - 0.7728) < 1e-4 and nuc == norm_nuc


def test_make_dual_and_unpack_dual_are_seen_as_an_alias_of_the_primal():
    def scenario(T):
        import importlib
        mode_utils = importlib.import_module(T.__name__ + ".utils._mode_utils")
        fwAD = T.autograd.forward_ad
        seen = []

        class Sub(T.Tensor):
            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                seen.append((str(func), [type(a).__name__ for a in args]))
                with mode_utils.no_dispatch():
                    return func(*args, **kwargs)
        s = Sub._make_subclass(Sub, T.tensor([1.0, 2.0]))
        with fwAD.dual_level():
            d = fwAD.make_dual(s, T.tensor([3.0, 4.0]))   # the primal is the subclass: an alias of it is seen
            primal_seen = [name for name, _ in seen]
            d2 = fwAD.make_dual(T.tensor([5.0, 6.0]), s)   # only the tangent is: not seen
            out = fwAD.unpack_dual(d * 2).tangent, fwAD.unpack_dual(d2 * 2).tangent
        # (torch's make_dual also checks the tangent's size and storage with ops of its own)
        return primal_seen, [e for e in seen if "alias" in e[0] or "mul" in e[0]], type(d).__name__, out
    primal_seen, seen, dtype_name, (t1, t2) = both(scenario)
    # the tangent's own op (its product by 2 in d2 * 2's tangent) is seen, as a Sub argument
    assert primal_seen == ["aten.alias.default"]
    assert seen == [["aten.alias.default", ["Sub"]], ["aten.mul.Tensor", ["Sub", "int"]]]
    assert dtype_name == "Tensor" and t1.tolist() == [6.0, 8.0] and t2.tolist() == [2.0, 4.0]


def test_a_real_outputs_tangent_from_a_complex_input_is_the_real_part_without_a_warning():
    import warnings
    x, t = np.array([1 + 2j, 3 - 1j]), np.array([1 + 0j, 1j])
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # (a complex-to-real cast of the tangent warned)
        out = ndgrad.func.jvp(lambda z: z.abs(), (ndgrad.tensor(x),), (ndgrad.tensor(t),))[1]
    assert out.dtype == ndgrad.float64
    # d|z| along t: Re(conj(z) t) / |z|
    np.testing.assert_allclose(out.numpy(), (np.conj(x) * t).real / np.abs(x))
