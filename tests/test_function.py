"""Custom autograd Functions: forward/backward, setup_context, ctx methods, saved tensors and their
version checks, mark_dirty, mark_non_differentiable, materialized gradients, once_differentiable,
double backward and torch's errors.

Each scenario is written once against the torch API (`T` is ndgrad or torch); where torch is
installed it runs on both and the results (values, gradients, names, error messages) must agree.
"""
import re
import warnings

import numpy as np
import pytest

from parity import LIBS, both, err, leaf, parity

import ndgrad


def functions(T):
    """The custom Functions the scenarios use, defined against library T."""
    F = T.autograd.Function

    class MyExp(F):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return g * y

    class Square(F):           # backward made of differentiable ops: double backward works
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

    class Scale(F):            # setup_context style, a non-tensor argument with a default
        @staticmethod
        def forward(x, k=2.0):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.k = inputs[1]
            ctx.seen = (len(inputs), ctx.needs_input_grad)

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    class Once(F):
        @staticmethod
        def forward(ctx, x):
            return x.exp()

        @staticmethod
        @T.autograd.function.once_differentiable
        def backward(ctx, g):
            return g * 2

    class Split(F):            # several outputs: two floats, a Python int, an integer tensor
        @staticmethod
        def forward(ctx, a, n, b):
            ctx.b = b
            return a * b, a + b, n, (a * b).long()

        @staticmethod
        def backward(ctx, g1, g2, g3, g4):
            ctx.got = [g1, g2, g3 is None, g4]
            return g1 * ctx.b + g2, None, None

    return dict(MyExp=MyExp, Square=Square, Scale=Scale, Once=Once, Split=Split)


def test_forward_backward_name_and_edges():
    def s(T):
        MyExp = functions(T)["MyExp"]
        x = leaf(T)
        y = MyExp.apply(x)
        y.sum().backward()
        fn = y.grad_fn
        return [y, x.grad, fn.name(), type(fn).__name__, len(fn.next_functions),
                fn.next_functions[0][0].name(), isinstance(fn, T.autograd.graph.Node)]
    r = both(s)
    np.testing.assert_allclose(r[1], np.exp([0.5, -1.0, 2.0]))
    assert r[2:5] == ["MyExpBackward", "MyExpBackward", 1]


def test_function_in_the_middle_of_a_graph():
    def s(T):
        Square = functions(T)["Square"]
        x = leaf(T)
        z = Square.apply(x * 3) * 2
        z.sum().backward()
        return [z, x.grad, z.grad_fn.next_functions[0][0].name(), Square.apply(x).grad_fn.next_functions[0][0].name()]
    r = both(s)
    np.testing.assert_allclose(r[1], 36 * np.array([0.5, -1.0, 2.0]))


def test_setup_context_gets_inputs_with_defaults_and_kwargs():
    def s(T):
        Scale = functions(T)["Scale"]
        x = leaf(T)
        a, b = Scale.apply(x), Scale.apply(x, k=5.0)
        (a + b).sum().backward()
        return [a, b, x.grad, list(a.grad_fn.seen), list(b.grad_fn.seen), a.grad_fn.k]
    r = both(s)
    assert r[3] == [2, [True, False]]


def test_ctx_style_kwargs_and_needs_input_grad():
    def s(T):
        class K(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, k=2.0, y=None):
                ctx.nig = ctx.needs_input_grad
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g * 2, None
        x = leaf(T)
        out = [K.apply(x).grad_fn.nig, K.apply(x, k=3.0).grad_fn.nig, K.apply(x, 3.0, x.detach()).grad_fn.nig]
        with T.no_grad():
            K.apply(x, 3.0)
        return out + [err(lambda: K.apply(x, 3.0, x).sum().backward())]
    parity(s)


def test_needs_input_grad_without_recording():
    def s(T):
        class A(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                A.seen.append(ctx.needs_input_grad)
                return x * y

            @staticmethod
            def backward(ctx, g):
                return g, g
        A.seen = []
        x = leaf(T)
        with T.no_grad():
            r1 = A.apply(x, x)
        r2 = A.apply(x.detach(), 2.0)
        return [A.seen, r1.requires_grad, r1.grad_fn is None, r2.requires_grad]
    assert both(s)[0] == [[True, True], [False, False]]


def test_several_outputs_non_tensor_arguments_and_materialized_grads():
    def s(T):
        Split = functions(T)["Split"]
        a, b = leaf(T), T.tensor([1.0, 2.0, 3.0], dtype=T.float64)
        o = Split.apply(a, 7, b)
        o[0].sum().backward()
        fn = o[0].grad_fn
        return [list(o[:2]), o[2], o[3], o[3].requires_grad, o[1].grad_fn is fn,
                [e[0] is None for e in fn.next_functions],
                fn.got[:3], fn.got[3], str(fn.got[3].dtype), a.grad, o[1].output_nr]
    r = both(s)
    assert r[5] == [False, True]


def test_backward_may_return_none_and_extra_trailing_nones():
    def s(T):
        class More(T.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * b

            @staticmethod
            def backward(ctx, g):
                return g, None, None, None
        x, y = leaf(T), leaf(T)
        More.apply(x, y).sum().backward()
        return [x.grad, y.grad is None]
    parity(s)


@pytest.mark.parametrize("returned", ["too_few", "too_many", "float", "grad_for_number"])
def test_wrong_gradients_from_backward_raise_torch_errors(returned):
    def s(T):
        class Bad(T.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return {"too_few": (g,), "too_many": (g, g, g), "float": (g, 1.0), "grad_for_number": (g, g)}[returned]
        x = leaf(T)
        return err(lambda: Bad.apply(x, 2.0 if returned == "grad_for_number" else x).sum().backward())
    assert both(s) is not None


def test_gradient_of_wrong_shape_raises():
    def s(T):
        class Cut(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g[:2]
        return err(lambda: Cut.apply(leaf(T)).sum().backward())
    assert "returned an invalid gradient at index 0" in both(s)[1]


def test_gradient_is_summed_and_cast_to_the_input():
    def s(T):
        class Wide(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.sum()

            @staticmethod
            def backward(ctx, g):
                return g.double().expand(2, 3)
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        Wide.apply(x).backward()
        return [x.grad, str(x.grad.dtype)]
    assert both(s)[1].endswith("float32")


def test_modified_saved_input_or_output_raises():
    def s(T):
        fs = functions(T)
        x = leaf(T)
        h = x * 1
        y = fs["Square"].apply(h)
        h.add_(1)
        e1 = err(lambda: y.sum().backward())
        y2 = fs["MyExp"].apply(x)
        y2.mul_(2)
        e2 = err(lambda: y2.sum().backward())
        return [e1, e2]
    r = both(s)
    assert "output 0 of MyExp," in r[1][1] and "is at version 1; expected version 0" in r[1][1]


def test_saved_tensors_freed_after_backward_unless_retained():
    def s(T):
        MyExp = functions(T)["MyExp"]
        x = leaf(T)
        y = MyExp.apply(x)
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        return [x.grad, err(lambda: y.sum().backward()), err(lambda: y.grad_fn.saved_tensors)]
    r = both(s)
    assert "Trying to backward through the graph a second time" in r[1][1]


def test_saved_output_comes_back_with_the_node_as_grad_fn():
    def s(T):
        y = functions(T)["MyExp"].apply(leaf(T))
        saved, = y.grad_fn.saved_tensors
        return [saved, saved.grad_fn is y.grad_fn, saved.requires_grad]
    assert both(s)[1:] == [True, True]


def test_save_for_backward_rejects_non_tensors_and_keeps_none():
    def s(T):
        class S(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, bad):
                ctx.save_for_backward(x, None, *([3] if bad else []))
                return x * 2

            @staticmethod
            def backward(ctx, g):
                x, none = ctx.saved_tensors
                return g * 2 + x * 0, None
        x = leaf(T)
        S.apply(x, False).sum().backward()
        return [x.grad, err(lambda: S.apply(x, True))]
    assert "can only save variables, but argument 2 is of type int" in both(s)[1][1]


def test_double_backward_through_a_differentiable_backward():
    def s(T):
        Square = functions(T)["Square"]
        x = leaf(T)
        g, = T.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
        g2, = T.autograd.grad((g * g).sum(), x)
        return [g, g.grad_fn.name(), g2]
    r = both(s)
    np.testing.assert_allclose(r[2], 8 * np.array([0.5, -1.0, 2.0]))


def test_once_differentiable_runs_once_and_refuses_twice():
    def s(T):
        Once = functions(T)["Once"]
        x = leaf(T)
        g_plain, = T.autograd.grad(Once.apply(x).sum(), x, create_graph=True)   # cotangent has no graph
        g, = T.autograd.grad((Once.apply(x) ** 2).sum(), x, create_graph=True)
        return [g_plain, g_plain.grad_fn is None, g, g.grad_fn.name(), type(g.grad_fn).__name__,
                err(lambda: g.sum().backward())]
    r = both(s)
    assert r[3] == "torch::autograd::Error"
    assert r[5] == ["RuntimeError",
                    "trying to differentiate twice a function that was marked with @once_differentiable"]


@pytest.mark.parametrize("materialize", [True, False])
def test_materialize_grads(materialize):
    def s(T):
        class Two(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                Two.seen.append([g1, g2])
                if g1 is None and g2 is None:
                    return None
                return (g1 if g1 is not None else 0) * 2 + (g2 if g2 is not None else 0) * 3

        class NoGrad(T.autograd.Function):   # sends no gradient on: the node below still runs
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, g):
                return None
        Two.seen = []
        x = leaf(T)
        Two.apply(x)[1].sum().backward()
        NoGrad.apply(Two.apply(x)[0]).sum().backward()
        return [x.grad, Two.seen]
    parity(s)


def test_mark_dirty_moves_the_history_of_the_modified_input():
    def s(T):
        class Double(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x)
                x.mul_(2)
                ctx.save_for_backward(x)
                return x

            @staticmethod
            def backward(ctx, g):
                out, = ctx.saved_tensors
                return g * 2 + out * 0
        x = leaf(T)
        h = x * 1
        out = Double.apply(h)
        out.sum().backward()
        return [out is h, h, h.grad_fn.name(), h._version, x.grad]
    r = both(s)
    assert r[0] is True and r[3] == 2


def test_mark_dirty_errors():
    def s(T):
        class Dirty(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, y, returned):
                ctx.mark_dirty(x)
                x.mul_(2)
                return (x, y * 2) if returned else y * 2

            @staticmethod
            def backward(ctx, g, h=None):
                return g, h, None
        x, y = leaf(T), leaf(T)
        view = (x * 1)[:2]
        return [err(lambda: Dirty.apply(x, y, True)), x, x._version,
                err(lambda: Dirty.apply(x * 1, y, False)),
                err(lambda: Dirty.apply(view, y[:2], True))]
    r = both(s)
    assert r[0][1] == "a leaf Variable that requires grad has been used in an in-place operation."


def test_mark_dirty_on_a_view_rewrites_the_base():
    def s(T):
        class Double(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x)
                return x.mul_(2)

            @staticmethod
            def backward(ctx, g):
                return g * 2
        x = leaf(T)
        base = x * 1
        v = base[:2]
        out = Double.apply(v)
        base.sum().backward()
        return [out is v, base, base.grad_fn.name(), v.grad_fn.name(), x.grad]
    r = both(s)
    np.testing.assert_allclose(r[4], [2.0, 2.0, 1.0])


def test_mark_non_differentiable():
    def s(T):
        class Max(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                value, idx = x.max(0)
                ctx.mark_non_differentiable(idx)
                ctx.save_for_backward(x, idx)
                return value, idx

            @staticmethod
            def backward(ctx, g, g_idx):
                x, idx = ctx.saved_tensors
                Max.seen = g_idx
                return T.zeros_like(x).index_add(0, idx.reshape(1), g.reshape(1))

        class Pair(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                a, b = x * 2, x * 3
                ctx.mark_non_differentiable(b)
                return a, b

            @staticmethod
            def backward(ctx, g, gb):
                Pair.seen = gb
                return g * 2
        x = leaf(T, (3.0, 1.0, 2.0))
        values, idx = Max.apply(x)
        (values * 5).backward()
        a, b = Pair.apply(x)
        a.sum().backward()
        return [values, idx, values.requires_grad, idx.requires_grad, Max.seen, x.grad, b.requires_grad, b.grad_fn,
                Pair.seen, err(lambda: Pair.apply(x)[1].sum().backward())]
    parity(s)


def test_mark_non_differentiable_takes_tensors_only():
    class Bad(ndgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_non_differentiable(3)
            return x

    with pytest.raises(RuntimeError, match="mark_non_differentiable only accepts variable arguments, but got int"):
        Bad.apply(leaf(ndgrad))


def test_input_returned_as_is_becomes_an_alias():
    def s(T):
        class Ident(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x, y

            @staticmethod
            def backward(ctx, g, h):
                return g * 2, h

        class Ident1(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g
        x, w = leaf(T), T.ones(3, dtype=T.float64)
        a, b = Ident.apply(x, w)
        (a + b).sum().backward()
        c = Ident1.apply(x * 1)
        with T.no_grad():
            d = Ident1.apply(x)
        return [a is x, a._base is x, b._base is w, b.requires_grad, a.grad_fn.name(), x.grad,
                err(lambda: a.mul_(2)), err(lambda: c.mul_(2)), d is x, d._base is None, d.requires_grad]
    r = both(s)
    assert "custom Function" in r[7][1]


def test_tuple_and_list_outputs():
    def s(T):
        class Tup(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return (x * 2,)

            @staticmethod
            def backward(ctx, g):
                return g

        class Lst(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return [x * 2]

            @staticmethod
            def backward(ctx, g):
                return g
        x = leaf(T)
        t, l = Tup.apply(x), Lst.apply(x)
        return [type(t).__name__, len(t), t[0].grad_fn.name(), type(l).__name__, l[0].requires_grad]
    parity(s)


def test_vjp_alias_and_missing_methods():
    def s(T):
        F = T.autograd.Function

        class ViaVjp(F):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def vjp(ctx, g):
                return g * 3

        class Both(ViaVjp):
            @staticmethod
            def backward(ctx, g):
                return g

        class NoBackward(F):
            @staticmethod
            def forward(ctx, x):
                return x * 2

        class NoForward(F):
            pass
        x = leaf(T)
        ViaVjp.apply(x).sum().backward()
        return [x.grad, err(lambda: Both.apply(x).sum().backward()), err(lambda: NoBackward.apply(x).sum().backward()),
                err(lambda: NoForward.apply(x))]
    parity(s)


def test_legacy_instantiation():
    def s(T):
        class Legacy(T.autograd.Function):
            def forward(self, x):
                return x
        with pytest.warns(DeprecationWarning, match="should not be instantiated"):
            fn = Legacy()
        return err(lambda: fn(leaf(T)))
    assert "Legacy autograd function with non-static forward method is deprecated" in both(s)[1]


def test_hooks_on_the_function_node():
    def s(T):
        MyExp = functions(T)["MyExp"]
        x = leaf(T)
        y = MyExp.apply(x)
        calls = []
        y.grad_fn.register_prehook(lambda gout: calls.append("pre") or (gout[0] * 10,))
        y.grad_fn.register_hook(lambda gin, gout: calls.append("post"))
        y.register_hook(lambda g: calls.append("tensor"))
        y.sum().backward()
        return [calls, x.grad]
    assert both(s)[0] == ["tensor", "pre", "post"]


def test_ctx_attributes_visible_on_grad_fn_and_direct_apply():
    def s(T):
        Scale = functions(T)["Scale"]
        y = Scale.apply(leaf(T), 4.0)
        return [y.grad_fn.k, y.grad_fn.apply(T.ones(3, dtype=T.float64))[0]]
    parity(s)


def test_gradcheck_and_gradgradcheck_of_a_function():
    Square = functions(ndgrad)["Square"]
    x = ndgrad.tensor([0.3, -1.2, 2.0], dtype=ndgrad.float64, requires_grad=True)
    assert ndgrad.autograd.gradcheck(Square.apply, (x,))
    assert ndgrad.autograd.gradgradcheck(Square.apply, (x,))


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_function_node_subclasses_are_per_function(T):
    fs = functions(T)
    a, b = fs["MyExp"].apply(leaf(T)).grad_fn, fs["Square"].apply(leaf(T)).grad_fn
    assert type(a) is not type(b)
    assert isinstance(a, T.autograd.function.BackwardCFunction)
    assert isinstance(a, T.autograd.function.FunctionCtx)


# ---- torch's node types, undefined gradients, forward-mode checks ------------------------------------
def test_graph_node_is_an_abstract_type_of_every_node():
    def s(T):
        N = T.autograd.graph.Node
        a = T.rand(3, requires_grad=True)
        b = a.exp()

        class Id(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                Id.ctx_is_node = isinstance(ctx, N)
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                return g
        c = Id.apply(a)
        return [isinstance(b.grad_fn, N), N in type(b.grad_fn).mro(), isinstance(b.grad_fn.next_functions[0][0], N),
                issubclass(T._C._functions.AccumulateGrad, N), isinstance(T._C._functions.AccumulateGrad, N),
                issubclass(T._C._functions.DelayedError, N), isinstance(N, N), issubclass(N, N),
                isinstance(None, N), isinstance(1, N), Id.ctx_is_node, isinstance(c.grad_fn, N),
                N in type(c.grad_fn).mro(), issubclass(T.autograd.function.BackwardCFunction, N)]
    assert both(s) == [True, False, True, True, False, True, False, True, False, False, True, True, False, True]


@pytest.mark.parametrize("materialize", [True, False])
def test_undefined_grad_reaches_backward_as_zeros_or_none(materialize):
    def s(T):
        class Id(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                Id.got = g
                return g
        x = T.ones(2, requires_grad=True)
        y = T._C._functions.UndefinedGrad()(Id.apply(x))
        y.sum().backward()
        return [type(y.grad_fn).__name__, y.grad_fn.name(), Id.got, x.grad,
                err(lambda: T._C._functions.UndefinedGrad()(x, x)),
                T._C._functions.UndefinedGrad()(T.ones(1)).grad_fn]
    r = both(s)
    assert r[4] == ["TypeError", "expected 1 arguments, got 2 instead"]
    assert (r[2] is None) == (not materialize)


def test_delayed_error_aliases_and_none_edges():
    def s(T):
        a = T.ones(2, requires_grad=True)
        outs = T._C._functions.DelayedError(b"no double backward here", 2)(a, None)
        fn = outs[0].grad_fn
        return [outs[1], type(fn).__name__, fn.name(), [e[0] is None for e in fn.next_functions],
                err(lambda: outs[0].sum().backward()), outs[0]]
    assert both(s)[4] == ["RuntimeError", "no double backward here"]


def test_once_differentiable_error_node_keeps_an_edge_per_gradient():
    def s(T):
        class Mul(T.autograd.Function):
            @staticmethod
            def forward(ctx, a, k, b):
                ctx.save_for_backward(a, b)
                return a * b * k

            @staticmethod
            @T.autograd.function.once_differentiable
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                return g * b, None, g * a
        x, y = leaf(T), leaf(T)
        go = T.ones((), dtype=T.float64, requires_grad=True)   # once_differentiable acts when it needs grad
        (gx, gy) = T.autograd.grad(Mul.apply(x, 2.0, y).sum(), (x, y), go, create_graph=True)
        fn = gx.grad_fn
        return [type(fn).__name__, [type(e[0]).__name__ for e in fn.next_functions], gx, gy,
                err(lambda: gx.sum().backward())]
    r = both(s)
    assert r[1] == ["AccumulateGrad", "NoneType", "AccumulateGrad"]


def test_non_differentiable_outputs_may_keep_none_gradients():
    def s(T):
        class Two(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, materialize):
                a, b = x.clone(), x.clone()
                ctx.mark_non_differentiable(b)
                ctx._materialize_non_diff_grads = materialize
                return a, b

            @staticmethod
            def backward(ctx, ga, gb):
                Two.got.append(gb)
                return ga, None
        Two.got = []
        x = leaf(T)
        Two.apply(x, True)[0].sum().backward()
        Two.apply(x, False)[0].sum().backward()
        return Two.got
    r = both(s)
    assert r[1] is None and list(r[0]) == [0.0, 0.0, 0.0]


def test_mark_dirty_of_a_tensor_that_is_not_an_input():
    def s(T):
        class NotInput(T.autograd.Function):
            @staticmethod
            def forward(ctx, a, view):
                c = 3 * a
                c = c.view_as(c) if view else c
                ctx.mark_dirty(c)
                return c

            @staticmethod
            def backward(ctx, g):
                return 3 * g, None
        a = leaf(T)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = NotInput.apply(a.clone(), False)
        out.sum().backward()
        return [[str(w.message).split(" (Triggered")[0] for w in caught], type(out.grad_fn).__name__, a.grad,
                err(lambda: NotInput.apply(a.clone(), True))]
    r = both(s)
    assert r[0] == [r[3][1]] and r[3][1].startswith("ctx.mark_dirty() received a tensor that was not an input.")


def test_mark_dirty_refuses_views_that_cannot_be_modified_in_place():
    def s(T):
        class AddOne(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g
        a = T.tensor([1.0, 2.0], requires_grad=True)
        b, _ = a.split_with_sizes([1, 1], dim=0)
        c, _ = a.clone().split_with_sizes([1, 1], dim=0)
        # (the view's op name in "Output 0 of <op> is a view" follows view tracking, compared elsewhere)
        return [err(lambda: AddOne.apply(b))[1].split(" is a view")[1],
                err(lambda: AddOne.apply(c))[1].split(" is a view")[1],
                err(lambda: AddOne.apply(a.view_as(a))), err(lambda: AddOne.apply(a))]
    r = both(s)
    assert "returns multiple views" in r[0] and r[2][1].startswith("a view of a leaf Variable")


def test_jvp_of_views_and_inputs_returned_as_is():
    def s(T):
        fwAD = T.autograd.forward_ad

        class Narrow(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, how):
                ctx.how = how
                return x.narrow(0, 0, 2)

            @staticmethod
            def vjp(ctx, g):
                return g, None

            @staticmethod
            def jvp(ctx, t, _):
                r = t.narrow(0, 0, 2)
                if ctx.how != "ok":
                    r = r.clone()
                if ctx.how == "other view":
                    r = r.view_as(r)
                return r

        class AsIs(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def vjp(ctx, g):
                return g

            @staticmethod
            def jvp(ctx, t):
                return t if AsIs.same else t.view_as(t)
        out = []
        with fwAD.dual_level():
            tangent = T.ones(4, 3, dtype=T.float64)
            d = fwAD.make_dual(T.rand(4, 3, dtype=T.float64), tangent)
            r = Narrow.apply(d, "ok")
            out.append(fwAD.unpack_dual(r).tangent._base is tangent)
            for how in ("copy", "other view"):
                out.append(err(lambda: Narrow.apply(d, how)))
            out.append(err(lambda: Narrow.apply(d.view_as(d), "other view")))
            AsIs.same = True
            out.append(err(lambda: AsIs.apply(d)))
            AsIs.same = False
            out.append(fwAD.unpack_dual(AsIs.apply(d)).tangent._base is tangent)
        return out
    r = both(s)
    assert r[0] is True and r[5] is True
    assert r[1][1] == ("A custom Function's forward is returning a view (or an input as-is) but the jvp is not "
                       "returning a view.")


def test_jvp_of_dirty_and_non_differentiable_outputs():
    def s(T):
        fwAD = T.autograd.forward_ad

        class Double(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, in_place):
                ctx.in_place = in_place
                ctx.mark_dirty(x)
                return x.mul_(2)

            @staticmethod
            def vjp(ctx, g):
                return 2 * g, None

            @staticmethod
            def jvp(ctx, t, _):
                return t.mul_(2) if ctx.in_place else 2 * t

        class Pair(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, y, mark):
                b = y.clone()
                if mark:
                    ctx.mark_non_differentiable(b)
                return x.clone(), b

            @staticmethod
            def jvp(ctx, tx, ty, _):
                Pair.seen = ty
                return tx, (tx.clone() if Pair.wrong else None)
        out = []
        with fwAD.dual_level():
            t = T.ones(2, dtype=T.float64)
            d = fwAD.make_dual(T.ones(2, dtype=T.float64), t)
            r = Double.apply(d, True)
            out += [r is d, fwAD.unpack_dual(r).tangent is t, t]
            d2 = fwAD.make_dual(T.ones(2, dtype=T.float64), T.ones(2, dtype=T.float64))
            out.append(err(lambda: Double.apply(d2, False)))
            x = fwAD.make_dual(T.tensor(2.0), T.tensor(1.0))
            Pair.wrong = False
            _, b = Pair.apply(x, T.tensor(3.0), True)
            out += [fwAD.unpack_dual(b).tangent, Pair.seen]
            _, b = Pair.apply(x, T.tensor(3), False)
            out += [fwAD.unpack_dual(b).tangent, Pair.seen]
            Pair.wrong = True
            out.append(err(lambda: Pair.apply(x, T.tensor(3.0), True)))
        return out
    r = both(s)
    assert r[:2] == [True, True] and r[3][1].startswith("An inplace custom Function is not modifying")
    assert r[4] is None and r[7] is None and "You should return None at that position instead" in r[8][1]


def test_vmap_defaults_of_a_function():
    def s(T):
        class F(T.autograd.Function):
            @staticmethod
            def forward(x):
                return x * 2

            @staticmethod
            def setup_context(ctx, inputs, output):
                pass

            @staticmethod
            def backward(ctx, g):
                return g * 2
        return [F.generate_vmap_rule, err(lambda: F.vmap(None, (0,), T.ones(2)))]
    r = both(s)
    assert r[0] is False and r[1][0] == "NotImplementedError"


def test_calling_a_node_checks_the_number_of_gradients():
    def s(T):
        x = T.ones(1, requires_grad=True)
        fn = (x ** 2).grad_fn
        return [err(lambda: fn(x.detach(), x.detach())), err(lambda: fn()), fn(T.ones(1))]
    r = both(s)
    assert r[0] == ["TypeError", "expected 1 arguments, got 2 instead"]


def test_function_node_repr_is_a_python_class_repr():
    def s(T):
        class Twice(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        fn = Twice.apply(leaf(T)).grad_fn
        plain_repr = re.sub(r" at 0x[0-9a-f]+", "", repr(fn))
        return [plain_repr, fn.name(), type(fn).__name__, type(fn).__module__]
    # the node class is torch's torch.autograd.function.<Name>Backward, printed as torch prints it
    assert both(s) == ["<torch.autograd.function.TwiceBackward object>", "TwiceBackward", "TwiceBackward",
                       "torch.autograd.function"]


def test_views_a_function_returns_refuse_in_place_ops_recorded_or_not():
    """A view returned by a custom Function carries the custom-Function message even when the call
    was not recorded (no input requires grad, or no_grad); the multiple-views message only when
    more than one output is differentiable (an integer, non-differentiable or non-tensor second
    output does not count)."""
    def s(T):
        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, mode):
                if mode == "int":
                    return x.view_as(x), T.tensor([1])
                if mode == "non_diff":
                    o = x * 2
                    ctx.mark_non_differentiable(o)
                    return x.view_as(x), o
                if mode == "scalar":
                    return x.view_as(x), 3
                return x[:1], x[1:]

            @staticmethod
            def backward(ctx, g, h=None):
                return g, None
        b = T.ones(1, requires_grad=True)
        rows = []
        for requires_grad in (True, False):
            for mode in ("int", "non_diff", "scalar", "two"):
                x = T.ones(2, requires_grad=requires_grad).clone()
                rows.append(err(lambda: F.apply(x, mode)[0].add_(b)))
            x = T.ones(2, requires_grad=requires_grad).clone()
            with T.no_grad():
                v = F.apply(x, "two")[0]
            rows.append(err(lambda: v.copy_(b)))
        return rows
    r = both(s)
    assert [m[1].split(". ")[0] for m in r] == 3 * ["Output 0 of F is a view and is being modified inplace"] + [
        "Output 0 of F is a view and is being modified inplace"] + 6 * [
        "A view was created in no_grad mode and is being modified inplace with grad mode enabled"]
    assert ["multiple views" in m[1] for m in r] == [False, False, False, True] + 6 * [False]
    assert all("created inside a custom Function" in m[1] for k, m in enumerate(r) if k != 3)
