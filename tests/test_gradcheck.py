"""gradcheck / gradgradcheck: torch's options, checks and error messages.

Each failing case is a small custom Function with a deliberately wrong derivative, written once
against the torch API; the exception type and full message must equal torch's (tests/parity.py).
"""
import re
import warnings

import numpy as np
import pytest

from parity import LIBS, both, err, same_error

import ndgrad
from ndgrad.autograd import GradcheckError, gradcheck, gradgradcheck


def x_of(T):
    return T.tensor([0.5, -1.0], dtype=T.float64, requires_grad=True)


def z_of(T):
    return T.tensor([0.5 + 1j, -1.0 - 0.5j], dtype=T.complex128, requires_grad=True)


def half_backward(T):
    """x*x whose backward forgets the factor 2."""
    class Half(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x
    return Half.apply


def square_with(T, jvp_factor=2, detach_in_backward=False):
    class Square(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * g * (x.detach() if detach_in_backward else x)

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return t * jvp_factor * x
    return Square.apply


# ---- the Jacobian mismatch message ----------------------------------------------------------
def test_mismatch_message_is_torchs():
    msg = same_error(lambda T: T.autograd.gradcheck(half_backward(T), (x_of(T),)))
    assert msg.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:tensor([[ 1.0000,")
    assert "\nanalytical:tensor([[ 0.5000," in msg and msg.endswith("dtype=torch.float64)\n")


def test_error_class_is_a_runtime_error():
    with pytest.raises(GradcheckError):
        gradcheck(half_backward(ndgrad), (x_of(ndgrad),))
    assert issubclass(GradcheckError, RuntimeError)


def test_complex_output_mismatch_names_the_part():
    def call(T):
        class Triple(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 3
        T.autograd.gradcheck(Triple.apply, (z_of(T),))
    assert same_error(call).startswith("While considering the imaginary part of complex outputs only, Jacobian "
                                       "mismatch for output 0 with respect to input 0,")


def test_fast_mode_message_recomputes_in_slow_mode():
    messages = []
    for T in LIBS:
        with pytest.raises(RuntimeError) as e:
            T.autograd.gradcheck(half_backward(T), (x_of(T),), fast_mode=True)
        messages.append(str(e.value))
    for msg in messages:
        head, _, slow = msg.partition("\nThe above quantities relating the numerical and analytical jacobians")
        assert head.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")
        assert "Below, we recompute numerical and analytical jacobians in slow mode:" in slow
        assert "The max per-element difference (slow mode) is: 1.0000000000" in slow
    # the random projections differ between the libraries; the slow-mode part does not
    assert len({m.partition("\nThe above")[2] for m in messages}) == 1


def test_forward_mode_mismatch_message():
    msg = same_error(lambda T: T.autograd.gradcheck(square_with(T, jvp_factor=3), (x_of(T),), check_forward_ad=True))
    assert msg.startswith("Jacobian computed with forward mode mismatch for output 0 with respect to input 0,")


@pytest.mark.parametrize("fast", [False, True])
def test_correct_functions_pass(fast):
    def scenario(T):
        x, z = x_of(T), z_of(T)
        checks = dict(fast_mode=fast, check_batched_grad=True, check_grad_dtypes=True)
        return [T.autograd.gradcheck(lambda a: (a.sin() * a).exp(), (x,), check_forward_ad=True, **checks),
                T.autograd.gradcheck(lambda a, b: (a * b.sum(), a.cos()), (x, x_of(T) * 2), **checks),
                T.autograd.gradcheck(lambda a: (a * a).exp(), (z,), check_forward_ad=True, **checks),
                T.autograd.gradcheck(lambda a: (a * a).abs(), (z,), **checks),
                T.autograd.gradcheck(square_with(T), (x,), check_forward_ad=True, **checks)]
    assert both(scenario) == [True] * 5


# ---- the other checks -----------------------------------------------------------------------
def test_raise_exception_false_returns_false():
    for T in LIBS:
        assert T.autograd.gradcheck(half_backward(T), (x_of(T),), raise_exception=False) is False


def test_nondeterministic_backward_and_nondet_tol():
    def noisy(T):
        calls = [0]

        class Noisy(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                calls[0] += 1
                return g * (2 + 1e-9 * calls[0])
        return Noisy.apply
    msg = same_error(lambda T: T.autograd.gradcheck(noisy(T), (x_of(T),)))
    assert msg.startswith("Backward is not reentrant, i.e., running backward with same input and grad_output")
    assert "The tolerance for nondeterminism was 0.0." in msg
    assert both(lambda T: T.autograd.gradcheck(noisy(T), (x_of(T),), nondet_tol=1e-6))


def test_undefined_output_gradients_must_be_handled():
    def call(T):
        class NoUndefined(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                if g is None:
                    raise RuntimeError("no gradient")
                return g * 2
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            T.autograd.gradcheck(NoUndefined.apply, (x_of(T),))
        return T.autograd.gradcheck(NoUndefined.apply, (x_of(T),), check_undefined_grad=False)
    assert same_error(call).startswith("Expected backward function to handle undefined output grads.")


def test_backward_must_scale_with_grad_output():
    def call(T):
        class Offset(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2 + (g == 0).all().double()   # right Jacobian, but nonzero for a zero grad_output
        T.autograd.gradcheck(Offset.apply, (x_of(T),))
    assert same_error(call) == "backward not multiplied by grad_output"


def test_nonlinear_backward_fails_the_batched_check():
    class Squared(ndgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g ** 3 * 2   # right on basis vectors (0 and 1), but not linear in g

    x = x_of(ndgrad)
    with pytest.raises(GradcheckError, match="For output 0 and input 0:"):
        gradcheck(Squared.apply, (x,), check_batched_grad=True, check_undefined_grad=False)


def test_nonlinear_jvp_fails_the_batched_forward_check():
    class CubedTangent(ndgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            return t ** 3 * 2   # right on basis tangents, but not linear in t

    x = x_of(ndgrad)
    assert gradcheck(lambda a: (a * a).sin(), (x,), check_forward_ad=True, check_batched_forward_grad=True)
    with pytest.raises(GradcheckError, match="with forward-mode AD"):
        gradcheck(CubedTangent.apply, (x,), check_forward_ad=True, check_batched_forward_grad=True)


def test_input_and_output_checks():
    assert same_error(lambda T: T.autograd.gradcheck(lambda a: a * 2, (x_of(T).detach(),)), ValueError) == (
        "gradcheck expects at least one input tensor to require gradient, but none of them have requires_grad=True.")
    assert same_error(lambda T: T.autograd.gradcheck(
        lambda a: a * 2, (x_of(T).detach().expand(3, 2).requires_grad_(),))).startswith(
        "The 0th input has a dimension with stride 0.")
    assert same_error(lambda T: T.autograd.gradcheck(lambda a: (a * 2).detach(), (x_of(T),))) == (
        "Numerical gradient for function expected to be zero")
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double precision"):
        gradcheck(lambda a: a * 2, (ndgrad.ones(2, requires_grad=True),), raise_exception=False)


def test_option_consistency_errors():
    same_error(lambda T: T.autograd.gradcheck(lambda a: a, (x_of(T),), check_backward_ad=False), AssertionError)
    same_error(lambda T: T.autograd.gradcheck(lambda a: a, (x_of(T),), check_backward_ad=False,
                                              check_forward_ad=True, check_batched_grad=True), AssertionError)
    same_error(lambda T: T.autograd.gradcheck(lambda a: a, (x_of(T),), check_batched_forward_grad=True),
               AssertionError)
    same_error(lambda T: T.autograd.gradgradcheck(lambda a: a, (x_of(T),), check_rev_over_rev=False),
               AssertionError)


def test_non_contiguous_inputs_are_perturbed_in_place():
    def scenario(T):
        base = T.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], dtype=T.float64)
        x = base.t().detach().requires_grad_()     # a transposed (non-contiguous) leaf
        return T.autograd.gradcheck(lambda a: a.exp() @ a.t(), (x,))
    assert both(scenario) is True


# ---- gradgradcheck --------------------------------------------------------------------------
def test_gradgradcheck_message_with_given_grad_outputs_is_torchs():
    def call(T):
        go = T.tensor([0.3, -0.2], dtype=T.float64, requires_grad=True)
        T.autograd.gradgradcheck(square_with(T, detach_in_backward=True), (x_of(T),), (go,))
    msg = same_error(call)
    assert msg.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:tensor([[ 0.6000,")


@pytest.mark.parametrize("fast", [False, True])
def test_gradgradcheck_catches_a_wrong_second_derivative(fast):
    assert not gradgradcheck(square_with(ndgrad, detach_in_backward=True), (x_of(ndgrad),), fast_mode=fast,
                             raise_exception=False)


def test_gradgradcheck_passes_on_correct_functions():
    def scenario(T):
        x = x_of(T)
        f = lambda a: (a.sin() * a).exp()   # noqa: E731
        return [T.autograd.gradgradcheck(f, (x,)), T.autograd.gradgradcheck(f, (x,), gen_non_contig_grad_outputs=True),
                T.autograd.gradgradcheck(f, (x,), check_fwd_over_rev=True),
                T.autograd.gradgradcheck(f, (x,), fast_mode=True, check_batched_grad=True),
                T.autograd.gradgradcheck(lambda a: a.max(0), (T.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=T.float64,
                                                                     requires_grad=True),))]
    assert both(scenario) == [True] * 5


def test_gradgradcheck_leaves_the_random_state_alone():
    ndgrad.manual_seed(3)
    expected = ndgrad.rand(2)
    ndgrad.manual_seed(3)
    gradgradcheck(lambda a: a.exp(), (x_of(ndgrad),))
    assert np.array_equal(ndgrad.rand(2).numpy(), expected.numpy())


# --- forward mode: inputs without tangent, perturbation that changes the outputs' form ------------
def test_forward_mode_runs_the_jvp_once_more_per_input_for_undefined_tangents():
    def scenario(T):
        calls = [0]

        class Twice(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * 2, y * 3

            @staticmethod
            def jvp(ctx, x_t, y_t):
                calls[0] += 1
                return x_t * 2, y_t * 3
        x = T.tensor([0.5], dtype=T.float64, requires_grad=True)
        counts = []
        for y_grad in (True, False):
            for undefined in (False, True):
                calls[0] = 0
                y = T.tensor([0.25], dtype=T.float64, requires_grad=y_grad)
                T.autograd.gradcheck(Twice.apply, (x, y), check_forward_ad=True, check_backward_ad=False,
                          check_batched_grad=False, check_undefined_grad=undefined)
                counts.append(calls[0])
        return counts
    # two inputs: 2 jvps, then 2 more each (zero tangent, no tangent); one input: 1, then +1
    assert both(scenario) == [2, 6, 1, 2]


@pytest.mark.parametrize("fast", [False, True])
def test_outputs_changing_shape_or_dtype_under_perturbation_are_refused(fast):
    def grows(T):
        return lambda x: T.cat([x, x]) if bool((x >= 1).all()) else x

    def narrows(T):
        return lambda x: x.to(T.float32) if bool((x >= 1).all()) else x

    for make, what in ((grows, "shape"), (narrows, "dtype")):
        msg = same_error(lambda T: T.autograd.gradcheck(make(T), (T.ones(1, dtype=T.float64, requires_grad=True),),
                                             fast_mode=fast), AssertionError)
        assert f"return outputs with the same {what} when inputs are perturbed" in msg


def test_deprecated_jacobian_helpers():
    def scenario(T):
        from importlib import import_module
        gc = import_module(T.__name__ + ".autograd.gradcheck")
        a = T.tensor([[0.5, 1.0], [2.0, -1.0]], dtype=T.float64, requires_grad=True)
        b = T.tensor([[1.5, 0.0], [0.25, 3.0]], dtype=T.float64, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            num_all = gc.get_numerical_jacobian(lambda xs: (xs[0] * 3 + xs[1], xs[0]), (a, b), eps=1e-6)
            num_a = gc.get_numerical_jacobian(lambda xs: xs[0] * xs[1], (a, b), target=a, eps=1e-6)
            jac, reentrant, sizes_ok, types_ok = gc.get_analytical_jacobian((a, b), a * b + a)
        kinds = sorted({(w.category.__name__, str(w.message).split(" was")[0]) for w in caught})
        errors = [err(lambda: gc.get_numerical_jacobian(lambda xs: xs[0], (a,), grad_out=2.0)),
                  err(lambda: gc.get_analytical_jacobian((a,), a * 2, grad_out=2.0))]
        return [list(num_all), list(num_a), list(jac), reentrant, sizes_ok, types_ok, kinds, errors]
    out = both(scenario, atol=1e-8)
    np.testing.assert_allclose(out[0][0], 3 * np.eye(4), atol=1e-8)
    assert out[6] == [["FutureWarning", "`get_analytical_jacobian`"], ["FutureWarning", "`get_numerical_jacobian`"]]
    assert out[7][0] == ["ValueError", "Expected grad_out to be 1.0. get_numerical_jacobian no longer supports "
                                       "values of grad_out != 1.0."]


def test_a_nondeterministic_backward_is_reported_by_get_analytical_jacobian():
    def scenario(T):
        from importlib import import_module
        gc = import_module(T.__name__ + ".autograd.gradcheck")
        calls = [0]

        class Drifting(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, g):
                calls[0] += 1
                return g * (1 + 1e-3 * calls[0])
        a = T.tensor([0.5, 2.0], dtype=T.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return gc.get_analytical_jacobian((a,), Drifting.apply(a))[1]
    assert both(scenario) is False


def test_double_backward_of_prod_reduction_with_two_zeros_at_one_place_raises():
    for name, arg in (("scatter_reduce", "src"), ("index_reduce", "source")):
        def call(T):
            x = T.tensor([1.0], dtype=T.float64, requires_grad=True)
            src = T.tensor([0.0, 0.0], dtype=T.float64, requires_grad=True)
            fn = getattr(T, name)
            assert T.autograd.gradcheck(fn, (x, 0, T.tensor([0, 0]), src, "prod"))
            T.autograd.gradgradcheck(fn, (x, 0, T.tensor([0, 0]), src, "prod"))
        assert same_error(call) == (f"{name}(): Double backward is unsupported for {arg} when >1 zeros in {arg} are "
                                    "scattered to the same position in self")


def test_pow_of_a_negative_real_base_with_complex_exponent():
    def scenario(T):
        e = T.tensor([0.3 + 0.5j, -1.2 + 0.1j], dtype=T.complex128, requires_grad=True)
        base = -T.ones(2, dtype=T.float64)
        g1, = T.autograd.grad(T.pow(base, e).abs().sum(), e)
        g2, = T.autograd.grad(T.pow(-1, e).abs().sum(), e)
        return [g1, g2, T.autograd.gradcheck(lambda e: T.pow(base, e), (e,)), T.autograd.gradcheck(lambda e: T.pow(-1, e), (e,))]
    assert both(scenario)[2:] == [True, True]


# --- sparse inputs ------------------------------------------------------------------------------
def _sparse_input(T, layout):
    blocked = layout in (T.sparse_bsr, T.sparse_bsc)
    dense = T.tensor(np.linspace(0.2, 1.7, 32 if blocked else 4).reshape((4, 8) if blocked else (2, 2)),
                     dtype=T.float64)
    return dense.to_sparse(layout=layout, blocksize=(2, 2) if blocked else None).requires_grad_()


@pytest.mark.parametrize("layout", ["sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc"])
def test_sum_of_a_sparse_input_passes_in_every_mode(layout):
    def scenario(T):
        x = _sparse_input(T, getattr(T, layout))
        y = T.sum(x)
        y.backward()
        checks = [T.autograd.gradcheck(T.sum, _sparse_input(T, getattr(T, layout)), masked=masked,
                                       check_batched_grad=False, fast_mode=fast)
                  for fast in (False, True) for masked in (False, True)]
        return [y, y.grad_fn.name(), str(x.grad.layout), x.grad, checks]
    assert both(scenario)[4] == [True] * 4


@pytest.mark.parametrize("fast", [False, True])
def test_masked_decides_whether_unspecified_elements_are_differentiated(fast):
    def scenario(T):
        x = T.tensor([[0.0, 1.5], [2.0, 0.0]], dtype=T.float64).to_sparse().requires_grad_()
        y = T.tensor([[0.5, 0.25], [1.0, 3.0]], dtype=T.float64, requires_grad=True)
        kw = dict(check_batched_grad=False, fast_mode=fast, raise_exception=False)
        return [T.autograd.gradcheck(lambda x: x.to_dense(), (x,), masked=True, **kw),
                T.autograd.gradcheck(lambda x: x.to_dense(), (x,), masked=False, **kw),
                T.autograd.gradcheck(lambda x: x.to_dense(masked_grad=False), (x,), masked=False, **kw),
                T.autograd.gradcheck(lambda a, b: a * b.coalesce().to_dense(), (y, x), masked=True, **kw)]
    # fast mode draws its direction on the stored elements only (as torch's does), so it cannot see
    # the unspecified ones even without masked
    assert both(scenario) == [True, fast, True, True]


@pytest.mark.parametrize("fast", [False, True])
def test_sparse_gradient_checks_name_the_problem(fast):
    def wrong_sparse_dim(T):
        def fn(x):
            y = x.clone()
            y.register_hook(lambda g: g.to_dense().to_sparse(1))
            return y.to_dense()
        x = T.ones((2, 2), dtype=T.float64, requires_grad=True).to_sparse()
        T.autograd.gradcheck(fn, (x,), atol=1e-1, masked=True, check_batched_grad=False, fast_mode=fast)

    def batched(T):
        x = T.tensor([0.5, 0.0, 2.0], dtype=T.float64, requires_grad=True).to_sparse()
        T.autograd.gradcheck(lambda x: x.to_dense(), (x,), masked=True, check_batched_grad=True, fast_mode=fast)
    assert same_error(wrong_sparse_dim) == "grad is sparse tensor, but has incorrect sparse_dim 1, expected 2"
    with pytest.raises(GradcheckError, match="gradcheck or gradgradcheck failed while testing batched gradient"):
        batched(ndgrad)


def test_grad_output_check_comes_before_the_linearity_check():
    def affine_hook(T):
        def fn(a):
            y = a.clone()
            y.register_hook(lambda g: g + 1e-2)    # right Jacobian, offset by a constant
            return y
        T.autograd.gradcheck(fn, (x_of(T),), atol=1e-1, check_batched_grad=True)
    assert same_error(affine_hook) == "backward not multiplied by grad_output"


def test_batched_forward_check_refuses_random_operations_in_the_jvp():
    def s(T):
        class NoisyJvp(T.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

            @staticmethod
            def jvp(ctx, t):
                T.randn_like(t)                    # harmless, but vmap cannot batch a draw
                return t * 2
        T.autograd.gradcheck(NoisyJvp.apply, (x_of(T),), check_forward_ad=True, check_batched_forward_grad=True)
    assert same_error(s).startswith("While computing batched gradients, got: vmap: We do not yet support calling "
                                    "random operations inside of vmap. Please perform random operations outside of "
                                    "vmap as a workaround\n\n\ngradcheck failed while testing batched gradient "
                                    "computation with forward-mode AD.")
    assert gradcheck(lambda a: a * 2, (x_of(ndgrad),), check_forward_ad=True, check_batched_forward_grad=True)


def test_fast_mode_projects_on_torchs_directions():
    # fast mode draws u and v from a fresh generator at torch's default seed, in torch's order (u of each
    # input, a complex input's imaginary direction after its real one, then v): vᵀJu is torch's number,
    # so a check near its tolerance passes or fails as in torch; the user's random stream is untouched
    def scenario(T):
        z = T.tensor([[0.5 + 1j, -1.0 - 0.5j, 0.25j], [2.0, 0.5 - 0.5j, -0.75]], dtype=T.complex128,
                     requires_grad=True)
        x = T.tensor([0.5, -1.0, 2.0], dtype=T.float64, requires_grad=True)
        T.manual_seed(5)
        reported = []
        for inp in (z, x):
            with pytest.raises(RuntimeError) as e:   # GradcheckError
                T.autograd.gradcheck(lambda a: half_backward(T)(a) * 3, (inp,), fast_mode=True)
            found = dict(re.findall(r"(numerical|analytical):(\S+)", str(e.value)))
            reported.append([complex(found["numerical"]), complex(found["analytical"])])
        return [np.array(reported), T.rand(2)]
    reported, after = both(scenario)
    np.testing.assert_allclose(reported[0], [-0.8937036106485775 + 0.010945661281388352j,
                                             0.44685180534697067 + 0.005472830652432148j], rtol=1e-9)
    np.testing.assert_allclose(reported[1], [-2.0210490216050996, -1.0105245108911356], rtol=1e-9)
    ndgrad.manual_seed(5)
    np.testing.assert_array_equal(after, ndgrad.rand(2).numpy())
